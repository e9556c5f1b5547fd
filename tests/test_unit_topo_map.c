/*
 * test_unit_topo_map.c -- the network topology (topo/): routes checked
 * against an independent walk, mappings and their parse errors, the
 * contention-free chain orders of the lecture (Patarasuk, Faraj & Yuan)
 * with flows counted per directed link.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_unit.h"

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
    {"list:0,2,1,2", "leaf 2 given twice (for ranks 1 and 3)"},
    {"list:0-3,2", "leaf 2 given twice (for ranks 2 and 4)"},
    {"list:0-2,x-4", "item 2 'x-4' is not a leaf number or range"},
    {"list:0-1048576", "item 1 '0-1048576' is not a leaf number or range"},
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
