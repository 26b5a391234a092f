/* reach-scale: the runs whose message traces (REACH_TRACE) tools/reach-project.py
 * replays and projects to large clusters (docs/scale.md). Each workload runs
 * between the marks "begin NAME" and "end NAME" on every rank:
 *
 *   barrier:ALG   reach_barrier under each barrier algorithm
 *   ga_sync:ALG   Buntinas03's GA_Sync test (docs/references.md): every
 *                 rank puts GA_BYTES into every other, then reach_barrier,
 *                 under each algorithm
 *   lock:ALG      every rank locks and unlocks mutex 0 of rank 0, contended,
 *                 under each lock algorithm
 *   epoch:MODE    an exclusive window epoch with one 8 B put at the next
 *                 rank, direct or deferred (Santhanaraman08)
 *   lu:MODE       the blocked LU's factorization (examples/lu_kernel.c)
 *                 in that mode; its window's allocation and filling
 *                 before the marks, the gathering of its result after
 *
 * The trace goes to OUT (REACH_TRACE); with --untraced, no trace is made,
 * and OUT/untraced.json has each workload's time (us, from the last
 * rank's begin to the last rank's end), to show what tracing costs. With
 * --calibrate FILE, on
 * two ranks, it instead measures the LogGP parameters of this machine's
 * network path (every rank its own node) and writes them to FILE as JSON. */
#include "lu_kernel.h"

#include <reach.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GA_BYTES 4096
#define LU_N 256
#define LU_B 32

static int me, np, iters = 20, untraced;
static const char *only;
/* Each workload's time, from the last rank's begin to the last rank's end
 * (the ranks share one machine's clock), us, on rank 0. */
static struct {
    char name[64];
    double us;
} timed[32];
static int ntimed;

