/* ga-bench's harness (see ga_harness.h). */
#define _POSIX_C_SOURCE 200809L

#include "ga_harness.h"

#include <ga.h>
#include <mpi.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

struct ga_bench B;

void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ga-bench: rank %d: ", B.me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

double pattern(int rank, int i)
{
    return 8.0 * rank + i % 7 + 1;
}

void size_label(size_t bytes, char *buf, size_t len)
{
    if (bytes >= ((size_t)1 << 20))
        snprintf(buf, len, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024)
        snprintf(buf, len, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, len, "%zu B", bytes);
}

void record(const char *series, size_t x, const char *label, const char *unit, const double *v)
{
    record_n(series, x, label, unit, v, B.samples);
}

void record_n(const char *series, size_t x, const char *label, const char *unit, const double *v, int n)
{
    double sorted[MAX_SAMPLES];
    if (B.nres == MAX_RESULTS)
        fail("more than %d figures", MAX_RESULTS);
    if (n < 1 || n > MAX_SAMPLES)
        fail("%d samples of %s (1 to %d)", n, series, MAX_SAMPLES);
    struct result *r = &B.res[B.nres++];
    r->series = series;
    r->unit = unit;
    r->x = x;
    r->n = n;
    memcpy(r->v, v, (size_t)n * sizeof *v);
    sort_samples(v, n, sorted);
    r->median = quantile(sorted, n, 0.5);
    r->q1 = quantile(sorted, n, 0.25);
    r->q3 = quantile(sorted, n, 0.75);
    printf("%-12s %10s %12.4g %-5s [%.4g - %.4g]\n", series, label, r->median, unit, r->q1, r->q3);
    fflush(stdout);
}

double resident_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1 : (double)kib / 1024;
}

static int descending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

void record_memory(const char *series, double mine)
{
    double *all = B.me == 0 ? malloc(sizeof(double) * (size_t)B.np) : NULL;
    if (B.me == 0 && !all)
        fail("out of memory");
    MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (B.me == 0) {
        qsort(all, (size_t)B.np, sizeof *all, descending);
        char label[32];
        snprintf(label, sizeof label, "%d procs", B.np);
        if (all[0] > 0)
            record_n(series, (size_t)B.np, label, "MB", all, B.np < MAX_SAMPLES ? B.np : MAX_SAMPLES);
        free(all);
    }
}

/* Operations per sample, so that a sample lasts about B.batch (all of it,
 * not only the part timed): the count grows until two batches in a row last
 * at least half that (so that a batch slowed by a moment without a core
 * does not settle it); the trial batches warm up. With `collective`, every
 * process runs the batches and the slowest one's time decides, each
 * process deciding alike (rank 0's NGA_Read_inc is on its own memory:
 * sized by it, the other's remote batches took 100 s between two
 * machines).
 *
 * Processes meet between batches through Global Arrays' own calls
 * (GA_Dgop, GA_Sync), as a program would, not MPI's: at more processes
 * than cores MPICH's busy-polling collectives left the processes out of
 * step by a scheduler slice, which the first GA_Sync of the next batch
 * then waited out (2 ms a GA_Sync at 4 processes on 2 cores in short
 * batches; 18 us in long ones). */
static long calibrate(batch_fn fn, void *arg, int collective)
{
    long step[2] = {1, 0}; /* operations; batches in a row that lasted long enough */
    while (step[1] < 2) {
        double t0 = now();
        fn(step[0], arg);
        double t = now() - t0;
        if (collective)
            GA_Dgop(&t, 1, "max");
        if (t >= B.batch / 2) {
            step[1]++;
        } else {
            step[0] = t < B.batch / 64 ? 8 * step[0] : (long)((double)step[0] * B.batch / t) + 1;
            step[1] = 0;
        }
    }
    return step[0];
}

void sample(batch_fn fn, void *arg, int collective, double *v)
{
    long iters = calibrate(fn, arg, collective);
    double each[B.np];
    for (int s = 0; s < B.samples; s++) {
        if (collective)
            GA_Sync();
        double t = fn(iters, arg) / (double)iters;
        if (collective) {
            for (int p = 0; p < B.np; p++)
                each[p] = p == B.me ? t : 0;
            GA_Dgop(each, B.np, "+");
            if (B.me == 0) {
                qsort(each, (size_t)B.np, sizeof *each, cmp_double);
                t = quantile(each, B.np, 0.5);
            }
        }
        v[s] = t;
    }
}

void scale(double *v, double factor)
{
    for (int s = 0; s < B.samples; s++)
        v[s] *= factor;
}

/* ---- the results file ---- */

int make_dir(const char *dir)
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

void write_json(FILE *f, const char *impl, struct load before, struct load after)
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
    fprintf(f,
            ", \"cores\": %d, \"processes\": %d, \"nodes\": %d, \"machines\": %d, \"target\": \"%s\", "
            "\"oversubscribed\": %s, \"mpi\": ",
            cores, B.np, B.network ? B.np : 1, B.machines,
            B.machines > 1 ? "other machine"
            : B.network    ? "other node"
                           : "same node",
            B.np > cores ? "true" : "false");
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
    json_load(f, "load_before", before);
    fprintf(f, ",\n");
    json_load(f, "load_after", after);
    fprintf(f, ",\n");
    fprintf(f, "  \"results\": [");
    for (int k = 0; k < B.nres; k++) {
        const struct result *r = &B.res[k];
        fprintf(f, "%s\n    {\"series\": \"%s\", \"impl\": ", k ? "," : "", r->series);
        json_string(f, impl);
        fprintf(f, ", \"x\": %zu, \"unit\": \"%s\", \"median\": %.6g, \"q1\": %.6g, \"q3\": %.6g, \"samples\": [", r->x,
                r->unit, r->median, r->q1, r->q3);
        for (int s = 0; s < r->n; s++)
            fprintf(f, "%s%.6g", s ? ", " : "", r->v[s]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}
