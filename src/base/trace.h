/* Message traces (REACH_TRACE=dir): each process records every message it
 * sends and receives through the network, the gets and atomics it issues
 * and their completion, the words of shared memory its waits watch and the
 * stores that wake them, each named wait's start and end, and the marks a
 * program sets (reach_trace_mark). At reach_finalize it writes them, in
 * time order, to dir/rank-NNNNN.trace: a few lines of text (the header),
 * then the events as trace_event_t records; tools/reach-project.py reads
 * them.
 *
 * Off (the default), every trace point is one test of trace_on, which is
 * never written while reach runs; on, an event costs a clock read and a
 * store into a buffer of the recording thread, with no lock. */
#ifndef REACH_BASE_TRACE_H
#define REACH_BASE_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum trace_type {
    TRACE_SEND = 1, /* chan, peer (to), seq (this process's number), bytes, ref (cause) */
    TRACE_RECV,     /* chan, peer (from), seq (the sender's number), bytes */
    TRACE_GET,      /* a get issued: peer, seq, bytes */
    TRACE_AMO,      /* an atomic issued: peer, seq */
    TRACE_DONE,     /* the get or atomic seq completed here */
    TRACE_WAIT,     /* a named wait starts: chan = wait_kind_t, peer = its rank */
    TRACE_WAITED,   /* ... and ends */
    TRACE_STORE,    /* a store that wakes waiters: ref = the word, seq = its new value */
    TRACE_SEE,      /* a wait on a word ends: ref = the word, seq = the value seen */
    TRACE_MARK,     /* bytes = the label's number (a "mark" line of the header), ref = the
                       * thread's processor time, ns */
    TRACE_HANDLED,  /* the handling of the message RECV named ends: what lies between
                       * (stores, sends) is its handler's */
};

/* 32 bytes, in the file as in memory (little-endian). ref of a SEND: the
 * message being handled when it was sent, as (sender + 1) << 32 | seq, 0
 * if none; for a tell (sent once the server has drained what arrived, or
 * at the end of a round, AM_TELL_ROUND), the last request from its origin
 * handled before it. */
typedef struct trace_event {
    uint64_t t;                      /* ns, CLOCK_MONOTONIC */
    uint8_t type, thread, chan, pad; /* thread: 0 application, 1 server */
    int32_t peer;
    uint32_t seq, bytes;
    uint64_t ref;
} trace_event_t;
_Static_assert(sizeof(trace_event_t) == 32, "a trace event is 32 bytes");

#define TRACE_HIDDEN __attribute__((visibility("hidden")))

extern int trace_on TRACE_HIDDEN;

/* At the end of reach_init (before the network starts) and at finalize
 * (after the server thread has stopped): opens and writes the trace. */
int trace_start(size_t arena) TRACE_HIDDEN;
void trace_stop(void) TRACE_HIDDEN;
/* Start-up failed elsewhere: the trace file is removed. */
void trace_abandon(void) TRACE_HIDDEN;
/* Rank's arena is mapped here at base (a rank of this node): the header
 * says so, so that a word's address names its owner and offset. */
void trace_map(int rank, const void *base) TRACE_HIDDEN;
void trace_record(int type, int chan, int peer, uint32_t seq, uint32_t bytes, uint64_t ref) TRACE_HIDDEN;
/* The same, at time t (trace_clock's). */
void trace_record_at(uint64_t t, int type, int chan, int peer, uint32_t seq, uint32_t bytes, uint64_t ref) TRACE_HIDDEN;
uint64_t trace_clock(void) TRACE_HIDDEN;
/* The next message number of this process. */
uint32_t trace_next_seq(void) TRACE_HIDDEN;
/* REACH_ERR_ARG (said) past TRACE_MARKS labels. */
int trace_mark(const char *label) TRACE_HIDDEN;

static inline void trace_word(int type, const void *word, uint32_t value)
{
    if (__builtin_expect(trace_on, 0))
        trace_record(type, 0, -1, value, 0, (uint64_t)(uintptr_t)word);
}

/* A store to a word that a waiter on another core may see at once: its
 * time is taken before it (trace_store_time), so that the store comes
 * before what the waiter records; it is recorded after (trace_store). The
 * _if forms take trace_on as read earlier by the caller. */
static inline uint64_t trace_store_time_if(int tracing)
{
    return tracing ? trace_clock() : 0;
}

static inline uint64_t trace_store_time(void)
{
    return trace_store_time_if(__builtin_expect(trace_on, 0));
}

static inline void trace_store_if(int tracing, uint64_t t, const void *word, uint32_t value)
{
    if (tracing)
        trace_record_at(t, TRACE_STORE, 0, -1, value, 0, (uint64_t)(uintptr_t)word);
}

static inline void trace_store(uint64_t t, const void *word, uint32_t value)
{
    trace_store_if(__builtin_expect(trace_on, 0), t, word, value);
}

#endif
