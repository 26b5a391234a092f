/* Nieplocha02's operations (docs/references.md): contiguous put, get and
 * accumulate against MPI-3 RMA and the local work, and strided transfers
 * against contiguous ones. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* Latency by size of one operation: reach and the local work (their samples
 * interleaved), then MPI-3 RMA. */
static void bench_transfer(const char *name, enum op r, enum op m, enum op l)
{
    const enum op ops[2] = {r, l};
    static double us[32][3][MAX_SAMPLES], med[32][3];
    int nsizes = 0;
    for (size_t size = 8; size <= B.max_size; size *= 2)
        nsizes++;
    for (int k = 0; k < nsizes && B.me == 0; k++) {
        double u2[2][MAX_SAMPLES], m2[2];
        measure(2, ops, (size_t)8 << k, u2, m2);
        memcpy(us[k][0], u2[0], sizeof u2[0]);
        memcpy(us[k][2], u2[1], sizeof u2[1]);
        med[k][0] = m2[0];
        med[k][2] = m2[1];
    }
    phase_end(0);
    mpi_phase_begin();
    for (int k = 0; k < nsizes && B.me == 0; k++)
        measure(1, &m, (size_t)8 << k, &us[k][1], &med[k][1]);
    phase_end(1);
    if (B.me == 0) {
        printf("\n%s latency (us, median of %d) and bandwidth\n", name, B.samples);
        printf("%10s %10s %10s %10s %10s %11s %10s\n", "bytes", "reach", "MPI-3", "local", "MPI/reach", "% of local",
               "reach GB/s");
        for (int k = 0; k < nsizes; k++) {
            size_t size = (size_t)8 << k;
            static const char *const impl[3] = {"reach", "mpi3", "local"};
            for (int i = 0; i < 3; i++)
                json_result(name, impl[i], size, med[k][i], us[k][i]);
            printf("%10zu %10.3f %10.3f %10.3f %10.1f %10.0f%% %10.2f\n", size, med[k][0], med[k][1], med[k][2],
                   med[k][1] / med[k][0], 100.0 * med[k][2] / med[k][0], (double)size / med[k][0] * 1e-3);
        }
        fflush(stdout);
    }
}

/* Strided against contiguous for the same total bytes: runs of 8 B to
 * 64 KiB at the target, each followed by a gap one cache line longer than
 * itself (a stride that, like most leading dimensions, is no power of two:
 * with a stride of exactly twice the run, 2 KiB runs touch half of every
 * 4 KiB page and lose a further 10%, a cache effect docs/benchmarks.md
 * shows). The local side is packed. */
void bench_strided(void)
{
    const enum op ops[6] = {REACH_PUTS, REACH_PUT, REACH_GETS, REACH_GET, REACH_ACCS, REACH_ACC};
    static const char *const names[3] = {"put", "get", "acc"};
    double us[6][MAX_SAMPLES], med[6];
    size_t total = B.max_size;
    if (B.me == 0) {
        printf("\nstrided against contiguous, %zu bytes in all (GB/s, median of %d)\n", total, B.samples);
        printf("%10s %10s %10s %10s %10s %10s %10s\n", "run bytes", "put", "% contig", "get", "% contig", "acc",
               "% contig");
        for (size_t run = 8; run <= 65536 && run <= total; run *= 2) {
            memset(&B.shape, 0, sizeof B.shape);
            B.shape.levels = 1;
            B.shape.count[0] = run;
            B.shape.count[1] = total / run;
            B.shape.src_stride[0] = run;
            B.shape.dst_stride[0] = 2 * run + 64;
            /* The contiguous ops in the same interleaved samples move the
             * same total. */
            measure(6, ops, total, us, med);
            for (int k = 0; k < 6; k++)
                json_values(names[k / 2], k % 2 ? "reach contiguous" : "reach strided", run, total, "us", med[k], us[k],
                            B.samples);
            double gb[6];
            for (int k = 0; k < 6; k++)
                gb[k] = (double)total / med[k] * 1e-3;
            printf("%10zu %10.2f %9.0f%% %10.2f %9.0f%% %10.2f %9.0f%%\n", run, gb[0], 100 * gb[0] / gb[1], gb[2],
                   100 * gb[2] / gb[3], gb[4], 100 * gb[4] / gb[5]);
            fflush(stdout);
        }
    }
    reach_barrier();
}

