/*
 * replay_queue.h -- the replay's event queue (replay.c): the pending
 * activities, taken strictly in (time, tie key) order.
 *
 * The idea: a radix heap whose buckets are runs. A discrete-event
 * simulation takes its activities in nondecreasing order and creates none
 * earlier than the one it handles (its costs are >= 0); a radix heap is
 * built for exactly that. Keys are integers never below `last`, and an
 * entry sits in the bucket of the highest digit in which it differs from
 * `last` and its value there, so every key of bucket i is below every key
 * of bucket j > i and a push is an append. The lowest nonempty bucket
 * holds the next entry:
 *   - if its entries were appended in order (a run: many ranks at one
 *     time, pushed in rank order, or a stream of later and later
 *     arrivals), they are taken from its front one by one, as a FIFO;
 *   - else its minimum becomes `last` and the others move to the buckets
 *     below (an entry only ever moves down, a few times in practice),
 *     where the runs among them stay runs.
 * A binary heap instead pays about log2(n) unpredictable comparisons at
 * every take, and the replay keeps thousands of activities pending. Each
 * bucket keeps its minimum, so the next entry can be looked at (qpeek)
 * without moving anything.
 *
 * The key is 128 bits: time (the high word) and the tie key k (replay_sim.h,
 * struct hent). Rule 8 can create an entry below `last`: an activity at t
 * whose zero cost wakes a rank at t (class RANK sorts before PORT). Such
 * entries go to a small binary heap, `early`, which is always below `last`
 * and so is taken first (replay.c's header: causality first).
 *
 * Memory: a bucket is a chain of fixed-size chunks, and a chunk taken
 * empty goes back to the queue's free list for any bucket to reuse, so the
 * queue holds about its live entries (plus a chunk per bucket in use), not
 * what each bucket once held -- on a hypervisor, fresh pages cost more
 * than the work done on them.
 */
#ifndef TUTTI_REPLAY_QUEUE_H
#define TUTTI_REPLAY_QUEUE_H

#include <stdint.h>
#include <stdlib.h>

#include "replay_sim.h"

static inline int hless(struct hent a, struct hent b) {
  return a.t < b.t || (a.t == b.t && a.k < b.k);
}

/* ------------------------------------------------- early: a binary heap */

static inline int heap_push(struct heap *h, struct hent e) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 64;
    struct hent *p = realloc(h->a, cap * sizeof *p);
    if (!p) return TUTTI_ENOMEM;
    h->a = p;
    h->cap = cap;
  }
  size_t i = h->n++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!hless(e, h->a[p])) break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = e;
  return 0;
}

static inline struct hent heap_pop(struct heap *h) {
  struct hent top = h->a[0];
  struct hent e = h->a[--h->n];
  size_t n = h->n, i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && hless(h->a[c + 1], h->a[c])) c++;
    if (!hless(h->a[c], e)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n) h->a[i] = e;
  return top;
}

/* ---------------------------------------------------------- the chunks */

static inline struct qchunk *chunk_get(struct queue *q) {
  struct qchunk *c = q->spare;
  if (c) {
    q->spare = c->next;
  } else {
    c = malloc(sizeof *c);
    if (!c) return NULL;
    q->bytes += sizeof *c;
  }
  c->next = NULL;
  c->n = 0;
  return c;
}

static inline void chunk_put(struct queue *q, struct qchunk *c) {
  c->next = q->spare;
  q->spare = c;
}

/* ------------------------------------------------------ the radix heap */

/* The key as one 128-bit number is 32 digits of QDIGIT = 4 bits. Bucket
 * 0: equal to last; else 1 + 15 d + (v - 1) when the key differs from
 * last first in digit d (0..31, 16..31 the time's), where it has the
 * value v (1..15: it is above last). The buckets are in key order; the
 * wider a digit, the fewer times an entry moves down (at most once a
 * digit), against more buckets to keep: 16 ways a digit, not 4, halve
 * the digits an entry can move through, and the 481 buckets' headers
 * take 23 KiB. */
static inline unsigned qindex(const struct queue *q, struct hent e) {
  unsigned b; /* the highest differing bit, 0..127 */
  if (e.t != q->last.t)
    b = 127 - (unsigned)__builtin_clzll(e.t ^ q->last.t);
  else if (e.k != q->last.k)
    b = 63 - (unsigned)__builtin_clzll(e.k ^ q->last.k);
  else
    return 0;
  unsigned d = b / QDIGIT, sh = d * QDIGIT;
  unsigned v = (unsigned)((sh < 64 ? e.k >> sh : e.t >> (sh - 64)) & (QWAYS - 1));
  return 1 + (QWAYS - 1) * d + v - 1;
}

