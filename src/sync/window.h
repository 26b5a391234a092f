/* Window locks and deferred epochs, shared by the window calls and the
 * server that serves a deferred epoch from another node. */
#ifndef REACH_SYNC_WINDOW_H
#define REACH_SYNC_WINDOW_H

#include <stdint.h>
#include "base/state.h"

/* The lock word: shared holders, exclusive holder, exclusive lockers
 * waiting (see window.c). */
#define WIN_READER ((uint64_t)1)
#define WIN_WRITER ((uint64_t)1 << 32)
#define WIN_WAITER ((uint64_t)1 << 40)
#define WIN_READERS_MASK (WIN_WRITER - 1)

/* What a holder in mode adds to the word, and takes back at release. */
static inline uint64_t win_hold(int mode)
{
    return mode == REACH_LOCK_SHARED ? WIN_READER : WIN_WRITER;
}

/* One attempt at a lock on a word of this process's arena; *announced
 * says whether an exclusive locker already counts as waiting (set on the
 * first attempt). 1 if taken. */
int win_try_lock_here(_Atomic uint64_t *word, int mode, int *announced) REACH_HIDDEN;
void win_unlock_here(_Atomic uint64_t *word, int mode) REACH_HIDDEN;

/* A deferred epoch travels as one message: this header, then per
 * operation a win_op_t followed (put, accumulate) by its data rounded up
 * to 8 bytes. The answer carries the data of the gets, in order. */
enum { WIN_ACQUIRE = 1, WIN_RELEASE = 2 };
enum { WIN_OP_PUT, WIN_OP_GET, WIN_OP_ACC, WIN_OP_ATOMIC };

typedef struct win_epoch {
    uint64_t word;     /* the lock word, in the target's addresses */
    uint32_t mode;     /* REACH_LOCK_SHARED or REACH_LOCK_EXCLUSIVE */
    uint32_t flags;    /* WIN_ACQUIRE, WIN_RELEASE */
    uint64_t nops;
    uint64_t get_bytes;
} win_epoch_t;

typedef struct win_op {
    uint8_t kind, type;
    uint8_t atomic;    /* WIN_OP_ATOMIC: shm_atomic_op_t; bytes is the width */
    uint8_t pad[5];
    uint64_t addr;     /* in the target's addresses */
    uint64_t bytes;
    union {
        double scale[2];   /* accumulate */
        int64_t arg[2];    /* atomic operands */
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

/* Applies the operations of a deferred epoch (after its header) to the
 * memory of rank (this process, or one mapped here), writing the gets'
 * data to out. */
void win_epoch_apply(int rank, const win_epoch_t *e, char *out) REACH_HIDDEN;

#endif
