/* The UCX transport. Each process has two workers: a client worker, used
 * by the application thread to issue operations, and a server worker,
 * progressed by the process's server thread, which every other process's
 * client connects to. The whole arena is registered once at start-up and
 * its key given to every rank, so put and get go zero-copy into the
 * target's segment (UCX emulates them with messages where the network
 * cannot). Accumulates, user atomics and the runtime's synchronization
 * words are served by the target's server thread through active messages,
 * under the same stripe locks and CPU atomics as on-node operations: one
 * atomicity domain. The server thread sleeps on the worker's wakeup file
 * descriptor whenever it has nothing to do.
 *
 * Why a server thread per process rather than one per node: UCX's
 * software RMA needs the target's own worker progressed, and a per-node
 * server would need a second endpoint mesh (a worker per node) on top of
 * the per-process one; the per-process thread costs nothing while it
 * sleeps. */
#include "transport/transport.h"
#include "base/acc.h"
#include "transport/shm/shm_ops.h"
#include "base/wait.h"
#include "sync/counter.h"
#include "sync/window.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

enum { AM_REQUEST = 11, AM_REPLY = 12, AM_PUSH = 13 };
enum { REQ_PUT, REQ_ACC, REQ_ATOMIC, REQ_SYNC, REQ_PUTS, REQ_ACCS, REQ_GETS, REQ_PUTV, REQ_ACCV,
       REQ_GETV, REQ_FENCE, REQ_SIGNAL, REQ_EPOCH };

/* Requests that write and return nothing (puts, accumulates, counter adds)
 * are "counted": no reply, but the origin counts
 * those it sent to each target and the target's server counts those it
 * completed from each origin (paper 000's op_init and op_done). A fence
 * sends the origin's count and the server replies once it has completed
 * that many; the combined barrier compares the same counts without any
 * fence message. Requests that return something are answered. Signals
 * (other operations on synchronization words without a result, counter
 * registrations and pushes, and a put with a signal) are neither: the
 * protocol that sends one sees its effect by other means (a waiter wakes),
 * so they leave no fence behind. */
#define UX_ACK ((uint64_t)1)   /* token of a counted request that asks for an ack */
/* Counted requests to one target between two that ask for an ack: with at
 * most UX_MAX_PENDING acks awaited, at most 64 x 16 requests are in flight
 * to a target, so a flood of puts meets back-pressure, not growth. */
#define UX_ACK_EVERY 16

/* Accumulates travel in eager messages of at most this size. */
#define UX_ACC_CHUNK ((size_t)8192)
/* Requests awaiting their reply, per target, before the origin waits. */
#define UX_MAX_PENDING 64

typedef struct ux_request {
    uint8_t kind, type, op, width;
    uint8_t counted;         /* completes into the target's op_done */
    int32_t origin;
    uint64_t raddr, a, b;
    uint64_t token;          /* the origin's reply slot, 0 for none */
    double scale[2];
} ux_request_t;

typedef struct ux_reply {
    uint64_t token;
    int64_t value;
    int32_t target;
} ux_reply_t;

/* Where a reply goes: an atomic's value, or a packed get's data. */
typedef struct ux_slot {
    volatile int done;
    int64_t value;
    const reach_strided_t *plan;  /* packed strided get: unpack here */
    char *local;
    uint64_t first;
    void *const *dsts;            /* packed vector get: one place per pair */
    size_t bytes;
} ux_slot_t;

/* A chunk of vector pairs: this header, the target addresses, then (for
 * put and accumulate) the data of each pair. */
typedef struct ux_vpack {
    uint64_t count, bytes;
} ux_vpack_t;

/* The pack protocol: a chunk of runs travels as one message, preceded by
 * this header. The target finds each run's place from its index. */
typedef struct ux_pack {
    reach_strided_t plan;
    uint64_t first, count;   /* runs first .. first+count-1 */
} ux_pack_t;

#define UX_PACK_MAX ((size_t)64 << 10)   /* largest chunk of runs */
#define UX_PACK_MIN ((size_t)4 << 10)    /* smallest, but for small requests */
/* auto: runs shorter than this go packed. Measured over UCX shared memory
 * (1 MiB in all): packed put and accumulate stream at 12-13 GB/s for runs
 * of 512 B and more, direct ones pass that from 8 KiB runs (17 GB/s);
 * direct gets wait for each run and pass packed ones (12 GB/s) only from
 * 32 KiB runs. */
#define UX_DIRECT_MIN_RUN ((size_t)8 << 10)
#define UX_DIRECT_MIN_RUN_GET ((size_t)32 << 10)

static struct {
    ucp_context_h ctx;
    ucp_worker_h client, server;
    int client_fd, server_fd;
    ucp_mem_h mem;
    ucp_ep_h *ep;            /* by rank: to its server worker; NULL on this node */
    ucp_ep_h *reply_ep;      /* by rank: from our server worker to its client worker */
    ucp_ep_h *push_ep;       /* by rank: from our client worker to its client worker */
    ucp_rkey_h *rkey;
    int *pending;            /* by rank: replies awaited */
    uint32_t pushes, pushes_awaited;   /* counter pushes arrived here, and waited for */
    int64_t pushed;          /* the value of the last */
    long pending_total;
    uint32_t *sent;          /* by rank: counted requests sent (op_init) */
    uint32_t *fenced;        /* by rank: sent[rank] at the last fence */
    uint32_t *since_ack;     /* by rank: counted requests since the last ack request */
    ux_slot_t *fence_slots;  /* by rank: replies of one flush_all */
    void **inflight;         /* by rank: the send of a put_nbi, until settled */
    /* The server thread's side. */
    uint32_t *done_from;     /* by origin: counted requests completed */
    waitword_t done;     /* all counted requests completed here (op_done) */
    ux_request_t *deferred;  /* fences waiting for their count */
    int ndeferred;
    struct ux_epoch *epochs; /* deferred window epochs waiting for their lock */
    pthread_t thread;
    _Atomic int stop;
    char *bounce;            /* one chunk: sends complete before it is reused */
} ux;

/* The offset of run i on the side with these strides. */
static size_t ux_run_offset(const reach_strided_t *p, const size_t *stride, uint64_t i)
{
    size_t off = 0;
    for (int k = 1; k <= p->levels; k++) {
        off += (size_t)(i % p->count[k]) * stride[k - 1];
        i /= p->count[k];
    }
    return off;
}

