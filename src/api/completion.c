/* Fences, barriers and notifications: the public calls,
 * each done by sync/ (sync/barrier.c, sync/fence.c, sync/notify.c). */
#include "sync/calls.h"

int reach_fence(int rank)
{
    return fence_rank(rank);
}

int reach_fence_all(void)
{
    return fence_all();
}

int reach_barrier(void)
{
    return fence_barrier();
}

int reach_fence_group(reach_group_t *g)
{
    return fence_group(g);
}

int reach_barrier_group(reach_group_t *g)
{
    return fence_barrier_group(g);
}

int reach_set_barrier(const char *algorithm)
{
    return barrier_set_kind(algorithm);
}

int reach_notify(int rank)
{
    return notify_rank(rank);
}

int reach_notify_wait(int rank, int *waited)
{
    return notify_wait(rank, waited);
}
