/*
 * model.c -- the cost models of runtime/MODEL.md: evaluation, the preset
 * constructors and the model builder shared by --model specs and profile
 * files. Cost expressions are cost.c; printing them is model_print.c.
 *
 * One builder (tutti_model_from_pairs) takes key = value pairs, so a spec
 * "hockney:alpha=1us,beta=1ns" and a [model] section are checked by the
 * same code and fail with the same messages; the profile parser only adds
 * "FILE:LINE: " in front. Presets are built from their parameters first,
 * then field overrides are applied in the order given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "tutti/model.h"
#include "tutti/p2p.h"

#define PRESETS_ACCEPTED "none, hockney, postal, logp, loggp, custom"
#define SPEC_ACCEPTED                                                                              \
  "none | hockney:alpha=T,beta=T/B (or bandwidth=BW) | postal:L=N | logp:L=T,o=T,g=T "             \
  "| loggp:L=T,o=T,g=T,G=T/B | custom, each optionally followed by field overrides "               \
  "(send_cpu, send_port, latency, recv_port, recv_cpu, gamma, eager_limit, header, rendezvous, "   \
  "detached_limit, sharing)"
#define EAGER_ACCEPTED "a size (0, 16KiB, 64KiB) or 'all' (every message eager)"
#define RENDEZVOUS_ACCEPTED                                                                        \
  "ready (the transfer starts when both sides are ready) or handshake "                            \
  "(a request and a clear-to-send of header bytes first)"
#define SHARING_ACCEPTED                                                                           \
  "fifo (a port or link carries one message at a time) or fair (concurrent messages share "        \
  "its bandwidth max-min fairly)"

/* A time outside [0, TUTTI_TIME_MAX], or a per-byte cost outside [0,
 * TUTTI_PER_BYTE_MAX] (units.h: every cost then stays finite). Written so
 * that NaN fails. */
static int bad_param(double x) {
  return !(x >= 0 && x <= TUTTI_TIME_MAX);
}
static int bad_per_byte(double x) {
  return !(x >= 0 && x <= TUTTI_PER_BYTE_MAX);
}

static tutti_cost_t cost(double floor_, double a, double b) {
  tutti_cost_t c = {.floor = floor_, .a = a, .b = b};
  return c;
}

/* ------------------------------------------------------------ evaluation */

tutti_cost_t tutti_cost_at(const tutti_cost_t *c, double m) {
  tutti_cost_t one = {.floor = 0, .a = 0, .b = 0};
  if (!c) return one;
  one.floor = c->floor, one.a = c->a, one.b = c->b;
  for (size_t k = 0; k < c->pieces && k < TUTTI_COST_PIECES && (double)c->piece[k].from <= m; k++)
    one.floor = c->piece[k].floor, one.a = c->piece[k].a, one.b = c->piece[k].b;
  return one;
}

double tutti_cost_eval(const tutti_cost_t *c, double m) {
  if (!c) return 0;
  tutti_cost_t one = c->pieces ? tutti_cost_at(c, m) : *c;
  double v = one.a + one.b * m;
  return v > one.floor ? v : one.floor;
}

/* --------------------------------------------------------------- presets */

static void reset(tutti_model_t *m, int preset) {
  memset(m, 0, sizeof *m);
  m->preset = preset;
  m->topo = NULL;
}

int tutti_model_none(tutti_model_t *m) {
  if (!m) return TUTTI_EINVAL;
  reset(m, TUTTI_MODEL_NONE);
  m->eager_limit = 64 * 1024;
  return 0;
}

int tutti_model_hockney(tutti_model_t *m, double alpha, double beta) {
  if (!m || bad_param(alpha) || bad_per_byte(beta)) return TUTTI_EINVAL;
  reset(m, TUTTI_MODEL_HOCKNEY);
  m->params[0] = alpha;
  m->params[1] = beta;
  m->send_cpu = m->send_port = m->latency = m->recv_port = cost(0, alpha, beta);
  m->recv_cpu = cost(0, 0, 0);
  m->eager_limit = 0;
  return 0;
}

