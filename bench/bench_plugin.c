/*
 * bench_plugin.c -- `tutti bench plugin`: what an algorithm from outside
 * costs against tutti's own, in one run.
 *
 * 1. Compiling a one-file algorithm: the binomial broadcast below, written
 *    to a file and given to tutti_plugin_compile with an empty cache (the
 *    first compile, wall seconds), then again (found in the cache: nothing
 *    compiled).
 * 2. Per call: an 8 B broadcast on 16 ranks as fibers (native, the none
 *    model) by tutti's binomial and by that plugin's, which sends the same
 *    messages in the same order but is written against the public API
 *    alone (its tree from rank arithmetic, kept in the call's plan with
 *    tutti_plan_state as tutti's own keeps its node). Each round times a batch of each in turn (the
 * order rotates); the ratio is the median of the per-round ratios (the machine's speed swings
 * between rounds, not within one).
 * 3. --baseline LIB: the same 8 B broadcast (algo NULL: the default,
 *    binomial) through another libtutti.so -- the library built from an
 *    earlier commit -- loaded beside this one (RTLD_DEEPBIND: its own
 *    symbols first), against this library's, in turn each round.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "stats.h"
#include "tutti/tutti.h"

#define WHO "tutti bench plugin"
#define P 16
#define TARGET 0.02 /* seconds a timed batch lasts */
#define WARMUP 10

/* The plugin: MPICH's binomial broadcast (tutti's bcast 'binomial'), its
 * tree worked out once per plan (tutti_plan_state) as tutti's own keeps
 * its node in the plan, in the form `tutti new` gives every algorithm;
 * and a one-line tree algorithm (.tree = "binomial": tutti's own mover,
 * registered by a plugin). */
static const char plugin_src[] =
    "#include <tutti/plugin.h>\n"
    "struct node { int ready, parent, n, child[30]; };\n"
    "static void make(struct node *nd, int P, int me, int root) {\n"
    "  int v = (me - root + P) % P, mask = 1;\n"
    "  nd->parent = -1, nd->n = 0;\n"
    "  for (; mask < P; mask <<= 1)\n"
    "    if (v & mask) { nd->parent = (v - mask + root) % P; break; }\n"
    "  for (mask >>= 1; mask > 0; mask >>= 1)\n"
    "    if (v + mask < P) nd->child[nd->n++] = (v + mask + root) % P;\n"
    "  nd->ready = 1;\n"
    "}\n"
    "static int bin(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,\n"
    "               const tutti_algo_t *a) {\n"
    "  (void)a;\n"
    "  int tag = tutti_coll_tag(r), rc = 0, n = 0;\n"
    "  if (tag < 0) return tag;\n"
    "  struct node own, *nd = tutti_plan_state(r, sizeof *nd);\n"
    "  if (!nd) nd = &own, own.ready = 0;\n"
    "  if (!nd->ready) make(nd, tutti_size(r), tutti_rank(r), root);\n"
    "  if (nd->parent >= 0) rc = tutti_recv(r, buf, count, type, nd->parent, tag, NULL);\n"
    "  tutti_request_t q[30];\n"
    "  for (; n < nd->n && !rc; n++) rc = tutti_isend(r, buf, count, type, nd->child[n], tag, "
    "&q[n]);\n"
    "  int rc2 = n ? tutti_waitall(r, n, q, NULL) : 0;\n"
    "  return rc ? rc : rc2;\n"
    "}\n"
    "static const tutti_algo_desc_t d = {.abi = TUTTI_ALGO_ABI, .coll = TUTTI_COLL_BCAST,\n"
    "  .name = \"binomial-plugin\", .fn.bcast = bin,\n"
    "  .summary = \"binomial tree, farthest child first\", .source = \"MPICH\"};\n"
    "static const tutti_algo_desc_t t = {.abi = TUTTI_ALGO_ABI, .coll = TUTTI_COLL_BCAST,\n"
    "  .name = \"binomial-tree-plugin\", .tree = \"binomial\",\n"
    "  .summary = \"tutti's binomial tree mover\", .source = \"tutti\"};\n"
    "TUTTI_PLUGIN(p) {\n"
    "  int rc = tutti_plugin_add(p, &d);\n"
    "  return rc ? rc : tutti_plugin_add(p, &t);\n"
    "}\n";

/* ------------------------------------------------------------ the library's API, twice */

/* The calls a batch needs, from this library or from --baseline's. */
struct lib {
  int (*world_create)(tutti_world_t **, const tutti_config_t *);
  int (*world_run)(tutti_world_t *, tutti_rank_fn *, void *);
  void (*world_destroy)(tutti_world_t *);
  tutti_config_t (*config_default)(int);
  int (*bcast)(tutti_rank_t *, void *, long, tutti_datatype_t, int, const tutti_algo_t *);
  int (*barrier)(tutti_rank_t *, const tutti_algo_t *);
  const char *(*world_error)(const tutti_world_t *);
  int (*rank)(const tutti_rank_t *);
  tutti_datatype_t int64;
};

