/*
 * test_unit_topo.c -- the network topology (topo/): trees from specs and INI
 * files, every description error at its FILE:LINE, routes checked against
 * an independent walk, mappings and their parse errors, the
 * contention-free chain orders of the lecture (Patarasuk, Faraj & Yuan)
 * with flows counted per directed link, and runtime/MODEL.md's cut-through link
 * step by hand-computed examples, one hop at a time in head-arrival order
 * as the replay will drive it.
 * Data files are under tests/data/topo/, found through $TUTTI_SOURCE_DIR
 * (set by ctest), else the current directory.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h" /* node ids, to check routes independently */
#include "tutti/topo.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static const char *data_path(const char *file) {
  static char buf[4096];
  const char *src = getenv("TUTTI_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/tests/data/topo/%s", src && *src ? src : ".", file);
  return buf;
}

static tutti_topo_t *open_ok(const char *what, const char *links) {
  tutti_topo_t *t = NULL;
  char err[1024] = "";
  int rc = tutti_topo_open(what, links, &t, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", what, err);
  cr_assert(ne(ptr, t, NULL));
  return t;
}

static tutti_topo_t *file_ok(const char *file) {
  return open_ok(data_path(file), NULL);
}

static void bind_ok(tutti_topo_t *t, int n, const char *mapping, unsigned flags) {
  char err[1024] = "";
  int rc = tutti_topo_bind_text(t, n, mapping, flags, err, sizeof err);
  cr_assert(eq(int, rc, 0), "bind %d '%s': %s", n, mapping, err);
}

/* The directed link's ends as nodes, from the layout (topo.h "Ids"). */
static void link_ends(const tutti_topo_t *t, int link, int *from, int *to) {
  int v = link / 2 + 1;
  *from = link & 1 ? t->parent[v] : v;
  *to = link & 1 ? v : t->parent[v];
}

/* Flows per directed link of a chain order[0] -> order[1] -> ...: route
 * each hop, count. Returns the most flows on one link; counts (nlinks
 * entries, may be NULL) receives every count. */
static int chain_flows(const tutti_topo_t *t, const int *order, int n, int *counts) {
  int nl = tutti_topo_nlinks(t), path[256], most = 0;
  int *c = counts ? counts : calloc((size_t)nl, sizeof *c);
  if (counts) memset(counts, 0, (size_t)nl * sizeof *counts);
  for (int i = 0; i + 1 < n; i++) {
    int k = tutti_topo_route_ranks(t, order[i], order[i + 1], path, 256);
    cr_assert(ge(int, k, 0));
    for (int j = 0; j < k; j++)
      if (++c[path[j]] > most) most = c[path[j]];
  }
  if (!counts) free(c);
  return most;
}

static int link_between(const tutti_topo_t *t, const char *from, const char *to) {
  int a = tutti_topo_switch_find(t, from), b = tutti_topo_switch_find(t, to);
  cr_assert(ge(int, a, 0), "no switch %s", from);
  cr_assert(ge(int, b, 0), "no switch %s", to);
  if (tutti_topo_switch_parent(t, a) == b) return tutti_topo_switch_link(t, a);
  cr_assert(eq(int, tutti_topo_switch_parent(t, b), a), "%s and %s are not neighbours", from, to);
  return tutti_topo_switch_link(t, b) + 1;
}

/* -------------------------------------------------------------- specs */

Test(spec, one_switch) {
  tutti_topo_t *t = open_ok("tree:8", NULL);
  cr_assert(eq(int, tutti_topo_nswitches(t), 1));
  cr_assert(eq(int, tutti_topo_nleaves(t), 8));
  cr_assert(eq(int, tutti_topo_nlinks(t), 16));
  cr_assert(eq(int, tutti_topo_depth(t), 1));
  cr_assert(eq(int, tutti_topo_levels(t), 1));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 0), "s0"));
  cr_assert(eq(int, tutti_topo_switch_parent(t, 0), -1));
  for (int l = 0; l < 8; l++) cr_assert(eq(int, tutti_topo_leaf_switch(t, l), 0));
  tutti_topo_free(t);
}

Test(spec, two_levels) {
  tutti_topo_t *t = open_ok("tree:4x8", NULL);
  cr_assert(eq(int, tutti_topo_nswitches(t), 5));
  cr_assert(eq(int, tutti_topo_nleaves(t), 32));
  cr_assert(eq(int, tutti_topo_nlinks(t), 2 * 36));
  cr_assert(eq(int, tutti_topo_depth(t), 2));
  cr_assert(eq(int, tutti_topo_levels(t), 2));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 0), "root"));
  const char *names[] = {"root", "s0", "s1", "s2", "s3"};
  for (int s = 0; s < 5; s++) {
    cr_assert(eq(str, (char *)tutti_topo_switch_name(t, s), (char *)names[s]));
    cr_assert(eq(int, tutti_topo_switch_find(t, names[s]), s));
    cr_assert(eq(int, tutti_topo_switch_parent(t, s), s ? 0 : -1));
  }
  cr_assert(eq(int, tutti_topo_switch_find(t, "s4"), TUTTI_ENOTFOUND));
  cr_assert(eq(ptr, (void *)tutti_topo_switch_name(t, 5), NULL));
  /* leaves left to right */
  for (int l = 0; l < 32; l++) cr_assert(eq(int, tutti_topo_leaf_switch(t, l), 1 + l / 8));
  cr_assert(eq(int, tutti_topo_leaf_switch(t, 32), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_switch_link(t, 0), TUTTI_EINVAL)); /* the root has no uplink */
  char buf[128];
  tutti_topo_describe(t, buf, sizeof buf);
  cr_assert(eq(str, buf, "tree:4x8: 5 switches, 32 leaves, depth 2"));
  tutti_topo_free(t);
}

Test(spec, three_levels) {
  tutti_topo_t *t = open_ok("tree:2x4x8", NULL);
  cr_assert(eq(int, tutti_topo_nswitches(t), 11));
  cr_assert(eq(int, tutti_topo_nleaves(t), 64));
  cr_assert(eq(int, tutti_topo_depth(t), 3));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 1), "sw1.0"));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 2), "sw1.1"));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 3), "s0"));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 10), "s7"));
  cr_assert(eq(int, tutti_topo_leaf_switch(t, 63), 10));
  cr_assert(eq(int, tutti_topo_switch_parent(t, 10), 2));
  cr_assert(eq(int, tutti_topo_switch_parent(t, 6), 1));
  tutti_topo_free(t);
}

Test(spec, links_per_level_leaf_links_first) {
  tutti_topo_t *t = open_ok("tree:4x8", "1us/10Gbps, 2us/40Gbps");
  tutti_topo_link_t l;
  cr_assert(eq(int, tutti_topo_unset_links(t), 0));
  for (int leaf = 0; leaf < 32; leaf++)
    for (int d = 0; d < 2; d++) {
      cr_assert(eq(int, tutti_topo_link_get(t, tutti_topo_leaf_link(t, leaf) + d, &l), 0));
      cr_assert(ieee_ulp_eq(dbl, l.lat, 1e-6, 0));
      cr_assert(ieee_ulp_eq(dbl, l.beta, 1.0 / 1.25e9, 0));
    }
  for (int s = 1; s < 5; s++)
    for (int d = 0; d < 2; d++) {
      cr_assert(eq(int, tutti_topo_link_get(t, tutti_topo_switch_link(t, s) + d, &l), 0));
      cr_assert(ieee_ulp_eq(dbl, l.lat, 2e-6, 0));
      cr_assert(ieee_ulp_eq(dbl, l.beta, 1.0 / 5e9, 0));
    }
  tutti_topo_free(t);
  /* a shorter list repeats its last entry upward */
  t = open_ok("tree:2x2x2", "1us/1GB/s");
  for (int link = 0; link < tutti_topo_nlinks(t); link++) {
    cr_assert(eq(int, tutti_topo_link_get(t, link, &l), 0));
    cr_assert(ieee_ulp_eq(dbl, l.beta, 1e-9, 0));
  }
  cr_assert(eq(int, tutti_topo_link_get(t, tutti_topo_nlinks(t), &l), TUTTI_EINVAL));
  tutti_topo_free(t);
}

