/* Strided and vector calls of the ARMCI layer, translated to reach's
 * descriptors (ARMCI's int arrays checked on the way). */
#include "armci_internal.h"

#include <stdlib.h>

/* Fills a reach shape from ARMCI's arrays; NULL stride arrays are allowed
 * for 0 levels. */
static int armci_shape(int src_stride[], int dst_stride[], int count[], int levels, reach_strided_t *s)
{
    if (levels < 0 || levels > ARMCI_MAX_STRIDE_LEVEL)
        return armci_error(REACH_ERR_ARG, "%d stride levels (0 to %d allowed)", levels, ARMCI_MAX_STRIDE_LEVEL);
    if (count == NULL || (levels > 0 && (src_stride == NULL || dst_stride == NULL)))
        return armci_error(REACH_ERR_ARG, "a count or stride array is NULL");
    s->levels = levels;
    for (int i = 0; i <= levels; i++) {
        if (count[i] < 0)
            return armci_error(REACH_ERR_ARG, "count[%d] = %d is negative", i, count[i]);
        s->count[i] = (size_t)count[i];
    }
    for (int i = 0; i < levels; i++) {
        if (src_stride[i] < 0 || dst_stride[i] < 0)
            return armci_error(REACH_ERR_ARG, "stride %d is negative", i);
        s->src_stride[i] = (size_t)src_stride[i];
        s->dst_stride[i] = (size_t)dst_stride[i];
    }
    return REACH_SUCCESS;
}

enum { OP_PUT, OP_GET, OP_ACC };

/* Blocking if nb is 0, else non-blocking on h (implicit if NULL). */
static int armci_strided(int op, int optype, void *scale, void *src, int src_stride[], void *dst, int dst_stride[],
                         int count[], int levels, int proc, int nb, armci_hdl_t *h)
{
    reach_strided_t s;
    int st = armci_shape(src_stride, dst_stride, count, levels, &s);
    if (st != REACH_SUCCESS)
        return st;
    int t = op == OP_ACC ? armci_acc_type(optype) : REACH_INT;
    if (t < 0)
        return REACH_ERR_TYPE;
    reach_request_t r, *req = &r;
    switch (op) {
    case OP_PUT: st = nb ? reach_put_strided_nb(src, dst, &s, proc, req) : reach_put_strided(src, dst, &s, proc); break;
    case OP_GET: st = nb ? reach_get_strided_nb(src, dst, &s, proc, req) : reach_get_strided(src, dst, &s, proc); break;
    default:
        st = nb ? reach_acc_strided_nb((reach_type_t)t, scale, src, dst, &s, proc, req)
                : reach_acc_strided((reach_type_t)t, scale, src, dst, &s, proc);
        break;
    }
    return nb ? armci_mark(h, st, proc) : st;
}

int PARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                int stride_levels, int proc)
{
    ARMCI_ENTRY();
    return armci_strided(OP_PUT, 0, NULL, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels, proc,
                         0, NULL);
}
ARMCI_ALIAS(ARMCI_PutS)

int PARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                int stride_levels, int proc)
{
    ARMCI_ENTRY();
    return armci_strided(OP_GET, 0, NULL, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels, proc,
                         0, NULL);
}
ARMCI_ALIAS(ARMCI_GetS)

int PARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                int count[], int stride_levels, int proc)
{
    ARMCI_ENTRY();
    return armci_strided(OP_ACC, optype, scale, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels,
                         proc, 0, NULL);
}
ARMCI_ALIAS(ARMCI_AccS)

int PARMCI_NbPutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                  int stride_levels, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_strided(OP_PUT, 0, NULL, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels, proc,
                         1, h);
}
ARMCI_ALIAS(ARMCI_NbPutS)

int PARMCI_NbGetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                  int stride_levels, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_strided(OP_GET, 0, NULL, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels, proc,
                         1, h);
}
ARMCI_ALIAS(ARMCI_NbGetS)

int PARMCI_NbAccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                  int count[], int stride_levels, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_strided(OP_ACC, optype, scale, src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels,
                         proc, 1, h);
}
ARMCI_ALIAS(ARMCI_NbAccS)

int PARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                     int stride_levels, int *flag, int val, int proc)
{
    ARMCI_ENTRY();
    int st = PARMCI_PutS(src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels, proc);
    if (st == REACH_SUCCESS)
        st = reach_fence(proc); /* the data is complete before the flag moves */
    if (st == REACH_SUCCESS)
        st = reach_put(&val, flag, sizeof val, proc);
    return st;
}
ARMCI_ALIAS(ARMCI_PutS_flag)

int PARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                         int stride_levels, int *flag, int val, int proc)
{
    ARMCI_ENTRY();
    return PARMCI_PutS_flag(src_ptr, src_stride_arr, dst_ptr, dst_stride_arr, count, stride_levels, flag, val, proc);
}
ARMCI_ALIAS(ARMCI_PutS_flag_dir)

