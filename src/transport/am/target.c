/* The protocol's target side: the requests the server serves (writes
 * into this process's arena, gets answered with data, word operations,
 * registered handlers and their retries), the table of handlers, and
 * write counting for fences. The server thread that runs it, and
 * start-up and shut-down, are am_server.c's. */
#include "transport/am/am_internal.h"
#include "base/trace.h"
#include "base/wait.h"
#include "transport/shm/shm_ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define AM_HANDLERS 16
static struct {
    am_handler_fn fn;
    int counted;
} handlers[AM_HANDLERS];
static int nhandlers;

int am_handler(am_handler_fn fn, int counted)
{
    if (nhandlers == AM_HANDLERS)
        rt_fatal("am_handler: more than %d handlers", AM_HANDLERS);
    handlers[nhandlers].fn = fn;
    handlers[nhandlers].counted = counted;
    return nhandlers++;
}

int am_counted(int id)
{
    return id < nhandlers && handlers[id].counted;
}

/* Sends a message from the server to rank's client worker: msg (malloc'ed
 * by the caller) is a header of hlen bytes followed by len bytes of data;
 * freed once sent. */
static void am_server_send(net_chan_t chan, int rank, void *msg, size_t hlen, size_t len)
{
    rt_stat_inc(&rt.stats.messages);
    rt_order_release(); /* what the message reports is done */
    am.net->send(chan, rank, msg, hlen, len ? (char *)msg + hlen : NULL, len, NET_EAGER | NET_FREE);
}

/* A push from a handler: one message to rank's application thread, which
 * waits for it (no thread of the waiter's process has to wake). */
void am_server_push(int rank, int64_t value)
{
    int64_t *msg = malloc(sizeof *msg);
    if (!msg)
        rt_oom("server push", sizeof *msg);
    *msg = value;
    am_server_send(NET_SERVER_PUSH, rank, msg, sizeof *msg, 0);
}

/* A reply with len bytes of data after its header, to fill by the caller. */
static am_reply_t *am_reply_new(const am_request_t *rq, int64_t value, size_t len)
{
    am_reply_t *rep = malloc(sizeof *rep + len);
    if (!rep)
        rt_oom("server reply", sizeof *rep + len);
    *rep = (am_reply_t){rq->token, value, rt.rank};
    return rep;
}

static void am_reply_send(const am_request_t *rq, am_reply_t *rep, size_t len)
{
    am_server_send(NET_REPLY, rq->origin, rep, sizeof *rep, len);
}

/* Answers rq with value, if its origin asked for an answer. */
static void am_reply(const am_request_t *rq, int64_t value)
{
    if (rq->token != 0)
        am_reply_send(rq, am_reply_new(rq, value, 0), 0);
}

/* Whether the counted requests from origin completed here have reached
 * count (modulo 2^32): what a gated call and a gated push wait
 * for. Read atomically: a waiting application thread reads it too. */
static inline int am_done_reached(int origin, uint32_t count)
{
    return (int32_t)(__atomic_load_n(&am.done_from[origin], __ATOMIC_ACQUIRE) - count) >= 0;
}

/* Traced: the message this thread handles, if it came from origin, is
 * the cause that origin's next tell names. A request completed outside
 * its handler (a rendezvous put's data landing, a retried request) leaves
 * the last one noted: the rendezvous put itself, noted as it arrived. */
static void am_note_cause(int origin)
{
    uint64_t cause = am.tell_cause ? am_trace_cause() : 0;
    if (cause && (int)(cause >> 32) - 1 == origin)
        am.tell_cause[origin] = cause;
}

/* Lists origin to be told at the next drain if it asked for a count it
 * has not been told. */
static void am_tell_later(int origin)
{
    am_note_cause(origin);
    if ((int32_t)(am.told[origin] - am.want[origin]) < 0 && !am.listed[origin]) {
        am.listed[origin] = 1;
        am.untold[am.nuntold++] = origin;
    }
}

/* A counted request is complete: op_done grows (and wakes a combined
 * barrier waiting for it), and its origin is told if it asked. It asks for
 * its own number, not the count done here: a rendezvous put completes
 * after the requests sent behind it, so the last to complete may be one
 * that did not ask. */
