/* The mcs mutex, paper 000's software queuing lock. The lock word holds
 * the tail of a queue of waiting processes, as (rank + 1) << 32 |
 * generation << 6 | queue-node slot; each waiter sleeps on its own queue
 * node and is woken by its predecessor, so the lock passes in FIFO order
 * with one store (one message to another node, none on the node) and,
 * only if the waiter sleeps, one futex wake. The lock's server takes part only in
 * the swap on the lock word from another node.
 * Release without a compare-and-swap (which the paper leaves as future
 * work): a holder with no successor swaps RELEASED into its own queue
 * node's next — a local atomic, no message — and leaves the node
 * "parked" as the queue's tail. The next process to swap the lock word
 * gets the parked node as predecessor and links to it with a swap; if
 * that returns RELEASED it holds the lock at once. From another node the
 * link is one message, and the predecessor's server answers (a push)
 * only in that case, so a contended hand-off still costs the swap and
 * one message. A parked slot is free again once a successor has linked
 * to it, or, when every slot is parked, after a compare-and-swap of the
 * lock word from it to empty. Trylock takes a lock whose tail is parked
 * by a compare-and-swap from that tail to itself. The generation (per
 * slot, 26 bits) keeps a slot used again from being mistaken for its
 * parked past.
 */
#include "sync/mutex.h"
#include "base/arena.h"
#include "base/wait.h"
#include "core/rma.h"

#include <sched.h>
#include <stddef.h>

typedef struct mcs_qnode {
    _Alignas(CACHE_LINE) _Atomic uint64_t next;
    waitword_t locked;   /* 1 while waiting, 0 once the lock is passed */
} mcs_qnode_t;

_Static_assert(ARENA_QNODE_OFF + ARENA_QNODES * sizeof(mcs_qnode_t) <= ARENA_BARRIER_OFF,
               "queue nodes overlap the barrier");

/* This process's queue-node slots: free, parked (released with no
 * successor, still the tail of that lock's queue), or held. */
static struct {
    uint64_t free, parked;
    uint32_t gen[ARENA_QNODES];        /* uses of each slot */
    struct {
        reach_mutexes_t *set;
        int id, rank;
        uint64_t enc;
    } park[ARENA_QNODES];
} slots = {.free = ~(uint64_t)0};

/* next of a released queue node whose holder saw no successor; never an
 * encoding (those have rank + 1 >= 1 in the high half). */
#define MCS_RELEASED ((uint64_t)1)
#define MCS_SLOT_BITS 6   /* ARENA_QNODES == 64 */

static int mcs_id_link;   /* the link handler, at the predecessor's server */

static inline uint64_t mcs_encode(int rank, int slot)
{
    uint32_t gen = slots.gen[slot] & ((1u << (32 - MCS_SLOT_BITS)) - 1);
    return ((uint64_t)(rank + 1) << 32) | gen << MCS_SLOT_BITS | (uint32_t)slot;
}

static void mcs_slot_free(int slot)
{
    slots.parked &= ~((uint64_t)1 << slot);
    slots.free |= (uint64_t)1 << slot;
}

static inline int mcs_slot(uint64_t enc)
{
    return (int)(enc & (ARENA_QNODES - 1));
}

