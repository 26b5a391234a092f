/* The MPI communicator behind a handle of boot/boot.h, and a handle for a
 * communicator of the caller's: for the public calls that take or return
 * an MPI_Comm (reach_mpi.h), and for boot itself. */
#ifndef REACH_BOOT_MPI_H
#define REACH_BOOT_MPI_H
#include "boot/boot.h"
#include "reach_mpi.h"

/* c's communicator; MPI_COMM_NULL for NULL. */
MPI_Comm boot_comm_mpi(const boot_comm_t *c) REACH_HIDDEN;
/* A handle of comm, which stays the caller's (boot_comm_free frees only the
 * handle); NULL for MPI_COMM_NULL. */
boot_comm_t *boot_comm_wrap(MPI_Comm comm) REACH_HIDDEN;
/* A handle that owns comm and frees it with itself; NULL for MPI_COMM_NULL. */
boot_comm_t *boot_comm_own(MPI_Comm comm) REACH_HIDDEN;
#endif
