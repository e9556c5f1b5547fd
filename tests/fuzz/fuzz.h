/*
 * fuzz.h -- what the libFuzzer targets of this folder share: the input as
 * a NUL-terminated string (a C parser reads C strings; the input ends at
 * its first NUL byte), cut into lines for the targets that take several
 * strings, and a stream that discards what the printers write.
 */
#ifndef TUTTI_FUZZ_H
#define TUTTI_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A malloc'd copy of the input with a NUL after it; free it. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Cut s in place at its first n-1 newlines into f[0..n); the last field
 * keeps the rest, newlines included; fields past the end are "". */
static inline void fuzz_lines(char *s, char **f, int n) {
  for (int i = 0; i < n; i++) {
    f[i] = s;
    if (i == n - 1) break;
    char *nl = strchr(s, '\n');
    if (nl) {
      *nl = '\0';
      s = nl + 1;
    } else {
      s += strlen(s); /* the following fields are the empty string at the end */
    }
  }
}

/* NULL for an empty field: "not given" in the APIs that take optional
 * strings. */
static inline const char *fuzz_opt(const char *s) {
  return s[0] ? s : NULL;
}

/* 1 if s could name a plugin file (a '/', ".c" or ".so" anywhere): an
 * algorithm name or `plugin =` that would load or compile a file of the
 * machine's (collectives/plugin.c). The targets skip such inputs: the
 * parsers are what they fuzz, not dlopen or the C compiler. */
static inline int fuzz_names_a_file(const char *s) {
  return strchr(s, '/') || strstr(s, ".c") || strstr(s, ".so");
}

/* /dev/null, opened once per process (left open: the fuzzer's process
 * ends with it). */
static inline FILE *fuzz_devnull(void) {
  static FILE *f;
  if (!f && !(f = fopen("/dev/null", "w"))) abort();
  return f;
}

#endif /* TUTTI_FUZZ_H */
