/* Accumulate and atomics on a mapped arena, under its stripe locks, so that
 * every accumulate and atomic on the same bytes is atomic against the others. */
#include "transport/shm/shm_ops.h"
#include "base/acc.h"
#include "base/strided.h"

#include <string.h>

/* One element that straddles two stripes: hold both, lower index first. */
static void shm_acc_straddling(int rank, reach_type_t t, const void *scale, const char *src, char *dst)
{
    _Atomic uint32_t *a = shm_stripe_lock(rank, dst);
    _Atomic uint32_t *b = shm_stripe_lock(rank, dst + acc_elem_size(t) - 1);
    _Atomic uint32_t *lo = a < b ? a : b, *hi = a < b ? b : a;
    futex_mutex_lock(lo);
    futex_mutex_lock(hi);
    acc_apply(t, scale, src, dst, acc_elem_size(t));
    futex_mutex_unlock(hi);
    futex_mutex_unlock(lo);
}

/* Accumulates one run, taking stripe locks as it goes. *held is the stripe
 * lock the caller already holds (or NULL); the lock of the run's last
 * stripe stays held on return, so that the next run of a strided
 * accumulate in the same stripe takes no lock again. Only one stripe lock
 * is ever held between calls, so no two processes can deadlock. */
static void shm_acc_run(int rank, reach_type_t t, const void *scale, const char *s, char *dst, size_t bytes,
                        _Atomic uint32_t **held)
{
    size_t es = acc_elem_size(t);
    while (bytes > 0) {
        size_t n = shm_stripe_room(rank, dst);
        n = n < bytes ? n - n % es : bytes;
        if (n == 0) {
            if (*held) {
                futex_mutex_unlock(*held);
                *held = NULL;
            }
            shm_acc_straddling(rank, t, scale, s, dst);
            n = es;
        } else {
            _Atomic uint32_t *lock = shm_stripe_lock(rank, dst);
            if (lock != *held) {
                if (*held)
                    futex_mutex_unlock(*held);
                futex_mutex_lock(lock);
                *held = lock;
            }
            acc_apply(t, scale, s, dst, n);
        }
        s += n;
        dst += n;
        bytes -= n;
    }
}

void shm_acc(int rank, reach_type_t t, const void *scale, const void *src, char *dst, size_t bytes)
{
    _Atomic uint32_t *held = NULL;
    shm_acc_run(rank, t, scale, src, dst, bytes, &held);
    if (held)
        futex_mutex_unlock(held);
}

/* Copies rows runs of run bytes; inlined with a constant run, each
 * copy is a few moves instead of a call. */
static inline void shm_copy_rows(char *d, size_t ds, const char *s, size_t ss, size_t rows, size_t run)
{
    for (size_t i = 0; i < rows; i++, s += ss, d += ds)
        copy_bytes(d, s, run);
}

/* The strided walk: the innermost level is a plain loop (for a copy of
 * small runs, one per run length), the outer levels the plan's iterator.
 * Inlined with a constant acc, so each caller gets its own loop with no
 * test per run. */
static inline void shm_strided_walk(int acc, int rank, reach_type_t t, const void *scale, const reach_strided_t *p,
                                    const char *src, char *dst)
{
    const size_t run = p->count[0];
    const size_t n1 = p->levels >= 1 ? p->count[1] : 1;
    const size_t ss1 = p->levels >= 1 ? p->src_stride[0] : 0, ds1 = p->levels >= 1 ? p->dst_stride[0] : 0;
    _Atomic uint32_t *held = NULL;
    strided_iter_t it = strided_begin(2);
    do {
        const char *s = src + it.src;
        char *d = dst + it.dst;
        if (acc)
            for (size_t i = 0; i < n1; i++, s += ss1, d += ds1)
                shm_acc_run(rank, t, scale, s, d, run, &held);
        else if (run == 4)
            shm_copy_rows(d, ds1, s, ss1, n1, 4);
        else if (run == 8)
            shm_copy_rows(d, ds1, s, ss1, n1, 8);
        else if (run == 16)
            shm_copy_rows(d, ds1, s, ss1, n1, 16);
        else if (run == 32)
            shm_copy_rows(d, ds1, s, ss1, n1, 32);
        else if (run == 64)
            shm_copy_rows(d, ds1, s, ss1, n1, 64);
        else
            shm_copy_rows(d, ds1, s, ss1, n1, run);
    } while (strided_next(&it, p));
    if (held)
        futex_mutex_unlock(held);
}

void shm_strided_copy(const reach_strided_t *plan, const char *src, char *dst)
{
    shm_strided_walk(0, 0, REACH_INT, NULL, plan, src, dst);
}

void shm_strided_acc(int rank, reach_type_t t, const void *scale, const reach_strided_t *plan, const char *src,
                     char *dst)
{
    shm_strided_walk(1, rank, t, scale, plan, src, dst);
}

int64_t shm_atomic(int rank, char *dst, int width, amo_op_t op, int64_t a, int64_t b)
{
    _Atomic uint32_t *lock = shm_stripe_lock(rank, dst);
    int64_t old;
    futex_mutex_lock(lock);
    if (width == 4) {
        int32_t o;
        memcpy(&o, dst, 4);
        int32_t n = op == AMO_ADD    ? (int32_t)((uint32_t)o + (uint32_t)a)
                    : op == AMO_SWAP ? (int32_t)a
                                     : (o == (int32_t)a ? (int32_t)b : o);
        memcpy(dst, &n, 4);
        old = o;
    } else {
        int64_t o;
        memcpy(&o, dst, 8);
        int64_t n = op == AMO_ADD ? (int64_t)((uint64_t)o + (uint64_t)a) : op == AMO_SWAP ? a : (o == a ? b : o);
        memcpy(dst, &n, 8);
        old = o;
    }
    futex_mutex_unlock(lock);
    return old;
}
