/* reach — one-sided communication runtime: the native interface.
 *
 * Every call returns REACH_SUCCESS (0) or a negative reach_status_t; on a
 * bad argument it prints one line naming the rank, the call and the problem
 * and touches nothing. Remote addresses are the addresses the owning rank
 * received from reach_malloc, in that rank's own address space. */
#ifndef REACH_H
#define REACH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define REACH_API __attribute__((visibility("default")))
#define REACH_NORETURN __attribute__((noreturn))
#else
#define REACH_API
#define REACH_NORETURN
#endif

#include "reach_version.h" /* REACH_VERSION_MAJOR, _MINOR, _PATCH, _STRING */

typedef enum reach_status {
    REACH_SUCCESS = 0,
    REACH_ERR_NOT_INIT = -1,     /* called before reach_init or after finalize */
    REACH_ERR_ARG = -2,          /* invalid argument (NULL, negative size...) */
    REACH_ERR_RANK = -3,         /* rank out of range */
    REACH_ERR_RANGE = -4,        /* remote range not inside a segment of that rank */
    REACH_ERR_ALIGN = -5,        /* misaligned atomic or accumulate target */
    REACH_ERR_NOMEM = -6,        /* shared memory or arena space exhausted */
    REACH_ERR_HANDLE = -7,       /* request handle or mutex set not valid */
    REACH_ERR_MUTEX = -8,        /* mutex id out of range, not held, held twice */
    REACH_ERR_TYPE = -9,         /* unknown data type or operation */
    REACH_ERR_UNSUPPORTED = -10, /* reserved: no call of this version returns it */
    REACH_ERR_SYSTEM = -11,      /* an operating system or MPI call failed */
    REACH_ERR_EPOCH = -12        /* window epoch: none open, or one already open */
} reach_status_t;

/* Element types of accumulate. Scale has the same type as the elements
 * (two components for the complex types). */
typedef enum reach_type {
    REACH_INT = 0,  /* int */
    REACH_LONG,     /* long */
    REACH_FLOAT,    /* float */
    REACH_DOUBLE,   /* double */
    REACH_COMPLEX,  /* float _Complex, as {re, im} */
    REACH_DCOMPLEX, /* double _Complex, as {re, im} */
    REACH_TYPE_COUNT
} reach_type_t;

/* ---- start-up ---------------------------------------------------------- */

/* Collective. Initializes MPI if the program has not; argc/argv may be NULL.
 *
 * Threads follow MPI's level (MPI_Query_thread at start-up). A program that
 * started MPI at MPI_THREAD_MULTIPLE may call reach from several threads at
 * once: each call holds a lock of the process until it returns, and a data
 * call (get, accumulate, reach_wait/_test; not a blocking put or an
 * atomic) lets the lock go to other threads while it waits for the
 * network, so their transfers are in flight together. A synchronizing call (fence, barrier, mutex, counter,
 * notification, window, collective, allocation) keeps the lock until it
 * returns: a thread must not wait there for what only another thread of
 * its process will do. A mutex is held by the process: two of its threads
 * must not hold the same mutex at once (the second lock fails,
 * REACH_ERR_MUTEX). Collective calls are made by one thread of each
 * process, and reach_finalize once the other threads have returned from
 * reach. Below MPI_THREAD_MULTIPLE no lock is taken, and the program calls
 * reach from one thread at a time. */
REACH_API int reach_init(int *argc, char ***argv);
/* Collective. Releases every allocation, mutex set and mapping; finalizes
 * MPI if reach_init initialized it. */
