#include "base/reduce.h"

#define REDUCE_LOOP(T, name, expr)                     \
    static void name(void *d, const void *s, size_t n) \
    {                                                  \
        T *x = d;                                      \
        const T *y = s;                                \
        for (size_t i = 0; i < n; i++)                 \
            x[i] = (expr);                             \
    }
/* Sums and products of integers wrap, as the unsigned type's do. */
#define REDUCE_ARITH(T, U, p)                          \
    REDUCE_LOOP(T, p##_sum, (T)((U)x[i] + (U)y[i]))    \
    REDUCE_LOOP(T, p##_prod, (T)((U)x[i] * (U)y[i]))   \
    REDUCE_LOOP(T, p##_max, y[i] > x[i] ? y[i] : x[i]) \
    REDUCE_LOOP(T, p##_min, y[i] < x[i] ? y[i] : x[i])
#define REDUCE_BITS(T, p)                       \
    REDUCE_LOOP(T, p##_band, x[i] & y[i])       \
    REDUCE_LOOP(T, p##_bor, x[i] | y[i])        \
    REDUCE_LOOP(T, p##_land, (T)(x[i] && y[i])) \
    REDUCE_LOOP(T, p##_lor, (T)(x[i] || y[i]))
REDUCE_ARITH(int, unsigned, i)
REDUCE_BITS(int, i)
REDUCE_ARITH(long, unsigned long, l)
REDUCE_BITS(long, l)
REDUCE_ARITH(float, float, f)
REDUCE_ARITH(double, double, d)

#define REDUCE_INT_OPS(p)                                                         \
    {                                                                             \
        p##_sum, p##_prod, p##_max, p##_min, p##_band, p##_bor, p##_land, p##_lor \
    }
#define REDUCE_REAL_OPS(p)                  \
    {                                       \
        p##_sum, p##_prod, p##_max, p##_min \
    }

reduce_fn *reduce_kernel(reach_type_t type, reach_reduce_op_t op)
{
    static reduce_fn *const kernels[REACH_DOUBLE + 1][REACH_REDUCE_COUNT] = {
        [REACH_INT] = REDUCE_INT_OPS(i),
        [REACH_LONG] = REDUCE_INT_OPS(l),
        [REACH_FLOAT] = REDUCE_REAL_OPS(f),
        [REACH_DOUBLE] = REDUCE_REAL_OPS(d),
    };
    if ((int)type < REACH_INT || type > REACH_DOUBLE || (int)op < 0 || op >= REACH_REDUCE_COUNT)
        return NULL;
    return kernels[type][op];
}
