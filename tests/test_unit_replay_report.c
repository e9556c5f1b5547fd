/*
 * test_unit_replay_report.c -- what the replay engine (runtime/replay.c)
 * gives back for hand-built event logs, and its traces (runtime/trace.c):
 * bit-identical results over random logs however they are built and
 * however the indexing pass is cut, the errors of malformed logs (the lowest
 * rank's first), the report through the world's wrappers, the Chrome
 * trace and the ASCII timeline. The rules themselves: test_unit_replay.c.
 *
 * Logs are appended the way the runtime records them (evlog_builder.h;
 * test_unit_replay.c says how).
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#include "evlog_builder.h"
#include "json_reader.h"
#include "replay_unit.h"

/* A replay that must fail: no result, and the error code. */
static int replay_err(struct bld *b, const tutti_model_t *m, char *err, size_t n) {
  struct tutti_replay *rp = (struct tutti_replay *)1;
  int rc = tutti__replay_run(m, b->P, b->ptrs, &rp, err, n);
  cr_assert(rp == NULL);
  return rc;
}

/* ----------------------------------------------------------- determinism */

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Rounds of random pairs exchanging random sizes (eager and rendezvous),
 * with some local work. rank_major: append rank by rank instead of round
 * by round (same per-rank order, another construction interleaving). */