Test(spec, default_links_fill_what_was_not_set) {
  tutti_topo_t *t = open_ok("tree:4x8", NULL);
  cr_assert(eq(int, tutti_topo_unset_links(t), 72));
  tutti_topo_link_t l;
  tutti_topo_link_get(t, 0, &l);
  cr_assert(eq(dbl, l.lat, 0));
  cr_assert(eq(dbl, l.beta, 0));
  cr_assert(eq(int, tutti_topo_default_links(t, 0, 1e-9), 0));
  for (int link = 0; link < 72; link++) {
    tutti_topo_link_get(t, link, &l);
    cr_assert(eq(dbl, l.beta, 1e-9));
  }
  cr_assert(eq(int, tutti_topo_default_links(t, -1, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_default_links(t, 0, NAN), TUTTI_EINVAL));
  tutti_topo_free(t);
  /* a file's own links are kept; the rest take the default */
  t = file_ok("lecture-2sw.ini");
  cr_assert(eq(int, tutti_topo_unset_links(t), 0));
  tutti_topo_free(t);
}

struct bad_spec {
  const char *spec, *links, *sub;
};

static const struct bad_spec bad_specs[] = {
    {"tree:4x0", NULL, "number 2 is 0"},
    {"tree:", NULL, "number 1 is missing"},
    {"tree:4x", NULL, "number 2 is missing"},
    {"tree:4y8", NULL, "unexpected 'y'"},
    {"tree:4x8 ", NULL, "unexpected ' '"},
    {"tree:-4", NULL, "number 1 is missing"},
    {"tree:99999x99999", NULL, "more than 1048576 leaves"},
    {"tree:1048576x2", NULL, "more than 1048576 leaves"},
    {"tree:4x8", "1us/10Gbps, 2us", "link 2: '2us' is not LATENCY/BANDWIDTH"},
    {"tree:4x8", "1us/10Gbps,", "link 2 is empty"},
    {"tree:4x8", "1xs/10Gbps", "link 1: latency:"},
    {"tree:4x8", "1us/0Gbps", "link 1: bandwidth:"},
    {"tree:4x8", "1us/1Gbps, 1us/1Gbps, 1us/1Gbps", "3 link levels given but the tree has 2"},
};
#define BAD_SPECS_N (sizeof bad_specs / sizeof bad_specs[0])

ParameterizedTestParameters(spec, errors) {
  static int idx[BAD_SPECS_N];
  for (size_t i = 0; i < BAD_SPECS_N; i++) idx[i] = (int)i;
  return cr_make_param_array(int, idx, BAD_SPECS_N);
}

ParameterizedTest(int *i, spec, errors) {
  const struct bad_spec *c = &bad_specs[*i];
  tutti_topo_t *t = (tutti_topo_t *)0x1;
  char err[1024] = "";
  int rc = tutti_topo_from_spec(c->spec, c->links, &t, err, sizeof err);
  cr_assert(eq(int, rc, TUTTI_EPARSE), "'%s' '%s': rc %d", c->spec, c->links ? c->links : "", rc);
  cr_assert(eq(ptr, t, (tutti_topo_t *)0x1), "output changed on failure");
  HAS(err, c->sub);
  HAS(err, "accepted:");
}

Test(spec, open_picks_spec_or_file) {
  tutti_topo_t *t = NULL;
  char err[1024] = "";
  cr_assert(eq(int, tutti_topo_open("star:4", NULL, &t, err, sizeof err), TUTTI_ENOTFOUND));
  HAS(err, "no such file");
  HAS(err, "tree:A[xB[xC...]]");
  cr_assert(eq(int, tutti_topo_open(NULL, NULL, &t, err, sizeof err), TUTTI_EINVAL));
  t = open_ok("tree:3", NULL);
  cr_assert(eq(int, tutti_topo_nleaves(t), 3));
  tutti_topo_free(t);
}

/* ----------------------------------------------------------- INI files */

Test(ini, lecture_two_switches) {
  tutti_topo_t *t = file_ok("lecture-2sw.ini");
  cr_assert(eq(int, tutti_topo_nswitches(t), 2));
  cr_assert(eq(int, tutti_topo_nleaves(t), 8));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 0), "s0"));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 1), "s1"));
  for (int l = 0; l < 8; l++) cr_assert(eq(int, tutti_topo_leaf_switch(t, l), l % 2));
  tutti_topo_link_t l;
  tutti_topo_link_get(t, tutti_topo_switch_link(t, 1), &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 2e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, l.beta, 1 / 5e9, 0));
  tutti_topo_link_get(t, tutti_topo_leaf_link(t, 3) + 1, &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 1e-6, 0));
  tutti_topo_free(t);
}

Test(ini, cluster_hosts_levels_and_overrides) {
  tutti_topo_t *t = file_ok("cluster.ini");
  cr_assert(eq(int, tutti_topo_nswitches(t), 7));
  cr_assert(eq(int, tutti_topo_nleaves(t), 17));
  cr_assert(eq(int, tutti_topo_depth(t), 3));
  cr_assert(eq(int, tutti_topo_levels(t), 3));
  cr_assert(eq(int, tutti_topo_unset_links(t), 0));
  /* breadth-first ids */
  const char *names[] = {"core", "rack0", "rack1", "h0", "h1", "h2", "h3"};
  for (int s = 0; s < 7; s++)
    cr_assert(eq(str, (char *)tutti_topo_switch_name(t, s), (char *)names[s]));
  cr_assert(eq(int, tutti_topo_leaf_switch(t, 16), 0));
  cr_assert(eq(int, tutti_topo_leaf_switch(t, 5), 4));
  tutti_topo_link_t l;
  /* cores: level 0 */
  tutti_topo_link_get(t, tutti_topo_leaf_link(t, 0), &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 50e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, l.beta, 1e-11, 0));
  /* a per-link override */
  tutti_topo_link_get(t, tutti_topo_leaf_link(t, 5) + 1, &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 100e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, l.beta, 1 / 50e9, 0));
  /* the login node: the core's leaf_links beat the level */
  tutti_topo_link_get(t, tutti_topo_leaf_link(t, 16), &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 1e-6, 0));
  /* hosts: level 1 */
  tutti_topo_link_get(t, tutti_topo_switch_link(t, 3), &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, l.beta, 1 / 1.25e9, 0));
  /* rack1: up and down differ */
  tutti_topo_link_get(t, tutti_topo_switch_link(t, 2), &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 2e-6, 0));
  tutti_topo_link_get(t, tutti_topo_switch_link(t, 2) + 1, &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 3e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, l.beta, 1 / 2.5e9, 0));
  tutti_topo_free(t);
  /* the caller's links replace the file's per-level list */
  t = open_ok(data_path("cluster.ini"), "7us/1GB/s");
  tutti_topo_link_get(t, tutti_topo_leaf_link(t, 0), &l);
  cr_assert(ieee_ulp_eq(dbl, l.lat, 7e-6, 0));
  tutti_topo_link_get(t, tutti_topo_leaf_link(t, 5) + 1, &l); /* explicit still wins */
  cr_assert(ieee_ulp_eq(dbl, l.lat, 100e-9, 0));
  tutti_topo_free(t);
}

Test(ini, lists_continue_and_repeat) {
  tutti_topo_t *t = file_ok("continued.ini");
  cr_assert(eq(int, tutti_topo_nswitches(t), 4));
  cr_assert(eq(int, tutti_topo_nleaves(t), 8));
  int want[] = {1, 1, 1, 2, 2, 2, 3, 3};
  for (int l = 0; l < 8; l++) cr_assert(eq(int, tutti_topo_leaf_switch(t, l), want[l]));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 3), "c"));
  tutti_topo_free(t);
}

