/* The ARMCI layer: each call translates to reach.h; it keeps no algorithm of
 * its own. Calls that return void cannot report a bad argument, so they end
 * the job instead (as ARMCI itself does). */
#pragma GCC visibility push(default)
#include "armci.h"
#pragma GCC visibility pop

#include "reach.h"

#include <stdio.h>
#include <string.h>

static reach_mutexes_t *armci_mutexes;

/* Ends the job when a call without a status fails. */
static void armci_check(int status, const char *call)
{
    if (status != REACH_SUCCESS) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s failed: %s", call, reach_strerror(status));
        reach_abort(1, msg);
    }
}

int ARMCI_Init(void)
{
    return reach_init(NULL, NULL);
}

int ARMCI_Init_args(int *argc, char ***argv)
{
    return reach_init(argc, argv);
}

int ARMCI_Initialized(void)
{
    return reach_initialized();
}

void ARMCI_Finalize(void)
{
    armci_mutexes = NULL;   /* reach_finalize destroys every mutex set */
    if (reach_initialized())
        reach_finalize();
}

/* reach's shared memory has no name in the file system and disappears with
 * the last process that maps it, so nothing is left to clean up. */
void ARMCI_Cleanup(void)
{
}

void ARMCI_Error(char *msg, int code)
{
    char line[512];
    snprintf(line, sizeof line, "ARMCI_Error: %s %d", msg ? msg : "", code);
    reach_abort(code, line);
}

/* A negative size becomes a size_t too large for any allocation, which
 * reach rejects on every rank alike. */
int ARMCI_Malloc(void *ptr_arr[], armci_size_t bytes)
{
    return reach_malloc((size_t)bytes, ptr_arr);
}

int ARMCI_Free(void *ptr)
{
    return reach_free(ptr);
}

void *ARMCI_Malloc_local(armci_size_t bytes)
{
    if (bytes < 0) {
        fprintf(stderr, "reach: rank %d: ARMCI_Malloc_local: size %ld is negative\n", reach_rank(), bytes);
        return NULL;
    }
    return reach_malloc_local((size_t)bytes);
}

int ARMCI_Free_local(void *ptr)
{
    return reach_free_local(ptr);
}

int ARMCI_Same_node(int proc)
{
    return reach_same_node(proc);
}

int ARMCI_Uses_shm(void)
{
    return 1;
}

/* ARMCI sizes are int; a negative one must not turn into a huge size_t. */
static int armci_bytes(int bytes, const char *call)
{
    if (bytes < 0) {
        fprintf(stderr, "reach: rank %d: %s: size %d is negative\n", reach_rank(), call, bytes);
        return 0;
    }
    return 1;
}

int ARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    if (!armci_bytes(bytes, "ARMCI_Put"))
        return REACH_ERR_ARG;
    return reach_put(src, dst, (size_t)bytes, proc);
}

int ARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    if (!armci_bytes(bytes, "ARMCI_Get"))
        return REACH_ERR_ARG;
    return reach_get(src, dst, (size_t)bytes, proc);
}

/* Records in h whether an operation was issued on it; returns st. */
static int armci_mark(armci_hdl_t *h, int st)
{
    if (h)
        h->data[0] = st == REACH_SUCCESS;
    return st;
}

/* A NULL handle: the operation is implicit, and reach completes it at the
 * next wait_all, wait_rank or fence. */
static reach_request_t *armci_req(armci_hdl_t *h, reach_request_t *implicit)
{
    return h ? (reach_request_t *)(void *)h->dummy : implicit;
}

/* ARMCI accumulate codes to reach types; -1 if unknown. */
static int armci_acc_type(int optype)
{
    switch (optype) {
    case ARMCI_ACC_INT: return REACH_INT;
    case ARMCI_ACC_LNG: return REACH_LONG;
    case ARMCI_ACC_FLT: return REACH_FLOAT;
    case ARMCI_ACC_DBL: return REACH_DOUBLE;
    case ARMCI_ACC_CPL: return REACH_COMPLEX;
    case ARMCI_ACC_DCP: return REACH_DCOMPLEX;
    default: return -1;
    }
}

/* Blocking if nb is 0; otherwise non-blocking on h (implicit if h is NULL). */
static int armci_acc(const char *call, int optype, void *scale, void *src, void *dst, int bytes,
                     int proc, int nb, armci_hdl_t *h)
{
    int t = armci_acc_type(optype);
    if (t < 0) {
        fprintf(stderr, "reach: rank %d: %s: %d is not an ARMCI_ACC_* operation\n", reach_rank(),
                call, optype);
        return REACH_ERR_TYPE;
    }
    if (!armci_bytes(bytes, call))
        return REACH_ERR_ARG;
    if (!nb)
        return reach_acc((reach_type_t)t, scale, src, dst, (size_t)bytes, proc);
    reach_request_t implicit;
    return armci_mark(h, reach_acc_nb((reach_type_t)t, scale, src, dst, (size_t)bytes, proc,
                                      armci_req(h, &implicit)));
}

int ARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc)
{
    return armci_acc("ARMCI_Acc", optype, scale, src, dst, bytes, proc, 0, NULL);
}

