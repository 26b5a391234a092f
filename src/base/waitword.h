/* Waiting on a 32-bit word in memory shared between processes: spin a short
 * while, then sleep in the kernel. The futexes are not private, because the
 * word sits in a mapping shared by several processes. */
#ifndef REACH_BASE_WAITWORD_H
#define REACH_BASE_WAITWORD_H

#include <stdint.h>
#include "base/atomic.h"
#include "base/trace.h"

/* A value that waiters sleep on, with a count of sleepers so that the waker
 * makes a system call only when someone sleeps. 64 bytes: one cache line. */
typedef struct waitword {
    _Alignas(64) _Atomic uint32_t value;
    _Atomic uint32_t sleepers;
} waitword_t;
_Static_assert(sizeof(waitword_t) == 64, "a waitword is one cache line");

void futex_wait(_Atomic uint32_t *word, uint32_t expected);
void futex_wake(_Atomic uint32_t *word, int count);

/* Returns once ww->value != old (acquire order). Spins, then sleeps. */
void waitword_wait_change(waitword_t *ww, uint32_t old);
/* What the application thread does now and then while it spins in a wait
 * (the server thread never calls it): the network's progress, so that a
 * waiting process serves itself what arrives for it rather than wake its
 * server thread. Set by transport/am while the network is up. */
extern void (*waitword_poll)(void);
/* What it does before each sleep of such a wait (at least every
 * WAIT_SLEEP_MS): the progress of its own sends. A message whose send has
 * completed may still need its sender's progress to leave (UCX's TCP
 * transport keeps what the socket did not take, libfabric's tcp provider
 * what waits for a connection); a process asleep here must not hold up
 * the ranks that wait for it. Set by transport/am with waitword_poll. */
extern void (*waitword_sleeping)(void);
/* Wakes every sleeper of ww; call after changing ww->value (seq_cst). */
static inline void waitword_wake(waitword_t *ww)
{
    if (atom_load_seq_cst(&ww->sleepers) != 0)
        futex_wake(&ww->value, INT32_MAX);
}

/* Adds n to ww->value and wakes its sleepers; returns the old value.
 * tracing is trace_on, read by a caller whose add follows an atomic of
 * its own before that atomic: read between the two, the test of the flag
 * waits for the first and holds up the add (a node barrier after
 * MPI_Barrier, 0.12 -> 0.16 us). */
static inline uint32_t waitword_add_traced(waitword_t *ww, uint32_t n, int tracing)
{
    uint64_t t = trace_store_time_if(tracing);
    uint32_t old = atom_fetch_add_seq_cst(&ww->value, n);
    trace_store_if(tracing, t, ww, old + n);
    waitword_wake(ww);
    return old;
}

static inline uint32_t waitword_add(waitword_t *ww, uint32_t n)
{
    return waitword_add_traced(ww, n, __builtin_expect(trace_on, 0));
}

/* Returns once ww->value has counted up to target (modulo 2^32: a count
 * within 2^31 behind target is still short of it). */
static inline void waitword_wait_count(waitword_t *ww, uint32_t target)
{
    uint32_t got;
    while ((int32_t)((got = atom_load_acquire(&ww->value)) - target) < 0)
        waitword_wait_change(ww, got);
    trace_word(TRACE_SEE, ww, got);
}

/* Operations on the runtime's own words (lock words, queue nodes: 64-bit;
 * waitwords: the *_WAKE forms, which wake the sleepers), by CPU atomics:
 * done by a process of the word's node, or by its owner's server for a
 * process on another. */
typedef enum word_op {
    WORD_SWAP64,       /* stores a; returns the old value */
    WORD_CAS64,        /* stores b if the word equals a; returns the old value */
    WORD_ADD64,        /* adds a; returns the old value */
    WORD_STORE64,      /* stores a */
    WORD_STORE32_WAKE, /* stores a in the waitword */
    WORD_ADD32_WAKE,   /* adds a to the waitword; returns the old value */
} word_op_t;

/* Whether op returns something its caller waits for (else it is a signal). */
static inline int word_op_answers(word_op_t op)
{
    return op == WORD_SWAP64 || op == WORD_CAS64 || op == WORD_ADD64;
}

static inline uint64_t word_apply(void *word, word_op_t op, uint64_t a, uint64_t b)
{
    _Atomic uint64_t *w64 = word;
    waitword_t *ww = word;
    uint64_t old = a;
    switch (op) {
    case WORD_SWAP64: return atom_xchg_acq_rel(w64, a);
    case WORD_CAS64: atom_cas_acq_rel(w64, &old, b); return old;
    case WORD_ADD64: return atom_fetch_add_acq_rel(w64, a);
    case WORD_STORE64: atom_store_release(w64, a); return 0;
    case WORD_STORE32_WAKE:
        trace_store(trace_store_time(), ww, (uint32_t)a);
        atom_store_seq_cst(&ww->value, (uint32_t)a);
        waitword_wake(ww);
        return 0;
    default: return waitword_add(ww, (uint32_t)a);
    }
}

/* Mutual exclusion between processes for short critical sections
 * (0 free, 1 held, 2 held with sleepers). */
void futex_mutex_lock_slow(_Atomic uint32_t *m);
static inline void futex_mutex_lock(_Atomic uint32_t *m)
{
    uint32_t free_value = 0;
    if (!atom_cas_acquire(m, &free_value, 1))
        futex_mutex_lock_slow(m);
}
static inline void futex_mutex_unlock(_Atomic uint32_t *m)
{
    if (atom_xchg_release(m, 0) == 2)
        futex_wake(m, 1);
}

#endif
