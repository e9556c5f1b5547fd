/*
 * json_reader.h -- a tiny JSON reader for the tests: json_parse checks
 * that a whole document is well-formed JSON (nesting at most 64 deep) and
 * remembers the top-level object's keys, so that json_get and json_num
 * read the fields of `tutti ... --json` and json_array_len counts an
 * array. Used by test_e2e_cli.c and test_unit_replay_report.c (the
 * Chrome trace); tested itself in test_unit_json.c. Needs Criterion.
 */
#ifndef TUTTI_TEST_JSON_READER_H
#define TUTTI_TEST_JSON_READER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
  const char *s;
  int ok;
  /* top-level keys (the value each starts at), filled for depth 1 */
  int nkeys;
  char key[64][32];
  const char *val[64];
};

static inline void jws(struct jp *p) {
  while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r') p->s++;
}

static inline void jfail(struct jp *p) {
  p->ok = 0;
}

static inline void jstring(struct jp *p, char *copy, size_t n) {
  size_t k = 0;
  if (*p->s != '"') return jfail(p);
  p->s++;
  while (p->ok && *p->s != '"') {
    unsigned char ch = (unsigned char)*p->s;
    if (!ch || ch < 0x20) return jfail(p);
    if (ch == '\\') {
      p->s++;
      if (*p->s == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!strchr("0123456789abcdefABCDEF", p->s[i]) || !p->s[i]) return jfail(p);
        p->s += 4;
      } else if (!*p->s || !strchr("\"\\/bfnrt", *p->s))
        return jfail(p);
    }
    if (copy && k + 1 < n) copy[k++] = *p->s;
    p->s++;
  }
  if (copy) copy[k] = '\0';
  p->s++;
}

static inline void jnumber(struct jp *p) {
  const char *s = p->s;
  if (*s == '-') s++;
  if (*s == '0')
    s++;
  else if (*s >= '1' && *s <= '9')
    while (*s >= '0' && *s <= '9') s++;
  else
    return jfail(p);
  if (*s == '.') {
    s++;
    if (!(*s >= '0' && *s <= '9')) return jfail(p);
    while (*s >= '0' && *s <= '9') s++;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return jfail(p);
    while (*s >= '0' && *s <= '9') s++;
  }
  p->s = s;
}

static inline void jvalue(struct jp *p, int depth) {
  jws(p);
  if (!p->ok || depth > 64) return jfail(p);
  char c = *p->s;
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    p->s++;
    jws(p);
    if (*p->s == close) {
      p->s++;
      return;
    }
    for (;;) {
      if (c == '{') {
        char key[32];
        jws(p);
        jstring(p, key, sizeof key);
        jws(p);
        if (!p->ok || *p->s != ':') return jfail(p);
        p->s++;
        jws(p);
        if (depth == 0 && p->nkeys < 64) {
          snprintf(p->key[p->nkeys], sizeof p->key[0], "%s", key);
          p->val[p->nkeys++] = p->s;
        }
      }
      jvalue(p, depth + 1);
      jws(p);
      if (!p->ok) return;
      if (*p->s == ',') {
        p->s++;
        continue;
      }
      if (*p->s == close) {
        p->s++;
        return;
      }
      return jfail(p);
    }
  }
  if (c == '"') return jstring(p, NULL, 0);
  if (!strncmp(p->s, "true", 4))
    p->s += 4;
  else if (!strncmp(p->s, "false", 5))
    p->s += 5;
  else if (!strncmp(p->s, "null", 4))
    p->s += 4;
  else
    jnumber(p);
}

/* Parse a whole document (one value, then only white space). */
static inline struct jp json_parse(const char *text) {
  struct jp p = {.s = text, .ok = 1};
  jvalue(&p, 0);
  jws(&p);
  if (*p.s) p.ok = 0;
  p.s = text;
  return p;
}

static inline const char *json_get(const struct jp *p, const char *key) {
  for (int i = 0; i < p->nkeys; i++)
    if (!strcmp(p->key[i], key)) return p->val[i];
  cr_fatal("JSON lacks key '%s'", key);
  return NULL;
}

static inline double json_num(const struct jp *p, const char *key) {
  const char *v = json_get(p, key);
  char *end;
  double x = strtod(v, &end);
  cr_assert(ne(ptr, (void *)end, (void *)v), "'%s' is not a number: %.20s", key, v);
  return x;
}

/* Elements of the array at v ('[' ... ']'). */
static inline int json_array_len(const char *v) {
  cr_assert(eq(chr, *v, '['), "not an array: %.20s", v);
  struct jp p = {.s = v + 1, .ok = 1};
  jws(&p);
  if (*p.s == ']') return 0;
  int n = 0;
  for (;;) {
    jvalue(&p, 1);
    n++;
    jws(&p);
    cr_assert(p.ok);
    if (*p.s == ',')
      p.s++;
    else
      break;
  }
  return n;
}

static inline struct jp json_ok(const char *text) {
  struct jp p = json_parse(text);
  cr_assert(p.ok, "not well-formed JSON: %s", text);
  return p;
}

#endif
