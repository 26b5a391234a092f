/* Contiguous put, get and accumulate, blocking and non-blocking. */
#include "base/acc.h"
#include "base/request.h"
#include "core/rma.h"

#include <string.h>

/* A put's checks, then the put (nbi: see rma_put). */
static int put_checked(const char *call, const void *src, void *dst, size_t bytes, int rank, int nbi)
{
    int st = rma_check(call, rank, dst, bytes);
    if (likely(st == REACH_SUCCESS))
        st = rt_check_local(call, src, bytes, "source");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rma_count(REACH_OP_PUT, rank, bytes);
    rma_put(rank, src, (uintptr_t)dst, bytes, nbi);
    return REACH_SUCCESS;
}

int reach_put(const void *src, void *dst, size_t bytes, int rank)
{
    return put_checked("reach_put", src, dst, bytes, rank, 0);
}

static int get_checked(const char *call, const void *src, void *dst, size_t bytes, int rank)
{
    int st = rma_check(call, rank, src, bytes);
    if (likely(st == REACH_SUCCESS))
        st = rt_check_local(call, dst, bytes, "destination");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rma_count(REACH_OP_GET, rank, bytes);
    rma_get(rank, (uintptr_t)src, dst, bytes);
    return REACH_SUCCESS;
}

int reach_get(const void *src, void *dst, size_t bytes, int rank)
{
    return get_checked("reach_get", src, dst, bytes, rank);
}

static int acc_checked(const char *call, reach_type_t type, const void *scale, const void *src, void *dst,
                    size_t bytes, int rank)
{
    int st = rma_check(call, rank, dst, bytes);
    if (st == REACH_SUCCESS)
        st = acc_check(call, type, scale, dst, bytes);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, src, bytes, "source");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rma_count(REACH_OP_ACC, rank, bytes);
    rma_acc(rank, type, scale, src, (uintptr_t)dst, bytes);
    return REACH_SUCCESS;
}

int reach_acc(reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes,
              int rank)
{
    return acc_checked("reach_acc", type, scale, src, dst, bytes, rank);
}

int reach_put_nb(const void *src, void *dst, size_t bytes, int rank, reach_request_t *req)
{
    int st = req_check("reach_put_nb", req);
    return st != REACH_SUCCESS ? st : req_issue(req, put_checked("reach_put_nb", src, dst, bytes, rank, 0));
}

int reach_get_nb(const void *src, void *dst, size_t bytes, int rank, reach_request_t *req)
{
    int st = req_check("reach_get_nb", req);
    return st != REACH_SUCCESS ? st : req_issue(req, get_checked("reach_get_nb", src, dst, bytes, rank));
}

int reach_acc_nb(reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes,
                 int rank, reach_request_t *req)
{
    int st = req_check("reach_acc_nb", req);
    return st != REACH_SUCCESS
               ? st
               : req_issue(req, acc_checked("reach_acc_nb", type, scale, src, dst, bytes, rank));
}

/* A zeroed request (never issued, or already waited for) is complete. */
static int req_valid(const char *call, reach_request_t *req)
{
    int st = req_check(call, req);
    if (st == REACH_SUCCESS && req->magic != 0 && req->magic != REQ_MAGIC)
        st = rt_error(REACH_ERR_HANDLE, call, "request %p was never issued by reach", (void *)req);
    return st;
}

int reach_wait(reach_request_t *req)
{
    int st = req_valid("reach_wait", req);
    if (st == REACH_SUCCESS)
        memset(req, 0, sizeof *req);
    return st;
}

int reach_test(reach_request_t *req, int *done)
{
    int st = req_valid("reach_test", req);
    if (st == REACH_SUCCESS && done == NULL)
        st = rt_error(REACH_ERR_ARG, "reach_test", "done is NULL");
    if (st == REACH_SUCCESS) {
        *done = req->magic == 0 || req->state == REQ_DONE;
        if (*done)
            memset(req, 0, sizeof *req);
    }
    return st;
}

int reach_wait_all(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_wait_all", "reach is not initialized");
    return REACH_SUCCESS;
}

int reach_wait_rank(int rank)
{
    return rt_check_rank("reach_wait_rank", rank);
}
