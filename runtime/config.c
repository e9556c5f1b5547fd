/*
 * config.c -- what a world is made of, from its config and the
 * environment: the one reader of every variable that world creation obeys
 * (TUTTI_RANKS_AS, TUTTI_BIND, TUTTI_WORKERS, TUTTI_STACK, TUTTI_PERTURB).
 * tutti_world_create and tutti_config_check both go through
 * tutti__settings_of, so a program that names a bad value (the tutti
 * command) accepts and refuses exactly what a world does.
 *
 * A config field decides where it is set; its variable is read only when
 * the field is left at its default (TUTTI_PERTURB, a switch of its own, is
 * read always). Where neither decides how ranks run, tutti does
 * (tutti_ranks_as_choose and tutti_workers_choose, also what the tutti
 * command asks for the sizes it will run).
 */
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "errtext.h"     /* tutti__model_protocol_check */
#include "tutti/units.h" /* TUTTI_TIME_MAX, TUTTI_PER_BYTE_MAX */

#define DEFAULT_STACK ((size_t)128 << 10)
#define DEFAULT_FIBER_STACK ((size_t)32 << 10)

/* The reason into err (when there is room), and the code. */
__attribute__((format(printf, 4, 5))) static int bad(int code, char *err, size_t errlen,
                                                     const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* A set variable's value, or NULL (unset or empty: the default). */
static const char *env(const char *name) {
  const char *s = getenv(name);
  return s && *s ? s : NULL;
}

static int model_check(const tutti_model_t *m, int nranks, char *err, size_t errlen) {
  if (m->preset < TUTTI_MODEL_NONE || m->preset > TUTTI_MODEL_CUSTOM)
    return bad(TUTTI_EINVAL, err, errlen,
               "config.model->preset %d is not a preset; accepted: TUTTI_MODEL_NONE to "
               "TUTTI_MODEL_CUSTOM",
               m->preset);
  const tutti_cost_t *c[] = {&m->send_cpu, &m->send_port, &m->latency, &m->recv_port, &m->recv_cpu};
  const char *name[] = {"send_cpu", "send_port", "latency", "recv_port", "recv_cpu"};
  /* units.h's ranges, the parsers' and the constructors': every cost of
   * a message then stays finite and within the time base (MODEL.md), so a
   * model that passes here does not fail in the replay for its constants.
   * Written so that NaN fails. */
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    if (c[i]->pieces > TUTTI_COST_PIECES)
      return bad(TUTTI_EINVAL, err, errlen,
                 "config.model->%s.pieces %zu is out of range; accepted: 0 to %d", name[i],
                 c[i]->pieces, TUTTI_COST_PIECES);
    for (size_t k = 0; k <= c[i]->pieces; k++) { /* 0: the piece from 0 bytes */
      const tutti_cost_piece_t *pk = &c[i]->piece[k ? k - 1 : 0];
      tutti_cost_t one = {
          .floor = k ? pk->floor : c[i]->floor, .a = k ? pk->a : c[i]->a, .b = k ? pk->b : c[i]->b};
      /* a piece after the first may start below 0, not go below it */
      double least = k ? -TUTTI_TIME_MAX : 0;
      int a_ok = one.a >= least && one.a <= TUTTI_TIME_MAX &&
                 (!k || one.a + one.b * (double)pk->from >= 0);
      const char *bad_field = !(one.floor >= 0 && one.floor <= TUTTI_TIME_MAX) ? "floor"
                              : !a_ok                                          ? "a"
                              : !(one.b >= 0 && one.b <= TUTTI_PER_BYTE_MAX)   ? "b"
                                                                               : NULL;
      size_t after = k > 1 ? c[i]->piece[k - 2].from : 0;
      if (k && pk->from <= after)
        return bad(TUTTI_EINVAL, err, errlen,
                   "config.model->%s.piece[%zu].from %zu does not follow %zu; accepted: "
                   "sizes strictly ascending, above 0",
                   name[i], k - 1, pk->from, after);
      if (bad_field)
        return bad(TUTTI_EINVAL, err, errlen,
                   "config.model->%s%s.%s (floor %g, a %g, b %g) is out of range; accepted: "
                   "floor and a from 0 to %g s%s, b from 0 to %g s/B",
                   name[i], k ? " piece" : "", bad_field, one.floor, one.a, one.b, TUTTI_TIME_MAX,
                   k ? " (a below 0 where a + b*from >= 0)" : "", TUTTI_PER_BYTE_MAX);
    }
  }
  if (!(m->gamma >= 0 && m->gamma <= TUTTI_PER_BYTE_MAX))
    return bad(TUTTI_EINVAL, err, errlen,
               "config.model->gamma %g is out of range; accepted: a cost per byte from 0 to %g "
               "s/B",
               m->gamma, TUTTI_PER_BYTE_MAX);
  if (m->rendezvous != TUTTI_RENDEZVOUS_READY && m->rendezvous != TUTTI_RENDEZVOUS_HANDSHAKE)
    return bad(TUTTI_EINVAL, err, errlen,
               "config.model->rendezvous %d is not a protocol; accepted: "
               "TUTTI_RENDEZVOUS_READY, TUTTI_RENDEZVOUS_HANDSHAKE",
               m->rendezvous);
  int rc = tutti__model_protocol_check(m, "config.model->detached_limit ", err, errlen);
  if (rc) return rc;
  if (m->sharing != TUTTI_SHARING_FIFO && m->sharing != TUTTI_SHARING_FAIR)
    return bad(TUTTI_EINVAL, err, errlen,
               "config.model->sharing %d is not a sharing; accepted: TUTTI_SHARING_FIFO (0) or "
               "TUTTI_SHARING_FAIR (1)",
               m->sharing);
  /* A topology must be bound to exactly these ranks (tutti_topo_bind):
   * caught here rather than after the run, at replay. */
  int bound = m->topo ? tutti_topo_nranks(m->topo) : nranks;
  if (bound != nranks) {
    char had[48] = "not bound";
    if (bound > 0) snprintf(had, sizeof had, "bound to %d ranks", bound);
    return bad(TUTTI_EINVAL, err, errlen,
               "config.model->topo is %s, config.nranks is %d; accepted: a topology bound to "
               "the world's ranks (tutti_topo_bind)",
               had, nranks);
  }
  return 0;
}

