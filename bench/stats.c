/* The statistics of samples and the machine's load, shared by reach-bench
 * and ga-bench (see stats.h). */
#define _POSIX_C_SOURCE 200809L

#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
