/*
 * test_unit_evlog.c -- the event log's storage (runtime/evlog.c): the
 * first events in a room its owner lends, small logs malloc'd, bigger
 * ones blocks of the huge-page arena. Many logs
 * growing side by side (what the ranks of a run do) keep every event, the
 * capacity rules of runtime/MODEL.md "Memory", the budget, and the limit;
 * freed logs give their blocks back so new ones reuse them; the arena
 * holds resident little more than its logs.
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "evlog.h"

#define NLOGS 24

static struct tutti_ev ev_of(int log, uint32_t i) {
  return (struct tutti_ev){.kind = TUTTI_EV_SEND,
                           .peer = log,
                           .tag = (int32_t)(i * 7),
                           .ref = i,
                           .bytes = (uint64_t)log << 32 | i};
}

/* Push n events to each log round-robin (log k gets (k % 3 + 1) per
 * round: unequal sizes, interleaved growth), then check them all. */
static void fill_and_check(struct tutti_evlog *L, uint32_t rounds) {
  uint32_t before[NLOGS];
  for (int k = 0; k < NLOGS; k++) before[k] = L[k].n;
  for (uint32_t r = 0; r < rounds; r++)
    for (int k = 0; k < NLOGS; k++)
      for (int j = 0; j <= k % 3; j++) {
        struct tutti_ev e = ev_of(k, L[k].n);
        cr_assert(eq(u32, tutti__evlog_push(&L[k], &e), e.ref));
      }
  for (int k = 0; k < NLOGS; k++) {
    cr_assert(eq(u32, L[k].n, before[k] + rounds * (uint32_t)(k % 3 + 1)));
    /* within twice the events (MODEL.md "Memory"), at least 16 */
    cr_assert(le(u32, L[k].cap, 2 * L[k].n + 1), "log %d: cap %u for %u events", k, L[k].cap,
              L[k].n);
    if (L[k].order) /* an arena block: the capacity is what it holds */
      cr_assert(eq(u64, L[k].cap, ((uint64_t)1 << L[k].order) / sizeof(struct tutti_ev)));
    for (uint32_t i = 0; i < L[k].n; i++) {
      struct tutti_ev want = ev_of(k, i);
      const struct tutti_ev *got = &L[k].ev[i];
      if (got->peer != want.peer || got->ref != want.ref || got->tag != want.tag ||
          got->bytes != want.bytes)
        cr_assert(0, "log %d event %u: peer %d ref %u bytes %llu", k, i, got->peer, got->ref,
                  (unsigned long long)got->bytes);
    }
  }
}

Test(evlog, logs_growing_side_by_side_keep_every_event, .timeout = 60) {
  struct tutti_evlog L[NLOGS] = {0};
  fill_and_check(L, 40000); /* up to 120000 events a log: blocks up to 4 MiB */
  int in_arena = 0;
  for (int k = 0; k < NLOGS; k++) in_arena += L[k].order != 0;
  cr_assert(eq(int, in_arena, NLOGS), "past 12 KiB every log is an arena block");
  for (int k = 0; k < NLOGS; k += 2) tutti__evlog_free(&L[k]); /* half back */
  for (int k = 0; k < NLOGS; k += 2) cr_assert(eq(ptr, L[k].ev, NULL));
  fill_and_check(L, 3000); /* the freed ones again, the others grow on */
  for (int k = 0; k < NLOGS; k++) tutti__evlog_free(&L[k]);
  fill_and_check(L, 20); /* after the arena emptied: small logs, malloc'd */
  for (int k = 0; k < NLOGS; k++) cr_assert(eq(int, L[k].order, 0), "log %d: 20-60 events", k);
  for (int k = 0; k < NLOGS; k++) tutti__evlog_free(&L[k]);
}

/* A shared budget: logs take capacity from it as they grow and give it
 * back when freed; a nearly spent budget still gives what it has left,
 * and a spent one refuses. */
Test(evlog, budget_is_taken_and_given_back, .timeout = 30) {
  struct tutti_evlog L[2] = {0};
  uint64_t budget = 5000;
  L[0].budget = L[1].budget = &budget;
  struct tutti_ev e = ev_of(0, 0);
  uint32_t pushed[2] = {0, 0};
  for (int k = 0;; k ^= 1) {
    if (tutti__evlog_push(&L[k], &e) == UINT32_MAX) {
      cr_assert(eq(int, L[k].refusal, TUTTI_EVLOG_BUDGET));
      break;
    }
    pushed[k]++;
  }
  cr_assert(eq(u64, budget, 0));
  cr_assert(eq(u64, (uint64_t)L[0].cap + L[1].cap, 5000), "the whole budget is capacity");
  cr_assert(eq(u32, pushed[0], L[0].n));
  tutti__evlog_free(&L[0]);
  tutti__evlog_free(&L[1]);
  cr_assert(eq(u64, budget, 5000));
}

/* max: a log never holds more, even when its block could. */
Test(evlog, max_bounds_an_arena_log, .timeout = 30) {
  struct tutti_evlog L = {.max = 1000};
  struct tutti_ev e = ev_of(0, 0);
  for (uint32_t i = 0; i < 1000; i++) cr_assert(eq(u32, tutti__evlog_push(&L, &e), i));
  cr_assert(eq(u32, tutti__evlog_push(&L, &e), UINT32_MAX));
  cr_assert(eq(int, L.refusal, TUTTI_EVLOG_FULL));
  cr_assert(le(u32, L.cap, 1000));
  tutti__evlog_free(&L);
}

/* Up to 512 events (12 KiB) a log is malloc'd, as the many small logs of
 * a huge world always were; the 513th moves it to a 16 KiB block. */
