/* Strided and vector put, get and accumulate. Every remote range is checked
 * before any byte moves. */
#include "core/rma.h"
#include "base/acc.h"
#include "base/request.h"
#include "base/strided.h"
#include "transport/shm/shm_ops.h"
#include "transport/transport.h"

enum nc_op { NC_PUT, NC_GET, NC_ACC };

/* Plans a strided operation on rank and translates its remote side:
 * src_l and dst_l receive the local addresses to walk. */
static int strided_prepare(const char *call, enum nc_op op, reach_type_t t, const void *scale,
                           const void *src, void *dst, const reach_strided_t *shape, int rank,
                           reach_strided_t *plan, const char **src_l, char **dst_l)
{
    size_t src_ext, dst_ext;
    int st = rt_check_rank(call, rank);
    if (st == REACH_SUCCESS)
        st = strided_plan(call, shape, plan, &src_ext, &dst_ext);
    if (st == REACH_SUCCESS && op == NC_ACC)   /* the target and its strides at any byte */
        st = acc_check_size(call, t, scale, src_ext ? shape->count[0] : 0);
    if (st != REACH_SUCCESS)
        return st;
    char *remote_l = NULL;
    const void *remote = op == NC_GET ? src : dst;
    st = rt_translate(call, rank, remote, op == NC_GET ? src_ext : dst_ext, &remote_l);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, op == NC_GET ? dst : src, op == NC_GET ? dst_ext : src_ext,
                            op == NC_GET ? "destination" : "source");
    if (st != REACH_SUCCESS)
        return st;
    *src_l = op == NC_GET ? remote_l : src;
    *dst_l = op == NC_GET ? dst : remote_l;
    return REACH_SUCCESS;
}

static int strided_run(const char *call, enum nc_op op, reach_type_t t, const void *scale,
                       const void *src, void *dst, const reach_strided_t *shape, int rank)
{
    reach_strided_t plan;
    const char *s;
    char *d;
    int st = strided_prepare(call, op, t, scale, src, dst, shape, rank, &plan, &s, &d);
    if (st != REACH_SUCCESS)
        return st;
    size_t bytes = strided_bytes(&plan);
    if (bytes == 0)
        return REACH_SUCCESS;
    rt_count(op == NC_PUT ? REACH_OP_PUT : op == NC_GET ? REACH_OP_GET : REACH_OP_ACC, rank, bytes);
    if (op == NC_GET ? s == NULL : d == NULL)   /* the remote side has no mapping here */
        return net->strided(op == NC_PUT ? NET_PUT : op == NC_GET ? NET_GET : NET_ACC, rank, t, scale,
                           &plan, op == NC_GET ? dst : src, (uintptr_t)(op == NC_GET ? src : dst));
    if (op == NC_ACC)
        shm_strided_acc(rank, t, scale, &plan, s, d);
    else
        shm_strided_copy(&plan, s, d);
    return REACH_SUCCESS;
}

int reach_put_strided(const void *src, void *dst, const reach_strided_t *shape, int rank)
{
    return strided_run("reach_put_strided", NC_PUT, REACH_INT, NULL, src, dst, shape, rank);
}

int reach_get_strided(const void *src, void *dst, const reach_strided_t *shape, int rank)
{
    return strided_run("reach_get_strided", NC_GET, REACH_INT, NULL, src, dst, shape, rank);
}

int reach_acc_strided(reach_type_t type, const void *scale, const void *src, void *dst,
                      const reach_strided_t *shape, int rank)
{
    return strided_run("reach_acc_strided", NC_ACC, type, scale, src, dst, shape, rank);
}

/* The non-blocking form: a complete request once the operation is done. */
static int strided_nb(const char *call, enum nc_op op, reach_type_t t, const void *scale,
                      const void *src, void *dst, const reach_strided_t *shape, int rank,
                      reach_request_t *req)
{
    int st = req_check(call, req);
    return st != REACH_SUCCESS ? st
                               : req_issue(req, strided_run(call, op, t, scale, src, dst, shape, rank));
}

int reach_put_strided_nb(const void *src, void *dst, const reach_strided_t *shape, int rank,
                         reach_request_t *req)
{
    return strided_nb("reach_put_strided_nb", NC_PUT, REACH_INT, NULL, src, dst, shape, rank, req);
}

