/*
 * test_unit_register.c -- the one public way into the registry
 * (collectives/registry.c, select.c, plugin.c), without running a world:
 * a program's own algorithm registered with tutti_algo_register (found,
 * enumerated after the built-ins, its origin, its description copied),
 * selected with parameters into its own struct, read by name, formatted
 * back, interned (the same text the same handle), prefixes of names; every
 * registration error with its sentence and nothing registered after it;
 * plugins loaded in-process (this binary exports tutti_*): the template,
 * a second load, the origin's real path, every bad plugin of
 * tests/plugins/bad.c, tutti_plugin_load_list, a missing file. World runs
 * of registered algorithms and the call plans are test_e2e_plan.c's.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/plugin.h"
#include "tutti/tutti.h"

static int has(const char *s, const char *sub) {
  return s && strstr(s, sub) != NULL;
}

static int count_algos(void) {
  int n = 0;
  while (tutti_algo_desc_at(n)) n++;
  return n;
}

/* The registry index of d, -1 if it is not enumerated. */
static int index_of(const tutti_algo_desc_t *d) {
  const tutti_algo_desc_t *x;
  for (int i = 0; (x = tutti_algo_desc_at(i)); i++)
    if (x == d) return i;
  return -1;
}

/* A flat broadcast: enough of an algorithm to register (never run here). */
static int flat_bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r), rc = 0;
  if (tag < 0) return tag;
  if (tutti_rank(r) != root) return tutti_recv(r, buf, count, type, root, tag, NULL);
  for (int i = 0; i < tutti_size(r) && !rc; i++)
    if (i != root) rc = tutti_send(r, buf, count, type, i, tag);
  return rc;
}

/* An alltoall, a scan and an exscan: enough to register (never run here). */
static int stub_alltoall(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                         tutti_datatype_t type, const tutti_algo_t *a) {
  (void)r, (void)sbuf, (void)rbuf, (void)count, (void)type, (void)a;
  return TUTTI_ENOTSUP;
}
static int stub_scan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                     tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)r, (void)sbuf, (void)rbuf, (void)count, (void)type, (void)op, (void)a;
  return TUTTI_ENOTSUP;
}

/* The algorithm's own parameter struct: fields away from offset 0, in
 * another order than the declaration's, so that offsets matter. */
struct mine {
  long pad;
  double x;
  long mode;
  long fanout;
  size_t seg;
};

static const char *const mode_words[] = {"up", "down", NULL};

/* ------------------------------------------------------ registering one */

