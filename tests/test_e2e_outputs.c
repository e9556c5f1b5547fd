/*
 * test_e2e_outputs.c -- every file a command writes goes through one
 * writer (bench/cli_out.c; bench/CLI.md "Output files"), tested from the
 * CLI's own option table so that a new output flag is covered by being
 * declared: the options whose value names a file are each in CLI_OUT_OPTS
 * or CLI_IN_OPTS (bench/cli.h); the commands are those `tutti --help` and
 * `tutti bench --help` list, and a command's outputs and inputs are the
 * options of that table its own --help lists, plus the two positional
 * outputs (calibrate's PROFILE, new's FILE). Each command that writes
 * needs a small command line below; one that has none fails the test.
 *
 * For every (command, output): written whole, over an existing file
 * (its permissions kept) with nothing left beside it; to /dev/full (a
 * special file, written directly) exit 3 naming the output; on a full
 * disk -- a file-size limit in the child (RLIMIT_FSIZE, SIGXFSZ ignored:
 * writes fail with EFBIG, which a full tmpfs would give as ENOSPC; a
 * test cannot mount one) -- exit 3 naming it, the file as it was before
 * and no temporary file left. Every two outputs of one command on one
 * path ("x" and "./x"), and an output on one of the command's input
 * files: exit 2 before anything runs, naming both flags.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* ------------------------------------------------------------ the table */

static const struct {
  const char *lng, *meta;
} opts[CLI_NOPTS] = {
#define X(e, s, l, meta, help) {l, meta},
    CLI_OPTION_MAP(X)
#undef X
};

static int is_out(int i) {
  return (CLI_OUT_OPTS >> i) & 1;
}
static int is_in(int i) {
  return (CLI_IN_OPTS >> i) & 1;
}

/* A small valid command line of each command that writes a file: tiny
 * runs, so that the whole table takes seconds. `positional` names an
 * output given as the last argument; `fresh`: an output that exists is
 * refused (tutti new never replaces a file). */
struct base {
  const char *cmd;
  const char *args[12];
  const char *positional, *ext;
  int fresh;
};

static const struct base bases[] = {
    {"run", {"run", "bcast", "binomial", "-n", "2"}, NULL, NULL, 0},
    {"compare", {"compare", "bcast", "flat", "binomial", "-n", "2"}, NULL, NULL, 0},
    {"sweep",
     {"sweep", "bcast", "--ranks", "2", "--sizes", "8", "--algos", "binomial"},
     NULL,
     NULL,
     0},
    {"suite", {"suite", "-n", "2", "-m", "8"}, NULL, NULL, 0},
    {"tune", {"tune", "--ranks", "2", "--sizes", "8"}, NULL, NULL, 0},
    {"calibrate", {"calibrate", "--sizes", "8,16", "--iters", "1"}, "PROFILE", "ini", 0},
    {"new", {"new", "bcast", "mine"}, "FILE", "c", 1},
    {"bench lecture", {"bench", "lecture", "--ranks", "2", "--sizes", "8..8"}, NULL, NULL, 0},
    {"bench dualroot", {"bench", "dualroot", "--ranks", "2", "--profiles", "gige"}, NULL, NULL, 0},
    {"bench replay",
     {"bench", "replay", "-p", "ring", "-n", "4", "-k", "1", "-r", "1"},
     NULL,
     NULL,
     0},
};
#define NBASES (int)(sizeof bases / sizeof *bases)

/* The file name extension an output wants (--plot: .svg or .png). */
static const char *ext_of(int opt) {
  static const char *const e[][2] = {{"plot", "svg"}, {"html", "html"},     {"trace", "json"},
                                     {"csv", "csv"},  {"rules-out", "ini"}, {"ompi-rules", "txt"}};
  for (size_t k = 0; k < sizeof e / sizeof *e; k++)
    if (!strcmp(opts[opt].lng, e[k][0])) return e[k][1];
  return "out";
}

/* ------------------------------------------------------------ running */

