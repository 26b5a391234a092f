/* The window lock word (paper 002, one-sided in both modes): a 64-bit
 * word in the target's arena,
 *
 *   bits  0..31  shared holders
 *   bit  32      exclusive holder
 *   bits 40..63  exclusive lockers waiting
 *
 * Shared lock: add one holder; if the word shows an exclusive holder or a
 * waiting exclusive locker, take it back, back off and retry — so a stream
 * of readers cannot starve a writer. Exclusive lock: announce the wait
 * (add one waiting), then compare-and-swap "nobody holds it" to "held,
 * one fewer waiting", backing off while others hold it. Unlock subtracts
 * what the lock added. Every step is a CPU atomic on the node and a
 * network atomic from another (core/rma.h's rma_word_amo): the target
 * process never takes part. Back-off doubles from 1 us to 1 ms, sleeping,
 * so that contention neither floods the network nor burns a core. */
#include "base/wait.h"
#include "core/rma.h"
#include "sync/window.h"

#include <time.h>

int win_try(int rank, uintptr_t word, int mode, int *announced)
{
    if (mode == REACH_LOCK_SHARED) {
        if ((rma_word_amo(rank, word, 0, WIN_READER, 0) & ~WIN_READERS_MASK) == 0)
            return 1;
        rma_word_amo(rank, word, 0, (uint64_t)-WIN_READER, 0);
        return 0;
    }
    uint64_t seen = rma_word_amo(rank, word, 0, *announced ? 0 : WIN_WAITER, 0);
    if (!*announced) {
        seen += WIN_WAITER;
        *announced = 1;
    }
    while ((seen & (WIN_WRITER | WIN_READERS_MASK)) == 0) {
        uint64_t old = rma_word_amo(rank, word, 1, seen, seen - WIN_WAITER + WIN_WRITER);
        if (old == seen)
            return 1;
        seen = old;   /* changed meanwhile: again at once if still free */
    }
    return 0;
}

void win_lock_word(int rank, uintptr_t word, int mode)
{
    int announced = 0;
    for (long ns = 1000; !win_try(rank, word, mode, &announced);) {
        struct timespec ts = {0, ns};
        wait_tick();
        nanosleep(&ts, NULL);
        if (ns < 1000000)
            ns *= 2;
    }
}

void win_unlock_word(int rank, uintptr_t word, int mode)
{
    rma_word_amo(rank, word, 0, (uint64_t)-win_hold(mode), 0);
}