Test(register, own_algorithm_copied_and_enumerated) {
  int n0 = count_algos();
  /* everything the description points to is the test's, and goes */
  char *name = strdup("mine-flat"), *summary = strdup("flat, from the test");
  char *pfan = strdup("fanout"), *px = strdup("x"), *pmode = strdup("mode");
  char **words = calloc(3, sizeof *words);
  words[0] = strdup("up"), words[1] = strdup("down");
  /* name, type, default, min, max, flags, help, offset, words (coll.h's order) */
  char *help = strdup("children"), *src = strdup("tests/test_unit_register.c");
  tutti_param_desc_t ps[3] = {
      {pfan, TUTTI_PARAM_INT, 2, 1, 64, 0, help, offsetof(struct mine, fanout), NULL, NULL},
      {px, TUTTI_PARAM_REAL, 0.5, 0, 1, 0, "a share", offsetof(struct mine, x), NULL, NULL},
      {pmode, TUTTI_PARAM_CHOICE, 0, 0, 1, 0, "mode", offsetof(struct mine, mode),
       (const char *const *)words, NULL},
  };
  tutti_algo_desc_t d = {.abi = TUTTI_ALGO_ABI,
                         .coll = TUTTI_COLL_BCAST,
                         .name = name,
                         .fn.bcast = flat_bcast,
                         .nparams = 3,
                         .params = ps,
                         .params_size = sizeof(struct mine),
                         .summary = summary,
                         .source = src};
  char err[512] = "unset";
  cr_assert(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  /* scribble over and free what was handed in */
  memset(name, 'Z', strlen(name)), memset(summary, 'Z', strlen(summary));
  memset(pfan, 'Z', strlen(pfan)), memset(px, 'Z', strlen(px)), memset(words[1], 'Z', 4);
  memset(help, 'Z', strlen(help)), memset(src, 'Z', strlen(src));
  ps[0].min = 99, ps[1].type = 77, ps[0].offset = 4;
  free(name), free(summary), free(pfan), free(px), free(pmode), free(help), free(src);
  free(words[0]), free(words[1]), free(words);
  memset(&d, 0, sizeof d);

  const tutti_algo_desc_t *f = tutti_algo_desc_find(TUTTI_COLL_BCAST, "mine-flat");
  cr_assert(not(eq(ptr, (void *)f, NULL)));
  cr_expect(eq(int, count_algos(), n0 + 1));
  cr_expect(eq(str, (char *)f->name, "mine-flat"));
  cr_expect(eq(str, (char *)f->summary, "flat, from the test"));
  cr_expect(eq(str, (char *)f->source, "tests/test_unit_register.c"));
  cr_expect(eq(str, (char *)f->params[0].help, "children"));
  cr_expect(eq(ptr, (void *)f->fn.bcast, (void *)flat_bcast));
  cr_expect(eq(ptr, (void *)f->tree, NULL));
  cr_expect(eq(sz, f->params_size, sizeof(struct mine)));
  cr_assert(eq(int, f->nparams, 3));
  cr_expect(eq(str, (char *)f->params[0].name, "fanout"));
  cr_expect(eq(dbl, f->params[0].min, 1));
  cr_expect(eq(sz, f->params[0].offset, offsetof(struct mine, fanout)));
  cr_expect(eq(str, (char *)f->params[1].name, "x"));
  cr_expect(eq(int, f->params[1].type, TUTTI_PARAM_REAL));
  cr_expect(eq(str, (char *)f->params[2].name, "mode"));
  cr_expect(eq(str, (char *)f->params[2].choices[0], "up"));
  cr_expect(eq(str, (char *)f->params[2].choices[1], "down"));
  cr_expect(eq(ptr, (void *)f->params[2].choices[2], NULL));
  /* enumerated, after every built-in */
  int at = index_of(f);
  cr_expect(ge(int, at, 0));
  const tutti_algo_desc_t *x;
  for (int i = 0; (x = tutti_algo_desc_at(i)); i++)
    if (tutti_algo_builtin(x))
      cr_expect(lt(int, i, at), "built-in %s at %d, after %d", x->name, i, at);
  cr_expect(eq(str, (char *)tutti_algo_origin(f), "registered by the program"));
  cr_expect(eq(int, tutti_algo_builtin(f), 0));
  const tutti_algo_desc_t *bin = tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial");
  cr_expect(eq(int, tutti_algo_builtin(bin), 1));
  cr_expect(eq(str, (char *)tutti_algo_origin(bin), "built-in"));
  /* a copy of a description is not a registered one */
  tutti_algo_desc_t copy = *f;
  cr_expect(eq(ptr, (void *)tutti_algo_origin(&copy), NULL));
  cr_expect(eq(int, tutti_algo_builtin(&copy), 0));
  cr_expect(eq(ptr, (void *)tutti_algo_origin(NULL), NULL));
}

static const tutti_param_desc_t mine_params[] = {
    {"fanout", TUTTI_PARAM_INT, 2, 1, 64, TUTTI_PARAM_AUTO_OK, "children",
     offsetof(struct mine, fanout), NULL, NULL},
    {"x", TUTTI_PARAM_REAL, 0.5, 0, 1, TUTTI_PARAM_AUTO_OK, "a share", offsetof(struct mine, x),
     NULL, NULL},
    {"mode", TUTTI_PARAM_CHOICE, 1, 0, 1, 0, "mode", offsetof(struct mine, mode), mode_words, NULL},
    {"seg", TUTTI_PARAM_SIZE, 0, 0, INFINITY, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,
     "bytes", offsetof(struct mine, seg), NULL, NULL},
};

static tutti_algo_desc_t mine_desc(const char *name) {
  return (tutti_algo_desc_t){.abi = TUTTI_ALGO_ABI,
                             .coll = TUTTI_COLL_BCAST,
                             .name = name,
                             .fn.bcast = flat_bcast,
                             .nparams = 4,
                             .params = mine_params,
                             .params_size = sizeof(struct mine),
                             .summary = "flat, from the test",
                             .source = "tests/test_unit_register.c"};
}

static const tutti_algo_t *sel(int coll, const char *name, const char *params) {
  const tutti_algo_t *a = NULL;
  char err[512];
  int rc = tutti_algo_select(coll, name, params, &a, err, sizeof err);
  cr_assert(eq(int, rc, 0), "select %s %s: %s", name, params ? params : "", err);
  cr_assert(not(eq(ptr, (void *)a, NULL)));
  return a;
}

Test(register, selected_with_parameters_and_interned) {
  tutti_algo_desc_t d = mine_desc("mine-sel");
  char err[512], s[256];
  cr_assert(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  const tutti_algo_desc_t *f = tutti_algo_desc_find(TUTTI_COLL_BCAST, "mine-sel");
  const tutti_algo_t *a = sel(TUTTI_COLL_BCAST, "mine-sel:fanout=3,x=0.25", NULL), *b;
  cr_expect(eq(ptr, (void *)tutti_algo_desc(a), (void *)f));
  const struct mine *m = tutti_algo_params(a);
  cr_assert(not(eq(ptr, (void *)m, NULL)));
  cr_expect(eq(long, m->fanout, 3));
  cr_expect(eq(dbl, m->x, 0.25));
  cr_expect(eq(long, m->mode, 1)); /* the default: "down" */
  cr_expect(eq(long, m->pad, 0));
  /* by name, typed and converted, and by index */
  cr_expect(eq(long, tutti_param_long(a, "fanout"), 3));
  cr_expect(eq(dbl, tutti_param_real(a, "x"), 0.25));
  cr_expect(eq(dbl, tutti_param_real(a, "fanout"), 3));
  cr_expect(eq(sz, tutti_param_size(a, "fanout"), 3));
  cr_expect(eq(long, tutti_param_long(a, "mode"), 1));
  cr_expect(eq(dbl, tutti_algo_param(a, "x"), 0.25));
  cr_expect(eq(dbl, tutti_algo_param_at(a, 0), 3));
  cr_expect(eq(dbl, tutti_algo_param_at(a, 1), 0.25));
  cr_expect(isnan(tutti_algo_param_at(a, 4)));
  cr_expect(isnan(tutti_algo_param(a, "nope")));
  cr_expect(eq(int, tutti_algo_param_is_auto(a, 0), 0));
  /* seg's default is auto: SIZE_MAX in a size_t */
  cr_expect(eq(int, tutti_algo_param_is_auto(a, 3), 1));
  cr_expect(eq(sz, m->seg, SIZE_MAX));
  cr_expect(eq(sz, tutti_param_size(a, "seg"), SIZE_MAX));
  cr_expect(isnan(tutti_algo_param(a, "seg")));
  /* an undeclared name outside any call: only the value tells */
  cr_expect(eq(long, tutti_param_long(a, "nope"), 0));
  cr_expect(isnan(tutti_param_real(a, "nope")));
  cr_expect(eq(sz, tutti_param_size(a, "nope"), 0));
  cr_expect(eq(str, (char *)tutti_param_list(a, "nope"), ""));
  /* spelled back, and the spelling selects the same handle */
  cr_assert(eq(int, tutti_algo_format(a, s, sizeof s), 0));
  cr_expect(eq(str, s, "mine-sel:fanout=3,x=0.25,mode=down,seg=auto"));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, s, NULL), (void *)a));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel:fanout=3,x=0.25", NULL), (void *)a));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel", "x=0.25,fanout=3"), (void *)a));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel:x=0.250", " fanout = 3 "), (void *)a));
  cr_expect(
      eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel:fanout=+3,x=.25,seg=auto", NULL), (void *)a));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel:fanout=03,x=25e-2,mode=down", NULL),
               (void *)a));
  /* auto where allowed: NAN, TUTTI_PARAM_AUTO in the struct; sizes by value */
  const tutti_algo_t *au = sel(TUTTI_COLL_BCAST, "mine-sel:fanout=auto,x=auto,seg=1KiB", NULL);
  const struct mine *am = tutti_algo_params(au);
  cr_expect(eq(long, am->fanout, TUTTI_PARAM_AUTO));
  cr_expect(isnan(am->x));
  cr_expect(eq(sz, am->seg, 1024));
  cr_expect(eq(long, tutti_param_long(au, "fanout"), TUTTI_PARAM_AUTO));
  cr_expect(isnan(tutti_param_real(au, "x")));
  cr_expect(isnan(tutti_algo_param_at(au, 0)));
  cr_expect(eq(int, tutti_algo_param_is_auto(au, 1) + tutti_algo_param_is_auto(au, 3), 1));
  cr_expect(eq(sz, tutti_param_size(au, "seg"), 1024));
  cr_assert(eq(int, tutti_algo_format(au, s, sizeof s), 0));
  cr_expect(eq(str, s, "mine-sel:fanout=auto,x=auto,mode=down,seg=1KiB"));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, s, NULL), (void *)au));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel:seg=1024,x=auto", "fanout=auto"),
               (void *)au));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "mine-sel:mode=auto", NULL, &b, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "'mode' does not take auto") && has(err, "one of up, down"), "%s", err);
  /* other values, another handle with its own struct */
  b = sel(TUTTI_COLL_BCAST, "mine-sel:fanout=4,x=0.25", NULL);
  cr_expect(not(eq(ptr, (void *)b, (void *)a)));
  cr_expect(eq(long, ((const struct mine *)tutti_algo_params(b))->fanout, 4));
  cr_expect(eq(long, m->fanout, 3)); /* a's is untouched */
  const tutti_algo_t *c = sel(TUTTI_COLL_BCAST, "mine-sel:fanout=3,x=0.25,mode=up", NULL);
  cr_expect(not(eq(ptr, (void *)c, (void *)a)));
  cr_expect(eq(long, ((const struct mine *)tutti_algo_params(c))->mode, 0));
  /* the defaults */
  const tutti_algo_t *e = sel(TUTTI_COLL_BCAST, "mine-sel", NULL);
  cr_expect(eq(long, ((const struct mine *)tutti_algo_params(e))->fanout, 2));
  cr_expect(eq(dbl, ((const struct mine *)tutti_algo_params(e))->x, 0.5));
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, "mine-sel", "fanout=2,x=0.5"), (void *)e));
  /* errors name the parameter and what it accepts */
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "mine-sel", "fanout=0", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "fanout") && has(err, "accepted: an integer in [1, 64]"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "mine-sel", "k=2", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "'k'") && has(err, "fanout, x, mode, seg"), "%s", err);
  /* the unknown-name message lists it among bcast's */
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "nosuch", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(has(err, "mine-sel") && has(err, "binomial"), "%s", err);
}

