/*
 * test_e2e_cli_run.c -- what the `tutti` command prints when it succeeds,
 * against bench/CLI.md: `list` and `suite` cover every registered
 * algorithm (the test enumerates the registry, so a new algorithm is
 * tested by being registered); `run --json` is well-formed JSON with
 * bench/CLI.md's fields and runtime/MODEL.md's times; every algorithm
 * verifies through `run`, non-commutative ops included; `tree` draws
 * collectives/REFERENCE.md's lambda-tree; `profiles` lists the built-ins;
 * `--topology`/`--mapping`/`--links` and profiles with a [topology] put
 * the run on links (the link table, JSON and trace tracks), and `topo`
 * draws collectives/REFERENCE.md's two-switch lecture example (ASCII and
 * --dot). JSON integers look like integers; a profile's mapping (behind a
 * UTF-8 BOM) reads like --mapping. The JSON is read with json_reader.h;
 * verify.c, the reference `run` checks against, is tested directly in
 * test_unit_verify.c.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "json_reader.h"

#include "cli_helpers.h"
#include "cli_names.h"

/* ------------------------------------------------------------ list, profiles */

Test(list, every_registered_algorithm, .timeout = 30) {
  struct cli c = CLI("list");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  const tutti_algo_desc_t *d;
  int n = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++, n++) {
    HAS(c.out, d->name);
    for (int k = 0; k < d->nparams; k++) HAS(c.out, d->params[k].name);
  }
  cr_assert(gt(int, n, 0), "the registry is empty");
  for (int k = 0; k < TUTTI_COLL_N; k++) HAS(c.out, tutti_coll_name(k));
  cli_free(&c);
  /* one collective: its algorithms, and no other collective's heading */
  c = CLI("list", "reduce");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    if (d->coll == TUTTI_COLL_REDUCE) HAS(c.out, d->name);
  cr_assert(eq(ptr, strstr(c.out, "\nbcast"), NULL));
  cr_assert(eq(int, strncmp(c.out, "reduce", 6), 0));
  cli_free(&c);
}

Test(profiles, lists_the_builtins, .timeout = 30) {
  struct cli c = CLI("profiles");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "teaching-hockney");
  HAS(c.out, "sp2-hps");
  const tutti_profile_info_t *b;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    HAS(c.out, b->name);
    HAS(c.out, b->source);
  }
  cli_free(&c);
}

/* ------------------------------------------------------------ run */

Test(run, binomial_bcast_json_is_model_md, .timeout = 30) {
  if (!tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial")) cr_skip_test("no bcast binomial");
  struct cli c = CLI("run", "bcast", "binomial", "-n", "8", "-m", "1000B", "--model",
                     "hockney:alpha=1us,beta=1ns", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(str, c.err, ""));
  struct jp p = json_ok(c.out);
  for (size_t i = 0; i < sizeof run_keys / sizeof *run_keys; i++) json_get(&p, run_keys[i]);
  double t = json_num(&p, "modeled_time");
  cr_assert(epsilon_eq(dbl, t, 6e-6, 1e-15), "modeled_time %g, want 6e-06", t);
  cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "collective"), "\"bcast\"", 7), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "algorithm"), "\"binomial\"", 10), 0));
  cr_assert(eq(dbl, json_num(&p, "ranks"), 8));
  cr_assert(eq(dbl, json_num(&p, "bytes"), 1000));
  cr_assert(eq(dbl, json_num(&p, "root"), 0));
  cr_assert(eq(dbl, json_num(&p, "iters"), 1));
  cr_assert(eq(dbl, json_num(&p, "messages"), 7));
  cr_assert(eq(dbl, json_num(&p, "bytes_moved"), 7000));
  cr_assert(eq(int, json_array_len(json_get(&p, "per_rank")), 8));
  cr_assert(eq(int, json_array_len(json_get(&p, "modeled_times")), 1));
  cr_assert(eq(int, strncmp(json_get(&p, "model"), "{\"preset\":\"hockney\"", 19), 0));
  cli_free(&c);
}

