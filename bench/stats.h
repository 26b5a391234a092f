/* The clock, the statistics of a figure's samples, the machine's load and
 * how many machines the run spans: what reach-bench's harness and
 * ga-bench share. reach is not used here (MPI is), so that
 * ga-bench-armci-mpi links it without libreach. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <time.h>

/* The most samples one figure has. */
#define MAX_SAMPLES 31

/* Inline, as it was in each program's timed loops. */
static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort's order of doubles, smallest first. */
int cmp_double(const void *a, const void *b);

/* sorted: the n values of us (n at most MAX_SAMPLES), in order. */
void sort_samples(const double *us, int n, double *sorted);

/* The middle one of n (at most MAX_SAMPLES) values. */
double median(const double *us, int n);

/* The p-quantile of n sorted values, interpolated between neighbours (as
 * Python's statistics.quantiles with method "inclusive"). */
double quantile(const double *sorted, int n, double p);

/* The machine's load averages over 1, 5 and 15 minutes (/proc/loadavg);
 * 0 if they cannot be read. */
int read_load(double load[3]);

/* Collective over MPI_COMM_WORLD: how many machines its processes run on,
 * told apart by host name (scripts/two-machines.sh gives each emulated
 * machine its own). */
int count_machines(void);

#endif
