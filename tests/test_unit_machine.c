/*
 * test_unit_machine.c -- tutti_machine_build (tutti/machine.h): the model
 * of a model spec, a model value, a profile or the default profile; the
 * topology of a spec or file or the profile's [topology], with its links
 * (and runtime/MODEL.md's default for the unset ones) and mapping, bound to the
 * given ranks or one per leaf; every error with its code and the input it
 * blames (a profile's own values blame the profile), the output untouched;
 * and a world running on a built machine. Everything is freed: the suite
 * also runs under ASan.
 * Data files are under tests/data/, found through $TUTTI_SOURCE_DIR (set
 * by ctest), else the current directory; profiles made up here are
 * written to temporary files.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/machine.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static const char *data_path(const char *file) {
  static char buf[4096];
  const char *src = getenv("TUTTI_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/tests/data/%s", src && *src ? src : ".", file);
  return buf;
}

/* A profile file holding `text`; the caller unlinks it. */
static char *profile_file(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/tutti-machine-XXXXXX.ini");
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0, "mkstemps");
  FILE *f = fdopen(fd, "w");
  cr_assert(ne(ptr, f, NULL));
  fputs(text, f);
  fclose(f);
  return path;
}

#define HOCKNEY "[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"

static tutti_machine_t build_ok(const tutti_machine_spec_t *s) {
  tutti_machine_t m;
  char err[1024] = "x";
  int bad = -1;
  int rc = tutti_machine_build(s, &m, &bad, err, sizeof err);
  cr_assert(eq(int, rc, 0), "%s", err);
  cr_assert(eq(int, bad, TUTTI_MACHINE_IN_NONE));
  cr_assert(eq(str, err, ""));
  cr_assert(eq(ptr, (void *)m.model.topo, (void *)m.topo));
  return m;
}

/* Fails with code `rc`, blaming `input`, with `sub` in the message; *out
 * untouched. */
static void build_fails(const tutti_machine_spec_t *s, int rc, int input, const char *sub) {
  tutti_machine_t m, before;
  memset(&m, 0xa5, sizeof m);
  before = m;
  char err[1024] = "";
  int bad = -1;
  cr_assert(eq(int, tutti_machine_build(s, &m, &bad, err, sizeof err), rc), "%s", err);
  cr_assert(eq(str, (char *)tutti_machine_input_name(bad), (char *)tutti_machine_input_name(input)),
            "%s", err);
  if (sub) HAS(err, sub);
  cr_assert(eq(int, memcmp(&m, &before, sizeof m), 0), "the output changed");
}

/* ------------------------------------------------------------ models */

Test(model, default_profile, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  cr_assert(eq(u32, s.bind_flags, TUTTI_TOPO_PARTIAL));
  cr_assert(eq(int, s.nranks, 0));
  tutti_machine_t m = build_ok(&s);
  cr_assert(eq(str, m.label, (char *)tutti_profile_builtin(0)->name));
  cr_assert(eq(int, m.model.preset, TUTTI_MODEL_HOCKNEY));
  cr_assert(eq(dbl, m.model.params[0], 1e-6));
  cr_assert(eq(ptr, m.topo, NULL));
  cr_assert(eq(int, m.nranks, 0));
  cr_assert(eq(ptr, m.topo_spec, NULL));
  tutti_machine_free(&m);
  cr_assert(eq(ptr, m.label, NULL));
}

Test(model, spec_value_and_builtin, .timeout = 10) {
  tutti_machine_spec_t s = TUTTI_MACHINE_SPEC_INIT;
  s.model = "postal:L=2";
  tutti_machine_t m = build_ok(&s);
  cr_assert(eq(str, m.label, "postal:L=2"));
  cr_assert(eq(int, m.model.preset, TUTTI_MODEL_POSTAL));
  tutti_machine_free(&m);

  tutti_model_t v;
  cr_assert(eq(int, tutti_model_loggp(&v, 5e-6, 1e-6, 2e-6, 1e-9), 0));
  s = tutti_machine_spec_default();
  s.model_value = &v;
  m = build_ok(&s);
  cr_assert(eq(str, m.label, "loggp"));
  cr_assert(eq(int, memcmp(&m.model, &v, sizeof v), 0), "the model value is used as it is");
  tutti_machine_free(&m);

  s = tutti_machine_spec_default();
  s.profile = "postal-3";
  m = build_ok(&s);
  cr_assert(eq(str, m.label, "postal-3"));
  cr_assert(eq(dbl, m.model.params[0], 3));
  tutti_machine_free(&m);
}

