/*
 * mixed_prog.h -- `mixed`, the rank program of the determinism tests on
 * links and flows (test_e2e_contention.c, test_e2e_fair.c): rounds of
 * exchanges with a random partner, eager and rendezvous sizes mixed,
 * receives posted in scrambled order, so that many messages meet at
 * ports and links, starting and ending at once. Needs tutti.h and US.
 */
#ifndef TUTTI_TEST_MIXED_PROG_H
#define TUTTI_TEST_MIXED_PROG_H

#include <stdint.h>
#include <stdlib.h>

static int mixed(tutti_rank_t *r, void *arg) {
  (void)arg;
  int me = tutti_rank(r), n = tutti_size(r), rc = 0;
  enum { ROUNDS = 6, MAXB = 3000 };
  int *perm = malloc(sizeof(int) * (size_t)n), *inv = malloc(sizeof(int) * (size_t)n);
  char *out = calloc(3 * MAXB, 1), *in = calloc(3 * MAXB, 1);
  uint64_t x = 0x2545f4914f6cdd1dull;
  for (int k = 0; k < ROUNDS && !rc; k++) {
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      int j = (int)(x % (uint64_t)(i + 1)), tmp = perm[i];
      perm[i] = perm[j], perm[j] = tmp;
    }
    for (int i = 0; i < n; i++) inv[perm[i]] = i;
    long sz[3] = {8, 700 + 100 * k, MAXB};
    tutti_request_t q[6];
    for (int j = 2; j >= 0 && !rc; j--)
      rc = tutti_irecv(r, in + j * MAXB, sz[j], TUTTI_BYTE, inv[me], 10 + j, &q[3 + j]);
    if (!rc) rc = tutti_compute(r, (me % 3) * 0.5 * US);
    for (int j = 0; j < 3 && !rc; j++)
      rc = tutti_isend(r, out + j * MAXB, sz[j], TUTTI_BYTE, perm[me], 10 + j, &q[j]);
    if (!rc) rc = tutti_waitall(r, 6, q, NULL);
  }
  free(perm), free(inv), free(out), free(in);
  return rc;
}

#endif