REACH_API int reach_finalize(void);
REACH_API int reach_initialized(void);
REACH_API int reach_rank(void);
REACH_API int reach_size(void);
/* 1 if rank shares this process's node (its memory is mapped here). */
REACH_API int reach_same_node(int rank);
/* The node of a rank (0..node_count-1) and the number of nodes. */
REACH_API int reach_node_of(int rank);
REACH_API int reach_node_count(void);
/* Ranks on node (0..node_count-1), and the i-th of them (ascending). */
REACH_API int reach_node_size(int node);
REACH_API int reach_node_rank(int node, int i);
REACH_API const char *reach_strerror(int status);
/* Prints reach's one-line message for a failed call ("reach: rank R: call:
 * msg", unless REACH_QUIET) and returns status; for layers built on reach. */
REACH_API int reach_report(int status, const char *call, const char *msg);
/* For a layer built on reach: when reach reports a failed call, it asks
 * caller() for the name of the layer's function the calling thread is in
 * and names that instead of its own call ("reach: rank 1: ARMCI_Put: rank 2
 * is out of range [0, 2)"); caller returns NULL outside the layer's
 * functions. Asked only when a message is printed, so it costs the calls
 * that succeed nothing. One hook per process; NULL removes it. */
REACH_API void reach_set_caller_hook(const char *(*caller)(void));
/* Aborts the whole job with a message; never returns, never exits with 0. */
REACH_API REACH_NORETURN void reach_abort(int code, const char *msg);

/* ---- memory ------------------------------------------------------------ */

/* Collective over all ranks. Each rank passes its own size (0 allowed, sizes
 * may differ); bases[r] receives rank r's base address (NULL where r asked
 * for 0 bytes). bases must hold reach_size() entries. Every block starts
 * zeroed. */
REACH_API int reach_malloc(size_t bytes, void *bases[]);
/* Collective; each rank passes its own base (NULL if it asked for 0 bytes). */
REACH_API int reach_free(void *base);
/* Local memory suitable as source or destination of transfers; it holds
 * what its last user left, as malloc's does. */
REACH_API void *reach_malloc_local(size_t bytes);
REACH_API int reach_free_local(void *ptr);
/* Most shared memory this process may allocate from now on (0: no limit
 * but the machine's); the same as REACH_SHM_LIMIT. A request beyond it
 * fails and leaves the freed blocks reach keeps for reuse, which count
 * against the limit only when a new block needs their room. */
REACH_API int reach_set_shm_limit(size_t bytes);

/* ---- contiguous transfers ---------------------------------------------- */

/* Blocking: src may be reused on return; complete at the target after a
 * fence or barrier. Gets return with the data. */
REACH_API int reach_put(const void *src, void *dst, size_t bytes, int rank);
REACH_API int reach_get(const void *src, void *dst, size_t bytes, int rank);
/* dst[i] += scale * src[i] on rank's memory, atomic per element against every
 * other accumulate and atomic on the same bytes. bytes is a multiple of the
 * element size; dst is aligned to the element's component size. */
REACH_API int reach_acc(reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes, int rank);

/* Non-blocking forms. A request must be completed with reach_wait or
 * reach_test before its buffers are reused (a get's destination read, a
 * put's or accumulate's source changed). To another node, every form
 * (contiguous, strided, vector) returns with the transfer in flight, so
 * that it overlaps what the caller does next; reach_wait_rank,
 * reach_wait_all, a fence, a barrier and the next operation to that rank
 * other than a get complete it too. A vector call's descriptor arrays may
 * be reused at once. On the node every form is complete when it returns. */
typedef struct reach_request {
    uint32_t magic; /* identifies an issued request */
    uint32_t state; /* internal: complete, or in flight to a rank */
    uint64_t seq;   /* internal: the transfer's ticket */
} reach_request_t;

REACH_API int reach_put_nb(const void *src, void *dst, size_t bytes, int rank, reach_request_t *req);
REACH_API int reach_get_nb(const void *src, void *dst, size_t bytes, int rank, reach_request_t *req);
REACH_API int reach_acc_nb(reach_type_t type, const void *scale, const void *src, void *dst, size_t bytes, int rank,
                           reach_request_t *req);
