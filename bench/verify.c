/*
 * verify.c -- sequential references for `tutti run` and `tutti suite`:
 * what every rank's buffers must hold after a collective, computed here
 * without the algorithms and without the runtime's reduce_local (the
 * built-in ops are re-implemented from tutti.h's definitions).
 *
 * Inputs: element i of rank r's input in call k is a hash of (r, i, k),
 * shaped per op so that the result does not depend on the order of
 * evaluation an algorithm picks:
 *   no op (bcast, gather, scatter, allgather, alltoall)  raw hash bytes:
 *                byte o of the input is byte o mod 8 of the hash of
 *                (r, o / 8, k), eight bytes a hash, whatever the type
 *   sum          integers -8..7 (byte: 0..15): float sums stay exact;
 *                element i is nibble i mod 16 of the hash of (r, i / 16, k)
 *   prod         odd integers -3..5 (wrapping, as the runtime does);
 *                float and double: +1 or -1 (products stay exact)
 *   min, max     integers -1000..1000 (byte: 0..255)
 *   band / bor   random bits, 3/4 ones / 1/4 ones; bxor random bits
 *   land / lor   mostly nonzero / mostly zero
 *   matmul2      random 2x2 matrices mod 251 (int32) or 65521 (int64)
 * Reductions fold in rank order, x0 op (x1 op (... op x(P-1))), the
 * only order a non-commutative op (matmul2) allows; reduce_scatter's
 * inputs are P blocks, folded whole, and rank i checks block i. scan and
 * exscan check rank i's prefix x0 op ... op xi against a digest of it:
 * the P prefixes are as much memory as all the results, so the reference
 * keeps one 64-bit digest per rank (computed in one pass, prefix after
 * prefix) and rebuilds a prefix in full only to name the first wrong
 * element of a result that does not match. Inputs repeat every
 * nvar = min(iters, 4) calls, so a call that leaves the previous call's
 * result in place still fails. One call on the commands' buffer layout,
 * its inputs prepared and its results checked, is verify_call.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum vk { VK_SUM, VK_PROD, VK_MIN, VK_MAX, VK_BAND, VK_BOR, VK_BXOR, VK_LAND, VK_LOR, VK_MATMUL2 };
enum vt { VT_BYTE, VT_I32, VT_I64, VT_F32, VT_F64, VT_OTHER };

static int vt_of(tutti_datatype_t t) {
  if (t == TUTTI_BYTE) return VT_BYTE;
  if (t == TUTTI_INT32) return VT_I32;
  if (t == TUTTI_INT64) return VT_I64;
  if (t == TUTTI_FLOAT) return VT_F32;
  if (t == TUTTI_DOUBLE) return VT_F64;
  return VT_OTHER;
}

static int vk_of(tutti_op_t op) {
  static const struct {
    const struct tutti_op *op;
    int kind;
  } ops[] = {{TUTTI_SUM, VK_SUM},        {TUTTI_PROD, VK_PROD}, {TUTTI_MIN, VK_MIN},
             {TUTTI_MAX, VK_MAX},        {TUTTI_BAND, VK_BAND}, {TUTTI_BOR, VK_BOR},
             {TUTTI_BXOR, VK_BXOR},      {TUTTI_LAND, VK_LAND}, {TUTTI_LOR, VK_LOR},
             {TUTTI_MATMUL2, VK_MATMUL2}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (ops[i].op == op) return ops[i].kind;
  return -1;
}

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* hash(rank, idx, call) = mix(base(rank, call) + idx): a run of typed
 * elements costs one mix each, a run of raw bytes one mix per eight. */
static uint64_t hash_base(int rank, int call) {
  return mix((uint64_t)(unsigned)rank * 0x100000001b3ull ^ (uint64_t)call);
}

/* ------------------------------------------------------------ elements */

union elem {
  uint8_t u8;
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  unsigned char b[8];
};

static void store(int vt, int64_t x, union elem *e) {
  memset(e, 0, sizeof *e);
  switch (vt) {
  case VT_BYTE:
    e->u8 = (uint8_t)x;
    break;
  case VT_I32:
    e->i32 = (int32_t)(uint32_t)x;
    break;
  case VT_I64:
    e->i64 = x;
    break;
  case VT_F32:
    e->f32 = (float)x;
    break;
  case VT_F64:
    e->f64 = (double)x;
    break;
  }
}

