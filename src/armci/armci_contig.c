/* Contiguous transfers of the ARMCI layer: put, get and accumulate, blocking
 * and non-blocking, the flagged put and the single-value calls, translated to
 * reach's calls of the same kind; also the mapping of ARMCI_ACC_* codes to
 * reach types and the recording of a non-blocking call's target in its
 * handle, which the strided and vector calls share. */
#include "armci_internal.h"

/* ARMCI sizes are int; a negative one must not turn into a huge size_t. */
static int armci_bytes(int bytes)
{
    if (bytes < 0) {
        armci_error(REACH_ERR_ARG, "size %d is negative", bytes);
        return 0;
    }
    return 1;
}

int PARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    ARMCI_ENTRY();
    if (!armci_bytes(bytes))
        return REACH_ERR_ARG;
    return reach_put(src, dst, (size_t)bytes, proc);
}
ARMCI_ALIAS(ARMCI_Put)

int PARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    ARMCI_ENTRY();
    if (!armci_bytes(bytes))
        return REACH_ERR_ARG;
    return reach_get(src, dst, (size_t)bytes, proc);
}
ARMCI_ALIAS(ARMCI_Get)

int armci_acc_type(int optype)
{
    switch (optype) {
    case ARMCI_ACC_INT: return REACH_INT;
    case ARMCI_ACC_LNG: return REACH_LONG;
    case ARMCI_ACC_FLT: return REACH_FLOAT;
    case ARMCI_ACC_DBL: return REACH_DOUBLE;
    case ARMCI_ACC_CPL: return REACH_COMPLEX;
    case ARMCI_ACC_DCP: return REACH_DCOMPLEX;
    default: armci_error(REACH_ERR_TYPE, "%d is not an ARMCI_ACC_* operation", optype); return -1;
    }
}

int armci_mark(armci_hdl_t *h, int st, int proc)
{
    if (h != NULL && st == REACH_SUCCESS && !h->aggregate)
        h->target = proc;
    return st;
}

/* Blocking if nb is 0; otherwise non-blocking on h (implicit if h is NULL). */
static int armci_acc(int optype, void *scale, void *src, void *dst, int bytes, int proc, int nb, armci_hdl_t *h)
{
    int t = armci_acc_type(optype);
    if (t < 0)
        return REACH_ERR_TYPE;
    if (!armci_bytes(bytes))
        return REACH_ERR_ARG;
    if (!nb)
        return reach_acc((reach_type_t)t, scale, src, dst, (size_t)bytes, proc);
    reach_request_t req;
    return armci_mark(h, reach_acc_nb((reach_type_t)t, scale, src, dst, (size_t)bytes, proc, &req), proc);
}

int PARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc)
{
    ARMCI_ENTRY();
    return armci_acc(optype, scale, src, dst, bytes, proc, 0, NULL);
}
ARMCI_ALIAS(ARMCI_Acc)

int PARMCI_Put_flag(void *src, void *dst, int bytes, int *f, int v, int proc)
{
    ARMCI_ENTRY();
    int st = PARMCI_Put(src, dst, bytes, proc);
    if (st == REACH_SUCCESS)
        st = reach_fence(proc);
    if (st == REACH_SUCCESS)
        st = reach_put(&v, f, sizeof v, proc);
    return st;
}
ARMCI_ALIAS(ARMCI_Put_flag)

int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    reach_request_t req;
    if (!armci_bytes(bytes))
        return REACH_ERR_ARG;
    return armci_mark(h, reach_put_nb(src, dst, (size_t)bytes, proc, &req), proc);
}
ARMCI_ALIAS(ARMCI_NbPut)

int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    reach_request_t req;
    if (!armci_bytes(bytes))
        return REACH_ERR_ARG;
    return armci_mark(h, reach_get_nb(src, dst, (size_t)bytes, proc, &req), proc);
}
ARMCI_ALIAS(ARMCI_NbGet)

int PARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_acc(optype, scale, src, dst, bytes, proc, 1, h);
}
ARMCI_ALIAS(ARMCI_NbAcc)

/* A value put is blocking in every form: src, its only copy, is gone on return. */
#define ARMCI_VALUE(T, Name)                                                        \
    int PARMCI_PutValue##Name(T src, void *dst, int proc)                           \
    {                                                                               \
        ARMCI_ENTRY();                                                              \
        return reach_put(&src, dst, sizeof src, proc);                              \
    }                                                                               \
    ARMCI_ALIAS(ARMCI_PutValue##Name)                                               \
    int PARMCI_NbPutValue##Name(T src, void *dst, int proc, armci_hdl_t *nb_handle) \
    {                                                                               \
        ARMCI_ENTRY();                                                              \
        return armci_mark(nb_handle, reach_put(&src, dst, sizeof src, proc), proc); \
    }                                                                               \
    ARMCI_ALIAS(ARMCI_NbPutValue##Name)                                             \
    T PARMCI_GetValue##Name(void *src, int proc)                                    \
    {                                                                               \
        ARMCI_ENTRY();                                                              \
        T v = 0;                                                                    \
        armci_check(reach_get(src, &v, sizeof v, proc));                            \
        return v;                                                                   \
    }                                                                               \
    ARMCI_ALIAS(ARMCI_GetValue##Name)
ARMCI_VALUE(int, Int)
ARMCI_VALUE(long, Long)
ARMCI_VALUE(float, Float)
ARMCI_VALUE(double, Double)
