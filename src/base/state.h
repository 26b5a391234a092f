/* The process's state and the helpers every layer uses: errors, rank and
 * argument checks, statistics, thread order, the segment table. Where a
 * rank is reached (its mapping, or the network) is decided in core/rma.h. */
#ifndef REACH_BASE_STATE_H
#define REACH_BASE_STATE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "base/config.h"
#include "reach.h"

#define REACH_HIDDEN __attribute__((visibility("hidden")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* One live segment of a rank: [start, end) in that rank's address space. */
typedef struct seg_range {
    uintptr_t start, end;
} seg_range_t;

/* A sorted set of a rank's segments, searched on every remote access. */
typedef struct seg_table {
    seg_range_t *ranges;
    int count, capacity;
    uint32_t removals; /* segments removed so far: what was checked against it may be gone */
} seg_table_t;

/* What this process knows about another rank. */
typedef struct peer {
    char *map;                 /* its arena mapped here, NULL if on another node */
    uintptr_t rbase;           /* its arena's address in its own address space */
    seg_table_t segs;          /* its live user segments */
    int node;                  /* node index */
    int machine;               /* lowest world rank of its machine, as MPI tells machines */
    unsigned long long host;   /* its machine as the kernel tells it: boot id and host name, hashed */
    int pid;                   /* its process on that machine, */
    unsigned long long pstart; /* when it started (clock ticks since boot), */
    unsigned long long pidns;  /* and the pid namespace its pid is of (0: unknown) */
    _Atomic int lost;          /* the network has found it failed (wait_peer_lost) */
} peer_t;

typedef struct runtime {
    int initialized;
    struct boot_comm *comm;      /* the job's ranks: a private duplicate (boot/boot.h) */
    struct boot_comm *node_comm; /* ranks sharing this node */
    int rank, size;
    int threads_multiple; /* MPI runs at MPI_THREAD_MULTIPLE (base/serial.h) */
    int node_rank, node_size, node, node_count;
    int *node_peers; /* world ranks of this node, by node rank */
    peer_t *peers;   /* by world rank */
    config_t cfg;
    reach_stats_t stats;
    long long alloc_seq; /* lowest id the next collective allocation may take */
    int *node_first;     /* by node: index in node_members of its first rank */
    int *node_members;   /* world ranks grouped by node, ascending */
} runtime_t;

extern runtime_t rt REACH_HIDDEN;

/* Prints "reach: rank R: CALL: message" on stderr unless REACH_QUIET, and
 * returns status, so a check reads: return rt_error(status, call, fmt...).
 * The rank is said only where it is known (reach's, else the world rank
 * that rt_set_job's world_rank gives); CALL is the function of the layer above reach that the
 * thread is in (reach_set_caller_hook), if any. */
int rt_error(int status, const char *call, const char *fmt, ...) __attribute__((format(printf, 3, 4))) REACH_HIDDEN;
/* Sets the function whose result messages prefix the calling thread's with
 * ("ARMCI_Put" rather than "reach_put"; NULL: none). */
void rt_set_caller_hook(const char *(*caller)(void)) REACH_HIDDEN;
/* What the job's launcher offers, registered by boot when the library is
 * loaded: this process's rank in the whole job (-1 where there is none),
 * for messages before reach is up, and the end of the whole job with a
 * status (returning where there is no job to end). */
void rt_set_job(int (*world_rank)(void), void (*end_job)(int status)) REACH_HIDDEN;

/* Writes bytes as "1.5 GiB" into buf (at least 16 chars) and returns buf. */
const char *rt_size_str(char *buf, size_t len, size_t bytes) REACH_HIDDEN;
/* Ends the job: message on stderr, then the job's end (rt_set_job) with a
 * non-zero code. In the server thread (rt_on_server), which never calls
 * MPI, the message and
 * _exit(1): the launcher ends the job when a rank fails. */
