/*
 * model_print.c -- cost models and costs printed back: for people
 * (tutti_format_cost, tutti_format_model_time, tutti_model_describe, which
 * lists only the fields that differ from what the preset's parameters
 * give) and for scripts (tutti_model_json, numbers as the shortest text
 * that reads back to the same double). Times and sizes come from units.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tutti/model.h"
#include "tutti/p2p.h"

static int cost_eq(const tutti_cost_t *x, const tutti_cost_t *y) {
  if (x->floor != y->floor || x->a != y->a || x->b != y->b || x->pieces != y->pieces) return 0;
  for (size_t k = 0; k < x->pieces && k < TUTTI_COST_PIECES; k++) {
    const tutti_cost_piece_t *p = &x->piece[k], *q = &y->piece[k];
    if (p->from != q->from || p->floor != q->floor || p->a != q->a || p->b != q->b) return 0;
  }
  return 1;
}

/* One piece, "max(F, A + B*m)", into buf; snprintf's length. */
static int format_line(double floor, double av, double bv, int steps, char *buf, size_t n) {
  char a[48], b[48], f[48], lin[112];
  if (steps) {
    snprintf(a, sizeof a, "%.6g", av);
    snprintf(b, sizeof b, "%.6g", bv);
    snprintf(f, sizeof f, "%.6g", floor);
  } else {
    tutti_format_time(av, a, sizeof a);
    tutti_format_time(bv, b, sizeof b);
    tutti_format_time(floor, f, sizeof f);
  }
  if (bv == 0)
    snprintf(lin, sizeof lin, "%s", a);
  else if (av == 0)
    snprintf(lin, sizeof lin, "%s*m", b);
  else
    snprintf(lin, sizeof lin, "%s + %s*m", a, b);
  /* A short buffer truncates, as snprintf does (the length is taken so that
   * GCC does not warn of it where this is inlined into a small buffer). */
  return floor != 0 ? snprintf(buf, n, "max(%s, %s)", f, lin) : snprintf(buf, n, "%s", lin);
}

char *tutti_format_cost(const tutti_cost_t *c, int steps, char *buf, size_t n) {
  if (!buf || n == 0) return NULL;
  if (!c) {
    snprintf(buf, n, "?");
    return buf;
  }
  int len = format_line(c->floor, c->a, c->b, steps, buf, n);
  /* further pieces: " | from 4 KiB: ...", as tutti_parse_cost reads them */
  for (size_t k = 0; k < c->pieces && k < TUTTI_COST_PIECES && len >= 0 && (size_t)len < n; k++) {
    char from[48];
    const tutti_cost_piece_t *p = &c->piece[k];
    int head = snprintf(buf + len, n - (size_t)len,
                        " | from %s: ", tutti_format_bytes(p->from, from, sizeof from));
    if (head < 0 || (size_t)(len + head) >= n) break;
    int more = format_line(p->floor, p->a, p->b, steps, buf + len + head, n - (size_t)(len + head));
    len = more < 0 ? more : len + head + more;
  }
  return len < 0 ? NULL : buf;
}

char *tutti_format_model_time(const tutti_model_t *m, double t, char *buf, size_t n) {
  if (!buf || n == 0) return NULL;
  if (tutti_model_steps(m)) {
    snprintf(buf, n, "%.6g", t == 0 ? 0.0 : t);
    return buf;
  }
  return tutti_format_time(t, buf, n);
}

/* The model a preset's own parameters give, with no overrides. */
static void model_base(const tutti_model_t *m, tutti_model_t *base) {
  const double *p = m->params;
  int rc = 0;
  switch (m->preset) {
  case TUTTI_MODEL_NONE:
    rc = tutti_model_none(base);
    break;
  case TUTTI_MODEL_HOCKNEY:
    rc = tutti_model_hockney(base, p[0], p[1]);
    break;
  case TUTTI_MODEL_POSTAL:
    rc = tutti_model_postal(base, p[0]);
    break;
  case TUTTI_MODEL_LOGP:
    rc = tutti_model_logp(base, p[0], p[1], p[2]);
    break;
  case TUTTI_MODEL_LOGGP:
    rc = tutti_model_loggp(base, p[0], p[1], p[2], p[3]);
    break;
  default:
    rc = -1;
    break;
  }
  /* an unknown preset or bad parameters: custom's zero costs */
  if (rc) tutti_model_parse("custom", base, NULL, 0);
}