static void fail(const char *what)
{
    fprintf(stderr, "reach-scale: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void ok(int st, const char *what)
{
    if (st != REACH_SUCCESS)
        fail(what);
}

/* reach_init fails on every rank or on none (start-up agrees on its
 * status), so a failed one ends the job normally: MPI_Abort's kill can
 * lose what the ranks wrote just before it (hydra's forwarding of an
 * aborting job's output), and with it reach's message. */
static void start(void)
{
    if (reach_init(NULL, NULL) != REACH_SUCCESS) {
        fprintf(stderr, "reach-scale: reach_init failed\n");
        MPI_Finalize();
        exit(1);
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

/* Whether --only (a comma-separated list of names or name prefixes such as
 * "lock:") selects the workload. */
static int chosen(const char *name)
{
    if (!only)
        return 1;
    for (const char *p = only; *p;) {
        size_t n = strcspn(p, ",");
        if (n && strncmp(name, p, n) == 0 && (name[n] == '\0' || p[n - 1] == ':'))
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

static void mark(const char *what, const char *name)
{
    char label[128];
    snprintf(label, sizeof label, "%s %s", what, name);
    ok(reach_trace_mark(label), "reach_trace_mark");
}

static void ga_sync(char *const *bases, int rounds)
{
    static char src[GA_BYTES];
    for (int i = 0; i < rounds; i++) {
        for (int k = 1; k < np; k++) {
            int to = (me + k) % np;
            ok(reach_put(src, bases[to] + (size_t)me * GA_BYTES, GA_BYTES, to), "reach_put");
        }
        ok(reach_barrier(), "reach_barrier");
    }
}

static reach_mutexes_t *mutex;

static void locks(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        ok(reach_mutex_lock(mutex, 0, 0), "reach_mutex_lock");
        ok(reach_mutex_unlock(mutex, 0, 0), "reach_mutex_unlock");
    }
}

static void epochs(reach_win_t *w, int rounds)
{
    int64_t one = 1;
    int to = (me + 1) % np;
    for (int i = 0; i < rounds; i++) {
        ok(reach_win_lock(w, REACH_LOCK_EXCLUSIVE, to), "reach_win_lock");
        ok(reach_win_put(w, &one, (size_t)me * sizeof one, sizeof one, to), "reach_win_put");
        ok(reach_win_unlock(w, to), "reach_win_unlock");
    }
}

static void record(const char *name, const double span[2])
{
    double last[2];
    MPI_Reduce(span, last, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0 && ntimed < (int)(sizeof timed / sizeof timed[0])) {
        snprintf(timed[ntimed].name, sizeof timed[ntimed].name, "%s", name);
        timed[ntimed++].us = last[1] - last[0];
    }
}

/* Runs one workload between its marks: its set-up (with a round that
 * makes connections and queues) before, untraced by the replay, and a
 * barrier after. */
#define WORKLOAD(name, setup, body, teardown)     \
    do {                                          \
        if (chosen(name)) {                       \
            setup;                                \
            ok(reach_barrier(), "reach_barrier"); \
            double span_[2] = {now_us(), 0};      \
            mark("begin", name);                  \
            body;                                 \
            mark("end", name);                    \
            span_[1] = now_us();                  \
            ok(reach_barrier(), "reach_barrier"); \
            record(name, span_);                  \
            teardown;                             \
        }                                         \
    } while (0)

static void run(const char *out)
{
    if (!untraced)
        setenv("REACH_TRACE", out, 1);
    start();
    unsetenv("REACH_TRACE");
    char **bases = malloc(sizeof *bases * (size_t)np), name[64];
    if (!bases)
        fail("malloc");
    ok(reach_malloc((size_t)np * GA_BYTES, (void **)bases), "reach_malloc");
    static const char *const barriers[] = {"fence+dissemination", "combined", "tree", "counter"};
    static const char *const lockalgs[] = {"mcs", "ticket", "hybrid"};
    static const char *const modes[] = {"direct", "deferred"};
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "barrier:%s", barriers[k]);
        WORKLOAD(name, ok(reach_set_barrier(barriers[k]), "reach_set_barrier"),
                 for (int i = 0; i < iters; i++) ok(reach_barrier(), "reach_barrier"), (void)0);
        snprintf(name, sizeof name, "ga_sync:%s", barriers[k]);
        WORKLOAD(name, ok(reach_set_barrier(barriers[k]), "reach_set_barrier");
                 ga_sync(bases, 1), ga_sync(bases, iters), (void)0);
    }
    ok(reach_set_barrier("combined"), "reach_set_barrier");
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "lock:%s", lockalgs[k]);
        WORKLOAD(name, ok(reach_set_lock(lockalgs[k]), "reach_set_lock");
                 ok(reach_mutexes_create(1, &mutex), "reach_mutexes_create");
                 locks(1), locks(iters), ok(reach_mutexes_destroy(mutex), "reach_mutexes_destroy"));
    }
    for (int k = 0; k < 2; k++) {
        ok(reach_set_win_sync(modes[k]), "reach_set_win_sync");
        reach_win_t *w;
        ok(reach_win_create(bases[me], (size_t)np * sizeof(int64_t), &w), "reach_win_create");
        snprintf(name, sizeof name, "epoch:%s", modes[k]);
        WORKLOAD(name, epochs(w, 1), epochs(w, iters), (void)0);
        ok(reach_win_free(w), "reach_win_free");
        snprintf(name, sizeof name, "lu:%s", modes[k]);
        lu_result_t r;
        WORKLOAD(name, ok(lu_setup(LU_N, LU_B, np, LU_REACH), "lu_setup"), lu_factor(),
                 ok(lu_finish(0, &r), "lu_finish"));
    }
    ok(reach_free(bases[me]), "reach_free");
    free(bases);
    ok(reach_finalize(), "reach_finalize");
    if (untraced && me == 0) { /* the same workloads' times without a trace */
        char path[4096];
        snprintf(path, sizeof path, "%s/untraced.json", out);
        FILE *f = fopen(path, "w");
        if (!f)
            fail("writing untraced.json");
        fprintf(f, "{");
        for (int i = 0; i < ntimed; i++)
            fprintf(f, "%s\n \"%s\": %.3f", i ? "," : "", timed[i].name, timed[i].us);
        fprintf(f, "}\n");
        if (fclose(f) != 0)
            fail("writing untraced.json");
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

enum { BIG = 1 << 20, STREAM = 256, REPS = 301, POLLS = 1000 };
static char **cbase, *cbuf;

/* One sample of each measured operation, us. */
static double get8(void)
{
    double t0 = now_us();
    ok(reach_get(cbase[1], cbuf, 8, 1), "reach_get");
    return now_us() - t0;
}

static double getbig(void)
{
    double t0 = now_us();
    ok(reach_get(cbase[1], cbuf, BIG, 1), "reach_get");
    return now_us() - t0;
}

static reach_counter_t *ctr;

static double ctr_add(void)
{
    int64_t old;
    double t0 = now_us();
    ok(reach_counter_add(ctr, 1, &old), "reach_counter_add");
    return now_us() - t0;
}

/* Per put of a stream of non-blocking 8 B puts: their issue alone. */
static double stream(void)
{
    reach_request_t rq;
    double t0 = now_us();
    for (int k = 0; k < STREAM; k++)
        ok(reach_put_nb(cbuf, cbase[1] + 8 * k, 8, 1, &rq), "reach_put_nb");
    double t = (now_us() - t0) / STREAM;
    ok(reach_wait_all(), "reach_wait_all");
    ok(reach_fence(1), "reach_fence");
    return t;
}

/* A notification to rank 1 and its answer: o + L + o each way, both
 * ranks polling. */
static double ping(void)
{
    int n;
    double t0 = now_us();
    if (reach_notify(1) < 0 || reach_notify_wait(1, &n) < 0)
        fail("reach_notify");
    return now_us() - t0;
}

static void pong(int reps)
{
    int n;
    for (int i = 0; i < reps; i++)
        if (reach_notify_wait(0, &n) < 0 || reach_notify(0) < 0)
            fail("reach_notify");
}

/* One call into the network that finds nothing, as each poll of a
 * wait's spin or of an idle server thread makes. */
static double poll_once(void)
{
    double t0 = now_us();
    for (int k = 0; k < POLLS; k++)
        ok(reach_progress(), "reach_progress");
    return (now_us() - t0) / POLLS;
}

static double median_of(double (*op)(void), int reps)
{
    double t[REPS];
    for (int i = 0; i < reps; i++)
        t[i] = op();
    return median(t, reps);
}

/* The lowest of ROUNDS medians: the path with both ranks polling. In a
 * round where a rank's waits sleep (its thread was preempted lately, so
 * it spins only briefly), the median is a wake-up's, not the path's: the
 * notification's round trip was 0.4-0.6 us or 19-100 us from one run to
 * the next. */
enum { ROUNDS = 5 };
static double lowest_median(double (*op)(void), int reps)
{
    double low = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double m = median_of(op, reps);
        low = r == 0 || m < low ? m : low;
    }
    return low;
}

/* LogGP of the network path, every rank its own node, from rank 0 to rank
 * 1: o (and g) the time to issue one 8 B non-blocking put in a stream; L
 * from a notification's round trip (2(2o + L)); Lrma, a get's or
 * atomic's round trip, from an 8 B get (o + Lrma: on this machine the
 * target's worker does the get in software, where an RDMA network's card
 * would); G from a 1 MiB get. An add to a counter homed at rank 1 (a
 * request its server handles and answers) is measured beside them; the
 * replay takes handlers' time from the traces themselves. poll: one call
 * into the network that finds nothing, a step of a wait's spin and of an
 * idle server thread's (the replay's spins on shared cores). Each round trip
 * is the lowest median of ROUNDS rounds (lowest_median). */
static void calibrate(const char *file)
{
    if (np != 2) {
        if (me == 0)
            fprintf(stderr, "reach-scale: --calibrate needs 2 ranks, not %d\n", np);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    setenv("REACH_NODE_SIZE", "1", 1);
    start();
    cbase = malloc(sizeof *cbase * 2);
    cbuf = malloc(BIG);
    if (!cbase || !cbuf)
        fail("malloc");
    ok(reach_malloc(BIG, (void **)cbase), "reach_malloc");
    ok(reach_counter_create(1, 0, &ctr), "reach_counter_create");
    memset(cbuf, 1, BIG);
    ok(reach_barrier(), "reach_barrier");
    double rtt = 0;
    if (me == 0)
        rtt = lowest_median(ping, REPS);
    else
        pong(ROUNDS * REPS);
    ok(reach_barrier(), "reach_barrier");
    if (me == 0) {
        median_of(get8, 51); /* warm-up */
        double g8 = lowest_median(get8, REPS), gb = lowest_median(getbig, 21), ca = lowest_median(ctr_add, REPS);
        double o = median_of(stream, 21), L = rtt / 2 - 2 * o, G = (gb - g8) / (BIG - 8) * 1e3;
        double poll = lowest_median(poll_once, 21);
        L = L > 0 ? L : 0;
        FILE *f = fopen(file, "w");
        if (!f)
            fail("opening the --calibrate file");
        fprintf(f,
                "{\"name\": \"this machine\", \"what\": \"%s; every rank its own node; measured by "
                "reach-scale --calibrate\",\n \"L\": %.4f, \"o\": %.4f, \"g\": %.4f, \"G\": %.6f, "
                "\"Lrma\": %.4f, \"poll\": %.4f,\n \"measured\": {\"notify_round_trip_us\": %.3f, "
                "\"get_8B_us\": %.3f, \"get_1MiB_us\": %.2f, "
                "\"counter_add_us\": %.3f, \"put_nb_issue_us\": %.4f}}\n",
                reach_transports(), L, o, o, G, g8 - o, poll, rtt, g8, gb, ca, o);
        if (fclose(f) != 0)
            fail("writing the --calibrate file");
    }
    ok(reach_barrier(), "reach_barrier");
    ok(reach_counter_destroy(ctr), "reach_counter_destroy");
    ok(reach_free(cbase[me]), "reach_free");
    free(cbase);
    free(cbuf);
    ok(reach_finalize(), "reach_finalize");
}

int main(int argc, char **argv)
{
    const char *out = NULL, *cal = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--untraced") == 0)
            untraced = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--calibrate") == 0 && i + 1 < argc)
            cal = argv[++i];
        else
            out = NULL, cal = NULL, i = argc;
    }
    if ((!out && !cal) || iters < 1) {
        fprintf(stderr, "usage: mpiexec -n N reach-scale --out DIR [--iters K] [--only NAME,...] [--untraced]\n"
                        "       mpiexec -n 2 reach-scale --calibrate FILE.json\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (cal) {
        calibrate(cal);
    } else {
        run(out);
    }
    MPI_Finalize();
    return 0;
}
