/* The protocol's origin side: requests sent by the application thread,
 * flow control, fences, and the replies that come back (pushes:
 * push.c). */
#include "transport/am/am_internal.h"
#include "base/acc.h"
#include "base/serial.h"
#include "base/trace.h"
#include "base/wait.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Of the client's empty polls, one in this many also serves, once a wait
 * has made AM_SERVE_AFTER: a round trip's short wait does not pay for
 * serving (over libfabric's tcp, reading the server's queue costs an
 * epoll_wait: 1 us of an 8 B get's 14), a wait in a barrier does not
 * wake the server thread for what arrives. */
#define AM_SERVE_EVERY 4
#define AM_SERVE_AFTER 16

/* Sleeps on the client's file descriptor until something arrives (10 ms
 * at most), unless something has already; 1 if the sleep ran out with
 * nothing (the caller then sleeps again without spinning first). */
int am_client_sleep(void)
{
    if (am.net->arm(NET_CLIENT)) {
        int fd = am.net->fd(NET_CLIENT);
        struct pollfd pfd = {fd, POLLIN, 0};
        rt_stat_inc(&rt.stats.blocking_waits);
        wait_tick();
        int timed_out = poll(&pfd, 1, 10) == 0;
        /* A message that progress finds at once did not ready the
         * descriptor. */
        int missed = timed_out && am.net->progress(NET_CLIENT) != 0;
        rt_order_acquire();
        wait_woke(timed_out, missed);
        return timed_out && !missed;
    }
    return 0;
}

/* The application thread sends a message: counted, and ordered after what
 * the thread wrote before (rt_order_release). */
void am_client_sent(void)
{
    rt_stat_inc(&rt.stats.messages);
    rt_order_release();
}

/* Waits for progress on the client worker, serving meanwhile what arrives
 * for this process (am_serve_try) if serve: polls, then sleeps on the
 * client's file descriptor (the server thread serves then), so that a
 * waiting process gives its core away. */
static void am_client_poll(unsigned *spins, int serve)
{
    rt_order_release();
    unsigned progressed = am.net->progress(NET_CLIENT);
    if (serve)
        progressed += am_serve_try();
    rt_order_acquire();
    if (progressed) {
        *spins = 0;
        return;
    }
    if (wait_net_spin_on(++*spins))
        return;
    *spins = am_client_sleep() ? wait_spins() : 0;
}

/* The same, serving on every few polls once a wait has made
 * AM_SERVE_AFTER. */
void am_client_progress(unsigned *spins)
{
    am_client_poll(spins, *spins >= AM_SERVE_AFTER && *spins % AM_SERVE_EVERY == 0);
}

void am_wait_req(void *req, const char *what, int rank)
{
    unsigned spins = 0;
    while (req && !am.net->test(req, what, rank))
        am_client_progress(&spins);
}

/* A step of a wait that a data call makes for its own request once issued
 * whole (never between taking a transfer's entry in flight and entering
 * it): the call lock may go meanwhile to the threads waiting for it
 * (base/serial.h), whose requests then go out beside this one. Not for a
 * counted request outside the flights (a blocking put): a barrier or fence
 * that another thread runs meanwhile counts it, and completes only the
 * flights, so its send, which a rendezvous must progress, would wait for
 * this thread. Not for a reply (am_wait_slot: a get's, an atomic's) or a
 * fence (am_wait_told): those keep the lock. */
static void am_progress_yielding(unsigned *spins)
{
    serial_yield();
    am_client_progress(spins);
}

/* A data call's wait for its own request. */
static void am_wait_req_yielding(void *req, const char *what, int rank)
{
    unsigned spins = 0;
    while (req && !am.net->test(req, what, rank))
        am_progress_yielding(&spins);
}

/* A step of a wait that serves on every poll: in a GA_Sync every process
 * fences at once, and each answer or tell waits for its target to serve.
 * Between two machines (one rank on each, each on a core of its own),
 * ARMCI_AllFence after an 8 B put to the other took 35 us serving on
 * every fourth poll, and 18-27 us serving on every one. */
static void am_progress_serving(unsigned *spins)
{
    am_client_poll(spins, 1);
}

void am_wait_replies(void)
{
    unsigned spins = 0;
    while (am.pending_total > 0)
        am_progress_serving(&spins);
}

/* A process that had to ask is one that fences: its counted requests ask
 * from then on (until a combined barrier completes them, am_sent_to). */
void am_ask_told(int rank)
{
    if (am.asked[rank] == am.sent[rank] || am.fenced[rank] == am.sent[rank])
        return;
    am_request_t rq = {.kind = REQ_FENCE, .a = am.sent[rank]};
    am_send(rank, &rq, NULL, 0, NULL);
    am.asked[rank] = am.sent[rank];
    am.telling = 1;
}

/* Waits for the count sent so far: another thread's later writes are not
 * this fence's. */
void am_wait_told(int rank)
{
    uint32_t upto = am.sent[rank];
    unsigned spins = 0;
    while ((int32_t)(am.fenced[rank] - upto) < 0)
        am_progress_serving(&spins);
    am.waited[rank] = upto; /* the next writes are the first after a fence (AM_TELL_FIRST) */
}

void am_wait_slot(am_slot_t *slot)
{
    unsigned spins = 0;
    while (!slot->done)
        am_client_progress(&spins);
}

static void am_wait_pending(int rank, int below)
{
    if (am.pending[rank] < below || am.pending[rank] <= 0)
        return;
    unsigned spins = 0;
    do
        am_client_progress(&spins);
    while (am.pending[rank] >= below && am.pending[rank] > 0);
    trace_word(TRACE_SEE, &am.pending[rank], (uint32_t)am.pending[rank]);
}

/* Whether a transfer in flight has completed; a packed get's slots are
 * freed then. A get that the target could not write into place is done
 * by the network here, at its completion (so reach_test may wait for it,
 * and it reads what is there then); where the target may not write into
 * this process at all (EPERM: ptrace rules, ENOSYS: a sandbox, ESRCH: its
 * pid names another process there), so are the gets that follow. */
static int am_flown_done(struct am_flown *e, int rank)
{
    if (e->req == AM_WRITTEN_GET) {
        if (!e->slot.done)
            return 0;
        if (e->slot.value != 0) {
            am.get_write_refused |= e->slot.value == EPERM || e->slot.value == ENOSYS || e->slot.value == ESRCH;
            am_client_sent();
            am_wait_req(am.net->get(rank, (void *)(uintptr_t)e->hdr.b, e->hdr.raddr, e->hdr.a), "get", rank);
        }
        return 1;
    }
    if (e->req != AM_GETS)
        return am.net->test(e->req, e->what, rank);
    am_gets_t *g = e->dst;
    while (g->next < g->n && g->slot[g->next].done)
        g->next++;
    if (g->next < g->n)
        return 0;
    free(g);
    return 1;
}

/* Retires rank's oldest transfers that have completed; 1 if none is left
 * up to ticket. */
static int am_flight_retire(int rank, uint64_t ticket)
{
    am_flight_t *f = &am.flight[rank];
    while (f->done < ticket && f->done < f->issued) {
        if (!am_flown_done(&f->ring[f->done % AM_FLIGHT_MAX], rank))
            return 0;
        f->done++;
    }
    return 1;
}

static void am_complete_at(int rank, uint64_t ticket, int yield);

/* The entry of rank's next transfer in flight: made at the first, and
 * with the oldest completed when the ring is full. */
static struct am_flown *am_flight_next(int rank)
{
    am_flight_t *f = &am.flight[rank];
    if (!f->ring && !(f->ring = malloc(sizeof *f->ring * AM_FLIGHT_MAX)))
        rt_oom("non-blocking transfer", sizeof *f->ring * AM_FLIGHT_MAX);
    if (f->issued - f->done == AM_FLIGHT_MAX)
        am_complete_at(rank, f->done + 1, 0);
    return &f->ring[f->issued % AM_FLIGHT_MAX];
}

/* Enters rank's next transfer, req (NULL if complete): its ticket, 0 if
 * complete. */
static uint64_t am_flight_add(int rank, void *req, const char *what)
{
    if (!req)
        return 0;
    am_flight_t *f = &am.flight[rank];
    struct am_flown *e = &f->ring[f->issued % AM_FLIGHT_MAX];
    e->req = req;
    e->what = what;
    return ++f->issued;
}

uint64_t am_flight_gets(int rank, am_gets_t *g)
{
    struct am_flown *e = am_flight_next(rank);
    e->dst = g;
    return am_flight_add(rank, AM_GETS, "get");
}

uint64_t am_flight_last(int rank)
{
    am_flight_t *f = &am.flight[rank];
    return f->issued > f->done ? f->issued : 0;
}

/* Yields only between retirements: am_flown_done's own waits do not. */
static void am_complete_at(int rank, uint64_t ticket, int yield)
{
    unsigned spins = 0;
    while (!am_flight_retire(rank, ticket)) {
        if (yield)
            am_progress_yielding(&spins);
        else
            am_client_progress(&spins);
    }
}

void am_complete(int rank, uint64_t ticket)
{
    am_complete_at(rank, ticket, 1);
}

int am_test(int rank, uint64_t ticket)
{
    if (am_flight_retire(rank, ticket))
        return 1;
    unsigned spins = 0;
    am_client_progress(&spins);
    serial_yield();
    return am_flight_retire(rank, ticket);
}

/* Completes every transfer in flight to rank: a put's source may be
 * reused, and its data is in place at the target (a rendezvous completes
 * at the origin once the target has received it); a get's data is here. */
void am_flush_local(int rank)
{
    if (am.flight[rank].issued > am.flight[rank].done)
        am_complete_at(rank, UINT64_MAX, 0);
}

void am_flush_local_all(void)
{
    for (int r = 0; am.net != NULL && r < rt.size; r++)
        am_flush_local(r);
}

static void *am_issue(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot);

/* Sends a request (and data) to rank's server; returns the send's request
 * (NULL if done): the data may be reused once it completes. With a slot,
 * the reply fills it (counted as pending until it arrives); without, the
 * request is counted (see AM_ACK) unless it is a signal (rq->counted 0 on
 * entry marks a request that may be counted). rq->tell on entry is
 * AM_TELL_DRAINED where more parts of the same write follow at once (only
 * the last asks for AM_TELL_ROUND), else AM_TELL_NO; it is set here. Puts
 * may go by rendezvous, straight from src into the target's segment; every
 * other request is eager. First waits for rank's put_nbi, if any. */
void *am_send_nbx(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot)
{
    am_flush_local(rank); /* location consistency */
    return am_issue(rank, rq, data, len, slot);
}

/* am_send_nbx without completing the transfers in flight to rank first. */
static void *am_issue(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot)
{
    am_wait_pending(rank, AM_MAX_PENDING); /* back-pressure, not growth */
    rq->origin = rt.rank;
    rq->counted = slot == NULL && rq->counted;
    rq->token = (uint64_t)(uintptr_t)slot;
    if (rq->counted) {
        am.sent[rank]++;
        am.sent_total++;
        int first = am.sent[rank] - am.waited[rank] <= AM_TELL_FIRST && rq->tell != AM_TELL_DRAINED;
        rq->tell = !am.telling ? AM_TELL_NO : first ? AM_TELL_ROUND : AM_TELL_DRAINED;
        rq->seq = am.sent[rank];
        if (am.telling)
            am.asked[rank] = am.sent[rank];
        if (++am.since_ack[rank] == AM_ACK_EVERY) {
            am.since_ack[rank] = 0;
            rq->token = AM_ACK;
        }
    }
    if (rq->token) {
        am.pending[rank]++;
        am.pending_total++;
    }
    am_client_sent();
    return am.net->send(NET_REQUEST, rank, rq, sizeof *rq, data, len, rq->kind == REQ_PUT ? 0 : NET_EAGER);
}

/* The same, returning once the data may be reused. */
void am_send(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot)
{
    am_wait_req(am_send_nbx(rank, rq, data, len, slot), "send", rank);
}

/* Sends a request and, if slot is given, waits for its reply. */
static void am_request(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot)
{
    am_send(rank, rq, data, len, slot);
    if (slot)
        am_wait_slot(slot);
}

/* A get sees everything this process wrote to rank before: the network
 * does a get apart from the requests, which rank's server does in order. */
void am_order(int rank)
{
    if (am.sent[rank] != am.fenced[rank])
        am_flush(rank);
}

/* The part in which a put of bytes to rank goes (bytes: whole). */
static size_t am_put_part(int rank, size_t bytes)
{
    size_t part = am.net->put_part(rank);
    return part && part < bytes ? part : bytes;
}

void am_put(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    if (am_put_part(rank, bytes) < bytes) {
        uint64_t ticket = am_put_nbi(rank, src, raddr, bytes);
        if (ticket)
            am_complete(rank, ticket);
        return;
    }
    am_request_t rq = {.kind = REQ_PUT, .counted = 1, .raddr = raddr};
    am_send(rank, &rq, src, bytes, NULL);
}

/* Sends bytes at src to raddr in parts of part (the last may be smaller),
 * each a counted request like proto at its own place. The transfers in
 * flight to rank complete first (location consistency); then every part
 * goes out without waiting for the one before, as they write disjoint
 * bytes. Returns the ticket that completes them all (0: all complete). */
static uint64_t am_send_parts(int rank, const am_request_t *proto, const void *src, uintptr_t raddr, size_t bytes,
                              size_t part, const char *what)
{
    uint64_t ticket = 0;
    am_flush_local(rank);
    for (size_t off = 0; off < bytes; off += part) {
        am_request_t *rq = &am_flight_next(rank)->hdr;
        *rq = *proto;
        rq->raddr = raddr + off;
        size_t n = bytes - off < part ? bytes - off : part;
        rq->tell = n < bytes - off ? AM_TELL_DRAINED : AM_TELL_NO; /* (am_send_nbx) */
        uint64_t t = am_flight_add(rank, am_issue(rank, rq, (const char *)src + off, n, NULL), what);
        if (t) /* (a later part may complete at once, an earlier not) */
            ticket = t;
    }
    return ticket;
}

/* The next request to rank (any kind, which keeps location consistency),
 * a flush or flush_local waits for the send. Meanwhile the target's server
 * takes a rendezvous' data while the origin computes: Santhanaraman08's
 * sender-side overlap (docs/references.md). */
uint64_t am_put_nbi(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    am_request_t proto = {.kind = REQ_PUT, .counted = 1};
    return am_send_parts(rank, &proto, src, raddr, bytes, am_put_part(rank, bytes), "put");
}

void am_get(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    am_order(rank);
    am_client_sent();
    am_wait_req_yielding(am.net->get(rank, dst, raddr, bytes), "get", rank);
}

/* Sees every write of this process to rank before it, like am_get. A
 * large get from a rank of another node on this machine is written into
 * place by the target's server (REQ_GET_WRITE) while the application
 * thread computes: there the network's get is done in software by the
 * target's worker and completes only as far as this process's application
 * thread progresses (UCX's shared-memory transports cannot address the
 * arena), where between machines, on an RDMA network, it needs no thread
 * of either side (over TCP, UCX's backend makes it two messages). */
uint64_t am_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    am_order(rank);
    struct am_flown *e = am_flight_next(rank);
    if (rt.cfg.get_write == 0 || bytes < rt.cfg.get_write || am.get_write_refused ||
        rt.peers[rank].machine != rt.peers[rt.rank].machine) {
        am_client_sent();
        return am_flight_add(rank, am.net->get(rank, dst, raddr, bytes), "get");
    }
    e->slot = (am_slot_t){0};
    e->hdr = (am_request_t){.kind = REQ_GET_WRITE, .raddr = raddr, .a = bytes, .b = (uintptr_t)dst};
    /* Not am_send: the transfers in flight to rank stay there (a get
     * conflicts with none of them, and am_order has completed the puts). */
    am_wait_req(am_issue(rank, &e->hdr, NULL, 0, &e->slot), "send", rank);
    return am_flight_add(rank, AM_WRITTEN_GET, "get");
}

