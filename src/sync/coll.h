/* Group collectives: the collective of one scope of a group (coll_t) and
 * its area's layout, shared by their set-up (coll_setup.c), their
 * algorithms (coll_algo.c) and the calls (coll.c). */
#ifndef REACH_SYNC_COLL_H
#define REACH_SYNC_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "base/state.h"
#include "base/reduce.h"

/* Bytes of one chunk of a reduction or broadcast: 16 KiB in a scope whose
 * members share a node; 64 KiB in one that spans nodes, where each chunk
 * costs a trip (docs/benchmarks.md, "Reductions between machines"). */
#define COLL_SLOT_NODE ((size_t)16 << 10)
#define COLL_SLOT_NET ((size_t)64 << 10)
#define COLL_XSLOT ((size_t)2 << 10) /* the most an allreduce exchanges */
/* The least a halving slot holds (a larger allreduce's pieces: a chunk,
 * or this if more; docs/benchmarks.md, "Allreduce by halving"). */
#define COLL_HSLOT_MIN ((size_t)32 << 10)
#define COLL_ROUNDS 31 /* ceil(log2 n) of any int n */

/* An area: waitwords, then slots. W_BARRIER, W_UP, W_ACK_CHILD, W_XCHG
 * and W_HALF have a word per round, the others one. */
enum { W_BARRIER, W_UP, W_ACK_CHILD, W_XCHG, W_HALF, W_DOWN, W_ACK_PARENT, W_FOLD, W_UNFOLD, W_END };

typedef struct coll {
    int n, me, steps;                         /* members (0: not one), this process's number, ceil(log2 n) */
    int rounds;                               /* of the area's layout: ceil(log2 n) of the whole group */
    int *rank;                                /* member -> rank of the job */
    uintptr_t *area;                          /* member -> its area, in its own addresses */
    char *mine;                               /* this process's area */
    size_t words;                             /* bytes of an area's waitwords (its slots follow) */
    size_t chunk;                             /* bytes of a chunk: COLL_SLOT_NODE or _NET (by scope) */
    uint32_t barriers;                        /* barriers so far */
    uint32_t got_up[COLL_ROUNDS], got_down;   /* messages taken, by slot */
    uint32_t sent_down[COLL_ROUNDS], sent_up; /* messages sent, by link */
    uint32_t exchanges, got_fold, got_unfold; /* small allreduces so far, and their messages */
    uint32_t halves[COLL_ROUNDS];             /* a large allreduce's exchanges so far, by link */
    char *acc;                                /* a reduction's partial result, one chunk */
} coll_t;

/* coll_algo.c: the area's layout */
size_t coll_word(int rounds, int which, int k) REACH_HIDDEN;
size_t coll_area_bytes(int rounds, size_t chunk) REACH_HIDDEN;
int lowbit(int r) REACH_HIDDEN;
int coll_span(const coll_t *c, int r) REACH_HIDDEN;
/* coll_algo.c: a wait for a member's signals, and the algorithms */
void coll_wait(const coll_t *c, int which, int k, uint32_t target, int from) REACH_HIDDEN;
void coll_barrier(coll_t *c) REACH_HIDDEN;
void coll_exchange(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op) REACH_HIDDEN;
void coll_halving(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op) REACH_HIDDEN;
void coll_reduce(coll_t *c, char *buf, size_t count, size_t es, reduce_fn *op) REACH_HIDDEN;
void coll_bcast_chunk(coll_t *c, void *x, size_t bytes, int b) REACH_HIDDEN;
/* coll_setup.c */
coll_t *coll_of(const char *call, reach_group_t **g, int scope, int *st) REACH_HIDDEN;

#endif
