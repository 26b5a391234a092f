/* Request handles of non-blocking calls. On the node every operation is
 * complete when its call returns; one to another node may still be in
 * flight: its request holds the rank and the transfer's ticket
 * (core/rma.h). */
#ifndef REACH_BASE_REQUEST_H
#define REACH_BASE_REQUEST_H
#include <string.h>
#include "base/state.h"

#define REQUEST_MAGIC 0x52435251u              /* "RCRQ" */
enum { REQUEST_DONE = 1, REQUEST_FLIGHT = 2 }; /* in flight: REQUEST_FLIGHT + rank */

/* Checks the request pointer of a non-blocking call. */
static inline int req_check(const char *call, reach_request_t *req)
{
    if (unlikely(!rt.initialized))
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (unlikely(req == NULL))
        return rt_error(REACH_ERR_HANDLE, call, "request is NULL");
    return REACH_SUCCESS;
}

/* Marks req issued if the operation's status st is success: complete
 * (ticket 0), or in flight to rank; returns st. A failed call leaves req
 * as it was. */
static inline int req_issue_to(reach_request_t *req, int st, int rank, uint64_t ticket)
{
    if (st == REACH_SUCCESS) {
        req->magic = REQUEST_MAGIC;
        req->state = ticket ? REQUEST_FLIGHT + (uint32_t)rank : REQUEST_DONE;
        req->seq = ticket;
    }
    return st;
}
#endif