static const char *binary(void) {
  static char bin[4096];
  const char *dir = getenv("TUTTI_BINARY_DIR");
  cr_assert(dir && *dir, "TUTTI_BINARY_DIR is not set (ctest sets it)");
  snprintf(bin, sizeof bin, "%s/tutti", dir);
  return bin;
}

struct res {
  int status;
  char out[65536], err[8192];
};

static void slurp_fd(int fd, char *buf, size_t n) {
  size_t len = 0;
  for (;;) {
    char tmp[4096];
    ssize_t k = read(fd, tmp, sizeof tmp);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    size_t c = (size_t)k < n - 1 - len ? (size_t)k : n - 1 - len;
    memcpy(buf + len, tmp, c);
    len += c;
  }
  buf[len] = '\0';
}

/* Run tutti with args in folder dir; fsize > 0: under that file-size
 * limit, with SIGXFSZ ignored, so that a write past it fails with EFBIG
 * instead of killing the command. stderr comes back through a pipe (no
 * file: the limit would cut it short); stdout through a file when out is
 * wanted (no limit then), else /dev/null. */
static void run_to(struct res *r, const char *dir, long fsize, int want_out, int stdout_fd,
                   const char *const *args) {
  const char *argv[40] = {binary()};
  int n = 1;
  for (; args[n - 1]; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  int ep[2];
  cr_assert(eq(int, pipe(ep), 0));
  char opath[] = "/tmp/tutti_test_outputs_XXXXXX";
  int ofd = stdout_fd >= 0 ? dup(stdout_fd)
            : want_out     ? mkstemp(opath)
                           : open("/dev/null", O_WRONLY);
  cr_assert(ge(int, ofd, 0));
  if (want_out && stdout_fd < 0) unlink(opath);
  pid_t pid = fork();
  cr_assert(ge(int, pid, 0));
  if (!pid) {
    if (chdir(dir)) _exit(126);
    if (fsize > 0) {
      struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
      signal(SIGXFSZ, SIG_IGN);
      if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(126);
    }
    dup2(ofd, 1), dup2(ep[1], 2);
    close(ep[0]), close(ep[1]), close(ofd);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(ep[1]);
  slurp_fd(ep[0], r->err, sizeof r->err);
  close(ep[0]);
  int ws;
  cr_assert(eq(int, waitpid(pid, &ws, 0), pid));
  r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  r->out[0] = '\0';
  if (want_out && stdout_fd < 0) {
    lseek(ofd, 0, SEEK_SET);
    slurp_fd(ofd, r->out, sizeof r->out);
  }
  close(ofd);
}

static void run(struct res *r, const char *dir, long fsize, int want_out, const char *const *args) {
  run_to(r, dir, fsize, want_out, -1, args);
}

/* The names in folder dir, sorted, joined by spaces. */
static void listing(const char *dir, char *buf, size_t n) {
  struct dirent **v;
  int k = scandir(dir, &v, NULL, alphasort);
  cr_assert(ge(int, k, 0), "cannot list %s", dir);
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < k; i++) {
    if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
      len +=
          (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? " " : "", v[i]->d_name);
    free(v[i]);
  }
  free(v);
}

static char *fresh_dir(void) {
  static char dir[64];
  snprintf(dir, sizeof dir, "/tmp/tutti_outputs_XXXXXX");
  cr_assert(ne(ptr, mkdtemp(dir), NULL));
  return dir;
}

static void remove_dir(const char *dir) {
  struct dirent **v;
  int k = scandir(dir, &v, NULL, NULL);
  for (int i = 0; i < k; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, v[i]->d_name);
    if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, "..")) unlink(p);
    free(v[i]);
  }
  if (k >= 0) free(v);
  rmdir(dir);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert(ne(ptr, f, NULL), "cannot write %s", path);
  fputs(text, f);
  cr_assert(eq(int, fclose(f), 0));
}