static inline int mcs_rank(uint64_t enc)
{
    return (int)(enc >> 32) - 1;
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

/* A compare-and-swap or store (trylock's) on the next field of a queue
 * node; returns the old value. */
static uint64_t mcs_next_op(uint64_t enc, word_op_t op, uint64_t a, uint64_t b)
{
    return rma_word(mcs_rank(enc), mcs_next_raddr(enc), op, a, b);
}

/* Passes the lock to the successor: on this node, clears its flag and
 * wakes it; on another, one message straight to the successor, which waits
 * for it (am_push), so that no thread but the successor's has to run. */
static void mcs_pass(uint64_t next)
{
    mcs_qnode_t *nq = mcs_qnode(next);
    if (nq) {
        atom_store_seq_cst(&nq->locked.value, 0);
        waitword_wake(&nq->locked);
    } else {
        am_push(mcs_rank(next), 1);
    }
}

/* Swap or compare-and-swap on lock word (rank, id): a CPU atomic on this
 * node, the target's server on another. Returns the old value. */
static uint64_t mcs_word_op(reach_mutexes_t *set, int id, int rank, word_op_t op, uint64_t a, uint64_t b)
{
    return rma_word(rank, mutex_words(set, id, rank), op, a, b);
}

/* A parked node is free again once a successor has linked to it. */
static int mcs_consumed(int slot)
{
    return atom_load_acquire(&mcs_qnode(slots.park[slot].enc)->next) != MCS_RELEASED;
}

/* Frees a parked slot by force: empties its lock if the node is still the
 * tail, or else waits for the successor that swapped the lock word to
 * link (it is on its way). */
static void mcs_reclaim(int slot)
{
    uint64_t enc = slots.park[slot].enc;
    if (mcs_word_op(slots.park[slot].set, slots.park[slot].id, slots.park[slot].rank, WORD_CAS64,
                    enc, 0) != enc)
        for (unsigned i = 0; !mcs_consumed(slot); i++) {
            if (i < rt.cfg.spin_count) {
                cpu_relax();
            } else {
                wait_tick();
                sched_yield();
            }
        }
    mcs_slot_free(slot);
}

/* A slot for a new queue node: a free one, one whose parked node was
 * consumed, or a parked one reclaimed; fails if this process holds
 * ARENA_QNODES locks. */
static int mcs_slot_take(const char *call, int *slot)
{
    for (uint64_t p = slots.parked; p; p &= p - 1) {
        int i = __builtin_ctzll(p);
        if (mcs_consumed(i))
            mcs_slot_free(i);
    }
    if (slots.free == 0 && slots.parked != 0)
        mcs_reclaim(__builtin_ctzll(slots.parked));
    if (slots.free == 0)
        return rt_error(REACH_ERR_MUTEX, call, "this process already holds %d mutexes, the most it may",
                        ARENA_QNODES);
    *slot = __builtin_ctzll(slots.free);
    slots.gen[*slot]++;
    return REACH_SUCCESS;
}

static inline void mcs_slot_hold(signed char *entry, int slot)
{
    slots.free &= ~((uint64_t)1 << slot);
    *entry = (signed char)slot;
}

/* Takes the lock: swap the lock word; behind a predecessor, link to it
 * with a swap, which finds RELEASED if it left a parked node. The queue
 * node's flag reads 0 once the lock is held, which a waiter's report reads
 * to tell the holder from a rank waiting ahead. */
int mcs_lock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry)
{
    int slot = 0, st = mcs_slot_take(call, &slot);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    mcs_slot_hold(entry, slot);
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    atom_store_relaxed(&q->next, 0);
    atom_store_relaxed(&q->locked.value, 1);
    uint64_t prev = mcs_word_op(set, id, rank, WORD_SWAP64, me, 0);
    if (prev != 0) {
        mcs_qnode_t *pq = mcs_qnode(prev);
        wait_for(WAIT_MUTEX, rank, id, 0);
        wait_behind(mcs_rank(prev), pq ? &pq->locked.value : NULL);
        if (pq == NULL) {
            /* One message: the predecessor's server links us, and answers
             * only if the predecessor had left; otherwise the predecessor
             * passes the lock when it leaves. Either comes as a push. */
            rt_stat_inc(&rt.stats.remote_atomics);
            am_call(mcs_rank(prev), mcs_id_link, mcs_next_raddr(prev), me, MCS_RELEASED, NULL, 0, 0, NULL, 0);
            if (am_wait_push() != 0)   /* 1: passed by a holder, 0: it had left */
                rt.stats.lock_contended++;
        } else if (atom_xchg_acq_rel(&pq->next, me) != MCS_RELEASED) {
            rt.stats.lock_contended++;
            waitword_wait_change(&q->locked, 1);
        }
        wait_done();
    }
    atom_store_relaxed(&q->locked.value, 0);
    return REACH_SUCCESS;
}

/* Takes the lock only if it is free: empty, or its tail a parked node
 * (whose next still reads RELEASED; then nobody can have queued behind
 * it, and the generation in the encoding rules out a reused slot). */
int mcs_trylock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry,
                       int *acquired)
{
    int slot = 0, st = mcs_slot_take(call, &slot);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    atom_store_relaxed(&q->next, 0);
    uint64_t tail = mcs_word_op(set, id, rank, WORD_CAS64, 0, me);
    *acquired = tail == 0;
    if (tail != 0 && mcs_next_op(tail, WORD_CAS64, MCS_RELEASED, MCS_RELEASED) == MCS_RELEASED &&
        mcs_word_op(set, id, rank, WORD_CAS64, tail, me) == tail) {
        /* Consumed: its owner may use the slot again. */
        mcs_next_op(tail, WORD_STORE64, me, 0);
        *acquired = 1;
    }
    if (*acquired)
        mcs_slot_hold(entry, slot);
    return REACH_SUCCESS;
}

void mcs_unlock(reach_mutexes_t *set, int id, int rank, signed char *entry)
{
    int slot = *entry;
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    uint64_t next = atom_load_acquire(&q->next);
    if (next == 0 && (next = atom_xchg_acq_rel(&q->next, MCS_RELEASED)) == 0) {
        /* No successor: the node stays the tail, parked. */
        slots.parked |= (uint64_t)1 << slot;
        slots.park[slot].set = set;
        slots.park[slot].id = id;
        slots.park[slot].rank = rank;
        slots.park[slot].enc = me;
        return;
    }
    mcs_pass(next);
    slots.free |= (uint64_t)1 << slot;
}

void mcs_forget(reach_mutexes_t *set)
{
    for (int i = 0; i < ARENA_QNODES; i++)
        if ((slots.parked >> i & 1) && slots.park[i].set == set)
            mcs_slot_free(i);
}

void mcs_reset(void)
{
    slots.free = ~(uint64_t)0;
    slots.parked = 0;
}

/* A waiter on another node links to its predecessor's queue node (a): if
 * the predecessor had left (b, RELEASED), the lock is the waiter's, and
 * the server tells it with a push; else the predecessor passes it later. */
static int mcs_serve_link(am_target_t *t)
{
    if (atom_xchg_acq_rel((_Atomic uint64_t *)(void *)t->local, t->a) == t->b)
        am_server_push(t->origin, 0);
    return 1;
}

void mcs_register(void)
{
    mcs_id_link = am_handler(mcs_serve_link, 0);
}
