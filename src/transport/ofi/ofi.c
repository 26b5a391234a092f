/* The libfabric backend of net.h: one RDM endpoint per worker, the
 * client's and the server's (the watch has none: ofi_watch.c), each with
 * its own completion queue whose wait object is a file descriptor, so
 * that a sleeping thread wakes on it.
 * One address vector holds every endpoint of every rank. The arena is registered once; its
 * key and base go to every rank.
 *
 * Messages carry a small header of the backend's (ofi_wire_t: channel,
 * kind, lengths) before the protocol's header and data. Each endpoint
 * keeps OFI_RECVS receive buffers posted, of OFI_EAGER bytes. A message
 * that fits is sent by fi_inject (up to OFI_INJECT bytes, where the
 * provider takes that much) or from a private copy, so the caller's data
 * may be reused at once; a larger one goes by rendezvous: the sender
 * registers its data, sends its address and key, the receiver reads it
 * with fi_read straight into place and says so (OFI_RNDV_DONE), and only
 * then is the send complete. Gets up to OFI_GET_MSG_MAX are a message
 * answered by the target's server, larger ones fi_read on its endpoint,
 * in reads of OFI_READ_PART posted at once.
 *
 * 64-bit atomics are done by the target's server worker with the CPU's
 * atomics on the arena (OFI_AMO): libfabric does not say whether a
 * provider's atomics are atomic against the CPU atomics of the target's
 * node, which reach needs, so the provider's own are not used.
 *
 * Needs a provider with FI_MSG and FI_RMA on RDM endpoints, ordered
 * sends, completion queues that wait on a file descriptor, and local
 * buffers that need no registration (FI_MR_LOCAL): tcp (with ofi_rxm)
 * has it all (README.md). REACH_OFI_PROVIDER names one for fi_getinfo. */
#include "transport/ofi/ofi.h"
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- requests ---------------------------------------------------------------------- */

static unsigned ofi_progress_worker(int w);

static int ofi_test(void *req, const char *what, int rank)
{
    ofi_req_t *r = req;
    if (!atomic_load_explicit(&r->done, memory_order_acquire))
        return 0;
    int err = r->err;
    ofi_req_free(r);
    if (err)
        rt_fatal("libfabric %s to rank %d (pid %d) failed: %s%s", what, rank, rt.peers[rank].pid, fi_strerror(err),
                 wait_rank_ended(rank) ? OFI_ENDED : "");
    return 1;
}

/* After posting an operation with rank that returned rc (what: "send
 * to", "read from"): 1 if the provider took it; on -FI_EAGAIN, 0 after
 * progressing worker w (post again); any other error ends the job. */
static int ofi_posted(int w, ssize_t rc, const char *what, int rank)
{
    if (rc == 0)
        return 1;
    if (rc != -FI_EAGAIN)
        rt_fatal("libfabric %s rank %d (pid %d) failed: %s%s", what, rank, rt.peers[rank].pid, fi_strerror((int)-rc),
                 wait_rank_ended(rank) ? OFI_ENDED : "");
    ofi_progress_worker(w);
    wait_tick(); /* (a provider that cannot reach a lost rank may say EAGAIN for ever) */
    return 0;
}

/* Reads len bytes at raddr of rank's worker at into place, from worker w;
 * r completes when they are here. */
static void ofi_read(int w, int rank, int at, void *place, size_t len, uint64_t raddr, uint64_t key, ofi_req_t *r)
{
    r->rank = rank;
    r->w = w;
    while (!ofi_posted(w, fi_read(ofi.w[w].ep, place, len, NULL, ofi.addr[rank][at], raddr, key, &r->ctx), "read from",
                       rank))
        ;
}

/* ---- sending ------------------------------------------------------------------------ */

/* The worker each channel sends from, and the rank's worker it goes to. */
static const int chan_from[] = {
    [NET_REQUEST] = NET_CLIENT, [NET_REPLY] = NET_SERVER, [NET_PUSH] = NET_CLIENT, [NET_SERVER_PUSH] = NET_SERVER};
static const int chan_to[] = {
    [NET_REQUEST] = NET_SERVER, [NET_REPLY] = NET_CLIENT, [NET_PUSH] = NET_CLIENT, [NET_SERVER_PUSH] = NET_CLIENT};