static char *read_file(const char *path) {
  static char buf[1 << 16];
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* ------------------------------------------------------------ the cases */

/* A command as `tutti --help` lists it, with the options of the table its
 * own --help lists. */
struct command {
  char name[64];
  uint64_t outs, ins;
  int base; /* index in bases, or -1 */
};

static struct command cmds[64];
static int ncmds;

/* 1 if one of the first tokens of an option line of help text is --lng
 * (an option line starts with '-' after its indent: "  -n, --ranks N",
 * "      --csv FILE", "  --trace FILE"). */
static int help_lists(const char *help, const char *lng) {
  char want[64];
  int n = snprintf(want, sizeof want, "--%s", lng);
  for (const char *line = help; *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    const char *p = line + strspn(line, " ");
    if (*p == '-')
      for (int tok = 0; tok < 3 && p < line + len; tok++) {
        size_t tl = strcspn(p, " \n");
        if (tl >= (size_t)n && !strncmp(p, want, (size_t)n) &&
            (tl == (size_t)n || p[n] == '=' || p[n] == ',' || p[n] == '['))
          return 1;
        p += tl;
        p += strspn(p, " ");
      }
    line += len + (eol != NULL);
  }
  return 0;
}

/* The names of a --help's list after the line starting with `head`,
 * up to the first empty line: the first word of each. */
static int names_after(const char *help, const char *head, char names[][64], int max) {
  const char *p = strstr(help, head);
  cr_assert(p != NULL, "no '%s' in: %s", head, help);
  p = strchr(p, '\n');
  int n = 0;
  while (p && p[1] && p[1] != '\n' && n < max) {
    p++;
    p += strspn(p, " ");
    size_t len = strcspn(p, " \n");
    if (len && *p != '-') snprintf(names[n++], 64, "%.*s", (int)len, p);
    p = strchr(p, '\n');
  }
  return n;
}

static void add_command(const char *name) {
  struct command *c = &cmds[ncmds++];
  snprintf(c->name, sizeof c->name, "%s", name);
  const char *args[4] = {NULL};
  char word[2][64];
  if (!strncmp(name, "bench ", 6)) {
    snprintf(word[0], 64, "bench"), snprintf(word[1], 64, "%s", name + 6);
    args[0] = word[0], args[1] = word[1], args[2] = "--help";
  } else {
    args[0] = name, args[1] = "--help";
  }
  static struct res r;
  run(&r, "/", 0, 1, args);
  cr_assert(eq(int, r.status, 0), "tutti %s --help: exit %d: %s", name, r.status, r.err);
  for (int i = 0; i < CLI_NOPTS; i++) {
    if (!help_lists(r.out, opts[i].lng)) continue;
    if (is_out(i)) c->outs |= UINT64_C(1) << i;
    if (is_in(i)) c->ins |= UINT64_C(1) << i;
  }
  c->base = -1;
  for (int b = 0; b < NBASES; b++)
    if (!strcmp(bases[b].cmd, name)) c->base = b;
  cr_assert(c->base >= 0 || !c->outs,
            "tutti %s writes a file (its --help lists an output option) but this test has no "
            "small command line for it: add one to bases[]",
            name);
}

static void discover(void) {
  if (ncmds) return;
  static struct res r;
  char names[64][64];
  run(&r, "/", 0, 1, (const char *const[]){"--help", NULL});
  int n = names_after(r.out, "commands:", names, 64);
  cr_assert(gt(int, n, 5), "too few commands found in tutti --help");
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], "bench") && strcmp(names[i], "--version") && strcmp(names[i], "--help"))
      add_command(names[i]);
  run(&r, "/", 0, 1, (const char *const[]){"bench", "--help", NULL});
  n = names_after(r.out, "benchmarks", names, 64);
  cr_assert(gt(int, n, 3), "too few benchmarks found in tutti bench --help");
  for (int i = 0; i < n; i++) {
    char full[80];
    snprintf(full, sizeof full, "bench %.63s", names[i]);
    add_command(full);
  }
}

/* One output of one command: opt >= 0 an option of the table, else the
 * base's positional output. */
struct ocase {
  const struct command *c;
  int opt;
};

static int gnuplot_here(void) {
  return !system("command -v gnuplot >/dev/null 2>&1");
}

