/* Windows with passive-target epochs, in the mode REACH_WIN_SYNC chooses
 * (direct or deferred): readers and writers of one window
 * under contention keep the invariant (a writer's K stores are seen all or
 * none by readers and writers; no increment made under an exclusive lock
 * is lost), mixed streams of shared and exclusive locks finish, lock_all
 * and flush make data visible, and every misuse is an error that writes
 * nothing. */
#include "mpi_check.h"
#include "reach.h"

#include <stdlib.h>
#include <string.h>

static int me, np;

enum { K = 16, ITERS = 200 };

/* Every rank locks random ranks' windows: a third of the time exclusively,
 * to add one to all K words (K separate puts); otherwise shared, to read
 * them and check that they are equal. The sum of the K words' final
 * values counts the exclusive sections. */
static void test_readers_writers(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_win_t *w;
    CHECK(reach_win_allocate(K * sizeof(long), bases, &w) == REACH_SUCCESS);
    memset(bases[me], 0, K * sizeof(long));
    reach_barrier();
    long *made = calloc((size_t)np, sizeof(long));
    unsigned seed = 12345u + 7919u * (unsigned)me;
    for (int i = 0; i < ITERS; i++) {
        seed = seed * 1103515245u + 12345u;
        int t = (int)((seed >> 16) % (unsigned)np);
        long v[K];
        if (i % 3 == 0) {
            CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, t) == REACH_SUCCESS);
            CHECK(reach_win_get(w, v, 0, sizeof v, t) == REACH_SUCCESS);
            /* The get's data is there after a flush (deferred: the lock is
             * taken then, and kept). */
            CHECK(reach_win_flush(w, t) == REACH_SUCCESS);
            for (int k = 1; k < K; k++)
                if (v[k] != v[0]) {
                    CHECK_EQ_LL(v[k], v[0]);
                    break;
                }
            for (int k = 0; k < K; k++) {
                long nv = v[k] + 1;
                CHECK(reach_win_put(w, &nv, (size_t)k * sizeof(long), sizeof nv, t) == REACH_SUCCESS);
            }
            CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
            made[t]++;
        } else {
            CHECK(reach_win_lock(w, REACH_LOCK_SHARED, t) == REACH_SUCCESS);
            CHECK(reach_win_get(w, v, 0, sizeof v, t) == REACH_SUCCESS);
            CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
            for (int k = 1; k < K; k++)
                if (v[k] != v[0]) {
                    CHECK_EQ_LL(v[k], v[0]);
                    break;
                }
        }
    }
    reach_barrier();
    long *total = calloc((size_t)np, sizeof(long));
    MPI_Allreduce(made, total, np, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const long *mine = bases[me];
    for (int k = 0; k < K; k++)
        CHECK_EQ_LL(mine[k], total[me]);
    free(made);
    free(total);
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    free(bases);
}

/* lock_all, a put into every rank's window, flush_all, unlock_all: after a
 * barrier every window holds every rank's mark. An accumulate under shared
 * locks from everyone adds up exactly. */
static void test_lock_all(void)
{
    void *mine = NULL;
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)(np + 1) * sizeof(long), bases) == REACH_SUCCESS);
    mine = bases[me];
    memset(mine, 0, (size_t)(np + 1) * sizeof(long));
    reach_win_t *w;
    /* A window over part of an existing allocation. */
    CHECK(reach_win_create(mine, (size_t)(np + 1) * sizeof(long), &w) == REACH_SUCCESS);
    reach_barrier();
    CHECK(reach_win_lock_all(w) == REACH_SUCCESS);
    long mark = me + 1, one = 1;
    for (int t = 0; t < np; t++) {
        CHECK(reach_win_put(w, &mark, (size_t)me * sizeof(long), sizeof mark, t) == REACH_SUCCESS);
        CHECK(reach_win_acc(w, REACH_LONG, &one, &one, (size_t)np * sizeof(long), sizeof one, t) ==
              REACH_SUCCESS);
    }
    CHECK(reach_win_flush_all(w) == REACH_SUCCESS);
    CHECK(reach_win_unlock_all(w) == REACH_SUCCESS);
    reach_barrier();
    for (int r = 0; r < np; r++)
        CHECK_EQ_LL(((long *)mine)[r], r + 1);
    CHECK_EQ_LL(((long *)mine)[np], np);
    reach_barrier();
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    CHECK(reach_free(mine) == REACH_SUCCESS);
    free(bases);
}

/* Flush completes a put while the epoch stays open: the target sees the
 * value before the origin unlocks. */
