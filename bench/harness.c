/* reach-bench's harness (see harness.h): the timed batches of single
 * operations and their samples, the phases of the MPI-3 baseline, and the
 * JSON file of each experiment. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bench B;

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
        case REACH_GET: bad |= reach_get(B.seg_target, B.dst, size, 1) != 0; break;
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
            bad |= MPI_Accumulate(B.acc_src, (int)(size / 8), MPI_DOUBLE, 1, 0, (int)(size / 8), MPI_DOUBLE, MPI_SUM,
                                  B.win) != 0;
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
        case REACH_FADD: bad |= reach_fetch_add_i64((int64_t *)(void *)B.seg_target, 1, &old, 1) != 0; break;
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
        case REACH_BARRIER: bad |= reach_barrier() != 0; break;
        case MPI_BARRIER: bad |= MPI_Barrier(MPI_COMM_WORLD) != 0; break;
        case REACH_PUTS:
            bad |= reach_put_strided(B.src, B.seg_target, &B.shape, 1) != 0;
            bad |= reach_fence(1) != 0;
            break;
        case REACH_GETS: {
            reach_strided_t g = B.shape; /* remote side strided, local packed */
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

/* Operations per batch so that a batch lasts about 2 ms: the count
 * doubles until two batches in a row last that long. One batch is not
 * trusted: a stop of the host's (steal, docs/benchmarks.md "Steal") made a
 * first batch of one operation last 2 ms, and every sample of that figure
 * was then one operation, which such stops could all fall on. Collective
 * ops (barriers) run on every rank, which agree on the count. */
static long calibrate(enum op op, size_t size)
{
    long iters = 1;
    int collective = op == REACH_BARRIER || op == MPI_BARRIER;
    for (int long_enough = 0; long_enough < 2;) {
        double t = run_batch(op, size, iters) * (double)iters;
        int more = t < 2e-3 && iters < (1L << 24);
        if (collective)
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (more) {
            iters *= 2;
            long_enough = 0;
        } else {
            long_enough++;
        }
    }
    return iters;
}

void measure(int n, const enum op *ops, size_t size, double us[][MAX_SAMPLES], double *med)
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

void json_values(const char *op, const char *impl, size_t x, size_t bytes, const char *unit, double median,
                 const double *v, int n)
{
    if (!B.json)
        return;
    double sorted[MAX_SAMPLES];
    sort_samples(v, n, sorted);
    fprintf(B.json, "%s\n    {\"series\": \"%s\", \"impl\": \"%s\", \"x\": %zu, ", B.json_first ? "" : ",", op, impl,
            x);
    if (bytes)
        fprintf(B.json, "\"bytes\": %zu, ", bytes);
    fprintf(B.json,
            "\"unit\": \"%s\", \"median\": %.6f, \"min\": %.6f, \"q1\": %.6f, \"q3\": %.6f, "
            "\"max\": %.6f, \"samples\": [",
            unit, median, sorted[0], quantile(sorted, n, 0.25), quantile(sorted, n, 0.75), sorted[n - 1]);
    for (int s = 0; s < n; s++)
        fprintf(B.json, "%s%.6f", s ? ", " : "", v[s]);
    fprintf(B.json, "]}");
    B.json_first = 0;
}

void json_result(const char *op, const char *impl, size_t size, double median, const double *us)
{
    json_values(op, impl, size, 0, "us", median, us, B.samples);
}

void phase_end(int mpi_target)
{
    if (mpi_target && B.me < 2)
        MPI_Barrier(B.pair);
    reach_barrier();
}

void mpi_phase_begin(void)
{
    if (B.me < 2)
        MPI_Barrier(B.pair);
}

void mpi_end_lock_all(void)
{
    static int ended;
    if (B.me < 2 && !ended) {
        MPI_Win_unlock_all(B.win);
        MPI_Barrier(B.pair);
    }
    ended = 1;
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

const char *target_place(void)
{
    return B.machines > 1 ? "other machine" : reach_same_node(1) ? "same node" : "other node";
}

void describe_run(void)
{
    char host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    gethostname(host, sizeof host - 1);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    char safe[MPI_MAX_LIBRARY_VERSION_STRING];
    size_t n = (size_t)snprintf(run_header, sizeof run_header,
                                "  \"machine\": {\"host\": \"%s\", \"cores\": %d, \"processes\": %d, "
                                "\"nodes\": %d, \"machines\": %d, \"target\": \"%s\", \"oversubscribed\": %s, "
                                "\"mpi\": \"%s\"},\n  \"samples\": %d,\n  \"environment\": {",
                                host, B.cores, B.np, reach_node_count(), B.machines, target_place(),
                                B.np > B.cores ? "true" : "false", json_safe(lib, safe, sizeof safe), B.samples);
    extern char **environ;
    int first = 1;
    for (char **e = environ; *e && n < sizeof run_header - 512; e++) {
        if (strncmp(*e, "REACH_", 6) != 0 && strncmp(*e, "UCX_", 4) != 0)
            continue;
        char var[256];
        json_safe(*e, var, sizeof var);
        size_t eq = strcspn(var, "=");
        n += (size_t)snprintf(run_header + n, sizeof run_header - n, "%s\"%.*s\": \"%s\"", first ? "" : ", ", (int)eq,
                              var, var + eq + (var[eq] ? 1 : 0));
        first = 0;
    }
    snprintf(run_header + n, sizeof run_header - n, "},\n");
}

/* A progress line, on stdout with the tables: mpiexec forwards a process's
 * stdout and stderr through separate pipes and passes on first what it
 * reads first, so a line on stderr could land inside a table. */
void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

void experiment_begin(const struct experiment *x, const char *out)
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
    fprintf(B.json,
            "{\n  \"experiment\": \"%s\", \"title\": \"%s\", \"figure\": \"%s\", "
            "\"x\": \"%s\", \"plot\": \"%s\",\n%s",
            x->name, x->title, x->figure, x->x, x->plot, run_header);
    json_load(B.json, "load_before", load_now());
    fprintf(B.json, ",\n  \"results\": [");
    B.json_first = 1;
}

void experiment_end(void)
{
    if (B.me == 0 && B.json) {
        fprintf(B.json, "\n  ],\n");
        json_load(B.json, "load_after", load_now());
        fprintf(B.json, "\n}\n");
        fclose(B.json);
        B.json = NULL;
    }
}