/* ------------------------------------------------------------ topologies */

Test(topology, spec_links_and_mapping, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.model = "hockney:alpha=1us,beta=1ns";
  s.topology = "tree:2x4";
  s.links = "1us/10Gbps, 2us/40Gbps";
  s.mapping = "roundrobin";
  s.nranks = 8;
  tutti_machine_t m = build_ok(&s);
  cr_assert(eq(int, m.nranks, 8));
  cr_assert(eq(int, tutti_topo_nranks(m.topo), 8));
  cr_assert(eq(int, m.topo_from_profile, 0));
  cr_assert(eq(str, m.topo_spec, "tree:2x4"));
  cr_assert(eq(str, m.links, "1us/10Gbps, 2us/40Gbps"));
  cr_assert(eq(str, m.mapping, "roundrobin"));
  cr_assert(eq(int, tutti_topo_leaf_of_rank(m.topo, 1), 4)); /* dealt to the other switch */
  tutti_topo_link_t l;
  cr_assert(eq(int, tutti_topo_link_get(m.topo, tutti_topo_leaf_link(m.topo, 0), &l), 0));
  cr_assert(eq(dbl, l.lat, 1e-6));
  cr_assert(eq(int, tutti_topo_unset_links(m.topo), 0));
  tutti_machine_free(&m);
  cr_assert(eq(ptr, m.topo, NULL));
}

Test(topology, unset_links_take_the_models_beta, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.model = "hockney:alpha=1us,beta=2ns";
  s.topology = "tree:2x4";
  tutti_machine_t m = build_ok(&s);
  tutti_topo_link_t l;
  for (int k = 0; k < tutti_topo_nlinks(m.topo); k++) {
    cr_assert(eq(int, tutti_topo_link_get(m.topo, k, &l), 0));
    cr_assert(eq(dbl, l.lat, 0));
    cr_assert(eq(dbl, l.beta, 2e-9));
  }
  cr_assert(eq(ptr, m.links, NULL));
  cr_assert(eq(ptr, m.mapping, NULL));
  tutti_machine_free(&m);
}

Test(topology, nranks_zero_takes_the_leaves, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.topology = data_path("topo/cluster.ini");
  tutti_machine_t m = build_ok(&s);
  cr_assert(eq(int, m.nranks, 17));
  cr_assert(eq(int, tutti_topo_nranks(m.topo), 17));
  tutti_machine_free(&m);

  s.topology = "tree:3x5", s.nranks = 4; /* fewer than the leaves: partial */
  m = build_ok(&s);
  cr_assert(eq(int, m.nranks, 4));
  cr_assert(eq(int, tutti_topo_rank_of_leaf(m.topo, 14), -1));
  tutti_machine_free(&m);
}

Test(topology, from_the_profile_and_replaced, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.profile = data_path("profiles/good-full.ini");
  s.nranks = 16;
  tutti_machine_t m = build_ok(&s);
  cr_assert(eq(str, m.label, "good-full"));
  cr_assert(eq(int, m.topo_from_profile, 1));
  cr_assert(eq(str, m.topo_spec, "tree:4x8"));
  cr_assert(eq(str, m.links, "1us/10Gbps, 2us/40Gbps"));
  cr_assert(eq(str, m.mapping, "roundrobin:4"));
  cr_assert(eq(int, tutti_topo_leaf_of_rank(m.topo, 4), 8));
  tutti_machine_free(&m);

  /* a given mapping replaces the profile's; the tree and links stay */
  s.mapping = "identity";
  m = build_ok(&s);
  cr_assert(eq(int, m.topo_from_profile, 1));
  cr_assert(eq(str, m.mapping, "identity"));
  cr_assert(eq(int, tutti_topo_leaf_of_rank(m.topo, 4), 4));
  tutti_machine_free(&m);

  /* a given topology replaces the whole section */
  s.mapping = NULL, s.topology = "tree:16";
  m = build_ok(&s);
  cr_assert(eq(int, m.topo_from_profile, 0));
  cr_assert(eq(ptr, m.links, NULL));
  cr_assert(eq(ptr, m.mapping, NULL));
  tutti_machine_free(&m);

  /* a topology file, and the profile's list mapping */
  char text[5000];
  snprintf(text, sizeof text, HOCKNEY "[topology]\nfile = %s\nmapping = list:3,0,2,1\n",
           data_path("topo/cluster.ini"));
  char *path = profile_file(text);
  s = tutti_machine_spec_default();
  s.profile = path, s.nranks = 4;
  m = build_ok(&s);
  cr_assert(eq(int, m.topo_from_profile, 1));
  cr_assert(eq(str, m.topo_spec, (char *)data_path("topo/cluster.ini")));
  cr_assert(eq(int, tutti_topo_leaf_of_rank(m.topo, 0), 3));
  cr_assert(eq(int, tutti_topo_unset_links(m.topo), 0)); /* the file's [topology] links */
  cr_assert(eq(ptr, m.links, NULL));
  tutti_machine_free(&m);
  s.nranks = 0; /* 17 leaves, a list of 4: the profile's fault */
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_PROFILE, "4 leaves for 17 ranks");
  unlink(path);
}

