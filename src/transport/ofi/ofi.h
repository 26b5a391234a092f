/* The libfabric backend's state and wire format, shared by the running
 * backend (ofi.c: messages, completions, progress), its endpoints and
 * start-up (ofi_ep.c) and its watch (ofi_watch.c). */
#ifndef REACH_TRANSPORT_OFI_H
#define REACH_TRANSPORT_OFI_H

#include "transport/net.h"
#include "base/state.h"
#include "base/wait.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The largest message sent whole (the protocol's eager chunks are at most
 * 64 KiB and a header); larger ones go by rendezvous: straight into place
 * (OFI_RNDV_MSG) or, where the protocol asked for an eager message, into
 * a buffer of the receiver's and then to the upcall as a whole message
 * (OFI_LARGE_MSG). Such a message reaches the protocol once its data is
 * read, perhaps after smaller ones its sender sent later; reach sends
 * eager messages this large only as requests and answers whose sender
 * waits for them (a deferred window epoch and its gets). It is also the
 * eager limit reach asks of the tcp provider (ofi_provider_sizes): what
 * reach sends whole, the provider sends as one message, not in segments
 * of its own 16 KiB (docs/benchmarks.md, "libfabric's eager limit"). */
#define OFI_EAGER ((size_t)(68 << 10))
/* The largest message sent by fi_inject, if the provider takes it (the
 * protocol's requests with a little data: an 8 B put is 120 bytes). */
#define OFI_INJECT ((size_t)256)
/* The size of the provider's bounce buffers reach asks for: they hold an
 * injected message and its headers; an eager message goes straight into
 * reach's posted receive. */
#define OFI_PROVIDER_BUFFER ((size_t)512)
_Static_assert(OFI_INJECT + 128 <= OFI_PROVIDER_BUFFER, "an injected message fits a bounce buffer");
/* An accumulate's data per message, sent whole: with its headers (the
 * protocol's request, ofi_wire_t and a trace's tag: 136 bytes) it fits
 * OFI_EAGER. Between two machines, accumulates of 128-512 KiB took
 * 1.5-1.7 times as long in chunks of 16 KiB (docs/benchmarks.md,
 * "libfabric's eager limit"). */
#define OFI_ACC_CHUNK ((size_t)64 << 10)
_Static_assert(OFI_ACC_CHUNK % 16 == 0 && OFI_ACC_CHUNK + 512 <= OFI_EAGER, "a chunk is sent whole");
/* A larger put goes in parts of this size, each sent whole (ofi_put_part).
 * Between two machines through Global Arrays (ga-bench --network, three
 * runs each), a put of 1 MiB took 309-345 us so and 646-793 whole, where
 * the provider moves it by rendezvous (ARMCI-MPI 392-410); one of 256 KiB
 * took 71-76 and 63-223. */
#define OFI_PUT_PART OFI_ACC_CHUNK
/* The endpoints: the client's and the server's (net.h's NET_CLIENT,
 * NET_SERVER). The watch (NET_WATCH) has none: its pings travel between
 * the servers' endpoints (ofi_watch.c). */
#define OFI_WORKERS 2
/* Receive buffers kept posted per endpoint. */
#define OFI_RECVS 16
/* Send copies of at least OFI_COPY_MIN bytes are buffers of OFI_EAGER
 * bytes, and up to OFI_COPIES of them (2.2 MB) are kept for the next sends
 * when their sends complete. Allocated and freed a message at a time, the
 * 16 copies of an accumulate of 1 MiB made glibc give the heap's top back
 * to the kernel (brk) and fault it in again at the next accumulate: between
 * two machines it took 1195-1560 us, and 433-605 with the copies kept
 * (docs/benchmarks.md, "libfabric's eager limit"). */
#define OFI_COPY_MIN ((size_t)4 << 10)
#define OFI_COPIES 32
#define OFI_ENDED "; that rank has ended without reach_finalize (killed, crashed or exited)"

/* The backend's own header, before the protocol's: what follows, and
 * for rendezvous and atomics their fields. */
enum {
    OFI_EAGER_MSG,
    OFI_RNDV_MSG,
    OFI_LARGE_MSG,
    OFI_RNDV_DONE,
    OFI_AMO,
    OFI_AMO_DONE,
    OFI_GET,
    OFI_GET_DATA,
    OFI_PING,
    OFI_PONG
};
/* Gets up to this size are messages answered by the target's server
 * (OFI_GET, OFI_GET_DATA); larger ones are fi_read, zero-copy. Over tcp
 * a get of 8 B took 28 us by fi_read and 18-20 by message, one of 64 KiB
 * 79 us by fi_read and 48 by message. */
#define OFI_GET_MSG_MAX ((size_t)64 << 10)
/* A larger get is fi_reads of this size, all posted at once. Between two
 * machines over tcp (ga-bench --network), a get of 1 MiB took 628-690 us
 * in one read and 231-256 in reads of 128 KiB (ARMCI-MPI 388). In reads
 * of 64 KiB it took 265-285, and in reads of 256 KiB 209-701. GA_Dgemm
 * of 256, whose gets overlap its multiply, took 1.43-1.55 ms in one read
 * and 1.29-1.35 in reads of 128 KiB. Answered by the target's server in
 * parts of 64 KiB, as over UCX, the get took 285-335 us and GA_Dgemm
 * 1.65-1.83 ms: each part is copied at both ends, which a read is not. */
