/*
 * test_e2e_protocol.c -- how a message is sent (runtime/MODEL.md "Cost
 * functions" and rule 3): the per-message envelope (header), the
 * rendezvous handshake and detached sends, on whole runs.
 *
 * The envelope: every message's costs at m + header, so under Hockney a
 * registered cost with alpha + beta*header is the engine's time (flat and
 * binomial bcast, every barrier), with and without a topology; under LogGP
 * flat and binomial bcast and the dissemination barrier against forms
 * derived here. The protocols: runtime/MODEL.md's two-rank ping-pong in each
 * (eager, rendezvous ready, handshake, detached), its numbers exactly, and
 * with a topology the handshake's control messages cross the idle path.
 * The default (ready, no header, nothing detached) leaves every time as
 * it was: tests/registry_times.tsv and test_e2e_registry_times hold that.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"

#define US 1e-6

/* Times within a picosecond a term (runtime/MODEL.md "Time base"). */
static void near(double got, double want, const char *what) {
  cr_assert(le(dbl, fabs(got - want), 1e-11 * fmax(1.0, fabs(want) / US)),
            "%s: got %.17g, want %.17g", what, got, want);
}

static tutti_model_t parsed(const char *spec) {
  tutti_model_t m;
  char err[256];
  cr_assert(eq(int, tutti_model_parse(spec, &m, err, sizeof err), 0), "%s: %s", spec, err);
  return m;
}

/* ------------------------------------------------------------ ping-pong */

enum { PP_BYTES = 1000 };

/* runtime/MODEL.md's ping-pong: rank 0 sends m bytes to rank 1 and
 * receives them back; rank 1 is busy 1 us before it posts its receive. */
static int pingpong(tutti_rank_t *r, void *arg) {
  (void)arg;
  char buf[PP_BYTES];
  memset(buf, 0, sizeof buf);
  if (tutti_rank(r) == 0) {
    int rc = tutti_send(r, buf, PP_BYTES, TUTTI_BYTE, 1, 0);
    return rc ? rc : tutti_recv(r, buf, PP_BYTES, TUTTI_BYTE, 1, 0, NULL);
  }
  int rc = tutti_compute(r, 1 * US);
  if (!rc) rc = tutti_recv(r, buf, PP_BYTES, TUTTI_BYTE, 0, 0, NULL);
  return rc ? rc : tutti_send(r, buf, PP_BYTES, TUTTI_BYTE, 0, 0);
}

/* The ping-pong's time, when rank 0's send returned and why the ping
 * started when it did (explain's wait). */
