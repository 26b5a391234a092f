/* Bookkeeping of one process's arena: which page-aligned ranges are in use.
 * Lives in private memory; the arena itself is shared. */
#ifndef REACH_BASE_HEAP_H
#define REACH_BASE_HEAP_H

#include <stddef.h>
#include "base/state.h"

typedef struct heap_block {
    size_t off, len;
    int used; /* 0 free, else the kind the caller gave */
} heap_block_t;

typedef struct heap {
    heap_block_t *blocks; /* sorted by offset, covering [base, base+size) */
    int count, capacity;
    size_t in_use; /* bytes of used blocks */
} heap_t;

int heap_init(heap_t *h, size_t base, size_t size) REACH_HIDDEN;
void heap_destroy(heap_t *h) REACH_HIDDEN;
/* First fit of len bytes (rounded up to the page size). Returns 0 and the
 * offset in *off, or -1 if no free range is large enough. */
int heap_alloc(heap_t *h, size_t len, int kind, size_t *off) REACH_HIDDEN;
/* Frees the block that starts at off; returns its length, 0 if none. */
size_t heap_free(heap_t *h, size_t off) REACH_HIDDEN;
/* Length of the used block of this kind that starts at off, 0 if none. */
size_t heap_block_len(const heap_t *h, size_t off, int kind) REACH_HIDDEN;
/* Makes the used block of kind from at off one of kind to; returns its
 * length, 0 if there is no such block. */
size_t heap_retag(heap_t *h, size_t off, int from, int to) REACH_HIDDEN;

#define HEAP_PAGE ((size_t)4096)

#endif
