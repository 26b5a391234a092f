/* The window lock word (Santhanaraman08, docs/references.md; one-sided in
 * both modes): a 64-bit word in the target's arena,
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
 * process never takes part. Back-off doubles from 1 us to 1 ms, sleeping
 * (window_lock.c), so that contention neither floods the network nor burns
 * a core. Inline: every epoch takes and releases the word, on the node in
 * a few nanoseconds. */
#ifndef REACH_SYNC_WINDOW_LOCK_H
#define REACH_SYNC_WINDOW_LOCK_H

#include "core/rma.h"

#define WIN_READER ((uint64_t)1)
#define WIN_WRITER ((uint64_t)1 << 32)
#define WIN_WAITER ((uint64_t)1 << 40)
#define WIN_READERS_MASK (WIN_WRITER - 1)

/* What a holder in mode adds to the word, and takes back at release. */
static inline uint64_t win_hold(int mode)
{
    return mode == REACH_LOCK_SHARED ? WIN_READER : WIN_WRITER;
}

/* One attempt at rank's lock word (word, in rank's addresses) in mode;
 * *announced says whether an exclusive locker already counts as waiting
 * (set on the first attempt). 1 if taken. */
static inline int win_try(int rank, uintptr_t word, int mode, int *announced)
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
        seen = old; /* changed meanwhile: again at once if still free */
    }
    return 0;
}

/* Tries again, backing off (sleeping) between attempts, until taken. */
void win_lock_backoff(int rank, uintptr_t word, int mode, int announced) REACH_HIDDEN;

/* Takes the lock. */
static inline void win_lock_word(int rank, uintptr_t word, int mode)
{
    int announced = 0;
    if (unlikely(!win_try(rank, word, mode, &announced)))
        win_lock_backoff(rank, word, mode, announced);
}

static inline void win_unlock_word(int rank, uintptr_t word, int mode)
{
    rma_word_amo(rank, word, 0, (uint64_t)-win_hold(mode), 0);
}

#endif
