#ifndef REACH_SHM_OPS_H
#define REACH_SHM_OPS_H
#include "transport/shm/shm.h"

typedef enum shm_atomic_op { SHM_ATOMIC_ADD, SHM_ATOMIC_SWAP, SHM_ATOMIC_CAS } shm_atomic_op_t;

/* dst (rank's memory, mapped here) += scale * src, per stripe. */
void shm_acc(int rank, reach_type_t t, const void *scale, const void *src, char *dst,
             size_t bytes) REACH_HIDDEN;
/* Read-modify-write of a 4- or 8-byte word; returns the old value.
 * ADD adds a, SWAP stores a, CAS stores b if the word equals a. */
int64_t shm_atomic(int rank, char *dst, int width, shm_atomic_op_t op, int64_t a,
                   int64_t b) REACH_HIDDEN;
#endif
