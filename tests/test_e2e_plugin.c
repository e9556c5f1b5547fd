/*
 * test_e2e_plugin.c -- algorithms written outside tutti (include/tutti/plugin.h),
 * end to end through the `tutti` binary as a user meets them:
 *
 * 1. every collective's template (bench/templates/COLL.c, built by
 *    tests/CMakeLists.txt as BUILD/tests/plugins/template_COLL.so) runs
 *    verified, given as a file where the algorithm goes, and passes
 *    `tutti check`;
 * 2. `tutti new COLL NAME` writes a file that runs and passes `check` as
 *    it is (compiled into $TUTTI_CACHE_DIR once, again when edited); what
 *    `new` refuses;
 * 3. `--plugin` and `TUTTI_PLUGINS`: the algorithm listed and selected by
 *    name with its parameters, their ranges checked;
 * 4. the tools on a plugin's algorithm: suite, sweep, compare, explain
 *    (its cost against the engine), run --html/--trace/--no-data/fibers,
 *    and tune -> rules file (`plugin = FILE`) -> `run COLL auto --rules`;
 * 5. bad input, exit 2 with one line naming the problem: missing files,
 *    files that are no plugin, every bad_<case>.so of tests/plugins/bad.c
 *    (and nothing registered of a plugin that fails half-way), a C file
 *    that does not compile, no C compiler;
 * 6. plugin algorithms that fail at run time (tests/plugins/fail.c): exit
 *    3 naming the rank, the algorithm and the plugin file; a wrong result
 *    is exit 1, and `check` names the first failure.
 *
 * The plugins are in $TUTTI_BINARY_DIR/tests/plugins (ctest sets it; run by
 * hand, the directory beside this binary). Tests that compile a C file run
 * in a temporary directory of their own with TUTTI_CACHE_DIR in it.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "json_reader.h"
#include "tutti/tutti.h"

#include "sanitized.h"

/* ------------------------------------------------------------ helpers */

/* BUILD/tests/plugins, absolute (resolved once, before any chdir). */
static const char *plugin_dir(void) {
  static char dir[PATH_MAX];
  if (dir[0]) return dir;
  char raw[PATH_MAX];
  const char *b = getenv("TUTTI_BINARY_DIR");
  if (b && *b)
    snprintf(raw, sizeof raw, "%s/tests/plugins", b);
  else { /* run by hand: this binary is BUILD/tests/test_e2e_plugin */
    char self[PATH_MAX - 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    cr_assert(gt(sz, (size_t)(n > 0 ? n : 0), 0));
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(raw, sizeof raw, "%s/plugins", self);
  }
  cr_assert(ne(ptr, realpath(raw, dir), NULL), "no plugin directory %s", raw);
  return dir;
}

/* The absolute path of a test plugin (8 live at a time). */
static const char *plug(const char *file) {
  static char ring[8][PATH_MAX + 64];
  static int next;
  char *p = ring[next++ % 8];
  snprintf(p, sizeof ring[0], "%s/%s", plugin_dir(), file);
  return p;
}

/* The value of an output line "KEY   value" ("" if none). */
static const char *field(const char *out, const char *key) {
  size_t k = strlen(key);
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (!strncmp(l, key, k) && l[k] == ' ') {
      for (l += k; *l == ' ';) l++;
      return l;
    }
  return "";
}

#define STARTS(s, prefix)                                                                          \
  cr_assert(eq(int, strncmp(s, prefix, strlen(prefix)), 0), "'%.60s' does not start with '%s'", s, \
            prefix)

/* A run that exits 0, verified, its algorithm line starting with algo. */
static void verified_as(struct cli c, const char *algo) {
  cr_assert(eq(int, c.status, 0), "exit %d; stderr: %s", c.status, c.err);
  STARTS(field(c.out, "verified"), "yes\n");
  STARTS(field(c.out, "algorithm"), algo);
  cli_free(&c);
}

/* A check that exits 0 with every row passed. */
static void check_passes(struct cli c) {
  cr_assert(eq(int, c.status, 0), "exit %d; stdout: %s; stderr: %s", c.status, c.out, c.err);
  HAS(c.out, "passed");
  cr_assert(eq(ptr, strstr(c.out, "FAILED"), NULL), "%s", c.out);
  cli_free(&c);
}

static int count(const char *text, const char *sub) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, sub)); p += strlen(sub)) n++;
  return n;
}