/* JSON integers look like integers (10, not 1e+01): postal times are steps. */
Test(run, json_integers_look_like_integers, .timeout = 30) {
  struct cli c =
      CLI("run", "bcast", bcast_default(), "-n", "8", "--model", "postal:L=10", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  HAS(json_get(&p, "model"), "\"L\":10,");
  double t = json_num(&p, "modeled_time");
  cr_assert(eq(dbl, t, floor(t)), "postal time %g is not whole", t);
  cr_assert(eq(ptr, strstr(c.out, "e+"), NULL), "an exponent in: %s", c.out);
  cli_free(&c);
}

/* A profile and the command line read a mapping with one parser: what
 * --mapping takes, `mapping =` takes, with the same result; a UTF-8 BOM at
 * the start of a profile is skipped. */
Test(run, profile_mapping_is_the_command_lines, .timeout = 60) {
  const char *a = bcast_default();
  char prof[] = "/tmp/tutti_test_map_XXXXXX";
  int fd = mkstemp(prof);
  cr_assert(ge(int, fd, 0));
  const char *ini = "\xEF\xBB\xBF[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                    "[topology]\nspec = tree:4x4\nmapping = list:15,14,13,12\n";
  cr_assert(eq(long, (long)write(fd, ini, strlen(ini)), (long)strlen(ini)));
  close(fd);
  struct cli c = CLI("run", "bcast", a, "-n", "4", "-m", "1000B", "--profile", prof, "--json");
  struct cli d =
      CLI("run", "bcast", a, "-n", "4", "-m", "1000B", "--model", "hockney:alpha=1us,beta=1ns",
          "--topology", "tree:4x4", "--mapping", "list:15,14,13,12", "--json");
  unlink(prof);
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(int, d.status, 0), "exit %d: %s", d.status, d.err);
  struct jp p = json_ok(c.out), q = json_ok(d.out);
  cr_assert(eq(dbl, json_num(&p, "modeled_time"), json_num(&q, "modeled_time")));
  HAS(json_get(&p, "topology"), "\"mapping\":\"list:15,14,13,12\"");
  cli_free(&c);
  cli_free(&d);
}

Test(run, iters_rotate_root, .timeout = 30) {
  struct cli c = CLI("run", "bcast", bcast_default(), "-n", "8", "-m", "1000B", "--iters", "3",
                     "--rotate-root", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  cr_assert(eq(int, json_array_len(json_get(&p, "modeled_times")), 3));
  cr_assert(eq(dbl, json_num(&p, "iters"), 3));
  cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
  cli_free(&c);
  /* the table shows the three per-call times */
  c = CLI("run", "bcast", bcast_default(), "-n", "8", "--iters", "3", "--rotate-root");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "per call");
  HAS(c.out, "verified      yes");
  cli_free(&c);
}

