/*
 * mapping.c -- which leaf each rank sits on: the mapping texts (identity,
 * dfs, roundrobin[:BLOCK], random:SEED, list:a,b,...), binding a topology
 * to a world of N ranks, and the contention-free chain order of Patarasuk,
 * Faraj & Yuan ("Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", JPDC 2008; also Yuan's pipelined broadcast).
 *
 * The chain order. A depth-first search over the switches, started at the
 * switch of the root's leaf, lists every switch once; chaining the ranks
 * switch after switch in that order makes consecutive ranks' paths follow
 * the search's tour of the tree, which crosses each edge once in each
 * direction, so no directed link carries two hops of the chain (leaf links
 * too: each leaf sends once and receives once). Example (collectives/REFERENCE.md):
 * tree:2x4 with roundrobin puts 0,2,4,6 on s0 and 1,3,5,7 on s1; from root
 * 0 the order is 0 2 4 6 1 3 5 7, one flow per directed link, where the
 * chain 0,1,...,7 puts 4 flows on s0 -> root and on root -> s1.
 *
 * random:SEED is reproducible everywhere: a splitmix64 generator seeded
 * with SEED drives a Fisher-Yates shuffle of the leaves (i from L-1 down
 * to 1 swaps leaf i with a uniform j in [0, i], drawn by rejection), and
 * rank r sits on the r-th leaf of the shuffle.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "topo_impl.h"
#include "tutti/units.h"

static int is_space(char c) {
  return c == ' ' || c == '\t';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* A whole number <= hi at *p (spaces around it skipped), advancing *p. */
static int number(const char **p, unsigned long long hi, unsigned long long *out) {
  const char *q = *p;
  while (is_space(*q)) q++;
  if (!is_digit(*q)) return -1;
  unsigned long long v = 0;
  while (is_digit(*q)) {
    unsigned d = (unsigned)(*q++ - '0');
    if (v > (hi - d) / 10) return -1;
    v = v * 10 + d;
  }
  while (is_space(*q)) q++;
  *p = q;
  *out = v;
  return 0;
}