Test(register, prefixes_ending_at_a_dash) {
  cr_expect(
      eq(str, (char *)tutti_algo_desc(sel(TUTTI_COLL_BCAST, "lambda", NULL))->name, "lambda-tree"));
  cr_expect(eq(str, (char *)tutti_algo_desc(sel(TUTTI_COLL_BCAST, "lambda:lambda=0.7", NULL))->name,
               "lambda-tree"));
  tutti_algo_desc_t d = mine_desc("zq-flat");
  char err[512];
  cr_assert(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  const tutti_algo_t *a = sel(TUTTI_COLL_BCAST, "zq:fanout=5", NULL);
  cr_expect(eq(str, (char *)tutti_algo_desc(a)->name, "zq-flat"));
  cr_expect(eq(ptr, (void *)a, (void *)sel(TUTTI_COLL_BCAST, "zq-flat:fanout=5", NULL)));
  /* not a prefix ending elsewhere */
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "zq-fl", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_REDUCE, "zq", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  /* a second name with the same first word makes the prefix ambiguous;
   * exact names still select */
  d = mine_desc("zq-tree");
  cr_assert(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "zq", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(
      eq(str, (char *)tutti_algo_desc(sel(TUTTI_COLL_BCAST, "zq-tree", NULL))->name, "zq-tree"));
  /* the longest name accepted is 64 characters */
  char n64[65];
  memset(n64, 'n', 64), n64[64] = '\0';
  d = mine_desc(n64);
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  cr_expect(not(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_BCAST, n64), NULL)));
}

/* ------------------------------------------------------ registration errors */

/* d does not register: TUTTI_EINVAL, each of want[] in the sentence,
 * nothing added (and a name it has is not found, or is still the built-in). */