/* The typed input value of op kind vk for hash h, before its store. */
static inline __attribute__((always_inline)) int64_t gen_x(int vk, int vt, uint64_t h) {
  int fl = vt == VT_F32 || vt == VT_F64;
  int64_t x = 0;
  switch (vk) {
  case VK_SUM:
    x = (int64_t)(h % 16) - (vt == VT_BYTE ? 0 : 8);
    break;
  case VK_PROD:
    x = fl ? ((h & 1) ? 1 : -1) : 2 * (int64_t)(h % 5) - 3;
    break;
  case VK_MIN:
  case VK_MAX:
    x = vt == VT_BYTE ? (int64_t)(h % 256) : (int64_t)(h % 2001) - 1000;
    break;
  case VK_BAND:
    x = (int64_t)(h | mix(h));
    break;
  case VK_BOR:
    x = (int64_t)(h & mix(h));
    break;
  case VK_BXOR:
    x = (int64_t)h;
    break;
  case VK_LAND:
    x = h % 32 ? (int64_t)((h >> 8) % 5 + 1) : 0;
    break;
  case VK_LOR:
    x = h % 32 ? 0 : (int64_t)((h >> 8) % 5 + 1);
    break;
  case VK_MATMUL2: {
    unsigned bits = vt == VT_I32 ? 8 : 16;
    uint64_t p = vt == VT_I32 ? 251 : 65521, m = 0;
    for (unsigned k = 0; k < 4; k++) m |= (mix(h + k) % p) << (k * bits);
    x = (int64_t)m;
    break;
  }
  }
  return x;
}

static void gen_value(int vk, int vt, uint64_t h, union elem *e) {
  store(vt, gen_x(vk, vt, h), e);
}

/* Byte o of the raw input whose hash base is `base`. */
static unsigned char raw_byte(uint64_t base, uint64_t o) {
  return (unsigned char)(mix(base + (o >> 3)) >> (8 * (o & 7)));
}

/* 2x2 matrices [a0 a1; a2 a3], a0 in the low bits: returns x * y mod p. */
static uint64_t mat_mul(uint64_t x, uint64_t y, unsigned bits, uint64_t p) {
  uint64_t a[2][2], b[2][2], c = 0, mask = (1ull << bits) - 1;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      a[i][j] = (x >> ((2 * i + j) * bits) & mask) % p;
      b[i][j] = (y >> ((2 * i + j) * bits) & mask) % p;
    }
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      uint64_t s = 0;
      for (int k = 0; k < 2; k++) s = (s + a[i][k] * b[k][j]) % p;
      c |= s << ((2 * i + j) * bits);
    }
  return c;
}

/* Integer ops on the unsigned twin (wrapping), as the runtime defines them. */
#define INT_OP(T, U, a, b, out)                                                                    \
  do {                                                                                             \
    T x_ = (a), y_ = (b);                                                                          \
    switch (vk) {                                                                                  \
    case VK_SUM:                                                                                   \
      out = (T)((U)x_ + (U)y_);                                                                    \
      break;                                                                                       \
    case VK_PROD:                                                                                  \
      out = (T)((U)x_ * (U)y_);                                                                    \
      break;                                                                                       \
    case VK_MIN:                                                                                   \
      out = x_ < y_ ? x_ : y_;                                                                     \
      break;                                                                                       \
    case VK_MAX:                                                                                   \
      out = x_ > y_ ? x_ : y_;                                                                     \
      break;                                                                                       \
    case VK_BAND:                                                                                  \
      out = x_ & y_;                                                                               \
      break;                                                                                       \
    case VK_BOR:                                                                                   \
      out = x_ | y_;                                                                               \
      break;                                                                                       \
    case VK_BXOR:                                                                                  \
      out = x_ ^ y_;                                                                               \
      break;                                                                                       \
    case VK_LAND:                                                                                  \
      out = (T)(x_ && y_);                                                                         \
      break;                                                                                       \
    case VK_LOR:                                                                                   \
      out = (T)(x_ || y_);                                                                         \
      break;                                                                                       \
    }                                                                                              \
  } while (0)
#define FLOAT_OP(a, b, out)                                                                        \
  do {                                                                                             \
    switch (vk) {                                                                                  \
    case VK_SUM:                                                                                   \
      out = (a) + (b);                                                                             \
      break;                                                                                       \
    case VK_PROD:                                                                                  \
      out = (a) * (b);                                                                             \
      break;                                                                                       \
    case VK_MIN:                                                                                   \
      out = (a) < (b) ? (a) : (b);                                                                 \
      break;                                                                                       \
    case VK_MAX:                                                                                   \
      out = (a) > (b) ? (a) : (b);                                                                 \
      break;                                                                                       \
    }                                                                                              \
  } while (0)

