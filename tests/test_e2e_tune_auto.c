/*
 * test_e2e_tune_auto.c -- `auto` and its rules (bench/CLI.md "Tune and
 * auto", "Rules files"): the rules API's lookup and tutti_auto_choose
 * following a rule; every collective's `auto` without rules (an
 * algorithm that runs, never `auto`, honouring a non-commutative op); the
 * model choice the ranks of a call share (every key of its memo, threads
 * asking at once); bad rules files, reported at FILE:LINE by run, sweep
 * and suite. What `tutti tune` writes and its round trip: test_e2e_tune.c.
 *
 * Under the sanitizers two threads, not four, ask for the shared choice
 * at once.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* ------------------------------------------------------------ the API */

Test(tune, rules_lookup_api, .timeout = 30) {
  tutti_rules_t *rs;
  cr_assert(eq(int, tutti_rules_create(&rs, "t.ini"), 0));
  tutti_algo_t flat, bin, aut;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", NULL, &flat, NULL, 0), 0));
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, &bin, NULL, 0), 0));
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "auto", NULL, &aut, NULL, 0), 0));
  char err[256];
  cr_assert(eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 0, 99, &flat, 3, err, 256), 0));
  cr_assert(eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 100, SIZE_MAX, &bin, 4, err, 256), 0));
  cr_assert(eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 16, 0, 10, &bin, 6, err, 256), 0));
  /* overlap, auto, another collective's algorithm, lo > hi, ranks 0 */
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 50, 150, &bin, 9, err, 256), TUTTI_EINVAL));
  HAS(err, "line 3");
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 4, 0, 1, &aut, 9, err, 256), TUTTI_EINVAL));
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_REDUCE, 4, 0, 1, &bin, 9, err, 256), TUTTI_EINVAL));
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 8, 5, 4, &bin, 9, err, 256), TUTTI_EINVAL));
  cr_assert(
      eq(int, tutti_rules_add(rs, TUTTI_COLL_BCAST, 0, 0, 4, &bin, 9, err, 256), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_rules_count(rs), 3));
  tutti_algo_t o;
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
    cr_assert(eq(str, (char *)o.desc->name, (char *)cases[i].want), "P=%d m=%zu", cases[i].P,
              cases[i].m);
    HAS(why, "t.ini:");
  }
  cr_assert(eq(int, tutti_rules_lookup(rs, TUTTI_COLL_REDUCE, 8, 0, &o, NULL, 0), TUTTI_ENOTFOUND));
  cr_assert(
      eq(int, tutti_rules_lookup(NULL, TUTTI_COLL_BCAST, 8, 0, &o, NULL, 0), TUTTI_ENOTFOUND));
  /* tutti_auto_choose follows a rule, and falls back when it cannot run */
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  cr_assert(eq(int, tutti_auto_choose(TUTTI_COLL_BCAST, &m, rs, 4, 8, 0, NULL, &o, why, 256), 0));
  cr_assert(eq(str, (char *)o.desc->name, "flat"));
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
          tutti_algo_t a, au;
          /* an auto that is commutative-only itself (reduce_scatter's) refuses matmul2 */
          cr_assert(eq(int, tutti_algo_select(c, "auto", NULL, &au, NULL, 0), 0));
          if (op && (au.desc->restrictions & TUTTI_ALGO_COMMUTATIVE)) op = TUTTI_SUM;
          char why[1024], err[256];
          cr_assert(eq(int, tutti_auto_choose(c, &models[k], NULL, P, m, -1, op, &a, why, 1024), 0),
                    "%s P=%d", tutti_coll_name(c), P);
          cr_assert(eq(int, a.desc->coll, c));
          cr_assert(tutti_algo_is_auto(a.desc) == 0);
          cr_assert(eq(int, tutti_algo_check(&a, P, op, err, sizeof err), 0), "%s: %s",
                    a.desc->name, err);
          cr_assert(gt(sz, strlen(why), 0));
        }
}

