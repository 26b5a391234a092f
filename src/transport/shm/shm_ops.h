#ifndef REACH_SHM_OPS_H
#define REACH_SHM_OPS_H
#include "transport/shm/shm.h"
#include "base/xfer.h"

#include <string.h>

/* Copies between this process's memory and a mapping. glibc's memcpy moves
 * blocks from 2 KiB up to its non-temporal threshold with `rep movsb`. On
 * AMD Zen that drops from 50-90 GB/s to 3 GB/s when the destination lies 1
 * to 31 bytes past the source modulo 4 KiB (measured on an EPYC, 4 KiB to
 * 256 KiB; every other offset runs at full speed), and a get into a
 * malloc'ed buffer from a page-aligned segment is exactly that case
 * (offset 16). Below 8 KiB its start-up cost also makes it slower than a
 * plain loop (2 KiB: 33 against 39 GB/s), which matters for the runs of a
 * strided transfer. Those copies go through a loop of 64-byte moves. */
void shm_copy_chunked(char *dst, const char *src, size_t n) REACH_HIDDEN;

static inline void shm_copy(void *dst, const void *src, size_t n)
{
    size_t ahead = ((uintptr_t)dst - (uintptr_t)src) & 4095;
    if (n >= 2048 && (n < 8192 || (n < ((size_t)512 << 10) && ahead - 1 < 31)))
        shm_copy_chunked(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* Runs over a merged strided plan (core/strided.h) between two local
 * addresses; ACC accumulates into dst, which lies in rank's arena. */
void shm_strided_copy(const reach_strided_t *plan, const char *src, char *dst) REACH_HIDDEN;
void shm_strided_acc(int rank, reach_type_t t, const void *scale, const reach_strided_t *plan, const char *src,
                     char *dst) REACH_HIDDEN;

/* dst (rank's memory, mapped here) += scale * src, per stripe. */
void shm_acc(int rank, reach_type_t t, const void *scale, const void *src, char *dst, size_t bytes) REACH_HIDDEN;
/* Read-modify-write (base/xfer.h) of a 4- or 8-byte word under its
 * stripe lock; returns the old value. */
int64_t shm_atomic(int rank, char *dst, int width, amo_op_t op, int64_t a, int64_t b) REACH_HIDDEN;
#endif
