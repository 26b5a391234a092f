/* The mcs mutex's slots and slow paths (the algorithm: mutex_mcs.h). */
#include "sync/mutex_mcs.h"
#include "core/service.h"

#include <sched.h>
#include <stddef.h>

mcs_slots_t mcs_slots = {.free = ~(uint64_t)0};

static int mcs_id_enqueue; /* the swap (and link) handler, at the lock's server */
static int mcs_id_link;    /* the link handler, at the predecessor's server */
static int mcs_id_forward; /* the pass, at the server of a rank the holder wrote */

static void mcs_slot_free(int slot)
{
    mcs_slots.parked &= ~((uint64_t)1 << slot);
    mcs_slots.free |= (uint64_t)1 << slot;
}

/* A compare-and-swap or store (trylock's) on the next field of a queue
 * node; returns the old value. */
static uint64_t mcs_next_op(uint64_t enc, word_op_t op, uint64_t a, uint64_t b)
{
    return rma_word(mcs_rank(enc), mcs_next_raddr(enc), op, a, b);
}

/* Passes the lock to the successor: on this node, clears its flag and
 * wakes it; on another, one message straight to the successor, which waits
 * for it (svc_push), so that no thread but the successor's has to run. */
void mcs_pass(uint64_t next)
{
    mcs_qnode_t *nq = mcs_qnode(next);
    if (nq) {
        trace_store(trace_store_time(), &nq->locked, 0);
        atom_store_seq_cst(&nq->locked.value, 0);
        waitword_wake(&nq->locked);
    } else {
        svc_push(mcs_rank(next), MCS_PASSED);
    }
}

/* To a successor on another node, the lock travels behind the holder's
 * writes rather than after a fence's round trip:
 * - the successor written: one push, which it takes once it has served
 *   those writes itself (the others fenced first);
 * - else a rank via written, of another node than the successor's: one
 *   message to via's server, taken there after the writes, which pushes
 *   the lock on (via's server has no network endpoint to its own node);
 * - else (nothing written, or a successor on this node, which waits on its
 *   flag): a release, then the pass. */
void mcs_pass_after(uint64_t next)
{
    int succ = mcs_rank(next), via = mcs_qnode(next) ? -1 : svc_written(succ);
    if (via < 0) {
        rma_release();
        mcs_pass(next);
    } else if (via != succ && rt.peers[via].node != rt.peers[succ].node) {
        svc_call_after(via, mcs_id_forward, 0, (uint64_t)succ, 0, svc_release_but(via));
    } else {
        svc_push_after(succ, MCS_PASSED, svc_release_but(succ));
    }
}

static int mcs_serve_forward(svc_target_t *t)
{
    svc_server_push((int)t->a, MCS_PASSED);
    return 1;
}

/* A parked node is free again once a successor has linked to it. */
static int mcs_consumed(int slot)
{
    return atom_load_acquire(&mcs_qnode(mcs_slots.park[slot].enc)->next) != MCS_RELEASED;
}

/* Frees a parked slot by force: empties its lock if the node is still the
 * tail, or else waits for the successor that swapped the lock word to
 * link (it is on its way). */