/* In the backend's chunks, whole elements (am_init checks). */
uint64_t am_acc_nbi(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr, size_t bytes)
{
    am_request_t proto = {.kind = REQ_ACC, .counted = 1, .type = (uint8_t)t};
    memcpy(proto.scale, scale, acc_elem_size(t)); /* the scale is one element */
    return am_send_parts(rank, &proto, src, raddr, bytes, am.net->acc_chunk, "accumulate");
}

/* A request to rank's server, done there after every earlier request of
 * this process to rank: it sees their writes with no fence first (as an
 * accumulate, am_strided). */
int64_t am_atomic(int rank, uintptr_t raddr, int width, int op, int64_t a, int64_t b)
{
    am_request_t rq = {.kind = REQ_ATOMIC,
                       .op = (uint8_t)op,
                       .width = (uint8_t)width,
                       .raddr = raddr,
                       .a = (uint64_t)a,
                       .b = (uint64_t)b};
    am_slot_t slot = {0};
    rt_stat_inc(&rt.stats.remote_atomics);
    am_request(rank, &rq, NULL, 0, &slot);
    return slot.value;
}

uint64_t am_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b)
{
    am_request_t rq = {.kind = REQ_WORD, .op = (uint8_t)op, .raddr = raddr, .a = a, .b = b};
    am_slot_t slot = {0};
    if (op != WORD_STORE64 && op != WORD_STORE32_WAKE)
        rt_stat_inc(&rt.stats.remote_atomics);
    am_request(rank, &rq, NULL, 0, word_op_answers(op) ? &slot : NULL);
    return (uint64_t)slot.value;
}