Test(run, table_and_none_model, .timeout = 30) {
  struct cli c = CLI("run", "bcast", bcast_default(), "-n", "8", "-m", "1000B");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "modeled time");
  HAS(c.out, "teaching-hockney");
  HAS(c.out, "verified      yes");
  cli_free(&c);
  c = CLI("run", "bcast", bcast_default(), "-n", "5", "--model", "none", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  cr_assert(eq(int, strncmp(json_get(&p, "modeled_time"), "null", 4), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
  cli_free(&c);
  /* postal: steps */
  c = CLI("run", "bcast", bcast_default(), "-n", "8", "--profile", "postal-2", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  double t = json_num(&p, "modeled_time");
  cr_assert(eq(dbl, t, floor(t)), "postal time %g is not whole steps", t);
  cli_free(&c);
}

Test(run, trace_and_timeline, .timeout = 30) {
  char path[] = "/tmp/tutti_test_trace_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c =
      CLI("run", "bcast", bcast_default(), "-n", "6", "-m", "64", "--trace", path, "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  json_ok(c.out);
  cli_free(&c);
  fd = open(path, O_RDONLY);
  cr_assert(ge(int, fd, 0));
  char *trace = slurp(fd);
  unlink(path);
  struct jp p = json_ok(trace);
  json_get(&p, "traceEvents");
  HAS(trace, "rank 5");
  HAS(trace, "\"name\":\"send 64 B to ");
  /* a collective's reserved tags are not in the names a reader sees */
  cr_assert(eq(ptr, strstr(trace, ", tag 1073"), NULL), "a reserved tag in a name");
  free(trace);
  c = CLI("run", "bcast", bcast_default(), "-n", "6", "--timeline", "--model", "none");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "r5");
  cli_free(&c);
}

/* Every registered algorithm, through `run`, verifies: a non-zero root,
 * an odd rank count (a power of two where required), rotating roots, and
 * the non-commutative matmul2 for reductions that accept it. */
Test(run, every_algorithm_verifies, .timeout = 240) {
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    const char *coll = tutti_coll_name(d->coll), *n = d->restrictions & TUTTI_ALGO_POW2 ? "8" : "7";
    struct cli c;
    switch (d->coll) {
    case TUTTI_COLL_BARRIER:
      c = CLI("run", coll, d->name, "-n", n, "--iters", "2", "--json");
      break;
    case TUTTI_COLL_ALLGATHER:
    case TUTTI_COLL_ALLTOALL:
      c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--iters", "2", "--json");
      break;
    case TUTTI_COLL_ALLREDUCE:
    case TUTTI_COLL_REDUCE_SCATTER:
    case TUTTI_COLL_SCAN:
    case TUTTI_COLL_EXSCAN:
    case TUTTI_COLL_REDUCE: {
      const char *op = d->restrictions & TUTTI_ALGO_COMMUTATIVE ? "sum" : "matmul2";
      if (d->coll == TUTTI_COLL_REDUCE)
        c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--op", op, "--root", "3", "--iters",
                "2", "--rotate-root", "--json");
      else
        c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--op", op, "--iters", "2", "--json");
      break;
    }
    default:
      c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--root", "3", "--iters", "2",
              "--rotate-root", "--json");
    }
    cr_assert(eq(int, c.status, 0), "%s %s: exit %d: %s", coll, d->name, c.status, c.err);
    struct jp p = json_ok(c.out);
    cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0), "%s %s", coll, d->name);
    cli_free(&c);
  }
}

/* ------------------------------------------------------------ topology */

static const char *has_binomial(void) {
  return tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial") ? "binomial" : NULL;
}

/* Binomial broadcast, 8 ranks, 1000 B, teaching Hockney: on one switch
 * every message has its own links (runtime/MODEL.md's 6 us); on tree:2x4 with
 * roundrobin the last round's four messages all cross s0 -> root. */
Test(run, topology_json_and_links, .timeout = 60) {
  const char *b = has_binomial();
  if (!b) cr_skip_test("no bcast binomial");
  struct cli c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--topology", "tree:8", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  for (size_t i = 0; i < sizeof run_keys / sizeof *run_keys; i++) json_get(&p, run_keys[i]);
  double t = json_num(&p, "modeled_time");
  cr_assert(epsilon_eq(dbl, t, 6e-6, 1e-15), "modeled_time %g, want 6e-06", t);
  cr_assert(eq(int, strncmp(json_get(&p, "topology"), "{\"spec\":\"tree:8\",", 17), 0));
  cr_assert(eq(int, json_array_len(json_get(&p, "links")), 11)); /* 4 senders, 7 receivers */
  cli_free(&c);

  c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--topology", "tree:2x4", "--mapping",
          "roundrobin", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  cr_assert(gt(dbl, json_num(&p, "modeled_time"), 6e-6 + 1e-12));
  const char *links = json_get(&p, "links");
  HAS(links, "{\"link\":0,\"name\":\"s0 -> root\",\"messages\":4,\"bytes\":4000,");
  HAS(links, "\"max_queue\":4}");
  HAS(json_get(&p, "topology"), "\"mapping\":\"roundrobin\"");
  cli_free(&c);

  /* without a topology: "topology" and "links" are null */
  c = CLI("run", "bcast", b, "-n", "8", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  cr_assert(eq(int, strncmp(json_get(&p, "topology"), "null", 4), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "links"), "null", 4), 0));
  cli_free(&c);
}