/* Copies count runs between their strided places and a packed buffer. */
static void ux_pack_runs(const reach_strided_t *p, const size_t *stride, char *base, uint64_t first,
                         uint64_t count, char *packed, int to_packed)
{
    size_t run = p->count[0];
    for (uint64_t j = 0; j < count; j++) {
        char *place = base + ux_run_offset(p, stride, first + j);
        if (to_packed)
            memcpy(packed + j * run, place, run);
        else
            memcpy(place, packed + j * run, run);
    }
}

/* The application thread sends a message: counted, and ordered after what
 * the thread wrote before (rt_order_release). */
static void ux_client_sent(void)
{
    rt_stat_inc(&rt.stats.messages);
    rt_order_release();
}

/* Waits for progress on the client worker: polls, then sleeps on its file
 * descriptor, so that a waiting process gives its core away. */
static void ux_client_progress(unsigned *spins)
{
    rt_order_release();
    unsigned progressed = ucp_worker_progress(ux.client);
    rt_order_acquire();
    if (progressed) {
        *spins = 0;
        return;
    }
    if (++*spins < rt.cfg.spin_count)
        return;
    *spins = 0;
    if (ucp_worker_arm(ux.client) == UCS_OK) {
        struct pollfd pfd = {ux.client_fd, POLLIN, 0};
        rt_stat_inc(&rt.stats.blocking_waits);
        wait_tick();
        poll(&pfd, 1, 10);
    }
}

/* Ends the job on a failed operation to rank, saying whether rank is
 * known to be gone. */
_Noreturn static void ux_failed(const char *what, int rank, ucs_status_t s)
{
    rt_fatal("UCX %s to rank %d failed: %s%s", what, rank, ucs_status_string(s),
             wait_peer_gone(rank) ? " (that rank has ended without reach_finalize)" : "");
}

static int ux_wait(void *req, const char *what, int rank)
{
    if (req == NULL)
        return REACH_SUCCESS;
    if (UCS_PTR_IS_ERR(req))
        ux_failed(what, rank, UCS_PTR_STATUS(req));
    unsigned spins = 0;
    ucs_status_t s;
    while ((s = ucp_request_check_status(req)) == UCS_INPROGRESS)
        ux_client_progress(&spins);
    ucp_request_free(req);
    if (s != UCS_OK)
        ux_failed(what, rank, s);
    return REACH_SUCCESS;
}

/* ---- the server side ------------------------------------------------------ */

static void ux_reply_sent(void *request, ucs_status_t status, void *user_data)
{
    (void)status;
    free(user_data);
    ucp_request_free(request);
}

/* Sends a message from the server to rank's client worker: msg (allocated
 * by the caller) is a header of hlen bytes followed by len bytes of data;
 * freed once sent. */
static void ux_server_send(int rank, unsigned id, void *msg, size_t hlen, size_t len)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                                             UCP_OP_ATTR_FIELD_FLAGS,
                             .cb.send = ux_reply_sent,
                             .user_data = msg,
                             .flags = UCP_AM_SEND_FLAG_EAGER};
    rt_stat_inc(&rt.stats.messages);
    rt_order_release();   /* what the message reports is done */
    void *req = ucp_am_send_nbx(ux.reply_ep[rank], id, msg, hlen, len ? (char *)msg + hlen : NULL, len, &p);
    if (UCS_PTR_IS_ERR(req))
        ux_failed("server send", rank, UCS_PTR_STATUS(req));
    if (req == NULL)
        free(msg);
}

/* Sends rep (allocated by the caller, len bytes of data after it) to
 * origin's client; rep is freed once sent. */
static void ux_send_reply(ux_reply_t *rep, int origin, size_t len)
{
    ux_server_send(origin, AM_REPLY, rep, sizeof *rep, len);
}

/* A counter's home pushes a value to a waiter on another node: one
 * message to the waiter's client worker, which the waiter progresses while
 * it waits (no thread of the waiter's process has to wake in between). */
static void ux_server_push(int rank, int64_t value)
{
    int64_t *msg = malloc(sizeof *msg);
    if (!msg)
        rt_fatal("UCX server: out of memory");
    *msg = value;
    ux_server_send(rank, AM_PUSH, msg, sizeof *msg, 0);
}

/* Answers rq with value, if its origin asked for an answer. */
static void ux_reply(const ux_request_t *rq, int64_t value)
{
    if (rq->token == 0)
        return;
    ux_reply_t *rep = malloc(sizeof *rep);
    if (!rep)
        rt_fatal("UCX server: out of memory");
    *rep = (ux_reply_t){rq->token, value, rt.rank};
    ux_send_reply(rep, rq->origin, 0);
}

/* A counted request is complete: op_done grows (and wakes a combined
 * barrier waiting for it), and the fences it satisfies are answered. */
static void ux_completed(const ux_request_t *rq)
{
    uint32_t done = ++ux.done_from[rq->origin];
    waitword_add(&ux.done, 1);
    if (rq->token == UX_ACK)
        rt_stat_inc(&rt.stats.flow_acks);
    ux_reply(rq, 0);
    for (int i = 0; i < ux.ndeferred; i++) {
        ux_request_t *f = &ux.deferred[i];
        if (f->origin == rq->origin && (int32_t)(done - (uint32_t)f->a) >= 0) {
            ux_reply(f, 0);
            *f = ux.deferred[--ux.ndeferred];
            i--;
        }
    }
}

/* A fence answers once every counted request its origin sent before it
 * has completed here (requests may still be arriving, or receiving their
 * data by rendezvous). */
static void ux_fence(const ux_request_t *rq)
{
    if ((int32_t)(ux.done_from[rq->origin] - (uint32_t)rq->a) >= 0)
        ux_reply(rq, 0);
    else
        ux.deferred[ux.ndeferred++] = *rq;   /* one per origin at most */
}

/* Applies a synchronization-word operation to local memory for origin. */
static uint64_t ux_sync_apply(char *local, int op, uint64_t a, uint64_t b, int origin)
{
    _Atomic uint64_t *w64 = (_Atomic uint64_t *)(void *)local;
    waitword_t *ww = (waitword_t *)(void *)local;
    ctr_home_t *ctr = (ctr_home_t *)(void *)local;
    uint64_t old = 0;
    switch (op) {
    case NET_SYNC_CTR_ADD:
        return (uint64_t)ctr_home_add(ctr, (int64_t)a, ux_server_push);
    case NET_SYNC_CTR_WANT:
        if (a != 0)
            ctr_home_add(ctr, (int64_t)a, ux_server_push);
        ctr_home_want(ctr, origin, (int64_t)b, ux_server_push);
        return 0;
    case NET_SYNC_CTR_LOCK:
        ctr_lock_request(ctr, origin, ux_server_push);
        return 0;
    case NET_SYNC_CTR_TRY:
        return (uint64_t)ctr_lock_try(ctr);
    case NET_SYNC_ADD64:
        return atom_fetch_add_acq_rel(w64, a);
    case NET_SYNC_MCS_LINK:
        if (atom_xchg_acq_rel(w64, a) == b)
            ux_server_push(origin, 0);
        return 0;
    case NET_SYNC_SWAP64:
        return atom_xchg_acq_rel(w64, a);
    case NET_SYNC_CAS64:
        old = a;
        atom_cas_acq_rel(w64, &old, b);
        return old;
    case NET_SYNC_STORE64:
        atom_store_release(w64, a);
        return 0;
    case NET_SYNC_STORE32_WAKE:
        atom_store_seq_cst(&ww->value, (uint32_t)a);
        waitword_wake(ww);
        return 0;
    default:
        return waitword_add(ww, (uint32_t)a);
    }
}

