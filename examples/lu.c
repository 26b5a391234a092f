/* Blocked dense LU factorization over a reach window (lu_kernel.c): the
 * blocks that a step needs from other ranks are fetched with lock
 * (exclusive) / get / unlock, as in Santhanaraman08's SPLASH LU
 * (docs/references.md).
 *
 * Run: mpiexec -n 4 ./lu [n] [b] [mpi3]   (REACH_WIN_SYNC=direct or deferred;
 *      mpi3: MPI-3's window epochs instead of reach's)
 * Prints the time and its breakdown into lock, get, unlock, barrier and
 * compute (the mean over ranks); exits 1 if the residual is too large. */
#include "lu_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    int n = argc > 1 ? atoi(argv[1]) : 512, b = argc > 2 ? atoi(argv[2]) : 32;
    int mpi3 = argc > 3 && strcmp(argv[3], "mpi3") == 0;
    if (argc > 4 || (argc > 3 && !mpi3)) {
        if (reach_rank() == 0)
            fprintf(stderr, "usage: lu [n] [b] [mpi3]\n");
        reach_finalize();
        return 2;
    }
    lu_result_t r;
    int st = lu_run(n, b, reach_size(), mpi3 ? LU_MPI3 : LU_REACH, 1, &r), bad = 0;
    if (st == REACH_SUCCESS && reach_rank() == 0) {
        const char *mode = getenv("REACH_WIN_SYNC");
        printf("lu: n=%d b=%d, %d processes, %s epochs: %.2f ms\n", n, b, reach_size(),
               mpi3 ? "MPI-3" : mode ? mode : "direct", 1e3 * r.seconds);
        for (int p = 0; p < LU_PARTS; p++)
            printf("  %-8s %9.2f ms\n", lu_part_name[p], 1e3 * r.part[p]);
        bad = !(r.residual < 1e-10);
        printf("  residual max|A-LU|/max|A| = %.2e (%s)\n", r.residual, bad ? "TOO LARGE" : "ok");
    }
    reach_finalize();
    return st == REACH_ERR_ARG ? 2 : st != REACH_SUCCESS ? 1 : bad;
}
