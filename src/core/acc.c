#include "core/acc.h"

#include <stdint.h>

/* restrict lets the compiler vectorize; source and target never overlap
 * (one is in the caller's memory, the other in a segment). Each kernel is
 * also built for AVX2 and picked at load time where the CPU has it; without
 * FMA, and in ISO C mode (no contraction), so that every build computes
 * d + (a * s) with the same rounding. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ACC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ACC_CLONES
#endif

#define ACC_REAL(name, T, U)                                                       \
    ACC_CLONES static void name(T *restrict d, const T *restrict s, T a, size_t n)          \
    {                                                                              \
        for (size_t i = 0; i < n; i++)                                             \
            d[i] = (T)((U)d[i] + (U)a * (U)s[i]);                                  \
    }
/* Integer arithmetic wraps (unsigned), as the hardware does, without UB. */
ACC_REAL(acc_int, int, unsigned)
ACC_REAL(acc_long, long, unsigned long)
ACC_REAL(acc_float, float, float)
ACC_REAL(acc_double, double, double)

#define ACC_COMPLEX(name, T)                                                       \
    ACC_CLONES static void name(T *restrict d, const T *restrict s, const T *a, size_t n)   \
    {                                                                              \
        T ar = a[0], ai = a[1];                                                    \
        for (size_t i = 0; i < n; i++) {                                           \
            T sr = s[2 * i], si = s[2 * i + 1];                                    \
            d[2 * i] += ar * sr - ai * si;                                         \
            d[2 * i + 1] += ar * si + ai * sr;                                     \
        }                                                                          \
    }
ACC_COMPLEX(acc_complex, float)
ACC_COMPLEX(acc_dcomplex, double)

void acc_apply(reach_type_t t, const void *scale, const void *src, void *dst, size_t bytes)
{
    size_t n = bytes / acc_elem_size(t);
    switch (t) {
    case REACH_INT: acc_int(dst, src, *(const int *)scale, n); break;
    case REACH_LONG: acc_long(dst, src, *(const long *)scale, n); break;
    case REACH_FLOAT: acc_float(dst, src, *(const float *)scale, n); break;
    case REACH_DOUBLE: acc_double(dst, src, *(const double *)scale, n); break;
    case REACH_COMPLEX: acc_complex(dst, src, scale, n); break;
    case REACH_DCOMPLEX: acc_dcomplex(dst, src, scale, n); break;
    default: break;
    }
}

int acc_check(const char *call, reach_type_t t, const void *scale, const void *dst, size_t bytes)
{
    if ((unsigned)t >= REACH_TYPE_COUNT)
        return rt_error(REACH_ERR_TYPE, call, "unknown accumulate type %d", (int)t);
    if (scale == NULL)
        return rt_error(REACH_ERR_ARG, call, "scale is NULL");
    size_t es = acc_elem_size(t), cs = acc_component_size(t);
    if (bytes % es != 0)
        return rt_error(REACH_ERR_ARG, call, "%zu bytes is not a multiple of the %zu-byte element",
                        bytes, es);
    if ((uintptr_t)dst % cs != 0)
        return rt_error(REACH_ERR_ALIGN, call, "target %p is not aligned to %zu bytes", dst, cs);
    return REACH_SUCCESS;
}