REACH_API int reach_wait(reach_request_t *req);
/* *done = 1 once the request is complete (then it needs no wait). */
REACH_API int reach_test(reach_request_t *req, int *done);
/* Completes every request this process issued (to one rank). */
REACH_API int reach_wait_all(void);
REACH_API int reach_wait_rank(int rank);
/* Moves this process's transfers to and from other nodes on and returns at
 * once: it waits for nothing and completes no request. Transfers move by
 * themselves while the process is in any reach call that waits. Between
 * them, over UCX's TCP transport, what a socket has not yet taken of a
 * non-blocking transfer (a large put's data, sent as the target asks for
 * it) waits for this process's next reach call, so a process that
 * computes long between calls may call this now and then. Over
 * libfabric the server thread also moves them on. */
REACH_API int reach_progress(void);

/* ---- non-contiguous transfers ------------------------------------------- */

#define REACH_MAX_STRIDE_LEVELS 8

/* A strided region: count[0] contiguous bytes, repeated count[1] times at
 * stride[0] bytes apart, that block repeated count[2] times at stride[1],
 * and so on for `levels` levels (0 = one contiguous run of count[0]
 * bytes). Source and destination have their own strides and share the
 * counts. Runs that turn out to be contiguous are merged. */
typedef struct reach_strided {
    int levels;
    size_t count[REACH_MAX_STRIDE_LEVELS + 1];
    size_t src_stride[REACH_MAX_STRIDE_LEVELS];
    size_t dst_stride[REACH_MAX_STRIDE_LEVELS];
} reach_strided_t;

REACH_API int reach_put_strided(const void *src, void *dst, const reach_strided_t *shape, int rank);
REACH_API int reach_get_strided(const void *src, void *dst, const reach_strided_t *shape, int rank);
/* Accumulate: count[0] a multiple of the element size; the target and its
 * strides any number of bytes (elements are read and written unaligned). */
REACH_API int reach_acc_strided(reach_type_t type, const void *scale, const void *src, void *dst,
                                const reach_strided_t *shape, int rank);
REACH_API int reach_put_strided_nb(const void *src, void *dst, const reach_strided_t *shape, int rank,
                                   reach_request_t *req);
REACH_API int reach_get_strided_nb(const void *src, void *dst, const reach_strided_t *shape, int rank,
                                   reach_request_t *req);
REACH_API int reach_acc_strided_nb(reach_type_t type, const void *scale, const void *src, void *dst,
                                   const reach_strided_t *shape, int rank, reach_request_t *req);
/* Strided copy within this process (both addresses local). */
REACH_API int reach_copy_strided(const void *src, void *dst, const reach_strided_t *shape);

/* A vector: count pairs (src[i], dst[i]) of `bytes` bytes each. The remote
 * side is dst for put and accumulate, src for get. */
typedef struct reach_vector {
    void **src;
    void **dst;
    size_t count;
    size_t bytes;
} reach_vector_t;

/* Every descriptor is checked before any byte moves. */
REACH_API int reach_put_vector(const reach_vector_t *v, size_t n, int rank);
REACH_API int reach_get_vector(const reach_vector_t *v, size_t n, int rank);
REACH_API int reach_acc_vector(reach_type_t type, const void *scale, const reach_vector_t *v, size_t n, int rank);
REACH_API int reach_put_vector_nb(const reach_vector_t *v, size_t n, int rank, reach_request_t *req);
REACH_API int reach_get_vector_nb(const reach_vector_t *v, size_t n, int rank, reach_request_t *req);
REACH_API int reach_acc_vector_nb(reach_type_t type, const void *scale, const reach_vector_t *v, size_t n, int rank,
                                  reach_request_t *req);

/* ---- atomics (rank's memory; 4- or 8-byte aligned) ---------------------- */

