/* The UCX backend's running operations: sends on the protocol's
 * channels, rendezvous receives, gets and atomics on a rank's arena,
 * requests tested, the workers' progress, arming and wake-up, and the
 * handlers of the client's and the server's arrivals. Below the rest of
 * the backend (ucx.h); the backend's state is defined here. */
#include "transport/ucx/ucx.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ux_state ux;

_Noreturn static void ux_failed(const char *what, int rank, ucs_status_t s)
{
    rt_fatal("UCX %s to rank %d (pid %d) failed: %s%s", what, rank, rt.peers[rank].pid, ucs_status_string(s),
             wait_rank_ended(rank) ? "; that rank has ended without reach_finalize (killed, crashed or exited)" : "");
}

/* A get by messages' request, on the wire: the data's place at the
 * origin, and where and how much at the target. */
typedef struct ux_get_hdr {
    uint64_t msg, raddr, bytes;
    int32_t from;
    int32_t pad;
} ux_get_hdr_t;

/* A get's answer, on the wire: the origin's get by messages, and where
 * in its data this message's part begins. */
typedef struct ux_get_data_hdr {
    uint64_t msg, off;
} ux_get_data_hdr_t;

/* A get by messages (ux_get), its request tagged by its low bit: done once
 * all its data has arrived and its request's send has completed (the
 * send's callback may come after the data), which the application thread
 * sees (both come from progress of its client worker). */
typedef struct ux_get_msg {
    ux_get_hdr_t hdr; /* the request's header, until its send completes */
    void *dst;
    size_t bytes;
    size_t got; /* of the bytes, those arrived */
    int sent;
    ucs_status_t status; /* of the request's send */
} ux_get_msg_t;

int ux_test(void *req, const char *what, int rank)
{
    if ((uintptr_t)req & 1) {
        ux_get_msg_t *g = (ux_get_msg_t *)((uintptr_t)req - 1);
        if (g->sent && g->status != UCS_OK)
            ux_failed(what, rank, g->status);
        if (g->got != g->bytes || !g->sent)
            return 0;
        free(g);
        return 1;
    }
    ucs_status_t s = ucp_request_check_status(req);
    if (s == UCS_INPROGRESS)
        return 0;
    ucp_request_free(req);
    if (s != UCS_OK)
        ux_failed(what, rank, s);
    return 1;
}

/* A returned request: NULL (done), an error (fatal) or one to test. */
static void *ux_started(void *req, const char *what, int rank)
{
    if (UCS_PTR_IS_ERR(req))
        ux_failed(what, rank, UCS_PTR_STATUS(req));
    return req;
}

static void ux_free_sent(void *request, ucs_status_t status, void *user_data)
{
    (void)status;
    free(user_data);
    ucp_request_free(request);
}

/* Whether data to rank goes eagerly, in parts of UX_PART: rank is on
 * another machine and UCX's only network is TCP. */
static int ux_tcp_peer(int rank)
{
    return ux.tcp && rt.peers[rank].host != rt.peers[rt.rank].host;
}

size_t ux_put_part(int rank)
{
    return ux_tcp_peer(rank) ? UX_PART : 0;
}

void *ux_send(net_chan_t chan, int rank, const void *hdr, size_t hlen, const void *data, size_t len, int flags)
{
    static const unsigned id[] = {UX_REQUEST, UX_REPLY, UX_PUSH, UX_PUSH};
    static const int ep[] = {UX_C2S, UX_S2C, UX_C2C, UX_S2C};
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                             .flags = (flags & NET_EAGER) || ux_tcp_peer(rank) ? UCP_AM_SEND_FLAG_EAGER : 0};
    if (flags & NET_FREE) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        p.cb.send = ux_free_sent;
        p.user_data = (void *)hdr;
    }
    void *req = ux_started(ucp_am_send_nbx(ux.ep[ep[chan]][rank], id[chan], hdr, hlen, data, len, &p), "send", rank);
    if (flags & NET_FREE) {
        if (req == NULL)
            free((void *)hdr);
        return NULL; /* the callback releases it */
    }
    return req;
}

static void ux_rndv_done(void *request, ucs_status_t status, size_t length, void *user_data)
{
    (void)length;
    if (status != UCS_OK)
        rt_fatal("UCX: receiving a message's data failed: %s", ucs_status_string(status));
    ucp_request_free(request);
    ux.up->received(user_data);
}

void ux_recv_rndv(void *rndv, void *place, size_t len, void *arg)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                             .cb.recv_am = ux_rndv_done,
                             .user_data = arg};
    void *req = ucp_am_recv_data_nbx(ux.worker[NET_SERVER], rndv, place, len, &p);
    if (UCS_PTR_IS_ERR(req))
        rt_fatal("UCX: receiving a message's data failed: %s", ucs_status_string(UCS_PTR_STATUS(req)));
    if (req == NULL)
        ux.up->received(arg);
}

