/*
 * pingpong.c -- ping-pong latency and streaming bandwidth over the
 * contract (pingpong.h). The code is the one `tutti bench p2p` used
 * inline before it was shared with the MPI backend: tags 0 (data), 1
 * (handshake) and 2 (answer).
 */
#include "pingpong.h"

int pp_latency(tutti_rank_t *r, void *buf, size_t bytes, long iters, long warmup,
               double (*clock)(void), double *oneway) {
  int me = tutti_rank(r), rc = 0;
  if (me > 1) return 0;
  if (iters < 1 || warmup < 0) return TUTTI_EINVAL;
  long n = (long)bytes;
  double t0 = clock();
  for (long i = 0; i < iters + warmup && !rc; i++) {
    if (i == warmup) t0 = clock();
    if (me == 0) {
      rc = tutti_send(r, buf, n, TUTTI_BYTE, 1, 0);
      if (!rc) rc = tutti_recv(r, buf, n, TUTTI_BYTE, 1, 0, TUTTI_STATUS_IGNORE);
    } else {
      rc = tutti_recv(r, buf, n, TUTTI_BYTE, 0, 0, TUTTI_STATUS_IGNORE);
      if (!rc) rc = tutti_send(r, buf, n, TUTTI_BYTE, 0, 0);
    }
  }
  if (me == 0 && !rc) *oneway = (clock() - t0) / (2.0 * (double)iters);
  return rc;
}

int pp_stream(tutti_rank_t *r, void *buf, size_t bytes, int msgs, double (*clock)(void),
              double *rate) {
  int me = tutti_rank(r), rc = 0, ack = 0;
  if (me > 1) return 0;
  if (msgs < 1) return TUTTI_EINVAL;
  long n = (long)bytes;
  rc = tutti_sendrecv(r, &ack, 1, TUTTI_INT32, 1 - me, 1, &ack, 1, TUTTI_INT32, 1 - me, 1,
                      TUTTI_STATUS_IGNORE);
  double t0 = clock();
  for (int i = 0; i < msgs && !rc; i++) {
    if (me == 0)
      rc = tutti_send(r, buf, n, TUTTI_BYTE, 1, 0);
    else
      rc = tutti_recv(r, buf, n, TUTTI_BYTE, 0, 0, TUTTI_STATUS_IGNORE);
  }
  if (!rc) { /* the receiver says it has everything */
    if (me == 1)
      rc = tutti_send(r, &ack, 1, TUTTI_INT32, 0, 2);
    else
      rc = tutti_recv(r, &ack, 1, TUTTI_INT32, 1, 2, TUTTI_STATUS_IGNORE);
  }
  if (me == 0 && !rc) *rate = (double)bytes * msgs / (clock() - t0);
  return rc;
}