/* A large put arrived by rendezvous straight into its place. */
static void ux_put_received(void *request, ucs_status_t status, size_t length, void *user_data)
{
    (void)length;
    if (status != UCS_OK)
        rt_fatal("UCX server: receiving a put failed: %s", ucs_status_string(status));
    ux_completed(user_data);
    free(user_data);
    ucp_request_free(request);
}

static void ux_receive_put(const ux_request_t *rq, void *desc, char *place, size_t length)
{
    ux_request_t *ctx = malloc(sizeof *ctx);
    if (!ctx)
        rt_fatal("UCX server: out of memory");
    *ctx = *rq;
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                             .cb.recv_am = ux_put_received,
                             .user_data = ctx};
    void *req = ucp_am_recv_data_nbx(ux.server, desc, place, length, &p);
    if (UCS_PTR_IS_ERR(req))
        rt_fatal("UCX server: receiving a put failed: %s", ucs_status_string(UCS_PTR_STATUS(req)));
    if (req == NULL) {
        ux_completed(ctx);
        free(ctx);
    }
}

/* A deferred window epoch whose lock was held by others when it came: a
 * copy of its message, retried by the server loop. */
typedef struct ux_epoch {
    ux_request_t rq;
    int announced;       /* an exclusive request counts as waiting */
    struct ux_epoch *next;
    char msg[];
} ux_epoch_t;

/* Takes the epoch's lock if asked (one attempt), applies its operations,
 * releases if asked and answers with the gets' data; 0 if the lock was
 * not free. */
static int ux_try_epoch(const ux_request_t *rq, const char *msg, int *announced)
{
    const win_epoch_t *e = (const win_epoch_t *)(const void *)msg;
    peer_t *me = &rt.peers[rt.rank];
    _Atomic uint64_t *word = (_Atomic uint64_t *)(void *)(me->map + (e->word - me->rbase));
    if ((e->flags & WIN_ACQUIRE) && !win_try_lock_here(word, (int)e->mode, announced))
        return 0;
    ux_reply_t *rep = malloc(sizeof *rep + e->get_bytes);
    if (!rep)
        rt_fatal("UCX server: out of memory");
    win_epoch_apply(rt.rank, e, (char *)(rep + 1));
    if (e->flags & WIN_RELEASE)
        win_unlock_here(word, (int)e->mode);
    *rep = (ux_reply_t){rq->token, 0, rt.rank};
    ux_send_reply(rep, rq->origin, e->get_bytes);
    return 1;
}

static void ux_serve_epoch(const ux_request_t *rq, const void *data, size_t length)
{
    /* The epoch's operations are read in place: aligned, as they were sent. */
    void *aligned = NULL;
    if ((uintptr_t)data % sizeof(uint64_t) != 0) {
        if ((aligned = malloc(length)) == NULL)
            rt_fatal("UCX server: out of memory");
        data = memcpy(aligned, data, length);
    }
    int announced = 0;
    if (ux_try_epoch(rq, data, &announced)) {
        free(aligned);
        return;
    }
    ux_epoch_t *p = malloc(sizeof *p + length);
    if (!p)
        rt_fatal("UCX server: out of memory");
    p->rq = *rq;
    p->announced = announced;
    memcpy(p->msg, data, length);
    free(aligned);
    p->next = ux.epochs;
    ux.epochs = p;
}

/* Retries the waiting epochs. */
static void ux_retry_epochs(void)
{
    for (ux_epoch_t **pp = &ux.epochs; *pp;) {
        ux_epoch_t *p = *pp;
        if (ux_try_epoch(&p->rq, p->msg, &p->announced)) {
            *pp = p->next;
            free(p);
        } else {
            pp = &p->next;
        }
    }
}

/* A message's payload may sit at any address (UCX gives no alignment):
 * headers and addresses are copied out of it, not read in place. */
static uint64_t ux_addr_at(const char *addrs, uint64_t j)
{
    uint64_t a;
    memcpy(&a, addrs + j * sizeof a, sizeof a);
    return a;
}

/* Serves a get of packed runs or vector pairs: the reply carries the data. */
static void ux_serve_get(const ux_request_t *rq, const void *data, char *local)
{
    peer_t *me = &rt.peers[rt.rank];
    size_t len;
    ux_reply_t *rep;
    if (rq->kind == REQ_GETV) {
        ux_vpack_t vp;
        memcpy(&vp, data, sizeof vp);
        const char *addr = (const char *)data + sizeof vp;
        len = vp.count * vp.bytes;
        if ((rep = malloc(sizeof *rep + len)) != NULL)
            for (uint64_t j = 0; j < vp.count; j++)
                memcpy((char *)(rep + 1) + j * vp.bytes, me->map + (ux_addr_at(addr, j) - me->rbase),
                       vp.bytes);
    } else {
        ux_pack_t pk;
        memcpy(&pk, data, sizeof pk);
        len = pk.count * pk.plan.count[0];
        if ((rep = malloc(sizeof *rep + len)) != NULL)
            ux_pack_runs(&pk.plan, pk.plan.src_stride, local, pk.first, pk.count, (char *)(rep + 1), 1);
    }
    if (!rep)
        rt_fatal("UCX server: out of memory");
    *rep = (ux_reply_t){rq->token, 0, rt.rank};
    ux_send_reply(rep, rq->origin, len);
}

