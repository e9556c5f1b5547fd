/*
 * timebase.h -- the integer time base of the replay (runtime/MODEL.md
 * "Time base"): modeled times as whole picoseconds in an int64, the one
 * rounding rule that turns seconds into them, and link.c's hop in those
 * units, which the replay drives. Private to the library: topo/link.c and
 * runtime/replay*.c, trace.c share it (runtime/ uses topo/, never the
 * other way round); the public API keeps seconds in doubles.
 *
 * Why integers: two sums that are equal in exact arithmetic must give
 * equal modeled times, or rule 8's ties decide on a rounding error (a
 * message alone on an idle path, s + L(0) + m*beta, against s + O_s(m)).
 * Integer sums are exact and associative, so once every cost is an
 * integer, equal sums are equal.
 *
 * The rule: an amount x in seconds becomes round(x * 10^12), the product
 * taken in double and rounded to the nearest integer, halves away from
 * zero (tutti__tu_round: independent of the FPU's rounding mode). A
 * constant (a cost's a and floor, a link's latency, a COMPUTE's seconds)
 * is converted once; a per-byte cost b (a cost's b, a link's beta, gamma)
 * is scaled once to b * 10^12 units per byte (tutti__tu_rate, a double)
 * and its product with m bytes is rounded once per message
 * (tutti__tu_bytes). So c(m) = max(F, A + round(b' * m)), and the same b
 * on a link gives the very same integer.
 *
 * Range: times are >= 0 and below TUTTI__TU_LIMIT (2^62 ps, about 53
 * days); sums saturate at TUTTI__TU_INF, so anything out of range stays
 * out of range and the replay reports it instead of wrapping around.
 */
#ifndef TUTTI_TIMEBASE_H
#define TUTTI_TIMEBASE_H

#include <math.h>
#include <stdint.h>

#include "tutti/p2p.h" /* tutti_cost_t */
#include "tutti/topo.h"

typedef int64_t tutti__tu_t; /* a modeled time or duration, in picoseconds */

#define TUTTI__TU_PER_S 1e12                           /* units per second */
#define TUTTI__TU_LIMIT (INT64_C(1) << 62)             /* times must stay below */
#define TUTTI__TU_INF INT64_MAX                        /* saturated: out of range */
#define TUTTI__TU_NONE INT64_MIN                       /* not known (never in a sum) */
#define TUTTI__TU_MAX_S (4611686018427387904.0 / 1e12) /* 2^62 ps in seconds */

/* Nearest integer to v, halves away from zero; beyond +-2^63 (or NaN) it
 * saturates at +-TUTTI__TU_INF. Exact: v - trunc(v) has no rounding. */
static inline tutti__tu_t tutti__tu_round(double v) {
  if (!(v < 0x1p63)) return TUTTI__TU_INF; /* also NaN */
  if (!(v > -0x1p63)) return -TUTTI__TU_INF;
  int64_t r = (int64_t)v;
  double f = v - (double)r;
  return r + (f >= 0.5) - (f <= -0.5);
}

/* A constant in seconds, in units. */
static inline tutti__tu_t tutti__tu_from_s(double seconds) {
  return tutti__tu_round(seconds * TUTTI__TU_PER_S);
}

/* A per-byte cost in seconds per byte, scaled to units per byte. */
static inline double tutti__tu_rate(double per_byte) {
  return per_byte * TUTTI__TU_PER_S;
}

/* m bytes at a rate of tutti__tu_rate: the product, rounded once. */
static inline tutti__tu_t tutti__tu_bytes(double rate, double m) {
  return rate == 0 ? 0 : tutti__tu_round(rate * m);
}

/* a + b, saturating at +-TUTTI__TU_INF. */
static inline tutti__tu_t tutti__tu_add(tutti__tu_t a, tutti__tu_t b) {
  tutti__tu_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? TUTTI__TU_INF : -TUTTI__TU_INF;
  return r;
}

static inline tutti__tu_t tutti__tu_max(tutti__tu_t a, tutti__tu_t b) {
  return a > b ? a : b;
}

