/*
 * scratch.c -- a rank's own memory (p2p.h): local copies and the
 * collectives' scratch. A timing-only world (TUTTI_NO_DATA) copies no
 * payload and takes no scratch: its scratch is one inaccessible page that
 * nothing dereferences.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "tutti/p2p.h"

int tutti_local_copy(tutti_rank_t *r, void *dst, const void *src, size_t bytes) {
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  if (bytes && (!dst || !src)) return TUTTI_EBUFFER;
  if (bytes && !r->world->nodata && dst != src) memcpy(dst, src, bytes);
  return 0;
}

/* What a no-data run's scratch points to: one inaccessible page, so an
 * address that is never dereferenced also faults at once if it were. */
static void *nodata_scratch(void) {
  static void *page;
  void *p = __atomic_load_n(&page, __ATOMIC_ACQUIRE);
  if (p) return p;
  void *mine = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mine == MAP_FAILED) return NULL;
  void *none = NULL;
  if (__atomic_compare_exchange_n(&page, &none, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return mine;
  munmap(mine, 4096);
  return none;
}

void *tutti_scratch_alloc(tutti_rank_t *r, size_t bytes) {
  if (tutti__check_rank(r)) return NULL;
  if (r->world->nodata) return nodata_scratch();
  return malloc(bytes ? bytes : 1);
}

void tutti_scratch_free(tutti_rank_t *r, void *p) {
  if (!tutti__check_rank(r) && !r->world->nodata) free(p);
}
