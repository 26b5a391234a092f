/* The process's call lock. When MPI runs at MPI_THREAD_MULTIPLE
 * (reach_init asks it), the program's threads may call reach at once, and
 * every entry point holds this lock until it returns (SERIAL_CALL), so
 * reach's state is changed by one application thread at a time; the server
 * thread and the network's watch synchronize with that thread as they
 * would without threads. Below MPI_THREAD_MULTIPLE the lock is never
 * taken: the test of serial_on is all it costs.
 *
 * A data call (a get, an accumulate, the completion of a request) that
 * waits for the network lets the lock go to the threads waiting for it
 * (serial_yield), at points where it holds no half-made state, and takes
 * it back after: their requests go out beside its own, and each thread
 * that holds the lock progresses the network for all of them. A
 * synchronizing call (fence, barrier, mutex, counter, notification,
 * window, collective) keeps the lock until it returns. */
#ifndef REACH_BASE_SERIAL_H
#define REACH_BASE_SERIAL_H

#include <pthread.h>

#include "base/state.h"

extern int serial_on REACH_HIDDEN;
extern pthread_mutex_t serial_lock REACH_HIDDEN;
/* Threads blocked on the lock: serial_yield lets it go only for them. */
extern int serial_waiting REACH_HIDDEN;
/* This thread's depth of entry points (nested calls take the lock once),
 * and whether its outermost one is a data call that may yield. */
extern _Thread_local int serial_depth REACH_HIDDEN;
extern _Thread_local int serial_may_yield REACH_HIDDEN;

typedef enum { SERIAL_SYNC, SERIAL_DATA } serial_kind_t;

/* The first statement of an entry point that touches reach's state. */
#define SERIAL_CALL(kind) int serial_entered_ __attribute__((cleanup(serial_leave), unused)) = serial_enter(kind)

void serial_take(void) REACH_HIDDEN;

/* 0: the lock is off; 1: a call nested in another entry point; 2: the
 * outermost call, which took the lock. */
static inline int serial_enter(serial_kind_t kind)
{
    if (likely(!__atomic_load_n(&serial_on, __ATOMIC_RELAXED)))
        return 0;
    if (serial_depth++ != 0)
        return 1;
    serial_take();
    serial_may_yield = kind == SERIAL_DATA;
    return 2;
}

static inline void serial_leave(const int *entered)
{
    if (likely(*entered == 0))
        return;
    if (--serial_depth != 0)
        return;
    serial_may_yield = 0;
    pthread_mutex_unlock(&serial_lock);
}

void serial_yield_slow(void) REACH_HIDDEN;
/* Called by a wait of a data call where it may let the lock go: if other
 * threads wait for it, they take it in turn and this thread takes it back. */
static inline void serial_yield(void)
{
    if (unlikely(serial_may_yield) && __atomic_load_n(&serial_waiting, __ATOMIC_RELAXED) > 0)
        serial_yield_slow();
}

/* At the end of reach_init (on: MPI runs at MPI_THREAD_MULTIPLE) and in
 * reach_finalize. */
void serial_start(int on) REACH_HIDDEN;

#endif
