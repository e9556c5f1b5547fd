/*
 * description.c -- a topology from its INI description (topo/README.md):
 * [topology], [switch NAME] and [host NAME] sections, read by the strict
 * reader of tutti/ini.h, so every message is "FILE:LINE: what; accepted:
 * what". Sections and keys fill the builder of build.h as they come;
 * names are resolved and the tree is checked once the whole file is read
 * (children may be defined after their parent): description_check.c,
 * apart so that reading and checking each read on their own, sharing the
 * state of description.h. tutti_topo_load reads a file for the parse.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "description.h"
#include "errtext.h"
#include "tutti/ini.h"
#include "topo_impl.h"

#define PAIR_ACCEPTED "LAT/BW (both directions) or LAT/BW, LAT/BW (up, then down), e.g. 1us/10Gbps"
#define SECTIONS_ACCEPTED "[topology], [switch NAME], [host NAME]"
#define SWITCH_KEYS "children, leaves, uplink, leaf_links, leaf_link.N"
#define HOST_KEYS "leaves, uplink, leaf_links, leaf_link.N"
#define NAME_ACCEPTED "letters, digits and _ . : + -, at most 63 characters"
#define MAX_FILE (64 << 20)

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

int tutti__desc_name_find(const struct istate *st, const char *name) {
  if (!st->hcap) return -1;
  for (uint32_t i = name_hash(name) & (uint32_t)(st->hcap - 1);;
       i = (i + 1) & (uint32_t)(st->hcap - 1)) {
    int s = st->hash[i];
    if (s < 0) return -1;
    if (!strcmp(st->b->sw[s].name, name)) return s;
  }
}

static int name_insert(struct istate *st, int s) {
  if (2 * (st->nsw + 1) > st->hcap) {
    int cap = st->hcap ? 2 * st->hcap : 64;
    int *h = malloc((size_t)cap * sizeof *h);
    if (!h) return TUTTI_ENOMEM;
    for (int i = 0; i < cap; i++) h[i] = -1;
    int *old = st->hash;
    int oldcap = st->hcap;
    st->hash = h;
    st->hcap = cap;
    for (int i = 0; i < oldcap; i++)
      if (old[i] >= 0) {
        uint32_t j = name_hash(st->b->sw[old[i]].name) & (uint32_t)(cap - 1);
        while (h[j] >= 0) j = (j + 1) & (uint32_t)(cap - 1);
        h[j] = old[i];
      }
    free(old);
  }
  uint32_t j = name_hash(st->b->sw[s].name) & (uint32_t)(st->hcap - 1);
  while (st->hash[j] >= 0) j = (j + 1) & (uint32_t)(st->hcap - 1);
  st->hash[j] = s;
  return 0;
}

/* A section header (the text between [ and ]). */
static void on_header(tutti_ini_t *in, const char *h, size_t len) {
  struct istate *st = in->user;
  char buf[256];
  tutti__trim_copy(buf, sizeof buf, h, len);
  st->cur = -1;
  if (!strcmp(buf, "topology")) {
    if (st->topo_line) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "section [topology]: given twice (first on line %d); accepted: each "
                     "section once",
                     st->topo_line);
      return;
    }
    st->topo_line = st->ini.line;
    st->cur = -2;
    return;
  }
  size_t w = 0;
  while (buf[w] && !is_space(buf[w])) w++;
  int kind;
  if (w == 6 && !memcmp(buf, "switch", 6))
    kind = TUTTI__SW_SWITCH;
  else if (w == 4 && !memcmp(buf, "host", 4))
    kind = TUTTI__SW_HOST;
  else {
    tutti_ini_fail(&st->ini, st->ini.line, "section [%s]: unknown; accepted: %s", buf,
                   SECTIONS_ACCEPTED);
    return;
  }
  const char *what = kind == TUTTI__SW_HOST ? "host" : "switch";
  const char *name = buf + w;
  while (is_space(*name)) name++;
  size_t nl = strlen(name);
  if (nl == 0) {
    tutti_ini_fail(&st->ini, st->ini.line,
                   "section [%s]: no name; accepted: [%s NAME] with a name of %s", buf, what,
                   NAME_ACCEPTED);
    return;
  }
  for (size_t i = 0; i < nl; i++)
    if (!tutti__is_name_char(name[i]) || nl >= TUTTI_TOPO_NAME_MAX) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "section [%s]: '%s' is not a name; accepted: [%s NAME] with a name of "
                     "%s",
                     buf, name, what, NAME_ACCEPTED);
      return;
    }
  int dup = tutti__desc_name_find(st, name);
  if (dup >= 0) {
    tutti_ini_fail(&st->ini, st->ini.line,
                   "section [%s]: '%s' given twice (first on line %d); accepted: each name "
                   "once",
                   buf, name, st->sw[dup].line);
    return;
  }
  int s = tutti__build_switch(st->b, name, kind);
  if (s < 0 || tutti__grow((void **)&st->sw, &st->capsw, st->nsw + 1, sizeof *st->sw)) {
    tutti_ini_oom(&st->ini);
    return;
  }
  struct isw *is = &st->sw[s];
  memset(is, 0, sizeof *is);
  is->line = st->ini.line;
  is->kind = kind;
  is->parent = -1;
  st->nsw = s + 1;
  if (name_insert(st, s)) {
    tutti_ini_oom(&st->ini);
    return;
  }
  st->cur = s;
}