/* Appends to a fixed buffer, never overflowing. */
struct sbuf {
  char *p;
  size_t n, off;
};
static void sb_printf(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(s->p + s->off, s->off < s->n ? s->n - s->off : 0, fmt, ap);
  va_end(ap);
  if (w > 0) s->off += (size_t)w;
  if (s->off >= s->n) s->off = s->n; /* truncated; keep the NUL vsnprintf wrote */
}

static void sb_time(struct sbuf *s, const char *name, double v, int steps) {
  char t[48];
  if (steps)
    sb_printf(s, " %s=%.6g", name, v);
  else
    sb_printf(s, " %s=%s", name, tutti_format_time(v, t, sizeof t));
}

static void sb_per_byte(struct sbuf *s, const char *name, double v) {
  char t[48], bw[48];
  sb_printf(s, " %s=%s/B", name, tutti_format_time(v, t, sizeof t));
  if (v > 0) sb_printf(s, " (%s)", tutti_format_bandwidth(1.0 / v, bw, sizeof bw));
}

int tutti_model_describe(const tutti_model_t *m, char *buf, size_t n) {
  if (!m || !buf || n == 0) return TUTTI_EINVAL;
  struct sbuf s = {buf, n, 0};
  buf[0] = '\0';
  int steps = tutti_model_steps(m);
  const double *p = m->params;
  char t[512];
  sb_printf(&s, "%s", tutti_model_preset_name(m->preset));
  switch (m->preset) {
  case TUTTI_MODEL_NONE:
    sb_printf(&s, " (native speed, wall time only)");
    break;
  case TUTTI_MODEL_HOCKNEY:
    sb_time(&s, "alpha", p[0], 0);
    sb_per_byte(&s, "beta", p[1]);
    break;
  case TUTTI_MODEL_POSTAL:
    sb_printf(&s, " L=%.6g steps", p[0]);
    break;
  case TUTTI_MODEL_LOGP:
  case TUTTI_MODEL_LOGGP:
    sb_time(&s, "L", p[0], 0);
    sb_time(&s, "o", p[1], 0);
    sb_time(&s, "g", p[2], 0);
    if (m->preset == TUTTI_MODEL_LOGGP) sb_per_byte(&s, "G", p[3]);
    break;
  default:
    break;
  }
  if (m->eager_limit == TUTTI_EAGER_ALL)
    sb_printf(&s, ", all eager");
  else if (m->eager_limit == 0)
    sb_printf(&s, ", eager_limit 0 (all rendezvous)");
  else
    sb_printf(&s, ", eager_limit %s", tutti_format_bytes(m->eager_limit, t, sizeof t));
  /* the protocol fields, when not their defaults (runtime/MODEL.md) */
  if (m->header) sb_printf(&s, ", header %s", tutti_format_bytes(m->header, t, sizeof t));
  if (m->rendezvous == TUTTI_RENDEZVOUS_HANDSHAKE) sb_printf(&s, ", rendezvous handshake");
  if (m->detached_limit)
    sb_printf(&s, ", detached_limit %s", tutti_format_bytes(m->detached_limit, t, sizeof t));
  if (m->sharing == TUTTI_SHARING_FAIR) sb_printf(&s, ", sharing fair"); /* fifo: the default */

  /* Fields that differ from what the preset's parameters give. */
  tutti_model_t base;
  model_base(m, &base);
  static const char *const fnames[] = {"send_cpu", "send_port", "latency", "recv_port", "recv_cpu"};
  const tutti_cost_t *mine[] = {&m->send_cpu, &m->send_port, &m->latency, &m->recv_port,
                                &m->recv_cpu};
  const tutti_cost_t *theirs[] = {&base.send_cpu, &base.send_port, &base.latency, &base.recv_port,
                                  &base.recv_cpu};
  int first = 1;
  for (int i = 0; i < 5; i++)
    if (!cost_eq(mine[i], theirs[i]) || (m->preset == TUTTI_MODEL_CUSTOM)) {
      sb_printf(&s, "%s%s=%s", first ? "; " : ", ", fnames[i],
                tutti_format_cost(mine[i], steps, t, sizeof t));
      first = 0;
    }
  if (m->gamma != 0) {
    if (steps)
      sb_printf(&s, "%sgamma=%.6g", first ? "; " : ", ", m->gamma);
    else
      sb_printf(&s, "%sgamma=%s/B", first ? "; " : ", ", tutti_format_time(m->gamma, t, sizeof t));
  }
  if (m->topo) sb_printf(&s, "; with a topology");
  return 0;
}

