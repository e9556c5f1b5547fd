/*
 * test_unit_units.c -- sizes, times, bandwidths and per-byte costs (units.c):
 * every unit, exactness of decimal units, every error path, and the
 * formatting helpers (including that formatted sizes read back).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/model.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static size_t size_of(const char *s) {
  size_t v = 12345;
  char err[512] = "";
  int rc = tutti_parse_size(s, &v, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", s, err);
  return v;
}

static double time_of(const char *s) {
  double v = -1;
  char err[512] = "";
  int rc = tutti_parse_time(s, &v, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", s, err);
  return v;
}

static double bw_of(const char *s) {
  double v = -1;
  char err[512] = "";
  int rc = tutti_parse_bandwidth(s, &v, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", s, err);
  return v;
}

static double pb_of(const char *s) {
  double v = -1;
  char err[512] = "";
  int rc = tutti_parse_per_byte(s, &v, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", s, err);
  return v;
}

Test(units, sizes_every_unit) {
  cr_assert(eq(sz, size_of("8"), 8));
  cr_assert(eq(sz, size_of("0"), 0));
  cr_assert(eq(sz, size_of("8B"), 8));
  cr_assert(eq(sz, size_of("1kB"), 1000));
  cr_assert(eq(sz, size_of("3MB"), 3000000));
  cr_assert(eq(sz, size_of("2GB"), 2000000000));
  cr_assert(eq(sz, size_of("1TB"), (size_t)1000000000000ull));
  cr_assert(eq(sz, size_of("64KiB"), 65536));
  cr_assert(eq(sz, size_of("1MiB"), 1048576));
  cr_assert(eq(sz, size_of("1GiB"), 1073741824));
  cr_assert(eq(sz, size_of("2TiB"), (size_t)2 << 40));
}

Test(units, sizes_spaces_fractions_exponents) {
  cr_assert(eq(sz, size_of(" 64 KiB "), 65536));
  cr_assert(eq(sz, size_of("1.5KiB"), 1536));
  cr_assert(eq(sz, size_of("0.5MiB"), 524288));
  cr_assert(eq(sz, size_of("0.1kB"), 100)); /* exact: decimal exponent shift */
  cr_assert(eq(sz, size_of("1e3"), 1000));
  cr_assert(eq(sz, size_of("1.5e3B"), 1500));
  cr_assert(eq(sz, size_of("18446744073709551615"), (size_t)SIZE_MAX));
}

static void size_fails(const char *s, const char *sub) {
  size_t v = 777;
  char err[512] = "";
  int rc = tutti_parse_size(s, &v, err, sizeof err);
  cr_assert(eq(int, rc, TUTTI_EPARSE), "'%s' should fail", s);
  cr_assert(eq(sz, v, 777), "'%s' changed the output", s);
  HAS(err, sub);
  HAS(err, "accepted:");
  HAS(err, "KiB"); /* names the accepted units */
}

Test(units, sizes_errors) {
  size_fails("", "empty");
  size_fails("   ", "empty");
  size_fails("8x", "unknown unit 'x'");
  size_fails("8 KiB extra", "unknown unit");
  size_fails("64kib", "unknown unit 'kib'"); /* case matters */
  size_fails("64KB", "unknown unit 'KB'");   /* ambiguous: not accepted */
  size_fails("-8", "negative");
  size_fails("-1KiB", "negative");
  size_fails("KiB", "not a size");
  size_fails(".", "not a size");
  size_fails("1.5", "whole number");
  size_fails("0.001KiB", "whole number");
  size_fails("18446744073709551616", "out of range");
  size_fails("99999999999999999999999", "out of range");
  size_fails("17179869184GiB", "out of range");
  size_fails("1e30", "out of range");
  size_fails("inf", "not a size");
  size_fails("nan", "not a size");
  size_fails("0x10", "unknown unit 'x10'");
}

Test(units, size_null_err_buffer_is_fine) {
  size_t v = 0;
  cr_assert(eq(int, tutti_parse_size("bad", &v, NULL, 0), TUTTI_EPARSE));
  cr_assert(eq(int, tutti_parse_size("4KiB", &v, NULL, 0), 0));
  cr_assert(eq(sz, v, 4096));
  cr_assert(eq(int, tutti_parse_size(NULL, &v, NULL, 0), TUTTI_EINVAL));
}

