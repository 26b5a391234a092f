/* ga-bench's measurements (ga_main.c says what each one is), each timed
 * and then checked. */
#define _POSIX_C_SOURCE 200809L

#include "ga_harness.h"

#include <armci.h>
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16

/* ---- get, put and acc by rank 0 ---- */

enum xfer { GET, PUT, ACC };

static const char *xfer_names[] = {"get", "put", "acc"};

struct xfer_arg {
    enum xfer op;
    int n;     /* doubles */
    long done; /* operations so far */
};

static double xfer_batch(long iters, void *p)
{
    struct xfer_arg *a = p;
    int lo = B.target * CHUNK, hi = lo + a->n - 1, ld = 1;
    double one = 1.0;
    if (a->op != GET)
        GA_Init_fence();
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        switch (a->op) {
        case GET: NGA_Get(B.g_data, &lo, &hi, B.buf, &ld); break;
        case PUT: NGA_Put(B.g_data, &lo, &hi, B.src, &ld); break;
        case ACC: NGA_Acc(B.g_data, &lo, &hi, B.src, &ld, &one); break;
        }
    }
    if (a->op != GET)
        GA_Fence();
    double t = now() - t0;
    a->done += iters;
    return t;
}

/* The patch of a->n doubles as it must be after the timed operations. */
static void check_xfer(const struct xfer_arg *a)
{
    int lo = B.target * CHUNK, hi = lo + a->n - 1, ld = 1;
    if (a->op != GET)
        NGA_Get(B.g_data, &lo, &hi, B.buf, &ld);
    for (int i = 0; i < a->n; i++) {
        double want = a->op == GET ? (double)(lo + i) : a->op == PUT ? pattern(0, i) : (double)a->done * pattern(0, i);
        if (B.buf[i] != want)
            fail("%s of %d doubles: element %d is %g, not %g", xfer_names[a->op], a->n, i, B.buf[i], want);
    }
}

void bench_transfers(void)
{
    size_t sizes[MAX_SIZES];
    int nsizes = 0;
    for (size_t b = 8; b <= B.max_bytes; b = b == 8 ? 16 : 4 * b)
        sizes[nsizes++] = b;

    /* Every process's part of the array holds its elements' indices. */
    int lo = B.me * CHUNK, hi = lo + CHUNK - 1, ld = 1;
    double *mine;
    NGA_Access(B.g_data, &lo, &hi, &mine, &ld);
    for (int i = 0; i < CHUNK; i++)
        mine[i] = (double)(lo + i);
    NGA_Release_update(B.g_data, &lo, &hi);
    GA_Sync();

    if (B.me == 0) {
        char label[32];
        for (enum xfer op = GET; op <= ACC; op++) {
            for (int z = 0; z < nsizes; z++) {
                struct xfer_arg a = {op, (int)(sizes[z] / sizeof(double)), 0};
                double v[MAX_SAMPLES];
                if (op == ACC) {
                    int plo = B.target * CHUNK, phi = plo + a.n - 1;
                    memset(B.buf, 0, sizeof(double) * (size_t)a.n);
                    NGA_Put(B.g_data, &plo, &phi, B.buf, &ld);
                }
                sample(xfer_batch, &a, 0, v);
                check_xfer(&a);
                scale(v, 1e6);
                size_label(sizes[z], label, sizeof label);
                record(xfer_names[op], sizes[z], label, "us", v);
            }
        }
    }
    GA_Sync();
}

/* ---- NGA_Read_inc by every process on one counter ---- */

struct count_arg {
    int g;
    long done, last; /* increments so far; the value the last one returned */
};

static double read_inc_batch(long iters, void *p)
{
    struct count_arg *a = p;
    int first = 0;
    int bad = 0;
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        long old = NGA_Read_inc(a->g, &first, 1);
        bad |= old <= a->last;
        a->last = old;
    }
    double t = now() - t0;
    if (bad)
        fail("NGA_Read_inc returned a value no greater than one it returned before");
    a->done += iters;
    return t;
}

