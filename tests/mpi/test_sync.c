/* Atomics under contention from every rank: exact sums of fetch-adds,
 * swaps and compare-and-swaps that lose nothing, accumulates beside
 * atomics, atomics after a process's own writes by every path, barriers
 * that no rank leaves early. Mutexes: test_lock.c. */
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
        int64_t cur = 0, old;   /* read atomically: others CAS meanwhile */
        reach_fetch_add_i64((int64_t *)bases[0] + 2, 0, &cur, 0);
        CHECK(reach_cas_i64((int64_t *)bases[0] + 2, cur, cur + 1, &old, 0) == REACH_SUCCESS);
        successes += old == cur;
        int32_t cur32 = 0, old32;
        reach_fetch_add_i32((int32_t *)bases[0] + 6, 0, &cur32, 0);
        CHECK(reach_cas_i32((int32_t *)bases[0] + 6, cur32, cur32 + 1, &old32, 0) == REACH_SUCCESS);
    }
    long long total = 0, mine = successes;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    reach_barrier();
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

/* An atomic sees this process's earlier writes to the same bytes, by
 * every path: blocking and not waited for, contiguous, strided (direct
 * and packed) and vector, puts and accumulates (reach.h: an atomic is
 * applied after this process's writes to its rank). Each rank writes its
 * own words at the next rank, against a model. */
static void test_writes_then_atomic(void)
{
    enum { WORDS = 16, ITERS = 600 };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)np * WORDS * sizeof(int64_t), bases) == REACH_SUCCESS);
    memset(bases[me], 0, (size_t)np * WORDS * sizeof(int64_t));
    reach_barrier();
    int t = (me + 1) % np;
    int64_t *mine = (int64_t *)bases[t] + me * WORDS, model[WORDS] = {0};
    long scale = 2;
    unsigned seed = 12345u + (unsigned)me;
    for (int i = 0; i < ITERS; i++) {
        seed = seed * 1103515245u + 12345u;
        int w = (int)(seed >> 8) % (WORDS - 2), path = (int)(seed >> 20) % 8;
        long v[2] = {(long)(seed >> 4) % 1000 - 500, (long)(seed >> 12) % 1000};
        reach_request_t rq = {0};
        reach_strided_t runs = {.levels = 1, .count = {sizeof(long), 2}, .src_stride = {sizeof(long)},
                                .dst_stride = {2 * sizeof(long)}};
        reach_strided_t one = {.levels = 0, .count = {sizeof(long)}};
        void *src[2] = {&v[0], &v[1]}, *dst[2] = {mine + w, mine + w + 2};
        reach_vector_t pairs = {src, dst, 2, sizeof(long)};
        switch (path) {
        case 0: CHECK(reach_put(v, mine + w, sizeof(long), t) == REACH_SUCCESS); model[w] = v[0]; break;
        case 1: CHECK(reach_put_nb(v, mine + w, sizeof(long), t, &rq) == REACH_SUCCESS); model[w] = v[0]; break;
        case 2:
            CHECK(reach_acc(REACH_LONG, &scale, v, mine + w, sizeof(long), t) == REACH_SUCCESS);
            model[w] += 2 * v[0];
            break;
        case 3:
            CHECK(reach_acc_nb(REACH_LONG, &scale, v, mine + w, sizeof(long), t, &rq) == REACH_SUCCESS);
            model[w] += 2 * v[0];
            break;
        case 4:
            CHECK(reach_acc_strided(REACH_LONG, &scale, v, mine + w, &one, t) == REACH_SUCCESS);
            model[w] += 2 * v[0];
            break;
        case 5:
            CHECK(reach_acc_strided(REACH_LONG, &scale, v, mine + w, &runs, t) == REACH_SUCCESS);
            model[w] += 2 * v[0];
            model[w + 2] += 2 * v[1];
            break;
        case 6:
            CHECK(reach_acc_vector(REACH_LONG, &scale, &pairs, 1, t) == REACH_SUCCESS);
            model[w] += 2 * v[0];
            model[w + 2] += 2 * v[1];
            break;
        default:
            CHECK(reach_put_strided(v, mine + w, &runs, t) == REACH_SUCCESS);
            model[w] = v[0];
            model[w + 2] = v[1];
            break;
        }
        int64_t old = 0, add = i % 3 + 1;
        if (i % 2 == 0) {
            CHECK(reach_fetch_add_i64(mine + w, add, &old, t) == REACH_SUCCESS);
        } else {
            CHECK(reach_cas_i64(mine + w, model[w], model[w] + add, &old, t) == REACH_SUCCESS);
        }
        CHECK_EQ_LL(old, model[w]);
        model[w] += add;
        CHECK(reach_wait(&rq) == REACH_SUCCESS);
    }
    reach_barrier();
    int64_t there[WORDS];
    CHECK(reach_get(mine, there, sizeof there, t) == REACH_SUCCESS);
    for (int k = 0; k < WORDS; k++)
        CHECK_EQ_LL(there[k], model[k]);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
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
        check_all_arrived(bases[me], np, round);
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
    test_writes_then_atomic();
    test_barrier();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_sync");
    MPI_Finalize();
    return rc;
}
