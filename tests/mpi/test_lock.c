/* Mutexes under every lock algorithm (REACH_LOCK chooses the first; the
 * others are made with reach_set_lock): exact counts of increments made
 * under a mutex by every rank, FIFO hand-off, trylock that never waits,
 * several mutexes held at once, sets of all three algorithms in use
 * together, and the errors of choosing an algorithm. */
#include "mpi_check.h"
#include "reach.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, np;

/* A read-modify-write that is not atomic (get, add, put, fence): only a
 * lock keeps two of them apart. */
static void plain_add(long *remote, long add, int rank)
{
    long v;
    CHECK(reach_get(remote, &v, sizeof v, rank) == REACH_SUCCESS);
    v += add;
    CHECK(reach_put(&v, remote, sizeof v, rank) == REACH_SUCCESS);
    CHECK(reach_fence(rank) == REACH_SUCCESS);
}

/* A counter on every rank, incremented under that rank's mutex with a plain
 * get and put: no increment may be lost. */
static void test_mutex_counts(reach_mutexes_t *m)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(2 * sizeof(long), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 2 * sizeof(long));
    reach_barrier();
    enum { ITERS = 300 };
    /* Mostly rank 0's mutexes, so that every rank contends for them. */
    for (int i = 0; i < ITERS; i++) {
        int t = i % 4 == 0 ? (me + i) % np : 0, id = i % 2;
        CHECK(reach_mutex_lock(m, id, t) == REACH_SUCCESS);
        plain_add((long *)bases[t] + id, 1, t);
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
    free(bases);
}

/* Rank 0 holds the mutex while ranks 1..np-1 ask for it one after another;
 * they must get it in the order they asked. Each records its turn. Rank 0
 * lets them ask one at a time (notify, which sleeps rather than polls as
 * MPI would on an oversubscribed machine) and leaves each request time to
 * reach the lock before letting the next rank go. */
static void test_fifo_and_trylock(reach_mutexes_t *m)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(64 * sizeof(int), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 64 * sizeof(int));
    reach_barrier();
    int *order = bases[0];
    int waited;
    if (me == 0) {
        CHECK(reach_mutex_lock(m, 0, 0) == REACH_SUCCESS);
        for (int i = 1; i < np; i++) {
            CHECK(reach_notify(i) > 0);            /* your turn to ask */
            CHECK(reach_notify_wait(i, &waited) >= 0);   /* asking now */
            sleep_ms(50);
        }
        CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
    } else {
        CHECK(reach_notify_wait(0, &waited) >= 0);
        CHECK(reach_notify(0) > 0);
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
    free(bases);
}

/* Sets of every algorithm at once: a lock of one never excludes another's,
 * and each still counts exactly. */