void bench_read_inc(void)
{
    /* A long on each process; the counter is rank 0's. */
    int dims = B.np, block = B.np, map[B.np];
    for (int p = 0; p < B.np; p++)
        map[p] = p;
    struct count_arg a = {NGA_Create_irreg(C_LONG, 1, &dims, "counter", &block, map), 0, -1};
    if (!a.g)
        fail("cannot create the counter");
    GA_Zero(a.g);
    double v[MAX_SAMPLES];
    sample(read_inc_batch, &a, 1, v);

    long total = 0, counter = 0;
    int first = 0, ld = 1;
    MPI_Reduce(&a.done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    GA_Sync();
    if (B.me == 0) {
        char label[32];
        NGA_Get(a.g, &first, &first, &counter, &ld);
        if (counter != total)
            fail("the counter is %ld after %ld increments", counter, total);
        scale(v, 1e6);
        snprintf(label, sizeof label, "%d procs", B.np);
        record("read_inc", (size_t)B.np, label, "us", v);
    }
    GA_Destroy(a.g);
}

/* ---- GA_Lock and GA_Unlock around a read-modify-write, by process 0 ---- */

struct lock_arg {
    int rmw;   /* NGA_Get, add one, NGA_Put of one double under the lock; 0: lock and unlock only */
    long done; /* sections so far */
};

static double lock_batch(long iters, void *p)
{
    struct lock_arg *a = p;
    int at = B.target * CHUNK, ld = 1;
    double v = 0;
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        GA_Lock(B.np - 1);
        if (a->rmw) {
            NGA_Get(B.g_data, &at, &at, &v, &ld);
            v += 1;
            NGA_Put(B.g_data, &at, &at, &v, &ld);
        }
        GA_Unlock(B.np - 1);
    }
    double t = now() - t0;
    a->done += iters;
    return t;
}

/* GA_Lock + GA_Unlock of the last of one mutex per process (Global Arrays
 * places it on the last process), bare and around an 8 B read-modify-write
 * of an element on the target, by rank 0 alone, then the read-modify-write
 * by every process at once: what a GA program pays for a critical section
 * (the unlock must make the put visible to the next holder). The element
 * must count every section. */
void bench_lock(void)
{
    if (!GA_Create_mutexes(B.np))
        fail("GA_Create_mutexes failed");
    int at = B.target * CHUNK, ld = 1;
    double zero = 0, got = 0, v[MAX_SAMPLES];
    if (B.me == 0) {
        NGA_Put(B.g_data, &at, &at, &zero, &ld);
        for (int rmw = 0; rmw <= 1; rmw++) {
            struct lock_arg a = {rmw, 0};
            sample(lock_batch, &a, 0, v);
            NGA_Get(B.g_data, &at, &at, &got, &ld);
            if (rmw && got != (double)a.done)
                fail("the element is %.0f after %ld sections under GA_Lock", got, a.done);
            scale(v, 1e6);
            record("lock", rmw ? 8 : 0, rmw ? "get+put 8 B" : "bare", "us", v);
        }
        NGA_Put(B.g_data, &at, &at, &zero, &ld);
    }
    GA_Sync();
    if (B.np > 1) {
        struct lock_arg a = {1, 0};
        long total = 0;
        sample(lock_batch, &a, 1, v);
        MPI_Reduce(&a.done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        GA_Sync();
        if (B.me == 0) {
            char label[32];
            NGA_Get(B.g_data, &at, &at, &got, &ld);
            if (got != (double)total)
                fail("the element is %.0f after %ld sections under GA_Lock by every process", got, total);
            scale(v, 1e6);
            snprintf(label, sizeof label, "%d procs, get+put", B.np);
            record("lock", (size_t)B.np * 8, label, "us", v);
        }
    }
    GA_Sync();
    GA_Destroy_mutexes();
}

/* ---- GA_Sync, alone and after puts to every process ---- */

struct sync_arg {
    int n; /* doubles each process puts to every process before GA_Sync; 0: none */
};

static double sync_batch(long iters, void *p)
{
    const struct sync_arg *a = p;
    int ld = 1;
    if (!a->n) {
        double t0 = now();
        for (long i = 0; i < iters; i++)
            GA_Sync();
        return now() - t0;
    }
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        for (int q = 0; q < B.np; q++) {
            int lo = q * CHUNK + B.me * a->n, hi = lo + a->n - 1;
            NGA_Put(B.g_data, &lo, &hi, B.src, &ld);
        }
        GA_Sync();
    }
    return now() - t0;
}

