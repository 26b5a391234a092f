/* The one place that decides how a rank is reached: a rank whose arena is
 * mapped here (its node) by loads, stores, memcpy and CPU atomics on the
 * mapping (transport/shm), any other through reach's protocol over the
 * network (transport/am). rma_here is the test; every operation below
 * makes it once, and the layers above (sync, api) reach memory only
 * through these calls. All but the strided and vector ones are inline:
 * their network side is an rma_net_ call of core/rma.c, their node side a
 * copy, a word, or (accumulates, atomics) an rma_node_ call that jumps
 * into transport/shm. So no object above core refers to the transport,
 * and a put on the node costs no call.
 * Addresses are the target's own (raddr).
 *
 * Checks are the caller's (rma_check for a remote range); these calls
 * assume valid arguments. Zero bytes move nothing and touch nothing.
 * Blocking, as transport/am/am.h says; on the node every operation is
 * complete when it returns. */
#ifndef REACH_CORE_RMA_H
#define REACH_CORE_RMA_H

#include "base/copy.h"
#include "base/state.h"
#include "base/strided.h"
#include "base/waitword.h"
#include "base/xfer.h"

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
        return rt_error(REACH_ERR_RANGE, call, "remote range [%p, +%zu) is not inside a segment of rank %d", remote,
                        bytes, rank);
    return REACH_SUCCESS;
}

/* The network's side of the inline operations below, for a rank of
 * another node (core/rma.c: the protocol's calls, transport/am/am.h). */
uint64_t rma_net_put_nb(int rank, const void *src, uintptr_t raddr, size_t bytes) REACH_HIDDEN;
void rma_net_put(int rank, const void *src, uintptr_t raddr, size_t bytes) REACH_HIDDEN;
uint64_t rma_net_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes) REACH_HIDDEN;
void rma_net_get(int rank, uintptr_t raddr, void *dst, size_t bytes) REACH_HIDDEN;
void rma_net_flush(int rank) REACH_HIDDEN;
void rma_net_release(void) REACH_HIDDEN;
uint64_t rma_net_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b) REACH_HIDDEN;
uint64_t rma_net_word_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b) REACH_HIDDEN;
void rma_net_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word) REACH_HIDDEN;
void rma_net_wait_signal(waitword_t *ww, uint32_t target) REACH_HIDDEN;
void rma_net_complete(int rank, uint64_t ticket) REACH_HIDDEN;
int rma_net_test(int rank, uint64_t ticket) REACH_HIDDEN;
uint64_t rma_net_acc_nb(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr,
                        size_t bytes) REACH_HIDDEN;
int64_t rma_net_atomic(int rank, uintptr_t raddr, int width, amo_op_t op, int64_t a, int64_t b) REACH_HIDDEN;
/* The node's side of accumulates and atomics, on rank's mapping at here
 * (transport/shm's, under its stripe locks). */
void rma_node_acc(int rank, reach_type_t t, const void *scale, const void *src, char *here, size_t bytes) REACH_HIDDEN;
int64_t rma_node_atomic(int rank, char *here, int width, amo_op_t op, int64_t a, int64_t b) REACH_HIDDEN;

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
        copy_bytes(here, src, bytes);
        return 0;
    }
    return rma_net_put_nb(rank, src, raddr, bytes);
}

static inline void rma_put(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL))
        copy_bytes(here, src, bytes);
    else
        rma_net_put(rank, src, raddr, bytes);
}

/* A get that returns before its data has arrived from another node (dst
 * not to be read until it completes); 0 or a ticket, as rma_put_nb. */
static inline uint64_t rma_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        copy_bytes(dst, here, bytes);
        return 0;
    }
    return rma_net_get_nb(rank, raddr, dst, bytes);
}

/* Waits for the transfer of ticket (UINT64_MAX: every one) to rank; tests
 * whether it is complete. */
static inline void rma_complete(int rank, uint64_t ticket)
{
    if (ticket != 0 && rma_remote(rank))
        rma_net_complete(rank, ticket);
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
    return ticket == 0 || !rma_remote(rank) || rma_net_test(rank, ticket);
}

static inline void rma_get(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    if (unlikely(bytes == 0))
        return;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL))
        copy_bytes(dst, here, bytes);
    else
        rma_net_get(rank, raddr, dst, bytes);
}

/* An accumulate that may still be in flight to another node on return
 * (src unchanged until it completes); 0 or a ticket, as rma_put_nb. */