/* ------------------------------------------------------------ errors */

Test(errors, model_and_profile, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.model = "hockney:alpha=1xs,beta=1ns";
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_MODEL, "alpha");
  s.model = "none", s.profile = "gige";
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_MODEL, "not both");
  tutti_model_t v;
  tutti_model_none(&v);
  s.profile = NULL, s.model_value = &v;
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_MODEL, "not both");
  s = tutti_machine_spec_default();
  s.profile = "no-such-profile";
  build_fails(&s, TUTTI_ENOTFOUND, TUTTI_MACHINE_IN_PROFILE, "teaching-hockney");
  s.profile = data_path("profiles/bad-preset.ini");
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_PROFILE, "bad-preset.ini:");
  build_fails(NULL, TUTTI_EINVAL, TUTTI_MACHINE_IN_NONE, NULL);
  cr_assert(eq(int, tutti_machine_build(&s, NULL, NULL, NULL, 0), TUTTI_EINVAL));
}

Test(errors, topology_links_mapping_ranks, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.topology = "tree:0x3";
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_TOPOLOGY, "tree:0x3");
  s.topology = "/nonexistent/cluster.ini";
  build_fails(&s, TUTTI_ENOTFOUND, TUTTI_MACHINE_IN_TOPOLOGY, NULL);
  s.topology = "tree:2x4", s.links = "fast";
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_LINKS, "fast");
  s.links = "1us/1Gbps, 1us/1Gbps, 1us/1Gbps"; /* more levels than the tree */
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_LINKS, "levels");
  s.topology = "tree:0x3"; /* a bad tree is the tree's fault, whatever the links */
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_TOPOLOGY, NULL);
  s.topology = "tree:2x4", s.links = NULL, s.mapping = "bogus";
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_MAPPING, "bogus");
  s.mapping = "list:0,1", s.nranks = 4;
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_MAPPING, "2 leaves for 4 ranks");
  s.nranks = 9; /* more ranks than leaves: the count's fault, whatever the mapping */
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_RANKS, "8 leaves");
  s.mapping = NULL;
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_RANKS, "9 ranks");
  s.nranks = 7, s.bind_flags = 0; /* not partial: exactly one rank per leaf */
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_RANKS, "7 ranks");
  s.nranks = -1;
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_RANKS, "-1");
}

Test(errors, nothing_to_apply_to, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.mapping = "dfs";
  build_fails(&s, TUTTI_ENOTSUP, TUTTI_MACHINE_IN_MAPPING, "no topology");
  s.links = "1us/10Gbps"; /* both: the mapping is named */
  build_fails(&s, TUTTI_ENOTSUP, TUTTI_MACHINE_IN_MAPPING, "no topology");
  s.mapping = NULL;
  build_fails(&s, TUTTI_ENOTSUP, TUTTI_MACHINE_IN_LINKS, "no topology");
  s.profile = "postal-2"; /* a profile without [topology] */
  build_fails(&s, TUTTI_ENOTSUP, TUTTI_MACHINE_IN_LINKS, "no topology");
}