static void test_mixed(void)
{
    static const char *const algos[] = {"mcs", "ticket", "hybrid"};
    reach_mutexes_t *m[3];
    for (int a = 0; a < 3; a++) {
        CHECK(reach_set_lock(algos[a]) == REACH_SUCCESS);
        CHECK(reach_mutexes_create(1, &m[a]) == REACH_SUCCESS);
    }
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(3 * sizeof(long), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 3 * sizeof(long));
    reach_barrier();
    enum { ITERS = 150 };
    int t = np - 1;   /* every rank contends for the last rank's mutexes */
    for (int i = 0; i < ITERS; i++) {
        int a = (i + me) % 3;
        CHECK(reach_mutex_lock(m[a], 0, t) == REACH_SUCCESS);
        plain_add((long *)bases[t] + a, 1, t);
        CHECK(reach_mutex_unlock(m[a], 0, t) == REACH_SUCCESS);
    }
    reach_barrier();
    if (me == t)
        for (int a = 0; a < 3; a++)
            CHECK_EQ_LL(((long *)bases[me])[a], (long long)ITERS * np / 3);
    reach_barrier();
    for (int a = 0; a < 3; a++)
        CHECK(reach_mutexes_destroy(m[a]) == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* More mutexes than queue-node slots (64), each locked and released
 * without contention, then contended: mcs parks a released node as its
 * lock's tail and must take parked slots back. Counts stay exact; under
 * mcs an uncontended release makes no remote atomic, even on a lock on
 * another node. */
static void test_many(void)
{
    enum { N = 100, ROUNDS = 3 };
    const char *algo = getenv("REACH_LOCK");
    int mcs = algo == NULL || strcmp(algo, "mcs") == 0;
    reach_mutexes_t *m;
    CHECK(reach_set_lock(algo ? algo : "mcs") == REACH_SUCCESS);
    CHECK(reach_mutexes_create(N, &m) == REACH_SUCCESS);
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(2 * N * sizeof(long), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 2 * N * sizeof(long));
    reach_barrier();
    int t = (me + 1) % np;
    /* Alone: every rank locks the next rank's mutexes, nobody else does. */
    for (int r = 0; r < ROUNDS; r++)
        for (int id = 0; id < N; id++) {
            CHECK(reach_mutex_lock(m, id, t) == REACH_SUCCESS);
            plain_add((long *)bases[t] + id, 1, t);
            reach_stats_t s0, s1;
            reach_stats_get(&s0);
            CHECK(reach_mutex_unlock(m, id, t) == REACH_SUCCESS);
            reach_stats_get(&s1);
            if (mcs)   /* no compare-and-swap (the server's pushes to others count as messages) */
                CHECK_EQ_LL((long long)(s1.remote_atomics - s0.remote_atomics), 0);
        }
    reach_barrier();
    for (int id = 0; id < N; id++)
        if (((long *)bases[me])[id] != ROUNDS) {
            CHECK_EQ_LL(((long *)bases[me])[id], ROUNDS);
            break;
        }
    reach_barrier();
    /* Together: every rank on every mutex of rank 0. */
    for (int r = 0; r < ROUNDS; r++)
        for (int id = 0; id < N; id++) {
            int got = 0;
            if (id % 3 == 0) {
                CHECK(reach_mutex_trylock(m, id, 0, &got) == REACH_SUCCESS);
                if (!got)
                    continue;
            } else {
                CHECK(reach_mutex_lock(m, id, 0) == REACH_SUCCESS);
            }
            plain_add((long *)bases[0] + id, 1000, 0);
            CHECK(reach_mutex_unlock(m, id, 0) == REACH_SUCCESS);
            long one = 1;
            CHECK(reach_acc(REACH_LONG, &one, &one, (long *)bases[0] + N + id, sizeof one, 0) ==
                  REACH_SUCCESS);   /* counts the sections made */
        }
    reach_barrier();
    /* Each section adds 1000 under the lock, and one to its count by an
     * atomic accumulate outside it: no addition may be lost. */
    if (me == 0)
        for (int id = 0; id < N; id++) {
            long v = ((long *)bases[0])[id] - ROUNDS, made = ((long *)bases[0])[N + id];
            if (v != 1000 * made) {
                CHECK_EQ_LL(v, 1000 * made);
                break;
            }
        }
    reach_barrier();
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

static void test_choice_errors(void)
{
    CHECK(reach_set_lock("spin") == REACH_ERR_ARG);
    CHECK(reach_set_lock(NULL) == REACH_ERR_ARG);
    /* Ranks that chose differently cannot make a set together. */
    reach_mutexes_t *m = NULL;
    CHECK(reach_set_lock(me == 0 ? "ticket" : "mcs") == REACH_SUCCESS);
    CHECK(reach_mutexes_create(1, &m) == (np > 1 ? REACH_ERR_ARG : REACH_SUCCESS));
    if (np == 1)
        CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(2, &m) == REACH_SUCCESS);
    test_mutex_counts(m);
    test_fifo_and_trylock(m);
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    test_mixed();
    test_many();
    test_choice_errors();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_lock");
    MPI_Finalize();
    return rc;
}