Test(ini, from_a_string) {
  const char *text = "[switch r]\nleaves = 0-2\n";
  tutti_topo_t *t = NULL;
  char err[512];
  cr_assert(eq(int, tutti_topo_parse_ini(text, NULL, NULL, &t, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int, tutti_topo_nleaves(t), 3));
  tutti_topo_free(t);
  cr_assert(eq(int,
               tutti_topo_parse_ini("[switch r]\nleaves = 0, 0\n", NULL, NULL, &t, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "<string>:2: key 'leaves': leaf 0 listed twice");
}

/* A UTF-8 byte order mark before the first line is skipped (the same
 * reader as profiles): the file reads as without it, errors keep their
 * lines. */
Test(ini, utf8_bom_is_skipped) {
  tutti_topo_t *t = NULL;
  char err[512] = "";
  cr_assert(eq(int,
               tutti_topo_parse_ini("\xEF\xBB\xBF[switch r]\nleaves = 0-2\n", NULL, NULL, &t, err,
                                    sizeof err),
               0),
            "%s", err);
  cr_assert(eq(int, tutti_topo_nleaves(t), 3));
  cr_assert(eq(str, (char *)tutti_topo_switch_name(t, 0), "r"));
  tutti_topo_free(t);
  t = NULL;
  cr_assert(eq(int,
               tutti_topo_parse_ini("\xEF\xBB\xBF; two racks\n[switch r]\nleaves = 0, 0\n", NULL,
                                    NULL, &t, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "<string>:3: key 'leaves': leaf 0 listed twice");
  tutti_topo_t *f = file_ok("bom.ini");
  cr_assert(eq(int, tutti_topo_nleaves(f), 8));
  tutti_topo_free(f);
}

struct bad_file {
  const char *file;
  int line;
  const char *sub;
};

static const struct bad_file bad_files[] = {
    {"bad-cycle.ini", 10, "'a' closes a cycle: b > a > b"},
    {"bad-self-cycle.ini", 2, "'r' closes a cycle: r > r"},
    {"bad-unknown-name.ini", 2, "unknown switch 's9'"},
    {"bad-leaf-twice.ini", 6, "leaf 3 listed twice (first on line 4, under 's0')"},
    {"bad-no-children.ini", 6, "switch 's1': no children and no leaves"},
    {"bad-latency.ini", 5, "key 'uplink': latency:"},
    {"bad-bandwidth.ini", 5, "key 'leaf_links': bandwidth:"},
    {"bad-link-form.ini", 5, "key 'uplink': '1us' is not LATENCY/BANDWIDTH"},
    {"bad-levels.ini", 2, "key 'links': 3 link levels given but the tree has 2"},
    {"bad-child-twice.ini", 5, "'b' listed as a child twice (first on line 2, under 'r')"},
    {"bad-two-roots.ini", 3, "switch 'q': below no switch, and neither is 'r' (line 1)"},
    {"bad-missing-leaf.ini", 3, "leaf 2 is missing"},
    {"bad-root-uplink.ini", 3, "'r' is the root and has no parent"},
    {"bad-unknown-key.ini", 3, "key 'speed': unknown in [switch r]"},
    {"bad-unknown-section.ini", 3, "section [router x]: unknown"},
    {"bad-duplicate-section.ini", 5, "'a' given twice (first on line 3)"},
    {"bad-duplicate-key.ini", 6, "key 'uplink': given twice (first on line 5)"},
    {"bad-host-children.ini", 4, "a host holds cores as leaves, not switches"},
    {"bad-leaf-link.ini", 5, "leaf 2 is not under 'a'"},
    {"bad-syntax.ini", 3, "'this line has no equals sign' is not a [section] or key = value"},
    {"bad-continuation.ini", 6, "key 'uplink': continued on an indented line"},
    {"bad-name.ini", 3, "'a b' is not a name"},
    {"bad-leaf-range.ini", 2, "'5-2' is not a leaf number or range"},
    {"bad-no-switch.ini", 1, "no switch"},
    {"bad-outside.ini", 1, "key 'leaves': outside any section"},
};
#define BAD_FILES_N (sizeof bad_files / sizeof bad_files[0])

ParameterizedTestParameters(ini, errors) {
  static int idx[BAD_FILES_N];
  for (size_t i = 0; i < BAD_FILES_N; i++) idx[i] = (int)i;
  return cr_make_param_array(int, idx, BAD_FILES_N);
}

ParameterizedTest(int *i, ini, errors) {
  const struct bad_file *c = &bad_files[*i];
  tutti_topo_t *t = (tutti_topo_t *)0x1;
  char err[1024] = "", where[4200];
  const char *path = data_path(c->file);
  int rc = tutti_topo_load(path, NULL, &t, err, sizeof err);
  cr_assert(eq(int, rc, TUTTI_EPARSE), "%s: rc %d (%s)", c->file, rc, err);
  cr_assert(eq(ptr, t, (tutti_topo_t *)0x1), "output changed on failure");
  snprintf(where, sizeof where, "%s:%d: ", path, c->line);
  cr_assert(eq(int, strncmp(err, where, strlen(where)), 0), "'%s' does not start with '%s'", err,
            where);
  HAS(err, c->sub);
  HAS(err, "accepted:");
}

Test(ini, missing_file) {
  tutti_topo_t *t = NULL;
  char err[1024];
  cr_assert(
      eq(int, tutti_topo_load(data_path("nope.ini"), NULL, &t, err, sizeof err), TUTTI_ENOTFOUND));
  HAS(err, "nope.ini");
  /* a directory opens but does not read */
  cr_assert(eq(int, tutti_topo_load(data_path(""), NULL, &t, err, sizeof err), TUTTI_EIO));
}

Test(ini, bad_links_argument) {
  tutti_topo_t *t = NULL;
  char err[1024];
  cr_assert(eq(int,
               tutti_topo_load(data_path("lecture-2sw.ini"), "1us/1Gbps, 1us/1Gbps, 1us/1Gbps", &t,
                               err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "links '1us/1Gbps, 1us/1Gbps, 1us/1Gbps': 3 link levels given but the tree has 2");
  cr_assert(eq(int, tutti_topo_load(data_path("lecture-2sw.ini"), "fast", &t, err, sizeof err),
               TUTTI_EPARSE));
  HAS(err, "links 'fast': link 1: 'fast' is not LATENCY/BANDWIDTH");
}

Test(ini, leaf_count_must_match_the_ranks) {
  tutti_topo_t *t = file_ok("cluster.ini");
  char err[1024] = "", want[4200];
  cr_assert(eq(int, tutti_topo_bind_text(t, 16, "identity", 0, err, sizeof err), TUTTI_EINVAL));
  snprintf(want, sizeof want, "%s:5: the tree has 17 leaves but the world has 16 ranks",
           data_path("cluster.ini"));
  HAS(err, want);
  HAS(err, "accepted: 17 ranks (one per leaf)");
  cr_assert(eq(int, tutti_topo_nranks(t), 0), "a failed bind binds nothing");
  cr_assert(eq(int, tutti_topo_bind_text(t, 18, "identity", TUTTI_TOPO_PARTIAL, err, sizeof err),
               TUTTI_EINVAL));
  HAS(err, "the world has 18 ranks");
  bind_ok(t, 16, "identity", TUTTI_TOPO_PARTIAL);
  cr_assert(eq(int, tutti_topo_rank_of_leaf(t, 16), -1));
  tutti_topo_free(t);
  t = open_ok("tree:4x8", NULL);
  cr_assert(eq(int, tutti_topo_bind_text(t, 16, NULL, 0, err, sizeof err), TUTTI_EINVAL));
  HAS(err, "topology 'tree:4x8': the tree has 32 leaves but the world has 16 ranks");
  tutti_topo_free(t);
}

/* ------------------------------------------------------------- routes */

/* Check every route of t against an independent walk: it starts at leaf a,
 * each link starts where the previous ended, it ends at leaf b, it goes up
 * then down, and its length is depth(a) + depth(b) - 2 depth(lca) with the
 * lca found from ancestor sets. path_link and path_len agree with it. */
static void check_all_routes(const tutti_topo_t *t) {
  int L = tutti_topo_nleaves(t), path[256];
  char *anc = malloc((size_t)t->nnodes);
  for (int a = 0; a < L; a++) {
    memset(anc, 0, (size_t)t->nnodes);
    for (int v = t->nsw + a; v >= 0; v = t->parent[v]) anc[v] = 1;
    for (int b = 0; b < L; b++) {
      int lca = t->nsw + b;
      while (!anc[lca]) lca = t->parent[lca];
      int want = t->dep[t->nsw + a] + t->dep[t->nsw + b] - 2 * t->dep[lca];
      int k = tutti_topo_route(t, a, b, path, 256);
      cr_assert(eq(int, k, want), "route %d -> %d: %d links, want %d", a, b, k, want);
      cr_assert(eq(int, tutti_topo_path_len(t, a, b), k));
      int at = t->nsw + a, down = 0;
      for (int i = 0; i < k; i++) {
        int from, to;
        link_ends(t, path[i], &from, &to);
        cr_assert(eq(int, from, at), "route %d -> %d: link %d does not start at the last end", a, b,
                  i);
        if (path[i] & 1)
          down = 1;
        else
          cr_assert(eq(int, down, 0), "route %d -> %d goes up after going down", a, b);
        at = to;
        cr_assert(eq(int, tutti_topo_path_link(t, a, b, i), path[i]));
      }
      cr_assert(eq(int, at, t->nsw + b));
      cr_assert(eq(int, tutti_topo_path_link(t, a, b, k), -1));
    }
  }
  free(anc);
}

Test(route, every_pair_of_regular_and_irregular_trees) {
  const char *specs[] = {"tree:8", "tree:4x8", "tree:2x3x2", "tree:3x1x2x2"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    tutti_topo_t *t = open_ok(specs[i], NULL);
    check_all_routes(t);
    tutti_topo_free(t);
  }
  const char *files[] = {"cluster.ini", "lecture-2sw.ini", "continued.ini"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    tutti_topo_t *t = file_ok(files[i]);
    check_all_routes(t);
    tutti_topo_free(t);
  }
}

Test(route, by_hand_on_tree_4x8) {
  tutti_topo_t *t = open_ok("tree:4x8", NULL);
  int path[8];
  /* same switch: up the leaf link, down the other */
  cr_assert(eq(int, tutti_topo_route(t, 0, 1, path, 8), 2));
  cr_assert(eq(int, path[0], tutti_topo_leaf_link(t, 0)));
  cr_assert(eq(int, path[1], tutti_topo_leaf_link(t, 1) + 1));
  /* across the root: leaf 0 -> s0 -> root -> s1 -> leaf 8 */
  cr_assert(eq(int, tutti_topo_route(t, 0, 8, path, 8), 4));
  cr_assert(eq(int, path[0], tutti_topo_leaf_link(t, 0)));
  cr_assert(eq(int, path[1], link_between(t, "s0", "root")));
  cr_assert(eq(int, path[2], link_between(t, "root", "s1")));
  cr_assert(eq(int, path[3], tutti_topo_leaf_link(t, 8) + 1));
  char name[128];
  tutti_topo_link_name(t, path[1], name, sizeof name);
  cr_assert(eq(str, name, "s0 -> root"));
  tutti_topo_link_name(t, path[3], name, sizeof name);
  cr_assert(eq(str, name, "s1 -> leaf 8"));
  /* to itself: no link */
  cr_assert(eq(int, tutti_topo_route(t, 5, 5, path, 8), 0));
  /* too small a buffer: nothing written */
  path[0] = -7;
  cr_assert(eq(int, tutti_topo_route(t, 0, 8, path, 3), TUTTI_ENOMEM));
  cr_assert(eq(int, path[0], -7));
  cr_assert(eq(int, tutti_topo_route(t, 0, 32, path, 8), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_path_link(t, 0, 8, -1), TUTTI_EINVAL));
  /* between ranks */
  bind_ok(t, 32, "roundrobin", 0);
  tutti_topo_link_name(t, tutti_topo_leaf_link(t, 8), name, sizeof name);
  cr_assert(eq(str, name, "leaf 8 (rank 1) -> s1"));
  cr_assert(eq(int, tutti_topo_route_ranks(t, 0, 1, path, 8), 4));
  cr_assert(eq(int, path[3], tutti_topo_leaf_link(t, 8) + 1));
  cr_assert(eq(int, tutti_topo_path_link_ranks(t, 0, 1, 2), path[2]));
  cr_assert(eq(int, tutti_topo_route_ranks(t, 0, 32, path, 8), TUTTI_EINVAL));
  tutti_topo_free(t);
}

/* ------------------------------------------------------------ mappings */

struct good_map {
  const char *text;
  int kind, block;
  uint64_t seed;
  const char *canon;
};

Test(mapping, parse_and_format) {
  static const struct good_map cases[] = {
      {NULL, TUTTI_MAP_IDENTITY, 1, 0, "identity"},
      {"", TUTTI_MAP_IDENTITY, 1, 0, "identity"},
      {"identity", TUTTI_MAP_IDENTITY, 1, 0, "identity"},
      {"dfs", TUTTI_MAP_DFS, 1, 0, "dfs"},
      {"roundrobin", TUTTI_MAP_ROUNDROBIN, 1, 0, "roundrobin"},
      {" roundrobin:2 ", TUTTI_MAP_ROUNDROBIN, 2, 0, "roundrobin:2"},
      {"random:42", TUTTI_MAP_RANDOM, 1, 42, "random:42"},
      {"random:18446744073709551615", TUTTI_MAP_RANDOM, 1, UINT64_MAX,
       "random:18446744073709551615"},
      {"list:3,0,2,1", TUTTI_MAP_LIST, 1, 0, "list:3,0,2,1"},
      {"list: 3 , 0,2 ,1", TUTTI_MAP_LIST, 1, 0, "list:3,0,2,1"},
      {"list:15,14,13,12", TUTTI_MAP_LIST, 1, 0, "list:15,14,13,12"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tutti_topo_mapping_t m;
    char err[512] = "", buf[128];
    cr_assert(eq(int, tutti_topo_mapping_parse(cases[i].text, &m, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, m.kind, cases[i].kind));
    if (m.kind == TUTTI_MAP_ROUNDROBIN) cr_assert(eq(int, m.block, cases[i].block));
    if (m.kind == TUTTI_MAP_RANDOM) cr_assert(eq(u64, m.seed, cases[i].seed));
    cr_assert(eq(str, tutti_topo_mapping_format(&m, buf, sizeof buf), (char *)cases[i].canon));
    tutti_topo_mapping_clear(&m);
    cr_assert(eq(int, m.kind, TUTTI_MAP_IDENTITY));
  }
}

struct bad_map {
  const char *text, *sub;
};

static const struct bad_map bad_maps[] = {
    {"bogus", "mapping 'bogus': unknown"},
    {"round-robin", "mapping 'round-robin': unknown"},
    {"roundrobin:0", "the block must be a whole number >= 1"},
    {"roundrobin:x", "the block must be a whole number >= 1"},
    {"roundrobin:", "the block must be a whole number >= 1"},
    {"roundrobin:99999999999", "the block must be a whole number >= 1"},
    {"random", "random needs a seed"},
    {"random:", "random needs a seed"},
    {"random:-1", "random needs a seed"},
    {"random:18446744073709551616", "random needs a seed"},
    {"randomly", "unknown"},
    {"list:", "item 1 '' is not a leaf number"},
    {"list:1,,2", "item 2 '' is not a leaf number"},
    {"list:0,a", "item 2 'a' is not a leaf number"},
    {"list:0,1,", "item 3 '' is not a leaf number"},
    {"list:0,2,1,2", "leaf 2 given twice (items 2 and 4)"},
};
#define BAD_MAPS_N (sizeof bad_maps / sizeof bad_maps[0])

ParameterizedTestParameters(mapping, parse_errors) {
  static int idx[BAD_MAPS_N];
  for (size_t i = 0; i < BAD_MAPS_N; i++) idx[i] = (int)i;
  return cr_make_param_array(int, idx, BAD_MAPS_N);
}

ParameterizedTest(int *i, mapping, parse_errors) {
  const struct bad_map *c = &bad_maps[*i];
  tutti_topo_mapping_t m = {.kind = 77};
  char err[1024] = "";
  cr_assert(eq(int, tutti_topo_mapping_parse(c->text, &m, err, sizeof err), TUTTI_EPARSE), "'%s'",
            c->text);
  cr_assert(eq(int, m.kind, 77), "output changed on failure");
  HAS(err, c->sub);
  HAS(err, "accepted: identity, dfs, roundrobin, roundrobin:BLOCK, random:SEED or list:a,b,...");
}

static void leaves_are(const tutti_topo_t *t, const int *want, int n) {
  for (int r = 0; r < n; r++)
    cr_assert(eq(int, tutti_topo_leaf_of_rank(t, r), want[r]), "rank %d on leaf %d, want %d", r,
              tutti_topo_leaf_of_rank(t, r), want[r]);
}

Test(mapping, identity_dfs_list) {
  tutti_topo_t *t = file_ok("lecture-2sw.ini");
  bind_ok(t, 8, "identity", 0);
  int id[] = {0, 1, 2, 3, 4, 5, 6, 7};
  leaves_are(t, id, 8);
  /* dfs follows the tree: s0's leaves as listed, then s1's */
  bind_ok(t, 8, "dfs", 0);
  int dfs[] = {0, 2, 4, 6, 1, 3, 5, 7};
  leaves_are(t, dfs, 8);
  bind_ok(t, 8, "list:7,6,5,4,3,2,1,0", 0);
  int rev[] = {7, 6, 5, 4, 3, 2, 1, 0};
  leaves_are(t, rev, 8);
  for (int l = 0; l < 8; l++) cr_assert(eq(int, tutti_topo_rank_of_leaf(t, l), 7 - l));
  cr_assert(eq(int, memcmp(tutti_topo_leaf_map(t), rev, sizeof rev), 0));
  char err[1024];
  cr_assert(eq(int, tutti_topo_bind_text(t, 8, "list:0,1,2", 0, err, sizeof err), TUTTI_EINVAL));
  HAS(err, "3 leaves for 8 ranks");
  cr_assert(eq(int, tutti_topo_bind_text(t, 2, "list:0,9", TUTTI_TOPO_PARTIAL, err, sizeof err),
               TUTTI_EINVAL));
  HAS(err, "has no leaf 9 (its leaves are 0..7)");
  /* the failed binds left the last good one */
  leaves_are(t, rev, 8);
  bind_ok(t, 2, "list:5,3", TUTTI_TOPO_PARTIAL);
  cr_assert(eq(int, tutti_topo_leaf_of_rank(t, 0), 5));
  cr_assert(eq(int, tutti_topo_nranks(t), 2));
  cr_assert(eq(int, tutti_topo_rank_of_leaf(t, 3), 1));
  cr_assert(eq(int, tutti_topo_rank_of_leaf(t, 0), -1));
  tutti_topo_free(t);
  /* the last leaves of a larger tree, reversed (a profile takes it too) */
  t = open_ok("tree:4x4", NULL);
  bind_ok(t, 4, "list:15,14,13,12", TUTTI_TOPO_PARTIAL);
  int last[] = {15, 14, 13, 12};
  leaves_are(t, last, 4);
  tutti_topo_free(t);
  /* on a spec, dfs is identity */
  t = open_ok("tree:2x3x2", NULL);
  bind_ok(t, 12, "dfs", 0);
  for (int r = 0; r < 12; r++) cr_assert(eq(int, tutti_topo_leaf_of_rank(t, r), r));
  tutti_topo_free(t);
}

Test(mapping, roundrobin_over_switches) {
  /* the lecture: 8 ranks, 2 switches of 4: 0,2,4,6 on S0 and 1,3,5,7 on S1 */
  tutti_topo_t *t = open_ok("tree:2x4", NULL);
  bind_ok(t, 8, "roundrobin", 0);
  int rr[] = {0, 4, 1, 5, 2, 6, 3, 7};
  leaves_are(t, rr, 8);
  int on[] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (int l = 0; l < 8; l++) cr_assert(eq(int, tutti_topo_rank_of_leaf(t, l), on[l]));
  tutti_topo_free(t);
  /* 32 machines, 4 switches, blocks of 2 */
  t = open_ok("tree:4x8", NULL);
  bind_ok(t, 32, "roundrobin:2", 0);
  int s0[] = {0, 1, 8, 9, 16, 17, 24, 25}, s1[] = {2, 3, 10, 11, 18, 19, 26, 27};
  for (int i = 0; i < 8; i++) {
    cr_assert(eq(int, tutti_topo_rank_of_leaf(t, i), s0[i]));
    cr_assert(eq(int, tutti_topo_rank_of_leaf(t, 8 + i), s1[i]));
    cr_assert(eq(int, tutti_topo_rank_of_leaf(t, 16 + i), s0[i] + 4));
    cr_assert(eq(int, tutti_topo_rank_of_leaf(t, 24 + i), s0[i] + 6));
  }
  /* fewer ranks than leaves */
  bind_ok(t, 10, "roundrobin:2", TUTTI_TOPO_PARTIAL);
  int part[] = {0, 1, 8, 9, 16, 17, 24, 25, 2, 3};
  leaves_are(t, part, 10);
  tutti_topo_free(t);
  /* uneven switches: a full one is skipped, its block goes on at the next */
  tutti_topo_t *u = NULL;
  char err[512];
  cr_assert(eq(int,
               tutti_topo_parse_ini("[switch r]\nchildren = a, b\n[switch a]\nleaves = 0\n"
                                    "[switch b]\nleaves = 1-3\n",
                                    "uneven.ini", NULL, &u, err, sizeof err),
               0),
            "%s", err);
  bind_ok(u, 4, "roundrobin", 0);
  int un[] = {0, 1, 2, 3};
  leaves_are(u, un, 4);
  bind_ok(u, 4, "roundrobin:2", 0);
  leaves_are(u, un, 4);
  tutti_topo_free(u);
}

Test(mapping, random_is_reproducible) {
  tutti_topo_t *t = open_ok("tree:8", NULL);
  /* splitmix64 + Fisher-Yates as documented (checked against an
   * independent Python transcription) */
  bind_ok(t, 8, "random:42", 0);
  int r42[] = {3, 1, 6, 2, 4, 0, 7, 5};
  leaves_are(t, r42, 8);
  bind_ok(t, 8, "random:0", 0);
  int r0[] = {2, 5, 0, 3, 4, 6, 1, 7};
  leaves_are(t, r0, 8);
  bind_ok(t, 8, "random:18446744073709551615", 0);
  int rmax[] = {7, 3, 5, 4, 2, 6, 1, 0};
  leaves_are(t, rmax, 8);
  tutti_topo_free(t);
  /* a permutation, the same twice, different for another seed */
  t = open_ok("tree:16x16", NULL);
  int a[256], b[256], c[256];
  tutti_topo_mapping_t m;
  tutti_topo_mapping_parse("random:7", &m, NULL, 0);
  cr_assert(eq(int, tutti_topo_mapping_apply(t, &m, 256, 0, a, NULL, 0), 0));
  cr_assert(eq(int, tutti_topo_mapping_apply(t, &m, 256, 0, b, NULL, 0), 0));
  m.seed = 8;
  cr_assert(eq(int, tutti_topo_mapping_apply(t, &m, 256, 0, c, NULL, 0), 0));
  cr_assert(eq(int, memcmp(a, b, sizeof a), 0));
  cr_assert(ne(int, memcmp(a, c, sizeof a), 0));
  char seen[256] = {0};
  for (int i = 0; i < 256; i++) {
    cr_assert(eq(int, seen[a[i]], 0));
    seen[a[i]] = 1;
  }
  tutti_topo_free(t);
}

/* ------------------------------------------------------- chain orders */

Test(chain, lecture_two_switches) {
  /* tree:2x4 with roundrobin: S0 holds 0,2,4,6 and S1 1,3,5,7 */
  tutti_topo_t *t = open_ok("tree:2x4", NULL);
  bind_ok(t, 8, "roundrobin", 0);
  int order[8], counts[64];
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 8, 0, order), 0));
  int want[] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (int i = 0; i < 8; i++)
    cr_assert(eq(int, order[i], want[i]), "order[%d] = %d, want %d", i, order[i], want[i]);
  cr_assert(eq(int, chain_flows(t, order, 8, counts), 1));
  /* the rank-order chain: 4 flows each way between the switches */
  int naive[] = {0, 1, 2, 3, 4, 5, 6, 7};
  cr_assert(eq(int, chain_flows(t, naive, 8, counts), 4));
  cr_assert(eq(int, counts[link_between(t, "s0", "root")], 4));
  cr_assert(eq(int, counts[link_between(t, "root", "s1")], 4));
  cr_assert(eq(int, counts[link_between(t, "s1", "root")], 3));
  cr_assert(eq(int, counts[link_between(t, "root", "s0")], 3));
  tutti_topo_free(t);
  /* the same machines on two switches joined by one link */
  t = file_ok("lecture-2sw.ini");
  bind_ok(t, 8, "identity", 0);
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 8, 0, order), 0));
  for (int i = 0; i < 8; i++) cr_assert(eq(int, order[i], want[i]));
  cr_assert(eq(int, chain_flows(t, order, 8, counts), 1));
  cr_assert(eq(int, chain_flows(t, naive, 8, counts), 4));
  cr_assert(eq(int, counts[link_between(t, "s0", "s1")], 4));
  cr_assert(eq(int, counts[link_between(t, "s1", "s0")], 3));
  tutti_topo_free(t);
}

Test(chain, lecture_32_machines) {
  tutti_topo_t *t = open_ok("tree:4x8", NULL);
  bind_ok(t, 32, "roundrobin:2", 0);
  int order[32];
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 32, 0, order), 0));
  int want[] = {0, 1, 8,  9,  16, 17, 24, 25, 2, 3, 10, 11, 18, 19, 26, 27,
                4, 5, 12, 13, 20, 21, 28, 29, 6, 7, 14, 15, 22, 23, 30, 31};
  for (int i = 0; i < 32; i++)
    cr_assert(eq(int, order[i], want[i]), "order[%d] = %d, want %d", i, order[i], want[i]);
  cr_assert(eq(int, chain_flows(t, order, 32, NULL), 1));
  int naive[32];
  for (int i = 0; i < 32; i++) naive[i] = i;
  cr_assert(gt(int, chain_flows(t, naive, 32, NULL), 1));
  /* another root starts at its own switch, itself first */
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 32, 10, order), 0));
  int want10[] = {10, 2, 3, 11, 18, 19, 26, 27};
  for (int i = 0; i < 8; i++)
    cr_assert(eq(int, order[i], want10[i]), "order[%d] = %d, want %d", i, order[i], want10[i]);
  cr_assert(eq(int, order[8], 0)); /* then on through the root to s0 */
  cr_assert(eq(int, chain_flows(t, order, 32, NULL), 1));
  tutti_topo_free(t);
}

