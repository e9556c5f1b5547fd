/*
 * test_unit_promises.c -- what the public headers promise about errors, a
 * test asserts.
 *
 * A promise is a TUTTI_E* code named in the comment of a public function's
 * declaration in a header of include/tutti/ (the comment that ends just before its
 * TUTTI_API line, or the comment on the line of its last parameter):
 * "0, or TUTTI_EINVAL (bad root)". A test covers the pair (function, code)
 * when one function of a test source (tests/test_*.c, tests/fuzz/ and
 * tests/mpi/) names the code and the function, each itself or through a
 * function of its file that it names (a callback, a helper), outside
 * comments. Every pair must be covered,
 * and every code of TUTTI_ERRNO_MAP must be named by some test. The table
 * of pairs and the first test covering each is printed on stdout (`ctest
 * -V -R test_unit_promises`); a failure names the header line, the
 * function and the code that no test asserts.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_scan.h"
#include "tutti/p2p.h"

#define MAX_PAIRS 1024
#define MAX_UNITS 16384

struct pair {
  char header[32], fn[64], code[32];
  int line;
};

struct unit { /* one function of a test source, comments blanked */
  char file[64], name[96];
  const char *body;
  size_t len;
};

static struct pair pairs[MAX_PAIRS];
static struct unit units[MAX_UNITS];
static int npairs, nunits;

static int is_ident(int c) {
  return isalnum(c) || c == '_';
}

static const char *src_dir(void) {
  const char *s = getenv("TUTTI_SOURCE_DIR");
  if (!s || !*s) cr_skip("TUTTI_SOURCE_DIR is not set (run through ctest)");
  return s;
}

/* Does [s, s + n) name word as a whole identifier? */
static int names(const char *s, size_t n, const char *word) {
  size_t w = strlen(word);
  for (const char *p = s; p + w <= s + n && (p = memmem(p, (size_t)(s + n - p), word, w)); p++)
    if ((p == s || !is_ident(p[-1])) && (p + w == s + n || !is_ident(p[w]))) return 1;
  return 0;
}

/* The error codes named in [s, e): TUTTI_E followed by capitals, not
 * by '_' (TUTTI_EAGER_ALL is a size). */
static void add_codes(const char *hdr, int line, const char *fn, const char *s, const char *e) {
  for (const char *p = s; p < e && (p = strstr(p, "TUTTI_E")) && p < e; p++) {
    if (p > s && is_ident(p[-1])) continue;
    const char *q = p + 7;
    while (q < e && isupper((unsigned char)*q)) q++;
    if (q == p + 7 || (q < e && (*q == '_' || is_ident(*q)))) continue;
    char code[32];
    snprintf(code, sizeof code, "%.*s", (int)(q - p), p);
    int seen = 0;
    for (int i = 0; i < npairs; i++)
      seen |= !strcmp(pairs[i].fn, fn) && !strcmp(pairs[i].code, code);
    if (seen) continue;
    cr_assert(npairs < MAX_PAIRS);
    struct pair *x = &pairs[npairs++];
    snprintf(x->header, sizeof x->header, "%s", hdr);
    snprintf(x->fn, sizeof x->fn, "%s", fn);
    snprintf(x->code, sizeof x->code, "%s", code);
    x->line = line;
  }
}

/* The pairs of one header: for each "TUTTI_API ... name(" at a line's
 * start, the comment ending right before it (only blank space between)
 * and the rest of the declaration's last line. */
static void read_header(const char *dir, const char *name) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *txt = src_slurp(path);
  for (char *p = txt; (p = strstr(p, "TUTTI_API ")); p++) {
    if (p > txt && p[-1] != '\n') continue;
    char *paren = strchr(p, '('), *semi = strpbrk(p, ";{");
    if (!paren || !semi || paren > semi) continue;
    char *e = paren;
    while (e > p && e[-1] == ' ') e--;
    char *b = e;
    while (b > p && is_ident(b[-1])) b--;
    char fn[64];
    snprintf(fn, sizeof fn, "%.*s", (int)(e - b), b);
    int line = 1;
    for (char *c = txt; c < p; c++) line += *c == '\n';
    /* the comment before: "*" "/" then only white space up to p */
    char *c = p;
    while (c > txt && isspace((unsigned char)c[-1])) c--;
    if (c - txt >= 2 && c[-1] == '/' && c[-2] == '*') {
      char *open = c - 2, *bol;
      while (open > txt && !(open[0] == '/' && open[1] == '*')) open--;
      for (bol = open; bol > txt && (bol[-1] == ' ' || bol[-1] == '\t');) bol--;
      if (bol == txt || bol[-1] == '\n') /* not the trailing comment of a line of code */
        add_codes(name, line, fn, open, c);
    }
    char *eol = strchr(semi, '\n');
    add_codes(name, line, fn, semi, eol ? eol : semi + strlen(semi));
  }
  free(txt);
}

