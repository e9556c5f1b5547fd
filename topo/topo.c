/*
 * topo.c -- the builder of a topology (build.h) and its finalize(), which
 * lays a tree out as topo_impl.h describes: switches numbered breadth
 * first, per-node arrays, links holding an index into a small table of
 * distinct parameters. Its two front ends are spec.c (the compact spec
 * "tree:4x8") and description.c (the INI description, topo/README.md);
 * tutti_topo_open picks one. The plain queries of topo.h are query.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "errtext.h"
#include "topo_impl.h"
#include "tutti/model.h"

#define LINK_ACCEPTED "LATENCY/BANDWIDTH, e.g. 1us/10Gbps"
#define LINKS_ACCEPTED                                                                             \
  "a comma list of LATENCY/BANDWIDTH per level, leaf links first (e.g. 1us/10Gbps, 2us/40Gbps)"

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}
int tutti__is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '.' ||
         c == ':' || c == '+' || c == '-';
}

/* Copy s[0..len) trimmed into buf (cut to n). */
void tutti__trim_copy(char *buf, size_t n, const char *s, size_t len) {
  while (len > 0 && is_space(*s)) s++, len--;
  while (len > 0 && is_space(s[len - 1])) len--;
  if (len >= n) len = n - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
}

/* A whole number in [0, hi] at *p, advancing *p; -1 if none or too big. */
long long tutti__whole(const char **p, long long hi) {
  const char *q = *p;
  if (!is_digit(*q)) return -1;
  long long v = 0;
  while (is_digit(*q)) {
    v = v * 10 + (*q++ - '0');
    if (v > hi) return -1;
  }
  *p = q;
  return v;
}

int tutti__topo_parse_link(const char *s, tutti_topo_link_t *out, char *msg, size_t n) {
  char item[256], inner[512];
  tutti__trim_copy(item, sizeof item, s, strlen(s));
  char *slash = strchr(item, '/');
  if (!slash) {
    snprintf(msg, n, "'%s' is not LATENCY/BANDWIDTH; accepted: %s", item, LINK_ACCEPTED);
    return TUTTI_EPARSE;
  }
  *slash = '\0';
  double lat, bw;
  if (tutti_parse_time(item, &lat, inner, sizeof inner)) {
    snprintf(msg, n, "latency: %s", inner);
    return TUTTI_EPARSE;
  }
  if (tutti_parse_bandwidth(slash + 1, &bw, inner, sizeof inner)) {
    snprintf(msg, n, "bandwidth: %s", inner);
    return TUTTI_EPARSE;
  }
  out->lat = lat;
  out->beta = 1.0 / bw;
  return 0;
}

int tutti__grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap) return 0;
  int c = *cap ? *cap : 8;
  while (c < need) {
    if (c > INT_MAX / 2) return TUTTI_ENOMEM;
    c *= 2;
  }
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return TUTTI_ENOMEM;
  *p = q;
  *cap = c;
  return 0;
}

void tutti__build_free(struct build *b) {
  for (int i = 0; i < b->nsw; i++) free(b->sw[i].kids);
  free(b->sw);
  free(b->params);
  free(b->phash);
  free(b->lev);
  free(b->ov);
  memset(b, 0, sizeof *b);
}

int tutti__build_init(struct build *b) {
  memset(b, 0, sizeof *b);
  if (tutti__grow((void **)&b->params, &b->capp, 1, sizeof *b->params)) return TUTTI_ENOMEM;
  b->params[0] = (tutti_topo_link_t){0, 0}; /* "not set" */
  b->np = 1;
  return 0;
}

static uint32_t param_hash(tutti_topo_link_t l) {
  uint64_t x, y;
  memcpy(&x, &l.lat, sizeof x);
  memcpy(&y, &l.beta, sizeof y);
  x = (x ^ (y * UINT64_C(0x9e3779b97f4a7c15))) * UINT64_C(0xbf58476d1ce4e5b9);
  return (uint32_t)(x >> 32);
}

/* The slot of l in b->phash: its index there, or the empty slot (0) where
 * it goes. */
static int *param_slot(struct build *b, tutti_topo_link_t l) {
  uint32_t mask = (uint32_t)b->phcap - 1;
  for (uint32_t i = param_hash(l) & mask;; i = (i + 1) & mask) {
    int *p = &b->phash[i];
    if (*p == 0 || (b->params[*p].lat == l.lat && b->params[*p].beta == l.beta)) return p;
  }
}

/* The index of a parameter (never 0: that one means "not set"). A hash, so
 * a file of a million distinct leaf_link.N values stays linear. */
