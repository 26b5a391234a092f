/* The mcs mutex, Buntinas03's software queuing lock (docs/references.md).
 * The lock word holds
 * the tail of a queue of waiting processes, as (rank + 1) << 32 |
 * generation << 6 | queue-node slot; each waiter sleeps on its own queue
 * node and is woken by its predecessor, so the lock passes in FIFO order
 * with one store (one message to another node, none on the node) and,
 * only if the waiter sleeps, one futex wake. The lock's server takes part only in
 * the swap on the lock word from another node; there it also links the
 * waiter behind a tail of its own node. So a contended hand-off from the
 * lock's node to another takes one message each way (the swap's request,
 * the pass, or two where the holder passes through a rank it wrote:
 * mcs_pass_after); behind such a tail the server sends no answer of its
 * own.
 * Release without a compare-and-swap (which the paper leaves as future
 * work): a holder with no successor swaps RELEASED into its own queue
 * node's next — a local atomic, no message — and leaves the node
 * "parked" as the queue's tail. The next process to swap the lock word
 * gets the parked node as predecessor and links to it with a swap; if
 * that returns RELEASED it holds the lock at once. From another node the
 * link is the lock's server's own exchange if the predecessor is on its
 * node, the waiter's if on the waiter's; else one message, and the
 * predecessor's server answers (a push) only in that case. A parked slot
 * is free again once a successor has linked to it, or, when every slot is
 * parked, after a compare-and-swap of the lock word from it to empty.
 * Trylock takes a lock whose tail is parked by a compare-and-swap from
 * that tail to itself. The generation (per slot, 26 bits) keeps a slot
 * used again from being mistaken for its parked past.
 *
 * Lock and unlock are inline: uncontended on the node they are a few
 * atomics (~19 ns the pair), of which a call into another file would add a
 * tenth. Slot reclaim, the swap and the link from another node, trylock
 * and their handlers are in mutex_mcs.c.
 */
#ifndef REACH_SYNC_MUTEX_MCS_H
#define REACH_SYNC_MUTEX_MCS_H

#include "sync/mutex.h"
#include "base/arena.h"
#include "base/wait.h"
#include "core/rma.h"

#include <stddef.h>

typedef struct mcs_qnode {
    _Alignas(CACHE_LINE) _Atomic uint64_t next;
    waitword_t locked; /* 1 while waiting, 0 once the lock is passed */
} mcs_qnode_t;

_Static_assert(ARENA_QNODE_OFF + ARENA_QNODES * sizeof(mcs_qnode_t) <= ARENA_BARRIER_OFF,
               "queue nodes overlap the barrier");

/* This process's queue-node slots: free, parked (released with no
 * successor, still the tail of that lock's queue), or held. */
typedef struct mcs_slots {
    uint64_t free, parked;
    uint32_t gen[ARENA_QNODES]; /* uses of each slot */
    struct {
        reach_mutexes_t *set;
        int id, rank;
        uint64_t enc;
    } park[ARENA_QNODES];
} mcs_slots_t;
extern mcs_slots_t mcs_slots REACH_HIDDEN;

/* next of a released queue node whose holder saw no successor; never an
 * encoding (those have rank + 1 >= 1 in the high half). */
#define MCS_RELEASED ((uint64_t)1)
#define MCS_SLOT_BITS 6 /* ARENA_QNODES == 64 */
/* What a push to a waiter of another node carries: 0, the lock is its (it
 * was free, or its tail had left); MCS_PASSED, a holder passed it; else
 * (from the lock's server) the old tail, of another node than the
 * server's, to link to (an encoding: never 0 or 1). */
#define MCS_PASSED 1

static inline uint64_t mcs_encode(int rank, int slot)
{
    uint32_t gen = mcs_slots.gen[slot] & ((1u << (32 - MCS_SLOT_BITS)) - 1);
    return ((uint64_t)(rank + 1) << 32) | gen << MCS_SLOT_BITS | (uint32_t)slot;
}

static inline int mcs_slot(uint64_t enc)
{
    return (int)(enc & (ARENA_QNODES - 1));
}

static inline int mcs_rank(uint64_t enc)
{
    return (int)(enc >> 32) - 1;
}

/* Links queue node me behind the node whose next field is next: 1 if
 * that node's holder had left (RELEASED), so the lock is me's at once. */
static inline int mcs_link(_Atomic uint64_t *next, uint64_t me)
{
    return atom_xchg_acq_rel(next, me) == MCS_RELEASED;
}

/* The next field of a queue node, in its process's addresses. */
static inline uintptr_t mcs_next_raddr(uint64_t enc)
{
    return rt.peers[mcs_rank(enc)].rbase + ARENA_QNODE_OFF + (size_t)mcs_slot(enc) * sizeof(mcs_qnode_t) +
           offsetof(mcs_qnode_t, next);
}