/* Every root, several mappings and trees: a permutation that starts at the
 * root, and at most one flow per directed link. */
Test(chain, contention_free_everywhere) {
  const char *trees[] = {"tree:8", "tree:2x4", "tree:3x5", "tree:2x3x4", "tree:2x2x2x2"};
  const char *maps[] = {"identity", "roundrobin", "roundrobin:3", "random:1", "random:99"};
  int order[64];
  for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++)
    for (size_t j = 0; j < sizeof maps / sizeof maps[0]; j++) {
      tutti_topo_t *t = open_ok(trees[i], NULL);
      int n = tutti_topo_nleaves(t);
      for (int part = 0; part < 2; part++) {
        int nr = part ? n - n / 3 : n;
        bind_ok(t, nr, maps[j], TUTTI_TOPO_PARTIAL);
        for (int root = 0; root < nr; root++) {
          cr_assert(eq(int, tutti_topo_chain_order(t, NULL, nr, root, order), 0));
          cr_assert(eq(int, order[0], root));
          char seen[64] = {0};
          for (int k = 0; k < nr; k++) {
            cr_assert(eq(int, seen[order[k]], 0), "%s %s: rank %d twice", trees[i], maps[j],
                      order[k]);
            seen[order[k]] = 1;
          }
          cr_assert(eq(int, chain_flows(t, order, nr, NULL), 1), "%s %s %d ranks root %d", trees[i],
                    maps[j], nr, root);
        }
      }
      tutti_topo_free(t);
    }
  tutti_topo_t *t = file_ok("cluster.ini");
  bind_ok(t, 17, "random:5", 0);
  for (int root = 0; root < 17; root++) {
    cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 17, root, order), 0));
    cr_assert(eq(int, chain_flows(t, order, 17, NULL), 1));
  }
  tutti_topo_free(t);
}

