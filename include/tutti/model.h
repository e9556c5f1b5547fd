/*
 * model.h -- cost models and latency profiles (units are units.h's): the public API that
 * turns "64KiB", "hockney:alpha=1us,beta=1ns" or a profile INI file into a
 * tutti_model_t (runtime/MODEL.md), and prints models and times back for people
 * (tutti_format_*, tutti_model_describe) and scripts (tutti_model_json).
 *
 * tutti.h includes this header; it may also be included on its
 * own. Every function here is pure (no global state, nothing allocated that
 * the caller must free) and may be called from any thread at any time.
 *
 * Errors: functions that parse return 0 or TUTTI_EPARSE / TUTTI_EINVAL /
 * TUTTI_ENOTFOUND / TUTTI_EIO and, when err is not NULL, write a one-line
 * message (no trailing newline, truncated to errlen) that names what was
 * wrong and what is accepted, e.g.
 *   key 'alpha': '1xs' is not a time; accepted: a number with s, ms, us, ns or ps (bare: seconds)
 *   prof.ini:3: key 'bogus': unknown key in [model]; accepted: preset, alpha, ...
 * On failure the output arguments are left unchanged.
 */
#ifndef TUTTI_MODEL_H
#define TUTTI_MODEL_H

#include <stdio.h>

#include "tutti/export.h"
#include "tutti/p2p.h"
#include "tutti/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ cost texts */

/* Cost expressions, c(m) = max(floor, a + b*m): "A", "A + B*m", "B*m",
 * "max(F, A + B*m)" (also "max(F, A)", "max(F, B*m)"); A and F are times
 * (at most TUTTI_TIME_MAX), B a per-byte cost (tutti_parse_per_byte, at
 * most TUTTI_PER_BYTE_MAX). With steps != 0 (the postal
 * model's unit steps) every value must be a plain number. */
TUTTI_API int tutti_parse_cost(const char *s, int steps, tutti_cost_t *out, char *err,
                               size_t errlen);

/* Formatting costs and model times for people (as units.h's formatters:
 * into buf, truncated to n; buf returned, or NULL if buf is NULL or n 0).
 *   tutti_format_cost(c, steps)   "max(2 us, 1 us + 1 ns*m)", or with
 *                                 steps "max(2, 1 + 0.5*m)"
 *   tutti_format_model_time(m, t) postal models: steps printed plainly
 *                                 ("5"); others as tutti_format_time. */
TUTTI_API char *tutti_format_cost(const tutti_cost_t *c, int steps, char *buf, size_t n);
TUTTI_API char *tutti_format_model_time(const tutti_model_t *m, double t, char *buf, size_t n);

/* ------------------------------------------------------------ cost models */

/* Preset constructors, exactly runtime/MODEL.md's table; every other field is
 * reset (gamma 0, header 0, rendezvous ready, detached_limit 0, topo
 * NULL). Times are seconds (postal: steps), per-byte costs seconds per
 * byte. Return 0, or TUTTI_EINVAL for a NULL model or a
 * parameter outside units.h's ranges: a time (alpha, L, o, g) outside
 * [0, TUTTI_TIME_MAX], a per-byte cost (beta, G) outside
 * [0, TUTTI_PER_BYTE_MAX], NaN (postal: L < 1). The parsers below refuse
 * the same values with a message, so a model that parses has finite costs
 * for every message size.
 *   none:    every cost 0, eager_limit 64 KiB (native runs need a real
 *            eager threshold)
 *   hockney: O_s = S = L = R = alpha + beta*m, O_r = 0, eager_limit 0
 *            (every message rendezvous)
 *   postal:  O_s = S = R = 1, L, O_r = 0, every message eager
 *   logp:    O_s = o, S = max(g, o), L = o + L, R = g, O_r = o, all eager
 *   loggp:   O_s = o, S = max(g, o + G*m), L = o + G*m + L,
 *            R = max(g, G*m), O_r = o, all eager
 * (logp is loggp with G = 0, field for field.) */
TUTTI_API int tutti_model_none(tutti_model_t *m);
TUTTI_API int tutti_model_hockney(tutti_model_t *m, double alpha, double beta);
TUTTI_API int tutti_model_postal(tutti_model_t *m, double L);
TUTTI_API int tutti_model_logp(tutti_model_t *m, double L, double o, double g);
TUTTI_API int tutti_model_loggp(tutti_model_t *m, double L, double o, double g, double G);

/* "none", "hockney", "postal", "logp", "loggp", "custom"; "unknown" for
 * anything else (never NULL). */
TUTTI_API const char *tutti_model_preset_name(int preset);
/* 1 if the model's times are postal steps, else 0 (also for NULL). */
TUTTI_API int tutti_model_steps(const tutti_model_t *m);
/* "steps" for postal models, "s" otherwise. */
TUTTI_API const char *tutti_model_time_unit(const tutti_model_t *m);

/* Parse a model spec, as the CLI's --model takes it:
 *   none | hockney:alpha=T,beta=T/B (or bandwidth=BW instead of beta)
 *   | postal:L=N | logp:L=T,o=T,g=T | loggp:L=T,o=T,g=T,G=T/B
 *   | custom[:...] (every cost 0 and all eager unless given)
 * followed, in the same list, by overrides of any runtime/MODEL.md field:
 *   send_cpu, send_port, latency, recv_port, recv_cpu = a cost expression
 *   (tutti_parse_cost), gamma = T/B, eager_limit = SIZE or "all",
 *   header = SIZE with its unit ("16B"; 0 may go without), rendezvous =
 *   ready | handshake, detached_limit = SIZE with its unit (0, or above
 *   a finite eager_limit: runtime/MODEL.md rule 4).
 *   sharing = fifo or fair (runtime/MODEL.md "Sharing").
 * e.g. "hockney:alpha=1us,beta=1ns,send_cpu=max(1us, 0.5us+0.1ns*m)".
 * A comma inside parentheses does not split. Returns 0 or TUTTI_EPARSE
 * (unknown preset or key, missing parameter, bad value, key given twice,
 * beta and bandwidth both given); the message names the key. */
