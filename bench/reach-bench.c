/* reach-bench: latency and bandwidth of reach's one-sided operations beside
 * MPI-3 RMA doing the same work, measured in the same run.
 *
 * Rank 0 is the origin, rank 1 the target; every other rank sleeps in a
 * reach barrier so that it takes no core. Each figure is the median of
 * several samples, each sample a batch of operations timed together (about
 * 2 ms). Figures are printed as tables and written with every sample to a
 * JSON file. */
#include "reach.h"
#include "lu_kernel.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MAX_SAMPLES 31

enum op {
    REACH_PUT, REACH_GET, REACH_ACC, MPI_PUT, MPI_GET, MPI_ACC, LOCAL_COPY, LOCAL_ACC,
    REACH_FADD, MPI_FADD, REACH_LOCK, MPI_LOCK, REACH_BARRIER, MPI_BARRIER,
    REACH_PUTS, REACH_GETS, REACH_ACCS
};

static struct {
    int me, np, cores, samples;
    size_t max_size;
    char *seg_target;      /* rank 1's segment (its address) */
    char *src, *dst;       /* local buffers */
    double *acc_src, *acc_dst;
    reach_mutexes_t *mutexes;
    MPI_Comm pair;         /* ranks 0 and 1 */
    MPI_Win win;
    reach_strided_t shape;  /* of the strided table: runs spread at twice their length */
    FILE *json;
    int json_first;
} B;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The plain loop reach's accumulate of doubles is compared with. */
static void local_acc(double *restrict d, const double *restrict s, double a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] += a * s[i];
}

/* Seconds per operation over a batch of iters. */
static double run_batch(enum op op, size_t size, long iters)
{
    const double one = 1.0;
    int64_t old;
    int bad = 0;
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        switch (op) {
        case REACH_PUT:
            bad |= reach_put(B.src, B.seg_target, size, 1) != 0;
            bad |= reach_fence(1) != 0;
            break;
        case REACH_GET:
            bad |= reach_get(B.seg_target, B.dst, size, 1) != 0;
            break;
        case REACH_ACC:
            bad |= reach_acc(REACH_DOUBLE, &one, B.acc_src, B.seg_target, size, 1) != 0;
            bad |= reach_fence(1) != 0;
            break;
        case MPI_PUT:
            bad |= MPI_Put(B.src, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win) != 0;
            bad |= MPI_Win_flush(1, B.win) != 0;
            break;
        case MPI_GET:
            bad |= MPI_Get(B.dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win) != 0;
            bad |= MPI_Win_flush(1, B.win) != 0;
            break;
        case MPI_ACC:
            bad |= MPI_Accumulate(B.acc_src, (int)(size / 8), MPI_DOUBLE, 1, 0, (int)(size / 8),
                                  MPI_DOUBLE, MPI_SUM, B.win) != 0;
            bad |= MPI_Win_flush(1, B.win) != 0;
            break;
        case LOCAL_COPY:
            memcpy(B.dst, B.src, size);
            __asm__ __volatile__("" ::: "memory");
            break;
        case LOCAL_ACC:
            local_acc(B.acc_dst, B.acc_src, one, size / 8);
            __asm__ __volatile__("" ::: "memory");
            break;
        case REACH_FADD:
            bad |= reach_fetch_add_i64((int64_t *)(void *)B.seg_target, 1, &old, 1) != 0;
            break;
        case MPI_FADD: {
            int64_t inc = 1;
            bad |= MPI_Fetch_and_op(&inc, &old, MPI_INT64_T, 1, 0, MPI_SUM, B.win) != 0;
            bad |= MPI_Win_flush(1, B.win) != 0;
            break;
        }
        case REACH_LOCK:
            bad |= reach_mutex_lock(B.mutexes, 0, 1) != 0;
            bad |= reach_mutex_unlock(B.mutexes, 0, 1) != 0;
            break;
        case MPI_LOCK:
            bad |= MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, B.win) != 0;
            bad |= MPI_Win_unlock(1, B.win) != 0;
            break;
        case REACH_BARRIER:
            bad |= reach_barrier() != 0;
            break;
        case MPI_BARRIER:
            bad |= MPI_Barrier(MPI_COMM_WORLD) != 0;
            break;
        case REACH_PUTS:
            bad |= reach_put_strided(B.src, B.seg_target, &B.shape, 1) != 0;
            bad |= reach_fence(1) != 0;
            break;
        case REACH_GETS: {
            reach_strided_t g = B.shape;   /* remote side strided, local packed */
            g.src_stride[0] = B.shape.dst_stride[0];
            g.dst_stride[0] = B.shape.src_stride[0];
            bad |= reach_get_strided(B.seg_target, B.dst, &g, 1) != 0;
            break;
        }
        case REACH_ACCS:
            bad |= reach_acc_strided(REACH_DOUBLE, &one, B.acc_src, B.seg_target, &B.shape, 1) != 0;
            bad |= reach_fence(1) != 0;
            break;
        }
    }
    double t = (now() - t0) / (double)iters;
    /* A failed call would be timed as a fast one. */
    if (bad)
        reach_abort(1, "reach-bench: an operation failed (see the message above)");
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void sort_samples(const double *us, int n, double *sorted)
{
    memcpy(sorted, us, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
}

static double median(const double *us, int n)
{
    double sorted[MAX_SAMPLES];
    sort_samples(us, n, sorted);
    return sorted[n / 2];
}

/* The p-quantile of n sorted values, interpolated between neighbours (as
 * Python's statistics.quantiles with method "inclusive"). */
static double quantile(const double *sorted, int n, double p)
{
    double h = p * (n - 1);
    int k = (int)h;
    return k + 1 < n ? sorted[k] + (h - k) * (sorted[k + 1] - sorted[k]) : sorted[k];
}

/* Operations per batch so that a batch lasts about 2 ms. Collective ops
 * (barriers) run on every rank, which agree on the count. */
static long calibrate(enum op op, size_t size)
{
    long iters = 1;
    int collective = op == REACH_BARRIER || op == MPI_BARRIER;
    for (;;) {
        double t = run_batch(op, size, iters) * (double)iters;
        int more = t < 2e-3 && iters < (1L << 24);
        if (collective)
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!more)
            return iters;
        iters *= 2;
    }
}

/* Times n (at most 8) operations on the same size, their samples interleaved so that a
 * burst of noise from the machine falls on all of them alike. us[k][s] is
 * sample s of ops[k] in microseconds per operation; med[k] its median. */
static void measure(int n, const enum op *ops, size_t size, double us[][MAX_SAMPLES], double *med)
{
    long iters[8];
    for (int k = 0; k < n; k++)
        iters[k] = calibrate(ops[k], size);
    for (int s = 0; s < B.samples; s++)
        for (int k = 0; k < n; k++)
            us[k][s] = 1e6 * run_batch(ops[k], size, iters[k]);
    for (int k = 0; k < n; k++)
        med[k] = median(us[k], B.samples);
}

/* One figure's samples (n of them, in unit), their median and spread
 * (smallest, 25th and 75th percentile, largest): a point x of the series
 * `op` of implementation impl, in the open experiment's file. bytes, if
 * not 0, is what one operation moved where x does not say it. */