static void mcs_reclaim(int slot)
{
    uint64_t enc = mcs_slots.park[slot].enc;
    if (mcs_word_op(mcs_slots.park[slot].set, mcs_slots.park[slot].id, mcs_slots.park[slot].rank, WORD_CAS64, enc, 0) !=
        enc)
        for (uint32_t i = 0; !mcs_consumed(slot); i++) {
            if (wait_spin_on(i)) {
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
int mcs_slot_take(const char *call, int *slot)
{
    for (uint64_t p = mcs_slots.parked; p; p &= p - 1) {
        int i = __builtin_ctzll(p);
        if (mcs_consumed(i))
            mcs_slot_free(i);
    }
    if (mcs_slots.free == 0 && mcs_slots.parked != 0)
        mcs_reclaim(__builtin_ctzll(mcs_slots.parked));
    if (mcs_slots.free == 0)
        return rt_error(REACH_ERR_MUTEX, call, "this process already holds %d mutexes, the most it may", ARENA_QNODES);
    *slot = __builtin_ctzll(mcs_slots.free);
    mcs_slots.gen[*slot]++;
    return REACH_SUCCESS;
}

/* Waits for the push that passes the lock to this process, or says what
 * became of its swap; returns the value pushed. */
static int64_t mcs_wait_pass(void)
{
    int64_t got = svc_wait_push();
    if (got == MCS_PASSED)
        rt.stats.lock_contended++;
    return got;
}

/* One message: the predecessor's server links us, and answers only if the
 * predecessor had left; otherwise the predecessor passes the lock when it
 * leaves. Either comes as a push. */
void mcs_link_remote(uint64_t prev, uint64_t me)
{
    rt_stat_inc(&rt.stats.remote_atomics);
    svc_call(mcs_rank(prev), mcs_id_link, mcs_next_raddr(prev), me, 0, NULL, 0, 0, NULL, 0);
    mcs_wait_pass();
}

/* One message, and no answer where the server links me behind a holder:
 * the holder's pass is then the one message back (a push either way). */
uint64_t mcs_enqueue_remote(int rank, int id, uintptr_t word, uint64_t me)
{
    rt_stat_inc(&rt.stats.remote_atomics);
    svc_call(rank, mcs_id_enqueue, word, me, 0, NULL, 0, 0, NULL, 0);
    wait_for(WAIT_MUTEX, rank, id, 0);
    wait_behind(WAIT_AHEAD_AT_HOME, NULL); /* (a wait that lasts is queued there) */
    int64_t got = mcs_wait_pass();
    wait_done();
    return got == MCS_PASSED ? 0 : (uint64_t)got;
}

/* Takes the lock only if it is free: empty, or its tail a parked node
 * (whose next still reads RELEASED; then nobody can have queued behind
 * it, and the generation in the encoding rules out a reused slot). */
int mcs_trylock(const char *call, reach_mutexes_t *set, int id, int rank, signed char *entry, int *acquired)
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

void mcs_forget(reach_mutexes_t *set)
{
    for (int i = 0; i < ARENA_QNODES; i++)
        if ((mcs_slots.parked >> i & 1) && mcs_slots.park[i].set == set)
            mcs_slot_free(i);
}

void mcs_reset(void)
{
    mcs_slots.free = ~(uint64_t)0;
    mcs_slots.parked = 0;
}

/* A waiter on another node links to its predecessor's queue node (a): if
 * the predecessor had left (RELEASED), the lock is the waiter's, and
 * the server tells it with a push; else the predecessor passes it later. */
static int mcs_serve_link(svc_target_t *t)
{
    if (mcs_link((_Atomic uint64_t *)(void *)t->local, t->a))
        svc_server_push(t->origin, 0);
    return 1;
}

/* A waiter on another node swaps itself into the lock word (a). Behind a
 * tail on this node, the server links it too, so that the holder can pass
 * the lock as soon as it leaves: no second trip from the waiter, and no
 * push from here unless that tail had left. Else the push says the lock
 * is the waiter's (0) or names the tail of another node to link to. */
static int mcs_serve_enqueue(svc_target_t *t)
{
    uint64_t prev = atom_xchg_acq_rel((_Atomic uint64_t *)(void *)t->local, t->a);
    mcs_qnode_t *pq = prev != 0 ? mcs_qnode(prev) : NULL;
    if (pq == NULL || mcs_link(&pq->next, t->a))
        svc_server_push(t->origin, pq == NULL ? (int64_t)prev : 0);
    return 1;
}

void mcs_register(void)
{
    mcs_id_enqueue = svc_handler(mcs_serve_enqueue, 0);
    mcs_id_link = svc_handler(mcs_serve_link, 0);
    mcs_id_forward = svc_handler(mcs_serve_forward, 0);
}
