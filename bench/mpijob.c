/*
 * mpijob.c -- Open MPI jobs beside the rank threads (mpijob.h): the MPI
 * program bench_coll_mpi.c written out and built with mpicc, one mpirun
 * per rank count, driven through a FIFO per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpijob.h"
#include "stats.h"

extern char **environ;

#define TIMEOUT 180.0 /* seconds mpirun may take to start or to answer */

static const unsigned char mpi_source[] = {
#include "bench_coll_mpi.inc"
};

int mpijob_which(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t len = strcspn(p, ":");
    if (len && (size_t)snprintf(out, n, "%.*s/%s", (int)len, p, name) < n && !access(out, X_OK))
      return 1;
    p += len + (p[len] == ':');
  }
  return 0;
}

pid_t mpijob_spawn(char *const argv[], const char *out, const char *err) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa)) return -1;
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (err)
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_APPEND, 0600);
  else
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc ? -1 : pid;
}

void mpijob_first_line(const char *path, char *out, size_t n) {
  FILE *f = fopen(path, "r");
  out[0] = '\0';
  if (f && fgets(out, (int)n, f)) out[strcspn(out, "\n")] = '\0';
  if (f) fclose(f);
}

void mpijob_build(struct mpiprog *m) {
  char mpicc[1024], path[700], log[700];
  m->ok = 0;
  m->dir[0] = '\0';
  if (!mpijob_which("mpirun", m->mpirun, sizeof m->mpirun) ||
      !mpijob_which("mpicc", mpicc, sizeof mpicc)) {
    snprintf(m->why, sizeof m->why,
             "Open MPI is not installed (no mpirun and mpicc on the PATH; Debian: apt-get install "
             "openmpi-bin libopenmpi-dev)");
    return;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(m->dir, sizeof m->dir, "%s/tutti-bench-mpi.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(m->dir)) {
    snprintf(m->why, sizeof m->why, "cannot make a directory for the MPI program: %s",
             strerror(errno));
    m->dir[0] = '\0';
    return;
  }
  snprintf(path, sizeof path, "%s/coll_mpi.c", m->dir);
  snprintf(m->prog, sizeof m->prog, "%s/coll_mpi", m->dir);
  snprintf(log, sizeof log, "%s/mpicc.log", m->dir);
  FILE *f = fopen(path, "w");
  int bad = !f || fwrite(mpi_source, 1, sizeof mpi_source, f) != sizeof mpi_source;
  if (f && fclose(f)) bad = 1;
  if (bad) {
    snprintf(m->why, sizeof m->why, "cannot write the MPI program into %.300s", m->dir);
    return;
  }
  char *argv[] = {mpicc, "-O2", "-o", m->prog, path, NULL};
  pid_t pid = mpijob_spawn(argv, log, NULL);
  int ws = 0;
  if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws)) {
    char line[256];
    mpijob_first_line(log, line, sizeof line);
    snprintf(m->why, sizeof m->why, "mpicc failed to build the MPI program: %s",
             line[0] ? line : "no output");
    return;
  }
  m->ok = 1;
}

void mpijob_cleanup(struct mpiprog *m) {
  static const char *const files[] = {"coll_mpi.c", "coll_mpi", "mpicc.log", "mpirun.log", "res"};
  char path[700];
  if (!m->dir[0]) return;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(path, sizeof path, "%s/%s", m->dir, files[i]);
    unlink(path);
  }
  for (int r = 0; r < MPIJOB_MAX_P; r++) {
    snprintf(path, sizeof path, "%s/in.%d", m->dir, r);
    unlink(path);
  }
  rmdir(m->dir);
}

/* A line from the program (rank 0) within `timeout` seconds: 0, or -1
 * (mpirun exited, or the time ran out; why says which). */