REACH_API int reach_fetch_add_i32(int32_t *dst, int32_t add, int32_t *old, int rank);
REACH_API int reach_fetch_add_i64(int64_t *dst, int64_t add, int64_t *old, int rank);
REACH_API int reach_swap_i32(int32_t *dst, int32_t value, int32_t *old, int rank);
REACH_API int reach_swap_i64(int64_t *dst, int64_t value, int64_t *old, int rank);
/* Stores value if *dst == compare; *old receives the previous contents. */
REACH_API int reach_cas_i32(int32_t *dst, int32_t compare, int32_t value, int32_t *old, int rank);
REACH_API int reach_cas_i64(int64_t *dst, int64_t compare, int64_t value, int64_t *old, int rank);

/* ---- completion and synchronization ------------------------------------ */

/* What synchronizing calls promise about earlier writes (a write: a put,
 * accumulate, value, strided or vector one, blocking or not):
 *   reach_fence(rank)      this process's writes to rank are complete there
 *   reach_fence_all        ... to every rank
 *   reach_barrier          every process's writes before it are complete
 *                          for each process that has left it: in its own
 *                          memory and to each of its later calls
 *   reach_mutex_unlock     this process's writes to every rank are complete
 *                          before the next holder's lock returns
 *   reach_win_unlock       this process's writes to that rank are complete
 *   reach_notify(rank)     this process's writes to rank are complete before
 *                          rank's matching reach_notify_wait returns
 *   atomics                no promise about other writes; an atomic is
 *                          applied after this process's writes to its rank
 *   counters               no promise: fence first to publish through one
 * On one node every write is complete when its call returns; the promises
 * matter between nodes. */

/* Everything this process issued to rank (to every rank) is complete there. */
REACH_API int reach_fence(int rank);
REACH_API int reach_fence_all(void);
/* Collective: fence_all on every rank, then a barrier. */
REACH_API int reach_barrier(void);
/* Collective: chooses reach_barrier's algorithm from now on, as
 * REACH_BARRIER names it: "fence+dissemination" (fence every rank written
 * to, then a dissemination barrier), "combined" (Buntinas03, cited in
 * docs/references.md: no fences, counts of writes exchanged in
 * ceil(log2 N) rounds; best when ranks write to many others), "tree" or
 * "counter" (Zhang04: one add at a counter on rank 0, the release pushed
 * back). Every rank passes the same name. */
REACH_API int reach_set_barrier(const char *algorithm);

/* Notification: completes this process's operations to rank (writes to
 * other ranks are not completed: fence them first), then counts one
 * notification there, so that rank, once reach_notify_wait returns, sees
 * every write this process made to it before. Returns the number sent to rank so far, or an
 * error status. */
REACH_API int reach_notify(int rank);
/* Waits for the next notification from rank (the n-th call waits for the
 * n-th notification); *waited receives n. Returns the number received from
 * rank so far, or an error status. */
REACH_API int reach_notify_wait(int rank, int *waited);

/* ---- groups ------------------------------------------------------------- */

/* A set of ranks with its own numbering (0..size-1) for collective calls.
 * Operations always name ranks by their number in the whole job. */
typedef struct reach_group reach_group_t;

/* The group of every rank. */
REACH_API reach_group_t *reach_group_world(void);
/* Collective over parent: members lists n ranks of parent (parent's
 * numbering). Members get the new group, others NULL. */
REACH_API int reach_group_create(reach_group_t *parent, int n, const int *members, reach_group_t **out);
/* Collective over parent: ranks with the same color form a group, ordered by
 * key then parent rank. */
REACH_API int reach_group_split(reach_group_t *parent, int color, int key, reach_group_t **out);
REACH_API int reach_group_dup(reach_group_t *parent, reach_group_t **out);
/* Collective over the group. */
REACH_API int reach_group_free(reach_group_t *group);
/* This process's number in the group, -1 if not a member. */
REACH_API int reach_group_rank(const reach_group_t *group);
REACH_API int reach_group_size(const reach_group_t *group);
/* The job-wide rank of the group's member number rank; -1 if out of range. */
REACH_API int reach_group_world_rank(const reach_group_t *group, int rank);
/* Collective over the group: bases[i] receives member i's block. */
REACH_API int reach_malloc_group(reach_group_t *group, size_t bytes, void *bases[]);
REACH_API int reach_free_group(reach_group_t *group, void *base);
/* Collective over the group: fence to every member, then a barrier. */
REACH_API int reach_barrier_group(reach_group_t *group);
/* Completes this process's operations to every member. */
REACH_API int reach_fence_group(reach_group_t *group);

