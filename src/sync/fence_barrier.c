/* Completion. On the node a put is complete at the target when its stores
 * are globally visible, so a fence there is a memory fence; to another node
 * it is the network transport's flush. The barrier is in barrier.c. */
#include "core/rma.h"
#include "sync/sync.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

int reach_fence(int rank)
{
    int st = rt_check_rank("reach_fence", rank);
    if (st != REACH_SUCCESS)
        return st;
    atom_fence_seq_cst();
    if (rt.peers[rank].map == NULL)
        st = net->flush(rank);
    rt_count(REACH_OP_FENCE, rank, 0);
    return st;
}

int reach_fence_all(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_fence_all", "reach is not initialized");
    atom_fence_seq_cst();
    if (net)
        net->flush_all();
    rt_count(REACH_OP_FENCE, rt.rank, 0);
    return REACH_SUCCESS;
}

int reach_barrier(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_barrier", "reach is not initialized");
    sync_barrier();
    return REACH_SUCCESS;
}