/* Record leaf l under switch s at the current line. */
static int leaf_add(struct istate *st, int s, long long l) {
  if (l >= st->leafcap) {
    int cap = st->leafcap ? st->leafcap : 64;
    while (cap <= l) cap *= 2;
    int *o = realloc(st->leaf_owner, (size_t)cap * sizeof *o);
    if (o) st->leaf_owner = o;
    int *ln = realloc(st->leaf_line, (size_t)cap * sizeof *ln);
    if (ln) st->leaf_line = ln;
    if (!o || !ln) {
      tutti_ini_oom(&st->ini);
      return -1;
    }
    for (int i = st->leafcap; i < cap; i++) st->leaf_owner[i] = -1;
    st->leafcap = cap;
  }
  if (st->leaf_owner[l] >= 0) {
    tutti_ini_fail(&st->ini, st->ini.line,
                   "key 'leaves': leaf %lld listed twice (first on line %d, under '%s'); "
                   "accepted: each leaf under one switch, once",
                   l, st->leaf_line[l], st->b->sw[st->leaf_owner[l]].name);
    return -1;
  }
  st->leaf_owner[l] = s;
  st->leaf_line[l] = st->ini.line;
  if (l > st->maxleaf) {
    st->maxleaf = (int)l;
    st->maxleaf_line = st->ini.line;
  }
  struct isw *is = &st->sw[s];
  if (tutti__grow((void **)&is->lv, &is->caplv, is->nlv + 1, sizeof *is->lv)) {
    tutti_ini_oom(&st->ini);
    return -1;
  }
  is->lv[is->nlv++] = (int)l;
  return 0;
}

/* children or leaves: a comma list; a trailing comma is allowed (the list
 * goes on on the next line). */