static int cmp_int2(const void *a, const void *b) {
  const int *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The parse of a text without spaces around it. */
static int parse(const char *text, tutti_topo_mapping_t *out, char *err, size_t errlen) {
  tutti_topo_mapping_t m = {.kind = TUTTI_MAP_IDENTITY, .block = 1};
  size_t len = strlen(text);
  const char *p;
  unsigned long long v;
#define IS(word) (len == sizeof(word) - 1 && !strncmp(text, word, len))
  if (len == 0 || IS("identity")) {
    *out = m;
    return 0;
  }
  if (IS("dfs")) {
    m.kind = TUTTI_MAP_DFS;
    *out = m;
    return 0;
  }
  if (IS("roundrobin")) {
    m.kind = TUTTI_MAP_ROUNDROBIN;
    *out = m;
    return 0;
  }
#undef IS
  if (!strncmp(text, "roundrobin:", 11)) {
    p = text + 11;
    if (number(&p, INT_MAX, &v) || v < 1 || p != text + len) {
      tutti__seterr(err, errlen,
                    "mapping '%.*s': the block must be a whole number >= 1 "
                    "(roundrobin:BLOCK); accepted: %s",
                    (int)len, text, TUTTI_TOPO_MAPPING_ACCEPTED);
      return TUTTI_EPARSE;
    }
    m.kind = TUTTI_MAP_ROUNDROBIN;
    m.block = (int)v;
    *out = m;
    return 0;
  }
  if (!strncmp(text, "random", 6) && (len == 6 || text[6] == ':')) {
    p = text + 7;
    if (len == 6 || number(&p, ULLONG_MAX, &v) || p != text + len) {
      tutti__seterr(err, errlen,
                    "mapping '%.*s': random needs a seed, a whole number below 2^64 "
                    "(random:SEED); accepted: %s",
                    (int)len, text, TUTTI_TOPO_MAPPING_ACCEPTED);
      return TUTTI_EPARSE;
    }
    m.kind = TUTTI_MAP_RANDOM;
    m.seed = v;
    *out = m;
    return 0;
  }
  if (!strncmp(text, "list:", 5)) {
    /* the rank lists' reader (units.h), as order=list: reads them: leaf
     * numbers and ranges a-b */
    int bad;
    long count = tutti_parse_rank_list(text + 5, TUTTI_TOPO_MAX_LEAVES - 1, NULL, 0, &bad);
    if (count < 0) {
      const char *item = text + 5;
      for (int k = 1; k < bad; k++) item += strcspn(item, ",") + 1;
      tutti__seterr(err, errlen,
                    "mapping 'list:...': item %d '%.*s' is not a leaf number or range a-b "
                    "(0..%d); accepted: %s",
                    bad, (int)strcspn(item, ","), item, TUTTI_TOPO_MAX_LEAVES - 1,
                    TUTTI_TOPO_MAPPING_ACCEPTED);
      return TUTTI_EPARSE;
    }
    if (count > TUTTI_TOPO_MAX_LEAVES) { /* then a leaf repeats: say how many */
      tutti__seterr(err, errlen,
                    "mapping 'list:...': %ld leaves; accepted: %s with every leaf at most once "
                    "(at most %d)",
                    count, TUTTI_TOPO_MAPPING_ACCEPTED, TUTTI_TOPO_MAX_LEAVES);
      return TUTTI_EPARSE;
    }
    int n = (int)count;
    int *list = malloc((size_t)n * sizeof *list);
    int(*pairs)[2] = malloc((size_t)n * sizeof *pairs);
    if (!list || !pairs) {
      free(list);
      free(pairs);
      tutti__seterr(err, errlen, "mapping: out of memory");
      return TUTTI_ENOMEM;
    }
    tutti_parse_rank_list(text + 5, TUTTI_TOPO_MAX_LEAVES - 1, list, n, NULL);
    for (int i = 0; i < n; i++) pairs[i][0] = list[i], pairs[i][1] = i;
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_int2);
    for (int i = 1; i < n; i++)
      if (pairs[i][0] == pairs[i - 1][0]) {
        tutti__seterr(err, errlen,
                      "mapping 'list:...': leaf %d given twice (for ranks %d and %d); "
                      "accepted: %s with every leaf at most once",
                      pairs[i][0], pairs[i - 1][1], pairs[i][1], TUTTI_TOPO_MAPPING_ACCEPTED);
        free(list);
        free(pairs);
        return TUTTI_EPARSE;
      }
    free(pairs);
    m.kind = TUTTI_MAP_LIST;
    m.n = n;
    m.list = list;
    *out = m;
    return 0;
  }
  tutti__seterr(err, errlen, "mapping '%.*s': unknown; accepted: %s", (int)len, text,
                TUTTI_TOPO_MAPPING_ACCEPTED);
  return TUTTI_EPARSE;
}

int tutti_topo_mapping_parse(const char *text, tutti_topo_mapping_t *out, char *err,
                             size_t errlen) {
  if (!out) {
    tutti__seterr(err, errlen, "mapping: invalid arguments");
    return TUTTI_EINVAL;
  }
  if (!text) text = "";
  while (is_space(*text)) text++;
  size_t len = strlen(text);
  while (len > 0 && is_space(text[len - 1])) len--;
  char *trimmed = strndup(text, len);
  if (!trimmed) {
    tutti__seterr(err, errlen, "mapping: out of memory");
    return TUTTI_ENOMEM;
  }
  int rc = parse(trimmed, out, err, errlen);
  free(trimmed);
  return rc;
}

void tutti_topo_mapping_clear(tutti_topo_mapping_t *m) {
  if (!m) return;
  free(m->list);
  *m = (tutti_topo_mapping_t){.kind = TUTTI_MAP_IDENTITY, .block = 1};
}

char *tutti_topo_mapping_format(const tutti_topo_mapping_t *m, char *buf, size_t n) {
  if (!buf || n == 0) return NULL;
  if (!m) {
    snprintf(buf, n, "identity");
    return buf;
  }
  switch (m->kind) {
  case TUTTI_MAP_IDENTITY:
    snprintf(buf, n, "identity");
    break;
  case TUTTI_MAP_DFS:
    snprintf(buf, n, "dfs");
    break;
  case TUTTI_MAP_ROUNDROBIN:
    if (m->block == 1)
      snprintf(buf, n, "roundrobin");
    else
      snprintf(buf, n, "roundrobin:%d", m->block);
    break;
  case TUTTI_MAP_RANDOM:
    snprintf(buf, n, "random:%llu", (unsigned long long)m->seed);
    break;
  case TUTTI_MAP_LIST: {
    size_t off = 0;
    int w = snprintf(buf, n, "list:");
    off = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < m->n && m->list && off < n; i++) {
      w = snprintf(buf + off, n - off, "%s%d", i ? "," : "", m->list[i]);
      if (w > 0) off += (size_t)w;
    }
    break;
  }
  default:
    snprintf(buf, n, "unknown");
    break;
  }
  return buf;
}

