/* The synchronization words' plain algorithms, on words of this process:
 * the window lock word (sync/window_lock.h) and a counter's home side
 * (sync/counter.c), with the runtime state reduced to one rank whose arena
 * is this process's memory. */
#include "../check.h"
#include "base/state.h"
#include "sync/counter.h"
#include "sync/window.h"

#include <string.h>

static _Alignas(64) char memory[4096];

/* Pushes a counter's home made: to whom, with what value. */
static int pushes, pushed_rank;
static int64_t pushed_value;
static void record_push(int rank, int64_t value)
{
    pushes++;
    pushed_rank = rank;
    pushed_value = value;
}

static void test_window_word(void)
{
    _Atomic uint64_t *word = (_Atomic uint64_t *)(void *)memory;
    uintptr_t w = (uintptr_t)word;
    int announced = 0, a2 = 0;
    atomic_store(word, 0);
    /* Readers share. */
    CHECK(win_try(0, w, REACH_LOCK_SHARED, &announced));
    CHECK(win_try(0, w, REACH_LOCK_SHARED, &announced));
    CHECK_EQ_LL(atomic_load(word), 2 * WIN_READER);
    /* A writer waits for them, and counts as waiting from its first try. */
    CHECK(!win_try(0, w, REACH_LOCK_EXCLUSIVE, &announced));
    CHECK(announced == 1);
    CHECK_EQ_LL(atomic_load(word), 2 * WIN_READER + WIN_WAITER);
    /* A waiting writer keeps new readers out: they back out. */
    CHECK(!win_try(0, w, REACH_LOCK_SHARED, &a2));
    CHECK_EQ_LL(atomic_load(word), 2 * WIN_READER + WIN_WAITER);
    win_unlock_word(0, w, REACH_LOCK_SHARED);
    CHECK(!win_try(0, w, REACH_LOCK_EXCLUSIVE, &announced));
    win_unlock_word(0, w, REACH_LOCK_SHARED);
    /* Free: the writer takes it, its wait no longer counted, announced once. */
    CHECK(win_try(0, w, REACH_LOCK_EXCLUSIVE, &announced));
    CHECK_EQ_LL(atomic_load(word), WIN_WRITER);
    /* Held exclusively: a reader and a second writer fail. */
    a2 = 0;
    CHECK(!win_try(0, w, REACH_LOCK_SHARED, &a2));
    CHECK(!win_try(0, w, REACH_LOCK_EXCLUSIVE, &a2));
    CHECK_EQ_LL(atomic_load(word), WIN_WRITER + WIN_WAITER);
    win_unlock_word(0, w, REACH_LOCK_EXCLUSIVE);
    CHECK(win_try(0, w, REACH_LOCK_EXCLUSIVE, &a2));
    win_unlock_word(0, w, REACH_LOCK_EXCLUSIVE);
    CHECK_EQ_LL(atomic_load(word), 0);
}

static void test_counter_home(void)
{
    ctr_home_t *h = (ctr_home_t *)(void *)(memory + 1024);
    memset(h, 0, ctr_home_size());
    pushes = 0;
    /* Adds return the old value; nobody waits, nobody is pushed to. */
    CHECK_EQ_LL(ctr_home_add(h, 5, record_push), 0);
    CHECK_EQ_LL(ctr_home_add(h, -2, record_push), 5);
    CHECK(pushes == 0);
    /* A registration already satisfied is pushed to at once, with the value. */
    ctr_home_want(h, 2, 3, record_push);
    CHECK(pushes == 1 && pushed_rank == 2 && pushed_value == 3);
    CHECK_EQ_LL(atomic_load(&h->registered), 0);
    /* One not yet satisfied waits for the add that reaches it, and is
     * pushed to exactly once. */
    ctr_home_want(h, 1, 10, record_push);
    CHECK(pushes == 1);
    ctr_home_add(h, 6, record_push);
    CHECK(pushes == 1);
    ctr_home_add(h, 1, record_push);
    CHECK(pushes == 2 && pushed_rank == 1 && pushed_value == 10);
    ctr_home_add(h, 1, record_push);
    CHECK(pushes == 2);
    /* Ticket lock: two counters; try takes a free lock, not a held one. */
    ctr_home_t *taken = (ctr_home_t *)(void *)(memory + 2048);
    memset(taken, 0, 2 * ctr_home_size());
    CHECK(ctr_lock_try(taken) == 1);
    CHECK(ctr_lock_try(taken) == 0);
    /* A queued request is granted when the holder serves its ticket. */
    pushes = 0;
    ctr_lock_request(taken, 3, record_push);
    CHECK(pushes == 0);
    ctr_home_add(ctr_lock_served(taken), 1, record_push);
    CHECK(pushes == 1 && pushed_rank == 3 && pushed_value == 1);
}

int main(void)
{
    peer_t self = {.map = memory, .rbase = (uintptr_t)memory};
    rt.peers = &self;
    rt.size = 4;   /* want[] slots; only rank 0 is ever addressed */
    test_window_word();
    test_counter_home();
    printf("test_sync_words: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