static ucs_status_t ux_on_request(void *arg, const void *header, size_t header_length, void *data,
                                  size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    rt_order_acquire();
    ux_request_t rq;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    if (header_length != sizeof rq)
        rt_fatal("UCX server: malformed request");
    memcpy(&rq, header, sizeof rq);
    if (rndv && rq.kind != REQ_PUT)
        rt_fatal("UCX server: a request other than a put came by rendezvous");
    /* In integers: requests without an address (a fence) carry 0. */
    peer_t *me = &rt.peers[rt.rank];
    char *local = (char *)((uintptr_t)me->map + (rq.raddr - me->rbase));
    switch (rq.kind) {
    case REQ_GETS:
    case REQ_GETV:
        ux_serve_get(&rq, data, local);
        return UCS_OK;
    case REQ_FENCE:
        ux_fence(&rq);
        return UCS_OK;
    case REQ_EPOCH:
        ux_serve_epoch(&rq, data, length);
        return UCS_OK;
    case REQ_ATOMIC:
        ux_reply(&rq, shm_atomic(rt.rank, local, rq.width, (shm_atomic_op_t)rq.op, (int64_t)rq.a,
                                 (int64_t)rq.b));
        return UCS_OK;
    case REQ_SYNC: {
        int64_t value = (int64_t)ux_sync_apply(local, rq.op, rq.a, rq.b, rq.origin);
        if (!rq.counted) {
            ux_reply(&rq, value);
            return UCS_OK;
        }
        break;
    }
    case REQ_SIGNAL:   /* the data, then one more at the waitword b */
        shm_copy(local, data, length);
        ux_sync_apply(me->map + (rq.b - me->rbase), NET_SYNC_ADD32_WAKE, 1, 0, rq.origin);
        return UCS_OK;
    case REQ_PUT:
        if (rndv) {
            ux_receive_put(&rq, data, local, length);
            return UCS_OK;
        }
        shm_copy(local, data, length);
        break;
    case REQ_PUTV:
    case REQ_ACCV: {
        ux_vpack_t vp;
        memcpy(&vp, data, sizeof vp);
        const char *addr = (const char *)data + sizeof vp;
        const char *d = addr + vp.count * sizeof(uint64_t);
        for (uint64_t j = 0; j < vp.count; j++) {
            char *place = me->map + (ux_addr_at(addr, j) - me->rbase);
            if (rq.kind == REQ_PUTV)
                shm_copy(place, d + j * vp.bytes, vp.bytes);
            else
                shm_acc(rt.rank, (reach_type_t)rq.type, rq.scale, d + j * vp.bytes, place, vp.bytes);
        }
        break;
    }
    case REQ_PUTS:
    case REQ_ACCS: {
        ux_pack_t pk;
        memcpy(&pk, data, sizeof pk);
        const char *runs = (const char *)data + sizeof pk;
        size_t run = pk.plan.count[0];
        for (uint64_t j = 0; j < pk.count; j++) {
            char *place = local + ux_run_offset(&pk.plan, pk.plan.dst_stride, pk.first + j);
            if (rq.kind == REQ_PUTS)
                shm_copy(place, runs + j * run, run);
            else
                shm_acc(rt.rank, (reach_type_t)rq.type, rq.scale, runs + j * run, place, run);
        }
        break;
    }
    case REQ_ACC:
        shm_acc(rt.rank, (reach_type_t)rq.type, rq.scale, data, local, length);
        break;
    default:
        rt_fatal("UCX server: unknown request %d", rq.kind);
    }
    ux_completed(&rq);
    return UCS_OK;
}

/* The server polls a little after its last request (REACH_SERVER_SPIN
 * empty progress calls), so that a burst of requests does not pay a
 * wake-up each; then it sleeps on the worker's file descriptor. It polls
 * briefly: a polling server takes the core that the process's own woken
 * thread needs (2 ranks on 2 cores: barrier 14 us at 50 calls, 135 us at
 * 2000). */
static void *ux_server_main(void *arg)
{
    rt_on_server = 1;
    (void)arg;
    unsigned idle = 0;
    while (!atomic_load(&ux.stop)) {
        rt_order_acquire();
        if (ux.epochs)
            ux_retry_epochs();
        unsigned progressed = ucp_worker_progress(ux.server);
        rt_order_release();
        if (progressed) {
            idle = 0;
            continue;
        }
        if (++idle < rt.cfg.server_spin)
            continue;
        idle = 0;
        if (ucp_worker_arm(ux.server) != UCS_OK)
            continue;
        struct pollfd pfd = {ux.server_fd, POLLIN, 0};
        /* An idle process sleeps here; with epochs waiting for a lock
         * that others release by remote atomics, it looks again each ms. */
        poll(&pfd, 1, ux.epochs ? 1 : -1);
        rt_stat_inc(&rt.stats.server_wakeups);
    }
    return NULL;
}

/* ---- the client side -------------------------------------------------------- */

static ucs_status_t ux_on_reply(void *arg, const void *header, size_t header_length, void *data,
                                size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    ux_reply_t r;
    if (header_length != sizeof r)
        rt_fatal("UCX: malformed reply");
    memcpy(&r, header, sizeof r);
    if (r.token != UX_ACK) {
        ux_slot_t *slot = (ux_slot_t *)(uintptr_t)r.token;
        if (length > 0) {
            if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
                rt_fatal("UCX: a packed reply came by rendezvous");
            if (slot->plan)
                ux_pack_runs(slot->plan, slot->plan->dst_stride, slot->local, slot->first,
                             length / slot->plan->count[0], data, 0);
            else
                for (size_t j = 0; j < length / slot->bytes; j++)
                    memcpy(slot->dsts[j], (char *)data + j * slot->bytes, slot->bytes);
        }
        slot->value = r.value;
        slot->done = 1;
    }
    ux.pending[r.target]--;
    ux.pending_total--;
    return UCS_OK;
}

static ucs_status_t ux_on_push(void *arg, const void *header, size_t header_length, void *data,
                               size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    (void)data;
    (void)length;
    (void)param;
    if (header_length != sizeof ux.pushed)
        rt_fatal("UCX: malformed push");
    memcpy(&ux.pushed, header, sizeof ux.pushed);
    ux.pushes++;
    return UCS_OK;
}

/* A push from a process of a counter's home node to a waiter on another. */
static void ux_push(int rank, int64_t value)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_EAGER};
    ux_client_sent();
    ux_wait(ucp_am_send_nbx(ux.push_ep[rank], AM_PUSH, &value, sizeof value, NULL, 0, &p), "push", rank);
}

/* Waits for the next push to this process; returns its value. */
static int64_t ux_wait_push(void)
{
    unsigned spins = 0;
    ux.pushes_awaited++;
    while ((int32_t)(ux.pushes - ux.pushes_awaited) < 0)
        ux_client_progress(&spins);
    return ux.pushed;
}

static void ux_wait_pending(int rank, int below)
{
    unsigned spins = 0;
    while (ux.pending[rank] >= below && ux.pending[rank] > 0)
        ux_client_progress(&spins);
}