/* ---- collectives -------------------------------------------------------- */

/* The members of a group a collective spans: all of them, those on this
 * process's node, or the first member on each node. */
typedef enum reach_scope { REACH_SCOPE_ALL = 0, REACH_SCOPE_NODE, REACH_SCOPE_MASTERS } reach_scope_t;

/* Reductions: sum, product, maximum, minimum of every type; bitwise and
 * logical and/or of the integer types (logical ones give 0 or 1). */
typedef enum reach_reduce_op {
    REACH_REDUCE_SUM = 0,
    REACH_REDUCE_PROD,
    REACH_REDUCE_MAX,
    REACH_REDUCE_MIN,
    REACH_REDUCE_BAND,
    REACH_REDUCE_BOR,
    REACH_REDUCE_LAND,
    REACH_REDUCE_LOR,
    REACH_REDUCE_COUNT
} reach_reduce_op_t;

/* Collective over the scope of group (NULL: the world), on reach's own
 * signals: shared memory on a node, the network between nodes, waits that
 * sleep. A process outside the scope (not a node's first member, for
 * REACH_SCOPE_MASTERS) returns at once. The members of a scope pass the
 * same scope, count, type, operation and root; a bad one returns an error
 * on each. A NULL buffer ends the job (the others would wait for it). */
/* A barrier that completes no transfer (reach_barrier_group does). */
REACH_API int reach_sync_group(reach_group_t *group, reach_scope_t scope);
/* Every member's count elements of type at buf combined by op; the result
 * replaces buf on every member (allreduce) or on the scope's first member
 * only (reduce: the others' buf is unchanged). Types REACH_INT to
 * REACH_DOUBLE. An allreduce gives every member the same bits, NaN and
 * signed zeros included. */
REACH_API int reach_allreduce(reach_group_t *group, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                              reach_reduce_op_t op);
REACH_API int reach_reduce(reach_group_t *group, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                           reach_reduce_op_t op);
/* root's bytes at buf, copied into every member's buf; root is a rank of
 * the whole job, and a member of the scope. */
REACH_API int reach_bcast(reach_group_t *group, reach_scope_t scope, void *buf, size_t bytes, int root);

/* ---- mutexes ------------------------------------------------------------ */

/* Mutexes: a collective set where each rank hosts its own number of
 * mutexes. Queue locks: FIFO hand-off, waiters sleep. */
typedef struct reach_mutexes reach_mutexes_t;
REACH_API int reach_mutexes_create(int count, reach_mutexes_t **set);
/* The same over a group; only its members host mutexes. */
REACH_API int reach_mutexes_create_group(reach_group_t *group, int count, reach_mutexes_t **set);
REACH_API int reach_mutexes_destroy(reach_mutexes_t *set);
REACH_API int reach_mutex_lock(reach_mutexes_t *set, int id, int rank);
/* *acquired = 1 if taken; never waits. */
REACH_API int reach_mutex_trylock(reach_mutexes_t *set, int id, int rank, int *acquired);
/* Unlock is a release: every write this process issued before it (puts,
 * accumulates, value, strided and vector ones, blocking or non-blocking,
 * waited on or not) is complete at its target, whichever rank that is,
 * before the mutex passes on; so once the next holder's reach_mutex_lock
 * returns, what it reads anywhere shows those writes (but for window
 * operations queued by a deferred epoch, which leave at that window's
 * unlock or flush). A non-blocking get in flight is not necessarily
 * completed. To other nodes this costs one fence to each
 * rank written since the last release (all at once), except the rank the
 * lock passes through (the successor, a written rank's server, or the
 * lock's home), behind whose writes it travels; on the node, and with
 * nothing written, nothing is sent. */
