/*
 * test_e2e_tune_auto.c -- `auto` and its rules (bench/CLI.md "Tune and
 * auto", "Rules files"): the rules API's lookup and tutti_auto_choose
 * following a rule; every collective's `auto` without rules (an
 * algorithm that runs, never `auto`, honouring a non-commutative op); the
 * model choice the ranks of a world share (every key of the world's memo,
 * its ranks asking at once; worlds of other models apart); bad rules
 * files, reported at FILE:LINE by run, sweep and suite. What `tutti tune`
 * writes and its round trip: test_e2e_tune.c.
 *
 * Under the sanitizers two worlds, not all of the grid's, ask for their
 * shared choices at once.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "engine.h" /* collectives/: tutti__auto_choose_r, the world's memo */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* ------------------------------------------------------------ the API */

Test(tune, rules_lookup_api, .timeout = 30) {
  tutti_rules_t *rs;
  cr_assert(eq(int, tutti_rules_create(&rs, "t.ini"), 0));
  const tutti_algo_t *flat, *bin, *aut;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", NULL, &flat, NULL, 0), 0));
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, &bin, NULL, 0), 0));
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "auto", NULL, &aut, NULL, 0), 0));
  char err[256];
  cr_assert(eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 0, 99, flat, 3, err, 256), 0));
  cr_assert(eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 100, SIZE_MAX, bin, 4, err, 256), 0));
  cr_assert(eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 16, 0, 10, bin, 6, err, 256), 0));
  /* overlap, auto, another collective's algorithm, lo > hi, ranks 0 */
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 50, 150, bin, 9, err, 256), TUTTI_EINVAL));
  HAS(err, "line 3");
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 0, 1, aut, 9, err, 256), TUTTI_EINVAL));
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_REDUCE, 4, 0, 1, bin, 9, err, 256), TUTTI_EINVAL));
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 8, 5, 4, bin, 9, err, 256), TUTTI_EINVAL));
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 0, 0, 4, bin, 9, err, 256), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_rules_count(rs), 3));
  const tutti_algo_t *o;
  char why[256];
  struct {
    int P;
    size_t m;
    const char *want; /* NULL: no rule */
  } cases[] = {{3, 0, NULL},
               {4, 0, "flat"},
               {4, 99, "flat"},
               {4, 100, "binomial"},
               {15, 1 << 30, "binomial"},
               {16, 10, "binomial"},
               {16, 11, NULL},
               {1000, 5, "binomial"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int rc = tutti_rules_lookup(rs, TUTTI_COLL_BCAST, cases[i].P, cases[i].m, &o, why, sizeof why);
    if (!cases[i].want) {
      cr_assert(eq(int, rc, TUTTI_ENOTFOUND), "P=%d m=%zu", cases[i].P, cases[i].m);
      continue;
    }
    cr_assert(eq(int, rc, 0), "P=%d m=%zu", cases[i].P, cases[i].m);
    cr_assert(eq(str, (char *)tutti_algo_desc(o)->name, (char *)cases[i].want), "P=%d m=%zu",
              cases[i].P, cases[i].m);
    HAS(why, "t.ini:");
  }
  cr_assert(eq(int, tutti_rules_lookup(rs, TUTTI_COLL_REDUCE, 8, 0, &o, NULL, 0), TUTTI_ENOTFOUND));
  cr_assert(
      eq(int, tutti_rules_lookup(NULL, TUTTI_COLL_BCAST, 8, 0, &o, NULL, 0), TUTTI_ENOTFOUND));
  /* tutti_auto_choose follows a rule, and falls back when it cannot run */
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  cr_assert(eq(int, tutti_auto_choose(TUTTI_COLL_BCAST, &m, rs, 4, 8, 0, NULL, &o, why, 256), 0));
  cr_assert(eq(str, (char *)tutti_algo_desc(o)->name, "flat"));
  tutti_rules_free(rs);
}

/* Every collective's auto without rules: a choice among the others that
 * runs (never auto itself), and for a non-commutative op never a
 * commutative-only algorithm (where auto itself takes one). */