/* The queue node, mapped here; NULL if its process is on another node. */
static inline mcs_qnode_t *mcs_qnode(uint64_t enc)
{
    return (mcs_qnode_t *)(void *)rma_here(mcs_rank(enc), mcs_next_raddr(enc));
}

/* Swap or compare-and-swap on lock word (rank, id): a CPU atomic on this
 * node, the target's server on another. Returns the old value. */
static inline uint64_t mcs_word_op(reach_mutexes_t *set, int id, int rank, word_op_t op, uint64_t a, uint64_t b)
{
    return rma_word(rank, mutex_words(set, id, rank), op, a, b);
}

static inline void mcs_slot_hold(signed char *entry, int slot)
{
    mcs_slots.free &= ~((uint64_t)1 << slot);
    *entry = (signed char)slot;
}

/* A free slot for a new queue node (reclaiming a parked one if need be);
 * fails if this process holds ARENA_QNODES locks. */
int mcs_slot_take(const char *call, int *slot) REACH_HIDDEN;
/* Swaps me into lock word word of rank, on another node, at its server,
 * which also links me behind the old tail if that is on its node, and
 * waits for the push that follows (mutex id, for reports): returns 0 once
 * the lock is mine, else the old tail (of another node than the lock's)
 * to link to. */
uint64_t mcs_enqueue_remote(int rank, int id, uintptr_t word, uint64_t me) REACH_HIDDEN;
/* Links queue node me behind prev, on another node, and waits for the lock. */
void mcs_link_remote(uint64_t prev, uint64_t me) REACH_HIDDEN;
/* Passes the lock to the successor next. */
void mcs_pass(uint64_t next) REACH_HIDDEN;
/* Releases the holder's writes and passes the lock to next, behind the
 * writes to the successor or to one other rank written (mutex_mcs.c). */
void mcs_pass_after(uint64_t next) REACH_HIDDEN;

/* Takes the lock: swap the lock word; behind a predecessor, link to it
 * with a swap, which finds RELEASED if it left a parked node. The queue
 * node's flag reads 0 once the lock is held, which a waiter's report reads
 * to tell the holder from a rank waiting ahead. */
static inline int mcs_lock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry)
{
    int slot = 0, st = mcs_slot_take(call, &slot);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    mcs_slot_hold(entry, slot);
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    atom_store_relaxed(&q->next, 0);
    atom_store_relaxed(&q->locked.value, 1);
    uintptr_t word = mutex_words(set, id, rank);
    char *here = rma_here(rank, word);
    uint64_t prev = here ? word_apply(here, WORD_SWAP64, me, 0) : mcs_enqueue_remote(rank, id, word, me);
    mcs_qnode_t *pq = prev != 0 ? mcs_qnode(prev) : NULL;
    /* Behind a predecessor on this node that had left (its node reads
     * RELEASED), the lock is ours at once, with nothing to wait for. */
    if (prev != 0 && (pq == NULL || !mcs_link(&pq->next, me))) {
        wait_for(WAIT_MUTEX, rank, id, 0);
        wait_behind(mcs_rank(prev), pq ? &pq->locked.value : NULL);
        if (pq == NULL) {
            mcs_link_remote(prev, me);
        } else {
            rt.stats.lock_contended++;
            waitword_wait_change(&q->locked, 1);
        }
        wait_done();
    }
    atom_store_relaxed(&q->locked.value, 0);
    return REACH_SUCCESS;
}

/* A release (mutex.h): with no successor yet, the holder's writes are
 * completed before its node reads RELEASED (a successor may link to it
 * at once); a successor on another node is passed the lock behind them
 * (mcs_pass_after). */
static inline void mcs_unlock(reach_mutexes_t *set, int id, int rank, signed char *entry)
{
    int slot = *entry;
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    uint64_t next = atom_load_acquire(&q->next);
    if (next == 0) {
        rma_release();
        if ((next = atom_xchg_acq_rel(&q->next, MCS_RELEASED)) == 0) {
            /* No successor: the node stays the tail, parked. */
            mcs_slots.parked |= (uint64_t)1 << slot;
            mcs_slots.park[slot].set = set;
            mcs_slots.park[slot].id = id;
            mcs_slots.park[slot].rank = rank;
            mcs_slots.park[slot].enc = me;
            return;
        }
        mcs_pass(next);
    } else {
        mcs_pass_after(next);
    }
    mcs_slots.free |= (uint64_t)1 << slot;
}

void mcs_register(void) REACH_HIDDEN;
int mcs_trylock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry,
                int *acquired) REACH_HIDDEN;
/* Nobody uses set any more: its parked queue nodes are free. */
void mcs_forget(reach_mutexes_t *set) REACH_HIDDEN;
/* Every queue node free (finalize). */
void mcs_reset(void) REACH_HIDDEN;

#endif
