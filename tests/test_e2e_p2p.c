/*
 * test_e2e_p2p.c -- point-to-point messaging: data integrity on both sides
 * of the eager threshold, non-overtaking order under many concurrent
 * senders, truncation, zero-length messages, self and PROC_NULL peers,
 * nonblocking calls (an eager isend complete once posted), wildcards, bad
 * arguments; a rank's scratch blocks. The world and failures:
 * test_e2e_world.c.
 */
#include <limits.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "tutti/tutti.h"

#include "p2p_helpers.h"

static uint8_t pattern(int src, int dst, size_t i) {
  return (uint8_t)(src * 31 + dst * 7 + i * 13);
}

/* ------------------------------------------------------- data integrity */

struct xfer {
  size_t bytes;
  int rounds;
};

/* Rank 0 and 1 ping-pong `bytes` (patterned, checked each way); with more
 * ranks, every pair (i, i^1) does it. */
static int pingpong_fn(tutti_rank_t *r, void *arg) {
  const struct xfer *x = arg;
  int me = tutti_rank(r), peer = me ^ 1;
  if (peer >= tutti_size(r)) return 0;
  uint8_t *buf = malloc(x->bytes + 1);
  int rc = 0;
  for (int k = 0; k < x->rounds && !rc; k++) {
    int sender = k % 2 == (me & 1);
    if (sender) {
      for (size_t i = 0; i < x->bytes; i++) buf[i] = pattern(me, peer, i + k);
      rc = tutti_send(r, buf, (long)x->bytes, TUTTI_BYTE, peer, k);
    } else {
      tutti_status_t st;
      memset(buf, 0, x->bytes);
      rc = tutti_recv(r, buf, (long)x->bytes, TUTTI_BYTE, peer, k, &st);
      if (!rc && (st.source != peer || st.tag != k || st.bytes != x->bytes)) rc = -100;
      for (size_t i = 0; !rc && i < x->bytes; i++)
        if (buf[i] != pattern(peer, me, i + k)) rc = -101;
    }
  }
  free(buf);
  return rc;
}

Test(p2p, eager_and_rendezvous_around_threshold, .timeout = 60) {
  const size_t limit = 1000;
  size_t sizes[] = {0, 1, 8, limit - 1, limit, limit + 1, 70000, 3u << 20};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    tutti_world_t *w = world(4, limit, 0, -1);
    struct xfer x = {sizes[s], 6};
    cr_assert(eq(int, tutti_world_run(w, pingpong_fn, &x), 0), "size %zu: %s", sizes[s],
              tutti_world_error(w));
    tutti_stats_t st;
    cr_assert(eq(int, tutti_world_stats(w, &st), 0));
    cr_assert(eq(u64, st.messages, 4 * 6 / 2));
    cr_assert(eq(u64, st.bytes, (uint64_t)sizes[s] * 12));
    if (sizes[s] < limit)
      cr_assert(eq(u64, st.eager, 12), "size %zu", sizes[s]);
    else
      cr_assert(eq(u64, st.rendezvous, 12), "size %zu", sizes[s]);
    tutti_world_destroy(w);
  }
}

/* One stream mixing both protocols, blocking and nonblocking sends, and
 * receives posted early (a window of irecvs) and late: the receiver reads
 * the inbox's last message in place, so this checks that an eager buffer
 * read that way, and a rendezvous envelope completed that way, are handed
 * back only when it is safe (the sender reuses both at once). */
#define MIX_MSGS 3000
#define MIX_WINDOW 3
static size_t mix_bytes(int k) {
  static const size_t sizes[] = {8, 0, 3000, 16, 700, 64, 5000, 8, 1};
  return sizes[k % (int)(sizeof sizes / sizeof *sizes)];
}

