/*
 * ini.c -- the strict INI reader (include/tutti/ini.h): inih fed line by
 * line from a string, with line numbers, raw-line callbacks and the checks
 * every tutti INI file shares.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <ini.h>

#include "errtext.h"
#include "tutti/ini.h"
#include "tutti/p2p.h"

/* src into dst (n bytes, cut to fit) with every control byte as \xNN: a
 * message that quotes the file sends no raw control bytes to a terminal. */
static void escape(char *dst, size_t n, const char *src) {
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)src; *p && k + 5 < n; p++)
    if (*p < 0x20 || *p == 0x7f)
      k += (size_t)snprintf(dst + k, n - k, "\\x%02x", *p);
    else
      dst[k++] = (char)*p;
  dst[k] = '\0';
}

void tutti_ini_fail(tutti_ini_t *in, int line, const char *fmt, ...) {
  if (in->err_line) return;
  in->err_line = line > 0 ? line : 1;
  char raw[sizeof in->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  escape(in->msg, sizeof in->msg, raw);
}

void tutti_ini_oom(tutti_ini_t *in) {
  in->oom = 1;
  tutti_ini_fail(in, in->line, "out of memory");
}

static int is_space(char c) {
  return c == ' ' || c == '\t';
}

/* Look at a raw line before inih does: comments and section headers go to
 * the client (inih reports an empty section to no one). */
static void inspect(tutti_ini_t *in, const char *raw, size_t len) {
  size_t i = 0;
  while (i < len && is_space(raw[i])) i++;
  in->indented = i > 0;
  size_t end = len;
  while (end > i && (raw[end - 1] == '\n' || raw[end - 1] == '\r' || is_space(raw[end - 1]))) end--;
  if (i == end) return; /* blank */
  if (raw[i] == ';' || raw[i] == '#') {
    if (in->on_comment) in->on_comment(in, raw + i, end - i);
    return;
  }
  in->seen_content = 1;
  if (raw[i] != '[') return;
  const char *close = memchr(raw + i, ']', end - i);
  if (!close) return; /* inih reports it as a syntax error */
  if (in->on_header) in->on_header(in, raw + i + 1, (size_t)(close - raw - i - 1));
}

/* The length of a UTF-8 byte order mark at the start of text (editors on
 * Windows write one), 0 if none: skipped, so that the first line is seen
 * as what it is ("[model]", not three stray bytes before it). */
static size_t bom(const char *text) {
  return strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* An fgets over in->text that counts lines. It stops the parse (returns
 * NULL) at the first error, and at a line longer than inih's buffer. */
static char *reader(char *str, int num, void *stream) {
  tutti_ini_t *in = stream;
  if (in->err_line || in->text[in->pos] == '\0' || num < 2) return NULL;
  if (in->line == 0) in->pos += bom(in->text);
  const char *p = in->text + in->pos;
  const char *nl = strchr(p, '\n');
  size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
  in->line++;
  if (len > (size_t)num - 1) {
    tutti_ini_fail(in, in->line,
                   "line too long (%zu characters; at most %d); accepted: shorter lines %s",
                   len - (nl ? 1 : 0), num - 3, in->long_hint ? in->long_hint : "");
    return NULL;
  }
  memcpy(str, p, len);
  str[len] = '\0';
  in->pos += len;
  inspect(in, str, len);
  return str;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
  tutti_ini_t *in = user;
  if (in->err_line) return 0;
  /* inih hands an indented line after a key to the handler again, under
   * the previous key's name (configparser's multi-line values). */
  if (in->indented && in->prev_line && in->prev_line != in->line &&
      strcmp(name, in->prev_name) == 0 && !(in->may_continue && in->may_continue(name))) {
    tutti_ini_fail(in, in->line,
                   "key '%s': continued on an indented line; accepted: one key = value per "
                   "line, not indented%s",
                   name, in->cont_hint ? in->cont_hint : "");
    return 0;
  }
  snprintf(in->prev_name, sizeof in->prev_name, "%s", name);
  in->prev_line = in->line;
  if (section[0] == '\0' && !(in->global_key && !strcmp(name, in->global_key))) {
    if (in->global_key)
      tutti_ini_fail(in, in->line,
                     "key '%s': outside any section; accepted: %s = ... before the first "
                     "section, keys under %s",
                     name, in->global_key, in->sections);
    else
      tutti_ini_fail(in, in->line, "key '%s': outside any section; accepted: keys under %s", name,
                     in->sections);
    return 0;
  }
  return in->on_pair(in, section, name, value);
}

/* The text of line `lineno`, trimmed and cut to fit. */
static void line_text(const char *text, int lineno, char *buf, size_t n) {
  const char *p = text + bom(text);
  for (int l = 1; l < lineno && p; l++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  buf[0] = '\0';
  if (!p) return;
  while (is_space(*p)) p++;
  size_t len = strcspn(p, "\r\n");
  while (len > 0 && is_space(p[len - 1])) len--;
  char raw[80];
  if (len >= sizeof raw) len = sizeof raw - 1;
  memcpy(raw, p, len);
  raw[len] = '\0';
  escape(buf, n, raw);
}

int tutti_ini_report(const tutti_ini_t *in, char *err, size_t errlen) {
  tutti__seterr(err, errlen, "%s:%d: %s", in->filename, in->err_line, in->msg);
  return in->oom ? TUTTI_ENOMEM : TUTTI_EPARSE;
}

int tutti_ini_parse(tutti_ini_t *in, char *err, size_t errlen) {
  int ret = ini_parse_stream(reader, in, handler, in);
  if (in->err_line && (ret <= 0 || ret >= in->err_line)) return tutti_ini_report(in, err, errlen);
  if (ret > 0) {
    char lt[320]; /* 80 characters, each up to 4 when escaped */
    line_text(in->text, ret, lt, sizeof lt);
    tutti__seterr(err, errlen,
                  "%s:%d: '%s' is not a [section] or key = value line; accepted: %s, "
                  "key = value, ; comment",
                  in->filename, ret, lt, in->sections);
    return TUTTI_EPARSE;
  }
  if (ret < 0) {
    tutti__seterr(err, errlen, "%s: the INI parser failed (%d)", in->filename, ret);
    return ret == -2 ? TUTTI_ENOMEM : TUTTI_EPARSE; /* from a string: no I/O to fail */
  }
  return 0;
}
