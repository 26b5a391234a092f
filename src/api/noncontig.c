/* Strided and vector put, get and accumulate. Every remote range is checked
 * before any byte moves. */
#include "base/serial.h"
#include "base/acc.h"
#include "base/request.h"
#include "base/strided.h"
#include "core/rma.h"

static const reach_op_kind_t op_kind[] = {REACH_OP_PUT, REACH_OP_GET, REACH_OP_ACC};

/* Checks a strided operation on rank and plans it: every remote byte
 * inside one segment of rank, the local side not NULL. With ticket, it
 * may still be in flight to another node on return (*ticket:
 * rma_strided_nb's); else it is complete. */
static int strided_run(const char *call, xfer_t op, reach_type_t t, const void *scale, const void *src, void *dst,
                       const reach_strided_t *shape, int rank, uint64_t *ticket)
{
    reach_strided_t plan;
    size_t src_ext, dst_ext;
    int get = op == XFER_GET;
    int st = rt_check_rank(call, rank);
    if (st == REACH_SUCCESS)
        st = strided_plan(call, shape, &plan, &src_ext, &dst_ext);
    if (st == REACH_SUCCESS && op == XFER_ACC) /* the target and its strides at any byte */
        st = acc_check_size(call, t, scale, src_ext ? shape->count[0] : 0);
    if (st == REACH_SUCCESS)
        st = rma_check(call, rank, get ? src : dst, get ? src_ext : dst_ext);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, get ? dst : src, get ? dst_ext : src_ext, get ? "destination" : "source");
    if (st != REACH_SUCCESS)
        return st;
    size_t bytes = strided_bytes(&plan);
    if (bytes == 0)
        return REACH_SUCCESS;
    rma_count(op_kind[op], rank, bytes);
    rma_complete_or_hand(rank, rma_strided_nb(op, rank, t, scale, &plan, get ? dst : src, (uintptr_t)(get ? src : dst)),
                         ticket);
    return REACH_SUCCESS;
}

int reach_put_strided(const void *src, void *dst, const reach_strided_t *shape, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return strided_run("reach_put_strided", XFER_PUT, REACH_INT, NULL, src, dst, shape, rank, NULL);
}

int reach_get_strided(const void *src, void *dst, const reach_strided_t *shape, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return strided_run("reach_get_strided", XFER_GET, REACH_INT, NULL, src, dst, shape, rank, NULL);
}

int reach_acc_strided(reach_type_t type, const void *scale, const void *src, void *dst, const reach_strided_t *shape,
                      int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return strided_run("reach_acc_strided", XFER_ACC, type, scale, src, dst, shape, rank, NULL);
}

/* The non-blocking form: to another node the request is in flight until
 * a wait completes it, as reach_get_nb's (neither side's buffer to be
 * touched meanwhile). */
static int strided_nb(const char *call, xfer_t op, reach_type_t t, const void *scale, const void *src, void *dst,
                      const reach_strided_t *shape, int rank, reach_request_t *req)
{
    uint64_t ticket = 0;
    int st = req_check(call, req);
    if (st == REACH_SUCCESS)
        st = strided_run(call, op, t, scale, src, dst, shape, rank, &ticket);
    return req_issue_to(req, st, rank, ticket);
}

int reach_put_strided_nb(const void *src, void *dst, const reach_strided_t *shape, int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    return strided_nb("reach_put_strided_nb", XFER_PUT, REACH_INT, NULL, src, dst, shape, rank, req);
}

int reach_get_strided_nb(const void *src, void *dst, const reach_strided_t *shape, int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    return strided_nb("reach_get_strided_nb", XFER_GET, REACH_INT, NULL, src, dst, shape, rank, req);
}

int reach_acc_strided_nb(reach_type_t type, const void *scale, const void *src, void *dst, const reach_strided_t *shape,
                         int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    return strided_nb("reach_acc_strided_nb", XFER_ACC, type, scale, src, dst, shape, rank, req);
}