/* Posts a send of buf (len bytes) from worker w to dest; ctx is its
 * completion's context (NULL: inject, no completion). Retries, progressing
 * w, while the provider has no room. */
static void ofi_post_send(int w, fi_addr_t dest, void *buf, size_t len, ofi_req_t *ctx, int rank)
{
    if (ctx)
        ctx->rank = rank;
    while (!ofi_posted(
        w, ctx ? fi_send(ofi.w[w].ep, buf, len, NULL, dest, &ctx->ctx) : fi_inject(ofi.w[w].ep, buf, len, dest),
        "send to", rank))
        ;
}

/* Sends m, hdr (hlen bytes) and data (len) as one message from worker w
 * to rank's worker to: by fi_inject if it is small enough, else from a
 * copy (ofi_copy_take) given back once sent. The caller's buffers may be
 * reused on return. */
static void ofi_send_whole(int w, int rank, int to, const ofi_wire_t *m, const void *hdr, size_t hlen, const void *data,
                           size_t len)
{
    size_t total = sizeof *m + hlen + len;
    char small[OFI_INJECT], *buf = small;
    ofi_req_t *r = NULL;
    if (total > ofi.inject || total > OFI_INJECT) {
        r = ofi_req_new(OFI_REQ_SEND);
        r->buf = buf = ofi_copy_take(total, &r->kept);
    }
    memcpy(buf, m, sizeof *m);
    if (hlen)
        memcpy(buf + sizeof *m, hdr, hlen);
    if (len)
        memcpy(buf + sizeof *m + hlen, data, len);
    ofi_post_send(w, ofi.addr[rank][to], buf, total, r, rank);
}

/* A message of the backend's own, from worker w to rank's worker to. */
static void ofi_send_control(int w, int rank, int to, const ofi_wire_t *m)
{
    ofi_send_whole(w, rank, to, m, NULL, 0, NULL, 0);
}

static void *ofi_send(net_chan_t chan, int rank, const void *hdr, size_t hlen, const void *data, size_t len, int flags)
{
    int w = chan_from[chan], to = chan_to[chan];
    size_t total = sizeof(ofi_wire_t) + hlen + len;
    ofi_wire_t m = {.chan = (uint8_t)chan, .kind = OFI_EAGER_MSG, .from = rt.rank, .hlen = (uint32_t)hlen, .len = len};
    ofi_req_t *user = NULL;
    if (total <= OFI_EAGER) {
        ofi_send_whole(w, rank, to, &m, hdr, hlen, data, len);
    } else {
        /* Rendezvous: into place from the caller's data; or, where the
         * caller asked for eager, whole from a copy (OFI_LARGE_MSG). The
         * caller tests the request unless it is a copy or NET_FREE. */
        ofi_req_t *r = ofi_req_new(OFI_REQ_RNDV);
        const void *src = data;
        if (flags & NET_EAGER) {
            if (!(r->buf = malloc(len)))
                rt_oom("network send", len);
            memcpy(r->buf, data, len);
            src = r->buf;
            m.kind = OFI_LARGE_MSG;
        } else {
            m.kind = OFI_RNDV_MSG;
            r->keep = !(flags & NET_FREE);
            user = r->keep ? r : NULL;
        }
        int rc = ofi_register(w, src, len, &r->mr, &m.key);
        if (rc != 0)
            rt_fatal("libfabric cannot register %zu bytes to send: %s", len, fi_strerror(-rc));
        m.addr = ofi.virt_addr ? (uint64_t)(uintptr_t)src : 0;
        m.token = (uint64_t)(uintptr_t)r;
        ofi_send_whole(w, rank, to, &m, hdr, hlen, NULL, 0);
    }
    if (flags & NET_FREE)
        free((void *)hdr);
    return user;
}

/* A rendezvous message's data: read from the sender into place, then the
 * sender is told and up->received(arg) called. */
