/*
 * cost.c -- cost expressions (runtime/MODEL.md "Cost functions" and
 * "Pieces"): "A + B*m", "max(F, A + B*m)" and pieces "... | from SIZE:
 * ...", parsed into a tutti_cost_t with messages that say what is
 * accepted. The model builder (model.c) parses its cost keys here.
 */
#include <stdio.h>
#include <string.h>

#include "errtext.h"
#include "tutti/model.h"
#include "tutti/p2p.h"

#define COST_ACCEPTED                                                                              \
  "A, A + B*m, B*m or max(F, A + B*m) with times A, F and a per-byte cost B (e.g. 1us "            \
  "+ 1ns*m, max(2us, 1us + 1ns*m))"
#define COST_STEPS_ACCEPTED                                                                        \
  "A, A + B*m, B*m or max(F, A + B*m) with plain numbers (postal times are steps), "               \
  "e.g. 1 + 0.5*m"
#define PIECES_ACCEPTED                                                                            \
  "accepted: COST | from SIZE: COST ... (up to 4 pieces after the first, sizes ascending; "        \
  "their constants may be negative where the piece stays >= 0), e.g. 1us + 1ns*m | from 4KiB: "    \
  "3us + 0.5ns*m"

/* Parse s[0..len) as a time (steps: a plain number) into *out. */
static int parse_time_n(const char *s, size_t len, int steps, int per_byte, double *out, char *err,
                        size_t errlen) {
  char buf[256];
  if (len >= sizeof buf) {
    tutti__seterr(err, errlen, "'%.*s...' is too long", 32, s);
    return TUTTI_EPARSE;
  }
  memcpy(buf, s, len);
  buf[len] = '\0';
  if (steps && !tutti__plain_number(buf, len)) {
    tutti__seterr(err, errlen, "'%s' is not a plain number; accepted: %s", buf,
                  COST_STEPS_ACCEPTED);
    return TUTTI_EPARSE;
  }
  return per_byte ? tutti_parse_per_byte(buf, out, err, errlen)
                  : tutti_parse_time(buf, out, err, errlen);
}

/* "A", "A + B*m", "B*m", "B*m + A" into a and b; with neg (a piece
 * after the first) A may be "-T". */
static int parse_linear(const char *s, size_t len, int steps, int neg, const char *whole, double *a,
                        double *b, char *err, size_t errlen) {
  const char *acc = steps ? COST_STEPS_ACCEPTED : COST_ACCEPTED;
  int have_a = 0, have_b = 0;
  *a = *b = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    /* A '+' right after an exponent 'e' that follows a digit or '.' is the
     * exponent's sign, not a term separator. */
    if (i < len && !(s[i] == '+' && !(i >= 2 && (s[i - 1] == 'e' || s[i - 1] == 'E') &&
                                      (strchr("0123456789.", s[i - 2]) != NULL))))
      continue;
    const char *t = s + start;
    size_t tl = i - start;
    start = i + 1;
    tutti__trim(&t, &tl);
    if (tl == 0) {
      tutti__seterr(err, errlen, "'%s' is not a cost: empty term; accepted: %s", whole, acc);
      return TUTTI_EPARSE;
    }
    int is_b = 0;
    if (t[tl - 1] == 'm') {
      size_t k = tl - 1;
      while (k > 0 && tutti__is_blank(t[k - 1])) k--;
      if (k > 0 && t[k - 1] == '*') {
        is_b = 1;
        tl = k - 1;
        tutti__trim(&t, &tl);
        if (tl == 0) {
          tutti__seterr(err, errlen, "'%s' is not a cost: '*m' without a factor; accepted: %s",
                        whole, acc);
          return TUTTI_EPARSE;
        }
      }
    }
    if (is_b ? have_b : have_a) {
      tutti__seterr(err, errlen, "'%s' is not a cost: two %s terms; accepted: %s", whole,
                    is_b ? "per-byte" : "constant", acc);
      return TUTTI_EPARSE;
    }
    int minus = neg && !is_b && t[0] == '-';
    if (minus) t++, tl--, tutti__trim(&t, &tl);
    int rc = parse_time_n(t, tl, steps, is_b, is_b ? b : a, err, errlen);
    if (rc) return rc;
    if (minus) *a = -*a;
    if (is_b)
      have_b = 1;
    else
      have_a = 1;
  }
  return 0;
}

/* One piece, p[0..len): "A + B*m" or "max(F, A + B*m)" into c's floor,
 * a, b; s, the whole text, for messages. */