/* The ranks of a call share one model choice (auto.c's memo): without a
 * `why` the choice is the one the explaining path makes, for every key
 * of the memo -- collective, P, bytes, root, the op's commutativity and
 * every field of the model -- so that models, ops or roots that choose
 * differently at the same (P, m) never see each other's choice. Threads
 * ask at once, as the ranks of a world do. */
#define SHARED_MODELS 5
static tutti_model_t shared_models[SHARED_MODELS];

struct shared_ask {
  int c, P, root, k, opi;
  size_t m;
};

static tutti_op_t shared_op(int c, int opi) {
  if (!(tutti_coll_traits(c) & TUTTI_COLL_REDUCES)) return NULL;
  tutti_algo_t au;
  tutti_algo_select(c, "auto", NULL, &au, NULL, 0);
  if (opi == 1 && !(au.desc->restrictions & TUTTI_ALGO_COMMUTATIVE)) return TUTTI_MATMUL2;
  return opi == 2 ? NULL : TUTTI_SUM;
}

/* Every key of the grid: the explained choice and the shared one agree.
 * differ (may be NULL) counts the keys that chose otherwise than model 0
 * with only the model changed ([0]), and with only the op ([1]). */
static void *shared_grid(void *arg) {
  int *differ = arg;
  for (int c = 0; c < TUTTI_COLL_N; c++)
    for (int P = 2; P <= 130; P += 64)
      for (size_t m = 8; m <= 1 << 20; m *= 128)
        for (int root = 0; root < 2; root++)
          for (int opi = 0; opi < 3; opi++)
            for (int k = 0; k < SHARED_MODELS; k++) {
              tutti_op_t op = shared_op(c, opi);
              tutti_algo_t a, b, base;
              char why[1024], sa[256], sb[256], s0[256];
              int r = tutti_coll_traits(c) & TUTTI_COLL_ROOTED ? root : -1;
              cr_assert(eq(
                  int,
                  tutti_auto_choose(c, &shared_models[k], NULL, P, m, r, op, &a, why, sizeof why),
                  0));
              for (int again = 0; again < 2; again++) { /* a miss, then (maybe) a hit */
                cr_assert(
                    eq(int, tutti_auto_choose(c, &shared_models[k], NULL, P, m, r, op, &b, NULL, 0),
                       0));
                tutti_algo_format(&a, sa, sizeof sa), tutti_algo_format(&b, sb, sizeof sb);
                cr_assert(eq(str, sa, sb), "%s P=%d m=%zu root=%d op=%d model %d",
                          tutti_coll_name(c), P, m, r, opi, k);
              }
              cr_assert(eq(int,
                           tutti_auto_choose(c, &shared_models[0], NULL, P, m, r < 0 ? -1 : 0,
                                             shared_op(c, 0), &base, NULL, 0),
                           0));
              tutti_algo_format(&base, s0, sizeof s0);
              if (differ && strcmp(s0, sa) && r <= 0) {
                if (opi == 0) differ[0]++;
                if (k == 0) differ[1]++;
              }
            }
  return NULL;
}

Test(tune, model_choice_shared_by_the_ranks, .timeout = 120) {
  tutti_model_hockney(&shared_models[0], 1e-6, 1e-9);
  tutti_model_hockney(&shared_models[1], 1e-6, 1e-7); /* only beta differs */
  tutti_model_postal(&shared_models[2], 2);
  tutti_model_none(&shared_models[3]);
  shared_models[4] = shared_models[0];
  shared_models[4].gamma = 1e-8; /* only gamma: reductions choose otherwise */
  int differ[2] = {0, 0};
  shared_grid(differ);
  /* else the grid could not tell a memo that ignores them */
  cr_assert(gt(int, differ[0], 0), "no model chose otherwise");
  cr_assert(gt(int, differ[1], 0), "no op chose otherwise");
  /* two threads are enough for the sanitizers to see a race */
  enum { NT = SANITIZED ? 2 : 4 };
  pthread_t t[NT];
  for (int i = 0; i < NT; i++)
    cr_assert(eq(int, pthread_create(&t[i], NULL, shared_grid, NULL), 0));
  for (int i = 0; i < NT; i++) pthread_join(t[i], NULL);
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
