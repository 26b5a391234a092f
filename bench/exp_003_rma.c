/* Paper 003's operations: contiguous put, get and accumulate against
 * MPI-3 RMA and the local work, and strided transfers against contiguous
 * ones. */
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
        printf("%10s %10s %10s %10s %10s %11s %10s\n", "bytes", "reach", "MPI-3", "local",
               "MPI/reach", "% of local", "reach GB/s");
        for (int k = 0; k < nsizes; k++) {
            size_t size = (size_t)8 << k;
            static const char *const impl[3] = {"reach", "mpi3", "local"};
            for (int i = 0; i < 3; i++)
                json_result(name, impl[i], size, med[k][i], us[k][i]);
            printf("%10zu %10.3f %10.3f %10.3f %10.1f %10.0f%% %10.2f\n", size, med[k][0], med[k][1],
                   med[k][2], med[k][1] / med[k][0], 100.0 * med[k][2] / med[k][0],
                   (double)size / med[k][0] * 1e-3);
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
        printf("%10s %10s %10s %10s %10s %10s %10s\n", "run bytes", "put", "% contig", "get",
               "% contig", "acc", "% contig");
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
                json_values(names[k / 2], k % 2 ? "reach contiguous" : "reach strided", run, total, "us",
                            med[k], us[k], B.samples);
            double gb[6];
            for (int k = 0; k < 6; k++)
                gb[k] = (double)total / med[k] * 1e-3;
            printf("%10zu %10.2f %9.0f%% %10.2f %9.0f%% %10.2f %9.0f%%\n", run, gb[0],
                   100 * gb[0] / gb[1], gb[2], 100 * gb[2] / gb[3], gb[4], 100 * gb[4] / gb[5]);
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