static void ofi_read_rndv(int w, const ofi_wire_t *m, void *place, void *arg, void *buf)
{
    ofi_req_t *r = ofi_req_new(OFI_REQ_RNDV_READ);
    r->arg = arg;
    r->buf = buf;
    r->rank = m->from;
    r->token = m->token;
    r->sender_w = chan_from[m->chan];
    ofi_read(w, m->from, r->sender_w, place, m->len, m->addr, m->key, r);
}

static void ofi_recv_rndv(void *rndv, void *place, size_t len, void *arg)
{
    if (len != ((const ofi_wire_t *)rndv)->len)
        rt_fatal("libfabric: a rendezvous of %zu bytes received as %zu", (size_t)((const ofi_wire_t *)rndv)->len, len);
    ofi_read_rndv(NET_SERVER, rndv, place, arg, NULL);
}

/* An eager message too large to send whole, at worker w: its headers kept
 * and its data read into one buffer, then passed on (ofi_rndv_read). */
static void ofi_recv_large(int w, const ofi_wire_t *m)
{
    size_t head = sizeof *m + m->hlen;
    char *buf = malloc(head + m->len);
    if (!buf)
        rt_oom("network receive", head + m->len);
    memcpy(buf, m, head);
    ofi_read_rndv(w, m, buf + head, NULL, buf);
}

/* ---- gets and atomics ------------------------------------------------------------ */

static void *ofi_get(int rank, void *dst, uintptr_t raddr, size_t bytes)
{
    ofi_req_t *r = ofi_req_new(OFI_REQ_GET);
    r->keep = 1;
    if (bytes > OFI_GET_MSG_MAX) { /* reads of OFI_READ_PART, all posted at once */
        r->reads = (bytes + OFI_READ_PART - 1) / OFI_READ_PART;
        for (size_t off = 0; off < bytes; off += OFI_READ_PART) {
            ofi_req_t *part = ofi_req_new(OFI_REQ_GET_READ);
            part->arg = r;
            ofi_read(NET_CLIENT, rank, NET_SERVER, (char *)dst + off,
                     bytes - off < OFI_READ_PART ? bytes - off : OFI_READ_PART, ofi_remote(rank, raddr + off),
                     ofi.keys[rank], part);
        }
        return r;
    }
    r->dst = dst;
    ofi_wire_t m = {.kind = OFI_GET, .from = rt.rank, .len = bytes, .addr = raddr, .token = (uint64_t)(uintptr_t)r};
    ofi_send_control(NET_CLIENT, rank, NET_SERVER, &m);
    return r;
}

/* At the target's server worker: a get's data, from the arena, as one
 * message to the origin's client. */
static void ofi_serve_get(const ofi_wire_t *m)
{
    ofi_wire_t a = {.kind = OFI_GET_DATA, .from = rt.rank, .len = m->len, .token = m->token};
    ofi_send_whole(NET_SERVER, m->from, NET_CLIENT, &a, NULL, 0, (const void *)(uintptr_t)m->addr, m->len);
}

static void *ofi_amo(int rank, int cas, const uint64_t *operand, uint64_t *result, uintptr_t raddr)
{
    ofi_req_t *r = ofi_req_new(OFI_REQ_AMO);
    r->keep = 1;
    r->result = result;
    ofi_wire_t m = {.chan = NET_REQUEST,
                    .kind = OFI_AMO,
                    .from = rt.rank,
                    .hlen = (uint32_t)cas,
                    .addr = raddr,
                    .key = *operand,
                    .len = *result,
                    .token = (uint64_t)(uintptr_t)r};
    ofi_send_control(NET_CLIENT, rank, NET_SERVER, &m);
    return r;
}

/* At the target's server worker: the atomic, with the CPU's atomics on
 * the arena, and its answer. */
static void ofi_serve_amo(const ofi_wire_t *m)
{
    _Atomic uint64_t *word = (_Atomic uint64_t *)(uintptr_t)m->addr;
    uint64_t old;
    if (m->hlen) { /* compare-and-swap: key expected, len stored */
        old = m->key;
        atomic_compare_exchange_strong(word, &old, m->len);
    } else {
        old = atomic_fetch_add(word, m->key);
    }
    ofi_wire_t a = {.kind = OFI_AMO_DONE, .from = rt.rank, .len = old, .token = m->token};
    ofi_send_control(NET_SERVER, m->from, NET_CLIENT, &a);
}

