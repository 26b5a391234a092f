#ifndef REACH_SHM_OPS_H
#define REACH_SHM_OPS_H
#include "transport/shm/shm.h"

#include <string.h>

/* Copies between this process's memory and a mapping. glibc's memcpy moves
 * mid-sized blocks with `rep movsb`, which on AMD Zen runs at 2-3 GB/s
 * instead of 40-50 GB/s when destination and source are not 32-byte aligned
 * to each other (measured on an EPYC: 64 KiB, dst - src = 16: 2.9 GB/s).
 * Such copies go through a loop of 64-byte moves instead. Below 2 KiB and
 * from 512 KiB on (where glibc switches to non-temporal stores) memcpy is
 * as fast or faster at every alignment. */
static inline void shm_copy(void *dst, const void *src, size_t n)
{
    if (n < 2048 || n >= ((size_t)512 << 10) || (((uintptr_t)dst - (uintptr_t)src) & 31) == 0) {
        memcpy(dst, src, n);
        return;
    }
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        memcpy(d + i, s + i, 64);
    memcpy(d + i, s + i, n - i);
}

typedef enum shm_atomic_op { SHM_ATOMIC_ADD, SHM_ATOMIC_SWAP, SHM_ATOMIC_CAS } shm_atomic_op_t;

/* dst (rank's memory, mapped here) += scale * src, per stripe. */
void shm_acc(int rank, reach_type_t t, const void *scale, const void *src, char *dst,
             size_t bytes) REACH_HIDDEN;
/* Read-modify-write of a 4- or 8-byte word; returns the old value.
 * ADD adds a, SWAP stores a, CAS stores b if the word equals a. */
int64_t shm_atomic(int rank, char *dst, int width, shm_atomic_op_t op, int64_t a,
                   int64_t b) REACH_HIDDEN;
#endif