/* inout = in (op) inout, for one element. */
static void apply(int vk, int vt, const union elem *in, union elem *inout) {
  if (vk == VK_MATMUL2) {
    if (vt == VT_I32)
      inout->i32 = (int32_t)(uint32_t)mat_mul((uint32_t)in->i32, (uint32_t)inout->i32, 8, 251);
    else
      inout->i64 = (int64_t)mat_mul((uint64_t)in->i64, (uint64_t)inout->i64, 16, 65521);
    return;
  }
  switch (vt) {
  case VT_BYTE:
    INT_OP(uint8_t, unsigned, in->u8, inout->u8, inout->u8);
    break;
  case VT_I32:
    INT_OP(int32_t, uint32_t, in->i32, inout->i32, inout->i32);
    break;
  case VT_I64:
    INT_OP(int64_t, uint64_t, in->i64, inout->i64, inout->i64);
    break;
  case VT_F32:
    FLOAT_OP(in->f32, inout->f32, inout->f32);
    break;
  case VT_F64:
    FLOAT_OP(in->f64, inout->f64, inout->f64);
    break;
  }
}

/* The hash gen_x shapes into typed element idx: a sum takes only its low
 * four bits, so a hash gives sixteen sums' elements, a nibble each. */
static uint64_t elem_hash(int vk, uint64_t base, uint64_t idx) {
  return vk == VK_SUM ? mix(base + (idx >> 4)) >> (4 * (idx & 15)) : mix(base + idx);
}

/* Element idx of rank's input in call `call` (already reduced mod nvar). */
static void input_elem(const struct verify *v, int rank, long idx, int call, union elem *e) {
  uint64_t base = hash_base(rank, call);
  if (v->kind < 0) {
    memset(e, 0, sizeof *e);
    for (size_t j = 0; j < v->tsize && j < sizeof e->b; j++)
      e->b[j] = raw_byte(base, (uint64_t)idx * v->tsize + j);
    return;
  }
  gen_value(v->kind, vt_of(v->type), elem_hash(v->kind, base, (uint64_t)idx), e);
}

static int var(const struct verify *v, int call) {
  return v->nvar > 1 ? call % v->nvar : 0;
}

/* Bytes [o, o + len) of the raw input of hash base `base` into p, each
 * xor `flip` (0, or all ones for the poison), a whole hash at a time
 * where they are aligned (byte j of a hash is its bits 8j to 8j + 7, on
 * any machine). */
static void fill_raw(uint64_t base, unsigned char *p, uint64_t o, size_t len, uint64_t flip) {
  for (; len && (o & 7); len--) *p++ = (unsigned char)(raw_byte(base, o++) ^ flip);
  for (; len >= 8; len -= 8, p += 8, o += 8) {
    uint64_t h = mix(base + (o >> 3)) ^ flip;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    h = __builtin_bswap64(h);
#endif
    memcpy(p, &h, 8);
  }
  for (; len; len--) *p++ = (unsigned char)(raw_byte(base, o++) ^ flip);
}

/* Typed elements [first, first + n) from hash base `base` into p, as
 * input_elem makes them: one loop per type, so that the store is no
 * branch of the loop, and a sum's hash made once for its sixteen. */
#define FILL_AS(T, VT, CAST)                                                                       \
  for (long i = 0; i < n; i++) {                                                                   \
    uint64_t idx = first + (uint64_t)i, h;                                                         \
    if (vk != VK_SUM)                                                                              \
      h = mix(base + idx);                                                                         \
    else {                                                                                         \
      if (i == 0 || !(idx & 15)) g = mix(base + (idx >> 4));                                       \
      h = g >> (4 * (idx & 15));                                                                   \
    }                                                                                              \
    int64_t x = gen_x(vk, VT, h);                                                                  \
    T y = CAST;                                                                                    \
    memcpy(p + (size_t)i * sizeof y, &y, sizeof y);                                                \
  }
static void fill_typed(int vk, int vt, uint64_t base, uint64_t first, unsigned char *p, long n) {
  uint64_t g = 0; /* a sum's hash of the sixteen */
  switch (vt) {
  case VT_BYTE:
    FILL_AS(uint8_t, VT_BYTE, (uint8_t)x);
    break;
  case VT_I32:
    FILL_AS(int32_t, VT_I32, (int32_t)(uint32_t)x);
    break;
  case VT_I64:
    FILL_AS(int64_t, VT_I64, x);
    break;
  case VT_F32:
    FILL_AS(float, VT_F32, (float)x);
    break;
  case VT_F64:
    FILL_AS(double, VT_F64, (double)x);
    break;
  }
}
#undef FILL_AS

