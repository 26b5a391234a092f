/* Helper of shm_cleanup.sh: allocates shared memory, checks that it is
 * shared, then ends as the mode says: normal, abort (ARMCI_Error with a
 * non-zero code), abort0 (ARMCI_Error with code 0), kill (the last rank
 * kills itself with SIGKILL), shortage (asks more than the machine has),
 * limit (asks more than REACH_SHM_LIMIT allows), arena (more than
 * REACH_ARENA_SIZE holds), badenv (init must fail). */
#include "armci.h"
#include "message.h"
#include "reach.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    MPI_Init(&argc, &argv);
    if (strcmp(mode, "badenv") == 0) {
        int st = ARMCI_Init();
        MPI_Finalize();
        return st == REACH_ERR_ARG ? 0 : 1;  /* init must refuse */
    }
    if (ARMCI_Init() != 0)
        return 1;
    int me = armci_msg_me(), np = armci_msg_nproc();
    void **p = malloc(sizeof(void *) * (size_t)np);
    if (ARMCI_Malloc(p, 1 << 20) != 0)
        return 1;
    int t = (me + 1) % np;
    ARMCI_PutValueInt(1000 + me, p[t], t);
    ARMCI_Barrier();
    if (*(int *)p[me] != 1000 + (me + np - 1) % np) {
        fprintf(stderr, "rank %d: the segment is not shared\n", me);
        return 1;
    }
    printf("rank %d: segment shared\n", me);
    fflush(stdout);
    ARMCI_Barrier();
    if (strcmp(mode, "abort") == 0 && me == np - 1)
        ARMCI_Error("test abort", 3);
    if (strcmp(mode, "abort0") == 0 && me == np - 1)
        ARMCI_Error("test abort with code 0", 0);
    if (strcmp(mode, "kill") == 0 && me == np - 1)
        kill(getpid(), SIGKILL);
    if (strcmp(mode, "shortage") == 0 || strcmp(mode, "limit") == 0 || strcmp(mode, "arena") == 0) {
        /* shortage: 2^50 bytes per rank; limit and arena: 64 MiB against 16 MiB */
        armci_size_t ask = strcmp(mode, "shortage") == 0 ? (armci_size_t)1 << 50 : 64L << 20;
        int st = ARMCI_Malloc(p, ask);
        free(p);
        ARMCI_Finalize();
        MPI_Finalize();
        return st == REACH_ERR_NOMEM ? 0 : 1;
    }
    if (strcmp(mode, "kill") == 0 || strncmp(mode, "abort", 5) == 0)
        sleep(60); /* the others wait here to be ended by mpiexec */
    ARMCI_Free(p[me]);
    free(p);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
