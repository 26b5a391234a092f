/* ARMCI_Init_thread, as ARMCI-MPI defines it: without MPI running, it
 * starts MPI at the level asked (here MPI_THREAD_MULTIPLE) and
 * ARMCI_Finalize ends MPI; a level that is no MPI_THREAD_* is refused. With
 * "plain", the program starts MPI at MPI_THREAD_MULTIPLE itself and calls
 * plain ARMCI_Init, as Global Arrays' GA_Initialize does: thread safety
 * follows MPI's level all the same. At MPI_THREAD_MULTIPLE the program's
 * threads call ARMCI at once: THREADS
 * threads per rank (the main one among them) each fetch-and-add, accumulate,
 * put (blocking and not) and get back at the right neighbour ROUNDS times,
 * and every sum, every slot and every fetched value is checked. With
 * "lower", the program starts MPI at MPI_THREAD_SINGLE itself, and
 * ARMCI_Init_thread refuses to run at MPI_THREAD_MULTIPLE on it.
 *   test_armci_thread [lower | plain] */
#include "../check.h"
#include "armci.h"
#include "reach.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

enum { THREADS = 4, ROUNDS = 300, ACC_N = 4 };

/* A rank's block: what its left neighbour's threads write. */
typedef struct {
    long count;             /* fetch-and-added once per round per thread */
    long slot[THREADS];     /* thread t's last put */
    long nb_slot[THREADS];  /* thread t's last non-blocking put */
    double acc[ACC_N];      /* accumulated (j + 1) once per round per thread */
} block_t;

static void **ptr;
static int me, np;

static long value(int rank, int t, int round)
{
    return ((long)rank * THREADS + t) * ROUNDS + round;
}

static void *work(void *arg)
{
    int t = (int)(intptr_t)arg, right = (me + 1) % np;
    block_t *there = ptr[right];
    double one = 1.0, add[ACC_N];
    for (int j = 0; j < ACC_N; j++)
        add[j] = j + 1;
    long last = -1;
    for (int i = 0; i < ROUNDS; i++) {
        long old = -1;
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, &there->count, 1, right) == 0);
        CHECK(old > last);   /* only adds: what one thread fetches only grows */
        last = old;
        CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &one, add, there->acc, (int)sizeof add, right) == 0);
        long v = value(me, t, i), nb = -v, back = -1;
        CHECK(ARMCI_Put(&v, &there->slot[t], sizeof v, right) == 0);
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        CHECK(ARMCI_NbPut(&nb, &there->nb_slot[t], sizeof nb, right, &h) == 0);
        CHECK(ARMCI_Wait(&h) == 0);
        ARMCI_Fence(right);
        CHECK(ARMCI_Get(&there->slot[t], &back, sizeof back, right) == 0);
        CHECK_EQ_LL(back, v);   /* no other thread writes this slot */
    }
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
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    if (plain) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK(ARMCI_Init() == 0);
    } else {
        CHECK(ARMCI_Init_thread(12345) == REACH_ERR_ARG);
        CHECK(ARMCI_Init_thread(MPI_THREAD_MULTIPLE) == 0);
    }
    MPI_Query_thread(&provided);
    CHECK_EQ_LL(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ptr = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(ptr, sizeof(block_t)) == 0);
    block_t *mine = ptr[me];
    memset(mine, 0, sizeof *mine);
    ARMCI_Barrier();
    pthread_t th[THREADS];
    for (int t = 1; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, work, (void *)(intptr_t)t) == 0);
    work((void *)(intptr_t)0);
    for (int t = 1; t < THREADS; t++)
        pthread_join(th[t], NULL);
    ARMCI_Barrier();
    int left = (me + np - 1) % np;
    CHECK_EQ_LL(mine->count, (long)THREADS * ROUNDS);
    for (int j = 0; j < ACC_N; j++)
        CHECK(mine->acc[j] == (double)THREADS * ROUNDS * (j + 1));
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ_LL(mine->slot[t], value(left, t, ROUNDS - 1));
        CHECK_EQ_LL(mine->nb_slot[t], -value(left, t, ROUNDS - 1));
    }
    CHECK(ARMCI_Free(mine) == 0);
    free(ptr);
    CHECK(ARMCI_Finalize() == 0);
    MPI_Finalized(&fin);
    CHECK(fin == !plain);   /* ARMCI ended MPI if it started it */
    if (plain)
        MPI_Finalize();
    if (me == 0)
        printf("test_armci_thread%s: %s\n", plain ? " plain" : "", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
