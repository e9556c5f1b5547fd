/*
 * test_unit_promised_errors.c -- error codes the public headers promise
 * that no other test reached (test_unit_promises.c finds them): a stream
 * that fails (TUTTI_EIO), arguments out of range (TUTTI_EINVAL), names and
 * files that are not there (TUTTI_ENOTFOUND, TUTTI_EIO), bad rules text
 * (TUTTI_EPARSE), a client's out of memory through the INI reader
 * (TUTTI_ENOMEM), and a world created from inside a rank (TUTTI_EBUSY).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tutti/tutti.h"

/* A stream whose writes fail: /dev/full takes no byte. */
static FILE *full(void) {
  FILE *f = fopen("/dev/full", "w");
  cr_assert(ne(ptr, f, NULL), "cannot open /dev/full");
  setvbuf(f, NULL, _IONBF, 0);
  return f;
}

static tutti_topo_t *topo(const char *spec) {
  tutti_topo_t *t = NULL;
  char err[256];
  cr_assert(eq(int, tutti_topo_from_spec(spec, "1us/1GB/s", &t, err, sizeof err), 0), "%s", err);
  return t;
}

Test(promised, writers_report_a_failing_stream, .timeout = 30) {
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  FILE *f = full();
  cr_expect(eq(int, tutti_model_json(&m, f), TUTTI_EIO));
  tutti_topo_t *t = topo("tree:2x4");
  cr_expect(eq(int, tutti_topo_print(t, f), TUTTI_EIO));
  tutti_linkset_t *ls;
  cr_assert(eq(int, tutti_linkset_create(t, &ls), 0));
  int path[8], k = tutti_topo_route(t, 0, 7, path, 8);
  tutti_transit_t tr = {0};
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_expect(eq(int, tutti_linkset_report(ls, 4, 0, f), TUTTI_EIO));
  fclose(f);
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(promised, linksets_refuse_bad_arguments, .timeout = 30) {
  tutti_topo_t *t = topo("tree:2x4");
  tutti_linkset_t *ls;
  cr_assert(eq(int, tutti_linkset_create(t, &ls), 0));
  int top[4];
  cr_expect(eq(int, tutti_linkset_top(NULL, TUTTI_LINKS_BY_BUSY, 4, top), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_linkset_top(ls, 99, 4, top), TUTTI_EINVAL), "an unknown order");
  cr_expect(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BUSY, -1, top), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BUSY, 4, NULL), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BUSY, 4, top), 0), "nothing carried");
  cr_expect(eq(int, tutti_linkset_report(NULL, 4, 0, stdout), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_linkset_report(ls, 4, 0, NULL), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_linkset_report(ls, -1, 0, stdout), TUTTI_EINVAL));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(promised, a_mapping_must_fit_the_tree, .timeout = 30) {
  tutti_topo_t *t = topo("tree:2x4"); /* 8 leaves */
  int leaf[9];
  char err[256];
  cr_expect(eq(int, tutti_topo_mapping_apply(t, NULL, 9, 0, leaf, err, sizeof err), TUTTI_EINVAL));
  cr_expect(ne(ptr, strstr(err, "8 leaves but the world has 9 ranks"), NULL), "%s", err);
  tutti_topo_mapping_t m;
  cr_assert(eq(int, tutti_topo_mapping_parse("list:0,1,9", &m, err, sizeof err), 0), "%s", err);
  cr_expect(eq(int, tutti_topo_mapping_apply(t, &m, 3, TUTTI_TOPO_PARTIAL, leaf, err, sizeof err),
               TUTTI_EINVAL),
            "leaf 9 does not exist");
  cr_expect(eq(int, tutti_topo_mapping_apply(t, &m, 4, TUTTI_TOPO_PARTIAL, leaf, err, sizeof err),
               TUTTI_EINVAL),
            "a list of 3 for 4 ranks");
  tutti_topo_mapping_clear(&m);
  cr_expect(eq(int, tutti_topo_mapping_apply(t, NULL, 8, 0, leaf, err, sizeof err), 0), "%s", err);
  tutti_topo_free(t);
}

