/*
 * test_e2e_realtime.c -- `tutti run --realtime SCALE` (bench/cli_run.c,
 * bench/cli_live.c) and the library's pacing underneath (TUTTI_WALLCLOCK,
 * tutti_world_paced_clock): a paced run takes at least SCALE x its modeled
 * time in wall time (the only deterministic bound: a loaded machine makes
 * it longer, never shorter), and its modeled times, per-rank times, message
 * counts, verdict and timeline equal an unpaced run's. Scales are small:
 * every paced run here takes about 0.1 s. Bad values are exit 2 with one
 * line.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <math.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "json_reader.h"
#include "tutti/tutti.h"

/* The JSON of `tutti run ... --json`, exit 0 checked. */
static struct cli run_json(const char *const *args) {
  struct cli c = run_env(NULL, args);
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  return c;
}

/* One job run unpaced and at `scale`: same modeled results, wall >= scale x modeled. */
static void paced_equals_unpaced(const char *coll, const char *algo, const char *n, const char *m,
                                 const char *model, const char *scale, const char *extra,
                                 double want_modeled) {
  const char *base[] = {"run", coll,      algo,  "-n",     n,     "-m",
                        m,     "--model", model, "--json", extra, NULL};
  const char *paced[] = {"run",     coll,  algo,     "-n",         n,     "-m",  m,
                         "--model", model, "--json", "--realtime", scale, extra, NULL};
  struct cli u = run_json(base), p = run_json(paced);
  struct jp ju = json_ok(u.out), jpc = json_ok(p.out);
  double mu = json_num(&ju, "modeled_time"), mp = json_num(&jpc, "modeled_time");
  cr_assert(eq(dbl, mp, mu), "%s %s: paced modeled %.17g, unpaced %.17g", coll, algo, mp, mu);
  if (!isnan(want_modeled)) cr_assert(eq(dbl, mu, want_modeled), "%s %s: modeled", coll, algo);
  static const char *same[] = {"modeled_times", "per_rank", "messages", "bytes_moved", "verified"};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    const char *a = json_get(&ju, same[i]), *b = json_get(&jpc, same[i]);
    size_t la = strcspn(a, ",}"), lb = strcspn(b, ",}");
    if (*a == '[') la = (size_t)(strchr(a, ']') - a), lb = (size_t)(strchr(b, ']') - b);
    cr_assert(la == lb && !strncmp(a, b, la), "%s %s: %s differs: %.*s against %.*s", coll, algo,
              same[i], (int)la, a, (int)lb, b);
  }
  if (!extra || strcmp(extra, "--no-data"))
    cr_assert(eq(int, strncmp(json_get(&jpc, "verified"), "true", 4), 0), "paced run not verified");
  double s = strtod(scale, NULL);
  cr_assert(eq(dbl, json_num(&jpc, "realtime"), s));
  cr_assert(eq(int, strncmp(json_get(&ju, "realtime"), "null", 4), 0), "unpaced realtime not null");
  double wall = json_num(&jpc, "wall_time");
  cr_assert(ge(dbl, wall, s * mp), "%s %s: paced wall %g s < %g x modeled %g", coll, algo, wall, s,
            mp);
  cli_free(&u), cli_free(&p);
}

Test(realtime, postal_flat_root_sends_one_after_another, .timeout = 120) {
  /* root sends P-1 messages one step apart; the last arrives L after the
   * last send started: P - 2 + L = 8 steps, 80 ms at 0.01 s a step */
  paced_equals_unpaced("bcast", "flat", "8", "8", "postal:L=2", "0.01", NULL, 8);
  paced_equals_unpaced("bcast", "binomial", "8", "8", "postal:L=3", "0.01", NULL, NAN);
}

Test(realtime, hockney_rendezvous_and_eager, .timeout = 120) {
  /* rendezvous (eager_limit 0) and all-eager; microseconds scaled to ~0.1 s */
  paced_equals_unpaced("bcast", "binomial", "16", "1KiB", "hockney:alpha=1us,beta=1ns", "2e4", NULL,
                       NAN);
  paced_equals_unpaced("bcast", "flat", "6", "64", "hockney:alpha=1us,beta=1ns,eager_limit=all",
                       "1e4", NULL, NAN);
  paced_equals_unpaced("allreduce", "ring", "5", "1KiB", "hockney:alpha=1us,beta=1ns", "5e3", NULL,
                       NAN);
}

Test(realtime, reductions_nodata_and_logp, .timeout = 120) {
  /* no receive port queues here (they are not paced: bench/CLI.md) */
  paced_equals_unpaced("bcast", "binomial", "7", "256", "logp:L=5us,o=1us,g=2us", "5e3", NULL, NAN);
  paced_equals_unpaced("reduce", "binomial", "7", "256", "hockney:alpha=1us,beta=1ns", "2e4", NULL,
                       NAN);
  paced_equals_unpaced("bcast", "pipelined-chain", "6", "4KiB", "hockney:alpha=1us,beta=1ns", "5e3",
                       "--no-data", NAN);
}

