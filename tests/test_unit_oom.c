/*
 * test_unit_oom.c -- every public function that promises TUTTI_ENOMEM
 * returns it when an allocation fails, whichever one fails, and leaves
 * nothing behind.
 *
 * This file defines malloc, calloc, realloc and free over glibc's own
 * (__libc_malloc, ...), with a per-thread countdown: armed with n, the
 * thread's (n+1)-th allocation from then on fails. Each case calls its
 * function with n = 0, 1, 2, ... until the call succeeds; every earlier
 * call must return TUTTI_ENOMEM and free whatever it had allocated (the
 * thread's allocations and frees balance). Allocations of other threads
 * (Criterion's) never fail.
 *
 * Not under the sanitizers, whose runtimes own malloc: ASan's leak check
 * covers those builds. TUTTI_TSAN_SKIP: ThreadSanitizer owns malloc too.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "sanitized.h"

static __thread int armed, own_only; /* own_only: fail only this program's allocations */
static __thread long countdown;      /* allocations to let pass; then one fails */
static __thread long live, failed;   /* while armed: allocations - frees; failures */

#if !SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* The program's own code (tutti's, linked in statically, and this
 * file's), as the linker bounds it; the C library's and the dynamic
 * loader's lie outside. */
extern const char __executable_start[], etext[];

static int fail_now(const void *caller) {
  if (!armed || countdown < 0) return 0;
  if (own_only && !((const char *)caller >= __executable_start && (const char *)caller < etext))
    return 0;
  if (countdown-- > 0) return 0;
  failed++; /* countdown is now -1: the rest pass */
  errno = ENOMEM;
  return 1;
}

void *malloc(size_t n) {
  if (fail_now(__builtin_return_address(0))) return NULL;
  void *p = __libc_malloc(n);
  if (p && armed) live++;
  return p;
}

void *calloc(size_t k, size_t n) {
  if (fail_now(__builtin_return_address(0))) return NULL;
  void *p = __libc_calloc(k, n);
  if (p && armed) live++;
  return p;
}

void *realloc(void *q, size_t n) {
  if (fail_now(__builtin_return_address(0))) return NULL;
  void *p = __libc_realloc(q, n);
  if (p && !q && armed) live++;
  return p;
}

void free(void *p) {
  if (p && armed) live--;
  __libc_free(p);
}
#endif

/* Arm: the n-th allocation from now fails (and none after it: one
 * failure a call, so that what the function does to clean up succeeds). */
static void arm(long n) {
  live = failed = 0;
  countdown = n;
  armed = 1;
}

static void disarm(void) {
  armed = 0;
}

/* A case: run once, returning the function's code; undo frees what a
 * successful run made. */
struct oom_case {
  const char *name;
  int (*run)(void *state);
  void (*undo)(void *state);
  void *state;
  /* run once first, unarmed: what the call interns for good (selected
   * algorithms' handles) is then there before allocations fail */
  int warm;
  /* why what a failed call keeps is not checked (NULL: it is) */
  const char *keeps;
  const char *err; /* the call's error text, for messages (may be NULL) */
  /* why only the program's own allocations fail (NULL: every one does) */
  const char *own_only;
};

/* The loop described at the top: returns how many allocations the call
 * made before it succeeded. */
static long exhaust(const struct oom_case *c) {
  if (SANITIZED) cr_skip("the sanitizers own malloc: their leak check covers these builds");
  if (c->warm) {
    cr_assert(eq(int, c->run(c->state), 0), "%s", c->name);
    if (c->undo) c->undo(c->state);
  }
  for (long n = 0; n < 100000; n++) {
    if (getenv("OOM_TRACE")) fprintf(stderr, "%s %ld\n", c->name, n);
    arm(n);
    own_only = c->own_only != NULL;
    int rc = c->run(c->state);
    long fails = failed, left = live;
    disarm();
    if (!fails) { /* every allocation succeeded */
      cr_assert(eq(int, rc, 0), "%s: %d allocations all succeeded, yet it returned %d", c->name,
                (int)n, rc);
      if (c->undo) c->undo(c->state);
      return n;
    }
    cr_assert(eq(int, rc, TUTTI_ENOMEM), "%s: allocation %ld failed, and it returned %d (%s)%s%s",
              c->name, n, rc, tutti_strerror(rc), c->err ? ": " : "", c->err ? c->err : "");
    if (!c->keeps)
      cr_assert(eq(long, left, 0), "%s: allocation %ld failed, and %ld allocations were kept",
                c->name, n, left);
  }
  cr_assert(0, "%s: more than 100000 allocations", c->name);
  return 0;
}