static int list_key(struct istate *st, int s, int leaves, const char *value) {
  const char *key = leaves ? "leaves" : "children";
  const char *accepted = leaves ? "leaf numbers N or ranges A-B, e.g. 0-7, 16, 18"
                                : "switch or host names, e.g. s0, s1";
  const char *p = value;
  char item[256];
  for (int i = 1;; i++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    tutti__trim_copy(item, sizeof item, p, len);
    if (item[0] == '\0') {
      if (!comma && i > 1) return 0; /* trailing comma */
      tutti_ini_fail(&st->ini, st->ini.line, "key '%s': item %d is empty; accepted: %s", key, i,
                     accepted);
      return -1;
    }
    if (leaves) {
      const char *q = item;
      long long a = tutti__whole(&q, TUTTI_TOPO_MAX_LEAVES - 1), z = a;
      if (a >= 0 && *q == '-') {
        q++;
        z = tutti__whole(&q, TUTTI_TOPO_MAX_LEAVES - 1);
      }
      if (a < 0 || z < 0 || *q != '\0' || z < a) {
        tutti_ini_fail(&st->ini, st->ini.line,
                       "key 'leaves': '%s' is not a leaf number or range; accepted: %s "
                       "(leaves below %d)",
                       item, accepted, TUTTI_TOPO_MAX_LEAVES);
        return -1;
      }
      for (long long l = a; l <= z; l++)
        if (leaf_add(st, s, l)) return -1;
    } else {
      size_t nl = strlen(item);
      for (size_t j = 0; j < nl; j++)
        if (!tutti__is_name_char(item[j]) || nl >= TUTTI_TOPO_NAME_MAX) {
          tutti_ini_fail(&st->ini, st->ini.line,
                         "key 'children': '%s' is not a name; accepted: %s (%s)", item, accepted,
                         NAME_ACCEPTED);
          return -1;
        }
      struct isw *is = &st->sw[s];
      if (tutti__grow((void **)&is->ch, &is->capch, is->nch + 1, sizeof *is->ch)) {
        tutti_ini_oom(&st->ini);
        return -1;
      }
      memcpy(is->ch[is->nch].name, item, nl + 1);
      is->ch[is->nch++].line = st->ini.line;
    }
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* "LAT/BW" or "LAT/BW, LAT/BW" -> parameter indices (up, down). */
static int pair_value(struct istate *st, const char *key, const char *value, int p[2]) {
  char a[256], msg[768];
  const char *comma = strchr(value, ',');
  tutti_topo_link_t l[2];
  for (int d = 0; d < 2; d++) {
    const char *s = d ? comma + 1 : value;
    size_t len = d || !comma ? strlen(s) : (size_t)(comma - value);
    tutti__trim_copy(a, sizeof a, s, len);
    if (tutti__topo_parse_link(a, &l[d], msg, sizeof msg)) {
      tutti_ini_fail(&st->ini, st->ini.line, "key '%s': %s%s; accepted: %s", key,
                     comma ? (d ? "down: " : "up: ") : "", msg, PAIR_ACCEPTED);
      return -1;
    }
    if (!comma) {
      l[1] = l[0];
      break;
    }
    if (d == 1 && strchr(comma + 1, ',')) {
      tutti_ini_fail(&st->ini, st->ini.line, "key '%s': more than two links; accepted: %s", key,
                     PAIR_ACCEPTED);
      return -1;
    }
  }
  for (int d = 0; d < 2; d++) {
    p[d] = tutti__build_param(st->b, l[d]);
    if (p[d] < 0) {
      tutti_ini_oom(&st->ini);
      return -1;
    }
  }
  return 0;
}

/* children and leaves may go on on indented lines */
static int is_list(const char *name) {
  return !strcmp(name, "children") || !strcmp(name, "leaves");
}

static int on_pair(tutti_ini_t *in, const char *section, const char *name, const char *value) {
  struct istate *st = in->user;
  if (st->cur == -1) {
    tutti_ini_fail(&st->ini, st->ini.line, "key '%s': outside any section; accepted: keys under %s",
                   name, SECTIONS_ACCEPTED);
    return 0;
  }
  if (st->cur == -2) {
    if (strcmp(name, "links")) {
      tutti_ini_fail(&st->ini, st->ini.line, "key '%s': unknown in [topology]; accepted: links",
                     name);
      return 0;
    }
    if (st->links_line) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "key 'links': given twice (first on line %d); accepted: each key once",
                     st->links_line);
      return 0;
    }
    st->links_line = st->ini.line;
    char msg[768];
    struct build scratch;
    struct build *b = st->b;
    if (st->links_given) { /* check it, then drop it */
      if (tutti__build_init(&scratch)) {
        tutti_ini_oom(&st->ini);
        return 0;
      }
      b = &scratch;
    }
    int rc = tutti__build_levels(b, value, msg, sizeof msg);
    if (st->links_given) tutti__build_free(&scratch);
    if (rc) {
      tutti_ini_fail(&st->ini, st->ini.line, "key 'links': %s", msg);
      return 0;
    }
    return 1;
  }
  int s = st->cur;
  struct isw *is = &st->sw[s];
  struct bsw *bs = &st->b->sw[s];
  const char *keys = is->kind == TUTTI__SW_HOST ? HOST_KEYS : SWITCH_KEYS;
  if (!strcmp(name, "children")) {
    if (is->kind == TUTTI__SW_HOST) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "key 'children': a host holds cores as leaves, not switches; accepted: "
                     "%s (or make '%s' a [switch])",
                     HOST_KEYS, bs->name);
      return 0;
    }
    return list_key(st, s, 0, value) == 0;
  }
  if (!strcmp(name, "leaves")) return list_key(st, s, 1, value) == 0;
  if (!strcmp(name, "uplink") || !strcmp(name, "leaf_links")) {
    int up = name[0] == 'u';
    int *line = up ? &is->up_line : &is->lf_line;
    if (*line) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "key '%s': given twice (first on line %d); accepted: each key once", name,
                     *line);
      return 0;
    }
    *line = st->ini.line;
    return pair_value(st, name, value, up ? bs->up : bs->leaf) == 0;
  }
  if (!strncmp(name, "leaf_link.", 10)) {
    const char *q = name + 10;
    long long l = tutti__whole(&q, TUTTI_TOPO_MAX_LEAVES - 1);
    if (l < 0 || *q) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "key '%s': '%s' is not a leaf number; accepted: leaf_link.N with N a "
                     "leaf of this section",
                     name, name + 10);
      return 0;
    }
    /* a section's keys are contiguous (no section twice), so the last
     * leaf_link.N seen for leaf l is this section's if any is */
    if (l >= st->ovcap) {
      int cap = st->ovcap ? st->ovcap : 64;
      while (cap <= l) cap *= 2;
      int *a = realloc(st->ov_sec, (size_t)cap * sizeof *a);
      if (a) st->ov_sec = a;
      int *ln = realloc(st->ov_line, (size_t)cap * sizeof *ln);
      if (ln) st->ov_line = ln;
      if (!a || !ln) {
        tutti_ini_oom(&st->ini);
        return 0;
      }
      memset(st->ov_sec + st->ovcap, 0, (size_t)(cap - st->ovcap) * sizeof *a);
      st->ovcap = cap;
    }
    if (st->ov_sec[l] == s + 1) {
      tutti_ini_fail(&st->ini, st->ini.line,
                     "key '%s': given twice (first on line %d); accepted: each key once", name,
                     st->ov_line[l]);
      return 0;
    }
    st->ov_sec[l] = s + 1;
    st->ov_line[l] = st->ini.line;
    struct build *b = st->b;
    if (tutti__grow((void **)&is->ov, &is->capov, is->nov + 1, sizeof *is->ov) ||
        tutti__grow((void **)&b->ov, &b->capov, b->nov + 1, sizeof *b->ov)) {
      tutti_ini_oom(&st->ini);
      return 0;
    }
    int p[2];
    if (pair_value(st, name, value, p)) return 0;
    is->ov[is->nov].leaf = (int)l;
    is->ov[is->nov++].line = st->ini.line;
    b->ov[b->nov].leaf = (int)l;
    b->ov[b->nov].p[0] = p[0];
    b->ov[b->nov++].p[1] = p[1];
    return 1;
  }
  tutti_ini_fail(&st->ini, st->ini.line, "key '%s': unknown in [%s %s]; accepted: %s", name,
                 is->kind == TUTTI__SW_HOST ? "host" : "switch", bs->name, keys);
  return 0;
}

