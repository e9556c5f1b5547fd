/*
 * probe_ucx.c -- preloaded into every process of an MPICH run (ch4:ucx,
 * Debian's build) by tests/test_e2e_tune_mpi.c. MPICH keeps its algorithms
 * inside libmpich (no symbol to stand in front of), so this library
 * watches what they send instead: it stands in front of UCX's tagged sends
 * (ucp_tag_send_nbx, ucp_tag_send_sync_nbx), which every message of MPICH
 * takes with MPIR_CVAR_NOLOCAL=1 (no shared-memory shortcut between the
 * ranks), and writes one line per message to stderr:
 *
 *   PROBE rank PHASE send DEST BYTES
 *
 * DEST is the peer's rank: MPICH 4.0 creates one endpoint per rank of
 * MPI_COMM_WORLD in rank order at MPI_Init (ucp_ep_create, recorded
 * here); BYTES the message's size (contiguous data: UCX counts bytes).
 * The messages of a call -- who sends how much to whom -- tell the
 * algorithms apart. No UCX header is needed: handles are pointers, a tag
 * a 64-bit integer, a status an int.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static char phase[128] = "-";
static void *eps[4096];
static int neps;

void probe_phase(const char *name) {
  snprintf(phase, sizeof phase, "%s", name);
}

typedef int ep_create_fn(void *worker, const void *params, void **ep);
int ucp_ep_create(void *worker, const void *params, void **ep) {
  static ep_create_fn *real;
  if (!real) real = (ep_create_fn *)dlsym(RTLD_NEXT, "ucp_ep_create");
  int rc = real(worker, params, ep);
  if (rc == 0 && neps < 4096) eps[neps++] = *ep;
  return rc;
}

static void note(void *ep, size_t count) {
  const char *r = getenv("PMI_RANK");
  int dest = -1;
  for (int i = 0; i < neps && dest < 0; i++)
    if (eps[i] == ep) dest = i;
  fprintf(stderr, "PROBE %s %s send %d %zu\n", r ? r : "?", phase, dest, count);
}

typedef void *send_fn(void *ep, const void *buf, size_t count, uint64_t tag, const void *param);
void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param) {
  static send_fn *real;
  if (!real) real = (send_fn *)dlsym(RTLD_NEXT, "ucp_tag_send_nbx");
  note(ep, count);
  return real(ep, buf, count, tag, param);
}
void *ucp_tag_send_sync_nbx(void *ep, const void *buf, size_t count, uint64_t tag,
                            const void *param) {
  static send_fn *real;
  if (!real) real = (send_fn *)dlsym(RTLD_NEXT, "ucp_tag_send_sync_nbx");
  note(ep, count);
  return real(ep, buf, count, tag, param);
}
