/* The usual Global Arrays start-up: the program initializes MPI itself,
 * then ARMCI, and finalizes in the reverse order. Built with the plain C
 * compiler and `pkg-config --cflags --libs armci`, it must compile, link
 * and run from the installed prefix. Each rank puts its rank into its right
 * neighbour's block and accumulates into rank 0's; both are checked. */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **ptr = malloc(sizeof(void *) * (size_t)np);
    ARMCI_Malloc(ptr, 2 * sizeof(long));
    long *mine = ptr[me];
    mine[0] = mine[1] = 0;
    ARMCI_Barrier();
    long v = me, one = 1;
    int right = (me + 1) % np;
    ARMCI_Put(&v, ptr[right], sizeof v, right);
    ARMCI_Acc(ARMCI_ACC_LNG, &one, &one, (long *)ptr[0] + 1, sizeof one, 0);
    ARMCI_Barrier();
    int ok = mine[0] == (me + np - 1) % np && (me != 0 || mine[1] == np);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0)
        printf("mpi_first: %s\n", all ? "passed" : "FAILED");
    ARMCI_Free(ptr[me]);
    free(ptr);
    ARMCI_Finalize();
    MPI_Finalize();
    return all ? 0 : 1;
}
