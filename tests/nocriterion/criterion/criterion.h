/*
 * A minimal stand-in for Criterion, used only for ThreadSanitizer builds:
 * Criterion's runner cannot start under TSan (Snaipe/Criterion#274, its
 * BoxFort arena), so the same test files are compiled against this header
 * and run by runner.c, one forked process per test with its .timeout.
 * It supports what tutti's tests use: Test() with .timeout/.init/.fini,
 * ParameterizedTest() with cr_make_param_array, cr_skip/cr_skip_test,
 * cr_assert_eq, and cr_assert/cr_expect with the new assertion API (eq, ne,
 * lt, le, gt, ge, not, epsilon_eq, ieee_ulp_eq) and messages.
 */
#ifndef TUTTI_NOCRITERION_H
#define TUTTI_NOCRITERION_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nocrit_test {
  const char *suite, *name;
  void (*fn)(void);
  void (*init)(void), (*fini)(void); /* .init/.fini: run in the test's child around fn */
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

#define NOCRIT_REGISTER(suite, name, ...)                                                          \
  __attribute__((constructor)) static void suite##_##name##_reg(void) {                            \
    static struct nocrit_opts o = {.timeout = 0, __VA_ARGS__};                                     \
    static struct nocrit_test t = {#suite, #name, suite##_##name##_fn, NULL, NULL, 0, 0, NULL};    \
    t.init = o.init, t.fini = o.fini;                                                              \
    t.timeout = o.timeout;                                                                         \
    t.disabled = o.disabled;                                                                       \
    nocrit_register(&t);                                                                           \
  }

#define Test(suite, name, ...)                                                                     \
  static void suite##_##name##_fn(void);                                                           \
  NOCRIT_REGISTER(suite, name, __VA_ARGS__)                                                        \
  static void suite##_##name##_fn(void)

/* Parameterized tests: every parameter in turn, in the test's one child
 * process, each with the test's .timeout (the runner re-arms the alarm). */
struct nocrit_params {
  void *base;
  size_t size, n;
};
extern const struct nocrit_test *nocrit_current;
void nocrit_rearm(void);
#define cr_make_param_array(T, arr, len) ((struct nocrit_params){(void *)(arr), sizeof(T), (len)})
#define ParameterizedTestParameters(suite, name)                                                   \
  static struct nocrit_params suite##_##name##_params(void)
#define ParameterizedTest(param, suite, name, ...)                                                 \
  static void suite##_##name##_each(param);                                                        \
  static void suite##_##name##_fn(void) {                                                          \
    struct nocrit_params p_ = suite##_##name##_params();                                           \
    for (size_t i_ = 0; i_ < p_.n; i_++) {                                                         \
      nocrit_rearm();                                                                              \
      suite##_##name##_each((void *)((char *)p_.base + i_ * p_.size));                             \
    }                                                                                              \
  }                                                                                                \
  NOCRIT_REGISTER(suite, name, __VA_ARGS__)                                                        \
  static void suite##_##name##_each(param)

/* A skipped test passes, saying why on stderr. */
void nocrit_skip(void) __attribute__((noreturn));
#define cr_skip_test(...)                                                                          \
  do {                                                                                             \
    fprintf(stderr, "skipped: " __VA_ARGS__);                                                      \
    nocrit_skip();                                                                                 \
  } while (0)

#define cr_skip(...) cr_skip_test(__VA_ARGS__)

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
#define cr_assert_eq(a, b, ...) NOCRIT_REPORT("cr_assert", (a) == (b), __VA_ARGS__)
#define cr_fatal(...) NOCRIT_REPORT("cr_assert", 0, __VA_ARGS__)
#define cr_log_info(...) ((void)0)

#endif