REACH_API int reach_mutex_unlock(reach_mutexes_t *set, int id, int rank);
/* Not collective: chooses the lock algorithm of mutex sets created from
 * now on (those created before keep theirs; a set's members must have
 * chosen the same): "mcs" (Buntinas03's queue lock over remote
 * swap and compare-and-swap), "ticket" (Zhang04: a fetch-and-add at the
 * lock's home, the turn pushed to the waiter) or "hybrid" (Buntinas03's
 * baseline: ticket lock on the node, the lock's server queues requests
 * from other nodes). REACH_LOCK sets the first choice. All are FIFO. */
REACH_API int reach_set_lock(const char *algorithm);

/* ---- notifying counters --------------------------------------------------- */

/* A 64-bit counter at a home rank (Zhang04's memory-side atomics): adds
 * run at the home (a CPU atomic from the home's node, its server from
 * another), and a waiter is pushed the value once the counter reaches what
 * it waits for; nobody polls across the network. Waits compare signed:
 * they end when value >= the value waited for. A process waits on one
 * counter at a time. */
typedef struct reach_counter reach_counter_t;
/* Collective: a counter on rank home, starting at initial (home's value
 * counts). */
REACH_API int reach_counter_create(int home, int64_t initial, reach_counter_t **counter);
REACH_API int reach_counter_destroy(reach_counter_t *counter);
/* Adds add. With old, returns the previous value (a round trip to another
 * node); without, an add to another node completes like a put, at the next
 * fence to the home or barrier. Adds do not complete earlier puts: a
 * process that publishes data through a counter fences its writes first
 * (reach_fence_all), and a waiter that sees the count then sees them. */
REACH_API int reach_counter_add(reach_counter_t *counter, int64_t add, int64_t *old);
/* Waits until the counter reaches value; *now (may be NULL) gets the value
 * that ended the wait. */
REACH_API int reach_counter_wait(reach_counter_t *counter, int64_t value, int64_t *now);
/* Adds add, then waits until the counter reaches test: one message to a
 * home on another node, one pushed back (Zhang04's add with a test
 * value; a barrier is add 1, test N x round). */
REACH_API int reach_counter_add_wait(reach_counter_t *counter, int64_t add, int64_t test, int64_t *now);
REACH_API int reach_counter_read(reach_counter_t *counter, int64_t *now);

/* ---- windows: passive-target epochs (Santhanaraman08) ------------------- */

/* A window: one range of reach memory per rank, reached by displacement
 * from that rank's base. Operations on a rank's window happen inside a
 * passive-target epoch: lock that rank's window (shared or exclusive),
 * operate, unlock. Locks are taken and released with remote atomics on a
 * 64-bit word at the target, in both modes; neither the target process nor
 * its server takes part. Shared holders coexist; an exclusive holder
 * excludes everyone; a waiting exclusive locker holds back new shared ones
 * (writers are not starved); a contended locker backs off. With
 * REACH_WIN_SYNC=direct (default) operations are issued at once and
 * complete at unlock or flush; with deferred (Santhanaraman08's baseline)
 * they wait at the origin and travel with the lock and the release at
 * unlock (a get's data arrives then, or at a flush, which takes the lock
 * early). */
typedef struct reach_win reach_win_t;
enum { REACH_LOCK_SHARED = 1, REACH_LOCK_EXCLUSIVE = 2 };
/* Collective: a window over [base, base + bytes) of this rank's reach
 * memory (from reach_malloc, or any part of it; bytes may differ by rank,
 * 0 for none). */
REACH_API int reach_win_create(void *base, size_t bytes, reach_win_t **win);
/* Collective: allocates bytes on every rank (bases[r]: rank r's block, in
 * its address space) and makes a window over them. */