static int mixed_fn(tutti_rank_t *r, void *arg) {
  (void)arg;
  int me = tutti_rank(r), p = tutti_size(r), rc = 0;
  uint8_t *buf = calloc(MIX_WINDOW, 5000);
  if (me > 0) { /* every other rank streams to rank 0 */
    for (int k = 0; k < MIX_MSGS && !rc; k++) {
      size_t n = mix_bytes(k);
      for (size_t i = 0; i < n; i++) buf[i] = pattern(me, 0, i + (size_t)k);
      if (k % 4 == 3) { /* nonblocking, then the buffer is reused at once */
        tutti_request_t q;
        rc = tutti_isend(r, buf, (long)n, TUTTI_BYTE, 0, k, &q);
        if (!rc) rc = tutti_wait(r, &q, NULL);
      } else {
        rc = tutti_send(r, buf, (long)n, TUTTI_BYTE, 0, k);
      }
    }
    free(buf);
    return rc;
  }
  for (int s = 1; s < p && !rc; s++) {
    tutti_request_t q[MIX_WINDOW];
    for (int k = 0; k < MIX_MSGS && !rc; k += MIX_WINDOW) {
      int n = MIX_MSGS - k < MIX_WINDOW ? MIX_MSGS - k : MIX_WINDOW;
      for (int j = 0; j < n && !rc; j++) /* even windows early, odd ones one by one */
        if ((k / MIX_WINDOW) % 2 == 0)
          rc = tutti_irecv(r, buf + 5000 * j, 5000, TUTTI_BYTE, s, k + j, &q[j]);
      for (int j = 0; j < n && !rc; j++) {
        tutti_status_t st;
        if ((k / MIX_WINDOW) % 2 == 0)
          rc = tutti_wait(r, &q[j], &st);
        else
          rc = tutti_recv(r, buf + 5000 * j, 5000, TUTTI_BYTE, s, k + j, &st);
        if (!rc && st.bytes != mix_bytes(k + j)) rc = -100;
        for (size_t i = 0; !rc && i < st.bytes; i++)
          if (buf[5000 * j + i] != pattern(s, 0, i + (size_t)(k + j))) rc = -101;
      }
    }
  }
  free(buf);
  return rc;
}

Test(p2p, mixed_protocols_in_one_stream, .timeout = 60) {
  int sizes[] = {2, 3, 9};
  for (int i = 0; i < 3; i++) {
    tutti_world_t *w = world(sizes[i], 1024, 0, -1);
    cr_assert(eq(int, tutti_world_run(w, mixed_fn, NULL), 0), "P=%d: %s", sizes[i],
              tutti_world_error(w));
    tutti_world_destroy(w);
    w = world(sizes[i], 1024, TUTTI_PERTURB, -1);
    cr_assert(eq(int, tutti_world_run(w, mixed_fn, NULL), 0), "P=%d perturbed: %s", sizes[i],
              tutti_world_error(w));
    tutti_world_destroy(w);
  }
}

Test(p2p, sleeping_path_without_spinning, .timeout = 60) {
  tutti_world_t *w = world(8, 256, 0, 0); /* spin 0: every wait sleeps on the futex */
  struct xfer x = {300, 200};
  cr_assert(eq(int, tutti_world_run(w, pingpong_fn, &x), 0), "%s", tutti_world_error(w));
  x.bytes = 100;
  cr_assert(eq(int, tutti_world_run(w, pingpong_fn, &x), 0), "%s", tutti_world_error(w));
  tutti_stats_t st;
  tutti_world_stats(w, &st);
  cr_assert(gt(u64, st.sleeps, 0));
  tutti_world_destroy(w);
}

static int zero_fn(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r);
  tutti_status_t st;
  long n = -1;
  if (me == 0) {
    int rc = tutti_send(r, NULL, 0, TUTTI_DOUBLE, 1, 5);
    return rc ? rc : tutti_send(r, NULL, 0, TUTTI_INT32, 1, 6);
  }
  if (me == 1) {
    int rc = tutti_recv(r, NULL, 0, TUTTI_DOUBLE, 0, 5, &st);
    if (rc || st.bytes != 0 || st.tag != 5 || st.source != 0) return rc ? rc : -100;
    if (tutti_status_count(&st, TUTTI_DOUBLE, &n) || n != 0) return -101;
    double d;
    rc = tutti_recv(r, &d, 1, TUTTI_DOUBLE, 0, 6, &st); /* a larger buffer takes an empty message */
    if (rc || st.bytes != 0) return rc ? rc : -102;
  }
  return 0;
}

