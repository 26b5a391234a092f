/* The network table with every message recorded (REACH_TRACE, base/trace.h):
 * stands between the protocol and the backend in use. A message carries a
 * tag before its header (its sender, number and channel), which the
 * receiving side records and takes off before the protocol sees it; a
 * message sent while one is being handled names that one as its cause. The
 * protocol is the same traced or not: only am.net differs. */
#include "transport/am/am_internal.h"
#include "base/trace.h"

#include <stdlib.h>
#include <string.h>

typedef struct trace_tag {
    int32_t from;
    uint32_t seq, chan, pad; /* 16 bytes: the header after it keeps its alignment */
} trace_tag_t;

/* A request of the backend's, with what must outlive it: the tagged
 * header of a send, or the number of a get or atomic, recorded done. */
typedef struct trace_req {
    void *req;
    int rank;
    uint32_t seq; /* 0 for a send */
    char hdr[];
} trace_req_t;

static const net_backend_t *inner;
static net_upcalls_t upper;
static _Thread_local uint64_t cause; /* the message being handled by this thread */

uint64_t am_trace_cause(void)
{
    return cause;
}

uint64_t am_trace_as(uint64_t c)
{
    uint64_t was = cause;
    cause = c;
    return was;
}

static void trace_arrived(net_recv_fn fn, const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    trace_tag_t tag;
    if (hlen < sizeof tag)
        rt_fatal("network: a message without its trace tag (REACH_TRACE must be set alike on every rank)");
    memcpy(&tag, hdr, sizeof tag);
    trace_record(TRACE_RECV, (int)tag.chan, tag.from, tag.seq, (uint32_t)(hlen - sizeof tag + len), 0);
    uint64_t outer = cause;
    cause = (uint64_t)(tag.from + 1) << 32 | tag.seq;
    fn((const char *)hdr + sizeof tag, hlen - sizeof tag, data, len, rndv);
    trace_record(TRACE_HANDLED, (int)tag.chan, tag.from, tag.seq, 0, 0);
    cause = outer;
}

static void trace_on_request(const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    trace_arrived(upper.request, hdr, hlen, data, len, rndv);
}

static void trace_on_reply(const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    trace_arrived(upper.reply, hdr, hlen, data, len, rndv);
}

static void trace_on_push(const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    trace_arrived(upper.push, hdr, hlen, data, len, rndv);
}

static int trace_init(void *base, size_t len, const net_upcalls_t *up)
{
    static net_upcalls_t traced; /* the backend may keep the pointer */
    upper = *up;
    traced = (net_upcalls_t){trace_on_request, trace_on_reply, trace_on_push, up->received};
    return inner->init(base, len, &traced);
}

static void trace_finalize(void)
{
    inner->finalize();
}

static const char *trace_describe(void)
{
    return inner->describe();
}

static trace_req_t *trace_req(void *req, int rank, uint32_t seq, size_t room)
{
    trace_req_t *t = malloc(sizeof *t + room);
    if (!t)
        rt_oom("REACH_TRACE", sizeof *t + room);
    *t = (trace_req_t){req, rank, seq};
    return t;
}

static void *trace_send(net_chan_t chan, int rank, const void *hdr, size_t hlen, const void *data, size_t len,
                        int flags)
{
    uint32_t seq = trace_next_seq();
    trace_tag_t tag = {rt.rank, seq, (uint32_t)chan, 0};
    trace_record(TRACE_SEND, chan, rank, seq, (uint32_t)(hlen + len), cause);
    if (flags & NET_FREE) {
        /* The caller's block goes now; the backend frees this one: the tag
         * and header, and the data with them if the caller's data followed
         * its header (else the data stays where it is, as the caller gave it). */
        int after = len && data == (const char *)hdr + hlen;
        size_t room = sizeof tag + hlen + (after ? len : 0);
        char *m = malloc(room);
        if (!m)
            rt_oom("REACH_TRACE", room);
        memcpy(m, &tag, sizeof tag);
        memcpy(m + sizeof tag, hdr, hlen);
        if (after) {
            memcpy(m + sizeof tag + hlen, data, len);
            data = m + sizeof tag + hlen;
        }
        free((void *)hdr);
        return inner->send(chan, rank, m, sizeof tag + hlen, data, len, flags);
    }
    /* The tagged header lives as long as the send. */
    trace_req_t *t = trace_req(NULL, rank, 0, sizeof tag + hlen);
    memcpy(t->hdr, &tag, sizeof tag);
    memcpy(t->hdr + sizeof tag, hdr, hlen);
    if (!(t->req = inner->send(chan, rank, t->hdr, sizeof tag + hlen, data, len, flags))) {
        free(t);
        return NULL;
    }
    return t;
}

static void trace_recv_rndv(void *rndv, void *place, size_t len, void *arg)
{
    inner->recv_rndv(rndv, place, len, arg);
}

/* A get or atomic issued: recorded, and recorded done when it is. */
static void *trace_issued(void *req, int rank, uint32_t seq)
{
    if (req)
        return trace_req(req, rank, seq, 0);
    trace_record(TRACE_DONE, 0, rank, seq, 0, 0);
    return NULL;
}

static void *trace_get(int rank, void *dst, uintptr_t raddr, size_t bytes)
{
    uint32_t seq = trace_next_seq();
    trace_record(TRACE_GET, 0, rank, seq, (uint32_t)bytes, cause);
    return trace_issued(inner->get(rank, dst, raddr, bytes), rank, seq);
}

static void *trace_amo(int rank, int cas, const uint64_t *operand, uint64_t *result, uintptr_t raddr)
{
    uint32_t seq = trace_next_seq();
    trace_record(TRACE_AMO, cas, rank, seq, 8, cause);
    return trace_issued(inner->amo(rank, cas, operand, result, raddr), rank, seq);
}

static int trace_test(void *req, const char *what, int rank)
{
    trace_req_t *t = req;
    if (!inner->test(t->req, what, rank))
        return 0;
    if (t->seq)
        trace_record(TRACE_DONE, 0, t->rank, t->seq, 0, 0);
    free(t);
    return 1;
}

static unsigned trace_progress(net_worker_t w)
{
    return inner->progress(w);
}

static int trace_arm(net_worker_t w)
{
    return inner->arm(w);
}

static int trace_fd(net_worker_t w)
{
    return inner->fd(w);
}

static int trace_idle_ms(void)
{
    return inner->idle_ms();
}

static void trace_signal(net_worker_t w)
{
    inner->signal(w);
}

static net_backend_t net_traced = {
    .init = trace_init,
    .finalize = trace_finalize,
    .describe = trace_describe,
    .send = trace_send,
    .recv_rndv = trace_recv_rndv,
    .get = trace_get,
    .amo = trace_amo,
    .test = trace_test,
    .progress = trace_progress,
    .arm = trace_arm,
    .fd = trace_fd,
    .idle_ms = trace_idle_ms,
    .signal = trace_signal,
    /* .acc_chunk, .put_part: the inner backend's (am_trace_net) */
};

const net_backend_t *am_trace_net(const net_backend_t *net)
{
    inner = net;
    net_traced.acc_chunk = net->acc_chunk;
    net_traced.put_part = net->put_part;
    return &net_traced;
}
