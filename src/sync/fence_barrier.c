/* Completion and the barrier. On the node a put is complete at the target
 * when its stores are globally visible, so a fence there is a memory fence;
 * to another node it is the network transport's flush. ARMCI_Barrier is an
 * all-fence, then a barrier: the node's processes meet in shared memory,
 * the node leaders in a dissemination barrier over the network (ceil(log2
 * nodes) rounds, each one message per leader), then the node again. */
#include "sync/sync.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

/* Dissemination among node leaders: in round k, leader i adds one to
 * round k's counter at leader i + 2^k and waits for its own to reach the
 * barrier's epoch. */
static void sync_leaders_barrier(void)
{
    static uint32_t epoch;
    epoch++;
    int n = rt.node_count, i = rt.node;
    shm_waitword_t *mine = (shm_waitword_t *)(void *)(rt.peers[rt.rank].map + SHM_DISSEM_OFF);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        int peer = rt.node_members[rt.node_first[(i + dist) % n]];
        uintptr_t raddr = rt.peers[peer].rbase + SHM_DISSEM_OFF + (uintptr_t)k * sizeof(shm_waitword_t);
        net->sync(peer, raddr, NET_SYNC_ADD32_WAKE, 1, 0, NULL);
        for (uint32_t got; (int32_t)((got = atom_load_acquire(&mine[k].value)) - epoch) < 0;)
            shm_waitword_wait_change(&mine[k], got);
    }
}

void sync_barrier(void)
{
    if (net)
        net->flush_all();
    atom_fence_seq_cst();
    shm_node_barrier();
    if (rt.node_count > 1) {
        if (rt.node_rank == 0)
            sync_leaders_barrier();
        shm_node_barrier();
    }
    rt_count(REACH_OP_BARRIER, rt.rank, 0);
}

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