/* A get's request has been sent (or has failed: ux_test says so). */
static void ux_get_asked(void *request, ucs_status_t status, void *user_data)
{
    ux_get_msg_t *g = user_data;
    g->status = status;
    g->sent = 1;
    ucp_request_free(request);
}

/* A get of UX_GET_MSG_MIN bytes or more, where UCX's only network is TCP
 * (ux.tcp), is a message to the target's server, which sends the data
 * back as messages (ux_on_get): over TCP, UCX does a get in software at
 * the target, in small pieces. Between two machines (ucx_perftest, UCX_TLS=tcp, 1 MiB)
 * a get moved 306 MB/s where active messages moved 1131, and Global
 * Arrays' NGA_Get of 64 KiB took 164-202 us by get, 85-108 by messages
 * and 69-81 with ARMCI-MPI. From a rank of this machine UCX reads the
 * memory itself where it can (ux.cma), with no thread of the target's.
 * With every rank its own node on one 2-core machine, by messages,
 * GA_Dgemm of 128 x 128 took 0.36-0.41 ms at the median and 1.0-1.3 at
 * the 90th percentile: its gets waited for a server thread that the
 * computing ranks kept off the cores. By UCX's get it took 0.20-0.23 and
 * 0.23-0.30, and a blocking get of 256 KiB 18-34 us against 191-200. */
static int ux_get_by_message(int rank, size_t bytes)
{
    return bytes >= UX_GET_MSG_MIN && (ux_tcp_peer(rank) || (ux.tcp && !ux.cma));
}

void *ux_get(int rank, void *dst, uintptr_t raddr, size_t bytes)
{
    if (!ux_get_by_message(rank, bytes)) {
        ucp_request_param_t p = {.op_attr_mask = 0};
        return ux_started(ucp_get_nbx(ux.ep[UX_C2S][rank], dst, bytes, raddr, ux.rkey[rank], &p), "get", rank);
    }
    ux_get_msg_t *g = malloc(sizeof *g);
    if (!g)
        rt_oom("reach_get", sizeof *g);
    *g = (ux_get_msg_t){.hdr = {.msg = (uintptr_t)g, .raddr = raddr, .bytes = bytes, .from = rt.rank},
                        .dst = dst,
                        .bytes = bytes,
                        .status = UCS_OK};
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                             .cb.send = ux_get_asked,
                             .user_data = g};
    void *req =
        ux_started(ucp_am_send_nbx(ux.ep[UX_C2S][rank], UX_GET, &g->hdr, sizeof g->hdr, NULL, 0, &p), "get", rank);
    g->sent = req == NULL;
    return (void *)((uintptr_t)g + 1);
}

void *ux_amo(int rank, int cas, const uint64_t *operand, uint64_t *result, uintptr_t raddr)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                             .datatype = ucp_dt_make_contig(sizeof *operand),
                             .reply_buffer = result};
    return ux_started(ucp_atomic_op_nbx(ux.ep[UX_C2S][rank], cas ? UCP_ATOMIC_OP_CSWAP : UCP_ATOMIC_OP_ADD, operand, 1,
                                        raddr, ux.rkey[rank], &p),
                      "atomic", rank);
}

unsigned ux_progress(net_worker_t w)
{
    return ux.worker[w] ? ucp_worker_progress(ux.worker[w]) : 0;
}

/* The server does not sleep while a get's data is on its way: the rest
 * of an eager send that the socket did not take at once, or a
 * rendezvous' later steps, need its worker's progress, and each would
 * otherwise cost a wake-up. */
static uint64_t ux_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int ux_arm(net_worker_t w)
{
    if (w == NET_SERVER && atomic_load_explicit(&ux.get_sends, memory_order_relaxed) > 0 &&
        ux_now_ns() - ux.get_at < UX_GET_AWAKE_NS)
        return 0;
    return ux.worker[w] == NULL || ucp_worker_arm(ux.worker[w]) == UCS_OK;
}

int ux_fd(net_worker_t w)
{
    return ux.worker[w] ? ux.fd[w] : -1;
}

/* The keepalive interval: a quarter of REACH_PEER_TIMEOUT, at least
 * 50 ms. */
int ux_keepalive_ms(void)
{
    double ms = rt.cfg.peer_timeout * 250;
    return ms < 50 ? 50 : ms > 1e8 ? 100000000 : (int)ms;
}

/* Keepalive runs only when a worker is progressed: with lost-peer checks
 * on, a sleeping worker wakes once an interval. */
int ux_idle_ms(void)
{
    return ux.watching ? ux_keepalive_ms() : -1;
}

void ux_signal(net_worker_t w)
{
    ucp_worker_signal(ux.worker[w]);
}

void ux_drain_gets(void)
{
    for (uint64_t end = ux_now_ns() + 1000000000u;
         atomic_load_explicit(&ux.get_sends, memory_order_relaxed) > 0 && ux_now_ns() < end;) {
        ucp_worker_progress(ux.worker[NET_SERVER]);
        ucp_worker_progress(ux.worker[NET_CLIENT]);
    }
}

