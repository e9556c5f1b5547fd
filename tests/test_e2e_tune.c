/*
 * test_e2e_tune.c -- `tutti tune` and the files it writes (bench/CLI.md
 * "Tune and auto", "Rules files"): the round trip (tune -> rules file ->
 * `run COLL auto --rules` runs the rule's algorithm, for every collective
 * of the registry, at every measured (P, m) and between them), the winner
 * no slower than any registered algorithm at its defaults (a sweep, run
 * separately), the schemas of the table and the rules file, a
 * timing-only tune (--no-data) writing the same rules, and bad flags. The
 * rules API, every collective's model choice and bad rules files:
 * test_e2e_tune_auto.c; the MPI libraries' files: test_e2e_tune_rules.c,
 * and the libraries running them: test_e2e_tune_mpi.c (Open MPI),
 * test_e2e_tune_mpich.c (MPICH).
 *
 * Under the sanitizers, where a tune is several times slower (most of it
 * the larger rank count's worlds), the tunes measure 3 and 5 ranks
 * instead of 3 and 8, the timing-only tune is compared on the topology
 * and eager profile only (the plain build also on the default profile).
 * Under ThreadSanitizer, which is here for tune's parallel groups, the
 * round trip and the counts between are not run: they start a hundred
 * and more single-threaded `tutti run`s and check choices, which the
 * plain and AddressSanitizer builds check.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "json_reader.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#define RANKS "3,5"
static const int ranks[] = {3, 5}, between = 4; /* a count between the two */
#else
#define SANITIZED 0
#define RANKS "3,8"
static const int ranks[] = {3, 8}, between = 5;
#endif
#ifdef __SANITIZE_THREAD__
#define TSAN 1
#else
#define TSAN 0
#endif
#define SIZES "8,4KiB,64KiB"
static const size_t sizes[] = {8, 4096, 65536};
#define NR 2
#define NS 3

/* ------------------------------------------------------- a rules reader */

/* The test's own reading of a rules file: per collective and rank count,
 * the ranges in file order. */
struct rrule {
  int coll, ranks;
  size_t lo, hi; /* hi SIZE_MAX: open */
  char spec[256];
};

static int read_rules(const char *path, struct rrule *v, int max) {
  FILE *f = fopen(path, "r");
  cr_assert(f != NULL, "no rules file %s", path);
  char line[1024];
  int n = 0, coll = -1, R = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char name[64];
    unsigned long long lo, hi;
    int off = 0;
    if (!line[0] || line[0] == ';') continue;
    if (sscanf(line, "[%63[^]]]", name) == 1) {
      cr_assert(eq(int, tutti_coll_find(name, &coll), 0), "section [%s] is not a collective", name);
      R = 0;
    } else if (sscanf(line, "ranks = %d", &R) == 1) {
      cr_assert(coll >= 0 && R >= 1, "bad line '%s'", line);
    } else if (sscanf(line, "%llu..%llu = %n", &lo, &hi, &off) == 2 && off) {
      cr_assert(n < max && R);
      v[n] = (struct rrule){coll, R, lo, hi, ""};
      snprintf(v[n++].spec, sizeof v->spec, "%s", line + off);
    } else if (sscanf(line, "%llu.. = %n", &lo, &off) == 1 && off) {
      cr_assert(n < max && R);
      v[n] = (struct rrule){coll, R, lo, SIZE_MAX, ""};
      snprintf(v[n++].spec, sizeof v->spec, "%s", line + off);
    } else {
      cr_fatal("rules file line not understood: '%s'", line);
    }
  }
  fclose(f);
  return n;
}

/* The rule of (coll, P = a measured count, m): the one whose range holds m. */
static const struct rrule *rule_for(const struct rrule *v, int n, int coll, int P, size_t m) {
  for (int i = 0; i < n; i++)
    if (v[i].coll == coll && v[i].ranks == P && m >= v[i].lo && m <= v[i].hi) return &v[i];
  return NULL;
}

static char dir[] = "/tmp/tutti-tune-XXXXXX";
static char rules_path[128];
static struct cli tuned; /* the one tune run the tests share */