Test(chain, explicit_mapping_and_errors) {
  tutti_topo_t *t = open_ok("tree:2x4", NULL);
  int lor[] = {0, 4, 1, 5, 2, 6, 3, 7}, order[8];
  /* an explicit leaf_of_rank needs no binding */
  cr_assert(eq(int, tutti_topo_chain_order(t, lor, 8, 1, order), 0));
  int want[] = {1, 3, 5, 7, 0, 2, 4, 6};
  for (int i = 0; i < 8; i++) cr_assert(eq(int, order[i], want[i]));
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 8, 0, order), TUTTI_EINVAL)); /* unbound */
  cr_assert(eq(int, tutti_topo_chain_order(t, lor, 8, 8, order), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_chain_order(t, lor, 8, -1, order), TUTTI_EINVAL));
  int twice[] = {0, 0};
  cr_assert(eq(int, tutti_topo_chain_order(t, twice, 2, 0, order), TUTTI_EINVAL));
  int outside[] = {0, 8};
  cr_assert(eq(int, tutti_topo_chain_order(t, outside, 2, 0, order), TUTTI_EINVAL));
  tutti_topo_free(t);
}

Test(chain, scale, .timeout = 60) {
  /* 65536 leaves, 4 levels of switches: builds, binds and chains in
   * linear time; still one flow per link */
  tutti_topo_t *t = open_ok("tree:16x16x16x16", "1us/10Gbps");
  cr_assert(eq(int, tutti_topo_nswitches(t), 1 + 16 + 256 + 4096));
  bind_ok(t, 65536, "roundrobin:4", 0);
  int *order = malloc(65536 * sizeof *order);
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 65536, 12345, order), 0));
  cr_assert(eq(int, chain_flows(t, order, 65536, NULL), 1));
  free(order);
  tutti_topo_free(t);
}

