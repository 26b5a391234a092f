/* Groups: the public calls over core/group.c's groups. */
#include "core/group.h"
#include "boot/boot_mpi.h"

MPI_Comm reach_group_comm(const reach_group_t *g)
{
    return boot_comm_mpi(group_check("reach_group_comm", g) == REACH_SUCCESS ? g->comm : NULL);
}

MPI_Comm reach_group_node_comm(const reach_group_t *g)
{
    return boot_comm_mpi(group_check("reach_group_node_comm", g) == REACH_SUCCESS ? g->node_comm : NULL);
}

MPI_Comm reach_group_masters_comm(const reach_group_t *g)
{
    return boot_comm_mpi(group_check("reach_group_masters_comm", g) == REACH_SUCCESS ? g->masters_comm : NULL);
}