static void setup(void) {
  cr_assert(mkdtemp(dir) != NULL);
  snprintf(rules_path, sizeof rules_path, "%s/rules.ini", dir);
  tuned = CLI("tune", "--ranks", RANKS, "--sizes", SIZES, "--rules-out", rules_path);
  cr_assert(eq(int, tuned.status, 0), "tune failed: %s", tuned.err);
}

static void teardown(void) {
  cli_free(&tuned);
  unlink(rules_path), rmdir(dir);
}

static const char *size_arg(size_t m, char *buf) {
  sprintf(buf, "%zu", m);
  return buf;
}

/* `tutti run COLL auto` on P ranks and m bytes (none for barrier) with
 * rules (NULL: none), its JSON parsed. */
static struct cli run_auto(int coll, int P, size_t m, const char *rules, struct jp *j) {
  char n[16], b[32];
  sprintf(n, "%d", P);
  int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
  const char *args[16] = {"run", tutti_coll_name(coll), "auto", "-n", n, "--json"};
  int k = 6;
  if (data) args[k++] = "-m", args[k++] = size_arg(m, b);
  if (rules) args[k++] = "--rules", args[k++] = rules;
  args[k] = NULL;
  struct cli c = run_env(NULL, args);
  cr_assert(eq(int, c.status, 0), "run %s auto -n %d: %s", tutti_coll_name(coll), P, c.err);
  *j = json_ok(c.out);
  return c;
}

/* A JSON string value without its quotes. */
static void jstr(const struct jp *j, const char *key, char *out, size_t n) {
  const char *v = json_get(j, key);
  cr_assert(eq(chr, *v, '"'), "%s is not a string", key);
  size_t len = strcspn(v + 1, "\"");
  snprintf(out, n, "%.*s", (int)len, v + 1);
}

/* ------------------------------------------------------------ the round trip */

Test(tune, rules_file_schema, .init = setup, .fini = teardown, .timeout = 120) {
  struct rrule v[512];
  int n = read_rules(rules_path, v, 512);
  for (int c = 0; c < TUTTI_COLL_N; c++)
    for (int r = 0; r < NR; r++) {
      /* the ranges of (c, P) start at 0, follow each other, the last open */
      size_t next = 0;
      int count = 0, open = 0;
      for (int i = 0; i < n; i++) {
        if (v[i].coll != c || v[i].ranks != ranks[r]) continue;
        cr_assert(open == 0, "%s P=%d: a range after an open one", tutti_coll_name(c), ranks[r]);
        cr_assert(eq(sz, v[i].lo, next), "%s P=%d: a gap or overlap at %zu", tutti_coll_name(c),
                  ranks[r], v[i].lo);
        open = v[i].hi == SIZE_MAX;
        next = v[i].hi + 1;
        count++;
        const tutti_algo_t *a;
        char err[512];
        cr_assert(eq(int, tutti_algo_select(c, v[i].spec, NULL, &a, err, sizeof err), 0),
                  "rule '%s': %s", v[i].spec, err);
        cr_assert(tutti_algo_is_auto(tutti_algo_desc(a)) == 0, "a rule names auto");
        /* a bucket boundary is a measured size */
        int measured = v[i].lo == 0;
        for (int s = 0; s < NS; s++) measured |= sizes[s] == v[i].lo;
        cr_assert(measured, "range starts at %zu, not a measured size", v[i].lo);
      }
      cr_assert(count >= 1 && open, "%s P=%d: %d rules, open end %d", tutti_coll_name(c), ranks[r],
                count, open);
    }
}