/* ------------------------------------------------------------------ apply */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1, by rejection (no modulo bias). */
static uint64_t below(uint64_t *s, uint64_t n) {
  uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
  for (;;) {
    uint64_t r = splitmix64(s);
    if (r >= threshold) return r % n;
  }
}

/* The node after v in depth-first preorder (children in order), or -1. */
static int dfs_next(const tutti_topo_t *t, int v) {
  if (v < t->nsw && t->first[v] >= 0) return t->first[v];
  while (v != 0 && t->next[v] < 0) v = t->parent[v];
  return v == 0 ? -1 : t->next[v];
}

/* "cluster.ini:3" or "topology 'tree:4x8'" for messages. */
static void where(const tutti_topo_t *t, char *buf, size_t n) {
  if (t->from_file)
    snprintf(buf, n, "%s:%d", t->origin, t->root_line);
  else
    snprintf(buf, n, "topology '%s'", t->origin);
}

static int roundrobin(const tutti_topo_t *t, int block, int nranks, int *lor) {
  /* the switches holding leaves, depth first: cur[i] is the next free
   * leaf (node) of the i-th */
  int ns = 0;
  int *cur = malloc((size_t)t->nsw * sizeof *cur);
  int *nx = malloc((size_t)t->nsw * sizeof *nx);
  int *pv = malloc((size_t)t->nsw * sizeof *pv);
  if (!cur || !nx || !pv) {
    free(cur), free(nx), free(pv);
    return TUTTI_ENOMEM;
  }
  for (int v = 0; v >= 0; v = dfs_next(t, v)) {
    if (v >= t->nsw) continue;
    int c = t->first[v];
    while (c >= 0 && c < t->nsw) c = t->next[c];
    if (c >= 0) cur[ns++] = c;
  }
  /* a circular list of the switches with room */
  for (int i = 0; i < ns; i++) {
    nx[i] = (i + 1) % ns;
    pv[i] = (i + ns - 1) % ns;
  }
  int at = 0, inblock = 0;
  for (int r = 0; r < nranks; r++) {
    int leaf = cur[at];
    lor[r] = leaf - t->nsw;
    int c = t->next[leaf];
    while (c >= 0 && c < t->nsw) c = t->next[c];
    cur[at] = c;
    int go = ++inblock == block;
    if (c < 0) { /* full: unlink it; the block goes on at the next */
      nx[pv[at]] = nx[at];
      pv[nx[at]] = pv[at];
      go = 1;
      if (inblock == block) inblock = 0;
    } else if (go)
      inblock = 0;
    if (go) at = nx[at];
  }
  free(cur), free(nx), free(pv);
  return 0;
}

