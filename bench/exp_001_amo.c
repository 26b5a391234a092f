/* Atomic operations and the synchronization built on them (Zhang04's
 * subject, docs/references.md): fetch-and-add, an uncontended mutex and the barrier, against
 * MPI-3's equivalents. */
#include "harness.h"

#include <stdio.h>

/* One row of the synchronization table: an operation of reach's, then its
 * MPI-3 equivalent in a phase of its own, the target polling inside MPI. */
static void bench_single(const char *name, enum op r, enum op m, const char *mpi_label)
{
    double ur[1][MAX_SAMPLES], um[1][MAX_SAMPLES], mr = 0, mm = 0;
    if (B.me == 0)
        measure(1, &r, 8, ur, &mr);
    phase_end(0);
    mpi_phase_begin();
    if (B.me == 0)
        measure(1, &m, 8, um, &mm);
    phase_end(1);
    if (B.me == 0) {
        json_result(name, "reach", 0, mr, ur[0]);
        json_result(name, "mpi3", 0, mm, um[0]);
        printf("%-22s %10.3f %10.3f %10.1f   (%s)\n", name, mr, mm, mm / mr, mpi_label);
    }
}

/* Barriers involve every rank. MPI's busy-polling barrier is only
 * meaningful with no more processes than cores. */
static void bench_barrier(void)
{
    double us[1][MAX_SAMPLES], tr, tm = -1;
    const enum op rb = REACH_BARRIER, mb = MPI_BARRIER;
    measure(1, &rb, 0, us, &tr);
    if (B.me == 0)
        json_result("barrier", "reach", 0, tr, us[0]);
    if (B.np <= B.cores) {
        measure(1, &mb, 0, us, &tm);
        if (B.me == 0)
            json_result("barrier", "mpi3", 0, tm, us[0]);
    }
    if (B.me == 0) {
        if (tm > 0)
            printf("%-22s %10.3f %10.3f %10.1f   (%d processes)\n", "barrier", tr, tm, tm / tr, B.np);
        else
            printf("%-22s %10.3f %10s %10s   (%d processes > %d cores: MPI_Barrier not measured)\n", "barrier", tr, "-",
                   "-", B.np, B.cores);
    }
}

void bench_sync(void)
{
    if (B.me == 0)
        printf("\nsynchronization (us, median of %d)\n%-22s %10s %10s %10s\n", B.samples, "operation", "reach", "MPI-3",
               "MPI/reach");
    bench_single("fetch-and-add 64-bit", REACH_FADD, MPI_FADD, "MPI_Fetch_and_op + flush");
    mpi_end_lock_all();
    bench_single("lock+unlock", REACH_LOCK, MPI_LOCK, "MPI_Win_lock exclusive + unlock");
    bench_barrier();
}