Test(tune, table_schema, .init = setup, .fini = teardown, .timeout = 120) {
  struct rrule v[512];
  int n = read_rules(rules_path, v, 512);
  /* a header, then one row per rule, in the file's order */
  char *save, *line = strtok_r(tuned.out, "\n", &save);
  cr_assert(line && strstr(line, "tutti tune"), "first line: %s", line);
  line = strtok_r(NULL, "\n", &save);
  HAS(line, "model:");
  line = strtok_r(NULL, "\n", &save);
  for (const char *col = "collective\0ranks\0bytes\0time\0lead\0winner\0"; *col;
       col += strlen(col) + 1)
    HAS(line, col);
  int rows = 0;
  while ((line = strtok_r(NULL, "\n", &save))) {
    char coll[32], pr[32], br[64], tok[16][300];
    cr_assert(eq(int, sscanf(line, "%31s %31s %63s", coll, pr, br), 3), "row: %s", line);
    int nt = 0, used = 0, len;
    while (nt < 16 && sscanf(line + used, "%299s%n", tok[nt], &len) == 1) nt++, used += len;
    cr_assert(lt(int, rows, n), "more rows than rules");
    const struct rrule *r = &v[rows++];
    cr_assert(eq(str, coll, (char *)tutti_coll_name(r->coll)), "row %d: %s", rows, line);
    char want[32];
    int ri = r->ranks == ranks[0] ? 0 : 1;
    if (ri + 1 < NR)
      sprintf(want, "%d..%d", r->ranks, ranks[ri + 1] - 1);
    else
      sprintf(want, "%d..", r->ranks);
    cr_assert(eq(str, pr, want), "row %d ranks: %s", rows, line);
    /* bytes: the rule's range, as the file writes it */
    char want_b[64];
    if (r->hi == SIZE_MAX)
      sprintf(want_b, "%zu..", r->lo);
    else
      sprintf(want_b, "%zu..%zu", r->lo, r->hi);
    cr_assert(eq(str, br, want_b), "bytes column: %s", line);
    /* then the time (a number and a unit, or a range), the lead (a
     * percentage, or '-' when nothing else ran), the winner, the runner-up */
    int k = 3;
    while (k < nt && !strchr(tok[k], '%') && strcmp(tok[k], "-")) k++;
    cr_assert(lt(int, k + 1, nt), "no lead and winner: %s", line);
    cr_assert(gt(int, k, 4), "no time: %s", line);
    cr_assert(eq(str, tok[k + 1], (char *)r->spec), "row %d winner: %s (rule %s)", rows, line,
              r->spec);
    if (strcmp(tok[k], "-")) {
      cr_assert(ge(dbl, strtod(tok[k], NULL), 0.0), "lead: %s", line);
      cr_assert(eq(int, nt, k + 3), "no runner-up: %s", line);
    }
  }
  cr_assert(eq(int, rows, n), "%d rows, %d rules", rows, n);
}

/* For every collective, every measured (P, m): `auto --rules` runs the
 * rule's algorithm, in the time the algorithm itself takes, and that time
 * is no worse than any registered algorithm's at its defaults. */
Test(tune, round_trip_every_collective, .init = setup, .fini = teardown, .timeout = 240,
     .disabled = TSAN) {
  struct rrule v[512];
  int n = read_rules(rules_path, v, 512), checked = 0;
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0;
    for (int r = 0; r < NR; r++) {
      int P = ranks[r];
      char pn[16];
      sprintf(pn, "%d", P);
      struct cli sw =
          data ? CLI("sweep", tutti_coll_name(c), "--ranks", pn, "--sizes", SIZES, "--json")
               : CLI("sweep", tutti_coll_name(c), "--ranks", pn, "--json");
      cr_assert(eq(int, sw.status, 0), "sweep: %s", sw.err);
      for (int s = 0; s < (data ? NS : 1); s++) {
        size_t m = data ? sizes[s] : 0;
        const struct rrule *rule = rule_for(v, n, c, P, m);
        cr_assert(rule != NULL, "no rule for %s P=%d m=%zu", tutti_coll_name(c), P, m);
        struct jp j;
        struct cli a = run_auto(c, P, m, rules_path, &j);
        char chose[256], why[1024];
        jstr(&j, "auto_chose", chose, sizeof chose);
        jstr(&j, "auto_why", why, sizeof why);
        cr_assert(eq(str, chose, (char *)rule->spec), "%s P=%d m=%zu: auto ran %s, rule %s",
                  tutti_coll_name(c), P, m, chose, rule->spec);
        HAS(why, rules_path);
        double ta = json_num(&j, "modeled_time");
        /* the rule's algorithm run by name takes the same time */
        char b[32];
        const char *args[12] = {"run", tutti_coll_name(c), rule->spec, "-n", pn, "--json"};
        int k = 6;
        if (data) args[k++] = "-m", args[k++] = size_arg(m, b);
        args[k] = NULL;
        struct cli d = run_env(NULL, args);
        cr_assert(eq(int, d.status, 0), "%s", d.err);
        struct jp jd = json_ok(d.out);
        cr_assert(eq(dbl, json_num(&jd, "modeled_time"), ta), "%s: auto %g, by name %g", rule->spec,
                  ta, json_num(&jd, "modeled_time"));
        /* no registered algorithm at its defaults is faster (the sweep's rows) */
        char key[64];
        snprintf(key, sizeof key, "\"ranks\":%d,\"bytes\":%zu,", P, m);
        int rows = 0;
        for (const char *p = sw.out; (p = strstr(p, key)); p++, rows++) {
          const char *t = strstr(p, "\"modeled_time\":");
          cr_assert(t != NULL);
          double x = strtod(t + 15, NULL);
          if (strncmp(t + 15, "null", 4)) cr_assert(ge(dbl, x, ta * (1 - 1e-12)), "%g < %g", x, ta);
        }
        cr_assert(gt(int, rows, 1), "the sweep has no rows for %s", key);
        cli_free(&a), cli_free(&d);
        checked++;
      }
      cli_free(&sw);
    }
  }
  cr_assert(eq(int, checked, (TUTTI_COLL_N - 1) * NR * NS + NR), "checked %d", checked);
}