Test(units, times_every_unit_exact) {
  cr_assert(ieee_ulp_eq(dbl, time_of("2"), 2.0, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("2s"), 2.0, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("1.5ms"), 1.5e-3, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("1us"), 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("0.5us"), 5e-7, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("1\xc2\xb5s"), 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("1ns"), 1e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("0.1ns"), 1e-10, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("250ps"), 2.5e-10, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("1e3us"), 1e-3, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of(" 40 us "), 4e-5, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("0"), 0.0, 0));
}

static void time_fails(const char *s, const char *sub) {
  double v = 7;
  char err[512] = "";
  cr_assert(eq(int, tutti_parse_time(s, &v, err, sizeof err), TUTTI_EPARSE), "'%s'", s);
  cr_assert(ieee_ulp_eq(dbl, v, 7.0, 0));
  HAS(err, sub);
  HAS(err, "accepted: a number >= 0 with a unit s, ms, us, ns or ps");
}

Test(units, times_errors) {
  time_fails("", "empty");
  time_fails("1xs", "unknown unit 'xs'");
  time_fails("1 u s", "unknown unit 'u s'");
  time_fails("1usec", "unknown unit 'usec'");
  time_fails("1US", "unknown unit 'US'");
  time_fails("-1us", "negative");
  time_fails("us", "not a time");
  time_fails("1e999", "out of range");
  time_fails("1e-999", "out of range");
  time_fails("1ns/B", "unknown unit"); /* a per-byte cost is not a time */
}

