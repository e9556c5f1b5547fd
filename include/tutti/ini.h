/*
 * ini.h -- the strict reader of tutti's INI files: profiles (model.h),
 * topology descriptions (topo.h) and rules files (coll.h) are read by it,
 * and a program or plugin may read files of its own with the same syntax
 * and the same messages.
 *
 * The syntax is inih's (ini_parse_stream); this adds what inih does not
 * give: line numbers in every message, and strictness. The reader feeds
 * inih line by line, so it counts real lines, sees every raw line before
 * inih does (section headers even of empty sections, comments), refuses
 * lines longer than inih's buffer (which it would cut in two), skips a
 * UTF-8 byte order mark at the start, and stops at the first error. The
 * common checks run here: a key outside any section (but global_key), a
 * key continued on an indented line (inih's multi-line values) unless the
 * client allows it for that key. Everything else -- which sections and
 * keys exist, given twice or not, what a value means -- is the client's,
 * through three callbacks. inih's process-wide settings are never changed.
 *
 * Every message is "FILE:LINE: what; accepted: what" (tutti_ini_parse
 * writes it). One tutti_ini_t serves one parse, on one thread; any number
 * of parses may run at once.
 */
#ifndef TUTTI_INI_H
#define TUTTI_INI_H

#include <stddef.h>

#include "tutti/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tutti_ini tutti_ini_t;

struct tutti_ini {
  /* set by the client before tutti_ini_parse */
  const char *filename; /* for messages */
  const char *text;     /* the whole file, NUL-terminated */
  const char *sections; /* the accepted sections, for messages: "[model], [topology]" */
  /* after "accepted: shorter lines ", e.g. "(children ... lines)"; NULL: "" */
  const char *long_hint;
  const char *cont_hint; /* after the continuation error's accepted text; NULL or "": none */
  /* 1 if `name` may go on on an indented line (a list); NULL: no key may */
  int (*may_continue)(const char *name);
  /* the one key allowed before any section (on_pair gets section ""), or
   * NULL: none */
  const char *global_key;
  /* a comment line (from its ';' or '#', trailing spaces cut); NULL: ignored */
  void (*on_comment)(tutti_ini_t *in, const char *text, size_t len);
  /* a section header: the raw text between '[' and ']'; NULL: ignored */
  void (*on_header)(tutti_ini_t *in, const char *name, size_t len);
  /* key = value in a section, past the common checks: 1 to go on, 0 after
   * tutti_ini_fail */
  int (*on_pair)(tutti_ini_t *in, const char *section, const char *name, const char *value);
  void *user; /* the client's state */

  /* the reader's state: the callbacks read it, nobody writes it */
  size_t pos;
  int line;         /* the number of the line last read */
  int indented;     /* that line starts with a space or tab */
  int seen_content; /* a line that is neither blank nor a comment was read */
  char prev_name[64];
  int prev_line; /* the line of the previous key, for continuations */
  /* the first error */
  int err_line;
  int oom;
  char msg[1024];
};

/* Record the first error, at `line` (later ones are dropped). */
TUTTI_API void tutti_ini_fail(tutti_ini_t *in, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Record "out of memory" at the current line; the parse returns TUTTI_ENOMEM. */
TUTTI_API void tutti_ini_oom(tutti_ini_t *in);

/* Parse in->text. Returns 0, or TUTTI_EPARSE (TUTTI_ENOMEM)
 * with "FILE:LINE: msg" in err. The first error wins: the client's, the
 * reader's, or a line inih cannot parse (which inih reports only at the
 * end). */
TUTTI_API int tutti_ini_parse(tutti_ini_t *in, char *err, size_t errlen);

/* An error recorded after the parse (checks that need the whole file):
 * "FILE:LINE: msg" in err; returns TUTTI_EPARSE or TUTTI_ENOMEM. */
TUTTI_API int tutti_ini_report(const tutti_ini_t *in, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TUTTI_INI_H */
