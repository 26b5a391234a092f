/* The one place that decides how a rank is reached: a rank whose arena is
 * mapped here (its node) by loads, stores, memcpy and CPU atomics on the
 * mapping (transport/shm), any other through reach's protocol over the
 * network (transport/am). rma_here is the test; every operation below
 * makes it once, inline, and the layers above (sync, api) reach memory
 * only through these calls. Addresses are the target's own (raddr).
 *
 * Checks are the caller's (rma_check for a remote range); these calls
 * assume valid arguments. Zero bytes move nothing and touch nothing. Blocking, as am.h says; on the node every
 * operation is complete when it returns. */
#ifndef REACH_CORE_RMA_H
#define REACH_CORE_RMA_H

#include "base/state.h"
#include "base/strided.h"
#include "base/waitword.h"
#include "transport/am/am.h"
#include "transport/shm/shm_ops.h"

/* raddr of rank, mapped here; NULL if rank is on another node. */
static inline char *rma_here(int rank, uintptr_t raddr)
{
    const peer_t *p = &rt.peers[rank];
    return p->map ? p->map + (raddr - p->rbase) : NULL;
}

/* Whether rank is reached through the network. */
static inline int rma_remote(int rank)
{
    return rma_here(rank, rt.peers[rank].rbase) == NULL;
}

static inline reach_path_t rma_path(int rank)
{
    return rank == rt.rank ? REACH_PATH_SELF : rma_remote(rank) ? REACH_PATH_NET : REACH_PATH_SHM;
}

/* Counts an operation of this kind to rank, by path. */
static inline void rma_count(reach_op_kind_t kind, int rank, size_t bytes)
{
    reach_path_t p = rma_path(rank);
    rt.stats.ops[kind][p]++;
    rt.stats.bytes[kind][p] += bytes;
}

/* Checks that rank is valid and [remote, +bytes) lies inside one of its
 * segments (zero bytes: anywhere). */
static inline int rma_check(const char *call, int rank, const void *remote, size_t bytes)
{
    int st = rt_check_rank(call, rank);
    if (unlikely(st != REACH_SUCCESS) || bytes == 0)
        return st;
    if (unlikely(!seg_table_contains(&rt.peers[rank].segs, (uintptr_t)remote, bytes)))
        return rt_error(REACH_ERR_RANGE, call, "remote range [%p, +%zu) is not inside a segment of rank %d",
                        remote, bytes, rank);
    return REACH_SUCCESS;
}

/* A put that returns at once to another node, src unchanged until it
 * completes: returns 0 if it is complete (always on the node), else a
 * ticket for rma_complete and rma_test. rma_flush_local, a fence, a
 * barrier or the next operation to rank but a get complete it too. */
static inline uint64_t rma_put_nb(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        shm_copy(here, src, bytes);
        return 0;
    }
    return am_put_nbi(rank, src, raddr, bytes);
}

static inline void rma_put(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL))
        shm_copy(here, src, bytes);
    else
        am_put(rank, src, raddr, bytes);
}

/* A get that returns before its data has arrived from another node (dst
 * not to be read until it completes); 0 or a ticket, as rma_put_nb. */
static inline uint64_t rma_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        shm_copy(dst, here, bytes);
        return 0;
    }
    return am_get_nb(rank, raddr, dst, bytes);
}

/* Waits for the transfer of ticket (UINT64_MAX: every one) to rank; tests
 * whether it is complete. */
static inline void rma_complete(int rank, uint64_t ticket)
{
    if (ticket != 0 && rma_remote(rank))
        am_complete(rank, ticket);
}

/* Hands the ticket of a transfer just issued to the caller (*ticket), or
 * with ticket NULL completes it now. */
static inline void rma_complete_or_hand(int rank, uint64_t issued, uint64_t *ticket)
{
    if (ticket)
        *ticket = issued;
    else
        rma_complete(rank, issued);
}

static inline int rma_test(int rank, uint64_t ticket)
{
    return ticket == 0 || !rma_remote(rank) || am_test(rank, ticket);
}

static inline void rma_get(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    if (unlikely(bytes == 0))
        return;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL))
        shm_copy(dst, here, bytes);
    else
        am_get(rank, raddr, dst, bytes);
}

/* An accumulate that may still be in flight to another node on return
 * (src unchanged until it completes); 0 or a ticket, as rma_put_nb. */
static inline uint64_t rma_acc_nb(int rank, reach_type_t t, const void *scale, const void *src,
                                  uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        shm_acc(rank, t, scale, src, here, bytes);
        return 0;
    }
    return am_acc_nbi(rank, t, scale, src, raddr, bytes);
}

static inline void rma_acc(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr,
                           size_t bytes)
{
    rma_complete(rank, rma_acc_nb(rank, t, scale, src, raddr, bytes));
}

/* One transfer of op between local and raddr: a get reads raddr into
 * local, the others write local to raddr. */
static inline void rma_xfer(xfer_t op, int rank, reach_type_t t, const void *scale, const void *local,
                            uintptr_t raddr, size_t bytes)
{
    if (op == XFER_PUT)
        rma_put(rank, local, raddr, bytes);
    else if (op == XFER_GET)
        rma_get(rank, raddr, (void *)local, bytes);
    else
        rma_acc(rank, t, scale, local, raddr, bytes);
}