/* ---- arrivals -------------------------------------------------------------------- */

static ucs_status_t ux_arrived(net_recv_fn fn, const void *header, size_t header_length, void *data, size_t length,
                               const ucp_am_recv_param_t *param)
{
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    fn(header, header_length, rndv ? NULL : data, length, rndv ? data : NULL);
    return UCS_OK;
}

ucs_status_t ux_on_request(void *arg, const void *header, size_t header_length, void *data, size_t length,
                           const ucp_am_recv_param_t *param)
{
    (void)arg;
    return ux_arrived(ux.up->request, header, header_length, data, length, param);
}

ucs_status_t ux_on_reply(void *arg, const void *header, size_t header_length, void *data, size_t length,
                         const ucp_am_recv_param_t *param)
{
    (void)arg;
    return ux_arrived(ux.up->reply, header, header_length, data, length, param);
}

ucs_status_t ux_on_push(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param)
{
    (void)arg;
    return ux_arrived(ux.up->push, header, header_length, data, length, param);
}

static void ux_get_sent(void *request, ucs_status_t status, void *user_data)
{
    ux_free_sent(request, status, user_data);
    atomic_fetch_sub_explicit(&ux.get_sends, 1, memory_order_relaxed);
}

/* The target's server sends the data from its arena, each message's
 * header naming the origin's request and the part's place in it. To
 * another machine over TCP the answer goes eagerly, in parts of
 * UX_PART: UCX's rendezvous would wait for the origin's progress at
 * each step, and an origin that computes meanwhile (Global Arrays' gets,
 * then a multiply) would receive its data only at its wait. */
ucs_status_t ux_on_get(void *arg, const void *header, size_t header_length, void *data, size_t length,
                       const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)length, (void)param;
    ux_get_hdr_t h;
    if (header_length != sizeof h)
        rt_fatal("network: malformed get");
    memcpy(&h, header, sizeof h);
    if (h.from < 0 || h.from >= rt.size || ux.ep[UX_S2C][h.from] == NULL)
        rt_fatal("network: a get from rank %d, which is not of another node", h.from);
    int eager = ux_tcp_peer(h.from);
    size_t part = eager ? UX_PART : h.bytes;
    rt_order_acquire();
    for (size_t off = 0; off < h.bytes; off += part) {
        size_t n = h.bytes - off < part ? h.bytes - off : part;
        ux_get_data_hdr_t *msg = malloc(sizeof *msg); /* (a header lives until its send completes) */
        if (!msg)
            rt_oom("reach_get", sizeof *msg);
        *msg = (ux_get_data_hdr_t){h.msg, off};
        ucp_request_param_t p = {.op_attr_mask =
                                     UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS,
                                 .cb.send = ux_get_sent,
                                 .user_data = msg,
                                 .flags = eager ? UCP_AM_SEND_FLAG_EAGER : 0};
        void *req = ux_started(ucp_am_send_nbx(ux.ep[UX_S2C][h.from], UX_GET_DATA, msg, sizeof *msg,
                                               (const char *)(uintptr_t)h.raddr + off, n, &p),
                               "get's data", h.from);
        if (req == NULL) {
            free(msg);
        } else { /* a rendezvous' later steps, or an eager send's rest, need this worker */
            atomic_fetch_add_explicit(&ux.get_sends, 1, memory_order_relaxed);
            ux.get_at = ux_now_ns();
        }
    }
    return UCS_OK;
}

static void ux_get_received(void *request, ucs_status_t status, size_t length, void *user_data)
{
    if (status != UCS_OK)
        rt_fatal("UCX: receiving a get's data failed: %s", ucs_status_string(status));
    ucp_request_free(request);
    ((ux_get_msg_t *)user_data)->got += length;
}

/* A part of this process's get's data: into place, at once or by
 * rendezvous. */
ucs_status_t ux_on_get_data(void *arg, const void *header, size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param)
{
    (void)arg;
    ux_get_data_hdr_t h;
    if (header_length != sizeof h)
        rt_fatal("network: malformed get data");
    memcpy(&h, header, sizeof h);
    ux_get_msg_t *g = (ux_get_msg_t *)(uintptr_t)h.msg;
    if (h.off > g->bytes || length > g->bytes - h.off || length > g->bytes - g->got)
        rt_fatal("network: a get's data of %zu bytes at %llu, where %zu were asked (%zu arrived)", length,
                 (unsigned long long)h.off, g->bytes, g->got);
    char *place = (char *)g->dst + h.off;
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        memcpy(place, data, length);
        g->got += length;
        return UCS_OK;
    }
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                             .cb.recv_am = ux_get_received,
                             .user_data = g};
    void *req = ucp_am_recv_data_nbx(ux.worker[NET_CLIENT], data, place, length, &p);
    if (UCS_PTR_IS_ERR(req))
        rt_fatal("UCX: receiving a get's data failed: %s", ucs_status_string(UCS_PTR_STATUS(req)));
    if (req == NULL)
        g->got += length;
    return UCS_OK;
}
