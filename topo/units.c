/*
 * units.c -- parse and print sizes, times, bandwidths and per-byte costs;
 * the shortest round-trip decimal of a double; tutti__seterr (errtext.h),
 * which every parser of topo/ uses.
 *
 * Every number a user types into tutti (--bytes, --model, profile files)
 * goes through here, so the rules are one set: a decimal number, optional
 * spaces, an exact unit name from one table, nothing else. Strict on
 * purpose: "64kib", "1 u s" or "10Gbit" are errors that list the accepted
 * forms, not guesses.
 *
 * Exactness: a decimal unit is applied by shifting the decimal exponent of
 * the text before strtod ("1.5us" is read as "1.5e-6"), so "1us" is exactly
 * the double nearest 1e-6 and "0.1kB" exactly 100. Binary units and bits
 * multiply by powers of two, which is exact. Whole-number sizes are read as
 * integers, so sizes up to SIZE_MAX are exact.
 *
 * Ranges (units.h): times at most TUTTI_TIME_MAX, per-byte costs at most
 * TUTTI_PER_BYTE_MAX, bandwidths at least TUTTI_BANDWIDTH_MIN, so every
 * cost a model can hold stays finite for every message size.
 *
 * Numbers are read with strtod, so the C locale's decimal point is assumed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "tutti/model.h"
#include "tutti/units.h"
#include "tutti/p2p.h"

#define SIZE_ACCEPTED                                                                              \
  "a whole number of bytes with an optional unit B, kB, MB, GB, TB, KiB, MiB, GiB, "               \
  "TiB (e.g. 8, 64KiB, 1MiB)"
#define TIME_ACCEPTED                                                                              \
  "a number >= 0 with a unit s, ms, us, ns or ps (bare: seconds), at most 1e6 s, e.g. 1us, "       \
  "0.5ms"
#define BW_ACCEPTED                                                                                \
  "a number >= 1e-6 B/s with a unit B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, "     \
  "or bits: bps, kbps, Mbps, Gbps, Tbps (e.g. 1GB/s, 10Gbps)"
#define PERBYTE_ACCEPTED                                                                           \
  "a time per byte >= 0 (1ns, 1ns/B; bare: seconds), at most 1e6 s/B, or a bandwidth of at "       \
  "least 1e-6 B/s (1GB/s, 10Gbps)"

enum ukind { U_SIZE = 1, U_TIME = 2, U_BW = 4, U_PERBYTE = 8 };

/* A unit: value = number * 10^dec * mult. */
struct unit {
  const char *name;
  int kind;
  int dec;
  double mult;
};

static const struct unit units[] = {
    {"", U_SIZE, 0, 1},
    {"B", U_SIZE, 0, 1},
    {"kB", U_SIZE, 3, 1},
    {"MB", U_SIZE, 6, 1},
    {"GB", U_SIZE, 9, 1},
    {"TB", U_SIZE, 12, 1},
    {"KiB", U_SIZE, 0, 1024.0},
    {"MiB", U_SIZE, 0, 1048576.0},
    {"GiB", U_SIZE, 0, 1073741824.0},
    {"TiB", U_SIZE, 0, 1099511627776.0},

    {"", U_TIME, 0, 1},
    {"s", U_TIME, 0, 1},
    {"ms", U_TIME, -3, 1},
    {"us", U_TIME, -6, 1},
    {"\xc2\xb5s", U_TIME, -6, 1}, /* µs */
    {"ns", U_TIME, -9, 1},
    {"ps", U_TIME, -12, 1},

    {"", U_BW, 0, 1},
    {"B/s", U_BW, 0, 1},
    {"kB/s", U_BW, 3, 1},
    {"MB/s", U_BW, 6, 1},
    {"GB/s", U_BW, 9, 1},
    {"TB/s", U_BW, 12, 1},
    {"KiB/s", U_BW, 0, 1024.0},
    {"MiB/s", U_BW, 0, 1048576.0},
    {"GiB/s", U_BW, 0, 1073741824.0},
    {"TiB/s", U_BW, 0, 1099511627776.0},
    {"bps", U_BW, 0, 0.125},
    {"kbps", U_BW, 3, 0.125},
    {"Mbps", U_BW, 6, 0.125},
    {"Gbps", U_BW, 9, 0.125},
    {"Tbps", U_BW, 12, 0.125},
    {"b/s", U_BW, 0, 0.125},
    {"kb/s", U_BW, 3, 0.125},
    {"Mb/s", U_BW, 6, 0.125},
    {"Gb/s", U_BW, 9, 0.125},
    {"Tb/s", U_BW, 12, 0.125},

    {"s/B", U_PERBYTE, 0, 1},
    {"ms/B", U_PERBYTE, -3, 1},
    {"us/B", U_PERBYTE, -6, 1},
    {"\xc2\xb5s/B", U_PERBYTE, -6, 1},
    {"ns/B", U_PERBYTE, -9, 1},
    {"ps/B", U_PERBYTE, -12, 1},
};