/* A user atomic of width 4 or 8; returns the old value (a 32-bit one
 * sign-extended). */
static inline int64_t rma_atomic(int rank, uintptr_t raddr, int width, amo_op_t op, int64_t a, int64_t b)
{
    char *here = rma_here(rank, raddr);
    int64_t old = here ? shm_atomic(rank, here, width, op, a, b) : am_atomic(rank, raddr, width, op, a, b);
    return width == 4 ? (int32_t)old : old;
}

/* A strided transfer of a merged plan: local is this process's side
 * (the destination of a get, else the source), raddr rank's. To another
 * node it returns in flight: 0 or a ticket, as rma_put_nb and rma_get_nb
 * (neither side's buffer touched until it completes). */
static inline uint64_t rma_strided_nb(xfer_t op, int rank, reach_type_t t, const void *scale,
                                      const reach_strided_t *plan, const void *local, uintptr_t raddr)
{
    char *here = rma_here(rank, raddr);
    if (here == NULL)
        return am_strided(op, rank, t, scale, plan, local, raddr);
    if (op == XFER_GET)
        shm_strided_copy(plan, here, (char *)local);
    else if (op == XFER_PUT)
        shm_strided_copy(plan, local, here);
    else
        shm_strided_acc(rank, t, scale, plan, local, here);
    return 0;
}

static inline void rma_strided(xfer_t op, int rank, reach_type_t t, const void *scale,
                               const reach_strided_t *plan, const void *local, uintptr_t raddr)
{
    rma_complete(rank, rma_strided_nb(op, rank, t, scale, plan, local, raddr));
}

/* A strided copy of a merged plan between two buffers of this process. */
static inline void rma_copy_strided(const reach_strided_t *plan, const void *src, void *dst)
{
    shm_strided_copy(plan, src, dst);
}

/* A vector transfer: n descriptors, the remote side of each pair rank's;
 * in flight on return, as rma_strided_nb. */
static inline uint64_t rma_vector_nb(xfer_t op, int rank, reach_type_t t, const void *scale,
                                     const reach_vector_t *v, size_t n)
{
    if (rma_remote(rank))
        return am_vector(op, rank, t, scale, v, n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < v[i].count && v[i].bytes > 0; j++) {
            int get = op == XFER_GET;
            rma_xfer(op, rank, t, scale, get ? v[i].dst[j] : v[i].src[j],
                     (uintptr_t)(get ? v[i].src[j] : v[i].dst[j]), v[i].bytes);
        }
    return 0;
}

/* Everything issued to rank is complete there: on the node, once this
 * process's stores are globally visible. */
static inline void rma_fence(int rank)
{
    atom_fence_seq_cst();
    if (rma_remote(rank))
        am_flush(rank);
}

/* Every transfer in flight to any rank is complete. */
static inline void rma_flush_local_all(void)
{
    if (rt.node_count > 1)
        am_flush_local_all();
}

static inline void rma_fence_all(void)
{
    atom_fence_seq_cst();
    am_flush_all();
}

/* Every write issued to a rank of another node is complete there (what
 * rma_fence_all adds to a memory fence). */
static inline void rma_flush_all(void)
{
    am_flush_all();
}

/* Every transfer in flight to rank is complete (a put's source may be
 * reused, a get's data is here). */
static inline void rma_flush_local(int rank)
{
    if (rma_remote(rank))
        am_flush_local(rank);
}

/* ---- the runtime's own words ---------------------------------------------------- */

/* A word operation (base/waitword.h) at raddr of rank: CPU atomics on the
 * node, rank's server from another (answered only if the op answers). */
static inline uint64_t rma_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b)
{
    char *here = rma_here(rank, raddr);
    return here ? word_apply(here, op, a, b) : am_word(rank, raddr, op, a, b);
}

/* A 64-bit fetch-add (cas 0) or compare-and-swap (cas 1: a expected, b
 * stored), returning the old value: CPU atomics on the node, the
 * network's own atomics from another (no thread of the target takes part
 * where the network can). */
static inline uint64_t rma_word_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b)
{
    char *here = rma_here(rank, raddr);
    if (here == NULL)
        return am_amo(rank, raddr, cas, a, b);
    return word_apply(here, cas ? WORD_CAS64 : WORD_ADD64, a, b);
}

/* A signal to one waiter: copies bytes to raddr of rank, then adds one to
 * the waitword at word there. On the node, stores and a futex wake; to
 * another node, one message to rank's application thread, which takes it
 * in rma_wait_signal (no thread of rank's wakes for it). */
static inline void rma_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word)
{
    if (rma_remote(rank)) {
        am_signal(rank, src, raddr, bytes, word);
        return;
    }
    if (bytes > 0)
        memcpy(rma_here(rank, raddr), src, bytes);
    waitword_add((waitword_t *)(void *)rma_here(rank, word), 1);
}

/* Waits until this process's waitword ww has counted to target, which
 * rma_signal from rank `from` completes: a futex wait if from is on this
 * node, else taking the network's signals meanwhile. */
static inline void rma_wait_signal(waitword_t *ww, uint32_t target, int from)
{
    if (rma_remote(from))
        am_wait_signal(ww, target);
    else
        waitword_wait_count(ww, target);
}

#endif