int reach_copy_strided(const void *src, void *dst, const reach_strided_t *shape)
{
    SERIAL_CALL(SERIAL_DATA);
    const char *call = "reach_copy_strided";
    reach_strided_t plan;
    size_t src_ext, dst_ext;
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    int st = strided_plan(call, shape, &plan, &src_ext, &dst_ext);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, src, src_ext, "source");
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, dst, dst_ext, "destination");
    if (st == REACH_SUCCESS && strided_bytes(&plan) > 0)
        rma_copy_strided(&plan, src, dst);
    return st;
}

/* Checks every descriptor of a vector operation: the remote side of each
 * pair inside a segment of rank, the local side not NULL. */
static int vector_check(const char *call, xfer_t op, reach_type_t t, const void *scale, const reach_vector_t *v,
                        size_t n, int rank)
{
    int st = rt_check_rank(call, rank);
    if (st == REACH_SUCCESS && v == NULL && n > 0)
        st = rt_error(REACH_ERR_ARG, call, "the vector descriptors are NULL");
    for (size_t i = 0; st == REACH_SUCCESS && i < n; i++) {
        if (v[i].count > 0 && v[i].bytes > 0 && (v[i].src == NULL || v[i].dst == NULL)) {
            st = rt_error(REACH_ERR_ARG, call, "descriptor %zu has a NULL address array", i);
            break;
        }
        for (size_t j = 0; st == REACH_SUCCESS && j < v[i].count && v[i].bytes > 0; j++) {
            void *remote = op == XFER_GET ? v[i].src[j] : v[i].dst[j];
            void *local = op == XFER_GET ? v[i].dst[j] : v[i].src[j];
            st = rma_check(call, rank, remote, v[i].bytes);
            if (st == REACH_SUCCESS)
                st = rt_check_local(call, local, v[i].bytes, "local address");
            if (st == REACH_SUCCESS && op == XFER_ACC)
                st = acc_check_size(call, t, scale, v[i].bytes);
        }
    }
    return st;
}

/* With ticket, as strided_run. */
static int vector_run(const char *call, xfer_t op, reach_type_t t, const void *scale, const reach_vector_t *v, size_t n,
                      int rank, uint64_t *ticket)
{
    int st = vector_check(call, op, t, scale, v, n, rank);
    if (st != REACH_SUCCESS)
        return st;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].count * v[i].bytes;
    rma_count(op_kind[op], rank, total);
    rma_complete_or_hand(rank, rma_vector_nb(op, rank, t, scale, v, n), ticket);
    return REACH_SUCCESS;
}

int reach_put_vector(const reach_vector_t *v, size_t n, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return vector_run("reach_put_vector", XFER_PUT, REACH_INT, NULL, v, n, rank, NULL);
}

int reach_get_vector(const reach_vector_t *v, size_t n, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return vector_run("reach_get_vector", XFER_GET, REACH_INT, NULL, v, n, rank, NULL);
}

int reach_acc_vector(reach_type_t type, const void *scale, const reach_vector_t *v, size_t n, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return vector_run("reach_acc_vector", XFER_ACC, type, scale, v, n, rank, NULL);
}

static int vector_nb(const char *call, xfer_t op, reach_type_t t, const void *scale, const reach_vector_t *v, size_t n,
                     int rank, reach_request_t *req)
{
    uint64_t ticket = 0;
    int st = req_check(call, req);
    if (st == REACH_SUCCESS)
        st = vector_run(call, op, t, scale, v, n, rank, &ticket);
    return req_issue_to(req, st, rank, ticket);
}

int reach_put_vector_nb(const reach_vector_t *v, size_t n, int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    return vector_nb("reach_put_vector_nb", XFER_PUT, REACH_INT, NULL, v, n, rank, req);
}

int reach_get_vector_nb(const reach_vector_t *v, size_t n, int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    return vector_nb("reach_get_vector_nb", XFER_GET, REACH_INT, NULL, v, n, rank, req);
}

int reach_acc_vector_nb(reach_type_t type, const void *scale, const reach_vector_t *v, size_t n, int rank,
                        reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    return vector_nb("reach_acc_vector_nb", XFER_ACC, type, scale, v, n, rank, req);
}