/* Every process's part of the array holds what every process put in it. */
static void check_sync(int n)
{
    int lo = B.me * CHUNK, hi = lo + B.np * n - 1, ld = 1;
    NGA_Get(B.g_data, &lo, &hi, B.buf, &ld);
    for (int r = 0; r < B.np; r++)
        for (int i = 0; i < n; i++)
            if (B.buf[r * n + i] != pattern(r, i))
                fail("after GA_Sync: element %d put by rank %d is %g, not %g", i, r, B.buf[r * n + i], pattern(r, i));
}

void bench_sync(void)
{
    static const size_t sizes[] = {0, 8, 1024, 65536};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        struct sync_arg a = {(int)(sizes[z] / sizeof(double))};
        double v[MAX_SAMPLES];
        if ((size_t)B.np * sizes[z] > CHUNK_BYTES)
            break;
        GA_Zero(B.g_data);
        sample(sync_batch, &a, 1, v);
        if (a.n)
            check_sync(a.n);
        if (B.me == 0) {
            char label[32] = "bare";
            if (a.n)
                size_label(sizes[z], label, sizeof label);
            scale(v, 1e6);
            record("sync", sizes[z], label, "us", v);
        }
        GA_Sync();
    }
}

/* ---- GA_Dgop: a sum over every process ---- */

struct dgop_arg {
    int n; /* doubles */
    double *x;
};

static double dgop_batch(long iters, void *p)
{
    const struct dgop_arg *a = p;
    double t0 = now();
    for (long i = 0; i < iters; i++)
        GA_Dgop(a->x, a->n, "+");
    return now() - t0;
}

/* GA_Dgop (GA's armci_msg_dgop) of 1, 100 and 10,000 doubles by every
 * process at once; the sum of each process's pattern is checked once. */
void bench_dgop(void)
{
    static const int counts[] = {1, 100, 10000};
    double *x = malloc(sizeof(double) * 10000);
    if (!x)
        fail("out of memory");
    for (size_t z = 0; z < sizeof counts / sizeof *counts; z++) {
        struct dgop_arg a = {counts[z], x};
        double v[MAX_SAMPLES];
        for (int i = 0; i < a.n; i++)
            x[i] = 0; /* sums of zeros stay exact however many run */
        sample(dgop_batch, &a, 1, v);
        for (int i = 0; i < a.n; i++)
            x[i] = pattern(B.me, i);
        GA_Dgop(x, a.n, "+");
        for (int i = 0; i < a.n; i++) {
            double want = 0;
            for (int r = 0; r < B.np; r++)
                want += pattern(r, i);
            if (x[i] != want)
                fail("GA_Dgop of %d: element %d is %g, not %g", a.n, i, x[i], want);
        }
        if (B.me == 0) {
            char label[32];
            snprintf(label, sizeof label, "%d doubles", a.n);
            scale(v, 1e6);
            record("dgop", (size_t)a.n, label, "us", v);
        }
    }
    free(x);
    GA_Sync();
}

/* ---- NGA_Scatter_acc by rank 0 ---- */

struct scatter_arg {
    int n;
    int **subs;   /* n subscripts */
    double *ones; /* n values */
    long done;
};

