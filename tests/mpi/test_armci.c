/* The ARMCI layer as Global Arrays uses it: start-up, collective memory,
 * contiguous and value transfers, non-blocking handles, accumulate, Rmw,
 * mutexes, fences and barriers, and the message layer. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"

#include <math.h>
#include <string.h>
#include <time.h>

static int me, np;

static void test_transfers(void)
{
    void **p = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(p, 128 * sizeof(double)) == 0);
    double *mine = p[me];
    for (int i = 0; i < 128; i++)
        mine[i] = 0;
    ARMCI_Barrier();
    int t = (me + 1) % np;
    double v[4] = {me, me + 0.25, me + 0.5, me + 0.75};
    CHECK(ARMCI_Put(v, p[t], sizeof v, t) == 0);
    ARMCI_Fence(t);
    double w[4] = {0};
    CHECK(ARMCI_Get(p[t], w, sizeof w, t) == 0);
    CHECK(memcmp(v, w, sizeof v) == 0);
    CHECK(ARMCI_PutValueInt(7 + me, (int *)((double *)p[t] + 10), t) == 0);
    CHECK(ARMCI_PutValueLong(70L + me, (double *)p[t] + 11, t) == 0);
    CHECK(ARMCI_PutValueFloat(1.5f, (double *)p[t] + 12, t) == 0);
    CHECK(ARMCI_PutValueDouble(2.5, (double *)p[t] + 13, t) == 0);
    CHECK(ARMCI_GetValueInt((int *)((double *)p[t] + 10), t) == 7 + me);
    CHECK(ARMCI_GetValueLong((double *)p[t] + 11, t) == 70L + me);
    CHECK(ARMCI_GetValueFloat((double *)p[t] + 12, t) == 1.5f);
    CHECK(ARMCI_GetValueDouble((double *)p[t] + 13, t) == 2.5);
    ARMCI_Barrier();

    /* Accumulate from everybody into everybody. */
    double ones[16], two = 2.0;
    for (int i = 0; i < 16; i++)
        ones[i] = 1.0;
    for (int r = 0; r < np; r++)
        CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &two, ones, (double *)p[r] + 32, sizeof ones, r) == 0);
    ARMCI_AllFence();
    ARMCI_Barrier();
    for (int i = 0; i < 16; i++)
        CHECK(mine[32 + i] == 2.0 * np);
    CHECK(ARMCI_Acc(12345, &two, ones, (double *)p[t] + 32, sizeof ones, t) != 0);

    /* Non-blocking with explicit and implicit handles. */
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    CHECK(ARMCI_Wait(&h) == 0);            /* nothing issued */
    CHECK(ARMCI_NbPut(v, (double *)p[t] + 64, sizeof v, t, &h) == 0);
    CHECK(ARMCI_Wait(&h) == 0);
    CHECK(ARMCI_NbGet((double *)p[t] + 64, w, sizeof w, t, &h) == 0);
    while (ARMCI_Test(&h) != 0)
        ;
    CHECK(memcmp(v, w, sizeof v) == 0);
    CHECK(ARMCI_NbAcc(ARMCI_ACC_DBL, &two, ones, (double *)p[t] + 80, sizeof ones, t, NULL) == 0);
    CHECK(ARMCI_NbPutValueInt(3, (int *)((double *)p[t] + 96), t, NULL) == 0);
    CHECK(ARMCI_WaitProc(t) == 0);
    CHECK(ARMCI_WaitAll() == 0);
    ARMCI_Barrier();
    CHECK(mine[80] == 2.0 && *(int *)(mine + 96) == 3);

    /* Put_flag: the flag is set after the data. */
    int *flagp = (int *)((double *)p[t] + 100);
    CHECK(ARMCI_Put_flag(v, (double *)p[t] + 104, sizeof v, flagp, 1, t) == 0);
    ARMCI_Barrier();
    CHECK(*(int *)(mine + 100) == 1 && mine[104] == (double)((me + np - 1) % np));
    ARMCI_Barrier();
    CHECK(ARMCI_Free(p[me]) == 0);
    free(p);
}