static const struct lib ours = {tutti_world_create,   tutti_world_run, tutti_world_destroy,
                                tutti_config_default, tutti_bcast,     tutti_barrier,
                                tutti_world_error,    tutti_rank,      &tutti_builtin_type_int64};

static int load_lib(const char *path, struct lib *l) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!h) {
    fprintf(stderr, WHO ": --baseline: %s; accepted: a libtutti.so\n", dlerror());
    return 2;
  }
#define SYM(f, name) *(void **)&l->f = dlsym(h, name)
  SYM(world_create, "tutti_world_create"), SYM(world_run, "tutti_world_run");
  SYM(world_destroy, "tutti_world_destroy"), SYM(config_default, "tutti_config_default");
  SYM(bcast, "tutti_bcast"), SYM(barrier, "tutti_barrier");
  SYM(world_error, "tutti_world_error"), SYM(rank, "tutti_rank");
#undef SYM
  l->int64 = dlsym(h, "tutti_builtin_type_int64");
  if (!l->world_create || !l->world_run || !l->world_destroy || !l->config_default || !l->bcast ||
      !l->barrier || !l->world_error || !l->rank || !l->int64) {
    fprintf(stderr, WHO ": --baseline: %s lacks tutti's API; accepted: a libtutti.so\n", path);
    return 2;
  }
  return 0;
}

/* ------------------------------------------------------------ batches */

struct batch {
  const struct lib *lib;
  const tutti_algo_t *algo; /* NULL: the default */
  int calls;
  double per_call;
};

static int batch_fn(tutti_rank_t *r, void *arg) {
  struct batch *b = arg;
  int64_t x = 1;
  int rc = 0;
  for (int i = 0; i < WARMUP && !rc; i++) rc = b->lib->bcast(r, &x, 1, b->lib->int64, 0, b->algo);
  if (!rc) rc = b->lib->barrier(r, NULL);
  double t0 = bench_now();
  for (int i = 0; i < b->calls && !rc; i++) rc = b->lib->bcast(r, &x, 1, b->lib->int64, 0, b->algo);
  if (!rc) rc = b->lib->barrier(r, NULL);
  if (rc == 0 && x != 1) rc = TUTTI_EVERIFY;
  /* rank 0 reads the time: the barrier after the batch makes it the slowest's */
  if (b->lib->rank(r) == 0) b->per_call = (bench_now() - t0) / (b->calls ? b->calls : 1);
  return rc;
}

static tutti_world_t *fibers(const struct lib *l) {
  tutti_config_t c = l->config_default(P);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  tutti_world_t *w = NULL;
  return l->world_create(&w, &c) ? NULL : w;
}

/* One batch of b on w sized to its speed; the per-call seconds, or < 0. */
static double timed(tutti_world_t *w, struct batch *b) {
  if (b->lib->world_run(w, batch_fn, b)) {
    fprintf(stderr, WHO ": %s\n", b->lib->world_error(w));
    return -1;
  }
  b->calls = bench_batch(TARGET, b->per_call, 200, 200000);
  return b->per_call;
}

/* Rounds of a against b, in turn (the order rotates): the median ratio
 * b/a and each one's median per call. */
static int race(const char *what_a, struct batch *a, tutti_world_t *wa, const char *what_b,
                struct batch *b, tutti_world_t *wb, int rounds) {
  double *ta = malloc(sizeof(double) * (size_t)rounds), *tb = malloc(sizeof(double) * rounds);
  double *ratio = malloc(sizeof(double) * (size_t)rounds);
  int rc = 0;
  a->calls = b->calls = 200;
  if (timed(wa, a) < 0 || timed(wb, b) < 0) rc = 3; /* sizing */
  for (int k = 0; k < rounds && !rc; k++) {
    int first = k & 1;
    for (int j = 0; j < 2 && !rc; j++) {
      int which = j ^ first;
      if (timed(which ? wb : wa, which ? b : a) < 0) rc = 3;
    }
    ta[k] = a->per_call, tb[k] = b->per_call, ratio[k] = b->per_call / a->per_call;
  }
  if (!rc) {
    char s1[32], s2[32];
    printf("  %-34s %12s per call\n  %-34s %12s per call\n  %s / %s: %.3fx (median of %d "
           "per-round ratios)\n",
           what_a, tutti_format_time(bench_median(ta, rounds), s1, sizeof s1), what_b,
           tutti_format_time(bench_median(tb, rounds), s2, sizeof s2), what_b, what_a,
           bench_median(ratio, rounds), rounds);
  }
  free(ta), free(tb), free(ratio);
  return rc;
}

