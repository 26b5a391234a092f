/* Same-node transport: every process owns one arena (a memfd, so no file
 * ever appears in /dev/shm and nothing is left behind when a process dies),
 * and maps the arena of every other process of its node. Remote access is a
 * load, store, memcpy or CPU atomic on that mapping.
 *
 * Arena layout (offsets from the arena's start):
 *   [0, 32 KiB)   stripe locks: accumulate and atomics on the arena's bytes
 *   [32, 40 KiB)  queue-lock nodes of the owning process
 *   [40, 44 KiB)  node barrier state (used in node rank 0's arena)
 *   [44, 49 KiB)  barrier words: dissemination rounds between node leaders,
 *                 the tree barrier's arrival and release, the combined
 *                 barrier's exchange rounds
 *   [49 KiB]      barriers the process has entered (read by the deadlock
 *                 report of a rank waiting in a barrier)
 *   [64 KiB, ...) heap: collective and local allocations */
#ifndef REACH_SHM_H
#define REACH_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "base/state.h"
#include "base/waitword.h"

#define SHM_STRIPES        512
#define SHM_STRIPE_SHIFT   13        /* one stripe lock covers 8 KiB of arena */
#define SHM_QNODES         64        /* locks one process may hold at once */
#define SHM_QNODE_OFF      (32u << 10)
#define SHM_BARRIER_OFF    (40u << 10)
#define SHM_DISSEM_OFF     (44u << 10)
#define SHM_DISSEM_ROUNDS  32
/* Waitwords are 64 bytes apart (one cache line each). */
#define SHM_TREE_ARRIVE_OFF  (SHM_DISSEM_OFF + SHM_DISSEM_ROUNDS * 64u)
#define SHM_TREE_RELEASE_OFF (SHM_TREE_ARRIVE_OFF + 64u)
#define SHM_XCHG_OFF         (SHM_TREE_RELEASE_OFF + 64u)   /* SHM_DISSEM_ROUNDS words */
#define SHM_ENTERED_OFF      (SHM_XCHG_OFF + SHM_DISSEM_ROUNDS * 64u)
#define SHM_HEAP_OFF       ((size_t)64 << 10)

typedef struct shm_stripe {
    _Atomic uint32_t lock;
    char pad[60];
} shm_stripe_t;

typedef struct shm_barrier {
    _Atomic uint32_t arrived;
    char pad[60];
    waitword_t generation;
} shm_barrier_t;

/* Creates this process's arena and maps the arenas of the node's processes
 * into rt.peers. Collective over rt.node_comm. */
int shm_init(void) REACH_HIDDEN;
void shm_finalize(void) REACH_HIDDEN;

/* Kinds of arena blocks: a block is freed only as the kind it was made.
 * SHM_BLOCK_CACHED is a freed local block kept committed for reuse. */
enum { SHM_BLOCK_COLLECTIVE = 1, SHM_BLOCK_LOCAL = 2, SHM_BLOCK_CACHED = 3 };

/* Reserves len bytes of this process's heap and commits memory for them.
 * call names the public call for the error message. */
int shm_alloc(const char *call, size_t len, int kind, void **ptr) REACH_HIDDEN;
/* Returns the block of this kind at ptr to the heap and its memory to the
 * system, or keeps a local block committed for the next local allocation
 * of a like size; REACH_ERR_ARG if ptr starts no such block. */
int shm_free(void *ptr, int kind) REACH_HIDDEN;
/* Gives back every freed local block kept committed; 1 if there was one. */
int shm_cache_flush(void) REACH_HIDDEN;
/* Bytes of memory the node can still give to shared allocations. */
size_t shm_available(void) REACH_HIDDEN;
/* Bytes this process has allocated in its arena. */
size_t shm_in_use(void) REACH_HIDDEN;
/* The size of every process's arena (address space). */
size_t shm_arena_size(void) REACH_HIDDEN;

/* The stripe lock covering byte `local` of rank's arena mapping. */
static inline _Atomic uint32_t *shm_stripe_lock(int rank, const char *local)
{
    const char *base = rt.peers[rank].map;
    size_t idx = ((size_t)(local - base) >> SHM_STRIPE_SHIFT) & (SHM_STRIPES - 1);
    return &((shm_stripe_t *)(void *)base)[idx].lock;
}

/* Bytes from `local` to the end of its stripe. */
static inline size_t shm_stripe_room(int rank, const char *local)
{
    size_t off = (size_t)(local - rt.peers[rank].map);
    size_t stripe = (size_t)1 << SHM_STRIPE_SHIFT;
    return stripe - (off & (stripe - 1));
}

/* Barrier of the node's processes through node rank 0's arena. */
void shm_node_barrier(void) REACH_HIDDEN;

#endif
