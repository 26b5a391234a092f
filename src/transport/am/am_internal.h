/* The protocol's message formats and state, shared by its origin side
 * (origin.c, pack.c), its target side (target.c) and its server thread
 * and start-up (am_server.c). */
#ifndef REACH_TRANSPORT_AM_INTERNAL_H
#define REACH_TRANSPORT_AM_INTERNAL_H

#include <pthread.h>

#include "base/waitword.h"
#include "transport/am/am.h"
#include "transport/net.h"

enum {
    REQ_PUT,
    REQ_ACC,
    REQ_ATOMIC,
    REQ_WORD,
    REQ_CALL,
    REQ_PUTS,
    REQ_ACCS,
    REQ_GETS,
    REQ_PUTV,
    REQ_ACCV,
    REQ_GETV,
    REQ_FENCE,
    REQ_SIGNAL,
    REQ_GET_WRITE
};

/* Requests that write and return nothing (puts, accumulates, counted
 * handler calls) are "counted": no reply, but the origin counts those it
 * sent to each target and the target's server counts those it completed
 * from each origin (Buntinas03's op_init and op_done; docs/references.md).
 * A fence sends the
 * origin's count and the server replies once it has completed that many;
 * the combined barrier compares the same counts without any fence
 * message. Requests that return something are answered. Signals (word
 * operations without an answer, uncounted calls) are
 * neither: the protocol that sends one sees its effect by other means (a
 * waiter wakes), so they leave no fence behind. */
#define AM_ACK ((uint64_t)1) /* token of a counted request that asks for an ack */
/* Token of a reply no request asked for: its value is how many counted
 * requests from the origin the target has completed (am_tell_done). */
#define AM_DONE ((uint64_t)2)
/* A server that never drains (a stream of requests from many origins)
 * still tells its origins after this many events. */
#define AM_TELL_EVERY 64
/* What a counted request asks of its target (rq->tell): nothing (its
 * origin completes its writes by counts, in a combined barrier); to be
 * told once the target's server has drained what arrived; or to be told
 * at the end of the round that completes it. The first AM_TELL_FIRST
 * counted requests to a target after a fence ask for the last (of a write
 * in parts or chunks, only its last): a fence soon after a few writes
 * waits for that tell, which would otherwise wait for a read that finds
 * nothing (about 2 us over libfabric's tcp provider, under 1 over UCX).
 * Later ones ask for the drain, or a stream of writes would draw a tell
 * each. */
enum { AM_TELL_NO, AM_TELL_DRAINED, AM_TELL_ROUND };
#define AM_TELL_FIRST 4
/* Counted requests to one target between two that ask for an ack: with at
 * most AM_MAX_PENDING acks awaited, at most 64 x 16 requests are in flight
 * to a target, so a flood of puts meets back-pressure, not growth. */
#define AM_ACK_EVERY 16
/* Requests awaiting their reply, per target, before the origin waits. */
#define AM_MAX_PENDING 64

typedef struct am_request {
    uint8_t kind, type;
    uint8_t op; /* REQ_WORD: word_op_t; REQ_ATOMIC: amo_op_t; REQ_CALL: handler */
    uint8_t width;
    uint8_t counted; /* completes into the target's op_done */
    uint8_t gated;   /* REQ_CALL: served only once op_done from origin reaches gate */
    uint8_t tell;    /* counted: when the origin is to be told it is complete (AM_TELL_*, am_tell_done) */
    int32_t origin;
    uint32_t gate;
    uint32_t seq; /* with tell: the origin's count of counted requests to here, this one included */
    uint64_t raddr, a, b;
    uint64_t token; /* the origin's reply slot, 0 for none */
    double scale[2];
} am_request_t;

/* A push taken only once the writes its sender made to the receiver
 * before it have completed there (am_push_after). */
typedef struct am_gated_push {
    int64_t value;
    int32_t origin;
    uint32_t gate;
} am_gated_push_t;

typedef struct am_reply {
    uint64_t token;
    int64_t value;
    int32_t target;
} am_reply_t;

/* Where a reply goes: its value, and data unpacked into a strided place
 * or one place per vector pair (a single place is a pair of bytes). */
typedef struct am_slot {
    volatile int done;
    int64_t value;
    const reach_strided_t *plan; /* packed strided get: unpack here */
    char *local;
    uint64_t first;
    void *const *dsts; /* vector get: one place per pair */
    size_t bytes;
} am_slot_t;