/* Back to seconds, for reports: u / 10^12, the double nearest it below
 * 2^53 ps (about 2.5 hours; one division of two exact doubles), within an
 * ulp beyond. A whole number of postal steps (10^12 units each) comes back
 * exact over the whole range. TUTTI__TU_NONE gives NaN. */
static inline double tutti__tu_to_s(tutti__tu_t u) {
  return u == TUTTI__TU_NONE ? NAN : (double)u / TUTTI__TU_PER_S;
}

/* A cost c(m) = max(floor, a + b*m) in units: constants converted, b
 * scaled (tutti__tu_cost_init, once per replay); its further pieces
 * (tutti_cost_t) the same way, each from its size up. */
typedef struct tutti__tu_line {
  tutti__tu_t a, floor;
  double rate; /* b in units per byte */
} tutti__tu_line_t;

typedef struct tutti__tu_cost {
  tutti__tu_line_t line; /* from 0 bytes */
  size_t pieces;
  double from[TUTTI_COST_PIECES];
  tutti__tu_line_t piece[TUTTI_COST_PIECES];
} tutti__tu_cost_t;

static inline tutti__tu_line_t tutti__tu_line_init(double floor, double a, double b) {
  return (tutti__tu_line_t){tutti__tu_from_s(a), tutti__tu_from_s(floor), tutti__tu_rate(b)};
}

static inline tutti__tu_cost_t tutti__tu_cost_init(const tutti_cost_t *c) {
  tutti__tu_cost_t u = {.line = tutti__tu_line_init(c->floor, c->a, c->b)};
  u.pieces = c->pieces > TUTTI_COST_PIECES ? TUTTI_COST_PIECES : c->pieces;
  for (size_t k = 0; k < u.pieces; k++) {
    u.from[k] = (double)c->piece[k].from;
    u.piece[k] = tutti__tu_line_init(c->piece[k].floor, c->piece[k].a, c->piece[k].b);
  }
  return u;
}

/* The piece that costs a message of m bytes: the last whose from <= m. */
static inline const tutti__tu_line_t *tutti__tu_cost_line(const tutti__tu_cost_t *c, double m) {
  const tutti__tu_line_t *l = &c->line;
  for (size_t k = 0; k < c->pieces && c->from[k] <= m; k++) l = &c->piece[k];
  return l;
}

static inline tutti__tu_t tutti__tu_cost(const tutti__tu_cost_t *c, double m) {
  const tutti__tu_line_t *l = tutti__tu_cost_line(c, m);
  return tutti__tu_max(l->floor, tutti__tu_add(l->a, tutti__tu_bytes(l->rate, m)));
}

/* ------------------------------------------------ link.c, in units */

/* A message in flight as the next link sees it (tutti_transit_t in
 * units), and one hop's h_i and e_i (tutti_hop_t in units). */
typedef struct tutti__tu_transit {
  tutti__tu_t head, tail;
} tutti__tu_transit_t;

typedef struct tutti__tu_hop {
  tutti__tu_t head, end;
} tutti__tu_hop_t;

/* tutti_linkset_hop in units: the replay's entry. A link's lat and beta
 * were converted when the linkset was created. hop may be NULL. Returns
 * 0, TUTTI_EINVAL (a head earlier than the link's last), TUTTI_ENOMEM. */
int tutti__linkset_hop_tu(tutti_linkset_t *s, int link, tutti__tu_transit_t *tr, double bytes,
                          tutti__tu_hop_t *hop);

/* Under sharing = fair, the statistics instead of hops (topo/link.c):
 * a message of `bytes` crosses the link; one of its flows starts
 * (delta +1) or ends (-1) at t, in the replay's order of time. */
void tutti__linkset_carry(tutti_linkset_t *s, int link, double bytes);
void tutti__linkset_flow_tu(tutti_linkset_t *s, int link, tutti__tu_t t, int delta);

#endif /* TUTTI_TIMEBASE_H */
