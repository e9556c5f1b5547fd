/*
 * test_e2e_labs.c -- the labs of bench/labs/ never go stale: every fenced
 * block of a lab whose first line is "$ tutti ARGS" is re-run with this
 * build's tutti (ARGS split at blanks; the values of --csv, --plot and --html go to
 * a temporary file instead of the lab's folder; it runs in the lab's
 * folder, as a reader runs it), and its standard output
 * must equal the block's remaining lines, line by line -- but the lines
 * that measure the machine, not the model ("wall time", "split", "rank
 * CPU"), which are skipped on both sides. A changed figure fails naming the
 * lab file and its line.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"

static const char *const lab_files[] = {"01-trees.md", "02-pipelines.md", "03-mapping.md",
                                        "04-allreduce.md", "05-your-own.md"};

/* Lines that depend on the machine's speed, not on the model. */
static int volatile_line(const char *s, size_t n) {
  static const char *const pre[] = {"wall time ", "split ", "rank CPU "};
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
    if (n >= strlen(pre[i]) && !strncmp(s, pre[i], strlen(pre[i]))) return 1;
  return 0;
}

static char *read_lab(const char *name, char *path, size_t n) {
  const char *src = getenv("TUTTI_SOURCE_DIR");
  cr_assert(ne(ptr, (void *)src, NULL), "TUTTI_SOURCE_DIR is not set");
  snprintf(path, n, "%s/bench/labs/%s", src, name);
  FILE *f = fopen(path, "r");
  cr_assert(ne(ptr, f, NULL), "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *text = malloc((size_t)len + 1);
  cr_assert(eq(sz, fread(text, 1, (size_t)len, f), (size_t)len));
  text[len] = '\0';
  fclose(f);
  return text;
}

/* Run one command line ("tutti a b c") and compare with the lab's lines
 * want[0..nwant), which start at line `first` of `lab`. */
static void check_block(const char *lab, int cmdline, char *cmd, char **want, const int *wantno,
                        int nwant) {
  const char *args[64];
  int n = 0;
  char tmp[3][64];
  int ntmp = 0;
  for (char *t = strtok(cmd + strlen("tutti"), " "); t; t = strtok(NULL, " ")) {
    cr_assert(lt(int, n, 60), "%s:%d: too many arguments", lab, cmdline);
    args[n++] = t;
    if ((!strcmp(t, "--csv") || !strcmp(t, "--plot") || !strcmp(t, "--html")) &&
        (t = strtok(NULL, " "))) {
      cr_assert(lt(int, ntmp, 3), "%s:%d: too many output files", lab, cmdline);
      const char *dot = strrchr(t, '.');
      snprintf(tmp[ntmp], sizeof tmp[ntmp], "/tmp/tutti_lab_%d_%d%s", (int)getpid(), ntmp,
               dot ? dot : "");
      args[n++] = tmp[ntmp++];
    }
  }
  args[n] = NULL;
  struct cli c = run_env(NULL, args);
  for (int i = 0; i < ntmp; i++) unlink(tmp[i]);
  cr_assert(eq(int, c.status, 0), "%s:%d: exit %d: %s", lab, cmdline, c.status, c.err);
  /* the output's lines, volatile ones dropped */
  int k = 0;
  char *p = c.out;
  for (int i = 0; i < nwant; i++) {
    if (volatile_line(want[i], strlen(want[i]))) continue;
    char *nl;
    for (;;) {
      cr_assert(ne(chr, *p, '\0'), "%s:%d: the output ends before this line: '%s'", lab, wantno[i],
                want[i]);
      nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      if (!volatile_line(p, len)) break;
      p += len + (nl != NULL);
    }
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    cr_assert(len == strlen(want[i]) && !strncmp(p, want[i], len),
              "%s:%d: the lab says '%s', the run printed '%.*s' (command on line %d)", lab,
              wantno[i], want[i], (int)len, p, cmdline);
    p += len + (nl != NULL);
    k++;
  }
  while (*p) { /* anything left must be volatile */
    char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    cr_assert(volatile_line(p, len), "%s:%d: the run printed more than the lab shows: '%.*s'", lab,
              cmdline, (int)len, p);
    p += len + (nl != NULL);
  }
  cr_assert(gt(int, k, 0), "%s:%d: a command without output in the lab", lab, cmdline);
  cli_free(&c);
}

static void check_lab(const char *name) {
  char path[4096], cache[64];
  /* lab 5 compiles its C file: into a cache of this test's, not the user's */
  snprintf(cache, sizeof cache, "/tmp/tutti_lab_cache_%d", (int)getpid());
  setenv("TUTTI_CACHE_DIR", cache, 1);
  char *text = read_lab(name, path, sizeof path);
  /* the commands run in the lab's folder, as a reader runs them (lab 3 reads its profile) */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  *strrchr(dir, '/') = '\0';
  cr_assert(eq(int, chdir(dir), 0), "cannot enter %s", dir);
  enum { MAXL = 4096 };
  char **line = calloc(MAXL, sizeof *line);
  int nlines = 0;
  for (char *s = text; s && nlines < MAXL;) {
    line[nlines++] = s;
    char *nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    s = nl ? nl + 1 : NULL;
  }
  int blocks = 0, *no = calloc(MAXL, sizeof *no);
  for (int i = 0; i + 1 < nlines; i++) {
    if (strncmp(line[i], "```", 3) || strncmp(line[i + 1], "$ tutti ", 8)) continue;
    int j = i + 2;
    while (j < nlines && strncmp(line[j], "```", 3)) j++;
    cr_assert(lt(int, j, nlines), "%s:%d: the block does not end", name, i + 1);
    for (int k = i + 2; k < j; k++) no[k] = k + 1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s", line[i + 1] + 2);
    check_block(name, i + 2, cmd, line + i + 2, no + i + 2, j - i - 2);
    blocks++;
    i = j;
  }
  cr_assert(gt(int, blocks, 0), "%s: no `$ tutti` block", path);
  free(no);
  free(line);
  free(text);
}

Test(labs, lab1_trees, .timeout = 300) {
  check_lab(lab_files[0]);
}
Test(labs, lab2_pipelines, .timeout = 300) {
  check_lab(lab_files[1]);
}
Test(labs, lab3_mapping, .timeout = 300) {
  check_lab(lab_files[2]);
}
Test(labs, lab4_allreduce, .timeout = 300) {
  check_lab(lab_files[3]);
}
Test(labs, lab5_your_own, .timeout = 300) {
  check_lab(lab_files[4]);
}

/* Lab 5's C file is what `tutti new bcast kary lab5-kary.c` writes today. */
Test(labs, lab5_file_is_the_template, .timeout = 60) {
  char path[4096], dir[] = "/tmp/tutti_lab5_XXXXXX", made[4200];
  char *want = read_lab("lab5-kary.c", path, sizeof path);
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  snprintf(made, sizeof made, "%s/lab5-kary.c", dir);
  struct cli c = CLI("new", "bcast", "kary", made);
  cr_assert(eq(int, c.status, 0), "tutti new: %s", c.err);
  FILE *f = fopen(made, "r");
  cr_assert(ne(ptr, f, NULL));
  char got[16384];
  size_t n = fread(got, 1, sizeof got - 1, f);
  got[n] = '\0';
  fclose(f);
  unlink(made);
  rmdir(dir);
  cr_expect(eq(str, got, want),
            "bench/labs/lab5-kary.c differs from what `tutti new bcast kary lab5-kary.c` writes: "
            "write it anew");
  cli_free(&c);
  free(want);
}

/* The index names every lab, and every lab's picture is there. */
Test(labs, index_and_pictures, .timeout = 60) {
  char path[4096];
  char *idx = read_lab("README.md", path, sizeof path);
  for (size_t i = 0; i < sizeof lab_files / sizeof *lab_files; i++) {
    HAS(idx, lab_files[i]);
    char *t = read_lab(lab_files[i], path, sizeof path);
    char *img = strstr(t, "](lab");
    cr_assert(ne(ptr, img, NULL), "%s has no picture", lab_files[i]);
    char svg[64];
    cr_assert(eq(int, sscanf(img + 2, "%63[^)]", svg), 1));
    free(read_lab(svg, path, sizeof path));
    free(t);
  }
  free(idx);
}
