/*
 * units.h -- sizes, times and bandwidths: parsing what people write
 * ("64KiB", "1us", "10Gbps") and formatting numbers back, for people
 * (6 digits, a unit) and for machines (the shortest text that reads back).
 *
 * Pure functions on plain numbers, any thread, any time. Part of what
 * collectives/ may use besides the backend contract (p2p.h): the registry
 * parses "segment=8KiB" with them, so every backend links them.
 *
 * Errors: parsers return 0 or TUTTI_EPARSE / TUTTI_EINVAL and, when err is
 * not NULL, write a one-line message (no trailing newline, truncated to
 * errlen) naming what was wrong and what is accepted. On failure the
 * output arguments are left unchanged.
 */
#ifndef TUTTI_UNITS_H
#define TUTTI_UNITS_H

#include <stddef.h>

#include "tutti/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes: a whole number of bytes, with an optional unit: B; kB MB GB TB
 * (powers of 1000); KiB MiB GiB TiB (powers of 1024). "8", "64KiB",
 * "1.5 MiB" (fractions are fine when the result is whole bytes). Spaces
 * around the number and unit are allowed. Negative, empty, trailing garbage
 * or more than SIZE_MAX: TUTTI_EPARSE. */
TUTTI_API int tutti_parse_size(const char *s, size_t *out, char *err, size_t errlen);

/* The ranges every model and link parameter is held to, so that every cost
 * c(m) = max(F, a + b*m) of a model that parses is finite and >= 0 for every
 * message size m up to SIZE_MAX (below 2e25 s), and so is any sum of 2^64
 * such costs: a run's modeled time can never overflow a double.
 *   TUTTI_TIME_MAX      a time: 1e6 s (11.6 days; postal: 1e6 steps)
 *   TUTTI_PER_BYTE_MAX  a per-byte cost: 1e6 s/B (or steps per byte)
 *   TUTTI_BANDWIDTH_MIN a bandwidth: 1e-6 B/s, whose per-byte cost is then
 *                       at most TUTTI_PER_BYTE_MAX
 * One bound for all, wide enough for hand-made models in unit times
 * ("1s/1B/s, 5s/0.5B/s"), narrow enough to refuse typos like 1e308s when
 * the model is read rather than at the end of a run. */
#define TUTTI_TIME_MAX 1e6
#define TUTTI_PER_BYTE_MAX 1e6
#define TUTTI_BANDWIDTH_MIN 1e-6

/* Times in seconds: a number from 0 to TUTTI_TIME_MAX with s, ms, us (or
 * µs), ns, ps; a bare number is seconds. "1us" gives exactly the double
 * nearest 1e-6. */
TUTTI_API int tutti_parse_time(const char *s, double *out, char *err, size_t errlen);

/* Bandwidth in bytes per second, >= TUTTI_BANDWIDTH_MIN: B/s kB/s MB/s GB/s
 * TB/s, KiB/s MiB/s GiB/s TiB/s, and bits: bps kbps Mbps Gbps Tbps (also
 * kb/s Mb/s Gb/s Tb/s; 8 bits a byte). A bare number is B/s. */
TUTTI_API int tutti_parse_bandwidth(const char *s, double *bytes_per_s, char *err, size_t errlen);

/* A per-byte cost (beta, G, gamma) in seconds per byte, from 0 to
 * TUTTI_PER_BYTE_MAX: a time per byte ("1ns", "1ns/B", bare: seconds), or
 * a bandwidth ("1GB/s" = 1ns/B, at least TUTTI_BANDWIDTH_MIN). */
TUTTI_API int tutti_parse_per_byte(const char *s, double *seconds_per_byte, char *err,
                                   size_t errlen);

/* Rank lists, as order=list: (coll.h) and mappings' list: (topo.h) both
 * read them: whole numbers and ranges a-b (running down when a > b)
 * separated by commas, spaces and tabs around each allowed: "0,2-5,9-7".
 * Writes the numbers in order to out[0..cap) (out may be NULL with cap 0)
 * and returns how many the list holds, counted past cap (so a range of
 * 2^30 costs nothing to count); -1 when s is not such a list or holds a
 * number above max (max at most 2^30), with *bad (may be NULL) the item
 * at fault, from 1. */
TUTTI_API long tutti_parse_rank_list(const char *s, long max, int *out, long cap, int *bad);

/* Formatting for people. Each writes a NUL-terminated string into buf
 * (truncated to n) and returns buf, or NULL if buf is NULL or n is 0.
 *   tutti_format_time(6e-6)       "6 us"   (s, ms, us, ns, ps; 6 digits)
 *   tutti_format_time(1.5e-3)     "1.5 ms"
 *   tutti_format_bytes(65536)     "64 KiB" (exact: "1000 B", "1.5 KiB")
 *   tutti_format_bandwidth(1e9)   "1 GB/s"
 * (model.h adds tutti_format_cost and tutti_format_model_time.) */
TUTTI_API char *tutti_format_time(double seconds, char *buf, size_t n);
TUTTI_API char *tutti_format_bytes(size_t bytes, char *buf, size_t n);
TUTTI_API char *tutti_format_bandwidth(double bytes_per_s, char *buf, size_t n);

/* The shortest decimal that reads back to x: an integer up to 2^53 in
 * magnitude as one ("%.0f": 10, 1000000, not 1e+01), else "%.Ng" for the
 * smallest N (1 to 17) with strtod(text) == x, e.g. 1e-06, 0.6,
 * 0.30000000000000004, 1e+300 (-0 stays "-0"); "nan", "inf" or "-inf" for those (JSON writers print
 * null instead). For machines (JSON, parameter texts that must read back
 * exactly), where tutti_format_time rounds to 6 digits for people. Writes a
 * NUL-terminated string into buf (32 bytes always suffice; a smaller buf
 * is truncated) and returns buf, or NULL if buf is NULL or n is 0. */
TUTTI_API char *tutti_format_shortest(double x, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_UNITS_H */
