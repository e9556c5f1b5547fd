/*
 * test_unit_topo.c -- the network topology (topo/), its descriptions: trees
 * from specs and INI files, every description error at its FILE:LINE.
 * Routes, mappings and chain orders: test_unit_topo_map.c; links, printing
 * and limits: test_unit_topo_link.c. Data files are under tests/data/topo/
 * (topo_unit.h).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_unit.h"

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