TUTTI_API int tutti_model_parse(const char *spec, tutti_model_t *out, char *err, size_t errlen);

/* The builder under tutti_model_parse and profile files: a model from n
 * key = value pairs, one of which must be "preset". Keys are
 * case-sensitive (g and G differ). On failure *bad (if not NULL) is the
 * index of the pair at fault -- for a missing parameter, the "preset"
 * pair; -1 when "preset" itself is missing -- and the message starts with
 * "key 'K': ". Returns 0 or TUTTI_EPARSE (TUTTI_EINVAL for NULL arrays). */
TUTTI_API int tutti_model_from_pairs(const char *const *keys, const char *const *values, int n,
                                     tutti_model_t *out, int *bad, char *err, size_t errlen);

/* One line for people, e.g.
 *   "hockney alpha=1 us beta=1 ns/B (1 GB/s), eager_limit 0 (all rendezvous)"
 *   "postal L=2 steps, all eager; send_cpu=2"
 *   "..., eager_limit 0 (all rendezvous), header 16 B, rendezvous
 *    handshake, detached_limit 64 KiB" (each only when not its default)
 * Fields that differ from the preset's own values are listed after ';';
 * fair sharing adds ", sharing fair" before them (fifo says nothing).
 * Returns 0, or TUTTI_EINVAL for NULL arguments (buf is truncated to n). */
TUTTI_API int tutti_model_describe(const tutti_model_t *m, char *buf, size_t n);

/* Write the model as one JSON object (no newline). Field names are stable:
 *   {"preset":"hockney","time_unit":"s","alpha":1e-06,"beta":1e-09,
 *    "send_cpu":{"floor":0,"a":1e-06,"b":1e-09},"send_port":{...},
 *    "latency":{...},"recv_port":{...},"recv_cpu":{...},
 *    "gamma":0,"eager_limit":0,"header":0,"rendezvous":"ready",
 *    "detached_limit":0}
 * Preset parameters by preset: hockney alpha, beta; postal L; logp L, o,
 * g; loggp L, o, g, G (none and custom: none). "eager_limit" is null when
 * every message is eager (TUTTI_EAGER_ALL). "sharing":"fair" follows it
 * under fair sharing (absent: fifo, the default). Numbers are the shortest text
 * that reads back to the same double. Returns 0, TUTTI_EINVAL, or
 * TUTTI_EIO if the stream reports an error. */
TUTTI_API int tutti_model_json(const tutti_model_t *m, FILE *f);

/* ---------------------------------------------------------------- profiles */

#define TUTTI_PROFILE_NAME_MAX 64
#define TUTTI_PROFILE_TEXT_MAX 512
#define TUTTI_PROFILE_PATH_MAX 4096

/* A latency profile: a model plus the [topology] keys, validated for
 * syntax only and kept as text for the topology code to interpret. */
typedef struct tutti_profile {
  char name[TUTTI_PROFILE_NAME_MAX];        /* built-in name, or file name without .ini */
  char description[TUTTI_PROFILE_TEXT_MAX]; /* one line: the first comment of a file */
  char source[TUTTI_PROFILE_TEXT_MAX];      /* where the numbers come from: a citation,
                                               or "file PATH" */
  tutti_model_t model;                      /* topo is NULL: see topo_* */
  /* [topology]; "" when absent */
  char topo_spec[TUTTI_PROFILE_TEXT_MAX];    /* tree:AxB[xC...] */
  char topo_file[TUTTI_PROFILE_PATH_MAX];    /* loaded from a file: relative paths are
                                                made relative to the profile's directory */
  char topo_links[TUTTI_PROFILE_TEXT_MAX];   /* LAT/BW, LAT/BW, ... leaf links first */
  char topo_mapping[TUTTI_PROFILE_TEXT_MAX]; /* identity|dfs|roundrobin[:N]|random:SEED|list:a,b,...
                                              */
} tutti_profile_t;

/* A built-in profile: the INI text is parsed by the same code as files. */
typedef struct tutti_profile_info {
  const char *name;        /* "teaching-hockney" */
  const char *description; /* one line */
  const char *source;      /* the citation for its numbers */
  const char *ini;         /* the profile, as INI text */
} tutti_profile_info_t;

/* The i-th built-in profile (i >= 0), NULL past the end. The first is the
 * default, teaching-hockney. */
TUTTI_API const tutti_profile_info_t *tutti_profile_builtin(int i);

/* Parse profile INI text. filename is used in messages ("FILE:LINE: ...")
 * and for the name; NULL means "<string>". Sections [model] (preset and
 * runtime/MODEL.md fields, as tutti_model_from_pairs) and [topology] (spec, file,
 * links, mapping). Every key is optional but preset. Unknown sections or
 * keys, bad values, missing preset parameters, a key or section given
 * twice, a line too long: TUTTI_EPARSE with
 *   FILE:LINE: key 'K': <what is wrong>; accepted: <...> */
TUTTI_API int tutti_profile_parse_string(const char *text, const char *filename,
                                         tutti_profile_t *out, char *err, size_t errlen);

/* Load a built-in profile by name, or else a profile file by path.
 * Returns 0, TUTTI_ENOTFOUND (neither a built-in nor an existing file; the
 * message lists the built-ins), TUTTI_EIO (unreadable), TUTTI_EPARSE. */
TUTTI_API int tutti_profile_load(const char *name_or_path, tutti_profile_t *out, char *err,
                                 size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_MODEL_H */