/* Waits until the source of rank's put_nbi, if any, may be reused: then
 * its data is in place at the target (a rendezvous completes at the origin
 * once the target has received it). */
static int ux_settle(int rank)
{
    void *req = ux.inflight[rank];
    ux.inflight[rank] = NULL;
    return ux_wait(req, "put", rank);
}

/* Sends a request (and data) to rank's server; returns the send's request
 * (NULL if done): the data may be reused once it completes. With a slot,
 * the reply fills it (counted as pending until it arrives); without, the
 * request is counted (see UX_ACK) unless it is a signal. Puts may go by
 * rendezvous, straight from src into the target's segment; every other
 * request is eager. First waits for rank's put_nbi, if any. */
static void *ux_send_nbx(int rank, ux_request_t *rq, const void *data, size_t len, ux_slot_t *slot)
{
    ux_settle(rank);                          /* location consistency */
    ux_wait_pending(rank, UX_MAX_PENDING);   /* back-pressure, not growth */
    rq->origin = rt.rank;
    rq->counted = slot == NULL && rq->kind != REQ_SIGNAL &&
                  (rq->kind != REQ_SYNC || rq->op == NET_SYNC_CTR_ADD);
    rq->token = (uint64_t)(uintptr_t)slot;
    if (rq->counted) {
        ux.sent[rank]++;
        if (++ux.since_ack[rank] == UX_ACK_EVERY) {
            ux.since_ack[rank] = 0;
            rq->token = UX_ACK;
        }
    }
    if (rq->token) {
        ux.pending[rank]++;
        ux.pending_total++;
    }
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                             .flags = rq->kind == REQ_PUT ? 0 : UCP_AM_SEND_FLAG_EAGER};
    ux_client_sent();
    void *req = ucp_am_send_nbx(ux.ep[rank], AM_REQUEST, rq, sizeof *rq, data, len, &p);
    if (UCS_PTR_IS_ERR(req))
        rt_fatal("UCX send failed: %s", ucs_status_string(UCS_PTR_STATUS(req)));
    return req;
}

/* The same, returning once the data may be reused. */
static void ux_send(int rank, ux_request_t *rq, const void *data, size_t len, ux_slot_t *slot)
{
    ux_wait(ux_send_nbx(rank, rq, data, len, slot), "send", rank);
}

static void ux_wait_slot(ux_slot_t *slot)
{
    unsigned spins = 0;
    while (!slot->done)
        ux_client_progress(&spins);
}

/* Sends a request and, if slot is given, waits for its reply. */
static int ux_request(int rank, ux_request_t *rq, const void *data, size_t len, ux_slot_t *slot)
{
    ux_send(rank, rq, data, len, slot);
    if (slot)
        ux_wait_slot(slot);
    return REACH_SUCCESS;
}

/* A get or an atomic sees everything this process wrote to rank before. */
static int ux_flush(int rank);
static void ux_order(int rank)
{
    if (ux.sent[rank] != ux.fenced[rank])
        ux_flush(rank);
}

static int ux_put(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    ux_request_t rq = {.kind = REQ_PUT, .raddr = raddr};
    ux_send(rank, &rq, src, bytes, NULL);
    return REACH_SUCCESS;
}

/* The put returns at once; the next request to rank (any kind, which
 * keeps location consistency), a flush or flush_local waits for its send.
 * Meanwhile the target's server takes a rendezvous' data while the origin
 * computes: paper 002's sender-side overlap. */
static int ux_put_nbi(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    ux_request_t rq = {.kind = REQ_PUT, .raddr = raddr};
    ux.inflight[rank] = ux_send_nbx(rank, &rq, src, bytes, NULL);
    return REACH_SUCCESS;
}

static int ux_put_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word)
{
    ux_request_t rq = {.kind = REQ_SIGNAL, .raddr = raddr, .b = word};
    ux_send(rank, &rq, src, bytes, NULL);
    return REACH_SUCCESS;
}

static int ux_get(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    ux_order(rank);
    ucp_request_param_t p = {.op_attr_mask = 0};
    ux_client_sent();
    return ux_wait(ucp_get_nbx(ux.ep[rank], dst, bytes, raddr, ux.rkey[rank], &p), "get", rank);
}

static int ux_acc(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr,
                  size_t bytes)
{
    size_t es = acc_elem_size(t), chunk = UX_ACC_CHUNK - UX_ACC_CHUNK % es;
    const char *s = src;
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        ux_request_t rq = {.kind = REQ_ACC, .type = (uint8_t)t, .raddr = raddr + off};
        memcpy(rq.scale, scale, es);   /* the scale is one element */
        ux_request(rank, &rq, s + off, n, NULL);
    }
    return REACH_SUCCESS;
}

static int ux_atomic(int rank, uintptr_t raddr, int width, int op, int64_t a, int64_t b, int64_t *old)
{
    ux_order(rank);
    ux_request_t rq = {.kind = REQ_ATOMIC, .op = (uint8_t)op, .width = (uint8_t)width,
                       .raddr = raddr, .a = (uint64_t)a, .b = (uint64_t)b};
    ux_slot_t slot = {0};
    rt_stat_inc(&rt.stats.remote_atomics);
    ux_request(rank, &rq, NULL, 0, &slot);
    *old = slot.value;
    return REACH_SUCCESS;
}

static int ux_sync(int rank, uintptr_t raddr, net_sync_op_t op, uint64_t a, uint64_t b, uint64_t *old)
{
    ux_request_t rq = {.kind = REQ_SYNC, .op = (uint8_t)op, .raddr = raddr, .a = a, .b = b};
    ux_slot_t slot = {0};
    if (op != NET_SYNC_STORE64 && op != NET_SYNC_STORE32_WAKE)
        rt_stat_inc(&rt.stats.remote_atomics);
    ux_request(rank, &rq, NULL, 0, old ? &slot : NULL);
    if (old)
        *old = (uint64_t)slot.value;
    return REACH_SUCCESS;
}

/* A 64-bit fetch-add (a) or compare-and-swap (a expected, b new) on
 * rank's arena by UCX's atomics: done by the network where it can (no
 * thread of the target takes part), else emulated by UCX at the target's
 * server worker; CPU-coherent either way (ATOMIC_MODE=cpu). */