_Noreturn void rt_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2))) REACH_HIDDEN;
/* Ends the job with status (the job's end once the message is out). */
_Noreturn void rt_end_job(int status) REACH_HIDDEN;
/* Says "abort (code C): msg" and ends the job with code (1 for 0). */
_Noreturn void rt_abort(int code, const char *msg) REACH_HIDDEN;
/* Ends the job because malloc of bytes failed in call: the one wording of
 * every out-of-memory end. */
_Noreturn void rt_oom(const char *call, size_t bytes) REACH_HIDDEN;
/* Non-zero in the server thread (set when it starts). */
extern _Thread_local int rt_on_server REACH_HIDDEN;
/* Set once the job is being ended on purpose, so that the exit check
 * (init.c) does not end it a second time. */
extern volatile int rt_ending REACH_HIDDEN;

/* Order between the application thread and the server thread that other
 * processes establish: the server applies a remote origin's write, the
 * origin tells a third process, which tells this process's application
 * thread, which then reads the bytes. Both threads pass through one atomic
 * word: the server acquires before each round of progress and releases
 * after it; the application thread releases when it enters a
 * synchronizing call (barrier, unlock, network progress) and acquires when
 * a wait ends. On x86 the acquires are plain loads and a release is one
 * locked add, made only while a server thread runs (rt_order_threads);
 * they make the order explicit in the memory model, and visible to
 * ThreadSanitizer, which cannot see other processes. */
extern uint64_t rt_order_word REACH_HIDDEN;
extern int rt_order_threads REACH_HIDDEN;
static inline void rt_order_release(void)
{
    if (rt_order_threads)
        __atomic_fetch_add(&rt_order_word, 1, __ATOMIC_RELEASE);
}
static inline void rt_order_acquire(void)
{
    (void)__atomic_load_n(&rt_order_word, __ATOMIC_ACQUIRE);
}

/* Prints this process's statistics on one line (REACH_STATS at finalize). */
void stats_print(FILE *out) REACH_HIDDEN;
/* Copies the statistics to out, or sets them all to zero; each counter is
 * read and written atomically. */
void stats_copy(reach_stats_t *out) REACH_HIDDEN;
void stats_clear(void) REACH_HIDDEN;
/* The name of an operation kind ("put") or a path ("shm"); "?" for none. */
const char *stats_kind_name(int kind) REACH_HIDDEN;
const char *stats_path_name(int path) REACH_HIDDEN;

/* Adds one to a counter that the server thread may update as well. */
static inline void rt_stat_inc(uint64_t *counter)
{
    __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* Checks that reach is initialized and rank is valid. */
static inline int rt_check_rank(const char *call, int rank)
{
    if (unlikely(!rt.initialized))
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (unlikely(rank < 0 || rank >= rt.size))
        return rt_error(REACH_ERR_RANK, call, "rank %d is out of range [0, %d)", rank, rt.size);
    return REACH_SUCCESS;
}

/* 1 if [addr, addr+bytes) lies inside one segment of t. */
static inline int seg_table_contains(const seg_table_t *t, uintptr_t addr, size_t bytes)
{
    int lo = 0, hi = t->count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        const seg_range_t *r = &t->ranges[mid];
        if (addr < r->start)
            hi = mid - 1;
        else if (addr >= r->end)
            lo = mid + 1;
        else
            return bytes <= r->end - addr;
    }
    return 0;
}

int seg_table_insert(seg_table_t *t, uintptr_t start, uintptr_t end) REACH_HIDDEN;
void seg_table_remove(seg_table_t *t, uintptr_t start) REACH_HIDDEN;
void seg_table_clear(seg_table_t *t) REACH_HIDDEN;

static inline int rt_check_local(const char *call, const void *ptr, size_t bytes, const char *what)
{
    if (unlikely(ptr == NULL && bytes != 0))
        return rt_error(REACH_ERR_ARG, call, "%s is NULL for %zu bytes", what, bytes);
    return REACH_SUCCESS;
}

#endif