int tutti_model_postal(tutti_model_t *m, double L) {
  if (!m || bad_param(L) || L < 1) return TUTTI_EINVAL;
  reset(m, TUTTI_MODEL_POSTAL);
  m->params[0] = L;
  m->send_cpu = m->send_port = m->recv_port = cost(0, 1, 0);
  m->latency = cost(0, L, 0);
  m->recv_cpu = cost(0, 0, 0);
  m->eager_limit = TUTTI_EAGER_ALL;
  return 0;
}

int tutti_model_loggp(tutti_model_t *m, double L, double o, double g, double G) {
  if (!m || bad_param(L) || bad_param(o) || bad_param(g) || bad_per_byte(G)) return TUTTI_EINVAL;
  reset(m, TUTTI_MODEL_LOGGP);
  m->params[0] = L;
  m->params[1] = o;
  m->params[2] = g;
  m->params[3] = G;
  m->send_cpu = cost(0, o, 0);    /* O_s = o */
  m->send_port = cost(g, o, G);   /* S = max(g, o + G m) */
  m->latency = cost(0, o + L, G); /* L(m) = o + G m + L */
  m->recv_port = cost(g, 0, G);   /* R = max(g, G m) */
  m->recv_cpu = cost(0, o, 0);    /* O_r = o */
  m->eager_limit = TUTTI_EAGER_ALL;
  return 0;
}

int tutti_model_logp(tutti_model_t *m, double L, double o, double g) {
  int rc = tutti_model_loggp(m, L, o, g, 0);
  if (rc) return rc;
  m->preset = TUTTI_MODEL_LOGP;
  m->params[3] = 0;
  return 0;
}

/* custom: every cost 0, all eager; fields come from overrides. */
static void model_custom(tutti_model_t *m) {
  reset(m, TUTTI_MODEL_CUSTOM);
  m->eager_limit = TUTTI_EAGER_ALL;
}

static const char *const preset_names[] = {
    [TUTTI_MODEL_NONE] = "none", [TUTTI_MODEL_HOCKNEY] = "hockney", [TUTTI_MODEL_POSTAL] = "postal",
    [TUTTI_MODEL_LOGP] = "logp", [TUTTI_MODEL_LOGGP] = "loggp",     [TUTTI_MODEL_CUSTOM] = "custom",
};
#define NPRESETS ((int)(sizeof preset_names / sizeof preset_names[0]))

const char *tutti_model_preset_name(int preset) {
  if (preset < 0 || preset >= NPRESETS) return "unknown";
  return preset_names[preset];
}

int tutti_model_steps(const tutti_model_t *m) {
  return m && m->preset == TUTTI_MODEL_POSTAL;
}

const char *tutti_model_time_unit(const tutti_model_t *m) {
  return tutti_model_steps(m) ? "steps" : "s";
}

/* ----------------------------------------------------------------- keys */

enum vtype {
  V_PRESET,
  V_TIME,
  V_PERBYTE,
  V_BW,
  V_STEPS,
  V_COST,
  V_EAGER,
  V_HEADER,
  V_RDV,
  V_DETACHED,
  V_SHARING
};

#define P_NONE (1u << TUTTI_MODEL_NONE)
#define P_HOCKNEY (1u << TUTTI_MODEL_HOCKNEY)
#define P_POSTAL (1u << TUTTI_MODEL_POSTAL)
#define P_LOGP (1u << TUTTI_MODEL_LOGP)
#define P_LOGGP (1u << TUTTI_MODEL_LOGGP)
#define P_CUSTOM (1u << TUTTI_MODEL_CUSTOM)
#define P_ALL (P_NONE | P_HOCKNEY | P_POSTAL | P_LOGP | P_LOGGP | P_CUSTOM)

/* Every key a [model] section or spec may hold. A preset parameter has
 * param >= 0: its index in tutti_model_t.params. The order is the order of
 * "accepted:" lists. */
