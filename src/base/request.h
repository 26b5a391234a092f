/* Request handles of non-blocking calls. On the node every operation is
 * complete when its call returns, so a request is complete once issued. */
#ifndef REACH_BASE_REQUEST_H
#define REACH_BASE_REQUEST_H
#include <string.h>
#include "base/state.h"

#define REQ_MAGIC 0x52435251u   /* "RCRQ" */
enum { REQ_DONE = 1 };

/* Checks the request pointer of a non-blocking call. */
static inline int req_check(const char *call, reach_request_t *req)
{
    if (unlikely(!rt.initialized))
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (unlikely(req == NULL))
        return rt_error(REACH_ERR_HANDLE, call, "request is NULL");
    return REACH_SUCCESS;
}

/* Marks req issued (and complete) if the operation's status st is success;
 * returns st. A failed call leaves req as it was. */
static inline int req_issue(reach_request_t *req, int st)
{
    if (st == REACH_SUCCESS) {
        req->magic = REQ_MAGIC;
        req->state = REQ_DONE;
        req->seq = 0;
    }
    return st;
}
#endif
