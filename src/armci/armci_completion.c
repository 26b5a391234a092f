/* Completion and synchronization of the ARMCI layer: non-blocking handles
 * (wait, test, aggregate handles), fences, the barrier, and notify. */
#include "armci_internal.h"

/* Every non-blocking operation is issued with a request of reach's that is
 * then dropped (the 8 bytes of ARMCI-MPI's handle cannot hold one): reach
 * completes a dropped request by reach_wait_rank or reach_wait_all. The
 * handle records where the operation went; a wait completes every
 * operation to that rank, or to all for an aggregate handle. */
void PARMCI_INIT_HANDLE(armci_hdl_t *h)
{
    if (h != NULL)
        *h = (armci_hdl_t){.target = -1, .aggregate = 0};
}
ARMCI_ALIAS(ARMCI_INIT_HANDLE)

int PARMCI_Wait(armci_hdl_t *h)
{
    ARMCI_ENTRY();
    if (h == NULL)
        return REACH_SUCCESS;
    int st = h->aggregate ? reach_wait_all() : h->target == -1 ? REACH_SUCCESS : reach_wait_rank(h->target);
    if (st == REACH_SUCCESS)
        h->target = -1;
    return st;
}
ARMCI_ALIAS(ARMCI_Wait)

/* 0 once the handle's operations are complete (their buffers may be
 * reused); a test completes what it asks about, as ARMCI-MPI's does. A
 * handle that names no rank ends the job: 1 would have the caller test it
 * forever. */
int PARMCI_Test(armci_hdl_t *h)
{
    ARMCI_ENTRY();
    armci_check(PARMCI_Wait(h));
    return 0;
}
ARMCI_ALIAS(ARMCI_Test)

int PARMCI_WaitAll(void)
{
    ARMCI_ENTRY();
    return reach_wait_all();
}
ARMCI_ALIAS(ARMCI_WaitAll)

int PARMCI_WaitProc(int proc)
{
    ARMCI_ENTRY();
    return reach_wait_rank(proc);
}
ARMCI_ALIAS(ARMCI_WaitProc)

void PARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *h)
{
    if (h != NULL)
        *h = (armci_hdl_t){.target = -1, .aggregate = 1};
}
ARMCI_ALIAS(ARMCI_SET_AGGREGATE_HANDLE)

void PARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *h)
{
    if (h != NULL)
        *h = (armci_hdl_t){.target = -1, .aggregate = 0};
}
ARMCI_ALIAS(ARMCI_UNSET_AGGREGATE_HANDLE)

void PARMCI_Fence(int proc)
{
    ARMCI_ENTRY();
    armci_check(reach_fence(proc));
}
ARMCI_ALIAS(ARMCI_Fence)

void PARMCI_AllFence(void)
{
    ARMCI_ENTRY();
    armci_check(reach_fence_all());
}
ARMCI_ALIAS(ARMCI_AllFence)

void PARMCI_GroupFence(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    reach_group_t *g = armci_group(group);
    armci_check(g ? reach_fence_group(g) : REACH_ERR_HANDLE);
}
ARMCI_ALIAS(ARMCI_GroupFence)

void PARMCI_Barrier(void)
{
    ARMCI_ENTRY();
    armci_check(reach_barrier());
}
ARMCI_ALIAS(ARMCI_Barrier)

int parmci_notify(int proc)
{
    ARMCI_ENTRY();
    return reach_notify(proc);
}
extern __typeof__(parmci_notify) armci_notify __attribute__((weak, alias("parmci_notify")));

int parmci_notify_wait(int proc, int *pval)
{
    ARMCI_ENTRY();
    return reach_notify_wait(proc, pval);
}
extern __typeof__(parmci_notify_wait) armci_notify_wait __attribute__((weak, alias("parmci_notify_wait")));
