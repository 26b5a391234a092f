/* ARMCI_Init_thread, as ARMCI-MPI defines it: without MPI running, it
 * starts MPI at the level asked (here MPI_THREAD_MULTIPLE, and a second
 * thread does one-sided work beside the main one) and ARMCI_Finalize ends
 * MPI; a level that is no MPI_THREAD_* is refused. With "lower", the
 * program starts MPI at MPI_THREAD_SINGLE itself, and ARMCI_Init_thread
 * refuses to run at MPI_THREAD_MULTIPLE on it.
 *   test_armci_thread [lower] */
#include "../check.h"
#include "armci.h"
#include "reach.h"

#include <pthread.h>
#include <string.h>

static void **ptr;
static int me, np;

/* Puts its rank into the second long of its right neighbour's block. */
static void *beside(void *arg)
{
    (void)arg;
    int right = (me + 1) % np;
    CHECK(ARMCI_PutValueLong(me, (long *)ptr[right] + 1, right) == 0);
    return NULL;
}

int main(int argc, char **argv)
{
    int lower = argc > 1 && strcmp(argv[1], "lower") == 0, provided = -1, fin = 0;
    if (lower) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
        CHECK(ARMCI_Init_thread(MPI_THREAD_MULTIPLE) == REACH_ERR_ARG);
        CHECK(!ARMCI_Initialized());
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Finalize();
        if (rank == 0)
            printf("test_armci_thread lower: %s\n", check_failures ? "FAILED" : "passed");
        return check_failures != 0;
    }
    CHECK(ARMCI_Init_thread(12345) == REACH_ERR_ARG);
    CHECK(ARMCI_Init_thread(MPI_THREAD_MULTIPLE) == 0);
    MPI_Query_thread(&provided);
    CHECK_EQ_LL(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ptr = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(ptr, 2 * sizeof(long)) == 0);
    long *mine = ptr[me];
    mine[0] = mine[1] = -1;
    ARMCI_Barrier();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, beside, NULL) == 0);
    int right = (me + 1) % np;
    CHECK(ARMCI_PutValueLong(me, ptr[right], right) == 0);
    pthread_join(t, NULL);
    ARMCI_Barrier();
    CHECK_EQ_LL(mine[0], (me + np - 1) % np);
    CHECK_EQ_LL(mine[1], (me + np - 1) % np);
    CHECK(ARMCI_Free(mine) == 0);
    free(ptr);
    CHECK(ARMCI_Finalize() == 0);
    MPI_Finalized(&fin);
    CHECK(fin);   /* ARMCI started MPI, so ARMCI ended it */
    if (me == 0)
        printf("test_armci_thread: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