/* ---- completions and arrivals --------------------------------------------------------- */

/* A request of the protocol's (keep) is freed by its test; the
 * backend's own here. */
static void ofi_req_done(ofi_req_t *r)
{
    if (r->mr)
        fi_close(&r->mr->fid);
    r->mr = NULL;
    if (r->keep) {
        atomic_store_explicit(&r->done, 1, memory_order_release);
        return;
    }
    ofi_req_free(r);
}

/* A message to the protocol at worker w: its data, or NULL for a
 * rendezvous. */
static void ofi_deliver(int w, const ofi_wire_t *m, const char *data)
{
    net_recv_fn fn = w == NET_SERVER ? ofi.up->request : m->chan == NET_REPLY ? ofi.up->reply : ofi.up->push;
    fn(m + 1, m->hlen, (void *)data, m->len, data ? NULL : (void *)m);
}

/* A message arrived at worker w. */
static void ofi_arrived(int w, const ofi_wire_t *m, size_t got)
{
    const char *hdr = (const char *)(m + 1);
    ofi_req_t *r = (ofi_req_t *)(uintptr_t)m->token;
    switch (m->kind) {
    case OFI_EAGER_MSG:
    case OFI_RNDV_MSG:
        if (got != sizeof *m + m->hlen + (m->kind == OFI_EAGER_MSG ? m->len : 0))
            rt_fatal("libfabric: a malformed message from rank %d", m->from);
        ofi_deliver(w, m, m->kind == OFI_EAGER_MSG ? hdr + m->hlen : NULL);
        return;
    case OFI_LARGE_MSG: ofi_recv_large(w, m); return;
    case OFI_RNDV_DONE: ofi_req_done(r); return;
    case OFI_AMO: ofi_serve_amo(m); return;
    case OFI_AMO_DONE:
        *r->result = m->len;
        ofi_req_done(r);
        return;
    case OFI_GET: ofi_serve_get(m); return;
    case OFI_PING:
    case OFI_PONG: ofi_watch_arrived(m, got); return;
    case OFI_GET_DATA:
        if (got != sizeof *m + m->len)
            rt_fatal("libfabric: a malformed message from rank %d", m->from);
        memcpy(r->dst, m + 1, m->len);
        ofi_req_done(r);
        return;
    default: rt_fatal("libfabric: a message of unknown kind %d from rank %d", m->kind, m->from);
    }
}

static void ofi_completed(int w, ofi_req_t *r, size_t len)
{
    switch (r->kind) {
    case OFI_REQ_RECV:
        ofi_arrived(w, r->buf, len);
        ofi_post_recv(w, r);
        return;
    case OFI_REQ_RNDV_READ: {
        ofi_wire_t m = {.kind = OFI_RNDV_DONE, .from = rt.rank, .token = r->token};
        ofi_send_control(r->w, r->rank, r->sender_w, &m);
        if (r->buf) /* OFI_LARGE_MSG: now whole */
            ofi_deliver(r->w, r->buf, (const char *)r->buf + sizeof m + ((ofi_wire_t *)r->buf)->hlen);
        else
            ofi.up->received(r->arg);
        ofi_req_free(r);
        return;
    }
    case OFI_REQ_GET_READ: { /* a part of the get in arg */
        ofi_req_t *get = r->arg;
        ofi_req_free(r);
        if (--get->reads == 0)
            ofi_req_done(get);
        return;
    }
    default: /* a send */ ofi_req_done(r);
    }
}

/* A failed operation: the protocol's own request says so when tested;
 * anything else ends the job here. */
