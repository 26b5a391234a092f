/* Fences, barriers and notifications: the public calls,
 * each done by sync/ (sync/barrier.c, sync/fence.c, sync/notify.c). */
#include "base/serial.h"
#include "sync/calls.h"

int reach_fence(int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return fence_rank(rank);
}

int reach_fence_all(void)
{
    SERIAL_CALL(SERIAL_SYNC);
    return fence_all();
}

int reach_barrier(void)
{
    SERIAL_CALL(SERIAL_SYNC);
    return fence_barrier();
}

int reach_fence_group(reach_group_t *g)
{
    SERIAL_CALL(SERIAL_SYNC);
    return fence_group(g);
}

int reach_barrier_group(reach_group_t *g)
{
    SERIAL_CALL(SERIAL_SYNC);
    return fence_barrier_group(g);
}

int reach_set_barrier(const char *algorithm)
{
    SERIAL_CALL(SERIAL_SYNC);
    return barrier_set_kind(algorithm);
}

int reach_notify(int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return notify_rank(rank);
}

int reach_notify_wait(int rank, int *waited)
{
    SERIAL_CALL(SERIAL_SYNC);
    return notify_wait(rank, waited);
}
