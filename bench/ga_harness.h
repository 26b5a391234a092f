/* ga-bench's harness (ga_main.c says what it measures): its state, the
 * timed batches and their samples, the table's rows and the results file.
 * Both builds, over reach's libarmci and over ARMCI-MPI, share it: it uses
 * MPI only, never reach. */
#ifndef BENCH_GA_HARNESS_H
#define BENCH_GA_HARNESS_H

#include "stats.h"

#include <stddef.h>
#include <stdio.h>

#define CHUNK_BYTES ((size_t)1 << 20)                   /* the most any operation moves to or from one process */
#define CHUNK ((int)(CHUNK_BYTES / sizeof(double)) + 1) /* doubles on each process (odd: see ga_main.c) */
#define MAX_RESULTS 96

struct result {
    const char *series, *unit;
    size_t x;
    double median, q1, q3;
    int n; /* samples */
    double v[MAX_SAMPLES];
};

struct ga_bench {
    int me, np, samples;
    int machines;      /* count_machines() */
    int network;       /* --network: every process its own node */
    double batch;      /* seconds a sample should last */
    size_t max_bytes;  /* the largest get, put or acc */
    int g_data;        /* doubles, CHUNK on each process */
    int target;        /* the process holding the patches rank 0 gets, puts and accs */
    double *src, *buf; /* CHUNK doubles each; src holds pattern(me, i) */
    struct result res[MAX_RESULTS];
    int nres;
};
extern struct ga_bench B;

/* Seconds taken by `iters` operations of one kind, whose details are in arg. */
typedef double (*batch_fn)(long iters, void *arg);

/* Says what went wrong, on stderr with the rank, and aborts the job. */
void fail(const char *fmt, ...);

/* The values process `rank` writes: small integers, so that sums of them
 * are exact. */
double pattern(int rank, int i);

/* x bytes as the table gives them: B, KiB or MiB. */
void size_label(size_t bytes, char *buf, size_t len);

/* Keeps a figure (on rank 0) and prints its row. v holds B.samples values
 * in `unit`; label describes x in the table. */
void record(const char *series, size_t x, const char *label, const char *unit, const double *v);

/* The same with n samples (at most MAX_SAMPLES). */
void record_n(const char *series, size_t x, const char *label, const char *unit, const double *v, int n);

/* This process's resident memory (VmRSS) in MB, -1 if unknown. */
double resident_mb(void);

/* Keeps each process's resident memory mb (resident_mb) as the figure
 * series, x the processes: a sample per process, the largest MAX_SAMPLES
 * where there are more. Collective. */
void record_memory(const char *series, double mb);

/* Times B.samples batches; v gets seconds per operation (on rank 0). With
 * `collective`, every process runs and times each batch, starting
 * together, and a sample is the median over the processes. */
void sample(batch_fn fn, void *arg, int collective, double *v);

/* Multiplies each of B.samples values by factor (seconds to a unit). */
void scale(double *v, double factor);

/* The measurements (ga_ops.c), in the order they run. */
void bench_transfers(void);
void bench_read_inc(void);
void bench_lock(void);
void bench_sync(void);
void bench_dgop(void);
void bench_create(void);
void bench_scatter_acc(void);
void bench_dgemm(void);
/* With --threads N (MPI at MPI_THREAD_MULTIPLE): 1, 2, 4 ... N threads. */
#define MAX_THREADS 16
void bench_threads(int most);

/* mkdir -p */
int make_dir(const char *dir);

/* The results file: reach-bench's format, every figure of the run with
 * its samples, impl naming the ARMCI linked in. */
void write_json(FILE *f, const char *impl, struct load before, struct load after);

#endif