Test(tune, model_choice_every_collective, .timeout = 30) {
  tutti_model_t models[3];
  tutti_model_hockney(&models[0], 1e-6, 1e-9);
  tutti_model_postal(&models[1], 2);
  tutti_model_none(&models[2]);
  for (int c = 0; c < TUTTI_COLL_N; c++)
    for (int k = 0; k < 3; k++)
      for (int P = 1; P <= 70; P += 23)
        for (size_t m = 0; m <= 1 << 20; m = m ? m * 64 : 8) {
          tutti_op_t op = tutti_coll_traits(c) & TUTTI_COLL_REDUCES ? TUTTI_MATMUL2 : NULL;
          const tutti_algo_t *a, *au;
          /* an auto that is commutative-only itself (reduce_scatter's) refuses matmul2 */
          cr_assert(eq(int, tutti_algo_select(c, "auto", NULL, &au, NULL, 0), 0));
          if (op && (tutti_algo_desc(au)->restrictions & TUTTI_ALGO_COMMUTATIVE)) op = TUTTI_SUM;
          char why[1024], err[256];
          cr_assert(eq(int, tutti_auto_choose(c, &models[k], NULL, P, m, -1, op, &a, why, 1024), 0),
                    "%s P=%d", tutti_coll_name(c), P);
          cr_assert(eq(int, tutti_algo_desc(a)->coll, c));
          cr_assert(tutti_algo_is_auto(tutti_algo_desc(a)) == 0);
          cr_assert(eq(int, tutti_algo_check(a, P, op, err, sizeof err), 0), "%s: %s",
                    tutti_algo_desc(a)->name, err);
          cr_assert(gt(sz, strlen(why), 0));
        }
}

/* The ranks of a world share one model choice per key (auto.c's memo,
 * tutti__auto_choose_r): the key within a world is (collective, bytes,
 * root, the op's commutativity), the world fixing model, rules and P.
 * For every model and P of the grid, a world of P ranks (threads) asks
 * every key of the grid, twice (a miss, then maybe a hit); like the ranks
 * of collective calls they go in step, a few keys at a time between
 * barriers, starting at different keys of those so that they ask
 * different keys at once (the grid has more keys than the memo keeps: old
 * ones go). Every answer must be the explaining path's,
 * tutti_auto_choose(..., why) computed outside for the same model and P.
 * The grid holds keys where only the model, and keys where only the op,
 * chooses otherwise, so that a memo ignoring either is caught; worlds of
 * different models run at once, and side by side in sequence, without
 * seeing each other's choices. */
#define SHARED_MODELS 5
#define SHARED_PS 3
#define SHARED_KEYS (TUTTI_COLL_N * 3 * 2 * 3)
static tutti_model_t shared_models[SHARED_MODELS];
static const int shared_P[SHARED_PS] = {2, 66, 130};

struct shared_key {
  int c, root, opi; /* root -1 for a collective without one */
  size_t m;
  tutti_op_t op;
};
static struct shared_key shared_keys[SHARED_KEYS];
static int shared_nkeys;
/* What tutti_auto_choose with a why says, per model, P and key. */
static const tutti_algo_t *shared_want[SHARED_MODELS][SHARED_PS][SHARED_KEYS];
static const tutti_algo_t *shared_barrier; /* the default barrier, between a world's steps */

static tutti_op_t shared_op(int c, int opi) {
  if (!(tutti_coll_traits(c) & TUTTI_COLL_REDUCES)) return NULL;
  const tutti_algo_t *au;
  tutti_algo_select(c, "auto", NULL, &au, NULL, 0);
  if (opi == 1 && !(tutti_algo_desc(au)->restrictions & TUTTI_ALGO_COMMUTATIVE))
    return TUTTI_MATMUL2;
  return opi == 2 ? NULL : TUTTI_SUM;
}

/* The grid's models and keys (the op innermost, so that keys differing
 * only in it follow each other), and the explained choice of every model,
 * P and key. differ counts the keys that chose otherwise than model 0
 * with only the model changed ([0]), and with only the op ([1]). */
