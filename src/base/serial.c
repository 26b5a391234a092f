#include "base/serial.h"

#include <sched.h>

int serial_on;
pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
int serial_waiting;
static unsigned serial_takes; /* times the lock was taken */
_Thread_local int serial_depth;
_Thread_local int serial_may_yield;

void serial_take(void)
{
    if (pthread_mutex_trylock(&serial_lock) != 0) {
        __atomic_fetch_add(&serial_waiting, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&serial_lock);
        __atomic_fetch_sub(&serial_waiting, 1, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&serial_takes, 1, __ATOMIC_RELAXED);
}

/* The lock is not fair: a thread that let it go and took it straight back
 * would keep it, while the waiter it woke is still waking. So it yields the
 * processor until another thread has taken the lock (a few times at most:
 * the waiter may have given up its turn). */
void serial_yield_slow(void)
{
    unsigned takes = __atomic_load_n(&serial_takes, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&serial_lock);
    for (int i = 0; i < 16 && __atomic_load_n(&serial_takes, __ATOMIC_RELAXED) == takes; i++)
        sched_yield();
    serial_take();
}

void serial_start(int on)
{
    __atomic_store_n(&serial_on, on, __ATOMIC_RELAXED);
}