static void json_values(const char *op, const char *impl, size_t x, size_t bytes, const char *unit,
                        double median, const double *v, int n)
{
    if (!B.json)
        return;
    double sorted[MAX_SAMPLES];
    sort_samples(v, n, sorted);
    fprintf(B.json, "%s\n    {\"series\": \"%s\", \"impl\": \"%s\", \"x\": %zu, ", B.json_first ? "" : ",",
            op, impl, x);
    if (bytes)
        fprintf(B.json, "\"bytes\": %zu, ", bytes);
    fprintf(B.json, "\"unit\": \"%s\", \"median\": %.6f, \"min\": %.6f, \"q1\": %.6f, \"q3\": %.6f, "
                    "\"max\": %.6f, \"samples\": [",
            unit, median, sorted[0], quantile(sorted, n, 0.25), quantile(sorted, n, 0.75), sorted[n - 1]);
    for (int s = 0; s < n; s++)
        fprintf(B.json, "%s%.6f", s ? ", " : "", v[s]);
    fprintf(B.json, "]}");
    B.json_first = 0;
}

static void json_result(const char *op, const char *impl, size_t size, double median, const double *us)
{
    json_values(op, impl, size, 0, "us", median, us, B.samples);
}

/* Ends a phase of measurements taken on rank 0. Meanwhile the target
 * waited the way the measured operations need: inside MPI (polling, as
 * MPI's passive target needs) or in reach (sleeping, so that its server
 * thread has a core). */
static void phase_end(int mpi_target)
{
    if (mpi_target && B.me < 2)
        MPI_Barrier(B.pair);
    reach_barrier();
}

/* Starts a phase of MPI measurements: origin and target meet inside MPI
 * first, so that the target is polling MPI when the first operation
 * arrives. */
static void mpi_phase_begin(void)
{
    if (B.me < 2)
        MPI_Barrier(B.pair);
}

/* Ends the MPI-3 pair's lock_all epoch (set up for the transfer tables
 * and the fetch-and-add), once; both sides must be inside MPI. */
static void mpi_end_lock_all(void)
{
    static int ended;
    if (B.me < 2 && !ended) {
        MPI_Win_unlock_all(B.win);
        MPI_Barrier(B.pair);
    }
    ended = 1;
}

/* Latency by size of one operation: reach and the local work (their samples
 * interleaved), then MPI-3 RMA. */
static void bench_transfer(const char *name, enum op r, enum op m, enum op l)
{
    const enum op ops[2] = {r, l};
    static double us[32][3][MAX_SAMPLES], med[32][3];
    int nsizes = 0;
    for (size_t size = 8; size <= B.max_size; size *= 2)
        nsizes++;
    for (int k = 0; k < nsizes && B.me == 0; k++) {
        double u2[2][MAX_SAMPLES], m2[2];
        measure(2, ops, (size_t)8 << k, u2, m2);
        memcpy(us[k][0], u2[0], sizeof u2[0]);
        memcpy(us[k][2], u2[1], sizeof u2[1]);
        med[k][0] = m2[0];
        med[k][2] = m2[1];
    }
    phase_end(0);
    mpi_phase_begin();
    for (int k = 0; k < nsizes && B.me == 0; k++)
        measure(1, &m, (size_t)8 << k, &us[k][1], &med[k][1]);
    phase_end(1);
    if (B.me == 0) {
        printf("\n%s latency (us, median of %d) and bandwidth\n", name, B.samples);
        printf("%10s %10s %10s %10s %10s %11s %10s\n", "bytes", "reach", "MPI-3", "local",
               "MPI/reach", "% of local", "reach GB/s");
        for (int k = 0; k < nsizes; k++) {
            size_t size = (size_t)8 << k;
            static const char *const impl[3] = {"reach", "mpi3", "local"};
            for (int i = 0; i < 3; i++)
                json_result(name, impl[i], size, med[k][i], us[k][i]);
            printf("%10zu %10.3f %10.3f %10.3f %10.1f %10.0f%% %10.2f\n", size, med[k][0], med[k][1],
                   med[k][2], med[k][1] / med[k][0], 100.0 * med[k][2] / med[k][0],
                   (double)size / med[k][0] * 1e-3);
        }
        fflush(stdout);
    }
}

static void bench_single(const char *name, enum op r, enum op m, const char *mpi_label)
{
    double ur[1][MAX_SAMPLES], um[1][MAX_SAMPLES], mr = 0, mm = 0;
    if (B.me == 0)
        measure(1, &r, 8, ur, &mr);
    phase_end(0);
    mpi_phase_begin();
    if (B.me == 0)
        measure(1, &m, 8, um, &mm);
    phase_end(1);
    if (B.me == 0) {
        json_result(name, "reach", 0, mr, ur[0]);
        json_result(name, "mpi3", 0, mm, um[0]);
        printf("%-22s %10.3f %10.3f %10.1f   (%s)\n", name, mr, mm, mm / mr, mpi_label);
    }
}

/* Strided against contiguous for the same total bytes: runs of 8 B to
 * 64 KiB at the target, each followed by a gap one cache line longer than
 * itself (a stride that, like most leading dimensions, is no power of two:
 * with a stride of exactly twice the run, 2 KiB runs touch half of every
 * 4 KiB page and lose a further 10%, a cache effect docs/benchmarks.md
 * shows). The local side is packed. */
static void bench_strided(void)
{
    const enum op ops[6] = {REACH_PUTS, REACH_PUT, REACH_GETS, REACH_GET, REACH_ACCS, REACH_ACC};
    static const char *const names[3] = {"put", "get", "acc"};
    double us[6][MAX_SAMPLES], med[6];
    size_t total = B.max_size;
    if (B.me == 0) {
        printf("\nstrided against contiguous, %zu bytes in all (GB/s, median of %d)\n", total, B.samples);
        printf("%10s %10s %10s %10s %10s %10s %10s\n", "run bytes", "put", "% contig", "get",
               "% contig", "acc", "% contig");
        for (size_t run = 8; run <= 65536 && run <= total; run *= 2) {
            memset(&B.shape, 0, sizeof B.shape);
            B.shape.levels = 1;
            B.shape.count[0] = run;
            B.shape.count[1] = total / run;
            B.shape.src_stride[0] = run;
            B.shape.dst_stride[0] = 2 * run + 64;
            /* The contiguous ops in the same interleaved samples move the
             * same total. */
            measure(6, ops, total, us, med);
            for (int k = 0; k < 6; k++)
                json_values(names[k / 2], k % 2 ? "reach contiguous" : "reach strided", run, total, "us",
                            med[k], us[k], B.samples);
            double gb[6];
            for (int k = 0; k < 6; k++)
                gb[k] = (double)total / med[k] * 1e-3;
            printf("%10zu %10.2f %9.0f%% %10.2f %9.0f%% %10.2f %9.0f%%\n", run, gb[0],
                   100 * gb[0] / gb[1], gb[2], 100 * gb[2] / gb[3], gb[4], 100 * gb[4] / gb[5]);
            fflush(stdout);
        }
    }
    reach_barrier();
}