static void shared_setup(int differ[2]) {
  tutti_model_hockney(&shared_models[0], 1e-6, 1e-9);
  tutti_model_hockney(&shared_models[1], 1e-6, 1e-7); /* only beta differs */
  tutti_model_postal(&shared_models[2], 2);
  tutti_model_none(&shared_models[3]);
  shared_models[4] = shared_models[0];
  shared_models[4].gamma = 1e-8; /* only gamma: reductions choose otherwise */
  shared_nkeys = 0;
  for (int c = 0; c < TUTTI_COLL_N; c++)
    for (size_t m = 8; m <= 1 << 20; m *= 128)
      for (int root = 0; root < 2; root++)
        for (int opi = 0; opi < 3; opi++) {
          cr_assert(lt(int, shared_nkeys, SHARED_KEYS));
          int r = tutti_coll_traits(c) & TUTTI_COLL_ROOTED ? root : -1;
          shared_keys[shared_nkeys++] = (struct shared_key){c, r, opi, m, shared_op(c, opi)};
        }
  cr_assert(
      eq(int,
         tutti_algo_select(TUTTI_COLL_BARRIER, tutti_algo_desc_default(TUTTI_COLL_BARRIER)->name,
                           NULL, &shared_barrier, NULL, 0),
         0));
  differ[0] = differ[1] = 0;
  for (int pi = 0; pi < SHARED_PS; pi++)
    for (int i = 0; i < shared_nkeys; i++) {
      const struct shared_key *k = &shared_keys[i];
      const tutti_algo_t *base;
      cr_assert(eq(int,
                   tutti_auto_choose(k->c, &shared_models[0], NULL, shared_P[pi], k->m,
                                     k->root < 0 ? -1 : 0, shared_op(k->c, 0), &base, NULL, 0),
                   0));
      for (int mi = 0; mi < SHARED_MODELS; mi++) {
        char why[1024];
        const tutti_algo_t **a = &shared_want[mi][pi][i];
        cr_assert(eq(int,
                     tutti_auto_choose(k->c, &shared_models[mi], NULL, shared_P[pi], k->m, k->root,
                                       k->op, a, why, sizeof why),
                     0),
                  "%s P=%d m=%zu root=%d op=%d model %d", tutti_coll_name(k->c), shared_P[pi], k->m,
                  k->root, k->opi, mi);
        cr_assert(ne(ptr, (void *)*a, NULL));
        /* without a why, the same choice */
        const tutti_algo_t *b = NULL;
        cr_assert(eq(int,
                     tutti_auto_choose(k->c, &shared_models[mi], NULL, shared_P[pi], k->m, k->root,
                                       k->op, &b, NULL, 0),
                     0));
        cr_assert(eq(ptr, (void *)b, (void *)*a), "%s P=%d m=%zu root=%d op=%d model %d",
                  tutti_coll_name(k->c), shared_P[pi], k->m, k->root, k->opi, mi);
        if (*a != base && k->root <= 0) {
          if (k->opi == 0) differ[0]++;
          if (mi == 0) differ[1]++;
        }
      }
    }
}

/* One world's asking: keys[0..n) (indices into shared_keys), `passes`
 * times, STEP keys between barriers, rank r starting at the (r mod 4)-th
 * of them. */
#define STEP 8

struct shared_world {
  int mi, pi;
  const int *keys;
  int n, passes;
  _Atomic int bad; /* answers that were not the explained choice */
  char first[256]; /* the first of them, written by the rank that counted it first */
};

static int shared_ask(tutti_rank_t *r, void *arg) {
  struct shared_world *x = arg;
  for (int pass = 0; pass < x->passes; pass++)
    for (int j0 = 0; j0 < x->n; j0 += STEP) {
      int len = x->n - j0 < STEP ? x->n - j0 : STEP;
      for (int j = 0; j < len; j++) {
        int i = x->keys[j0 + (j + tutti_rank(r) % 4) % len];
        const struct shared_key *k = &shared_keys[i];
        const tutti_algo_t *got = NULL;
        int rc = tutti__auto_choose_r(r, k->c, k->m, k->root, k->op, &got);
        const tutti_algo_t *want = shared_want[x->mi][x->pi][i];
        if (rc == 0 && got == want) continue;
        if (atomic_fetch_add(&x->bad, 1) == 0) {
          char sg[128] = "", sw[128] = "";
          if (got) tutti_algo_format(got, sg, sizeof sg);
          tutti_algo_format(want, sw, sizeof sw);
          snprintf(
              x->first, sizeof x->first,
              "model %d P=%d rank %d pass %d: %s m=%zu root=%d op=%d: rc %d, %.60s, want %.60s",
              x->mi, shared_P[x->pi], tutti_rank(r), pass, tutti_coll_name(k->c), k->m, k->root,
              k->opi, rc, sg, sw);
        }
      }
      int rc = tutti_barrier(r, shared_barrier);
      if (rc) return rc;
    }
  return 0;
}

