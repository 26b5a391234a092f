/* Strided shapes: checks, extents, and merging of contiguous levels. */
#ifndef REACH_BASE_STRIDED_H
#define REACH_BASE_STRIDED_H
#include "base/state.h"
#include "base/xfer.h"

/* Checks the shape and computes the bytes each side spans from its base
 * (0 if any count is 0: nothing moves). On success *plan is the shape with
 * contiguous levels merged and levels of one item dropped. */
int strided_plan(const char *call, const reach_strided_t *shape, reach_strided_t *plan, size_t *src_extent,
                 size_t *dst_extent) REACH_HIDDEN;

/* Total bytes a shape moves. */
static inline size_t strided_bytes(const reach_strided_t *p)
{
    size_t n = p->count[0];
    for (int i = 1; i <= p->levels; i++)
        n *= p->count[i];
    return n;
}
/* The runs of a plan in order, as offsets from each side's base:
 *
 *     strided_iter_t it = strided_begin(1);
 *     do
 *         run(src + it.src, dst + it.dst, plan->count[0]);
 *     while (strided_next(&it, plan));
 *
 * strided_begin(2) steps over rows of count[1] runs instead, for a walk
 * that runs the innermost level itself. */
typedef struct strided_iter {
    size_t src, dst;
    int from;
    size_t idx[REACH_MAX_STRIDE_LEVELS + 1];
} strided_iter_t;

static inline strided_iter_t strided_begin(int from)
{
    return (strided_iter_t){.from = from};
}

static inline int strided_next(strided_iter_t *it, const reach_strided_t *p)
{
    for (int k = it->from; k <= p->levels; k++) {
        if (++it->idx[k] < p->count[k]) {
            it->src += p->src_stride[k - 1];
            it->dst += p->dst_stride[k - 1];
            return 1;
        }
        it->src -= (p->count[k] - 1) * p->src_stride[k - 1];
        it->dst -= (p->count[k] - 1) * p->dst_stride[k - 1];
        it->idx[k] = 0;
    }
    return 0;
}

/* The offset of run i (in the order above) on the side with these strides. */
static inline size_t strided_run_offset(const reach_strided_t *p, const size_t *stride, uint64_t i)
{
    size_t off = 0;
    for (int k = 1; k <= p->levels; k++) {
        off += (size_t)(i % p->count[k]) * stride[k - 1];
        i /= p->count[k];
    }
    return off;
}
#endif
