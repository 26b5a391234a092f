/* The ticket and hybrid mutexes:
 *
 * ticket  Zhang04 (docs/references.md): two counters at the lock's home (sync/counter.h),
 *   tickets taken and tickets served; a fetch-and-add takes a ticket, the
 *   home pushes the turn to the waiter, release adds one to served.
 * hybrid  Buntinas03's baseline (ARMCI's original lock): the same ticket
 *   lock for processes of the lock's node; a process on another node sends
 *   one request to the lock's server, which takes a ticket on its behalf
 *   and answers when its turn comes.
 * Release: the holder's writes are complete before the next holder's turn
 * (mutex.h); the release's add to served is taken by the home's server
 * only after the holder's writes to the home, so those cost no fence.
 *
 * Inline: on the node a lock+unlock is two counter adds and a read. */
#ifndef REACH_SYNC_MUTEX_TICKET_H
#define REACH_SYNC_MUTEX_TICKET_H

#include "base/wait.h"
#include "sync/counter.h"
#include "sync/mutex.h"

static inline size_t ticket_stride(void)
{
    return 2 * ctr_home_size();
}

/* The counters of mutex (rank, id): tickets taken, tickets served. */
static inline void ticket_refs(reach_mutexes_t *set, int id, int rank, ctr_ref_t *taken, ctr_ref_t *served)
{
    uintptr_t base = mutex_words(set, id, rank);
    ctr_ref_init(taken, rank, base);
    ctr_ref_init(served, rank, base + ctr_home_size());
}

static inline void ticket_lock(reach_mutexes_t *set, int id, int rank)
{
    ctr_ref_t taken, served;
    ticket_refs(set, id, rank, &taken, &served);
    wait_for(WAIT_MUTEX, rank, id, 0);
    if (set->algorithm == LOCK_HYBRID && ctr_here(&taken) == NULL) {
        /* One request; the lock's server answers when the turn comes. */
        ctr_lock_at_home(&taken);
        wait_done();
        return;
    }
    int64_t ticket;
    ctr_add(&taken, 1, &ticket);
    ctr_home_t *here = ctr_here(&served);
    if (here && atom_load_relaxed(&here->value) != ticket)
        rt.stats.lock_contended++;
    ctr_add_wait(&served, 0, ticket);
    wait_done();
}

static inline int ticket_trylock(reach_mutexes_t *set, int id, int rank)
{
    ctr_ref_t taken, served;
    ticket_refs(set, id, rank, &taken, &served);
    return ctr_try_lock(&taken);
}

/* A release: the add to served travels behind the holder's writes to the
 * lock's home, and only the other ranks written are fenced first. */
static inline void ticket_unlock(reach_mutexes_t *set, int id, int rank)
{
    ctr_ref_t taken, served;
    ticket_refs(set, id, rank, &taken, &served);
    ctr_release_add(&served, 1);
}

#endif
