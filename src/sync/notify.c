/* armci_notify semantics: a process counts, at the receiver, the
 * notifications it sent there; the receiver waits for its n-th. Each
 * counter is a waitword in the receiver's arena, so the waiter sleeps. */
#include "base/wait.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/rma.h"
#include "sync/calls.h"
#include "sync/sync.h"

#include <stdlib.h>

static struct {
    void *mine;         /* my counters, one per sender */
    uintptr_t *raddr;   /* by rank: its counters, in its address space */
    int *sent, *waited; /* by rank */
} nt;

int notify_init(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)rt.size);
    nt.sent = calloc((size_t)rt.size, sizeof(int));
    nt.waited = calloc((size_t)rt.size, sizeof(int));
    nt.raddr = calloc((size_t)rt.size, sizeof(uintptr_t));
    if (!bases || !nt.sent || !nt.waited || !nt.raddr)
        rt_oom("reach_init", sizeof(uintptr_t) * (size_t)rt.size);
    int st = mem_alloc_collective("reach_init", &group_world, sizeof(waitword_t) * (size_t)rt.size, bases, 0);
    if (st == REACH_SUCCESS) {
        nt.mine = bases[rt.rank];
        for (int r = 0; r < rt.size; r++)
            nt.raddr[r] = (uintptr_t)bases[r];
    }
    free(bases);
    return st;
}

void notify_finalize(void)
{
    free(nt.sent);
    free(nt.waited);
    free(nt.raddr);
    nt.raddr = NULL;
    nt.sent = nt.waited = NULL;
    nt.mine = NULL; /* released with every other allocation */
}

int notify_rank(int rank)
{
    int st = fence_rank(rank);
    if (st != REACH_SUCCESS)
        return st;
    rma_word(rank, nt.raddr[rank] + (uintptr_t)rt.rank * sizeof(waitword_t), WORD_ADD32_WAKE, 1, 0);
    return ++nt.sent[rank];
}

int notify_wait(int rank, int *waited)
{
    int st = rt_check_rank("reach_notify_wait", rank);
    if (st != REACH_SUCCESS)
        return st;
    if (waited == NULL)
        return rt_error(REACH_ERR_ARG, "reach_notify_wait", "waited is NULL");
    waitword_t *w = &((waitword_t *)nt.mine)[rank];
    uint32_t want = (uint32_t)++nt.waited[rank];
    wait_for(WAIT_NOTIFY, rank, 0, want);
    waitword_wait_count(w, want);
    wait_done();
    *waited = (int)want;
    return (int)atom_load_acquire(&w->value);
}
