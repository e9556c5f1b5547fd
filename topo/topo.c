/*
 * topo.c -- trees of switches: built from the compact spec "tree:4x8" or
 * from an explicit INI description (topo/README.md), validated, and laid
 * out as topo_impl.h describes; plus the plain queries of topo.h.
 *
 * Both front ends fill one builder (switches with their children in order,
 * leaves, link parameters per level, per switch and per leaf) and one
 * finalize() turns it into the compact layout: switches numbered breadth
 * first, per-node arrays, links holding an index into a small table of
 * distinct parameters.
 *
 * The INI front end uses Debian's inih (ini_parse_stream) as
 * runtime/profile.c does: our own reader counts real lines, sees section
 * headers (even of empty sections) before inih does, refuses lines longer
 * than inih's buffer, and stops at the first error, so every message is
 * "FILE:LINE: what; accepted: what". Names are resolved and the tree is
 * checked once the whole file is read (children may be defined after
 * their parent). inih's process-wide settings are never changed.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "topo_impl.h"
#include "tutti/model.h"

#define SPEC_ACCEPTED                                                                              \
  "tree:A[xB[xC...]] with whole numbers >= 1 (e.g. tree:4x8: a root switch over 4 switches of 8 "  \
  "leaves)"
#define LINK_ACCEPTED "LATENCY/BANDWIDTH, e.g. 1us/10Gbps"
#define LINKS_ACCEPTED                                                                             \
  "a comma list of LATENCY/BANDWIDTH per level, leaf links first (e.g. 1us/10Gbps, 2us/40Gbps)"
#define PAIR_ACCEPTED "LAT/BW (both directions) or LAT/BW, LAT/BW (up, then down), e.g. 1us/10Gbps"
#define SECTIONS_ACCEPTED "[topology], [switch NAME], [host NAME]"
#define SWITCH_KEYS "children, leaves, uplink, leaf_links, leaf_link.N"
#define HOST_KEYS "leaves, uplink, leaf_links, leaf_link.N"
#define NAME_ACCEPTED "letters, digits and _ . : + -, at most 63 characters"
#define MAX_FACTORS 64
#define MAX_FILE (64 << 20)

void tutti__topo_seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}
#define seterr tutti__topo_seterr

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}
static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '.' ||
         c == ':' || c == '+' || c == '-';
}

/* Copy s[0..len) trimmed into buf (cut to n). */
static void trim_copy(char *buf, size_t n, const char *s, size_t len) {
  while (len > 0 && is_space(*s)) s++, len--;
  while (len > 0 && is_space(s[len - 1])) len--;
  if (len >= n) len = n - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
}

