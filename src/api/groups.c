/* Groups: argument checks, then core/group.c's groups and core/mem.c's
 * collective allocations over them. */
#include "base/serial.h"
#include "core/group.h"
#include "core/mem.h"
#include "boot/boot_mpi.h"

#include <stdlib.h>

reach_group_t *reach_group_world(void)
{
    return rt.initialized ? &group_world : NULL;
}

int reach_group_create(reach_group_t *parent, int n, const int *members, reach_group_t **out)
{
    SERIAL_CALL(SERIAL_SYNC);
    const char *call = "reach_group_create";
    int st = group_check(call, parent);
    if (st != REACH_SUCCESS)
        return st;
    if (out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "out is NULL");
    else if (n < 0 || n > parent->size || (n > 0 && members == NULL))
        st = rt_error(REACH_ERR_ARG, call, "%d members (of a parent of %d)", n, parent->size);
    char *seen = calloc((size_t)parent->size, 1);
    for (int i = 0; st == REACH_SUCCESS && i < n; i++) {
        if (members[i] < 0 || members[i] >= parent->size)
            st = rt_error(REACH_ERR_RANK, call, "member %d is out of range [0, %d)", members[i], parent->size);
        else if (seen[members[i]]++)
            st = rt_error(REACH_ERR_ARG, call, "member %d is listed twice", members[i]);
    }
    free(seen);
    if (!boot_all_agree(parent->comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    return group_create(parent, n, members, out);
}

int reach_group_split(reach_group_t *parent, int color, int key, reach_group_t **out)
{
    SERIAL_CALL(SERIAL_SYNC);
    const char *call = "reach_group_split";
    int st = group_check(call, parent);
    if (st == REACH_SUCCESS && out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "out is NULL");
    if (st == REACH_SUCCESS && !boot_all_agree(parent->comm, 1))
        st = REACH_ERR_ARG;
    if (st != REACH_SUCCESS)
        return st;
    return group_split(parent, color, key, out);
}

int reach_group_dup(reach_group_t *parent, reach_group_t **out)
{
    SERIAL_CALL(SERIAL_SYNC);
    const char *call = "reach_group_dup";
    int st = group_check(call, parent);
    if (st == REACH_SUCCESS && out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "out is NULL");
    if (st != REACH_SUCCESS)
        return st;
    return group_dup(parent, out);
}

int reach_group_free(reach_group_t *g)
{
    SERIAL_CALL(SERIAL_SYNC);
    const char *call = "reach_group_free";
    int st = group_check(call, g);
    if (st == REACH_SUCCESS && g == &group_world)
        st = rt_error(REACH_ERR_ARG, call, "the world group cannot be freed");
    if (st != REACH_SUCCESS)
        return st;
    group_free(g);
    return REACH_SUCCESS;
}

int reach_group_rank(const reach_group_t *g)
{
    return group_check("reach_group_rank", g) == REACH_SUCCESS ? g->rank : -1;
}

int reach_group_size(const reach_group_t *g)
{
    return group_check("reach_group_size", g) == REACH_SUCCESS ? g->size : -1;
}

int reach_group_world_rank(const reach_group_t *g, int rank)
{
    if (group_check("reach_group_world_rank", g) != REACH_SUCCESS)
        return -1;
    if (rank < 0 || rank >= g->size) {
        rt_error(REACH_ERR_RANK, "reach_group_world_rank", "rank %d is out of range [0, %d)", rank, g->size);
        return -1;
    }
    return g->world[rank];
}

int reach_malloc_group(reach_group_t *g, size_t bytes, void *bases[])
{
    SERIAL_CALL(SERIAL_SYNC);
    int st = group_check("reach_malloc_group", g);
    return st != REACH_SUCCESS ? st : mem_alloc_collective("reach_malloc_group", g, bytes, bases, 1);
}

int reach_free_group(reach_group_t *g, void *base)
{
    SERIAL_CALL(SERIAL_SYNC);
    int st = group_check("reach_free_group", g);
    return st != REACH_SUCCESS ? st : mem_free_collective("reach_free_group", g, base, 1);
}

/* The communicators behind a group (reach_mpi.h). */
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