static char *read_file(const char *path) {
  int fd = open(path, O_RDONLY);
  cr_assert(ge(int, fd, 0), "cannot open %s", path);
  return slurp(fd);
}

static void write_file(const char *path, const char *mode, const char *text) {
  FILE *f = fopen(path, mode);
  cr_assert(ne(ptr, f, NULL), "cannot write %s", path);
  fputs(text, f);
  cr_assert(eq(int, fclose(f), 0));
}

/* A temporary directory to work in: the current directory for the test,
 * its cache/ the plugin cache (TUTTI_CACHE_DIR). */
struct sandbox {
  char dir[64], cache[96];
};

static void sandbox_enter(struct sandbox *s) {
  plugin_dir();
  snprintf(s->dir, sizeof s->dir, "/tmp/tutti_test_plugin_XXXXXX");
  cr_assert(ne(ptr, mkdtemp(s->dir), NULL));
  snprintf(s->cache, sizeof s->cache, "%s/cache", s->dir);
  cr_assert(eq(int, setenv("TUTTI_CACHE_DIR", s->cache, 1), 0));
  cr_assert(eq(int, chdir(s->dir), 0));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(p);
}

static void sandbox_leave(struct sandbox *s) {
  cr_assert(eq(int, chdir("/"), 0));
  nftw(s->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  unsetenv("TUTTI_CACHE_DIR");
}

/* The shared objects in dir: how many; the first one's name and stat. */
static int cached(const char *dir, char *name, size_t n, struct stat *st) {
  DIR *d = opendir(dir);
  cr_assert(ne(ptr, d, NULL), "no cache directory %s", dir);
  int k = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 3, ".so")) continue;
    if (!k++ && name) {
      snprintf(name, n, "%s", e->d_name);
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      cr_assert(eq(int, stat(path, st), 0));
    }
  }
  closedir(d);
  return k;
}

struct coll {
  const char *name;
  int data, reduces; /* moves data (-m); a reduction (--op matmul2 too) */
};

static const struct coll colls[] = {
    {"bcast", 1, 0},    {"reduce", 1, 1},  {"allreduce", 1, 1}, {"gather", 1, 0},
    {"scatter", 1, 0},  {"barrier", 0, 0}, {"allgather", 1, 0}, {"reduce_scatter", 1, 1},
    {"alltoall", 1, 0}, {"scan", 1, 1},    {"exscan", 1, 1},
};
#define NCOLLS (sizeof colls / sizeof *colls)

/* Parameters are indices into colls[] (Criterion copies them into the
 * test's process, where pointers would not hold). */
static int *coll_indices(void) {
  static int idx[NCOLLS];
  for (size_t i = 0; i < NCOLLS; i++) idx[i] = (int)i;
  return idx;
}

/* `run COLL ALGO -n 7 [-m 1000]` verified as `shown`; reductions again
 * with the non-commutative matmul2 on int64. */
static void runs_verified(const struct coll *c, const char *algo, const char *shown) {
  if (c->data)
    verified_as(CLI("run", c->name, algo, "-n", "7", "-m", "1000"), shown);
  else
    verified_as(CLI("run", c->name, algo, "-n", "7"), shown);
  if (c->reduces) {
    struct cli r =
        CLI("run", c->name, algo, "-n", "7", "-m", "1000", "--op", "matmul2", "--dtype", "int64");
    STARTS(field(r.out, "op"), "matmul2");
    verified_as(r, shown);
  }
}

/* ------------------------------------------------------------ 1. the templates */

ParameterizedTestParameters(templates, run_and_check) {
  return cr_make_param_array(int, coll_indices(), NCOLLS);
}

ParameterizedTest(int *i, templates, run_and_check, .timeout = 300) {
  const struct coll *c = &colls[*i];
  char file[64];
  snprintf(file, sizeof file, "template_%s.so", c->name);
  const char *so = plug(file);
  runs_verified(c, so, "template_algo");
  if (SANITIZED) /* the code paths at fewer rank counts; the plain build checks them all */
    check_passes(CLI("check", c->name, so, "--ranks", "1,2,5"));
  else
    check_passes(CLI("check", c->name, so));
}