int tutti_topo_mapping_apply(const tutti_topo_t *t, const tutti_topo_mapping_t *m, int nranks,
                             unsigned flags, int *leaf_of_rank, char *err, size_t errlen) {
  if (!t || !leaf_of_rank || nranks < 1) {
    tutti__seterr(err, errlen, "mapping: invalid arguments");
    return TUTTI_EINVAL;
  }
  char w[4200], name[128];
  where(t, w, sizeof w);
  tutti_topo_mapping_format(m, name, sizeof name);
  int L = t->nleaves;
  if (nranks > L || (!(flags & TUTTI_TOPO_PARTIAL) && nranks != L)) {
    tutti__seterr(err, errlen,
                  "%s: the tree has %d lea%s but the world has %d rank%s; accepted: %d "
                  "ranks (one per leaf)%s",
                  w, L, L == 1 ? "f" : "ves", nranks, nranks == 1 ? "" : "s", L,
                  flags & TUTTI_TOPO_PARTIAL ? " or fewer" : "");
    return TUTTI_EINVAL;
  }
  int kind = m ? m->kind : TUTTI_MAP_IDENTITY;
  switch (kind) {
  case TUTTI_MAP_IDENTITY:
    for (int r = 0; r < nranks; r++) leaf_of_rank[r] = r;
    return 0;
  case TUTTI_MAP_DFS: {
    int r = 0;
    for (int v = 0; v >= 0 && r < nranks; v = dfs_next(t, v))
      if (v >= t->nsw) leaf_of_rank[r++] = v - t->nsw;
    return 0;
  }
  case TUTTI_MAP_ROUNDROBIN:
    if (m->block < 1) {
      tutti__seterr(err, errlen, "mapping '%s': the block must be >= 1", name);
      return TUTTI_EINVAL;
    }
    if (roundrobin(t, m->block, nranks, leaf_of_rank)) {
      tutti__seterr(err, errlen, "mapping '%s': out of memory", name);
      return TUTTI_ENOMEM;
    }
    return 0;
  case TUTTI_MAP_RANDOM: {
    int *perm = malloc((size_t)L * sizeof *perm);
    if (!perm) {
      tutti__seterr(err, errlen, "mapping '%s': out of memory", name);
      return TUTTI_ENOMEM;
    }
    for (int i = 0; i < L; i++) perm[i] = i;
    uint64_t s = m->seed;
    for (int i = L - 1; i > 0; i--) {
      int j = (int)below(&s, (uint64_t)i + 1);
      int x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    memcpy(leaf_of_rank, perm, (size_t)nranks * sizeof *perm);
    free(perm);
    return 0;
  }
  case TUTTI_MAP_LIST: {
    if (!m->list || m->n != nranks) {
      tutti__seterr(err, errlen,
                    "mapping 'list:...': %d leaves for %d ranks; accepted: list:a,b,... "
                    "with one leaf per rank",
                    m->list ? m->n : 0, nranks);
      return TUTTI_EINVAL;
    }
    unsigned char *seen = calloc((size_t)L, 1);
    if (!seen) {
      tutti__seterr(err, errlen, "mapping: out of memory");
      return TUTTI_ENOMEM;
    }
    for (int r = 0; r < nranks; r++) {
      int l = m->list[r];
      if (l < 0 || l >= L || seen[l]) {
        if (l < 0 || l >= L)
          tutti__seterr(err, errlen,
                        "mapping 'list:...': item %d: %s has no leaf %d (its leaves are "
                        "0..%d); accepted: list:a,b,... of existing leaves",
                        r + 1, w, l, L - 1);
        else
          tutti__seterr(err, errlen,
                        "mapping 'list:...': leaf %d given twice; accepted: list:a,b,... "
                        "with every leaf at most once",
                        l);
        free(seen);
        return TUTTI_EINVAL;
      }
      seen[l] = 1;
    }
    free(seen);
    memcpy(leaf_of_rank, m->list, (size_t)nranks * sizeof *leaf_of_rank);
    return 0;
  }
  default:
    tutti__seterr(err, errlen, "mapping: unknown kind %d; accepted: %s", kind,
                  TUTTI_TOPO_MAPPING_ACCEPTED);
    return TUTTI_EINVAL;
  }
}

/* ------------------------------------------------------------------ bind */

int tutti_topo_bind(tutti_topo_t *t, int nranks, const tutti_topo_mapping_t *m, unsigned flags,
                    char *err, size_t errlen) {
  if (!t || nranks < 1) {
    tutti__seterr(err, errlen, "bind: invalid arguments");
    return TUTTI_EINVAL;
  }
  int *lor = malloc((size_t)nranks * sizeof *lor);
  int *rol = malloc((size_t)t->nleaves * sizeof *rol);
  if (!lor || !rol) {
    free(lor);
    free(rol);
    tutti__seterr(err, errlen, "bind: out of memory");
    return TUTTI_ENOMEM;
  }
  int rc = tutti_topo_mapping_apply(t, m, nranks, flags, lor, err, errlen);
  if (rc) {
    free(lor);
    free(rol);
    return rc;
  }
  for (int l = 0; l < t->nleaves; l++) rol[l] = -1;
  for (int r = 0; r < nranks; r++) rol[lor[r]] = r;
  free(t->leaf_of_rank);
  free(t->rank_of_leaf);
  t->leaf_of_rank = lor;
  t->rank_of_leaf = rol;
  t->nranks = nranks;
  tutti_topo_mapping_format(m, t->mapping, sizeof t->mapping);
  return 0;
}

int tutti_topo_bind_text(tutti_topo_t *t, int nranks, const char *mapping, unsigned flags,
                         char *err, size_t errlen) {
  tutti_topo_mapping_t m;
  int rc = tutti_topo_mapping_parse(mapping, &m, err, errlen);
  if (rc) return rc;
  rc = tutti_topo_bind(t, nranks, &m, flags, err, errlen);
  tutti_topo_mapping_clear(&m);
  return rc;
}

int tutti_topo_nranks(const tutti_topo_t *t) {
  return t ? t->nranks : TUTTI_EINVAL;
}

int tutti_topo_leaf_of_rank(const tutti_topo_t *t, int rank) {
  if (!t || rank < 0 || rank >= t->nranks) return TUTTI_EINVAL;
  return t->leaf_of_rank[rank];
}

int tutti_topo_rank_of_leaf(const tutti_topo_t *t, int leaf) {
  if (!t || leaf < 0 || leaf >= t->nleaves) return TUTTI_EINVAL;
  return t->rank_of_leaf ? t->rank_of_leaf[leaf] : -1;
}

const int *tutti_topo_leaf_map(const tutti_topo_t *t) {
  return t ? t->leaf_of_rank : NULL;
}

/* ----------------------------------------------------------- chain order */

int tutti_topo_chain_order(const tutti_topo_t *t, const int *leaf_of_rank, int nranks, int root,
                           int *order) {
  if (!t || !order || nranks < 1 || root < 0 || root >= nranks) return TUTTI_EINVAL;
  if (!leaf_of_rank) {
    if (t->nranks != nranks) return TUTTI_EINVAL;
    leaf_of_rank = t->leaf_of_rank;
  }
  int nsw = t->nsw;
  int *rol = malloc((size_t)t->nleaves * sizeof *rol);
  int *stack = malloc((size_t)nsw * sizeof *stack);   /* a switch */
  int *cursor = malloc((size_t)nsw * sizeof *cursor); /* its next child, -1 parent, -2 done */
  unsigned char *seen = calloc((size_t)nsw, 1);
  int rc = TUTTI_ENOMEM;
  if (!rol || !stack || !cursor || !seen) goto done;
  rc = TUTTI_EINVAL;
  for (int l = 0; l < t->nleaves; l++) rol[l] = -1;
  for (int r = 0; r < nranks; r++) {
    int l = leaf_of_rank[r];
    if (l < 0 || l >= t->nleaves || rol[l] >= 0) goto done;
    rol[l] = r;
  }
  int k = 0, top = 0;
  int start = t->parent[nsw + leaf_of_rank[root]];
  order[k++] = root;
  stack[0] = start;
  cursor[0] = t->first[start];
  seen[start] = 1;
  for (int c = t->first[start]; c >= 0; c = t->next[c])
    if (c >= nsw && rol[c - nsw] >= 0 && rol[c - nsw] != root) order[k++] = rol[c - nsw];
  while (top >= 0) {
    int s = stack[top], nextsw = -1;
    /* the next neighbour not yet seen: child switches in order, then the
     * parent */
    while (cursor[top] >= 0 && nextsw < 0) {
      int c = cursor[top];
      cursor[top] = t->next[c]; /* -1 after the last child */
      if (c < nsw && !seen[c]) nextsw = c;
    }
    if (nextsw < 0 && cursor[top] == -1) {
      cursor[top] = -2;
      if (t->parent[s] >= 0 && !seen[t->parent[s]]) nextsw = t->parent[s];
    }
    if (nextsw < 0) {
      top--;
      continue;
    }
    seen[nextsw] = 1;
    stack[++top] = nextsw;
    cursor[top] = t->first[nextsw] >= 0 ? t->first[nextsw] : -1;
    for (int c = t->first[nextsw]; c >= 0; c = t->next[c])
      if (c >= nsw && rol[c - nsw] >= 0) order[k++] = rol[c - nsw];
  }
  rc = k == nranks ? 0 : TUTTI_EINVAL;
done:
  free(rol);
  free(stack);
  free(cursor);
  free(seen);
  return rc;
}
