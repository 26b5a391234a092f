/* Santhanaraman08's evaluation (docs/references.md): window epochs
 * (Figure 3), sender-side (Figures 4-5) and receiver-side (Figure 6)
 * overlap, and the blocked LU (Figures 7-8). */
#include "harness.h"
#include "lu_kernel.h"

#include <stdio.h>
#include <stdlib.h>

/* Santhanaraman08, Figure 3: the latency of an epoch — lock (exclusive), one
 * put or get of a size, unlock — on rank 1's window, with reach's operations
 * issued at once (direct) or held until unlock (deferred), and MPI-3's
 * (MPI_Win_lock / MPI_Put or MPI_Get / MPI_Win_unlock on the pair's window)
 * where the job fits the cores; median of the samples (a sample: the mean of
 * WIN_ITERS epochs). */
#define WIN_ITERS 50

/* The implementations of a window epoch: reach's two modes, then MPI-3's,
 * measured only with no more processes than cores (MPICH busy-polls). */
enum { WIN_DIRECT, WIN_DEFERRED, WIN_MPI3 };
/* In tables; the first two are also the modes reach_set_win_sync takes. */
static const char *const win_modes[3] = {"direct", "deferred", "MPI-3"};
static const char *const win_impl[3] = {"reach direct", "reach deferred", "mpi3"};

static int win_impls(void)
{
    return B.np <= B.cores ? 3 : 2;
}

/* Microseconds per epoch on rank 1: lock (exclusive), one put or get of
 * size, c_us of computation, unlock; the mean of WIN_ITERS. w NULL:
 * MPI-3's epoch on the pair's window. */
static double win_epoch_us(reach_win_t *w, int get, size_t size, double c_us)
{
    double t0 = now();
    int bad = 0;
    for (int i = 0; i < WIN_ITERS; i++) {
        if (w) {
            bad |= reach_win_lock(w, REACH_LOCK_EXCLUSIVE, 1) != 0;
            bad |= (get ? reach_win_get(w, B.dst, 0, size, 1) : reach_win_put(w, B.src, 0, size, 1)) != 0;
        } else {
            bad |= MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, B.win) != 0;
            bad |= (get ? MPI_Get(B.dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win)
                        : MPI_Put(B.src, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win)) != 0;
        }
        for (double end = now() + 1e-6 * c_us; now() < end;)
            ; /* the computation */
        bad |= (w ? reach_win_unlock(w, 1) : MPI_Win_unlock(1, B.win)) != 0;
    }
    if (bad)
        reach_abort(1, "reach-bench: a window epoch failed");
    return 1e6 * (now() - t0) / WIN_ITERS;
}

/* Collective: the samples (us[i]) and median (med[i]) on rank 0 of the
 * epoch for every implementation in use, c_us[i] of computation each:
 * reach's two modes with their samples interleaved, then MPI-3's in a
 * phase of its own, the target polling inside MPI. */
static void win_measure(reach_win_t *w[2], int get, size_t size, const double c_us[3], double us[3][MAX_SAMPLES],
                        double med[3])
{
    for (int s = 0; B.me == 0 && s < B.samples; s++)
        for (int m = 0; m < 2; m++)
            us[m][s] = win_epoch_us(w[m], get, size, c_us[m]);
    phase_end(0);
    if (win_impls() > WIN_MPI3) {
        mpi_phase_begin();
        for (int s = 0; B.me == 0 && s < B.samples; s++)
            us[WIN_MPI3][s] = win_epoch_us(NULL, get, size, c_us[WIN_MPI3]);
        phase_end(1);
    }
    for (int m = 0; B.me == 0 && m < win_impls(); m++)
        med[m] = median(us[m], B.samples);
}