static void am_completed(const am_request_t *rq)
{
    uint32_t done = am.done_from[rq->origin] + 1;
    /* (read by an application thread waiting for a gated push) */
    __atomic_store_n(&am.done_from[rq->origin], done, __ATOMIC_RELEASE);
    if (rq->tell && (int32_t)(rq->seq - am.want[rq->origin]) > 0) /* (a fence may have asked for more) */
        am.want[rq->origin] = rq->seq;
    am_tell_later(rq->origin);
    am.tell_round |= rq->tell == AM_TELL_ROUND && am.listed[rq->origin];
    waitword_add(&am.done, 1);
    if (rq->token == AM_ACK)
        rt_stat_inc(&rt.stats.flow_acks);
    am_reply(rq, 0);
}

/* A fence waits until the target has told the origin that every counted
 * request it sent has completed there (requests may still be arriving, or
 * receiving their data by rendezvous). The server thread tells each
 * origin that asked once it has drained what arrived, or at the end of a
 * round that completed one of the first requests after the origin's fence
 * (AM_TELL_ROUND), or after AM_TELL_EVERY events (am_serve); a serving
 * application thread at the end of each of its rounds (am_serve_try).
 * A process that fences asks with each
 * counted request (rq->tell): a fence right after writes, as GA_Sync's
 * (ARMCI_AllFence, then a barrier), then waits for one message where a
 * fence request and its answer took two, and the target's server, woken
 * by the writes, is not woken again; a burst of writes costs one tell a
 * pause, and up to AM_TELL_FIRST at its start. Otherwise (a process whose
 * barriers complete its writes by counts, the combined barrier's) its
 * fence asks with a REQ_FENCE, and the writes cost no tells. */
static void am_fence(const am_request_t *rq)
{
    if ((int32_t)((uint32_t)rq->a - am.want[rq->origin]) > 0)
        am.want[rq->origin] = (uint32_t)rq->a;
    am_tell_later(rq->origin);
}

void am_tell_done(void)
{
    /* One at a time off the list: a send may progress the server worker
     * (libfabric's, when the provider says EAGAIN), and so complete
     * requests that put their origins back on it. An origin still owed
     * more is listed again as they complete. */
    while (am.nuntold > 0) {
        int o = am.untold[--am.nuntold];
        am.listed[o] = 0;
        if (am.told[o] != am.done_from[o]) {
            am.told[o] = am.done_from[o];
            rt_stat_inc(&rt.stats.flow_acks);
            am_request_t rq = {.origin = o, .token = AM_DONE};
            uint64_t was = am.tell_cause ? am_trace_as(am.tell_cause[o]) : 0;
            am_reply(&rq, am.told[o]);
            if (am.tell_cause)
                am_trace_as(was);
        }
    }
    am.tell_round = 0;
}

void am_wait_completed(uint32_t count)
{
    waitword_wait_count(&am.done, count);
}

/* Serves while the server thread is not serving; once a spin finds
 * nothing, sleeps until the next completion here (am_completed wakes
 * it), the server thread serving meanwhile. */
void am_wait_done_from(int origin, uint32_t gate)
{
    for (unsigned spins = 0;;) {
        uint32_t seen = atom_load_acquire(&am.done.value);
        if (am_done_reached(origin, gate)) {
            trace_word(TRACE_SEE, &am.done, seen);
            return;
        }
        if (am_serve_try() != 0)
            spins = 0;
        else if (wait_net_spin_on(++spins)) /* (each poll serves: a call into the network) */
            cpu_relax();
        else
            waitword_wait_change(&am.done, seen);
    }
}

/* The answer's data is written straight into its reply message. */
void *am_answer(am_target_t *t, size_t len)
{
    free(t->reply);
    if ((t->reply = malloc(sizeof(am_reply_t) + len)) == NULL)
        rt_oom("server answer", sizeof(am_reply_t) + len);
    t->answer_len = len;
    return (am_reply_t *)t->reply + 1;
}

/* One attempt at a handler request; 1 once it is done and answered. A
 * gated one waits (as a request to retry) until the writes its origin
 * sent before it have completed here. */