/* -------------------------------------------------------------- topo/ */

static tutti_topo_t *topo;

static void topo_open(void) {
  char err[256];
  cr_assert(eq(int, tutti_topo_from_spec("tree:4x8", "1us/1GB/s", &topo, err, sizeof err), 0), "%s",
            err);
}

static int mapping_parse(void *s) {
  tutti_topo_mapping_t *m = s;
  return tutti_topo_mapping_parse("list:3,0,2,1,7,6,5,4,8,9,10,11,12,13,14,15", m, NULL, 0);
}
static void mapping_undo(void *s) {
  tutti_topo_mapping_clear(s);
}

static int chain_order(void *s) {
  (void)s;
  int leaf[32], order[32];
  for (int i = 0; i < 32; i++) leaf[i] = 31 - i;
  return tutti_topo_chain_order(topo, leaf, 32, 5, order);
}

static int print_to(void *s) {
  return tutti_topo_print(topo, s);
}

static tutti_linkset_t *links;
static int linkset_create(void *s) {
  (void)s;
  return tutti_linkset_create(topo, &links);
}
static void linkset_undo(void *s) {
  (void)s;
  tutti_linkset_free(links);
  links = NULL;
}

/* Many messages at once on one link of a fresh linkset: its queue
 * statistics grow (on a failure the linkset goes, and all it held). */
static int linkset_hop(void *s) {
  (void)s;
  links = NULL;
  int rc = tutti_linkset_create(topo, &links), link = tutti_topo_leaf_link(topo, 0);
  for (int i = 0; i < 4096 && !rc; i++) {
    tutti_transit_t tr = {.head = 0, .tail = 1e-6};
    rc = tutti_linkset_hop(links, link, &tr, 1000, NULL);
  }
  if (rc && links) tutti_linkset_free(links), links = NULL;
  return rc;
}

static int linkset_top(void *s) {
  (void)s;
  int top[64];
  int k = tutti_linkset_top(links, TUTTI_LINKS_BY_BUSY, 64, top);
  return k < 0 ? k : 0;
}

static int linkset_report(void *s) {
  return tutti_linkset_report(links, 8, 1e-3, s);
}