Test(promised, registry_lookups_refuse_what_is_not_there, .timeout = 30) {
  cr_expect(eq(int, (int)tutti_coll_traits(-1), 0));
  cr_expect(eq(int, (int)tutti_coll_traits(TUTTI_COLL_N), 0));
  int coll;
  cr_expect(eq(int, tutti_coll_find("alltoallw", &coll), TUTTI_ENOTFOUND));
  const tutti_algo_t *a;
  char err[512], buf[64];
  cr_assert(
      eq(int,
         tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=0.75", &a, err, sizeof err), 0),
      "%s", err);
  cr_expect(eq(int, tutti_algo_param_text(a, 0, buf, sizeof buf), 0));
  cr_expect(eq(str, buf, "0.75"));
  cr_expect(eq(int, tutti_algo_param_text(a, 0, buf, 3), TUTTI_EINVAL), "truncated");
  cr_expect(eq(int, tutti_algo_param_text(a, 99, buf, sizeof buf), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_algo_param_text(NULL, 0, buf, sizeof buf), TUTTI_EINVAL));
  tutti_treespec_t spec;
  cr_expect(eq(int, tutti_algo_treespec(a, 1, &spec), 0));
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_ALLREDUCE, "ring", NULL, &a, err, sizeof err), 0),
            "%s", err);
  cr_expect(eq(int, tutti_algo_treespec(a, 1, &spec), TUTTI_EINVAL), "ring is not a tree");
  /* a barrier auto with no model to estimate under */
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  cr_expect(eq(int, tutti_barrier_auto_choose(&m, 0, &a, err, sizeof err), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_barrier_auto_choose(NULL, 4, &a, err, sizeof err), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_barrier_auto_choose(&m, 4, &a, err, sizeof err), 0), "%s", err);
}

Test(promised, rules_text_and_files, .timeout = 30) {
  tutti_rules_t *r = NULL;
  char err[512];
  cr_expect(eq(int,
               tutti_rules_parse_string("[bcast]\nranks = 4\n0..1KiB = no-such\n", "t.ini", &r, err,
                                        sizeof err),
               TUTTI_EPARSE));
  cr_expect(ne(ptr, strstr(err, "t.ini:3:"), NULL), "%s", err);
  cr_expect(eq(ptr, r, NULL));
  cr_expect(
      eq(int, tutti_rules_parse_string("[nosuch]\n", "t.ini", &r, err, sizeof err), TUTTI_EPARSE));
  cr_expect(eq(int, tutti_rules_load("/nonexistent/tune.ini", &r, err, sizeof err), TUTTI_EIO));
  cr_expect(ne(ptr, strstr(err, "/nonexistent/tune.ini"), NULL), "%s", err);
  cr_expect(eq(int, tutti_rules_load("/", &r, err, sizeof err), TUTTI_EIO), "a folder");
}

/* The INI reader's client runs out of memory on the second key. */
static int on_pair_oom(tutti_ini_t *in, const char *section, const char *name, const char *value) {
  (void)section, (void)value;
  if (!strcmp(name, "b")) {
    tutti_ini_oom(in);
    return 0;
  }
  return 1;
}

static int on_pair_ok(tutti_ini_t *in, const char *section, const char *name, const char *value) {
  (void)in, (void)section, (void)name, (void)value;
  return 1;
}

static tutti_ini_t ini(const char *text,
                       int (*on_pair)(tutti_ini_t *, const char *, const char *, const char *)) {
  tutti_ini_t in;
  memset(&in, 0, sizeof in);
  in.filename = "x.ini";
  in.text = text;
  in.sections = "[s]";
  in.cont_hint = "";
  in.on_pair = on_pair;
  return in;
}

