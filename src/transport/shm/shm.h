/* Same-node transport: every process owns one arena (a memfd, so no file
 * ever appears in /dev/shm and nothing is left behind when a process dies),
 * and maps the arena of every other process of its node. Remote access is a
 * load, store, memcpy or CPU atomic on that mapping. The arena's layout is
 * in base/arena.h. */
#ifndef REACH_SHM_H
#define REACH_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "base/state.h"
#include "base/arena.h"
#include "base/waitword.h"

/* Creates this process's arena and maps the arenas of the node's processes
 * into rt.peers. Collective over rt.node_comm. */
int shm_init(void) REACH_HIDDEN;
void shm_finalize(void) REACH_HIDDEN;

/* Kinds of arena blocks: a block is freed only as the kind it was made.
 * SHM_BLOCK_CACHED is a freed block kept committed for reuse. */
enum { SHM_BLOCK_COLLECTIVE = 1, SHM_BLOCK_LOCAL = 2, SHM_BLOCK_CACHED = 3 };

/* Reserves len bytes of this process's heap and commits memory for them,
 * or takes a freed block of a like size still committed. A collective
 * block starts zeroed. call names the public call for the error message. */
int shm_alloc(const char *call, size_t len, int kind, void **ptr) REACH_HIDDEN;
/* Returns the block of this kind at ptr to the heap and its memory to the
 * system, or keeps it committed for the next allocation of a like size;
 * REACH_ERR_ARG if ptr starts no such block. */
int shm_free(void *ptr, int kind) REACH_HIDDEN;
/* Bytes of freed blocks kept committed. */
size_t shm_cache_bytes(void) REACH_HIDDEN;
/* Gives back every freed block kept committed; 1 if there was one. */
int shm_cache_flush(void) REACH_HIDDEN;
/* Bytes of memory the node can still give to shared allocations. */
size_t shm_available(void) REACH_HIDDEN;
/* This process's arena: its start, for the network to register. */
void *shm_arena_base(void) REACH_HIDDEN;
/* The size of every process's arena (address space). */
size_t shm_arena_size(void) REACH_HIDDEN;

/* The stripe lock covering byte `local` of rank's arena mapping. */
static inline _Atomic uint32_t *shm_stripe_lock(int rank, const char *local)
{
    const char *base = rt.peers[rank].map;
    size_t idx = ((size_t)(local - base) >> ARENA_STRIPE_SHIFT) & (ARENA_STRIPES - 1);
    return &((arena_stripe_t *)(void *)base)[idx].lock;
}

/* Bytes from `local` to the end of its stripe. */
static inline size_t shm_stripe_room(int rank, const char *local)
{
    size_t off = (size_t)(local - rt.peers[rank].map);
    size_t stripe = (size_t)1 << ARENA_STRIPE_SHIFT;
    return stripe - (off & (stripe - 1));
}

/* Barrier of the node's processes through node rank 0's arena. */
void shm_node_barrier(void) REACH_HIDDEN;

#endif
