/*
 * registry.c -- THE list of every algorithm (coll.h): collective, name,
 * function or tree, parameters with defaults and ranges, restrictions,
 * summary, source and Hockney cost (text and function). The CLI, the
 * tests, the README's table and the help enumerate it with
 * tutti_algo_desc_at(); adding an algorithm is adding one line to
 * TUTTI_ALGOS below (and, unless it is a tree, its own file).
 *
 * Selection: an explicit name, else the collective's environment variable
 * (TUTTI_BCAST=lambda-tree:lambda=0.7), else the collective's default (the
 * `defaults` list below). A name matches
 * exactly, or as an unambiguous leading part ending at a '-' of a
 * registered name: "lambda" is "lambda-tree", "postal" "postal-optimal".
 *
 * Parameter values: REAL and INT as C numbers, SIZE as tutti_parse_size
 * ("8KiB"), and "auto" where the parameter allows it (the algorithm then
 * chooses per run, from the model: bit set in is_auto, NAN or
 * TUTTI_PARAM_AUTO in the typed field). Values are parsed once, here,
 * into the algorithm's typed tutti_params_t, which is what it reads. Ranges
 * are inclusive; lambda's upper bound is the double just below 1 and is
 * shown as "[0.5, 1)".
 *
 * Everything here is a pure lookup on constant data: any thread, any time.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"
#include "tutti/units.h"

/* ------------------------------------------------------------ parameters */

/* Each parameter is declared once here and named by any number of
 * algorithms; its field in tutti_params_t receives the parsed value. */
#define LAMBDA_MAX 0x1.fffffffffffffp-1 /* the largest double below 1: lambda in [0.5, 1) */
#define FIELD(f) offsetof(tutti_params_t, f)

#define P_LAMBDA                                                                                   \
  {                                                                                                \
    "lambda", TUTTI_PARAM_REAL, TUTTI_TREE_DEFAULT_LAMBDA, 0.5, LAMBDA_MAX, TUTTI_PARAM_AUTO_OK,   \
        "share of its set a source keeps: 0.5 is binomial-like, toward 1 flat; auto: "             \
        "fitted to the model's latency (0.6 suits postal L = 2)",                                  \
        FIELD(lambda)                                                                              \
  }
#define P_L                                                                                        \
  {                                                                                                \
    "L", TUTTI_PARAM_INT, NAN, 1, 4096, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,            \
        "postal latency in send times the tree is optimal for; auto: the model's L(m)/S(m)",       \
        FIELD(L)                                                                                   \
  }
#define P_K                                                                                        \
  {                                                                                                \
    "k", TUTTI_PARAM_INT, TUTTI_TREE_DEFAULT_K, 2, 1024, 0,                                        \
        "radix: a rank has up to k-1 children per round", FIELD(k)                                 \
  }
#define P_SEGMENT                                                                                  \
  {                                                                                                \
    "segment", TUTTI_PARAM_SIZE, 0, 0, INFINITY, 0,                                                \
        "pipeline the message in segments of this many bytes (whole elements); 0: one message",    \
        FIELD(segment)                                                                             \
  }

#define P_BLOCKS                                                                                   \
  {                                                                                                \
    "blocks", TUTTI_PARAM_INT, NAN, 1, 1 << 30, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,    \
        "cut the vector into this many blocks (at most one per element); auto: the count "         \
        "minimizing the modeled time, near sqrt((4H-2) beta m / (3 alpha))",                       \
        FIELD(blocks)                                                                              \
  }

#define SRC_BI                                                                                     \
  "M. Bernaschi, G. Iannello, \"Efficient collective communication operations in PVMe\", 1995, "   \
  "sec. 3"
#define SRC_BK                                                                                     \
  "A. Bar-Noy, S. Kipnis, \"Designing broadcasting algorithms in the postal model\", SPAA 1992"
#define SRC_DUALROOT                                                                               \
  "J. L. Traff, \"A doubly-pipelined, dual-root reduction-to-all algorithm and implementation\", " \
  "2021, Algorithm 1"
#define SRC_MPICH "MPICH src/mpi/coll (binomial trees)"
#define SRC_PVM "PVM 3.3 (the baseline of " SRC_BI ")"

