/*
 * mpijob.h -- Open MPI's own collectives measured beside tutti's in the same
 * run (`tutti bench coll`, `tutti bench fibers`): the small MPI program
 * bench_coll_mpi.c, compiled into the command as text, written out and
 * built with mpicc once per bench run (mpijob_build), then one `mpirun
 * --oversubscribe -n P` job per rank count (mpijob_start), which times one
 * batch of a collective per command (mpijob_round) and lives until
 * mpijob_stop.
 *
 * Why FIFOs. A bench alternates tutti's batches and Open MPI's in every
 * round, so both sides run in the same seconds of a shared machine and
 * their per-round ratios cancel its swings. The MPI processes must then
 * wait without taking CPU from the rank threads: each reads its commands
 * from a FIFO of its own (DIR/in.R) and a blocking read costs nothing,
 * whereas a wait inside MPI (a barrier, a broadcast of the command)
 * polls. Rank 0 answers on DIR/res, which the bench reads with a timeout
 * so that a dead or stuck mpirun is an error, not a hang. The bench opens
 * every FIFO read-write before mpirun starts, so neither side's open blocks
 * and no write raises SIGPIPE.
 *
 * Not thread-safe: one thread drives a job (the others may wait meanwhile).
 */
#ifndef TUTTI_BENCH_MPIJOB_H
#define TUTTI_BENCH_MPIJOB_H

#include <stddef.h>
#include <sys/types.h>

/* Above this many processes no job is started: each process is a whole
 * program (tens of MB, seconds to start under load). */
#define MPIJOB_MAX_P 64

/* The MPI program, built once per bench run in a directory of its own. */
struct mpiprog {
  int ok;                                 /* built: jobs may start */
  char dir[512], prog[600], mpirun[1024]; /* its directory, program, mpirun */
  char lib[256];                          /* MPI_Get_library_version, once a job started */
  char why[512];                          /* not ok: why, one line */
};

/* One mpirun of the program on P processes. */
struct mpijob {
  pid_t pid; /* -1: not running (stopped, or failed) */
  int P, res, in[MPIJOB_MAX_P];
  char buf[1024]; /* what rank 0 wrote that is not a line yet */
  size_t len;
};

/* The helpers the jobs are made of, also `tutti bench smpi`'s (SimGrid's
 * smpicc and smpirun). mpijob_which: the path of program `name` on the
 * PATH into out, 1; or 0. mpijob_spawn: start argv[0] (a path) with stdin
 * from /dev/null, stdout appended to file `out`, stderr to file `err`
 * (NULL: to out too); its pid, or -1. mpijob_first_line: a file's first
 * line into out ("" when it has none), for an error text. */
int mpijob_which(const char *name, char *out, size_t n);
pid_t mpijob_spawn(char *const argv[], const char *out, const char *err);
void mpijob_first_line(const char *path, char *out, size_t n);

/* Find mpicc and mpirun on the PATH, write the program into a new directory
 * under $TMPDIR (or /tmp) and build it. m->ok says whether it worked, m->why
 * why not (Open MPI not installed, mpicc failed, ...). */
void mpijob_build(struct mpiprog *m);

/* Remove the directory mpijob_build made and what the jobs left in it. */
void mpijob_cleanup(struct mpiprog *m);

/* Start `mpirun --oversubscribe -n P` of the program (1 <= P <=
 * MPIJOB_MAX_P, m->ok) and wait for its "ready" (up to 3 minutes): 0, or
 * -1 with why (the first line of mpirun's output appended when it has
 * one). Fills m->lib. */
int mpijob_start(struct mpiprog *m, int P, struct mpijob *j, char *why, size_t nwhy);

/* One batch of the library's collective `coll` (a tutti_coll_name) of
 * `bytes` per rank (root 0; reductions sum int32, uint8 when bytes is not
 * a multiple of 4): 3 warm-up calls, then a timed loop of about `target`
 * seconds. Returns the seconds per call, the maximum over ranks of each
 * rank's time per call (*batch: the calls timed); 0 when the program has
 * no twin of coll; -1 with why when the job failed (it is then to be
 * stopped). */
double mpijob_round(struct mpijob *j, const char *coll, size_t bytes, double target, int *batch,
                    char *why, size_t nwhy);

/* Ask the processes to quit, wait up to 10 s, then signal mpirun; close
 * the FIFOs. With m, also remove them (the job of P is done); without,
 * they stay for mpijob_stop(j, m) later. Safe on a stopped job. */
void mpijob_stop(struct mpijob *j, const struct mpiprog *m);

#endif