/* The top-level functions of one test source: a '{' at depth 0 after a
 * ')' opens one; its name is the identifier before the matching '('
 * (Criterion's Test(suite, name) gives "suite, name"). */
static void read_tests(const char *dir, const char *name) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *txt = src_slurp(path);
  src_blank(txt, 0);
  int depth = 0;
  char *open = NULL;
  for (char *p = txt; *p; p++) {
    if (*p == '"' || *p == '\'') { /* skip literals */
      char q = *p;
      for (p++; *p && *p != q; p++)
        if (*p == '\\' && p[1]) p++;
      if (!*p) break;
      continue;
    }
    if (*p == '{' && depth++ == 0) open = p;
    if (*p == '}' && --depth == 0 && open) {
      char *r = open;
      while (r > txt && isspace((unsigned char)r[-1])) r--;
      if (r > txt && r[-1] == ')') {
        int d = 0;
        char *q = r - 1;
        for (; q > txt; q--) {
          d += *q == ')';
          d -= *q == '(';
          if (!d) break;
        }
        char *e = q, *b = q;
        while (b > txt && is_ident(b[-1])) b--;
        cr_assert(nunits < MAX_UNITS);
        struct unit *u = &units[nunits++];
        snprintf(u->file, sizeof u->file, "%s", name);
        if (!strncmp(b, "Test", 4) && b + 4 == e) { /* Test(suite, name, ...) */
          char *comma = strchr(e, ',');
          char *end = comma ? strpbrk(comma + 1, ",)") : NULL;
          snprintf(u->name, sizeof u->name, "%.*s", end ? (int)(end - e - 1) : 4, e + 1);
        } else
          snprintf(u->name, sizeof u->name, "%.*s", (int)(e - b), b);
        u->body = open;
        u->len = (size_t)(p - open + 1);
      }
      open = NULL;
    }
  }
  /* the text stays alive: units point into it */
}

static void read_dir(const char *dir, const char *prefix, void (*fn)(const char *, const char *)) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strncmp(e->d_name, prefix, strlen(prefix))) continue;
    if (strcmp(e->d_name + len - 2, fn == read_header ? ".h" : ".c")) continue;
    fn(dir, e->d_name);
  }
  closedir(d);
}

static void load(void) {
  const char *src = src_dir();
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/include/tutti", src);
  read_dir(dir, "", read_header);
  snprintf(dir, sizeof dir, "%s/tests", src);
  read_dir(dir, "test_", read_tests);
  snprintf(dir, sizeof dir, "%s/tests/fuzz", src);
  read_dir(dir, "", read_tests);
  snprintf(dir, sizeof dir, "%s/tests/mpi", src);
  read_dir(dir, "", read_tests);
}

/* Does u name word, itself or through a function of its file that it
 * names (a callback, a helper)? */
static int reaches(const struct unit *u, const char *word) {
  if (names(u->body, u->len, word)) return 1;
  for (int k = 0; k < nunits; k++)
    if (&units[k] != u && !strcmp(units[k].file, u->file) && !strchr(units[k].name, ',') &&
        names(u->body, u->len, units[k].name) && names(units[k].body, units[k].len, word))
      return 1;
  return 0;
}

Test(promises, every_documented_error_of_a_function_is_asserted, .timeout = 60) {
  load();
  cr_assert(gt(int, npairs, 50), "only %d promises found: has the header format changed?", npairs);
  cr_assert(gt(int, nunits, 500));
  int missing = 0;
  for (int i = 0; i < npairs; i++) {
    const struct pair *x = &pairs[i];
    const struct unit *by = NULL;
    for (int k = 0; k < nunits && !by; k++)
      if (reaches(&units[k], x->code) && reaches(&units[k], x->fn)) by = &units[k];
    printf("%s:%d %s %s -> %s%s%s\n", x->header, x->line, x->fn, x->code, by ? by->file : "NONE",
           by ? ":" : "", by ? by->name : "");
    if (!by) {
      missing++;
      cr_expect(0, "include/tutti/%s:%d: %s promises %s, and no test asserts it", x->header,
                x->line, x->fn, x->code);
    }
  }
  printf("%d promises, %d covered\n", npairs, npairs - missing);
}

Test(promises, every_error_code_is_asserted, .timeout = 60) {
  load();
  int codes = 0;
#define X(name, value, text)                                                                       \
  do {                                                                                             \
    int hit = 0;                                                                                   \
    for (int k = 0; k < nunits && !hit; k++)                                                       \
      hit = names(units[k].body, units[k].len, "TUTTI_" #name);                                    \
    cr_expect(hit, "no test names TUTTI_" #name);                                                  \
    codes++;                                                                                       \
  } while (0);
  TUTTI_ERRNO_MAP(X)
#undef X
  cr_assert(gt(int, codes, 10));
}