static void refused(const tutti_algo_desc_t *d, const char *what, const char *const *want) {
  int n0 = count_algos();
  char err[512] = "unset";
  cr_expect(eq(int, tutti_algo_register(d, err, sizeof err), TUTTI_EINVAL), "%s: %s", what, err);
  for (int i = 0; want[i]; i++)
    cr_expect(has(err, want[i]), "%s: no '%s' in: %s", what, want[i], err);
  cr_expect(eq(int, count_algos(), n0), "%s: registered something", what);
  if (d && d->name && d->coll >= 0 && d->coll < TUTTI_COLL_N) {
    const tutti_algo_desc_t *f = tutti_algo_desc_find(d->coll, d->name);
    cr_expect(f == NULL || tutti_algo_builtin(f), "%s: '%s' is registered", what, d->name);
  }
  /* no err is fine */
  cr_expect(eq(int, tutti_algo_register(d, NULL, 0), TUTTI_EINVAL), "%s", what);
  cr_expect(eq(int, count_algos(), n0), "%s", what);
}
#define REFUSED(d, what, ...) refused(d, what, (const char *const[]){__VA_ARGS__, NULL})

static tutti_algo_desc_t one(const char *name, int np, const tutti_param_desc_t *ps, size_t size) {
  return (tutti_algo_desc_t){.abi = TUTTI_ALGO_ABI,
                             .coll = TUTTI_COLL_BCAST,
                             .name = name,
                             .fn.bcast = flat_bcast,
                             .nparams = np,
                             .params = ps,
                             .params_size = size,
                             .summary = "a test's"};
}

#define PI(nm, d, lo, hi)                                                                          \
  { .name = nm, .type = TUTTI_PARAM_INT, .def = d, .min = lo, .max = hi, .help = "h" }

/* The new collectives take a program's algorithm like the others: its
 * function kept in its member of fn, enumerated after the built-ins,
 * selected by name and by a unique leading part, with its restriction. */
Test(register, alltoall_scan_exscan_algorithms) {
  static const struct {
    int coll;
    const char *name;
    unsigned restrictions;
  } own[] = {{TUTTI_COLL_ALLTOALL, "mine-a2a", TUTTI_ALGO_POW2},
             {TUTTI_COLL_SCAN, "mine-scan", TUTTI_ALGO_COMMUTATIVE},
             {TUTTI_COLL_EXSCAN, "mine-exscan", 0}};
  for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
    int n0 = count_algos();
    tutti_algo_desc_t d = {.abi = TUTTI_ALGO_ABI,
                           .coll = own[i].coll,
                           .name = own[i].name,
                           .restrictions = own[i].restrictions,
                           .summary = "a stub of the test"};
    if (own[i].coll == TUTTI_COLL_ALLTOALL)
      d.fn.alltoall = stub_alltoall;
    else if (own[i].coll == TUTTI_COLL_SCAN)
      d.fn.scan = stub_scan;
    else
      d.fn.exscan = stub_scan;
    char err[512] = "";
    cr_assert(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
    const tutti_algo_desc_t *f = tutti_algo_desc_find(own[i].coll, own[i].name);
    cr_assert(not(eq(ptr, (void *)f, NULL)), "%s", own[i].name);
    cr_expect(eq(int, count_algos(), n0 + 1));
    cr_expect(eq(int, index_of(f), n0), "after the built-ins");
    cr_expect(eq(ptr, (void *)f->fn.any,
                 own[i].coll == TUTTI_COLL_ALLTOALL ? (void *)stub_alltoall : (void *)stub_scan));
    const tutti_algo_t *a = NULL;
    cr_assert(eq(int, tutti_algo_select(own[i].coll, "mine", NULL, &a, err, sizeof err), 0), "%s",
              err);
    cr_expect(eq(ptr, (void *)tutti_algo_desc(a), (void *)f));
    if (own[i].restrictions & TUTTI_ALGO_POW2) {
      cr_expect(eq(int, tutti_algo_check(a, 8, NULL, err, sizeof err), 0), "%s", err);
      cr_expect(eq(int, tutti_algo_check(a, 6, NULL, err, sizeof err), TUTTI_ENOTSUP));
    } else if (own[i].restrictions & TUTTI_ALGO_COMMUTATIVE) {
      cr_expect(eq(int, tutti_algo_check(a, 6, TUTTI_SUM, err, sizeof err), 0), "%s", err);
      cr_expect(eq(int, tutti_algo_check(a, 6, TUTTI_MATMUL2, err, sizeof err), TUTTI_ENOTSUP));
    } else
      cr_expect(eq(int, tutti_algo_check(a, 6, TUTTI_MATMUL2, err, sizeof err), 0), "%s", err);
  }
}