void bench_transfers(void)
{
    bench_transfer("put", REACH_PUT, MPI_PUT, LOCAL_COPY);
    bench_transfer("get", REACH_GET, MPI_GET, LOCAL_COPY);
    bench_transfer("acc", REACH_ACC, MPI_ACC, LOCAL_ACC);
}

/* Non-blocking get and put to rank 1 with computation while they are in
 * flight (the window-overlap experiment's method, for plain transfers):
 * the call, c microseconds of computation, the wait for local completion
 * (reach_wait; MPI-3: MPI_Get or MPI_Put, then MPI_Win_flush_local in the
 * pair's lock_all), where c is a share of t0, the same without
 * computation. The overlap, (t0 + c - t) / t0, is the part of the transfer
 * hidden behind the computation; the mean of NB_ITERS per sample. */
#define NB_ITERS 20
static const double nb_share[] = {0, 1.0, 2.0};
enum { NB_SHARES = sizeof nb_share / sizeof nb_share[0] };

static double nb_us(int get, int mpi, size_t size, double c_us)
{
    double t0 = now();
    int bad = 0;
    for (int i = 0; i < NB_ITERS; i++) {
        reach_request_t req;
        if (mpi)
            bad |= (get ? MPI_Get(B.dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win)
                        : MPI_Put(B.src, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, B.win)) != 0;
        else
            bad |= (get ? reach_get_nb(B.seg_target, B.dst, size, 1, &req)
                        : reach_put_nb(B.src, B.seg_target, size, 1, &req)) != 0;
        for (double end = now() + 1e-6 * c_us; now() < end;)
            ; /* the computation */
        bad |= (mpi ? MPI_Win_flush_local(1, B.win) : reach_wait(&req)) != 0;
    }
    bad |= (mpi ? MPI_Win_flush(1, B.win) : reach_fence(1)) != 0; /* puts complete between samples */
    if (bad)
        reach_abort(1, "reach-bench: a non-blocking transfer failed");
    return 1e6 * (now() - t0) / NB_ITERS;
}

void bench_nb_overlap(void)
{
    static const char *const impl[4] = {"reach get", "reach put", "mpi3 get", "mpi3 put"};
    int impls = B.np <= B.cores ? 4 : 2; /* MPICH busy-polls: MPI-3 only where the job fits */
    if (B.me == 0)
        printf("\nnon-blocking transfer + computation + wait on rank 1 (us, median of %d; computation as a "
               "share of t0)\n%10s %-9s %9s %19s %19s\n",
               B.samples, "bytes", "impl", "t0", "100%: t  overlap", "200%: t  overlap");
    for (size_t size = 8; size <= B.max_size; size *= 8) {
        double us[NB_SHARES][4][MAX_SAMPLES], t[NB_SHARES][4] = {{0}};
        for (int k = 0; k < NB_SHARES; k++) {
            for (int s = 0; B.me == 0 && s < B.samples; s++)
                for (int m = 0; m < 2; m++)
                    us[k][m][s] = nb_us(m == 0, 0, size, nb_share[k] * t[0][m]);
            phase_end(0);
            if (impls > 2) {
                mpi_phase_begin();
                for (int s = 0; B.me == 0 && s < B.samples; s++)
                    for (int m = 2; m < 4; m++)
                        us[k][m][s] = nb_us(m == 2, 1, size, nb_share[k] * t[0][m]);
                phase_end(1);
            }
            for (int m = 0; B.me == 0 && m < impls; m++) {
                char name[48];
                t[k][m] = median(us[k][m], B.samples);
                snprintf(name, sizeof name, "computation %.0f%%", 100 * nb_share[k]);
                json_result(name, impl[m], size, t[k][m], us[k][m]);
            }
        }
        for (int m = 0; B.me == 0 && m < impls; m++) {
            printf("%10zu %-9s %9.2f", size, impl[m], t[0][m]);
            for (int k = 1; k < NB_SHARES; k++)
                printf(" %9.2f %8.0f%%", t[k][m], 100 * (t[0][m] + nb_share[k] * t[0][m] - t[k][m]) / t[0][m]);
            printf("\n");
        }
        fflush(stdout);
    }
}