/* dst = ~src, eight bytes at a time (dst == src: in place). */
static void complement_of(unsigned char *dst, const unsigned char *src, size_t len) {
  size_t i = 0;
  for (uint64_t w; i + 8 <= len; i += 8) {
    memcpy(&w, src + i, 8);
    w = ~w;
    memcpy(dst + i, &w, 8);
  }
  for (; i < len; i++) dst[i] = (unsigned char)~src[i];
}

/* Elements [first, first + n) of rank's input of call `call` (reduced mod
 * nvar) into p, each byte xor `flip` (0, or all ones: the poison; raw
 * bytes get it in the same pass). */
static void fill(const struct verify *v, int rank, int call, unsigned char *p, long first, long n,
                 uint64_t flip) {
  uint64_t base = hash_base(rank, call);
  size_t len = (size_t)n * v->tsize;
  if (v->kind < 0) {
    fill_raw(base, p, (uint64_t)first * v->tsize, len, flip);
    return;
  }
  fill_typed(v->kind, vt_of(v->type), base, (uint64_t)first, p, n);
  if (flip) complement_of(p, p, len);
}

/* The chunk the reference folds at a time, on the calling thread's stack
 * (the main thread's: the reference is built before the ranks run). */
#define FOLD_CHUNK 4096

/* inout[i] = in[i] + inout[i] for n packed elements of type T, added as U
 * (INT_OP's and FLOAT_OP's sum). */
#define SUM_RUN(T, U)                                                                              \
  for (long i = 0; i < n; i++) {                                                                   \
    T a, b;                                                                                        \
    memcpy(&a, in + (size_t)i * sizeof a, sizeof a);                                               \
    memcpy(&b, inout + (size_t)i * sizeof b, sizeof b);                                            \
    b = (T)((U)a + (U)b);                                                                          \
    memcpy(inout + (size_t)i * sizeof b, &b, sizeof b);                                            \
  }

/* inout[i] = in[i] op inout[i] for n packed elements: sums (what the
 * commands use unless told) in a loop of their own, the rest through
 * apply. */
static void apply_run(const struct verify *v, const unsigned char *in, unsigned char *inout,
                      long n) {
  int vt = vt_of(v->type);
  if (v->kind == VK_SUM) {
    switch (vt) {
    case VT_BYTE:
      SUM_RUN(uint8_t, unsigned);
      return;
    case VT_I32:
      SUM_RUN(int32_t, uint32_t);
      return;
    case VT_I64:
      SUM_RUN(int64_t, uint64_t);
      return;
    case VT_F32:
      SUM_RUN(float, float);
      return;
    case VT_F64:
      SUM_RUN(double, double);
      return;
    }
  }
  for (long i = 0; i < n; i++) {
    union elem a, b;
    size_t at = (size_t)i * v->tsize;
    memcpy(a.b, in + at, v->tsize);
    memcpy(b.b, inout + at, v->tsize);
    apply(v->kind, vt, &a, &b);
    memcpy(inout + at, b.b, v->tsize);
  }
}
#undef SUM_RUN

/* The first of the n elements where a and b differ, or -1: memcmp at
 * memory speed, then the element inside the first differing 64 bytes. */
static long first_diff(const unsigned char *a, const unsigned char *b, long n, size_t tsize) {
  size_t len = (size_t)n * tsize, off = 0;
  while (off < len) {
    size_t k = len - off < 65536 ? len - off : 65536;
    if (memcmp(a + off, b + off, k)) break;
    off += k;
  }
  if (off >= len) return -1;
  while (a[off] == b[off]) off++;
  return (long)(off / tsize);
}

static int prefix_digests(struct verify *v);

/* ------------------------------------------------------------ the API */