int ARMCI_Put_flag(void *src, void *dst, int bytes, int *f, int v, int proc)
{
    int st = ARMCI_Put(src, dst, bytes, proc);
    if (st == REACH_SUCCESS)
        st = reach_fence(proc);
    if (st == REACH_SUCCESS)
        st = reach_put(&v, f, sizeof v, proc);
    return st;
}

#define ARMCI_VALUE(T, Name)                                                        \
    int ARMCI_PutValue##Name(T src, void *dst, int proc)                             \
    {                                                                                \
        return reach_put(&src, dst, sizeof src, proc);                               \
    }                                                                                \
    int ARMCI_NbPutValue##Name(T src, void *dst, int proc, armci_hdl_t *nb_handle)   \
    {                                                                                \
        return ARMCI_NbPut(&src, dst, sizeof src, proc, nb_handle);                  \
    }                                                                                \
    T ARMCI_GetValue##Name(void *src, int proc)                                      \
    {                                                                                \
        T v = 0;                                                                     \
        armci_check(reach_get(src, &v, sizeof v, proc), "ARMCI_GetValue" #Name);     \
        return v;                                                                    \
    }
ARMCI_VALUE(int, Int)
ARMCI_VALUE(long, Long)
ARMCI_VALUE(float, Float)
ARMCI_VALUE(double, Double)

int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *h)
{
    reach_request_t implicit;
    if (!armci_bytes(bytes, "ARMCI_NbPut"))
        return REACH_ERR_ARG;
    return armci_mark(h, reach_put_nb(src, dst, (size_t)bytes, proc, armci_req(h, &implicit)));
}

int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *h)
{
    reach_request_t implicit;
    if (!armci_bytes(bytes, "ARMCI_NbGet"))
        return REACH_ERR_ARG;
    return armci_mark(h, reach_get_nb(src, dst, (size_t)bytes, proc, armci_req(h, &implicit)));
}

int ARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *h)
{
    return armci_acc("ARMCI_NbAcc", optype, scale, src, dst, bytes, proc, 1, h);
}

int ARMCI_Wait(armci_hdl_t *h)
{
    if (h == NULL || h->data[0] == 0)
        return 0;
    int st = reach_wait((reach_request_t *)(void *)h->dummy);
    if (st == REACH_SUCCESS)
        h->data[0] = 0;
    return st;
}

int ARMCI_Test(armci_hdl_t *h)
{
    if (h == NULL || h->data[0] == 0)
        return 0;
    int done = 0;
    int st = reach_test((reach_request_t *)(void *)h->dummy, &done);
    if (st != REACH_SUCCESS)
        return st;
    if (done)
        h->data[0] = 0;
    return done ? 0 : 1;
}

int ARMCI_WaitAll(void)
{
    return reach_wait_all();
}

int ARMCI_WaitProc(int proc)
{
    return reach_wait_rank(proc);
}

void ARMCI_Fence(int proc)
{
    armci_check(reach_fence(proc), "ARMCI_Fence");
}

void ARMCI_AllFence(void)
{
    armci_check(reach_fence_all(), "ARMCI_AllFence");
}

void ARMCI_Barrier(void)
{
    armci_check(reach_barrier(), "ARMCI_Barrier");
}

int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc)
{
    switch (op) {
    case ARMCI_FETCH_AND_ADD:
        return reach_fetch_add_i32(prem, extra, ploc, proc);
    case ARMCI_FETCH_AND_ADD_LONG: {
        int64_t old;
        int st = reach_fetch_add_i64(prem, extra, &old, proc);
        if (st == REACH_SUCCESS)
            *(long *)ploc = (long)old;
        return st;
    }
    case ARMCI_SWAP:
        if (ploc == NULL)
            break;
        return reach_swap_i32(prem, *(int *)ploc, ploc, proc);
    case ARMCI_SWAP_LONG: {
        int64_t old;
        if (ploc == NULL)
            break;
        int st = reach_swap_i64(prem, *(long *)ploc, &old, proc);
        if (st == REACH_SUCCESS)
            *(long *)ploc = (long)old;
        return st;
    }
    default:
        fprintf(stderr, "reach: rank %d: ARMCI_Rmw: %d is not an ARMCI read-modify-write operation\n",
                reach_rank(), op);
        return REACH_ERR_TYPE;
    }
    fprintf(stderr, "reach: rank %d: ARMCI_Rmw: ploc is NULL\n", reach_rank());
    return REACH_ERR_ARG;
}

int ARMCI_Create_mutexes(int num)
{
    if (armci_mutexes != NULL) {
        fprintf(stderr, "reach: rank %d: ARMCI_Create_mutexes: mutexes already exist; "
                        "call ARMCI_Destroy_mutexes first\n", reach_rank());
        return REACH_ERR_MUTEX;
    }
    return reach_mutexes_create(num, &armci_mutexes);
}

int ARMCI_Destroy_mutexes(void)
{
    int st = reach_mutexes_destroy(armci_mutexes);
    if (st == REACH_SUCCESS)
        armci_mutexes = NULL;
    return st;
}

void ARMCI_Lock(int mutex, int proc)
{
    armci_check(reach_mutex_lock(armci_mutexes, mutex, proc), "ARMCI_Lock");
}

void ARMCI_Unlock(int mutex, int proc)
{
    armci_check(reach_mutex_unlock(armci_mutexes, mutex, proc), "ARMCI_Unlock");
}