/* -------------------------------------------------------------- links */

#define US 1e-6

Test(link, step_is_the_rule) {
  /* idle link: the head goes at once, the tail m*beta later (times are
   * whole picoseconds, runtime/MODEL.md "Time base": exactly 2e-6) */
  tutti_hop_t h = tutti_link_step(1 * US, 0, 1 * US, 0, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, h.head, 1 * US, 0));
  cr_assert(ieee_ulp_eq(dbl, h.end, 2e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, h.free, h.end, 0));
  /* busy link: the head waits until it is free */
  h = tutti_link_step(1 * US, 5 * US, 1 * US, 0, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, h.head, 5e-6, 0)); /* 5 * US in whole ps */
  cr_assert(ieee_ulp_eq(dbl, h.end, 6e-6, 0));
  /* a slow link before: the tail comes late, the link is held for it */
  h = tutti_link_step(1 * US, 0, 9 * US, 0.5 * US, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, h.head, 1 * US, 0));
  cr_assert(ieee_ulp_eq(dbl, h.end, 9.5 * US, 4));
}

Test(link, one_message_on_an_idle_path_costs_the_model) {
  /* Hockney alpha = 1us, beta = 1ns/B, m = 1000: L(m) = 2us. Every link of
   * the 4-link path has beta_l = beta and lat 0: s + L(0) + m*beta. */
  tutti_topo_t *t = open_ok("tree:4x8", NULL);
  tutti_topo_default_links(t, 0, 1e-9);
  tutti_linkset_t *ls;
  cr_assert(eq(int, tutti_linkset_create(t, &ls), 0));
  int path[8];
  int k = tutti_topo_route(t, 0, 31, path, 8);
  cr_assert(eq(int, k, 4));
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  double L0 = tutti_cost_eval(&m.latency, 0);
  tutti_transit_t tr = {0 + L0, 0 + L0};
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 2e-6, 0), "complete %.17g", tr.tail); /* whole ps */
  /* started later, on links already used and free again */
  double s = 3 * US;
  tr = (tutti_transit_t){s + L0, s + L0};
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 5e-6, 0), "complete %.17g", tr.tail);
  /* the same on a one-link-per-side path and on the same switch */
  tutti_linkset_reset(ls);
  tr = (tutti_transit_t){s + L0, s + L0};
  k = tutti_topo_route(t, 0, 1, path, 8);
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 5e-6, 0));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

/* A small replay of messages over a bound topology, hop by hop in the
 * order the replay will use: the smallest (head arrival, source rank, send
 * order) first. Each message: start s (its h_0 = s + L0), bytes. */
struct msg {
  int src, dst, seq;
  double start, bytes;
  tutti_transit_t tr;
  int hop, done;
};

static void run_hops(const tutti_topo_t *t, tutti_linkset_t *ls, struct msg *m, int n, double L0) {
  for (int i = 0; i < n; i++) {
    m[i].tr = (tutti_transit_t){m[i].start + L0, m[i].start + L0};
    m[i].hop = 0;
    m[i].done = 0;
  }
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++) {
      if (m[i].done) continue;
      if (best < 0 || m[i].tr.head < m[best].tr.head ||
          (m[i].tr.head == m[best].tr.head &&
           (m[i].src < m[best].src || (m[i].src == m[best].src && m[i].seq < m[best].seq))))
        best = i;
    }
    if (best < 0) return;
    struct msg *x = &m[best];
    int link = tutti_topo_path_link_ranks(t, x->src, x->dst, x->hop++);
    if (link < 0) {
      x->done = 1; /* x->tr.tail: the data is complete at the receiver */
      continue;
    }
    cr_assert(eq(int, tutti_linkset_hop(ls, link, &x->tr, x->bytes, NULL), 0));
  }
}