static int am_call_try(const am_request_t *rq, am_target_t *t)
{
    if (rq->gated && !am_done_reached(rq->origin, rq->gate))
        return 0;
    if (!handlers[rq->op].fn(t))
        return 0;
    if (rq->counted) { /* its token, if any, asks for an ack */
        am_completed(rq);
    } else if (rq->token != 0) {
        am_reply_t *rep = t->reply ? t->reply : am_reply_new(rq, 0, 0);
        *rep = (am_reply_t){rq->token, t->value, rt.rank};
        am_reply_send(rq, rep, t->answer_len);
        return 1;
    }
    free(t->reply);
    return 1;
}

/* A copy of a handler request, to retry later or to read aligned. */
static am_retry_t *am_retry_new(const am_request_t *rq, const am_target_t *t, const void *data, size_t len)
{
    am_retry_t *r = malloc(sizeof *r + len);
    if (!r)
        rt_oom("server", sizeof *r + len);
    if (len)
        memcpy(r->msg, data, len);
    r->rq = *rq;
    r->t = *t;
    r->t.data = r->msg;
    return r;
}

/* Serves a handler request: in place if its payload is aligned (as it
 * was sent), else from an aligned copy; a request the handler cannot
 * finish now is kept (with its state) and retried. */
static void am_serve_call(const am_request_t *rq, const void *data, size_t len)
{
    if (rq->op >= nhandlers)
        rt_fatal("network: a request for handler %d, of %d", rq->op, nhandlers);
    am_target_t t = {
        .origin = rq->origin, .local = (char *)(uintptr_t)rq->raddr, .a = rq->a, .b = rq->b, .data = data, .len = len};
    am_retry_t *r = NULL;
    if ((uintptr_t)data % sizeof(uint64_t) != 0) {
        r = am_retry_new(rq, &t, data, len);
        if (am_call_try(&r->rq, &r->t)) {
            free(r);
            return;
        }
    } else if (am_call_try(rq, &t)) {
        return;
    } else {
        r = am_retry_new(rq, &t, data, len);
    }
    r->next = am.retries;
    am.retries = r;
}

/* Tries the handler requests kept for retrying; the number served. */
unsigned am_retry(void)
{
    unsigned served = 0;
    for (am_retry_t **pp = &am.retries; *pp;) {
        am_retry_t *r = *pp;
        if (am_call_try(&r->rq, &r->t)) {
            *pp = r->next;
            free(r);
            served++;
        } else {
            pp = &r->next;
        }
    }
    return served;
}

/* A message's payload may sit at any address (the network gives no
 * alignment): headers and addresses are copied out of it, not read in
 * place. */
static char *am_addr_at(const char *addrs, uint64_t j)
{
    uint64_t a;
    memcpy(&a, addrs + j * sizeof a, sizeof a);
    return (char *)(uintptr_t)a;
}

/* Serves a get of packed runs or vector pairs: the reply carries the data. */
static void am_serve_get(const am_request_t *rq, const void *data, char *local)
{
    am_reply_t *rep;
    size_t len;
    if (rq->kind == REQ_GETV) {
        am_vpack_t vp;
        memcpy(&vp, data, sizeof vp);
        const char *addr = (const char *)data + sizeof vp;
        rep = am_reply_new(rq, 0, len = vp.count * vp.bytes);
        for (uint64_t j = 0; j < vp.count; j++)
            memcpy((char *)(rep + 1) + j * vp.bytes, am_addr_at(addr, j), vp.bytes);
    } else {
        am_pack_t pk;
        memcpy(&pk, data, sizeof pk);
        rep = am_reply_new(rq, 0, len = pk.count * pk.plan.count[0]);
        am_pack_runs(&pk.plan, pk.plan.src_stride, local, pk.first, pk.count, (char *)(rep + 1), 1);
    }
    am_reply_send(rq, rep, len);
}