Test(register, errors_of_the_description) {
  tutti_algo_desc_t d;
  REFUSED(NULL, "NULL", "no algorithm description");
  d = one("abi-one", 0, NULL, 0), d.abi = 1;
  REFUSED(&d, "abi 1", "'abi-one'", "ABI version 1", "older tutti", "accepts 5");
  d = one("abi-99", 0, NULL, 0), d.abi = 99;
  REFUSED(&d, "abi 99", "ABI version 99", "newer tutti", "accepts 5", "rebuild");
  d = one("coll-99", 0, NULL, 0), d.coll = 99;
  REFUSED(&d, "coll 99", "unknown collective 99", "accepted: bcast, reduce", "reduce_scatter",
          "alltoall, scan, exscan");
  d = one("coll-neg", 0, NULL, 0), d.coll = -1;
  REFUSED(&d, "coll -1", "unknown collective -1", "accepted:");
  char n65[66];
  memset(n65, 'n', 65), n65[65] = '\0';
  const char *names[] = {NULL, "", "a b", "-x", n65, "a:b", "a/b", "a.c", "\xc3\xa9"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    d = one(names[i], 0, NULL, 0);
    REFUSED(&d, names[i] ? names[i] : "(null)", "bad name", "accepted: letters, digits",
            "at most 64", "not starting with '-'");
  }
  d = one("binomial", 0, NULL, 0);
  REFUSED(&d, "binomial", "bcast 'binomial' is registered already (built-in)",
          "accepted: a name bcast does not have");
  cr_expect(eq(str, (char *)tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial")->summary,
               "binomial tree, farthest child first, optionally pipelined"));
  /* the name in another collective is another algorithm */
  d = one("twice", 0, NULL, 0);
  char err[512];
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  const tutti_algo_desc_t *first = tutti_algo_desc_find(TUTTI_COLL_BCAST, "twice");
  int n1 = count_algos();
  d.summary = "the second";
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), TUTTI_EINVAL));
  cr_expect(has(err, "bcast 'twice' is registered already (registered by the program)") &&
                has(err, "accepted: a name bcast does not have"),
            "%s", err);
  cr_expect(eq(int, count_algos(), n1));
  cr_expect(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_BCAST, "twice"), (void *)first));
  cr_expect(eq(str, (char *)first->summary, "a test's"));
  d.coll = TUTTI_COLL_BARRIER, d.fn.barrier = NULL, d.tree = "binomial"; /* another collective's */
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, count_algos(), n1 + 1));
  d = one("nofn", 0, NULL, 0), d.fn.any = NULL;
  REFUSED(&d, "no fn", "'nofn'", "no function and no tree", "accepted: fn.bcast, or a tree kind");
  d = one("restr", 0, NULL, 0), d.restrictions = 1u << 5;
  REFUSED(&d, "restrictions", "unknown restriction bits 0x20",
          "accepted: TUTTI_ALGO_COMMUTATIVE, TUTTI_ALGO_POW2");
  d = one("nosum", 0, NULL, 0), d.summary = NULL;
  REFUSED(&d, "summary NULL", "no summary", "accepted: its idea in one line");
  d = one("emptysum", 0, NULL, 0), d.summary = "";
  REFUSED(&d, "summary empty", "no summary");
  tutti_param_desc_t many[TUTTI_MAX_PARAMS + 1];
  for (int i = 0; i <= TUTTI_MAX_PARAMS; i++) {
    static char pn[TUTTI_MAX_PARAMS + 1][8];
    snprintf(pn[i], sizeof pn[i], "p%d", i);
    many[i] = (tutti_param_desc_t)PI(pn[i], 1, 0, 2);
  }
  d = one("many", TUTTI_MAX_PARAMS + 1, many, 0);
  REFUSED(&d, "17 params", "17 parameters", "accepted: 0..16");
  d = one("negparams", -1, many, 0);
  REFUSED(&d, "-1 params", "-1 parameters", "accepted: 0..16");
  d = one("nullparams", 1, NULL, 0);
  REFUSED(&d, "NULL params", "1 parameters", "accepted: 0..16, in params");
  d = one("sixteen", TUTTI_MAX_PARAMS, many, 0); /* the most there may be */
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
}

