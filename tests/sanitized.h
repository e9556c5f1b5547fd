/*
 * sanitized.h -- SANITIZED: 1 in a build under AddressSanitizer or
 * ThreadSanitizer (gcc's macros, clang's __has_feature), else 0. Tests
 * scale down or skip what the sanitizers make slow or cannot run
 * (tests/README.md "Sanitizers").
 */
#ifndef TUTTI_TESTS_SANITIZED_H
#define TUTTI_TESTS_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#endif
