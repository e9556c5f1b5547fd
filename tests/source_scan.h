/*
 * source_scan.h -- reading C sources in tests that check the sources
 * themselves (test_unit_cli_calls.c, test_unit_promises.c): a file's text,
 * and its comments (and, if asked, string and character literals) blanked
 * to spaces with newlines kept, so that line numbers hold.
 */
#ifndef TUTTI_TESTS_SOURCE_SCAN_H
#define TUTTI_TESTS_SOURCE_SCAN_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole file, NUL-terminated; the test fails if it cannot be read. */
static inline char *src_slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  cr_assert(f != NULL, "cannot open %s", path);
  cr_assert(fseek(f, 0, SEEK_END) == 0);
  long n = ftell(f);
  cr_assert(n >= 0);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  cr_assert(s != NULL);
  cr_assert(fread(s, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
  s[n] = '\0';
  fclose(f);
  return s;
}

/* Comments become spaces; with literals set, so do string literals and
 * character constants (newlines stay). */
static inline void src_blank(char *s, int literals) {
  enum { CODE, LINE, BLOCK, STR, CHR } st = CODE;
  for (char *p = s; *p; p++) {
    switch (st) {
    case CODE:
      if (p[0] == '/' && p[1] == '/')
        st = LINE, *p = ' ';
      else if (p[0] == '/' && p[1] == '*')
        st = BLOCK, *p++ = ' ', *p = ' ';
      else if (*p == '"')
        st = STR, *p = literals ? ' ' : *p;
      else if (*p == '\'')
        st = CHR, *p = literals ? ' ' : *p;
      break;
    case LINE:
      if (*p == '\n')
        st = CODE;
      else
        *p = ' ';
      break;
    case BLOCK:
      if (p[0] == '*' && p[1] == '/')
        st = CODE, *p++ = ' ', *p = ' ';
      else if (*p != '\n')
        *p = ' ';
      break;
    case STR:
    case CHR:
      if (*p == '\\' && p[1]) {
        if (literals) *p = ' ';
        p++;
        if (literals && *p != '\n') *p = ' ';
      } else if (*p == (st == STR ? '"' : '\'')) {
        st = CODE;
        if (literals) *p = ' ';
      } else if (literals && *p != '\n')
        *p = ' ';
      break;
    }
  }
}

#endif