int reach_get_strided_nb(const void *src, void *dst, const reach_strided_t *shape, int rank,
                         reach_request_t *req)
{
    return strided_nb("reach_get_strided_nb", NC_GET, REACH_INT, NULL, src, dst, shape, rank, req);
}

int reach_acc_strided_nb(reach_type_t type, const void *scale, const void *src, void *dst,
                         const reach_strided_t *shape, int rank, reach_request_t *req)
{
    return strided_nb("reach_acc_strided_nb", NC_ACC, type, scale, src, dst, shape, rank, req);
}

int reach_copy_strided(const void *src, void *dst, const reach_strided_t *shape)
{
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
        shm_strided_copy(&plan, src, dst);
    return st;
}

/* Checks every descriptor of a vector operation: the remote side of each
 * pair inside a segment of rank, the local side not NULL. */
static int vector_check(const char *call, enum nc_op op, reach_type_t t, const void *scale,
                        const reach_vector_t *v, size_t n, int rank)
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
            void *remote = op == NC_GET ? v[i].src[j] : v[i].dst[j];
            void *local = op == NC_GET ? v[i].dst[j] : v[i].src[j];
            char *mapped = NULL;
            st = rt_translate(call, rank, remote, v[i].bytes, &mapped);
            if (st == REACH_SUCCESS)
                st = rt_check_local(call, local, v[i].bytes, "local address");
            if (st == REACH_SUCCESS && op == NC_ACC)
                st = acc_check_size(call, t, scale, v[i].bytes);
        }
    }
    return st;
}

static int vector_run(const char *call, enum nc_op op, reach_type_t t, const void *scale,
                      const reach_vector_t *v, size_t n, int rank)
{
    int st = vector_check(call, op, t, scale, v, n, rank);
    if (st != REACH_SUCCESS)
        return st;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].count * v[i].bytes;
    rt_count(op == NC_PUT ? REACH_OP_PUT : op == NC_GET ? REACH_OP_GET : REACH_OP_ACC, rank, total);
    if (rt.peers[rank].map == NULL)
        return net->vector(op == NC_PUT ? NET_PUT : op == NC_GET ? NET_GET : NET_ACC, rank, t, scale,
                           v, n);
    for (size_t i = 0; i < n; i++) {
        size_t b = v[i].bytes;
        for (size_t j = 0; j < v[i].count && b > 0; j++) {
            char *mapped = NULL;
            void *remote = op == NC_GET ? v[i].src[j] : v[i].dst[j];
            rt_translate(call, rank, remote, b, &mapped);
            if (op == NC_GET)
                shm_copy(v[i].dst[j], mapped, b);
            else if (op == NC_PUT)
                shm_copy(mapped, v[i].src[j], b);
            else
                shm_acc(rank, t, scale, v[i].src[j], mapped, b);
        }
    }
    return REACH_SUCCESS;
}

int reach_put_vector(const reach_vector_t *v, size_t n, int rank)
{
    return vector_run("reach_put_vector", NC_PUT, REACH_INT, NULL, v, n, rank);
}

int reach_get_vector(const reach_vector_t *v, size_t n, int rank)
{
    return vector_run("reach_get_vector", NC_GET, REACH_INT, NULL, v, n, rank);
}

int reach_acc_vector(reach_type_t type, const void *scale, const reach_vector_t *v, size_t n, int rank)
{
    return vector_run("reach_acc_vector", NC_ACC, type, scale, v, n, rank);
}

static int vector_nb(const char *call, enum nc_op op, reach_type_t t, const void *scale,
                     const reach_vector_t *v, size_t n, int rank, reach_request_t *req)
{
    int st = req_check(call, req);
    return st != REACH_SUCCESS ? st : req_issue(req, vector_run(call, op, t, scale, v, n, rank));
}

int reach_put_vector_nb(const reach_vector_t *v, size_t n, int rank, reach_request_t *req)
{
    return vector_nb("reach_put_vector_nb", NC_PUT, REACH_INT, NULL, v, n, rank, req);
}

int reach_get_vector_nb(const reach_vector_t *v, size_t n, int rank, reach_request_t *req)
{
    return vector_nb("reach_get_vector_nb", NC_GET, REACH_INT, NULL, v, n, rank, req);
}

int reach_acc_vector_nb(reach_type_t type, const void *scale, const reach_vector_t *v, size_t n,
                        int rank, reach_request_t *req)
{
    return vector_nb("reach_acc_vector_nb", NC_ACC, type, scale, v, n, rank, req);
}
