/* A profiling library as tools for Global Arrays write one: ARMCI_
 * wrappers, defined against armci.h and parmci.h with the signatures
 * armci.h declares (built with -Wall -Wextra -Werror), that count their
 * calls and forward to the PARMCI_ names. Their strong definitions
 * override libarmci's weak ARMCI_ aliases, shared or static: each wrapped
 * call below is made once per process, so every count must be 1, and the
 * calls must still do their work. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"
#include "parmci.h"

#include <string.h>

#define WRAPPED(X)                                                                      \
    X(Init) X(Initialized) X(Finalize) X(Malloc) X(Free) X(Malloc_local) X(Free_local)  \
    X(Put) X(Get) X(Acc) X(PutS) X(GetS) X(AccS) X(PutV) X(GetV) X(NbPut) X(NbGet)      \
    X(Wait) X(WaitAll) X(PutValueInt) X(GetValueLong) X(Rmw) X(Fence) X(AllFence)       \
    X(Barrier) X(Create_mutexes) X(Destroy_mutexes) X(Lock) X(Unlock) X(Group_create)   \
    X(Group_size) X(Group_rank) X(Absolute_id) X(Group_free) X(notify) X(notify_wait)   \
    X(msg_barrier) X(msg_group_barrier)
#define ENUM(name) CALL_##name,
#define NAME(name) #name,
enum { WRAPPED(ENUM) NCALLS };
static const char *names[NCALLS] = {WRAPPED(NAME)};
static int calls[NCALLS];
#define COUNT(name) calls[CALL_##name]++

int ARMCI_Init(void)
{
    COUNT(Init);
    return PARMCI_Init();
}

int ARMCI_Initialized(void)
{
    COUNT(Initialized);
    return PARMCI_Initialized();
}

int ARMCI_Finalize(void)
{
    COUNT(Finalize);
    return PARMCI_Finalize();
}

int ARMCI_Malloc(void *ptr_arr[], armci_size_t bytes)
{
    COUNT(Malloc);
    return PARMCI_Malloc(ptr_arr, bytes);
}

int ARMCI_Free(void *ptr)
{
    COUNT(Free);
    return PARMCI_Free(ptr);
}

void *ARMCI_Malloc_local(armci_size_t bytes)
{
    COUNT(Malloc_local);
    return PARMCI_Malloc_local(bytes);
}

int ARMCI_Free_local(void *ptr)
{
    COUNT(Free_local);
    return PARMCI_Free_local(ptr);
}

int ARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    COUNT(Put);
    return PARMCI_Put(src, dst, bytes, proc);
}

int ARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    COUNT(Get);
    return PARMCI_Get(src, dst, bytes, proc);
}

int ARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc)
{
    COUNT(Acc);
    return PARMCI_Acc(optype, scale, src, dst, bytes, proc);
}

int ARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc)
{
    COUNT(PutS);
    return PARMCI_PutS(src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels,
                       proc);
}

int ARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
               int count[], int stride_levels, int proc)
{
    COUNT(GetS);
    return PARMCI_GetS(src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels,
                       proc);
}

int ARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
               int dst_stride_arr[], int count[], int stride_levels, int proc)
{
    COUNT(AccS);
    return PARMCI_AccS(optype, scale, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count,
                       stride_levels, proc);
}

int ARMCI_PutV(armci_giov_t darr[], int len, int proc)
{
    COUNT(PutV);
    return PARMCI_PutV(darr, len, proc);
}

int ARMCI_GetV(armci_giov_t darr[], int len, int proc)
{
    COUNT(GetV);
    return PARMCI_GetV(darr, len, proc);
}

int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle)
{
    COUNT(NbPut);
    return PARMCI_NbPut(src, dst, bytes, proc, nb_handle);
}

int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle)
{
    COUNT(NbGet);
    return PARMCI_NbGet(src, dst, bytes, proc, nb_handle);
}

int ARMCI_Wait(armci_hdl_t *nb_handle)
{
    COUNT(Wait);
    return PARMCI_Wait(nb_handle);
}

int ARMCI_WaitAll(void)
{
    COUNT(WaitAll);
    return PARMCI_WaitAll();
}

int ARMCI_PutValueInt(int src, void *dst, int proc)
{
    COUNT(PutValueInt);
    return PARMCI_PutValueInt(src, dst, proc);
}

long ARMCI_GetValueLong(void *src, int proc)
{
    COUNT(GetValueLong);
    return PARMCI_GetValueLong(src, proc);
}

int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc)
{
    COUNT(Rmw);
    return PARMCI_Rmw(op, ploc, prem, extra, proc);
}

void ARMCI_Fence(int proc)
{
    COUNT(Fence);
    PARMCI_Fence(proc);
}

void ARMCI_AllFence(void)
{
    COUNT(AllFence);
    PARMCI_AllFence();
}

void ARMCI_Barrier(void)
{
    COUNT(Barrier);
    PARMCI_Barrier();
}

int ARMCI_Create_mutexes(int num)
{
    COUNT(Create_mutexes);
    return PARMCI_Create_mutexes(num);
}

int ARMCI_Destroy_mutexes(void)
{
    COUNT(Destroy_mutexes);
    return PARMCI_Destroy_mutexes();
}

void ARMCI_Lock(int mutex, int proc)
{
    COUNT(Lock);
    PARMCI_Lock(mutex, proc);
}

void ARMCI_Unlock(int mutex, int proc)
{
    COUNT(Unlock);
    PARMCI_Unlock(mutex, proc);
}

void ARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out)
{
    COUNT(Group_create);
    PARMCI_Group_create(n, pid_list, group_out);
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    COUNT(Group_size);
    PARMCI_Group_size(group, size);
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    COUNT(Group_rank);
    return PARMCI_Group_rank(group, rank);
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    COUNT(Absolute_id);
    return PARMCI_Absolute_id(group, group_rank);
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    COUNT(Group_free);
    PARMCI_Group_free(group);
}

int armci_notify(int proc)
{
    COUNT(notify);
    return parmci_notify(proc);
}

int armci_notify_wait(int proc, int *pval)
{
    COUNT(notify_wait);
    return parmci_notify_wait(proc, pval);
}

void armci_msg_barrier(void)
{
    COUNT(msg_barrier);
    parmci_msg_barrier();
}

void armci_msg_group_barrier(ARMCI_Group *group)
{
    COUNT(msg_group_barrier);
    parmci_msg_group_barrier(group);
}

/* Each rank writes into its right neighbour's block and reads back from
 * it; slots of a block of longs: */