/* Between and around the measured counts: the nearest rank count at or
 * below P; below every one, the model choice. */
Test(tune, ranks_between_and_below, .init = setup, .fini = teardown, .timeout = 120,
     .disabled = TSAN) {
  struct rrule v[512];
  int n = read_rules(rules_path, v, 512);
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0;
    const int Ps[] = {2, between, 20}; /* below, between and above */
    const int at[] = {0, ranks[0], ranks[1]};
    for (int i = 0; i < 3; i++) {
      size_t m = data ? 1000 : 0; /* between measured sizes: the bucket holding it */
      struct jp j;
      struct cli a = run_auto(c, Ps[i], m, rules_path, &j);
      char chose[256], why[1024];
      jstr(&j, "auto_chose", chose, sizeof chose);
      jstr(&j, "auto_why", why, sizeof why);
      if (!at[i]) {
        cr_assert(eq(ptr, strstr(why, "rule"), NULL), "P=%d: %s", Ps[i], why);
      } else {
        const struct rrule *rule = rule_for(v, n, c, at[i], m);
        cr_assert(rule != NULL);
        char want[32];
        sprintf(want, "ranks >= %d", at[i]);
        HAS(why, want);
        /* a rule measured at a power of two may name an algorithm that
         * cannot run at this P (allgather recursive-doubling): auto says so
         * and takes the model's choice */
        if (!strstr(why, "cannot run here"))
          cr_assert(eq(str, chose, (char *)rule->spec), "%s P=%d: %s, want %s", tutti_coll_name(c),
                    Ps[i], chose, rule->spec);
      }
      cli_free(&a);
    }
  }
}

/* ------------------------------------------------------------ --no-data */

/* The lines of a text without those holding `skip` (NULL: none). */
static char *without(const char *text, const char *skip) {
  char *out = calloc(strlen(text) + 1, 1), *o = out;
  cr_assert(ne(ptr, out, NULL));
  for (const char *l = text; *l;) {
    size_t len = strcspn(l, "\n");
    size_t adv = len + (l[len] == '\n');
    int drop = 0;
    for (const char *p = l; skip && p + strlen(skip) <= l + len && !drop; p++)
      drop = !strncmp(p, skip, strlen(skip));
    if (!drop) memcpy(o, l, adv), o += adv;
    l += adv;
  }
  return out;
}

static char *slurp_path(const char *path) {
  int fd = open(path, O_RDONLY);
  cr_assert(fd >= 0, "cannot open %s", path);
  char *t = slurp(fd);
  close(fd);
  return t;
}

/* A timing-only tune measures bit-identical modeled times (runtime/MODEL.md
 * "Timing-only runs"), so it writes the same rules and the same table,
 * times and leads included, but for the lines that say it checked
 * nothing: under the default profile, and under an eager profile on a
 * topology (link contention, both protocols). */
