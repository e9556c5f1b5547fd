/*
 * cli_out.c -- the one writer of every file a command writes (bench/CLI.md
 * "Output files"): --trace, --html, --csv, --plot, --rules-out,
 * --ompi-rules, calibrate's PROFILE, new's FILE, and the --csv, --plot and
 * --trace of the benchmark programs.
 *
 * A regular file (or a name not yet taken) is written to a temporary file
 * beside it, "PATH.XXXXXX", opened before anything runs; the command's
 * writes go to that file through a stream that keeps the first write's
 * error, and cli_out_commit flushes and closes it and renames it over
 * PATH. Any failure -- a write, the close, the rename, or the command
 * giving up (cli_out_discard, or an exit with the file still open) --
 * removes the temporary file, so PATH is either the whole new output or
 * what it was before. A special file that exists (a device, a FIFO, a
 * name under /dev or /proc) cannot be renamed over: it is written
 * directly, and its errors are reported the same way; a name of the
 * standard output goes into the stdout stream, in order with the rest.
 *
 * Threads: the command's main thread only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The temporary files not yet renamed or removed, by name: an exit that
 * skipped cli_out_discard (an early return of a command) still leaves no
 * "PATH.XXXXXX" behind. Names, not the structs, which live on the stacks
 * of functions that are gone by then. */
#define PENDING_MAX 16
static char *pending[PENDING_MAX];

static void remove_pending(void) {
  for (int i = 0; i < PENDING_MAX; i++)
    if (pending[i]) unlink(pending[i]), free(pending[i]), pending[i] = NULL;
}

static void remember(const char *tmp) {
  static int registered;
  if (!registered) registered = !atexit(remove_pending);
  for (int i = 0; i < PENDING_MAX; i++)
    if (!pending[i]) {
      pending[i] = strdup(tmp); /* NULL: this one is removed by discard only */
      return;
    }
}

static void forget(const char *tmp) {
  for (int i = 0; i < PENDING_MAX; i++)
    if (pending[i] && !strcmp(pending[i], tmp)) free(pending[i]), pending[i] = NULL;
}

/* The stream's write: all of it, or the first error kept in o->err (stdio
 * keeps only a flag, and errno is long gone by the commit). */
static ssize_t out_write(void *cookie, const char *buf, size_t n) {
  struct cli_out *o = cookie;
  size_t done = 0;
  while (done < n) {
    ssize_t k = write(o->fd, buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (!o->err) o->err = k < 0 ? errno : EIO;
      errno = o->err;
      return 0; /* fopencookie: 0 is an error */
    }
    done += (size_t)k;
  }
  return (ssize_t)n;
}

static int out_close(void *cookie) {
  struct cli_out *o = cookie;
  int rc = close(o->fd);
  if (rc && !o->err) o->err = errno;
  o->fd = -1;
  return rc;
}

static int refuse(struct cli_out *o, int e) {
  const char *hint =
      e == EEXIST ? "a file that does not exist (it is never replaced)" : "a writable file path";
  return cli_fail(CLI_EUSAGE, o->cmd, "%s: cannot write '%s': %s; accepted: %s", o->what, o->path,
                  strerror(e), hint);
}

/* 1 for a name of the kernel's (/dev/stdout, /proc/self/fd/1, or a
 * symbolic link to one): it may resolve to a regular file -- the one the
 * standard output was redirected to -- which must be written through
 * that name, not replaced. */
static int kernel_name(const char *path) {
  char link[4096];
  ssize_t n = readlink(path, link, sizeof link - 1);
  if (n > 0) link[n] = '\0';
  const char *p[2] = {path, n > 0 ? link : ""};
  for (int i = 0; i < 2; i++)
    if (!strncmp(p[i], "/dev/", 5) || !strncmp(p[i], "/proc/", 6)) return 1;
  return 0;
}

