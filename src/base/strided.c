#include "base/strided.h"

#include <string.h>

/* base + (count[i]-1) * stride[i-1] summed over the levels, or 0 on
 * overflow (the caller rejects it). */
static int strided_extent(const reach_strided_t *s, const size_t *stride, size_t *extent)
{
    size_t e = s->count[0];
    for (int i = 1; i <= s->levels; i++) {
        size_t step;
        if (__builtin_mul_overflow(s->count[i] - 1, stride[i - 1], &step) || __builtin_add_overflow(e, step, &e))
            return -1;
    }
    *extent = e;
    return 0;
}

int strided_plan(const char *call, const reach_strided_t *shape, reach_strided_t *plan, size_t *src_extent,
                 size_t *dst_extent)
{
    if (shape == NULL)
        return rt_error(REACH_ERR_ARG, call, "the strided shape is NULL");
    if (shape->levels < 0 || shape->levels > REACH_MAX_STRIDE_LEVELS)
        return rt_error(REACH_ERR_ARG, call, "%d stride levels (0 to %d allowed)", shape->levels,
                        REACH_MAX_STRIDE_LEVELS);
    for (int i = 0; i <= shape->levels; i++)
        if (shape->count[i] == 0) {
            memset(plan, 0, sizeof *plan);
            *src_extent = *dst_extent = 0;
            return REACH_SUCCESS;
        }
    if (strided_extent(shape, shape->src_stride, src_extent) != 0 ||
        strided_extent(shape, shape->dst_stride, dst_extent) != 0)
        return rt_error(REACH_ERR_ARG, call, "the strided region spans more than the address space");
    size_t total = shape->count[0];
    for (int i = 1; i <= shape->levels; i++)
        if (__builtin_mul_overflow(total, shape->count[i], &total))
            return rt_error(REACH_ERR_ARG, call, "the strided region holds more bytes than exist");

    /* Merge: a level whose items lie back to back on both sides is one
     * longer item of the level below; a level of one item is no level. */
    plan->levels = 0;
    plan->count[0] = shape->count[0];
    size_t src_span = shape->count[0], dst_span = shape->count[0];
    for (int i = 1; i <= shape->levels; i++) {
        size_t c = shape->count[i], ss = shape->src_stride[i - 1], ds = shape->dst_stride[i - 1];
        if (c == 1)
            continue;
        int L = plan->levels;
        if (ss == src_span && ds == dst_span) {
            plan->count[L] *= c; /* contiguous with what is below */
        } else {
            plan->levels = ++L;
            plan->count[L] = c;
            plan->src_stride[L - 1] = ss;
            plan->dst_stride[L - 1] = ds;
        }
        src_span = ss * c;
        dst_span = ds * c;
    }
    return REACH_SUCCESS;
}