Test(oom, topologies_and_links, .timeout = 120) {
  topo_open();
  FILE *null = fopen("/dev/null", "w");
  cr_assert(ne(ptr, null, NULL));
  fputs("", null), fflush(null); /* the stream's own buffer, before arming */
  fprintf(null, "x\n");
  tutti_topo_mapping_t m;
  struct oom_case cases[] = {
      {.name = "tutti_topo_mapping_parse", .run = mapping_parse, .undo = mapping_undo, .state = &m},
      {.name = "tutti_topo_chain_order", .run = chain_order},
      {.name = "tutti_topo_print", .run = print_to, .state = null},
      {.name = "tutti_linkset_create", .run = linkset_create, .undo = linkset_undo},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    cr_expect(gt(long, exhaust(&cases[i]), 0), "%s allocates nothing here", cases[i].name);
  /* links stays from the hop case: top and report read it */
  struct oom_case more[] = {
      {.name = "tutti_linkset_hop", .run = linkset_hop},
      {.name = "tutti_linkset_top", .run = linkset_top},
      {.name = "tutti_linkset_report", .run = linkset_report, .state = null},
  };
  for (size_t i = 0; i < sizeof more / sizeof *more; i++)
    cr_expect(gt(long, exhaust(&more[i]), 0), "%s allocates nothing here", more[i].name);
  linkset_undo(NULL);
  fclose(null);
  tutti_topo_free(topo);
}

/* ------------------------------------------------------- trees, registry */

static int postal_F(void *s) {
  (void)s;
  long v = tutti_postal_F(100000, 200000);
  return v < 0 ? (int)v : 0;
}

static int postal_f(void *s) {
  (void)s;
  int v = tutti_postal_f(100000, 1000000);
  return v < 0 ? v : 0;
}

static int kind_select(void *s) {
  int kind;
  cr_assert(eq(int, tutti_tree_kind_find("lambda", &kind), 0));
  return tutti_tree_kind_select(kind, "lambda=0.7", 1, s, NULL, 0);
}

static tutti_rules_t *rules;
static int rules_create(void *s) {
  (void)s;
  return tutti_rules_create(&rules, "oom.ini");
}
static void rules_undo(void *s) {
  (void)s;
  tutti_rules_free(rules);
  rules = NULL;
}

/* A fresh set that grows (on a failure the set goes, and all it held). */
static int rules_add(void *s) {
  const tutti_algo_t *a = s;
  int rc = tutti_rules_create(&rules, "oom.ini");
  for (int i = 0; i < 64 && !rc; i++)
    rc =
        tutti_rules_add(rules, TUTTI_COLL_BCAST, 4 + i, 0, TUTTI_RULES_NO_LIMIT, a, i + 1, NULL, 0);
  if (rc) rules_undo(NULL);
  return rc;
}

static int rules_parse(void *s) {
  (void)s;
  return tutti_rules_parse_string(
      "[bcast]\nranks = 4\n0..1023 = binomial\n1KiB.. = "
      "pipelined-chain:segments=4\n[allreduce]\nranks = 8\n0.. = ring\n",
      "oom.ini", &rules, NULL, 0);
}

static int cost_zero(void) {
  return 0;
}

static const tutti_param_desc_t oom_params[] = {
    {.name = "k", .type = TUTTI_PARAM_INT, .def = 2, .min = 2, .max = 64, .help = "fan-out"},
};

static int algo_register(void *s) {
  int *serial = s;
  char name[32];
  snprintf(name, sizeof name, "oom-%d", (*serial)++); /* a fresh name each try */
  tutti_algo_desc_t d = {
      .abi = TUTTI_ALGO_ABI,
      .coll = TUTTI_COLL_BARRIER,
      .name = name,
      .fn.any = (void (*)(void))cost_zero,
      .nparams = 1,
      .params = oom_params,
      .summary = "registered while allocations fail",
      .source = "test_unit_oom.c",
  };
  return tutti_algo_register(&d, NULL, 0);
}

Test(oom, trees_rules_and_registration, .timeout = 120) {
  tutti_treespec_t spec;
  const tutti_algo_t *a;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, &a, NULL, 0), 0));
  int serial = 0;
  struct oom_case cases[] = {
      {.name = "tutti_postal_F", .run = postal_F},
      {.name = "tutti_postal_f", .run = postal_f},
      {.name = "tutti_tree_kind_select", .run = kind_select, .state = &spec},
      {.name = "tutti_rules_parse_string", .run = rules_parse, .undo = rules_undo, .warm = 1},
      {.name = "tutti_rules_create", .run = rules_create, .undo = rules_undo},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    exhaust(&cases[i]); /* some allocate nothing for these inputs: they must then succeed */
  struct oom_case add = {
      .name = "tutti_rules_add", .run = rules_add, .undo = rules_undo, .state = (void *)a};
  cr_expect(gt(long, exhaust(&add), 0));
  struct oom_case reg = {.name = "tutti_algo_register", .run = algo_register, .state = &serial};
  cr_expect(gt(long, exhaust(&reg), 0));
}

/* ------------------------------------------------------- worlds, plugins */

static tutti_world_t *world;

static int explain(void *s) {
  return tutti_world_explain(world, s);
}
static void explain_undo(void *s) {
  tutti_explain_free(s);
}

