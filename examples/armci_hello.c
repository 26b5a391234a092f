/* The same program an ARMCI user writes: collective memory, a put, an
 * accumulate, a barrier, and a global sum through the message layer.
 * Build: cc armci_hello.c $(pkg-config --cflags --libs armci)
 * Run:   mpiexec -n 4 ./armci_hello */
#include <armci.h>
#include <message.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    ARMCI_Init_args(&argc, &argv);
    int me = armci_msg_me(), np = armci_msg_nproc();
    void **ptr = malloc(sizeof(void *) * (size_t)np);
    ARMCI_Malloc(ptr, 8 * sizeof(double));
    double *mine = ptr[me];
    for (int i = 0; i < 8; i++)
        mine[i] = 0;
    ARMCI_Barrier();

    double x[8] = {1, 1, 1, 1, 1, 1, 1, 1}, scale = 0.5;
    for (int p = 0; p < np; p++)                  /* everyone adds 0.5 everywhere */
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, x, ptr[p], sizeof x, p);
    ARMCI_Barrier();

    double total = mine[0];
    armci_msg_dgop(&total, 1, "+");
    if (me == 0)
        printf("total = %g (expected %g)\n", total, 0.5 * np * np);
    int ok = total == 0.5 * np * np;
    ARMCI_Free(ptr[me]);
    free(ptr);
    ARMCI_Finalize();
    return ok ? 0 : 1;
}
