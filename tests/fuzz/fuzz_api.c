/*
 * fuzz_api.c -- the public API's configuration and cost functions, with
 * their stated limits as the oracle: a random tutti_config_t (and model)
 * through tutti_config_check, and a random (algorithm, P, root, m,
 * parameters, Hockney constants) through tutti_algo_cost and
 * tutti_algo_messages.
 *
 * Input: byte 0 chooses the call; the rest are the fields, read in order
 * (missing bytes are zero). What must hold:
 * - tutti_config_check never crashes; what it accepts has nranks within
 *   1..TUTTI_MAX_RANKS, time_scale within 0..TUTTI_TIME_SCALE_MAX, every
 *   cost's floor and a within 0..TUTTI_TIME_MAX, b and gamma within
 *   0..TUTTI_PER_BYTE_MAX (world.h, units.h); what it refuses has a
 *   negative code and a reason.
 * - tutti_algo_cost never crashes; a P outside 1..TUTTI_COST_MAX_RANKS or
 *   a root outside 0..P-1 gives NAN at once; for finite constants >= 0 a
 *   cost is NAN or >= 0; so is a message count (the same limits, NAN or
 *   >= 0 for any constants). Its time and memory are libFuzzer's -timeout and
 *   -rss_limit_mb (run.sh); P within the limit is kept to 256 here, so
 *   that a call is quick (P up to the limit: tests/test_unit_cost_limits.c).
 * The world is never created: nothing here starts a thread.
 */
#include <math.h>

#include "fuzz.h"
#include "tutti/tutti.h"

struct in {
  const uint8_t *p;
  size_t n;
};

static void take(struct in *in, void *out, size_t k) {
  memset(out, 0, k);
  size_t c = in->n < k ? in->n : k;
  if (c) memcpy(out, in->p, c);
  in->p += c, in->n -= c;
}

static double dbl(struct in *in) {
  double d;
  take(in, &d, sizeof d);
  return d;
}

static int32_t i32(struct in *in) {
  int32_t v;
  take(in, &v, sizeof v);
  return v;
}

static uint64_t u64(struct in *in) {
  uint64_t v;
  take(in, &v, sizeof v);
  return v;
}

static int in_range(double x, double hi) {
  return x >= 0 && x <= hi;
}

static void fuzz_config(struct in *in) {
  tutti_model_t m;
  memset(&m, 0, sizeof m);
  m.preset = i32(in);
  tutti_cost_t *c[] = {&m.send_cpu, &m.send_port, &m.latency, &m.recv_port, &m.recv_cpu};
  for (int i = 0; i < 5; i++) c[i]->floor = dbl(in), c[i]->a = dbl(in), c[i]->b = dbl(in);
  m.gamma = dbl(in);
  m.eager_limit = (size_t)u64(in);
  tutti_config_t cfg = tutti_config_default(1);
  cfg.nranks = i32(in);
  cfg.time_scale = dbl(in);
  cfg.flags = (unsigned)i32(in) & (TUTTI_WALLCLOCK | TUTTI_NO_DATA | TUTTI_RECORD);
  cfg.ranks_as = i32(in) % 4;
  cfg.bind = i32(in) % 4;
  cfg.workers = i32(in);
  cfg.stack_size = (size_t)u64(in);
  cfg.max_events = (uint32_t)i32(in);
  uint8_t with_model;
  take(in, &with_model, 1);
  cfg.model = with_model & 1 ? &m : NULL;
  /* read last, so that older inputs keep their meaning */
  m.header = (size_t)u64(in);
  m.rendezvous = i32(in);
  m.detached_limit = (size_t)u64(in);
  char err[256];
  int rc = tutti_config_check(&cfg, err, sizeof err);
  if (rc > 0) abort();
  if (rc < 0) {
    if (!err[0] || !memchr(err, '\0', sizeof err)) abort(); /* a reason, terminated */
    return;
  }
  if (err[0]) abort();
  if (cfg.nranks < 1 || cfg.nranks > TUTTI_MAX_RANKS) abort();
  if (!in_range(cfg.time_scale, TUTTI_TIME_SCALE_MAX)) abort();
  if (cfg.model) {
    for (int i = 0; i < 5; i++)
      if (!in_range(c[i]->floor, TUTTI_TIME_MAX) || !in_range(c[i]->a, TUTTI_TIME_MAX) ||
          !in_range(c[i]->b, TUTTI_PER_BYTE_MAX))
        abort();
    if (!in_range(m.gamma, TUTTI_PER_BYTE_MAX)) abort();
    if (m.rendezvous != TUTTI_RENDEZVOUS_READY && m.rendezvous != TUTTI_RENDEZVOUS_HANDSHAKE)
      abort();
    if (m.detached_limit && (m.eager_limit == TUTTI_EAGER_ALL || m.detached_limit <= m.eager_limit))
      abort(); /* runtime/MODEL.md: no rendezvous message would be under it */
  }
}

static void fuzz_cost(struct in *in) {
  int n = 0;
  while (tutti_algo_desc_at(n)) n++;
  uint8_t pick, shape;
  take(in, &pick, 1);
  take(in, &shape, 1);
  const tutti_algo_desc_t *d = tutti_algo_desc_at(pick % n);
  int32_t P = i32(in), root = i32(in);
  size_t m = (size_t)u64(in);
  tutti_hockney_t h = {dbl(in), dbl(in), dbl(in)};
  if (shape & 1) { /* sane constants, so that the cost's sign is checked */
    h.alpha = fabs(fmod(h.alpha, 1.0)), h.beta = fabs(fmod(h.beta, 1e-6));
    h.gamma = fabs(fmod(h.gamma, 1e-6));
    if (isnan(h.alpha) || isnan(h.beta) || isnan(h.gamma)) h = (tutti_hockney_t){1e-6, 1e-9, 0};
  }
  int within = P >= 1 && P <= TUTTI_COST_MAX_RANKS && root >= 0 && root < P;
  if (within) { /* quick calls under the sanitizers: P at most 256 */
    P = 1 + (P - 1) % 256;
    root %= P;
  }
  /* the rest of the input: the parameters as text; the defaults when refused */
  char *text = fuzz_text(in->p, in->n);
  const tutti_algo_t *a = NULL;
  char err[256];
  if (tutti_algo_select(d->coll, d->name, text, &a, err, sizeof err) &&
      tutti_algo_select(d->coll, d->name, NULL, &a, err, sizeof err))
    abort(); /* the defaults are always accepted */
  free(text);
  int bound = -1;
  double t = tutti_algo_cost(a, P, root, m, &h, &bound);
  if (bound != 0 && bound != 1) abort();
  if (!within && !isnan(t)) abort(); /* outside the limits: refused */
  if ((shape & 1) && !isnan(t) && !(t >= 0)) abort();
  /* the message count: the same limits, never negative */
  double msgs = tutti_algo_messages(a, P, root, m, &h);
  if (!within && !isnan(msgs)) abort();
  if (!isnan(msgs) && !(msgs >= 0)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  struct in in = {data + 1, size - 1};
  if (data[0] & 1)
    fuzz_cost(&in);
  else
    fuzz_config(&in);
  return 0;
}
