/*
 * test_unit_cli_calls.c -- the `tutti` command's files call down, not
 * around (bench/cli.h): main.c dispatches to the commands, a command file
 * (one that defines a tutti_cli_* entry point) calls no function defined
 * in another command file, and no other file of bench/ calls into a
 * command file at all -- the pieces commands share live in lower modules
 * (cli_exec.c, cli_opts.c, cli_html.c, ...), which call no command.
 *
 * Read from the sources (the .c files of $TUTTI_SOURCE_DIR/bench, not of
 * its subfolders, which are other programs): each file's comments, strings
 * and character constants are blanked; a function it defines is a line at
 * column 0 that is not static, names an identifier before its first '(',
 * and reaches a '{' before a ';'; a call is any other mention of that name
 * as a whole word (a call, or its address taken). A failure names the
 * file and line, the function and the command file that defines it.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source_scan.h"

#define MAX_FILES 128
#define MAX_DEFS 2048

struct file {
  char name[256];
  char *code; /* the text with comments and literals blanked, lines kept */
  int command;
};

struct def {
  char fn[128];
  int file;
};

static struct file files[MAX_FILES];
static struct def defs[MAX_DEFS];
static int nfiles, ndefs;

static int is_ident(int c) {
  return isalnum(c) || c == '_';
}

/* The functions file i defines, as described at the top. */
static void find_defs(int i) {
  const char *s = files[i].code;
  for (const char *line = s; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
    if (!isalpha((unsigned char)*line) && *line != '_') continue;
    if (!strncmp(line, "static", 6) && !is_ident(line[6])) continue;
    const char *eol = strchr(line, '\n'), *paren = strchr(line, '(');
    if (!paren || (eol && paren > eol)) continue;
    const char *e = paren;
    while (e > line && e[-1] == ' ') e--;
    const char *b = e;
    while (b > line && is_ident((unsigned char)b[-1])) b--;
    if (b == e || (size_t)(e - b) >= sizeof defs[0].fn) continue;
    size_t brace = strcspn(paren, "{"), semi = strcspn(paren, ";");
    if (!paren[brace] || brace > semi) continue; /* a declaration */
    cr_assert(ndefs < MAX_DEFS, "more than %d functions in bench/", MAX_DEFS);
    struct def *d = &defs[ndefs++];
    memcpy(d->fn, b, (size_t)(e - b));
    d->fn[e - b] = '\0';
    d->file = i;
    if (!strncmp(d->fn, "tutti_cli_", 10)) files[i].command = 1;
  }
}

/* The first mention of fn in file i as a whole word, as a line number
 * (0: none). */
static int mentions(int i, const char *fn) {
  const char *s = files[i].code;
  size_t n = strlen(fn);
  for (const char *p = s; (p = strstr(p, fn)) != NULL; p += n) {
    if ((p > s && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)p[n])) continue;
    int line = 1;
    for (const char *q = s; q < p; q++) line += *q == '\n';
    return line;
  }
  return 0;
}

static void load(void) {
  const char *src = getenv("TUTTI_SOURCE_DIR");
  cr_assert(src && *src, "TUTTI_SOURCE_DIR is not set (ctest sets it)");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/bench", src);
  DIR *d = opendir(dir);
  cr_assert(d != NULL, "cannot open %s", dir);
  nfiles = ndefs = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || strcmp(e->d_name + n - 2, ".c")) continue;
    char path[8192];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) || !S_ISREG(st.st_mode)) continue;
    cr_assert(nfiles < MAX_FILES, "more than %d files in bench/", MAX_FILES);
    struct file *f = &files[nfiles++];
    snprintf(f->name, sizeof f->name, "%s", e->d_name);
    f->code = src_slurp(path);
    f->command = 0;
    src_blank(f->code, 1);
  }
  closedir(d);
  for (int i = 0; i < nfiles; i++) find_defs(i);
}

static int file_index(const char *name) {
  for (int i = 0; i < nfiles; i++)
    if (!strcmp(files[i].name, name)) return i;
  return -1;
}

static const char *defined_in(const char *fn) {
  for (int k = 0; k < ndefs; k++)
    if (!strcmp(defs[k].fn, fn)) return files[defs[k].file].name;
  return NULL;
}

static void unload(void) {
  for (int i = 0; i < nfiles; i++) free(files[i].code);
  nfiles = ndefs = 0;
}

/* The reading itself: it finds what the tree is known to hold, so that
 * the check below cannot pass by finding nothing. */
Test(cli_calls, the_sources_are_read, .timeout = 30) {
  load();
  int commands = 0;
  for (int i = 0; i < nfiles; i++) commands += files[i].command;
  cr_expect(commands >= 8, "%d command files found in bench/; expected every cli_<command>.c",
            commands);
  const char *want[][2] = {{"tutti_cli_run", "cli_run.c"},  {"tutti_cli_tree", "cli_list.c"},
                           {"cli_exec", "cli_exec.c"},      {"cli_fail", "cli_opts.c"},
                           {"cli_page_fill", "cli_html.c"}, {"cli_rules", "cli_world.c"},
                           {"cli_job_make", "cli_exec.c"},  {"cli_print_links", "cli_links.c"}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    const char *at = defined_in(want[k][0]);
    cr_expect(at && !strcmp(at, want[k][1]), "%s: found defined in %s; expected in bench/%s",
              want[k][0], at ? at : "no file", want[k][1]);
  }
  cr_expect(defined_in("wall_now") == NULL, "a static function was taken for a shared one");
  int exec = file_index("cli_exec.c");
  cr_expect(exec >= 0 && !files[exec].command, "cli_exec.c is read as a command file");
  unload();
}

Test(cli_calls, commands_call_down_not_around, .timeout = 30) {
  load();
  int main_c = file_index("main.c");
  cr_assert(main_c >= 0, "bench/main.c not found");
  for (int k = 0; k < ndefs; k++) {
    const struct def *d = &defs[k];
    if (!files[d->file].command) continue;
    int entry = !strncmp(d->fn, "tutti_cli_", 10);
    for (int i = 0; i < nfiles; i++) {
      if (i == d->file || (i == main_c && entry)) continue;
      int line = mentions(i, d->fn);
      if (!line) continue;
      if (entry)
        cr_expect(0,
                  "bench/%s:%d calls %s, the entry point of the command file bench/%s; "
                  "accepted: only main.c dispatches to a command (TUTTI_COMMANDS)",
                  files[i].name, line, d->fn, files[d->file].name);
      else
        cr_expect(0,
                  "bench/%s:%d calls %s, defined in the command file bench/%s; accepted: a "
                  "call down to a lower module (move %s into one, cli.h), none around to "
                  "another command's file",
                  files[i].name, line, d->fn, files[d->file].name, d->fn);
    }
  }
  /* one dispatch table: main.c reaches every command */
  for (int k = 0; k < ndefs; k++)
    if (!strncmp(defs[k].fn, "tutti_cli_", 10))
      cr_expect(mentions(main_c, defs[k].fn), "%s (bench/%s) is not in main.c's TUTTI_COMMANDS",
                defs[k].fn, files[defs[k].file].name);
  unload();
}