int tutti__cpus(void) {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0)
    return CPU_COUNT(&cpus);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Ranks per fiber worker below which one more worker is not worth its
 * core. Workers depend on each other in every round of a call: a worker
 * with nothing to run sleeps and costs its waker a futex call and a
 * cross-core wake-up (30+ us), and on a shared machine it waits whenever
 * the host gives its peer less time -- the whole call then runs at the
 * pace of the slower worker's time slices. One cache-hot worker runs a
 * call of a thousand ranks steadily, with no wake-up across cores; only
 * past that does a second core pay for its wake-ups -- or where a call's
 * copies are large and many at once: calls of SPREAD_BYTES per rank or
 * more on SPREAD_RANKS ranks or more (a binomial tree's last round copies
 * 8 megabytes at once there), which run on every CPU. */
#define RANKS_PER_WORKER 1024
#define SPREAD_BYTES ((size_t)1 << 20)
#define SPREAD_RANKS 16

int tutti_ranks_as_choose(int nranks, size_t max_bytes, int ncpu) {
  /* Fibers of one worker hand a message over by a switch on one core,
   * with the message in its cache; a thread that waits sleeps and is
   * woken by the kernel, tens of microseconds across cores. Where copies
   * are large enough to want several cores, fibers take them on several
   * workers (tutti_workers_choose), which then wake each other less often
   * than a thread a rank would. */
  (void)nranks, (void)max_bytes, (void)ncpu;
  return TUTTI_RANKS_AS_FIBERS;
}

int tutti_workers_choose(int nranks, size_t max_bytes, int ncpu) {
  if (nranks < 1) return TUTTI_EINVAL;
  if (ncpu <= 0) ncpu = tutti__cpus();
  long n = ((long)nranks + RANKS_PER_WORKER - 1) / RANKS_PER_WORKER;
  if (max_bytes >= SPREAD_BYTES && nranks >= SPREAD_RANKS) n = ncpu;
  if (n > ncpu) n = ncpu;
  return (int)(n > nranks ? nranks : n);
}

