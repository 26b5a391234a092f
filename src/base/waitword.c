#include "base/waitword.h"
#include "base/state.h"
#include "base/wait.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    rt_stat_inc(&rt.stats.blocking_waits);
    wait_tick();
    /* EAGAIN (value changed), EINTR and the timeout all mean: look again. */
    struct timespec limit = {0, WAIT_SLEEP_MS * 1000000L};
    long slept = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, &limit, NULL, 0);
    wait_woke(slept != 0 && errno == ETIMEDOUT, atom_load_relaxed(word) != expected);
    rt_order_acquire();
}

void futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, count, NULL, NULL, 0);
}

void (*waitword_poll)(void);
void (*waitword_sleeping)(void);

/* Of a wait's spins, one in this many polls the network. */
#define WAITWORD_POLL_EVERY 4

void waitword_wait_change(waitword_t *ww, uint32_t old)
{
    void (*poll)(void) = waitword_poll, (*sleeping)(void) = waitword_sleeping;
    if (poll && rt_on_server) /* a thread-local: read only with a network */
        poll = sleeping = NULL;
    uint32_t now;
    for (uint32_t i = 0; wait_spin_on(i); i++) {
        if ((now = atom_load_acquire(&ww->value)) != old) {
            trace_word(TRACE_SEE, ww, now);
            return;
        }
        if (poll && i % WAITWORD_POLL_EVERY == 0)
            poll();
        else
            cpu_relax();
    }
    /* Announce the sleep before checking again: the waker changes value,
     * then reads sleepers, both seq_cst, so one of us sees the other. */
    atom_fetch_add_seq_cst(&ww->sleepers, 1);
    while ((now = atom_load_seq_cst(&ww->value)) == old) {
        if (sleeping)
            sleeping();
        futex_wait(&ww->value, old);
    }
    atom_fetch_sub_seq_cst(&ww->sleepers, 1);
    trace_word(TRACE_SEE, ww, now);
}

void futex_mutex_lock_slow(_Atomic uint32_t *m)
{
    for (uint32_t i = 0; wait_spin_on(i); i++) {
        uint32_t free_value = 0;
        if (atom_load_relaxed(m) == 0 && atom_cas_acquire(m, &free_value, 1))
            return;
        cpu_relax();
    }
    /* Mark the mutex as having sleepers so that unlock wakes one. */
    while (atom_xchg_acq_rel(m, 2) != 0)
        futex_wait(m, 2);
}
