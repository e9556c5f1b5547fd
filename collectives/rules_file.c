/*
 * rules_file.c -- rules files (bench/CLI.md "Rules files"): the INI text
 * `tutti tune --rules-out` writes and `--rules` reads, parsed into a
 * tutti_rules_t (coll.h; collectives/rules.c keeps and looks them up).
 *
 *   ; comments
 *   plugin = /path/mine.so        a plugin whose algorithms the rules name
 *   [bcast]                       a collective (tutti list)
 *   ranks = 8                     the rules below apply from 8 ranks up
 *   0..1023 = binomial            bytes per rank lo..hi (inclusive) = ALGO
 *   1024.. = pipelined-chain:segments=auto     an open range
 *   ranks = 64
 *   ...
 *
 * The syntax is inih's, read by the strict reader of tutti/ini.h (line
 * numbers in every message); this file adds the meaning: sections are
 * collectives (each once), keys are `ranks` or a byte range, values are
 * algorithm specs as --algos takes them (the registry checks them).
 * Every error is "FILE:LINE: what; accepted: what".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "tutti/ini.h"
#include "tutti/coll.h"
#include "tutti/plugin.h"
#include "tutti/units.h"

#define MAX_FILE (1 << 20)
#define RANGE_ACCEPTED                                                                             \
  "ranks = N (N >= 1), or a byte range LO..HI or LO.. (sizes: 1024, 64KiB) = ALGO[:K=V,...]"

struct rstate {
  tutti_ini_t ini;
  tutti_rules_t *rules;
  int coll;               /* of the current section; -1 before any */
  int ranks;              /* the current `ranks =`, 0 before one */
  int seen[TUTTI_COLL_N]; /* the line of each collective's section */
  char names[256];        /* the collectives, for messages */
};

static void on_header(tutti_ini_t *in, const char *name, size_t nl) {
  struct rstate *st = in->user;
  char buf[64];
  snprintf(buf, sizeof buf, "%.*s", (int)(nl < 63 ? nl : 63), name);
  int coll;
  st->ranks = 0;
  if (nl >= sizeof buf || tutti_coll_find(buf, &coll)) {
    tutti_ini_fail(in, in->line, "section [%s]: unknown collective; accepted: %s", buf, st->names);
    return;
  }
  if (st->seen[coll]) {
    tutti_ini_fail(in, in->line,
                   "section [%s]: given twice (first on line %d); accepted: each collective once",
                   buf, st->seen[coll]);
    return;
  }
  st->seen[coll] = in->line;
  st->coll = coll;
}

/* A size at s up to `end` (exclusive) into *out: 0, or -1 with err. */
static int size_of(const char *s, size_t n, size_t *out, char *err, size_t errlen) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return snprintf(err, errlen, "an empty or long size"), -1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return tutti_parse_size(buf, out, err, errlen) ? -1 : 0;
}