/* The profile's own values are the profile's fault; given ones their own. */
Test(errors, the_profiles_own_values, .timeout = 10) {
  tutti_machine_spec_t s = tutti_machine_spec_default();
  char *path = profile_file(HOCKNEY "[topology]\nspec = tree:2x4\nmapping = list:0,1\n");
  s.profile = path, s.nranks = 8;
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_PROFILE, "2 leaves for 8 ranks");
  s.mapping = "list:0,2"; /* a given mapping: its own fault */
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_MAPPING, "2 leaves for 8 ranks");
  s.mapping = NULL, s.nranks = 9;
  build_fails(&s, TUTTI_EINVAL, TUTTI_MACHINE_IN_RANKS, "9 ranks");
  s.nranks = 8, s.topology = "tree:8"; /* the profile's mapping goes with its tree */
  tutti_machine_t m = build_ok(&s);
  tutti_machine_free(&m);
  unlink(path);

  path = profile_file(HOCKNEY "[topology]\nspec = tree:2x4\n"
                              "links = 1us/1Gbps, 1us/1Gbps, 1us/1Gbps\n");
  s = tutti_machine_spec_default();
  s.profile = path;
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_PROFILE, "levels");
  s.links = "fast";
  build_fails(&s, TUTTI_EPARSE, TUTTI_MACHINE_IN_LINKS, "fast");
  s.links = "1us/10Gbps"; /* a given list replaces the profile's */
  m = build_ok(&s);
  cr_assert(eq(str, m.links, "1us/10Gbps"));
  tutti_machine_free(&m);
  unlink(path);

  path = profile_file(HOCKNEY "[topology]\nfile = /nonexistent/tree.ini\n");
  s = tutti_machine_spec_default();
  s.profile = path;
  build_fails(&s, TUTTI_ENOTFOUND, TUTTI_MACHINE_IN_PROFILE, NULL);
  unlink(path);
}

Test(errors, input_names, .timeout = 10) {
  const char *want[] = {"none", "model", "profile", "topology", "links", "mapping", "ranks"};
  for (int i = 0; i <= TUTTI_MACHINE_IN_RANKS; i++)
    cr_assert(eq(str, (char *)tutti_machine_input_name(i), (char *)want[i]));
  cr_assert(eq(str, (char *)tutti_machine_input_name(99), "none"));
  tutti_machine_free(NULL);
  tutti_machine_t z = {0};
  tutti_machine_free(&z);
}

/* ------------------------------------------------------------ a world on it */

static int bcast_rank(tutti_rank_t *r, void *arg) {
  char buf[1000] = {0};
  const tutti_algo_t *const *algo = arg;
  return tutti_bcast(r, buf, (long)sizeof buf, TUTTI_BYTE, 0, *algo);
}

/* A flat broadcast of 1000 B from rank 0 on tree:2x4 with roundrobin:
 * ranks 1, 3, 5, 7 sit under the other switch, so four messages cross
 * the link s0 -> root (the CLI test's numbers), and the world names the
 * link from the machine's topology. Slow links (10 ns/B) make the same
 * run slower than without a topology. A machine serves several worlds. */
Test(world, runs_on_the_machine, .timeout = 30) {
  const tutti_algo_t *flat;
  char err[1024] = "";
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", NULL, &flat, err, sizeof err), 0),
            "%s", err);
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.model = "hockney:alpha=1us,beta=1ns";
  tutti_machine_t m[3];
  m[0] = build_ok(&s);
  s.topology = "tree:2x4", s.mapping = "roundrobin", s.nranks = 8;
  m[1] = build_ok(&s);
  s.links = "1us/100MB/s";
  m[2] = build_ok(&s);
  double t[3];
  for (int k = 0; k < 3; k++) {
    tutti_config_t cfg = tutti_config_default(8);
    cfg.model = &m[k].model;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
    for (int again = 0; again < 2; again++)
      cr_assert(eq(int, tutti_world_run(w, bcast_rank, &flat), 0), "%s", tutti_world_error(w));
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    t[k] = rep.modeled_time;
    tutti_link_load_t top[16];
    int n = -1, up = -1;
    cr_assert(eq(int, tutti_world_links(w, 16, top, &n), 0));
    for (int i = 0; i < n; i++)
      if (!strcmp(top[i].name, "s0 -> root")) up = i;
    if (k == 1) {
      cr_assert(ge(int, up, 0), "no link s0 -> root among %d", n);
      cr_assert(eq(u64, top[up].messages, 4));
    } else if (k == 0) {
      cr_assert(eq(int, n, 0));
    }
    tutti_world_destroy(w);
  }
  cr_assert(eq(dbl, t[1], t[0]), "an idle path costs what it costs without a topology");
  cr_assert(gt(dbl, t[2], t[0]), "slow links: %g vs %g", t[2], t[0]);
  for (int k = 0; k < 3; k++) tutti_machine_free(&m[k]);
}
