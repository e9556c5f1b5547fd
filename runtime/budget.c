/*
 * budget.c -- the memory budget's automatic limit and its error (budget.h
 * has the charging, inline).
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "budget.h"

const char *tutti__mem_kind_name(int kind) {
  static const char *const names[TUTTI__MEM_KINDS] = {[TUTTI__MEM_MESSAGES] = "messages in flight",
                                                      [TUTTI__MEM_CHANNELS] = "channels",
                                                      [TUTTI__MEM_LOGS] = "event logs",
                                                      [TUTTI__MEM_STACKS] = "rank stacks",
                                                      [TUTTI__MEM_RANKS] = "rank state",
                                                      [TUTTI__MEM_REPLAY] = "the replay"};
  return kind >= 0 && kind < TUTTI__MEM_KINDS ? names[kind] : "memory";
}

const char *tutti__mem_bytes(uint64_t bytes, char *buf, size_t len) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, u++;
  if (u == 0)
    snprintf(buf, len, "%" PRIu64 " B", bytes);
  else
    snprintf(buf, len, "%.1f %s", v, unit[u]);
  return buf;
}

/* A number from the first line of a file; 0 when absent or not a number
 * ("max" in a cgroup file). */
static uint64_t read_u64(const char *path) {
  FILE *f = fopen(path, "r");
  unsigned long long v = 0;
  if (f) {
    if (fscanf(f, "%llu", &v) != 1) v = 0;
    fclose(f);
  }
  return v;
}

/* The process's address space now (VmSize), which RLIMIT_AS counts. */
static uint64_t vm_size(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (f) {
    if (fscanf(f, "%llu", &pages) != 1) pages = 0;
    fclose(f);
  }
  return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Half of each: the budget counts what the run allocates, not what the
 * allocator, the libraries and the threads' malloc arenas hold besides,
 * nor the replay's peak beyond its arrays. */
uint64_t tutti__mem_default(const char **source) {
  uint64_t best = 0;
  const char *why = "no limit known";
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && psize > 0) {
    best = (uint64_t)pages * (uint64_t)psize / 2;
    why = "half of physical memory";
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    uint64_t vm = vm_size(), lim = (uint64_t)rl.rlim_cur;
    uint64_t left = lim > vm ? (lim - vm) / 2 : 1;
    if (!best || left < best) best = left, why = "half of the address space RLIMIT_AS leaves";
  }
  uint64_t cg = read_u64("/sys/fs/cgroup/memory.max");
  if (cg) {
    uint64_t cur = read_u64("/sys/fs/cgroup/memory.current");
    uint64_t left = cg > cur ? (cg - cur) / 2 : 1;
    if (!best || left < best) best = left, why = "half of what the cgroup's memory.max leaves";
  }
  if (source) *source = why;
  return best;
}

int tutti__mem_refused(struct tutti_world *w, int rank, int kind, uint64_t bytes) {
  struct tutti__budget *b = &w->mem;
  char want[32], lim[32], by[TUTTI__MEM_KINDS][32], who[32] = "";
  for (int k = 0; k < TUTTI__MEM_KINDS; k++)
    tutti__mem_bytes(__atomic_load_n(&b->by[k], __ATOMIC_RELAXED), by[k], sizeof by[k]);
  if (rank >= 0) snprintf(who, sizeof who, "rank %d: ", rank);
  tutti__fail(w, rank, TUTTI_EMEMORY,
              "%smemory budget of %s (%s) spent: %s would take %s more; the run holds %s in "
              "messages in flight, %s in channels, %s in event logs, %s in rank stacks, %s in "
              "rank state (raise it: tutti_config_t.max_memory; or use "
              "fewer ranks, calls or messages in flight)",
              who, tutti__mem_bytes(b->limit, lim, sizeof lim), b->source,
              tutti__mem_kind_name(kind), tutti__mem_bytes(bytes, want, sizeof want),
              by[TUTTI__MEM_MESSAGES], by[TUTTI__MEM_CHANNELS], by[TUTTI__MEM_LOGS],
              by[TUTTI__MEM_STACKS], by[TUTTI__MEM_RANKS]);
  if (rank >= 0) tutti__abort_all(w); /* -1: between runs, no rank to wake */
  return TUTTI_EMEMORY;
}
