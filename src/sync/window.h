/* Windows: the lock word (window_lock.h), the deferred epochs
 * (window_deferred.c) and the window calls: creation and release
 * (window.c), epochs (window_epoch.c) and the operations in an epoch
 * (window_ops.c). */
#ifndef REACH_SYNC_WINDOW_H
#define REACH_SYNC_WINDOW_H

#include <stdint.h>
#include "base/state.h"
#include "base/xfer.h"
#include "sync/window_lock.h"

/* A deferred epoch travels as one message: this header, then per
 * operation a win_op_t followed (put, accumulate) by its data rounded up
 * to 8 bytes. The answer carries the data of the gets, in order. */
enum { WIN_ACQUIRE = 1, WIN_RELEASE = 2 };
enum { WIN_OP_PUT = XFER_PUT, WIN_OP_GET = XFER_GET, WIN_OP_ACC = XFER_ACC, WIN_OP_ATOMIC };

typedef struct win_epoch {
    uint64_t word;  /* the lock word, in the target's addresses */
    uint32_t mode;  /* REACH_LOCK_SHARED or REACH_LOCK_EXCLUSIVE */
    uint32_t flags; /* WIN_ACQUIRE, WIN_RELEASE */
    uint64_t nops;
    uint64_t get_bytes;
} win_epoch_t;

typedef struct win_op {
    uint8_t kind, type;
    uint8_t atomic;            /* WIN_OP_ATOMIC: amo_op_t; bytes is the width */
    _Alignas(8) uint64_t addr; /* in the target's addresses */
    uint64_t bytes;
    union {
        double scale[2]; /* accumulate */
        int64_t arg[2];  /* atomic operands */
    } u;
} win_op_t;

/* Operations that answer with data: gets, and atomics (their old value). */
static inline int win_op_answers(int kind)
{
    return kind == WIN_OP_GET || kind == WIN_OP_ATOMIC;
}

static inline size_t win_round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* A deferred epoch's queue to one rank: the message being built (header,
 * operations, data) and where each get's data goes. */
typedef struct win_queue {
    char *msg;
    size_t len, cap;
    void **get_dst;
    size_t *get_len;
    size_t ngets, capgets;
    char *gets; /* the answer: the gets' data, in order */
    size_t capbytes;
    int acquired; /* a flush already took the lock */
} win_queue_t;

/* A window: by rank, where its memory and its lock word are, and the
 * epochs this process has open on it. */
struct reach_win {
    uint32_t magic;
    int allocated;      /* reach_win_allocate made the memory */
    void *mine;         /* this rank's block (allocated) */
    void *word_block;   /* this rank's lock word */
    uintptr_t *base;    /* by rank: window base, in its address space */
    size_t *size;       /* by rank: window bytes */
    uintptr_t *word;    /* by rank: lock word, in its address space */
    signed char *held;  /* by rank: 0, REACH_LOCK_SHARED or REACH_LOCK_EXCLUSIVE */
    uint32_t *removals; /* by rank: its segment table's removals when its range was last checked */
    int open;           /* epochs open */
    int all;            /* the epochs are a lock_all */
    int deferred;       /* REACH_WIN_SYNC=deferred at creation */
    win_queue_t *queue; /* by rank (deferred) */
    reach_win_t *next_live;
};

#define WIN_MAGIC 0x57494e44u /* "WIND" */

/* Whether w is a live window (reach is initialized); and that, and that
 * rank's epoch is open (want_open) or not. Inline: every operation in an
 * epoch checks. */
static inline int win_check(const char *call, reach_win_t *w)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (w == NULL || w->magic != WIN_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "window %p is not a live window", (void *)w);
    return REACH_SUCCESS;
}

/* Checks the window, rank, and that an epoch on rank is open (want_open)
 * or not. */
static inline int win_check_epoch(const char *call, reach_win_t *w, int rank, int want_open)
{
    int st = win_check(call, w);
    if (st == REACH_SUCCESS)
        st = rt_check_rank(call, rank);
    if (st != REACH_SUCCESS)
        return st;
    if (want_open && !w->held[rank])
        return rt_error(REACH_ERR_EPOCH, call, "no epoch is open on rank %d's window", rank);
    if (!want_open && w->held[rank])
        return rt_error(REACH_ERR_EPOCH, call, "an epoch is already open on rank %d's window", rank);
    return REACH_SUCCESS;
}

/* Registers the server's handler of deferred epochs from other nodes. */
void window_register(void) REACH_HIDDEN;
/* Starts q: an empty epoch on the lock word at word (the target's). */
void win_queue_start(win_queue_t *q, uintptr_t word, int mode) REACH_HIDDEN;
/* Queues one operation (data: bytes of a put or accumulate, copied;
 * answer: where a get's data or an atomic's old value goes); returns it,
 * for the caller to fill in what else it needs. */
win_op_t *win_queue_op(win_queue_t *q, int kind, reach_type_t type, const void *scale, const void *data, void *answer,
                       uintptr_t addr, size_t bytes) REACH_HIDDEN;
/* Sends q to rank (with the lock unless a flush took it, with the
 * release if asked) and waits until it is done there; the gets' data
 * lands in their buffers, and q starts again empty. */
void win_queue_send(win_queue_t *q, int rank, int release) REACH_HIDDEN;
void win_queue_free(win_queue_t *q) REACH_HIDDEN;

#endif
