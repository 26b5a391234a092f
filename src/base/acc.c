#include "base/acc.h"

#include <stdint.h>
#include <string.h>

/* restrict lets the compiler vectorize; source and target never overlap
 * (one is in the caller's memory, the other in a segment). Each kernel is
 * also built for AVX2 and picked at load time where the CPU has it; without
 * FMA, and in ISO C mode (no contraction), so that every build computes
 * d + (a * s) with the same rounding. */
/* Not under the sanitizers: the clones' resolver runs during relocation,
 * before a sanitizer's runtime is ready for instrumented code. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
#define ACC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ACC_CLONES
#endif

/* The source, the target and the scale may lie at any address (a
 * message's payload, a caller's buffer, a strided target's rows at any
 * byte stride): they are read and written with memcpy, which compiles to
 * plain (unaligned-tolerant) loads and stores. */
#define ACC_REAL(name, T, U)                                                                           \
    ACC_CLONES static void name(char *restrict d, const char *restrict s, const void *scale, size_t n) \
    {                                                                                                  \
        T a;                                                                                           \
        memcpy(&a, scale, sizeof a);                                                                   \
        for (size_t i = 0; i < n; i++) {                                                               \
            T x, v;                                                                                    \
            memcpy(&x, d + i * sizeof x, sizeof x);                                                    \
            memcpy(&v, s + i * sizeof v, sizeof v);                                                    \
            x = (T)((U)x + (U)a * (U)v);                                                               \
            memcpy(d + i * sizeof x, &x, sizeof x);                                                    \
        }                                                                                              \
    }
/* Integer arithmetic wraps (unsigned), as the hardware does, without UB. */
ACC_REAL(acc_int, int, unsigned)
ACC_REAL(acc_long, long, unsigned long)
ACC_REAL(acc_float, float, float)
ACC_REAL(acc_double, double, double)

#define ACC_COMPLEX(name, T)                                                                           \
    ACC_CLONES static void name(char *restrict d, const char *restrict s, const void *scale, size_t n) \
    {                                                                                                  \
        T a[2];                                                                                        \
        memcpy(a, scale, sizeof a);                                                                    \
        for (size_t i = 0; i < n; i++) {                                                               \
            T x[2], v[2];                                                                              \
            memcpy(x, d + i * sizeof x, sizeof x);                                                     \
            memcpy(v, s + i * sizeof v, sizeof v);                                                     \
            x[0] += a[0] * v[0] - a[1] * v[1];                                                         \
            x[1] += a[0] * v[1] + a[1] * v[0];                                                         \
            memcpy(d + i * sizeof x, x, sizeof x);                                                     \
        }                                                                                              \
    }
ACC_COMPLEX(acc_complex, float)
ACC_COMPLEX(acc_dcomplex, double)

void acc_apply(reach_type_t t, const void *scale, const void *src, void *dst, size_t bytes)
{
    size_t n = bytes / acc_elem_size(t);
    switch (t) {
    case REACH_INT: acc_int(dst, src, scale, n); break;
    case REACH_LONG: acc_long(dst, src, scale, n); break;
    case REACH_FLOAT: acc_float(dst, src, scale, n); break;
    case REACH_DOUBLE: acc_double(dst, src, scale, n); break;
    case REACH_COMPLEX: acc_complex(dst, src, scale, n); break;
    case REACH_DCOMPLEX: acc_dcomplex(dst, src, scale, n); break;
    default: break;
    }
}

int acc_check_size(const char *call, reach_type_t t, const void *scale, size_t bytes)
{
    if ((unsigned)t >= REACH_TYPE_COUNT)
        return rt_error(REACH_ERR_TYPE, call, "unknown accumulate type %d", (int)t);
    if (scale == NULL)
        return rt_error(REACH_ERR_ARG, call, "scale is NULL");
    size_t es = acc_elem_size(t);
    if (bytes % es != 0)
        return rt_error(REACH_ERR_ARG, call, "%zu bytes is not a multiple of the %zu-byte element", bytes, es);
    return REACH_SUCCESS;
}

int acc_check(const char *call, reach_type_t t, const void *scale, const void *dst, size_t bytes)
{
    int st = acc_check_size(call, t, scale, bytes);
    if (st == REACH_SUCCESS && (uintptr_t)dst % acc_component_size(t) != 0)
        st = rt_error(REACH_ERR_ALIGN, call, "target %p is not aligned to %zu bytes", dst, acc_component_size(t));
    return st;
}
