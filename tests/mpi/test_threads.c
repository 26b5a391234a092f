/* Threads against a model. The program starts MPI at MPI_THREAD_MULTIPLE
 * and calls plain reach_init; then THREADS threads a process call reach at
 * once, every data call and every atomic, to every rank (this one too):
 *
 * - Each thread owns a region at every rank that only it writes (puts:
 *   contiguous, strided, vector, blocking and not; accumulates of each
 *   form into an owned sum row). It keeps a model of what each holds, and
 *   reads a region back (a get of a random form) at random, checking it
 *   against the model.
 * - It owns a word at every rank for swaps and compare-and-swaps: each
 *   returns the value the model says, and a compare that misses changes
 *   nothing.
 * - Every thread of every rank adds to shared words (fetch-and-add, 32
 *   and 64 bits) and a shared row (accumulate): what one thread fetches
 *   only grows, and the totals come out exact at the end.
 * - Each thread owns a block of BIG bytes at every rank too, put whole
 *   (by rendezvous through the network) and read back.
 * - Meanwhile synchronizing calls run beside the data calls: any thread
 *   fences a rank or all of them, and thread 0 of every rank enters a
 *   barrier every BARRIER_EVERY rounds.
 *
 * At the end, after a barrier, each region is read once more and the
 * shared totals are compared with what every thread says it added.
 *   test_threads [rounds] */
#include "../check.h"
#include "mpi_check.h"
#include "reach.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

enum { THREADS = 4, SLOTS = 48, ROW = 8, MAXP = 64, BIG = 32768, BARRIER_EVERY = 100 };

/* What thread t of rank o owns at every rank. */
typedef struct {
    int64_t slot[SLOTS]; /* puts */
    double sum[ROW];     /* its own accumulates */
    int64_t word;        /* swaps and compare-and-swaps */
} owned_t;

typedef struct {
    int64_t count64; /* shared fetch-and-add */
    int32_t count32, pad;
    double shared[ROW]; /* shared accumulates */
    owned_t own[];      /* [origin rank * THREADS + thread], then the big blocks */
} block_t;

static void **base;
static int me, np, rounds = 1000;
/* By thread and target: what it added to the shared words and row. */
static int64_t added64[THREADS][MAXP], added32[THREADS][MAXP], addedrow[THREADS][MAXP];

static owned_t *owned_at(int rank, int t)
{
    return &((block_t *)base[rank])->own[me * THREADS + t];
}

/* Thread t's big block at rank. */
static int64_t *big_at(int rank, int t)
{
    char *big = (char *)&((block_t *)base[rank])->own[np * THREADS];
    return (int64_t *)(big + (size_t)(me * THREADS + t) * BIG);
}

typedef struct {
    int t;
    uint64_t rng;
    owned_t model[MAXP];
    int64_t big_seed[MAXP]; /* the big block at each rank holds seed + i */
    int64_t fetched[MAXP];  /* the last value fetch-and-add gave at each rank */
    int64_t src[BIG / 8], back[BIG / 8];
} thread_t;

static uint64_t next(thread_t *th)
{
    th->rng ^= th->rng << 13;
    th->rng ^= th->rng >> 7;
    th->rng ^= th->rng << 17;
    return th->rng;
}

/* A 2-level shape over every other slot of half the slots: 2 runs of 8 B
 * per row, 6 rows. */
static reach_strided_t every_other(void)
{
    reach_strided_t s = {.levels = 2};
    s.count[0] = 8;
    s.count[1] = 2;
    s.count[2] = SLOTS / 8;
    s.src_stride[0] = s.dst_stride[0] = 16;
    s.src_stride[1] = s.dst_stride[1] = 64;
    return s;
}

/* Reads thread th's big block at rank back and checks it. */
static void check_big(thread_t *th, int rank)
{
    CHECK(reach_get(big_at(rank, th->t), th->back, BIG, rank) == REACH_SUCCESS);
    int64_t seed = th->big_seed[rank];
    for (int i = 0; i < BIG / 8; i++)
        if (th->back[i] != (seed ? seed + i : 0)) {
            CHECK_EQ_LL(th->back[i], seed ? seed + i : 0);
            break;
        }
}