static void ofi_failed(int w)
{
    struct fi_cq_err_entry e = {0};
    ssize_t n = fi_cq_readerr(ofi.w[w].cq, &e, 0);
    if (n != 1)
        rt_fatal("libfabric: an operation failed, and reading why failed too: %s", fi_strerror((int)-n));
    ofi_req_t *r = e.op_context;
    if (r && r->kind == OFI_REQ_PING) { /* its rank is lost */
        ofi_watch_failed(r->rank, e.err);
        ofi_req_done(r);
        return;
    }
    if (r && r->kind == OFI_REQ_GET_READ) { /* a part of a get: the get says so when tested */
        ((ofi_req_t *)r->arg)->err = e.err;
        ofi_completed(w, r, 0);
        return;
    }
    if (r && r->keep) {
        r->err = e.err;
        ofi_req_done(r);
        return;
    }
    int rank = r ? r->rank : -1;
    if (rank >= 0)
        rt_fatal("libfabric operation with rank %d (pid %d) failed: %s%s", rank, rt.peers[rank].pid, fi_strerror(e.err),
                 wait_rank_ended(rank) ? OFI_ENDED : "");
    rt_fatal("libfabric operation failed: %s", fi_strerror(e.err));
}

/* Each read of the queue progresses the provider (over tcp, a system call
 * or two), so a read that found fewer than it asked for is the last:
 * what came meanwhile waits for the next progress call, not in front of
 * what was found (a second read before handling cost 1.9 us of an 8 B
 * get's 20 on each side). */
/* Reads worker w's completions without handling them; 1 if there are
 * some to handle. */
static int ofi_collect(int w)
{
    enum { BATCH = 16 };
    struct fi_cq_msg_entry e[BATCH];
    for (ssize_t n = BATCH; n == BATCH;) {
        n = fi_cq_read(ofi.w[w].cq, e, BATCH);
        if (n == -FI_EAVAIL) { /* then read on */
            ofi_failed(w);
            n = BATCH;
            continue;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (ofi.w[w].tail - ofi.w[w].head == ofi.w[w].cap) { /* full: twice as large, in order */
                size_t cap = ofi.w[w].cap ? 2 * ofi.w[w].cap : 64;
                struct fi_cq_msg_entry *q = malloc(cap * sizeof *q);
                if (!q)
                    rt_oom("network completions", cap * sizeof *q);
                for (size_t k = 0; k < ofi.w[w].cap; k++)
                    q[k] = ofi.w[w].queue[(ofi.w[w].head + k) % ofi.w[w].cap];
                free(ofi.w[w].queue);
                ofi.w[w].queue = q;
                ofi.w[w].tail -= ofi.w[w].head;
                ofi.w[w].head = 0;
                ofi.w[w].cap = cap;
            }
            ofi.w[w].queue[ofi.w[w].tail++ % ofi.w[w].cap] = e[i];
        }
    }
    return ofi.w[w].tail != ofi.w[w].head;
}

/* Handles what worker w has received or completed, in order; the number
 * of events. Called again from inside a handler, it only reads. */
static unsigned ofi_progress_worker(int w)
{
    ofi_collect(w);
    if (ofi.w[w].handling)
        return 0;
    unsigned events = 0;
    ofi.w[w].handling = 1;
    while (ofi.w[w].head != ofi.w[w].tail) { /* with what handlers' nested progress collects */
        struct fi_cq_msg_entry e = ofi.w[w].queue[ofi.w[w].head++ % ofi.w[w].cap];
        ofi_completed(w, e.op_context, e.len);
        events++;
    }
    ofi.w[w].handling = 0;
    return events;
}

/* ---- start-up, shut-down and the table ------------------------------------------ */

/* Every rank together (the server threads have stopped): what is still
 * arriving is taken, then everything closes. */
static void ofi_finalize(void)
{
    boot_barrier();
    /* The backend's own sends and rendezvous finish (their completions,
     * the peers' OFI_RNDV_DONE), while every rank still progresses. */
    for (int round = 0; round < 1000; round++) {
        for (int w = 0; w < OFI_WORKERS; w++)
            ofi_progress_worker(w);
        if (boot_all_agree(rt.comm, atomic_load(&ofi.owned) == 0))
            break;
    }
    boot_barrier();
    ofi_close_all();
}

/* 1 if worker w may sleep on its descriptor. The tcp provider's
 * fi_trywait says -FI_EAGAIN most of the time when nothing has arrived
 * (measured: 724 of 732 calls of an idle server in a 3 s wait), so reading
 * the completion queue decides then (what it finds is handled by the
 * caller's next progress call); the descriptor is ready whenever a socket
 * has data, and the sleep is bounded (ofi_idle_ms). */
