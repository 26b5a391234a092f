/* Multi-process tests: a test fails if any rank's check failed. */
#ifndef REACH_TEST_MPI_CHECK_H
#define REACH_TEST_MPI_CHECK_H

#include <mpi.h>
#include <time.h>
#include "../check.h"

/* Collective: every rank returns the same exit status. */
static int check_exit(const char *name)
{
    int total = 0;
    MPI_Allreduce(&check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("%s: %s (%d failed checks)\n", name, total ? "FAILED" : "passed", total);
    return total ? 1 : 0;
}

/* This process's resident memory (VmRSS) in KiB, -1 if unknown. */
static inline long resident_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static inline void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* No rank left early: every rank's arrival mark in seen[] has reached
 * round (checks the first that has not). */
static inline void check_all_arrived(const int *seen, int n, int round)
{
    /* Read atomically: a rank that has left writes its next mark meanwhile. */
    for (int r = 0; r < n; r++) {
        int s = __atomic_load_n(&seen[r], __ATOMIC_RELAXED);
        if (s < round) {
            CHECK_EQ_LL(s, round);
            break;
        }
    }
}

#endif