/* Every collective of the registry has its template, in colls[] above. */
Test(templates, every_collective_has_one, .timeout = 30) {
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    size_t i = 0;
    while (i < NCOLLS && strcmp(colls[i].name, tutti_coll_name(c))) i++;
    cr_assert(lt(sz, i, NCOLLS), "collective %s has no row in colls[] (and a template?)",
              tutti_coll_name(c));
    cr_assert(eq(int, colls[i].data, (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0));
    cr_assert(eq(int, colls[i].reduces, (tutti_coll_traits(c) & TUTTI_COLL_REDUCES) != 0));
  }
}

/* ------------------------------------------------------------ 2. tutti new */

ParameterizedTestParameters(new_file, runs_and_checks) {
  return cr_make_param_array(int, coll_indices(), NCOLLS);
}

ParameterizedTest(int *i, new_file, runs_and_checks, .timeout = 300) {
  const struct coll *c = &colls[*i];
  struct sandbox s;
  sandbox_enter(&s);
  char name[64], file[80], quoted[80];
  snprintf(name, sizeof name, "my-%s", c->name); /* '-': a C identifier with '_' */
  snprintf(file, sizeof file, "./%s.c", name);
  snprintf(quoted, sizeof quoted, "\"%s\"", name);
  struct cli n = CLI("new", c->name, name);
  cr_assert(eq(int, n.status, 0), "new: %s", n.err);
  HAS(n.out, "wrote");
  cli_free(&n);
  char *text = read_file(file);
  HAS(text, quoted);
  cr_assert(eq(ptr, strstr(text, "template_algo"), NULL), "template_algo left in %s", file);
  free(text);
  runs_verified(c, file, name);
  check_passes(CLI("check", c->name, file, "--ranks", SANITIZED ? "1,3" : "1,2,3,5,7,16"));
  sandbox_leave(&s);
}

/* A C file compiles into the cache once; a change compiles it again. */
Test(new_file, cache_compiles_once, .timeout = 120) {
  struct sandbox s;
  sandbox_enter(&s);
  struct cli n = CLI("new", "bcast", "mine");
  cr_assert(eq(int, n.status, 0), "new: %s", n.err);
  cli_free(&n);
  verified_as(CLI("run", "bcast", "./mine.c", "-n", "5"), "mine");
  char first[256], again[256];
  struct stat st1, st2;
  cr_assert(eq(int, cached(s.cache, first, sizeof first, &st1), 1));
  STARTS(first, "mine-");
  verified_as(CLI("run", "bcast", "./mine.c", "-n", "6"), "mine");
  cr_assert(eq(int, cached(s.cache, again, sizeof again, &st2), 1));
  cr_assert(eq(str, again, first));
  cr_assert(eq(u64, (uint64_t)st2.st_ino, (uint64_t)st1.st_ino), "replaced");
  cr_assert(eq(i64, (int64_t)st2.st_mtim.tv_sec, (int64_t)st1.st_mtim.tv_sec));
  cr_assert(eq(i64, (int64_t)st2.st_mtim.tv_nsec, (int64_t)st1.st_mtim.tv_nsec));
  write_file("mine.c", "a", "/* edited */\n");
  verified_as(CLI("run", "bcast", "./mine.c", "-n", "5"), "mine");
  cr_assert(eq(int, cached(s.cache, NULL, 0, NULL), 2));
  sandbox_leave(&s);
}

Test(new_file, refusals, .timeout = 60) {
  struct sandbox s;
  sandbox_enter(&s);
  fails_with(CLI("new", "bcst", "x"), 2, "unknown collective 'bcst'");
  fails_with(CLI("new", "bcast", "9x"), 2, "'9x'");
  fails_with(CLI("new", "bcast", "a b"), 2, "'a b'");
  fails_with(CLI("new", "bcast", "binomial"), 2, "'binomial' is registered already");
  cr_assert(ne(int, access("x.c", F_OK), 0));
  cr_assert(ne(int, access("9x.c", F_OK), 0));
  cr_assert(ne(int, access("binomial.c", F_OK), 0));
  write_file("mine.c", "w", "keep me\n");
  fails_with(CLI("new", "bcast", "mine"), 2, "mine.c");
  fails_with(CLI("new", "reduce", "other", "mine.c"), 2, "mine.c");
  char *text = read_file("mine.c");
  cr_assert(eq(str, text, "keep me\n"), "mine.c was changed: %s", text);
  free(text);
  sandbox_leave(&s);
}