static double scatter_batch(long iters, void *p)
{
    struct scatter_arg *a = p;
    double one = 1.0;
    GA_Init_fence();
    double t0 = now();
    for (long i = 0; i < iters; i++)
        NGA_Scatter_acc(B.g_data, a->ones, a->subs, a->n, &one);
    GA_Fence();
    double t = now() - t0;
    a->done += iters;
    return t;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void bench_scatter_acc(void)
{
    static const int counts[] = {128, 1024, 8192};
    const int total = B.np * CHUNK;
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        GA_Zero(B.g_data);
        if (B.me == 0) {
            int n = counts[c];
            int *index = malloc((size_t)n * sizeof *index);
            int *hits = calloc((size_t)total, sizeof *hits);
            double *all = malloc((size_t)total * sizeof *all);
            struct scatter_arg a = {n, malloc((size_t)n * sizeof *a.subs), malloc((size_t)n * sizeof *a.ones), 0};
            if (!index || !hits || !all || !a.subs || !a.ones)
                fail("out of memory");
            uint64_t state = (uint64_t)n;
            for (int k = 0; k < n; k++) {
                index[k] = (int)(next_random(&state) % (uint64_t)total);
                hits[index[k]]++;
                a.subs[k] = &index[k];
                a.ones[k] = 1.0;
            }
            double v[MAX_SAMPLES];
            sample(scatter_batch, &a, 0, v);

            int lo = 0, hi = total - 1, ld = 1;
            NGA_Get(B.g_data, &lo, &hi, all, &ld);
            for (int e = 0; e < total; e++)
                if (all[e] != (double)a.done * hits[e])
                    fail("scatter_acc of %d elements: element %d is %g, not %g", n, e, all[e],
                         (double)a.done * hits[e]);
            char label[32];
            snprintf(label, sizeof label, "%d elems", n);
            scale(v, 1e6);
            record("scatter_acc", (size_t)n, label, "us", v);
            free(index);
            free(hits);
            free(all);
            free(a.subs);
            free(a.ones);
        }
        GA_Sync();
    }
}

/* ---- GA_Dgemm by all ---- */

struct dgemm_arg {
    int n, a, b, c; /* order; the arrays */
};

static double dgemm_batch(long iters, void *p)
{
    const struct dgemm_arg *m = p;
    double t0 = now();
    for (long i = 0; i < iters; i++)
        GA_Dgemm('N', 'N', m->n, m->n, m->n, 1.0, m->a, m->b, 0.0, m->c);
    return now() - t0;
}

/* The matrices multiplied: small integers, so that the product is exact. */
static double mat_a(int i, int j)
{
    return (i + 2 * j) % 5 - 2;
}

static double mat_b(int i, int j)
{
    return (3 * i + j) % 7 - 3;
}

void bench_dgemm(void)
{
    static const int orders[] = {128, 256};
    for (size_t o = 0; o < sizeof orders / sizeof *orders; o++) {
        int n = orders[o], dims[2] = {n, n};
        struct dgemm_arg m = {n, NGA_Create(C_DBL, 2, dims, "A", NULL), NGA_Create(C_DBL, 2, dims, "B", NULL),
                              NGA_Create(C_DBL, 2, dims, "C", NULL)};
        if (!m.a || !m.b || !m.c)
            fail("cannot create %d-by-%d matrices", n, n);
        double *full = malloc((size_t)n * n * sizeof *full);
        if (!full)
            fail("out of memory");
        int lo[2] = {0, 0}, hi[2] = {n - 1, n - 1}, ld = n;
        if (B.me == 0) {
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    full[i * n + j] = mat_a(i, j);
            NGA_Put(m.a, lo, hi, full, &ld);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    full[i * n + j] = mat_b(i, j);
            NGA_Put(m.b, lo, hi, full, &ld);
        }
        GA_Sync();
        double v[MAX_SAMPLES];
        sample(dgemm_batch, &m, 1, v);
        if (B.me == 0) {
            NGA_Get(m.c, lo, hi, full, &ld);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double want = 0;
                    for (int k = 0; k < n; k++)
                        want += mat_a(i, k) * mat_b(k, j);
                    if (full[i * n + j] != want)
                        fail("dgemm of order %d: C[%d][%d] is %g, not %g", n, i, j, full[i * n + j], want);
                }
            char label[32];
            snprintf(label, sizeof label, "n=%d", n);
            scale(v, 1e3);
            record("dgemm", (size_t)n, label, "ms", v);
        }
        free(full);
        GA_Destroy(m.c);
        GA_Destroy(m.b);
        GA_Destroy(m.a);
    }
}

/* ---- ARMCI_Get and ARMCI_Acc from several threads of rank 0 at once ---- */