static tutti_world_t *shared_world_create(int mi, int pi) {
  tutti_config_t cfg = tutti_config_default(shared_P[pi]);
  cfg.model = &shared_models[mi];
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0), "model %d P=%d", mi, shared_P[pi]);
  return w;
}

static void shared_run(tutti_world_t *w, struct shared_world *x) {
  atomic_store(&x->bad, 0);
  x->first[0] = '\0';
  int rc = tutti_world_run(w, shared_ask, x);
  x->first[sizeof x->first - 1] = '\0';
  cr_assert(eq(int, rc, 0), "model %d P=%d: %s", x->mi, shared_P[x->pi], tutti_world_error(w));
  cr_assert(eq(int, atomic_load(&x->bad), 0), "%s", x->first);
}

struct shared_thread {
  tutti_world_t *w;
  struct shared_world x;
  int rc;
};

static void *shared_thread_run(void *arg) {
  struct shared_thread *t = arg;
  t->rc = tutti_world_run(t->w, shared_ask, &t->x);
  return NULL;
}

static int shared_all[SHARED_KEYS];

Test(tune, model_choice_shared_by_the_ranks, .timeout = 120) {
  int differ[2];
  shared_setup(differ);
  /* else the grid could not tell a memo that ignores them */
  cr_assert(gt(int, differ[0], 0), "no model chose otherwise");
  cr_assert(gt(int, differ[1], 0), "no op chose otherwise");
  for (int i = 0; i < shared_nkeys; i++) shared_all[i] = i;
  /* every model's world of each P, several at once (two are enough for
   * the sanitizers to see a race) */
  enum { AT_ONCE = SANITIZED ? 2 : SHARED_MODELS };
  for (int pi = 0; pi < SHARED_PS; pi++)
    for (int m0 = 0; m0 < SHARED_MODELS; m0 += AT_ONCE) {
      struct shared_thread t[AT_ONCE];
      pthread_t th[AT_ONCE];
      int n = 0;
      for (int mi = m0; mi < SHARED_MODELS && mi < m0 + AT_ONCE; mi++, n++) {
        t[n] = (struct shared_thread){.w = shared_world_create(mi, pi)};
        t[n].x.mi = mi, t[n].x.pi = pi, t[n].x.keys = shared_all, t[n].x.n = shared_nkeys;
        t[n].x.passes = 2;
        cr_assert(eq(int, pthread_create(&th[n], NULL, shared_thread_run, &t[n]), 0));
      }
      for (int j = 0; j < n; j++) pthread_join(th[j], NULL);
      for (int j = 0; j < n; j++) {
        t[j].x.first[sizeof t[j].x.first - 1] = '\0';
        cr_assert(eq(int, t[j].rc, 0), "model %d P=%d: %s", t[j].x.mi, shared_P[pi],
                  tutti_world_error(t[j].w));
        cr_assert(eq(int, atomic_load(&t[j].x.bad), 0), "%s", t[j].x.first);
        tutti_world_destroy(t[j].w);
      }
    }
}

/* Two worlds of different models, both alive in one process, never see
 * each other's choices: for every model that chooses otherwise than
 * model 0 somewhere, on those keys (few enough for any memo to keep them
 * all), model 0's world asks, then the other's, then model 0's again, and
 * again the other's; then both at once. */
