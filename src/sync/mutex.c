/* Mutexes, by one of three algorithms chosen per set (REACH_LOCK,
 * reach_set_lock):
 *
 * mcs  paper 000's software queuing lock: the lock word holds the tail of
 *   a queue of waiting processes, as (rank + 1) << 32 | generation << 6 |
 *   queue-node slot; each waiter sleeps on its own queue node and is woken
 *   by its predecessor, so the lock passes in FIFO order with one store
 *   (one message to another node, none on the node) and, only if the
 *   waiter sleeps, one futex wake. The lock's server takes part only in
 *   the swap on the lock word from another node.
 *   Release without a compare-and-swap (which the paper leaves as future
 *   work): a holder with no successor swaps RELEASED into its own queue
 *   node's next — a local atomic, no message — and leaves the node
 *   "parked" as the queue's tail. The next process to swap the lock word
 *   gets the parked node as predecessor and links to it with a swap; if
 *   that returns RELEASED it holds the lock at once. From another node the
 *   link is one message, and the predecessor's server answers (a push)
 *   only in that case, so a contended hand-off still costs the swap and
 *   one message. A parked slot is free again once a successor has linked
 *   to it, or, when every slot is parked, after a compare-and-swap of the
 *   lock word from it to empty. Trylock takes a lock whose tail is parked
 *   by a compare-and-swap from that tail to itself. The generation (per
 *   slot, 26 bits) keeps a slot used again from being mistaken for its
 *   parked past.
 * ticket  paper 001: two counters at the lock's home (sync/counter.h),
 *   tickets taken and tickets served; a fetch-and-add takes a ticket, the
 *   home pushes the turn to the waiter, release adds one to served.
 * hybrid  paper 000's baseline (ARMCI's original lock): the same ticket
 *   lock for processes of the lock's node; a process on another node sends
 *   one request to the lock's server, which takes a ticket on its behalf
 *   and answers when its turn comes. */
#include "core/rma.h"
#include "core/group.h"
#include "base/handle.h"
#include "core/mem.h"
#include "base/wait.h"
#include "sync/counter.h"
#include "sync/sync.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct mcs_qnode {
    _Atomic uint64_t next;
    char pad[56];
    waitword_t locked;   /* 1 while waiting, 0 once the lock is passed */
} mcs_qnode_t;

_Static_assert(SHM_QNODE_OFF + SHM_QNODES * sizeof(mcs_qnode_t) <= SHM_BARRIER_OFF,
               "queue nodes overlap the barrier");

#define MUTEXES_MAGIC 0x4d555458u   /* "MUTX" */

struct reach_mutexes {
    uint32_t magic;
    int algorithm;       /* LOCK_* */
    size_t stride;       /* bytes of one mutex's words */
    reach_group_t *group;
    void *mine;          /* this rank's lock words */
    int *count;          /* mutexes hosted by each rank (0 outside the group) */
    char **words;        /* each rank's lock words, mapped here (NULL: other node) */
    uintptr_t *raddr;    /* each rank's lock words, in its address space */
    int *first;          /* index of (rank, 0) in held[] */
    signed char *held;   /* held: queue-node slot (mcs) or 0; -1 if not held */
    reach_mutexes_t *next_set;
};

static reach_mutexes_t *sets;     /* live sets, destroyed at finalize */
static handle_pool_t set_pool;

/* This process's queue-node slots: free, parked (released with no
 * successor, still the tail of that lock's queue), or held. */
static struct {
    uint64_t free, parked;
    uint32_t gen[SHM_QNODES];        /* uses of each slot */
    struct {
        reach_mutexes_t *set;
        int id, rank;
        uint64_t enc;
    } park[SHM_QNODES];
} slots = {.free = ~(uint64_t)0};

/* next of a released queue node whose holder saw no successor; never an
 * encoding (those have rank + 1 >= 1 in the high half). */
#define MCS_RELEASED ((uint64_t)1)
#define MCS_SLOT_BITS 6   /* SHM_QNODES == 64 */

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
    return (int)(enc & (SHM_QNODES - 1));
}

static inline int mcs_rank(uint64_t enc)
{
    return (int)(enc >> 32) - 1;
}

/* The queue node, mapped here; NULL if its process is on another node. */
static inline mcs_qnode_t *mcs_qnode(uint64_t enc)
{
    char *map = rt.peers[mcs_rank(enc)].map;
    return map ? (mcs_qnode_t *)(void *)(map + SHM_QNODE_OFF) + mcs_slot(enc) : NULL;
}

/* A field of a queue node on another node, in its process's addresses. */
static inline uintptr_t mcs_qnode_raddr(uint64_t enc, size_t field)
{
    return rt.peers[mcs_rank(enc)].rbase + SHM_QNODE_OFF +
           (size_t)mcs_slot(enc) * sizeof(mcs_qnode_t) + field;
}