static int parse_one(const char *p, size_t len, const char *s, int steps, int neg,
                     tutti_cost_t *out, char *err, size_t errlen) {
  const char *acc = steps ? COST_STEPS_ACCEPTED : COST_ACCEPTED;
  if (len == 0) {
    tutti__seterr(err, errlen, "'%s' is not a cost: empty piece; accepted: %s", s, acc);
    return TUTTI_EPARSE;
  }
  tutti_cost_t c = {.floor = 0, .a = 0, .b = 0};
  int rc;
  if (len >= 3 && strncmp(p, "max", 3) == 0) {
    const char *q = p + 3;
    size_t ql = len - 3;
    tutti__trim(&q, &ql);
    if (ql < 2 || q[0] != '(' || q[ql - 1] != ')') {
      tutti__seterr(err, errlen, "'%s' is not a cost: expected max(F, A + B*m); accepted: %s", s,
                    acc);
      return TUTTI_EPARSE;
    }
    q++, ql -= 2;
    const char *comma = memchr(q, ',', ql);
    if (!comma || memchr(comma + 1, ',', ql - (size_t)(comma + 1 - q)) || memchr(q, '(', ql) ||
        memchr(q, ')', ql)) {
      tutti__seterr(err, errlen,
                    "'%s' is not a cost: max takes two arguments, max(F, A + B*m); "
                    "accepted: %s",
                    s, acc);
      return TUTTI_EPARSE;
    }
    const char *f = q;
    size_t fl = (size_t)(comma - q);
    tutti__trim(&f, &fl);
    if (fl == 0) {
      tutti__seterr(err, errlen, "'%s' is not a cost: empty floor in max(F, ...); accepted: %s", s,
                    acc);
      return TUTTI_EPARSE;
    }
    if ((rc = parse_time_n(f, fl, steps, 0, &c.floor, err, errlen))) return rc;
    const char *r = comma + 1;
    size_t rl = ql - (size_t)(r - q);
    tutti__trim(&r, &rl);
    if ((rc = parse_linear(r, rl, steps, neg, s, &c.a, &c.b, err, errlen))) return rc;
  } else {
    if (memchr(p, '(', len) || memchr(p, ')', len) || memchr(p, ',', len)) {
      tutti__seterr(err, errlen, "'%s' is not a cost; accepted: %s", s, acc);
      return TUTTI_EPARSE;
    }
    if ((rc = parse_linear(p, len, steps, neg, s, &c.a, &c.b, err, errlen))) return rc;
  }
  *out = c;
  return 0;
}

/* A further piece, "from SIZE: EXPR", p[0..len), after the one ending at
 * `after` bytes (0 for the first). */
static int parse_piece(const char *p, size_t len, const char *s, int steps, size_t after,
                       tutti_cost_piece_t *out, char *err, size_t errlen) {
  char size[64];
  const char *colon = memchr(p, ':', len);
  size_t sl = colon ? (size_t)(colon - p) : 0;
  if (len < 4 || strncmp(p, "from", 4) != 0 || !tutti__is_blank(p[4]) || !colon ||
      sl - 4 >= sizeof size) {
    tutti__seterr(err, errlen, "'%s' is not a cost: after '|' expected 'from SIZE: COST'; %s", s,
                  PIECES_ACCEPTED);
    return TUTTI_EPARSE;
  }
  const char *q = p + 4;
  size_t ql = sl - 4;
  tutti__trim(&q, &ql);
  memcpy(size, q, ql);
  size[ql] = '\0';
  char inner[160];
  if (tutti_parse_size(size, &out->from, inner, sizeof inner)) {
    tutti__seterr(err, errlen, "'%s' is not a cost: from %s: %s", s, size, inner);
    return TUTTI_EPARSE;
  }
  if (out->from <= after) {
    tutti__seterr(err, errlen,
                  "'%s' is not a cost: a piece from %zu B after one from %zu B; accepted: "
                  "sizes strictly ascending, above 0",
                  s, out->from, after);
    return TUTTI_EPARSE;
  }
  const char *e = colon + 1;
  size_t el = len - (size_t)(e - p);
  tutti__trim(&e, &el);
  tutti_cost_t c;
  int rc = parse_one(e, el, s, steps, 1, &c, err, errlen);
  if (rc) return rc;
  if (c.a + c.b * (double)out->from < 0) {
    tutti__seterr(err, errlen,
                  "'%s' is not a cost: the piece from %zu B is negative there; accepted: a "
                  "negative constant only where the piece stays >= 0 from its size on",
                  s, out->from);
    return TUTTI_EPARSE;
  }
  out->floor = c.floor, out->a = c.a, out->b = c.b;
  return 0;
}

int tutti_parse_cost(const char *s, int steps, tutti_cost_t *out, char *err, size_t errlen) {
  const char *acc = steps ? COST_STEPS_ACCEPTED : COST_ACCEPTED;
  if (!s) {
    tutti__seterr(err, errlen, "no value; accepted: %s", acc);
    return TUTTI_EINVAL;
  }
  const char *p = s;
  size_t len = strlen(s);
  tutti__trim(&p, &len);
  if (len == 0) {
    tutti__seterr(err, errlen, "empty value; accepted: %s", acc);
    return TUTTI_EPARSE;
  }
  /* pieces are separated by '|': "EXPR | from SIZE: EXPR | ..." */
  const char *bar = memchr(p, '|', len);
  size_t first = bar ? (size_t)(bar - p) : len;
  const char *f = p;
  tutti__trim(&f, &first);
  tutti_cost_t c;
  int rc = parse_one(f, first, s, steps, 0, &c, err, errlen);
  if (rc) return rc;
  while (bar) {
    const char *q = bar + 1, *end = p + len;
    bar = memchr(q, '|', (size_t)(end - q));
    size_t ql = (size_t)((bar ? bar : end) - q);
    tutti__trim(&q, &ql);
    if (c.pieces == TUTTI_COST_PIECES) {
      tutti__seterr(err, errlen, "'%s' is not a cost: more than %d pieces after the first; %s", s,
                    TUTTI_COST_PIECES, PIECES_ACCEPTED);
      return TUTTI_EPARSE;
    }
    size_t after = c.pieces ? c.piece[c.pieces - 1].from : 0;
    if ((rc = parse_piece(q, ql, s, steps, after, &c.piece[c.pieces], err, errlen))) return rc;
    c.pieces++;
  }
  if (out) *out = c;
  return 0;
}