static inline int qappend(struct queue *q, unsigned i, struct hent e) {
  struct qbucket *b = &q->b[i];
  struct qchunk *t = b->tail;
  if (!t) { /* empty: a new run */
    if (!(t = chunk_get(q))) return TUTTI_ENOMEM;
    b->head = b->tail = t;
    b->first = 0;
    b->sorted = 1;
    b->min = e;
    q->nonempty[i >> 6] |= UINT64_C(1) << (i & 63);
  } else {
    if (hless(e, t->e[t->n - 1])) b->sorted = 0;
    if (hless(e, b->min)) b->min = e;
    if (t->n == QCHUNK) {
      if (!(t = chunk_get(q))) return TUTTI_ENOMEM;
      b->tail = b->tail->next = t;
    }
  }
  t->e[t->n++] = e;
  return 0;
}

static inline int qpush(struct queue *q, tutti__tu_t t, uint64_t k) {
  struct hent e = {(uint64_t)t, k}; /* t >= 0: unsigned order is numeric order */
  int rc = hless(e, q->last) ? heap_push(&q->early, e) : qappend(q, qindex(q, e), e);
  if (!rc && ++q->n > q->peak) q->peak = q->n;
  return rc;
}

/* The lowest nonempty bucket; the queue holds something outside early. */
static inline unsigned qlowest(const struct queue *q) {
  for (unsigned w = 0;; w++)
    if (q->nonempty[w]) return 64 * w + (unsigned)__builtin_ctzll(q->nonempty[w]);
}

/* The next entry (the queue is not empty), without taking it. */
static inline struct hent qpeek(const struct queue *q) {
  return q->early.n ? q->early.a[0] : q->b[qlowest(q)].min;
}

/* Entry d of bucket b's run counted from its next one (d = 0), or NULL
 * past its end. The run's entries are taken in this order unless
 * something earlier is pushed meanwhile. */
static inline const struct hent *qrun_at(const struct qbucket *b, uint32_t d) {
  const struct qchunk *c = b->head;
  uint32_t j = b->first + d;
  if (j < c->n) return &c->e[j];
  j -= c->n;
  return c->next && j < c->next->n ? &c->next->e[j] : NULL;
}

/* The entry d places after the next one, when the next ones are a run's;
 * NULL when that is not known cheaply. */
static inline const struct hent *qahead(const struct queue *q, uint32_t d) {
  if (q->early.n || !q->n) return NULL;
  const struct qbucket *b = &q->b[qlowest(q)];
  return b->sorted ? qrun_at(b, d) : NULL;
}

static inline void qempty(struct queue *q, unsigned i) {
  q->b[i].head = q->b[i].tail = NULL;
  q->nonempty[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

/* Take the next entry (the queue is not empty) into *out. 0, or
 * TUTTI_ENOMEM when a bucket below could not grow (the queue is then
 * broken: the replay fails). A run's entries leave `last` as it is: the
 * rest of the run still differs from it at the run's bit, and whatever is
 * pushed meanwhile is no lower than what was taken. */
static inline int qpop(struct queue *q, struct hent *out) {
  q->n--;
  if (q->early.n) {
    *out = heap_pop(&q->early);
    return 0;
  }
  unsigned i = qlowest(q);
  struct qbucket *b = &q->b[i];
  struct qchunk *c = b->head;
  *out = b->min;
  if (b->sorted) { /* a run: its first entry */
    if (++b->first == c->n) {
      if (c == b->tail) {
        chunk_put(q, c);
        qempty(q, i);
        return 0;
      }
      b->head = c->next;
      b->first = 0;
      chunk_put(q, c);
    }
    b->min = b->head->e[b->first];
    return 0;
  }
  /* its minimum becomes last; the others move below (none to bucket i) */
  q->last = b->min;
  int seen = 0;
  uint32_t j = b->first;
  qempty(q, i);
  while (c) {
    for (; j < c->n; j++) {
      struct hent e = c->e[j];
      if (!seen && e.t == out->t && e.k == out->k)
        seen = 1;
      else if (qappend(q, qindex(q, e), e))
        goto nomem;
    }
    struct qchunk *next = c->next;
    chunk_put(q, c);
    c = next;
    j = 0;
  }
  return 0;
nomem: /* the chunks not yet moved go back, for qfree */
  for (struct qchunk *next; c; c = next) {
    next = c->next;
    chunk_put(q, c);
  }
  return TUTTI_ENOMEM;
}

static inline void qfree(struct queue *q) {
  for (unsigned i = 0; i < QBUCKETS; i++)
    for (struct qchunk *c = q->b[i].head, *next; c; c = next) {
      next = c->next;
      free(c);
    }
  for (struct qchunk *c = q->spare, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(q->early.a);
}

#endif
