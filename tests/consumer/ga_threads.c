/* ga_threads: Global Arrays from OpenMP threads, as Global Arrays' own
 * thread-safety test uses it. The program starts MPI at
 * MPI_THREAD_MULTIPLE and calls plain GA_Initialize (no reach or ARMCI
 * thread call); then THREADS threads a process at once:
 *
 *  - put rows of a 2-D array of doubles: row i belongs to one thread of
 *    one process (i modulo processes x threads), and its values name the
 *    row and column;
 *  - after GA_Sync, get every row (most of them another process's) and
 *    check each value;
 *  - accumulate a row of (j + 1) into every row of a second array, from
 *    every thread of every process;
 *  - NGA_Read_inc a counter array (element 0 on the first process) and put
 *    a tag at the index fetched into a log array: every index is fetched
 *    exactly once.
 * The sums, the log and the counter are checked after GA_Sync.
 *
 * Debian's Global Arrays is built without its own thread safety
 * (--enable-thread-safety, which holds a lock of GA's through each
 * NGA_Put, NGA_Get and NGA_Acc): its table of non-blocking handles, which
 * those calls use, is not safe from threads. An OpenMP critical section
 * stands in for that lock here. NGA_Read_inc takes no handle and runs
 * outside it, so ARMCI is called from several threads at once.
 *   ga_threads [ROUNDS] */
#include <omp.h>
#include <stdlib.h>

#include "ga_check.h"

enum { THREADS = 4, N = 64 };

static double value(int i, int j)
{
    return (double)(i * 1000 + j);
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    GA_Initialize();
    gc_prog = "ga_threads";
    gc_rank = GA_Nodeid();
    if (!MA_init(C_DBL, 100000, 100000))
        GA_Error("MA_init failed", 0);
    int me = GA_Nodeid(), np = GA_Nnodes(), rounds = argc > 1 ? atoi(argv[1]) : 20;
    gc_begin("MPI provides MPI_THREAD_MULTIPLE");
    gc_int(0, MPI_THREAD_MULTIPLE, provided);
    int dims[2] = {N, N}, nlog = np * THREADS * rounds, one = 1;
    int rows = NGA_Create(C_DBL, 2, dims, "ga_threads rows", NULL);
    int sums = NGA_Create(C_DBL, 2, dims, "ga_threads sums", NULL);
    int ctr = NGA_Create(C_LONG, 1, &one, "ga_threads counter", NULL);
    int logs = NGA_Create(C_INT, 1, &nlog, "ga_threads log", NULL);
    if (!rows || !sums || !ctr || !logs)
        GA_Error("ga_threads: NGA_Create failed", 0);
    GA_Zero(rows);
    GA_Zero(sums);
    GA_Zero(ctr);
    GA_Fill(logs, &(int){-1});
    GA_Sync();

    long bad_rows[THREADS] = {0}, bad_fetch[THREADS] = {0};
    int team = 0;
#pragma omp parallel num_threads(THREADS)
    {
#pragma omp single
        team = omp_get_num_threads();
        int t = omp_get_thread_num(), owner = me * THREADS + t, ld = N, zero = 0;
        double buf[N], add[N], scale = 1.0;
        for (int j = 0; j < N; j++)
            add[j] = j + 1;
        for (int r = 0; r < rounds; r++) {
            for (int i = owner; i < N; i += np * THREADS) {
                int lo[2] = {i, 0}, hi[2] = {i, N - 1};
                for (int j = 0; j < N; j++)
                    buf[j] = value(i, j) + r;
#pragma omp critical(ga)
                NGA_Put(rows, lo, hi, buf, &ld);
            }
            for (int i = t; i < N; i += THREADS) {
                int lo[2] = {i, 0}, hi[2] = {i, N - 1};
#pragma omp critical(ga)
                NGA_Acc(sums, lo, hi, add, &ld, &scale);
            }
            long got = NGA_Read_inc(ctr, &zero, 1);
            if (got < 0 || got >= nlog) {
                bad_fetch[t]++;
            } else {
                int at = (int)got, tag = owner;
#pragma omp critical(ga)
                NGA_Put(logs, &at, &at, &tag, &one);
            }
        }
#pragma omp barrier
#pragma omp master
        GA_Sync();
#pragma omp barrier
        /* Every row, as its owner last put it. */
        for (int i = t; i < N; i += THREADS) {
            int lo[2] = {i, 0}, hi[2] = {i, N - 1};
#pragma omp critical(ga)
            NGA_Get(rows, lo, hi, buf, &ld);
            for (int j = 0; j < N; j++)
                bad_rows[t] += buf[j] != value(i, j) + rounds - 1;
        }
    }

    gc_begin("OpenMP gives %d threads", THREADS);
    gc_int(0, THREADS, team);
    for (int t = 0; t < THREADS; t++) {
        gc_begin("rows got back by thread %d", t);
        gc_int(t, 0, bad_rows[t]);
        gc_begin("Read_inc values in range, thread %d", t);
        gc_int(t, 0, bad_fetch[t]);
    }
    /* The accumulated rows: one thread of every process added each row
     * once a round. */
    GA_Sync();
    double *s = malloc(sizeof(double) * N * N);
    int lo[2] = {0, 0}, hi[2] = {N - 1, N - 1}, ld = N;
    NGA_Get(sums, lo, hi, s, &ld);
    gc_begin("accumulated sums");
    for (int i = 0; i < N * N; i++)
        gc_dbl(i, (double)np * rounds * ((i % N) + 1), s[i]);
    free(s);
    /* The counter, and each index of the log taken once by a valid tag. */
    int zero = 0;
    long count = -1;
    NGA_Get(ctr, &zero, &zero, &count, &one);
    gc_begin("counter after every Read_inc");
    gc_int(0, nlog, count);
    int *log = malloc(sizeof(int) * (size_t)nlog), last = nlog - 1, seen_ok = 1;
    NGA_Get(logs, &zero, &last, log, &one);
    gc_begin("log of fetched indices");
    int *uses = calloc((size_t)(np * THREADS), sizeof(int));
    for (int i = 0; i < nlog; i++) {
        seen_ok = log[i] >= 0 && log[i] < np * THREADS;
        gc_int(i, 1, seen_ok);
        if (seen_ok)
            uses[log[i]]++;
    }
    gc_begin("fetches by each thread of each process");
    for (int o = 0; o < np * THREADS; o++)
        gc_int(o, rounds, uses[o]);
    free(uses);
    free(log);
    return gc_finish();
}