static struct bld *random_pairs(int P, int rounds, uint64_t seed, int rank_major) {
  struct bld *b = bld_new(P);
  int *perm = malloc((size_t)P * sizeof *perm);
  uint64_t *sizes = malloc((size_t)P * sizeof *sizes);
  struct op {
    int peer;
    uint64_t bytes;
  } *plan = malloc((size_t)P * (size_t)rounds * sizeof *plan);
  for (int k = 0; k < rounds; k++) {
    for (int i = 0; i < P; i++) perm[i] = i;
    for (int i = P - 1; i > 0; i--) {
      int j = (int)(rng_next(&seed) % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    for (int i = 0; i < P; i++) sizes[i] = rng_next(&seed) % 3000;
    for (int i = 0; i < P; i++) plan[k * P + i] = (struct op){-1, 0};
    for (int i = 0; i + 1 < P; i += 2) {
      plan[k * P + perm[i]] = (struct op){perm[i + 1], sizes[perm[i]]};
      plan[k * P + perm[i + 1]] = (struct op){perm[i], sizes[perm[i + 1]]};
    }
  }
  for (int outer = 0; outer < (rank_major ? P : rounds); outer++)
    for (int inner = 0; inner < (rank_major ? rounds : P); inner++) {
      int r = rank_major ? outer : inner, k = rank_major ? inner : outer;
      struct op o = plan[k * P + r];
      if (o.peer < 0)
        b_compute(b, r, 1e-6 * (r % 3));
      else
        b_sendrecv(b, r, o.peer, k, o.bytes, o.peer, k);
      if (r % 5 == 0) b_reduce(b, r, 100);
    }
  free(perm);
  free(sizes);
  free(plan);
  return b;
}

static tutti_model_t mixed_model(void) {
  tutti_model_t m = {.preset = TUTTI_MODEL_CUSTOM};
  m.send_cpu = (tutti_cost_t){.floor = 0.3e-6, .a = 0.2e-6, .b = 0.1e-9};
  m.send_port = (tutti_cost_t){.floor = 0.5e-6, .a = 0.4e-6, .b = 0.5e-9};
  m.latency = (tutti_cost_t){.floor = 0, .a = 1.1e-6, .b = 0.7e-9};
  m.recv_port = (tutti_cost_t){.floor = 0.2e-6, .a = 0.1e-6, .b = 0.6e-9};
  m.recv_cpu = (tutti_cost_t){.floor = 0, .a = 0.05e-6, .b = 0.01e-9};
  m.gamma = 0.3e-9;
  m.eager_limit = 1500;
  return m;
}

Test(determinism, replay_twice_bit_identical, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *b = random_pairs(61, 50, 42, 0);
  struct tutti_replay *r1 = replay(b, &m), *r2 = replay(b, &m);
  cr_assert(r1->eager > 0 && r1->rendezvous > 0);
  cr_assert(eq(u32, r1->nmsgs, r2->nmsgs));
  cr_assert(memcmp(r1->msgs, r2->msgs, r1->nmsgs * sizeof *r1->msgs) == 0);
  cr_assert(memcmp(r1->rank_end, r2->rank_end, 61 * sizeof(double)) == 0);
  tutti__replay_free(r1);
  tutti__replay_free(r2);
  bld_free(b);
}

Test(determinism, construction_order_does_not_matter, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *a = random_pairs(64, 40, 7, 0), *b = random_pairs(64, 40, 7, 1);
  struct tutti_replay *ra = replay(a, &m), *rb = replay(b, &m);
  for (int r = 0; r < 64; r++) {
    cr_assert(eq(u32, a->logs[r].n, b->logs[r].n));
    cr_assert(memcmp(a->logs[r].ev, b->logs[r].ev, a->logs[r].n * sizeof(struct tutti_ev)) == 0);
  }
  cr_assert(memcmp(ra->msgs, rb->msgs, ra->nmsgs * sizeof *ra->msgs) == 0);
  cr_assert(memcmp(ra->rank_end, rb->rank_end, 64 * sizeof(double)) == 0);
  cr_assert(ra->modeled_time > 0);
  tutti__replay_free(ra);
  tutti__replay_free(rb);
  bld_free(a);
  bld_free(b);
}

/* The indexing pass on one thread per CPU (past tutti__replay_wide_events)
 * gives what it gives on one: the same ops, messages and times. */
Test(determinism, wide_first_pass_equals_narrow, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *b = random_pairs(61, 50, 42, 0);
  uint64_t keep = tutti__replay_wide_events;
  tutti__replay_wide_events = UINT64_MAX;
  struct tutti_replay *one = replay(b, &m);
  tutti__replay_wide_events = 0;
  struct tutti_replay *wide = replay(b, &m);
  tutti__replay_wide_events = keep;
  cr_assert(eq(u64, one->events, wide->events));
  cr_assert(memcmp(one->ops, wide->ops, one->events * sizeof *one->ops) == 0);
  cr_assert(eq(u32, one->nmsgs, wide->nmsgs));
  cr_assert(memcmp(one->msgs, wide->msgs, one->nmsgs * sizeof *one->msgs) == 0);
  cr_assert(memcmp(one->rank_end, wide->rank_end, 61 * sizeof(double)) == 0);
  cr_assert(eq(int, one->ncalls, wide->ncalls));
  tutti__replay_free(one);
  tutti__replay_free(wide);
  bld_free(b);
}

/* ... and the same first error, in rank order, wherever the ranks are cut. */
Test(errors, wide_first_pass_reports_the_lowest_rank, .timeout = 30) {
  tutti_model_t m = mixed_model();
  const int bad[][2] = {{2, 57}, {57, -1}, {0, 60}};
  for (int c = 0; c < 3; c++) {
    char want[256], got[256];
    struct bld *b = random_pairs(61, 20, 5, 0);
    bld_match(b); /* well-formed, but for the WAITs below */
    for (int k = 0; k < 2; k++)
      if (bad[c][k] >= 0) push(b, bad[c][k], TUTTI_EV_WAIT, 0, 0, 1u << 30, 0); /* a later event */
    uint64_t keep = tutti__replay_wide_events;
    tutti__replay_wide_events = UINT64_MAX;
    cr_assert(eq(int, replay_err(b, &m, want, sizeof want), TUTTI_EINVAL));
    tutti__replay_wide_events = 0;
    cr_assert(eq(int, replay_err(b, &m, got, sizeof got), TUTTI_EINVAL));
    tutti__replay_wide_events = keep;
    char rank[32];
    snprintf(rank, sizeof rank, "rank %d event", bad[c][0]);
    cr_assert(not(eq(ptr, strstr(want, rank), NULL)), "%s", want);
    cr_assert(eq(str, got, want));
    bld_free(b);
  }
}

/* ----------------------------------------------------------- bad logs */

Test(errors, bad_logs, .timeout = 10) {
  tutti_model_t m = postal(2);
  char err[256];

  struct bld *b = bld_new(1); /* a WAIT on a later event */
  push(b, 0, TUTTI_EV_WAIT, 0, 0, 3, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "WAIT") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(1); /* a WAIT on a COMPUTE */
  b_compute(b, 0, 1);
  push(b, 0, TUTTI_EV_WAIT, 0, 0, 0, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  b = bld_new(2); /* a RECV naming a send with another tag */
  b_send(b, 0, 1, 3, 8);
  push(b, 1, TUTTI_EV_RECV, 0, 4, 0, 8);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "not a SEND") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* received twice */
  b_send(b, 0, 1, 0, 8);
  push(b, 1, TUTTI_EV_RECV, 0, 0, 0, 8);
  push(b, 1, TUTTI_EV_RECV, 0, 0, 0, 8);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "already received") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* a SEND whose number is not its place among the log's sends */
  b_send(b, 0, 1, 0, 8);
  b_send(b, 0, 1, 0, 8);
  b->logs[0].ev[2].ref = 0; /* tutti__evlog_push wrote 1 */
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "rank 0 event 2: SEND numbered 0, but it is send 1") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* a log whose count of sends is not its sends */
  b_send(b, 0, 1, 0, 8);
  b->logs[0].nsend = 2;
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "rank 0: its log counts 2 sends but holds 1") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* peer out of range */
  b_send(b, 0, 7, 0, 8);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  b = bld_new(2); /* spans differ */
  b_span(b, 0, "bcast");
  b_end(b, 0);
  b_span(b, 1, "reduce");
  b_end(b, 1);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "reduce") != NULL && strstr(err, "bcast") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* a span missing on one rank */
  b_span(b, 0, "bcast");
  b_end(b, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  b = bld_new(1); /* nested spans */
  b_span(b, 0, "a");
  b_span(b, 0, "b");
  b_end(b, 0);
  b_end(b, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  tutti_model_t h = hockney(1 * US, 1e-9); /* a rendezvous send nobody receives */
  b = bld_new(2);
  b_send(b, 0, 1, 0, 8);
  cr_assert(eq(int, replay_err(b, &h, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "cannot finish") != NULL && strstr(err, "rank 0") != NULL, "%s", err);
  bld_free(b);

  tutti_model_t bad = postal(2); /* a negative cost */
  bad.latency = (tutti_cost_t){.floor = -1, .a = -1, .b = 0};
  b = bld_new(1);
  cr_assert(eq(int, replay_err(b, &bad, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  /* a topology must be bound to exactly the replay's ranks */
  tutti_topo_t *t = NULL;
  cr_assert(eq(int, tutti_topo_from_spec("tree:2", NULL, &t, err, sizeof err), 0), "%s", err);
  tutti_model_t topo = postal(2);
  topo.topo = t;
  b = bld_new(2);
  cr_assert(eq(int, replay_err(b, &topo, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "not bound") != NULL, "%s", err);
  bld_free(b);
  cr_assert(eq(int, tutti_topo_bind_text(t, 2, NULL, 0, err, sizeof err), 0), "%s", err);
  b = bld_new(1);
  cr_assert(eq(int, replay_err(b, &topo, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "bound to 2 ranks but the world has 1") != NULL, "%s", err);
  bld_free(b);
  tutti_topo_free(t);
}

/* An eager message nobody receives still passes through the ports. */
Test(errors, unreceived_eager_is_fine, .timeout = 10) {
  tutti_model_t m = consts(0, 0, 1, 2, 0, TUTTI_EAGER_ALL);
  struct bld *b = bld_new(3);
  b_send(b, 1, 0, 0, 8); /* never received; arrives at 1, served at 2 */
  b_compute(b, 2, 1);
  b_send(b, 2, 0, 0, 8); /* arrives at 2, served at 4 */
  b_recv(b, 0, 2, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->rank_end[0], 4));
  tutti__replay_free(rp);
  bld_free(b);
}

/* ----------------------------------------------------------- report API */

Test(report, world_wrappers, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  for (int r = 0; r < 8; r++) b_span(b, r, "bcast");
  binomial_bcast(b, 1000, 0);
  for (int r = 0; r < 8; r++) b_end(b, r);
  struct tutti_replay *rp = replay(b, &m);

  struct tutti_world w;
  memset(&w, 0, sizeof w);
  w.nranks = 8;
  w.record = true;
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(&w, &rep), TUTTI_ENOTSUP));
  cr_assert(eq(int, tutti_world_report(NULL, &rep), TUTTI_EINVAL));
  w.replay = rp;
  cr_assert(eq(int, tutti_world_report(&w, &rep), 0));
  cr_assert(eq(int, rep.nranks, 8));
  cr_assert(eq(int, rep.ncalls, 1));
  NEAR(rep.calls[0].time, 6 * US);
  cr_assert(eq(u64, rep.messages, 7));
  cr_assert(eq(u64, rep.bytes, 7000));
  cr_assert(eq(u64, rep.rendezvous, 7));
  cr_assert(eq(u64, rep.events, 8 * 2 + 7 * 4));
  cr_assert(rep.replay_bytes > 0 && rep.replay_wall_time >= 0);
  for (int r = 0; r < 8; r++) NEAR(rep.rank_last_call[r], rep.rank_end[r]);
  w.running = true;
  cr_assert(eq(int, tutti_world_report(&w, &rep), TUTTI_EBUSY));
  w.running = false;

  FILE *f = tmpfile();
  cr_assert(eq(int, tutti_world_trace(&w, f), 0));
  cr_assert(eq(int, tutti_world_timeline(&w, f, 40), 0));
  fclose(f);
  tutti__replay_free(rp);
  bld_free(b);
}

/* --------------------------------------------------------------- traces */

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static char *trace_text(const struct tutti_replay *rp) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f != NULL);
  cr_assert(eq(int, tutti__replay_trace(rp, f), 0));
  fclose(f);
  return buf;
}

Test(trace, chrome_json_well_formed, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *b = random_pairs(16, 10, 3, 0);
  for (int r = 0; r < 16; r++) {
    b_span(b, r, "a \"quoted\" call\\");
    b_compute(b, r, 2e-6);
    b_end(b, r);
  }
  b_send(b, 0, 1, 9, 1024); /* one isend that is never waited for */
  b_isend(b, 2, 3, 9, 8);
  b_recv(b, 1, 0, 9);
  b_recv(b, 3, 2, 9);
  struct tutti_replay *rp = replay(b, &m);
  char *txt = trace_text(rp);
  cr_assert(json_parse(txt).ok, "trace is not JSON");
  cr_assert(strstr(txt, "{\"traceEvents\":[") != NULL);
  cr_assert(strstr(txt, "\"displayTimeUnit\":\"ns\"") != NULL);
  cr_assert(eq(int, count(txt, "\"ph\":\"s\""), (int)rp->messages));
  cr_assert(eq(int, count(txt, "\"ph\":\"f\",\"bp\":\"e\""), (int)rp->messages));
  cr_assert(eq(int, count(txt, "\"name\":\"thread_name\""), 32)); /* a rank's lane, its states' */
  cr_assert(strstr(txt, "\"rank 15\"") != NULL);
  cr_assert(strstr(txt, "\"send 1 KiB to 1, tag 9\"") != NULL, "%s", txt);
  cr_assert(strstr(txt, "\"recv 8 B from 2, tag 9\"") != NULL);
  cr_assert(strstr(txt, "\"compute 2 us\"") != NULL);
  cr_assert(strstr(txt, "\"reduce 100 B\"") != NULL);
  cr_assert(eq(int, count(txt, "\"cat\":\"call\""), 16));
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);
}

/* In the trace a rank's slices never partially overlap (Perfetto needs
 * them nested): sends, receives and compute slices tile each rank. */
Test(trace, slices_do_not_overlap, .timeout = 30) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  flat_bcast(b, 1000);
  struct tutti_replay *rp = replay(b, &m);
  char *txt = trace_text(rp);
  double last_end[16] = {0}; /* tids 0..7 the ranks, 8..15 their states */
  for (const char *p = txt; (p = strstr(p, "\"ph\":\"X\"")); p++) {
    int tid;
    double ts, dur;
    const char *q = strstr(p, "\"tid\":");
    cr_assert(q != NULL && sscanf(q, "\"tid\":%d,\"ts\":%lf,\"dur\":%lf", &tid, &ts, &dur) == 3);
    cr_assert(tid >= 0 && tid < 16, "tid %d", tid);
    cr_assert(ts >= last_end[tid] - 1e-9, "rank %d: slice at %g before %g", tid, ts, last_end[tid]);
    last_end[tid] = ts + dur;
  }
  cr_assert(strstr(txt, "\"ts\":12.000000,\"dur\":2.000000") != NULL); /* root's 7th send */
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);
}