/* TUTTI_RANKS_AS when the config leaves ranks_as at its default: 1
 * fibers, 0 threads, 2 unset (tutti chooses), -1 a value neither accepts. */
static int env_fibers(void) {
  const char *s = env("TUTTI_RANKS_AS");
  if (!s) return 2;
  if (!strcmp(s, "threads")) return 0;
  return !strcmp(s, "fibers") ? 1 : -1;
}

/* TUTTI_STACK: bytes, with an optional K or M suffix; 0 or unset: 0 (the
 * default). -1: malformed, below the minimum or above TUTTI_MAX_STACK. */
static long long env_stack(void) {
  const char *s = env("TUTTI_STACK");
  if (!s) return 0;
  if (*s < '0' || *s > '9') return -1; /* strtoull would take a sign or blanks */
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  int shift = *end == 'k' || *end == 'K' ? 10 : *end == 'm' || *end == 'M' ? 20 : 0;
  if (shift) end++;
  if (*end || errno || v > (unsigned long long)(SIZE_MAX >> shift) >> 1) return -1;
  v <<= shift;
  if (v && (v < (size_t)PTHREAD_STACK_MIN || v > TUTTI_MAX_STACK)) return -1;
  return (long long)v;
}

/* TUTTI_PERTURB=SEED turns the perturbation switch on for every world, with
 * that seed (a decimal number; empty or 0: off), so that a user can check
 * that a run's modeled result does not depend on scheduling. 0 (off), 1
 * (on, *seed set) or -1 (malformed). */
static int env_perturb(unsigned *seed) {
  const char *s = env("TUTTI_PERTURB");
  if (!s) return 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s == '-' || *end || errno || v > UINT_MAX) return -1;
  if (v == 0) return 0;
  *seed = (unsigned)v;
  return 1;
}

_Static_assert(TUTTI__MAX_RANKS == TUTTI_MAX_RANKS, "one rank limit, the public one");