enum { PUT, ACC, ROWS, VEC = ROWS + 4, NB, VALUE, RMW, SLOTS };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(ARMCI_Init() == 0);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    void **p = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(p, SLOTS * sizeof(long)) == 0);
    long *mine = p[me], *theirs = p[right];
    memset(mine, 0, SLOTS * sizeof(long));
    ARMCI_Barrier();

    long v = 100 + me, one = 1, two = 2, rows[3] = {200 + me, 0, 300 + me};
    int stride[1] = {2 * (int)sizeof(long)}, count[2] = {(int)sizeof(long), 2};
    CHECK(ARMCI_Put(&v, theirs + PUT, sizeof v, right) == 0);
    CHECK(ARMCI_Acc(ARMCI_ACC_LNG, &one, &one, (long *)p[0] + ACC, sizeof one, 0) == 0);
    CHECK(ARMCI_PutS(rows, stride, theirs + ROWS, stride, count, 1, right) == 0);
    CHECK(ARMCI_AccS(ARMCI_ACC_LNG, &two, rows, stride, theirs + ROWS + 1, stride, count, 1,
                     right) == 0);
    void *vsrc[1] = {&v}, *vdst[1] = {theirs + VEC};
    armci_giov_t iov = {.src_ptr_array = vsrc, .dst_ptr_array = vdst, .bytes = sizeof v,
                        .ptr_array_len = 1};
    CHECK(ARMCI_PutV(&iov, 1, right) == 0);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    CHECK(ARMCI_NbPut(&v, theirs + NB, sizeof v, right, &h) == 0);
    CHECK(ARMCI_Wait(&h) == 0);
    CHECK(ARMCI_PutValueInt(7, theirs + VALUE, right) == 0);
    long old = -1;
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (long *)p[0] + RMW, 1, 0) == 0);
    CHECK(old >= 0 && old < np);
    ARMCI_Fence(right);
    ARMCI_AllFence();
    armci_msg_barrier();

    long l = left;
    CHECK_EQ_LL(mine[PUT], 100 + l);
    CHECK_EQ_LL(mine[ROWS], 200 + l);
    CHECK_EQ_LL(mine[ROWS + 1], 2 * (200 + l));
    CHECK_EQ_LL(mine[ROWS + 2], 300 + l);
    CHECK_EQ_LL(mine[ROWS + 3], 2 * (300 + l));
    CHECK_EQ_LL(mine[VEC], 100 + l);
    CHECK_EQ_LL(mine[NB], 100 + l);
    CHECK_EQ_LL(*(int *)(mine + VALUE), 7);
    if (me == 0)
        CHECK(mine[ACC] == np && mine[RMW] == np);
    long got = 0, got_rows[3] = {0, 0, 0}, got_vec = 0, got_nb = 0;
    CHECK(ARMCI_Get(theirs + PUT, &got, sizeof got, right) == 0);
    CHECK(ARMCI_GetS(theirs + ROWS, stride, got_rows, stride, count, 1, right) == 0);
    void *gsrc[1] = {theirs + VEC}, *gdst[1] = {&got_vec};
    armci_giov_t giov = {.src_ptr_array = gsrc, .dst_ptr_array = gdst, .bytes = sizeof got_vec,
                         .ptr_array_len = 1};
    CHECK(ARMCI_GetV(&giov, 1, right) == 0);
    CHECK(ARMCI_NbGet(theirs + NB, &got_nb, sizeof got_nb, right, NULL) == 0);
    CHECK(ARMCI_WaitAll() == 0);
    CHECK(got == v && got_rows[0] == rows[0] && got_rows[2] == rows[2] && got_vec == v &&
          got_nb == v);
    CHECK_EQ_LL(ARMCI_GetValueLong(theirs + NB, right), v);

    CHECK(ARMCI_Create_mutexes(1) == 0);
    ARMCI_Lock(0, 0);
    ARMCI_Unlock(0, 0);
    CHECK(ARMCI_Destroy_mutexes() == 0);

    int *all = malloc(sizeof(int) * (size_t)np), size = 0, rank = -1;
    for (int r = 0; r < np; r++)
        all[r] = np - 1 - r;
    ARMCI_Group reversed;
    ARMCI_Group_create(np, all, &reversed);
    ARMCI_Group_size(&reversed, &size);
    CHECK(ARMCI_Group_rank(&reversed, &rank) == 0);
    CHECK(size == np && rank == np - 1 - me);
    CHECK_EQ_LL(ARMCI_Absolute_id(&reversed, 0), np - 1);
    armci_msg_group_barrier(&reversed);
    ARMCI_Group_free(&reversed);
    free(all);

    int seen = 0;
    CHECK_EQ_LL(armci_notify(right), 1);
    CHECK_EQ_LL(armci_notify_wait(left, &seen), 1);
    CHECK_EQ_LL(seen, 1);
    void *local = ARMCI_Malloc_local(64);
    CHECK(local != NULL);
    CHECK(ARMCI_Free_local(local) == 0);
    MPI_Barrier(MPI_COMM_WORLD);   /* the others' gets from this block are done */
    CHECK(ARMCI_Free(p[me]) == 0);
    free(p);
    CHECK(ARMCI_Initialized() == 1);
    ARMCI_Finalize();

    for (int c = 0; c < NCALLS; c++)
        if (calls[c] != 1) {
            check_failures++;
            fprintf(stderr, "rank %d: the wrapper of %s ran %d times, not once\n", me, names[c],
                    calls[c]);
        }
    int rc = check_exit("test_armci_profile");
    MPI_Finalize();
    return rc;
}