/* ------------------------------------------------------------ the table */

/* THE list. One line per algorithm:
 *
 *   TREE(coll, "name", KIND, restrictions, summary, source, cost, params...)
 *     a tree algorithm: the collective's generic tree mover (engine.h) on
 *     tree.h's TUTTI_TREE_KIND, its Hockney cost from the tree itself
 *     (tree_cost.c); nothing else to write.
 *   ALGO(coll, id, "name", restrictions, summary, source, cost, params...)
 *     any other algorithm: one file defining tutti__<coll>_<id> and its
 *     cost function tutti__<coll>_<id>_cost (declared by this list).
 *
 * params: P_* above, at most TUTTI_MAX_PARAMS. Order within a collective
 * is the order of `tutti list` and the suite. */
#define TUTTI_ALGOS(TREE, ALGO)                                                                    \
  TREE(bcast, "flat", FLAT, 0, "the root sends to every other rank in turn", SRC_PVM,              \
       "(P-1)(alpha + beta m)")                                                                    \
  TREE(bcast, "binary", BINARY, 0, "heap-ordered binary tree, optionally pipelined in segments",   \
       "Open MPI coll/base (bintree)", "<= 2 floor(log2 P)(alpha + beta m)", P_SEGMENT)            \
  TREE(bcast, "binomial", BINOMIAL, 0,                                                             \
       "binomial tree, farthest child first, optionally pipelined", SRC_MPICH,                     \
       "ceil(log2 P)(alpha + beta m)", P_SEGMENT)                                                  \
  TREE(bcast, "lambda-tree", LAMBDA, 0,                                                            \
       "the source keeps a share lambda of its set and hands the rest to one leader", SRC_BI,      \
       "T_1(P)(alpha + beta m); ceil(log2 P) at lambda = 0.5", P_LAMBDA, P_SEGMENT)                \
  TREE(bcast, "postal-optimal", POSTAL, 0,                                                         \
       "the optimal tree of the postal model of latency L (f_L(P) steps)", SRC_BK,                 \
       "T_1(P)(alpha + beta m); ceil(log2 P) for L = 1", P_L, P_SEGMENT)                           \
                                                                                                   \
  TREE(reduce, "flat", FLAT, 0, "every rank sends to the root, which combines in rank order",      \
       SRC_PVM, "(P-1)(alpha + beta m + gamma m)")                                                 \
  TREE(reduce, "binary", BINARY, TUTTI_ALGO_COMMUTATIVE,                                           \
       "heap-ordered binary tree (subtrees are not rank ranges)", "Open MPI coll/base (bintree)",  \
       "<= 2 floor(log2 P)(alpha + beta m + gamma m)", P_SEGMENT)                                  \
  TREE(reduce, "binomial", BINOMIAL, 0, "binomial tree, children combined in rank order",          \
       SRC_MPICH, "ceil(log2 P)(alpha + beta m + gamma m)", P_SEGMENT)                             \
  TREE(reduce, "lambda-tree", LAMBDA, 0,                                                           \
       "the lambda-tree broadcast reversed: receive from children, reduce, send to parent",        \
       SRC_BI, "T_1(P)(alpha + beta m + gamma m); ceil(log2 P) at lambda = 0.5", P_LAMBDA,         \
       P_SEGMENT)                                                                                  \
  TREE(reduce, "postal-optimal", POSTAL, 0, "the postal-optimal broadcast tree reversed", SRC_BK,  \
       "T_1(P)(alpha + beta m + gamma m)", P_L, P_SEGMENT)                                         \
                                                                                                   \
  TREE(gather, "flat", FLAT, 0, "every rank sends its block to the root", SRC_PVM,                 \
       "(P-1)(alpha + beta b)")                                                                    \
  TREE(gather, "binomial", BINOMIAL, 0,                                                            \
       "binomial tree; each rank forwards its subtree's blocks in one message", SRC_MPICH,         \
       "ceil(log2 P) alpha + (P-1) beta b")                                                        \
  TREE(gather, "lambda-tree", LAMBDA, 0,                                                           \
       "lambda-tree; each rank forwards its subtree's blocks in one message", SRC_BI,              \
       "T_1(P) alpha + ~(P-1) beta b", P_LAMBDA)                                                   \
                                                                                                   \
  TREE(scatter, "flat", FLAT, 0, "the root sends every rank its block", SRC_PVM,                   \
       "(P-1)(alpha + beta b)")                                                                    \
  TREE(scatter, "binomial", BINOMIAL, 0,                                                           \
       "binomial tree; each rank gets its subtree's blocks in one message", SRC_MPICH,             \
       "ceil(log2 P) alpha + (P-1) beta b")                                                        \
  TREE(scatter, "lambda-tree", LAMBDA, 0,                                                          \
       "lambda-tree; each rank gets its subtree's blocks in one message", SRC_BI,                  \
       "T_1(P) alpha + ~(P-1) beta b", P_LAMBDA)                                                   \
                                                                                                   \
  ALGO(allreduce, reduce_bcast, "reduce-bcast", 0,                                                 \
       "binomial reduce to rank 0, then binomial broadcast",                                       \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",                                          \
       "2 ceil(log2 P)(alpha + beta m) + ceil(log2 P) gamma m", P_SEGMENT)                         \
  ALGO(allreduce, dual_root, "dual-root", 0,                                                       \
       "two post-order binary trees with dual roots, reduce and broadcast doubly pipelined",       \
       SRC_DUALROOT, "(4H + 1 + 3(b-1))(alpha + beta m/b), H = log2(P+2) - 2", P_BLOCKS)           \
  ALGO(allreduce, single_tree, "single-tree", 0,                                                   \
       "one post-order binary tree, reduce and broadcast doubly pipelined", SRC_DUALROOT,          \
       "(4H + 3(b-1) + [b > 1])(alpha + beta m/b), H = log2(P+1) - 1", P_BLOCKS)                   \
  ALGO(allreduce, binary_reduce_bcast, "binary-reduce-bcast", 0,                                   \
       "pipelined reduce up a post-order binary tree to rank P-1, then pipelined broadcast down",  \
       SRC_DUALROOT, "(4H + 4(b-1))(alpha + beta m/b), H = log2(P+1) - 1", P_BLOCKS)               \
  ALGO(allreduce, ring, "ring", TUTTI_ALGO_COMMUTATIVE,                                            \
       "ring reduce-scatter of P blocks, then ring allgather (bandwidth-optimal)",                 \
       "Patarasuk, Yuan, JPDC 69(2), 2009", "2(P-1)(alpha + beta m/P) + (P-1) gamma m/P")          \
  ALGO(allreduce, recursive_doubling, "recursive-doubling", TUTTI_ALGO_COMMUTATIVE,                \
       "whole vectors exchanged with rank XOR 2^k, log2 P steps (a fold for non-powers of two)",   \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",                                          \
       "log2(p')(alpha + beta m + gamma m) [+ 2(alpha + beta m) + gamma m]")                       \
  ALGO(allreduce, rabenseifner, "rabenseifner", TUTTI_ALGO_COMMUTATIVE,                            \
       "recursive-halving reduce-scatter, recursive-doubling allgather (a fold for non-powers "    \
       "of two)",                                                                                  \
       "R. Rabenseifner, ICCS 2004; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",              \
       "2 log2(p') alpha + (p'-1)/p' (2 beta + gamma) m [+ 2(alpha + beta m) + gamma m]")          \
                                                                                                   \
  TREE(barrier, "lambda-tree", LAMBDA, 0,                                                          \
       "empty reduce to rank 0 on the lambda-tree, then an empty broadcast", SRC_BI,               \
       "2 T_1(P) alpha", P_LAMBDA)

