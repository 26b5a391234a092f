/* The UCX backend's state and the functions its files share. The files
 * call one way: ucx.c (start-up and shut-down, the endpoints, the table)
 * calls ucx_watch.c (the watch of lost ranks), which calls ucx_ops.c
 * (sends, receives, gets, atomics, progress; the state); ucx.c is on top
 * because start-up names every worker's handlers. */
#ifndef REACH_TRANSPORT_UCX_H
#define REACH_TRANSPORT_UCX_H

#include "transport/net.h"
#include "base/state.h"
#include "base/wait.h"

#include <ucp/api/ucp.h>

/* Active-message ids: one per channel, the watch's ping and answer, and a
 * large get's request and data (ux_get). */
enum { UX_REQUEST = 11, UX_REPLY = 12, UX_PUSH = 13, UX_PING = 14, UX_PONG = 15, UX_GET = 16, UX_GET_DATA = 17 };
/* The smallest get done by messages rather than UCX's get, where UCX's
 * network is TCP (ux_get_by_message), and how long after a get's request
 * the server stays awake while its data is on its way (ux_arm). */
#define UX_GET_MSG_MIN ((size_t)16 << 10)
#define UX_GET_AWAKE_NS 1000000
/* An accumulate's data per message. Between two machines over TCP, an
 * accumulate of 1 MiB took 504 us in chunks of 32 KiB, 1202 in 8 KiB, 686
 * in 16 KiB and 609 in 64 KiB, MPI-3 1989; with every rank its own node
 * on one machine, over UCX's shared memory, 102 against 112 in 8 KiB
 * (reach-bench --only transfer, medians of 3 sittings). */
#define UX_ACC_CHUNK ((size_t)32 << 10)
/* Data to a rank of another machine, where UCX's only network is TCP,
 * goes eagerly (UCP_AM_SEND_FLAG_EAGER, ux_tcp_peer): a put of more than
 * this in parts of this size (ux_put_part), and a get's answer (a get of
 * UX_GET_MSG_MIN or more) in such parts too (ux_on_get). UCX chose its
 * rendezvous for 64 KiB: a put of 64 KiB took 55-71 us through Global
 * Arrays between two machines, 16-48 eagerly (ARMCI-MPI 39). Over shared
 * memory its rendezvous is the faster (5.1 against 6.1-7.0 us), and over
 * RDMA networks its choice stands. The part's size, between two machines
 * through Global Arrays (ga-bench --network, medians of two runs, us):
 *
 *   parts of        16K   32K   48K   64K   UCX's rendezvous (before)
 *   get 64 KiB       35    30    50    50    50 (eager, one message)
 *   get 256 KiB     119    78    82    98    68
 *   get 1 MiB       460   280   225   280   560-660
 *   GA_Dgemm 256   1.36  1.35  1.35  1.40   2.59-2.65 ms
 *
 * An eager message of more than 32 KiB took as long as two of 32. The
 * rendezvous is faster for a get of 256 KiB waited for at once, but its
 * later steps wait for the origin's progress: a get that overlaps work
 * receives its data only at its wait. Puts in parts of 32 KiB against
 * whole, three runs each (docs/benchmarks.md): 64 KiB 14.0-17.5 us
 * against 16.4-27.4; 256 KiB 59-70 against 68-295; 1 MiB 248-270 against
 * 662-788 (ARMCI-MPI 392-410); parts of 64 KiB were slower. */
#define UX_PART ((size_t)32 << 10)
_Static_assert(UX_ACC_CHUNK % 16 == 0, "a chunk holds whole elements");
/* Endpoint kinds: client to a rank's server, server to its client, client
 * to its client. */
enum { UX_C2S, UX_S2C, UX_C2C, UX_EPS };

/* Which transports the context was made with. */
enum { UX_TLS_ALL, UX_TLS_NO_SM, UX_TLS_USER };

