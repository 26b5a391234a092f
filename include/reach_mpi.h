/* reach's MPI-facing calls: start-up on a given communicator, and the
 * communicators behind a group (for libraries that mix MPI collectives with
 * reach, such as the ARMCI message layer). */
#ifndef REACH_MPI_H
#define REACH_MPI_H

#include <mpi.h>
#include "reach.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Like reach_init, with comm's processes as the job (MPI must be
 * initialized). reach ranks are ranks in comm. */
REACH_API int reach_init_comm(MPI_Comm comm);

/* The group's communicator; MPI_COMM_NULL for a process outside it. */
REACH_API MPI_Comm reach_group_comm(const reach_group_t *group);
/* Members of the group on this process's node. */
REACH_API MPI_Comm reach_group_node_comm(const reach_group_t *group);
/* The first member of the group on each node; MPI_COMM_NULL elsewhere. */
REACH_API MPI_Comm reach_group_masters_comm(const reach_group_t *group);

#ifdef __cplusplus
}
#endif
#endif