static int bcast_once(tutti_rank_t *r, void *arg) {
  (void)arg;
  char buf[1000] = {0};
  const tutti_algo_t *a;
  int rc = tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, &a, NULL, 0);
  return rc ? rc : tutti_bcast(r, buf, sizeof buf, TUTTI_BYTE, 0, a);
}

/* Inside a rank the loop is the rank's own (Criterion asserts on the
 * test's thread): the first failure that is not TUTTI_ENOMEM, or leaves
 * an allocation behind, is kept for the test to report. */
struct chain_result {
  long tries, bad_rc, bad_left, at;
};

static int chain_in_rank(tutti_rank_t *r, void *arg) {
  struct chain_result *res = arg;
  if (tutti_rank(r) != 0) return 0;
  for (long n = 0; n < 10000; n++) {
    int prev, next;
    arm(n);
    int rc = tutti_rank_chain(r, 3, &prev, &next);
    long fails = failed, left = live;
    disarm();
    res->tries = n;
    if (!fails) return rc;
    if (rc != TUTTI_ENOMEM || left) {
      res->bad_rc = rc, res->bad_left = left, res->at = n;
      return 0;
    }
  }
  return TUTTI_EINVAL;
}

Test(oom, worlds_and_plugins, .timeout = 120) {
  if (SANITIZED) cr_skip("the sanitizers own malloc: their leak check covers these builds");
  tutti_config_t cfg = tutti_config_default(9);
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  cfg.model = &m;
  char err[512];
  tutti_topo_t *t;
  cr_assert(eq(int, tutti_topo_from_spec("tree:3x3", "1us/1GB/s", &t, err, sizeof err), 0), "%s",
            err);
  cr_assert(eq(int, tutti_topo_bind(t, 9, NULL, 0, err, sizeof err), 0), "%s", err);
  m.topo = t;
  cr_assert(eq(int, tutti_world_create(&world, &cfg), 0));
  cr_assert(eq(int, tutti_world_run(world, bcast_once, NULL), 0), "%s", tutti_world_error(world));
  tutti_explain_t ex;
  struct oom_case c = {
      .name = "tutti_world_explain", .run = explain, .undo = explain_undo, .state = &ex};
  cr_expect(gt(long, exhaust(&c), 0));
  struct chain_result res = {0, 0, 0, -1};
  cr_assert(eq(int, tutti_world_run(world, chain_in_rank, &res), 0), "%s",
            tutti_world_error(world));
  cr_expect(eq(long, res.at, -1),
            "tutti_rank_chain: allocation %ld failed, and it returned %ld with %ld allocations "
            "kept",
            res.at, res.bad_rc, res.bad_left);
  cr_expect(gt(long, res.tries, 0), "tutti_rank_chain allocates nothing with a topology");
  tutti_world_destroy(world);
  tutti_topo_free(t);
}

static char plugin_err[512];
static int plugin_load(void *s) {
  return tutti_plugin_load(s, plugin_err, sizeof plugin_err);
}

Test(oom, a_plugin_loads_or_says_out_of_memory, .timeout = 120) {
  char path[4200];
  const char *bin = getenv("TUTTI_BINARY_DIR");
  if (!bin || !*bin) cr_skip("TUTTI_BINARY_DIR is not set (run through ctest)");
  snprintf(path, sizeof path, "%s/tests/plugins/rsag.so", bin);
  /* the built-ins register on the registry's first use, which aborts if
   * they cannot (a table that does not register is tutti's bug): that use
   * comes first here, unarmed */
  cr_assert(tutti_algo_desc_at(0) != NULL);
  struct oom_case c = {
      .name = "tutti_plugin_load",
      .run = plugin_load,
      .state = path,
      .keeps = "the dynamic loader keeps allocations of its own (dlerror's text)",
      .err = plugin_err,
      .own_only = "glibc's dlopen reports its own out of memory as a missing file",
  };
  cr_expect(gt(long, exhaust(&c), 0));
}