/* A compare-and-swap or store (trylock's) on the next field of a queue
 * node: a CPU atomic on this node, its process's server on another.
 * Returns the old value. */
static uint64_t mcs_next_op(uint64_t enc, net_sync_op_t op, uint64_t a, uint64_t b)
{
    mcs_qnode_t *q = mcs_qnode(enc);
    if (q == NULL) {
        uint64_t old = 0;
        net->sync(mcs_rank(enc), mcs_qnode_raddr(enc, offsetof(mcs_qnode_t, next)), op, a, b,
                  op == NET_SYNC_STORE64 ? NULL : &old);
        return old;
    }
    if (op == NET_SYNC_STORE64) {
        atom_store_release(&q->next, a);
        return 0;
    }
    uint64_t old = a;
    atom_cas_acq_rel(&q->next, &old, b);
    return old;
}

/* Passes the lock to the successor: on this node, clears its flag and
 * wakes it; on another, one message straight to the successor, which waits
 * for it (net->push), so that no thread but the successor's has to run. */
static void mcs_pass(uint64_t next)
{
    mcs_qnode_t *nq = mcs_qnode(next);
    if (nq) {
        atom_store_seq_cst(&nq->locked.value, 0);
        waitword_wake(&nq->locked);
    } else {
        net->push(mcs_rank(next), 1);
    }
}

static int mutex_check(const char *call, reach_mutexes_t *set, int id, int rank)
{
    int st = rt_check_rank(call, rank);
    if (st != REACH_SUCCESS)
        return st;
    if (set == NULL || set->magic != MUTEXES_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "mutex set %p is not a live set", (void *)set);
    if (id < 0 || id >= set->count[rank])
        return rt_error(REACH_ERR_MUTEX, call, "mutex %d does not exist on rank %d (it hosts %d)",
                        id, rank, set->count[rank]);
    return REACH_SUCCESS;
}