static void run_pingpong(const tutti_model_t *m, double *total, double *ping_returned,
                         int *ping_wait) {
  tutti_world_t *w = mkworld(2, m);
  cr_assert(eq(int, tutti_world_run(w, pingpong, NULL), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  *total = rep.modeled_time;
  tutti_explain_t ex;
  cr_assert(eq(int, tutti_world_explain(w, &ex), 0));
  cr_assert(eq(sz, ex.nmsgs, 2));
  for (size_t i = 0; i < ex.nmsgs; i++)
    if (ex.msgs[i].src == 0) *ping_returned = ex.msgs[i].send_done, *ping_wait = ex.msgs[i].wait;
  tutti_explain_free(&ex);
  tutti_world_destroy(w);
}

/* runtime/MODEL.md's worked example: Hockney alpha = 1 us, beta = 1 ns/B,
 * header 16 B, m = 1000 B: a message costs 2.016 us, a control message
 * L(16) = 1.016 us. */
Test(protocol, pingpong_in_each_protocol, .timeout = 60) {
  static const struct {
    const char *spec;
    double total, ping_returned; /* us */
    int wait;                    /* the ping's, as explain finds it */
  } pp[] = {
      {"hockney:alpha=1us,beta=1ns,header=16B,eager_limit=all", 4.032, 2.016, TUTTI_WAIT_NONE},
      {"hockney:alpha=1us,beta=1ns,header=16B", 5.032, 3.016, TUTTI_WAIT_RECV_POST},
      {"hockney:alpha=1us,beta=1ns,header=16B,rendezvous=handshake", 8.096, 4.048,
       TUTTI_WAIT_HANDSHAKE},
      {"hockney:alpha=1us,beta=1ns,header=16B,detached_limit=64KiB", 5.032, 2.016,
       TUTTI_WAIT_RECV_POST},
      /* without the envelope: 2 us a message, 1 us a control message */
      {"hockney:alpha=1us,beta=1ns,rendezvous=handshake", 8, 4, TUTTI_WAIT_HANDSHAKE},
  };
  for (size_t i = 0; i < sizeof pp / sizeof *pp; i++) {
    tutti_model_t m = parsed(pp[i].spec);
    double total = NAN, ret = NAN;
    int wait = -1;
    run_pingpong(&m, &total, &ret, &wait);
    near(total, pp[i].total * US, pp[i].spec);
    near(ret, pp[i].ping_returned * US, pp[i].spec);
    cr_assert(eq(int, wait, pp[i].wait), "%s", pp[i].spec);
  }
}

/* With a topology the control messages take L(0) and the idle path's
 * cut-through time for header bytes: two links of 0.5 us and 1 ns/B, so
 * 1 + 0.016 + 0.5 + 0.5 = 2.016 us; the data L(0) + 1.016 + 0.5 + 0.5 +
 * ... = 3.016 us. Ping: request at 2.016, clear-to-send back at 4.032,
 * the transfer then, done at 7.048 (the send returns at 4.032 + 2.016);
 * pong from 7.048: 7.048 + 2 * 2.016 + 3.016 = 14.096 us. */
Test(protocol, handshake_crosses_the_idle_path, .timeout = 60) {
  tutti_model_t m = parsed("hockney:alpha=1us,beta=1ns,header=16B,rendezvous=handshake");
  tutti_topo_t *t = NULL;
  char err[256];
  cr_assert(eq(int, tutti_topo_from_spec("tree:2", "0.5us/1GB/s", &t, err, sizeof err), 0), "%s",
            err);
  cr_assert(eq(int, tutti_topo_bind(t, 2, NULL, 0, err, sizeof err), 0), "%s", err);
  m.topo = t;
  double total = NAN, ret = NAN;
  int wait = -1;
  run_pingpong(&m, &total, &ret, &wait);
  cr_assert(eq(int, wait, TUTTI_WAIT_HANDSHAKE));
  near(total, 14.096 * US, "handshake, tree:2");
  near(ret, 6.048 * US, "handshake, tree:2: the ping's send");
  tutti_topo_free(t);
}

/* ------------------------------------------------------------ closed forms */

/* Hockney with a header H: a message costs (alpha + beta H) + beta m, so
 * the registered cost with alpha + beta H is the engine's time -- flat and
 * binomial bcast and every barrier, P = 2..24, with and without a
 * topology whose links cost what the model does (an idle path costs L(m)
 * exactly, runtime/MODEL.md "Topology"). */
Test(envelope, hockney_registered_costs, .timeout = 240) {
  const double alpha = 1 * US, beta = 1e-9;
  const size_t H = 16, m = 1000;
  const tutti_hockney_t h = {alpha + beta * (double)H, beta, 0};
  static const struct {
    int coll;
    const char *algo;
  } cases[] = {{TUTTI_COLL_BCAST, "flat"},
               {TUTTI_COLL_BCAST, "binomial"},
               {TUTTI_COLL_BARRIER, "dissemination"},
               {TUTTI_COLL_BARRIER, "recursive-doubling"},
               {TUTTI_COLL_BARRIER, "tournament"},
               {TUTTI_COLL_BARRIER, "fibonacci"}};
  int checked = 0;
  for (int topo = 0; topo < 2; topo++)
    for (int P = 2; P <= 24; P += P < 8 ? 1 : 8) {
      tutti_model_t md = hockney(alpha, beta);
      md.header = H;
      tutti_topo_t *t = NULL;
      if (topo) {
        char spec[32], err[256];
        snprintf(spec, sizeof spec, "tree:%d", P);
        cr_assert(eq(int, tutti_topo_from_spec(spec, "0us/1GB/s", &t, err, sizeof err), 0));
        cr_assert(eq(int, tutti_topo_bind(t, P, NULL, 0, err, sizeof err), 0), "%s", err);
        md.topo = t;
      }
      for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const tutti_algo_t *a = pick(cases[i].coll, cases[i].algo, NULL);
        int bound = 0;
        size_t bytes = cases[i].coll == TUTTI_COLL_BARRIER ? 0 : m;
        double want = tutti_algo_cost(a, P, 0, bytes, &h, &bound);
        if (isnan(want) || bound) continue; /* exact forms only */
        double got = timed(P, &md, cases[i].coll, a, (long)bytes, TUTTI_BYTE, 0);
        char what[96];
        snprintf(what, sizeof what, "%s %s P=%d%s",
                 cases[i].coll == TUTTI_COLL_BCAST ? "bcast" : "barrier", cases[i].algo, P,
                 topo ? " tree" : "");
        near(got, want, what);
        checked++;
      }
      tutti_topo_free(t);
    }
  /* flat and binomial bcast are exact on every P, so are the barriers
   * on powers of two at least */
  cr_assert(ge(int, checked, 2 * 2 * 9), "only %d exact forms", checked);
}

/* LogGP, all eager, with a header: w = m + H bytes a message; a send
 * takes the port S = max(g, o + G w), a message is at its receiver
 * D = L(w) + O_r = (o + G w + L) + o after its start (its port is never
 * the later term here). Flat bcast: the root's P-1 sends S apart, the
 * last done (P-2) S + D. Binomial, P = 8, largest subtree first: a rank
 * sends its children S apart, so max(3D, S + 2D, 2S + D) = 3D when
 * D >= S. Dissemination barrier, P = 8: 3 rounds of one exchange, each
 * D of an empty message (w = H). */
Test(envelope, loggp_forms, .timeout = 60) {
  const double L = 5 * US, o = 1 * US, g = 2 * US, G = 1e-9;
  const size_t H = 16, m = 1000;
  tutti_model_t md;
  cr_assert(eq(int, tutti_model_loggp(&md, L, o, g, G), 0));
  md.header = H;
  double w = (double)(m + H), S = fmax(g, o + G * w), D = o + G * w + L + o;
  double D0 = o + G * (double)H + L + o;
  for (int P = 2; P <= 12; P++)
    near(timed(P, &md, TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, "flat", NULL), (long)m, TUTTI_BYTE,
               0),
         (P - 2) * S + D, "loggp flat bcast");
  cr_assert(ge(dbl, D, S));
  near(timed(8, &md, TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, "binomial", NULL), (long)m,
             TUTTI_BYTE, 0),
       3 * D, "loggp binomial bcast P=8");
  near(timed(8, &md, TUTTI_COLL_BARRIER, pick(TUTTI_COLL_BARRIER, "dissemination", NULL), 0,
             TUTTI_BYTE, 0),
       3 * D0, "loggp dissemination barrier P=8");
}