/* Reads thread th's region at rank back by a random form and checks it. */
static void check_region(thread_t *th, int rank)
{
    owned_t *there = owned_at(rank, th->t), back;
    memset(&back, 0xee, sizeof back);
    reach_request_t rq;
    switch (next(th) % 4) {
    case 0: CHECK(reach_get(there, &back, sizeof back, rank) == REACH_SUCCESS); break;
    case 1:
        CHECK(reach_get_nb(there, &back, sizeof back, rank, &rq) == REACH_SUCCESS);
        CHECK(reach_wait(&rq) == REACH_SUCCESS);
        break;
    case 2: {
        void *src[3] = {there->slot, there->sum, &there->word}, *dst[3] = {back.slot, back.sum, &back.word};
        reach_vector_t v[3];
        for (int i = 0; i < 3; i++)
            v[i] = (reach_vector_t){&src[i], &dst[i], 1,
                                    i == 0 ? sizeof back.slot : i == 1 ? sizeof back.sum : sizeof back.word};
        CHECK(reach_get_vector(v, 3, rank) == REACH_SUCCESS);
        break;
    }
    default: {
        /* The whole region as rows of 8 B, by strided get. */
        reach_strided_t s = {.levels = 1};
        s.count[0] = 8;
        s.count[1] = sizeof back / 8;
        s.src_stride[0] = s.dst_stride[0] = 8;
        CHECK(reach_get_strided_nb(there, &back, &s, rank, &rq) == REACH_SUCCESS);
        int done = 0;
        while (!done)
            CHECK(reach_test(&rq, &done) == REACH_SUCCESS);
        break;
    }
    }
    owned_t *m = &th->model[rank];
    for (int i = 0; i < SLOTS; i++)
        if (back.slot[i] != m->slot[i]) {
            CHECK_EQ_LL(back.slot[i], m->slot[i]);
            break;
        }
    for (int j = 0; j < ROW; j++)
        CHECK(back.sum[j] == m->sum[j]);
    CHECK_EQ_LL(back.word, m->word);
}

static void one_op(thread_t *th, int round)
{
    int rank = (int)(next(th) % (uint64_t)np), t = th->t;
    owned_t *there = owned_at(rank, t), *m = &th->model[rank];
    block_t *blk = base[rank];
    int64_t v = ((int64_t)me << 40) | ((int64_t)t << 32) | (int64_t)round, src[SLOTS];
    double one = 1.0, rowv[ROW];
    for (int j = 0; j < ROW; j++)
        rowv[j] = (double)(j + 1);
    reach_request_t rq;
    int k = (int)(next(th) % SLOTS);
    switch (next(th) % 14) {
    case 0: /* put of one slot */
        CHECK(reach_put(&v, &there->slot[k], 8, rank) == REACH_SUCCESS);
        m->slot[k] = v;
        break;
    case 1: /* non-blocking put of every slot */
        for (int i = 0; i < SLOTS; i++)
            src[i] = v + i;
        CHECK(reach_put_nb(src, there->slot, sizeof src, rank, &rq) == REACH_SUCCESS);
        CHECK(reach_wait(&rq) == REACH_SUCCESS);
        memcpy(m->slot, src, sizeof src);
        break;
    case 2: { /* strided put */
        reach_strided_t s = every_other();
        for (int i = 0; i < SLOTS; i++)
            src[i] = v - i;
        CHECK(reach_put_strided(src, there->slot, &s, rank) == REACH_SUCCESS);
        for (size_t r = 0; r < s.count[2]; r++)
            for (size_t c = 0; c < s.count[1]; c++)
                m->slot[(r * 64 + c * 16) / 8] = src[(r * 64 + c * 16) / 8];
        break;
    }
    case 3: { /* vector put: slots k and SLOTS-1-k */
        int a = k, b = SLOTS - 1 - k;
        int64_t x[2] = {v, ~v};
        void *s[2] = {&x[0], &x[1]}, *d[2] = {&there->slot[a], &there->slot[b]};
        reach_vector_t vec = {s, d, 2, 8};
        CHECK(reach_put_vector_nb(&vec, 1, rank, &rq) == REACH_SUCCESS);
        CHECK(reach_wait(&rq) == REACH_SUCCESS);
        m->slot[a] = x[0];
        m->slot[b] = x[1];
        break;
    }
    case 4: /* accumulate into the owned row, blocking or not */
        if (round & 1) {
            CHECK(reach_acc(REACH_DOUBLE, &one, rowv, there->sum, sizeof rowv, rank) == REACH_SUCCESS);
        } else {
            CHECK(reach_acc_nb(REACH_DOUBLE, &one, rowv, there->sum, sizeof rowv, rank, &rq) == REACH_SUCCESS);
            CHECK(reach_wait(&rq) == REACH_SUCCESS);
        }
        for (int j = 0; j < ROW; j++)
            m->sum[j] += rowv[j];
        break;
    case 5: { /* strided and vector accumulates into the owned row */
        double two = 2.0;
        reach_strided_t s = {.levels = 1};
        s.count[0] = 8;
        s.count[1] = ROW / 2;
        s.src_stride[0] = s.dst_stride[0] = 16;
        CHECK(reach_acc_strided(REACH_DOUBLE, &two, rowv, there->sum, &s, rank) == REACH_SUCCESS);
        void *vs[1] = {&rowv[1]}, *vd[1] = {&there->sum[1]};
        reach_vector_t vec = {vs, vd, 1, 8};
        CHECK(reach_acc_vector(REACH_DOUBLE, &one, &vec, 1, rank) == REACH_SUCCESS);
        for (int j = 0; j < ROW; j += 2)
            m->sum[j] += 2.0 * rowv[j];
        m->sum[1] += rowv[1];
        break;
    }
    case 6: { /* swap of the owned word */
        int64_t old = -1;
        CHECK(reach_swap_i64(&there->word, v, &old, rank) == REACH_SUCCESS);
        CHECK_EQ_LL(old, m->word);
        m->word = v;
        break;
    }
    case 7: { /* compare-and-swap: one that misses, one that hits */
        int64_t old = -1;
        CHECK(reach_cas_i64(&there->word, m->word + 1, 12345, &old, rank) == REACH_SUCCESS);
        CHECK_EQ_LL(old, m->word);
        CHECK(reach_cas_i64(&there->word, m->word, v, &old, rank) == REACH_SUCCESS);
        CHECK_EQ_LL(old, m->word);
        m->word = v;
        break;
    }
    case 8: { /* the shared words */
        int64_t o64 = -1;
        int32_t o32 = -1;
        CHECK(reach_fetch_add_i64(&blk->count64, 3, &o64, rank) == REACH_SUCCESS);
        CHECK(o64 > th->fetched[rank] && o64 % 3 == 0); /* only adds: it grows */
        th->fetched[rank] = o64;
        CHECK(reach_fetch_add_i32(&blk->count32, 1, &o32, rank) == REACH_SUCCESS);
        CHECK(o32 >= 0);
        added64[t][rank] += 3;
        added32[t][rank] += 1;
        break;
    }
    case 9: /* the shared row */
        CHECK(reach_acc(REACH_DOUBLE, &one, rowv, blk->shared, sizeof rowv, rank) == REACH_SUCCESS);
        addedrow[t][rank]++;
        break;
    case 10: /* the big block, put whole, and now and then read back */
        for (int i = 0; i < BIG / 8; i++)
            th->src[i] = v + 1 + i; /* (seed 0: never put) */
        CHECK(reach_put(th->src, big_at(rank, t), BIG, rank) == REACH_SUCCESS);
        th->big_seed[rank] = v + 1;
        if (round % 4 == 0)
            check_big(th, rank);
        break;
    case 11: /* a fence beside the other threads' transfers */
        CHECK((round & 1 ? reach_fence(rank) : reach_fence_all()) == REACH_SUCCESS);
        break;
    default: check_region(th, rank); break;
    }
}