Test(units, bandwidth_every_unit) {
  cr_assert(ieee_ulp_eq(dbl, bw_of("100"), 100.0, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("100B/s"), 100.0, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1kB/s"), 1e3, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("35MB/s"), 35e6, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1GB/s"), 1e9, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("2TB/s"), 2e12, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1KiB/s"), 1024.0, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1MiB/s"), 1048576.0, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1GiB/s"), 1073741824.0, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1TiB/s"), 1099511627776.0, 0));
  /* bits */
  cr_assert(ieee_ulp_eq(dbl, bw_of("8bps"), 1.0, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("8kbps"), 1e3, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("100Mbps"), 12.5e6, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("10Gbps"), 1.25e9, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("200Gb/s"), 25e9, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1Tbps"), 125e9, 0));
}

static void bw_fails(const char *s, const char *sub) {
  double v = 7;
  char err[512] = "";
  cr_assert(eq(int, tutti_parse_bandwidth(s, &v, err, sizeof err), TUTTI_EPARSE), "'%s'", s);
  cr_assert(ieee_ulp_eq(dbl, v, 7.0, 0));
  HAS(err, sub);
  HAS(err, "Gbps");
}

Test(units, bandwidth_errors) {
  bw_fails("", "empty");
  bw_fails("0", "must be > 0");
  bw_fails("0GB/s", "must be > 0");
  bw_fails("-1GB/s", "negative");
  bw_fails("1GBps", "unknown unit 'GBps'");
  bw_fails("1GB", "unknown unit 'GB'");
  bw_fails("1Gbit/s", "unknown unit");
  bw_fails("1e999GB/s", "out of range");
}

Test(units, per_byte_time_and_bandwidth_forms) {
  cr_assert(ieee_ulp_eq(dbl, pb_of("1ns"), 1e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("1ns/B"), 1e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("0.1ns"), 1e-10, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("2ps/B"), 2e-12, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("1us/B"), 1e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("1e-9"), 1e-9, 0)); /* bare: seconds per byte */
  cr_assert(ieee_ulp_eq(dbl, pb_of("0"), 0.0, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("1GB/s"), 1e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("8Gbps"), 1e-9, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("10Gbps"), 8e-10, 0));
  cr_assert(ieee_ulp_eq(dbl, pb_of("1MiB/s"), 1.0 / 1048576.0, 0));
}

Test(units, per_byte_errors) {
  double v = 7;
  char err[512] = "";
  cr_assert(eq(int, tutti_parse_per_byte("1ns/KiB", &v, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "unknown unit 'ns/KiB'");
  HAS(err, "accepted: a time per byte");
  cr_assert(eq(int, tutti_parse_per_byte("0GB/s", &v, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "must be > 0");
  cr_assert(eq(int, tutti_parse_per_byte("-1ns", &v, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "negative");
  cr_assert(eq(int, tutti_parse_per_byte("", &v, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "empty");
  cr_assert(ieee_ulp_eq(dbl, v, 7.0, 0));
}

Test(units, format_time) {
  char b[64];
  cr_assert(eq(str, tutti_format_time(6e-6, b, sizeof b), "6 us"));
  cr_assert(eq(str, tutti_format_time(1.5e-3, b, sizeof b), "1.5 ms"));
  cr_assert(eq(str, tutti_format_time(2, b, sizeof b), "2 s"));
  cr_assert(eq(str, tutti_format_time(0, b, sizeof b), "0 s"));
  cr_assert(eq(str, tutti_format_time(-0.0, b, sizeof b), "0 s"));
  cr_assert(eq(str, tutti_format_time(1e-9, b, sizeof b), "1 ns"));
  cr_assert(eq(str, tutti_format_time(2.5e-10, b, sizeof b), "250 ps"));
  cr_assert(eq(str, tutti_format_time(1e-15, b, sizeof b), "0.001 ps"));
  cr_assert(eq(str, tutti_format_time(999.9999999e-6, b, sizeof b), "1 ms"));
  cr_assert(eq(str, tutti_format_time(123.456789e-6, b, sizeof b), "123.457 us"));
  cr_assert(eq(str, tutti_format_time(-3e-6, b, sizeof b), "-3 us"));
  cr_assert(eq(str, tutti_format_time(INFINITY, b, sizeof b), "inf s"));
  /* truncation is safe */
  char small[4];
  cr_assert(eq(str, tutti_format_time(1.5e-3, small, sizeof small), "1.5"));
  cr_assert(eq(ptr, tutti_format_time(1, NULL, 10), NULL));
  cr_assert(eq(ptr, tutti_format_time(1, b, 0), NULL));
}

Test(units, format_time_reads_back) {
  const double ts[] = {6e-6, 1.5e-3, 2, 1e-9, 2.5e-10, 40e-6, 0.125};
  char b[64];
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    tutti_format_time(ts[i], b, sizeof b);
    double back = time_of(b);
    cr_assert(ieee_ulp_eq(dbl, back, ts[i], 4), "'%s' read back as %g, not %g", b, back, ts[i]);
  }
}

/* The JSON writers' numbers: integers look like integers up to 2^53 (every
 * one exact there), everything else is the shortest %g that reads back. */
Test(units, format_shortest_integers_and_round_trip) {
  static const struct {
    double x;
    const char *text;
  } cases[] = {
      {10, "10"},
      {0, "0"},
      {-0.0, "-0"},
      {-10, "-10"},
      {1e6, "1000000"},
      {65536, "65536"},
      {9007199254740992.0, "9007199254740992"},
      {-9007199254740992.0, "-9007199254740992"},
      {1152921504606846976.0, "1.152921504606847e+18"}, /* 2^60: %g again */
      {1e300, "1e+300"},
      {0.6, "0.6"},
      {1e-06, "1e-06"},
      {4.032e-06, "4.032e-06"},
      {0.30000000000000004, "0.30000000000000004"},
      {2.5, "2.5"},
      {1e21, "1e+21"},
  };
  char b[32];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    cr_assert(eq(str, tutti_format_shortest(cases[i].x, b, sizeof b), (char *)cases[i].text),
              "%.17g", cases[i].x);
  /* every text reads back to the same double, also near the 2^53 edge */
  const double more[] = {
      9007199254740991.0,    9007199254740993.0, 123456789012345.0, 0.1, 1.0 / 3, -2.5e-310, 5e-324,
      1.7976931348623157e308};
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
    tutti_format_shortest(more[i], b, sizeof b);
    cr_assert(eq(dbl, strtod(b, NULL), more[i]), "'%s' is not %.17g", b, more[i]);
  }
  cr_assert(eq(str, tutti_format_shortest(NAN, b, sizeof b), "nan"));
  cr_assert(eq(str, tutti_format_shortest(-INFINITY, b, sizeof b), "-inf"));
  cr_assert(eq(ptr, tutti_format_shortest(1, NULL, 4), NULL));
}

Test(units, format_bytes_exact_and_reads_back) {
  char b[64];
  cr_assert(eq(str, tutti_format_bytes(0, b, sizeof b), "0 B"));
  cr_assert(eq(str, tutti_format_bytes(8, b, sizeof b), "8 B"));
  cr_assert(eq(str, tutti_format_bytes(1000, b, sizeof b), "1000 B"));
  cr_assert(eq(str, tutti_format_bytes(1024, b, sizeof b), "1 KiB"));
  cr_assert(eq(str, tutti_format_bytes(1536, b, sizeof b), "1.5 KiB"));
  cr_assert(eq(str, tutti_format_bytes(1025, b, sizeof b), "1025 B"));
  cr_assert(eq(str, tutti_format_bytes(65536, b, sizeof b), "64 KiB"));
  cr_assert(eq(str, tutti_format_bytes(1048576, b, sizeof b), "1 MiB"));
  cr_assert(eq(str, tutti_format_bytes(3 * 1048576 + 1024, b, sizeof b), "3073 KiB"));
  cr_assert(eq(str, tutti_format_bytes((size_t)5 << 30, b, sizeof b), "5 GiB"));
  cr_assert(eq(str, tutti_format_bytes(1152, b, sizeof b), "1.125 KiB"));
  cr_assert(eq(str, tutti_format_bytes(SIZE_MAX, b, sizeof b), "18446744073709551615 B"));
  const size_t sizes[] = {0, 1, 8, 1000, 1536, 65536, 1 << 20, 1152, 12345678, (size_t)7 << 40};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    tutti_format_bytes(sizes[i], b, sizeof b);
    cr_assert(eq(sz, size_of(b), sizes[i]), "'%s'", b);
  }
}

Test(units, format_bandwidth) {
  char b[64];
  cr_assert(eq(str, tutti_format_bandwidth(1e9, b, sizeof b), "1 GB/s"));
  cr_assert(eq(str, tutti_format_bandwidth(35e6, b, sizeof b), "35 MB/s"));
  cr_assert(eq(str, tutti_format_bandwidth(1.25e9, b, sizeof b), "1.25 GB/s"));
  cr_assert(eq(str, tutti_format_bandwidth(500, b, sizeof b), "500 B/s"));
  cr_assert(eq(str, tutti_format_bandwidth(2e12, b, sizeof b), "2 TB/s"));
}

/* Issue 19: every model value is held to units.h's ranges when it is read,
 * so a cost a + b*m stays finite for every message size (1e308s used to
 * parse, then fail at the end of a run). The edges are accepted. */
Test(units, ranges_keep_costs_finite) {
  cr_assert(ieee_ulp_eq(dbl, time_of("1e6s"), TUTTI_TIME_MAX, 0));
  cr_assert(ieee_ulp_eq(dbl, time_of("1e6"), 1e6, 0));
  time_fails("1e308s", "out of range");
  time_fails("1000001s", "out of range");
  time_fails("1e18us", "out of range");
  cr_assert(ieee_ulp_eq(dbl, pb_of("1e6s/B"), TUTTI_PER_BYTE_MAX, 0));
  cr_assert(ieee_ulp_eq(dbl, bw_of("1e-6B/s"), TUTTI_BANDWIDTH_MIN, 0));
  double v = 7;
  char err[512] = "";
  const char *bad_pb[] = {"1e7s/B", "2e6", "1e-7B/s", "1e-300bps"};
  for (size_t i = 0; i < sizeof bad_pb / sizeof bad_pb[0]; i++) {
    cr_assert(eq(int, tutti_parse_per_byte(bad_pb[i], &v, err, sizeof err), TUTTI_EPARSE), "%s",
              bad_pb[i]);
    HAS(err, "out of range");
    HAS(err, "at most 1e6 s/B");
  }
  cr_assert(eq(int, tutti_parse_bandwidth("1e-7B/s", &v, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "out of range");
  HAS(err, "1e-6 B/s");
  cr_assert(ieee_ulp_eq(dbl, v, 7.0, 0), "untouched on failure");
  /* the worst a model can hold is still finite, added up 2^64 times */
  double worst = TUTTI_TIME_MAX + TUTTI_PER_BYTE_MAX * (double)SIZE_MAX;
  cr_assert(isfinite(worst * 18446744073709551616.0));
}