/* Back to the mode REACH_WIN_SYNC chose for windows made from now on. */
static void win_sync_restore(void)
{
    const char *mode = getenv("REACH_WIN_SYNC");
    if (reach_set_win_sync(mode ? mode : "direct") != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_set_win_sync failed");
}

/* A window of bytes per rank in each mode (collective); the MPI-3 pair's
 * window leaves its lock_all epoch, for the epochs measured on it. */
static void win_pair_create(size_t bytes, reach_win_t *w[2])
{
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    for (int m = 0; m < 2; m++)
        if (!bases || reach_set_win_sync(win_modes[m]) != REACH_SUCCESS ||
            reach_win_allocate(bytes, bases, &w[m]) != REACH_SUCCESS)
            reach_abort(1, "reach-bench: set-up of a window test failed");
    free(bases);
    win_sync_restore();
    mpi_end_lock_all();
}

static void win_pair_free(reach_win_t *w[2])
{
    for (int m = 0; m < 2; m++)
        if (reach_win_free(w[m]) != REACH_SUCCESS)
            reach_abort(1, "reach-bench: reach_win_free failed");
}

/* "-" where MPI-3 was not measured. */
static void print_mpi3(const char *fmt, const double *med)
{
    if (win_impls() > WIN_MPI3)
        printf(fmt, med[WIN_MPI3]);
    else
        printf("%12s", "-");
}

void bench_win_latency(void)
{
    reach_win_t *w[2];
    const double none[3] = {0, 0, 0};
    win_pair_create(B.max_size, w);
    if (B.me == 0)
        printf("\nwindow epochs on rank 1: lock (exclusive) + one operation + unlock (Santhanaraman08, Fig. 3; "
               "us, median of %d)\n%10s %12s %12s %12s %12s %12s %12s\n",
               B.samples, "bytes", "put direct", "put deferred", "put MPI-3", "get direct", "get deferred",
               "get MPI-3");
    for (size_t size = 8; size <= B.max_size; size *= 4) {
        double med[2][3], us[2][3][MAX_SAMPLES];
        for (int get = 0; get < 2; get++)
            win_measure(w, get, size, none, us[get], med[get]);
        if (B.me != 0)
            continue;
        printf("%10zu", size);
        for (int get = 0; get < 2; get++) {
            for (int m = 0; m < win_impls(); m++)
                json_result(get ? "win get" : "win put", win_impl[m], size, med[get][m], us[get][m]);
            printf(" %12.2f %12.2f", med[get][WIN_DIRECT], med[get][WIN_DEFERRED]);
            print_mpi3(" %12.2f", med[get]);
        }
        printf("\n");
    }
    win_pair_free(w);
}

/* Santhanaraman08, Figures 4 and 5: sender-side overlap. An epoch on rank
 * 1's window — lock, one put, c microseconds of computation, unlock — where c
 * is a share of the epoch's own time without computation (t0). The
 * overlap is the part of t0 hidden behind the computation,
 * (t0 + c - t) / t0, and t the total time. */
void bench_win_overlap(void)
{
    static const double share[] = {0, 0.5, 1.0, 2.0};
    size_t sizes[] = {8, 16384, 262144};
    reach_win_t *w[2];
    size_t wsize = B.max_size < sizes[2] ? B.max_size : sizes[2];
    win_pair_create(wsize, w);
    if (B.me == 0)
        printf("\nsender-side overlap: lock + put + computation + unlock on rank 1 (Santhanaraman08, Figs. 4-5; "
               "us, median of %d; computation as a share of t0)\n%10s %-9s %9s %19s %19s %19s\n",
               B.samples, "bytes", "impl", "t0", "50%: t  overlap", "100%: t  overlap", "200%: t  overlap");
    for (int z = 0; z < 3 && sizes[z] <= wsize; z++) {
        double us[4][3][MAX_SAMPLES], t[4][3] = {{0}};
        for (int k = 0; k < 4; k++) {
            double c[3];
            for (int m = 0; m < 3; m++)
                c[m] = share[k] * t[0][m];
            win_measure(w, 0, sizes[z], c, us[k], t[k]);
            /* Only rank 0 timed; it alone needs t0 for the computation. */
            for (int m = 0; B.me == 0 && m < win_impls(); m++) {
                char name[48];
                snprintf(name, sizeof name, "computation %.0f%%", 100 * share[k]);
                json_result(name, win_impl[m], sizes[z], t[k][m], us[k][m]);
            }
        }
        for (int m = 0; B.me == 0 && m < win_impls(); m++) {
            printf("%10zu %-9s %9.2f", sizes[z], win_modes[m], t[0][m]);
            for (int k = 1; k < 4; k++)
                printf(" %9.2f %8.0f%%", t[k][m], 100 * (t[0][m] + share[k] * t[0][m] - t[k][m]) / t[0][m]);
            printf("\n");
        }
    }
    win_pair_free(w);
}

/* Santhanaraman08, Figure 6: receiver-side overlap. Rank 1 does a fixed
 * amount of computation (about 20 ms alone) while origins run lock (shared) +
 * get of a size + unlock on its window without pause; the figure is the
 * target's time, which grows with what the epochs take from it (its
 * server thread's work, and its core), beside the epochs the origins ran
 * meanwhile (mean per sample). One origin (rank 0), then every rank but
 * 1. MPI-3's epochs, where the job fits the cores, show what passive
 * target costs when the target must enter MPI to serve them. */
static volatile double win_sink;

static void win_compute(long iters)
{
    double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    win_sink = x;
}

/* The target's time (ms) for iters of computation while `origins` ranks
 * (0 and up, skipping 1) run epochs of size with implementation m (none
 * if m < 0) on w[m] or, for MPI-3, mw, and in *epochs how many they ran. */
static double win_target_ms(int m, reach_win_t *w[2], MPI_Win mw, long iters, size_t size, int origins, long *flags[],
                            long *epochs)
{
    long mine = 0;
    int origin = m >= 0 && B.me != 1 && (B.me == 0 ? 1 : B.me) < origins + 1;
    volatile long *stop = flags[B.me];
    *stop = 0;
    reach_barrier();
    double t = 0;
    if (B.me == 1) {
        double t0 = now();
        win_compute(iters);
        t = 1e3 * (now() - t0);
        long one = 1;
        for (int r = 0; r < B.np; r++)
            if (r != 1 && reach_put(&one, flags[r], sizeof one, r) != REACH_SUCCESS)
                reach_abort(1, "reach-bench: stopping the origins failed");
        reach_fence_all();
    } else if (origin) {
        for (; *stop == 0; mine++) {
            int bad;
            if (m == WIN_MPI3)
                bad = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, mw) != 0 ||
                      MPI_Get(B.dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, mw) != 0 ||
                      MPI_Win_unlock(1, mw) != 0;
            else
                bad = reach_win_lock(w[m], REACH_LOCK_SHARED, 1) != REACH_SUCCESS ||
                      reach_win_get(w[m], B.dst, 0, size, 1) != REACH_SUCCESS ||
                      reach_win_unlock(w[m], 1) != REACH_SUCCESS;
            if (bad)
                reach_abort(1, "reach-bench: a window epoch failed");
        }
    }
    /* Only rank 1 timed, only origins counted: the sums are theirs. An
     * allreduce, not a reduce: the target must stay inside MPI, serving
     * MPI-3's passive target, until the origins' last epochs are done. */
    double local[2] = {t, (double)mine}, sum[2];
    MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *epochs = (long)sum[1];
    return sum[0];
}