static inline uint64_t rma_acc_nb(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr,
                                  size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        rma_node_acc(rank, t, scale, src, here, bytes);
        return 0;
    }
    return rma_net_acc_nb(rank, t, scale, src, raddr, bytes);
}

static inline void rma_acc(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr, size_t bytes)
{
    rma_complete(rank, rma_acc_nb(rank, t, scale, src, raddr, bytes));
}

/* One transfer of op between local and raddr: a get reads raddr into
 * local, the others write local to raddr. */
static inline void rma_xfer(xfer_t op, int rank, reach_type_t t, const void *scale, const void *local, uintptr_t raddr,
                            size_t bytes)
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
    int64_t old = here ? rma_node_atomic(rank, here, width, op, a, b) : rma_net_atomic(rank, raddr, width, op, a, b);
    return width == 4 ? (int32_t)old : old;
}

/* A strided transfer of a merged plan: local is this process's side
 * (the destination of a get, else the source), raddr rank's. To another
 * node it returns in flight: 0 or a ticket, as rma_put_nb and rma_get_nb
 * (neither side's buffer touched until it completes). */
uint64_t rma_strided_nb(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *plan,
                        const void *local, uintptr_t raddr) REACH_HIDDEN;
void rma_strided(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *plan, const void *local,
                 uintptr_t raddr) REACH_HIDDEN;

/* A strided copy of a merged plan between two buffers of this process. */
void rma_copy_strided(const reach_strided_t *plan, const void *src, void *dst) REACH_HIDDEN;

/* A vector transfer: n descriptors, the remote side of each pair rank's;
 * in flight on return, as rma_strided_nb. */
uint64_t rma_vector_nb(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v,
                       size_t n) REACH_HIDDEN;

/* Everything issued to rank is complete there: on the node, once this
 * process's stores are globally visible. */
static inline void rma_fence(int rank)
{
    atom_fence_seq_cst();
    if (rma_remote(rank))
        rma_net_flush(rank);
}

/* Every transfer in flight to any rank is complete. */
void rma_flush_local_all(void) REACH_HIDDEN;
/* Moves transfers to and from other nodes on, waiting for nothing. */
void rma_progress(void) REACH_HIDDEN;
void rma_fence_all(void) REACH_HIDDEN;

/* Every write issued to a rank of another node is complete there (what
 * rma_fence_all adds to a memory fence). */
void rma_flush_all(void) REACH_HIDDEN;

/* A release, before a synchronizing call tells another process it may go
 * on (a mutex unlock): every write this process issued, to any rank, by
 * any call, blocking or still in flight, is complete at its target. On the
 * node writes are complete when issued; to other nodes only the ranks
 * written since the last release are fenced, together. */
static inline void rma_release(void)
{
    if (rt.node_count > 1)
        rma_net_release();
}

/* Every transfer in flight to rank is complete (a put's source may be
 * reused, a get's data is here). */
void rma_flush_local(int rank) REACH_HIDDEN;

/* ---- the runtime's own words ---------------------------------------------------- */

/* A word operation (base/waitword.h) at raddr of rank: CPU atomics on the
 * node, rank's server from another (answered only if the op answers). */
static inline uint64_t rma_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b)
{
    char *here = rma_here(rank, raddr);
    return here ? word_apply(here, op, a, b) : rma_net_word(rank, raddr, op, a, b);
}

/* A 64-bit fetch-add (cas 0) or compare-and-swap (cas 1: a expected, b
 * stored), returning the old value: CPU atomics on the node, the
 * network's own atomics from another (no thread of the target takes part
 * where the network can). */
static inline uint64_t rma_word_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b)
{
    char *here = rma_here(rank, raddr);
    if (here == NULL)
        return rma_net_word_amo(rank, raddr, cas, a, b);
    return word_apply(here, cas ? WORD_CAS64 : WORD_ADD64, a, b);
}

/* A signal to one waiter: copies bytes to raddr of rank, then adds one to
 * the waitword at word there. On the node, stores and a futex wake; to
 * another node, one message to rank's application thread, which takes it
 * in rma_wait_signal (no thread of rank's wakes for it). */
static inline void rma_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word)
{
    if (rma_remote(rank)) {
        rma_net_signal(rank, src, raddr, bytes, word);
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
        rma_net_wait_signal(ww, target);
    else
        waitword_wait_count(ww, target);
}

#endif
