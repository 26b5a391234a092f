/* The synchronization words' plain algorithms, on words of this process:
 * the window lock word (sync/window_lock.h), a counter's home side
 * (sync/counter.c) and the mcs lock's queue nodes (sync/mutex_mcs.h), with
 * the runtime state reduced to one rank whose arena is this process's
 * memory. */
#include "../check.h"
#include "base/state.h"
#include "sync/counter.h"
#include "sync/mutex_mcs.h"
#include "sync/window.h"

#include <string.h>

static _Alignas(64) char memory[ARENA_BARRIER_OFF];   /* up to the end of the queue nodes */

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

/* Encodings: rank and slot come back out; never 0 (an empty lock) or
 * RELEASED; a slot used again differs from its past by its generation. */
static void test_mcs_encoding(void)
{
    const int ranks[] = {0, 3, 65535}, slots[] = {0, 5, ARENA_QNODES - 1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            uint64_t e = mcs_encode(ranks[i], slots[j]);
            CHECK(mcs_rank(e) == ranks[i] && mcs_slot(e) == slots[j]);
            CHECK(e != 0 && e != MCS_RELEASED);
            mcs_slots.gen[slots[j]]++;
            uint64_t again = mcs_encode(ranks[i], slots[j]);
            CHECK(again != e && mcs_rank(again) == ranks[i] && mcs_slot(again) == slots[j]);
            mcs_slots.gen[slots[j]]--;
        }
    /* The generation wraps within its 26 bits, never into rank or slot. */
    mcs_slots.gen[7] = (1u << (32 - MCS_SLOT_BITS)) - 1;
    uint64_t top = mcs_encode(2, 7);
    CHECK(mcs_rank(top) == 2 && mcs_slot(top) == 7);
    mcs_slots.gen[7] = 0;
    CHECK_EQ_LL(mcs_next_raddr(mcs_encode(0, 5)), (uintptr_t)memory + ARENA_QNODE_OFF + 5 * sizeof(mcs_qnode_t));
}

/* The uncontended cycle on lock words of this process: unlock parks the
 * node as the tail; the next lock links behind it, finds RELEASED and holds
 * at once; trylock takes a free lock or one whose tail is parked, not a
 * held one; a process holding ARENA_QNODES locks gets an error for one more. */
static void test_mcs_cycle(void)
{
    enum { WORDS = ARENA_QNODES + 1 };
    _Atomic uint64_t *words = (_Atomic uint64_t *)(void *)(memory + 3072);
    int count = WORDS, first = 0;
    signed char held[WORDS];
    uintptr_t raddr = (uintptr_t)words;
    reach_mutexes_t set = {.algorithm = LOCK_MCS, .stride = sizeof(uint64_t), .count = &count,
                           .raddr = &raddr, .first = &first, .held = held};
    memset(held, -1, sizeof held);
    for (int i = 0; i < WORDS; i++)
        atomic_store(&words[i], 0);
    mcs_reset();
    uint64_t contended = rt.stats.lock_contended;

    CHECK(mcs_lock("test", &set, 0, 0, &held[0]) == REACH_SUCCESS);
    uint64_t first_node = atomic_load(&words[0]);
    CHECK(mcs_rank(first_node) == 0 && mcs_slot(first_node) == held[0]);
    CHECK(atomic_load(&mcs_qnode(first_node)->locked.value) == 0);
    mcs_unlock(&set, 0, 0, &held[0]);
    CHECK(atomic_load(&words[0]) == first_node);   /* parked: still the tail */
    CHECK(atomic_load(&mcs_qnode(first_node)->next) == MCS_RELEASED);
    CHECK(mcs_slots.parked == (uint64_t)1 << mcs_slot(first_node));

    CHECK(mcs_lock("test", &set, 0, 0, &held[0]) == REACH_SUCCESS);
    uint64_t second = atomic_load(&words[0]);
    CHECK(second != first_node && mcs_slot(second) == held[0]);
    CHECK(atomic_load(&mcs_qnode(first_node)->next) == second);   /* linked: consumed */
    CHECK(rt.stats.lock_contended == contended);

    int acquired = -1;
    CHECK(mcs_trylock("test", &set, 0, 0, &held[1], &acquired) == REACH_SUCCESS && acquired == 0);
    mcs_unlock(&set, 0, 0, &held[0]);
    held[0] = -1;
    CHECK(mcs_trylock("test", &set, 0, 0, &held[0], &acquired) == REACH_SUCCESS && acquired == 1);
    CHECK(mcs_slot(atomic_load(&words[0])) == held[0]);
    mcs_unlock(&set, 0, 0, &held[0]);
    CHECK(mcs_trylock("test", &set, 1, 0, &held[1], &acquired) == REACH_SUCCESS && acquired == 1);
    mcs_unlock(&set, 1, 0, &held[1]);

    /* Every slot held: one lock more fails, and leaves its word alone. */
    mcs_reset();
    for (int i = 0; i < WORDS; i++)
        atomic_store(&words[i], 0);
    for (int i = 0; i < ARENA_QNODES; i++)
        CHECK(mcs_lock("test", &set, i, 0, &held[i]) == REACH_SUCCESS);
    CHECK(mcs_lock("test", &set, ARENA_QNODES, 0, &held[ARENA_QNODES]) == REACH_ERR_MUTEX);
    CHECK(atomic_load(&words[ARENA_QNODES]) == 0);
    for (int i = 0; i < ARENA_QNODES; i++)
        mcs_unlock(&set, i, 0, &held[i]);
    /* All parked now: a lock reclaims one (its lock word emptied) and holds. */
    CHECK(mcs_lock("test", &set, ARENA_QNODES, 0, &held[ARENA_QNODES]) == REACH_SUCCESS);
    CHECK(mcs_slot(atomic_load(&words[ARENA_QNODES])) == held[ARENA_QNODES]);
    mcs_reset();
}

int main(void)
{
    peer_t self = {.map = memory, .rbase = (uintptr_t)memory};
    rt.peers = &self;
    rt.size = 4;   /* want[] slots; only rank 0 is ever addressed */
    test_window_word();
    test_counter_home();
    test_mcs_encoding();
    test_mcs_cycle();
    printf("test_sync_words: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
