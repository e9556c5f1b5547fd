/*
 * test_e2e_readme.c -- the README is true: a front page of at most 250
 * lines; every fenced block whose first line is "$ tutti ARGS" is re-run
 * with this build (from a scratch folder; --csv, --plot and --html go to
 * temporary files) and its output must equal the block's remaining lines
 * (the lines that measure the machine -- "wall time", "split", "rank
 * CPU" -- skipped on both sides); the commands of "Your own algorithm" run
 * as written, in a folder of their own; the library example compiles
 * against include/ and runs; every file the README links to exists.
 *
 * $TUTTI_SOURCE_DIR and $TUTTI_BINARY_DIR are set by tests/CMakeLists.txt.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_helpers.h"

#include "sanitized.h"

static const char *env_dir(const char *name) {
  const char *d = getenv(name);
  cr_assert(d && *d, "%s is not set (ctest sets it; run the test through ctest)", name);
  return d;
}

static char *read_readme(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/README.md", env_dir("TUTTI_SOURCE_DIR"));
  FILE *f = fopen(path, "r");
  cr_assert(ne(ptr, f, NULL), "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  cr_assert(eq(sz, fread(s, 1, (size_t)n, f), (size_t)n));
  s[n] = '\0';
  fclose(f);
  return s;
}

/* The README cut into lines (the text is changed in place). */
static int lines_of(char *text, char **line, int max) {
  int n = 0;
  for (char *s = text; s && *s && n < max;) {
    line[n++] = s;
    char *nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    s = nl ? nl + 1 : NULL;
  }
  return n;
}

static int volatile_line(const char *s) {
  return !strncmp(s, "wall time ", 10) || !strncmp(s, "split ", 6) || !strncmp(s, "rank CPU ", 9);
}

static void scratch_dir(char *dir, size_t n) {
  snprintf(dir, n, "/tmp/tutti_readme_XXXXXX");
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  cr_assert(eq(int, chdir(dir), 0));
  char cache[4200];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("TUTTI_CACHE_DIR", cache, 1);
}

Test(readme, a_front_page, .timeout = 30) {
  char *text = read_readme(), *line[1024];
  int n = lines_of(text, line, 1024);
  cr_assert(le(int, n, 250), "README.md has %d lines; a front page has at most 250", n);
  /* no measurement log, no word of how it was made */
  for (int i = 0; i < n; i++) {
    cr_expect(eq(ptr, strstr(line[i], "issue "), NULL), "README.md:%d: %s", i + 1, line[i]);
    cr_expect(eq(ptr, strstr(line[i], "load average"), NULL), "README.md:%d: %s", i + 1, line[i]);
    cr_expect(eq(ptr, strstr(line[i], "this session"), NULL), "README.md:%d: %s", i + 1, line[i]);
  }
  free(text);
}

Test(readme, every_command_prints_what_it_shows, .timeout = 300) {
  char *text = read_readme(), *line[1024], dir[64];
  int n = lines_of(text, line, 1024), blocks = 0;
  scratch_dir(dir, sizeof dir);
  for (int i = 0; i + 1 < n; i++) {
    if (strncmp(line[i], "```", 3) || strncmp(line[i + 1], "$ tutti ", 8)) continue;
    int j = i + 2;
    while (j < n && strncmp(line[j], "```", 3)) j++;
    cr_assert(lt(int, j, n), "README.md:%d: the block does not end", i + 1);
    char cmd[4096], tmp[3][128];
    const char *args[64];
    int na = 0, nt = 0;
    snprintf(cmd, sizeof cmd, "%s", line[i + 1] + strlen("$ tutti "));
    for (char *t = strtok(cmd, " "); t; t = strtok(NULL, " ")) {
      cr_assert(lt(int, na, 62));
      args[na++] = t;
      if ((!strcmp(t, "--csv") || !strcmp(t, "--plot") || !strcmp(t, "--html")) &&
          (t = strtok(NULL, " "))) {
        cr_assert(lt(int, nt, 3));
        snprintf(tmp[nt], sizeof tmp[nt], "%s/out%d%s", dir, nt, strrchr(t, '.') ?: "");
        args[na++] = tmp[nt++];
      }
    }
    args[na] = NULL;
    struct cli c = run_env(NULL, args);
    cr_assert(eq(int, c.status, 0), "README.md:%d: exit %d: %s", i + 2, c.status, c.err);
    char *p = c.out;
    for (int k = i + 2; k < j; k++) {
      if (volatile_line(line[k])) continue;
      char *nl;
      size_t len;
      for (;;) {
        cr_assert(ne(chr, *p, '\0'), "README.md:%d: the output ends before '%s'", k + 1, line[k]);
        nl = strchr(p, '\n');
        len = nl ? (size_t)(nl - p) : strlen(p);
        char save = p[len];
        p[len] = '\0';
        int skip = volatile_line(p);
        p[len] = save;
        if (!skip) break;
        p += len + (nl != NULL);
      }
      cr_assert(len == strlen(line[k]) && !strncmp(p, line[k], len),
                "README.md:%d: the README says '%s', the run printed '%.*s'", k + 1, line[k],
                (int)len, p);
      p += len + (nl != NULL);
    }
    while (*p) { /* anything left must be volatile */
      char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      char save = p[len];
      p[len] = '\0';
      cr_assert(volatile_line(p), "README.md:%d: the run printed more than shown: '%s'", i + 2, p);
      p[len] = save;
      p += len + (nl != NULL);
    }
    cli_free(&c);
    blocks++;
    i = j;
  }
  cr_assert(ge(int, blocks, 4), "only %d command blocks in the README", blocks);
  free(text);
}