static void test_flush(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_win_t *w;
    CHECK(reach_win_allocate(sizeof(long), bases, &w) == REACH_SUCCESS);
    *(volatile long *)bases[me] = 0;
    reach_barrier();
    if (np > 1 && me == 0) {
        long v = 42;
        CHECK(reach_win_lock(w, REACH_LOCK_SHARED, 1) == REACH_SUCCESS);
        CHECK(reach_win_put(w, &v, 0, sizeof v, 1) == REACH_SUCCESS);
        CHECK(reach_win_flush(w, 1) == REACH_SUCCESS);
        CHECK(reach_win_flush_local(w, 1) == REACH_SUCCESS);
        MPI_Send(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(reach_win_unlock(w, 1) == REACH_SUCCESS);
    } else if (np > 1 && me == 1) {
        long v;
        MPI_Recv(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_LL(*(volatile long *)bases[me], 42);
        MPI_Send(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
    }
    reach_barrier();
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    free(bases);
}

/* A large put (rendezvous to another node, returning before its source
 * is read), then a small one over its first bytes: the second lands last
 * (location consistency); after flush_local the source may be reused. */
static void test_large_put(void)
{
    enum { BIG = 1 << 20, SMALL = 64 };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    unsigned char *src = malloc(BIG), patch[SMALL];
    reach_win_t *w;
    CHECK(reach_win_allocate(BIG, bases, &w) == REACH_SUCCESS);
    memset(bases[me], 0, BIG);
    memset(src, 0xa5, BIG);
    memset(patch, 0x5a, SMALL);
    reach_barrier();
    int t = (me + 1) % np;
    CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, t) == REACH_SUCCESS);
    CHECK(reach_win_put(w, src, 0, BIG, t) == REACH_SUCCESS);
    CHECK(reach_win_put(w, patch, 0, SMALL, t) == REACH_SUCCESS);
    CHECK(reach_win_flush_local(w, t) == REACH_SUCCESS);
    memset(src, 0xff, BIG);
    memset(patch, 0xff, SMALL);
    CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
    reach_barrier();
    const unsigned char *mine = bases[me];
    size_t bad = 0;
    for (size_t i = 0; i < BIG; i++)
        bad += mine[i] != (i < SMALL ? 0x5a : 0xa5);
    CHECK_EQ_LL(bad, 0);
    reach_barrier();
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    free(src);
    free(bases);
}

/* Deferred: nothing leaves the origin before unlock, and then one message
 * carries lock, operations and release. Direct: the lock is taken at
 * once. Counted on rank 0 with rank 1 on another node, the others idle. */
static void test_messages(void)
{
    const char *mode = getenv("REACH_WIN_SYNC");
    int deferred = mode && strcmp(mode, "deferred") == 0;
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_win_t *w;
    CHECK(reach_win_allocate(64, bases, &w) == REACH_SUCCESS);
    reach_barrier();
    if (me == 0 && np > 1) {
        long v = 5, got = 0;
        reach_stats_t s0, s1, s2;
        reach_stats_get(&s0);
        CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, 1) == REACH_SUCCESS);
        CHECK(reach_win_put(w, &v, 0, sizeof v, 1) == REACH_SUCCESS);
        CHECK(reach_win_get(w, &got, 8, sizeof got, 1) == REACH_SUCCESS);
        reach_stats_get(&s1);
        CHECK(reach_win_unlock(w, 1) == REACH_SUCCESS);
        reach_stats_get(&s2);
        if (deferred && !reach_same_node(1)) {
            CHECK_EQ_LL((long long)(s1.messages - s0.messages), 0);
            CHECK_EQ_LL((long long)(s2.messages - s1.messages), 1);
        } else if (!reach_same_node(1)) {
            CHECK(s1.messages - s0.messages >= 3);   /* lock, put, get */
        }
    }
    reach_barrier();
    if (me == 1)
        CHECK_EQ_LL(*(long *)bases[1], 5);
    reach_barrier();
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    free(bases);
}

/* Strided, vector and atomic operations in epochs: a block put strided
 * reads back strided; vector accumulates and fetch-adds from every rank
 * under shared locks add up exactly; old values come back (deferred:
 * after the flush). */