/* A chunk of vector pairs: this header, the target addresses, then (for
 * put and accumulate) the data of each pair. */
typedef struct am_vpack {
    uint64_t count, bytes;
} am_vpack_t;

/* A chunk of strided runs: this header, then the runs' data (put,
 * accumulate). The target finds each run's place from its index. */
typedef struct am_pack {
    reach_strided_t plan;
    uint64_t first, count; /* runs first .. first+count-1 */
} am_pack_t;

#define AM_PACK_MAX ((size_t)64 << 10) /* largest chunk of runs */

/* A request whose handler asked to be tried again: a copy, retried by
 * the server loop. */
typedef struct am_retry {
    am_request_t rq;
    am_target_t t;
    struct am_retry *next;
    uint64_t msg[];
} am_retry_t;

/* The reply slots of a packed strided or vector get, awaited after the
 * call returns: with what they point to copied (the plan; a vector's
 * places, after the slots), since the caller's may be gone by then. */
typedef struct am_gets {
    reach_strided_t plan;
    size_t n, next; /* slots; the first not yet seen done */
    am_slot_t slot[];
} am_gets_t;

/* A rank's transfers in flight (non-blocking gets, packed gets' replies,
 * put and accumulate sends), oldest first: a ring of AM_FLIGHT_MAX, made
 * at the first. Tickets count them from 1; ticket t sits at
 * ring[(t - 1) % AM_FLIGHT_MAX] and is complete once done >= t. A put's or
 * accumulate's request header lives in its entry, because the network
 * reads it until the send completes; so does a written get's, which the
 * network get repeats if the target could not write. A full ring completes its
 * oldest before the next is issued, so a flood of non-blocking transfers
 * whose requests are dropped holds bounded memory. */
#define AM_FLIGHT_MAX 256
typedef struct am_flight {
    struct am_flown {
        void *req; /* the network's request, AM_WRITTEN_GET or AM_GETS */
        const char *what;
        am_request_t hdr;
        void *dst; /* a packed get's am_gets_t */
        /* A get that the target writes into place (am_get_nb): its
         * answer (value 0: written; else the target could not). */
        am_slot_t slot;
    } * ring;
    uint64_t issued, done;
} am_flight_t;
/* The req of a get in flight that the target's server writes into place
 * (REQ_GET_WRITE, answered when written). */
#define AM_WRITTEN_GET ((void *)1)
/* The req of a packed get in flight: dst is its am_gets_t. */
#define AM_GETS ((void *)2)

extern struct am_state {
    const net_backend_t *net; /* NULL when the job is on one node */
    /* The application thread's side. */
    int *pending; /* by rank: replies awaited */
    long pending_total;
    uint32_t pushes, pushes_awaited; /* pushes arrived here, and waited for */
    int64_t pushed;                  /* the value of the last */
    int push_from;                   /* the last push's sender if it was gated, else -1 */
    uint32_t push_gate;              /* then the writes from it to complete here first */
    uint32_t *sent;                  /* by rank: counted requests sent (op_init) */
    uint32_t *fenced;                /* by rank: the counted requests it told were complete (AM_DONE) */
    uint32_t *asked;                 /* by rank: sent[rank] when a tell was last asked for (am_ask_told) */
    uint32_t *waited;                /* by rank: sent[rank] when a fence last waited for its tell (am_wait_told) */
    int telling;                     /* counted requests ask to be told: this process fences */
    uint32_t *quiet;                 /* by rank: sent[rank] after a gated lock message that left nothing to release */
    uint64_t sent_total;             /* counted requests sent to any rank */
    uint64_t released;               /* sent_total when a release last completed all it had to */
    uint32_t *since_ack;             /* by rank: counted requests since the last ack request */
    am_flight_t *flight;             /* by rank: transfers in flight */
    int get_write_refused;           /* a target could not write a get into place */
    char *bounce;                    /* one chunk: sends complete before it is reused */
    /* The server side: served by whichever thread holds `serve` (a futex
     * mutex), the server thread or the application thread while it waits. */
    _Atomic uint32_t serve;
    uint32_t *done_from;   /* by origin: counted requests completed */
    uint32_t *told;        /* by origin: done_from when last told it (AM_DONE) */
    uint32_t *want;        /* by origin: the count it asked to be told of */
    int *untold;           /* the origins to tell at the next drain (listed) */
    unsigned char *listed; /* by origin: on untold */
    int nuntold;
    unsigned untold_events;    /* events served since origins were last told */
    int tell_round;            /* since the last tell, a request asked for AM_TELL_ROUND, its origin listed */
    uint64_t *tell_cause;      /* traced, by origin: the cause its next tell names (am_note_cause) */
    signed char *same_process; /* by origin: its pid names it here (1), not (-1), unchecked (0) */
    waitword_t done;           /* all counted requests completed here (op_done) */
    am_retry_t *retries;       /* handler requests to try again */
    pthread_t thread;
    _Atomic int stop;
} am;