static int job_line(struct mpijob *j, char *line, size_t n, double timeout, char *why,
                    size_t nwhy) {
  double end = bench_now() + timeout;
  for (;;) {
    char *nl = memchr(j->buf, '\n', j->len);
    if (nl) {
      size_t len = (size_t)(nl - j->buf);
      snprintf(line, n, "%.*s", (int)len, j->buf);
      memmove(j->buf, nl + 1, j->len - len - 1);
      j->len -= len + 1;
      return 0;
    }
    int ws;
    if (waitpid(j->pid, &ws, WNOHANG) == j->pid) {
      j->pid = -1;
      snprintf(why, nwhy, "mpirun exited (status %d) before answering",
               WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
      return -1;
    }
    if (bench_now() > end || j->len == sizeof j->buf) {
      snprintf(why, nwhy, "no answer from mpirun in %.0f s", timeout);
      return -1;
    }
    struct pollfd p = {j->res, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      ssize_t got = read(j->res, j->buf + j->len, sizeof j->buf - j->len);
      if (got > 0) j->len += (size_t)got;
    }
  }
}

void mpijob_stop(struct mpijob *j, const struct mpiprog *m) {
  char path[700];
  if (j->pid > 0) {
    for (int r = 0; r < j->P; r++)
      if (j->in[r] >= 0 && write(j->in[r], "quit\n", 5) != 5) break;
    int ws, gone = 0;
    for (int i = 0; i < 200 && !gone; i++) { /* 10 s to finish, then the signals */
      gone = waitpid(j->pid, &ws, WNOHANG) == j->pid;
      if (!gone) nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    if (!gone) {
      kill(j->pid, SIGTERM);
      nanosleep(&(struct timespec){1, 0}, NULL);
      if (waitpid(j->pid, &ws, WNOHANG) != j->pid) {
        kill(j->pid, SIGKILL);
        waitpid(j->pid, &ws, 0);
      }
    }
  }
  j->pid = -1;
  for (int r = 0; r < j->P; r++)
    if (j->in[r] >= 0) close(j->in[r]), j->in[r] = -1;
  if (j->res >= 0) close(j->res);
  j->res = -1;
  if (!m) return; /* the FIFOs go when the job of P is done */
  for (int r = 0; r < j->P; r++) {
    snprintf(path, sizeof path, "%s/in.%d", m->dir, r);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/res", m->dir);
  unlink(path);
}

/* `mpirun --oversubscribe -n P PROG DIR`; the FIFOs are opened read-write
 * here first (mpijob.h: why). */
int mpijob_start(struct mpiprog *m, int P, struct mpijob *j, char *why, size_t nwhy) {
  char path[700], log[700], np[16], line[512];
  *j = (struct mpijob){.pid = -1, .P = P, .res = -1};
  for (int r = 0; r < MPIJOB_MAX_P; r++) j->in[r] = -1;
  for (int r = 0; r <= P; r++) {
    if (r < P)
      snprintf(path, sizeof path, "%s/in.%d", m->dir, r);
    else
      snprintf(path, sizeof path, "%s/res", m->dir);
    int fd = mkfifo(path, 0600) ? -1 : open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      snprintf(why, nwhy, "cannot make the FIFO %.300s: %s", path, strerror(errno));
      mpijob_stop(j, m);
      return -1;
    }
    *(r < P ? &j->in[r] : &j->res) = fd;
  }
  snprintf(log, sizeof log, "%s/mpirun.log", m->dir);
  snprintf(np, sizeof np, "%d", P);
  char *argv[10];
  int a = 0;
  argv[a++] = m->mpirun;
  argv[a++] = "--oversubscribe";
  if (geteuid() == 0) argv[a++] = "--allow-run-as-root";
  argv[a++] = "-n", argv[a++] = np, argv[a++] = m->prog, argv[a++] = m->dir, argv[a] = NULL;
  if ((j->pid = mpijob_spawn(argv, log, NULL)) < 0) {
    snprintf(why, nwhy, "cannot start %.300s", m->mpirun);
    mpijob_stop(j, m);
    return -1;
  }
  int got = -1;
  if (job_line(j, line, sizeof line, TIMEOUT, why, nwhy) || sscanf(line, "ready %d", &got) != 1 ||
      got != P) {
    char l[256];
    mpijob_first_line(log, l, sizeof l);
    if (got >= 0 || !why[0]) snprintf(why, nwhy, "mpirun did not start %d processes", P);
    if (l[0]) snprintf(why + strlen(why), nwhy - strlen(why), " (%s)", l);
    mpijob_stop(j, m);
    return -1;
  }
  const char *lib = strchr(strchr(line, ' ') + 1, ' ');
  if (lib) snprintf(m->lib, sizeof m->lib, "%s", lib + 1);
  return 0;
}

double mpijob_round(struct mpijob *j, const char *coll, size_t bytes, double target, int *batch,
                    char *why, size_t nwhy) {
  char cmd[128], line[256];
  if (j->pid <= 0) {
    snprintf(why, nwhy, "the MPI job is not running");
    return -1;
  }
  int n = snprintf(cmd, sizeof cmd, "run %s %zu %g\n", coll, bytes, target);
  for (int r = 0; r < j->P; r++)
    if (write(j->in[r], cmd, (size_t)n) != n) {
      snprintf(why, nwhy, "cannot write to the MPI program: %s", strerror(errno));
      return -1;
    }
  if (job_line(j, line, sizeof line, TIMEOUT, why, nwhy)) return -1;
  if (!strcmp(line, "none")) return 0;
  double t;
  if (sscanf(line, "time %lf %d", &t, batch) != 2 || !(t > 0)) {
    snprintf(why, nwhy, "the MPI program answered '%.100s'", line);
    return -1;
  }
  return t;
}