Test(register, errors_of_the_parameters) {
  tutti_algo_desc_t d;
  const tutti_param_desc_t minmax[] = {PI("k", 5, 8, 2)};
  d = one("minmax", 1, minmax, 0);
  REFUSED(&d, "min > max", "parameter 'k'", "min 8 > max 2", "accepted: a finite min <= max");
  const tutti_param_desc_t nanmin[] = {PI("k", 5, NAN, 2)};
  d = one("nanmin", 1, nanmin, 0);
  REFUSED(&d, "min NaN", "'k'", "accepted: a finite min <= max");
  const tutti_param_desc_t infmin[] = {PI("k", 5, -INFINITY, 2)};
  d = one("infmin", 1, infmin, 0);
  REFUSED(&d, "min -inf", "'k'", "accepted: a finite min <= max");
  const tutti_param_desc_t def[] = {PI("k", 99, 2, 8)};
  d = one("default", 1, def, 0);
  REFUSED(&d, "default", "parameter 'k'", "default 99 is out of its range [2, 8]");
  const tutti_param_desc_t dup[] = {PI("k", 2, 2, 8), PI("j", 2, 2, 8), PI("k", 3, 2, 8)};
  d = one("dup", 3, dup, 0);
  REFUSED(&d, "twice", "parameter 'k' is declared twice", "accepted: each name once");
  const char *bad_names[] = {NULL, "", "a-b", "a b", "k=v"};
  for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
    const tutti_param_desc_t p[] = {PI("ok", 2, 2, 8), PI(bad_names[i], 2, 2, 8)};
    d = one("pname", 2, p, 0);
    REFUSED(&d, "param name", "parameter 1 has a bad name", "accepted: letters, digits and '_'");
  }
  int types[] = {0, 5, 9, -1};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    tutti_param_desc_t p[] = {PI("k", 2, 2, 8)};
    p[0].type = types[i];
    d = one("ptype", 1, p, 0);
    REFUSED(&d, "type", "parameter 'k' has unknown type", "accepted: REAL, INT, SIZE, CHOICE");
  }
  tutti_param_desc_t fl[] = {PI("k", 2, 2, 8)};
  fl[0].flags = 4;
  d = one("flags", 1, fl, 0);
  REFUSED(&d, "flags 4", "unknown flags 0x4",
          "accepted: TUTTI_PARAM_AUTO_OK, TUTTI_PARAM_AUTO_DEFAULT");
  fl[0].flags = TUTTI_PARAM_AUTO_DEFAULT;
  d = one("flags2", 1, fl, 0);
  REFUSED(&d, "auto default alone", "'k'", "an auto default needs TUTTI_PARAM_AUTO_OK");
  /* choices */
  static const char *const none[] = {NULL}, *const two[] = {"a", "b", NULL};
  static const char *const comma[] = {"a,b", NULL}, *const empty[] = {"", NULL};
  tutti_param_desc_t ch[] = {{.name = "c", .type = TUTTI_PARAM_CHOICE, .min = 0, .max = 0}};
  d = one("nowords", 1, ch, 0);
  REFUSED(&d, "choices NULL", "choice parameter 'c' has no words", "accepted: a NULL-ended list");
  ch[0].choices = none;
  REFUSED(&d, "choices {NULL}", "choice parameter 'c' has no words");
  ch[0].choices = two, ch[0].max = 2;
  d = one("range", 1, ch, 0);
  REFUSED(&d, "range [0, 2]", "choice parameter 'c': range [0, 2]",
          "accepted: [0, 1], its words' indices");
  ch[0].min = 1, ch[0].max = 1, ch[0].def = 1;
  REFUSED(&d, "range [1, 1]", "range [1, 1]", "accepted: [0, 1]");
  ch[0].min = 0, ch[0].max = 1, ch[0].def = 0;
  ch[0].choices = comma, ch[0].max = 0;
  d = one("comma", 1, ch, 0);
  REFUSED(&d, "word a,b", "bad word 'a,b'", "accepted: words without ',' or '='");
  ch[0].choices = empty;
  REFUSED(&d, "word ''", "bad word ''");
  tutti_param_desc_t words[] = {PI("k", 0, 0, 1)};
  words[0].choices = two;
  d = one("words", 1, words, 0);
  REFUSED(&d, "words on an INT", "parameter 'k' has words but is not a choice");
  const tutti_param_desc_t negsize[] = {
      {.name = "s", .type = TUTTI_PARAM_SIZE, .def = 0, .min = -1, .max = 10, .help = "h"}};
  d = one("negsize", 1, negsize, 0);
  REFUSED(&d, "size min -1", "size parameter 's': min -1", "accepted: >= 0");
  /* offsets: past the struct, across its end, misaligned */
  tutti_param_desc_t off[] = {PI("k", 2, 2, 8), PI("j", 2, 2, 8)};
  off[1].offset = 16;
  d = one("offset", 2, off, 16);
  REFUSED(&d, "offset 16 of 16", "parameter 'j': offset 16 does not hold a 8-byte field",
          "params_size 16");
  off[1].offset = 12;
  d = one("offset", 2, off, 16);
  REFUSED(&d, "offset 12", "offset 12 does not hold a 8-byte field in params_size 16");
  off[1].offset = 8;
  d = one("offset-ok", 2, off, 16);
  char err[512];
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  /* no struct: offsets are not looked at */
  off[1].offset = 1000;
  d = one("offset-none", 2, off, 0);
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
}

static tutti_algo_desc_t tree(int coll, const char *name, const char *kind, int np,
                              const tutti_param_desc_t *ps) {
  return (tutti_algo_desc_t){.abi = TUTTI_ALGO_ABI,
                             .coll = coll,
                             .name = name,
                             .tree = kind,
                             .nparams = np,
                             .params = ps,
                             .summary = "a test's tree"};
}