int verify_init(struct verify *v, int coll, tutti_datatype_t type, tutti_op_t op, int nranks,
                long count, int iters) {
  memset(v, 0, sizeof *v);
  pthread_mutex_init(&v->lock, NULL);
  /* a reduction whose input is P blocks (reduce_scatter): the fold of all
   * of them, of which rank i checks block i */
  unsigned tr = tutti_coll_traits(coll);
  if ((tr & TUTTI_COLL_REDUCES) && (tr & TUTTI_COLL_BLOCKS)) count *= nranks;
  v->coll = coll, v->type = type, v->nranks = nranks, v->count = count;
  v->tsize = tutti_type_size(type);
  v->nvar = iters < 4 ? iters : 4;
  v->kind = op ? vk_of(op) : -1;
  if (op && (v->kind < 0 || vt_of(type) == VT_OTHER)) return TUTTI_EOP;
  if (v->tsize > sizeof(union elem)) return TUTTI_ETYPE;
  if (op && (tr & TUTTI_COLL_PREFIX)) return prefix_digests(v);
  if (!op || count == 0) return 0;
  v->expect = malloc((size_t)v->nvar * (size_t)count * v->tsize);
  if (!v->expect) return TUTTI_ENOMEM;
  unsigned char x[FOLD_CHUNK];
  long per = (long)(sizeof x / v->tsize);
  for (int k = 0; k < v->nvar; k++)
    for (long i = 0; i < count; i += per) { /* folded a chunk of elements at a time */
      long n = count - i < per ? count - i : per;
      unsigned char *acc = v->expect + ((size_t)k * (size_t)count + (size_t)i) * v->tsize;
      fill(v, nranks - 1, k, acc, i, n, 0);
      for (int r = nranks - 2; r >= 0; r--) {
        fill(v, r, k, x, i, n, 0);
        apply_run(v, x, acc, n);
      }
    }
  return 0;
}

void verify_free(struct verify *v) {
  free(v->expect), free(v->digest);
  v->expect = NULL, v->digest = NULL;
  for (struct verify_ref *f = v->refs, *next; f; f = next) {
    next = f->next;
    free(f->data), free(f);
  }
  v->refs = NULL;
  pthread_mutex_destroy(&v->lock);
}

void verify_input(const struct verify *v, int rank, int call, void *buf, long first, long n) {
  fill(v, rank, var(v, call), buf, first, n, 0);
}

void verify_poison(const struct verify *v, int rank, int call, void *buf, long first, long n) {
  fill(v, rank, var(v, call), buf, first, n, ~(uint64_t)0);
}

void verify_poison_fold(const struct verify *v, int call, void *buf) {
  verify_poison_fold_range(v, call, buf, 0, v->count);
}

void verify_poison_fold_range(const struct verify *v, int call, void *buf, long first, long n) {
  if (!v->expect) return;
  const unsigned char *e =
      v->expect + ((size_t)var(v, call) * (size_t)v->count + (size_t)first) * v->tsize;
  complement_of(buf, e, (size_t)n * v->tsize);
}

/* Elements are generated a chunk at a time and compared a chunk at a time,
 * in a buffer on the caller's stack small enough to stay within the page
 * the rank's frames already use: at 16384 ranks a 4 KiB buffer was a page
 * fault a rank (a sixth of tutti run's), and a chunk's setup is negligible
 * next to generating 512 bytes of elements. */
#define CHUNK_BYTES 512

/* The input elements (or with `poison` their complement) checked a chunk
 * at a time. */
static long check_chunks(const struct verify *v, int rank, int call, const void *buf, long first,
                         long n, int poison) {
  const unsigned char *p = buf;
  unsigned char ref[CHUNK_BYTES];
  long per = (long)(sizeof ref / v->tsize);
  for (long i = 0; i < n; i += per) {
    long k = n - i < per ? n - i : per, at;
    fill(v, rank, var(v, call), ref, first + i, k, poison ? ~(uint64_t)0 : 0);
    if ((at = first_diff(p + (size_t)i * v->tsize, ref, k, v->tsize)) >= 0) return i + at;
  }
  return -1;
}

long verify_check_input(const struct verify *v, int rank, int call, const void *buf, long first,
                        long n) {
  return check_chunks(v, rank, call, buf, first, n, 0);
}

long verify_check_fold(const struct verify *v, int call, const void *buf) {
  return verify_check_fold_range(v, call, buf, 0, v->count);
}

long verify_check_fold_range(const struct verify *v, int call, const void *buf, long first,
                             long n) {
  if (!v->expect) return -1;
  const unsigned char *e =
      v->expect + ((size_t)var(v, call) * (size_t)v->count + (size_t)first) * v->tsize;
  return first_diff(buf, e, n, v->tsize);
}

/* ------------------------------------------------------------ prefixes */

/* The digest of n elements at p: each element's bytes, zero-extended to
 * 64 bits, mixed in turn. */