/* A whole number in [0, hi] at *p, advancing *p; -1 if none or too big. */
static long long whole(const char **p, long long hi) {
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
  trim_copy(item, sizeof item, s, strlen(s));
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

/* ------------------------------------------------------------- builder */

struct bsw {
  char name[TUTTI_TOPO_NAME_MAX];
  int kind;
  int nk, capk;
  int *kids;   /* >= 0: a builder switch; < 0: leaf -(l + 1) */
  int up[2];   /* uplink parameter (up, down), -1 unset */
  int leaf[2]; /* its leaves' links, -1 unset */
};

struct bov {
  int leaf, p[2];
};

struct build {
  int nsw, capsw;
  struct bsw *sw;
  int root;
  int nleaves;
  tutti_topo_link_t *params;
  int np, capp;
  int nlev;
  int *lev; /* parameter per level, leaf links first */
  int nov, capov;
  struct bov *ov; /* per-leaf overrides */
};

static int grow(void **p, int *cap, int need, size_t size) {
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

static void build_free(struct build *b) {
  for (int i = 0; i < b->nsw; i++) free(b->sw[i].kids);
  free(b->sw);
  free(b->params);
  free(b->lev);
  free(b->ov);
  memset(b, 0, sizeof *b);
}

static int build_init(struct build *b) {
  memset(b, 0, sizeof *b);
  if (grow((void **)&b->params, &b->capp, 1, sizeof *b->params)) return TUTTI_ENOMEM;
  b->params[0] = (tutti_topo_link_t){0, 0}; /* "not set" */
  b->np = 1;
  return 0;
}

/* The index of a parameter (never 0: that one means "not set"). */
static int param_add(struct build *b, tutti_topo_link_t l) {
  for (int i = 1; i < b->np; i++)
    if (b->params[i].lat == l.lat && b->params[i].beta == l.beta) return i;
  if (grow((void **)&b->params, &b->capp, b->np + 1, sizeof *b->params)) return TUTTI_ENOMEM;
  b->params[b->np] = l;
  return b->np++;
}

static int sw_add(struct build *b, const char *name, int kind) {
  if (grow((void **)&b->sw, &b->capsw, b->nsw + 1, sizeof *b->sw)) return TUTTI_ENOMEM;
  struct bsw *s = &b->sw[b->nsw];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->kind = kind;
  s->up[0] = s->up[1] = s->leaf[0] = s->leaf[1] = -1;
  return b->nsw++;
}

static int kid_add(struct bsw *s, int kid) {
  if (grow((void **)&s->kids, &s->capk, s->nk + 1, sizeof *s->kids)) return TUTTI_ENOMEM;
  s->kids[s->nk++] = kid;
  return 0;
}

/* A per-level list "LAT/BW, LAT/BW, ..." into b->lev; the message has no
 * prefix. */
static int parse_levels(struct build *b, const char *v, char *msg, size_t n) {
  char item[256], inner[512];
  b->nlev = 0;
  const char *p = v;
  for (int i = 1;; i++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    trim_copy(item, sizeof item, p, len);
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
    int idx = q ? param_add(b, l) : TUTTI_ENOMEM;
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
static int finalize(struct build *b, const char *origin, int from_file, int root_line,
                    const char *where_levels, tutti_topo_t **out, char *err, size_t errlen) {
  int nsw = b->nsw, nleaves = b->nleaves;
  long long nn = (long long)nsw + nleaves;
  if (nn > INT_MAX / 2) {
    seterr(err, errlen, "%s: too many nodes", origin);
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
  if (b->nlev > t->levels) {
    seterr(err, errlen,
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
  if (rc == TUTTI_ENOMEM) seterr(err, errlen, "%s: out of memory", origin);
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

/* ---------------------------------------------------------------- spec */

int tutti_topo_from_spec(const char *spec, const char *links, tutti_topo_t **out, char *err,
                         size_t errlen) {
  if (!spec || !out) {
    seterr(err, errlen, "topology: invalid arguments");
    return TUTTI_EINVAL;
  }
  long long f[MAX_FACTORS];
  int k = 0;
  if (strncmp(spec, "tree:", 5) != 0) {
    seterr(err, errlen, "topology '%s': not a tree spec; accepted: %s", spec, SPEC_ACCEPTED);
    return TUTTI_EPARSE;
  }
  const char *p = spec + 5;
  long long leaves = 1, switches = 1, level = 1;
  for (;;) {
    long long v = whole(&p, TUTTI_TOPO_MAX_LEAVES);
    if (v < 1) {
      seterr(err, errlen, "topology '%s': number %d is %s; accepted: %s", spec, k + 1,
             v == 0 ? "0" : "missing or too large", SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    if (k == MAX_FACTORS) {
      seterr(err, errlen, "topology '%s': more than %d levels; accepted: %s", spec, MAX_FACTORS,
             SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    f[k++] = v;
    leaves *= v;
    if (leaves > TUTTI_TOPO_MAX_LEAVES) {
      seterr(err, errlen, "topology '%s': more than %d leaves; accepted: %s", spec,
             TUTTI_TOPO_MAX_LEAVES, SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    if (*p == '\0') break;
    if (*p != 'x') {
      seterr(err, errlen, "topology '%s': unexpected '%c' after number %d; accepted: %s", spec, *p,
             k, SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    p++;
  }
  for (int i = 0; i + 1 < k; i++) {
    level *= f[i];
    switches += level;
  }
  if (switches > TUTTI_TOPO_MAX_LEAVES) {
    seterr(err, errlen, "topology '%s': more than %d switches; accepted: %s", spec,
           TUTTI_TOPO_MAX_LEAVES, SPEC_ACCEPTED);
    return TUTTI_EPARSE;
  }
  struct build b;
  if (build_init(&b)) {
    seterr(err, errlen, "topology '%s': out of memory", spec);
    return TUTTI_ENOMEM;
  }
  int rc = TUTTI_ENOMEM;
  char msg[768];
  if (links && links[0]) {
    rc = parse_levels(&b, links, msg, sizeof msg);
    if (rc) {
      seterr(err, errlen, "links '%s': %s", links, msg);
      goto done;
    }
    rc = TUTTI_ENOMEM;
  }
  /* switches level by level, left to right: level d starts at first[d] */
  long long first = 0, count = 1, leaf = 0;
  for (int d = 0; d < k; d++) {
    for (long long i = 0; i < count; i++) {
      char name[TUTTI_TOPO_NAME_MAX];
      if (switches == 1)
        snprintf(name, sizeof name, "s0");
      else if (d == 0)
        snprintf(name, sizeof name, "root");
      else if (d == k - 1)
        snprintf(name, sizeof name, "s%lld", i);
      else
        snprintf(name, sizeof name, "sw%d.%lld", d, i);
      int s = sw_add(&b, name, TUTTI__SW_SWITCH);
      if (s < 0) goto done;
      for (long long c = 0; c < f[d]; c++) {
        int kid = d == k - 1 ? (int)(-(leaf++) - 1) : (int)(first + count + i * f[d] + c);
        if (kid_add(&b.sw[s], kid)) goto done;
      }
    }
    first += count;
    count *= f[d];
  }
  b.root = 0;
  b.nleaves = (int)leaves;
  rc = finalize(&b, spec, 0, 0, "links", out, err, errlen);
done:
  if (rc == TUTTI_ENOMEM) seterr(err, errlen, "topology '%s': out of memory", spec);
  build_free(&b);
  return rc;
}

/* ----------------------------------------------------------------- INI */

struct ich {
  char name[TUTTI_TOPO_NAME_MAX];
  int line;
};

struct iov {
  int leaf, line;
};

struct isw {
  int line, kind;
  struct ich *ch;
  int nch, capch;
  int *lv;
  int nlv, caplv;
  int up_line, lf_line;
  struct iov *ov; /* lines and leaves of the leaf_link.N keys (b->ov has the values) */
  int nov, capov;
  int parent, parent_line; /* resolved */
};

struct istate {
  const char *filename;
  const char *text;
  size_t pos;
  int line;
  int indented;
  int cur; /* current section: >= 0 a switch, -2 [topology], -1 none */
  int topo_line, links_line;
  int links_given; /* the caller's links replace the file's */
  struct build *b;
  struct isw *sw;
  int nsw, capsw;
  int *hash; /* open addressing over names: switch index or -1 */
  int hcap;
  int *leaf_owner, *leaf_line;
  int leafcap;
  int maxleaf, maxleaf_line;
  char prev_name[TUTTI_TOPO_NAME_MAX];
  int prev_line;
  int err_line;
  int oom;
  char msg[1024];
};

static void fail(struct istate *st, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct istate *st, int line, const char *fmt, ...) {
  if (st->err_line) return;
  st->err_line = line > 0 ? line : 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->msg, sizeof st->msg, fmt, ap);
  va_end(ap);
}

static void oom(struct istate *st) {
  st->oom = 1;
  fail(st, st->line, "out of memory");
}

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The switch named `name`, or -1. */
static int name_find(const struct istate *st, const char *name) {
  if (!st->hcap) return -1;
  for (uint32_t i = name_hash(name) & (uint32_t)(st->hcap - 1);;
       i = (i + 1) & (uint32_t)(st->hcap - 1)) {
    int s = st->hash[i];
    if (s < 0) return -1;
    if (!strcmp(st->b->sw[s].name, name)) return s;
  }
}

static int name_insert(struct istate *st, int s) {
  if (2 * (st->nsw + 1) > st->hcap) {
    int cap = st->hcap ? 2 * st->hcap : 64;
    int *h = malloc((size_t)cap * sizeof *h);
    if (!h) return TUTTI_ENOMEM;
    for (int i = 0; i < cap; i++) h[i] = -1;
    int *old = st->hash;
    int oldcap = st->hcap;
    st->hash = h;
    st->hcap = cap;
    for (int i = 0; i < oldcap; i++)
      if (old[i] >= 0) {
        uint32_t j = name_hash(st->b->sw[old[i]].name) & (uint32_t)(cap - 1);
        while (h[j] >= 0) j = (j + 1) & (uint32_t)(cap - 1);
        h[j] = old[i];
      }
    free(old);
  }
  uint32_t j = name_hash(st->b->sw[s].name) & (uint32_t)(st->hcap - 1);
  while (st->hash[j] >= 0) j = (j + 1) & (uint32_t)(st->hcap - 1);
  st->hash[j] = s;
  return 0;
}

/* A section header (the text between [ and ]). */
static void header(struct istate *st, const char *h, size_t len) {
  char buf[256];
  trim_copy(buf, sizeof buf, h, len);
  st->cur = -1;
  if (!strcmp(buf, "topology")) {
    if (st->topo_line) {
      fail(st, st->line,
           "section [topology]: given twice (first on line %d); accepted: each "
           "section once",
           st->topo_line);
      return;
    }
    st->topo_line = st->line;
    st->cur = -2;
    return;
  }
  size_t w = 0;
  while (buf[w] && !is_space(buf[w])) w++;
  int kind;
  if (w == 6 && !memcmp(buf, "switch", 6))
    kind = TUTTI__SW_SWITCH;
  else if (w == 4 && !memcmp(buf, "host", 4))
    kind = TUTTI__SW_HOST;
  else {
    fail(st, st->line, "section [%s]: unknown; accepted: %s", buf, SECTIONS_ACCEPTED);
    return;
  }
  const char *what = kind == TUTTI__SW_HOST ? "host" : "switch";
  const char *name = buf + w;
  while (is_space(*name)) name++;
  size_t nl = strlen(name);
  if (nl == 0) {
    fail(st, st->line, "section [%s]: no name; accepted: [%s NAME] with a name of %s", buf, what,
         NAME_ACCEPTED);
    return;
  }
  for (size_t i = 0; i < nl; i++)
    if (!is_name_char(name[i]) || nl >= TUTTI_TOPO_NAME_MAX) {
      fail(st, st->line,
           "section [%s]: '%s' is not a name; accepted: [%s NAME] with a name of "
           "%s",
           buf, name, what, NAME_ACCEPTED);
      return;
    }
  int dup = name_find(st, name);
  if (dup >= 0) {
    fail(st, st->line,
         "section [%s]: '%s' given twice (first on line %d); accepted: each name "
         "once",
         buf, name, st->sw[dup].line);
    return;
  }
  int s = sw_add(st->b, name, kind);
  if (s < 0 || grow((void **)&st->sw, &st->capsw, st->nsw + 1, sizeof *st->sw)) {
    oom(st);
    return;
  }
  struct isw *is = &st->sw[s];
  memset(is, 0, sizeof *is);
  is->line = st->line;
  is->kind = kind;
  is->parent = -1;
  st->nsw = s + 1;
  if (name_insert(st, s)) {
    oom(st);
    return;
  }
  st->cur = s;
}

/* Look at a raw line before inih does: section headers. */
static void inspect(struct istate *st, const char *raw, size_t len) {
  size_t i = 0;
  while (i < len && (raw[i] == ' ' || raw[i] == '\t')) i++;
  st->indented = i > 0;
  if (i == len || raw[i] != '[') return;
  const char *close = memchr(raw + i, ']', len - i);
  if (!close) return; /* inih reports it as a syntax error */
  header(st, raw + i + 1, (size_t)(close - raw - i - 1));
}

/* fgets over st->text that counts lines and stops at the first error. */
static char *reader(char *str, int num, void *stream) {
  struct istate *st = stream;
  if (st->err_line || st->text[st->pos] == '\0' || num < 2) return NULL;
  const char *p = st->text + st->pos;
  const char *nl = strchr(p, '\n');
  size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
  st->line++;
  if (len > (size_t)num - 1) {
    fail(st, st->line,
         "line too long (%zu characters; at most %d); accepted: shorter lines "
         "(children and leaves may be split over several lines)",
         len - (nl ? 1 : 0), num - 3);
    return NULL;
  }
  memcpy(str, p, len);
  str[len] = '\0';
  st->pos += len;
  inspect(st, str, len);
  return str;
}

/* Record leaf l under switch s at the current line. */
static int leaf_add(struct istate *st, int s, long long l) {
  if (l >= st->leafcap) {
    int cap = st->leafcap ? st->leafcap : 64;
    while (cap <= l) cap *= 2;
    int *o = realloc(st->leaf_owner, (size_t)cap * sizeof *o);
    if (o) st->leaf_owner = o;
    int *ln = realloc(st->leaf_line, (size_t)cap * sizeof *ln);
    if (ln) st->leaf_line = ln;
    if (!o || !ln) {
      oom(st);
      return -1;
    }
    for (int i = st->leafcap; i < cap; i++) st->leaf_owner[i] = -1;
    st->leafcap = cap;
  }
  if (st->leaf_owner[l] >= 0) {
    fail(st, st->line,
         "key 'leaves': leaf %lld listed twice (first on line %d, under '%s'); "
         "accepted: each leaf under one switch, once",
         l, st->leaf_line[l], st->b->sw[st->leaf_owner[l]].name);
    return -1;
  }
  st->leaf_owner[l] = s;
  st->leaf_line[l] = st->line;
  if (l > st->maxleaf) {
    st->maxleaf = (int)l;
    st->maxleaf_line = st->line;
  }
  struct isw *is = &st->sw[s];
  if (grow((void **)&is->lv, &is->caplv, is->nlv + 1, sizeof *is->lv)) {
    oom(st);
    return -1;
  }
  is->lv[is->nlv++] = (int)l;
  return 0;
}

/* children or leaves: a comma list; a trailing comma is allowed (the list
 * goes on on the next line). */
static int list_key(struct istate *st, int s, int leaves, const char *value) {
  const char *key = leaves ? "leaves" : "children";
  const char *accepted = leaves ? "leaf numbers N or ranges A-B, e.g. 0-7, 16, 18"
                                : "switch or host names, e.g. s0, s1";
  const char *p = value;
  char item[256];
  for (int i = 1;; i++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    trim_copy(item, sizeof item, p, len);
    if (item[0] == '\0') {
      if (!comma && i > 1) return 0; /* trailing comma */
      fail(st, st->line, "key '%s': item %d is empty; accepted: %s", key, i, accepted);
      return -1;
    }
    if (leaves) {
      const char *q = item;
      long long a = whole(&q, TUTTI_TOPO_MAX_LEAVES - 1), z = a;
      if (a >= 0 && *q == '-') {
        q++;
        z = whole(&q, TUTTI_TOPO_MAX_LEAVES - 1);
      }
      if (a < 0 || z < 0 || *q != '\0' || z < a) {
        fail(st, st->line,
             "key 'leaves': '%s' is not a leaf number or range; accepted: %s "
             "(leaves below %d)",
             item, accepted, TUTTI_TOPO_MAX_LEAVES);
        return -1;
      }
      for (long long l = a; l <= z; l++)
        if (leaf_add(st, s, l)) return -1;
    } else {
      size_t nl = strlen(item);
      for (size_t j = 0; j < nl; j++)
        if (!is_name_char(item[j]) || nl >= TUTTI_TOPO_NAME_MAX) {
          fail(st, st->line, "key 'children': '%s' is not a name; accepted: %s (%s)", item,
               accepted, NAME_ACCEPTED);
          return -1;
        }
      struct isw *is = &st->sw[s];
      if (grow((void **)&is->ch, &is->capch, is->nch + 1, sizeof *is->ch)) {
        oom(st);
        return -1;
      }
      memcpy(is->ch[is->nch].name, item, nl + 1);
      is->ch[is->nch++].line = st->line;
    }
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* "LAT/BW" or "LAT/BW, LAT/BW" -> parameter indices (up, down). */
static int pair_value(struct istate *st, const char *key, const char *value, int p[2]) {
  char a[256], msg[768];
  const char *comma = strchr(value, ',');
  tutti_topo_link_t l[2];
  for (int d = 0; d < 2; d++) {
    const char *s = d ? comma + 1 : value;
    size_t len = d || !comma ? strlen(s) : (size_t)(comma - value);
    trim_copy(a, sizeof a, s, len);
    if (tutti__topo_parse_link(a, &l[d], msg, sizeof msg)) {
      fail(st, st->line, "key '%s': %s%s; accepted: %s", key, comma ? (d ? "down: " : "up: ") : "",
           msg, PAIR_ACCEPTED);
      return -1;
    }
    if (!comma) {
      l[1] = l[0];
      break;
    }
    if (d == 1 && strchr(comma + 1, ',')) {
      fail(st, st->line, "key '%s': more than two links; accepted: %s", key, PAIR_ACCEPTED);
      return -1;
    }
  }
  for (int d = 0; d < 2; d++) {
    p[d] = param_add(st->b, l[d]);
    if (p[d] < 0) {
      oom(st);
      return -1;
    }
  }
  return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
  struct istate *st = user;
  if (st->err_line) return 0;
  int cont =
      st->indented && st->prev_line && st->prev_line != st->line && !strcmp(name, st->prev_name);
  int list = !strcmp(name, "children") || !strcmp(name, "leaves");
  if (cont && !list) {
    fail(st, st->line,
         "key '%s': continued on an indented line; accepted: one key = value per "
         "line, not indented (only children and leaves may go on)",
         name);
    return 0;
  }
  snprintf(st->prev_name, sizeof st->prev_name, "%s", name);
  st->prev_line = st->line;
  if (section[0] == '\0' || st->cur == -1) {
    fail(st, st->line, "key '%s': outside any section; accepted: keys under %s", name,
         SECTIONS_ACCEPTED);
    return 0;
  }
  if (st->cur == -2) {
    if (strcmp(name, "links")) {
      fail(st, st->line, "key '%s': unknown in [topology]; accepted: links", name);
      return 0;
    }
    if (st->links_line) {
      fail(st, st->line, "key 'links': given twice (first on line %d); accepted: each key once",
           st->links_line);
      return 0;
    }
    st->links_line = st->line;
    char msg[768];
    struct build scratch;
    struct build *b = st->b;
    if (st->links_given) { /* check it, then drop it */
      if (build_init(&scratch)) {
        oom(st);
        return 0;
      }
      b = &scratch;
    }
    int rc = parse_levels(b, value, msg, sizeof msg);
    if (st->links_given) build_free(&scratch);
    if (rc) {
      fail(st, st->line, "key 'links': %s", msg);
      return 0;
    }
    return 1;
  }
  int s = st->cur;
  struct isw *is = &st->sw[s];
  struct bsw *bs = &st->b->sw[s];
  const char *keys = is->kind == TUTTI__SW_HOST ? HOST_KEYS : SWITCH_KEYS;
  if (!strcmp(name, "children")) {
    if (is->kind == TUTTI__SW_HOST) {
      fail(st, st->line,
           "key 'children': a host holds cores as leaves, not switches; accepted: "
           "%s (or make '%s' a [switch])",
           HOST_KEYS, bs->name);
      return 0;
    }
    return list_key(st, s, 0, value) == 0;
  }
  if (!strcmp(name, "leaves")) return list_key(st, s, 1, value) == 0;
  if (!strcmp(name, "uplink") || !strcmp(name, "leaf_links")) {
    int up = name[0] == 'u';
    int *line = up ? &is->up_line : &is->lf_line;
    if (*line) {
      fail(st, st->line, "key '%s': given twice (first on line %d); accepted: each key once", name,
           *line);
      return 0;
    }
    *line = st->line;
    return pair_value(st, name, value, up ? bs->up : bs->leaf) == 0;
  }
  if (!strncmp(name, "leaf_link.", 10)) {
    const char *q = name + 10;
    long long l = whole(&q, TUTTI_TOPO_MAX_LEAVES - 1);
    if (l < 0 || *q) {
      fail(st, st->line,
           "key '%s': '%s' is not a leaf number; accepted: leaf_link.N with N a "
           "leaf of this section",
           name, name + 10);
      return 0;
    }
    for (int i = 0; i < is->nov; i++)
      if (is->ov[i].leaf == l) {
        fail(st, st->line, "key '%s': given twice (first on line %d); accepted: each key once",
             name, is->ov[i].line);
        return 0;
      }
    struct build *b = st->b;
    if (grow((void **)&is->ov, &is->capov, is->nov + 1, sizeof *is->ov) ||
        grow((void **)&b->ov, &b->capov, b->nov + 1, sizeof *b->ov)) {
      oom(st);
      return 0;
    }
    int p[2];
    if (pair_value(st, name, value, p)) return 0;
    is->ov[is->nov].leaf = (int)l;
    is->ov[is->nov++].line = st->line;
    b->ov[b->nov].leaf = (int)l;
    b->ov[b->nov].p[0] = p[0];
    b->ov[b->nov++].p[1] = p[1];
    return 1;
  }
  fail(st, st->line, "key '%s': unknown in [%s %s]; accepted: %s", name,
       is->kind == TUTTI__SW_HOST ? "host" : "switch", bs->name, keys);
  return 0;
}

/* The text of line `lineno`, trimmed and cut to fit. */
static void line_text(const char *text, int lineno, char *buf, size_t n) {
  const char *p = text;
  for (int l = 1; l < lineno && p; l++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  buf[0] = '\0';
  if (p) trim_copy(buf, n, p, strcspn(p, "\r\n"));
}

/* The checks that need the whole file; the first failure, or 0. */
static int check_tree(struct istate *st) {
  struct build *b = st->b;
  int nsw = st->nsw;
  if (nsw <= 0) {
    fail(st, 1,
         "no switch; accepted: a tree of [switch NAME] (and [host NAME]) sections with "
         "children and leaves");
    return -1;
  }
  /* names, and one parent each */
  for (int s = 0; s < nsw; s++) {
    struct isw *is = &st->sw[s];
    for (int i = 0; i < is->nch; i++) {
      int c = name_find(st, is->ch[i].name);
      if (c < 0) {
        fail(st, is->ch[i].line,
             "key 'children': unknown switch '%s'; accepted: the name of a "
             "[switch NAME] or [host NAME] section",
             is->ch[i].name);
        return -1;
      }
      if (st->sw[c].parent >= 0) {
        fail(st, is->ch[i].line,
             "key 'children': '%s' listed as a child twice (first on line %d, "
             "under '%s'); accepted: each switch below one parent, once",
             is->ch[i].name, st->sw[c].parent_line, b->sw[st->sw[c].parent].name);
        return -1;
      }
      st->sw[c].parent = s;
      st->sw[c].parent_line = is->ch[i].line;
    }
  }
  for (int s = 0; s < nsw; s++) {
    struct isw *is = &st->sw[s];
    if (is->nch == 0 && is->nlv == 0) {
      fail(st, is->line, "%s '%s': no children and no leaves; accepted: %s",
           is->kind == TUTTI__SW_HOST ? "host" : "switch", b->sw[s].name,
           is->kind == TUTTI__SW_HOST ? "leaves = LIST (its cores)"
                                      : "children = NAMES and/or leaves = LIST");
      return -1;
    }
    for (int i = 0; i < is->nov; i++) {
      int l = is->ov[i].leaf;
      if (l >= st->leafcap || st->leaf_owner[l] != s) {
        fail(st, is->ov[i].line,
             "key 'leaf_link.%d': leaf %d is not under '%s'; accepted: "
             "leaf_link.N for a leaf N in this section's leaves",
             l, l, b->sw[s].name);
        return -1;
      }
    }
  }
  /* cycles: follow parents; a walk that meets itself is a cycle */
  int *stamp = calloc((size_t)nsw, sizeof *stamp);
  if (!stamp) {
    oom(st);
    return -1;
  }
  for (int s = 0; s < nsw; s++) {
    int v = s;
    while (v >= 0 && stamp[v] == 0) {
      stamp[v] = s + 1;
      v = st->sw[v].parent;
    }
    if (v < 0 || stamp[v] != s + 1) continue;
    /* v is on a cycle: its members in parent order, m[i+1] = parent of
     * m[i]; it is named at the listing that closes it (the last line
     * among its parent links), from that listing's parent downward */
    int k = 0, j = 0, line = 0;
    int u = v;
    do {
      stamp[k++] = u; /* stamps of this walk are done with: reuse as m[] */
      u = st->sw[u].parent;
    } while (u != v);
    for (int i = 0; i < k; i++)
      if (st->sw[stamp[i]].parent_line > line) {
        line = st->sw[stamp[i]].parent_line;
        j = i;
      }
    int top = stamp[j];
    char path[512];
    size_t off = 0;
    for (int i = 0; i <= k && off < sizeof path; i++) {
      int m = stamp[((j + 1 - i) % k + k) % k];
      int w = snprintf(path + off, sizeof path - off, "%s%s", i ? " > " : "", b->sw[m].name);
      if (w > 0) off += (size_t)w;
    }
    fail(st, line,
         "key 'children': '%s' closes a cycle: %s (each above the next); accepted: a "
         "tree, no switch below itself",
         b->sw[top].name, path);
    free(stamp);
    return -1;
  }
  free(stamp);
  /* one root */
  int root = -1;
  for (int s = 0; s < nsw; s++) {
    if (st->sw[s].parent >= 0) continue;
    if (root >= 0) {
      fail(st, st->sw[s].line,
           "%s '%s': below no switch, and neither is '%s' (line %d); "
           "accepted: one root switch above every other switch",
           st->sw[s].kind == TUTTI__SW_HOST ? "host" : "switch", b->sw[s].name, b->sw[root].name,
           st->sw[root].line);
      return -1;
    }
    root = s;
  }
  if (st->sw[root].up_line) {
    fail(st, st->sw[root].up_line,
         "key 'uplink': '%s' is the root and has no parent; accepted: "
         "uplink on switches below another",
         b->sw[root].name);
    return -1;
  }
  /* leaves 0..N-1 */
  int nleaves = st->maxleaf + 1;
  for (int l = 0; l < nleaves; l++)
    if (st->leaf_owner[l] < 0) {
      fail(st, st->maxleaf_line,
           "key 'leaves': leaf %d is missing (leaves go up to %d, listed "
           "here); accepted: leaves numbered 0..N-1, each once",
           l, st->maxleaf);
      return -1;
    }
  if (nleaves == 0) {
    fail(st, st->sw[root].line, "no leaves; accepted: leaves = LIST in the switches");
    return -1;
  }
  /* builder children: leaves first, then child switches */
  for (int s = 0; s < nsw; s++) {
    struct isw *is = &st->sw[s];
    for (int i = 0; i < is->nlv; i++)
      if (kid_add(&b->sw[s], -is->lv[i] - 1)) {
        oom(st);
        return -1;
      }
    for (int i = 0; i < is->nch; i++)
      if (kid_add(&b->sw[s], name_find(st, is->ch[i].name))) {
        oom(st);
        return -1;
      }
  }
  b->root = root;
  b->nleaves = nleaves;
  return 0;
}

int tutti_topo_parse_ini(const char *text, const char *filename, const char *links,
                         tutti_topo_t **out, char *err, size_t errlen) {
  if (!filename) filename = "<string>";
  if (!text || !out) {
    seterr(err, errlen, "%s: invalid arguments", filename);
    return TUTTI_EINVAL;
  }
  struct build b;
  struct istate *st = calloc(1, sizeof *st);
  if (!st || build_init(&b)) {
    free(st);
    seterr(err, errlen, "%s: out of memory", filename);
    return TUTTI_ENOMEM;
  }
  st->filename = filename;
  st->text = text;
  st->b = &b;
  st->cur = -1;
  st->maxleaf = -1;
  int rc = 0;
  char msg[768];
  if (links && links[0]) {
    st->links_given = 1;
    rc = parse_levels(&b, links, msg, sizeof msg);
    if (rc) {
      seterr(err, errlen, "links '%s': %s", links, msg);
      goto done;
    }
  }
  int ret = ini_parse_stream(reader, st, handler, st);
  if (st->err_line && (ret <= 0 || ret >= st->err_line)) {
    seterr(err, errlen, "%s:%d: %s", filename, st->err_line, st->msg);
    rc = st->oom ? TUTTI_ENOMEM : TUTTI_EPARSE;
    goto done;
  }
  if (ret > 0) {
    char lt[80];
    line_text(text, ret, lt, sizeof lt);
    seterr(err, errlen,
           "%s:%d: '%s' is not a [section] or key = value line; accepted: %s, "
           "key = value, ; comment",
           filename, ret, lt, SECTIONS_ACCEPTED);
    rc = TUTTI_EPARSE;
    goto done;
  }
  if (ret < 0) {
    seterr(err, errlen, "%s: the INI parser failed (%d)", filename, ret);
    rc = ret == -2 ? TUTTI_ENOMEM : TUTTI_EIO;
    goto done;
  }
  if (check_tree(st)) {
    seterr(err, errlen, "%s:%d: %s", filename, st->err_line, st->msg);
    rc = st->oom ? TUTTI_ENOMEM : TUTTI_EPARSE;
    goto done;
  }
  char where[TUTTI_TOPO_NAME_MAX + 4096];
  if (st->links_given)
    snprintf(where, sizeof where, "links '%s'", links);
  else
    snprintf(where, sizeof where, "%s:%d: key 'links'", filename, st->links_line);
  rc = finalize(&b, filename, 1, st->sw[b.root].line, where, out, err, errlen);
done:
  for (int s = 0; s < st->nsw; s++) {
    free(st->sw[s].ch);
    free(st->sw[s].lv);
    free(st->sw[s].ov);
  }
  free(st->sw);
  free(st->hash);
  free(st->leaf_owner);
  free(st->leaf_line);
  free(st);
  build_free(&b);
  return rc;
}

int tutti_topo_load(const char *path, const char *links, tutti_topo_t **out, char *err,
                    size_t errlen) {
  if (!path || !out) {
    seterr(err, errlen, "topology: invalid arguments");
    return TUTTI_EINVAL;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      seterr(err, errlen, "topology '%s': no such file; accepted: %s, or a topology INI file", path,
             SPEC_ACCEPTED);
      return TUTTI_ENOTFOUND;
    }
    seterr(err, errlen, "topology '%s': cannot open: %s", path, strerror(e));
    return TUTTI_EIO;
  }
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap + 1);
  int rc = 0;
  while (text) {
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (len < cap) break;
    if (cap >= MAX_FILE) {
      rc = TUTTI_EPARSE;
      seterr(err, errlen, "topology '%s': larger than %d bytes", path, MAX_FILE);
      break;
    }
    cap *= 2;
    char *q = realloc(text, cap + 1);
    if (!q) {
      free(text);
      text = NULL;
    } else
      text = q;
  }
  int rerr = ferror(f) ? errno : 0;
  fclose(f);
  if (!text) {
    seterr(err, errlen, "topology '%s': out of memory", path);
    return TUTTI_ENOMEM;
  }
  if (!rc && rerr) {
    seterr(err, errlen, "topology '%s': cannot read: %s", path, strerror(rerr));
    rc = TUTTI_EIO;
  }
  if (!rc && memchr(text, '\0', len)) {
    seterr(err, errlen, "topology '%s': contains a NUL byte; accepted: a text INI file", path);
    rc = TUTTI_EPARSE;
  }
  if (!rc) {
    text[len] = '\0';
    rc = tutti_topo_parse_ini(text, path, links, out, err, errlen);
  }
  free(text);
  return rc;
}

int tutti_topo_open(const char *spec_or_path, const char *links, tutti_topo_t **out, char *err,
                    size_t errlen) {
  if (!spec_or_path || !out) {
    seterr(err, errlen, "topology: invalid arguments");
    return TUTTI_EINVAL;
  }
  if (!strncmp(spec_or_path, "tree:", 5))
    return tutti_topo_from_spec(spec_or_path, links, out, err, errlen);
  return tutti_topo_load(spec_or_path, links, out, err, errlen);
}

/* -------------------------------------------------------------- queries */

int tutti_topo_default_links(tutti_topo_t *t, double lat, double beta) {
  if (!t || !(lat >= 0) || !(beta >= 0) || isinf(lat) || isinf(beta)) return TUTTI_EINVAL;
  t->params[0].lat = lat;
  t->params[0].beta = beta;
  return 0;
}

int tutti_topo_unset_links(const tutti_topo_t *t) {
  return t ? t->unset : TUTTI_EINVAL;
}
int tutti_topo_nleaves(const tutti_topo_t *t) {
  return t ? t->nleaves : TUTTI_EINVAL;
}
int tutti_topo_nswitches(const tutti_topo_t *t) {
  return t ? t->nsw : TUTTI_EINVAL;
}
int tutti_topo_nlinks(const tutti_topo_t *t) {
  return t ? 2 * (t->nnodes - 1) : TUTTI_EINVAL;
}
int tutti_topo_depth(const tutti_topo_t *t) {
  return t ? t->depth : TUTTI_EINVAL;
}
int tutti_topo_levels(const tutti_topo_t *t) {
  return t ? t->levels : TUTTI_EINVAL;
}

int tutti_topo_leaf_switch(const tutti_topo_t *t, int leaf) {
  if (!t || leaf < 0 || leaf >= t->nleaves) return TUTTI_EINVAL;
  return t->parent[t->nsw + leaf];
}

int tutti_topo_switch_parent(const tutti_topo_t *t, int sw) {
  if (!t || sw < 0 || sw >= t->nsw) return TUTTI_EINVAL;
  return t->parent[sw];
}

const char *tutti_topo_switch_name(const tutti_topo_t *t, int sw) {
  if (!t || sw < 0 || sw >= t->nsw) return NULL;
  return t->names + t->name_off[sw];
}

int tutti_topo_switch_find(const tutti_topo_t *t, const char *name) {
  if (!t || !name) return TUTTI_EINVAL;
  for (int s = 0; s < t->nsw; s++)
    if (!strcmp(t->names + t->name_off[s], name)) return s;
  return TUTTI_ENOTFOUND;
}

int tutti_topo_leaf_link(const tutti_topo_t *t, int leaf) {
  if (!t || leaf < 0 || leaf >= t->nleaves) return TUTTI_EINVAL;
  return tutti__up_link(t->nsw + leaf);
}

int tutti_topo_switch_link(const tutti_topo_t *t, int sw) {
  if (!t || sw <= 0 || sw >= t->nsw) return TUTTI_EINVAL;
  return tutti__up_link(sw);
}

int tutti_topo_link_get(const tutti_topo_t *t, int link, tutti_topo_link_t *out) {
  if (!t || !out || link < 0 || link >= 2 * (t->nnodes - 1)) return TUTTI_EINVAL;
  *out = t->params[t->lp[link]];
  return 0;
}

void tutti__topo_node_name(const tutti_topo_t *t, int node, char *buf, size_t n) {
  if (node < t->nsw) {
    snprintf(buf, n, "%s", t->names + t->name_off[node]);
    return;
  }
  int l = node - t->nsw;
  if (t->rank_of_leaf && t->rank_of_leaf[l] >= 0)
    snprintf(buf, n, "leaf %d (rank %d)", l, t->rank_of_leaf[l]);
  else
    snprintf(buf, n, "leaf %d", l);
}

int tutti_topo_link_name(const tutti_topo_t *t, int link, char *buf, size_t n) {
  if (!t || !buf || n == 0 || link < 0 || link >= 2 * (t->nnodes - 1)) return TUTTI_EINVAL;
  char a[TUTTI_TOPO_NAME_MAX + 32], b[TUTTI_TOPO_NAME_MAX + 32];
  int v = tutti__link_node(link);
  tutti__topo_node_name(t, v, a, sizeof a);
  tutti__topo_node_name(t, t->parent[v], b, sizeof b);
  if (tutti__link_is_down(link))
    snprintf(buf, n, "%s -> %s", b, a);
  else
    snprintf(buf, n, "%s -> %s", a, b);
  return 0;
}

int tutti_topo_describe(const tutti_topo_t *t, char *buf, size_t n) {
  if (!t || !buf || n == 0) return TUTTI_EINVAL;
  int w = snprintf(buf, n, "%s: %d switch%s, %d leaves, depth %d", t->origin, t->nsw,
                   t->nsw == 1 ? "" : "es", t->nleaves, t->depth);
  if (t->nranks && w >= 0 && (size_t)w < n)
    snprintf(buf + w, n - (size_t)w, "; %d ranks, mapping %s", t->nranks, t->mapping);
  return 0;
}
