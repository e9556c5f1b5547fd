/*
 * tune_mpi.h -- what the MPI libraries' runs of the rules `tutti tune`
 * writes share (test_e2e_tune_mpi.c: Open MPI, test_e2e_tune_mpich.c:
 * MPICH): a scratch folder, shell commands with their output, the tune of
 * the grid (6 and 8 ranks; 8 B, 64 KiB, 1 MiB; the gige profile), the
 * probe program and library built, the calls of a run; and MPICH's
 * selection file read into a tree (test_e2e_tune_rules.c checks its
 * form). Needs Criterion and cli_helpers.h.
 */
#ifndef TUTTI_TESTS_TUNE_MPI_H
#define TUTTI_TESTS_TUNE_MPI_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int Ps[] = {6, 8};
static const long sizes[] = {8, 65536, 1048576};
#define SIZES "8,64KiB,1MiB"
static const char *const colls[] = {"bcast",     "reduce",         "allreduce",
                                    "gather",    "scatter",        "barrier",
                                    "allgather", "reduce_scatter", "reduce_scatter_block",
                                    "alltoall",  "scan",           "exscan"};
#define NCOLL 12

static char dir[] = "/tmp/tutti-tune-mpi-XXXXXX";
static char src[512];

static inline int in_path(const char *prog) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
  return system(cmd) == 0;
}

/* The text of a file (NULL if it cannot be read). */
static inline char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = malloc((size_t)n + 1);
  cr_assert(t != NULL);
  t[fread(t, 1, (size_t)n, f)] = '\0';
  fclose(f);
  return t;
}

/* Run a shell command, its output (stdout and stderr) into *out. */
__attribute__((format(printf, 2, 3))) static inline int sh(char **out, const char *fmt, ...) {
  char cmd[8192], path[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  snprintf(path, sizeof path, "%s/out.txt", dir);
  char full[sizeof cmd + sizeof path + 32];
  snprintf(full, sizeof full, "(%s) > %s 2>&1", cmd, path);
  int rc = system(full);
  *out = read_text(path);
  cr_assert(ne(ptr, *out, NULL));
  return rc;
}

static inline void setup(void) {
  cr_assert(mkdtemp(dir) != NULL);
  const char *s = getenv("TUTTI_SOURCE_DIR");
  snprintf(src, sizeof src, "%s", s && *s ? s : ".");
}

static inline void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert(eq(int, system(cmd), 0));
}

/* tutti tune over the grid, writing FILE flag's file dir/name, the rules
 * file dir/rules.ini, and (plugin) with tests/plugins/knomial.c. */
static inline void tune(const char *flag, const char *name, const char *ranks, const char *model,
                        int plugin) {
  char out[600], rules[600], plug[600], env[700];
  snprintf(out, sizeof out, "%s/%s", dir, name);
  snprintf(rules, sizeof rules, "%s/rules.ini", dir);
  snprintf(plug, sizeof plug, "%s/tests/plugins/knomial.c", src);
  snprintf(env, sizeof env, "TUTTI_CACHE_DIR=%s/cache", dir);
  struct cli c = plugin ? CLI_ENV(env, "tune", "--ranks", ranks, "--sizes", "8", "--model", model,
                                  "--no-data", "--plugin", plug, flag, out)
                        : CLI_ENV(env, "tune", "--ranks", ranks, "--sizes", SIZES, "--profile",
                                  model, "--no-data", flag, out, "--rules-out", rules);
  cr_assert(eq(int, c.status, 0), "tune: %s", c.err);
  cli_free(&c);
}

/* The probe program built with `cc` (an MPI compiler wrapper) as dir/exe,
 * and a probe library as dir/lib.so. */
static inline void build(const char *cc, const char *exe, const char *lib) {
  char *o;
  int rc = sh(&o, "%s -O1 -o %s/%s %s/tests/mpi/rules_probe.c", cc, dir, exe, src);
  cr_assert(eq(int, rc, 0), "%s: %s", cc, o);
  free(o);
  rc = sh(&o, "cc -O1 -shared -fPIC -o %s/%s.so %s/tests/mpi/%s.c -ldl", dir, lib, src, lib);
  cr_assert(eq(int, rc, 0), "cc %s.c: %s", lib, o);
  free(o);
}

/* The calls of one run: every collective at every size (barrier at 0). */
static inline void phases(char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  for (int c = 0; c < NCOLL; c++)
    for (int s = 0; s < 3; s++) {
      if (!strcmp(colls[c], "barrier") && s) break;
      k += (size_t)snprintf(buf + k, n - k, " %s:%ld", colls[c],
                            strcmp(colls[c], "barrier") ? sizes[s] : 0L);
    }
}

/* ------------------------------------------------ MPICH's selection file */

/* MPICH's JSON as its reader (csel.c) takes it: C comments skipped,
 * every value an object, keys in order. */
/* A node of the selection tree: a key and the object it opens. */
struct jn {
  char key[160];
  int n;
  struct jn *kid;
};

static inline void jskip(const char **p) {
  for (;;) {
    while (isspace((unsigned char)**p) || **p == ',' || **p == ':') (*p)++;
    if ((*p)[0] != '/' || (*p)[1] != '*') return;
    const char *e = strstr(*p + 2, "*/");
    cr_assert(e != NULL, "an unclosed comment");
    *p = e + 2;
  }
}

/* The members of the object at *p (every value an object: csel's form). */
static inline struct jn *jobject(const char **p, int *n) {
  jskip(p);
  cr_assert(eq(chr, **p, '{'), "not an object at '%.30s'", *p);
  (*p)++;
  struct jn *v = NULL;
  int cap = 0;
  *n = 0;
  for (jskip(p); **p != '}'; jskip(p)) {
    cr_assert(eq(chr, **p, '"'), "not a key at '%.30s'", *p);
    if (*n == cap) {
      cap = cap ? 2 * cap : 8;
      v = realloc(v, (size_t)cap * sizeof *v);
      cr_assert(v != NULL);
    }
    struct jn *x = &v[(*n)++];
    size_t len = strcspn(*p + 1, "\"");
    snprintf(x->key, sizeof x->key, "%.*s", (int)len, *p + 1);
    *p += len + 2;
    x->kid = jobject(p, &x->n);
  }
  (*p)++;
  return v;
}

static inline void jfree(struct jn *v, int n) {
  for (int i = 0; i < n; i++) jfree(v[i].kid, v[i].n);
  free(v);
}

#endif