static int cases(struct ocase *v, int max) {
  discover();
  int n = 0, plot = gnuplot_here();
  for (int k = 0; k < ncmds; k++) {
    for (int i = 0; i < CLI_NOPTS; i++)
      if ((cmds[k].outs >> i & 1) && (plot || i != CLI_OPT_PLOT) && n < max)
        v[n++] = (struct ocase){&cmds[k], i};
    if (cmds[k].base >= 0 && bases[cmds[k].base].positional && n < max)
      v[n++] = (struct ocase){&cmds[k], -1};
  }
  return n;
}

static const char *what(const struct ocase *o) {
  static char buf[64];
  if (o->opt < 0) return bases[o->c->base].positional;
  snprintf(buf, sizeof buf, "--%s", opts[o->opt].lng);
  return buf;
}

static const char *ext(const struct ocase *o) {
  return o->opt < 0 ? bases[o->c->base].ext : ext_of(o->opt);
}

/* The base's arguments then the output's: "--FLAG path" or "path". */
static int args_of(const struct ocase *o, const char *path, const char **argv, int at) {
  const struct base *b = &bases[o->c->base];
  if (!at)
    for (; b->args[at]; at++) argv[at] = b->args[at];
  if (o->opt >= 0) {
    static char flags[16][64];
    static int next;
    char *f = flags[next++ % 16];
    snprintf(f, 64, "--%s", opts[o->opt].lng);
    argv[at++] = f;
  }
  argv[at++] = path;
  argv[at] = NULL;
  return at;
}

static void expect_one_line(const struct res *r, const char *cmd) {
  size_t len = strlen(r->err);
  cr_expect(len > 1 && r->err[len - 1] == '\n' && !memchr(r->err, '\n', len - 1),
            "tutti %s: not one line on stderr: '%s'", cmd, r->err);
}

/* ------------------------------------------------------------ tests */

/* Every option whose value is a file is an output or an input, and every
 * output is listed by some command and so tested below. */
Test(outputs, every_file_option_is_classified, .timeout = 60) {
  discover();
  uint64_t listed = 0;
  for (int k = 0; k < ncmds; k++) listed |= cmds[k].outs;
  for (int i = 0; i < CLI_NOPTS; i++) {
    int file = opts[i].meta && strstr(opts[i].meta, "FILE");
    cr_expect(eq(int, file, is_out(i) + is_in(i)),
              "--%s (%s): an option naming a file must be in exactly one of CLI_OUT_OPTS and "
              "CLI_IN_OPTS (bench/cli.h)",
              opts[i].lng, opts[i].meta ? opts[i].meta : "a flag");
    if (is_out(i))
      cr_expect(listed >> i & 1, "--%s is an output that no command's --help lists", opts[i].lng);
  }
}

/* Written whole over an existing file, its permissions kept, nothing else
 * left in the folder; every output of a command in one run. */
Test(outputs, written_whole_in_place, .timeout = 300) {
  static struct ocase v[128];
  int n = cases(v, 128), tried = 0;
  for (int k = 0; k < ncmds; k++) {
    const struct command *c = &cmds[k];
    if (c->base < 0) continue;
    char *dir = fresh_dir();
    const char *argv[40];
    static char paths[16][64];
    int at = 0, np = 0;
    for (int i = 0; i < n; i++) {
      if (v[i].c != c) continue;
      snprintf(paths[np], 64, "out%d.%s", np, ext(&v[i]));
      if (!bases[c->base].fresh) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", dir, paths[np]);
        write_file(full, "old\n");
        cr_assert(eq(int, chmod(full, 0640), 0));
      }
      at = args_of(&v[i], paths[np], argv, at);
      np++;
      tried++;
    }
    if (!np) { /* its only output is --plot, and gnuplot is not here */
      remove_dir(dir);
      continue;
    }
    static struct res r;
    run(&r, dir, 0, 0, argv);
    cr_expect(eq(int, r.status, 0), "tutti %s: exit %d: %s", c->name, r.status, r.err);
    char names[4096], want[4096] = "";
    for (int p = 0; p < np; p++) {
      char full[4096];
      snprintf(full, sizeof full, "%s/%s", dir, paths[p]);
      const char *text = read_file(full);
      cr_expect(text && strlen(text) > 4 && strcmp(text, "old\n"), "tutti %s: %s not written",
                c->name, paths[p]);
      struct stat st;
      cr_expect(stat(full, &st) == 0 && S_ISREG(st.st_mode), "%s", full);
      if (!bases[c->base].fresh)
        cr_expect(eq(int, st.st_mode & 0777, 0640), "tutti %s: %s: mode %o, was 640", c->name,
                  paths[p], st.st_mode & 0777);
      snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", p ? " " : "", paths[p]);
    }
    /* the sorted listing of out0.x out1.y ... is in that order */
    listing(dir, names, sizeof names);
    cr_expect(eq(str, names, want), "tutti %s: the folder holds '%s', want '%s'", c->name, names,
              want);
    remove_dir(dir);
  }
  fprintf(stderr, "outputs: %d (command, output) written whole\n", tried);
  cr_assert(ge(int, tried, 14));
}