/* Writes a chunk of vector pairs or strided runs (put or accumulate). */
static void am_serve_chunk(const am_request_t *rq, const void *data, char *local)
{
    int acc = rq->kind == REQ_ACCV || rq->kind == REQ_ACCS;
    reach_type_t t = (reach_type_t)rq->type;
    if (rq->kind == REQ_PUTV || rq->kind == REQ_ACCV) {
        am_vpack_t vp;
        memcpy(&vp, data, sizeof vp);
        const char *addr = (const char *)data + sizeof vp;
        const char *d = addr + vp.count * sizeof(uint64_t);
        for (uint64_t j = 0; j < vp.count; j++)
            if (acc)
                shm_acc(rt.rank, t, rq->scale, d + j * vp.bytes, am_addr_at(addr, j), vp.bytes);
            else
                copy_bytes(am_addr_at(addr, j), d + j * vp.bytes, vp.bytes);
        return;
    }
    am_pack_t pk;
    memcpy(&pk, data, sizeof pk);
    const char *runs = (const char *)data + sizeof pk;
    size_t run = pk.plan.count[0];
    for (uint64_t j = 0; j < pk.count; j++) {
        char *place = local + strided_run_offset(&pk.plan, pk.plan.dst_stride, pk.first + j);
        if (acc)
            shm_acc(rt.rank, t, rq->scale, runs + j * run, place, run);
        else
            copy_bytes(place, runs + j * run, run);
    }
}

/* A large put's data arrived by rendezvous straight into its place. */
void am_received(void *arg)
{
    am_completed(arg);
    free(arg);
}

/* Receives a rendezvous message's data into place; am_received(a copy of
 * rq) once it is there. */
static void am_recv_rndv(const am_request_t *rq, void *rndv, void *place, size_t len)
{
    am_request_t *ctx = malloc(sizeof *ctx);
    if (!ctx)
        rt_oom("server", sizeof *ctx);
    *ctx = *rq;
    am.net->recv_rndv(rndv, place, len, ctx);
}

/* Writes a get's data from the arena into its place in the origin's
 * process (a rank of this machine), and answers: 0 once written, else the
 * reason it could not be (a process may be barred from writing into
 * another: then the origin does the get itself). */
static void am_write_get(const am_request_t *rq, const char *local)
{
    /* Ranks of one machine may live in different pid namespaces: write
     * only into the process that the origin's pid names here, checked once
     * per origin (wait_proc_alive). */
    signed char *same = &am.same_process[rq->origin];
    if (*same == 0)
        *same = wait_proc_alive(rq->origin) ? 1 : -1;
    int err = *same < 0 ? ESRCH : 0;
    for (uint64_t done = 0; err == 0 && done < rq->a;) { /* a write may be short (2 GiB at most) */
        struct iovec from = {(void *)(local + done), rq->a - done},
                     to = {(void *)(uintptr_t)(rq->b + done), rq->a - done};
        ssize_t n = process_vm_writev(rt.peers[rq->origin].pid, &from, 1, &to, 1, 0);
        if (n > 0)
            done += (uint64_t)n;
        else
            err = n < 0 ? errno : EIO;
    }
    am_reply(rq, err);
}

/* Addresses are this process's own: the target is its own arena. */
void am_on_request(const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    rt_order_acquire();
    am_request_t rq;
    if (hlen != sizeof rq)
        rt_fatal("network: malformed request");
    memcpy(&rq, hdr, sizeof rq);
    if (rndv && rq.kind != REQ_PUT)
        rt_fatal("network: a request other than a put came by rendezvous");
    char *local = (char *)(uintptr_t)rq.raddr;
    switch (rq.kind) {
    case REQ_GETS:
    case REQ_GETV: am_serve_get(&rq, data, local); return;
    case REQ_FENCE: am_fence(&rq); return;
    case REQ_GET_WRITE: am_write_get(&rq, local); return;
    case REQ_CALL: am_serve_call(&rq, data, len); return;
    case REQ_ATOMIC:
        am_reply(&rq, shm_atomic(rt.rank, local, rq.width, (amo_op_t)rq.op, (int64_t)rq.a, (int64_t)rq.b));
        return;
    case REQ_WORD: am_reply(&rq, (int64_t)word_apply(local, (word_op_t)rq.op, rq.a, rq.b)); return;
    case REQ_PUT:
        if (rndv) {
            am_note_cause(rq.origin);
            am_recv_rndv(&rq, rndv, local, len);
            return;
        }
        copy_bytes(local, data, len);
        break;
    case REQ_ACC: shm_acc(rt.rank, (reach_type_t)rq.type, rq.scale, data, local, len); break;
    case REQ_PUTV:
    case REQ_ACCV:
    case REQ_PUTS:
    case REQ_ACCS: am_serve_chunk(&rq, data, local); break;
    default: rt_fatal("network: unknown request %d", rq.kind);
    }
    am_completed(&rq);
}