static uint64_t ux_amo(int rank, uintptr_t raddr, net_sync_op_t op, uint64_t a, uint64_t b)
{
    uint64_t operand = a, reply = b;
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                             .datatype = ucp_dt_make_contig(sizeof operand),
                             .reply_buffer = &reply};
    rt_stat_inc(&rt.stats.remote_atomics);
    ux_client_sent();
    ux_wait(ucp_atomic_op_nbx(ux.ep[rank], op == NET_SYNC_CAS64 ? UCP_ATOMIC_OP_CSWAP : UCP_ATOMIC_OP_ADD,
                              &operand, 1, raddr, ux.rkey[rank], &p),
            "atomic", rank);
    return reply;
}

/* The pack protocol (paper 003's streaming through bounce buffers): runs
 * are packed into chunks sent back to back, so that packing, the wire and
 * the target's unpacking overlap. The chunk grows with the request, from a
 * few KiB (a small request goes in one or two messages) to 64 KiB (a large
 * one streams about eight chunks deep); one bounce buffer suffices because
 * a send returns once its data is out. Gets send the chunk requests, then
 * unpack the replies as they arrive. */
/* Whether an item (a run or a pair) of this size goes packed: always for
 * pack, below the measured crossover for auto. */
static int ux_pack_item(int op, size_t item)
{
    int proto = rt.cfg.strided_protocol;
    return proto == PROTOCOL_PACK ||
           (proto == PROTOCOL_AUTO && item < (op == NET_GET ? UX_DIRECT_MIN_RUN_GET : UX_DIRECT_MIN_RUN));
}

/* Items of `unit` bytes per chunk for a request of `total` bytes: about an
 * eighth of the request, between UX_PACK_MIN and UX_PACK_MAX, at least one. */
static size_t ux_chunk_items(size_t total, size_t unit)
{
    size_t chunk = total / 8;
    chunk = chunk < UX_PACK_MIN ? UX_PACK_MIN : chunk > UX_PACK_MAX ? UX_PACK_MAX : chunk;
    return chunk >= unit ? chunk / unit : 1;
}

static int ux_strided_pack(int op, int rank, reach_type_t t, const void *scale,
                           const reach_strided_t *p, const char *local, uintptr_t raddr)
{
    size_t run = p->count[0];
    uint64_t runs = 1;
    for (int k = 1; k <= p->levels; k++)
        runs *= p->count[k];
    uint64_t per = ux_chunk_items(run * runs, run);   /* run <= UX_PACK_MAX */
    uint64_t nchunks = (runs + per - 1) / per;
    ux_request_t rq = {.kind = op == NET_PUT ? REQ_PUTS : op == NET_ACC ? REQ_ACCS : REQ_GETS,
                       .type = (uint8_t)t, .raddr = raddr};
    if (op == NET_ACC)
        memcpy(rq.scale, scale, acc_elem_size(t));   /* the scale is one element */
    ux_slot_t *slots = op == NET_GET ? calloc(nchunks, sizeof *slots) : NULL;
    if (op == NET_GET && !slots)
        rt_fatal("reach: out of memory for %llu chunk slots", (unsigned long long)nchunks);
    ux_pack_t *pk = (ux_pack_t *)(void *)ux.bounce;
    pk->plan = *p;
    for (uint64_t c = 0; c < nchunks; c++) {
        pk->first = c * per;
        pk->count = runs - pk->first < per ? runs - pk->first : per;
        if (op == NET_GET) {
            slots[c] = (ux_slot_t){.plan = p, .local = (char *)local, .first = pk->first};
            ux_send(rank, &rq, pk, sizeof *pk, &slots[c]);
        } else {
            ux_pack_runs(p, p->src_stride, (char *)local, pk->first, pk->count, (char *)(pk + 1), 1);
            ux_send(rank, &rq, pk, sizeof *pk + pk->count * run, NULL);
        }
    }
    for (uint64_t c = 0; op == NET_GET && c < nchunks; c++)
        ux_wait_slot(&slots[c]);
    free(slots);
    return REACH_SUCCESS;
}

static int ux_strided(int op, int rank, reach_type_t t, const void *scale, const reach_strided_t *p,
                      const char *local, uintptr_t raddr)
{
    int pack = p->levels > 0 && p->count[0] <= UX_PACK_MAX && ux_pack_item(op, p->count[0]);
    if (op == NET_GET || op == NET_ACC)
        ux_order(rank);
    return pack ? ux_strided_pack(op, rank, t, scale, p, local, raddr)
                : net_strided_direct(op, rank, t, scale, p, local, raddr);
}

/* The same for vectors: a descriptor's pairs go in chunks carrying their
 * target addresses; auto packs pairs shorter than the thresholds above. */
static int ux_vector(int op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v,
                     size_t n)
{
    if (op == NET_GET || op == NET_ACC)
        ux_order(rank);
    for (size_t i = 0; i < n; i++) {
        size_t b = v[i].bytes, cnt = v[i].count;
        int pack = cnt > 1 && b > 0 && b + sizeof(uint64_t) <= UX_PACK_MAX && ux_pack_item(op, b);
        if (!pack) {
            int st = net_vector_direct(op, rank, t, scale, &v[i], 1);
            if (st != REACH_SUCCESS)
                return st;
            continue;
        }
        size_t per = ux_chunk_items(cnt * b, b + sizeof(uint64_t));
        size_t nchunks = (cnt + per - 1) / per;
        ux_request_t rq = {.kind = op == NET_PUT ? REQ_PUTV : op == NET_ACC ? REQ_ACCV : REQ_GETV,
                           .type = (uint8_t)t};
        if (op == NET_ACC)
            memcpy(rq.scale, scale, acc_elem_size(t));
        ux_slot_t *slots = op == NET_GET ? calloc(nchunks, sizeof *slots) : NULL;
        if (op == NET_GET && !slots)
            rt_fatal("reach: out of memory for %zu chunk slots", nchunks);
        ux_vpack_t *vp = (ux_vpack_t *)(void *)ux.bounce;
        uint64_t *addr = (uint64_t *)(vp + 1);
        for (size_t c = 0; c < nchunks; c++) {
            size_t first = c * per;
            vp->count = cnt - first < per ? cnt - first : per;
            vp->bytes = b;
            void **remote = op == NET_GET ? v[i].src : v[i].dst;
            char *d = (char *)(addr + vp->count);
            for (size_t j = 0; j < vp->count; j++) {
                addr[j] = (uint64_t)(uintptr_t)remote[first + j];
                if (op != NET_GET)
                    memcpy(d + j * b, v[i].src[first + j], b);
            }
            size_t len = sizeof *vp + vp->count * sizeof(uint64_t) + (op == NET_GET ? 0 : vp->count * b);
            if (op == NET_GET)
                slots[c] = (ux_slot_t){.dsts = v[i].dst + first, .bytes = b};
            ux_send(rank, &rq, vp, len, op == NET_GET ? &slots[c] : NULL);
        }
        for (size_t c = 0; op == NET_GET && c < nchunks; c++)
            ux_wait_slot(&slots[c]);
        free(slots);
    }
    return REACH_SUCCESS;
}