/* /dev/full through a symbolic link (the name keeps the extension --plot
 * wants): a special file, written directly, exit 3 naming the output. */
Test(outputs, dev_full_is_exit_3, .timeout = 300) {
  if (access("/dev/full", W_OK)) cr_skip_test("no writable /dev/full here");
  static struct ocase v[128];
  int n = cases(v, 128);
  for (int i = 0; i < n; i++) {
    const struct command *c = v[i].c;
    char *dir = fresh_dir(), name[64], full[4096];
    snprintf(name, sizeof name, "full.%s", ext(&v[i]));
    snprintf(full, sizeof full, "%s/%s", dir, name);
    cr_assert(eq(int, symlink("/dev/full", full), 0));
    const char *argv[40];
    args_of(&v[i], name, argv, 0);
    static struct res r;
    run(&r, dir, 0, 0, argv);
    int fresh = bases[c->base].fresh; /* new never replaces a file: /dev/full exists */
    cr_expect(eq(int, r.status, fresh ? 2 : 3), "tutti %s %s /dev/full: exit %d: %s", c->name,
              what(&v[i]), r.status, r.err);
    expect_one_line(&r, c->name);
    cr_expect(strstr(r.err, what(&v[i])) && strstr(r.err, fresh ? "File exists" : "No space left"),
              "tutti %s %s /dev/full: '%s'", c->name, what(&v[i]), r.err);
    char names[4096];
    listing(dir, names, sizeof names);
    cr_expect(eq(str, names, name), "tutti %s %s: the folder holds '%s'", c->name, what(&v[i]),
              names);
    remove_dir(dir);
  }
  fprintf(stderr, "outputs: %d (command, output) cases on /dev/full\n", n);
  cr_assert(ge(int, n, 14));
}

/* A full disk: the write fails (EFBIG under the file-size limit); exit 3
 * naming the output, the file as it was, no temporary file left. */
Test(outputs, full_disk_is_exit_3_and_leaves_the_file, .timeout = 300) {
  static struct ocase v[128];
  int n = cases(v, 128);
  for (int i = 0; i < n; i++) {
    const struct command *c = v[i].c;
    int fresh = bases[c->base].fresh;
    char *dir = fresh_dir(), name[64], full[4096];
    snprintf(name, sizeof name, "out.%s", ext(&v[i]));
    snprintf(full, sizeof full, "%s/%s", dir, name);
    if (!fresh) write_file(full, "keep\n");
    const char *argv[40];
    args_of(&v[i], name, argv, 0);
    static struct res r;
    run(&r, dir, 8, 0, argv);
    cr_expect(eq(int, r.status, 3), "tutti %s %s on a full disk: exit %d: %s", c->name, what(&v[i]),
              r.status, r.err);
    expect_one_line(&r, c->name);
    cr_expect(strstr(r.err, what(&v[i])) && strstr(r.err, "File too large"),
              "tutti %s %s on a full disk: '%s'", c->name, what(&v[i]), r.err);
    const char *text = read_file(full);
    if (fresh)
      cr_expect(eq(ptr, (void *)text, NULL), "tutti %s %s: a part of the file is left", c->name,
                what(&v[i]));
    else
      cr_expect(text && !strcmp(text, "keep\n"), "tutti %s %s: the file changed to '%.60s'",
                c->name, what(&v[i]), text ? text : "(gone)");
    char names[4096];
    listing(dir, names, sizeof names);
    cr_expect(eq(str, names, fresh ? "" : name), "tutti %s %s: the folder holds '%s'", c->name,
              what(&v[i]), names);
    remove_dir(dir);
  }
  fprintf(stderr, "outputs: %d (command, output) cases on a full disk\n", n);
  cr_assert(ge(int, n, 14));
}