Test(tune, model_choice_apart_between_worlds, .timeout = 120) {
  int differ[2];
  shared_setup(differ);
  int pairs = 0;
  for (int pi = 0; pi < SHARED_PS; pi++)
    for (int mi = 1; mi < SHARED_MODELS; mi++) {
      int keys[8], n = 0;
      for (int i = 0; i < shared_nkeys && n < 8; i++)
        if (shared_want[mi][pi][i] != shared_want[0][pi][i]) keys[n++] = i;
      if (!n) continue;
      pairs++;
      tutti_world_t *w[2] = {shared_world_create(0, pi), shared_world_create(mi, pi)};
      struct shared_world x[2] = {{.mi = 0, .pi = pi, .keys = keys, .n = n, .passes = 1},
                                  {.mi = mi, .pi = pi, .keys = keys, .n = n, .passes = 1}};
      for (int round = 0; round < 4; round++) shared_run(w[round % 2], &x[round % 2]);
      struct shared_thread t[2];
      pthread_t th[2];
      for (int j = 0; j < 2; j++) {
        t[j] = (struct shared_thread){.w = w[j], .x = x[j]};
        atomic_store(&t[j].x.bad, 0);
        cr_assert(eq(int, pthread_create(&th[j], NULL, shared_thread_run, &t[j]), 0));
      }
      for (int j = 0; j < 2; j++) pthread_join(th[j], NULL);
      for (int j = 0; j < 2; j++) {
        t[j].x.first[sizeof t[j].x.first - 1] = '\0';
        cr_assert(eq(int, t[j].rc, 0), "%s", tutti_world_error(w[j]));
        cr_assert(eq(int, atomic_load(&t[j].x.bad), 0), "at once: %s", t[j].x.first);
      }
      tutti_world_destroy(w[0]);
      tutti_world_destroy(w[1]);
    }
  /* every model but model 0 chooses otherwise somewhere, at some P */
  cr_assert(ge(int, pairs, SHARED_MODELS - 1), "%d pairs", pairs);
}

/* ------------------------------------------------------------ bad input */

static void bad_rules(const char *text, const char *line_tag, const char *sub) {
  char path[] = "/tmp/tutti-badrules-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  cr_assert(eq(long, (long)write(fd, text, strlen(text)), (long)strlen(text)));
  close(fd);
  char want[128];
  snprintf(want, sizeof want, "%s:%s", path, line_tag);
  const char *cmds[][8] = {{"run", "bcast", "auto", "--rules", path, NULL},
                           {"sweep", "bcast", "--ranks", "2", "--sizes", "8", "--rules", path},
                           {"suite", "-n", "2", "--rules", path, NULL}};
  for (int i = 0; i < 3; i++) {
    const char *args[10] = {0};
    for (int k = 0; k < 8 && cmds[i][k]; k++) args[k] = cmds[i][k];
    struct cli c = run_env(NULL, args);
    fails_with(c, 2, want);
    HAS(c.err, "--rules");
    HAS(c.err, sub);
    cli_free(&c);
  }
  unlink(path);
}

Test(tune, bad_rules_files, .timeout = 60) {
  bad_rules("[bcst]\n", "1:", "unknown collective; accepted: [bcast]");
  bad_rules("[bcast]\nranks = 4\n0..10 = nosuch\n", "3:", "unknown bcast algorithm 'nosuch'");
  bad_rules("[bcast]\nranks = 4\n0..10 = lambda-tree:lambda=2\n", "3:", "lambda");
  bad_rules("[bcast]\nranks = 4\n0..10 = binomial:nosuch=1\n", "3:", "nosuch");
  bad_rules("[bcast]\nranks = 4\n10..5 = binomial\n", "3:", "low end is above");
  bad_rules("[bcast]\nranks = 4\nx..5 = binomial\n", "3:", "range 'x..5'");
  bad_rules("[bcast]\nranks = 4\n5 = binomial\n", "3:", "accepted: ranks = N");
  bad_rules("[bcast]\n0..5 = binomial\n", "2:", "before any 'ranks = N'");
  bad_rules("[bcast]\nranks = 0\n", "2:", "not a rank count");
  bad_rules("[bcast]\nranks = 4\n0..100 = flat\n50.. = binomial\n", "4:", "overlaps");
  bad_rules("[bcast]\nranks = 4\n0.. = auto\n", "3:", "auto");
  bad_rules("[bcast]\n[reduce]\n[bcast]\n", "3:", "given twice");
  bad_rules("ranks = 4\n", "1:", "");
}
