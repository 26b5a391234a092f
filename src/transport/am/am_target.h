/* A request served at its target by a handler that a layer above
 * registered (am.h's am_handler): the request as the handler sees it and
 * the handler's type. Types only, so that core/service.h can give them to
 * the layers above without the rest of the protocol. */
#ifndef REACH_TRANSPORT_AM_TARGET_H
#define REACH_TRANSPORT_AM_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* A request being served at its target, by the server thread. */
typedef struct am_target {
    int origin;
    char *local; /* the request's address in this process */
    uint64_t a, b;
    const void *data; /* its payload, 8-byte aligned */
    size_t len;
    int state;     /* 0 at the first attempt; the handler's own after */
    int64_t value; /* the answer's value */
    void *reply;   /* the answer's message, its data after the header (am_answer) */
    size_t answer_len;
} am_target_t;

/* Serves t: 1 when done (answered, if the origin waits), 0 to be tried
 * again later (the server keeps the request and retries it while it
 * polls; only requests that wait for something another process releases
 * by remote atomics need this). */
typedef int (*am_handler_fn)(am_target_t *t);

#endif