#define OFI_READ_PART ((size_t)128 << 10)
typedef struct ofi_wire {
    uint8_t chan, kind;
    int32_t from;       /* the sender's rank */
    uint32_t hlen;      /* the protocol header's length; OFI_AMO: 1 for compare-and-swap */
    uint64_t len;       /* the data's length; OFI_AMO: the value stored by a swap; _DONE: the old value */
    uint64_t addr, key; /* rendezvous: where the data is; OFI_AMO: the word, and the operand;
                         * OFI_GET: where the data is */
    uint64_t token;     /* the sender's request, answered by _DONE */
} ofi_wire_t;
_Static_assert(sizeof(ofi_wire_t) + OFI_GET_MSG_MAX <= OFI_EAGER, "a get's answer is sent whole");

/* A request of the backend's: the completion queue's context is its
 * first member. */
enum {
    OFI_REQ_SEND,
    OFI_REQ_RNDV,
    OFI_REQ_RNDV_READ,
    OFI_REQ_GET,
    OFI_REQ_GET_READ,
    OFI_REQ_AMO,
    OFI_REQ_RECV,
    OFI_REQ_PING
};
typedef struct ofi_req {
    struct fi_context2 ctx;
    int kind;
    int keep; /* the protocol tests it (net test): ofi_test frees it */
    _Atomic int done;
    int err;           /* an fi_errno, if it failed */
    void *buf;         /* freed when done (a copy sent, a receive buffer) */
    int kept;          /* buf is a send copy of OFI_EAGER bytes (ofi_copy_give) */
    struct fid_mr *mr; /* closed when done */
    uint64_t *result;  /* OFI_REQ_AMO: the old value goes here */
    void *dst;         /* OFI_REQ_GET by message: the data goes here */
    size_t reads;      /* OFI_REQ_GET by fi_read: its parts not yet read (only the client
                        * worker's progress counts them, so no atomic) */
    void *arg;         /* OFI_REQ_RNDV_READ: up->received's; NULL for OFI_LARGE_MSG (buf
                             * holds its wire header, protocol header and data);
                             * OFI_REQ_GET_READ: its get */
    int rank, sender_w, w;
    uint64_t token;
} ofi_req_t;

extern struct ofi_state {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct {
        struct fid_ep *ep;
        struct fid_cq *cq;
        int fd;
        size_t rlen; /* the size of its receive buffers */
        ofi_req_t *recv[OFI_RECVS];
        /* Completions read but not yet handled, in order: a handler that
         * sends or reads may progress the provider again (on -FI_EAGAIN),
         * and what that reads must wait for the ones before it. */
        struct fi_cq_msg_entry *queue;
        size_t head, tail, cap;
        int handling; /* a handler of this worker's runs */
    } w[OFI_WORKERS];
    _Atomic long owned;               /* the backend's own requests not yet complete */
    void *_Atomic copies[OFI_COPIES]; /* send copies kept for reuse (NULL: none) */
    fi_addr_t (*addr)[OFI_WORKERS];   /* by rank: its endpoints */
    wait_ping_t *pings;               /* by rank: the watch's pings (ofi_watch.c) */
    double next_ping;
    struct fid_mr *mr;      /* the arena */
    uint64_t *keys, *bases; /* by rank: its arena's key and address */
    int virt_addr;          /* RMA addresses are virtual (else offsets in the region) */
    int prov_key, mr_endpoint;
    _Atomic uint64_t next_key; /* keys of this process's registrations, when it chooses them */
    size_t inject;
    const net_upcalls_t *up;
} ofi;

/* ofi_ep.c: a buffer for a send's copy of total bytes, kept or new;
 * *kept says whether it goes back to ofi_copy_give. */
void *ofi_copy_take(size_t total, int *kept) REACH_HIDDEN;
void ofi_copy_give(void *buf) REACH_HIDDEN;

/* Frees a request of ofi_req_new's (and its buffer). */
static inline void ofi_req_free(ofi_req_t *r)
{
    atomic_fetch_sub_explicit(&ofi.owned, 1, memory_order_relaxed);
    if (r->kept)
        ofi_copy_give(r->buf);
    else
        free(r->buf);
    free(r);
}

/* ofi_ep.c: endpoints, below the rest (it calls none of the backend's
 * handlers) */
ofi_req_t *ofi_req_new(int kind) REACH_HIDDEN;
/* Opens and connects every endpoint, the arena registered: collective. */
int ofi_init(void *base, size_t len, const net_upcalls_t *up) REACH_HIDDEN;
/* Opens libfabric (ofi_lib.c) on the first call; NULL, or why it could
 * not. */
const char *ofi_lib_open(void) REACH_HIDDEN;
/* Closes whatever is open. */
void ofi_close_all(void) REACH_HIDDEN;
/* Registers buf for remote reads through worker w's endpoint: 0 or a
 * negative fi_errno. */
int ofi_register(int w, const void *buf, size_t len, struct fid_mr **mr, uint64_t *key) REACH_HIDDEN;
/* Posts receive request r at worker w (again). */
void ofi_post_recv(int w, ofi_req_t *r) REACH_HIDDEN;
/* ofi_watch.c: the watch (the server thread's, under am.serve), each time
 * it runs: keeps the client's sends moving, and pings the ranks that
 * /proc cannot see. */
void ofi_watch_round(void) REACH_HIDDEN;
/* At the server's endpoint: a ping (got bytes) answered, an answer heard. */
void ofi_watch_arrived(const ofi_wire_t *m, size_t got) REACH_HIDDEN;
/* A ping to rank, not yet posted: its request, the message in its buffer
 * (sizeof(ofi_wire_t) bytes). */
ofi_req_t *ofi_ping_new(int rank) REACH_HIDDEN;
/* A ping that failed: its rank is lost. */
void ofi_watch_failed(int rank, int err) REACH_HIDDEN;

/* raddr of rank's arena as its RMA address. */
static inline uint64_t ofi_remote(int rank, uintptr_t raddr)
{
    return ofi.virt_addr ? raddr : raddr - ofi.bases[rank];
}

#endif