/* A fence: the server answers once it has completed every counted request
 * this process sent it; nothing to send if there is none since the last. */
static int ux_flush(int rank)
{
    if (ux.sent[rank] != ux.fenced[rank]) {
        ux_request_t rq = {.kind = REQ_FENCE, .a = ux.sent[rank]};
        ux_slot_t slot = {0};
        ux_request(rank, &rq, NULL, 0, &slot);
        ux.fenced[rank] = (uint32_t)rq.a;
    }
    ux_wait_pending(rank, 1);
    return REACH_SUCCESS;
}

/* The fences to every target written to go out at once; then their
 * answers are awaited together. */
static int ux_flush_all(void)
{
    for (int r = 0; r < rt.size; r++) {
        if (ux.ep[r] == NULL || ux.sent[r] == ux.fenced[r])
            continue;
        ux_request_t rq = {.kind = REQ_FENCE, .a = ux.sent[r]};
        ux.fence_slots[r] = (ux_slot_t){0};
        ux_send(r, &rq, NULL, 0, &ux.fence_slots[r]);
        ux.fenced[r] = (uint32_t)rq.a;
    }
    unsigned spins = 0;
    while (ux.pending_total > 0)
        ux_client_progress(&spins);
    return REACH_SUCCESS;
}

static void ux_epoch(int rank, const void *msg, size_t len, void *gets, size_t get_bytes)
{
    ux_request_t rq = {.kind = REQ_EPOCH};
    void *dst[1] = {gets};
    ux_slot_t slot = {.dsts = dst, .bytes = get_bytes ? get_bytes : 1};
    ux_request(rank, &rq, msg, len, &slot);
}

static uint32_t ux_sent_to(int rank)
{
    return ux.sent[rank];
}

/* Waits until this process's server has completed `count` counted
 * requests since start-up (modulo 2^32). */
static void ux_wait_completed(uint32_t count)
{
    waitword_wait_count(&ux.done, count);
}

static const transport_t ucx_transport = {
    .name = "ucx",
    .put = ux_put,
    .get = ux_get,
    .acc = ux_acc,
    .atomic = ux_atomic,
    .sync = ux_sync,
    .strided = ux_strided,
    .vector = ux_vector,
    .flush = ux_flush,
    .flush_all = ux_flush_all,
    .put_signal = ux_put_signal,
    .put_nbi = ux_put_nbi,
    .flush_local = ux_settle,
    .amo = ux_amo,
    .sent_to = ux_sent_to,
    .wait_completed = ux_wait_completed,
    .push = ux_push,
    .wait_push = ux_wait_push,
    .epoch = ux_epoch,
};

const transport_t *net;

/* ---- start-up and shut-down ---------------------------------------------------- */

/* Gathers every rank's blob of bytes (variable sizes) over rt.comm. */
static char *ux_allgatherv(const void *mine, int len, int **offsets)
{
    int *lens = malloc(sizeof(int) * (size_t)rt.size), *offs = malloc(sizeof(int) * ((size_t)rt.size + 1));
    if (!lens || !offs)
        rt_fatal("reach_init: out of memory");
    MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, rt.comm);
    offs[0] = 0;
    for (int r = 0; r < rt.size; r++)
        offs[r + 1] = offs[r] + lens[r];
    char *all = malloc((size_t)offs[rt.size] + 1);
    if (!all)
        rt_fatal("reach_init: out of memory");
    MPI_Allgatherv(mine, len, MPI_BYTE, all, lens, offs, MPI_BYTE, rt.comm);
    free(lens);
    *offsets = offs;
    return all;
}

static ucp_worker_h ux_worker(int *fd)
{
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    ucp_worker_h w;
    if (ucp_worker_create(ux.ctx, &wp, &w) != UCS_OK || ucp_worker_get_efd(w, fd) != UCS_OK)
        rt_fatal("reach_init: cannot create a UCX worker");
    return w;
}

static void ux_handler(ucp_worker_h w, unsigned id, ucp_am_recv_callback_t cb)
{
    ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                               UCP_AM_HANDLER_PARAM_FIELD_CB,
                                 .id = id,
                                 .cb = cb};
    if (ucp_worker_set_am_recv_handler(w, &hp) != UCS_OK)
        rt_fatal("reach_init: cannot set a UCX message handler");
}

