/* Completion: fences to one rank, to all, to a group's members, and the
 * public barriers (the barrier algorithms are in barrier.c). */
#include "core/group.h"
#include "core/rma.h"
#include "sync/calls.h"
#include "sync/sync.h"

int fence_rank(int rank)
{
    int st = rt_check_rank("reach_fence", rank);
    if (st != REACH_SUCCESS)
        return st;
    rma_fence(rank);
    rma_count(REACH_OP_FENCE, rank, 0);
    return REACH_SUCCESS;
}

int fence_all(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_fence_all", "reach is not initialized");
    rma_fence_all();
    rma_count(REACH_OP_FENCE, rt.rank, 0);
    return REACH_SUCCESS;
}

int fence_barrier(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_barrier", "reach is not initialized");
    sync_barrier();
    return REACH_SUCCESS;
}

int fence_group(reach_group_t *g)
{
    int st = group_check("reach_fence_group", g);
    for (int i = 0; st == REACH_SUCCESS && i < g->size; i++)
        st = fence_rank(g->world[i]);
    return st;
}

/* The group's fences, then its barrier on reach's own signals (coll.c). */
int fence_barrier_group(reach_group_t *g)
{
    int st = fence_group(g);
    return st == REACH_SUCCESS ? coll_sync_group(g, REACH_SCOPE_ALL) : st;
}
