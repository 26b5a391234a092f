/* Start-up over MPI: who we are, who shares our node. */
#ifndef REACH_BOOT_H
#define REACH_BOOT_H
#include "base/state.h"

/* Initializes MPI if needed (only when comm is MPI_COMM_NULL, meaning the
 * world) and fills rt's rank, size, communicators and node membership. */
int boot_init(int *argc, char ***argv, MPI_Comm comm) REACH_HIDDEN;
/* Frees the communicators; finalizes MPI if boot_init initialized it. */
void boot_finalize(void) REACH_HIDDEN;
#endif
