/*
 * test_e2e_manpage.c -- the man page (bench/tutti.1.scd) names every
 * command and every flag the program documents: it runs `tutti --help`,
 * then `tutti CMD --help` for every command that lists, and `tutti bench
 * NAME --help` for every benchmark `tutti bench --help` lists, takes every
 * --long and -s flag they print, and asserts that each appears in the
 * scdoc source as a whole token. A flag added to the program without a
 * line in the man page fails here, naming the flag and the command.
 *
 * The source tree is $TUTTI_SOURCE_DIR and the command is
 * $TUTTI_BINARY_DIR/tutti (both set by tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdarg.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------- helpers */

static const char *env_dir(const char *name) {
  const char *d = getenv(name);
  cr_assert(d && *d, "%s is not set (ctest sets it; run the test through ctest)", name);
  return d;
}

/* The whole of an open file, NUL-terminated; closes fd. */
static char *slurp_fd(int fd) {
  off_t n = lseek(fd, 0, SEEK_END);
  cr_assert(n >= 0);
  char *buf = malloc((size_t)n + 1);
  cr_assert(buf != NULL);
  cr_assert(pread(fd, buf, (size_t)n, 0) == (ssize_t)n);
  buf[n] = '\0';
  close(fd);
  return buf;
}

/* `tutti a b c` (up to three arguments, NULL-terminated): its stdout,
 * asserting exit status 0. */
static char *tutti(const char *a, const char *b, const char *c) {
  char bin[4096];
  snprintf(bin, sizeof bin, "%s/tutti", env_dir("TUTTI_BINARY_DIR"));
  char *argv[] = {bin, (char *)a, (char *)b, (char *)c, NULL};
  char path[] = "/tmp/tutti_test_manpage_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0, "mkstemp failed");
  unlink(path);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  pid_t pid;
  int rc = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert(rc == 0, "cannot run %s: %s", bin, strerror(rc));
  int ws;
  cr_assert(waitpid(pid, &ws, 0) == pid);
  cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "tutti %s %s %s: exit status %d", a, b ? b : "",
            c ? c : "", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
  return slurp_fd(fd);
}

/* printf at the end of buf (cap bytes), cutting what does not fit. */
static void appendf(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t cap, const char *fmt, ...) {
  size_t len = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, cap - len, fmt, ap);
  va_end(ap);
}

static char *read_file(const char *path) {
  int fd = open(path, O_RDONLY);
  cr_assert(fd >= 0, "cannot open %s", path);
  return slurp_fd(fd);
}

