/* Notifying counters: fetch-adds from every rank lose nothing and return
 * every old value exactly once; adds without a result are complete after a
 * barrier; a wait never ends before the value is reached, and always ends
 * once it is (waiters on the home's node and on others, several counters
 * on different homes at once); add-with-test as a barrier that no rank
 * leaves early; the errors. */
#include "mpi_check.h"
#include "reach.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, np;

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Every rank takes ITERS values with fetch-add 1 from a counter at rank
 * home: together they are initial .. initial + ITERS*np - 1, once each. */
static void test_fetch_add(int home, int64_t initial)
{
    enum { ITERS = 200 };
    reach_counter_t *c;
    CHECK(reach_counter_create(home, initial, &c) == REACH_SUCCESS);
    long long mine[ITERS];
    for (int i = 0; i < ITERS; i++) {
        int64_t old = -1;
        CHECK(reach_counter_add(c, 1, &old) == REACH_SUCCESS);
        mine[i] = old;
    }
    long long *all = malloc(sizeof(long long) * ITERS * (size_t)np);
    MPI_Allgather(mine, ITERS, MPI_LONG_LONG, all, ITERS, MPI_LONG_LONG, MPI_COMM_WORLD);
    qsort(all, (size_t)ITERS * (size_t)np, sizeof *all, cmp_ll);
    for (int i = 0; i < ITERS * np; i++)
        if (all[i] != initial + i) {
            CHECK_EQ_LL(all[i], initial + i);
            break;
        }
    free(all);
    /* Adds without a result, of several sizes, then a barrier. */
    for (int i = 0; i < ITERS; i++)
        CHECK(reach_counter_add(c, i % 3 == 0 ? -2 : 5, NULL) == REACH_SUCCESS);
    CHECK(reach_barrier() == REACH_SUCCESS);
    int64_t now = 0, per_rank = 0;
    for (int i = 0; i < ITERS; i++)
        per_rank += i % 3 == 0 ? -2 : 5;
    CHECK(reach_counter_read(c, &now) == REACH_SUCCESS);
    CHECK_EQ_LL(now, initial + (int64_t)ITERS * np + per_rank * np);
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_counter_destroy(c) == REACH_SUCCESS);
}

/* Rank r waits for the value r*STEP + STEP while rank 0 adds STEP at a
 * time, slowly: nobody may wake early, everybody wakes. Then every rank
 * waits on the counter of the next rank while adding to that of the
 * previous one, round after round. */
static void test_wait(void)
{
    enum { STEP = 10 };
    reach_counter_t *c;
    int home = np > 1 ? 1 : 0;
    CHECK(reach_counter_create(home, 0, &c) == REACH_SUCCESS);
    if (me == 0) {
        for (int r = 0; r < np; r++) {
            sleep_ms(20);
            CHECK(reach_counter_add(c, STEP, NULL) == REACH_SUCCESS);
            reach_fence(home);
        }
    }
    int64_t now = -1;
    CHECK(reach_counter_wait(c, (int64_t)(me + 1) * STEP, &now) == REACH_SUCCESS);
    CHECK(now >= (int64_t)(me + 1) * STEP);
    /* A rank that wakes for a later value sees every earlier one reached. */
    int64_t seen = -1;
    CHECK(reach_counter_read(c, &seen) == REACH_SUCCESS);
    CHECK(seen >= (int64_t)(me + 1) * STEP);
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_counter_destroy(c) == REACH_SUCCESS);

    /* One counter per rank, each waited on by the previous rank and added
     * to by the next: all waits in flight together. */
    reach_counter_t **ring = malloc(sizeof *ring * (size_t)np);
    for (int h = 0; h < np; h++)
        CHECK(reach_counter_create(h, 100, &ring[h]) == REACH_SUCCESS);
    for (int round = 1; round <= 20; round++) {
        reach_counter_t *watch = ring[(me + 1) % np], *feed = ring[(me + np - 1) % np];
        if (round % 5 == me % 5)
            sleep_ms(3);
        CHECK(reach_counter_add(feed, 1, NULL) == REACH_SUCCESS);
        CHECK(reach_counter_wait(watch, 100 + round, &now) == REACH_SUCCESS);
        CHECK(now >= 100 + round);
    }
    CHECK(reach_barrier() == REACH_SUCCESS);
    for (int h = 0; h < np; h++)
        CHECK(reach_counter_destroy(ring[h]) == REACH_SUCCESS);
    free(ring);
}

/* add-with-test as a barrier: nobody leaves round k before everybody has
 * added in round k; a late rank makes early leavers visible. */
static void test_add_wait_barrier(void)
{
    reach_counter_t *c;
    CHECK(reach_counter_create(np - 1, 0, &c) == REACH_SUCCESS);
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)np * sizeof(int), bases) == REACH_SUCCESS);
    memset(bases[me], 0, (size_t)np * sizeof(int));
    CHECK(reach_barrier() == REACH_SUCCESS);
    for (int round = 1; round <= 30; round++) {
        if (round % 7 == me % 7)
            sleep_ms(4);
        /* My arrival, announced to every rank before I add. */
        for (int t = 0; t < np; t++)
            CHECK(reach_put(&round, (int *)bases[t] + me, sizeof round, t) == REACH_SUCCESS);
        CHECK(reach_fence_all() == REACH_SUCCESS);
        int64_t now = 0;
        CHECK(reach_counter_add_wait(c, 1, (int64_t)round * np, &now) == REACH_SUCCESS);
        CHECK(now >= (int64_t)round * np);
        check_all_arrived(bases[me], np, round);
    }
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    CHECK(reach_counter_destroy(c) == REACH_SUCCESS);
}

static void test_errors(void)
{
    reach_counter_t *c = NULL;
    int64_t v;
    CHECK(reach_counter_create(np, 0, &c) == REACH_ERR_RANK);
    CHECK(reach_counter_create(-1, 0, &c) == REACH_ERR_RANK);
    CHECK(reach_counter_create(0, 0, NULL) == REACH_ERR_ARG);
    /* One rank naming another home fails everywhere. */
    CHECK(reach_counter_create(me == np - 1 && np > 1 ? 1 : 0, 0, &c) ==
          (np > 1 ? REACH_ERR_ARG : REACH_SUCCESS));
    if (np == 1)
        CHECK(reach_counter_destroy(c) == REACH_SUCCESS);
    CHECK(reach_counter_add(NULL, 1, &v) == REACH_ERR_HANDLE);
    CHECK(reach_counter_wait(NULL, 1, &v) == REACH_ERR_HANDLE);
    CHECK(reach_counter_add_wait(NULL, 1, 1, &v) == REACH_ERR_HANDLE);
    CHECK(reach_counter_read(NULL, &v) == REACH_ERR_HANDLE);
    CHECK(reach_counter_destroy(NULL) == REACH_ERR_HANDLE);
    CHECK(reach_counter_create(0, 7, &c) == REACH_SUCCESS);
    CHECK(reach_counter_read(c, NULL) == REACH_ERR_ARG);
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_counter_read(c, &v) == REACH_SUCCESS);
    CHECK_EQ_LL(v, 7);   /* nothing changed by the failed calls */
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_counter_destroy(c) == REACH_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    test_fetch_add(0, 0);
    test_fetch_add(np - 1, -1000);
    test_wait();
    test_add_wait_barrier();
    test_errors();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_counter");
    MPI_Finalize();
    return rc;
}