/* The enum of a collective named in lower case, for the list above. */
#define COLL_bcast TUTTI_COLL_BCAST
#define COLL_reduce TUTTI_COLL_REDUCE
#define COLL_allreduce TUTTI_COLL_ALLREDUCE
#define COLL_gather TUTTI_COLL_GATHER
#define COLL_scatter TUTTI_COLL_SCATTER
#define COLL_barrier TUTTI_COLL_BARRIER

/* Pass 1: declare what each ALGO line's file defines. */
#define DECLARE_TREE(...)
#define DECLARE_ALGO(c, id, ...)                                                                   \
  tutti_##c##_fn tutti__##c##_##id;                                                                \
  tutti_cost_fn tutti__##c##_##id##_cost;
TUTTI_ALGOS(DECLARE_TREE, DECLARE_ALGO)

/* Pass 2: the table. NPARAMS counts the P_* given (none is fine). */
#define NPARAMS(...)                                                                               \
  ((int)(sizeof((tutti_param_desc_t[]){{0}, ##__VA_ARGS__}) / sizeof(tutti_param_desc_t)) - 1)
#define ENTRY(c, nm, fn_, cost_fn_, tree_, restr, sum, src, cst, ...)                              \
  {.coll = COLL_##c,                                                                               \
   .name = nm,                                                                                     \
   .fn.c = fn_,                                                                                    \
   .nparams = NPARAMS(__VA_ARGS__),                                                                \
   .params = {__VA_ARGS__},                                                                        \
   .restrictions = restr,                                                                          \
   .summary = sum,                                                                                 \
   .source = src,                                                                                  \
   .cost = cst,                                                                                    \
   .cost_fn = cost_fn_,                                                                            \
   .tree = tree_},
#define ENTRY_TREE(c, nm, kind, ...)                                                               \
  ENTRY(c, nm, tutti__##c##_tree, tutti__##c##_tree_cost, TUTTI_TREE_##kind, __VA_ARGS__)
#define ENTRY_ALGO(c, id, nm, ...)                                                                 \
  ENTRY(c, nm, tutti__##c##_##id, tutti__##c##_##id##_cost, -1, __VA_ARGS__)
static const tutti_algo_desc_t table[] = {TUTTI_ALGOS(ENTRY_TREE, ENTRY_ALGO)};
#define NALGOS ((int)(sizeof table / sizeof *table))
_Static_assert(NALGOS > 0, "the registry is empty");

/* Each collective's default: the classic binomial tree where there is one
 * (optimal under Hockney, where latency and sending cost are equal). */
static const char *const defaults[TUTTI_COLL_N] = {
    [TUTTI_COLL_BCAST] = "binomial",         [TUTTI_COLL_REDUCE] = "binomial",
    [TUTTI_COLL_ALLREDUCE] = "reduce-bcast", [TUTTI_COLL_GATHER] = "binomial",
    [TUTTI_COLL_SCATTER] = "binomial",       [TUTTI_COLL_BARRIER] = "lambda-tree",
};

/* ------------------------------------------------------------ collectives */

static const struct {
  const char *name, *env;
} colls[TUTTI_COLL_N] = {
#define X(e, name, env, ...) {name, env},
    TUTTI_COLL_MAP(X)
#undef X
};

const char *tutti_coll_name(int coll) {
  return coll >= 0 && coll < TUTTI_COLL_N ? colls[coll].name : "invalid";
}

int tutti_coll_find(const char *name, int *coll) {
  if (!name || !coll) return TUTTI_EINVAL;
  for (int i = 0; i < TUTTI_COLL_N; i++)
    if (!strcmp(name, colls[i].name)) return *coll = i, 0;
  return TUTTI_ENOTFOUND;
}

unsigned tutti_coll_traits(int coll) {
  static const unsigned traits[TUTTI_COLL_N] = {
#define X(e, name, env, tr, what) tr,
      TUTTI_COLL_MAP(X)
#undef X
  };
  return coll >= 0 && coll < TUTTI_COLL_N ? traits[coll] : 0;
}

const char *tutti_coll_summary(int coll) {
  static const char *const what[TUTTI_COLL_N] = {
#define X(e, name, env, tr, text) text,
      TUTTI_COLL_MAP(X)
#undef X
  };
  return coll >= 0 && coll < TUTTI_COLL_N ? what[coll] : "";
}

/* ----------------------------------------------------------------- lookup */

const tutti_algo_desc_t *tutti_algo_desc_at(int i) {
  return i >= 0 && i < NALGOS ? &table[i] : NULL;
}

const tutti_algo_desc_t *tutti_algo_desc_find(int coll, const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NALGOS; i++)
    if (table[i].coll == coll && !strcmp(table[i].name, name)) return tutti_algo_desc_at(i);
  return NULL;
}

const tutti_algo_desc_t *tutti_algo_desc_default(int coll) {
  if (coll < 0 || coll >= TUTTI_COLL_N) return NULL;
  const tutti_algo_desc_t *d = defaults[coll] ? tutti_algo_desc_find(coll, defaults[coll]) : NULL;
  for (int i = 0; !d && i < NALGOS; i++) /* no default named: the collective's first */
    if (table[i].coll == coll) d = &table[i];
  return d;
}

static int desc_index(const tutti_algo_desc_t *d) {
  for (int i = 0; i < NALGOS; i++)
    if (d == &table[i]) return i;
  return -1;
}

/* Exact name, else the one name that starts with `name` followed by '-'. */
static const tutti_algo_desc_t *find_name(int coll, const char *name, size_t len) {
  const tutti_algo_desc_t *hit = NULL;
  int nhits = 0;
  for (int i = 0; i < NALGOS; i++) {
    if (table[i].coll != coll || strncmp(table[i].name, name, len)) continue;
    if (table[i].name[len] == '\0') return tutti_algo_desc_at(i);
    if (table[i].name[len] == '-') hit = tutti_algo_desc_at(i), nhits++;
  }
  return nhits == 1 ? hit : NULL;
}

/* ----------------------------------------------------------------- errors */

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static void fmt_num(double x, char *buf, size_t n) {
  tutti_format_shortest(x, buf, n);
}

int tutti_param_range(const tutti_param_desc_t *p, char *buf, size_t n) {
  if (!p || !buf || !n) return TUTTI_EINVAL;
  char lo[32], hi[32], up[32];
  fmt_num(p->min, lo, sizeof lo);
  if (isinf(p->max)) {
    snprintf(buf, n, ">= %s", lo);
    return 0;
  }
  fmt_num(p->max, hi, sizeof hi);
  fmt_num(nextafter(p->max, INFINITY), up, sizeof up);
  /* an upper bound that is the double just below a short number is shown
   * as that number, open: lambda's [0.5, 1) */
  if (strlen(hi) > 12 && strlen(up) <= 6)
    snprintf(buf, n, "in [%s, %s)", lo, up);
  else
    snprintf(buf, n, "in [%s, %s]", lo, hi);
  return 0;
}

/* "a number in [0.5, 1) or auto" */
static void fmt_accepted(const tutti_param_desc_t *p, char *buf, size_t n) {
  char range[80];
  tutti_param_range(p, range, sizeof range);
  const char *what = p->type == TUTTI_PARAM_REAL  ? "a number"
                     : p->type == TUTTI_PARAM_INT ? "an integer"
                                                  : "a size in bytes (e.g. 8KiB)";
  snprintf(buf, n, "%s %s%s", what, range, p->flags & TUTTI_PARAM_AUTO_OK ? " or auto" : "");
}

static void list_names(int coll, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < NALGOS && used < n; i++) {
    if (table[i].coll != coll) continue;
    int k = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", table[i].name);
    if (k < 0) break;
    used += (size_t)k;
  }
}

static void list_params(const tutti_algo_desc_t *d, char *buf, size_t n) {
  size_t used = 0;
  if (d->nparams == 0) {
    snprintf(buf, n, "none (%s takes no parameters)", d->name);
    return;
  }
  buf[0] = '\0';
  for (int i = 0; i < d->nparams && used < n; i++) {
    int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", d->params[i].name);
    if (k < 0) break;
    used += (size_t)k;
  }
}

/* -------------------------------------------------------------- selection */

static int param_find(const tutti_algo_desc_t *d, const char *key, size_t len) {
  for (int i = 0; i < d->nparams; i++)
    if (strlen(d->params[i].name) == len && !strncmp(d->params[i].name, key, len)) return i;
  return -1;
}

/* Parse one value: 0, or TUTTI_EINVAL with the message. */
static int parse_value(const char *who, const tutti_param_desc_t *p, const char *v, tutti_algo_t *a,
                       int i, char *err, size_t errlen) {
  char acc[160];
  fmt_accepted(p, acc, sizeof acc);
  if (!strcmp(v, "auto")) {
    if (!(p->flags & TUTTI_PARAM_AUTO_OK)) {
      errf(err, errlen, "%s: parameter '%s' does not take auto; accepted: %s", who, p->name, acc);
      return TUTTI_EINVAL;
    }
    a->value[i] = NAN;
    a->is_auto |= 1u << i;
    return 0;
  }
  double x;
  char *end = NULL;
  errno = 0;
  if (p->type == TUTTI_PARAM_SIZE) {
    size_t sz;
    if (tutti_parse_size(v, &sz, NULL, 0)) goto bad;
    /* cut to 2^63: a size near SIZE_MAX rounds up to 2^64 as a double, which
     * no later conversion back could hold; no message is that large, so the
     * segmenting is the same */
    x = sz > (size_t)1 << 63 ? 0x1p63 : (double)sz;
  } else if (p->type == TUTTI_PARAM_INT) {
    long long k = strtoll(v, &end, 10);
    if (end == v || *end || errno) goto bad;
    x = (double)k;
  } else {
    x = strtod(v, &end);
    if (end == v || *end || !isfinite(x)) goto bad;
  }
  if (!(x >= p->min && x <= p->max)) {
    errf(err, errlen, "%s: parameter '%s': '%s' is out of range; accepted: %s", who, p->name, v,
         acc);
    return TUTTI_EINVAL;
  }
  a->value[i] = x;
  a->is_auto &= ~(1u << i);
  return 0;
bad:
  errf(err, errlen, "%s: parameter '%s': '%s' is not valid; accepted: %s", who, p->name, v, acc);
  return TUTTI_EINVAL;
}

/* Apply "k=v,k=v" (spaces around keys and values are ignored). `seen`
 * catches a key given twice, also across the name's list and params. */
static int apply_params(const char *who, const char *list, tutti_algo_t *a, unsigned *seen,
                        char *err, size_t errlen) {
  const tutti_algo_desc_t *d = a->desc;
  char item[256], names[160];
  for (const char *s = list; s && *s;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (len >= sizeof item) {
      errf(err, errlen, "%s: parameter list item too long: '%.40s...'", who, s);
      return TUTTI_EINVAL;
    }
    memcpy(item, s, len);
    item[len] = '\0';
    s = comma ? comma + 1 : s + len;
    char *k = item, *eq = strchr(item, '=');
    while (*k == ' ') k++;
    if (!*k && !comma) break; /* a trailing comma or an empty list */
    list_params(d, names, sizeof names);
    if (!eq) {
      errf(err, errlen, "%s: '%s' is not key=value; accepted keys: %s", who, k, names);
      return TUTTI_EINVAL;
    }
    char *ke = eq, *v = eq + 1;
    while (ke > k && ke[-1] == ' ') ke--;
    while (*v == ' ') v++;
    for (char *ve = v + strlen(v); ve > v && ve[-1] == ' ';) *--ve = '\0';
    int i = param_find(d, k, (size_t)(ke - k));
    if (i < 0) {
      errf(err, errlen, "%s: unknown parameter '%.*s'; accepted: %s", who, (int)(ke - k), k, names);
      return TUTTI_EINVAL;
    }
    if (*seen >> i & 1u) {
      errf(err, errlen, "%s: parameter '%s' given twice", who, d->params[i].name);
      return TUTTI_EINVAL;
    }
    *seen |= 1u << i;
    int rc = parse_value(who, &d->params[i], v, a, i, err, errlen);
    if (rc) return rc;
  }
  return 0;
}

/* The typed values a's parameters stand for: parsed once, at selection. */
static tutti_params_t typed(const tutti_algo_t *a) {
  tutti_params_t p = TUTTI_PARAMS_DEFAULT;
  for (int i = 0; i < a->desc->nparams; i++) {
    const tutti_param_desc_t *d = &a->desc->params[i];
    int is_auto = a->is_auto >> i & 1u;
    char *f = (char *)&p + d->offset;
    if (d->type == TUTTI_PARAM_REAL)
      *(double *)f = is_auto ? NAN : a->value[i];
    else if (d->type == TUTTI_PARAM_INT)
      *(long *)f = is_auto ? TUTTI_PARAM_AUTO : (long)a->value[i];
    else /* at most 2^63: parse_value cut it */
      *(size_t *)f = is_auto ? SIZE_MAX : (size_t)a->value[i];
  }
  return p;
}

int tutti_algo_select(int coll, const char *name, const char *params, tutti_algo_t *out, char *err,
                      size_t errlen) {
  if (!out) {
    errf(err, errlen, "no output algorithm given");
    return TUTTI_EINVAL;
  }
  if (coll < 0 || coll >= TUTTI_COLL_N) {
    char all[128] = "";
    for (int i = 0; i < TUTTI_COLL_N; i++)
      snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", colls[i].name);
    errf(err, errlen, "unknown collective %d; accepted: %s", coll, all);
    return TUTTI_ENOTFOUND;
  }
  const char *from = NULL; /* the environment variable the name came from */
  if (!name || !*name) {
    const char *env = getenv(colls[coll].env);
    if (env && *env) name = env, from = colls[coll].env;
  }
  tutti_algo_t a = {0};
  const char *nparams = NULL;
  char who[160];
  if (!name || !*name) {
    a.desc = tutti_algo_desc_default(coll);
    if (!a.desc) {
      errf(err, errlen, "no %s algorithm is registered", colls[coll].name);
      return TUTTI_ENOTFOUND;
    }
  } else {
    const char *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    nparams = colon ? colon + 1 : NULL;
    a.desc = find_name(coll, name, len);
    if (!a.desc) {
      char names[256];
      list_names(coll, names, sizeof names);
      if (from)
        errf(err, errlen, "%s='%s': unknown %s algorithm '%.*s'; accepted: %s", from, name,
             colls[coll].name, (int)len, name, names);
      else
        errf(err, errlen, "unknown %s algorithm '%.*s'; accepted: %s", colls[coll].name, (int)len,
             name, names);
      return TUTTI_ENOTFOUND;
    }
  }
  if (from)
    snprintf(who, sizeof who, "%s='%s': %s '%s'", from, name, colls[coll].name, a.desc->name);
  else
    snprintf(who, sizeof who, "%s '%s'", colls[coll].name, a.desc->name);
  for (int i = 0; i < a.desc->nparams; i++) {
    const tutti_param_desc_t *p = &a.desc->params[i];
    a.value[i] = p->def;
    if (p->flags & TUTTI_PARAM_AUTO_DEFAULT) a.value[i] = NAN, a.is_auto |= 1u << i;
  }
  unsigned seen = 0;
  int rc = apply_params(who, nparams, &a, &seen, err, errlen);
  if (!rc) rc = apply_params(who, params, &a, &seen, err, errlen);
  if (rc) return rc;
  a.p = typed(&a);
  *out = a;
  if (err && errlen) err[0] = '\0';
  return 0;
}

double tutti_algo_param(const tutti_algo_t *a, const char *name) {
  if (!a || !a->desc || !name) return NAN;
  int i = param_find(a->desc, name, strlen(name));
  if (i < 0 || (a->is_auto >> i & 1u)) return NAN;
  return a->value[i];
}

/* An algorithm value as the registry would have made it: a registered
 * desc, every value in range or auto where allowed. */
static int algo_valid(const tutti_algo_t *a, char *err, size_t errlen) {
  if (!a || !a->desc || desc_index(a->desc) < 0) {
    errf(err, errlen, "not an algorithm of the registry (use tutti_algo_select)");
    return TUTTI_EINVAL;
  }
  const tutti_algo_desc_t *d = a->desc;
  for (int i = 0; i < d->nparams; i++) {
    const tutti_param_desc_t *p = &d->params[i];
    int ok = a->is_auto >> i & 1u ? (p->flags & TUTTI_PARAM_AUTO_OK) != 0
                                  : a->value[i] >= p->min && a->value[i] <= p->max;
    if (!ok) {
      char acc[160];
      fmt_accepted(p, acc, sizeof acc);
      errf(err, errlen, "%s '%s': parameter '%s' has an invalid value; accepted: %s",
           tutti_coll_name(d->coll), d->name, p->name, acc);
      return TUTTI_EINVAL;
    }
  }
  tutti_params_t want = typed(a); /* no padding: a bitwise compare is exact */
  if (memcmp(&want, &a->p, sizeof want)) {
    errf(err, errlen,
         "%s '%s': its typed parameters disagree with its values (use tutti_algo_select)",
         tutti_coll_name(d->coll), d->name);
    return TUTTI_EINVAL;
  }
  return 0;
}
_Static_assert(sizeof(tutti_params_t) == sizeof(double) + 3 * sizeof(long) + sizeof(size_t),
               "tutti_params_t must have no padding (algo_valid compares it bitwise)");

int tutti_algo_check(const tutti_algo_t *a, int nranks, tutti_op_t op, char *err, size_t errlen) {
  int rc = algo_valid(a, err, errlen);
  if (rc) return rc;
  const tutti_algo_desc_t *d = a->desc;
  if (nranks < 1) {
    errf(err, errlen, "%d ranks: a world has at least one", nranks);
    return TUTTI_EINVAL;
  }
  if ((d->restrictions & TUTTI_ALGO_POW2) && (nranks & (nranks - 1))) {
    errf(err, errlen, "%s '%s' needs a power-of-two number of ranks, not %d",
         tutti_coll_name(d->coll), d->name, nranks);
    return TUTTI_ENOTSUP;
  }
  if (op && (d->restrictions & TUTTI_ALGO_COMMUTATIVE)) {
    int c = tutti_op_commutative(op);
    if (c < 0) {
      errf(err, errlen, "invalid reduction op");
      return TUTTI_EOP;
    }
    if (!c) {
      errf(err, errlen, "%s '%s' needs a commutative op; '%s' is not (choose another algorithm)",
           tutti_coll_name(d->coll), d->name, tutti_op_name(op));
      return TUTTI_ENOTSUP;
    }
  }
  if (err && errlen) err[0] = '\0';
  return 0;
}

/* Sizes in the largest binary unit that divides them: 8KiB, 1000. */
static void fmt_size(double x, char *buf, size_t n) {
  static const char *const units[] = {"", "KiB", "MiB", "GiB", "TiB"};
  uint64_t v = (uint64_t)x;
  int u = 0;
  while (u < 4 && v && v % 1024 == 0) v /= 1024, u++;
  snprintf(buf, n, "%llu%s", (unsigned long long)v, units[u]);
}

int tutti_algo_format(const tutti_algo_t *a, char *buf, size_t n) {
  if (!buf || !n) return TUTTI_EINVAL;
  buf[0] = '\0';
  if (!a || !a->desc) return TUTTI_EINVAL;
  const tutti_algo_desc_t *d = a->desc;
  size_t used = (size_t)snprintf(buf, n, "%s", d->name);
  for (int i = 0; i < d->nparams && used < n; i++) {
    char v[48];
    if (a->is_auto >> i & 1u)
      snprintf(v, sizeof v, "auto");
    else if (d->params[i].type == TUTTI_PARAM_SIZE)
      fmt_size(a->value[i], v, sizeof v);
    else
      fmt_num(a->value[i], v, sizeof v);
    used += (size_t)snprintf(buf + used, n - used, "%c%s=%s", i ? ',' : ':', d->params[i].name, v);
  }
  return used < n ? 0 : TUTTI_EINVAL; /* TUTTI_EINVAL: truncated */
}

double tutti_algo_cost(const tutti_algo_t *a, int P, int root, size_t m, const tutti_hockney_t *h,
                       int *bound) {
  int b = 0;
  double t = NAN;
  if (!algo_valid(a, NULL, 0) && a->desc->cost_fn && h && P >= 1 && root >= 0 && root < P)
    t = a->desc->cost_fn(a, P, root, m, h, &b);
  if (bound) *bound = b;
  return t;
}

int tutti_algo_treespec(const tutti_algo_t *a, int L_auto, tutti_treespec_t *spec) {
  if (!a || !a->desc || a->desc->tree < 0 || !spec) return TUTTI_EINVAL;
  *spec = tutti_treespec_default(a->desc->tree);
  if (L_auto < 1) L_auto = 1;
  spec->lambda = isnan(a->p.lambda) ? tutti_lambda_auto_postal(L_auto) : a->p.lambda;
  spec->L = a->p.L == TUTTI_PARAM_AUTO ? L_auto : (int)a->p.L;
  spec->k = (int)a->p.k;
  return tutti_tree_check(spec);
}