REACH_API int reach_win_allocate(size_t bytes, void *bases[], reach_win_t **win);
/* Collective: frees the window (and the memory, if reach_win_allocate
 * made it). An epoch still open is an error on that rank. */
REACH_API int reach_win_free(reach_win_t *win);
/* Not collective: "direct" or "deferred" for windows created from now on
 * (every rank must have chosen the same when it creates one).
 * REACH_WIN_SYNC sets the first choice. */
REACH_API int reach_set_win_sync(const char *mode);
REACH_API int reach_win_lock(reach_win_t *win, int mode, int rank);
/* Every operation this process issued to rank, in the epoch or not, is
 * complete there (a get's data here) before the lock is released: the next
 * holder of rank's window lock sees the writes. Operations to other ranks
 * are not completed (as MPI's unlock). */
REACH_API int reach_win_unlock(reach_win_t *win, int rank);
/* Shared locks on every rank's window, released together. */
REACH_API int reach_win_lock_all(reach_win_t *win);
REACH_API int reach_win_unlock_all(reach_win_t *win);
/* Inside an epoch: everything issued to rank (to every rank) is complete
 * at the target; flush_local: the local buffers of operations on rank may
 * be reused. */
REACH_API int reach_win_flush(reach_win_t *win, int rank);
REACH_API int reach_win_flush_all(reach_win_t *win);
REACH_API int reach_win_flush_local(reach_win_t *win, int rank);
/* Inside an epoch on rank: disp is a byte displacement in rank's window.
 * As in MPI, a put's source must stay unchanged until flush_local, flush
 * or unlock on rank (a direct put to another node returns before it is
 * read, so that computation overlaps the transfer); the other operations'
 * buffers may be reused when they return, a get's with its data (in
 * deferred mode: after the next flush or unlock). */
REACH_API int reach_win_put(reach_win_t *win, const void *src, size_t disp, size_t bytes, int rank);
REACH_API int reach_win_get(reach_win_t *win, void *dst, size_t disp, size_t bytes, int rank);
REACH_API int reach_win_acc(reach_win_t *win, reach_type_t type, const void *scale, const void *src, size_t disp,
                            size_t bytes, int rank);
/* Strided: the shape's remote side starts at disp in rank's window. */
REACH_API int reach_win_put_strided(reach_win_t *win, const void *src, size_t disp, const reach_strided_t *shape,
                                    int rank);
REACH_API int reach_win_get_strided(reach_win_t *win, void *dst, size_t disp, const reach_strided_t *shape, int rank);
REACH_API int reach_win_acc_strided(reach_win_t *win, reach_type_t type, const void *scale, const void *src,
                                    size_t disp, const reach_strided_t *shape, int rank);
/* Vectors: the remote side of each pair (dst for put and accumulate, src
 * for get) is a displacement in rank's window, cast to void *. */
REACH_API int reach_win_put_vector(reach_win_t *win, const reach_vector_t *v, size_t n, int rank);
REACH_API int reach_win_get_vector(reach_win_t *win, const reach_vector_t *v, size_t n, int rank);
REACH_API int reach_win_acc_vector(reach_win_t *win, reach_type_t type, const void *scale, const reach_vector_t *v,
                                   size_t n, int rank);
/* Atomics at disp (aligned to their size). Under REACH_WIN_SYNC=deferred
 * *old, like a get's data, is there after the next flush or the unlock. */
REACH_API int reach_win_fetch_add_i32(reach_win_t *win, size_t disp, int32_t add, int32_t *old, int rank);
REACH_API int reach_win_fetch_add_i64(reach_win_t *win, size_t disp, int64_t add, int64_t *old, int rank);
REACH_API int reach_win_swap_i32(reach_win_t *win, size_t disp, int32_t value, int32_t *old, int rank);
REACH_API int reach_win_swap_i64(reach_win_t *win, size_t disp, int64_t value, int64_t *old, int rank);
REACH_API int reach_win_cas_i32(reach_win_t *win, size_t disp, int32_t compare, int32_t value, int32_t *old, int rank);
REACH_API int reach_win_cas_i64(reach_win_t *win, size_t disp, int64_t compare, int64_t value, int64_t *old, int rank);