Test(p2p, zero_element_messages, .timeout = 20) {
  size_t limits[] = {0, 64}; /* rendezvous and eager */
  for (int i = 0; i < 2; i++) {
    tutti_world_t *w = world(3, limits[i], 0, -1);
    cr_assert(eq(int, tutti_world_run(w, zero_fn, NULL), 0), "%s", tutti_world_error(w));
    tutti_world_destroy(w);
  }
}

static int self_fn(tutti_rank_t *r, void *arg) {
  size_t n = *(size_t *)arg;
  char *a = malloc(n), *b = malloc(n);
  for (size_t i = 0; i < n; i++) a[i] = (char)i;
  tutti_request_t s;
  int rc = tutti_isend(r, a, (long)n, TUTTI_BYTE, tutti_rank(r), 1, &s);
  if (!rc) rc = tutti_recv(r, b, (long)n, TUTTI_BYTE, tutti_rank(r), 1, NULL);
  if (!rc) rc = tutti_wait(r, &s, NULL);
  if (!rc && (memcmp(a, b, n) || s != TUTTI_REQUEST_NULL)) rc = -100;
  free(a), free(b);
  return rc;
}

Test(p2p, one_rank_sends_to_itself, .timeout = 20) {
  size_t sizes[] = {16, 4096};
  for (int i = 0; i < 2; i++) {
    tutti_world_t *w = world(1, 1024, 0, -1);
    cr_assert(eq(int, tutti_world_run(w, self_fn, &sizes[i]), 0), "%s", tutti_world_error(w));
    tutti_world_destroy(w);
  }
}

static int proc_null_fn(tutti_rank_t *r, void *arg) {
  tutti_status_t st;
  int x = 1;
  int rc = tutti_send(r, &x, 1, TUTTI_INT32, TUTTI_PROC_NULL, 0);
  if (!rc) rc = tutti_recv(r, &x, 1, TUTTI_INT32, TUTTI_PROC_NULL, 0, &st);
  if (!rc && (st.source != TUTTI_PROC_NULL || st.bytes != 0)) rc = -100;
  tutti_request_t q = TUTTI_REQUEST_NULL;
  if (!rc) rc = tutti_wait(r, &q, &st); /* a null request completes at once */
  return rc;
}