static const struct key {
  const char *name;
  unsigned presets;
  int type;
  int param;
} keys[] = {
    {"preset", P_ALL, V_PRESET, -1},
    {"alpha", P_HOCKNEY, V_TIME, 0},
    {"beta", P_HOCKNEY, V_PERBYTE, 1},
    {"bandwidth", P_HOCKNEY, V_BW, 1},
    {"L", P_POSTAL, V_STEPS, 0},
    {"L", P_LOGP | P_LOGGP, V_TIME, 0},
    {"o", P_LOGP | P_LOGGP, V_TIME, 1},
    {"g", P_LOGP | P_LOGGP, V_TIME, 2},
    {"G", P_LOGGP, V_PERBYTE, 3},
    {"send_cpu", P_ALL, V_COST, -1},
    {"send_port", P_ALL, V_COST, -1},
    {"latency", P_ALL, V_COST, -1},
    {"recv_port", P_ALL, V_COST, -1},
    {"recv_cpu", P_ALL, V_COST, -1},
    {"gamma", P_ALL, V_PERBYTE, -1},
    {"eager_limit", P_ALL, V_EAGER, -1},
    {"header", P_ALL, V_HEADER, -1},
    {"rendezvous", P_ALL, V_RDV, -1},
    {"detached_limit", P_ALL, V_DETACHED, -1},
    {"sharing", P_ALL, V_SHARING, -1},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

static const struct key *find_key(const char *name, int preset) {
  for (int i = 0; i < NKEYS; i++)
    if ((keys[i].presets & (1u << preset)) && strcmp(keys[i].name, name) == 0) return &keys[i];
  return NULL;
}

/* "preset, alpha, beta, ..." for one preset. */
static void accepted_keys(int preset, char *buf, size_t n) {
  size_t off = 0;
  buf[0] = '\0';
  for (int i = 0; i < NKEYS; i++) {
    if (!(keys[i].presets & (1u << preset))) continue;
    int w = snprintf(buf + off, off < n ? n - off : 0, "%s%s", off ? ", " : "", keys[i].name);
    if (w > 0) off += (size_t)w;
  }
}

/* What each preset requires, for "missing" messages. */
static const char *required_text(int preset) {
  switch (preset) {
  case TUTTI_MODEL_HOCKNEY:
    return "hockney needs alpha and beta (or bandwidth)";
  case TUTTI_MODEL_POSTAL:
    return "postal needs L (steps, >= 1)";
  case TUTTI_MODEL_LOGP:
    return "logp needs L, o and g";
  case TUTTI_MODEL_LOGGP:
    return "loggp needs L, o, g and G";
  default:
    return "no parameters";
  }
}

static int find_preset(const char *v) {
  for (int p = 0; p < NPRESETS; p++)
    if (strcmp(preset_names[p], v) == 0) return p;
  return -1;
}

int tutti_model_from_pairs(const char *const *ks, const char *const *vs, int n, tutti_model_t *out,
                           int *bad, char *err, size_t errlen) {
  char inner[768], acc[256];
  int dummy;
  if (!bad) bad = &dummy;
  *bad = -1;
  if (n < 0 || (n > 0 && (!ks || !vs))) {
    tutti__seterr(err, errlen, "invalid arguments");
    return TUTTI_EINVAL;
  }
  for (int i = 0; i < n; i++)
    if (!ks[i] || !vs[i]) {
      tutti__seterr(err, errlen, "invalid arguments: a NULL key or value");
      return TUTTI_EINVAL;
    }

  /* The preset: exactly one, known. */
  int pi = -1;
  for (int i = 0; i < n; i++) {
    if (strcmp(ks[i], "preset") != 0) continue;
    if (pi >= 0) {
      *bad = i;
      tutti__seterr(err, errlen, "key 'preset': given twice; accepted: one preset");
      return TUTTI_EPARSE;
    }
    pi = i;
  }
  if (pi < 0) {
    tutti__seterr(err, errlen, "key 'preset': missing; accepted: %s", PRESETS_ACCEPTED);
    return TUTTI_EPARSE;
  }
  int preset = find_preset(vs[pi]);
  if (preset < 0) {
    *bad = pi;
    tutti__seterr(err, errlen, "key 'preset': '%s' is not a preset; accepted: %s", vs[pi],
                  PRESETS_ACCEPTED);
    return TUTTI_EPARSE;
  }
  int steps = preset == TUTTI_MODEL_POSTAL;

  /* Every key known for this preset, none twice, every value valid; in
   * the order given so the first fault is the one reported. */
  const struct key *kp[64];
  double pv[4] = {0, 0, 0, 0};
  int pset[4] = {-1, -1, -1, -1}; /* index of the pair that set params[k] */
  int beta_i = -1, bw_i = -1;
  if (n > 64) {
    *bad = 64;
    tutti__seterr(err, errlen, "key '%s': too many keys (at most 64)", ks[64]);
    return TUTTI_EPARSE;
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++)
      if (strcmp(ks[i], ks[j]) == 0) {
        *bad = i;
        tutti__seterr(err, errlen, "key '%s': given twice; accepted: each key once", ks[i]);
        return TUTTI_EPARSE;
      }
    kp[i] = find_key(ks[i], preset);
    if (!kp[i]) {
      *bad = i;
      accepted_keys(preset, acc, sizeof acc);
      tutti__seterr(err, errlen, "key '%s': unknown for preset %s; accepted: %s", ks[i],
                    preset_names[preset], acc);
      return TUTTI_EPARSE;
    }
    const struct key *k = kp[i];
    int rc = 0;
    double v = 0;
    switch (k->type) {
    case V_PRESET:
      continue;
    case V_TIME:
      rc = tutti_parse_time(vs[i], &v, inner, sizeof inner);
      break;
    case V_PERBYTE:
      if (steps && !tutti__plain_number(vs[i], strlen(vs[i]))) {
        snprintf(inner, sizeof inner,
                 "'%s' is not a plain number; accepted: a number of steps "
                 "per byte (postal times are steps)",
                 vs[i]);
        rc = TUTTI_EPARSE;
      } else
        rc = tutti_parse_per_byte(vs[i], &v, inner, sizeof inner);
      break;
    case V_BW:
      rc = tutti_parse_bandwidth(vs[i], &v, inner, sizeof inner);
      if (!rc) v = 1.0 / v;
      break;
    case V_STEPS:
      if (!tutti__plain_number(vs[i], strlen(vs[i]))) {
        snprintf(inner, sizeof inner,
                 "'%s' is not a number of steps; accepted: a plain number "
                 ">= 1 (postal times are steps)",
                 vs[i]);
        rc = TUTTI_EPARSE;
      } else {
        rc = tutti_parse_time(vs[i], &v, inner, sizeof inner);
        if (!rc && v < 1) {
          snprintf(inner, sizeof inner, "'%s' is less than 1 step; accepted: a plain number >= 1",
                   vs[i]);
          rc = TUTTI_EPARSE;
        }
      }
      break;
    default:
      continue; /* overrides: checked below, after the preset is built */
    }
    if (rc) {
      *bad = i;
      tutti__seterr(err, errlen, "key '%s': %s", ks[i], inner);
      return TUTTI_EPARSE;
    }
    if (k->param >= 0) {
      pv[k->param] = v;
      pset[k->param] = i;
    }
    if (strcmp(k->name, "beta") == 0) beta_i = i;
    if (strcmp(k->name, "bandwidth") == 0) bw_i = i;
  }
  if (beta_i >= 0 && bw_i >= 0) {
    *bad = beta_i > bw_i ? beta_i : bw_i;
    tutti__seterr(err, errlen,
                  "key '%s': conflicts with '%s'; accepted: beta or bandwidth, not both", ks[*bad],
                  ks[beta_i > bw_i ? bw_i : beta_i]);
    return TUTTI_EPARSE;
  }

  /* Required parameters. */
  static const char *const pnames[][4] = {
      [TUTTI_MODEL_HOCKNEY] = {"alpha", "beta", NULL, NULL},
      [TUTTI_MODEL_POSTAL] = {"L", NULL, NULL, NULL},
      [TUTTI_MODEL_LOGP] = {"L", "o", "g", NULL},
      [TUTTI_MODEL_LOGGP] = {"L", "o", "g", "G"},
  };
  if (preset != TUTTI_MODEL_NONE && preset != TUTTI_MODEL_CUSTOM)
    for (int k = 0; k < 4 && pnames[preset][k]; k++)
      if (pset[k] < 0) {
        *bad = pi;
        tutti__seterr(err, errlen, "key '%s': missing for preset %s; accepted: %s",
                      pnames[preset][k], preset_names[preset], required_text(preset));
        return TUTTI_EPARSE;
      }

  tutti_model_t m;
  int built = 0;
  switch (preset) {
  case TUTTI_MODEL_NONE:
    built = tutti_model_none(&m);
    break;
  case TUTTI_MODEL_HOCKNEY:
    built = tutti_model_hockney(&m, pv[0], pv[1]);
    break;
  case TUTTI_MODEL_POSTAL:
    built = tutti_model_postal(&m, pv[0]);
    break;
  case TUTTI_MODEL_LOGP:
    built = tutti_model_logp(&m, pv[0], pv[1], pv[2]);
    break;
  case TUTTI_MODEL_LOGGP:
    built = tutti_model_loggp(&m, pv[0], pv[1], pv[2], pv[3]);
    break;
  default:
    model_custom(&m);
    break;
  }
  if (built) { /* the parsers hold values to the constructors' ranges: not reached */
    *bad = pi;
    tutti__seterr(err, errlen, "key 'preset': %s parameters out of range", preset_names[preset]);
    return TUTTI_EPARSE;
  }

  /* Field overrides, in order. */
  for (int i = 0; i < n; i++) {
    const struct key *k = kp[i];
    int rc = 0;
    if (k->type == V_COST) {
      tutti_cost_t c;
      rc = tutti_parse_cost(vs[i], steps, &c, inner, sizeof inner);
      if (!rc) {
        tutti_cost_t *f = !strcmp(k->name, "send_cpu")    ? &m.send_cpu
                          : !strcmp(k->name, "send_port") ? &m.send_port
                          : !strcmp(k->name, "latency")   ? &m.latency
                          : !strcmp(k->name, "recv_port") ? &m.recv_port
                                                          : &m.recv_cpu;
        *f = c;
      }
    } else if (k->type == V_EAGER) {
      const char *v = vs[i];
      while (tutti__is_blank(*v)) v++;
      size_t vl = strlen(v);
      while (vl > 0 && tutti__is_blank(v[vl - 1])) vl--;
      if (vl == 3 && strncmp(v, "all", 3) == 0)
        m.eager_limit = TUTTI_EAGER_ALL;
      else {
        size_t sz;
        rc = tutti_parse_size(vs[i], &sz, inner, sizeof inner);
        if (rc)
          snprintf(inner + strlen(inner), sizeof inner - strlen(inner), ", or 'all'");
        else
          m.eager_limit = sz;
      }
    } else if (k->type == V_HEADER || k->type == V_DETACHED) {
      size_t sz;
      /* a header of "16" could mean bits or words as well: the unit is
       * required (0 is 0 in any unit) */
      const char *v = vs[i];
      size_t vl = strlen(v);
      tutti__trim(&v, &vl);
      if (tutti__plain_number(v, vl) && !(rc = tutti_parse_size(vs[i], &sz, inner, sizeof inner)) &&
          sz != 0) {
        snprintf(inner, sizeof inner,
                 "'%s' has no unit; accepted: a size with its unit (16B, 1KiB, 64KiB), or 0",
                 vs[i]);
        rc = TUTTI_EPARSE;
      } else if (!rc && !(rc = tutti_parse_size(vs[i], &sz, inner, sizeof inner))) {
        if (k->type == V_HEADER)
          m.header = sz;
        else
          m.detached_limit = sz;
      }
    } else if (k->type == V_RDV) {
      const char *v = vs[i];
      size_t vl = strlen(v);
      tutti__trim(&v, &vl);
      if (vl == 5 && !strncmp(v, "ready", 5))
        m.rendezvous = TUTTI_RENDEZVOUS_READY;
      else if (vl == 9 && !strncmp(v, "handshake", 9))
        m.rendezvous = TUTTI_RENDEZVOUS_HANDSHAKE;
      else {
        snprintf(inner, sizeof inner, "'%s' is not a rendezvous protocol; accepted: %s", vs[i],
                 RENDEZVOUS_ACCEPTED);
        rc = TUTTI_EPARSE;
      }
    } else if (k->type == V_SHARING) {
      const char *v = vs[i];
      while (tutti__is_blank(*v)) v++;
      size_t vl = strlen(v);
      while (vl > 0 && tutti__is_blank(v[vl - 1])) vl--;
      if (vl == 4 && !strncmp(v, "fifo", 4))
        m.sharing = TUTTI_SHARING_FIFO;
      else if (vl == 4 && !strncmp(v, "fair", 4))
        m.sharing = TUTTI_SHARING_FAIR;
      else {
        snprintf(inner, sizeof inner, "'%.*s' is not a sharing; accepted: " SHARING_ACCEPTED,
                 (int)(vl > 64 ? 64 : vl), v);
        rc = TUTTI_EPARSE;
      }
    } else if (k->type == V_PERBYTE && k->param < 0) { /* gamma */
      double v;
      if (steps && !tutti__plain_number(vs[i], strlen(vs[i]))) {
        snprintf(inner, sizeof inner,
                 "'%s' is not a plain number; accepted: a number of steps "
                 "per byte (postal times are steps)",
                 vs[i]);
        rc = TUTTI_EPARSE;
      } else if (!(rc = tutti_parse_per_byte(vs[i], &v, inner, sizeof inner)))
        m.gamma = v;
    }
    if (rc) {
      *bad = i;
      tutti__seterr(err, errlen, "key '%s': %s", ks[i], inner);
      return TUTTI_EPARSE;
    }
  }
  /* the protocol fields together, once every override is in */
  if (tutti__model_protocol_check(&m, "key 'detached_limit': ", err, errlen)) {
    for (int i = 0; i < n; i++) /* only a given detached_limit can fail */
      if (kp[i]->type == V_DETACHED) *bad = i;
    return TUTTI_EPARSE;
  }
  if (out) *out = m;
  return 0;
}

