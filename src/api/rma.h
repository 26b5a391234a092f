/* The api layer's entries that windows (sync/window.c) build on. */
#ifndef REACH_API_RMA_H
#define REACH_API_RMA_H

#include "base/state.h"

/* reach_put, its errors under `call`. With nbi, a put to another node
 * returns at once and its source stays unchanged until the next operation
 * to rank or a flush (transport.h's put_nbi); on the node it is a copy. */
int rma_put(const char *call, const void *src, void *dst, size_t bytes, int rank, int nbi) REACH_HIDDEN;
#endif
