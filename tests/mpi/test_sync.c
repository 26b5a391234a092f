/* Atomics and mutexes under contention from every rank: exact sums of
 * fetch-adds, swaps and compare-and-swaps that lose nothing, exact counts
 * under a mutex, FIFO hand-off, trylock that never waits, barriers that no
 * rank leaves early. */
#include "mpi_check.h"
#include "reach.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

static int me, np;

static void test_fetch_add(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(64, bases) == REACH_SUCCESS);
    memset(bases[me], 0, 64);
    reach_barrier();
    enum { ITERS = 2000 };
    /* Everyone hammers rank 0's counters; the old values must all differ. */
    char *seen = calloc((size_t)np * ITERS, 1);
    int dup = 0;
    for (int i = 0; i < ITERS; i++) {
        int32_t o32;
        int64_t o64;
        CHECK(reach_fetch_add_i32((int32_t *)bases[0], 1, &o32, 0) == REACH_SUCCESS);
        CHECK(reach_fetch_add_i64((int64_t *)bases[0] + 1, 3, &o64, 0) == REACH_SUCCESS);
        if (o32 >= 0 && o32 < np * ITERS)
            dup += seen[o32]++ != 0;
        else
            dup++;
    }
    CHECK_EQ_LL(dup, 0);
    reach_barrier();
    int32_t c32;
    int64_t c64;
    CHECK(reach_get(bases[0], &c32, 4, 0) == REACH_SUCCESS);
    CHECK(reach_get((int64_t *)bases[0] + 1, &c64, 8, 0) == REACH_SUCCESS);
    CHECK_EQ_LL(c32, (long long)np * ITERS);
    CHECK_EQ_LL(c64, 3LL * np * ITERS);

    /* Compare-and-swap increments: every success counts exactly once. */
    reach_barrier();
    int64_t successes = 0;
    for (int i = 0; i < ITERS; i++) {
        int64_t cur = 0, old;
        reach_get((int64_t *)bases[0] + 2, &cur, 8, 0);
        CHECK(reach_cas_i64((int64_t *)bases[0] + 2, cur, cur + 1, &old, 0) == REACH_SUCCESS);
        successes += old == cur;
        int32_t cur32 = 0, old32;
        reach_get((int32_t *)bases[0] + 6, &cur32, 4, 0);
        CHECK(reach_cas_i32((int32_t *)bases[0] + 6, cur32, cur32 + 1, &old32, 0) == REACH_SUCCESS);
    }
    long long total = 0, mine = successes;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int64_t v;
    reach_get((int64_t *)bases[0] + 2, &v, 8, 0);
    CHECK_EQ_LL(v, total);
    CHECK(total >= ITERS); /* at least one rank succeeds each round */

    /* Swap: the values in circulation are conserved (each rank puts in its
     * rank + 1 and takes out what it found). */
    reach_barrier();
    int64_t held = me + 1, old;
    for (int i = 0; i < ITERS; i++) {
        CHECK(reach_swap_i64((int64_t *)bases[0] + 4, held, &old, 0) == REACH_SUCCESS);
        held = old;
        int32_t h32 = me, o32;
        CHECK(reach_swap_i32((int32_t *)bases[0] + 12, h32, &o32, 0) == REACH_SUCCESS);
    }
    long long sum_held = held, sum_all = 0;
    MPI_Allreduce(&sum_held, &sum_all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    reach_barrier();
    reach_get((int64_t *)bases[0] + 4, &v, 8, 0);
    CHECK_EQ_LL(sum_all + v, (long long)np * (np + 1) / 2);
    reach_barrier();
    free(seen);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Accumulates of doubles and fetch-adds on the same words at once: the
 * accumulate and the atomic share one atomicity domain. */
static void test_acc_vs_atomic(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(64 * sizeof(int64_t), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 64 * sizeof(int64_t));
    reach_barrier();
    long ones[64];
    for (int i = 0; i < 64; i++)
        ones[i] = 1;
    long scale = 1;
    enum { ITERS = 1000 };
    for (int i = 0; i < ITERS; i++) {
        if (me % 2 == 0) {
            CHECK(reach_acc(REACH_LONG, &scale, ones, bases[0], sizeof ones, 0) == REACH_SUCCESS);
        } else {
            int64_t old;
            CHECK(reach_fetch_add_i64((int64_t *)bases[0] + i % 64, 64, &old, 0) == REACH_SUCCESS);
        }
    }
    reach_barrier();
    if (me == 0) {
        long long total = 0;
        for (int i = 0; i < 64; i++)
            total += ((int64_t *)bases[0])[i];
        CHECK_EQ_LL(total, 64LL * ITERS * np);
    }
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* A counter on every rank, incremented under that rank's mutex with a plain
 * get and put: no increment may be lost. */
static void test_mutex_counts(void)
{
    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(2, &m) == REACH_SUCCESS);
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(2 * sizeof(long), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 2 * sizeof(long));
    reach_barrier();
    enum { ITERS = 300 };
    /* Mostly rank 0's mutexes, so that every rank contends for them. */
    for (int i = 0; i < ITERS; i++) {
        int t = i % 4 == 0 ? (me + i) % np : 0, id = i % 2;
        CHECK(reach_mutex_lock(m, id, t) == REACH_SUCCESS);
        long v;
        reach_get((long *)bases[t] + id, &v, sizeof v, t);
        v++;
        reach_put(&v, (long *)bases[t] + id, sizeof v, t);
        reach_fence(t);
        CHECK(reach_mutex_unlock(m, id, t) == REACH_SUCCESS);
    }
    reach_barrier();
    /* What every rank sent to each (rank, id) must have arrived there. */
    long *sent = calloc((size_t)np * 2, sizeof(long)), *recv = calloc((size_t)np * 2, sizeof(long));
    for (int i = 0; i < ITERS; i++)
        sent[2 * (i % 4 == 0 ? (me + i) % np : 0) + i % 2]++;
    MPI_Allreduce(sent, recv, 2 * np, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long *c = bases[me];
    CHECK_EQ_LL(c[0], recv[2 * me]);
    CHECK_EQ_LL(c[1], recv[2 * me + 1]);
    free(sent);
    free(recv);
    /* Several mutexes held at once, released in another order. */
    for (int t = 0; t < np; t++)
        CHECK(reach_mutex_lock(m, 0, t) == REACH_SUCCESS);
    for (int t = np - 1; t >= 0; t--)
        CHECK(reach_mutex_unlock(m, 0, t) == REACH_SUCCESS);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    free(bases);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Rank 0 holds the mutex while ranks 1..np-1 ask for it one after another;
 * they must get it in the order they asked. Each records its turn. */
static void test_fifo_and_trylock(void)
{
    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(1, &m) == REACH_SUCCESS);
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(64 * sizeof(int), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 64 * sizeof(int));
    reach_barrier();
    int *order = bases[0];
    const int gap_ms = 60;
    if (me == 0) {
        CHECK(reach_mutex_lock(m, 0, 0) == REACH_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_ms(gap_ms * np + 200);
        CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_ms(gap_ms * me);
        CHECK(reach_mutex_lock(m, 0, 0) == REACH_SUCCESS);
        int pos;
        CHECK(reach_fetch_add_i32(&order[0], 1, &pos, 0) == REACH_SUCCESS);
        int one = me;
        reach_put(&one, &order[1 + pos], sizeof one, 0);
        CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
    }
    reach_barrier();
    if (me == 0)
        for (int i = 1; i < np; i++)
            CHECK_EQ_LL(order[i], i);

    /* Trylock never waits: while rank 0 holds the mutex, everybody else's
     * trylock fails at once; after release, exactly one succeeds per round. */
    if (me == 0)
        CHECK(reach_mutex_lock(m, 0, 0) == REACH_SUCCESS);
    reach_barrier();
    if (me != 0) {
        int got = 1;
        double t0 = MPI_Wtime();
        CHECK(reach_mutex_trylock(m, 0, 0, &got) == REACH_SUCCESS);
        CHECK(got == 0);
        CHECK(MPI_Wtime() - t0 < 1.0);
    }
    reach_barrier();
    if (me == 0)
        CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
    reach_barrier();
    int got = 0;
    CHECK(reach_mutex_trylock(m, 0, 0, &got) == REACH_SUCCESS);
    int winners = 0;
    MPI_Allreduce(&got, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ_LL(winners, 1);
    if (got)
        CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    free(bases);
}

/* No rank leaves a barrier before every rank entered it; a put issued
 * before the barrier is visible after it. */
static void test_barrier(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)np * sizeof(int), bases) == REACH_SUCCESS);
    memset(bases[me], 0, (size_t)np * sizeof(int));
    reach_barrier();
    for (int round = 1; round <= 50; round++) {
        /* A late rank makes early leavers visible. */
        if (round % 10 == me % 10)
            sleep_ms(5);
        for (int t = 0; t < np; t++)
            reach_put(&round, (int *)bases[t] + me, sizeof round, t);
        CHECK(reach_barrier() == REACH_SUCCESS);
        int *seen = bases[me];
        for (int r = 0; r < np; r++)
            if (seen[r] < round) {
                CHECK_EQ_LL(seen[r], round);
                break;
            }
        CHECK(reach_barrier() == REACH_SUCCESS);
    }
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    test_fetch_add();
    test_acc_vs_atomic();
    test_mutex_counts();
    test_fifo_and_trylock();
    test_barrier();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_sync");
    MPI_Finalize();
    return rc;
}
