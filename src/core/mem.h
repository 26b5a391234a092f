/* Collective allocations: every member of a group contributes a block of
 * its arena and learns every other member's block. */
#ifndef REACH_CORE_MEM_H
#define REACH_CORE_MEM_H
#include "core/group.h"

/* Collective over g. bases[i] receives member i's block (NULL for 0 bytes).
 * user: 1 makes the blocks targets of public operations (segments); 0 is for
 * the runtime's own structures. */
int mem_alloc_collective(const char *call, reach_group_t *g, size_t bytes, void *bases[], int user) REACH_HIDDEN;
/* Collective over g; base is this rank's block of an allocation made on g
 * with the same user flag (NULL if it had none). */
int mem_free_collective(const char *call, reach_group_t *g, void *base, int user) REACH_HIDDEN;
/* A block of this process's arena for its own use (reach_malloc_local),
 * and its release; REACH_ERR_ARG if ptr is no such block. */
int mem_alloc_local(const char *call, size_t bytes, void **ptr) REACH_HIDDEN;
int mem_free_local(void *ptr) REACH_HIDDEN;
/* Frees every remaining allocation (finalize). */
void mem_release_all(void) REACH_HIDDEN;
#endif
