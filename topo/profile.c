/*
 * profile.c -- latency profiles: INI files (and built-in INI text) that
 * name a cost model and, for the topology code, a tree of switches.
 *
 * The INI syntax is inih's, read by the strict reader of tutti/ini.h
 * (line numbers in every message; lines too long, keys outside a section
 * and indented continuation lines are errors, not silently accepted); this
 * file adds the rest of the strictness (unknown sections and keys, keys
 * or sections given twice) and the meaning of the keys.
 *
 * [model] pairs are collected and handed to tutti_model_from_pairs once
 * the file is read (preset may come after its parameters); the builder
 * tells which pair was at fault, and we put that pair's line in front of
 * its message. [topology] keys are checked for syntax as they come and
 * kept as text: their meaning belongs to topo/ (a mapping is checked by
 * the parser --mapping uses, so both accept the same texts).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errtext.h"
#include "tutti/ini.h"
#include "tutti/model.h"
#include "tutti/p2p.h"
#include "tutti/topo.h"

#define SECTIONS_ACCEPTED "[model], [topology]"
#define TOPO_KEYS_ACCEPTED "spec, file, links, mapping"
#define SPEC_ACCEPTED "tree:AxB[xC...] with whole numbers >= 1 (e.g. tree:4x8)"
#define LINKS_ACCEPTED                                                                             \
  "a comma list of LATENCY/BANDWIDTH, leaf links first (e.g. 1us/10Gbps, 2us/40Gbps)"
#define MAX_FILE (1 << 20)

enum { MAXPAIRS = 32, KEYLEN = 64, VALLEN = 256 };

struct pstate {
  tutti_ini_t ini; /* the reader, the line, the first error */
  tutti_profile_t *out;
  /* sections: the line of each header, 0 if absent */
  int model_line, topo_line;
  /* [model] pairs; past MAXPAIRS only a preset is kept, in the last slot */
  int nm;
  char mk[MAXPAIRS + 1][KEYLEN];
  char mv[MAXPAIRS + 1][VALLEN];
  int ml[MAXPAIRS + 1];
  int late_preset; /* the last slot holds the preset */
  int over_line;   /* the first key past MAXPAIRS, 0 if none */
  char over_key[KEYLEN];
  /* [topology]: the line of each key, 0 if absent */
  int tline[4];
};

