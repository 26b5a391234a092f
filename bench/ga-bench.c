/* ga-bench: the operations that dominate Global Arrays applications, timed
 * through GA's C API over whichever ARMCI library the program is linked
 * with (reach's libarmci or ARMCI-MPI), so that two builds of this one
 * source can be run and compared side by side.
 *
 * What it measures; each figure is the median of several samples, a sample
 * being a batch of operations timed together that lasts about 5 ms (1 ms
 * with --quick), after a warm-up; 31 samples (7 with --quick):
 *   get, put, acc   NGA_Get, NGA_Put, NGA_Acc (alpha 1) of a contiguous patch
 *                   of doubles, 8 B to 1 MiB, by rank 0 on a patch that lies
 *                   wholly on rank 1 (on rank 0 itself when it runs alone):
 *                   µs per operation. A batch of puts or accs ends with
 *                   GA_Fence, so their remote completion is in the time.
 *   read_inc        NGA_Read_inc of one counter on rank 0 by every process
 *                   at once: µs per increment; a sample is the median over
 *                   the processes of each one's mean.
 *   sync            GA_Sync alone (x = 0), and GA_Sync right after every
 *                   process has put x bytes to every process (only the
 *                   GA_Sync is timed): µs per GA_Sync.
 *   scatter_acc     NGA_Scatter_acc of x elements at random places in the
 *                   whole array, by rank 0: µs per call.
 *   dgemm           GA_Dgemm of x-by-x distributed matrices, by all: ms.
 * Processes that take no part in a figure wait in GA_Sync, as those of a GA
 * program would (ARMCI-MPI needs them to make MPI progress there). The
 * result of every operation is checked once after it has been timed; a
 * wrong result stops the run with an error and a non-zero exit status.
 *
 * Debian's MPICH 4.0.2 misaddresses the MPI_Win_allocate windows that
 * ARMCI-MPI makes GA's arrays of when a process's part is not a multiple of
 * 16 bytes: the process's own view of its part (NGA_Access, GA_Zero) then
 * lies 8 bytes from the others' one-sided view of it. GA asks ARMCI for one
 * element more than a process's part, so each process holds an odd number
 * of doubles of the data array and one long of the counter array.
 * (GA_Dgemm's matrices cannot be sized so, but it reaches them one-sidedly
 * only; its product is checked like everything else.)
 *
 * The build makes build/ga-bench (Debian's libga-mpich.a with reach's
 * libarmci) and build/ga-bench-armci-mpi (with Debian's ARMCI-MPI,
 * libarmci-mpich.a); GA_BENCH_IMPL names the ARMCI of each. Run both:
 *   mpiexec -n 2 build/ga-bench [--out DIR] [--quick] [--impl NAME]
 *   mpiexec -n 2 build/ga-bench-armci-mpi [--out DIR] [--quick]
 * Rank 0 prints a table and writes every sample to DIR/ga-np<N>-<impl,
 * lowercased, other than letters and digits as '-'>.json (reach-bench's
 * format), which reach-report puts in one section of DIR's report. */
#define _POSIX_C_SOURCE 200809L

#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* OpenBLAS's, when the BLAS linked in is OpenBLAS. */
extern void openblas_set_num_threads(int threads) __attribute__((weak));

/* The ARMCI this build links, as the results name it ("" for none known). */
#ifndef GA_BENCH_IMPL
#define GA_BENCH_IMPL ""
#endif

#define CHUNK_BYTES ((size_t)1 << 20)   /* the most any operation moves to or from one process */
#define CHUNK ((int)(CHUNK_BYTES / sizeof(double)) + 1)   /* doubles on each process (odd: see above) */
#define MAX_SAMPLES 31
#define MAX_RESULTS 96
#define MAX_SIZES 16

struct result {
    const char *series, *unit;
    size_t x;
    double median, q1, q3;
    double v[MAX_SAMPLES];
};

static struct {
    int me, np, samples;
    double batch;        /* seconds a sample should last */
    size_t max_bytes;    /* the largest get, put or acc */
    int g_data;          /* doubles, CHUNK on each process */
    int target;          /* the process holding the patches rank 0 gets, puts and accs */
    double *src, *buf;   /* CHUNK doubles each; src holds pattern(me, i) */
    struct result res[MAX_RESULTS];
    int nres;
} B;

