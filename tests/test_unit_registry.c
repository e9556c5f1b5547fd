/*
 * test_unit_registry.c -- the collectives' registry (collectives/registry.c)
 * without messaging: selection by name, by a unique leading word and by
 * the TUTTI_<COLL> variable; parameters, auto values and the canonical
 * format that selects the same algorithm again; every registered name
 * selects itself and every collective has a default; each error lists
 * what is accepted; restrictions (tutti_algo_check).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "algo.h" /* collectives/: tutti__params, the built-ins' typed values */
#include "coll_helpers.h"

static int has(const char *s, const char *sub) {
  return strstr(s, sub) != NULL;
}

/* Bit i: parameter i of a is "auto". */
static unsigned auto_bits(const tutti_algo_t *a) {
  unsigned bits = 0;
  for (int i = 0; i < tutti_algo_desc(a)->nparams; i++)
    bits |= (unsigned)tutti_algo_param_is_auto(a, i) << i;
  return bits;
}

Test(select, env_variable) {
  setenv("TUTTI_BCAST", "lambda:lambda=0.7", 1);
  const tutti_algo_t *a = NULL;
  char err[256];
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, NULL, NULL, &a, err, sizeof err), 0), "%s",
            err);
  cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "lambda-tree"));
  cr_expect(eq(dbl, tutti_algo_param(a, "lambda"), 0.7));
  cr_expect(eq(dbl, tutti_algo_param(a, "segment"), 0));
  /* an explicit name wins over the variable */
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", "", &a, err, sizeof err), 0));
  cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "flat"));
  /* a bad variable is an error naming it */
  setenv("TUTTI_BCAST", "nosuch", 1);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, NULL, NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(has(err, "TUTTI_BCAST") && has(err, "binomial"), "%s", err);
  unsetenv("TUTTI_BCAST");
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, NULL, NULL, &a, err, sizeof err), 0));
  cr_expect(eq(ptr, (void *)tutti_algo_desc(a), (void *)tutti_algo_desc_default(TUTTI_COLL_BCAST)));
}

Test(select, names_params_format) {
  const tutti_algo_t *a = NULL;
  char err[256], s[128];
  cr_assert(eq(int,
               tutti_algo_select(TUTTI_COLL_REDUCE, "lambda-tree:lambda=0.75", "segment=8KiB", &a,
                                 err, sizeof err),
               0),
            "%s", err);
  cr_expect(eq(dbl, tutti_algo_param(a, "lambda"), 0.75));
  cr_expect(eq(dbl, tutti_algo_param(a, "segment"), 8192));
  cr_assert(eq(int, tutti_algo_format(a, s, sizeof s), 0));
  cr_expect(eq(str, s, "lambda-tree:lambda=0.75,segment=8KiB"));
  /* the canonical spelling selects the same algorithm again */
  const tutti_algo_t *b = NULL;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_REDUCE, s, NULL, &b, err, sizeof err), 0), "%s",
            err);
  cr_expect(eq(ptr, (void *)a, (void *)b)); /* the same handle */
  /* a unique leading word; auto defaults */
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "postal", NULL, &a, err, sizeof err), 0));
  cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "postal-optimal"));
  cr_expect(eq(u32, auto_bits(a), 1u));
  cr_expect(isnan(tutti_algo_param(a, "L")));
  cr_assert(eq(int, tutti_algo_format(a, s, sizeof s), 0));
  cr_expect(eq(str, s, "postal-optimal:L=auto,segment=0"));
  cr_assert(
      eq(int,
         tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", " lambda = auto ", &a, err, sizeof err),
         0),
      "%s", err);
  cr_expect(eq(u32, auto_bits(a), 1u));
  cr_expect(eq(int, tutti_algo_format(a, s, 8), TUTTI_EINVAL)); /* truncated */
  /* every registered name selects itself, and every default is registered */
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    cr_expect(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, err, sizeof err), 0), "%s",
              err);
    cr_expect(eq(ptr, (void *)tutti_algo_desc(a), (void *)d));
    cr_expect(eq(ptr, (void *)tutti_algo_desc_find(d->coll, d->name), (void *)d));
    cr_expect(d->summary && d->source && d->cost);
  }
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    cr_expect(not(eq(ptr, (void *)tutti_algo_desc_default(c), NULL)), "%s", tutti_coll_name(c));
    int back;
    cr_expect(eq(int, tutti_coll_find(tutti_coll_name(c), &back), 0));
    cr_expect(eq(int, back, c));
  }
  int coll;
  cr_expect(eq(int, tutti_coll_find("nosuch", &coll), TUTTI_ENOTFOUND));
  cr_expect(eq(str, (char *)tutti_coll_name(TUTTI_COLL_N), "invalid"));
}