/* A character that continues a flag or a word. */
static int word_char(char c) {
  return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Does `tok` occur in `text` as a whole token (no word character on
 * either side)? So "--rank" is not found in "--ranks", nor "-n" in
 * "non-blocking". */
static int has_token(const char *text, const char *tok) {
  size_t n = strlen(tok);
  for (const char *p = strstr(text, tok); p; p = strstr(p + 1, tok))
    if ((p == text || !word_char(p[-1])) && !word_char(p[n])) return 1;
  return 0;
}

/* The flags a help text prints: "--long" ("--" then a letter, then
 * letters, digits, '-') and "-s" (one letter), each starting a token, so
 * words like "non-commutative" or "0..N-1" are not taken. Calls
 * found(flag, arg) for each; returns how many. */
static int each_flag(const char *text, void (*found)(const char *, void *), void *arg) {
  int count = 0;
  for (const char *p = text; *p; p++) {
    if (*p != '-' || (p > text && word_char(p[-1]))) continue;
    const char *q = p + 1;
    if (*q == '-') q++;
    if (!isalpha((unsigned char)*q)) continue;
    const char *e = q;
    while (isalnum((unsigned char)*e) || (*e == '-' && q != p + 1)) e++;
    if (q == p + 1 && e - q != 1) continue; /* "-s": a single letter only */
    if (word_char(*e)) continue;
    char flag[64];
    size_t len = (size_t)(e - p);
    if (len >= sizeof flag) continue;
    memcpy(flag, p, len);
    flag[len] = '\0';
    found(flag, arg);
    count++;
    p = e - 1;
  }
  return count;
}

/* The first word of each line indented by two spaces after the line
 * starting with `heading` (up to the next blank line): the commands of
 * `tutti --help`, the benchmarks of `tutti bench --help`. */
static int list_names(const char *text, const char *heading, char names[][32], int max) {
  const char *p = strstr(text, heading);
  cr_assert(p != NULL, "no '%s' in:\n%s", heading, text);
  p = strchr(p, '\n');
  int n = 0;
  while (p && p[1] == ' ' && p[2] == ' ' && isalpha((unsigned char)p[3])) {
    const char *w = p + 3;
    size_t len = strcspn(w, " \n");
    cr_assert(len < 32 && n < max);
    memcpy(names[n], w, len);
    names[n++][len] = '\0';
    p = strchr(w, '\n');
  }
  return n;
}

/* ------------------------------------------------------ the checks */

struct check {
  const char *page; /* the scdoc source */
  const char *where;
  char missing[4096];
  int checked;
};

static void check_flag(const char *flag, void *arg) {
  struct check *c = arg;
  c->checked++;
  if (!has_token(c->page, flag) && !has_token(c->missing, flag))
    appendf(c->missing, sizeof c->missing, " %s (%s)", flag, c->where);
}

static void check_help(struct check *c, const char *where, const char *a, const char *b,
                       const char *cmd) {
  char *help = tutti(a, b, cmd);
  c->where = where;
  int n = each_flag(help, check_flag, c);
  cr_assert(n > 0, "%s printed no flag at all:\n%s", where, help);
  free(help);
}

Test(e2e_manpage, tokens_and_flags) {
  cr_assert(has_token("a *--ranks* b", "--ranks"));
  cr_assert(!has_token("a --ranks b", "--rank"));
  cr_assert(!has_token("non-blocking", "-n"));
  cr_assert(has_token("*-n*, *--ranks*", "-n"));
  struct check c = {.page = "-n --ranks --op", .where = "sample"};
  each_flag("  -n, --ranks N   number; non-commutative 0..N-1 --op=x -Tsvg --x-y\n", check_flag,
            &c);
  cr_assert(c.checked == 4, "found %d flags", c.checked); /* -n --ranks --op --x-y */
  cr_assert(strcmp(c.missing, " --x-y (sample)") == 0, "missing:%s", c.missing);
}

Test(e2e_manpage, every_flag_in_the_man_page, .timeout = 120) {
  char path[4096];
  snprintf(path, sizeof path, "%s/bench/tutti.1.scd", env_dir("TUTTI_SOURCE_DIR"));
  char *page = read_file(path);
  struct check c = {.page = page};

  char *top = tutti("--help", NULL, NULL);
  char cmds[32][32], missing_cmds[1024] = "";
  int ncmds = list_names(top, "commands:", cmds, 32);
  cr_assert(ncmds >= 6, "tutti --help lists %d commands:\n%s", ncmds, top);
  c.where = "tutti --help";
  each_flag(top, check_flag, &c);
  free(top);

  for (int i = 0; i < ncmds; i++) {
    if (!has_token(page, cmds[i])) appendf(missing_cmds, sizeof missing_cmds, " %s", cmds[i]);
    char where[128] = "";
    appendf(where, sizeof where, "tutti %s --help", cmds[i]);
    if (strcmp(cmds[i], "bench") != 0) {
      check_help(&c, where, cmds[i], "--help", NULL);
      continue;
    }
    /* bench: its own list, then each benchmark's options */
    char *bh = tutti("bench", "--help", NULL);
    char benches[32][32];
    int nb = list_names(bh, "benchmarks", benches, 32);
    cr_assert(nb >= 1, "tutti bench --help lists no benchmark:\n%s", bh);
    free(bh);
    for (int k = 0; k < nb; k++) {
      char bwhere[128] = "";
      appendf(bwhere, sizeof bwhere, "tutti bench %s --help", benches[k]);
      if (!has_token(page, benches[k]))
        appendf(missing_cmds, sizeof missing_cmds, " bench %s", benches[k]);
      check_help(&c, bwhere, "bench", benches[k], "--help");
    }
  }
  cr_assert(c.checked >= 30, "only %d flags found in the help texts", c.checked);
  cr_expect(missing_cmds[0] == '\0', "bench/tutti.1.scd lacks the command(s):%s", missing_cmds);
  cr_assert(c.missing[0] == '\0', "bench/tutti.1.scd lacks the flag(s):%s", c.missing);
  free(page);
}
