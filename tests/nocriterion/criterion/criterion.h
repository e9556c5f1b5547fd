/*
 * A minimal stand-in for Criterion, used only for ThreadSanitizer builds:
 * Criterion's runner cannot start under TSan (Snaipe/Criterion#274, its
 * BoxFort arena), so the same test files are compiled against this header
 * and run by runner.c, one forked process per test with its .timeout.
 * It supports what tutti's threaded tests use: Test(), cr_assert/cr_expect
 * with the new assertion API (eq, ne, lt, le, gt, ge, not) and messages.
 */
#ifndef TUTTI_NOCRITERION_H
#define TUTTI_NOCRITERION_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nocrit_test {
  const char *suite, *name;
  void (*fn)(void);
  double timeout;
  int disabled;
  struct nocrit_test *next;
};
void nocrit_register(struct nocrit_test *t);
extern int nocrit_failed;

struct nocrit_opts {
  double timeout;
  int disabled;
  void (*init)(void);
  void (*fini)(void);
  const char *description;
  int exit_code, signal;
};

#define Test(suite, name, ...)                                                                     \
  static void suite##_##name##_fn(void);                                                           \
  __attribute__((constructor)) static void suite##_##name##_reg(void) {                            \
    static struct nocrit_opts o = {.timeout = 0, __VA_ARGS__};                                     \
    static struct nocrit_test t = {#suite, #name, suite##_##name##_fn, 0, 0, NULL};                \
    t.timeout = o.timeout;                                                                         \
    t.disabled = o.disabled;                                                                       \
    nocrit_register(&t);                                                                           \
  }                                                                                                \
  static void suite##_##name##_fn(void)

#define NOCRIT_REPORT(kind, cond, ...)                                                             \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: %s failed: %s\n  ", __FILE__, __LINE__, kind, #cond);                \
      fprintf(stderr, "" __VA_ARGS__);                                                             \
      fprintf(stderr, "\n");                                                                       \
      nocrit_failed = 1;                                                                           \
      if (kind[3] == 'a') exit(1);                                                                 \
    }                                                                                              \
  } while (0)
#define cr_assert(cond, ...) NOCRIT_REPORT("cr_assert", cond, __VA_ARGS__)
#define cr_expect(cond, ...) NOCRIT_REPORT("cr_expect", cond, __VA_ARGS__)
#define cr_fatal(...) NOCRIT_REPORT("cr_assert", 0, __VA_ARGS__)
#define cr_log_info(...) ((void)0)

#endif
