/*
 * scratch.c -- a rank's own memory (p2p.h): local copies and the
 * collectives' scratch. A timing-only world (TUTTI_NO_DATA) copies no
 * payload and takes no scratch: its scratch is one inaccessible page that
 * nothing dereferences.
 *
 * A fiber worker keeps the largest blocks its ranks freed (up to KEEP of
 * them, of KEEP_FROM bytes or more, until the run ends), and the next
 * request a block fits takes the smallest that fits: a collective's
 * scratch is as large as its message, and memory malloc hands back fresh
 * is first touched one page fault a page, in every call (glibc returns
 * large blocks to the system at free, and trims a heap as it shrinks,
 * which the ranks of a worker share). Kept, the pages stay mapped, so a
 * call that repeats costs its copies only. Kept per worker, not per rank,
 * they add at most KEEP blocks a worker to a run's peak: what one rank
 * freed, the next rank the worker runs takes. A rank thread keeps
 * nothing (its malloc arena reuses what it freed). Smaller blocks malloc
 * reuses from its heaps anyway. Each block carries its size in a header
 * of malloc's alignment.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* A block's header: its size, and malloc's alignment after it. */
struct block {
  _Alignas(max_align_t) size_t size;
};

#define KEEP TUTTI__SCRATCH_KEEP
#define KEEP_FROM ((size_t)64 << 10)

void *tutti_scratch_alloc(tutti_rank_t *r, size_t bytes) {
  if (tutti__check_rank(r)) return NULL;
  if (r->world->nodata) return nodata_scratch();
  void **kept = r->world->fibers ? tutti__fiber_kept(r) : NULL;
  int best = -1;
  for (int i = 0; kept && i < KEEP && bytes >= KEEP_FROM; i++) {
    struct block *k = kept[i];
    if (k && k->size >= bytes && (best < 0 || k->size < ((struct block *)kept[best])->size))
      best = i;
  }
  struct block *b;
  if (best >= 0) {
    b = kept[best];
    kept[best] = NULL;
    return b + 1;
  }
  if (bytes > SIZE_MAX - sizeof *b) return NULL;
  if (!(b = malloc(sizeof *b + (bytes ? bytes : 1)))) return NULL;
  b->size = bytes;
  return b + 1;
}

void tutti_scratch_free(tutti_rank_t *r, void *p) {
  if (tutti__check_rank(r) || r->world->nodata || !p) return;
  struct block *b = (struct block *)p - 1;
  void **kept = r->world->fibers ? tutti__fiber_kept(r) : NULL;
  /* into an empty slot, else over the smallest kept if b is larger */
  int slot = -1;
  for (int i = 0; kept && i < KEEP && b->size >= KEEP_FROM; i++) {
    struct block *k = kept[i];
    if (!k) {
      slot = i;
      break;
    }
    if (k->size < b->size && (slot < 0 || k->size < ((struct block *)kept[slot])->size)) slot = i;
  }
  if (slot < 0) {
    free(b);
    return;
  }
  free(kept[slot]);
  kept[slot] = b;
}

void tutti__scratch_drop(void **kept) {
  for (int i = 0; i < KEEP; i++) {
    free(kept[i]);
    kept[i] = NULL;
  }
}