Test(tune, no_data_same_rules, .timeout = 240) {
  char d[] = "/tmp/tutti-tune-nd-XXXXXX";
  cr_assert(mkdtemp(d) != NULL);
  char pd[128], pn[128];
  snprintf(pd, sizeof pd, "%s/data.ini", d);
  snprintf(pn, sizeof pn, "%s/nodata.ini", d);
  const char *const extra[][5] = {{NULL},
                                  {"--profile", "infiniband-hdr", "--topology", "tree:2x4", NULL}};
  for (int e = SANITIZED; e < 2; e++) { /* the header comment */
    const char *args[16] = {"tune", "--ranks", RANKS, "--sizes", SIZES, "--rules-out"};
    int k = 6;
    args[k++] = pd;
    for (int x = 0; extra[e][x]; x++) args[k++] = extra[e][x];
    args[k] = NULL;
    struct cli a = run_env(NULL, args);
    args[6] = pn, args[k++] = "--no-data", args[k] = NULL;
    struct cli b = run_env(NULL, args);
    cr_assert(eq(int, a.status, 0), "tune: %s", a.err);
    cr_assert(eq(int, b.status, 0), "tune --no-data: %s", b.err);
    /* the table: the header says timing only, every row the same */
    HAS(b.out, "timing only (--no-data");
    cr_assert(eq(ptr, strstr(a.out, "--no-data"), NULL), "a data tune says --no-data");
    char *ta = without(strchr(a.out, '\n'), NULL), *tb = without(strchr(b.out, '\n'), NULL);
    cr_assert(eq(str, ta, tb), "tables differ past the heading (extra set %d)", e);
    /* the rules file: one more comment line, the rest byte for byte */
    char *ra = slurp_path(pd), *rb = slurp_path(pn), *rb2 = without(rb, "--no-data");
    HAS(rb, "; timing only (--no-data)");
    cr_assert(ne(str, ra, rb));
    cr_assert(eq(str, ra, rb2), "rules files differ (extra set %d)", e);
    cr_assert(gt(sz, strlen(ra), (size_t)100));
    free(ta), free(tb), free(ra), free(rb), free(rb2);
    cli_free(&a), cli_free(&b);
  }
  unlink(pd), unlink(pn), rmdir(d);
}

Test(tune, bad_flags, .timeout = 60) {
  struct cli c = CLI("run", "bcast", "auto", "--rules", "/nonexistent/rules.ini");
  fails_with(c, 2, "/nonexistent/rules.ini: cannot open");
  cli_free(&c);
  c = CLI("tune", "--ranks", "0");
  fails_with(c, 2, "--ranks");
  cli_free(&c);
  c = CLI("tune", "--ranks", "4..2x");
  fails_with(c, 2, "--ranks");
  cli_free(&c);
  c = CLI("tune", "--sizes", "8..zz");
  fails_with(c, 2, "--sizes");
  cli_free(&c);
  c = CLI("tune", "--ranks", "2", "--sizes", "8", "--rules-out", "/nonexistent/dir/r.ini");
  fails_with(c, 2, "--rules-out");
  cli_free(&c);
  const char *libs[] = {"--ompi-rules", "--ompi-rules-json", "--mpich-rules"};
  for (int i = 0; i < 3; i++) {
    c = CLI("tune", "--ranks", "2", "--sizes", "8", libs[i], "/nonexistent/dir/o.txt");
    fails_with(c, 2, libs[i]);
    cli_free(&c);
  }
  c = CLI("tune", "--ranks", "2", "--sizes", "8", "--ompi-rules", "x", "--mpich-rules", "./x");
  fails_with(c, 2, "--ompi-rules and --mpich-rules both write");
  cli_free(&c);
  c = CLI("tune", "--algos", "flat");
  fails_with(c, 2, "--algos");
  cli_free(&c);
  c = CLI("tune", "--rules", "x.ini"); /* tune measures; it does not follow rules */
  fails_with(c, 2, "--rules");
  cli_free(&c);
  c = CLI("tune", "--ranks", "2", "--model", "nosuch");
  fails_with(c, 2, "--model");
  cli_free(&c);
  c = CLI("tune", "--ranks", "2", "--model", "none", "--no-data");
  fails_with(c, 2, "--no-data: the none model has no modeled time");
  cli_free(&c);
  c = CLI("tune", "--no-data=1");
  fails_with(c, 2, "--no-data takes no value");
  cli_free(&c);
}
