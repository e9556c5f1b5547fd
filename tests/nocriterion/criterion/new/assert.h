/* The new-assertion-API subset for the TSan stand-in (see ../criterion.h). */
#ifndef TUTTI_NOCRITERION_ASSERT_H
#define TUTTI_NOCRITERION_ASSERT_H
#include <string.h>

#define NOCRIT_CMP_str(a, b) strcmp((a), (b))
/* Each operand is evaluated once, as in Criterion. */
#define NOCRIT_CMP_int(a, b)                                                                       \
  ({                                                                                               \
    __typeof__(a) a_ = (a);                                                                        \
    __typeof__(b) b_ = (b);                                                                        \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wsign-compare\"") int c_ =   \
        (a_ > b_) - (a_ < b_);                                                                     \
    _Pragma("GCC diagnostic pop") c_;                                                              \
  })
#define NOCRIT_CMP_i32 NOCRIT_CMP_int
#define NOCRIT_CMP_chr NOCRIT_CMP_int
#define NOCRIT_CMP_u8 NOCRIT_CMP_int
/* Arrays, eq(int[4], a, b): the type pastes into NOCRIT_CMP_int[4], which,
 * not followed by '(', is this table of comparisons by length (up to 8). */
#define NOCRIT_INTS(n)                                                                             \
  static inline int nocrit_ints##n(const int *a, const int *b) {                                   \
    return memcmp(a, b, n * sizeof *a);                                                            \
  }
NOCRIT_INTS(1)
NOCRIT_INTS(2)
NOCRIT_INTS(3)
NOCRIT_INTS(4)
NOCRIT_INTS(5)
NOCRIT_INTS(6)
NOCRIT_INTS(7)
NOCRIT_INTS(8)
__attribute__((unused)) static int (*const NOCRIT_CMP_int[])(const int *, const int *) = {
    NULL,         nocrit_ints1, nocrit_ints2, nocrit_ints3, nocrit_ints4,
    nocrit_ints5, nocrit_ints6, nocrit_ints7, nocrit_ints8};
#define NOCRIT_CMP_i64 NOCRIT_CMP_int
#define NOCRIT_CMP_u32 NOCRIT_CMP_int
#define NOCRIT_CMP_u64 NOCRIT_CMP_int
#define NOCRIT_CMP_sz NOCRIT_CMP_int
#define NOCRIT_CMP_long NOCRIT_CMP_int
#define NOCRIT_CMP_ulong NOCRIT_CMP_int
#define NOCRIT_CMP_dbl NOCRIT_CMP_int
#define NOCRIT_CMP_flt NOCRIT_CMP_int
#define NOCRIT_CMP_ptr(a, b)                                                                       \
  ({                                                                                               \
    const char *a_ = (const char *)(a), *b_ = (const char *)(b);                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wsign-compare\"") int c_ =   \
        (a_ > b_) - (a_ < b_);                                                                     \
    _Pragma("GCC diagnostic pop") c_;                                                              \
  })
#define eq(T, a, b) (NOCRIT_CMP_##T(a, b) == 0)
#define ne(T, a, b) (NOCRIT_CMP_##T(a, b) != 0)
#define lt(T, a, b) (NOCRIT_CMP_##T(a, b) < 0)
#define le(T, a, b) (NOCRIT_CMP_##T(a, b) <= 0)
#define gt(T, a, b) (NOCRIT_CMP_##T(a, b) > 0)
#define ge(T, a, b) (NOCRIT_CMP_##T(a, b) >= 0)
#define not(x) (!(x))
#define zero(T, a) ((a) == 0)
#define ieee_ulp_eq(T, a, b, ulp)                                                                  \
  ((double)(a) == (double)(b) ||                                                                   \
   __builtin_fabs((double)(a) - (double)(b)) <= (ulp)*2.3e-16 * __builtin_fabs((double)(b)))
#define epsilon_eq(T, a, b, eps) (__builtin_fabs((double)(a) - (double)(b)) <= (eps))
#endif