int reach_mutexes_create_group(reach_group_t *g, int count, reach_mutexes_t **out)
{
    const char *call = "reach_mutexes_create";
    int st = group_check(call, g);
    if (st != REACH_SUCCESS)
        return st;
    if (count < 0)
        st = rt_error(REACH_ERR_ARG, call, "count %d is negative", count);
    else if (out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the output pointer is NULL");
    /* Every member must create the set with the same algorithm. */
    int lo, hi;
    if (!rt_all_same(g->comm, rt.cfg.lock, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks chose different lock algorithms");
    if (!rt_all_agree(g->comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;

    reach_mutexes_t *set = handle_new(&set_pool, sizeof *set);
    void **bases = malloc(sizeof(void *) * (size_t)g->size);
    int *counts = malloc(sizeof(int) * (size_t)g->size);
    if (!set || !bases || !counts)
        rt_fatal("%s: out of private memory", call);
    set->algorithm = rt.cfg.lock;
    /* mcs: one lock word per cache line; ticket and hybrid: two counters. */
    set->stride = set->algorithm == LOCK_MCS ? 64 : 2 * ctr_home_size();
    st = mem_alloc_collective(call, g, (size_t)count * set->stride, bases, 0);
    if (st != REACH_SUCCESS) {
        handle_retire(&set_pool, set);
        free(bases);
        free(counts);
        return st;
    }
    set->group = g;
    set->mine = bases[g->rank];
    if (set->mine)
        memset(set->mine, 0, (size_t)count * set->stride);
    set->count = calloc((size_t)rt.size, sizeof(int));
    set->first = malloc(sizeof(int) * (size_t)rt.size);
    set->words = calloc((size_t)rt.size, sizeof(char *));
    set->raddr = calloc((size_t)rt.size, sizeof(uintptr_t));
    if (!set->count || !set->first || !set->words || !set->raddr)
        rt_fatal("%s: out of private memory", call);
    MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, g->comm);
    for (int i = 0; i < g->size; i++) {
        int r = g->world[i];
        peer_t *p = &rt.peers[r];
        set->count[r] = counts[i];
        set->words[r] = bases[i] && p->map ? p->map + ((uintptr_t)bases[i] - p->rbase) : NULL;
        set->raddr[r] = (uintptr_t)bases[i];
    }
    int total = 0;
    for (int r = 0; r < rt.size; r++) {
        set->first[r] = total;
        total += set->count[r];
    }
    free(bases);
    free(counts);
    set->held = malloc((size_t)total + 1);
    if (!set->held)
        rt_fatal("%s: out of private memory", call);
    memset(set->held, -1, (size_t)total + 1);
    set->magic = MUTEXES_MAGIC;
    set->next_set = sets;
    sets = set;
    /* The words are zero everywhere before anyone locks. */
    group_barrier(g);
    *out = set;
    return REACH_SUCCESS;
}

int reach_mutexes_create(int count, reach_mutexes_t **out)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_mutexes_create", "reach is not initialized");
    return reach_mutexes_create_group(&group_world, count, out);
}

static void mutexes_release(reach_mutexes_t *set)
{
    /* Nobody uses the set any more: its parked queue nodes are free. */
    for (int i = 0; i < SHM_QNODES; i++)
        if ((slots.parked >> i & 1) && slots.park[i].set == set)
            mcs_slot_free(i);
    set->magic = 0;
    free(set->count);
    free(set->first);
    free(set->words);
    free(set->raddr);
    free(set->held);
    handle_retire(&set_pool, set);
}

int reach_mutexes_destroy(reach_mutexes_t *set)
{
    const char *call = "reach_mutexes_destroy";
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    /* A handle that is not a live set names no group to agree with. */
    if (set == NULL || set->magic != MUTEXES_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "mutex set %p is not a live set", (void *)set);
    int st = mem_free_collective(call, set->group, set->mine, 0);
    reach_mutexes_t **pp = &sets;
    while (*pp != set)
        pp = &(*pp)->next_set;
    *pp = set->next_set;
    mutexes_release(set);
    return st;
}

void sync_finalize(void)
{
    while (sets) {
        reach_mutexes_t *s = sets;
        sets = s->next_set;
        mutexes_release(s);
    }
    slots.free = ~(uint64_t)0;
    slots.parked = 0;
}

int reach_set_lock(const char *algorithm)
{
    const char *call = "reach_set_lock";
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    int kind;
    if (algorithm == NULL)
        return rt_error(REACH_ERR_ARG, call, "the algorithm is NULL");
    if (config_parse_lock(algorithm, &kind) != 0)
        return rt_error(REACH_ERR_ARG, call, "\"%s\" is not a lock algorithm (mcs, ticket, hybrid)",
                        algorithm);
    rt.cfg.lock = kind;
    return REACH_SUCCESS;
}

/* Checks (set, id, rank) and whether this process holds that mutex:
 * returns its held[] entry. */
static int mutex_entry(const char *call, reach_mutexes_t *set, int id, int rank, int want_held,
                       signed char **entry)
{
    int st = mutex_check(call, set, id, rank);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    signed char *h = &set->held[set->first[rank] + id];
    if (unlikely(want_held && *h < 0))
        return rt_error(REACH_ERR_MUTEX, call, "mutex %d of rank %d is not held by this process",
                        id, rank);
    if (unlikely(!want_held && *h >= 0))
        return rt_error(REACH_ERR_MUTEX, call, "mutex %d of rank %d is already held by this process",
                        id, rank);
    *entry = h;
    return REACH_SUCCESS;
}

/* ---- mcs ------------------------------------------------------------------------ */

/* Swap or compare-and-swap on lock word (rank, id): a CPU atomic on this
 * node, the target's server on another. Returns the old value. */
static uint64_t mcs_word_op(reach_mutexes_t *set, int id, int rank, net_sync_op_t op, uint64_t a,
                            uint64_t b)
{
    size_t off = (size_t)id * set->stride;
    if (set->words[rank] == NULL) {
        uint64_t old = 0;
        net->sync(rank, set->raddr[rank] + off, op, a, b, &old);
        return old;
    }
    _Atomic uint64_t *w = (_Atomic uint64_t *)(void *)(set->words[rank] + off);
    if (op == NET_SYNC_SWAP64)
        return atom_xchg_acq_rel(w, a);
    uint64_t old = a;
    atom_cas_acq_rel(w, &old, b);
    return old;
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
    if (mcs_word_op(slots.park[slot].set, slots.park[slot].id, slots.park[slot].rank, NET_SYNC_CAS64,
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
 * SHM_QNODES locks. */
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
                        SHM_QNODES);
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
static int mcs_lock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry)
{
    int slot = 0, st = mcs_slot_take(call, &slot);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    mcs_slot_hold(entry, slot);
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    atom_store_relaxed(&q->next, 0);
    atom_store_relaxed(&q->locked.value, 1);
    uint64_t prev = mcs_word_op(set, id, rank, NET_SYNC_SWAP64, me, 0);
    if (prev != 0) {
        mcs_qnode_t *pq = mcs_qnode(prev);
        wait_for(WAIT_MUTEX, rank, id, 0);
        wait_behind(mcs_rank(prev), pq ? &pq->locked.value : NULL);
        if (pq == NULL) {
            /* One message: the predecessor's server links us, and answers
             * only if the predecessor had left; otherwise the predecessor
             * passes the lock when it leaves. Either comes as a push. */
            net->sync(mcs_rank(prev), mcs_qnode_raddr(prev, offsetof(mcs_qnode_t, next)),
                      NET_SYNC_MCS_LINK, me, MCS_RELEASED, NULL);
            if (net->wait_push() != 0)   /* 1: passed by a holder, 0: it had left */
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
static int mcs_trylock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry,
                       int *acquired)
{
    int slot = 0, st = mcs_slot_take(call, &slot);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    uint64_t me = mcs_encode(rt.rank, slot);
    mcs_qnode_t *q = mcs_qnode(me);
    atom_store_relaxed(&q->next, 0);
    uint64_t tail = mcs_word_op(set, id, rank, NET_SYNC_CAS64, 0, me);
    *acquired = tail == 0;
    if (tail != 0 && mcs_next_op(tail, NET_SYNC_CAS64, MCS_RELEASED, MCS_RELEASED) == MCS_RELEASED &&
        mcs_word_op(set, id, rank, NET_SYNC_CAS64, tail, me) == tail) {
        /* Consumed: its owner may use the slot again. */
        mcs_next_op(tail, NET_SYNC_STORE64, me, 0);
        *acquired = 1;
    }
    if (*acquired)
        mcs_slot_hold(entry, slot);
    return REACH_SUCCESS;
}

static void mcs_unlock(reach_mutexes_t *set, int id, int rank, signed char *entry)
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

/* ---- ticket and hybrid ------------------------------------------------------------- */

/* The counters of mutex (rank, id): tickets taken, tickets served. */
static void ticket_refs(reach_mutexes_t *set, int id, int rank, ctr_ref_t *taken, ctr_ref_t *served)
{
    uintptr_t base = set->raddr[rank] + (size_t)id * set->stride;
    ctr_ref_init(taken, rank, base);
    ctr_ref_init(served, rank, base + ctr_home_size());
}

static void ticket_lock(reach_mutexes_t *set, int id, int rank)
{
    ctr_ref_t taken, served;
    ticket_refs(set, id, rank, &taken, &served);
    wait_for(WAIT_MUTEX, rank, id, 0);
    if (taken.here == NULL && set->algorithm == LOCK_HYBRID) {
        /* One request; the lock's server answers when the turn comes. */
        net->sync(rank, taken.raddr, NET_SYNC_CTR_LOCK, 0, 0, NULL);
        net->wait_push();
        wait_done();
        return;
    }
    int64_t ticket;
    ctr_add(&taken, 1, &ticket);
    if (served.here && atom_load_relaxed(&served.here->value) != ticket)
        rt.stats.lock_contended++;
    ctr_add_wait(&served, 0, ticket);
    wait_done();
}

static int ticket_trylock(reach_mutexes_t *set, int id, int rank)
{
    ctr_ref_t taken, served;
    ticket_refs(set, id, rank, &taken, &served);
    if (taken.here)
        return ctr_lock_try(taken.here);
    uint64_t got = 0;
    net->sync(rank, taken.raddr, NET_SYNC_CTR_TRY, 0, 0, &got);
    return (int)got;
}

static void ticket_unlock(reach_mutexes_t *set, int id, int rank)
{
    ctr_ref_t taken, served;
    ticket_refs(set, id, rank, &taken, &served);
    ctr_add(&served, 1, NULL);
}

/* ---- the calls -------------------------------------------------------------------- */

int reach_mutex_lock(reach_mutexes_t *set, int id, int rank)
{
    const char *call = "reach_mutex_lock";
    signed char *entry = NULL;
    int st = mutex_entry(call, set, id, rank, 0, &entry);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    if (set->algorithm == LOCK_MCS) {
        if ((st = mcs_lock(call, set, id, rank, entry)) != REACH_SUCCESS)
            return st;
    } else {
        ticket_lock(set, id, rank);
        *entry = 0;
    }
    rt_order_acquire();
    rt_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

int reach_mutex_trylock(reach_mutexes_t *set, int id, int rank, int *acquired)
{
    const char *call = "reach_mutex_trylock";
    signed char *entry = NULL;
    int st = mutex_entry(call, set, id, rank, 0, &entry);
    if (st == REACH_SUCCESS && acquired == NULL)
        st = rt_error(REACH_ERR_ARG, call, "acquired is NULL");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    if (set->algorithm == LOCK_MCS) {
        if ((st = mcs_trylock(call, set, id, rank, entry, acquired)) != REACH_SUCCESS)
            return st;
    } else if ((*acquired = ticket_trylock(set, id, rank)) != 0) {
        *entry = 0;
    }
    if (*acquired)
        rt_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

int reach_mutex_unlock(reach_mutexes_t *set, int id, int rank)
{
    signed char *entry = NULL;
    int st = mutex_entry("reach_mutex_unlock", set, id, rank, 1, &entry);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rt_order_release();
    if (set->algorithm == LOCK_MCS)
        mcs_unlock(set, id, rank, entry);
    else
        ticket_unlock(set, id, rank);
    *entry = -1;
    rt_count(REACH_OP_UNLOCK, rank, 0);
    return REACH_SUCCESS;
}