static void *work(void *arg)
{
    thread_t *th = arg;
    for (int i = 0; i < rounds; i++) {
        one_op(th, i);
        if (th->t == 0 && i % BARRIER_EVERY == BARRIER_EVERY - 1)
            CHECK(reach_barrier() == REACH_SUCCESS);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc > 1)
        rounds = atoi(argv[1]);
    CHECK_EQ_LL(provided, MPI_THREAD_MULTIPLE);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    CHECK(np <= MAXP);
    base = malloc(sizeof(void *) * (size_t)np);
    size_t bytes = sizeof(block_t) + (sizeof(owned_t) + BIG) * (size_t)np * THREADS;
    CHECK(reach_malloc(bytes, base) == REACH_SUCCESS);
    memset(base[me], 0, bytes);
    CHECK(reach_barrier() == REACH_SUCCESS);

    static thread_t th[THREADS];
    pthread_t id[THREADS];
    for (int t = 0; t < THREADS; t++) {
        th[t].t = t;
        for (int r = 0; r < np; r++)
            th[t].fetched[r] = -1;
        th[t].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(me * THREADS + t + 1);
        if (t > 0)
            CHECK(pthread_create(&id[t], NULL, work, &th[t]) == 0);
    }
    work(&th[0]);
    for (int t = 1; t < THREADS; t++)
        pthread_join(id[t], NULL);
    CHECK(reach_barrier() == REACH_SUCCESS);

    for (int t = 0; t < THREADS; t++)
        for (int r = 0; r < np; r++) {
            check_region(&th[t], r);
            check_big(&th[t], r);
        }
    /* The shared totals at each rank, from what every thread added. */
    int64_t add[3][MAXP] = {{0}}, total[3][MAXP];
    for (int t = 0; t < THREADS; t++)
        for (int r = 0; r < np; r++) {
            add[0][r] += added64[t][r];
            add[1][r] += added32[t][r];
            add[2][r] += addedrow[t][r];
        }
    MPI_Allreduce(add, total, 3 * MAXP, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    block_t *mine = base[me];
    CHECK_EQ_LL(mine->count64, total[0][me]);
    CHECK_EQ_LL(mine->count32, total[1][me]);
    for (int j = 0; j < ROW; j++)
        CHECK(mine->shared[j] == (double)total[2][me] * (j + 1));
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_free(base[me]) == REACH_SUCCESS);
    free(base);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int st = check_exit("test_threads");
    MPI_Finalize();
    return st;
}