int tutti_topo_parse_ini(const char *text, const char *filename, const char *links,
                         tutti_topo_t **out, char *err, size_t errlen) {
  if (!filename) filename = "<string>";
  if (!text || !out) {
    tutti__seterr(err, errlen, "%s: invalid arguments", filename);
    return TUTTI_EINVAL;
  }
  struct build b;
  struct istate *st = calloc(1, sizeof *st);
  if (!st || tutti__build_init(&b)) {
    free(st);
    tutti__seterr(err, errlen, "%s: out of memory", filename);
    return TUTTI_ENOMEM;
  }
  st->ini = (tutti_ini_t){
      .filename = filename,
      .text = text,
      .sections = SECTIONS_ACCEPTED,
      .long_hint = "(children and leaves may be split over several lines)",
      .cont_hint = " (only children and leaves may go on)",
      .may_continue = is_list,
      .on_header = on_header,
      .on_pair = on_pair,
      .user = st,
  };
  st->b = &b;
  st->cur = -1;
  st->maxleaf = -1;
  int rc = 0;
  char msg[768];
  if (links && links[0]) {
    st->links_given = 1;
    rc = tutti__build_levels(&b, links, msg, sizeof msg);
    if (rc) {
      tutti__seterr(err, errlen, "links '%s': %s", links, msg);
      goto done;
    }
  }
  rc = tutti_ini_parse(&st->ini, err, errlen);
  if (rc) goto done;
  if (tutti__desc_check_tree(st)) {
    rc = tutti_ini_report(&st->ini, err, errlen);
    goto done;
  }
  char where[TUTTI_TOPO_NAME_MAX + 4096];
  if (st->links_given)
    snprintf(where, sizeof where, "links '%s'", links);
  else
    snprintf(where, sizeof where, "%s:%d: key 'links'", filename, st->links_line);
  rc = tutti__build_finalize(&b, filename, 1, st->sw[b.root].line, where, out, err, errlen);
done:
  for (int s = 0; s < st->nsw; s++) {
    free(st->sw[s].ch);
    free(st->sw[s].lv);
    free(st->sw[s].ov);
  }
  free(st->sw);
  free(st->hash);
  free(st->leaf_owner);
  free(st->leaf_line);
  free(st->ov_sec);
  free(st->ov_line);
  free(st);
  tutti__build_free(&b);
  return rc;
}