Test(select, errors_list_what_is_accepted) {
  const tutti_algo_t *a = NULL;
  char err[512];
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "nosuch", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(has(err, "'nosuch'") && has(err, "flat") && has(err, "binomial") &&
                has(err, "lambda-tree") && has(err, "postal-optimal"),
            "%s", err);
  cr_expect(eq(int, tutti_algo_select(-1, "flat", NULL, &a, err, sizeof err), TUTTI_ENOTFOUND));
  cr_expect(has(err, "bcast") && has(err, "barrier"), "%s", err);
  cr_expect(
      eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=1.0", &a, err, sizeof err),
         TUTTI_EINVAL));
  cr_expect(has(err, "lambda") && has(err, "[0.5, 1)") && has(err, "auto"), "%s", err);
  cr_expect(eq(
      int, tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree:lambda=0.4", NULL, &a, err, sizeof err),
      TUTTI_EINVAL));
  cr_expect(has(err, "[0.5, 1)"), "%s", err);
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=x", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(
      eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=nan", &a, err, sizeof err),
         TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "lambda=0.6", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "unknown parameter 'lambda'") && has(err, "segment"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", "segment=1", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "no parameters"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment=-1", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment=auto", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "auto"), "%s", err);
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "postal-optimal", "L=0", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "[1, 4096]"), "%s", err);
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "postal-optimal", "L=2.5", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree:lambda=0.6", "lambda=0.7", &a, err,
                                 sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "twice"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, NULL, err, sizeof err),
               TUTTI_EINVAL));
  /* restrictions */
  a = pick(TUTTI_COLL_REDUCE, "binary", NULL);
  cr_expect(eq(int, tutti_algo_check(a, 4, TUTTI_SUM, err, sizeof err), 0));
  cr_expect(eq(int, tutti_algo_check(a, 4, TUTTI_MATMUL2, err, sizeof err), TUTTI_ENOTSUP));
  cr_expect(has(err, "commutative") && has(err, "matmul2"), "%s", err);
  cr_expect(eq(int, tutti_algo_check(a, 0, TUTTI_SUM, err, sizeof err), TUTTI_EINVAL));
  /* what is not a selected algorithm (a handle cannot be edited by hand):
   * NULL, a description, zeroed memory */
  static const long zeros[64];
  const tutti_algo_t *bogus[] = {NULL, (const tutti_algo_t *)(const void *)tutti_algo_desc(a),
                                 (const tutti_algo_t *)(const void *)zeros};
  for (size_t i = 0; i < sizeof bogus / sizeof *bogus; i++) {
    err[0] = '\0';
    cr_expect(eq(int, tutti_algo_check(bogus[i], 4, TUTTI_SUM, err, sizeof err), TUTTI_EINVAL),
              "bogus %zu", i);
    cr_expect(has(err, "not a selected algorithm"), "bogus %zu: %s", i, err);
  }
}

/* A size as large as a size_t holds (found by fuzz_params): the double
 * that holds it is 2^64, which converted back to size_t was undefined;
 * the typed value is cut to 2^63, which segments every message alike. */
Test(select, largest_size_parameter) {
  const tutti_algo_t *a = NULL;
  char err[256];
  cr_assert(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment=18446744073709551615", &a,
                                 err, sizeof err),
               0),
            "%s", err);
  cr_assert(eq(sz, tutti__params(a)->segment, (size_t)1 << 63));
  cr_assert(eq(int, tutti_algo_check(a, 4, NULL, err, sizeof err), 0), "%s", err);
  /* the formatted name says the value that is used (it, too, converted 2^64) */
  char name[128];
  cr_assert(eq(int, tutti_algo_format(a, name, sizeof name), 0));
  cr_assert(eq(str, name, "binomial:segment=8388608TiB"));
}

/* Choice parameters: the words, the index tutti_algo_param returns, the
 * range text, a rank list kept in canonical form and read back with the
 * list continuing across commas. */
