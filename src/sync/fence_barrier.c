/* Completion and the barrier. On the node a put is complete at the target
 * when its stores are globally visible, so a fence is a memory fence, and
 * ARMCI_Barrier's all-fence plus barrier is a fence plus the node barrier. */
#include "sync/sync.h"
#include "transport/shm/shm.h"

void sync_barrier(void)
{
    atom_fence_seq_cst();
    shm_node_barrier();
    rt_count(REACH_OP_BARRIER, rt.rank, 0);
}

int reach_fence(int rank)
{
    int st = rt_check_rank("reach_fence", rank);
    if (st != REACH_SUCCESS)
        return st;
    atom_fence_seq_cst();
    rt_count(REACH_OP_FENCE, rank, 0);
    return REACH_SUCCESS;
}

int reach_fence_all(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_fence_all", "reach is not initialized");
    atom_fence_seq_cst();
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