/* ------------------------------------------------------------ compiling */

static int compile_times(char *so, size_t n) {
  char dir[] = "/tmp/tutti_bench_plugin_XXXXXX", src[PATH_MAX], cache[PATH_MAX], err[1024];
  if (!mkdtemp(dir)) return fprintf(stderr, WHO ": cannot make a temporary directory\n"), 3;
  snprintf(src, sizeof src, "%s/binomial_plugin.c", dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  FILE *f = fopen(src, "w");
  if (!f || fputs(plugin_src, f) < 0 || fclose(f))
    return fprintf(stderr, WHO ": cannot write %s\n", src), 3;
  setenv("TUTTI_CACHE_DIR", cache, 1);
  int compiled[2];
  double t[2];
  for (int k = 0; k < 2; k++) {
    double t0 = bench_now();
    if (tutti_plugin_compile(src, so, n, &compiled[k], err, sizeof err))
      return fprintf(stderr, WHO ": %s\n", err), 3;
    t[k] = bench_now() - t0;
  }
  char s1[32], s2[32];
  printf("compiling a one-file algorithm (tutti_plugin_compile, an empty cache):\n"
         "  first time %12s (%s)\n  second time %11s (%s)\n",
         tutti_format_time(t[0], s1, sizeof s1), compiled[0] ? "compiled" : "found in the cache",
         tutti_format_time(t[1], s2, sizeof s2),
         compiled[1] ? "compiled again" : "found in the cache: nothing compiled");
  return 0;
}

/* ------------------------------------------------------------ the command */

int tutti_bench_plugin(int argc, char **argv) {
  int rounds = 9;
  const char *baseline = NULL, *v;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: tutti bench plugin [--rounds R] [--baseline LIBTUTTI]\n\n"
             "What an algorithm from outside costs: compiling a one-file algorithm (first\n"
             "time, then from the cache), and an 8 B broadcast on %d fiber ranks by tutti's\n"
             "binomial against a plugin's tree line and the same tree written as a plugin,\n"
             "in turn each round (R, default 9; medians of per-round ratios). --baseline:\n"
             "the same broadcast through another libtutti.so (an earlier build) against\n"
             "this one.\n",
             P);
      return 0;
    }
    if ((v = bench_opt(argc, argv, &i, "--rounds"))) {
      if (bench_once(WHO, &seen, 1, "--rounds")) return 2;
      rounds = atoi(v);
      if (rounds < 1 || rounds > 101) {
        fprintf(stderr, WHO ": --rounds: '%s' is not valid; accepted: 1..101\n", v);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--baseline"))) {
      if (bench_once(WHO, &seen, 2, "--baseline")) return 2;
      baseline = v;
    } else {
      fprintf(stderr, WHO ": unknown option '%s' (see --help)\n", argv[i]);
      return 2;
    }
  }
  struct lib base;
  if (baseline && load_lib(baseline, &base)) return 2;
  char so[PATH_MAX], err[1024];
  int st = compile_times(so, sizeof so);
  if (st) return st;
  const tutti_algo_t *builtin, *plugin, *tree;
  if (tutti_plugin_load(so, err, sizeof err) ||
      tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, &builtin, err, sizeof err) ||
      tutti_algo_select(TUTTI_COLL_BCAST, "binomial-plugin", NULL, &plugin, err, sizeof err) ||
      tutti_algo_select(TUTTI_COLL_BCAST, "binomial-tree-plugin", NULL, &tree, err, sizeof err)) {
    fprintf(stderr, WHO ": %s\n", err);
    return 3;
  }
  tutti_world_t *w1 = fibers(&ours), *w3 = NULL;
  if (!w1) return fprintf(stderr, WHO ": cannot make a world of %d fibers\n", P), 3;
  printf("\n8 B bcast, %d ranks as fibers, native (model none):\n", P);
  struct batch a = {&ours, builtin, 0, 0}, b = {&ours, tree, 0, 0}, c = {&ours, plugin, 0, 0};
  st = race("tutti's binomial", &a, w1, "a plugin's tree line", &b, w1, rounds);
  if (!st) st = race("tutti's binomial", &a, w1, "the tree written as a plugin", &c, w1, rounds);
  if (!st && baseline) {
    if (!(w3 = fibers(&base))) return fprintf(stderr, WHO ": --baseline: no world\n"), 3;
    printf("\nthe default bcast (binomial), 8 B, %d fibers, against %s:\n", P, baseline);
    struct batch e = {&ours, NULL, 0, 0}, f = {&base, NULL, 0, 0};
    st = race("this library", &e, w1, "the baseline library", &f, w3, rounds);
  }
  tutti_world_destroy(w1);
  if (w3) base.world_destroy(w3);
  return st;
}
