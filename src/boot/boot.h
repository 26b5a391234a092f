/* Start-up over MPI: who we are, who shares our node. */
#ifndef REACH_BOOT_H
#define REACH_BOOT_H
#include <stddef.h>
#include "base/state.h"

/* Initializes MPI if needed (only when comm is MPI_COMM_NULL, meaning the
 * world) and fills rt's rank, size, communicators and node membership. */
int boot_init(int *argc, char ***argv, MPI_Comm comm) REACH_HIDDEN;
/* Frees the communicators; finalizes MPI if boot_init initialized it. */
void boot_finalize(void) REACH_HIDDEN;
/* Collective: every rank's len bytes at mine, concatenated in rank order
 * (malloc'ed); *offsets (malloc'ed, size + 1 entries) says where each
 * rank's start. */
char *boot_allgatherv(const void *mine, size_t len, int **offsets) REACH_HIDDEN;
/* Collective: a barrier of every rank (start-up and shut-down only). */
void boot_barrier(void) REACH_HIDDEN;
/* Collective: the same, calling progress() while it waits, for what the
 * other ranks need of this one until they arrive too. */
void boot_barrier_progress(void (*progress)(void)) REACH_HIDDEN;
#endif