static int is_space(char c) {
  return c == ' ' || c == '\t';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Copy src into a fixed buffer; returns -1 if it does not fit. */
static int copy(char *dst, size_t n, const char *src) {
  size_t l = strlen(src);
  if (l >= n) return -1;
  memcpy(dst, src, l + 1);
  return 0;
}

/* ----------------------------------------------------- raw lines */

/* The description: the first comment, before any other line. */
static void on_comment(tutti_ini_t *in, const char *text, size_t len) {
  struct pstate *st = in->user;
  if (in->seen_content || st->out->description[0] != '\0') return;
  size_t j = 0;
  while (j < len && (text[j] == ';' || text[j] == '#' || is_space(text[j]))) j++;
  size_t l = len - j;
  if (l >= sizeof st->out->description) l = sizeof st->out->description - 1;
  memcpy(st->out->description, text + j, l);
  st->out->description[l] = '\0';
}

/* Section headers, seen here even when the section is empty. */
static void on_header(tutti_ini_t *in, const char *name, size_t nl) {
  struct pstate *st = in->user;
  int *seen = NULL;
  if (nl == 5 && memcmp(name, "model", 5) == 0)
    seen = &st->model_line;
  else if (nl == 8 && memcmp(name, "topology", 8) == 0)
    seen = &st->topo_line;
  if (!seen) {
    tutti_ini_fail(in, in->line, "section [%.*s]: unknown; accepted: %s", (int)(nl > 64 ? 64 : nl),
                   name, SECTIONS_ACCEPTED);
    return;
  }
  if (*seen) {
    tutti_ini_fail(in, in->line,
                   "section [%.*s]: given twice (first on line %d); accepted: each section "
                   "once",
                   (int)nl, name, *seen);
    return;
  }
  *seen = in->line;
}

/* ------------------------------------------------------ [topology] checks */

/* A whole number in [lo, hi] at *p, advancing *p; -1 if none. */
static long long number(const char **p, long long lo, long long hi) {
  const char *q = *p;
  if (!is_digit(*q)) return -1;
  long long v = 0;
  while (is_digit(*q)) {
    if (v > (LLONG_MAX - 9) / 10) return -1;
    v = v * 10 + (*q++ - '0');
  }
  if (v < lo || v > hi) return -1;
  *p = q;
  return v;
}

static int check_spec(const char *v) {
  if (strncmp(v, "tree:", 5) != 0) return -1;
  const char *p = v + 5;
  long long product = 1;
  for (;;) {
    long long f = number(&p, 1, INT_MAX);
    if (f < 0) return -1;
    product *= f;
    if (product > INT_MAX) return -1;
    if (*p == '\0') return 0;
    if (*p++ != 'x') return -1;
  }
}

/* The library's own parser (tutti_topo_mapping_parse, the one --mapping
 * uses), so a profile accepts exactly what the command line does; its
 * message goes into msg. Leaves that do not exist are the binding's to
 * refuse, as for --mapping. */
static int check_mapping(const char *v, char *msg, size_t n) {
  if (v[0] == '\0') {
    snprintf(msg, n, "empty value; accepted: %s", TUTTI_TOPO_MAPPING_ACCEPTED);
    return -1;
  }
  tutti_topo_mapping_t m;
  int rc = tutti_topo_mapping_parse(v, &m, msg, n);
  if (!rc) tutti_topo_mapping_clear(&m);
  return rc;
}

/* Every LAT/BW of a comma list; on error a message in msg. */
static int check_links(const char *v, char *msg, size_t n) {
  char item[VALLEN], inner[512];
  const char *p = v;
  for (int i = 1;; i++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len >= sizeof item) len = sizeof item - 1;
    memcpy(item, p, len);
    item[len] = '\0';
    char *s = item;
    while (is_space(*s)) s++;
    char *slash = strchr(s, '/');
    if (!slash) {
      snprintf(msg, n, "link %d '%s' is not LATENCY/BANDWIDTH; accepted: %s", i, s, LINKS_ACCEPTED);
      return -1;
    }
    *slash = '\0';
    double lat, bw;
    if (tutti_parse_time(s, &lat, inner, sizeof inner)) {
      snprintf(msg, n, "link %d latency: %s", i, inner);
      return -1;
    }
    if (tutti_parse_bandwidth(slash + 1, &bw, inner, sizeof inner)) {
      snprintf(msg, n, "link %d bandwidth: %s", i, inner);
      return -1;
    }
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* ------------------------------------------------------------- the keys */

static int on_pair(tutti_ini_t *in, const char *section, const char *name, const char *value) {
  struct pstate *st = in->user;
  if (!strcmp(section, "model")) {
    if (strlen(name) >= KEYLEN) {
      tutti_ini_fail(in, in->line,
                     "key '%.40s...': unknown in [model] (too long); accepted: preset and "
                     "its parameters, send_cpu, send_port, latency, recv_port, recv_cpu, gamma, "
                     "eager_limit, header, rendezvous, detached_limit, sharing",
                     name);
      return 0;
    }
    for (int i = 0; i < st->nm; i++)
      if (!strcmp(st->mk[i], name)) {
        tutti_ini_fail(in, in->line,
                       "key '%s': given twice (first on line %d); accepted: each key once", name,
                       st->ml[i]);
        return 0;
      }
    if (strlen(value) >= VALLEN) {
      tutti_ini_fail(in, in->line, "key '%s': value too long (at most %d characters)", name,
                     VALLEN - 1);
      return 0;
    }
    int slot = st->nm;
    if (st->nm == MAXPAIRS) {
      /* More keys than a [model] has names (duplicates are refused), so
       * one of those kept is unknown: the builder will name the first.
       * Which keys are known depends on the preset, so a late one is kept. */
      if (!st->over_line) {
        st->over_line = in->line;
        copy(st->over_key, KEYLEN, name);
      }
      if (strcmp(name, "preset") != 0 || st->late_preset) return 1;
      st->late_preset = 1;
    } else
      st->nm++;
    copy(st->mk[slot], KEYLEN, name);
    copy(st->mv[slot], VALLEN, value);
    st->ml[slot] = in->line;
    return 1;
  }
  if (!strcmp(section, "topology")) {
    static const char *const tkeys[4] = {"spec", "file", "links", "mapping"};
    tutti_profile_t *o = st->out;
    char *dst[4] = {o->topo_spec, o->topo_file, o->topo_links, o->topo_mapping};
    size_t cap[4] = {sizeof o->topo_spec, sizeof o->topo_file, sizeof o->topo_links,
                     sizeof o->topo_mapping};
    int k = 0;
    while (k < 4 && strcmp(tkeys[k], name)) k++;
    if (k == 4) {
      tutti_ini_fail(in, in->line, "key '%s': unknown in [topology]; accepted: %s", name,
                     TOPO_KEYS_ACCEPTED);
      return 0;
    }
    if (st->tline[k]) {
      tutti_ini_fail(in, in->line,
                     "key '%s': given twice (first on line %d); accepted: each key once", name,
                     st->tline[k]);
      return 0;
    }
    if ((k == 0 && st->tline[1]) || (k == 1 && st->tline[0])) {
      tutti_ini_fail(in, in->line,
                     "key '%s': conflicts with '%s' (line %d); accepted: spec or file, "
                     "not both",
                     name, tkeys[1 - k], st->tline[1 - k]);
      return 0;
    }
    char msg[768];
    int bad = 0;
    switch (k) {
    case 0:
      if (check_spec(value)) {
        snprintf(msg, sizeof msg, "'%s' is not a tree spec; accepted: %s", value, SPEC_ACCEPTED);
        bad = 1;
      }
      break;
    case 1:
      if (value[0] == '\0') {
        snprintf(msg, sizeof msg, "empty value; accepted: the path of a topology file");
        bad = 1;
      }
      break;
    case 2:
      bad = check_links(value, msg, sizeof msg) != 0;
      break;
    case 3: {
      int rc = check_mapping(value, msg, sizeof msg);
      if (rc == TUTTI_ENOMEM) {
        tutti_ini_oom(in);
        return 0;
      }
      bad = rc != 0;
      break;
    }
    }
    if (!bad && copy(dst[k], cap[k], value)) {
      snprintf(msg, sizeof msg, "value too long (at most %zu characters)", cap[k] - 1);
      bad = 1;
    }
    if (bad) {
      tutti_ini_fail(in, in->line, "key '%s': %s", name, msg);
      return 0;
    }
    st->tline[k] = in->line;
    return 1;
  }
  /* an unknown section: inspect() has reported its header already */
  tutti_ini_fail(in, in->line, "key '%s': in unknown section [%s]; accepted: %s", name, section,
                 SECTIONS_ACCEPTED);
  return 0;
}

/* ----------------------------------------------------------------- parse */

/* "dir/gige.ini" -> "gige" */
static void base_name(const char *path, char *buf, size_t n) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  size_t len = strlen(b);
  if (len > 4 && !strcmp(b + len - 4, ".ini")) len -= 4;
  if (len >= n) len = n - 1;
  memcpy(buf, b, len);
  buf[len] = '\0';
}

int tutti_profile_parse_string(const char *text, const char *filename, tutti_profile_t *out,
                               char *err, size_t errlen) {
  if (!filename) filename = "<string>";
  if (!text || !out) {
    tutti__seterr(err, errlen, "%s: invalid arguments", filename);
    return TUTTI_EINVAL;
  }
  struct pstate *st = calloc(1, sizeof *st);
  tutti_profile_t *p = calloc(1, sizeof *p);
  if (!st || !p) {
    free(st);
    free(p);
    tutti__seterr(err, errlen, "%s: out of memory", filename);
    return TUTTI_ENOMEM;
  }
  st->ini = (tutti_ini_t){
      .filename = filename,
      .text = text,
      .sections = SECTIONS_ACCEPTED,
      .long_hint = "(a long mapping list belongs in a topology file)",
      .cont_hint = "",
      .on_comment = on_comment,
      .on_header = on_header,
      .on_pair = on_pair,
      .user = st,
  };
  st->out = p;
  int rc = tutti_ini_parse(&st->ini, err, errlen);
  if (rc) goto done;
  if (!st->model_line) {
    tutti__seterr(err, errlen,
                  "%s:%d: section [model]: missing; accepted: a [model] section with "
                  "preset = none, hockney, postal, logp, loggp or custom",
                  filename, 1);
    rc = TUTTI_EPARSE;
    goto done;
  }
  const char *ks[MAXPAIRS + 1], *vs[MAXPAIRS + 1];
  int n = st->nm + st->late_preset;
  for (int i = 0; i < n; i++) ks[i] = st->mk[i], vs[i] = st->mv[i];
  int bad = -1;
  char msg[1024];
  rc = tutti_model_from_pairs(ks, vs, n, &p->model, &bad, msg, sizeof msg);
  int line = rc && bad >= 0 ? st->ml[bad] : st->model_line;
  if (!rc && st->over_line) { /* not reached while MAXPAIRS exceeds the known keys */
    snprintf(msg, sizeof msg, "key '%s': too many keys in [model]; accepted: at most %d",
             st->over_key, MAXPAIRS);
    line = st->over_line;
    rc = TUTTI_EPARSE;
  }
  if (rc) {
    /* through the reader, which shows control bytes quoted from the file as \xNN */
    tutti_ini_fail(&st->ini, line, "%s", msg);
    tutti_ini_report(&st->ini, err, errlen);
    goto done;
  }
  base_name(filename, p->name, sizeof p->name);
  if (strcmp(filename, "<string>") != 0) snprintf(p->source, sizeof p->source, "file %s", filename);
  *out = *p;
done:
  free(st);
  free(p);
  return rc;
}

/* ------------------------------------------------------------------ load */

static void list_builtins(char *buf, size_t n) {
  size_t off = 0;
  buf[0] = '\0';
  const tutti_profile_info_t *b;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    int w = snprintf(buf + off, off < n ? n - off : 0, "%s%s", i ? ", " : "", b->name);
    if (w > 0) off += (size_t)w;
    if (off >= n) break;
  }
}