/* ------------------------------------------------------------ 3. --plugin, TUTTI_PLUGINS */

/* From "/": a file under the current directory would be shown as ./PATH. */
Test(select, list_shows_the_algorithm_and_its_file, .timeout = 30) {
  const char *so = plug("template_bcast.so");
  cr_assert(eq(int, chdir("/"), 0));
  struct cli c = CLI("list", "bcast", "--plugin", so);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  const char *algo = strstr(c.out, "\n  template_algo\n");
  cr_assert(ne(ptr, (void *)algo, NULL), "%s", c.out);
  HAS(algo, "k = 3: an integer in [2, 64]");
  STARTS(field(algo, "      from:"), "plugin ");
  STARTS(field(algo, "      from:") + 7, so);
  cli_free(&c);
  c = CLI("list", "bcast");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(ptr, strstr(c.out, "template_algo"), NULL), "listed without the plugin");
  cli_free(&c);
}

Test(select, by_name_with_parameters, .timeout = 60) {
  const char *so = plug("template_bcast.so");
  verified_as(CLI("run", "bcast", "template_algo:k=5", "--plugin", so, "-n", "8"),
              "template_algo:k=5\n");
  verified_as(CLI("run", "bcast", "template_algo", "--param", "k=7", "--plugin", so, "-n", "8"),
              "template_algo:k=7\n");
  char spec[PATH_MAX + 8];
  snprintf(spec, sizeof spec, "%s:k=4", so); /* the file, then its parameters */
  verified_as(CLI("run", "bcast", spec, "-n", "8"), "template_algo:k=4\n");
  fails_with(CLI("run", "bcast", "template_algo:k=99", "--plugin", so, "-n", "8"), 2,
             "parameter 'k': '99' is out of range; accepted: an integer in [2, 64]");
  fails_with(CLI("run", "bcast", "template_algo", "-n", "8"), 2, "template_algo");
}

Test(select, env_list_and_two_plugins, .timeout = 60) {
  const char *bc = plug("template_bcast.so"), *rs = plug("rsag.so");
  char env[2 * PATH_MAX + 32];
  snprintf(env, sizeof env, "TUTTI_PLUGINS=%s", bc);
  verified_as(CLI_ENV(env, "run", "bcast", "template_algo:k=5", "-n", "8"), "template_algo:k=5\n");
  fails_with(CLI_ENV(env, "run", "bcast", "template_algo:k=99", "-n", "8"), 2, "'k'");
  snprintf(env, sizeof env, "TUTTI_PLUGINS=%s::%s", bc, rs); /* an empty item is skipped */
  verified_as(CLI_ENV(env, "run", "reduce", "rsag", "-n", "8", "-m", "64"), "rsag");
  verified_as(CLI_ENV(env, "run", "bcast", "template_algo", "-n", "8"), "template_algo");
  verified_as(CLI("run", "reduce", "rsag", "--plugin", bc, "--plugin", rs, "-n", "8", "-m", "64"),
              "rsag");
  verified_as(CLI("run", "bcast", "template_algo", "--plugin", bc, "--plugin", rs, "-n", "8"),
              "template_algo");
}

/* ------------------------------------------------------------ 4. the tools */

Test(tools, suite_lists_the_plugin, .timeout = 300) {
  struct cli c = CLI("suite", "--plugin", plug("template_bcast.so"), "-n", "8", "-m", "1KiB");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  const char *t = strstr(c.out, "\nbcast, "), *end = t ? strstr(t + 1, "\n\n") : NULL;
  cr_assert(ne(ptr, (void *)end, NULL), "no bcast table: %s", c.out);
  const char *row = strstr(t, "template_algo:k=3");
  cr_assert(ne(ptr, (void *)row, NULL), "no template_algo row in %s", c.out);
  cr_assert(lt(ptr, (void *)row, (void *)end), "template_algo is not in the bcast table");
  const char *eol = strchr(row, '\n');
  cr_assert(eq(int, strncmp(eol - 3, "yes", 3), 0), "not verified: %.*s", (int)(eol - row), row);
  cli_free(&c);
}