Test(link, two_flows_into_one_link_queue_fcfs) {
  /* tree:2x4, roundrobin: ranks 0 and 2 on s0, 1 and 3 on s1. Ranks 0 and
   * 2 send 1000 B across at time 0; every link lat 1us, beta 1ns/B.
   *   rank 0: leaf up h=0 e=1 | s0->root h=1 e=2 | root->s1 h=2 e=3 |
   *           s1->leaf h=3 e=4 | complete 4 + 1 = 5 us
   *   rank 2: leaf up h=0 e=1 | s0->root arrives 1, free at 2: h=2 e=3 |
   *           root->s1 arrives 3 h=3 e=4 | s1->leaf h=4 e=5 | complete 6 us
   * At s0->root both heads arrive at 1us: the lower source rank goes first. */
  tutti_topo_t *t = open_ok("tree:2x4", "1us/1GB/s");
  bind_ok(t, 8, "roundrobin", 0);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 2, .dst = 3, .seq = 0, .start = 0, .bytes = 1000},
                     {.src = 0, .dst = 1, .seq = 0, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, m[1].tr.tail, 5 * US, 4), "rank 0 done at %g", m[1].tr.tail);
  cr_assert(ieee_ulp_eq(dbl, m[0].tr.tail, 6 * US, 4), "rank 2 done at %g", m[0].tr.tail);
  tutti_link_stats_t st;
  int up = link_between(t, "s0", "root");
  tutti_linkset_stats(ls, up, &st);
  cr_assert(eq(u64, st.messages, 2));
  cr_assert(eq(dbl, st.bytes, 2000));
  cr_assert(eq(int, st.max_queue, 2));
  cr_assert(ieee_ulp_eq(dbl, st.wait, 1 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, st.busy, 2 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, st.free, 3 * US, 4));
  /* the busiest links: the shared ones first (each busy 2us) */
  int top[16], down = link_between(t, "root", "s1");
  cr_assert(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BUSY, 4, top), 4));
  int both = (top[0] == up && top[1] == down) || (top[0] == down && top[1] == up);
  cr_assert(eq(int, both, 1), "top links %d %d, want %d and %d", top[0], top[1], up, down);
  cr_assert(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_QUEUE, 1, top), 1));
  cr_assert(eq(int, top[0], up));
  cr_assert(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BYTES, 16, top), 6)); /* links used */
  /* the same two with the sources' ranks the other way round: rank 0 still
   * first at the shared link, whichever the caller lists first */
  tutti_linkset_reset(ls);
  struct msg r[2] = {{.src = 0, .dst = 1, .start = 0, .bytes = 1000},
                     {.src = 2, .dst = 3, .start = 0, .bytes = 1000}};
  run_hops(t, ls, r, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, r[0].tr.tail, 5 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, r[1].tr.tail, 6 * US, 4));
  /* a later head waits less: rank 2 starts at 0.5us, arrives at s0->root
   * at 1.5us, the link is free at 2us */
  tutti_linkset_reset(ls);
  r[1].start = 0.5 * US;
  run_hops(t, ls, r, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, r[1].tr.tail, 6 * US, 4));
  tutti_linkset_stats(ls, up, &st);
  cr_assert(ieee_ulp_eq(dbl, st.wait, 0.5 * US, 4));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, same_rank_ties_go_by_send_order) {
  /* one rank sends two messages at once to two ranks of the other switch:
   * its own leaf link serializes them, send order first */
  tutti_topo_t *t = open_ok("tree:2x4", NULL);
  tutti_topo_default_links(t, 0, 1e-9);
  bind_ok(t, 8, "roundrobin", 0);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 0, .dst = 3, .seq = 1, .start = 0, .bytes = 1000},
                     {.src = 0, .dst = 1, .seq = 0, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, m[1].tr.tail, 1 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, m[0].tr.tail, 2 * US, 4));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, slow_link_governs) {
  /* lat 0, m = 1000: fast (1ns/B) then slow (4ns/B), and slow then fast:
   * either way the message is complete at m * 4ns = 4us */
  tutti_hop_t a = tutti_link_step(0, 0, 0, 0, 1e-9, 1000);
  tutti_hop_t b = tutti_link_step(a.head, 0, a.end, 0, 4e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, b.head, 0, 0));
  cr_assert(ieee_ulp_eq(dbl, b.end, 4 * US, 4));
  a = tutti_link_step(0, 0, 0, 0, 4e-9, 1000);
  b = tutti_link_step(a.head, 0, a.end, 0, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, b.head, 0, 0), "cut-through: the head goes on at once");
  cr_assert(ieee_ulp_eq(dbl, b.end, 4 * US, 4), "the fast link waits for the tail");
  /* the same through a file: leaf links at 10 Gbps, the s0 - s1 link at
   * 1 Gbps with 2us latency; 1000 B from leaf 0 to leaf 1:
   *   leaf 0 -> s0 (1us, 0.8ns/B): h=0, e=0.8us
   *   s0 -> s1 (2us, 8ns/B): h=1us, e=max(9us, 1.8us)=9us
   *   s1 -> leaf 1 (1us, 0.8ns/B): h=3us, e=max(3.8us, 11us)=11us
   *   complete 12us */
  tutti_topo_t *t = NULL;
  char err[512];
  cr_assert(eq(int,
               tutti_topo_parse_ini("[switch s0]\nleaves = 0\nchildren = s1\n"
                                    "leaf_links = 1us/10Gbps\n[switch s1]\nleaves = 1\n"
                                    "uplink = 2us/1Gbps\nleaf_links = 1us/10Gbps\n",
                                    "slow.ini", NULL, &t, err, sizeof err),
               0),
            "%s", err);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  int path[4], k = tutti_topo_route(t, 0, 1, path, 4);
  cr_assert(eq(int, k, 3));
  tutti_transit_t tr = {0, 0};
  tutti_hop_t hop;
  cr_assert(eq(int, tutti_linkset_hop(ls, path[0], &tr, 1000, &hop), 0));
  cr_assert(ieee_ulp_eq(dbl, hop.end, 0.8 * US, 4));
  cr_assert(eq(int, tutti_linkset_hop(ls, path[1], &tr, 1000, &hop), 0));
  cr_assert(ieee_ulp_eq(dbl, hop.head, 1 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, hop.end, 9 * US, 4));
  cr_assert(eq(int, tutti_linkset_hop(ls, path[2], &tr, 1000, &hop), 0));
  cr_assert(ieee_ulp_eq(dbl, hop.head, 3 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, hop.end, 11 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 12 * US, 4));
  tutti_link_stats_t st;
  tutti_linkset_stats(ls, path[2], &st);
  cr_assert(ieee_ulp_eq(dbl, st.busy, 8 * US, 4), "held until the tail left: %g", st.busy);
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, opposite_directions_do_not_interfere) {
  /* full duplex: 0 -> 1 and 1 -> 0 across s0 - root - s1 at once share no
   * directed link and both cost the idle time */
  tutti_topo_t *t = open_ok("tree:2x4", "1us/1GB/s");
  bind_ok(t, 8, "roundrobin", 0);
  int p[8], q[8];
  int k = tutti_topo_route_ranks(t, 0, 1, p, 8), j = tutti_topo_route_ranks(t, 1, 0, q, 8);
  cr_assert(eq(int, k, 4));
  cr_assert(eq(int, j, 4));
  for (int a = 0; a < k; a++)
    for (int b = 0; b < j; b++) cr_assert(ne(int, p[a], q[b]));
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 0, .dst = 1, .start = 0, .bytes = 1000},
                     {.src = 1, .dst = 0, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, m[0].tr.tail, 5 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, m[1].tr.tail, 5 * US, 4));
  for (int l = 0; l < tutti_topo_nlinks(t); l++) {
    tutti_link_stats_t st;
    tutti_linkset_stats(ls, l, &st);
    cr_assert(eq(dbl, st.wait, 0));
    cr_assert(le(int, st.max_queue, 1));
  }
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, queue_length_and_order_check) {
  tutti_topo_t *t = open_ok("tree:2", NULL);
  tutti_topo_default_links(t, 0, 1e-9);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  int link = tutti_topo_leaf_link(t, 0);
  /* three at once: queues 1, 2, 3; ends 1, 2, 3 us */
  for (int i = 0; i < 3; i++) {
    tutti_transit_t tr = {0, 0};
    tutti_hop_t h;
    cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, &h), 0));
    cr_assert(ieee_ulp_eq(dbl, h.end, (i + 1) * US, 4));
  }
  /* one at 2.5us finds one still there (ends at 3us): queue 2 */
  tutti_transit_t tr = {2.5 * US, 2.5 * US};
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, NULL), 0));
  tutti_link_stats_t st;
  tutti_linkset_stats(ls, link, &st);
  cr_assert(eq(int, st.max_queue, 3));
  cr_assert(eq(u64, st.messages, 4));
  cr_assert(ieee_ulp_eq(dbl, st.free, 4 * US, 4));
  /* one at 100us: alone */
  tr = (tutti_transit_t){100 * US, 100 * US};
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 0, NULL), 0));
  /* a head earlier than the last is refused and changes nothing */
  tr = (tutti_transit_t){50 * US, 50 * US};
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, NULL), TUTTI_EINVAL));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 50 * US, 0));
  tutti_linkset_stats(ls, link, &st);
  cr_assert(eq(u64, st.messages, 5));
  cr_assert(eq(int, tutti_linkset_hop(ls, 4, &tr, 1, NULL), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, -1, NULL), TUTTI_EINVAL));
  /* a long queue grows its FIFO */
  tutti_linkset_reset(ls);
  for (int i = 0; i < 100; i++) {
    tr = (tutti_transit_t){0, 0};
    cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, NULL), 0));
  }
  tutti_linkset_stats(ls, link, &st);
  cr_assert(eq(int, st.max_queue, 100));
  cr_assert(ieee_ulp_eq(dbl, st.free, 100 * US, 64));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, report_names_the_busiest) {
  tutti_topo_t *t = open_ok("tree:2x4", "1us/1GB/s");
  bind_ok(t, 8, "roundrobin", 0);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 0, .dst = 1, .start = 0, .bytes = 1000},
                     {.src = 2, .dst = 3, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(eq(int, tutti_linkset_report(ls, 2, 6 * US, f), 0));
  fclose(f);
  HAS(buf, "link");
  HAS(buf, "busy%");
  /* the two shared links, each 2 of 6 us busy */
  char *first = strchr(buf, '\n') + 1, *second = strchr(first, '\n') + 1;
  int up = !strncmp(first, "s0 -> root ", 11) || !strncmp(second, "s0 -> root ", 11);
  int down = !strncmp(first, "root -> s1 ", 11) || !strncmp(second, "root -> s1 ", 11);
  cr_assert(eq(int, up + down, 2), "%s", buf);
  HAS(first, "2000 B");
  HAS(first, "33.3%");
  HAS(second, "33.3%");
  cr_assert(eq(int, (int)(strchr(strchr(first, '\n') + 1, '\n') - buf) + 1, (int)len), "two rows");
  free(buf);
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

/* ----------------------------------------------------------- printing */

static char *print_to_string(const tutti_topo_t *t, int dot) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(eq(int, dot ? tutti_topo_dot(t, f) : tutti_topo_print(t, f), 0));
  fclose(f);
  return buf;
}

Test(print, ascii_tree_with_ranks) {
  tutti_topo_t *t = open_ok("tree:2x4", "1us/10Gbps, 2us/40Gbps");
  bind_ok(t, 8, "roundrobin", 0);
  char *s = print_to_string(t, 0);
  cr_assert(eq(str, s,
               "tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin\n"
               "root\n"
               "|-- s0  link 2 us, 5 GB/s\n"
               "|   `-- leaves 0-3: ranks 0 2 4 6  links 1 us, 1.25 GB/s\n"
               "`-- s1  link 2 us, 5 GB/s\n"
               "    `-- leaves 4-7: ranks 1 3 5 7  links 1 us, 1.25 GB/s\n"));
  free(s);
  tutti_topo_free(t);
}

