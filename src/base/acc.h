/* Accumulate kernels: dst[i] += scale * src[i] for reach's element types. */
#ifndef REACH_BASE_ACC_H
#define REACH_BASE_ACC_H
#include <stddef.h>
#include "base/state.h"

/* Bytes of one element of type, and of one of its components (the unit of
 * atomicity and of alignment). */
static inline size_t acc_elem_size(reach_type_t t)
{
    static const unsigned char size[REACH_TYPE_COUNT] = {sizeof(int),    sizeof(long),      sizeof(float),
                                                         sizeof(double), 2 * sizeof(float), 2 * sizeof(double)};
    return size[t];
}

static inline size_t acc_component_size(reach_type_t t)
{
    return (t == REACH_COMPLEX || t == REACH_DCOMPLEX) ? acc_elem_size(t) / 2 : acc_elem_size(t);
}

/* Applies the kernel to bytes (a multiple of the element size); scale,
 * src and dst may lie at any address. */
void acc_apply(reach_type_t t, const void *scale, const void *src, void *dst, size_t bytes) REACH_HIDDEN;

/* Checks type, scale and size of an accumulate: what strided and vector
 * accumulates require, whose targets lie at any byte (ARMCI's strides are
 * bytes). */
int acc_check_size(const char *call, reach_type_t t, const void *scale, size_t bytes) REACH_HIDDEN;

/* The same, and dst aligned to the component size: what a contiguous
 * accumulate requires. */
int acc_check(const char *call, reach_type_t t, const void *scale, const void *dst, size_t bytes) REACH_HIDDEN;

#endif