static void test_noncontig(void)
{
    enum { W = 64, ROUNDS = 10 };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_win_t *w;
    CHECK(reach_win_allocate(W * sizeof(long), bases, &w) == REACH_SUCCESS);
    memset(bases[me], 0, W * sizeof(long));
    reach_barrier();
    int t = (me + 1) % np;
    /* 4 rows of 2 longs, 4 longs apart, at displacement 8 longs. */
    reach_strided_t shape = {.levels = 1, .count = {2 * sizeof(long), 4},
                             .src_stride = {2 * sizeof(long)}, .dst_stride = {4 * sizeof(long)}};
    long block[8], back[8];
    for (int i = 0; i < 8; i++)
        block[i] = 100 * me + i;
    CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, t) == REACH_SUCCESS);
    CHECK(reach_win_put_strided(w, block, 8 * sizeof(long), &shape, t) == REACH_SUCCESS);
    CHECK(reach_win_flush(w, t) == REACH_SUCCESS);
    reach_strided_t back_shape = shape;
    back_shape.src_stride[0] = 4 * sizeof(long);
    back_shape.dst_stride[0] = 2 * sizeof(long);
    CHECK(reach_win_get_strided(w, back, 8 * sizeof(long), &back_shape, t) == REACH_SUCCESS);
    CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_LL(back[i], block[i]);
    reach_strided_t too_far = shape;
    too_far.count[1] = 20;
    CHECK(reach_win_lock(w, REACH_LOCK_SHARED, t) == REACH_SUCCESS);
    CHECK(reach_win_put_strided(w, block, 8 * sizeof(long), &too_far, t) == REACH_ERR_RANGE);
    CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
    reach_barrier();
    /* Everyone adds to every rank's words 40..42 (vector) and 63 (atomic). */
    long one = 1, ones[3] = {1, 1, 1};
    void *src[3] = {&ones[0], &ones[1], &ones[2]};
    void *dst[3] = {(void *)(40 * sizeof(long)), (void *)(41 * sizeof(long)), (void *)(42 * sizeof(long))};
    reach_vector_t v = {src, dst, 3, sizeof(long)};
    int64_t olds[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        int to = (me + r) % np;
        CHECK(reach_win_lock(w, REACH_LOCK_SHARED, to) == REACH_SUCCESS);
        CHECK(reach_win_acc_vector(w, REACH_LONG, &one, &v, 1, to) == REACH_SUCCESS);
        CHECK(reach_win_fetch_add_i64(w, 63 * sizeof(long), 1, &olds[r], to) == REACH_SUCCESS);
        CHECK(reach_win_unlock(w, to) == REACH_SUCCESS);
        CHECK(olds[r] >= 0 && olds[r] < (int64_t)ROUNDS * np);
    }
    reach_barrier();
    const long *mine = bases[me];
    for (int k = 40; k < 43; k++)
        CHECK_EQ_LL(mine[k], ROUNDS);
    CHECK_EQ_LL(mine[63], ROUNDS);
    /* Compare-and-swap and swap, 32-bit, on rank 0's word 50. */
    reach_barrier();
    if (me == 0) {
        int32_t old = -1;
        CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, np - 1) == REACH_SUCCESS);
        CHECK(reach_win_cas_i32(w, 50 * sizeof(long), 0, 7, &old, np - 1) == REACH_SUCCESS);
        CHECK(reach_win_flush(w, np - 1) == REACH_SUCCESS);
        CHECK_EQ_LL(old, 0);
        CHECK(reach_win_swap_i32(w, 50 * sizeof(long), 9, &old, np - 1) == REACH_SUCCESS);
        CHECK(reach_win_fetch_add_i32(w, 50 * sizeof(long), 1, &old, np - 1) == REACH_SUCCESS);
        CHECK(reach_win_fetch_add_i32(w, 50 * sizeof(long) + 2, 1, &old, np - 1) == REACH_ERR_ALIGN);
        CHECK(reach_win_unlock(w, np - 1) == REACH_SUCCESS);
        CHECK_EQ_LL(old, 9);
    }
    reach_barrier();
    if (me == np - 1)
        CHECK_EQ_LL(*(int32_t *)(void *)((long *)bases[me] + 50), 10);
    reach_barrier();
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    free(bases);
}