/* The issue behind the writer: gnuplot drawing its picture into a file on
 * a full disk exits 0 with the picture cut short. Under a limit above the
 * size of gnuplot's script and below the picture's, every command's
 * --plot is exit 3 naming it, with no picture left. */
Test(outputs, plot_cut_short_is_exit_3, .timeout = 300) {
  if (!gnuplot_here()) cr_skip_test("gnuplot is not installed");
  static struct ocase v[128];
  int n = cases(v, 128), tried = 0;
  for (int i = 0; i < n; i++) {
    if (v[i].opt != CLI_OPT_PLOT) continue;
    const struct command *c = v[i].c;
    char *dir = fresh_dir();
    const char *argv[40];
    args_of(&v[i], "p.svg", argv, 0);
    static struct res r;
    run(&r, dir, 4096, 0, argv);
    cr_expect(eq(int, r.status, 3), "tutti %s --plot, picture cut at 4 KiB: exit %d: %s", c->name,
              r.status, r.err);
    cr_expect(strstr(r.err, "--plot") && strstr(r.err, "File too large"), "tutti %s: '%s'", c->name,
              r.err);
    char names[4096];
    listing(dir, names, sizeof names);
    cr_expect(eq(str, names, ""), "tutti %s --plot: the folder holds '%s'", c->name, names);
    remove_dir(dir);
    tried++;
  }
  fprintf(stderr, "outputs: %d commands' --plot cut short\n", tried);
  cr_assert(ge(int, tried, 4));
}

/* Two outputs of one command on one path ("x" and "./x"): exit 2 naming
 * both, before anything runs (nothing is written). */
Test(outputs, two_outputs_one_path_is_exit_2, .timeout = 60) {
  discover();
  int tried = 0;
  for (int k = 0; k < ncmds; k++) {
    const struct command *c = &cmds[k];
    for (int i = 0; i < CLI_NOPTS; i++)
      for (int j = i + 1; j < CLI_NOPTS; j++) {
        if (!(c->outs >> i & 1) || !(c->outs >> j & 1)) continue;
        char *dir = fresh_dir(), name[64], dotted[80];
        int e = i == CLI_OPT_PLOT ? i : j; /* --plot wants its extension */
        snprintf(name, sizeof name, "same.%s", ext_of(e));
        snprintf(dotted, sizeof dotted, "./%s", name);
        const char *argv[40];
        struct ocase a = {c, i}, b = {c, j};
        int at = args_of(&a, name, argv, 0);
        args_of(&b, dotted, argv, at);
        static struct res r;
        run(&r, dir, 0, 0, argv);
        cr_expect(eq(int, r.status, 2), "tutti %s --%s X --%s ./X: exit %d: %s", c->name,
                  opts[i].lng, opts[j].lng, r.status, r.err);
        expect_one_line(&r, c->name);
        char fi[64], fj[64];
        snprintf(fi, sizeof fi, "--%s", opts[i].lng), snprintf(fj, sizeof fj, "--%s", opts[j].lng);
        cr_expect(strstr(r.err, fi) && strstr(r.err, fj) && strstr(r.err, "both write"),
                  "tutti %s: '%s'", c->name, r.err);
        char names[4096];
        listing(dir, names, sizeof names);
        cr_expect(eq(str, names, ""), "tutti %s: the folder holds '%s'", c->name, names);
        remove_dir(dir);
        tried++;
      }
  }
  fprintf(stderr, "outputs: %d pairs of outputs on one path\n", tried);
  cr_assert(ge(int, tried, 6));
}

/* An output on one of the command's own input files: exit 2 naming both,
 * the input untouched. --plugin's file must load, so it is a real plugin. */