int ucx_init(void)
{
    ucp_config_t *config;
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
                           .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                                       UCP_FEATURE_WAKEUP,
                           .mt_workers_shared = 1};
    if (ucp_config_read("REACH", NULL, &config) != UCS_OK)
        return rt_error(REACH_ERR_SYSTEM, "reach_init", "cannot read UCX's configuration");
    /* Network atomics (amo) must be atomic against the CPU atomics that
     * processes of the target's node use on the same words: UCX uses a
     * device's atomics only where they are, and emulates them otherwise. */
    if (ucp_config_modify(config, "ATOMIC_MODE", "cpu") != UCS_OK)
        return rt_error(REACH_ERR_SYSTEM, "reach_init", "UCX: cannot select CPU-coherent atomics");
    ucs_status_t s = ucp_init(&params, config, &ux.ctx);
    ucp_config_release(config);
    if (s != UCS_OK)
        return rt_error(REACH_ERR_SYSTEM, "reach_init", "UCX: %s", ucs_status_string(s));
    ux.client = ux_worker(&ux.client_fd);
    ux.server = ux_worker(&ux.server_fd);
    ux_handler(ux.server, AM_REQUEST, ux_on_request);
    ux_handler(ux.client, AM_REPLY, ux_on_reply);
    ux_handler(ux.client, AM_PUSH, ux_on_push);

    /* The whole arena, registered once. */
    peer_t *me = &rt.peers[rt.rank];
    ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                             UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = me->map,
                               .length = shm_arena_size()};
    if ((s = ucp_mem_map(ux.ctx, &mp, &ux.mem)) != UCS_OK) {
        char size[32];
        return rt_error(REACH_ERR_SYSTEM, "reach_init",
                        "UCX cannot register the arena (%s, REACH_ARENA_SIZE): %s; a smaller "
                        "REACH_ARENA_SIZE, or a raised locked-memory limit (ulimit -l), may let it",
                        rt_size_str(size, sizeof size, shm_arena_size()), ucs_status_string(s));
    }
    void *rkey_buf;
    size_t rkey_len;
    ucp_address_t *addr, *caddr;
    size_t addr_len, caddr_len;
    if (ucp_rkey_pack(ux.ctx, ux.mem, &rkey_buf, &rkey_len) != UCS_OK ||
        ucp_worker_get_address(ux.server, &addr, &addr_len) != UCS_OK ||
        ucp_worker_get_address(ux.client, &caddr, &caddr_len) != UCS_OK)
        return rt_error(REACH_ERR_SYSTEM, "reach_init", "UCX cannot describe this process");
    int *aoff, *coff, *koff;
    char *addrs = ux_allgatherv(addr, (int)addr_len, &aoff);
    char *caddrs = ux_allgatherv(caddr, (int)caddr_len, &coff);
    char *keys = ux_allgatherv(rkey_buf, (int)rkey_len, &koff);
    ucp_worker_release_address(ux.server, addr);
    ucp_worker_release_address(ux.client, caddr);
    ucp_rkey_buffer_release(rkey_buf);
    uintptr_t *bases = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    ux.ep = calloc((size_t)rt.size, sizeof *ux.ep);
    ux.reply_ep = calloc((size_t)rt.size, sizeof *ux.reply_ep);
    ux.push_ep = calloc((size_t)rt.size, sizeof *ux.push_ep);
    ux.rkey = calloc((size_t)rt.size, sizeof *ux.rkey);
    ux.pending = calloc((size_t)rt.size, sizeof(int));
    ux.sent = calloc((size_t)rt.size, sizeof(uint32_t));
    ux.fenced = calloc((size_t)rt.size, sizeof(uint32_t));
    ux.since_ack = calloc((size_t)rt.size, sizeof(uint32_t));
    ux.fence_slots = calloc((size_t)rt.size, sizeof(ux_slot_t));
    ux.inflight = calloc((size_t)rt.size, sizeof(void *));
    ux.done_from = calloc((size_t)rt.size, sizeof(uint32_t));
    ux.deferred = calloc((size_t)rt.size, sizeof(ux_request_t));
    ux.ndeferred = 0;
    atom_store_relaxed(&ux.done.value, 0);
    if (!bases || !ux.ep || !ux.reply_ep || !ux.push_ep || !ux.rkey || !ux.pending || !ux.sent ||
        !ux.fenced ||
        !ux.since_ack || !ux.fence_slots || !ux.inflight || !ux.done_from || !ux.deferred)
        rt_fatal("reach_init: out of memory");
    uintptr_t mine = me->rbase;
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, bases, sizeof mine, MPI_BYTE, rt.comm);
    for (int r = 0; r < rt.size; r++) {
        if (rt.peers[r].map)
            continue;   /* on this node: reached through its mapping */
        rt.peers[r].rbase = bases[r];
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                              .address = (ucp_address_t *)(void *)(addrs + aoff[r])};
        ucp_ep_params_t back = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                                .address = (ucp_address_t *)(void *)(caddrs + coff[r])};
        if ((s = ucp_ep_create(ux.client, &ep, &ux.ep[r])) != UCS_OK ||
            (s = ucp_ep_create(ux.server, &back, &ux.reply_ep[r])) != UCS_OK ||
            (s = ucp_ep_create(ux.client, &back, &ux.push_ep[r])) != UCS_OK ||
            (s = ucp_ep_rkey_unpack(ux.ep[r], keys + koff[r], &ux.rkey[r])) != UCS_OK)
            return rt_error(REACH_ERR_SYSTEM, "reach_init", "UCX cannot reach rank %d: %s", r,
                            ucs_status_string(s));
    }
    free(bases);
    free(addrs);
    free(caddrs);
    free(keys);
    free(coff);
    free(aoff);
    free(koff);
    ux.bounce = malloc(sizeof(ux_pack_t) + UX_PACK_MAX);
    if (!ux.bounce)
        rt_fatal("reach_init: out of memory");
    rt_order_threads = 1;
    if (pthread_create(&ux.thread, NULL, ux_server_main, NULL) != 0)
        rt_fatal("reach_init: cannot start the server thread");
    net = &ucx_transport;
    return REACH_SUCCESS;
}

/* Closes an endpoint without waiting for its peer. */
static void ux_close(ucp_worker_h w, ucp_ep_h ep)
{
    if (ep == NULL)
        return;
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
    void *req = ucp_ep_close_nbx(ep, &p);
    if (req && !UCS_PTR_IS_ERR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS)
            ucp_worker_progress(w);
        ucp_request_free(req);
    }
}

void ucx_finalize(void)
{
    if (net == NULL)
        return;
    ux_flush_all();
    /* Shut down in steps that every rank takes together: once nobody sends,
     * the servers stop (no worker is progressed while its peers tear down
     * their side, which UCX's TCP transport does not survive), then the
     * endpoints close, then the workers go. */
    MPI_Barrier(rt.comm);
    atomic_store(&ux.stop, 1);
    ucp_worker_signal(ux.server);
    pthread_join(ux.thread, NULL);
    rt_order_threads = 0;
    MPI_Barrier(rt.comm);
    for (int r = 0; r < rt.size; r++) {
        if (ux.rkey[r])
            ucp_rkey_destroy(ux.rkey[r]);
        ux_close(ux.client, ux.ep[r]);
        ux_close(ux.server, ux.reply_ep[r]);
        ux_close(ux.client, ux.push_ep[r]);
    }
    MPI_Barrier(rt.comm);
    ucp_worker_destroy(ux.client);
    ucp_worker_destroy(ux.server);
    ucp_mem_unmap(ux.ctx, ux.mem);
    ucp_cleanup(ux.ctx);
    free(ux.ep);
    free(ux.reply_ep);
    free(ux.push_ep);
    free(ux.rkey);
    free(ux.pending);
    free(ux.sent);
    free(ux.fenced);
    free(ux.since_ack);
    free(ux.fence_slots);
    free(ux.inflight);
    free(ux.done_from);
    free(ux.deferred);
    while (ux.epochs) {   /* none if every origin saw its unlock done */
        ux_epoch_t *p = ux.epochs;
        ux.epochs = p->next;
        free(p);
    }
    free(ux.bounce);
    ux.ep = NULL;
    ux.pending_total = 0;
    ux.pushes = ux.pushes_awaited = 0;
    atomic_store(&ux.stop, 0);
    net = NULL;
}

const char *reach_transports(void)
{
    static char line[160];
    snprintf(line, sizeof line,
             "shm (memfd arenas, CPU atomics, futex waits) within a node; "
             "ucx (UCX %s: RMA, active messages to a server thread) between nodes",
             ucp_get_version_string());
    return line;
}
