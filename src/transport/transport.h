/* The network transport: what reach needs from a network to reach ranks on
 * other nodes. Ranks on this node are reached through their mapped arenas
 * (transport/shm), decided in one place: rt_translate gives a mapping, or
 * NULL for a rank on another node, whose operations go through `net`.
 *
 * Addresses are the target's own (its arena's address space). Every entry
 * returns REACH_SUCCESS or an error status; blocking entries return when
 * the local buffers may be reused (get: when the data is there).
 * Completion at the target comes with flush. */
#ifndef REACH_TRANSPORT_H
#define REACH_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "base/state.h"

/* Operations on the runtime's own synchronization words (lock words, queue
 * nodes, counters), done with CPU atomics at the target, as on the node;
 * the *_WAKE forms also wake the target's sleepers on that word (a
 * waitword_t). */
typedef enum net_sync_op {
    NET_SYNC_SWAP64,        /* returns the old value, stores a */
    NET_SYNC_CAS64,         /* stores b if the word equals a; returns the old value */
    NET_SYNC_STORE64,       /* stores a */
    NET_SYNC_STORE32_WAKE,  /* stores a in the waitword, wakes its sleepers */
    NET_SYNC_ADD32_WAKE,    /* adds a to the waitword, wakes; returns the old value */
    /* Counters (sync/counter.h), at the word of a ctr_home_t; the origin is
     * the process that registers. Without a result, CTR_ADD is a counted
     * write (complete at a fence); the others are answered by a push. */
    NET_SYNC_CTR_ADD,       /* adds a; returns the old value */
    NET_SYNC_CTR_WANT,      /* adds a, then registers the origin until the value reaches b */
    NET_SYNC_CTR_LOCK,      /* ctr_lock_request for the origin */
    NET_SYNC_CTR_TRY,       /* ctr_lock_try; returns 1 if taken */
    /* At an mcs queue node's next: swaps in a (the origin's node); if the
     * old value was b (released), pushes 0 to the origin, whose lock it is. */
    NET_SYNC_MCS_LINK,
    NET_SYNC_ADD64          /* adds a; returns the old value */
} net_sync_op_t;

typedef struct transport {
    const char *name;
    int (*put)(int rank, const void *src, uintptr_t raddr, size_t bytes);
    int (*get)(int rank, uintptr_t raddr, void *dst, size_t bytes);
    /* Accumulate at the target, under the target's stripe locks. */
    int (*acc)(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr,
               size_t bytes);
    /* User atomics (shm_atomic_op_t), at the target under its stripe locks. */
    int (*atomic)(int rank, uintptr_t raddr, int width, int op, int64_t a, int64_t b, int64_t *old);
    int (*sync)(int rank, uintptr_t raddr, net_sync_op_t op, uint64_t a, uint64_t b, uint64_t *old);
    /* A strided transfer (NET_PUT, NET_GET, NET_ACC) of a merged plan
     * (core/strided.h); local is this process's side, raddr the target's. */
    int (*strided)(int op, int rank, reach_type_t t, const void *scale, const reach_strided_t *plan,
                   const char *local, uintptr_t raddr);
    /* A vector transfer: n descriptors, checked by the caller. */
    int (*vector)(int op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v,
                  size_t n);
    /* Everything issued to rank (to every rank) is complete at the target. */
    int (*flush)(int rank);
    int (*flush_all)(void);
    /* A put, then one added to the waitword at word (the target's address)
     * and its sleepers woken, in one message. */
    int (*put_signal)(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word);
    /* A put that returns at once: src stays unchanged until flush_local,
     * flush or the next operation to rank, which wait for it. */
    int (*put_nbi)(int rank, const void *src, uintptr_t raddr, size_t bytes);
    /* The source of rank's put_nbi may be reused. */
    int (*flush_local)(int rank);
    /* NET_SYNC_ADD64 (returns the old value) or NET_SYNC_CAS64 on a word
     * by the network's atomics, CPU-coherent at the target, without the
     * target's server where the network can. */
    uint64_t (*amo)(int rank, uintptr_t raddr, net_sync_op_t op, uint64_t a, uint64_t b);
    /* Paper 000's op_init and op_done: writes sent to rank since start-up,
     * and waiting until this process has completed `count` writes from all
     * origins (both modulo 2^32). A put is complete at the target when the
     * target's completed count covers it. */
    uint32_t (*sent_to)(int rank);
    void (*wait_completed)(uint32_t count);
    /* A counter's push of value to rank, which waits for it on another
     * node (sync/counter.h), and the wait for the next push to this
     * process (one at a time), which returns its value. */
    void (*push)(int rank, int64_t value);
    int64_t (*wait_push)(void);
    /* A deferred window epoch (sync/window.h) of len bytes, served by
     * rank's server; returns when it is done there, the gets' data
     * (get_bytes) in gets. */
    void (*epoch)(int rank, const void *msg, size_t len, void *gets, size_t get_bytes);
} transport_t;

/* The network transport in use; NULL when the job is on one node. */
extern const transport_t *net REACH_HIDDEN;

/* Starts the UCX transport (collective); fills rt.peers[].rbase of remote
 * ranks. */
int ucx_init(void) REACH_HIDDEN;
void ucx_finalize(void) REACH_HIDDEN;

/* The generic strided path over a transport's put, get and acc: one
 * operation per contiguous run of the plan, remote side at raddr. */
enum { NET_PUT, NET_GET, NET_ACC };
int net_strided_direct(int op, int rank, reach_type_t t, const void *scale,
                       const reach_strided_t *plan, const char *local, uintptr_t raddr) REACH_HIDDEN;
/* The generic vector path: one operation per pair. */
int net_vector_direct(int op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v,
                      size_t n) REACH_HIDDEN;
#endif