static void test_errors(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_win_t *w;
    CHECK(reach_win_allocate(4 * sizeof(long), bases, &w) == REACH_SUCCESS);
    for (int k = 0; k < 4; k++)
        ((long *)bases[me])[k] = 7;
    reach_barrier();
    int t = (me + 1) % np;
    long v = 99, got;
    /* Outside an epoch: nothing is written. */
    CHECK(reach_win_put(w, &v, 0, sizeof v, t) == REACH_ERR_EPOCH);
    CHECK(reach_win_get(w, &got, 0, sizeof got, t) == REACH_ERR_EPOCH);
    CHECK(reach_win_acc(w, REACH_LONG, &v, &v, 0, sizeof v, t) == REACH_ERR_EPOCH);
    CHECK(reach_win_unlock(w, t) == REACH_ERR_EPOCH);
    CHECK(reach_win_flush(w, t) == REACH_ERR_EPOCH);
    CHECK(reach_win_flush_all(w) == REACH_ERR_EPOCH);
    CHECK(reach_win_unlock_all(w) == REACH_ERR_EPOCH);
    CHECK(reach_win_lock(w, 3, t) == REACH_ERR_ARG);
    CHECK(reach_win_lock(w, REACH_LOCK_SHARED, np) == REACH_ERR_RANK);
    CHECK(reach_win_lock(NULL, REACH_LOCK_SHARED, t) == REACH_ERR_HANDLE);
    CHECK(reach_win_lock(w, REACH_LOCK_SHARED, t) == REACH_SUCCESS);
    CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, t) == REACH_ERR_EPOCH);   /* nested */
    CHECK(reach_win_lock_all(w) == REACH_ERR_EPOCH);
    CHECK(reach_win_put(w, &v, 4 * sizeof(long), sizeof v, t) == REACH_ERR_RANGE);
    CHECK(reach_win_put(w, &v, 3 * sizeof(long) + 1, sizeof v, t) == REACH_ERR_RANGE);
    CHECK(reach_win_put(w, &v, (size_t)-1, sizeof v, t) == REACH_ERR_RANGE);
    CHECK(reach_win_put(w, NULL, 0, sizeof v, t) == REACH_ERR_ARG);
    /* An epoch left open: freeing fails on every rank. */
    CHECK(reach_win_free(w) == REACH_ERR_EPOCH);
    CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
    CHECK(reach_win_lock_all(w) == REACH_SUCCESS);
    CHECK(reach_win_unlock(w, t) == REACH_ERR_EPOCH);   /* part of the lock_all */
    CHECK(reach_win_unlock_all(w) == REACH_SUCCESS);
    reach_barrier();
    for (int k = 0; k < 4; k++)
        CHECK_EQ_LL(((long *)bases[me])[k], 7);
    reach_barrier();
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    /* Not reach memory. */
    long private_word;
    CHECK(reach_win_create(&private_word, sizeof private_word, &w) == REACH_ERR_RANGE);
    CHECK(reach_win_allocate(8, NULL, &w) == REACH_ERR_ARG);
    /* Memory freed under a live window: its operations fail; a window over
     * memory still allocated goes on working. */
    reach_win_t *kept;
    void **kept_bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(2 * sizeof(long), bases) == REACH_SUCCESS);
    CHECK(reach_win_create(bases[me], 2 * sizeof(long), &w) == REACH_SUCCESS);
    CHECK(reach_win_allocate(sizeof(long), kept_bases, &kept) == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    CHECK(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, t) == REACH_SUCCESS);
    CHECK(reach_win_put(w, &v, 0, sizeof v, t) == REACH_ERR_RANGE);
    CHECK(reach_win_get(w, &got, sizeof(long), sizeof got, t) == REACH_ERR_RANGE);
    CHECK(reach_win_unlock(w, t) == REACH_SUCCESS);
    CHECK(reach_win_free(w) == REACH_SUCCESS);
    CHECK(reach_win_lock(kept, REACH_LOCK_EXCLUSIVE, t) == REACH_SUCCESS);
    CHECK(reach_win_put(kept, &v, 0, sizeof v, t) == REACH_SUCCESS);
    CHECK(reach_win_unlock(kept, t) == REACH_SUCCESS);
    reach_barrier();
    CHECK_EQ_LL(*(long *)kept_bases[me], v);
    reach_barrier();
    CHECK(reach_win_free(kept) == REACH_SUCCESS);
    free(kept_bases);
    /* Choosing the mode: bad names, and ranks that disagree. */
    CHECK(reach_set_win_sync("lazy") == REACH_ERR_ARG);
    CHECK(reach_set_win_sync(NULL) == REACH_ERR_ARG);
    const char *mode = getenv("REACH_WIN_SYNC");
    CHECK(reach_set_win_sync(me == 0 ? "deferred" : "direct") == REACH_SUCCESS);
    CHECK(reach_win_allocate(8, bases, &w) == (np > 1 ? REACH_ERR_ARG : REACH_SUCCESS));
    if (np == 1)
        CHECK(reach_win_free(w) == REACH_SUCCESS);
    CHECK(reach_set_win_sync(mode ? mode : "direct") == REACH_SUCCESS);
    free(bases);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    test_readers_writers();
    test_lock_all();
    test_flush();
    test_large_put();
    test_messages();
    test_noncontig();
    test_errors();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_win");
    MPI_Finalize();
    return rc;
}