/* The shortest text that reads back to the same double; null for NaN/inf. */
static void json_num(FILE *f, double v) {
  char buf[32];
  fputs(isfinite(v) ? tutti_format_shortest(v, buf, sizeof buf) : "null", f);
}

static void json_cost(FILE *f, const char *name, const tutti_cost_t *c) {
  fprintf(f, ",\"%s\":{\"floor\":", name);
  json_num(f, c->floor);
  fputs(",\"a\":", f);
  json_num(f, c->a);
  fputs(",\"b\":", f);
  json_num(f, c->b);
  if (c->pieces > 0) { /* only a piecewise cost has the field */
    fputs(",\"pieces\":[", f);
    for (size_t k = 0; k < c->pieces && k < TUTTI_COST_PIECES; k++) {
      fprintf(f, "%s{\"from\":%zu,\"floor\":", k ? "," : "", c->piece[k].from);
      json_num(f, c->piece[k].floor);
      fputs(",\"a\":", f);
      json_num(f, c->piece[k].a);
      fputs(",\"b\":", f);
      json_num(f, c->piece[k].b);
      fputc('}', f);
    }
    fputc(']', f);
  }
  fputc('}', f);
}

int tutti_model_json(const tutti_model_t *m, FILE *f) {
  static const char *const pnames[][4] = {
      [TUTTI_MODEL_HOCKNEY] = {"alpha", "beta", NULL, NULL},
      [TUTTI_MODEL_POSTAL] = {"L", NULL, NULL, NULL},
      [TUTTI_MODEL_LOGP] = {"L", "o", "g", NULL},
      [TUTTI_MODEL_LOGGP] = {"L", "o", "g", "G"},
      [TUTTI_MODEL_CUSTOM] = {NULL, NULL, NULL, NULL},
  };
  if (!m || !f) return TUTTI_EINVAL;
  fprintf(f, "{\"preset\":\"%s\",\"time_unit\":\"%s\"", tutti_model_preset_name(m->preset),
          tutti_model_time_unit(m));
  if (m->preset > TUTTI_MODEL_NONE && m->preset < (int)(sizeof pnames / sizeof pnames[0]))
    for (int k = 0; k < 4 && pnames[m->preset][k]; k++) {
      fprintf(f, ",\"%s\":", pnames[m->preset][k]);
      json_num(f, m->params[k]);
    }
  json_cost(f, "send_cpu", &m->send_cpu);
  json_cost(f, "send_port", &m->send_port);
  json_cost(f, "latency", &m->latency);
  json_cost(f, "recv_port", &m->recv_port);
  json_cost(f, "recv_cpu", &m->recv_cpu);
  fputs(",\"gamma\":", f);
  json_num(f, m->gamma);
  if (m->eager_limit == TUTTI_EAGER_ALL)
    fputs(",\"eager_limit\":null", f);
  else
    fprintf(f, ",\"eager_limit\":%zu", m->eager_limit);
  fprintf(f, ",\"header\":%zu,\"rendezvous\":\"%s\",\"detached_limit\":%zu", m->header,
          m->rendezvous == TUTTI_RENDEZVOUS_HANDSHAKE ? "handshake" : "ready", m->detached_limit);
  if (m->sharing == TUTTI_SHARING_FAIR) fputs(",\"sharing\":\"fair\"", f); /* absent: fifo */
  fputc('}', f);
  return ferror(f) ? TUTTI_EIO : 0;
}