extern struct ux_state {
    ucp_context_h ctx;
    ucp_worker_h worker[3]; /* NET_CLIENT, NET_SERVER, NET_WATCH (NULL without checks) */
    int fd[3];
    ucp_mem_h mem;
    ucp_ep_h *ep[UX_EPS]; /* by endpoint kind, by rank */
    ucp_ep_h *watch;      /* by rank: the peer failure watch (ux_watch) */
    int watching;         /* ranks watched */
    wait_ping_t *pings;   /* by rank: the watch's pings (ux_ping) */
    double next_ping;
    int32_t me; /* the pings' header: this rank */
    ucp_rkey_h *rkey;
    const net_upcalls_t *up;
    int tcp;               /* UCX's only network is TCP (ux_tcp_only): gets by messages, data to other machines eager */
    int cma;               /* UCX reads the memory of this machine's processes itself (ux_tcp_only) */
    int tls;               /* the context's transports: UX_TLS_* */
    _Atomic int get_sends; /* gets' data the server is sending (ux_on_get), */
    uint64_t get_at;       /* since this time (CLOCK_MONOTONIC, ns) */
} ux;

/* ucx_ops.c: the running backend, below the rest (it calls neither
 * start-up nor the watch) */
int ux_test(void *req, const char *what, int rank) REACH_HIDDEN;
void *ux_send(net_chan_t chan, int rank, const void *hdr, size_t hlen, const void *data, size_t len,
              int flags) REACH_HIDDEN;
void ux_recv_rndv(void *rndv, void *place, size_t len, void *arg) REACH_HIDDEN;
/* The part in which a put to rank goes (UX_PART to another machine over
 * TCP; 0: whole). */
size_t ux_put_part(int rank) REACH_HIDDEN;
void *ux_get(int rank, void *dst, uintptr_t raddr, size_t bytes) REACH_HIDDEN;
void *ux_amo(int rank, int cas, const uint64_t *operand, uint64_t *result, uintptr_t raddr) REACH_HIDDEN;
unsigned ux_progress(net_worker_t w) REACH_HIDDEN;
int ux_arm(net_worker_t w) REACH_HIDDEN;
int ux_fd(net_worker_t w) REACH_HIDDEN;
/* The keepalive interval: a quarter of REACH_PEER_TIMEOUT, at least
 * 50 ms. */
int ux_keepalive_ms(void) REACH_HIDDEN;
int ux_idle_ms(void) REACH_HIDDEN;
void ux_signal(net_worker_t w) REACH_HIDDEN;
/* At shut-down (the server thread has stopped): progresses the workers
 * until the gets' data sent by this process have completed, a second at
 * most. */
void ux_drain_gets(void) REACH_HIDDEN;
/* The handlers of the client's and the server's arrivals, which hand each
 * message to the protocol (net_upcalls_t). */
ucs_status_t ux_on_request(void *arg, const void *header, size_t header_length, void *data, size_t length,
                           const ucp_am_recv_param_t *param) REACH_HIDDEN;
ucs_status_t ux_on_reply(void *arg, const void *header, size_t header_length, void *data, size_t length,
                         const ucp_am_recv_param_t *param) REACH_HIDDEN;
ucs_status_t ux_on_push(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param) REACH_HIDDEN;
/* A large get's request, on the target's server, and its data, on the
 * origin's client (ux_get). */
ucs_status_t ux_on_get(void *arg, const void *header, size_t header_length, void *data, size_t length,
                       const ucp_am_recv_param_t *param) REACH_HIDDEN;
ucs_status_t ux_on_get_data(void *arg, const void *header, size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param) REACH_HIDDEN;
/* ucx_watch.c: the watch of lost ranks (REACH_PEER_TIMEOUT) */
/* Opens the watch endpoint to rank's watch, whose worker address is
 * address, in UCX's peer failure mode. */
ucs_status_t ux_watch(int rank, void *address) REACH_HIDDEN;
/* The watch worker's handlers of a ping and of its answer. */
ucs_status_t ux_on_ping(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param) REACH_HIDDEN;
ucs_status_t ux_on_pong(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param) REACH_HIDDEN;
/* Progresses the watch worker, and pings the ranks that are due. */
unsigned ux_watch_progress(void) REACH_HIDDEN;

#endif