/* Off a terminal the timeline prints once, at the end, and is the unpaced one. */
Test(realtime, timeline_off_a_terminal_prints_once, .timeout = 120) {
  struct cli u = CLI("run", "bcast", "flat", "-n", "6", "--model", "postal:L=2", "--timeline"),
             p = CLI("run", "bcast", "flat", "-n", "6", "--model", "postal:L=2", "--timeline",
                     "--realtime", "0.01");
  cr_assert(eq(int, u.status, 0));
  cr_assert(eq(int, p.status, 0), "%s", p.err);
  cr_assert(eq(ptr, strchr(p.out, '\033'), NULL), "escape codes off a terminal");
  const char *tu = strstr(u.out, "\nmodeled time 6 steps"), *tp = strstr(p.out, "\nmodeled time 6");
  cr_assert(ne(ptr, (void *)tu, NULL), "%s", u.out);
  cr_assert(ne(ptr, (void *)tp, NULL), "%s", p.out);
  cr_assert(eq(str, (char *)tp, (char *)tu), "the paced timeline differs");
  cr_assert(eq(ptr, strstr(tp + 1, "\nmodeled time"), NULL), "printed more than once");
  HAS(p.out, "paced         0.01 wall s per modeled step (--realtime): wall time >= 60 ms");
  cli_free(&u), cli_free(&p);
}

/* How many of S, R, '.' and '#' a frame of the live timeline shows. */
static int marks(const char *from, const char *to) {
  int n = 0;
  for (const char *p = from; p < to; p++) n += *p == 'S' || *p == 'R' || *p == '.' || *p == '#';
  return n;
}

/* On a terminal (a pseudo-terminal here) the timeline is drawn live:
 * several frames, each over the last (cursor up), the rows growing as the
 * paced run goes on, then the report with the whole timeline. */
Test(realtime, timeline_on_a_terminal_is_redrawn, .timeout = 120) {
  const char *args[] = {"tutti",   "run",        "bcast",      "flat",       "-n",  "6",
                        "--model", "postal:L=2", "--timeline", "--realtime", "0.1", NULL};
  char *out = cli_on_terminal(0, args);
  /* the frames: each starts "live: "; 6 modeled steps x 0.1 s are >= 0.6 s
   * of wall time, redrawn about every 0.1 s */
  const char *frame[64];
  int nf = 0;
  for (const char *p = strstr(out, "live: "); p && nf < 64; p = strstr(p + 1, "live: "))
    frame[nf++] = p;
  cr_assert(ge(int, nf, 2), "%d frames:\n%s", nf, out);
  cr_assert(ne(ptr, strstr(out, "\033["), NULL), "no cursor movement");
  const char *end = strstr(frame[nf - 1], "collective"); /* the tty turns \n to \r\n */
  cr_assert(ne(ptr, (void *)end, NULL), "no report after the frames");
  int first = marks(frame[0], frame[1]), last = marks(frame[nf - 1], end);
  cr_assert(lt(int, first, last), "the rows did not grow: %d marks, then %d", first, last);
  cr_assert(ne(ptr, strstr(end, "modeled time 6 steps"), NULL), "%s", end);
  free(out);
}

Test(realtime, bad_values, .timeout = 60) {
  static const char *bad[] = {"0", "-1", "abc", "1x", "nan", "inf", "1e10", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct cli c = CLI("run", "bcast", "flat", "-n", "4", "--realtime", bad[i]);
    fails_with(c, 2, "--realtime");
    HAS(c.err, "accepted: wall seconds per modeled second");
    cli_free(&c);
  }
  struct cli c = CLI("run", "bcast", "flat", "-n", "4", "--model", "none", "--realtime", "1");
  fails_with(c, 2, "--realtime: the none model has no modeled time");
  cli_free(&c);
  c = CLI("run", "bcast", "flat", "-n", "4", "--realtime", "1", "--realtime", "2");
  fails_with(c, 2, "realtime");
  cli_free(&c);
  c = CLI("suite", "--realtime", "1");
  fails_with(c, 2, "realtime");
  cli_free(&c);
}

/* The library: tutti_world_paced_clock is NaN unpaced or out of range; after a
 * paced ping-pong each rank's clock is its modeled end (the pacing follows
 * rules 1-4 exactly for blocking eager messages). */
static int pingpong(tutti_rank_t *r, void *arg) {
  (void)arg;
  char b = 0;
  for (int i = 0; i < 3; i++) {
    int rc = tutti_rank(r) == 0 ? tutti_send(r, &b, 1, TUTTI_BYTE, 1, 0)
                                : tutti_recv(r, &b, 1, TUTTI_BYTE, 0, 0, NULL);
    if (rc) return rc;
    rc = tutti_rank(r) == 1 ? tutti_send(r, &b, 1, TUTTI_BYTE, 0, 0)
                            : tutti_recv(r, &b, 1, TUTTI_BYTE, 1, 0, NULL);
    if (rc) return rc;
  }
  return 0;
}

Test(realtime, paced_clock_api, .timeout = 60) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_postal(&m, 2), 0));
  tutti_config_t c = tutti_config_default(2);
  c.model = &m;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(isnan(tutti_world_paced_clock(w, 0)), "unpaced world");
  tutti_world_destroy(w);
  c.flags = TUTTI_WALLCLOCK;
  c.time_scale = 2e-3;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(isnan(tutti_world_paced_clock(w, 2)) && isnan(tutti_world_paced_clock(w, -1)));
  cr_assert(isnan(tutti_world_paced_clock(NULL, 0)));
  cr_assert(eq(int, tutti_world_run(w, pingpong, NULL), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  /* six hops of L = 2 steps, each receive at the arrival: 12 steps */
  cr_assert(eq(dbl, rep.modeled_time, 12));
  for (int r = 0; r < 2; r++)
    cr_assert(eq(dbl, tutti_world_paced_clock(w, r), rep.rank_end[r]), "rank %d: %g against %g", r,
              tutti_world_paced_clock(w, r), rep.rank_end[r]);
  tutti_world_destroy(w);
}
