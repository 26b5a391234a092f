/* The copy of bytes between this process's memory and a mapping of another
 * process's arena (or within one), which every layer that moves a
 * transfer's bytes on the node uses. glibc's memcpy moves blocks from 2 KiB
 * up to its non-temporal threshold with `rep movsb`. On AMD Zen that drops
 * from 50-90 GB/s to 3 GB/s when the destination lies 1 to 31 bytes past
 * the source modulo 4 KiB (measured on an EPYC, 4 KiB to 256 KiB; every
 * other offset runs at full speed), and a get into a malloc'ed buffer from
 * a page-aligned segment is exactly that case (offset 16). Below 8 KiB its
 * start-up cost also makes it slower than a plain loop (2 KiB: 33 against
 * 39 GB/s), which matters for the runs of a strided transfer. Those copies
 * go through a loop of 64-byte moves. */
#ifndef REACH_BASE_COPY_H
#define REACH_BASE_COPY_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/state.h"

/* n bytes from src to dst by 64-byte moves. */
void copy_chunked(char *dst, const char *src, size_t n) REACH_HIDDEN;

static inline void copy_bytes(void *dst, const void *src, size_t n)
{
    size_t ahead = ((uintptr_t)dst - (uintptr_t)src) & 4095;
    if (n >= 2048 && (n < 8192 || (n < ((size_t)512 << 10) && ahead - 1 < 31)))
        copy_chunked(dst, src, n);
    else
        memcpy(dst, src, n);
}
#endif