void tutti__seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static int is_space(char c) {
  return c == ' ' || c == '\t';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* A scanned number: [+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)? */
struct num {
  int neg;
  const char *mant; /* digits and '.' */
  size_t mant_len;
  long exp;         /* the written exponent, clamped to +-1000000 */
  int integral;     /* digits only: no '.', no exponent */
  const char *unit; /* text after the number, spaces skipped */
  size_t unit_len;  /* trailing spaces excluded */
};

/* Scan s into *n. Returns 0, or -1 when s holds no number where one must
 * begin; the caller reports what was wrong. */
static int scan(const char *s, struct num *n) {
  const char *p = s;
  memset(n, 0, sizeof *n);
  while (is_space(*p)) p++;
  if (*p == '+' || *p == '-') n->neg = (*p++ == '-');
  n->mant = p;
  size_t digits = 0;
  while (is_digit(*p)) p++, digits++;
  n->integral = 1;
  if (*p == '.') {
    n->integral = 0;
    p++;
    while (is_digit(*p)) p++, digits++;
  }
  if (digits == 0) return -1;
  n->mant_len = (size_t)(p - n->mant);
  if ((*p == 'e' || *p == 'E') &&
      (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
    n->integral = 0;
    p++;
    int eneg = 0;
    if (*p == '+' || *p == '-') eneg = (*p++ == '-');
    long e = 0;
    while (is_digit(*p)) {
      if (e < 1000000) e = e * 10 + (*p - '0');
      p++;
    }
    n->exp = eneg ? -e : e;
  }
  while (is_space(*p)) p++;
  n->unit = p;
  size_t len = strlen(p);
  while (len > 0 && is_space(p[len - 1])) len--;
  n->unit_len = len;
  return 0;
}

static const struct unit *find_unit(const struct num *n, int kinds) {
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if ((units[i].kind & kinds) && strlen(units[i].name) == n->unit_len &&
        memcmp(units[i].name, n->unit, n->unit_len) == 0)
      return &units[i];
  return NULL;
}

/* The value of n in unit u, as a double: the mantissa text with its
 * exponent shifted by u->dec, read by strtod, times u->mult. */
static int value_of(const struct num *n, const struct unit *u, double *out) {
  char buf[320];
  if (n->mant_len > 256) return -1;
  snprintf(buf, sizeof buf, "%.*se%ld", (int)n->mant_len, n->mant, n->exp + u->dec);
  errno = 0;
  char *end;
  double v = strtod(buf, &end);
  if (*end != '\0' || errno == ERANGE || !isfinite(v)) return -1;
  v *= u->mult;
  if (!isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* Common front: empty, not a number, unknown unit, negative. On success
 * *up is the unit. `what` is "a size", "a time", ... */
static int front(const char *s, int kinds, const char *what, const char *accepted, struct num *n,
                 const struct unit **up, char *err, size_t errlen) {
  if (!s) {
    tutti__seterr(err, errlen, "no value; accepted: %s", accepted);
    return TUTTI_EINVAL;
  }
  const char *p = s;
  while (is_space(*p)) p++;
  if (*p == '\0') {
    tutti__seterr(err, errlen, "empty value; accepted: %s", accepted);
    return TUTTI_EPARSE;
  }
  if (scan(s, n) < 0) {
    tutti__seterr(err, errlen, "'%s' is not %s; accepted: %s", s, what, accepted);
    return TUTTI_EPARSE;
  }
  const struct unit *u = find_unit(n, kinds);
  if (!u) {
    if (n->unit_len > 0)
      tutti__seterr(err, errlen, "'%s' is not %s: unknown unit '%.*s'; accepted: %s", s, what,
                    (int)n->unit_len, n->unit, accepted);
    else
      tutti__seterr(err, errlen, "'%s' is not %s; accepted: %s", s, what, accepted);
    return TUTTI_EPARSE;
  }
  if (n->neg) {
    tutti__seterr(err, errlen, "'%s' is negative; accepted: %s", s, accepted);
    return TUTTI_EPARSE;
  }
  *up = u;
  return 0;
}

int tutti_parse_size(const char *s, size_t *out, char *err, size_t errlen) {
  struct num n;
  const struct unit *u;
  int rc = front(s, U_SIZE, "a size", SIZE_ACCEPTED, &n, &u, err, errlen);
  if (rc) return rc;
  if (n.integral) {
    /* Exact integer arithmetic: digits times 10^dec times mult. */
    uint64_t v = 0;
    for (size_t i = 0; i < n.mant_len; i++) {
      unsigned d = (unsigned)(n.mant[i] - '0');
      if (v > (UINT64_MAX - d) / 10) goto range;
      v = v * 10 + d;
    }
    for (int i = 0; i < u->dec; i++) {
      if (v > UINT64_MAX / 10) goto range;
      v *= 10;
    }
    uint64_t mult = (uint64_t)u->mult;
    if (mult > 1 && v > UINT64_MAX / mult) goto range;
    v *= mult;
    if (v > (uint64_t)SIZE_MAX) goto range;
    if (out) *out = (size_t)v;
    return 0;
  }
  double v;
  if (value_of(&n, u, &v) < 0 || v >= 18446744073709551616.0 || v > (double)SIZE_MAX) goto range;
  if (v != floor(v)) {
    tutti__seterr(err, errlen, "'%s' is not a whole number of bytes; accepted: %s", s,
                  SIZE_ACCEPTED);
    return TUTTI_EPARSE;
  }
  if (out) *out = (size_t)v;
  return 0;
range:
  tutti__seterr(err, errlen, "'%s' is out of range (at most %zu bytes); accepted: %s", s,
                (size_t)SIZE_MAX, SIZE_ACCEPTED);
  return TUTTI_EPARSE;
}

int tutti_parse_time(const char *s, double *out, char *err, size_t errlen) {
  struct num n;
  const struct unit *u;
  int rc = front(s, U_TIME, "a time", TIME_ACCEPTED, &n, &u, err, errlen);
  if (rc) return rc;
  double v;
  if (value_of(&n, u, &v) < 0 || v > TUTTI_TIME_MAX) {
    tutti__seterr(err, errlen, "'%s' is out of range; accepted: %s", s, TIME_ACCEPTED);
    return TUTTI_EPARSE;
  }
  if (out) *out = v;
  return 0;
}

int tutti_parse_bandwidth(const char *s, double *bytes_per_s, char *err, size_t errlen) {
  struct num n;
  const struct unit *u;
  int rc = front(s, U_BW, "a bandwidth", BW_ACCEPTED, &n, &u, err, errlen);
  if (rc) return rc;
  double v;
  if (value_of(&n, u, &v) < 0) {
    tutti__seterr(err, errlen, "'%s' is out of range; accepted: %s", s, BW_ACCEPTED);
    return TUTTI_EPARSE;
  }
  if (v <= 0) {
    tutti__seterr(err, errlen, "'%s' is not a bandwidth: it must be > 0; accepted: %s", s,
                  BW_ACCEPTED);
    return TUTTI_EPARSE;
  }
  if (v < TUTTI_BANDWIDTH_MIN || 1.0 / v > TUTTI_PER_BYTE_MAX) {
    tutti__seterr(err, errlen, "'%s' is out of range (below 1e-6 B/s); accepted: %s", s,
                  BW_ACCEPTED);
    return TUTTI_EPARSE;
  }
  if (bytes_per_s) *bytes_per_s = v;
  return 0;
}

int tutti_parse_per_byte(const char *s, double *seconds_per_byte, char *err, size_t errlen) {
  struct num n;
  const struct unit *u;
  int rc =
      front(s, U_TIME | U_PERBYTE | U_BW, "a per-byte cost", PERBYTE_ACCEPTED, &n, &u, err, errlen);
  if (rc) return rc;
  double v;
  if (value_of(&n, u, &v) < 0) {
    tutti__seterr(err, errlen, "'%s' is out of range; accepted: %s", s, PERBYTE_ACCEPTED);
    return TUTTI_EPARSE;
  }
  /* A bare number matches the time entry first: seconds per byte. */
  if (u->kind == U_BW) {
    if (v <= 0) {
      tutti__seterr(err, errlen, "'%s': a bandwidth must be > 0; accepted: %s", s,
                    PERBYTE_ACCEPTED);
      return TUTTI_EPARSE;
    }
    if (v < TUTTI_BANDWIDTH_MIN || 1.0 / v > TUTTI_PER_BYTE_MAX) {
      tutti__seterr(err, errlen, "'%s' is out of range (below 1e-6 B/s); accepted: %s", s,
                    PERBYTE_ACCEPTED);
      return TUTTI_EPARSE;
    }
    v = 1.0 / v;
  } else if (v > TUTTI_PER_BYTE_MAX) {
    tutti__seterr(err, errlen, "'%s' is out of range (above 1e6 s/B); accepted: %s", s,
                  PERBYTE_ACCEPTED);
    return TUTTI_EPARSE;
  }
  if (seconds_per_byte) *seconds_per_byte = v;
  return 0;
}

/* -------------------------------------------------------------- formatting */

char *tutti_format_shortest(double x, char *buf, size_t n) {
  if (!buf || n == 0) return NULL;
  if (!isfinite(x)) {
    snprintf(buf, n, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    return buf;
  }
  /* 17 significant digits always read back (DBL_DECIMAL_DIG), and the
   * longest such text, "-1.2345678901234567e-308", fits in 32 bytes. */
  char tmp[32];
  if (x == floor(x) && fabs(x) <= 9007199254740992.0) {
    /* an integer up to 2^53 (each one exact) looks like one: 10, not 1e+01 */
    snprintf(tmp, sizeof tmp, "%.0f", x);
  } else
    for (int prec = 1; prec <= 17; prec++) {
      snprintf(tmp, sizeof tmp, "%.*g", prec, x);
      if (strtod(tmp, NULL) == x) break;
    }
  snprintf(buf, n, "%s", tmp);
  return buf;
}

/* %.6g of v / scale followed by " unit"; "-0" never appears. */
static char *fmt_scaled(double v, double scale, const char *unit, char *buf, size_t n) {
  double x = v / scale;
  if (x == 0) x = 0; /* turns -0 into 0 */
  snprintf(buf, n, "%.6g %s", x, unit);
  return buf;
}

char *tutti_format_time(double seconds, char *buf, size_t n) {
  static const struct {
    double scale;
    const char *name;
  } tu[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}};
  if (!buf || n == 0) return NULL;
  if (!isfinite(seconds)) {
    snprintf(buf, n, "%s s", isnan(seconds) ? "nan" : seconds > 0 ? "inf" : "-inf");
    return buf;
  }
  double a = fabs(seconds);
  if (a == 0) return fmt_scaled(0, 1, "s", buf, n);
  for (size_t i = 0; i < sizeof tu / sizeof tu[0]; i++) {
    /* The unit in which the value prints as >= 1 after %.6g rounding:
     * 0.9999999 ms prints as "1 ms", not "1000 us". */
    if (a / tu[i].scale >= 0.9999995) return fmt_scaled(seconds, tu[i].scale, tu[i].name, buf, n);
  }
  return fmt_scaled(seconds, 1e-12, "ps", buf, n);
}

char *tutti_format_bytes(size_t bytes, char *buf, size_t n) {
  static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (!buf || n == 0) return NULL;
  /* The largest unit in which the value is exact with at most 3 decimals
   * (1536 -> "1.5 KiB", 1000 -> "1000 B"), so the text reads back to the
   * same number of bytes. With unit = 2^(10k) and rem = bytes mod unit,
   * rem/unit has at most 3 decimals iff 1000*rem is a multiple of unit,
   * i.e. (1000 = 8 * 125, 125 odd) iff rem is a multiple of unit/8. */
  int best = 0;
  for (int k = 1; k < 7; k++) {
    uint64_t unit = (uint64_t)1 << (10 * k);
    if ((uint64_t)bytes < unit) break;
    if ((uint64_t)bytes % (unit >> 3) == 0) best = k;
  }
  if (best == 0) {
    snprintf(buf, n, "%zu B", bytes);
    return buf;
  }
  uint64_t unit = (uint64_t)1 << (10 * best);
  uint64_t whole = (uint64_t)bytes / unit;
  unsigned milli = (unsigned)(((uint64_t)bytes % unit) / (unit >> 3)) * 125u;
  if (milli == 0)
    snprintf(buf, n, "%llu %s", (unsigned long long)whole, names[best]);
  else {
    char frac[16];
    snprintf(frac, sizeof frac, "%03u", milli);
    size_t l = strlen(frac);
    while (l > 0 && frac[l - 1] == '0') frac[--l] = '\0';
    snprintf(buf, n, "%llu.%s %s", (unsigned long long)whole, frac, names[best]);
  }
  return buf;
}

char *tutti_format_bandwidth(double bytes_per_s, char *buf, size_t n) {
  static const struct {
    double scale;
    const char *name;
  } bu[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}};
  if (!buf || n == 0) return NULL;
  if (!isfinite(bytes_per_s)) {
    snprintf(buf, n, "%s B/s", isnan(bytes_per_s) ? "nan" : bytes_per_s > 0 ? "inf" : "-inf");
    return buf;
  }
  double a = fabs(bytes_per_s);
  for (size_t i = 0; i < sizeof bu / sizeof bu[0]; i++)
    if (a / bu[i].scale >= 0.9999995)
      return fmt_scaled(bytes_per_s, bu[i].scale, bu[i].name, buf, n);
  return fmt_scaled(bytes_per_s, 1, "B/s", buf, n);
}

/* ------------------------------------------------------------ rank lists */

/* A whole number <= max at *p (blanks before it skipped), advancing *p. */
static int list_number(const char **p, long max, long *out) {
  const char *q = *p;
  while (*q == ' ' || *q == '\t') q++;
  if (*q < '0' || *q > '9') return -1;
  long v = 0;
  for (; *q >= '0' && *q <= '9'; q++) {
    if (v > (max - (*q - '0')) / 10) return -1;
    v = v * 10 + (*q - '0');
  }
  while (*q == ' ' || *q == '\t') q++;
  *p = q;
  *out = v;
  return 0;
}

long tutti_parse_rank_list(const char *s, long max, int *out, long cap, int *bad) {
  if (bad) *bad = 1;
  if (!s || max < 0 || max > 1L << 30 || (cap > 0 && !out)) return -1;
  long n = 0;
  for (int item = 1;; item++) {
    long a, b;
    if (bad) *bad = item;
    if (list_number(&s, max, &a)) return -1;
    b = a;
    if (*s == '-') {
      s++;
      if (list_number(&s, max, &b)) return -1;
    }
    /* written up to cap, counted past it */
    long step = a <= b ? 1 : -1, len = (b - a) * step + 1, room = cap - n;
    long take = room <= 0 ? 0 : room < len ? room : len;
    for (long j = 0; j < take; j++) out[n + j] = (int)(a + j * step);
    n += len;
    if (!*s) break;
    if (*s++ != ',') return -1;
  }
  if (bad) *bad = 0;
  return n;
}