Test(tools, sweep_rows, .timeout = 120) {
  struct cli c = CLI("sweep", "bcast", "--plugin", plug("template_bcast.so"), "--algos",
                     "template_algo,binomial", "--ranks", "4,8", "--sizes", "8,1KiB", "--csv", "-");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  int mine = 0, other = 0;
  for (char *l = strchr(c.out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
    int t = !strncmp(l + 1, "bcast,template_algo,template_algo:k=3,", 38);
    mine += t, other += !strncmp(l + 1, "bcast,binomial,", 15);
    if (t) { /* verified is the 11th column */
      const char *f = l + 1;
      for (int i = 0; i < 10; i++) f = strchr(f, ',') + 1;
      cr_assert(eq(int, strncmp(f, "true,", 5), 0), "not verified: %.80s", l + 1);
    }
  }
  cr_assert(eq(int, mine, 4), "%s", c.out);
  cr_assert(eq(int, other, 4), "%s", c.out);
  cli_free(&c);
}

Test(tools, compare_and_explain, .timeout = 60) {
  const char *so = plug("template_bcast.so");
  struct cli c = CLI("compare", "bcast", "binomial", so, "-n", "8");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "\nbinomial");
  HAS(c.out, "\ntemplate_algo:k=3 ");
  cr_assert(eq(int, count(c.out, "  yes\n"), 2), "%s", c.out);
  cli_free(&c);
  c = CLI("explain", "bcast", so, "-n", "8", "-m", "1000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  const char *cost = strstr(c.out, "== cost");
  cr_assert(ne(ptr, (void *)cost, NULL), "%s", c.out);
  STARTS(field(cost, "formula"), "sum of i (alpha + beta m) along the slowest path");
  double pv, mv;
  char pu[8], mu[8];
  cr_assert(eq(int, sscanf(field(cost, "predicts"), "%lf %7s", &pv, pu), 2), "%s", cost);
  cr_assert(eq(int, sscanf(field(cost, "measured"), "%lf %7s", &mv, mu), 2), "%s", cost);
  cr_assert(gt(dbl, mv, 0));
  cr_assert(epsilon_eq(dbl, pv * unit_scale(pu), mv * unit_scale(mu), 1e-12), "%s", cost);
  cli_free(&c);
}

Test(tools, run_outputs_and_modes, .timeout = 60) {
  const char *so = plug("template_bcast.so");
  char html[] = "/tmp/tutti_test_plugin_html_XXXXXX",
       trace[] = "/tmp/tutti_test_plugin_trace_XXXXXX";
  close(mkstemp(html)), close(mkstemp(trace));
  verified_as(CLI("run", "bcast", so, "-n", "8", "--html", html), "template_algo");
  char *text = read_file(html);
  HAS(text, "template_algo");
  free(text);
  verified_as(CLI("run", "bcast", so, "-n", "8", "--trace", trace), "template_algo");
  text = read_file(trace);
  struct jp p = json_ok(text);
  json_get(&p, "traceEvents");
  cr_assert(eq(int, count(text, "\"cat\":\"send\""), 7), "sends in the trace");
  cr_assert(gt(int, count(text, "\"cat\":\"message\""), 0), "no messages in the trace");
  free(text);
  unlink(html), unlink(trace);
  struct cli c = CLI("run", "bcast", so, "-n", "8", "-m", "1GiB", "--no-data");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  STARTS(field(c.out, "algorithm"), "template_algo");
  STARTS(field(c.out, "verified"), "not checked");
  cli_free(&c);
  verified_as(CLI("run", "bcast", so, "-n", "8", "-m", "1000", "--ranks-as", "fibers"),
              "template_algo");
}

/* tune -> rules file -> auto, with no --plugin on the last run. Under the
 * sanitizers the tune is timing only (--no-data): its winners and rules
 * are a data tune's (bench/CLI.md "Tune and `auto`"); a data tune of every
 * collective at 1 MiB is most of this file's time there, its code paths
 * are test_e2e_tune.c's, and the run of `auto` below still moves and
 * verifies rsag's data. */
Test(tools, tune_rules_auto, .timeout = 300) {
  const char *so = plug("rsag.so");
  char rules[] = "/tmp/tutti_test_plugin_rules_XXXXXX";
  close(mkstemp(rules));
  unlink(rules);
  struct cli c = CLI("tune", "--plugin", so, "--ranks", "8", "--sizes", "8,1MiB", "--rules-out",
                     rules, SANITIZED ? "--no-data" : NULL);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  char *text = read_file(rules), want[PATH_MAX + 16];
  snprintf(want, sizeof want, "\nplugin = %s\n", so);
  HAS(text, want);
  const char *red = strstr(text, "\n[reduce]\n"), *next = red ? strstr(red + 1, "\n[") : NULL;
  cr_assert(ne(ptr, (void *)next, NULL), "no [reduce] section: %s", text);
  const char *rule = strstr(red, "\n1048576.. = rsag\n");
  cr_assert(ne(ptr, (void *)rule, NULL), "rsag does not win 1 MiB: %s", text);
  cr_assert(lt(ptr, (void *)rule, (void *)next), "%s", text);
  free(text);
  c = CLI("run", "reduce", "auto", "--rules", rules, "-n", "8", "-m", "1MiB");
  HAS(c.out, "chose         rsag (by the rules file)");
  verified_as(c, "auto");
  unlink(rules);
}

/* ------------------------------------------------------------ 5. bad input */

Test(bad, missing_file_and_not_a_shared_object, .timeout = 30) {
  fails_with(CLI("list", "bcast", "--plugin", "/nonexistent/mine.so"), 2, "/nonexistent/mine.so");
  fails_with(CLI("run", "bcast", "/nonexistent/mine.so", "-n", "4"), 2, "No such file");
  fails_with(CLI("run", "bcast", "./nonexistent.c", "-n", "4"), 2, "./nonexistent.c");
  char dir[] = "/tmp/tutti_test_plugin_XXXXXX", so[64];
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  snprintf(so, sizeof so, "%s/x.so", dir);
  write_file(so, "w", "not a shared object\n");
  fails_with(CLI("list", "bcast", "--plugin", so), 2, "not a shared object");
  fails_with(CLI("run", "bcast", so, "-n", "4"), 2, so);
  unlink(so), rmdir(dir);
  /* a plugin without the collective's algorithm, or with several */
  fails_with(CLI("run", "bcast", plug("rsag.so"), "-n", "4"), 2, "registers no bcast algorithm");
  fails_with(CLI("run", "bcast", plug("fail.so"), "-n", "4"), 2, "registers 5 bcast algorithms");
}

static const struct {
  const char *file, *says;
} bad_cases[] = {
    {"bad_noentry.so", "not a tutti plugin"},
    {"bad_future.so", "newer"},
    {"bad_past.so", "older"},
    {"bad_minmax.so", "min"},
    {"bad_default.so", "default"},
    {"bad_dupparam.so", "twice"},
    {"bad_type.so", "unknown type"},
    {"bad_coll.so", "unknown collective"},
    {"bad_builtin.so", "registered already"},
    {"bad_twins.so", "registered already"},
    {"bad_partial.so", "min"},
    {"bad_init.so", "returned -7"},
};

Test(bad, every_bad_plugin, .timeout = 60) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
    const char *so = plug(bad_cases[i].file);
    cr_assert(eq(int, access(so, R_OK), 0), "%s was not built", so);
    struct cli c = CLI("list", "bcast", "--plugin", so);
    fails_with(c, 2, bad_cases[i].says);
    HAS(c.err, so);
    cli_free(&c);
  }
}