static int on_pair(tutti_ini_t *in, const char *section, const char *name, const char *value) {
  struct rstate *st = in->user;
  (void)section; /* on_header checked it and set st->coll */
  char err[1024] = "";
  if (!strcmp(name, "plugin")) { /* the algorithms a plugin file registers, as --plugin */
    if (st->coll >= 0) {
      tutti_ini_fail(in, in->line,
                     "plugin = %s: inside [%s]; accepted: plugin = FILE before "
                     "the first section",
                     value, tutti_coll_name(st->coll));
      return 0;
    }
    int rc = tutti_plugin_load(value, err, sizeof err);
    if (rc == TUTTI_ENOMEM)
      tutti_ini_oom(in);
    else if (rc)
      tutti_ini_fail(in, in->line, "plugin = %s: %s", value, err);
    return !rc;
  }
  if (!strcmp(name, "ranks")) {
    char *end;
    errno = 0;
    long r = strtol(value, &end, 10);
    if (end == value || *end || errno || r < 1 || r > INT32_MAX) {
      tutti_ini_fail(in, in->line, "ranks = '%s': not a rank count; accepted: an integer >= 1",
                     value);
      return 0;
    }
    st->ranks = (int)r;
    return 1;
  }
  const char *dots = strstr(name, "..");
  size_t lo, hi = TUTTI_RULES_NO_LIMIT;
  if (!dots) {
    tutti_ini_fail(in, in->line, "key '%s': unknown; accepted: %s", name, RANGE_ACCEPTED);
    return 0;
  }
  if (size_of(name, (size_t)(dots - name), &lo, err, sizeof err) ||
      (dots[2] && size_of(dots + 2, strlen(dots + 2), &hi, err, sizeof err))) {
    tutti_ini_fail(in, in->line, "range '%s': %s; accepted: %s", name, err, RANGE_ACCEPTED);
    return 0;
  }
  if (lo > hi) {
    tutti_ini_fail(in, in->line, "range '%s': its low end is above its high end; accepted: %s",
                   name, RANGE_ACCEPTED);
    return 0;
  }
  if (!st->ranks) {
    tutti_ini_fail(in, in->line,
                   "range '%s': before any 'ranks = N' of [%s]; accepted: ranks = N first", name,
                   tutti_coll_name(st->coll));
    return 0;
  }
  const tutti_algo_t *a;
  int rc = tutti_algo_select(st->coll, value, NULL, &a, err, sizeof err);
  if (rc == TUTTI_ENOMEM) {
    tutti_ini_oom(in);
    return 0;
  }
  if (rc) {
    tutti_ini_fail(in, in->line, "range '%s': %s", name, err);
    return 0;
  }
  if (tutti_algo_is_auto(tutti_algo_desc(a))) {
    tutti_ini_fail(in, in->line,
                   "range '%s': auto chooses by the rules, it cannot be one; accepted: another "
                   "algorithm of %s (tutti list %s)",
                   name, tutti_coll_name(st->coll), tutti_coll_name(st->coll));
    return 0;
  }
  rc = tutti_rules_add(st->rules, st->coll, st->ranks, lo, hi, a, in->line, err, sizeof err);
  if (rc == TUTTI_ENOMEM) {
    tutti_ini_oom(in);
    return 0;
  }
  if (rc) {
    tutti_ini_fail(in, in->line, "range '%s': %s; accepted: ranges that do not overlap", name, err);
    return 0;
  }
  return 1;
}

int tutti_rules_parse_string(const char *text, const char *filename, tutti_rules_t **out, char *err,
                             size_t errlen) {
  if (!text || !out) return TUTTI_EINVAL;
  if (!filename) filename = "rules";
  struct rstate *st = calloc(1, sizeof *st);
  if (!st || tutti_rules_create(&st->rules, filename)) {
    free(st);
    tutti__errf(err, errlen, "%s: out of memory", filename);
    return TUTTI_ENOMEM;
  }
  size_t used = 0;
  for (int c = 0; c < TUTTI_COLL_N && used < sizeof st->names; c++)
    used += (size_t)snprintf(st->names + used, sizeof st->names - used, "%s[%s]", c ? ", " : "",
                             tutti_coll_name(c));
  st->coll = -1;
  st->ini = (tutti_ini_t){
      .filename = filename,
      .text = text,
      .sections = st->names,
      .long_hint = "",
      .cont_hint = "",
      .on_header = on_header,
      .on_pair = on_pair,
      .global_key = "plugin",
      .user = st,
  };
  int rc = tutti_ini_parse(&st->ini, err, errlen);
  if (rc)
    tutti_rules_free(st->rules);
  else
    *out = st->rules;
  free(st);
  return rc;
}

int tutti_rules_load(const char *path, tutti_rules_t **out, char *err, size_t errlen) {
  if (!path || !out) return TUTTI_EINVAL;
  FILE *f = fopen(path, "r");
  if (!f) {
    tutti__errf(err, errlen, "%s: cannot open: %s; accepted: a readable rules file", path,
                strerror(errno));
    return TUTTI_EIO;
  }
  char *text = malloc(MAX_FILE + 1);
  size_t len = text ? fread(text, 1, MAX_FILE + 1, f) : 0;
  int rerr = ferror(f) ? errno : 0;
  fclose(f);
  int rc = 0;
  if (!text)
    tutti__errf(err, errlen, "%s: out of memory", path), rc = TUTTI_ENOMEM;
  else if (rerr)
    tutti__errf(err, errlen, "%s: cannot read: %s; accepted: a readable rules file", path,
                strerror(rerr)),
        rc = TUTTI_EIO;
  else if (len > MAX_FILE)
    tutti__errf(err, errlen, "%s: larger than %d bytes; accepted: a rules INI file", path,
                MAX_FILE),
        rc = TUTTI_EPARSE;
  else if (memchr(text, '\0', len))
    tutti__errf(err, errlen, "%s: contains a NUL byte; accepted: a text INI file", path),
        rc = TUTTI_EPARSE;
  if (!rc) {
    text[len] = '\0';
    rc = tutti_rules_parse_string(text, path, out, err, errlen);
  }
  free(text);
  return rc;
}