struct thread_arg {
    enum xfer op;
    int threads;
    double *there;          /* the target's doubles */
    long iters;             /* each thread's operations in a batch */
    long done[MAX_THREADS]; /* each thread's operations so far */
    int bad[MAX_THREADS];   /* a get read what was not there */
    double began[MAX_THREADS], ended[MAX_THREADS];
    pthread_barrier_t start;
};

struct thread_self {
    struct thread_arg *a;
    int t;
};

/* Thread t gets or accumulates to the target's double t: its own, so that
 * what it reads and adds can be checked. The gets run first, while every
 * double is 0. */
static void *thread_work(void *p)
{
    struct thread_self *self = p;
    struct thread_arg *a = self->a;
    double one = 1.0, got = -1, *at = &a->there[self->t];
    pthread_barrier_wait(&a->start);
    a->began[self->t] = now();
    for (long i = 0; i < a->iters; i++) {
        if (a->op == GET) {
            ARMCI_Get(at, &got, sizeof got, B.target);
            a->bad[self->t] |= got != 0;
        } else {
            ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, at, sizeof one, B.target);
        }
    }
    if (a->op == ACC)
        ARMCI_Fence(B.target);
    a->ended[self->t] = now();
    a->done[self->t] += a->iters;
    return NULL;
}

/* iters operations in all, shared out among the threads: from the first
 * thread's start to the last one's end (each thread's accs end with
 * ARMCI_Fence, as xfer_batch's with GA_Fence). */
static double thread_batch(long iters, void *p)
{
    struct thread_arg *a = p;
    pthread_t id[MAX_THREADS];
    struct thread_self self[MAX_THREADS];
    a->iters = (iters + a->threads - 1) / a->threads;
    pthread_barrier_init(&a->start, NULL, (unsigned)a->threads + 1);
    for (int t = 0; t < a->threads; t++) {
        self[t] = (struct thread_self){a, t};
        if (pthread_create(&id[t], NULL, thread_work, &self[t]) != 0)
            fail("pthread_create failed");
    }
    pthread_barrier_wait(&a->start);
    double first = 0, last = 0;
    for (int t = 0; t < a->threads; t++) {
        pthread_join(id[t], NULL);
        first = t == 0 || a->began[t] < first ? a->began[t] : first;
        last = a->ended[t] > last ? a->ended[t] : last;
    }
    pthread_barrier_destroy(&a->start);
    return (last - first) * (double)iters / (double)(a->iters * a->threads);
}

void bench_threads(int most)
{
    void *bases[B.np];
    long added[MAX_THREADS] = {0};
    if (ARMCI_Malloc(bases, sizeof(double) * MAX_THREADS) != 0)
        fail("ARMCI_Malloc failed");
    memset(bases[B.me], 0, sizeof(double) * MAX_THREADS);
    GA_Sync();
    /* Batches long enough that the threads' start and the fences at the
     * end are a small part of them. */
    double batch = B.batch;
    B.batch = batch > 20e-3 ? batch : 20e-3;
    for (enum xfer op = GET; op <= ACC && B.me == 0; op += ACC - GET) {
        for (int threads = 1; threads <= most; threads *= 2) {
            struct thread_arg a = {.op = op, .threads = threads, .there = bases[B.target]};
            double v[MAX_SAMPLES];
            sample(thread_batch, &a, 0, v);
            scale(v, 1e6);
            char label[32];
            snprintf(label, sizeof label, "%d thr", threads);
            record(op == GET ? "threads_get" : "threads_acc", (size_t)threads, label, "us", v);
            for (int t = 0; t < threads; t++) {
                if (a.bad[t])
                    fail("ARMCI_Get by thread %d of %d read what was not there", t, threads);
                added[t] += op == ACC ? a.done[t] : 0;
            }
            ARMCI_Get(a.there, B.buf, sizeof(double) * MAX_THREADS, B.target);
            for (int t = 0; t < MAX_THREADS; t++)
                if (B.buf[t] != (double)added[t])
                    fail("double %d is %g after %ld ARMCI_Acc of 1 by thread %d", t, B.buf[t], added[t], t);
        }
    }
    B.batch = batch;
    GA_Sync();
    ARMCI_Free(bases[B.me]);
}