Test(outputs, output_over_an_input_is_exit_2, .timeout = 60) {
  discover();
  char so[4096];
  snprintf(so, sizeof so, "%s/tests/plugins/template_bcast.so", getenv("TUTTI_BINARY_DIR"));
  cr_assert(eq(int, access(so, R_OK), 0), "%s is not built", so);
  int tried = 0;
  for (int k = 0; k < ncmds; k++) {
    const struct command *c = &cmds[k];
    if (c->base < 0) continue;
    for (int i = 0; i < CLI_NOPTS; i++)
      for (int j = 0; j < CLI_NOPTS; j++) {
        if (!(c->outs >> i & 1) || !(c->ins >> j & 1)) continue;
        char *dir = fresh_dir(), name[64], dotted[80], full[4096], cmd[8300];
        snprintf(name, sizeof name, "in.%s", ext_of(i));
        snprintf(dotted, sizeof dotted, "./%s", name);
        snprintf(full, sizeof full, "%s/%s", dir, name);
        if (j == CLI_OPT_PLUGIN) {
          snprintf(cmd, sizeof cmd, "cp '%s' '%s'", so, full);
          cr_assert(eq(int, system(cmd), 0));
        } else {
          write_file(full, "keep\n");
        }
        struct stat before, after;
        cr_assert(eq(int, stat(full, &before), 0));
        const char *argv[40];
        struct ocase o = {c, i};
        int at = args_of(&o, dotted, argv, 0);
        static char flag[64];
        snprintf(flag, sizeof flag, "--%s", opts[j].lng);
        argv[at++] = flag, argv[at++] = name, argv[at] = NULL;
        static struct res r;
        run(&r, dir, 0, 0, argv);
        cr_expect(eq(int, r.status, 2), "tutti %s --%s X --%s ./X: exit %d: %s", c->name,
                  opts[j].lng, opts[i].lng, r.status, r.err);
        expect_one_line(&r, c->name);
        char fi[64];
        snprintf(fi, sizeof fi, "--%s", opts[i].lng);
        cr_expect(strstr(r.err, fi) && strstr(r.err, flag) && strstr(r.err, "reads"),
                  "tutti %s: '%s'", c->name, r.err);
        cr_expect(stat(full, &after) == 0 && after.st_ino == before.st_ino &&
                      after.st_size == before.st_size && after.st_mtime == before.st_mtime,
                  "tutti %s --%s: the input %s was replaced", c->name, opts[i].lng, name);
        char names[4096];
        listing(dir, names, sizeof names);
        cr_expect(eq(str, names, name), "tutti %s: the folder holds '%s'", c->name, names);
        remove_dir(dir);
        tried++;
      }
  }
  fprintf(stderr, "outputs: %d (output, input) pairs on one file\n", tried);
  cr_assert(ge(int, tried, 20));
}

/* A name of the kernel's is written through, not replaced: --trace
 * /dev/stdout with the standard output redirected to a file puts the
 * trace into that file beside the report, and nothing else appears. */
Test(outputs, dev_stdout_is_written_through, .timeout = 30) {
  char *dir = fresh_dir(), full[4096];
  snprintf(full, sizeof full, "%s/stdout.txt", dir);
  int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  cr_assert(ge(int, fd, 0));
  static struct res r;
  run_to(
      &r, dir, 0, 1, fd,
      (const char *const[]){"run", "bcast", "binomial", "-n", "2", "--trace", "/dev/stdout", NULL});
  close(fd);
  cr_expect(eq(int, r.status, 0), "exit %d: %s", r.status, r.err);
  const char *text = read_file(full);
  cr_assert(text != NULL);
  cr_expect(strstr(text, "traceEvents") != NULL, "no trace in the redirected output: %.200s", text);
  cr_expect(strstr(text, "modeled time") != NULL, "no report in the redirected output: %.200s",
            text);
  char names[4096];
  listing(dir, names, sizeof names);
  cr_expect(eq(str, names, "stdout.txt"), "the folder holds '%s'", names);
  remove_dir(dir);
}
