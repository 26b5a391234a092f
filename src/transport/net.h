/* A network backend: the few verbs reach's protocol (transport/am) needs
 * from a network to reach ranks on other nodes. A backend knows nothing of
 * reach's operations: it moves messages between workers, reads remote
 * memory, does 64-bit atomics, and wakes a sleeping thread. Adding a
 * network is one folder implementing this table, one line in
 * net_backends (transport/am/am_server.c), its name among REACH_NETWORK's
 * choices (base/config_table.h) and its sources in CMakeLists.txt.
 *
 * Each process has two workers: the client (the application thread issues
 * on it) and the server (which serves requests from other processes:
 * progressed by the process's server thread, or by its application thread
 * while that waits, never by both at once). A backend may have a third,
 * the watch, for its checks on its peers (see idle_ms), which only the
 * server thread progresses once started (init may, before); without one,
 * progress gives 0, arm 1 and fd -1. A watch may also move the client's
 * sends along where its network is thread-safe (libfabric's does), but
 * never runs the client's handlers. Messages travel on four channels:
 * requests from a client to a rank's server, replies from a server to a
 * rank's client, and pushes to a rank's client from a client or from a
 * server.
 *
 * Every entry that fails ends the job with a message naming the operation
 * and the rank (rt_fatal): a backend never returns an error to the
 * protocol once started. A backend that finds a rank failed while it
 * progresses says so with wait_peer_lost (base/wait.h). */
#ifndef REACH_TRANSPORT_NET_H
#define REACH_TRANSPORT_NET_H

#include <stddef.h>
#include <stdint.h>

typedef enum net_worker { NET_CLIENT, NET_SERVER, NET_WATCH } net_worker_t;
typedef enum net_chan { NET_REQUEST, NET_REPLY, NET_PUSH, NET_SERVER_PUSH } net_chan_t;

/* Send flags: EAGER (copied out at once; the default lets the backend
 * choose rendezvous for large data, received straight into its place),
 * FREE (the backend frees hdr, one block with the data after it, once
 * sent). */
enum { NET_EAGER = 1, NET_FREE = 2 };

/* A message arrived at a worker: a header and its data. With rndv
 * non-NULL the data has not arrived: recv_rndv fetches it. Both are valid
 * only during the call. */
typedef void (*net_recv_fn)(const void *hdr, size_t hlen, void *data, size_t len, void *rndv);

/* What the protocol gives a backend at start-up: the arrivals of each
 * channel, and the end of a rendezvous receive (arg as given to
 * recv_rndv). */
typedef struct net_upcalls {
    net_recv_fn request; /* at the server worker */
    net_recv_fn reply;   /* at the client worker */
    net_recv_fn push;    /* at the client worker */
    void (*received)(void *arg);
} net_upcalls_t;

typedef struct net_backend {
    /* Collective over the job. Registers [base, base + len) (this
     * process's arena) for get and amo, connects every rank; returns
     * REACH_SUCCESS on every rank or an error on every rank (having said
     * why on the ranks that failed). */
    int (*init)(void *base, size_t len, const net_upcalls_t *up);
    /* Collective: closes everything (the server thread has stopped). */
    void (*finalize)(void);
    /* One line for reach_transports(). */
    const char *(*describe)(void);
    /* Sends hdr and data to rank on chan. Returns a request to complete
     * (see test) once data may be reused, or NULL if it may be already. */
    void *(*send)(net_chan_t chan, int rank, const void *hdr, size_t hlen, const void *data, size_t len, int flags);
    /* Receives a rendezvous message's data into place; up->received(arg)
     * once it is there (perhaps before this returns). */
    void (*recv_rndv)(void *rndv, void *place, size_t len, void *arg);
    /* Reads bytes at raddr of rank's arena into dst. */
    void *(*get)(int rank, void *dst, uintptr_t raddr, size_t bytes);
    /* 64-bit fetch-add (cas 0: *operand added) or compare-and-swap (cas 1:
     * *operand expected, *result stored) at raddr of rank's arena,
     * atomic against the CPU atomics of the target's node; *result gets
     * the old value. */
    void *(*amo)(int rank, int cas, const uint64_t *operand, uint64_t *result, uintptr_t raddr);
    /* 1 once req is complete (req is then released), 0 while it is not;
     * what and rank name it if it failed. */
    int (*test)(void *req, const char *what, int rank);
    /* Progresses a worker; the number of events handled. */
    unsigned (*progress)(net_worker_t w);
    /* 1 if the worker may sleep on its descriptor (nothing pending). */
    int (*arm)(net_worker_t w);
    /* The descriptor a thread sleeps on until the armed worker has news
     * (every worker has one; -1 for a worker not opened). */
    int (*fd)(net_worker_t w);
    /* The longest a sleeping worker may go without progress, in ms, so
     * that the backend's checks on its peers run (-1: no limit). */
    int (*idle_ms)(void);
    /* Wakes the thread sleeping on w's descriptor. */
    void (*signal)(net_worker_t w);
    /* The data of one accumulate message, measured best for the backend:
     * the target applies each chunk while the next is on the wire (a
     * positive multiple of 16, the largest element). */
    size_t acc_chunk;
    /* The data of one put message to rank, where the backend sends a
     * larger put in parts, each applied as it arrives (0: whole). */
    size_t (*put_part)(int rank);
} net_backend_t;

extern const net_backend_t net_ucx; /* transport/ucx */
extern const net_backend_t net_ofi; /* transport/ofi */

#endif