Test(select, choice_parameters) {
  const tutti_algo_t *a = NULL;
  char err[256], s[256];
  const tutti_algo_desc_t *d = tutti_algo_desc_find(TUTTI_COLL_BCAST, "pipelined-chain");
  cr_assert(ne(ptr, (void *)d, NULL));
  const tutti_param_desc_t *order = NULL;
  for (int i = 0; i < d->nparams; i++)
    if (!strcmp(d->params[i].name, "order")) order = &d->params[i];
  cr_assert(ne(ptr, (void *)order, NULL));
  cr_assert(eq(int, order->type, TUTTI_PARAM_CHOICE));
  cr_assert(eq(int, tutti_param_range(order, s, sizeof s), 0));
  cr_expect(eq(str, s, "one of rank, dfs, list:R,R,... (ranks or ranges a-b)"));
  a = pick(TUTTI_COLL_BCAST, "pipelined-chain", "order=dfs");
  cr_expect(eq(dbl, tutti_algo_param(a, "order"), TUTTI_ORDER_DFS));
  cr_expect(eq(int, (int)tutti__params(a)->order, TUTTI_ORDER_DFS));
  cr_expect(eq(str, (char *)tutti_param_list(a, "order"), ""));
  a = pick(TUTTI_COLL_BCAST, "pipelined-chain:order=list:2, 0-1 ,5-3", "segments=4");
  cr_expect(eq(int, (int)tutti__params(a)->order, TUTTI_ORDER_LIST));
  cr_expect(eq(str, (char *)tutti_param_list(a, "order"), "2,0-1,5-3"));
  cr_expect(eq(int, (int)tutti__params(a)->segments, 4));
  cr_assert(eq(int, tutti_algo_format(a, s, sizeof s), 0));
  cr_expect(eq(str, s, "pipelined-chain:segments=4,segment=0,order=list:2,0-1,5-3,window=1"));
  cr_expect(eq(int, tutti_algo_check_call(a, 6, 2, 100, NULL, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, tutti_algo_check_call(a, 6, 0, 100, NULL, err, sizeof err), TUTTI_EINVAL));
  /* a number is not a word; a list must be one */
  cr_expect(eq(
      int, tutti_algo_select(TUTTI_COLL_BCAST, "pipelined-chain", "order=1", &a, err, sizeof err),
      TUTTI_EINVAL));
  cr_expect(has(err, "one of rank, dfs"), "%s", err);
  cr_expect(
      eq(int,
         tutti_algo_select(TUTTI_COLL_BCAST, "pipelined-chain", "order=list:", &a, err, sizeof err),
         TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "pipelined-chain", "order=list:1,,2", &a, err,
                                 sizeof err),
               TUTTI_EINVAL));
  /* auto is not a word of order */
  cr_expect(
      eq(int,
         tutti_algo_select(TUTTI_COLL_BCAST, "pipelined-chain", "order=auto", &a, err, sizeof err),
         TUTTI_EINVAL));
}

/* allgather and reduce_scatter are collectives of the registry: found by
 * name, their variables, their defaults; recursive doubling refuses a P
 * that is not a power of two and says which P it takes; the
 * reduce-scatters refuse a non-commutative op. */
Test(registry, allgather_and_reduce_scatter, .timeout = 10) {
  int c = -1;
  char err[512];
  const tutti_algo_t *a = NULL;
  cr_assert(eq(int, tutti_coll_find("allgather", &c), 0));
  cr_expect(eq(int, c, TUTTI_COLL_ALLGATHER));
  cr_assert(eq(int, tutti_coll_find("reduce_scatter", &c), 0));
  cr_expect(eq(int, c, TUTTI_COLL_REDUCE_SCATTER));
  cr_expect(eq(str, (char *)tutti_algo_desc_default(TUTTI_COLL_ALLGATHER)->name, "bruck"));
  cr_expect(eq(str, (char *)tutti_algo_desc_default(TUTTI_COLL_REDUCE_SCATTER)->name, "ring"));

  a = pick(TUTTI_COLL_ALLGATHER, "recursive", NULL); /* a unique leading part */
  cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "recursive-doubling"));
  cr_expect(eq(int, tutti_algo_check_call(a, 8, -1, 64, NULL, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, tutti_algo_check_call(a, 12, -1, 64, NULL, err, sizeof err), TUTTI_ENOTSUP));
  cr_expect(not(eq(ptr, strstr(err, "needs a power-of-two number of ranks, not 12"), NULL)), "%s",
            err);

  for (const char *const *n = (const char *const[]){"ring", "recursive-halving", NULL}; *n; n++) {
    a = pick(TUTTI_COLL_REDUCE_SCATTER, *n, NULL);
    cr_expect(eq(int, tutti_algo_check_call(a, 5, -1, 64, TUTTI_SUM, err, sizeof err), 0));
    cr_expect(eq(int, tutti_algo_check_call(a, 5, -1, 64, TUTTI_MATMUL2, err, sizeof err),
                 TUTTI_ENOTSUP));
    cr_expect(not(eq(ptr, strstr(err, "needs a commutative op"), NULL)), "%s", err);
  }

  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_ALLGATHER, "tree", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(not(eq(ptr, strstr(err, "accepted: ring, recursive-doubling, bruck"), NULL)), "%s",
            err);
  setenv("TUTTI_REDUCE_SCATTER", "recursive-halving", 1);
  cr_assert(
      eq(int, tutti_algo_select(TUTTI_COLL_REDUCE_SCATTER, NULL, NULL, &a, err, sizeof err), 0));
  cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "recursive-halving"));
  setenv("TUTTI_REDUCE_SCATTER", "nope", 1);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_REDUCE_SCATTER, NULL, NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(not(eq(ptr, strstr(err, "TUTTI_REDUCE_SCATTER='nope'"), NULL)), "%s", err);
  unsetenv("TUTTI_REDUCE_SCATTER");
}