/* Paper 000, Figure 7 (the GA_Sync test): every rank writes GA_BYTES into
 * the block of a distributed array owned by every other rank, all meet in
 * MPI_Barrier (untimed, so that skew is not timed), then the sync alone is
 * timed: reach_barrier under each algorithm, against MPI-3's
 * MPI_Win_flush_all + MPI_Barrier doing the same work. A sample is the
 * time per sync averaged over GA_ITERS syncs and over the ranks (as in the
 * paper); messages are those one process sent per sync, averaged over the
 * ranks, without the acks that bound the puts in flight. */
#define GA_BYTES 4096
#define GA_ITERS 20

static double ga_messages(void)
{
    reach_stats_t st;
    if (reach_stats_get(&st) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_stats_get failed");
    return (double)(st.messages - st.flow_acks);
}

static void bench_ga_sync(void)
{
    static const char *const kinds[] = {"fence+dissemination", "combined", "tree", "counter"};
    enum { NKINDS = 4 };
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    if (!bases || reach_malloc((size_t)B.np * GA_BYTES, bases) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: set-up of the GA_Sync test failed");
    int mpi = B.np <= B.cores;
    MPI_Win win = MPI_WIN_NULL;
    void *wbase = NULL;
    MPI_Win_allocate((MPI_Aint)(((size_t)B.np * GA_BYTES + 15) & ~(size_t)15), 1, MPI_INFO_NULL,
                     MPI_COMM_WORLD, &wbase, &win);
    MPI_Win_lock_all(0, win);
    if (B.me == 0)
        printf("\nGA_Sync: every rank writes %d bytes into every other rank, then the sync "
               "(paper 000, Fig. 7; us per sync, median of %d; %d processes%s)\n%-22s %10s %10s %12s\n",
               GA_BYTES, B.samples, B.np, B.np > B.cores ? ", more than cores" : "", "sync", "us",
               "x combined", "msgs/process");
    double med[NKINDS + 1], msgs[NKINDS + 1], us[MAX_SAMPLES];
    for (int v = 0; v <= NKINDS; v++) {
        if (v < NKINDS && reach_set_barrier(kinds[v]) != REACH_SUCCESS)
            reach_abort(1, "reach-bench: reach_set_barrier failed");
        if (v == NKINDS && !mpi)
            break;
        double m = 0;
        for (int s = 0; s < B.samples; s++) {
            double t = 0, m0 = 0;
            for (int i = 0; i < GA_ITERS; i++) {
                int bad = 0;
                for (int k = 1; k < B.np; k++) {
                    int to = (B.me + k) % B.np;
                    if (v < NKINDS)
                        bad |= reach_put(B.src, (char *)bases[to] + (size_t)B.me * GA_BYTES, GA_BYTES, to) != 0;
                    else
                        bad |= MPI_Put(B.src, GA_BYTES, MPI_BYTE, to, (MPI_Aint)B.me * GA_BYTES, GA_BYTES,
                                       MPI_BYTE, win) != 0;
                }
                if (bad)
                    reach_abort(1, "reach-bench: a put failed");
                m0 -= ga_messages();
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = now();
                if (v < NKINDS)
                    bad = reach_barrier() != 0;
                else
                    bad = MPI_Win_flush_all(win) != 0 || MPI_Barrier(MPI_COMM_WORLD) != 0;
                t += now() - t0;
                if (bad)
                    reach_abort(1, "reach-bench: the sync failed");
                MPI_Barrier(MPI_COMM_WORLD);   /* every server's answers are counted */
                m0 += ga_messages();
            }
            double mine[2] = {1e6 * t / GA_ITERS, m0 / GA_ITERS}, sum[2];
            MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            us[s] = sum[0] / B.np;
            m += sum[1] / B.np / B.samples;
        }
        med[v] = median(us, B.samples);
        msgs[v] = m;
        char impl[48] = "mpi3";
        if (v < NKINDS)
            snprintf(impl, sizeof impl, "reach %s", kinds[v]);
        if (B.me == 0)
            json_result("sync", impl, GA_BYTES, med[v], us);
    }
    if (B.me == 0) {
        for (int v = 0; v < NKINDS; v++)
            printf("%-22s %10.2f %10.2f %12.1f\n", kinds[v], med[v], med[v] / med[1], msgs[v]);
        if (mpi)
            printf("%-22s %10.2f %10.2f %12s\n", "MPI-3 flush_all+Barrier", med[NKINDS],
                   med[NKINDS] / med[1], "-");
        else
            printf("%-22s %10s %10s %12s   (%d processes > %d cores: not measured)\n",
                   "MPI-3 flush_all+Barrier", "-", "-", "-", B.np, B.cores);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    reach_free(bases[B.me]);
    free(bases);
    if (reach_set_barrier(getenv("REACH_BARRIER") ? getenv("REACH_BARRIER") : "combined") != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_set_barrier failed");
}

/* Paper 000, Figures 8-10: P processes repeatedly request and release one
 * lock hosted by rank 0, each for LOCK_SECONDS; the time to request and
 * acquire, the time to release, and both, per lock+unlock averaged over the
 * processes (a sample), for every lock algorithm (paper 001's ticket lock
 * beside paper 000's two), with MPI-3's exclusive window lock as the
 * baseline where the job fits the cores. With P = 1 the paper averages
 * the lock on the process itself and on another; so does this (rank 0,
 * then rank 1). Messages: all that the job sent (requests, answers,
 * pushes) per lock+unlock made from another node than the lock's.
 * Processes not taking part wait in a reach barrier, which sleeps. */
#define LOCK_SECONDS 0.02

/* Locks and unlocks until the time is up: adds the time spent acquiring
 * and releasing, returns the iterations. m NULL: MPI-3's window lock. */
static long lock_loop(reach_mutexes_t *m, MPI_Win win, double *t_acq, double *t_rel)
{
    long n = 0;
    for (double end = now() + LOCK_SECONDS, t0 = now(); t0 < end; n++) {
        int bad = m ? reach_mutex_lock(m, 0, 0) != 0 : MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) != 0;
        double t1 = now();
        bad |= m ? reach_mutex_unlock(m, 0, 0) != 0 : MPI_Win_unlock(0, win) != 0;
        double t2 = now();
        *t_acq += t1 - t0;
        *t_rel += t2 - t1;
        t0 = t2;
        if (bad)
            reach_abort(1, "reach-bench: lock or unlock failed");
    }
    return n;
}

static void lock_sync(reach_mutexes_t *m)
{
    if (m)
        reach_barrier();   /* sleeps, so the processes taking part have the cores */
    else
        MPI_Barrier(MPI_COMM_WORLD);
}

/* One sample: mean microseconds to acquire and to release, and messages
 * per lock+unlock. */
static void lock_sample(reach_mutexes_t *m, MPI_Win win, int p, double *acq, double *rel,
                        double *msgs)
{
    double mine[4] = {0, 0, 0, -ga_messages()}, sum[4];
    long n = 0;
    for (int phase = 0; phase < (p == 1 ? 2 : 1); phase++) {
        lock_sync(m);
        if (p == 1 ? B.me == phase : B.me < p) {
            double a = 0, r = 0;
            long k = lock_loop(m, win, &a, &r);
            mine[0] += a / (double)k;
            mine[1] += r / (double)k;
            n += k;
        }
    }
    lock_sync(m);
    mine[2] = reach_same_node(0) ? 0 : (double)n;   /* locks from other nodes */
    mine[3] += ga_messages();
    MPI_Allreduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int parts = p == 1 ? 2 : p;
    *acq = 1e6 * sum[0] / parts;
    *rel = 1e6 * sum[1] / parts;
    *msgs = sum[2] > 0 ? sum[3] / sum[2] : 0;
}

static void bench_locks(void)
{
    static const char *const names[] = {"hybrid", "ticket", "mcs", "MPI-3"};
    enum { NALGOS = 3, MCS = 2 };
    MPI_Win win;
    void *wbase;
    MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
    if (B.me == 0)
        printf("\nlocks: P processes request and release one lock on rank 0 (paper 000, Figs. 8-10; "
               "us, median of %d)\n%-3s %-7s %10s %10s %10s %8s %10s\n", B.samples, "P", "lock",
               "acquire", "release", "both", "x mcs", "msgs/lock");
    for (int p = 1; p <= B.np; p = p < B.np && 2 * p > B.np ? B.np : 2 * p) {
        double med[NALGOS + 1][3], msgs[NALGOS + 1];
        /* MPI's passive target needs every process polling inside MPI. */
        int variants = B.np <= B.cores ? NALGOS + 1 : NALGOS;
        for (int a = 0; a < variants; a++) {
            reach_mutexes_t *m = NULL;
            if (a < NALGOS && (reach_set_lock(names[a]) != REACH_SUCCESS ||
                               reach_mutexes_create(B.me == 0, &m) != REACH_SUCCESS))
                reach_abort(1, "reach-bench: set-up of the lock test failed");
            double us[3][MAX_SAMPLES], mm;
            msgs[a] = 0;
            for (int s = 0; s < B.samples; s++) {
                lock_sample(m, win, p, &us[0][s], &us[1][s], &mm);
                us[2][s] = us[0][s] + us[1][s];
                msgs[a] += mm / B.samples;
            }
            if (m && reach_mutexes_destroy(m) != REACH_SUCCESS)
                reach_abort(1, "reach-bench: reach_mutexes_destroy failed");
            static const char *const parts[] = {"lock acquire", "lock release", "lock+unlock"};
            for (int k = 0; k < 3; k++) {
                med[a][k] = median(us[k], B.samples);
                char impl[48];
                snprintf(impl, sizeof impl, "reach %s", names[a]);
                if (B.me == 0)
                    json_result(parts[k], a < NALGOS ? impl : "mpi3", (size_t)p, med[a][k], us[k]);
            }
        }
        for (int a = 0; a < variants && B.me == 0; a++) {
            printf("%-3d %-7s %10.2f %10.2f %10.2f %8.2f", p, names[a], med[a][0], med[a][1], med[a][2],
                   med[a][2] / med[MCS][2]);
            if (a < NALGOS)
                printf(" %10.1f\n", msgs[a]);
            else
                printf(" %10s\n", "-");
        }
    }
    MPI_Win_free(&win);
    if (reach_set_lock(getenv("REACH_LOCK") ? getenv("REACH_LOCK") : "mcs") != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_set_lock failed");
}

/* Paper 002, Figure 3: the latency of an epoch — lock (exclusive), one put
 * or get of a size, unlock — on rank 1's window, with reach's operations
 * issued at once (direct) or held until unlock (deferred), and MPI-3's
 * (MPI_Win_lock / MPI_Put or MPI_Get / MPI_Win_unlock on the pair's
 * window) where the job fits the cores; median of the samples (a sample:
 * the mean of WIN_ITERS epochs). */
#define WIN_ITERS 50

/* The implementations of a window epoch: reach's two modes, then MPI-3's,
 * measured only with no more processes than cores (MPICH busy-polls). */
enum { WIN_DIRECT, WIN_DEFERRED, WIN_MPI3 };
/* In tables; the first two are also the modes reach_set_win_sync takes. */
static const char *const win_modes[3] = {"direct", "deferred", "MPI-3"};
static const char *const win_impl[3] = {"reach direct", "reach deferred", "mpi3"};

static int win_impls(void)
{
    return B.np <= B.cores ? 3 : 2;
}

/* Microseconds per epoch on rank 1: lock (exclusive), one put or get of
 * size, c_us of computation, unlock; the mean of WIN_ITERS. w NULL:
 * MPI-3's epoch on the pair's window. */
static double win_epoch_us(reach_win_t *w, int get, size_t size, double c_us)
{
    double t0 = now();
    int bad = 0;
    for (int i = 0; i < WIN_ITERS; i++) {
        if (w) {
            bad |= reach_win_lock(w, REACH_LOCK_EXCLUSIVE, 1) != 0;
            bad |= (get ? reach_win_get(w, B.dst, 0, size, 1) : reach_win_put(w, B.src, 0, size, 1)) != 0;
        } else {
            bad |= MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, B.win) != 0;
            bad |= (get ? MPI_Get(B.dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win)
                        : MPI_Put(B.src, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win)) != 0;
        }
        for (double end = now() + 1e-6 * c_us; now() < end;)
            ;   /* the computation */
        bad |= (w ? reach_win_unlock(w, 1) : MPI_Win_unlock(1, B.win)) != 0;
    }
    if (bad)
        reach_abort(1, "reach-bench: a window epoch failed");
    return 1e6 * (now() - t0) / WIN_ITERS;
}

/* Collective: the samples (us[i]) and median (med[i]) on rank 0 of the
 * epoch for every implementation in use, c_us[i] of computation each:
 * reach's two modes with their samples interleaved, then MPI-3's in a
 * phase of its own, the target polling inside MPI. */
static void win_measure(reach_win_t *w[2], int get, size_t size, const double c_us[3],
                        double us[3][MAX_SAMPLES], double med[3])
{
    for (int s = 0; B.me == 0 && s < B.samples; s++)
        for (int m = 0; m < 2; m++)
            us[m][s] = win_epoch_us(w[m], get, size, c_us[m]);
    phase_end(0);
    if (win_impls() > WIN_MPI3) {
        mpi_phase_begin();
        for (int s = 0; B.me == 0 && s < B.samples; s++)
            us[WIN_MPI3][s] = win_epoch_us(NULL, get, size, c_us[WIN_MPI3]);
        phase_end(1);
    }
    for (int m = 0; B.me == 0 && m < win_impls(); m++)
        med[m] = median(us[m], B.samples);
}

/* Back to the mode REACH_WIN_SYNC chose for windows made from now on. */
static void win_sync_restore(void)
{
    const char *mode = getenv("REACH_WIN_SYNC");
    if (reach_set_win_sync(mode ? mode : "direct") != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_set_win_sync failed");
}

/* A window of bytes per rank in each mode (collective); the MPI-3 pair's
 * window leaves its lock_all epoch, for the epochs measured on it. */
static void win_pair_create(size_t bytes, reach_win_t *w[2])
{
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    for (int m = 0; m < 2; m++)
        if (!bases || reach_set_win_sync(win_modes[m]) != REACH_SUCCESS ||
            reach_win_allocate(bytes, bases, &w[m]) != REACH_SUCCESS)
            reach_abort(1, "reach-bench: set-up of a window test failed");
    free(bases);
    win_sync_restore();
    mpi_end_lock_all();
}

static void win_pair_free(reach_win_t *w[2])
{
    for (int m = 0; m < 2; m++)
        if (reach_win_free(w[m]) != REACH_SUCCESS)
            reach_abort(1, "reach-bench: reach_win_free failed");
}

/* "-" where MPI-3 was not measured. */
static void print_mpi3(const char *fmt, const double *med)
{
    if (win_impls() > WIN_MPI3)
        printf(fmt, med[WIN_MPI3]);
    else
        printf("%12s", "-");
}

static void bench_win_latency(void)
{
    reach_win_t *w[2];
    const double none[3] = {0, 0, 0};
    win_pair_create(B.max_size, w);
    if (B.me == 0)
        printf("\nwindow epochs on rank 1: lock (exclusive) + one operation + unlock (paper 002, Fig. 3; "
               "us, median of %d)\n%10s %12s %12s %12s %12s %12s %12s\n", B.samples, "bytes", "put direct",
               "put deferred", "put MPI-3", "get direct", "get deferred", "get MPI-3");
    for (size_t size = 8; size <= B.max_size; size *= 4) {
        double med[2][3], us[2][3][MAX_SAMPLES];
        for (int get = 0; get < 2; get++)
            win_measure(w, get, size, none, us[get], med[get]);
        if (B.me != 0)
            continue;
        printf("%10zu", size);
        for (int get = 0; get < 2; get++) {
            for (int m = 0; m < win_impls(); m++)
                json_result(get ? "win get" : "win put", win_impl[m], size, med[get][m], us[get][m]);
            printf(" %12.2f %12.2f", med[get][WIN_DIRECT], med[get][WIN_DEFERRED]);
            print_mpi3(" %12.2f", med[get]);
        }
        printf("\n");
    }
    win_pair_free(w);
}

/* Paper 002, Figures 4 and 5: sender-side overlap. An epoch on rank 1's
 * window — lock, one put, c microseconds of computation, unlock — where c
 * is a share of the epoch's own time without computation (t0). The
 * overlap is the part of t0 hidden behind the computation,
 * (t0 + c - t) / t0, and t the total time. */
static void bench_win_overlap(void)
{
    static const double share[] = {0, 0.5, 1.0, 2.0};
    size_t sizes[] = {8, 16384, 262144};
    reach_win_t *w[2];
    size_t wsize = B.max_size < sizes[2] ? B.max_size : sizes[2];
    win_pair_create(wsize, w);
    if (B.me == 0)
        printf("\nsender-side overlap: lock + put + computation + unlock on rank 1 (paper 002, Figs. 4-5; "
               "us, median of %d; computation as a share of t0)\n%10s %-9s %9s %19s %19s %19s\n",
               B.samples, "bytes", "impl", "t0", "50%: t  overlap", "100%: t  overlap",
               "200%: t  overlap");
    for (int z = 0; z < 3 && sizes[z] <= wsize; z++) {
        double us[4][3][MAX_SAMPLES], t[4][3] = {{0}};
        for (int k = 0; k < 4; k++) {
            double c[3];
            for (int m = 0; m < 3; m++)
                c[m] = share[k] * t[0][m];
            win_measure(w, 0, sizes[z], c, us[k], t[k]);
            /* Only rank 0 timed; it alone needs t0 for the computation. */
            for (int m = 0; B.me == 0 && m < win_impls(); m++) {
                char name[48];
                snprintf(name, sizeof name, "computation %.0f%%", 100 * share[k]);
                json_result(name, win_impl[m], sizes[z], t[k][m], us[k][m]);
            }
        }
        for (int m = 0; B.me == 0 && m < win_impls(); m++) {
            printf("%10zu %-9s %9.2f", sizes[z], win_modes[m], t[0][m]);
            for (int k = 1; k < 4; k++)
                printf(" %9.2f %8.0f%%", t[k][m], 100 * (t[0][m] + share[k] * t[0][m] - t[k][m]) / t[0][m]);
            printf("\n");
        }
    }
    win_pair_free(w);
}

/* Paper 002, Figure 6: receiver-side overlap. Rank 1 does a fixed amount
 * of computation (about 20 ms alone) while origins run lock (shared) +
 * get of a size + unlock on its window without pause; the figure is the
 * target's time, which grows with what the epochs take from it (its
 * server thread's work, and its core), beside the epochs the origins ran
 * meanwhile (mean per sample). One origin (rank 0), then every rank but
 * 1. MPI-3's epochs, where the job fits the cores, show what passive
 * target costs when the target must enter MPI to serve them. */
static volatile double win_sink;

static void win_compute(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    win_sink = x;
}

/* The target's time (ms) for iters of computation while `origins` ranks
 * (0 and up, skipping 1) run epochs of size with implementation m (none
 * if m < 0) on w[m] or, for MPI-3, mw, and in *epochs how many they ran. */
static double win_target_ms(int m, reach_win_t *w[2], MPI_Win mw, long iters, size_t size, int origins,
                            long *flags[], long *epochs)
{
    long mine = 0;
    int origin = m >= 0 && B.me != 1 && (B.me == 0 ? 1 : B.me) < origins + 1;
    volatile long *stop = flags[B.me];
    *stop = 0;
    reach_barrier();
    double t = 0;
    if (B.me == 1) {
        double t0 = now();
        win_compute(iters);
        t = 1e3 * (now() - t0);
        long one = 1;
        for (int r = 0; r < B.np; r++)
            if (r != 1 && reach_put(&one, flags[r], sizeof one, r) != REACH_SUCCESS)
                reach_abort(1, "reach-bench: stopping the origins failed");
        reach_fence_all();
    } else if (origin) {
        for (; *stop == 0; mine++) {
            int bad;
            if (m == WIN_MPI3)
                bad = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, mw) != 0 ||
                      MPI_Get(B.dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, mw) != 0 ||
                      MPI_Win_unlock(1, mw) != 0;
            else
                bad = reach_win_lock(w[m], REACH_LOCK_SHARED, 1) != REACH_SUCCESS ||
                      reach_win_get(w[m], B.dst, 0, size, 1) != REACH_SUCCESS ||
                      reach_win_unlock(w[m], 1) != REACH_SUCCESS;
            if (bad)
                reach_abort(1, "reach-bench: a window epoch failed");
        }
    }
    /* Only rank 1 timed, only origins counted: the sums are theirs. An
     * allreduce, not a reduce: the target must stay inside MPI, serving
     * MPI-3's passive target, until the origins' last epochs are done. */
    double local[2] = {t, (double)mine}, sum[2];
    MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *epochs = (long)sum[1];
    return sum[0];
}

static void bench_win_receiver(void)
{
    static const size_t sizes[] = {1024, 32768, 262144};
    size_t wsize = B.max_size < sizes[2] ? B.max_size : sizes[2];
    reach_win_t *w[2];
    long **flags = malloc(sizeof(long *) * (size_t)B.np);
    if (!flags || reach_malloc(sizeof(long), (void **)flags) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: set-up of the receiver-side test failed");
    win_pair_create(wsize, w);
    MPI_Win mw = MPI_WIN_NULL;   /* every rank may be an origin */
    void *mbase;
    if (win_impls() > WIN_MPI3)
        MPI_Win_allocate((MPI_Aint)((wsize + 15) & ~(size_t)15), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mbase, &mw);
    /* Calibrated on the target: iterations for about 20 ms alone. */
    long iters = 1000000;
    if (B.me == 1) {
        double t0 = now();
        win_compute(iters);
        iters = (long)(iters * 0.020 / (now() - t0)) + 1;
    }
    MPI_Bcast(&iters, 1, MPI_LONG, 1, MPI_COMM_WORLD);
    double ms[MAX_SAMPLES], alone, ep[MAX_SAMPLES];
    long epochs;
    for (int s = 0; s < B.samples; s++)
        ms[s] = win_target_ms(-1, w, mw, iters, 0, 0, flags, &epochs);
    alone = median(ms, B.samples);
    if (B.me == 0) {
        json_values("target alone", "local", 0, 0, "ms", alone, ms, B.samples);
        printf("\nreceiver-side overlap: rank 1 computes %.1f ms alone while origins run lock (shared) + "
               "get + unlock on its window (paper 002, Fig. 6; ms, median of %d; x: against alone)\n"
               "%-7s %10s %-9s %10s %6s %8s\n", alone, B.samples, "origins", "bytes", "impl", "target",
               "x", "epochs");
    }
    for (int origins = 1; origins < B.np; origins = origins < B.np - 1 ? B.np - 1 : B.np)
        for (int z = 0; z < 3 && sizes[z] <= wsize; z++)
            for (int m = 0; m < win_impls(); m++) {
                for (int s = 0; s < B.samples; s++) {
                    ms[s] = win_target_ms(m, w, mw, iters, sizes[z], origins, flags, &epochs);
                    ep[s] = (double)epochs;
                }
                if (B.me != 0)
                    continue;
                double t = median(ms, B.samples), n = median(ep, B.samples);
                char name[48];
                snprintf(name, sizeof name, "target, %d origin%s", origins, origins > 1 ? "s" : "");
                json_values(name, win_impl[m], sizes[z], 0, "ms", t, ms, B.samples);
                snprintf(name, sizeof name, "epochs, %d origin%s", origins, origins > 1 ? "s" : "");
                json_values(name, win_impl[m], sizes[z], 0, "epochs", n, ep, B.samples);
                printf("%-7d %10zu %-9s %10.2f %6.2f %8.0f%s\n", origins, sizes[z],
                       win_modes[m], t, t / alone, n,
                       origins + 1 > B.cores ? "   (more processes than cores)" : "");
            }
    if (mw != MPI_WIN_NULL)
        MPI_Win_free(&mw);
    win_pair_free(w);
    if (reach_free(flags[B.me]) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_free failed");
    free(flags);
}

/* Paper 002, Figures 7 and 8: the blocked LU (examples/lu_kernel.c) on
 * 1, 2, 4 ... processes of the job, its blocks fetched with exclusive
 * lock / get / unlock — reach's in both modes, and MPI-3's where the job
 * fits the cores: the time (median of up to 5 runs) and the breakdown of
 * the median run, the mean over the grid's ranks. The first run of each
 * is checked (residual below 1e-10). */
#define LU_N 1024
#define LU_B 64

static void bench_lu(void)
{
    enum { RUNS = 5 };
    int runs = B.samples < RUNS ? B.samples : RUNS;
    mpi_end_lock_all();
    if (B.me == 0)
        printf("\nLU n=%d b=%d, blocks by exclusive lock/get/unlock (paper 002, Figs. 7-8; ms, median of "
               "%d runs; breakdown of the median run)\n%-3s %-9s %9s %8s %8s %8s %8s %8s %8s\n",
               LU_N, LU_B, runs, "P", "impl", "time", "lock", "get", "unlock", "barrier", "compute",
               "x direct");
    for (int p = 1; p <= B.np; p = p < B.np && 2 * p > B.np ? B.np : 2 * p) {
        double t[3] = {0, 0, 0};
        for (int m = 0; m < win_impls(); m++) {
            lu_result_t r[RUNS];
            double ms[RUNS];
            if (m < 2 && reach_set_win_sync(win_modes[m]) != REACH_SUCCESS)
                reach_abort(1, "reach-bench: reach_set_win_sync failed");
            for (int s = 0; s < runs; s++) {
                if (lu_run(LU_N, LU_B, p, m == WIN_MPI3 ? LU_MPI3 : LU_REACH, s == 0, &r[s]) != REACH_SUCCESS)
                    reach_abort(1, "reach-bench: the LU run failed");
                ms[s] = 1e3 * r[s].seconds;
                if (B.me == 0 && !(r[s].residual < 1e-10))
                    reach_abort(1, "reach-bench: the LU residual is too large");
            }
            if (B.me != 0)
                continue;
            t[m] = median(ms, runs);
            int mid = 0;
            for (int s = 0; s < runs; s++)
                mid = ms[s] == t[m] ? s : mid;
            json_values("lu", win_impl[m], (size_t)p, 0, "ms", t[m], ms, runs);
            printf("%-3d %-9s %9.2f", p, win_modes[m], t[m]);
            for (int k = 0; k < LU_PARTS; k++) {
                char name[48];
                double part = 1e3 * r[mid].part[k];
                snprintf(name, sizeof name, "lu %s", lu_part_name[k]);
                json_values(name, win_impl[m], (size_t)p, 0, "ms", part, &part, 1);
                printf(" %8.2f", part);
            }
            printf(" %8.2f%s\n", t[m] / t[0], p > B.cores ? "   (more processes than cores)" : "");
        }
    }
    win_sync_restore();
}

/* Barriers involve every rank. MPI's busy-polling barrier is only
 * meaningful with no more processes than cores. */
static void bench_barrier(void)
{
    double us[1][MAX_SAMPLES], tr, tm = -1;
    const enum op rb = REACH_BARRIER, mb = MPI_BARRIER;
    measure(1, &rb, 0, us, &tr);
    if (B.me == 0)
        json_result("barrier", "reach", 0, tr, us[0]);
    if (B.np <= B.cores) {
        measure(1, &mb, 0, us, &tm);
        if (B.me == 0)
            json_result("barrier", "mpi3", 0, tm, us[0]);
    }
    if (B.me == 0) {
        if (tm > 0)
            printf("%-22s %10.3f %10.3f %10.1f   (%d processes)\n", "barrier", tr, tm, tm / tr, B.np);
        else
            printf("%-22s %10.3f %10s %10s   (%d processes > %d cores: MPI_Barrier not measured)\n",
                   "barrier", tr, "-", "-", B.np, B.cores);
    }
}

static void bench_transfers(void)
{
    bench_transfer("put", REACH_PUT, MPI_PUT, LOCAL_COPY);
    bench_transfer("get", REACH_GET, MPI_GET, LOCAL_COPY);
    bench_transfer("acc", REACH_ACC, MPI_ACC, LOCAL_ACC);
}

static void bench_sync(void)
{
    if (B.me == 0)
        printf("\nsynchronization (us, median of %d)\n%-22s %10s %10s %10s\n", B.samples, "operation",
               "reach", "MPI-3", "MPI/reach");
    bench_single("fetch-and-add 64-bit", REACH_FADD, MPI_FADD, "MPI_Fetch_and_op + flush");
    mpi_end_lock_all();
    bench_single("lock+unlock", REACH_LOCK, MPI_LOCK, "MPI_Win_lock exclusive + unlock");
    bench_barrier();
}

/* The experiments, in the order they run; --only names a subset. Each
 * writes <out>/<name>-np<processes>.json: what it is, the machine and
 * environment, the machine's load before and after, and every sample of
 * every point (series, implementation, x). The plot says how reach-report
 * draws it. */
static const struct experiment {
    const char *name;
    void (*run)(void);
    const char *title, *figure, *x, *plot;
} experiments[] = {
    {"transfer", bench_transfers, "Contiguous put, get and accumulate against MPI-3 RMA", "", "bytes",
     "loglog"},
    {"strided", bench_strided, "Strided against contiguous transfers of the same total", "paper 003",
     "run bytes", "strided"},
    {"sync", bench_sync, "Fetch-and-add, lock+unlock and barrier against MPI-3", "", "", "bars"},
    {"ga_sync", bench_ga_sync, "GA_Sync: writes to every rank, then fence + barrier",
     "paper 000, Fig. 7", "", "bars"},
    {"locks", bench_locks, "P processes lock and unlock one lock on rank 0", "paper 000, Figs. 8-10",
     "processes", "lines"},
    {"win_latency", bench_win_latency, "Window epoch: lock + one put or get + unlock",
     "paper 002, Fig. 3", "bytes", "loglog"},
    {"win_overlap", bench_win_overlap, "Sender-side overlap: computation inside the epoch",
     "paper 002, Figs. 4-5", "computation, % of the epoch", "overlap"},
    {"win_receiver", bench_win_receiver, "Receiver-side overlap: the target computes while origins work",
     "paper 002, Fig. 6", "bytes", "receiver"},
    {"lu", bench_lu, "Blocked LU over a window, blocks by lock/get/unlock", "paper 002, Figs. 7-8",
     "processes", "stacked"},
};
enum { NEXPERIMENTS = sizeof experiments / sizeof experiments[0] };
static int selected[NEXPERIMENTS];

/* Selects the experiments a comma-separated list names (all if NULL); 0,
 * or -1 after naming one that does not exist. */
static int select_experiments(const char *list)
{
    for (int e = 0; e < NEXPERIMENTS; e++)
        selected[e] = list == NULL;
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        size_t len = strcspn(p, ",");
        int e = 0;
        while (e < NEXPERIMENTS && !(strlen(experiments[e].name) == len && strncmp(p, experiments[e].name, len) == 0))
            e++;
        if (e == NEXPERIMENTS) {
            fprintf(stderr, "reach-bench: --only: no experiment named '%.*s'\n", (int)len, p);
            return -1;
        }
        selected[e] = 1;
    }
    return 0;
}

/* The run's description, written into every experiment's file. */
static char run_header[8192];

/* s without what JSON strings cannot hold as it is (quotes, backslashes,
 * control characters: each a space), at most len - 1 bytes. */
static const char *json_safe(const char *s, char *buf, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        buf[i] = s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20 ? ' ' : s[i];
    buf[i] = '\0';
    return buf;
}

static void describe_run(void)
{
    char host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    gethostname(host, sizeof host - 1);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    char safe[MPI_MAX_LIBRARY_VERSION_STRING];
    size_t n = (size_t)snprintf(run_header, sizeof run_header,
                                "  \"machine\": {\"host\": \"%s\", \"cores\": %d, \"processes\": %d, "
                                "\"nodes\": %d, \"target\": \"%s\", \"oversubscribed\": %s, "
                                "\"mpi\": \"%s\"},\n  \"samples\": %d,\n  \"environment\": {",
                                host, B.cores, B.np, reach_node_count(),
                                reach_same_node(1) ? "same node" : "other node",
                                B.np > B.cores ? "true" : "false", json_safe(lib, safe, sizeof safe),
                                B.samples);
    extern char **environ;
    int first = 1;
    for (char **e = environ; *e && n < sizeof run_header - 512; e++) {
        if (strncmp(*e, "REACH_", 6) != 0 && strncmp(*e, "UCX_", 4) != 0)
            continue;
        char var[256];
        json_safe(*e, var, sizeof var);
        size_t eq = strcspn(var, "=");
        n += (size_t)snprintf(run_header + n, sizeof run_header - n, "%s\"%.*s\": \"%s\"",
                              first ? "" : ", ", (int)eq, var, var + eq + (var[eq] ? 1 : 0));
        first = 0;
    }
    snprintf(run_header + n, sizeof run_header - n, "},\n");
}

/* The machine's load averages over 1, 5 and 15 minutes (/proc/loadavg);
 * 0 if they cannot be read. */
static int read_load(double load[3])
{
    FILE *f = fopen("/proc/loadavg", "r");
    int ok = f && fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3;
    if (f)
        fclose(f);
    return ok;
}

/* The machine's load now, as the member `key` of the experiment's file:
 * the cores online and the load averages (null if unknown). */
static void json_load(const char *key)
{
    double load[3];
    fprintf(B.json, "  \"%s\": {\"cores\": %ld, \"loadavg\": ", key, sysconf(_SC_NPROCESSORS_ONLN));
    if (read_load(load))
        fprintf(B.json, "[%.2f, %.2f, %.2f]}", load[0], load[1], load[2]);
    else
        fprintf(B.json, "null}");
}

/* A progress line, on stdout with the tables: mpiexec forwards a process's
 * stdout and stderr through separate pipes and passes on first what it
 * reads first, so a line on stderr could land inside a table. */
static void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void experiment_begin(const struct experiment *x, const char *out)
{
    if (B.me != 0)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-np%d.json", out, x->name, B.np);
    B.json = fopen(path, "w");
    if (!B.json) {
        perror(path);
        return;
    }
    fprintf(B.json, "{\n  \"experiment\": \"%s\", \"title\": \"%s\", \"figure\": \"%s\", "
                    "\"x\": \"%s\", \"plot\": \"%s\",\n%s",
            x->name, x->title, x->figure, x->x, x->plot, run_header);
    json_load("load_before");
    fprintf(B.json, ",\n  \"results\": [");
    B.json_first = 1;
}

static void experiment_end(void)
{
    if (B.me == 0 && B.json) {
        fprintf(B.json, "\n  ],\n");
        json_load("load_after");
        fprintf(B.json, "\n}\n");
        fclose(B.json);
        B.json = NULL;
    }
}

static void usage(void)
{
    printf("usage: mpiexec -n N reach-bench [--quick] [--max-size BYTES] [--out DIR] [--only NAMES]\n"
           "       reach-bench --compare OLD_DIR NEW_DIR\n"
           "  N >= 2: rank 0 works on rank 1's memory, the others sleep.\n"
           "  --quick     7 samples per figure instead of 15, a few minutes in all\n"
           "  --max-size  largest transfer (default 1 MiB)\n"
           "  --out       the results folder: a JSON file per experiment and process\n"
           "              count, report.md and its plots (default reach-results); runs\n"
           "              at several process counts into one folder make one report\n"
           "  --only      a comma-separated subset of:");
    for (int e = 0; e < NEXPERIMENTS; e++)
        printf(" %s", experiments[e].name);
    printf("\n  --compare   every figure two results folders share, NEW against OLD: their ratio\n"
           "              and whether NEW is better (times lower, counts higher)\n");
}

/* Finds reach-report.py: beside this program (in the build tree), or where
 * the install puts it relative to this program's folder
 * (REACH_REPORT_FROM_BIN, e.g. ../share/reach/reach-report.py). 0, or -1
 * after saying where it looked. */
static int find_report(char *path, size_t len)
{
    char bin[4096];
    ssize_t n = readlink("/proc/self/exe", bin, sizeof bin - 1);
    if (n <= 0) {
        fprintf(stderr, "reach-bench: cannot find reach-report.py: /proc/self/exe: %s\n", strerror(errno));
        return -1;
    }
    bin[n] = '\0';
    *strrchr(bin, '/') = '\0';
    static const char *const where[] = {"reach-report.py", REACH_REPORT_FROM_BIN};
    for (int k = 0; k < 2; k++) {
        snprintf(path, len, "%s/%s", bin, where[k]);
        if (access(path, R_OK) == 0)
            return 0;
    }
    fprintf(stderr, "reach-bench: cannot find reach-report.py: looked for %s/%s and %s/%s\n", bin, where[0],
            bin, where[1]);
    return -1;
}

/* Runs reach-report (the report and its plots, or a comparison) with
 * Debian's python3 and matplotlib; its status. */
static int run_report(const char *a, const char *b, const char *c)
{
    char script[4096 + 64];
    if (find_report(script, sizeof script) != 0)
        return 1;
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    pid_t pid = fork();
    if (pid == 0) {
        execlp(python, python, script, a, b, c, (char *)NULL);
        perror(python);
        _exit(127);
    }
    int status = 1;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    const char *out = "reach-results", *only = NULL;
    B.samples = 15;
    B.max_size = 1 << 20;
    if (argc == 4 && strcmp(argv[1], "--compare") == 0)
        return run_report("--compare", argv[2], argv[3]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            B.samples = 7;
        else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc)
            B.max_size = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (select_experiments(only) != 0) {
        usage();
        return 2;
    }
    if (B.max_size < 8 || B.max_size > (1u << 30)) {
        fprintf(stderr, "reach-bench: --max-size must be between 8 and 1 GiB\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    B.me = reach_rank();
    B.np = reach_size();
    B.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (B.np < 2) {
        if (B.me == 0)
            fprintf(stderr, "reach-bench: run on at least 2 processes (mpiexec -n 2 reach-bench)\n");
        reach_finalize();
        MPI_Finalize();
        return 2;
    }

    /* reach: rank 1's segment and a mutex it hosts. */
    /* Room for the strided table's gaps: 8-byte runs at a stride of 80. */
    size_t seg = 10 * B.max_size + 4096;
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    if (reach_malloc(seg, bases) != REACH_SUCCESS ||
        reach_mutexes_create(1, &B.mutexes) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: set-up failed");
    memset(bases[B.me], 0, seg);
    B.seg_target = bases[1];
    B.src = malloc(seg);
    B.dst = malloc(seg);
    B.acc_src = malloc(seg);
    B.acc_dst = malloc(seg);
    for (size_t i = 0; i < seg / 8; i++) {
        B.acc_src[i] = 1e-9;
        B.acc_dst[i] = 0;
    }
    memset(B.src, 1, seg);
    memset(B.dst, 0, seg);

    /* MPI-3: a window on ranks 0 and 1 (size rounded to 16 bytes: MPICH
     * 4.0.2 misaddresses windows of other sizes). */
    MPI_Comm_split(MPI_COMM_WORLD, B.me < 2 ? 0 : MPI_UNDEFINED, B.me, &B.pair);
    void *wbase = NULL;
    if (B.me < 2) {
        MPI_Win_allocate((MPI_Aint)((seg + 15) & ~(size_t)15), 1, MPI_INFO_NULL, B.pair, &wbase, &B.win);
        memset(wbase, 0, seg);
        MPI_Barrier(B.pair);
        MPI_Win_lock_all(0, B.win);
    }
    if (B.me == 0) {
        if (mkdir(out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "reach-bench: cannot make the results folder %s: %s\n", out, strerror(errno));
            reach_abort(2, "reach-bench: no results folder");
        }
        printf("reach-bench: %d processes on %d node(s), %d cores; origin rank 0, target rank 1 (%s)\n",
               B.np, reach_node_count(), B.cores, reach_same_node(1) ? "same node" : "other node");
        printf("reach put and acc include reach_fence; MPI-3 ops include MPI_Win_flush\n");
        describe_run();
    }
    reach_barrier();

    int total = 0, done = 0;
    for (int e = 0; e < NEXPERIMENTS; e++)
        total += selected[e];
    for (int e = 0; e < NEXPERIMENTS; e++) {
        if (!selected[e])
            continue;
        double t0 = now();
        if (B.me == 0)
            progress("reach-bench: [%d/%d] %s ...\n", ++done, total, experiments[e].name);
        experiment_begin(&experiments[e], out);
        experiments[e].run();
        experiment_end();
        if (B.me == 0) {
            double load[3];
            char note[64] = "";
            if (read_load(load))
                snprintf(note, sizeof note, "; load average %.2f on %d cores", load[0], B.cores);
            progress("reach-bench: [%d/%d] %s done in %.0f s%s\n", done, total, experiments[e].name, now() - t0,
                     note);
        }
    }
    mpi_end_lock_all();


    if (B.me < 2) {
        MPI_Win_free(&B.win);
        MPI_Comm_free(&B.pair);
    }
    reach_mutexes_destroy(B.mutexes);
    reach_free(bases[B.me]);
    reach_finalize();
    MPI_Finalize();
    free(bases);
    if (B.me != 0)
        return 0;
    printf("\nevery sample: %s/*.json\n", out);
    fflush(stdout);
    int st = run_report(out, NULL, NULL);
    if (st != 0)
        fprintf(stderr, "reach-bench: the report was not made (status %d); the samples are in %s/*.json, "
                        "from which reach-report.py %s makes it\n", st, out, out);
    return st;
}