Test(run, topology_table_trace_and_profile, .timeout = 60) {
  const char *b = has_binomial();
  if (!b) cr_skip_test("no bcast binomial");
  char path[] = "/tmp/tutti_test_trace_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c =
      CLI("run", "bcast", b, "-n", "8", "-m", "64KiB", "--topology", "tree:2x4", "--mapping",
          "roundrobin", "--links", "1us/10Gbps, 2us/40Gbps", "--trace", path);
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "topology      tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin");
  HAS(c.out, "links         1us/10Gbps, 2us/40Gbps");
  HAS(c.out, "busiest links");
  HAS(c.out, "s0 -> root");
  HAS(c.out, "verified      yes");
  cli_free(&c);
  fd = open(path, O_RDONLY);
  cr_assert(ge(int, fd, 0));
  char *trace = slurp(fd);
  unlink(path);
  json_ok(trace);
  HAS(trace, "\"name\":\"links\"");
  HAS(trace, "\"name\":\"s0 -> root\"");
  HAS(trace, "\"name\":\"msg 0->1 64 KiB\"");
  free(trace);

  /* a profile's [topology]; --topology replaces it */
  char prof[] = "/tmp/tutti_test_prof_XXXXXX";
  fd = mkstemp(prof);
  cr_assert(ge(int, fd, 0));
  const char *ini = "[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                    "[topology]\nspec = tree:2x4\nmapping = roundrobin\n";
  cr_assert(eq(long, (long)write(fd, ini, strlen(ini)), (long)strlen(ini)));
  close(fd);
  c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--profile", prof, "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  HAS(json_get(&p, "topology"), "\"source\":\"profile\"");
  HAS(json_get(&p, "links"), "\"max_queue\":4}");
  cli_free(&c);
  c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--profile", prof, "--topology", "tree:8",
          "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  cr_assert(epsilon_eq(dbl, json_num(&p, "modeled_time"), 6e-6, 1e-15));
  HAS(json_get(&p, "topology"), "\"mapping\":\"identity\"");
  cli_free(&c);
  c = CLI("topo", "--profile", prof); /* the profile's tree, fewer ranks than leaves */
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "ranks 0 2 4 6");
  cli_free(&c);
  c = CLI("suite", "-n", "4", "-m", "64", "--profile", prof, "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  HAS(json_get(&p, "topology"), "\"spec\":\"tree:2x4\"");
  cr_assert(eq(int, strncmp(json_get(&p, "all_verified"), "true", 4), 0));
  cli_free(&c);
  unlink(prof);
}

/* collectives/REFERENCE.md's lecture example: two switches, roundrobin. */
Test(topo, lecture_example_ascii_and_dot, .timeout = 30) {
  struct cli c = CLI("topo", "tree:2x4", "--mapping", "roundrobin");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(str, c.err, ""));
  HAS(c.out, "tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin");
  HAS(c.out, "|-- s0");
  HAS(c.out, "leaves 0-3: ranks 0 2 4 6");
  HAS(c.out, "leaves 4-7: ranks 1 3 5 7");
  HAS(c.out, "contention-free chain from rank 0: 0 2 4 6 1 3 5 7\n");
  cli_free(&c);
  c = CLI("topo", "tree:2x4", "--mapping", "roundrobin", "--dot");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(int, strncmp(c.out, "graph topology {", 16), 0), "%s", c.out);
  HAS(c.out, "leaf 3\\nrank 6");
  cli_free(&c);
  /* fewer ranks than leaves; explicit links; another root */
  c = CLI("topo", "tree:2x4", "-n", "5", "--links", "1us/10Gbps, 2us/40Gbps", "--root", "4");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "5 ranks");
  HAS(c.out, "ranks 4 - - -");
  HAS(c.out, "chain from rank 4: 4 0 1 2 3");
  cli_free(&c);
}