uint64_t am_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b)
{
    uint64_t operand = a, result = b;
    am_flush_local(rank); /* a get in flight reads what was there before */
    rt_stat_inc(&rt.stats.remote_atomics);
    am_client_sent();
    am_wait_req(am.net->amo(rank, cas, &operand, &result, raddr), "atomic", rank);
    return result;
}

int64_t am_call(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, const void *data, size_t len, int answer,
                void *answer_buf, size_t answer_len)
{
    am_request_t rq = {
        .kind = REQ_CALL, .op = (uint8_t)id, .counted = (uint8_t)am_counted(id), .raddr = raddr, .a = a, .b = b};
    void *dst[1] = {answer_buf};
    am_slot_t slot = {.dsts = dst, .bytes = answer_len ? answer_len : 1};
    am_request(rank, &rq, data, len, answer ? &slot : NULL);
    return slot.value;
}

/* A fence: waits until rank has told that it completed every counted
 * request this process sent it (am_tell_done); nothing to wait for if it
 * has already. */
void am_flush(int rank)
{
    am_flush_local(rank);
    am_ask_told(rank);
    am_wait_told(rank);
    am_wait_pending(rank, 1);
}

uint32_t am_sent_to(int rank)
{
    am.telling = 0;
    return am.sent ? am.sent[rank] : 0;
}