Test(promised, ini_reader_errors, .timeout = 30) {
  char err[512];
  tutti_ini_t in = ini("[s]\na = 1\nb = 2\n", on_pair_oom);
  cr_expect(eq(int, tutti_ini_parse(&in, err, sizeof err), TUTTI_ENOMEM));
  cr_expect(ne(ptr, strstr(err, "x.ini:3:"), NULL), "%s", err);
  cr_expect(eq(int, tutti_ini_report(&in, err, sizeof err), TUTTI_ENOMEM));
  in = ini("[s]\na = 1\nnot a pair\n", on_pair_ok);
  cr_expect(eq(int, tutti_ini_parse(&in, err, sizeof err), TUTTI_EPARSE));
  cr_expect(ne(ptr, strstr(err, "x.ini:3:"), NULL), "%s", err);
  in = ini("a = 1\n", on_pair_ok);
  cr_expect(eq(int, tutti_ini_parse(&in, err, sizeof err), TUTTI_EPARSE), "a key outside [s]");
  /* a check after the parse, recorded by the client */
  in = ini("[s]\na = 1\n", on_pair_ok);
  cr_assert(eq(int, tutti_ini_parse(&in, err, sizeof err), 0), "%s", err);
  tutti_ini_fail(&in, 2, "key 'a': needs b too; accepted: a with b");
  cr_expect(eq(int, tutti_ini_report(&in, err, sizeof err), TUTTI_EPARSE));
  cr_expect(eq(str, err, "x.ini:2: key 'a': needs b too; accepted: a with b"));
}

/* tutti_config_check does not look at its caller; tutti_world_create from a
 * rank is TUTTI_EBUSY. */
static int create_inside(tutti_rank_t *r, void *arg) {
  (void)r;
  int *rc = arg;
  tutti_config_t cfg = tutti_config_default(2);
  tutti_world_t *w = NULL;
  rc[0] = tutti_config_check(&cfg, NULL, 0);
  rc[1] = tutti_world_create(&w, &cfg);
  if (w) tutti_world_destroy(w);
  return rc[0] == 0 && rc[1] == TUTTI_EBUSY ? 0 : TUTTI_EINVAL;
}

Test(promised, a_world_is_not_created_inside_a_rank, .timeout = 60) {
  tutti_config_t cfg = tutti_config_default(1);
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
  int rc[2] = {1, 1};
  cr_assert(eq(int, tutti_world_run(w, create_inside, rc), 0));
  cr_expect(eq(int, rc[0], 0), "the check passes: it does not look at its caller");
  cr_expect(eq(int, rc[1], TUTTI_EBUSY));
  tutti_world_destroy(w);
}

/* A request is its rank's until completed: waiting again on a copy of a
 * completed one is TUTTI_EREQUEST, as is a request of another rank. */
static int stale_request(tutti_rank_t *r, void *arg) {
  int *rc = arg, x = 7;
  if (tutti_rank(r) == 1) return tutti_send(r, &x, 1, TUTTI_INT32, 0, 3);
  tutti_request_t q, copy;
  int e = tutti_irecv(r, &x, 1, TUTTI_INT32, 1, 3, &q);
  if (e) return e;
  copy = q;
  if ((e = tutti_wait(r, &q, TUTTI_STATUS_IGNORE))) return e;
  rc[0] = tutti_wait(r, &copy, TUTTI_STATUS_IGNORE);
  int flag = 0;
  rc[1] = tutti_test(r, &copy, &flag, TUTTI_STATUS_IGNORE);
  rc[2] = tutti_waitall(r, 1, &copy, NULL);
  return 0;
}

Test(promised, a_completed_request_is_not_waited_again, .timeout = 60) {
  tutti_config_t cfg = tutti_config_default(2);
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
  int rc[3] = {0, 0, 0};
  cr_assert(eq(int, tutti_world_run(w, stale_request, rc), 0), "%s", tutti_world_error(w));
  for (int i = 0; i < 3; i++) cr_expect(eq(int, rc[i], TUTTI_EREQUEST), "call %d", i);
  tutti_world_destroy(w);
}