/* ------------------------------------------------------------ tree */

Test(tree, lambda_is_reference_md, .timeout = 30) {
  struct cli c = CLI("tree", "lambda", "-n", "10", "--param", "lambda=0.6");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  /* the root's children are the lines at depth 1: "├── 6" ... "└── 1" */
  int kids[16], n = 0;
  for (char *line = c.out; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (!strncmp(line, "├── ", strlen("├── ")) || !strncmp(line, "└── ", strlen("└── ")))
      kids[n++] = atoi(line + strlen("├── "));
    cr_assert(lt(int, n, 16));
  }
  cr_assert(eq(int, n, 4), "root has %d children:\n%s", n, c.out);
  int want[] = {6, 4, 2, 1};
  for (int i = 0; i < 4; i++)
    cr_assert(eq(int, kids[i], want[i]), "child %d is %d:\n%s", i, kids[i], c.out);
  cli_free(&c);
}

Test(tree, dot_and_registry_names, .timeout = 30) {
  struct cli c = CLI("tree", "binomial", "-n", "8", "--dot");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(int, strncmp(c.out, "digraph", 7), 0), "%s", c.out);
  cli_free(&c);
  /* each kind draws */
  for (int k = 0; k < TUTTI_TREE_NKINDS; k++) {
    c = CLI("tree", tutti_tree_kind_name(k), "-n", "9", "--root", "2");
    cr_assert(eq(int, c.status, 0), "%s: %s", tutti_tree_kind_name(k), c.err);
    cli_free(&c);
  }
  /* a registry algorithm with a lambda parameter draws its tree */
  const tutti_algo_desc_t *d = with_param("lambda");
  if (d) {
    c = CLI("tree", d->name, "-n", "10", "--param", "lambda=0.6");
    if (c.status == 0) HAS(c.out, "├── 6");
    cli_free(&c);
  }
}

/* ------------------------------------------------------------ suite */

Test(suite, every_algorithm_verified, .timeout = 120) {
  struct cli c = CLI("suite");
  cr_assert(eq(int, c.status, 0), "exit %d: %s\n%s", c.status, c.err, c.out);
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) HAS(c.out, d->name);
  HAS(c.out, "teaching-hockney");
  HAS(c.out, "*");
  cli_free(&c);
  c = CLI("suite", "-n", "5", "-m", "100", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  int n = 0;
  for (int i = 0; tutti_algo_desc_at(i); i++) n++;
  cr_assert(eq(int, json_array_len(json_get(&p, "results")), n)); /* one size: one row each */
  cr_assert(eq(int, strncmp(json_get(&p, "all_verified"), "true", 4), 0));
  cli_free(&c);
}

/* `profiles --json`: every built-in, in order, with its source and the
 * model the library loads for it. */
Test(profiles, json_lists_every_builtin, .timeout = 30) {
  struct cli c = CLI("profiles", "--json");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(chr, c.out[0], '['));
  const tutti_profile_info_t *b;
  const char *at = c.out;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    char key[128];
    snprintf(key, sizeof key, "{\"name\":\"%s\",\"default\":%s", b->name, i ? "false" : "true");
    const char *hit = strstr(at, key);
    cr_assert(ne(ptr, (void *)hit, NULL), "%s missing or out of order", b->name);
    at = hit + 1;
    tutti_profile_t p;
    char err[512];
    cr_assert(eq(int, tutti_profile_load(b->name, &p, err, sizeof err), 0), "%s", err);
    char *obj = strndup(hit, (size_t)(strchr(hit, '\n') ? strchr(hit, '\n') - hit : 4096));
    char want[64];
    snprintf(want, sizeof want, "\"preset\":\"%s\"", tutti_model_preset_name(p.model.preset));
    HAS(obj, want);
    HAS(obj, "\"source\":\"");
    free(obj);
  }
  cli_free(&c);
}