int tutti__build_param(struct build *b, tutti_topo_link_t l) {
  if (2 * b->np >= b->phcap) { /* rehash at half full */
    int cap = b->phcap ? 2 * b->phcap : 64;
    int *h = calloc((size_t)cap, sizeof *h);
    if (!h) return TUTTI_ENOMEM;
    free(b->phash);
    b->phash = h;
    b->phcap = cap;
    for (int i = 1; i < b->np; i++) *param_slot(b, b->params[i]) = i;
  }
  int *slot = param_slot(b, l);
  if (*slot) return *slot;
  if (tutti__grow((void **)&b->params, &b->capp, b->np + 1, sizeof *b->params)) return TUTTI_ENOMEM;
  b->params[b->np] = l;
  *slot = b->np;
  return b->np++;
}

int tutti__build_switch(struct build *b, const char *name, int kind) {
  if (tutti__grow((void **)&b->sw, &b->capsw, b->nsw + 1, sizeof *b->sw)) return TUTTI_ENOMEM;
  struct bsw *s = &b->sw[b->nsw];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->kind = kind;
  s->up[0] = s->up[1] = s->leaf[0] = s->leaf[1] = -1;
  return b->nsw++;
}

int tutti__build_kid(struct bsw *s, int kid) {
  if (tutti__grow((void **)&s->kids, &s->capk, s->nk + 1, sizeof *s->kids)) return TUTTI_ENOMEM;
  s->kids[s->nk++] = kid;
  return 0;
}

/* A per-level list "LAT/BW, LAT/BW, ..." into b->lev; the message has no
 * prefix. */
