/*
 * test_e2e_results.c -- the results pages of bench/results/ that hold
 * modeled times only never go stale: each page's head names the command
 * that wrote it (`> Written by `tutti ...``); that command is run again
 * with this build and its output must equal the page, line by line, but
 * the lines quoted with "> " (the date, the machine, its load), which are
 * skipped on both sides (files it writes, --plot and --csv, go to
 * temporary files). Pages of wall-clock times are not re-run (they
 * say so in their head); every page must name its command and every
 * picture it shows must be there. Not under the sanitizers: the commands
 * are the benchmarks' full runs (tests/README.md "Sanitizers").
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"

#include "sanitized.h"

static char *read_all(const char *path) {
  FILE *f = fopen(path, "r");
  cr_assert(ne(ptr, f, NULL), "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  cr_assert(eq(sz, fread(s, 1, (size_t)n, f), (size_t)n));
  s[n] = '\0';
  fclose(f);
  return s;
}

/* The next line of *p that is neither quoted ("> ") nor a picture ("![":
 * the re-run draws into a temporary file), cut at its end; NULL at the
 * end. */
static char *next_line(char **p) {
  while (**p) {
    char *s = *p, *nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    *p = nl ? nl + 1 : s + strlen(s);
    if (strncmp(s, "> ", 2) && strcmp(s, ">") && strncmp(s, "![", 2)) return s;
  }
  return NULL;
}

/* The page's command: the words inside "Written by `...`" (`tutti ...`,
 * or `mpirun -n P tutti-mpi ...` for the MPI backend's pages). */
static int page_command(const char *page, char *cmd, size_t n) {
  const char *w = strstr(page, "> Written by `");
  if (!w) return 0;
  w += strlen("> Written by `");
  const char *end = strchr(w, '`');
  cr_assert(ne(ptr, (void *)end, NULL));
  snprintf(cmd, n, "%.*s", (int)(end - w), w);
  return 1;
}

static void check_page(const char *dir, const char *name) { /* dir: at most 4095 */
  char path[8192], cmd[2048];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *page = read_all(path);
  cr_assert(page_command(page, cmd, sizeof cmd), "%s names no command (> Written by `...`)", name);
  /* every picture it shows is beside it */
  for (const char *img = strstr(page, "]("); img; img = strstr(img + 2, "](")) {
    char file[256];
    if (sscanf(img + 2, "%255[^)]", file) == 1 && strstr(file, ".svg")) {
      snprintf(path, sizeof path, "%s/%s", dir, file);
      cr_expect(eq(int, access(path, R_OK), 0), "%s shows %s, which is not there", name, file);
    }
  }
  if (!strstr(page, "> Modeled, the same on any machine")) { /* wall-clock: not re-run */
    free(page);
    return;
  }
  /* a modeled page is the `tutti` command's; the files it writes (--plot,
   * --csv) go to temporary files, not over the committed ones */
  cr_assert(eq(int, strncmp(cmd, "tutti ", 6), 0), "%s: a modeled page names a `tutti ...` command",
            name);
  const char *args[64];
  char tmp[4][64];
  int n = 0, ntmp = 0;
  for (char *t = strtok(cmd + 6, " "); t; t = strtok(NULL, " ")) {
    cr_assert(lt(int, n, 62));
    args[n++] = t;
    if ((!strcmp(t, "--plot") || !strcmp(t, "--csv")) && (t = strtok(NULL, " "))) {
      cr_assert(lt(int, ntmp, 4));
      const char *dot = strrchr(t, '.');
      snprintf(tmp[ntmp], sizeof tmp[ntmp], "/tmp/tutti_results_%d_%d%s", (int)getpid(), ntmp,
               dot ? dot : "");
      args[n++] = tmp[ntmp++];
    }
  }
  args[n] = NULL;
  struct cli c = run_env(NULL, args);
  for (int i = 0; i < ntmp; i++) unlink(tmp[i]);
  cr_assert(eq(int, c.status, 0), "%s: exit %d: %s", name, c.status, c.err);
  char *p = page, *q = c.out, *a, *b;
  int line = 0;
  while ((a = next_line(&p)), (b = next_line(&q)), a || b) {
    line++;
    cr_assert(ne(ptr, a, NULL), "%s: the run printed more than the page: '%s'", name, b);
    cr_assert(ne(ptr, b, NULL), "%s: the run ends before the page's '%s'", name, a);
    cr_assert(eq(str, b, a), "%s: line %d (not counting the quoted lines): write the page anew",
              name, line);
  }
  cli_free(&c);
  free(page);
}

Test(results, every_page_is_what_its_command_prints, .timeout = 600) {
  if (SANITIZED) cr_skip("the benchmarks' full runs: the plain build checks the pages");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/bench/results", getenv("TUTTI_SOURCE_DIR"));
  DIR *d = opendir(dir);
  cr_assert(ne(ptr, d, NULL), "cannot open %s", dir);
  int pages = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".md") || !strcmp(e->d_name, "README.md")) continue;
    check_page(dir, e->d_name);
    pages++;
  }
  closedir(d);
  cr_assert(ge(int, pages, 5), "only %d results pages", pages);
}