void bench_win_receiver(void)
{
    static const size_t sizes[] = {1024, 32768, 262144};
    size_t wsize = B.max_size < sizes[2] ? B.max_size : sizes[2];
    reach_win_t *w[2];
    long **flags = malloc(sizeof(long *) * (size_t)B.np);
    if (!flags || reach_malloc(sizeof(long), (void **)flags) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: set-up of the receiver-side test failed");
    win_pair_create(wsize, w);
    MPI_Win mw = MPI_WIN_NULL; /* every rank may be an origin */
    void *mbase;
    if (win_impls() > WIN_MPI3)
        MPI_Win_allocate((MPI_Aint)((wsize + 15) & ~(size_t)15), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mbase, &mw);
    /* Calibrated on the target: iterations for about 20 ms alone. */
    long iters = 1000000;
    if (B.me == 1) {
        double t0 = now();
        win_compute(iters);
        iters = (long)(iters * 0.020 / (now() - t0)) + 1;
    }
    MPI_Bcast(&iters, 1, MPI_LONG, 1, MPI_COMM_WORLD);
    double ms[MAX_SAMPLES], alone, ep[MAX_SAMPLES];
    long epochs;
    for (int s = 0; s < B.samples; s++)
        ms[s] = win_target_ms(-1, w, mw, iters, 0, 0, flags, &epochs);
    alone = median(ms, B.samples);
    if (B.me == 0) {
        json_values("target alone", "local", 0, 0, "ms", alone, ms, B.samples);
        printf("\nreceiver-side overlap: rank 1 computes %.1f ms alone while origins run lock (shared) + "
               "get + unlock on its window (Santhanaraman08, Fig. 6; ms, median of %d; x: against alone)\n"
               "%-7s %10s %-9s %10s %6s %8s\n",
               alone, B.samples, "origins", "bytes", "impl", "target", "x", "epochs");
    }
    for (int origins = 1; origins < B.np; origins = origins < B.np - 1 ? B.np - 1 : B.np)
        for (int z = 0; z < 3 && sizes[z] <= wsize; z++)
            for (int m = 0; m < win_impls(); m++) {
                for (int s = 0; s < B.samples; s++) {
                    ms[s] = win_target_ms(m, w, mw, iters, sizes[z], origins, flags, &epochs);
                    ep[s] = (double)epochs;
                }
                if (B.me != 0)
                    continue;
                double t = median(ms, B.samples), n = median(ep, B.samples);
                char name[48];
                snprintf(name, sizeof name, "target, %d origin%s", origins, origins > 1 ? "s" : "");
                json_values(name, win_impl[m], sizes[z], 0, "ms", t, ms, B.samples);
                snprintf(name, sizeof name, "epochs, %d origin%s", origins, origins > 1 ? "s" : "");
                json_values(name, win_impl[m], sizes[z], 0, "epochs", n, ep, B.samples);
                printf("%-7d %10zu %-9s %10.2f %6.2f %8.0f%s\n", origins, sizes[z], win_modes[m], t, t / alone, n,
                       origins + 1 > B.cores ? "   (more processes than cores)" : "");
            }
    if (mw != MPI_WIN_NULL)
        MPI_Win_free(&mw);
    win_pair_free(w);
    if (reach_free(flags[B.me]) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_free failed");
    free(flags);
}

/* Santhanaraman08, Figures 7 and 8: the blocked LU (examples/lu_kernel.c) on
 * 1, 2, 4 ... processes of the job, its blocks fetched with exclusive
 * lock / get / unlock — reach's in both modes, and MPI-3's where the job
 * fits the cores: the time (median of up to 5 runs) and the breakdown of
 * the median run, the mean over the grid's ranks. The first run of each
 * is checked (residual below 1e-10). */
#define LU_N 1024
#define LU_B 64

void bench_lu(void)
{
    enum { RUNS = 5 };
    int runs = B.samples < RUNS ? B.samples : RUNS;
    mpi_end_lock_all();
    if (B.me == 0)
        printf("\nLU n=%d b=%d, blocks by exclusive lock/get/unlock (Santhanaraman08, Figs. 7-8; ms, median of "
               "%d runs; breakdown of the median run)\n%-3s %-9s %9s %8s %8s %8s %8s %8s %8s\n",
               LU_N, LU_B, runs, "P", "impl", "time", "lock", "get", "unlock", "barrier", "compute", "x direct");
    for (int p = 1; p <= B.np; p = p < B.np && 2 * p > B.np ? B.np : 2 * p) {
        double t[3] = {0, 0, 0};
        for (int m = 0; m < win_impls(); m++) {
            lu_result_t r[RUNS];
            double ms[RUNS];
            if (m < 2 && reach_set_win_sync(win_modes[m]) != REACH_SUCCESS)
                reach_abort(1, "reach-bench: reach_set_win_sync failed");
            for (int s = 0; s < runs; s++) {
                if (lu_run(LU_N, LU_B, p, m == WIN_MPI3 ? LU_MPI3 : LU_REACH, s == 0, &r[s]) != REACH_SUCCESS)
                    reach_abort(1, "reach-bench: the LU run failed");
                ms[s] = 1e3 * r[s].seconds;
                if (B.me == 0 && !(r[s].residual < 1e-10))
                    reach_abort(1, "reach-bench: the LU residual is too large");
            }
            if (B.me != 0)
                continue;
            t[m] = median(ms, runs);
            int mid = 0;
            for (int s = 0; s < runs; s++)
                mid = ms[s] == t[m] ? s : mid;
            json_values("lu", win_impl[m], (size_t)p, 0, "ms", t[m], ms, runs);
            printf("%-3d %-9s %9.2f", p, win_modes[m], t[m]);
            for (int k = 0; k < LU_PARTS; k++) {
                char name[48];
                double part = 1e3 * r[mid].part[k];
                snprintf(name, sizeof name, "lu %s", lu_part_name[k]);
                json_values(name, win_impl[m], (size_t)p, 0, "ms", part, &part, 1);
                printf(" %8.2f", part);
            }
            printf(" %8.2f%s\n", t[m] / t[0], p > B.cores ? "   (more processes than cores)" : "");
        }
    }
    win_sync_restore();
}