static void test_rmw_and_mutex(void)
{
    void **p = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(p, 64) == 0);
    memset(p[me], 0, 64);
    ARMCI_Barrier();
    int old = -1;
    long lold = -1;
    for (int i = 0; i < 100; i++) {
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, p[0], 1, 0) == 0);
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, (long *)p[0] + 1, 2, 0) == 0);
    }
    int sw = me + 1;
    CHECK(ARMCI_Rmw(ARMCI_SWAP, &sw, (int *)p[0] + 4, 0, 0) == 0);
    long lsw = me + 1;
    CHECK(ARMCI_Rmw(ARMCI_SWAP_LONG, &lsw, (long *)p[0] + 3, 0, 0) == 0);
    CHECK(ARMCI_Rmw(999, &old, p[0], 1, 0) != 0);
    ARMCI_Barrier();
    CHECK(ARMCI_GetValueInt(p[0], 0) == 100 * np);
    CHECK(ARMCI_GetValueLong((long *)p[0] + 1, 0) == 200L * np);
    /* Swaps conserve the values: what is left plus what was taken out. */
    long s = sw, total = 0;
    MPI_Allreduce(&s, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total + ARMCI_GetValueInt((int *)p[0] + 4, 0) == (long)np * (np + 1) / 2);
    s = lsw;
    MPI_Allreduce(&s, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total + ARMCI_GetValueLong((long *)p[0] + 3, 0) == (long)np * (np + 1) / 2);
    ARMCI_Barrier();

    CHECK(ARMCI_Create_mutexes(1) == 0);
    CHECK(ARMCI_Create_mutexes(1) != 0);    /* one set at a time */
    int *counter = (int *)p[0] + 8;
    for (int i = 0; i < 100; i++) {
        ARMCI_Lock(0, 0);
        int c = ARMCI_GetValueInt(counter, 0);
        ARMCI_PutValueInt(c + 1, counter, 0);
        ARMCI_Fence(0);
        ARMCI_Unlock(0, 0);
    }
    ARMCI_Barrier();
    CHECK(ARMCI_GetValueInt(counter, 0) == 100 * np);
    CHECK(ARMCI_Destroy_mutexes() == 0);
    CHECK(ARMCI_Free(p[me]) == 0);
    free(p);
}

static void test_local_memory(void)
{
    double *l = ARMCI_Malloc_local(1000 * sizeof(double));
    CHECK(l != NULL);
    for (int i = 0; i < 1000; i++)
        l[i] = i;
    CHECK(ARMCI_Free_local(l) == 0);
    CHECK(ARMCI_Same_node(me) == 1);
    CHECK(ARMCI_Uses_shm() == 1);
    CHECK(ARMCI_Initialized() == 1);
}

static void test_message(void)
{
    CHECK(armci_msg_me() == me);
    CHECK(armci_msg_nproc() == np);
    int i2[2] = {me, -me};
    armci_msg_igop(i2, 2, "+");
    CHECK(i2[0] == np * (np - 1) / 2 && i2[1] == -np * (np - 1) / 2);
    long l = me + 1;
    armci_msg_lgop(&l, 1, "*");
    long fact = 1;
    for (int r = 1; r <= np; r++)
        fact *= r;
    CHECK(l == fact);
    long long ll = me;
    armci_msg_llgop(&ll, 1, "max");
    CHECK(ll == np - 1);
    float f = (float)me + 1;
    armci_msg_fgop(&f, 1, "min");
    CHECK(f == 1.0f);
    double d = -(double)me - 1;
    armci_msg_dgop(&d, 1, "absmax");
    CHECK(d == np);
    d = -(double)me - 1;
    armci_msg_dgop(&d, 1, "absmin");
    CHECK(d == 1.0);
    int red = 1;
    armci_msg_reduce(&red, 1, "+", ARMCI_INT);
    if (me == 0)
        CHECK(red == np);
    char buf[16] = {0};
    if (me == np - 1)
        strcpy(buf, "hello");
    armci_msg_bcast(buf, sizeof buf, np - 1);
    CHECK(strcmp(buf, "hello") == 0);
    int x = me == 0 ? 42 : 0;
    armci_msg_brdcst(&x, sizeof x, 0);
    CHECK(x == 42);
    if (np > 1) {
        if (me == 0) {
            for (int r = 1; r < np; r++) {
                int v = -1, len = 0;
                int from = armci_msg_rcvany(7, &v, sizeof v, &len);
                CHECK(len == sizeof v && v == from * 10);
            }
            int v = 5;
            armci_msg_snd(8, &v, sizeof v, 1);
        } else {
            int v = me * 10;
            armci_msg_snd(7, &v, sizeof v, 0);
            if (me == 1) {
                int len = 0;
                armci_msg_rcv(8, &v, sizeof v, &len, 0);
                CHECK(v == 5 && len == sizeof v);
            }
        }
    }
    armci_msg_barrier();
    /* A wall clock in seconds (its origin is the MPI library's choice). */
    double t0 = armci_timer();
    struct timespec ms = {0, 20 * 1000 * 1000};
    nanosleep(&ms, NULL);
    double dt = armci_timer() - t0;
    CHECK(dt >= 0.015 && dt < 10);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(ARMCI_Initialized() == 0);
    CHECK(ARMCI_Init_args(&argc, &argv) == 0);
    CHECK(ARMCI_Init() == 0);
    me = armci_msg_me();
    np = armci_msg_nproc();
    test_transfers();
    test_rmw_and_mutex();
    test_local_memory();
    test_message();
    ARMCI_Finalize();
    CHECK(ARMCI_Initialized() == 0);
    int rc = check_exit("test_armci");
    MPI_Finalize();
    return rc;
}