/* A plugin that adds a good algorithm, then a bad one, registers neither. */
Test(bad, partial_registers_nothing, .timeout = 30) {
  const char *so = plug("bad_partial.so");
  fails_with(CLI("list", "bcast", "--plugin", so), 2, "'partial'");
  fails_with(CLI("run", "bcast", "good", "--plugin", so, "-n", "4"), 2, "min");
  struct cli c = CLI("list", "bcast");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(ptr, strstr(c.out, "\n  good\n"), NULL), "%s", c.out);
  cr_assert(eq(ptr, strstr(c.out, "\n  partial\n"), NULL), "%s", c.out);
  cli_free(&c);
}

Test(bad, c_file_that_does_not_compile, .timeout = 60) {
  struct sandbox s;
  sandbox_enter(&s);
  write_file("broken.c", "w", "#include <tutti/plugin.h>\nint x = ;\n");
  struct cli c = CLI("run", "bcast", "./broken.c", "-n", "4");
  cr_assert(eq(int, c.status, 2), "exit %d: %s", c.status, c.err);
  HAS(c.err, "error");
  size_t len = strlen(c.err);
  cr_assert(gt(sz, len, 1));
  cr_assert(eq(chr, c.err[len - 1], '\n'));
  const char *last = c.err + len - 1;
  while (last > c.err && last[-1] != '\n') last--;
  cr_assert(lt(ptr, (void *)c.err, (void *)last), "the compiler said nothing: %s", c.err);
  STARTS(last, "tutti run:");
  HAS(last, "./broken.c");
  cli_free(&c);
  cr_assert(eq(int, cached(s.cache, NULL, 0, NULL), 0), "a broken file left an object");
  sandbox_leave(&s);
}