static int ofi_arm(net_worker_t w)
{
    if (w == NET_WATCH) /* no endpoint: nothing arrives */
        return 1;
    struct fid *f = &ofi.w[w].cq->fid;
    if (ofi.w[w].head != ofi.w[w].tail)
        return 0;
    int rc = fi_trywait(ofi.fabric, &f, 1);
    return rc == FI_SUCCESS || (rc == -FI_EAGAIN && !ofi_collect(w));
}

static int ofi_fd(net_worker_t w)
{
    return w == NET_WATCH ? -1 : ofi.w[w].fd;
}

static size_t ofi_put_part(int rank)
{
    (void)rank;
    return OFI_PUT_PART;
}

/* See ofi_arm: a sleeping worker looks again at least this often. */
static int ofi_idle_ms(void)
{
    return 10;
}

static void ofi_signal(net_worker_t w)
{
    if (w != NET_WATCH && ofi.w[w].fd >= 0)
        fi_cq_signal(ofi.w[w].cq);
}

static unsigned ofi_progress(net_worker_t w)
{
    if (w == NET_WATCH) {
        ofi_watch_round();
        return 0;
    }
    return ofi_progress_worker(w);
}

static const char *ofi_describe(void)
{
    static char line[48 + CONFIG_STRING_MAX];
    const char *asked = rt.initialized ? rt.cfg.ofi_provider : getenv("REACH_OFI_PROVIDER");
    snprintf(line, sizeof line, "ofi (libfabric %u.%u, provider %s)", FI_MAJOR(fi_version()), FI_MINOR(fi_version()),
             ofi.info          ? ofi.info->fabric_attr->prov_name
             : asked && *asked ? asked
                               : "libfabric's first");
    return line;
}

/* ---- start-up ----------------------------------------------------------------------- */

static void ofi_settle_progress(void)
{
    ofi_progress_worker(NET_SERVER);
}

/* Collective: the watch's first ping to each rank it watches, sent and
 * complete, then a barrier that keeps the servers' endpoints going for
 * the ranks still at it (the server threads do not run yet). Over tcp the
 * provider makes a connection on the first send to a rank, and its pools
 * of send buffers on an endpoint's first send (ofi_provider_sizes); made
 * here, they are not made seconds into the job, under it, by the watch's
 * first round (as ux_settle does for UCX's connections). The last barrier
 * keeps every rank here until all have left the progress of their
 * servers' endpoints, which the protocol's requests must not reach before
 * am_init has made its state. */
static void ofi_watch_settle(void)
{
    ofi_req_t **pings = calloc((size_t)rt.size, sizeof *pings);
    if (!pings)
        rt_oom("reach_init", (size_t)rt.size * sizeof *pings);
    for (int r = 0; r < rt.size; r++) {
        if (!wait_watched(r))
            continue;
        ofi_req_t *q = pings[r] = ofi_ping_new(r);
        q->keep = 1;
        ofi_post_send(NET_SERVER, ofi.addr[r][NET_SERVER], q->buf, sizeof(ofi_wire_t), q, r);
    }
    for (int r = 0; r < rt.size; r++)
        while (pings[r] && !ofi_test(pings[r], "ping", r))
            ofi_progress_worker(NET_SERVER);
    free(pings);
    boot_barrier_progress(ofi_settle_progress);
    boot_barrier();
}

static int ofi_start(void *base, size_t len, const net_upcalls_t *up)
{
    int st = ofi_init(base, len, up);
    if (st == REACH_SUCCESS)
        ofi_watch_settle();
    return st;
}

const net_backend_t net_ofi = {
    .init = ofi_start,
    .finalize = ofi_finalize,
    .describe = ofi_describe,
    .send = ofi_send,
    .recv_rndv = ofi_recv_rndv,
    .get = ofi_get,
    .amo = ofi_amo,
    .test = ofi_test,
    .progress = ofi_progress,
    .arm = ofi_arm,
    .fd = ofi_fd,
    .idle_ms = ofi_idle_ms,
    .signal = ofi_signal,
    .acc_chunk = OFI_ACC_CHUNK,
    .put_part = ofi_put_part,
};
