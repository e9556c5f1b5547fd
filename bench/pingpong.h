/*
 * pingpong.h -- the two point-to-point measurements of `tutti bench p2p`,
 * written against the backend contract alone (tutti/p2p.h) and a clock
 * the caller passes, so that the same code measures tutti's thread
 * runtime (`tutti bench p2p`, tutti-compare-threads) and an MPI library
 * (`mpirun -n 2 tutti-mpi bench p2p`).
 *
 * Both run on ranks 0 and 1 (a rank past 1 returns 0 at once); each rank
 * calls them from its own thread or process, as the contract's calls.
 * Where a rank runs (core pinning) is the caller's business.
 */
#ifndef TUTTI_PINGPONG_H
#define TUTTI_PINGPONG_H

#include <stddef.h>

#include "tutti/p2p.h"

/* One-way latency: `warmup` untimed round trips of `bytes` bytes between
 * ranks 0 and 1 (rank 0 sends first), then `iters` timed ones; rank 0's
 * *oneway = the timed span / (2 iters). buf holds `bytes` bytes. 0 or a
 * p2p error (TUTTI_EINVAL: iters < 1 or warmup < 0). */
int pp_latency(tutti_rank_t *r, void *buf, size_t bytes, long iters, long warmup,
               double (*clock)(void), double *oneway);

/* Bandwidth: after a handshake, rank 0 sends `msgs` messages of `bytes`
 * bytes back to back from buf, rank 1 receives them into its buf and
 * answers with one int32 once it has them all; rank 0's *rate = bytes x
 * msgs / the span from the first send to the answer (bytes per second).
 * 0 or a p2p error (TUTTI_EINVAL: msgs < 1). */
int pp_stream(tutti_rank_t *r, void *buf, size_t bytes, int msgs, double (*clock)(void),
              double *rate);

#endif