void am_completed_to(int rank, uint32_t upto)
{
    if (am.fenced && (int32_t)(upto - am.fenced[rank]) > 0)
        am.fenced[rank] = upto;
}

/* ---- replies ---------------------------------------------------------------------- */

void am_on_reply(const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    am_reply_t r;
    if (hlen != sizeof r)
        rt_fatal("network: malformed reply");
    memcpy(&r, hdr, sizeof r);
    if (r.token == AM_DONE) { /* unasked: no fence to the target need send what it told */
        uint32_t *fenced = &am.fenced[r.target];
        if ((int32_t)((uint32_t)r.value - *fenced) > 0)
            *fenced = (uint32_t)r.value;
        return;
    }
    if (r.token != AM_ACK) {
        am_slot_t *slot = (am_slot_t *)(uintptr_t)r.token;
        if (len > 0) {
            if (rndv)
                rt_fatal("network: a reply's data came by rendezvous");
            if (slot->plan)
                am_pack_runs(slot->plan, slot->plan->dst_stride, slot->local, slot->first, len / slot->plan->count[0],
                             data, 0);
            else
                for (size_t j = 0; j < len / slot->bytes; j++)
                    memcpy(slot->dsts[j], (char *)data + j * slot->bytes, slot->bytes);
        }
        slot->value = r.value;
        slot->done = 1;
    }
    am.pending[r.target]--;
    am.pending_total--;
    if (r.token == AM_ACK) /* awaited only by back-pressure (am_wait_pending) */
        trace_word(TRACE_STORE, &am.pending[r.target], (uint32_t)am.pending[r.target]);
}
