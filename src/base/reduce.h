/* Reduction kernels: dst[i] = op(dst[i], src[i]) for reach's real and
 * integer element types (REACH_INT to REACH_DOUBLE), as the collectives
 * combine their parts. */
#ifndef REACH_BASE_REDUCE_H
#define REACH_BASE_REDUCE_H
#include <stddef.h>
#include "base/state.h"

typedef void reduce_fn(void *dst, const void *src, size_t n);

/* The kernel of op on type; NULL where op does not apply to type (bitwise
 * and logical ones to float and double) or type is not REACH_INT to
 * REACH_DOUBLE. */
reduce_fn *reduce_kernel(reach_type_t type, reach_reduce_op_t op) REACH_HIDDEN;
#endif