int tutti__build_levels(struct build *b, const char *v, char *msg, size_t n) {
  char item[256], inner[512];
  b->nlev = 0;
  const char *p = v;
  for (int i = 1;; i++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    tutti__trim_copy(item, sizeof item, p, len);
    if (item[0] == '\0') {
      snprintf(msg, n, "link %d is empty; accepted: %s", i, LINKS_ACCEPTED);
      return TUTTI_EPARSE;
    }
    tutti_topo_link_t l;
    if (tutti__topo_parse_link(item, &l, inner, sizeof inner)) {
      snprintf(msg, n, "link %d: %s", i, inner);
      return TUTTI_EPARSE;
    }
    int *q = realloc(b->lev, (size_t)(b->nlev + 1) * sizeof *q);
    if (q) b->lev = q;
    int idx = q ? tutti__build_param(b, l) : TUTTI_ENOMEM;
    if (idx < 0) {
      snprintf(msg, n, "out of memory");
      return TUTTI_ENOMEM;
    }
    b->lev[b->nlev++] = idx;
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* The builder's tree as a topology. where_levels prefixes the message when
 * the level list is longer than the tree is high. */
int tutti__build_finalize(struct build *b, const char *origin, int from_file, int root_line,
                          const char *where_levels, tutti_topo_t **out, char *err, size_t errlen) {
  int nsw = b->nsw, nleaves = b->nleaves;
  long long nn = (long long)nsw + nleaves;
  if (nn > INT_MAX / 2) {
    tutti__seterr(err, errlen, "%s: too many nodes", origin);
    return TUTTI_EINVAL;
  }
  int nnodes = (int)nn, nlinks = 2 * (nnodes - 1);
  tutti_topo_t *t = calloc(1, sizeof *t);
  int *order = malloc((size_t)nsw * sizeof *order);
  int *id = malloc((size_t)nsw * sizeof *id);
  int *height = malloc((size_t)nsw * sizeof *height);
  int *ovi = NULL;
  int rc = TUTTI_ENOMEM;
  if (!t || !order || !id || !height) goto fail;
  t->nsw = nsw;
  t->nleaves = nleaves;
  t->nnodes = nnodes;
  t->parent = malloc((size_t)nnodes * sizeof *t->parent);
  t->next = malloc((size_t)nnodes * sizeof *t->next);
  t->dep = malloc((size_t)nnodes * sizeof *t->dep);
  t->first = malloc((size_t)nsw * sizeof *t->first);
  t->kind = malloc((size_t)nsw);
  t->lp = malloc((size_t)(nlinks > 0 ? nlinks : 1) * sizeof *t->lp);
  t->name_off = malloc((size_t)nsw * sizeof *t->name_off);
  t->origin = strdup(origin);
  t->params = malloc((size_t)b->np * sizeof *t->params);
  if (!t->parent || !t->next || !t->dep || !t->first || !t->kind || !t->lp || !t->name_off ||
      !t->origin || !t->params)
    goto fail;
  memcpy(t->params, b->params, (size_t)b->np * sizeof *t->params);
  t->nparams = b->np;
  t->from_file = from_file;
  t->root_line = root_line;

  /* breadth-first ids */
  for (int i = 0; i < nsw; i++) id[i] = -1;
  int head = 0, tail = 0;
  order[tail++] = b->root;
  id[b->root] = 0;
  while (head < tail) {
    const struct bsw *s = &b->sw[order[head++]];
    for (int k = 0; k < s->nk; k++)
      if (s->kids[k] >= 0 && id[s->kids[k]] < 0) {
        id[s->kids[k]] = tail;
        order[tail++] = s->kids[k];
      }
  }
  /* (the front ends guarantee every switch is reachable exactly once) */
  t->parent[0] = -1;
  t->next[0] = -1;
  t->dep[0] = 0;
  size_t pool = 0;
  for (int s = 0; s < nsw; s++) pool += strlen(b->sw[order[s]].name) + 1;
  t->names = malloc(pool);
  if (!t->names) goto fail;
  pool = 0;
  for (int s = 0; s < nsw; s++) {
    const struct bsw *bs = &b->sw[order[s]];
    size_t l = strlen(bs->name) + 1;
    memcpy(t->names + pool, bs->name, l);
    t->name_off[s] = (int)pool;
    pool += l;
    t->kind[s] = (uint8_t)bs->kind;
    int prev = -1;
    t->first[s] = -1;
    for (int k = 0; k < bs->nk; k++) {
      int c = bs->kids[k] >= 0 ? id[bs->kids[k]] : nsw + (-bs->kids[k] - 1);
      t->parent[c] = s;
      t->dep[c] = t->dep[s] + 1;
      t->next[c] = -1;
      if (prev < 0)
        t->first[s] = c;
      else
        t->next[prev] = c;
      prev = c;
    }
  }
  /* heights, bottom up (breadth-first order reversed) */
  for (int s = nsw - 1; s >= 0; s--) {
    int h = 0;
    for (int c = t->first[s]; c >= 0; c = t->next[c]) {
      int hc = c < nsw ? height[c] + 1 : 1;
      if (hc > h) h = hc;
    }
    height[s] = h;
  }
  t->levels = height[0];
  t->depth = 0;
  for (int l = 0; l < nleaves; l++)
    if (t->dep[nsw + l] > t->depth) t->depth = t->dep[nsw + l];
  if (t->depth > TUTTI_TOPO_MAX_DEPTH) { /* the front ends say where; this is the backstop */
    tutti__seterr(err, errlen, "%s: %d levels deep; accepted: a tree at most %d levels deep",
                  origin, t->depth, TUTTI_TOPO_MAX_DEPTH);
    rc = TUTTI_EPARSE;
    goto fail;
  }
  if (b->nlev > t->levels) {
    tutti__seterr(err, errlen,
                  "%s: %d link levels given but the tree has %d (%s); accepted: at most %d "
                  "LATENCY/BANDWIDTH, leaf links first",
                  where_levels, b->nlev, t->levels, origin, t->levels);
    rc = TUTTI_EPARSE;
    goto fail;
  }
  if (b->nov) {
    ovi = malloc((size_t)nleaves * sizeof *ovi);
    if (!ovi) goto fail;
    for (int l = 0; l < nleaves; l++) ovi[l] = -1;
    for (int i = 0; i < b->nov; i++) ovi[b->ov[i].leaf] = i;
  }
  /* link parameters: explicit, else the level's, else "not set" */
  t->unset = 0;
  for (int v = 1; v < nnodes; v++) {
    const int *ex;
    int level;
    if (v < nsw) {
      ex = b->sw[order[v]].up;
      level = height[v];
    } else {
      int l = v - nsw;
      ex = ovi && ovi[l] >= 0 ? b->ov[ovi[l]].p : b->sw[order[t->parent[v]]].leaf;
      level = 0;
    }
    for (int d = 0; d < 2; d++) {
      int p = ex[d];
      if (p < 0) p = b->nlev ? b->lev[level < b->nlev ? level : b->nlev - 1] : 0;
      t->lp[2 * (v - 1) + d] = (uint32_t)p;
      t->unset += p == 0;
    }
  }
  free(order);
  free(id);
  free(height);
  free(ovi);
  *out = t;
  return 0;
fail:
  if (rc == TUTTI_ENOMEM) tutti__seterr(err, errlen, "%s: out of memory", origin);
  free(order);
  free(id);
  free(height);
  free(ovi);
  tutti_topo_free(t);
  return rc;
}

void tutti_topo_free(tutti_topo_t *t) {
  if (!t) return;
  free(t->parent);
  free(t->next);
  free(t->dep);
  free(t->first);
  free(t->kind);
  free(t->lp);
  free(t->params);
  free(t->names);
  free(t->name_off);
  free(t->origin);
  free(t->leaf_of_rank);
  free(t->rank_of_leaf);
  free(t);
}

int tutti_topo_open(const char *spec_or_path, const char *links, tutti_topo_t **out, char *err,
                    size_t errlen) {
  if (!spec_or_path || !out) {
    tutti__seterr(err, errlen, "topology: invalid arguments");
    return TUTTI_EINVAL;
  }
  if (!strncmp(spec_or_path, "tree:", 5))
    return tutti_topo_from_spec(spec_or_path, links, out, err, errlen);
  return tutti_topo_load(spec_or_path, links, out, err, errlen);
}
