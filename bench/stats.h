/* The clock, the statistics of a figure's samples and the machine's load:
 * what reach-bench's harness and ga-bench share. Neither reach nor MPI is
 * used here, so that ga-bench-armci-mpi links it without libreach. */
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

#endif