/* "Your own algorithm": the indented lines "tutti ..." of that section,
 * run in order in a folder of their own (comments after '#' dropped). */
Test(readme, your_own_algorithm_as_written, .timeout = 600) {
  char *text = read_readme(), *line[1024], dir[64];
  int n = lines_of(text, line, 1024), i = 0, ran = 0;
  while (i < n && strcmp(line[i], "## Your own algorithm")) i++;
  cr_assert(lt(int, i, n), "the README has no \"## Your own algorithm\"");
  scratch_dir(dir, sizeof dir);
  for (i++; i < n && strncmp(line[i], "## ", 3); i++) {
    if (strncmp(line[i], "    tutti ", 10)) continue;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s", line[i] + 10);
    char *hash = strchr(cmd, '#');
    if (hash) *hash = '\0';
    const char *args[64];
    int na = 0;
    for (char *t = strtok(cmd, " "); t; t = strtok(NULL, " ")) args[na++] = t;
    /* the sanitizers' builds keep to a short check and no tune */
    if (SANITIZED && !strcmp(args[0], "tune")) continue;
    if (SANITIZED && !strcmp(args[0], "check")) args[na++] = "--ranks", args[na++] = "1,2,3";
    args[na] = NULL;
    struct cli c = run_env(NULL, args);
    cr_assert(eq(int, c.status, 0), "README.md:%d: exit %d: %s", i + 1, c.status, c.err);
    cli_free(&c);
    ran++;
  }
  cr_assert(ge(int, ran, SANITIZED ? 4 : 5), "ran %d commands", ran);
  free(text);
}

/* The example under "## Using the library" (the indented block), compiled
 * against include/ and linked with libtutti.so, runs and exits 0. */
Test(readme, the_library_example_runs, .timeout = 120) {
  if (SANITIZED) cr_skip("built against the plain libtutti.so; the sanitizers' builds have none");
  char *text = read_readme(), *line[1024], dir[64], src[128], bin[128], cmd[16384];
  int n = lines_of(text, line, 1024), i = 0;
  while (i < n && strcmp(line[i], "## Using the library")) i++;
  cr_assert(lt(int, i, n), "the README has no \"## Using the library\"");
  scratch_dir(dir, sizeof dir);
  snprintf(src, sizeof src, "%s/example.c", dir);
  snprintf(bin, sizeof bin, "%s/example", dir);
  FILE *f = fopen(src, "w");
  cr_assert(ne(ptr, f, NULL));
  int code = 0;
  for (i++; i < n && strncmp(line[i], "## ", 3); i++) {
    if (!strncmp(line[i], "    ", 4))
      fprintf(f, "%s\n", line[i] + 4), code++;
    else if (line[i][0] == '\0' && code)
      fprintf(f, "\n");
    else if (code)
      break; /* the first indented block only */
  }
  fclose(f);
  cr_assert(gt(int, code, 5), "no example code");
  snprintf(cmd, sizeof cmd,
           "cc -std=gnu11 -Wall -Werror -I%s/include -o %s %s -L%s -ltutti -Wl,-rpath,%s && %s",
           env_dir("TUTTI_SOURCE_DIR"), bin, src, env_dir("TUTTI_BINARY_DIR"),
           env_dir("TUTTI_BINARY_DIR"), bin);
  cr_assert(eq(int, system(cmd), 0), "the README's example does not build or run: %s", cmd);
  free(text);
}

/* Every file a link of the README names exists. */
Test(readme, every_link_is_there, .timeout = 30) {
  char *text = read_readme();
  int links = 0;
  for (const char *l = strstr(text, "]("); l; l = strstr(l + 2, "](")) {
    char target[512], path[4700];
    struct stat st;
    if (sscanf(l + 2, "%511[^)#]", target) != 1 || strstr(target, "://")) continue;
    snprintf(path, sizeof path, "%s/%s", env_dir("TUTTI_SOURCE_DIR"), target);
    cr_expect(eq(int, stat(path, &st), 0), "the README links to %s, which is not there", target);
    links++;
  }
  cr_assert(ge(int, links, 10), "only %d links", links);
  free(text);
}
