/* Start-up over MPI, and the few collectives of set-up that reach needs of
 * it. No other layer sees MPI: a communicator is an opaque handle made and
 * freed here. */
#ifndef REACH_BOOT_H
#define REACH_BOOT_H
#include <stddef.h>
#include "base/state.h"

/* A set of the job's processes with ranks 0..size-1 among them (an MPI
 * communicator). NULL stands for none: a process left out of a split or a
 * creation gets NULL, and every call below takes no NULL unless it says so. */
typedef struct boot_comm boot_comm_t;

/* Initializes MPI if needed (only when comm is NULL, meaning the world) and
 * fills rt's rank, size, communicators and node membership. comm (from
 * boot_comm_wrap) stays the caller's. */
int boot_init(int *argc, char ***argv, boot_comm_t *comm) REACH_HIDDEN;
/* Frees the communicators; finalizes MPI if boot_init initialized it. */
void boot_finalize(void) REACH_HIDDEN;
/* Collective: every rank's n parts (parts[p], lens[p] bytes), concatenated
 * in rank order and each rank's in part order (malloc'ed); *offsets
 * (malloc'ed, size * n + 1 entries) says where part p of rank r starts,
 * (*offsets)[r * n + p], and so where it ends. Two collectives for all
 * the parts: at more processes than cores each costs milliseconds. */
char *boot_allgatherv(int n, const void *const parts[], const size_t lens[], int **offsets) REACH_HIDDEN;
/* Collective: a barrier of every rank (start-up and shut-down only). */
void boot_barrier(void) REACH_HIDDEN;
/* Collective: the same, calling progress() while it waits, for what the
 * other ranks need of this one until they arrive too. */
void boot_barrier_progress(void (*progress)(void)) REACH_HIDDEN;

/* This process's rank in c, and the number of c's processes. */
int boot_comm_rank(const boot_comm_t *c) REACH_HIDDEN;
int boot_comm_size(const boot_comm_t *c) REACH_HIDDEN;
/* Collective over c: every process's bytes at mine into all (size * bytes),
 * in rank order. */
void boot_allgather(boot_comm_t *c, const void *mine, size_t bytes, void *all) REACH_HIDDEN;
/* The reductions of boot_allreduce: a type and an operation. */
typedef enum boot_reduce {
    BOOT_INT_MAX,  /* int, largest */
    BOOT_INT_LAND, /* int, 1 if every one is non-zero */
    BOOT_ULL_SUM,  /* unsigned long long, sum */
    BOOT_LL_MAX,   /* long long, largest */
} boot_reduce_t;
/* Collective over c: out[i] is op over every process's in[i], for count
 * elements of op's type. */
void boot_allreduce(boot_comm_t *c, boot_reduce_t op, const void *in, void *out, int count) REACH_HIDDEN;
/* Collective over c: a barrier. */
void boot_comm_barrier(boot_comm_t *c) REACH_HIDDEN;
/* Collective over c: the processes of one color (ordered by key, then by
 * rank in c) form a new set; a negative color gives NULL. */
boot_comm_t *boot_comm_split(boot_comm_t *c, int color, int key) REACH_HIDDEN;
/* Collective over c: a new set of the same processes. */
boot_comm_t *boot_comm_dup(boot_comm_t *c) REACH_HIDDEN;
/* Collective over c: a new set of the n processes of c listed in members
 * (ranks in c, in their new order); NULL on a process not listed. */
boot_comm_t *boot_comm_create(boot_comm_t *c, int n, const int *members) REACH_HIDDEN;
/* Frees c (NULL: nothing). A handle of boot_comm_wrap leaves the
 * communicator it wraps to its owner. */
void boot_comm_free(boot_comm_t *c) REACH_HIDDEN;

/* Collective over comm: 1 on every rank if ok is non-zero on every rank, so
 * that a collective call fails everywhere or nowhere. */
int boot_all_agree(boot_comm_t *comm, int ok) REACH_HIDDEN;
/* Collective over comm: 1 if every rank passed the same value; *lo and
 * *hi get the smallest and largest. */
int boot_all_same(boot_comm_t *comm, int value, int *lo, int *hi) REACH_HIDDEN;

#endif
