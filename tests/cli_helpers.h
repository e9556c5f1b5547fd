/*
 * cli_helpers.h -- running the `tutti` binary from an end-to-end test:
 * CLI(args...) returns its exit status, stdout and stderr (CLI_ENV adds
 * one environment variable, CLI_OUT sends stdout to a file); fails_with
 * checks bad usage's contract (one line on stderr naming the command, the
 * exit status). Needs Criterion; the binary is $TUTTI_BINARY_DIR/tutti.
 */
#ifndef TUTTI_TEST_CLI_HELPERS_H
#define TUTTI_TEST_CLI_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------ running it */

struct cli {
  int status; /* exit status; 128 + signal if killed */
  char *out, *err;
};

static inline char *slurp(int fd) {
  off_t n = lseek(fd, 0, SEEK_END);
  cr_assert(ge(i64, (int64_t)n, 0));
  char *buf = malloc((size_t)n + 1);
  cr_assert(ne(ptr, buf, NULL));
  cr_assert(eq(i64, (int64_t)pread(fd, buf, (size_t)n, 0), (int64_t)n));
  buf[n] = '\0';
  close(fd);
  return buf;
}

static inline int tmpfile_fd(void) {
  char path[] = "/tmp/tutti_test_cli_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0), "mkstemp failed");
  unlink(path);
  return fd;
}

/* Run `tutti args...` (NULL-terminated), with `env` ("K=V" or NULL) added
 * and stdout on `out_path` (NULL: a temporary file, read back into .out). */
static inline struct cli run_io(const char *env, const char *out_path, const char *const *args) {
  static char bin[4096];
  const char *dir = getenv("TUTTI_BINARY_DIR");
  if (dir && *dir)
    snprintf(bin, sizeof bin, "%s/tutti", dir);
  else { /* run by hand: this binary is BUILD/tests/test_e2e_cli, the command BUILD/tutti */
    char self[4000];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    for (int up = 0; up < 2; up++) {
      char *slash = strrchr(self, '/');
      if (slash) *slash = '\0';
    }
    snprintf(bin, sizeof bin, "%s/tutti", n > 0 ? self : ".");
  }
  const char *argv[64] = {bin};
  int n = 1;
  for (; args[n - 1]; n++) {
    cr_assert(lt(int, n, 63));
    argv[n] = args[n - 1];
  }
  argv[n] = NULL;
  int nenv = 0;
  while (environ[nenv]) nenv++;
  char **envp = calloc((size_t)nenv + 2, sizeof *envp);
  cr_assert(ne(ptr, envp, NULL));
  memcpy(envp, environ, sizeof *envp * (size_t)nenv);
  if (env) envp[nenv] = (char *)env;
  int ofd = out_path ? open(out_path, O_WRONLY) : tmpfile_fd(), efd = tmpfile_fd();
  cr_assert(ge(int, ofd, 0), "cannot open %s", out_path);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, ofd, 1);
  posix_spawn_file_actions_adddup2(&fa, efd, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, bin, &fa, NULL, (char *const *)argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  free(envp);
  cr_assert(eq(int, rc, 0), "cannot run %s: %s", bin, strerror(rc));
  int ws;
  cr_assert(eq(int, waitpid(pid, &ws, 0), pid));
  if (out_path) close(ofd);
  struct cli c = {WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws),
                  out_path ? strdup("") : slurp(ofd), slurp(efd)};
  return c;
}

static inline struct cli run_env(const char *env, const char *const *args) {
  return run_io(env, NULL, args);
}

#define CLI(...) run_env(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define CLI_ENV(env, ...) run_env(env, (const char *const[]){__VA_ARGS__, NULL})
#define CLI_OUT(path, ...) run_io(NULL, path, (const char *const[]){__VA_ARGS__, NULL})

static inline void cli_free(struct cli *c) {
  free(c->out), free(c->err);
  c->out = c->err = NULL;
}

#define HAS(text, sub) cr_assert(ne(ptr, strstr(text, sub), NULL), "'%s' lacks '%s'", text, sub)

/* Exactly one line on stderr, mentioning `sub`, and the exit status. */
static inline void fails_with(struct cli c, int status, const char *sub) {
  cr_assert(eq(int, c.status, status), "exit %d, want %d; stderr: %s", c.status, status, c.err);
  size_t len = strlen(c.err);
  cr_assert(gt(sz, len, 1), "no message on stderr");
  cr_assert(eq(chr, c.err[len - 1], '\n'), "stderr does not end a line: '%s'", c.err);
  cr_assert(eq(ptr, memchr(c.err, '\n', len - 1), NULL), "more than one line on stderr: '%s'",
            c.err);
  cr_assert(eq(int, strncmp(c.err, "tutti", 5), 0), "message does not name the command: %s", c.err);
  if (sub) HAS(c.err, sub);
}

/* 1 if an executable `name` is on the PATH (Open MPI's mpirun, mpicc). */
/* `tutti ARGS...` (args[0] is "tutti") on a pseudo-terminal of `cols`
 * columns (0: the terminal's default), stdout and stderr both on it as in
 * a shell: everything it wrote, malloc'd; its exit status checked to be 0. */
static inline char *cli_on_terminal(int cols, const char *const *args) {
  const char *dir = getenv("TUTTI_BINARY_DIR");
  char bin[4096];
  snprintf(bin, sizeof bin, "%s/tutti", dir && *dir ? dir : ".");
  struct winsize ws = {.ws_row = 40, .ws_col = (unsigned short)cols};
  int fd;
  pid_t pid = forkpty(&fd, NULL, NULL, cols ? &ws : NULL);
  cr_assert(ge(int, (int)pid, 0), "forkpty: %s", strerror(errno));
  if (pid == 0) {
    execv(bin, (char *const *)args);
    _exit(127);
  }
  size_t cap = 4 << 20, len = 0;
  char *out = malloc(cap);
  ssize_t k;
  while (len + 1 < cap && (k = read(fd, out + len, cap - 1 - len)) > 0) len += (size_t)k;
  out[len] = '\0'; /* read ends with EIO once the child has exited */
  close(fd);
  int st;
  cr_assert(eq(int, (int)waitpid(pid, &st, 0), (int)pid));
  cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0), "%s", out);
  return out;
}

static inline int on_path(const char *name) {
  const char *path = getenv("PATH");
  char buf[4096];
  for (const char *p = path ? path : ""; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
    if (n && !access(buf, X_OK)) return 1;
    p += n + (p[n] == ':');
  }
  return 0;
}

/* Seconds per unit of a time as tutti prints it (tutti_format_time). */
static inline double unit_scale(const char *u) {
  static const char *const units[] = {"s", "ms", "us", "ns", "ps"};
  static const double scale[] = {1, 1e-3, 1e-6, 1e-9, 1e-12};
  for (int i = 0; i < 5; i++)
    if (!strcmp(u, units[i])) return scale[i];
  cr_fatal("unknown time unit '%s'", u);
  return 0;
}

#endif
