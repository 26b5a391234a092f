/* Typed remote atomics: 32- and 64-bit fetch-add, swap, compare-and-swap. */
#include "base/serial.h"
#include "core/rma.h"

static inline int atomic_run(const char *call, int rank, void *dst, int width, amo_op_t op, int64_t a, int64_t b,
                             int64_t *old)
{
    SERIAL_CALL(SERIAL_DATA);
    int st = rma_check(call, rank, dst, (size_t)width);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    if (unlikely((uintptr_t)dst % (uintptr_t)width != 0))
        return rt_error(REACH_ERR_ALIGN, call, "target %p is not aligned to %d bytes", dst, width);
    if (unlikely(old == NULL))
        return rt_error(REACH_ERR_ARG, call, "old is NULL");
    rma_count(REACH_OP_ATOMIC, rank, (size_t)width);
    *old = rma_atomic(rank, (uintptr_t)dst, width, op, a, b);
    return REACH_SUCCESS;
}

#define ATOMIC_I32(name, op, A, B, ...)                                      \
    int name(int32_t *dst, __VA_ARGS__, int32_t *old, int rank)              \
    {                                                                        \
        int64_t o = 0;                                                       \
        int st = atomic_run(#name, rank, dst, 4, op, A, B, old ? &o : NULL); \
        if (st == REACH_SUCCESS)                                             \
            *old = (int32_t)o;                                               \
        return st;                                                           \
    }
#define ATOMIC_I64(name, op, A, B, ...)                         \
    int name(int64_t *dst, __VA_ARGS__, int64_t *old, int rank) \
    {                                                           \
        return atomic_run(#name, rank, dst, 8, op, A, B, old);  \
    }

ATOMIC_I32(reach_fetch_add_i32, AMO_ADD, add, 0, int32_t add)
ATOMIC_I64(reach_fetch_add_i64, AMO_ADD, add, 0, int64_t add)
ATOMIC_I32(reach_swap_i32, AMO_SWAP, value, 0, int32_t value)
ATOMIC_I64(reach_swap_i64, AMO_SWAP, value, 0, int64_t value)
ATOMIC_I32(reach_cas_i32, AMO_CAS, compare, value, int32_t compare, int32_t value)
ATOMIC_I64(reach_cas_i64, AMO_CAS, compare, value, int64_t compare, int64_t value)