static char *timeline_text(const struct tutti_replay *rp, int width) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f != NULL);
  cr_assert(eq(int, tutti__replay_timeline(rp, f, width), 0));
  fclose(f);
  return buf;
}

static int rows(const char *txt) {
  int n = 0;
  for (const char *p = txt; p; p = strchr(p, '\n')) {
    if (*p == '\n') p++;
    if (p[0] == 'r' && p[1] >= '0' && p[1] <= '9') n++;
  }
  return n;
}

Test(trace, timeline_rows, .timeout = 30) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  flat_bcast(b, 1000);
  b_compute(b, 3, 4 * US);
  struct tutti_replay *rp = replay(b, &m);
  char *txt = timeline_text(rp, 56);
  cr_assert(eq(int, rows(txt), 8), "%s", txt);
  cr_assert(strstr(txt, "r0    |SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS|") != NULL,
            "%s", txt);
  cr_assert(strstr(txt, "r1    |RRRRRRRR      ") != NULL, "%s", txt); /* receives [0, 2] of 14 us */
  cr_assert(strstr(txt, "r3    |................RRRRRRRRCCCCCCCCCCCCCCCC       ") != NULL, "%s",
            txt);
  cr_assert(strstr(txt, "14 us") != NULL, "%s", txt);
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);

  b = bld_new(40);
  binomial_bcast(b, 1000, 0);
  rp = replay(b, &m);
  txt = timeline_text(rp, 0);
  cr_assert(eq(int, rows(txt), 32), "%s", txt);
  cr_assert(strstr(txt, "first 32 of 40") != NULL, "%s", txt);
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);
}