/* ---- statistics ---------------------------------------------------------- */

typedef enum reach_op_kind {
    REACH_OP_PUT = 0,
    REACH_OP_GET,
    REACH_OP_ACC,
    REACH_OP_ATOMIC,
    REACH_OP_FENCE,
    REACH_OP_BARRIER,
    REACH_OP_LOCK,
    REACH_OP_UNLOCK,
    REACH_OP_KINDS
} reach_op_kind_t;

typedef enum reach_path {
    REACH_PATH_SELF = 0, /* target is this process */
    REACH_PATH_SHM,      /* target on this node, through the shared mapping */
    REACH_PATH_NET,      /* target on another node */
    REACH_PATHS
} reach_path_t;

/* Counters of this process. Message accounting covers the network only:
 * messages are the active messages and RMA operations this process sent to
 * other nodes plus the replies its server sent back; a remote atomic is a
 * read-modify-write (user atomic, lock or counter operation) done at
 * another node; a server wake-up is a return of the server thread from
 * sleep on the network's descriptor. */
typedef struct reach_stats {
    uint64_t ops[REACH_OP_KINDS][REACH_PATHS];
    uint64_t bytes[REACH_OP_KINDS][REACH_PATHS];
    uint64_t blocking_waits; /* waits that went to sleep in the kernel */
    uint64_t lock_contended; /* lock acquisitions that had to queue */
    uint64_t allocations;    /* collective allocations */
    uint64_t messages;       /* network messages sent (requests, RMA, replies) */
    uint64_t
        flow_acks; /* of those: acks the server sent of completed writes (for fences, and to bound those in flight) */
    uint64_t remote_atomics; /* read-modify-writes done at another node */
    uint64_t server_wakeups; /* times the server thread woke from sleep */
    uint64_t wait_timeouts;  /* of blocking_waits: sleeps that ended on their time limit, not on their event */
    uint64_t wait_missed;    /* of wait_timeouts: sleeps whose event had come without waking them (lost wake-ups) */
} reach_stats_t;

REACH_API int reach_stats_get(reach_stats_t *out);
REACH_API int reach_stats_reset(void);
REACH_API const char *reach_op_kind_name(reach_op_kind_t kind);
REACH_API const char *reach_path_name(reach_path_t path);
/* Records a mark named label (at most 127 bytes; a program's few phases,
 * at most 256 labels) in this process's trace when REACH_TRACE names a
 * directory, so that tools/reach-project.py can cut the trace into phases;
 * does nothing otherwise. REACH_ERR_NOT_INIT before reach_init,
 * REACH_ERR_ARG for a NULL, empty or longer label or one with a line
 * break. */
REACH_API int reach_trace_mark(const char *label);

/* ---- configuration ----------------------------------------------------- */

/* Prints the table of environment variables with defaults, values in force
 * and help to stdout. Works before reach_init. */
REACH_API void reach_config_print(void);
/* Prints on stderr a line for each REACH_ variable that is not reach's (a
 * misspelling, ignored) and for each value that is not valid, saying what
 * the variable takes; REACH_ERR_ARG if a value is not valid (reach_init
 * then fails), else REACH_SUCCESS. reach_init makes the same check and
 * prints these lines once per job. Works before reach_init. */
REACH_API int reach_config_check(void);
/* The transports of this build: shared memory within a node, and between
 * nodes the network backend in force, UCX or libfabric (REACH_NETWORK),
 * with the version of its library and the backends this build has. */
REACH_API const char *reach_transports(void);

#ifdef __cplusplus
}
#endif
#endif /* REACH_H */