Test(bad, no_c_compiler, .timeout = 60) {
  struct sandbox s;
  sandbox_enter(&s);
  struct cli n = CLI("new", "bcast", "nocc");
  cr_assert(eq(int, n.status, 0), "new: %s", n.err);
  cli_free(&n);
  char unique[128];
  snprintf(unique, sizeof unique, "/* %d %ld */\n", (int)getpid(), (long)time(NULL));
  write_file("nocc.c", "a", unique);
  cr_assert(eq(int, mkdir("empty", 0755), 0));
  char path[128];
  snprintf(path, sizeof path, "%s/empty", s.dir);
  unsetenv("CC");
  cr_assert(eq(int, setenv("PATH", path, 1), 0)); /* inherited by the spawned tutti */
  struct cli c = CLI("run", "bcast", "./nocc.c", "-n", "4");
  sandbox_leave(&s);
  fails_with(c, 2, "apt-get install gcc");
  HAS(c.err, "nocc.c"); /* plugin.h: the sentence names the file */
  cli_free(&c);
}

Test(bad, check_usage, .timeout = 30) {
  fails_with(CLI("check", "bcst", plug("template_bcast.so")), 2, "unknown collective 'bcst'");
  fails_with(CLI("check", "bcast", "no-such-algorithm"), 2, "no-such-algorithm");
  fails_with(CLI("check"), 2, "ALGO");
}

/* ------------------------------------------------------------ 6. failures at run time */

/* `run bcast ALGO --plugin fail.so -n 4`: its exit status and stderr. */
static struct cli fail_run(const char *algo) {
  return CLI("run", "bcast", algo, "--plugin", plug("fail.so"), "-n", "4");
}

static void names_plugin(struct cli c, int status, const char *what) {
  char want[PATH_MAX + 32];
  snprintf(want, sizeof want, "(plugin %s)", plug("fail.so"));
  fails_with(c, status, what);
  HAS(c.err, want);
}

Test(runtime, rank_error, .timeout = 60) {
  struct cli c = fail_run("errs");
  names_plugin(c, 3, "rank 1 failed");
  HAS(c.err, "in bcast 'errs'");
  cli_free(&c);
}

Test(runtime, deadlock, .timeout = 60) {
  struct cli c = fail_run("hangs");
  names_plugin(c, 3, "deadlock");
  HAS(c.err, "in bcast 'hangs'");
  cli_free(&c);
}

Test(runtime, undeclared_parameter, .timeout = 60) {
  struct cli c = fail_run("undeclared");
  names_plugin(c, 3, "which read parameter 'fanout' it does not declare");
  HAS(c.err, "in bcast 'undeclared'");
  cli_free(&c);
}

Test(runtime, wrong_result, .timeout = 60) {
  struct cli c = fail_run("corrupts");
  cr_assert(eq(int, c.status, 1), "exit %d: %s", c.status, c.err);
  STARTS(field(c.out, "verified"), "NO");
  HAS(c.err, "verification failed: rank 3");
  cli_free(&c);
  c = CLI("check", "bcast", "corrupts", "--plugin", plug("fail.so"), "--ranks", "2,4");
  cr_assert(eq(int, c.status, 1), "exit %d: %s", c.status, c.err);
  HAS(c.out, "FAILED");
  HAS(c.out, "first failure: P = 2, root 0");
  cli_free(&c);
}

/* A registered message count is held to the engine's, as a cost is. */
Test(runtime, wrong_message_count, .timeout = 60) {
  struct cli c = CLI("check", "bcast", "miscounts", "--plugin", plug("fail.so"), "--ranks", "2,4");
  cr_assert(eq(int, c.status, 1), "exit %d: %s", c.status, c.err);
  HAS(c.out, "cost: the registered message count against the engine's messages");
  HAS(c.out,
      "first cost failure: messages, P = 2, root 0, 0 B: the engine sent 1, the count says 2");
  cli_free(&c);
}