int tutti_topo_load(const char *path, const char *links, tutti_topo_t **out, char *err,
                    size_t errlen) {
  if (!path || !out) {
    tutti__seterr(err, errlen, "topology: invalid arguments");
    return TUTTI_EINVAL;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      tutti__seterr(err, errlen,
                    "topology '%s': no such file; accepted: %s, or a topology INI file", path,
                    TUTTI__TOPO_SPEC_ACCEPTED);
      return TUTTI_ENOTFOUND;
    }
    tutti__seterr(err, errlen, "topology '%s': cannot open: %s", path, strerror(e));
    return TUTTI_EIO;
  }
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap + 1);
  int rc = 0;
  while (text) {
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (len < cap) break;
    if (cap >= MAX_FILE) {
      rc = TUTTI_EPARSE;
      tutti__seterr(err, errlen, "topology '%s': larger than %d bytes", path, MAX_FILE);
      break;
    }
    cap *= 2;
    char *q = realloc(text, cap + 1);
    if (!q) {
      free(text);
      text = NULL;
    } else
      text = q;
  }
  int rerr = ferror(f) ? errno : 0;
  fclose(f);
  if (!text) {
    tutti__seterr(err, errlen, "topology '%s': out of memory", path);
    return TUTTI_ENOMEM;
  }
  if (!rc && rerr) {
    tutti__seterr(err, errlen, "topology '%s': cannot read: %s", path, strerror(rerr));
    rc = TUTTI_EIO;
  }
  if (!rc && memchr(text, '\0', len)) {
    tutti__seterr(err, errlen, "topology '%s': contains a NUL byte; accepted: a text INI file",
                  path);
    rc = TUTTI_EPARSE;
  }
  if (!rc) {
    text[len] = '\0';
    rc = tutti_topo_parse_ini(text, path, links, out, err, errlen);
  }
  free(text);
  return rc;
}