/* origin.c */
/* The application thread sends a message: counted, and ordered after what
 * the thread wrote before. */
void am_client_sent(void) REACH_HIDDEN;
/* Sleeps on the client's file descriptor until something arrives (10 ms
 * at most); 1 if the sleep ran out with nothing. */
int am_client_sleep(void) REACH_HIDDEN;
void am_client_progress(unsigned *spins) REACH_HIDDEN;
void am_wait_req(void *req, const char *what, int rank) REACH_HIDDEN;
void am_wait_slot(am_slot_t *slot) REACH_HIDDEN;
/* Waits until every reply awaited has arrived. */
void am_wait_replies(void) REACH_HIDDEN;
/* A fence's two halves: asks rank to tell, if the requests sent it since
 * it last told did not all ask (a REQ_FENCE); then waits until it has
 * told that every counted request sent it has completed. */
void am_ask_told(int rank) REACH_HIDDEN;
void am_wait_told(int rank) REACH_HIDDEN;
void *am_send_nbx(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot) REACH_HIDDEN;
void am_send(int rank, am_request_t *rq, const void *data, size_t len, am_slot_t *slot) REACH_HIDDEN;
void am_order(int rank) REACH_HIDDEN;
/* Enters a packed get's slots as rank's next transfer in flight (they
 * are freed once it completes); its ticket. */
uint64_t am_flight_gets(int rank, am_gets_t *g) REACH_HIDDEN;
/* A ticket covering every transfer in flight to rank, 0 if none is. */
uint64_t am_flight_last(int rank) REACH_HIDDEN;
void am_on_reply(const void *hdr, size_t hlen, void *data, size_t len, void *rndv) REACH_HIDDEN;
void am_on_push(const void *hdr, size_t hlen, void *data, size_t len, void *rndv) REACH_HIDDEN;
/* pack.c */
void am_pack_runs(const reach_strided_t *p, const size_t *stride, char *base, uint64_t first, uint64_t count,
                  char *packed, int to_packed) REACH_HIDDEN;
/* target.c */
/* Waits until the counted requests from origin completed here reach gate. */
void am_wait_done_from(int origin, uint32_t gate) REACH_HIDDEN;
void am_on_request(const void *hdr, size_t hlen, void *data, size_t len, void *rndv) REACH_HIDDEN;
void am_received(void *arg) REACH_HIDDEN;
/* Tells each origin that asked how many of its counted requests have
 * completed here (AM_DONE), if more have since it was last told: what its
 * fences wait for. */
void am_tell_done(void) REACH_HIDDEN;
/* Tries the handler requests kept for retrying; the number served. */
unsigned am_retry(void) REACH_HIDDEN;
/* Whether handler id's requests without answer are counted writes. */
int am_counted(int id) REACH_HIDDEN;
/* am_server.c */
void *am_server_main(void *arg) REACH_HIDDEN;
/* The application thread serves what has arrived, if the server thread
 * is not serving; the number of events handled. */
unsigned am_serve_try(void) REACH_HIDDEN;
/* am_trace.c: the network table net with every message recorded. */
const net_backend_t *am_trace_net(const net_backend_t *net) REACH_HIDDEN;
/* The message this thread is handling, as a send names its cause (0 if
 * none; always 0 untraced). */
uint64_t am_trace_cause(void) REACH_HIDDEN;
/* This thread's sends name c as their cause from now on; returns the cause
 * they named before. A tell, sent after the requests it reports were
 * handled, names the last of them (am_tell_done). */
uint64_t am_trace_as(uint64_t c) REACH_HIDDEN;

#endif