/* Copies between the strided region at ptr and the packed buffer buf
 * (to_buf: ptr to buf); the packed strides follow from the counts. */
static void armci_local_copy(void *ptr, int levels, int stride_arr[], int count[], char *buf, int to_buf)
{
    int packed[ARMCI_MAX_STRIDE_LEVEL];
    for (int i = 0; i < levels && i < ARMCI_MAX_STRIDE_LEVEL && count; i++)
        packed[i] = (i == 0 ? count[0] : packed[i - 1] * count[i]);
    reach_strided_t s;
    int st = to_buf ? armci_shape(stride_arr, packed, count, levels, &s)
                    : armci_shape(packed, stride_arr, count, levels, &s);
    if (st == REACH_SUCCESS)
        st = to_buf ? reach_copy_strided(ptr, buf, &s) : reach_copy_strided(buf, ptr, &s);
    armci_check(st);
}

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    ARMCI_ENTRY();
    armci_local_copy(ptr, stride_levels, stride_arr, count, buf, 0);
}

void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    ARMCI_ENTRY();
    armci_local_copy(ptr, stride_levels, stride_arr, count, buf, 1);
}

void armci_stride_info_init(void)
{
}

/* ---- vectors ----------------------------------------------------------------- */

static int armci_vector(int op, int optype, void *scale, armci_giov_t darr[], int len, int proc, int nb, armci_hdl_t *h)
{
    if (len < 0 || (len > 0 && darr == NULL))
        return armci_error(REACH_ERR_ARG, "%d descriptors at %p", len, (void *)darr);
    int t = op == OP_ACC ? armci_acc_type(optype) : REACH_INT;
    if (t < 0)
        return REACH_ERR_TYPE;
    reach_vector_t small[16], *v = len <= 16 ? small : malloc(sizeof *v * (size_t)len);
    if (v == NULL)
        return armci_error(REACH_ERR_NOMEM, "no memory for %d descriptors", len);
    int st = REACH_SUCCESS;
    for (int i = 0; i < len && st == REACH_SUCCESS; i++) {
        if (darr[i].bytes < 0 || darr[i].ptr_array_len < 0)
            st = armci_error(REACH_ERR_ARG, "descriptor %d has a negative size or length", i);
        v[i] = (reach_vector_t){darr[i].src_ptr_array, darr[i].dst_ptr_array, (size_t)darr[i].ptr_array_len,
                                (size_t)darr[i].bytes};
    }
    if (st == REACH_SUCCESS) {
        reach_request_t r, *req = &r;
        size_t n = (size_t)len;
        switch (op) {
        case OP_PUT: st = nb ? reach_put_vector_nb(v, n, proc, req) : reach_put_vector(v, n, proc); break;
        case OP_GET: st = nb ? reach_get_vector_nb(v, n, proc, req) : reach_get_vector(v, n, proc); break;
        default:
            st = nb ? reach_acc_vector_nb((reach_type_t)t, scale, v, n, proc, req)
                    : reach_acc_vector((reach_type_t)t, scale, v, n, proc);
            break;
        }
        if (nb)
            st = armci_mark(h, st, proc);
    }
    if (v != small)
        free(v);
    return st;
}

int PARMCI_PutV(armci_giov_t darr[], int len, int proc)
{
    ARMCI_ENTRY();
    return armci_vector(OP_PUT, 0, NULL, darr, len, proc, 0, NULL);
}
ARMCI_ALIAS(ARMCI_PutV)

int PARMCI_GetV(armci_giov_t darr[], int len, int proc)
{
    ARMCI_ENTRY();
    return armci_vector(OP_GET, 0, NULL, darr, len, proc, 0, NULL);
}
ARMCI_ALIAS(ARMCI_GetV)

int PARMCI_AccV(int op, void *scale, armci_giov_t darr[], int len, int proc)
{
    ARMCI_ENTRY();
    return armci_vector(OP_ACC, op, scale, darr, len, proc, 0, NULL);
}
ARMCI_ALIAS(ARMCI_AccV)

int PARMCI_NbPutV(armci_giov_t darr[], int len, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_vector(OP_PUT, 0, NULL, darr, len, proc, 1, h);
}
ARMCI_ALIAS(ARMCI_NbPutV)

int PARMCI_NbGetV(armci_giov_t darr[], int len, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_vector(OP_GET, 0, NULL, darr, len, proc, 1, h);
}
ARMCI_ALIAS(ARMCI_NbGetV)

int PARMCI_NbAccV(int op, void *scale, armci_giov_t darr[], int len, int proc, armci_hdl_t *h)
{
    ARMCI_ENTRY();
    return armci_vector(OP_ACC, op, scale, darr, len, proc, 1, h);
}
ARMCI_ALIAS(ARMCI_NbAccV)