int tutti_profile_load(const char *name_or_path, tutti_profile_t *out, char *err, size_t errlen) {
  if (!name_or_path || !out) {
    tutti__seterr(err, errlen, "invalid arguments");
    return TUTTI_EINVAL;
  }
  const tutti_profile_info_t *b;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    if (strcmp(b->name, name_or_path) != 0) continue;
    char fname[TUTTI_PROFILE_NAME_MAX + 16];
    snprintf(fname, sizeof fname, "builtin:%s", b->name);
    tutti_profile_t p;
    int rc = tutti_profile_parse_string(b->ini, fname, &p, err, errlen);
    if (rc) return rc;
    snprintf(p.name, sizeof p.name, "%s", b->name);
    snprintf(p.description, sizeof p.description, "%s", b->description);
    snprintf(p.source, sizeof p.source, "%s", b->source);
    *out = p;
    return 0;
  }

  char names[512];
  FILE *f = fopen(name_or_path, "r");
  if (!f) {
    int e = errno;
    list_builtins(names, sizeof names);
    if (e == ENOENT || e == ENOTDIR) {
      tutti__seterr(err, errlen,
                    "profile '%s': not a built-in profile and no such file; accepted: a "
                    "profile file or one of %s",
                    name_or_path, names);
      return TUTTI_ENOTFOUND;
    }
    tutti__seterr(err, errlen, "profile '%s': cannot open: %s", name_or_path, strerror(e));
    return TUTTI_EIO;
  }
  char *text = malloc(MAX_FILE + 1);
  if (!text) {
    fclose(f);
    tutti__seterr(err, errlen, "profile '%s': out of memory", name_or_path);
    return TUTTI_ENOMEM;
  }
  size_t len = fread(text, 1, MAX_FILE + 1, f);
  int rerr = ferror(f) ? errno : 0;
  fclose(f);
  int rc = 0;
  if (rerr) {
    tutti__seterr(err, errlen, "profile '%s': cannot read: %s", name_or_path, strerror(rerr));
    rc = TUTTI_EIO;
  } else if (len > MAX_FILE) {
    tutti__seterr(err, errlen, "profile '%s': larger than %d bytes; accepted: a profile INI file",
                  name_or_path, MAX_FILE);
    rc = TUTTI_EPARSE;
  } else if (memchr(text, '\0', len)) {
    tutti__seterr(err, errlen, "profile '%s': contains a NUL byte; accepted: a text INI file",
                  name_or_path);
    rc = TUTTI_EPARSE;
  }
  if (rc) {
    free(text);
    return rc;
  }
  text[len] = '\0';
  tutti_profile_t p;
  rc = tutti_profile_parse_string(text, name_or_path, &p, err, errlen);
  free(text);
  if (rc) return rc;
  /* A relative topology file is relative to the profile's directory. */
  const char *slash = strrchr(name_or_path, '/');
  if (p.topo_file[0] && p.topo_file[0] != '/' && slash) {
    char tmp[TUTTI_PROFILE_PATH_MAX];
    int w = snprintf(tmp, sizeof tmp, "%.*s/%s", (int)(slash - name_or_path), name_or_path,
                     p.topo_file);
    if (w < 0 || (size_t)w >= sizeof tmp) {
      tutti__seterr(err, errlen, "profile '%s': key 'file': the path is too long", name_or_path);
      return TUTTI_EPARSE;
    }
    memcpy(p.topo_file, tmp, (size_t)w + 1);
  }
  *out = p;
  return 0;
}