Test(evlog, small_logs_stay_malloced, .timeout = 30) {
  struct tutti_evlog L = {0};
  struct tutti_ev e = ev_of(0, 0);
  for (uint32_t i = 0; i < 512; i++) cr_assert(eq(u32, tutti__evlog_push(&L, &e), i));
  cr_assert(eq(int, L.order, 0));
  cr_assert(eq(u32, L.cap, 512));
  cr_assert(eq(u32, tutti__evlog_push(&L, &e), 512));
  cr_assert(eq(int, L.order, 14));
  cr_assert(eq(u32, L.cap, 16384 / sizeof(struct tutti_ev)));
  tutti__evlog_free(&L);
}

/* A lent room (a rank's own) takes the first EVLOG_LENT events, charged
 * to no memory budget; the next event moves the log to malloc, keeping
 * every event, and charges the whole array; freeing gives back exactly
 * what was charged and leaves the room alone. A log that has the room
 * again (cleared, not freed) reuses it only after a free. */
Test(evlog, a_lent_room_takes_the_first_events_uncharged, .timeout = 30) {
  struct tutti_ev room[EVLOG_LENT + 1];
  room[EVLOG_LENT] = ev_of(99, 99); /* past the room: must stay as it is */
  struct tutti__budget mem = {0};
  uint64_t budget = 1000;
  struct tutti_evlog L = {.lent = room, .mem = &mem, .budget = &budget};
  for (uint32_t i = 0; i < EVLOG_LENT; i++) {
    struct tutti_ev e = ev_of(3, i);
    cr_assert(eq(u32, tutti__evlog_push(&L, &e), i));
  }
  cr_assert(eq(ptr, (void *)L.ev, (void *)room));
  cr_assert(eq(u64, mem.used, 0), "the room is the rank's memory: not charged again");
  cr_assert(eq(u64, budget, 1000 - EVLOG_LENT), "events are taken from the budget all the same");
  struct tutti_ev e = ev_of(3, EVLOG_LENT);
  cr_assert(eq(u32, tutti__evlog_push(&L, &e), EVLOG_LENT));
  cr_assert(ne(ptr, (void *)L.ev, (void *)room));
  cr_assert(eq(u32, L.cap, 2 * EVLOG_LENT));
  cr_assert(eq(u64, mem.used, (uint64_t)L.cap * sizeof(struct tutti_ev)));
  for (uint32_t i = 0; i <= EVLOG_LENT; i++) {
    struct tutti_ev want = ev_of(3, i);
    cr_assert(eq(u64, L.ev[i].bytes, want.bytes), "event %u", i);
  }
  cr_assert(eq(u64, room[EVLOG_LENT].bytes, ev_of(99, 99).bytes));
  tutti__evlog_free(&L);
  cr_assert(eq(u64, mem.used, 0));
  cr_assert(eq(u64, budget, 1000));
  cr_assert(eq(u64, mem.by[TUTTI__MEM_LOGS], 0));
  /* freed: the room serves again */
  cr_assert(eq(u32, tutti__evlog_push(&L, &e), 0));
  cr_assert(eq(ptr, (void *)L.ev, (void *)room));
  cr_assert(eq(u64, mem.used, 0));
  tutti__evlog_free(&L);
}

/* The resident bytes of the mapping that holds address p
 * (/proc/self/smaps), or -1 when it cannot be read. */
static long resident_of(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int in = 0;
  long kb = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping's first line */
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
      break;
  }
  fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

/* A few logs in the arena make only their blocks resident: the free
 * blocks the first split leaves at every order up to the arena's top
 * (gigabytes) keep their links outside, so no 2 MiB page beyond the logs
 * is touched. */
Test(evlog, the_arena_holds_little_more_than_its_logs, .timeout = 30) {
  struct tutti_evlog L[4] = {0};
  struct tutti_ev e = ev_of(0, 0);
  for (int k = 0; k < 4; k++)
    for (uint32_t i = 0; i < 513; i++) cr_assert(eq(u32, tutti__evlog_push(&L[k], &e), i));
  for (int k = 0; k < 4; k++) cr_assert(eq(int, L[k].order, 14), "log %d: an arena block", k);
  long rss = resident_of(L[0].ev);
  if (rss < 0) cr_skip("no /proc/self/smaps");
  /* 64 KiB of blocks: at most the 2 MiB page that holds them, and one
   * more where a previous test's blocks were */
  cr_assert(le(long, rss, 4L << 20), "the arena holds %ld KiB for 64 KiB of logs", rss >> 10);
  for (int k = 0; k < 4; k++) tutti__evlog_free(&L[k]);
}

/* A SEND is stored with its ordinal among the log's sends as its ref,
 * whatever it was pushed with (the replay numbers messages from it);
 * other events keep theirs. Clearing the log starts the count again. */
Test(evlog, sends_are_numbered, .timeout = 30) {
  struct tutti_evlog L = {0};
  for (int round = 0; round < 2; round++) {
    uint32_t sends = 0;
    for (uint32_t i = 0; i < 5000; i++) {
      int kind = i % 3 == 0 ? TUTTI_EV_SEND : i % 3 == 1 ? TUTTI_EV_RECV : TUTTI_EV_WAIT;
      struct tutti_ev e = {.kind = (uint8_t)kind, .peer = 1, .ref = 777 + i};
      cr_assert(eq(u32, tutti__evlog_push(&L, &e), i));
      sends += kind == TUTTI_EV_SEND;
    }
    cr_assert(eq(u32, L.nsend, sends));
    for (uint32_t i = 0; i < L.n; i++)
      cr_assert(eq(u32, L.ev[i].ref, i % 3 == 0 ? i / 3 : 777 + i), "event %u", i);
    tutti__evlog_clear(&L);
    cr_assert(eq(u32, L.nsend, 0));
  }
  tutti__evlog_free(&L);
}
