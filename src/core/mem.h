/* Collective allocations: every rank contributes a block of its arena and
 * learns every other rank's block. */
#ifndef REACH_CORE_MEM_H
#define REACH_CORE_MEM_H
#include "core/runtime.h"

/* Collective over all ranks. bases[r] receives rank r's block (NULL for 0
 * bytes). user: 1 makes the blocks targets of public operations (segments);
 * 0 is for the runtime's own structures. */
int mem_alloc_collective(const char *call, size_t bytes, void *bases[], int user) REACH_HIDDEN;
/* Collective; base is this rank's block of an allocation made with the same
 * user flag (NULL if it had none). */
int mem_free_collective(const char *call, void *base, int user) REACH_HIDDEN;
/* Frees every remaining allocation (finalize). */
void mem_release_all(void) REACH_HIDDEN;
#endif