Test(register, errors_of_trees) {
  tutti_algo_desc_t d;
  char err[512];
  d = tree(TUTTI_COLL_BCAST, "t-nosuch", "nosuch", 0, NULL);
  REFUSED(&d, "kind", "unknown tree kind 'nosuch'",
          "accepted: flat, chain, binary, binomial, knomial, lambda, postal");
  d = tree(TUTTI_COLL_ALLREDUCE, "t-allreduce", "binomial", 0, NULL);
  REFUSED(&d, "allreduce", "allreduce has no tree mover",
          "accepted: a tree for bcast, reduce, gather, scatter, barrier");
  d = tree(TUTTI_COLL_ALLGATHER, "t-allgather", "binomial", 0, NULL);
  REFUSED(&d, "allgather", "allgather has no tree mover");
  d = tree(TUTTI_COLL_ALLTOALL, "t-alltoall", "binomial", 0, NULL);
  REFUSED(&d, "alltoall", "alltoall has no tree mover");
  d = tree(TUTTI_COLL_SCAN, "t-scan", "chain", 0, NULL);
  REFUSED(&d, "scan", "scan has no tree mover");
  d = tree(TUTTI_COLL_EXSCAN, "t-exscan", "chain", 0, NULL);
  REFUSED(&d, "exscan", "exscan has no tree mover");
  d = tree(TUTTI_COLL_GATHER, "t-gather-binary", "binary", 0, NULL);
  REFUSED(&d, "gather binary", "gather moves contiguous subtrees, and a binary tree's are not",
          "accepted: flat, chain, binomial");
  d = tree(TUTTI_COLL_SCATTER, "t-scatter-binary", "binary", 0, NULL);
  REFUSED(&d, "scatter binary", "scatter moves contiguous subtrees");
  d = tree(TUTTI_COLL_REDUCE, "t-reduce-binary", "binary", 0, NULL);
  REFUSED(&d, "reduce binary", "a reduce on a binary tree cannot keep rank order",
          "accepted: restrictions TUTTI_ALGO_COMMUTATIVE, or a contiguous tree");
  d.restrictions = TUTTI_ALGO_COMMUTATIVE; /* then it may */
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  d = tree(TUTTI_COLL_BCAST, "t-bcast-binary", "binary", 0, NULL); /* bcast needs no order */
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  const tutti_param_desc_t lam[] = {PI("lambda", 1, 0, 2)};
  d = tree(TUTTI_COLL_BCAST, "t-lambda-int", "lambda", 1, lam);
  REFUSED(&d, "lambda INT", "tree parameter 'lambda' must be of type REAL");
  const tutti_param_desc_t kr[] = {
      {.name = "k", .type = TUTTI_PARAM_REAL, .def = 2, .min = 2, .max = 8, .help = "h"}};
  d = tree(TUTTI_COLL_BCAST, "t-k-real", "knomial", 1, kr);
  REFUSED(&d, "k REAL", "tree parameter 'k' must be of type INT");
  const tutti_param_desc_t segi[] = {PI("segment", 0, 0, 100)};
  d = tree(TUTTI_COLL_BCAST, "t-seg-int", "binomial", 1, segi);
  REFUSED(&d, "segment INT", "tree parameter 'segment' must be of type SIZE");
  const tutti_param_desc_t seg[] = {
      {.name = "segment", .type = TUTTI_PARAM_SIZE, .min = 0, .max = INFINITY, .help = "h"}};
  d = tree(TUTTI_COLL_GATHER, "t-gather-seg", "binomial", 1, seg);
  REFUSED(&d, "gather segment", "gather's tree mover does not segment",
          "accepted: segment for bcast, reduce");
  d = tree(TUTTI_COLL_BARRIER, "t-barrier-seg", "binomial", 1, seg);
  REFUSED(&d, "barrier segment", "barrier's tree mover does not segment");
  d = tree(TUTTI_COLL_REDUCE, "t-reduce-seg", "binomial", 1, seg); /* reduce segments */
  cr_expect(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s", err);
  /* a tree algorithm gets its collective's mover and its tree's cost */
  const tutti_algo_desc_t *f = tutti_algo_desc_find(TUTTI_COLL_REDUCE, "t-reduce-seg");
  cr_assert(not(eq(ptr, (void *)f, NULL)));
  cr_expect(not(eq(ptr, (void *)f->fn.reduce, NULL)));
  cr_expect(not(eq(ptr, (void *)f->cost_fn, NULL)));
  cr_expect(eq(ptr, (void *)f->fn.reduce,
               (void *)tutti_algo_desc_find(TUTTI_COLL_REDUCE, "binomial")->fn.reduce));
  cr_expect(eq(str, (char *)f->tree, "binomial"));
}

/* ------------------------------------------------------------- plugins */

/* BUILD/tests/plugins/NAME.so: $TUTTI_BINARY_DIR, else beside this binary. */
static const char *plugin(const char *name) {
  static char path[8][PATH_MAX];
  static int next;
  char *p = path[next++ % 8];
  const char *dir = getenv("TUTTI_BINARY_DIR");
  if (dir && *dir) {
    snprintf(p, PATH_MAX, "%s/tests/plugins/%s.so", dir, name);
  } else {
    char exe[PATH_MAX - 128]; /* room for "/plugins/NAME.so" */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(gt(long, (long)n, 0));
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(p, PATH_MAX, "%s/plugins/%s.so", exe, name);
  }
  cr_assert(eq(int, access(p, R_OK), 0), "no plugin %s (build the tests first)", p);
  return p;
}

/* The directory of a path (a copy). */
static const char *dirname_of(const char *path) {
  static char dir[4][PATH_MAX];
  static int next;
  char *d = dir[next++ % 4];
  snprintf(d, PATH_MAX, "%s", path);
  char *slash = strrchr(d, '/');
  if (slash) *slash = '\0';
  return d;
}

Test(plugin, template_loads_once_with_its_real_path) {
  char err[1024] = "unset", real[PATH_MAX], twisty[PATH_MAX + 32];
  const char *so = plugin("template_bcast");
  cr_assert(not(eq(ptr, (void *)realpath(so, real), NULL)));
  cr_expect(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_BCAST, "template_algo"), NULL));
  int n0 = count_algos();
  /* through a path with ".." in it: the origin is the real path */
  snprintf(twisty, sizeof twisty, "%s/../plugins/./template_bcast.so", dirname_of(so));
  cr_assert(eq(int, tutti_plugin_load(twisty, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, count_algos(), n0 + 1));
  const tutti_algo_desc_t *d = tutti_algo_desc_find(TUTTI_COLL_BCAST, "template_algo");
  cr_assert(not(eq(ptr, (void *)d, NULL)));
  cr_expect(eq(str, (char *)tutti_algo_origin(d), real));
  cr_expect(eq(int, tutti_algo_builtin(d), 0));
  cr_expect(gt(int, index_of(d), 0));
  /* again, by either spelling: nothing more */
  cr_expect(eq(int, tutti_plugin_load(so, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, tutti_plugin_load(twisty, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, count_algos(), n0 + 1));
  /* selected by name, and by its file */
  const tutti_algo_t *a = sel(TUTTI_COLL_BCAST, "template_algo:k=4", NULL);
  cr_expect(eq(ptr, (void *)tutti_algo_desc(a), (void *)d));
  cr_expect(eq(long, tutti_param_long(a, "k"), 4));
  cr_expect(eq(long, *(const long *)tutti_algo_params(a), 4));
  char spec[PATH_MAX + 16];
  snprintf(spec, sizeof spec, "%s:k=4", so);
  cr_expect(eq(ptr, (void *)sel(TUTTI_COLL_BCAST, spec, NULL), (void *)a));
  cr_expect(eq(int, count_algos(), n0 + 1));
  /* its cost function is its own, through the handle */
  tutti_hockney_t h = {1, 0, 0};
  int bound = -1;
  /* the root's fourth child has it four sends in */
  cr_expect(eq(dbl, tutti_algo_cost(a, 5, 0, 8, &h, &bound), 4));
  cr_expect(eq(int, bound, 0));
}

Test(plugin, bad_plugins_register_nothing) {
  /* each fails with TUTTI_EINVAL, these in its sentence, registering none of names */
  static const struct {
    const char *file, *want[3], *names[2];
  } cases[] = {
      {"bad_partial", {"bcast 'partial'", "min 8 > max 2"}, {"good", "partial"}},
      {"bad_future", {"plugin ABI version 6 is newer than", "accepted: 5", "rebuild"}, {"fine"}},
      {"bad_past", {"plugin ABI version 4 is older than", "accepted: 5"}, {"fine"}},
      {"bad_noentry", {"not a tutti plugin", "tutti_plugin_abi", "TUTTI_PLUGIN"}, {"fine"}},
      {"bad_minmax", {"'minmax'", "min 8 > max 2"}, {"minmax"}},
      {"bad_default", {"default 99 is out of its range [2, 8]"}, {"default"}},
      {"bad_dupparam", {"parameter 'k' is declared twice"}, {"dupparam"}},
      {"bad_type", {"unknown type 9", "accepted: REAL, INT, SIZE, CHOICE"}, {"type"}},
      {"bad_coll", {"unknown collective 99"}, {"coll"}},
      {"bad_builtin", {"'binomial' is registered already (built-in)"}, {NULL}},
      {"bad_twins", {"bcast 'twin' is registered already"}, {"twin"}},
      {"bad_init", {"tutti_plugin_init returned -7, not 0"}, {"fine"}},
  };

  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *so = plugin(cases[i].file);
    int n0 = count_algos();
    for (int again = 0; again < 2; again++) { /* a failed load is not remembered as loaded */
      char err[1024] = "unset";
      cr_expect(eq(int, tutti_plugin_load(so, err, sizeof err), TUTTI_EINVAL), "%s: %s",
                cases[i].file, err);
      cr_expect(has(err, so), "%s: the file is not named: %s", cases[i].file, err);
      for (int k = 0; k < 3 && cases[i].want[k]; k++)
        cr_expect(has(err, cases[i].want[k]), "%s: no '%s' in: %s", cases[i].file, cases[i].want[k],
                  err);
      cr_expect(eq(int, count_algos(), n0), "%s registered something", cases[i].file);
      for (int k = 0; k < 2 && cases[i].names[k]; k++)
        cr_expect(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_BCAST, cases[i].names[k]), NULL),
                  "%s: '%s' is registered", cases[i].file, cases[i].names[k]);
    }
  }
  cr_expect(eq(int, tutti_algo_builtin(tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial")), 1));
}

Test(plugin, lists_and_missing_files) {
  char err[2048] = "unset", list[4 * PATH_MAX];
  cr_expect(eq(int, tutti_plugin_load_list(NULL, err, sizeof err), 0));
  cr_expect(eq(int, tutti_plugin_load_list("", err, sizeof err), 0));
  cr_expect(eq(int, tutti_plugin_load_list(":::", err, sizeof err), 0));
  int n0 = count_algos();
  /* empty items skipped; the first error stops the list */
  snprintf(list, sizeof list, ":%s::%s:%s:", plugin("template_gather"), plugin("bad_future"),
           plugin("template_scatter"));
  cr_expect(eq(int, tutti_plugin_load_list(list, err, sizeof err), TUTTI_EINVAL));
  cr_expect(has(err, "bad_future.so") && has(err, "ABI version"), "%s", err);
  cr_expect(not(has(err, "template_scatter")), "%s", err);
  cr_expect(eq(int, count_algos(), n0 + 1));
  cr_expect(not(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_GATHER, "template_algo"), NULL)));
  cr_expect(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_SCATTER, "template_algo"), NULL));
  /* files that are not there: the first named */
  cr_expect(eq(int, tutti_plugin_load_list("a::b", err, sizeof err), TUTTI_EIO));
  cr_expect(eq(int, strncmp(err, "a: ", 3), 0), "%s", err);
  cr_expect(has(err, "No such file"), "%s", err);
  cr_expect(eq(int, tutti_plugin_load_list("::b", err, sizeof err), TUTTI_EIO));
  cr_expect(eq(int, strncmp(err, "b: ", 3), 0), "%s", err);
  /* a list of good ones, one of them loaded already */
  snprintf(list, sizeof list, "%s:%s", plugin("template_gather"), plugin("template_scatter"));
  cr_expect(eq(int, tutti_plugin_load_list(list, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, count_algos(), n0 + 2));
  cr_expect(not(eq(ptr, (void *)tutti_algo_desc_find(TUTTI_COLL_SCATTER, "template_algo"), NULL)));
  /* one file */
  cr_expect(eq(int, tutti_plugin_load("/nonexistent/dir/p.so", err, sizeof err), TUTTI_EIO));
  cr_expect(has(err, "/nonexistent/dir/p.so") && has(err, "No such file"), "%s", err);
  cr_expect(
      eq(int, tutti_plugin_load(dirname_of(plugin("template_bcast")), err, sizeof err), TUTTI_EIO));
  cr_expect(has(err, "a directory"), "%s", err);
  cr_expect(eq(int, tutti_plugin_load(NULL, err, sizeof err), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_plugin_load("", err, sizeof err), TUTTI_EINVAL));
  const tutti_algo_t *a = NULL;
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "/nonexistent/p.so", NULL, &a, err, sizeof err),
               TUTTI_EIO));
  cr_expect(eq(int, count_algos(), n0 + 2));
}
