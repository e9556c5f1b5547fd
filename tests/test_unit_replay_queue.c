/*
 * test_unit_replay_queue.c -- the replay's event queue (runtime/
 * replay_queue.h) against a plain sorted reference: every entry comes out
 * in (time, key) order, qpeek shows the entry qpop then takes, qahead
 * (where it answers) the one taken d takes later, and the chunks of
 * emptied buckets are reused, so the queue's memory follows its live
 * entries. The sequences are driven the way the replay drives it:
 * each push no earlier than the entry last taken, except a few equal-time
 * pushes of a lower key (rule 8's zero-cost wake-ups, the `early` heap).
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdlib.h>
#include <string.h>

#include "replay_queue.h"

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* The reference: the pending entries, unsorted; its minimum by a scan. */
struct ref {
  struct hent *a;
  size_t n;
};

static size_t ref_min(const struct ref *r) {
  size_t m = 0;
  for (size_t i = 1; i < r->n; i++)
    if (hless(r->a[i], r->a[m])) m = i;
  return m;
}

/* Take the queue's next entry, checking it against the reference's. */
static struct hent take(struct queue *q, struct ref *r) {
  size_t m = ref_min(r);
  struct hent want = r->a[m], peeked = qpeek(q), got;
  r->a[m] = r->a[--r->n];
  cr_assert(eq(int, qpop(q, &got), 0));
  cr_assert(eq(u64, got.t, want.t));
  cr_assert(eq(u64, got.k, want.k));
  cr_assert(eq(u64, peeked.t, want.t));
  cr_assert(eq(u64, peeked.k, want.k));
  cr_assert(eq(sz, q->n, r->n));
  return got;
}

static void push(struct queue *q, struct ref *r, uint64_t t, uint64_t k) {
  cr_assert(eq(int, qpush(q, (tutti__tu_t)t, k), 0));
  r->a[r->n++] = (struct hent){t, k};
}

/* A random DES: `pending` entries at most, `steps` takes; each take pushes
 * 0 to 2 entries: at the same time (a tie: keys above the one taken, or,
 * one time in `early_every`, below it), a little later, or much later.
 * Keys are unique, as the replay's are (rank or message id in them). */
static void des(uint64_t seed, size_t pending, size_t steps, unsigned early_every) {
  struct queue q = {0};
  struct ref r = {malloc((pending + 3 * steps + 8) * sizeof *r.a), 0};
  uint64_t next_key = 1;
  for (size_t i = 0; i < pending; i++) push(&q, &r, xorshift(&seed) % 1000, next_key++ << 8);
  for (size_t s = 0; s < steps && r.n; s++) {
    struct hent h = take(&q, &r);
    unsigned pushes = (unsigned)(xorshift(&seed) % 3);
    for (unsigned j = 0; j < pushes && r.n < pending; j++) {
      uint64_t x = xorshift(&seed), t = h.t;
      switch (x % 4) {
      case 0: /* a tie */
        break;
      case 1:
        t += x >> 60;
        break;
      case 2:
        t += (x >> 32) % 5000;
        break;
      default:
        t += x >> 20;
      }
      uint64_t k = next_key++ << 8;
      if (t == h.t && early_every && x % early_every == 0) k = h.k - 1 - (x >> 56); /* below */
      push(&q, &r, t, k);
    }
  }
  while (r.n) take(&q, &r);
  cr_assert(eq(sz, q.n, 0));
  qfree(&q);
  free(r.a);
}

Test(replay_queue, random_des_in_order, .timeout = 60) {
  for (uint64_t seed = 1; seed <= 20; seed++) des(seed * 0x9e3779b97f4a7c15u, 300, 20000, 0);
}

Test(replay_queue, zero_cost_ties_below_the_last_taken, .timeout = 60) {
  for (uint64_t seed = 1; seed <= 20; seed++) des(seed * 0x2545f4914f6cdd1du, 300, 20000, 5);
}

/* Many entries at one time, pushed in key order (ranks starting at 0) and
 * in reverse: the first taken as a FIFO, the second moved down. */
Test(replay_queue, one_time_runs_and_reversed, .timeout = 30) {
  struct queue q = {0};
  struct ref r = {malloc(20000 * sizeof *r.a), 0};
  for (uint64_t i = 0; i < 5000; i++) push(&q, &r, 7, i << 32);
  for (uint64_t i = 5000; i > 0; i--) push(&q, &r, 9, (i << 32) | 1);
  for (uint64_t i = 0; i < 5000; i++) push(&q, &r, 8, (UINT64_C(1) << 63) | i);
  while (r.n) take(&q, &r);
  qfree(&q);
  free(r.a);
}

/* qahead(d), where it answers, names the entry taken d takes after the
 * next one when nothing is pushed meanwhile -- within a run, across its
 * chunks, and among entries moved down. */
static void check_ahead(struct queue *q, struct ref *r, uint32_t d) {
  while (r->n > d) {
    const struct hent *a = qahead(q, d);
    if (!a) {
      take(q, r);
      continue;
    }
    struct hent want = *a;
    for (uint32_t i = 0; i < d; i++) take(q, r);
    struct hent got = take(q, r);
    cr_assert(eq(u64, got.t, want.t));
    cr_assert(eq(u64, got.k, want.k));
  }
  while (r->n) take(q, r);
}

Test(replay_queue, ahead_names_what_is_taken_later, .timeout = 30) {
  static const uint32_t ds[] = {1, 3, 8, 200};
  uint64_t seed = 7;
  for (size_t j = 0; j < sizeof ds / sizeof ds[0]; j++) {
    struct queue q = {0};
    struct ref r = {malloc(4000 * sizeof *r.a), 0};
    for (uint64_t i = 0; i < 1000; i++) push(&q, &r, 5, i << 32);                   /* a run */
    for (uint64_t i = 0; i < 1000; i++) push(&q, &r, 6 + xorshift(&seed) % 999, i); /* not */
    cr_assert(ne(ptr, (void *)qahead(&q, ds[j]), NULL), "a run's entries are known ahead");
    check_ahead(&q, &r, ds[j]);
    qfree(&q);
    free(r.a);
  }
}

/* A stream that keeps 1000 entries pending through 10^6 takes holds the
 * chunks of about 1000 entries, not of all it ever held. */
Test(replay_queue, memory_follows_live_entries, .timeout = 30) {
  struct queue q = {0};
  uint64_t seed = 42;
  for (uint64_t i = 0; i < 1000; i++) cr_assert(eq(int, qpush(&q, (tutti__tu_t)i, i), 0));
  for (uint64_t i = 1000; i < 1001000; i++) {
    struct hent h;
    cr_assert(eq(int, qpop(&q, &h), 0));
    uint64_t t = h.t + 1 + xorshift(&seed) % 2000;
    cr_assert(eq(int, qpush(&q, (tutti__tu_t)t, i), 0));
  }
  cr_assert(eq(sz, q.n, 1000));
  cr_assert(le(sz, q.bytes, (size_t)1000 * sizeof(struct hent) * 3 + 64 * sizeof(struct qchunk)),
            "%zu bytes for 1000 entries", q.bytes);
  qfree(&q);
}