int tutti__model_protocol_check(const tutti_model_t *m, const char *what, char *err,
                                size_t errlen) {
  char d[32], e[32];
  if (!m->detached_limit) return 0;
  tutti_format_bytes(m->detached_limit, d, sizeof d);
  if (m->eager_limit == TUTTI_EAGER_ALL) {
    tutti__seterr(err, errlen,
                  "%s%s with eager_limit all means nothing: every send is eager already; "
                  "accepted: 0, or a size above eager_limit when it is a size",
                  what, d);
    return TUTTI_EINVAL;
  }
  if (m->detached_limit <= m->eager_limit) {
    tutti_format_bytes(m->eager_limit, e, sizeof e);
    tutti__seterr(err, errlen,
                  "%s%s is not above eager_limit %s: every message under it is eager already; "
                  "accepted: 0 (none), or a size above eager_limit",
                  what, d, e);
    return TUTTI_EINVAL;
  }
  return 0;
}

/* Split "preset:k=v,k=v" at top-level commas and hand it to the builder. */
int tutti_model_parse(const char *spec, tutti_model_t *out, char *err, size_t errlen) {
  enum { MAXPAIRS = 64 };
  if (!spec) {
    tutti__seterr(err, errlen, "no model spec; accepted: %s", SPEC_ACCEPTED);
    return TUTTI_EINVAL;
  }
  const char *p = spec;
  size_t len = strlen(spec);
  tutti__trim(&p, &len);
  if (len == 0) {
    tutti__seterr(err, errlen, "empty model spec; accepted: %s", SPEC_ACCEPTED);
    return TUTTI_EPARSE;
  }
  char *buf = malloc(len + 1);
  if (!buf) {
    tutti__seterr(err, errlen, "out of memory");
    return TUTTI_ENOMEM;
  }
  memcpy(buf, p, len);
  buf[len] = '\0';

  const char *ks[MAXPAIRS], *vs[MAXPAIRS];
  int n = 0, rc = 0;
  char *colon = strchr(buf, ':');
  char *rest = NULL;
  if (colon) {
    *colon = '\0';
    rest = colon + 1;
  }
  /* the preset name, trimmed */
  char *name = buf;
  while (tutti__is_blank(*name)) name++;
  char *e = name + strlen(name);
  while (e > name && tutti__is_blank(e[-1])) *--e = '\0';
  ks[n] = "preset";
  vs[n++] = name;
  if (find_preset(name) < 0) {
    tutti__seterr(err, errlen, "preset '%s': unknown; accepted: %s", name, SPEC_ACCEPTED);
    rc = TUTTI_EPARSE;
    goto done;
  }
  if (rest && rest[strspn(rest, " \t")] == '\0') rest = NULL; /* "hockney:" is "hockney" */
  if (rest) {
    char *item = rest;
    for (;;) {
      /* find the end of this item: a comma outside parentheses */
      int depth = 0;
      char *q = item;
      for (; *q; q++) {
        if (*q == '(')
          depth++;
        else if (*q == ')' && depth > 0)
          depth--;
        else if (*q == ',' && depth == 0)
          break;
      }
      int last = (*q == '\0');
      *q = '\0';
      char *eq = strchr(item, '=');
      char *k = item;
      while (tutti__is_blank(*k)) k++;
      if (!eq) {
        char *ke = k + strlen(k);
        while (ke > k && tutti__is_blank(ke[-1])) *--ke = '\0';
        if (*k == '\0')
          tutti__seterr(err, errlen, "empty item in '%s' (a stray ','?); accepted: key=value, ...",
                        spec);
        else
          tutti__seterr(err, errlen, "key '%s': no value; accepted: key=value", k);
        rc = TUTTI_EPARSE;
        goto done;
      }
      *eq = '\0';
      char *ke = eq;
      while (ke > k && tutti__is_blank(ke[-1])) *--ke = '\0';
      char *v = eq + 1;
      while (tutti__is_blank(*v)) v++;
      char *ve = v + strlen(v);
      while (ve > v && tutti__is_blank(ve[-1])) *--ve = '\0';
      if (*k == '\0') {
        tutti__seterr(err, errlen, "'=%s': no key; accepted: key=value", v);
        rc = TUTTI_EPARSE;
        goto done;
      }
      if (strcmp(k, "preset") == 0) {
        tutti__seterr(err, errlen,
                      "key 'preset': not a key here; accepted: the preset before ':', "
                      "as in hockney:alpha=1us,beta=1ns");
        rc = TUTTI_EPARSE;
        goto done;
      }
      if (n == MAXPAIRS) {
        tutti__seterr(err, errlen, "key '%s': too many keys (at most %d)", k, MAXPAIRS - 1);
        rc = TUTTI_EPARSE;
        goto done;
      }
      ks[n] = k;
      vs[n++] = v;
      if (last) break;
      item = q + 1;
    }
  }
  rc = tutti_model_from_pairs(ks, vs, n, out, NULL, err, errlen);
done:
  free(buf);
  return rc;
}
