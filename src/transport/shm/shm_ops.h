#ifndef REACH_SHM_OPS_H
#define REACH_SHM_OPS_H
#include "transport/shm/shm.h"
#include "base/copy.h"
#include "base/xfer.h"

#include <string.h>

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