int tutti__settings_of(const tutti_config_t *cfg, struct tutti__settings *s, char *err,
                       size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!cfg) return bad(TUTTI_EINVAL, err, errlen, "no config (NULL); accepted: a tutti_config_t");
  *s = (struct tutti__settings){.seed = cfg->seed};
  if (cfg->nranks < 1 || cfg->nranks > TUTTI__MAX_RANKS)
    return bad(TUTTI_ERANK, err, errlen, "config.nranks %d is out of range; accepted: 1 to %d",
               cfg->nranks, TUTTI__MAX_RANKS);
  int rc;
  if (cfg->model && (rc = model_check(cfg->model, cfg->nranks, err, errlen))) return rc;
  if (cfg->stack_size && cfg->stack_size < (size_t)PTHREAD_STACK_MIN)
    return bad(TUTTI_EINVAL, err, errlen, "config.stack_size %zu is below the minimum %zu",
               cfg->stack_size, (size_t)PTHREAD_STACK_MIN);
  if (cfg->stack_size > TUTTI_MAX_STACK)
    return bad(TUTTI_EINVAL, err, errlen, "config.stack_size %zu is above the maximum %zu (1 GiB)",
               cfg->stack_size, TUTTI_MAX_STACK);

  if (cfg->ranks_as == TUTTI_RANKS_AS_DEFAULT) {
    int f = env_fibers();
    if (f < 0)
      return bad(TUTTI_EINVAL, err, errlen,
                 "TUTTI_RANKS_AS='%s' is not a kind; accepted: threads, fibers",
                 getenv("TUTTI_RANKS_AS"));
    /* tutti's choice knows no sizes here; a paced rank sleeps, which only
     * a thread may do */
    if (f == 2)
      f = !(cfg->flags & TUTTI_WALLCLOCK) &&
          tutti_ranks_as_choose(cfg->nranks, 0, 0) == TUTTI_RANKS_AS_FIBERS;
    s->fibers = f;
  } else if (cfg->ranks_as == TUTTI_RANKS_AS_THREADS || cfg->ranks_as == TUTTI_RANKS_AS_FIBERS) {
    s->fibers = cfg->ranks_as == TUTTI_RANKS_AS_FIBERS;
  } else {
    return bad(TUTTI_EINVAL, err, errlen,
               "config.ranks_as %d is not a kind; accepted: TUTTI_RANKS_AS_DEFAULT, "
               "TUTTI_RANKS_AS_THREADS, TUTTI_RANKS_AS_FIBERS",
               cfg->ranks_as);
  }
  if (cfg->workers < 0)
    return bad(TUTTI_EINVAL, err, errlen,
               "config.workers %d is negative; accepted: 0 (automatic) or a worker count",
               cfg->workers);
  /* Pacing sleeps in the rank, which would hold a worker's other fibers. */
  if (s->fibers && (cfg->flags & TUTTI_WALLCLOCK))
    return bad(TUTTI_ENOTSUP, err, errlen,
               "config.flags TUTTI_WALLCLOCK with ranks as fibers: a paced rank sleeps and "
               "would hold its worker's other ranks; accepted: TUTTI_WALLCLOCK with threads");
  /* Bounded, so that a paced run's wall times stay finite: 1e9 wall
   * seconds per modeled second shows a microsecond as a quarter of an
   * hour (the CLI's --realtime takes the same range). Also NaN. */
  if (!(cfg->time_scale >= 0 && cfg->time_scale <= TUTTI_TIME_SCALE_MAX))
    return bad(TUTTI_EINVAL, err, errlen,
               "config.time_scale %g is out of range; accepted: 0 (one wall second per modeled "
               "second) or a number > 0 and at most %g",
               cfg->time_scale, TUTTI_TIME_SCALE_MAX);

  s->bind = cfg->bind;
  if (cfg->bind == TUTTI_BIND_DEFAULT) {
    const char *v = env("TUTTI_BIND");
    if (v && strcmp(v, "cores") && strcmp(v, "none"))
      return bad(TUTTI_EINVAL, err, errlen,
                 "TUTTI_BIND='%s' is not a placement; accepted: cores, none", v);
    if (v) s->bind = strcmp(v, "cores") ? TUTTI_BIND_NONE : TUTTI_BIND_CORES;
  } else if (cfg->bind != TUTTI_BIND_NONE && cfg->bind != TUTTI_BIND_CORES) {
    return bad(TUTTI_EINVAL, err, errlen,
               "config.bind %d is not a placement; accepted: TUTTI_BIND_DEFAULT, "
               "TUTTI_BIND_NONE, TUTTI_BIND_CORES",
               cfg->bind);
  }

  /* Read even for threads, as it always was: a bad value is a mistake
   * whatever the ranks run on this time. */
  s->workers = cfg->workers;
  const char *v = env("TUTTI_WORKERS");
  if (!s->workers && v) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*end || errno || n < 1 || n > TUTTI__MAX_RANKS)
      return bad(TUTTI_EINVAL, err, errlen,
                 "TUTTI_WORKERS='%s' is not a worker count; accepted: 1 to %d", v,
                 TUTTI__MAX_RANKS);
    s->workers = (int)n;
  }

  s->stack_size = cfg->stack_size;
  if (!s->stack_size) {
    long long st = env_stack();
    if (st < 0)
      return bad(TUTTI_EINVAL, err, errlen,
                 "TUTTI_STACK='%s' is not a stack size; accepted: bytes with an optional K or M "
                 "suffix, from %zu to %zu (1024M): 256K, 1M",
                 getenv("TUTTI_STACK"), (size_t)PTHREAD_STACK_MIN, TUTTI_MAX_STACK);
    s->stack_size = (size_t)st;
  }
  if (!s->stack_size) {
    s->stack_size = s->fibers ? DEFAULT_FIBER_STACK : DEFAULT_STACK;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    s->stack_size *= 4; /* instrumented frames are larger */
#endif
  }

  switch (env_perturb(&s->seed)) {
  case 1:
    s->perturb = true;
    break;
  case -1:
    return bad(TUTTI_EINVAL, err, errlen,
               "TUTTI_PERTURB='%s' is not a seed; accepted: a decimal number from 0 (off) to %u",
               getenv("TUTTI_PERTURB"), UINT_MAX);
  }
  return 0;
}

int tutti_config_check(const tutti_config_t *cfg, char *err, size_t errlen) {
  struct tutti__settings s;
  return tutti__settings_of(cfg, &s, err, errlen);
}
