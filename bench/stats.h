/* The clock, the statistics of a figure's samples, the machine's load and
 * how many machines the run spans: what reach-bench's harness and
 * ga-bench share. reach is not used here (MPI is), so that
 * ga-bench-armci-mpi links it without libreach. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdio.h>
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

/* The machine's load at one moment: its load averages over 1, 5 and 15
 * minutes (/proc/loadavg; -1 if unknown), and its cores' time since boot in
 * clock ticks (/proc/stat): in all, and what the host took for its other
 * work ("steal": a virtual machine's cores stopped, whatever ran on them;
 * -1 if unknown). Steal comes in stops of milliseconds, as long as many
 * small operations: a figure measured across them may say more about the
 * host than about what it measures. */
struct load {
    double avg[3];
    long long ticks, steal;
};
struct load load_now(void);

/* Writes "key": {"cores": C, "loadavg": [1, 5, 15 minutes] or [], "ticks":
 * T, "steal": S} (no comma after it), as both programs' files have it. */
void json_load(FILE *f, const char *key, struct load l);

/* Collective over MPI_COMM_WORLD: how many machines its processes run on,
 * told apart by host name (scripts/two-machines.sh gives each emulated
 * machine its own). */
int count_machines(void);

#endif
