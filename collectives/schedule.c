/*
 * schedule.c -- the Hockney replay of schedule.h: every rank's current
 * blocking operation, its post time, and the end of each of its transfers
 * once the partner's current operation holds the matching side. Sweeps
 * the ranks until no operation can complete.
 */
#include <math.h>
#include <stdlib.h>

#include "schedule.h"

struct cur {
  tutti__bop_t o;
  long k;
  double post, send_end, recv_end;
  int done;
};

static void advance(tutti__bop_fn *fn, const void *ctx, int rank, struct cur *c) {
  int more;
  while ((more = fn(ctx, rank, c->k, &c->o)) == 2) c->k++;
  if (!more) c->done = 1;
  c->send_end = !more || c->o.speer < 0 ? -1 : NAN;
  c->recv_end = !more || c->o.rpeer < 0 ? -1 : NAN;
}

double tutti__schedule_hockney(int P, tutti__bop_fn *fn, const void *ctx,
                               const tutti_hockney_t *h) {
  struct cur *c = P >= 0 ? calloc((size_t)P, sizeof *c) : NULL; /* P < 0: a caller bug */
  if (!c) return NAN;
  for (int i = 0; i < P; i++) advance(fn, ctx, i, &c[i]);
  for (int progress = 1; progress;) {
    progress = 0;
    for (int u = 0; u < P; u++) {
      struct cur *cu = &c[u];
      if (cu->done) continue;
      if (isnan(cu->send_end)) { /* u -> v meets v's receive from u */
        struct cur *cv = &c[cu->o.speer];
        if (!cv->done && cv->o.rpeer == u && isnan(cv->recv_end))
          cu->send_end = cv->recv_end =
              fmax(cu->post, cv->post) + h->alpha + h->beta * cu->o.sbytes;
      }
      if (isnan(cu->recv_end)) {
        struct cur *cv = &c[cu->o.rpeer];
        if (!cv->done && cv->o.speer == u && isnan(cv->send_end))
          cu->recv_end = cv->send_end =
              fmax(cu->post, cv->post) + h->alpha + h->beta * cu->o.rbytes;
      }
      if (isnan(cu->send_end) || isnan(cu->recv_end)) continue;
      double end = fmax(cu->post, fmax(cu->send_end, cu->recv_end));
      if (cu->o.reduce && cu->o.rpeer >= 0) end += cu->o.reduce * h->gamma * cu->o.rbytes;
      cu->post = end;
      cu->k++;
      advance(fn, ctx, u, cu);
      progress = 1;
    }
  }
  double T = 0;
  for (int u = 0; u < P && !isnan(T); u++) T = c[u].done ? fmax(T, c[u].post) : NAN;
  free(c);
  return T;
}

double tutti__schedule_sends(int P, tutti__bop_fn *fn, const void *ctx) {
  double n = 0;
  for (int rank = 0; rank < P; rank++) {
    tutti__bop_t o;
    int more;
    for (long k = 0; (more = fn(ctx, rank, k, &o)) != 0; k++) n += more == 1 && o.speer >= 0;
  }
  return n;
}