Test(p2p, proc_null_peers, .timeout = 20) {
  tutti_world_t *w = world(2, 64, 0, -1);
  cr_assert(eq(int, tutti_world_run(w, proc_null_fn, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* ------------------------------------------------------- non-overtaking */

#define NO_MSGS 150
#define NO_TAGS 3

struct order_arg {
  int wildcard; /* rank 0 receives with ANY_SOURCE/ANY_TAG */
  size_t bytes; /* payload size (mixes eager and rendezvous by limit) */
};

/* Every rank but 0 sends NO_MSGS messages to 0, tag k % NO_TAGS, payload
 * (src, tag, seq). Rank 0 checks that per (src, tag) the sequence numbers
 * come in order: the non-overtaking rule. */
static int order_fn(tutti_rank_t *r, void *arg) {
  const struct order_arg *a = arg;
  int me = tutti_rank(r), p = tutti_size(r);
  size_t words = a->bytes / sizeof(int64_t) < 3 ? 3 : a->bytes / sizeof(int64_t);
  int64_t *buf = calloc(words, sizeof *buf);
  int rc = 0;
  if (me != 0) {
    /* All in flight at once (rendezvous ones too), so that the receiver's
     * tag order can differ from the send order without a deadlock. */
    int64_t *all = calloc((size_t)NO_MSGS * words, sizeof *all);
    tutti_request_t q[NO_MSGS];
    for (int k = 0; k < NO_MSGS && !rc; k++) {
      int64_t *b = all + (size_t)k * words;
      b[0] = me, b[1] = k % NO_TAGS, b[2] = k;
      rc = tutti_isend(r, b, (long)words, TUTTI_INT64, 0, k % NO_TAGS, &q[k]);
    }
    if (!rc) rc = tutti_waitall(r, NO_MSGS, q, NULL);
    free(all);
  } else {
    int *next = calloc((size_t)p * NO_TAGS, sizeof *next);
    if (a->wildcard) {
      int *last = calloc((size_t)p, sizeof *last);
      for (int i = 0; i < (p - 1) * NO_MSGS && !rc; i++) {
        tutti_status_t st;
        rc = tutti_recv(r, buf, (long)words, TUTTI_INT64, TUTTI_ANY_SOURCE, TUTTI_ANY_TAG, &st);
        if (rc) break;
        int s = (int)buf[0], t = (int)buf[1], k = (int)buf[2];
        if (st.source != s || st.tag != t)
          rc = -100;
        else if (k != next[s * NO_TAGS + t] * NO_TAGS + t)
          rc = -101; /* order per (src, tag) */
        else if (k < last[s])
          rc = -102; /* and per source */
        next[s * NO_TAGS + t]++;
        last[s] = k;
      }
      free(last);
    } else {
      /* Receive the sources in a scrambled order, each source's tags
       * interleaved: specific receives must still see each (src, tag) in
       * order. */
      for (int j = 0; j < p - 1 && !rc; j++) {
        int s = 1 + (j * 7919) % (p - 1);
        for (int k = 0; k < NO_MSGS && !rc; k++) {
          int t = (k * 5) % NO_TAGS;
          rc = tutti_recv(r, buf, (long)words, TUTTI_INT64, s, t, NULL);
          if (!rc && (buf[0] != s || buf[1] != t || buf[2] != next[s * NO_TAGS + t] * NO_TAGS + t))
            rc = -103;
          next[s * NO_TAGS + t]++;
        }
      }
    }
    free(next);
  }
  free(buf);
  return rc;
}

static void run_order(int n, struct order_arg a, size_t limit, unsigned flags, int spin) {
  tutti_world_t *w = world(n, limit, flags, spin);
  cr_assert(eq(int, tutti_world_run(w, order_fn, &a), 0), "n=%d wildcard=%d bytes=%zu: %s", n,
            a.wildcard, a.bytes, tutti_world_error(w));
  tutti_world_destroy(w);
}

Test(order, non_overtaking_specific_receives, .timeout = 120) {
  run_order(17, (struct order_arg){0, 24}, 1024, 0, -1);   /* eager */
  run_order(17, (struct order_arg){0, 2048}, 1024, 0, -1); /* rendezvous */
  run_order(31, (struct order_arg){0, 24}, 1024, 0, 0);    /* always sleeping */
}

Test(order, non_overtaking_wildcard_receives, .timeout = 120) {
  run_order(17, (struct order_arg){1, 24}, 1024, 0, -1);
  run_order(17, (struct order_arg){1, 2048}, 1024, 0, -1);
  run_order(64, (struct order_arg){1, 24}, 1024, 0, -1);
}

Test(order, non_overtaking_under_perturbed_scheduling, .timeout = 120) {
  run_order(9, (struct order_arg){0, 24}, 1024, TUTTI_PERTURB, -1);
  run_order(9, (struct order_arg){1, 2048}, 1024, TUTTI_PERTURB, -1);
}

/* ------------------------------------------------------------ truncation */

/* Rank 0 sends n int64s to rank 1, which first receives 4 of them. With
 * `warm`, the pair first exchanges enough small messages (and an ack) for
 * rank 0 to use its fastbox to rank 1, so that the truncated message sits
 * in a box. */
struct trunc_arg {
  long n;
  int warm;
};

static int trunc_fn(tutti_rank_t *r, void *arg) {
  const struct trunc_arg *a = arg;
  int me = tutti_rank(r), rc = 0;
  int64_t v[10], ack = 0;
  if (me > 1) return 0;
  for (int i = 0; a->warm && i < 20 && !rc; i++)
    rc = me == 0 ? tutti_send(r, &ack, 1, TUTTI_INT64, 1, 9)
                 : tutti_recv(r, &ack, 1, TUTTI_INT64, 0, 9, NULL);
  if (a->warm && !rc)
    rc = me == 1 ? tutti_send(r, &ack, 1, TUTTI_INT64, 0, 8)
                 : tutti_recv(r, &ack, 1, TUTTI_INT64, 1, 8, NULL);
  if (rc) return rc;
  if (me == 0) {
    for (int i = 0; i < a->n; i++) v[i] = 100 + i;
    return tutti_send(r, v, a->n, TUTTI_INT64, 1, 3);
  }
  tutti_status_t st;
  rc = tutti_recv(r, v, 4, TUTTI_INT64, 0, 3, &st);
  if (rc != TUTTI_ETRUNCATE) return -100;
  if (st.bytes != (size_t)a->n * 8 || st.error != TUTTI_ETRUNCATE || st.source != 0) return -101;
  long n;
  tutti_status_count(&st, TUTTI_INT64, &n);
  if (n != a->n) return -102;
  memset(v, 0, sizeof v);
  rc = tutti_recv(r, v, 10, TUTTI_INT64, 0, 3, &st); /* the message was kept */
  if (rc) return rc;
  for (int i = 0; i < a->n; i++)
    if (v[i] != 100 + i) return -103;
  return 0;
}

Test(p2p, truncation_keeps_the_message, .timeout = 20) {
  size_t limits[] = {0, 4096};
  struct trunc_arg args[] = {{10, 0}, {6, 0}, {6, 1}, {10, 1}};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 4; k++) {
      tutti_world_t *w = world(2, limits[i], 0, -1);
      cr_assert(eq(int, tutti_world_run(w, trunc_fn, &args[k]), 0), "limit %zu n=%ld warm=%d: %s",
                limits[i], args[k].n, args[k].warm, tutti_world_error(w));
      tutti_world_destroy(w);
    }
}

/* ------------------------------------------------------- nonblocking, test */

static int nb_fn(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), p = tutti_size(r);
  enum { K = 8 };
  int32_t out[K], in[K];
  tutti_request_t q[2 * K];
  tutti_status_t st[2 * K];
  for (int k = 0; k < K; k++) {
    out[k] = me * 1000 + k;
    int rc = tutti_irecv(r, &in[k], 1, TUTTI_INT32, (me + p - 1) % p, k, &q[K + k]);
    if (rc) return rc;
  }
  for (int k = K - 1; k >= 0; k--) {
    int rc = tutti_isend(r, &out[k], 1, TUTTI_INT32, (me + 1) % p, k, &q[k]);
    if (rc) return rc;
  }
  /* poll one with test, then wait for all */
  int flag = 0, rc;
  while (!flag)
    if ((rc = tutti_test(r, &q[K], &flag, &st[K]))) return rc;
  if (q[K] != TUTTI_REQUEST_NULL) return -99;
  tutti_status_t tested = st[K];
  if ((rc = tutti_waitall(r, 2 * K, q, st))) return rc;
  if (tested.tag != 0 || tested.source != (me + p - 1) % p) return -98;
  if (st[K].source != TUTTI_PROC_NULL) return -97; /* a null request gets an empty status */
  for (int k = 1; k < K; k++) {
    if (in[k] != ((me + p - 1) % p) * 1000 + k) return -100;
    if (st[K + k].tag != k || q[k] != TUTTI_REQUEST_NULL) return -101;
  }
  return 0;
}

Test(p2p, nonblocking_waitall_and_test, .timeout = 30) {
  size_t limits[] = {0, 1024};
  for (int i = 0; i < 2; i++) {
    tutti_world_t *w = world(7, limits[i], 0, -1);
    cr_assert(eq(int, tutti_world_run(w, nb_fn, NULL), 0), "%s", tutti_world_error(w));
    tutti_world_destroy(w);
  }
}

/* An eager isend is complete once posted (its buffer is copied out): the
 * first test says so and empties the handle, the buffer may be reused at
 * once, and a send's status is empty. A plain run shares one completed
 * request among such sends, a modeled one gives each its own (to record
 * its wait): both must look the same to the caller. */
static int eager_isend_fn(tutti_rank_t *r, void *arg) {
  (void)arg;
  enum { K = 4 };
  int32_t v = 100, got[2 * K];
  int rc, flag;
  if (tutti_rank(r) == 1) {
    for (int k = 0; k < 2 * K; k++)
      if ((rc = tutti_recv(r, &got[k], 1, TUTTI_INT32, 0, k, TUTTI_STATUS_IGNORE))) return rc;
    for (int k = 0; k < 2 * K; k++)
      if (got[k] != 100 + k) return -80 - k;
    return 0;
  }
  for (int k = 0; k < K; k++, v++) { /* v changes right after each test */
    tutti_request_t q = TUTTI_REQUEST_NULL;
    tutti_status_t st = {.source = 77, .tag = 77, .error = 77, .bytes = 77};
    if ((rc = tutti_isend(r, &v, 1, TUTTI_INT32, 1, k, &q))) return rc;
    if (q == TUTTI_REQUEST_NULL) return -90; /* a request, as MPI_Isend gives one */
    if ((rc = tutti_test(r, &q, &flag, &st))) return rc;
    if (!flag || q != TUTTI_REQUEST_NULL) return -91;
    if (st.source || st.tag || st.error || st.bytes) return -92;
    if ((rc = tutti_wait(r, &q, &st))) return rc; /* now a null request */
    if (st.source != TUTTI_PROC_NULL) return -93;
  }
  tutti_request_t q[K];
  int32_t vals[K];
  for (int k = 0; k < K; k++) {
    vals[k] = v++;
    if ((rc = tutti_isend(r, &vals[k], 1, TUTTI_INT32, 1, K + k, &q[k]))) return rc;
  }
  if ((rc = tutti_waitall(r, K, q, NULL))) return rc;
  for (int k = 0; k < K; k++)
    if (q[k] != TUTTI_REQUEST_NULL) return -94;
  return 0;
}

Test(p2p, an_eager_isend_is_complete_once_posted, .timeout = 20) {
  tutti_world_t *w = world(2, 1024, 0, -1);
  cr_assert(eq(int, tutti_world_run(w, eager_isend_fn, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
  static tutti_model_t m;
  m = hockney();
  m.eager_limit = 1024;
  tutti_config_t c = tutti_config_default(2);
  c.model = &m;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, eager_isend_fn, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* ------------------------------------------------------------ bad args */

static int badargs_fn(tutti_rank_t *r, void *arg) {
  int *fails = arg;
  if (tutti_rank(r) != 0) return 0;
  int x[4] = {0};
  tutti_request_t q;
  int line = 0;
#define EXPECT(call, code)                                                                         \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != (code)) fails[line++ % 32] = __LINE__;                                              \
  } while (0)
  EXPECT(tutti_send(r, x, 1, TUTTI_INT32, 2, 0), TUTTI_ERANK);
  EXPECT(tutti_send(r, x, 1, TUTTI_INT32, -5, 0), TUTTI_ERANK);
  EXPECT(tutti_send(r, x, 1, TUTTI_INT32, TUTTI_ANY_SOURCE, 0), TUTTI_ERANK);
  EXPECT(tutti_send(r, x, -1, TUTTI_INT32, 1, 0), TUTTI_ECOUNT);
  EXPECT(tutti_send(r, x, LONG_MAX, TUTTI_INT32, 1, 0), TUTTI_ECOUNT); /* bytes overflow */
  EXPECT(tutti_recv(r, x, LONG_MAX / 2, TUTTI_INT64, 1, 0, NULL), TUTTI_ECOUNT);
  EXPECT(tutti_send(r, NULL, 1, TUTTI_INT32, 1, 0), TUTTI_EBUFFER);
  EXPECT(tutti_send(r, x, 1, TUTTI_INT32, 1, -1), TUTTI_ETAG);
  EXPECT(tutti_send(r, x, 1, TUTTI_INT32, 1, TUTTI_ANY_TAG), TUTTI_ETAG);
  EXPECT(tutti_send(r, x, 1, NULL, 1, 0), TUTTI_ETYPE);
  EXPECT(tutti_send(r, x, 1, (tutti_datatype_t)x, 1, 0), TUTTI_ETYPE);
  EXPECT(tutti_send(NULL, x, 1, TUTTI_INT32, 1, 0), TUTTI_EINVAL);
  EXPECT(tutti_recv(r, x, 1, TUTTI_INT32, 7, 0, NULL), TUTTI_ERANK);
  EXPECT(tutti_recv(r, x, -2, TUTTI_INT32, 1, 0, NULL), TUTTI_ECOUNT);
  EXPECT(tutti_recv(r, NULL, 2, TUTTI_INT32, 1, 0, NULL), TUTTI_EBUFFER);
  EXPECT(tutti_recv(r, x, 1, TUTTI_INT32, 1, -7, NULL), TUTTI_ETAG);
  EXPECT(tutti_isend(r, x, 1, TUTTI_INT32, 1, 0, NULL), TUTTI_EINVAL);
  EXPECT(tutti_irecv(r, x, 1, TUTTI_INT32, 1, 0, NULL), TUTTI_EINVAL);
  EXPECT(tutti_wait(r, NULL, NULL), TUTTI_EINVAL);
  q = (tutti_request_t)x;
  EXPECT(tutti_waitall(r, -1, &q, NULL), TUTTI_EINVAL);
  EXPECT(tutti_waitall(r, 1, NULL, NULL), TUTTI_EINVAL);
  EXPECT(tutti_sendrecv(r, x, 1, TUTTI_INT32, 1, 0, x, 1, TUTTI_INT32, 9, 0, NULL), TUTTI_ERANK);
  EXPECT(tutti_sendrecv(r, x, 1, TUTTI_INT32, 1, 0, x, -1, TUTTI_INT32, 1, 0, NULL), TUTTI_ECOUNT);
  EXPECT(tutti_compute(r, -1.0), TUTTI_EINVAL);
  EXPECT(tutti_span_end(r), TUTTI_EINVAL);
  EXPECT(tutti_span_begin(r, NULL), TUTTI_EINVAL);
  EXPECT(tutti_status_count(NULL, TUTTI_INT32, NULL), TUTTI_EINVAL);
  /* A request of another kind of pointer is refused, not followed. */
  tutti_request_t mine;
  EXPECT(tutti_irecv(r, x, 1, TUTTI_INT32, 0, 9, &mine), 0);
  int flag;
  EXPECT(tutti_test(r, &mine, &flag, NULL), 0);
  EXPECT(flag, 0);
  EXPECT(tutti_send(r, x, 1, TUTTI_INT32, 0, 9), 0); /* eager to self completes it */
  EXPECT(tutti_wait(r, &mine, NULL), 0);
  (void)q;
#undef EXPECT
  return 0;
}

Test(p2p, bad_arguments_are_rejected, .timeout = 20) {
  int fails[32] = {0};
  tutti_world_t *w = world(2, 1024, 0, -1);
  cr_assert(eq(int, tutti_world_run(w, badargs_fn, fails), 0), "%s", tutti_world_error(w));
  for (int i = 0; i < 32; i++) cr_expect(eq(int, fails[i], 0), "check at line %d failed", fails[i]);
  tutti_world_destroy(w);
}

/* Reserved tags (above TUTTI_TAG_UB) are tutti_coll_tag's: refused to
 * user code on every p2p call until a collective has taken them, so a
 * stray user message cannot become a collective's data. */
static int reserved_tags_fn(tutti_rank_t *r, void *arg) {
  int *fails = arg, line = 0, x[2] = {7, 7};
  tutti_request_t q = TUTTI_REQUEST_NULL;
  int me = tutti_rank(r), peer = 1 - me, next = TUTTI_TAG_UB + 1;
#define EXPECT(call, code)                                                                         \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != (code)) fails[2 * me + (line++ % 2)] = __LINE__;                                    \
  } while (0)
  for (int round = 0; round < 2; round++, next++) {
    /* next is the tag the coming bcast takes: no call may use it or beyond */
    int tags[] = {next, next + 1, TUTTI_TAG_MAX};
    for (int i = 0; i < 3; i++) {
      int t = tags[i];
      EXPECT(tutti_send(r, x, 1, TUTTI_INT32, peer, t), TUTTI_ETAG);
      EXPECT(tutti_isend(r, x, 1, TUTTI_INT32, peer, t, &q), TUTTI_ETAG);
      EXPECT(tutti_recv(r, x, 1, TUTTI_INT32, peer, t, NULL), TUTTI_ETAG);
      EXPECT(tutti_irecv(r, x, 1, TUTTI_INT32, peer, t, &q), TUTTI_ETAG);
      EXPECT(tutti_sendrecv(r, x, 1, TUTTI_INT32, peer, t, x + 1, 1, TUTTI_INT32, peer, 0, NULL),
             TUTTI_ETAG);
      EXPECT(tutti_sendrecv(r, x, 1, TUTTI_INT32, peer, 0, x + 1, 1, TUTTI_INT32, peer, t, NULL),
             TUTTI_ETAG);
    }
    EXPECT(q == TUTTI_REQUEST_NULL, 1);
    /* the collective takes its reserved tag and delivers the root's data */
    int v = me == 0 ? 40 + round : -1;
    EXPECT(tutti_bcast(r, &v, 1, TUTTI_INT32, 0, NULL), 0);
    EXPECT(v, 40 + round);
  }
#undef EXPECT
  return 0;
}

Test(p2p, reserved_tags_are_refused_to_user_code, .timeout = 20) {
  for (int modeled = 0; modeled < 2; modeled++) {
    int fails[4] = {0};
    tutti_world_t *w = world(2, 1024, 0, -1);
    tutti_model_t m = hockney();
    if (modeled) {
      tutti_world_destroy(w);
      tutti_config_t c = tutti_config_default(2);
      c.model = &m;
      cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    }
    cr_assert(eq(int, tutti_world_run(w, reserved_tags_fn, fails), 0), "%s", tutti_world_error(w));
    for (int i = 0; i < 4; i++)
      cr_expect(eq(int, fails[i], 0), "modeled %d: check at line %d failed", modeled, fails[i]);
    tutti_world_destroy(w);
  }
}

static int wildcard_fn(tutti_rank_t *r, void *arg) {
  int x;
  int a = tutti_recv(r, &x, 1, TUTTI_INT32, TUTTI_ANY_SOURCE, 0, NULL);
  int b = tutti_recv(r, &x, 1, TUTTI_INT32, 0, TUTTI_ANY_TAG, NULL);
  return a == TUTTI_EMODEL && b == TUTTI_EMODEL ? 0 : -1;
}

Test(p2p, modeled_runs_reject_wildcards, .timeout = 20) {
  tutti_model_t m = hockney();
  tutti_config_t c = tutti_config_default(1);
  c.model = &m;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  /* The rank fn returns 0 when both calls were refused; the replay of a
   * run with no events then succeeds. */
  cr_assert(eq(int, tutti_world_run(w, wildcard_fn, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* ------------------------------------------------------------- scratch */

/* A rank's scratch (p2p.h; runtime/scratch.c: a fiber worker keeps a
 * block one of its ranks freed for the next request that fits, its own
 * or another rank's): every block holds the bytes asked, and no block
 * overlaps another that is live, whatever the order of sizes and frees,
 * round after round and run after run, the ranks taking turns (a yield
 * after each step). Returns 0, or the line of the first failed check. */
static int scratch_fn(tutti_rank_t *r, void *arg) {
  (void)arg;
  static const size_t sizes[] = {1 << 20, 8, 2 << 20, 0, 1 << 20, 3000, (3 << 20) / 2};
  enum { N = sizeof sizes / sizeof *sizes };
  unsigned char *live[N];
  int me = tutti_rank(r);
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) {
      if (!(live[i] = tutti_scratch_alloc(r, sizes[i]))) return __LINE__;
      memset(live[i], (me * 16 + i + round) & 0xff, sizes[i]);
      if (tutti_rank_yield(r)) return __LINE__;
      for (int k = 0; k <= i; k++) /* every live block still holds its own */
        for (size_t b = 0; b < sizes[k]; b += 4093)
          if (live[k][b] != ((me * 16 + k + round) & 0xff)) return __LINE__;
    }
    for (int i = 1; i < 2 * N; i += 2) { /* odd, then even */
      tutti_scratch_free(r, live[i % N]);
      if (tutti_rank_yield(r)) return __LINE__;
    }
  }
  tutti_scratch_free(r, NULL);
  return 0;
}

Test(p2p, scratch_blocks_hold_their_bytes_apart, .timeout = 60) {
  for (int as = TUTTI_RANKS_AS_THREADS; as <= TUTTI_RANKS_AS_FIBERS; as++) {
    tutti_config_t c = tutti_config_default(2);
    c.ranks_as = as;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    for (int run = 0; run < 2; run++)
      cr_assert(eq(int, tutti_world_run(w, scratch_fn, NULL), 0), "line %s", tutti_world_error(w));
    tutti_world_destroy(w);
  }
}
