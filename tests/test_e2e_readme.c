/*
 * test_e2e_readme.c -- the README's algorithm table is the registry's:
 * the block between "<!-- tutti list --markdown -->" and its end marker in
 * README.md must equal what `tutti list --markdown` prints now. A new
 * algorithm, a renamed one or a changed cost fails here until the table is
 * regenerated (paste the command's output between the markers).
 *
 * $TUTTI_SOURCE_DIR and $TUTTI_BINARY_DIR are set by tests/CMakeLists.txt.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEGIN "<!-- tutti list --markdown -->\n"
#define END "<!-- end of tutti list --markdown -->\n"

/* All of a stream, NUL-terminated. */
static char *slurp(FILE *f) {
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  cr_assert(buf != NULL);
  while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
    if ((n += got) + 1 == cap) cr_assert((buf = realloc(buf, cap *= 2)) != NULL);
  buf[n] = '\0';
  return buf;
}

static const char *env_dir(const char *name) {
  const char *d = getenv(name);
  cr_assert(d && *d, "%s is not set (ctest sets it; run the test through ctest)", name);
  return d;
}

Test(readme, algorithm_table_is_the_registry, .timeout = 60) {
  char path[4096];
  snprintf(path, sizeof path, "%s/README.md", env_dir("TUTTI_SOURCE_DIR"));
  FILE *f = fopen(path, "r");
  cr_assert(f != NULL, "cannot open %s", path);
  char *readme = slurp(f);
  fclose(f);
  snprintf(path, sizeof path, "'%s/tutti' list --markdown", env_dir("TUTTI_BINARY_DIR"));
  FILE *p = popen(path, "r");
  cr_assert(p != NULL);
  char *table = slurp(p);
  cr_assert(pclose(p) == 0, "%s failed", path);
  cr_assert(strstr(table, "| bcast | `binomial`") != NULL, "unexpected output: %s", table);

  char *a = strstr(readme, BEGIN), *b = a ? strstr(a, END) : NULL;
  cr_assert(a && b, "README.md lacks the markers " BEGIN " ... " END);
  a += strlen(BEGIN);
  *b = '\0';
  cr_expect(strcmp(a, table) == 0,
            "README.md's algorithm table differs from `tutti list --markdown`; paste its output "
            "between the markers.\nREADME:\n%s\ntutti:\n%s",
            a, table);
  free(readme);
  free(table);
}
