/* Strided shapes: checks, extents, and merging of contiguous levels. */
#ifndef REACH_BASE_STRIDED_H
#define REACH_BASE_STRIDED_H
#include "base/state.h"

/* Checks the shape and computes the bytes each side spans from its base
 * (0 if any count is 0: nothing moves). On success *plan is the shape with
 * contiguous levels merged and levels of one item dropped. */
int strided_plan(const char *call, const reach_strided_t *shape, reach_strided_t *plan,
                 size_t *src_extent, size_t *dst_extent) REACH_HIDDEN;

/* Total bytes a shape moves. */
static inline size_t strided_bytes(const reach_strided_t *p)
{
    size_t n = p->count[0];
    for (int i = 1; i <= p->levels; i++)
        n *= p->count[i];
    return n;
}
#endif
