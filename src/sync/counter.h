/* Notifying counters (Zhang04's memory-side atomics with a test value;
 * docs/references.md): a counter lives at its home rank, every operation on
 * it runs there — a CPU atomic from a process of the home's node, the home's
 * server thread for a process on another node — and the home pushes the
 * value to a waiter once the counter reaches what it waits for. Waiters on
 * the home's node sleep on the counter's own waitword; a waiter on another
 * node registers at the home (one slot per rank) and waits for the one
 * message the home then sends it (a push, core/service.h).
 *
 * The home side below runs in whichever process changes the counter (a
 * process of the home's node, or the home's server), so the push is a
 * callback: each of them has its own way to send the message. */
#ifndef REACH_SYNC_COUNTER_H
#define REACH_SYNC_COUNTER_H

#include <stdint.h>
#include "base/arena.h"
#include "base/state.h"
#include "base/waitword.h"
#include "core/rma.h"

/* A waiter on another node: waiting for the counter to reach target. */
typedef struct ctr_want {
    _Alignas(16) _Atomic int64_t target;
    _Atomic uint32_t waiting; /* 1 from registration until the push is claimed */
} ctr_want_t;

typedef struct ctr_home {
    _Alignas(CACHE_LINE) _Atomic int64_t value;
    _Atomic uint32_t registered; /* wants[] entries waiting */
    waitword_t changes;          /* counts changes; waiters here sleep on it */
    ctr_want_t want[];           /* by rank */
} ctr_home_t;
_Static_assert(sizeof(ctr_want_t) == 16 && sizeof(ctr_home_t) == 2 * CACHE_LINE,
               "a counter's value and its waitword are a cache line each");

/* Bytes of one counter's home state for this job's ranks (a multiple of
 * 64). Zeroed memory is a counter at 0. */
size_t ctr_home_size(void) REACH_HIDDEN;

/* Sends value to rank, which waits on another node. */
typedef void (*ctr_push_fn)(int rank, int64_t value);

/* Pushes to the registered waiters that value satisfies. */
void ctr_home_push(ctr_home_t *h, int64_t value, ctr_push_fn push) REACH_HIDDEN;

/* Adds add; returns the old value; pushes to the waiters it satisfies.
 * The add and a registration meet Dekker-style: the adder changes the
 * value, then reads `registered`; the registrant raises `registered`, then
 * reads the value (all sequentially consistent), so at least one of them
 * sees the other and the waiter is pushed to exactly once. */
static inline int64_t ctr_home_add(ctr_home_t *h, int64_t add, ctr_push_fn push)
{
    int64_t old = atom_fetch_add_seq_cst(&h->value, add);
    waitword_add(&h->changes, 1);
    if (atom_load_seq_cst(&h->registered) != 0)
        ctr_home_push(h, old + add, push);
    return old;
}
/* Registers rank as waiting until the value reaches target (pushed at once
 * if it has). */
void ctr_home_want(ctr_home_t *h, int rank, int64_t target, ctr_push_fn push) REACH_HIDDEN;

/* A ticket lock is two counters in a row: tickets taken, then tickets
 * served; ticket t holds the lock while served == t. */
static inline ctr_home_t *ctr_lock_served(ctr_home_t *taken)
{
    return (ctr_home_t *)(void *)((char *)taken + ctr_home_size());
}
/* Takes a ticket for rank (on another node) and registers it as waiting
 * for its turn: Buntinas03's lock request served at the lock's server. */
void ctr_lock_request(ctr_home_t *taken, int rank, ctr_push_fn push) REACH_HIDDEN;
/* Takes the next ticket only if it is served at once; 1 if taken. */
int ctr_lock_try(ctr_home_t *taken) REACH_HIDDEN;

/* ---- the side of a process using a counter ---- */

/* A counter: its home rank and its address there. */
typedef struct ctr_ref {
    int home;
    uintptr_t raddr;
} ctr_ref_t;

/* Registers the handlers a counter's home serves for other nodes
 * (before the network starts). */
void counter_register(void) REACH_HIDDEN;
/* Collective: allocates a counter on home, starting at initial, and fills
 * ref; *mine gets the home's block (NULL on other ranks). The counter is
 * set up everywhere before this returns. */
int ctr_alloc(const char *call, int home, int64_t initial, ctr_ref_t *ref, void **mine) REACH_HIDDEN;
/* Fills ref for the counter at home, at base in home's address space. */
static inline void ctr_ref_init(ctr_ref_t *ref, int home, uintptr_t base)
{
    ref->home = home;
    ref->raddr = base;
}
/* A ticket lock's turn for this process, taken and awaited at the lock's
 * home in one request (Buntinas03's lock request at the lock's server);
 * taken is the lock's first counter, on another node. */
void ctr_lock_at_home(const ctr_ref_t *taken) REACH_HIDDEN;
/* ctr_lock_try at the lock's home, on this node or another. */
int ctr_try_lock(const ctr_ref_t *taken) REACH_HIDDEN;
/* The counter's home state mapped here; NULL if its home is on another node. */
static inline ctr_home_t *ctr_here(const ctr_ref_t *c)
{
    return (ctr_home_t *)(void *)rma_here(c->home, c->raddr);
}
/* Adds add. With old, returns the old value once the add is done; without,
 * the add to another node completes like a put (at a fence or barrier). */
void ctr_add(const ctr_ref_t *c, int64_t add, int64_t *old) REACH_HIDDEN;
/* A release (core/rma.h) that ends in an add to the counter without
 * answer: to a home on another node the add travels behind this process's
 * writes there (svc_call_after), the others fenced first. */
void ctr_release_add(const ctr_ref_t *c, int64_t add) REACH_HIDDEN;
/* Adds add (0: none), then waits until the value reaches target; returns
 * the value seen then. */
int64_t ctr_add_wait(const ctr_ref_t *c, int64_t add, int64_t target) REACH_HIDDEN;
/* Waits, on the home's node, until the value reaches target. */
int64_t ctr_wait_here(ctr_home_t *h, int64_t target) REACH_HIDDEN;
/* Frees the counters left at finalize. */
void counter_finalize(void) REACH_HIDDEN;

#endif