static uint64_t digest_step(uint64_t h, const unsigned char *e, size_t tsize) {
  uint64_t w = 0;
  memcpy(&w, e, tsize);
  return mix(h ^ w);
}

static uint64_t digest_of(const struct verify *v, const unsigned char *p, long n) {
  uint64_t h = (uint64_t)n;
  for (long i = 0; i < n; i++) h = digest_step(h, p + (size_t)i * v->tsize, v->tsize);
  return h;
}

/* Element i of the prefix x_0 op ... op x_upto of variant k. */
static void prefix_elem(const struct verify *v, int upto, long i, int k, union elem *acc) {
  union elem x;
  input_elem(v, 0, i, k, acc);
  for (int r = 1; r <= upto; r++) {
    input_elem(v, r, i, k, &x);
    apply(v->kind, vt_of(v->type), acc, &x); /* x = acc op x_r */
    *acc = x;
  }
}

/* Every rank's prefix digest, for every variant: a chunk of elements at
 * a time, the running prefix through the ranks in order, each rank's
 * digest carried from chunk to chunk. */
static int prefix_digests(struct verify *v) {
  int P = v->nranks;
  size_t nd = (size_t)v->nvar * (size_t)P;
  if (!(v->digest = malloc(sizeof *v->digest * nd))) return TUTTI_ENOMEM;
  for (size_t d = 0; d < nd; d++) v->digest[d] = (uint64_t)v->count;
  unsigned char acc[FOLD_CHUNK], x[FOLD_CHUNK];
  long per = (long)(sizeof x / v->tsize);
  for (int k = 0; k < v->nvar; k++)
    for (long i = 0; i < v->count; i += per) {
      long n = v->count - i < per ? v->count - i : per;
      for (int r = 0; r < P; r++) {
        fill(v, r, k, x, i, n, 0);
        if (r) apply_run(v, acc, x, n); /* x = prefix op x_r */
        memcpy(acc, x, (size_t)n * v->tsize);
        uint64_t *h = &v->digest[(size_t)k * (size_t)P + (size_t)r];
        for (long j = 0; j < n; j++) *h = digest_step(*h, acc + (size_t)j * v->tsize, v->tsize);
      }
    }
  return 0;
}

long verify_check_prefix(const struct verify *v, int upto, int call, const void *buf) {
  int k = var(v, call);
  const unsigned char *p = buf;
  if (digest_of(v, p, v->count) == v->digest[(size_t)k * (size_t)v->nranks + (size_t)upto])
    return -1;
  for (long i = 0; i < v->count; i++) { /* which element: rebuilt one by one */
    union elem e;
    prefix_elem(v, upto, i, k, &e);
    if (memcmp(e.b, p + (size_t)i * v->tsize, v->tsize)) return i;
  }
  return 0; /* the digests differ, so some element does */
}

long verify_check_poison(const struct verify *v, int rank, int call, const void *buf, long first,
                         long n) {
  return check_chunks(v, rank, call, buf, first, n, 1);
}

const struct verify_ref *verify_ref_get(struct verify *v, int rank, int call) {
  size_t len = (size_t)v->count * v->tsize;
  int k = var(v, call);
  struct verify_ref *f, *idle = NULL;
  pthread_mutex_lock(&v->lock);
  for (f = v->refs; f; f = f->next) {
    if (f->rank == rank && f->var == k) break;
    if (!f->users) idle = f;
  }
  if (!f && idle) { /* nobody holds it: rebuild it for this (rank, call) */
    f = idle;
    f->rank = rank, f->var = k;
    fill(v, rank, k, f->data, 0, v->count, 0);
    complement_of(f->inv, f->data, len);
  } else if (!f && (f = calloc(1, sizeof *f)) != NULL) {
    if (!(f->data = malloc(len ? 2 * len : 1))) {
      free(f);
      f = NULL;
    } else {
      f->inv = f->data + len;
      f->rank = rank, f->var = k;
      fill(v, rank, k, f->data, 0, v->count, 0);
      complement_of(f->inv, f->data, len);
      f->next = v->refs;
      v->refs = f;
    }
  }
  if (f) f->users++;
  pthread_mutex_unlock(&v->lock);
  return f;
}

void verify_ref_put(struct verify *v, const struct verify_ref *ref) {
  pthread_mutex_lock(&v->lock);
  ((struct verify_ref *)ref)->users--;
  pthread_mutex_unlock(&v->lock);
}

long verify_check_ref(const struct verify *v, const struct verify_ref *ref, const void *buf) {
  return first_diff(buf, ref->data, v->count, v->tsize);
}
