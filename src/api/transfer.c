/* Contiguous put, get and accumulate, blocking and non-blocking. */
#include "base/serial.h"
#include "base/acc.h"
#include "base/request.h"
#include "core/rma.h"

#include <string.h>

/* With ticket, the put may still be in flight to another node on return
 * (*ticket: rma_put_nb's). */
static int put_checked(const char *call, const void *src, void *dst, size_t bytes, int rank, uint64_t *ticket)
{
    int st = rma_check(call, rank, dst, bytes);
    if (likely(st == REACH_SUCCESS))
        st = rt_check_local(call, src, bytes, "source");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rma_count(REACH_OP_PUT, rank, bytes);
    if (ticket)
        *ticket = rma_put_nb(rank, src, (uintptr_t)dst, bytes);
    else
        rma_put(rank, src, (uintptr_t)dst, bytes);
    return REACH_SUCCESS;
}

int reach_put(const void *src, void *dst, size_t bytes, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return put_checked("reach_put", src, dst, bytes, rank, NULL);
}

/* With ticket, as put_checked. */
static int get_checked(const char *call, const void *src, void *dst, size_t bytes, int rank, uint64_t *ticket)
{
    int st = rma_check(call, rank, src, bytes);
    if (likely(st == REACH_SUCCESS))
        st = rt_check_local(call, dst, bytes, "destination");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rma_count(REACH_OP_GET, rank, bytes);
    if (ticket)
        *ticket = rma_get_nb(rank, (uintptr_t)src, dst, bytes);
    else
        rma_get(rank, (uintptr_t)src, dst, bytes);
    return REACH_SUCCESS;
}

int reach_get(const void *src, void *dst, size_t bytes, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return get_checked("reach_get", src, dst, bytes, rank, NULL);
}

/* With ticket, as put_checked. */
static int acc_checked(const char *call, reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes,
                       int rank, uint64_t *ticket)
{
    int st = rma_check(call, rank, dst, bytes);
    if (st == REACH_SUCCESS)
        st = acc_check(call, type, scale, dst, bytes);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, src, bytes, "source");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rma_count(REACH_OP_ACC, rank, bytes);
    rma_complete_or_hand(rank, rma_acc_nb(rank, type, scale, src, (uintptr_t)dst, bytes), ticket);
    return REACH_SUCCESS;
}

int reach_acc(reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes, int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    return acc_checked("reach_acc", type, scale, src, dst, bytes, rank, NULL);
}

/* To another node, the non-blocking put, get and accumulate return with
 * the transfer in flight (overlapping what the caller does next); reach_wait, reach_test,
 * reach_wait_rank, reach_wait_all, a fence, a barrier, or the next
 * operation to the rank but a get complete it. */
int reach_put_nb(const void *src, void *dst, size_t bytes, int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    uint64_t ticket = 0;
    int st = req_check("reach_put_nb", req);
    if (st == REACH_SUCCESS)
        st = put_checked("reach_put_nb", src, dst, bytes, rank, &ticket);
    return req_issue_to(req, st, rank, ticket);
}

int reach_get_nb(const void *src, void *dst, size_t bytes, int rank, reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    uint64_t ticket = 0;
    int st = req_check("reach_get_nb", req);
    if (st == REACH_SUCCESS)
        st = get_checked("reach_get_nb", src, dst, bytes, rank, &ticket);
    return req_issue_to(req, st, rank, ticket);
}

int reach_acc_nb(reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes, int rank,
                 reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    uint64_t ticket = 0;
    int st = req_check("reach_acc_nb", req);
    if (st == REACH_SUCCESS)
        st = acc_checked("reach_acc_nb", type, scale, src, dst, bytes, rank, &ticket);
    return req_issue_to(req, st, rank, ticket);
}

/* A zeroed request (never issued, or already waited for) is complete. */
static int req_valid(const char *call, reach_request_t *req)
{
    int st = req_check(call, req);
    if (st == REACH_SUCCESS && req->magic != 0 &&
        (req->magic != REQUEST_MAGIC ||
         (req->state >= REQUEST_FLIGHT && req->state - REQUEST_FLIGHT >= (uint32_t)rt.size)))
        st = rt_error(REACH_ERR_HANDLE, call, "request %p was never issued by reach", (void *)req);
    return st;
}

/* The rank of a request in flight, -1 if it is complete. */
static int req_rank(const reach_request_t *req)
{
    return req->magic == REQUEST_MAGIC && req->state >= REQUEST_FLIGHT ? (int)(req->state - REQUEST_FLIGHT) : -1;
}

int reach_wait(reach_request_t *req)
{
    SERIAL_CALL(SERIAL_DATA);
    int st = req_valid("reach_wait", req);
    if (st == REACH_SUCCESS) {
        if (req_rank(req) >= 0)
            rma_complete(req_rank(req), req->seq);
        memset(req, 0, sizeof *req);
    }
    return st;
}

int reach_test(reach_request_t *req, int *done)
{
    SERIAL_CALL(SERIAL_DATA);
    int st = req_valid("reach_test", req);
    if (st == REACH_SUCCESS && done == NULL)
        st = rt_error(REACH_ERR_ARG, "reach_test", "done is NULL");
    if (st == REACH_SUCCESS) {
        *done = req_rank(req) < 0 || rma_test(req_rank(req), req->seq);
        if (*done)
            memset(req, 0, sizeof *req);
    }
    return st;
}

int reach_wait_all(void)
{
    SERIAL_CALL(SERIAL_DATA);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_wait_all", "reach is not initialized");
    rma_flush_local_all();
    return REACH_SUCCESS;
}

int reach_progress(void)
{
    SERIAL_CALL(SERIAL_DATA);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_progress", "reach is not initialized");
    rma_progress();
    return REACH_SUCCESS;
}

int reach_wait_rank(int rank)
{
    SERIAL_CALL(SERIAL_DATA);
    int st = rt_check_rank("reach_wait_rank", rank);
    if (st == REACH_SUCCESS)
        rma_flush_local(rank);
    return st;
}
