/* The layout of a process's arena: the memory every other process of its
 * node maps (transport/shm) and the network registers (transport/am),
 * holding the runtime's shared words before the heap of allocations.
 *
 * Offsets from the arena's start:
 *   [0, 32 KiB)   stripe locks: accumulate and atomics on the arena's bytes
 *   [32, 40 KiB)  queue-lock nodes of the owning process (sync/mutex_mcs.c)
 *   [40, 44 KiB)  node barrier state (used in node rank 0's arena)
 *   [44, 49 KiB)  barrier words: dissemination rounds between node leaders,
 *                 the tree barrier's arrival and release, the combined
 *                 barrier's exchange rounds
 *   [49 KiB]      barriers the process has entered (read by the deadlock
 *                 report of a rank waiting in a barrier)
 *   [64 KiB, ...) heap: collective and local allocations */
#ifndef REACH_BASE_ARENA_H
#define REACH_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include "base/waitword.h"

#define CACHE_LINE 64

#define ARENA_STRIPES 512
#define ARENA_STRIPE_SHIFT 13 /* one stripe lock covers 8 KiB of arena */
#define ARENA_QNODES 64       /* locks one process may hold at once */
#define ARENA_QNODE_OFF (32u << 10)
#define ARENA_BARRIER_OFF (40u << 10)
#define ARENA_DISSEM_OFF (44u << 10)
#define ARENA_DISSEM_ROUNDS 32
/* Waitwords are one cache line apart. */
#define ARENA_TREE_ARRIVE_OFF (ARENA_DISSEM_OFF + ARENA_DISSEM_ROUNDS * sizeof(waitword_t))
#define ARENA_TREE_RELEASE_OFF (ARENA_TREE_ARRIVE_OFF + sizeof(waitword_t))
#define ARENA_XCHG_OFF (ARENA_TREE_RELEASE_OFF + sizeof(waitword_t)) /* ARENA_DISSEM_ROUNDS words */
#define ARENA_ENTERED_OFF (ARENA_XCHG_OFF + ARENA_DISSEM_ROUNDS * sizeof(waitword_t))
#define ARENA_HEAP_OFF ((size_t)64 << 10)

typedef struct arena_stripe {
    _Alignas(CACHE_LINE) _Atomic uint32_t lock;
} arena_stripe_t;

typedef struct arena_barrier {
    _Alignas(CACHE_LINE) _Atomic uint32_t arrived;
    waitword_t generation;
} arena_barrier_t;

_Static_assert(sizeof(arena_stripe_t) == CACHE_LINE, "a stripe lock is one cache line");
_Static_assert(ARENA_STRIPES * sizeof(arena_stripe_t) <= ARENA_QNODE_OFF, "stripes overlap the queue nodes");
_Static_assert(sizeof(arena_barrier_t) <= ARENA_DISSEM_OFF - ARENA_BARRIER_OFF, "node barrier too large");
_Static_assert(ARENA_ENTERED_OFF + sizeof(uint32_t) <= ARENA_HEAP_OFF, "barrier words overlap the heap");

#endif