/* Seconds taken by `iters` operations of one kind, whose details are in arg. */
typedef double (*batch_fn)(long iters, void *arg);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ga-bench: rank %d: ", B.me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The values process `rank` writes: small integers, so that sums of them
 * are exact. */
static double pattern(int rank, int i)
{
    return 8.0 * rank + i % 7 + 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile of n sorted values, interpolated between the nearest two
 * (the "inclusive" method). */
static double quantile(const double *sorted, int n, double p)
{
    double pos = p * (n - 1);
    int i = (int)pos;
    if (i >= n - 1)
        return sorted[n - 1];
    return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

static void size_label(size_t bytes, char *buf, size_t len)
{
    if (bytes >= ((size_t)1 << 20))
        snprintf(buf, len, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024)
        snprintf(buf, len, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, len, "%zu B", bytes);
}

/* Keeps a figure (on rank 0) and prints its row. v holds B.samples values
 * in `unit`; label describes x in the table. */
static void record(const char *series, size_t x, const char *label, const char *unit, const double *v)
{
    double sorted[MAX_SAMPLES];
    if (B.nres == MAX_RESULTS)
        fail("more than %d figures", MAX_RESULTS);
    struct result *r = &B.res[B.nres++];
    r->series = series;
    r->unit = unit;
    r->x = x;
    memcpy(r->v, v, (size_t)B.samples * sizeof *v);
    memcpy(sorted, v, (size_t)B.samples * sizeof *v);
    qsort(sorted, (size_t)B.samples, sizeof *sorted, cmp_double);
    r->median = quantile(sorted, B.samples, 0.5);
    r->q1 = quantile(sorted, B.samples, 0.25);
    r->q3 = quantile(sorted, B.samples, 0.75);
    printf("%-12s %10s %12.4g %-5s [%.4g - %.4g]\n", series, label, r->median, unit, r->q1, r->q3);
    fflush(stdout);
}

/* Operations per sample, so that a sample lasts about B.batch (all of it,
 * not only the part timed): the count grows until two batches in a row last
 * at least half that (so that a batch slowed by a moment without a core
 * does not settle it); the trial batches warm up. With `collective`, every
 * process runs the batches and rank 0's times decide. */
static long calibrate(batch_fn fn, void *arg, int collective)
{
    long step[2] = {1, 0};   /* operations; batches in a row that lasted long enough */
    while (step[1] < 2) {
        double t0 = now();
        fn(step[0], arg);
        double t = now() - t0;
        if (B.me == 0) {
            if (t >= B.batch / 2) {
                step[1]++;
            } else {
                step[0] = t < B.batch / 64 ? 8 * step[0] : (long)((double)step[0] * B.batch / t) + 1;
                step[1] = 0;
            }
        }
        if (collective)
            MPI_Bcast(step, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    }
    return step[0];
}

/* Times B.samples batches; v gets seconds per operation (on rank 0). With
 * `collective`, every process runs and times each batch, starting
 * together, and a sample is the median over the processes. */
static void sample(batch_fn fn, void *arg, int collective, double *v)
{
    long iters = calibrate(fn, arg, collective);
    double each[B.np];
    for (int s = 0; s < B.samples; s++) {
        if (collective)
            MPI_Barrier(MPI_COMM_WORLD);
        double t = fn(iters, arg) / (double)iters;
        if (collective) {
            MPI_Gather(&t, 1, MPI_DOUBLE, each, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (B.me == 0) {
                qsort(each, (size_t)B.np, sizeof *each, cmp_double);
                t = quantile(each, B.np, 0.5);
            }
        }
        v[s] = t;
    }
}

static void scale(double *v, double factor)
{
    for (int s = 0; s < B.samples; s++)
        v[s] *= factor;
}

/* ---- get, put and acc by rank 0 ---- */

enum xfer { GET, PUT, ACC };

static const char *xfer_names[] = {"get", "put", "acc"};

struct xfer_arg {
    enum xfer op;
    int n;       /* doubles */
    long done;   /* operations so far */
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
        case GET:
            NGA_Get(B.g_data, &lo, &hi, B.buf, &ld);
            break;
        case PUT:
            NGA_Put(B.g_data, &lo, &hi, B.src, &ld);
            break;
        case ACC:
            NGA_Acc(B.g_data, &lo, &hi, B.src, &ld, &one);
            break;
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
        double want = a->op == GET ? (double)(lo + i)
                    : a->op == PUT ? pattern(0, i) : (double)a->done * pattern(0, i);
        if (B.buf[i] != want)
            fail("%s of %d doubles: element %d is %g, not %g", xfer_names[a->op], a->n, i, B.buf[i], want);
    }
}

static void transfers(void)
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
    long done, last;   /* increments so far; the value the last one returned */
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

static void read_inc(void)
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

/* ---- GA_Sync, alone and after puts to every process ---- */

struct sync_arg {
    int n;   /* doubles each process puts to every process before GA_Sync; 0: none */
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
    double t = 0;
    for (long i = 0; i < iters; i++) {
        for (int q = 0; q < B.np; q++) {
            int lo = q * CHUNK + B.me * a->n, hi = lo + a->n - 1;
            NGA_Put(B.g_data, &lo, &hi, B.src, &ld);
        }
        double t0 = now();
        GA_Sync();
        t += now() - t0;
    }
    return t;
}

/* Every process's part of the array holds what every process put in it. */
static void check_sync(int n)
{
    int lo = B.me * CHUNK, hi = lo + B.np * n - 1, ld = 1;
    NGA_Get(B.g_data, &lo, &hi, B.buf, &ld);
    for (int r = 0; r < B.np; r++)
        for (int i = 0; i < n; i++)
            if (B.buf[r * n + i] != pattern(r, i))
                fail("after GA_Sync: element %d put by rank %d is %g, not %g", i, r, B.buf[r * n + i],
                     pattern(r, i));
}

static void sync_ops(void)
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

/* ---- NGA_Scatter_acc by rank 0 ---- */

struct scatter_arg {
    int n;
    int **subs;     /* n subscripts */
    double *ones;   /* n values */
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

static void scatter_acc(void)
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
    int n, a, b, c;   /* order; the arrays */
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

static void dgemm(void)
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

/* ---- options and the results file ---- */

static void usage(FILE *f)
{
    fprintf(f, "usage: ga-bench [--impl NAME] [--out DIR] [--quick]\n"
               "  --impl NAME  the ARMCI library linked in, as the results name it (%s)\n"
               "  --out DIR    where to write ga-np<N>-<impl>.json (default reach-results)\n"
               "  --quick      7 samples and transfers up to 64 KiB (under 20 s)\n"
               "  --help       this message\n",
            GA_BENCH_IMPL[0] ? "default " GA_BENCH_IMPL : "required");
}

/* mkdir -p */
static int make_dir(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return -1;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The load averages over 1, 5 and 15 minutes (all -1 if unknown). */
struct load {
    double avg[3];
};

static struct load load_now(void)
{
    struct load l = {{-1, -1, -1}};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &l.avg[0], &l.avg[1], &l.avg[2]) != 3)
            l.avg[0] = l.avg[1] = l.avg[2] = -1;
        fclose(f);
    }
    return l;
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* "key": {"cores": C, "loadavg": [1, 5, 15 minutes] or []}, as reach-bench
 * records it. */
static void json_load(FILE *f, const char *key, struct load l, int cores)
{
    fprintf(f, "  \"%s\": {\"cores\": %d, \"loadavg\": [", key, cores);
    if (l.avg[0] >= 0)
        fprintf(f, "%.2f, %.2f, %.2f", l.avg[0], l.avg[1], l.avg[2]);
    fprintf(f, "]},\n");
}

static void write_json(FILE *f, const char *impl, struct load before, struct load after)
{
    char host[256] = "unknown", mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, "\n")] = '\0';

    fprintf(f, "{\n  \"experiment\": \"ga\", \"title\": \"Global Arrays operations (ga-bench)\", "
               "\"figure\": \"\", \"x\": \"size\", \"plot\": \"panels\",\n  \"machine\": {\"host\": ");
    json_string(f, host);
    fprintf(f, ", \"cores\": %d, \"processes\": %d, \"nodes\": 1, \"target\": \"same node\", "
               "\"oversubscribed\": %s, \"mpi\": ", cores, B.np, B.np > cores ? "true" : "false");
    json_string(f, mpi);
    fprintf(f, "},\n  \"samples\": %d,\n  \"environment\": {", B.samples);
    int first = 1;
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || (strncmp(*e, "REACH_", 6) != 0 && strncmp(*e, "ARMCI_", 6) != 0))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        fprintf(f, "%s", first ? "" : ", ");
        json_string(f, name);
        fprintf(f, ": ");
        json_string(f, eq + 1);
        first = 0;
    }
    fprintf(f, "},\n");
    json_load(f, "load_before", before, cores);
    json_load(f, "load_after", after, cores);
    fprintf(f, "  \"results\": [");
    for (int k = 0; k < B.nres; k++) {
        const struct result *r = &B.res[k];
        fprintf(f, "%s\n    {\"series\": \"%s\", \"impl\": ", k ? "," : "", r->series);
        json_string(f, impl);
        fprintf(f, ", \"x\": %zu, \"unit\": \"%s\", \"median\": %.6g, \"q1\": %.6g, \"q3\": %.6g, \"samples\": [",
                r->x, r->unit, r->median, r->q1, r->q3);
        for (int s = 0; s < B.samples; s++)
            fprintf(f, "%s%.6g", s ? ", " : "", r->v[s]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

int main(int argc, char **argv)
{
    const char *impl = GA_BENCH_IMPL[0] ? GA_BENCH_IMPL : NULL, *out = "reach-results";
    const char *bad = NULL;   /* the first argument not understood */
    int quick = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &B.me);
    MPI_Comm_size(MPI_COMM_WORLD, &B.np);
    for (int i = 1; i < argc && !bad; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            if (B.me == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--impl") == 0 && i + 1 < argc && argv[i + 1][0]) {
            impl = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc && argv[i + 1][0]) {
            out = argv[++i];
        } else {
            bad = argv[i];
        }
    }
    if (bad || !impl) {
        if (B.me == 0) {
            if (bad)
                fprintf(stderr, "ga-bench: bad option or missing value: %s\n", bad);
            else
                fprintf(stderr, "ga-bench: --impl NAME is required\n");
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    double start = now();
    struct load load_before = load_now();
    B.samples = quick ? 7 : MAX_SAMPLES;
    B.batch = quick ? 1e-3 : 5e-3;
    B.max_bytes = quick ? 65536 : CHUNK_BYTES;
    B.target = B.np > 1 ? 1 : 0;

    char path[4096], slug[256];
    size_t k = 0;
    for (; impl[k] && k < sizeof slug - 1; k++)
        slug[k] = isalnum((unsigned char)impl[k]) ? (char)tolower((unsigned char)impl[k]) : '-';
    slug[k] = '\0';
    snprintf(path, sizeof path, "%s/ga-np%d-%s.json", out, B.np, slug);
    if (B.me == 0 && (make_dir(out) != 0 || access(out, W_OK) != 0))
        fail("cannot write in %s: %s", out, strerror(errno));

    /* The processes are GA_Dgemm's parallelism: BLAS threads would only
     * compete with them for the cores. */
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    GA_Initialize();
    /* GA takes the local scratch space of some operations from MA. */
    if (!MA_init(C_DBL, 1 << 20, 1 << 20))
        fail("MA_init failed");
    int dims = B.np * CHUNK, block = B.np, map[B.np];
    for (int p = 0; p < B.np; p++)
        map[p] = p * CHUNK;
    B.g_data = NGA_Create_irreg(C_DBL, 1, &dims, "data", &block, map);
    B.src = malloc(CHUNK * sizeof(double));
    B.buf = malloc(CHUNK * sizeof(double));
    if (!B.g_data || !B.src || !B.buf)
        fail("cannot create the data array");
    for (int i = 0; i < CHUNK; i++)
        B.src[i] = pattern(B.me, i);

    if (B.me == 0) {
        char host[256] = "unknown";
        gethostname(host, sizeof host);
        host[sizeof host - 1] = '\0';
        printf("ga-bench: %s, %d processes on %s (%ld cores); %d samples of about %.0f ms per figure\n\n",
               impl, B.np, host, sysconf(_SC_NPROCESSORS_ONLN), B.samples, B.batch * 1e3);
        printf("%-12s %10s %12s %-5s %s\n", "operation", "size", "median", "unit", "[q1 - q3]");
        fflush(stdout);
    }
    transfers();
    read_inc();
    sync_ops();
    scatter_acc();
    dgemm();

    GA_Destroy(B.g_data);
    if (B.me == 0) {
        struct load load_after = load_now();
        FILE *json = fopen(path, "w");
        if (!json)
            fail("cannot write %s: %s", path, strerror(errno));
        write_json(json, impl, load_before, load_after);
        if (ferror(json) | fclose(json))
            fail("cannot write %s", path);
        printf("\nwrote %s in %.1f s\n", path, now() - start);
    }
    free(B.src);
    free(B.buf);
    GA_Terminate();
    MPI_Finalize();
    return 0;
}