int cli_out_open(struct cli_out *o, const char *cmd, const char *what, const char *path,
                 int flags) {
  memset(o, 0, sizeof *o);
  o->cmd = cmd, o->what = what, o->path = path, o->flags = flags, o->fd = -1;
  if ((flags & CLI_OUT_DASH) && !strcmp(path, "-")) {
    o->f = stdout; /* main checks the standard output once, at the end */
    return 0;
  }
  if (!*path) return refuse(o, ENOENT);
  struct stat st;
  int direct = 0;
  mode_t mode;
  if (!stat(path, &st)) {
    if (flags & CLI_OUT_FRESH) return refuse(o, EEXIST);
    if (S_ISDIR(st.st_mode)) return refuse(o, EISDIR);
    if (access(path, W_OK)) return refuse(o, errno);
    direct = !S_ISREG(st.st_mode) || kernel_name(path);
    mode = st.st_mode & 07777; /* a replaced file keeps its permissions */
    /* a symbolic link stays one: the file it names is replaced */
    char *real = direct ? NULL : realpath(path, NULL);
    snprintf(o->target, sizeof o->target, "%s", real ? real : path);
    free(real);
  } else if (errno == ENOENT) {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask; /* what fopen would have created */
    snprintf(o->target, sizeof o->target, "%s", path);
  } else {
    return refuse(o, errno);
  }
  if (strlen(o->target) + sizeof ".XXXXXX" > sizeof o->tmp) return refuse(o, ENAMETOOLONG);
  struct stat so;
  if (direct && !fstat(STDOUT_FILENO, &so) && so.st_dev == st.st_dev && so.st_ino == st.st_ino) {
    o->f = stdout; /* /dev/stdout: the standard output's own stream, in order with the rest */
    return 0;
  }
  if (direct) {
    /* a regular file behind a kernel's name is the standard output's
     * (or another descriptor's): appended to, not written over from 0 */
    o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(st.st_mode) ? O_APPEND : 0));
    if (o->fd < 0) return refuse(o, errno);
  } else {
    snprintf(o->tmp, sizeof o->tmp, "%s.XXXXXX", o->target);
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    if (o->fd < 0) {
      int e = errno;
      o->tmp[0] = '\0';
      return refuse(o, e);
    }
    remember(o->tmp);
    if (fchmod(o->fd, mode)) {
      int e = errno;
      close(o->fd);
      cli_out_discard(o);
      return refuse(o, e);
    }
  }
  o->f = fopencookie(o, "w", (cookie_io_functions_t){.write = out_write, .close = out_close});
  if (!o->f) {
    int e = errno;
    close(o->fd);
    cli_out_discard(o);
    return refuse(o, e);
  }
  return 0;
}

int cli_out_commit(struct cli_out *o) {
  if (!o->f) return 0;
  if (o->f == stdout) {
    o->f = NULL;
    return 0;
  }
  int bad = fflush(o->f) != 0 || ferror(o->f);
  if (fclose(o->f)) bad = 1;
  o->f = NULL;
  if (!bad && o->tmp[0]) {
    /* new's FILE is never replaced: link fails where the name was taken
     * meanwhile, where rename would not */
    int rc = o->flags & CLI_OUT_FRESH ? link(o->tmp, o->target) : rename(o->tmp, o->target);
    if (rc) bad = 1, o->err = errno;
  }
  if (o->tmp[0]) {
    if (bad || (o->flags & CLI_OUT_FRESH)) unlink(o->tmp); /* else renamed away */
    forget(o->tmp);
    o->tmp[0] = '\0';
  }
  if (!bad) return CLI_OK;
  return cli_fail(CLI_ERUNTIME, o->cmd, "%s: writing '%s' failed: %s", o->what, o->path,
                  strerror(o->err ? o->err : EIO));
}

void cli_out_discard(struct cli_out *o) {
  if (o->f && o->f != stdout) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) {
    unlink(o->tmp);
    forget(o->tmp);
    o->tmp[0] = '\0';
  }
}

int cli_out_apart(const char *cmd, const char *flag_a, const char *a, const char *flag_b,
                  const char *b, int b_reads) {
  if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-")) return 0;
  if (b_reads ? access(b, F_OK) || !cli_same_file(a, b) : !cli_same_file(a, b)) return 0;
  if (b_reads)
    return cli_fail(CLI_EUSAGE, cmd,
                    "%s would write over '%s', which %s reads; accepted: another file for %s",
                    flag_a, a, flag_b, flag_a);
  return cli_fail(CLI_EUSAGE, cmd, "%s and %s both write '%s'; accepted: a different file for each",
                  flag_a, flag_b, a);
}