/* alltoall, scan and exscan are collectives of the registry: found by
 * name, their variables, their defaults, a leading word of a name, their
 * algorithms in the order
 * registered (the unknown name's error lists them); none is restricted:
 * any P, and scan's and exscan's combine in rank order, so a
 * non-commutative op is taken; alltoall takes no op. */
Test(registry, alltoall_scan_exscan, .timeout = 10) {
  static const struct {
    int coll;
    const char *name, *var, *def, *accepted, *prefix, *expanded;
  } want[] = {
      {TUTTI_COLL_ALLTOALL, "alltoall", "TUTTI_ALLTOALL", "pairwise",
       "accepted: pairwise, linear, bruck, ring", NULL, NULL},
      {TUTTI_COLL_SCAN, "scan", "TUTTI_SCAN", "recursive-doubling",
       "accepted: linear, recursive-doubling, binomial", "recursive", "recursive-doubling"},
      {TUTTI_COLL_EXSCAN, "exscan", "TUTTI_EXSCAN", "recursive-doubling",
       "accepted: linear, recursive-doubling, binomial", "recursive", "recursive-doubling"},
  };
  char err[512];
  const tutti_algo_t *a = NULL;
  for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
    int c = -1, reduces = want[w].coll != TUTTI_COLL_ALLTOALL;
    cr_assert(eq(int, tutti_coll_find(want[w].name, &c), 0));
    cr_expect(eq(int, c, want[w].coll));
    cr_expect(eq(str, (char *)tutti_algo_desc_default(c)->name, (char *)want[w].def));
    if (want[w].prefix) { /* a unique leading word */
      a = pick(c, want[w].prefix, NULL);
      cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, (char *)want[w].expanded));
    }
    int n = 0;
    const tutti_algo_desc_t *d;
    for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
      if (d->coll != c) continue;
      n++;
      a = pick(c, d->name, NULL);
      for (int P = 1; P <= 13; P++) {
        cr_expect(
            eq(int,
               tutti_algo_check_call(a, P, -1, 64, reduces ? TUTTI_SUM : NULL, err, sizeof err), 0),
            "%s %s P=%d: %s", want[w].name, d->name, P, err);
        if (reduces)
          cr_expect(eq(int, tutti_algo_check_call(a, P, -1, 64, TUTTI_MATMUL2, err, sizeof err), 0),
                    "%s %s P=%d matmul2: %s", want[w].name, d->name, P, err);
      }
    }
    cr_expect(eq(int, n, reduces ? 4 : 5), "%s: %d algorithms with auto", want[w].name, n);
    cr_expect(eq(int, tutti_algo_select(c, "tree", NULL, &a, err, sizeof err), TUTTI_ENOTFOUND));
    cr_expect(has(err, want[w].accepted), "%s", err);
    setenv(want[w].var, "linear", 1);
    cr_assert(eq(int, tutti_algo_select(c, NULL, NULL, &a, err, sizeof err), 0), "%s", err);
    cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "linear"));
    setenv(want[w].var, "nope", 1);
    cr_expect(eq(int, tutti_algo_select(c, NULL, NULL, &a, err, sizeof err), TUTTI_ENOTFOUND));
    char named[64];
    snprintf(named, sizeof named, "%s='nope'", want[w].var);
    cr_expect(has(err, named), "%s", err);
    unsetenv(want[w].var);
  }
  /* a leading part that is not a whole word selects nothing */
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_ALLTOALL, "pair", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  /* an unknown collective's error lists the new ones too */
  cr_expect(eq(int, tutti_algo_select(-1, "linear", NULL, &a, err, sizeof err), TUTTI_ENOTFOUND));
  cr_expect(has(err, "alltoall") && has(err, "scan") && has(err, "exscan"), "%s", err);
}
