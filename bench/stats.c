/* The statistics of samples and the machine's load, shared by reach-bench
 * and ga-bench (see stats.h). */
#define _POSIX_C_SOURCE 200809L

#include "stats.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sort_samples(const double *us, int n, double *sorted)
{
    memcpy(sorted, us, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
}

double median(const double *us, int n)
{
    double sorted[MAX_SAMPLES];
    sort_samples(us, n, sorted);
    return sorted[n / 2];
}

double quantile(const double *sorted, int n, double p)
{
    double h = p * (n - 1);
    int k = (int)h;
    return k + 1 < n ? sorted[k] + (h - k) * (sorted[k + 1] - sorted[k]) : sorted[k];
}

struct load load_now(void)
{
    struct load l = {{-1, -1, -1}, -1, -1};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf %lf %lf", &l.avg[0], &l.avg[1], &l.avg[2]) != 3)
        l.avg[0] = l.avg[1] = l.avg[2] = -1;
    if (f)
        fclose(f);
    /* "cpu  user nice system idle iowait irq softirq steal ...": the sum of
     * the first eight is the cores' time (guest time is counted in user) */
    long long t[8];
    f = fopen("/proc/stat", "r");
    if (f && fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &t[6],
                    &t[7]) == 8) {
        l.ticks = 0;
        for (int k = 0; k < 8; k++)
            l.ticks += t[k];
        l.steal = t[7];
    }
    if (f)
        fclose(f);
    return l;
}

void json_load(FILE *f, const char *key, struct load l)
{
    fprintf(f, "  \"%s\": {\"cores\": %ld, \"loadavg\": [", key, sysconf(_SC_NPROCESSORS_ONLN));
    if (l.avg[0] >= 0)
        fprintf(f, "%.2f, %.2f, %.2f", l.avg[0], l.avg[1], l.avg[2]);
    fprintf(f, "], \"ticks\": %lld, \"steal\": %lld}", l.ticks, l.steal);
}

int count_machines(void)
{
    enum { NAME = 256 };
    char me[NAME] = "";
    int np, machines = 0;
    gethostname(me, NAME - 1);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    char *all = calloc((size_t)np, NAME);
    if (!all || MPI_Allgather(me, NAME, MPI_CHAR, all, NAME, MPI_CHAR, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(all);
        return 1;
    }
    for (int r = 0; r < np; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = strcmp(all + (size_t)q * NAME, all + (size_t)r * NAME) == 0;
        machines += !seen;
    }
    free(all);
    return machines;
}
