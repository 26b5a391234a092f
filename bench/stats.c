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

int read_load(double load[3])
{
    FILE *f = fopen("/proc/loadavg", "r");
    int ok = f && fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3;
    if (f)
        fclose(f);
    return ok;
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