/* The protocol is chosen on the payload: a header that takes a message
 * past eager_limit leaves it eager. */
Test(envelope, protocol_by_payload, .timeout = 60) {
  tutti_model_t md = parsed("hockney:alpha=1us,beta=1ns,eager_limit=1000B,header=16B");
  tutti_world_t *w = mkworld(2, &md);
  struct one o = {TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, "flat", NULL), 999, TUTTI_BYTE, 0};
  cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(u64, rep.eager, 1));
  cr_assert(eq(u64, rep.rendezvous, 0));
  near(rep.calls[0].time, 1 * US + 1e-9 * (999 + 16), "one eager message of 999 + 16 B");
  tutti_world_destroy(w);
}

/* ------------------------------------------------------------ bad input */

Test(protocol, config_refuses_what_means_nothing) {
  tutti_model_t md = hockney(1 * US, 1e-9);
  tutti_config_t c = tutti_config_default(2);
  c.model = &md;
  char err[256];
  md.eager_limit = TUTTI_EAGER_ALL, md.detached_limit = 65536;
  cr_assert(lt(int, tutti_config_check(&c, err, sizeof err), 0));
  cr_assert(ne(ptr, strstr(err, "config.model->detached_limit"), NULL), "%s", err);
  cr_assert(ne(ptr, strstr(err, "every send is eager already"), NULL), "%s", err);
  md.eager_limit = 65536;
  cr_assert(lt(int, tutti_config_check(&c, err, sizeof err), 0));
  cr_assert(ne(ptr, strstr(err, "not above eager_limit"), NULL), "%s", err);
  tutti_world_t *w = NULL;
  cr_assert(lt(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(ptr, w, NULL));
  md.detached_limit = 65537;
  cr_assert(eq(int, tutti_config_check(&c, err, sizeof err), 0), "%s", err);
  md.rendezvous = 7;
  cr_assert(lt(int, tutti_config_check(&c, err, sizeof err), 0));
  cr_assert(ne(ptr, strstr(err, "config.model->rendezvous 7"), NULL), "%s", err);
  cr_assert(ne(ptr, strstr(err, "TUTTI_RENDEZVOUS_HANDSHAKE"), NULL), "%s", err);
}