Test(print, ascii_hosts_overrides_and_partial) {
  tutti_topo_t *t = file_ok("cluster.ini");
  bind_ok(t, 10, "roundrobin:2", TUTTI_TOPO_PARTIAL);
  char *s = print_to_string(t, 0);
  /* roundrobin deals to core (the login node), h0, h1, h2, h3: core is
   * full after rank 0, so the rest of that block goes to h0 */
  HAS(s, "core\n|-- leaf 16: rank 0  link 1 us, 1.25 GB/s\n");
  HAS(s, "|   |-- h0 (host)  link 1 us, 1.25 GB/s\n");
  HAS(s, "|   |   `-- leaves 0-3: ranks 1 8 9 -  links 50 ns, 100 GB/s\n");
  HAS(s, "|       |-- leaf 4: rank 2  link 50 ns, 100 GB/s\n");
  HAS(s, "|       |-- leaf 5: rank 3  link 100 ns, 50 GB/s\n");
  HAS(s, "`-- rack1  link up 2 us, 5 GB/s; down 3 us, 2.5 GB/s\n");
  HAS(s, "        `-- leaves 12-15: ranks 6 7 - -  links 50 ns, 100 GB/s\n");
  free(s);
  tutti_topo_free(t);
  /* unset links say so; unbound leaves carry no ranks */
  t = open_ok("tree:3", NULL);
  s = print_to_string(t, 0);
  cr_assert(eq(str, s, "tree:3: 1 switch, 3 leaves, depth 1\ns0\n`-- leaves 0-2  links not set\n"));
  free(s);
  tutti_topo_default_links(t, 0, 1e-9);
  s = print_to_string(t, 0);
  HAS(s, "links 0 s, 1 GB/s (default)");
  free(s);
  tutti_topo_free(t);
}

Test(print, dot_graph) {
  tutti_topo_t *t = file_ok("lecture-2sw.ini");
  bind_ok(t, 8, "identity", 0);
  char *s = print_to_string(t, 1);
  HAS(s, "graph topology {\n");
  HAS(s, "  n0 [label=\"s0\"];\n");
  HAS(s, "  n2 [shape=ellipse, label=\"leaf 0\\nrank 0\"];\n");
  HAS(s, "  n0 -- n1 [label=\"2 us, 5 GB/s\"];\n");
  HAS(s, "  n0 -- n2 [label=\"1 us, 1.25 GB/s\"];\n");
  cr_assert(eq(int, s[strlen(s) - 2], '}'));
  free(s);
  tutti_topo_free(t);
}

Test(print, arguments) {
  cr_assert(eq(int, tutti_topo_print(NULL, stdout), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_dot(NULL, stdout), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_nleaves(NULL), TUTTI_EINVAL));
  tutti_topo_free(NULL);
  tutti_linkset_free(NULL);
  tutti_linkset_t *ls;
  cr_assert(eq(int, tutti_linkset_create(NULL, &ls), TUTTI_EINVAL));
}

/* ------------------------------------------------------------ limits */

/* A chain of k switches, s0 at the top: each has leaf i and the next
 * below it; 3 lines a section, so s(i)'s children line is 3i + 3. */
static char *chain_ini(int k) {
  size_t cap = (size_t)k * 48 + 64, off = 0;
  char *s = malloc(cap);
  cr_assert(ne(ptr, s, NULL));
  for (int i = 0; i < k; i++) {
    off += (size_t)snprintf(s + off, cap - off, "[switch s%d]\nleaves = %d\n", i, i);
    if (i + 1 < k)
      off += (size_t)snprintf(s + off, cap - off, "children = s%d\n", i + 1);
    else
      off += (size_t)snprintf(s + off, cap - off, "; bottom\n");
  }
  return s;
}

/* Issue 19: `tutti topo` on a chain of ~21000 switches overflowed the
 * stack (recursive drawing), and a chain deeper than the replay's 16-bit
 * hop counter loaded, then failed in the run. The depth limit is the
 * replay's, checked at load; the deepest tree loads, routes, maps and
 * draws, and the drawing stays small (it stops at 64 levels). */
Test(limits, deepest_tree_loads_and_draws, .timeout = 60) {
  int k = TUTTI_TOPO_MAX_DEPTH; /* leaf k-1 is k links below the root */
  char *text = chain_ini(k);
  tutti_topo_t *t = NULL;
  char err[1024] = "";
  cr_assert(eq(int, tutti_topo_parse_ini(text, "deep.ini", NULL, &t, err, sizeof err), 0), "%s",
            err);
  cr_assert(eq(int, tutti_topo_depth(t), TUTTI_TOPO_MAX_DEPTH));
  cr_assert(eq(int, tutti_topo_path_len(t, 0, k - 1), k + 1)); /* up 1, down k */
  bind_ok(t, 4, "dfs", TUTTI_TOPO_PARTIAL);
  int order[4];
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 4, 0, order), 0));
  char *s = print_to_string(t, 0);
  size_t len = strlen(s);
  cr_assert(lt(sz, len, (size_t)100000), "%zu bytes for a chain", len);
  HAS(s, "`-- ... 32702 switches and 32703 leaves below, not drawn (deeper than 64 levels");
  free(s);
  char *dot = print_to_string(t, 1); /* the DOT form has every switch */
  HAS(dot, "label=\"s32766\"");
  free(dot);
  tutti_topo_free(t);
  free(text);
}

Test(limits, deeper_than_the_replay_is_refused_at_load, .timeout = 60) {
  char *text = chain_ini(TUTTI_TOPO_MAX_DEPTH + 1);
  tutti_topo_t *t = (tutti_topo_t *)0x1;
  char err[1024] = "";
  cr_assert(
      eq(int, tutti_topo_parse_ini(text, "deep.ini", NULL, &t, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(ptr, t, (tutti_topo_t *)0x1));
  /* s32767 is listed by s32766, whose children line is 3 * 32766 + 3 */
  HAS(err, "deep.ini:98301: key 'children': 's32767' is 32767 levels below the root");
  HAS(err, "accepted: a tree at most 32767 levels deep");
  free(text);
}

/* Issue 19: `leaves = 60-16777215` allocated 199 MB before an error on a
 * later line, and tree:16777216 built 16M leaves for a 4-rank run. A
 * topology has at most as many leaves as a world has ranks (2^20), checked
 * on the text; so has a spec, which also has at most 64 numbers. */
Test(limits, leaves_and_levels_refused_on_the_text) {
  tutti_topo_t *t = (tutti_topo_t *)0x1;
  char err[1024] = "";
  const char *text = "[switch s0]\nleaves = 0-59\nleaves = 60-16777215\n";
  cr_assert(
      eq(int, tutti_topo_parse_ini(text, "big.ini", NULL, &t, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "big.ini:3: key 'leaves': '60-16777215' is not a leaf number or range");
  HAS(err, "leaves below 1048576");
  cr_assert(
      eq(int, tutti_topo_from_spec("tree:16777216", NULL, &t, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "more than 1048576 leaves");
  char spec[256] = "tree:1";
  for (int i = 1; i <= TUTTI_TOPO_SPEC_MAX_LEVELS; i++) strcat(spec, "x1");
  cr_assert(eq(int, tutti_topo_from_spec(spec, NULL, &t, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "more than 64 levels");
  cr_assert(eq(ptr, t, (tutti_topo_t *)0x1));
  spec[strlen(spec) - 2] = '\0'; /* 64 numbers: fine */
  t = open_ok(spec, NULL);
  cr_assert(eq(int, tutti_topo_depth(t), 64));
  tutti_topo_free(t);
  t = open_ok("tree:1048576", NULL); /* the limit itself */
  cr_assert(eq(int, tutti_topo_nleaves(t), TUTTI_TOPO_MAX_LEAVES));
  tutti_topo_free(t);
}

/* Issue 19: a big machine with a few ranks printed one "-" per empty leaf
 * (32 MB for tree:16777216 -n 4); four or more in a row are counted. */
Test(limits, empty_leaves_are_counted) {
  tutti_topo_t *t = open_ok("tree:1048576", NULL);
  bind_ok(t, 4, "identity", TUTTI_TOPO_PARTIAL);
  char *s = print_to_string(t, 0);
  HAS(s, "`-- leaves 0-1048575: ranks 0-3 (1048572 empty)  links not set\n");
  cr_assert(lt(sz, strlen(s), (size_t)1000));
  free(s);
  tutti_topo_free(t);
  t = open_ok("tree:2x4", NULL);
  bind_ok(t, 5, "identity", TUTTI_TOPO_PARTIAL);
  s = print_to_string(t, 0);
  HAS(s, "leaves 4-7: ranks 4 - - -  links");
  free(s);
  tutti_topo_free(t);
}
