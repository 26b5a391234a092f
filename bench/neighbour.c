/* busy-neighbour: another job on the same cores, for the main job's runs
 * beside busy neighbours (scripts/bench.sh). Each process works until its
 * time is up or it is stopped:
 *
 *   mpiexec -n 4 build/busy-neighbour mpi SECONDS   loops on MPI_Allreduce
 *   mpiexec -n 4 build/busy-neighbour cpu SECONDS   loops on arithmetic
 *
 * The first is a job whose MPI busy-polls (MPICH's does), the second one
 * that computes; either keeps every core it is given busy, at the
 * priority it was started with. */
#define _POSIX_C_SOURCE 200809L

#include "stats.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int mpi = argc == 3 && strcmp(argv[1], "mpi") == 0;
    double limit = argc == 3 ? atof(argv[2]) : 0;
    if (argc != 3 || (!mpi && strcmp(argv[1], "cpu") != 0) || !(limit > 0)) {
        fprintf(stderr, "usage: mpiexec -n N busy-neighbour mpi|cpu SECONDS\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    double end = now() + limit;
    volatile double x = 1.0;
    for (int go = 1; go;) {
        if (mpi) {
            /* every rank leaves in the same round: the first past the
             * limit tells the others through the minimum */
            int mine = now() < end, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            go = all;
        } else {
            for (int k = 0; k < 1000000; k++)
                x = x * 1.0000001 + 1e-9;
            go = now() < end;
        }
    }
    MPI_Finalize();
    return 0;
}
