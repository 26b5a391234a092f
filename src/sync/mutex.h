/* Mutex sets, shared by the set calls (mutex.c) and the algorithms
 * (mutex_mcs.h, mutex_ticket.h).
 *
 * Every algorithm's unlock is a release: each write the holder issued, to
 * any rank, is complete at its target before the next holder can take the
 * lock (core/rma.h's rma_release). Where the lock passes on through a rank
 * the holder wrote (a successor, a server that forwards the lock, the
 * lock's home), the passing message takes effect there only after those
 * writes (core/service.h's svc_call_after, svc_push_after), so they need
 * no fence: only the other ranks written are fenced. */
#ifndef REACH_SYNC_MUTEX_H
#define REACH_SYNC_MUTEX_H

#include "base/state.h"
#include "core/group.h"

struct reach_mutexes {
    uint32_t magic;
    int algorithm; /* LOCK_* */
    size_t stride; /* bytes of one mutex's words */
    reach_group_t *group;
    void *mine;        /* this rank's lock words */
    int *count;        /* mutexes hosted by each rank (0 outside the group) */
    uintptr_t *raddr;  /* each rank's lock words, in its address space */
    int *first;        /* index of (rank, 0) in held[] */
    signed char *held; /* held: queue-node slot (mcs) or 0; -1 if not held */
    reach_mutexes_t *next_set;
};

/* The address of mutex id's words at rank, in rank's address space. */
static inline uintptr_t mutex_words(const reach_mutexes_t *set, int id, int rank)
{
    return set->raddr[rank] + (size_t)id * set->stride;
}

/* mcs: sync/mutex_mcs.h. */

/* ticket and hybrid: sync/mutex_ticket.h. */

#endif
