/* Windows with passive-target epochs (Santhanaraman08, docs/references.md),
 * one-sided in both lock modes: each rank's window has a 64-bit lock word
 * in its arena (window_lock.h).
 *
 * REACH_WIN_SYNC chooses, per window at its creation, how an epoch's
 * operations travel:
 *
 * direct  (Santhanaraman08) the lock is taken at reach_win_lock;
 *   operations are issued at once (at the window's base plus the
 *   displacement) and complete at unlock or flush (a fence).
 * deferred  (the paper's baseline) nothing leaves the origin before
 *   unlock: operations are queued (puts and accumulates copied), and at
 *   unlock the lock, the operations and the release go together — to the
 *   target's server in one message for a target on another node
 *   (window_deferred.c). A flush sends what is queued with the lock and
 *   keeps it; the rest follows at unlock.
 *
 * The calls check their arguments here (the window, the epoch, the range
 * inside the target's window) and issue through core/rma.h. */
#include "base/acc.h"
#include "sync/calls.h"
#include "base/arena.h"
#include "base/handle.h"
#include "base/strided.h"
#include "base/wait.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/rma.h"
#include "sync/window.h"

#include <stdlib.h>
#include <string.h>

#define WIN_MAGIC 0x57494e44u   /* "WIND" */

struct reach_win {
    uint32_t magic;
    int allocated;       /* reach_win_allocate made the memory */
    void *mine;          /* this rank's block (allocated) */
    void *word_block;    /* this rank's lock word */
    uintptr_t *base;     /* by rank: window base, in its address space */
    size_t *size;        /* by rank: window bytes */
    uintptr_t *word;     /* by rank: lock word, in its address space */
    signed char *held;   /* by rank: 0, REACH_LOCK_SHARED or REACH_LOCK_EXCLUSIVE */
    uint32_t *removals;  /* by rank: its segment table's removals when its range was last checked */
    int open;            /* epochs open */
    int all;             /* the epochs are a lock_all */
    int deferred;        /* REACH_WIN_SYNC=deferred at creation */
    win_queue_t *queue;  /* by rank (deferred) */
    reach_win_t *next_live;
};

static reach_win_t *live;   /* released at finalize */
static handle_pool_t win_pool;

static void win_release_struct(reach_win_t *w)
{
    for (int r = 0; r < rt.size; r++)
        win_queue_free(&w->queue[r]);
    free(w->queue);
    free(w->base);
    free(w->size);
    free(w->word);
    free(w->held);
    free(w->removals);
    handle_retire(&win_pool, w);
}

void window_finalize(void)
{
    while (live) {
        reach_win_t *w = live;
        live = w->next_live;
        win_release_struct(w);
    }
}

static int win_check(const char *call, reach_win_t *w)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (w == NULL || w->magic != WIN_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "window %p is not a live window", (void *)w);
    return REACH_SUCCESS;
}

/* Checks the window, rank, and that an epoch on rank is open (want_open)
 * or not. */
static int win_check_epoch(const char *call, reach_win_t *w, int rank, int want_open)
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

static int win_make(const char *call, void *base, size_t bytes, int allocated, reach_win_t **out)
{
    int st = REACH_SUCCESS;
    if (out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the output pointer is NULL");
    else if (bytes > 0 && !seg_table_contains(&rt.peers[rt.rank].segs, (uintptr_t)base, bytes))
        st = rt_error(REACH_ERR_RANGE, call, "[%p, +%zu) is not inside this rank's reach memory", base,
                      bytes);
    int lo, hi;
    if (!rt_all_same(rt.comm, rt.cfg.win_sync, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks chose different epoch modes (REACH_WIN_SYNC)");
    if (!rt_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    reach_win_t *w = handle_new(&win_pool, sizeof *w);
    void **words = malloc(sizeof(void *) * (size_t)rt.size);
    if (!w || !words)
        rt_oom(call, sizeof(void *) * (size_t)rt.size);
    w->base = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    w->size = malloc(sizeof(size_t) * (size_t)rt.size);
    w->word = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    w->held = calloc((size_t)rt.size, 1);
    w->removals = malloc(sizeof(uint32_t) * (size_t)rt.size);
    w->queue = calloc((size_t)rt.size, sizeof *w->queue);
    if (!w->base || !w->size || !w->word || !w->held || !w->removals || !w->queue)
        rt_oom(call, sizeof *w->queue * (size_t)rt.size);
    st = mem_alloc_collective(call, &group_world, CACHE_LINE, words, 0);
    if (st != REACH_SUCCESS) {
        free(words);
        win_release_struct(w);
        return st;
    }
    w->word_block = words[rt.rank];
    memset(w->word_block, 0, CACHE_LINE);
    for (int r = 0; r < rt.size; r++) {
        w->word[r] = (uintptr_t)words[r];
        w->removals[r] = rt.peers[r].segs.removals;   /* each rank checked its own range above */
    }
    free(words);
    uintptr_t mine = (uintptr_t)base;
    boot_allgather(rt.comm, &mine, sizeof mine, w->base);
    boot_allgather(rt.comm, &bytes, sizeof bytes, w->size);
    w->allocated = allocated;
    w->deferred = rt.cfg.win_sync == WINSYNC_DEFERRED;
    w->mine = allocated ? base : NULL;
    w->magic = WIN_MAGIC;
    w->next_live = live;
    live = w;
    group_barrier(&group_world);   /* every lock word is zero before anyone locks */
    *out = w;
    return REACH_SUCCESS;
}

int win_set_sync(const char *mode)
{
    const char *call = "reach_set_win_sync";
    int kind;
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (mode == NULL)
        return rt_error(REACH_ERR_ARG, call, "the mode is NULL");
    if (config_parse_winsync(mode, &kind) != 0)
        return rt_error(REACH_ERR_ARG, call, "\"%s\" is not an epoch mode (%s)", mode, config_choices("WINSYNC"));
    rt.cfg.win_sync = kind;
    return REACH_SUCCESS;
}

int win_create(void *base, size_t bytes, reach_win_t **win)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_win_create", "reach is not initialized");
    return win_make("reach_win_create", base, bytes, 0, win);
}

int win_allocate(size_t bytes, void *bases[], reach_win_t **win)
{
    const char *call = "reach_win_allocate";
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    int st = bases == NULL ? rt_error(REACH_ERR_ARG, call, "bases is NULL") : REACH_SUCCESS;
    if (!rt_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    if ((st = mem_alloc_collective(call, &group_world, bytes, bases, 1)) != REACH_SUCCESS)
        return st;
    if ((st = win_make(call, bases[rt.rank], bytes, 1, win)) != REACH_SUCCESS)
        mem_free_collective(call, &group_world, bases[rt.rank], 1);
    return st;
}

int win_free(reach_win_t *w)
{
    const char *call = "reach_win_free";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && w->open)
        st = rt_error(REACH_ERR_EPOCH, call, "%d epoch(s) are still open on this window", w->open);
    if (!rt_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_EPOCH;
    st = mem_free_collective(call, &group_world, w->word_block, 0);
    if (w->allocated && st == REACH_SUCCESS)
        st = mem_free_collective(call, &group_world, w->mine, 1);
    HANDLE_UNLINK(&live, w, next_live);
    win_release_struct(w);
    return st;
}

/* Opens an epoch on rank: takes the lock (deferred: starts the queue). */
static void win_open(reach_win_t *w, int rank, int mode)
{
    if (w->deferred) {
        win_queue_start(&w->queue[rank], w->word[rank], mode);
        w->queue[rank].acquired = 0;
    } else {
        wait_for(WAIT_WINDOW, rank, mode, 0);
        win_lock_word(rank, w->word[rank], mode);
        wait_done();
    }
    w->held[rank] = (signed char)mode;
    w->open++;
}

/* Closes the epoch on rank: releases the lock, whose operations a direct
 * caller has fenced; deferred, sends lock, operations and release
 * together. */
static void win_close(reach_win_t *w, int rank)
{
    rt_order_release();
    if (w->deferred)
        win_queue_send(&w->queue[rank], rank, 1);
    else
        win_unlock_word(rank, w->word[rank], w->held[rank]);
    w->held[rank] = 0;
    w->open--;
}

int win_lock(reach_win_t *w, int mode, int rank)
{
    const char *call = "reach_win_lock";
    int st = win_check_epoch(call, w, rank, 0);
    if (st == REACH_SUCCESS && mode != REACH_LOCK_SHARED && mode != REACH_LOCK_EXCLUSIVE)
        st = rt_error(REACH_ERR_ARG, call, "mode %d is neither REACH_LOCK_SHARED nor REACH_LOCK_EXCLUSIVE",
                      mode);
    if (st != REACH_SUCCESS)
        return st;
    win_open(w, rank, mode);
    rma_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

int win_unlock(reach_win_t *w, int rank)
{
    const char *call = "reach_win_unlock";
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS && w->all)
        st = rt_error(REACH_ERR_EPOCH, call, "the epoch on rank %d is part of a lock_all", rank);
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred) {
        rma_fence(rank);
        rma_count(REACH_OP_FENCE, rank, 0);
    }
    win_close(w, rank);
    rma_count(REACH_OP_UNLOCK, rank, 0);
    return REACH_SUCCESS;
}

int win_lock_all(reach_win_t *w)
{
    const char *call = "reach_win_lock_all";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && w->open)
        st = rt_error(REACH_ERR_EPOCH, call, "%d epoch(s) are already open on this window", w->open);
    if (st != REACH_SUCCESS)
        return st;
    for (int r = 0; r < rt.size; r++)
        win_open(w, r, REACH_LOCK_SHARED);
    w->all = 1;
    return REACH_SUCCESS;
}

int win_unlock_all(reach_win_t *w)
{
    const char *call = "reach_win_unlock_all";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && !w->all)
        st = rt_error(REACH_ERR_EPOCH, call, "no lock_all epoch is open on this window");
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred) {
        rma_fence_all();
        rma_count(REACH_OP_FENCE, rt.rank, 0);
    }
    for (int r = 0; r < rt.size; r++)
        win_close(w, r);
    w->all = 0;
    return REACH_SUCCESS;
}

int win_flush(reach_win_t *w, int rank)
{
    int st = win_check_epoch("reach_win_flush", w, rank, 1);
    if (st != REACH_SUCCESS)
        return st;
    if (w->deferred) {
        win_queue_send(&w->queue[rank], rank, 0);
    } else {
        rma_fence(rank);
        rma_count(REACH_OP_FENCE, rank, 0);
    }
    return REACH_SUCCESS;
}

int win_flush_all(reach_win_t *w)
{
    const char *call = "reach_win_flush_all";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && !w->open)
        st = rt_error(REACH_ERR_EPOCH, call, "no epoch is open on this window");
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred) {
        rma_fence_all();
        rma_count(REACH_OP_FENCE, rt.rank, 0);
    }
    for (int r = 0; w->deferred && r < rt.size; r++)
        if (w->held[r])
            win_queue_send(&w->queue[r], r, 0);
    return REACH_SUCCESS;
}

int win_flush_local(reach_win_t *w, int rank)
{
    /* Deferred epochs copy what they send; a direct put to another node
     * may still be reading its source. */
    int st = win_check_epoch("reach_win_flush_local", w, rank, 1);
    if (st == REACH_SUCCESS && !w->deferred)
        rma_flush_local(rank);
    return st;
}

/* Checks an operation of bytes at disp on rank's window (and, if rank's
 * memory was freed anywhere since the last look, that the window's range
 * is still reach memory); *remote gets the target address. */
static int win_op_check(const char *call, reach_win_t *w, size_t disp, size_t bytes, int rank,
                        const void *buf, const char *what, void **remote)
{
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, buf, bytes, what);
    if (st != REACH_SUCCESS)
        return st;
    if (disp > w->size[rank] || bytes > w->size[rank] - disp)
        return rt_error(REACH_ERR_RANGE, call, "[%zu, +%zu) is outside rank %d's window of %zu bytes",
                        disp, bytes, rank, w->size[rank]);
    *remote = (void *)(w->base[rank] + disp);
    uint32_t removals = rt.peers[rank].segs.removals;
    if (unlikely(w->removals[rank] != removals)) {
        if ((st = rma_check(call, rank, (void *)w->base[rank], w->size[rank])) != REACH_SUCCESS)
            return st;
        w->removals[rank] = removals;
    }
    return REACH_SUCCESS;
}

/* The statistics' kind of each transfer. */
static const reach_op_kind_t win_kind[] = {REACH_OP_PUT, REACH_OP_GET, REACH_OP_ACC};

/* A contiguous operation in an epoch: issued at once (a put to another
 * node without waiting for its source: reach_win_flush_local), or queued. */
static int win_xfer(const char *call, xfer_t op, reach_win_t *w, reach_type_t type, const void *scale,
                    const void *local, size_t disp, size_t bytes, int rank)
{
    void *remote = NULL;
    int st = win_op_check(call, w, disp, bytes, rank, local, op == XFER_GET ? "destination" : "source",
                          &remote);
    if (st == REACH_SUCCESS && op == XFER_ACC)
        st = acc_check(call, type, scale, remote, bytes);
    if (st != REACH_SUCCESS)
        return st;
    if (w->deferred) {
        win_queue_op(&w->queue[rank], op, type, scale, op == XFER_GET ? NULL : local,
                     op == XFER_GET ? (void *)local : NULL, (uintptr_t)remote, bytes);
        return REACH_SUCCESS;
    }
    rma_count(win_kind[op], rank, bytes);
    if (op == XFER_PUT)
        rma_put_nb(rank, local, (uintptr_t)remote, bytes);   /* completed by flush_local, flush or unlock */
    else
        rma_xfer(op, rank, type, scale, local, (uintptr_t)remote, bytes);
    return REACH_SUCCESS;
}

int win_put(reach_win_t *w, const void *src, size_t disp, size_t bytes, int rank)
{
    return win_xfer("reach_win_put", XFER_PUT, w, REACH_INT, NULL, src, disp, bytes, rank);
}

int win_get(reach_win_t *w, void *dst, size_t disp, size_t bytes, int rank)
{
    return win_xfer("reach_win_get", XFER_GET, w, REACH_INT, NULL, dst, disp, bytes, rank);
}

int win_acc(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp,
                  size_t bytes, int rank)
{
    return win_xfer("reach_win_acc", XFER_ACC, w, type, scale, src, disp, bytes, rank);
}

/* ---- strided, vector and atomic operations in an epoch -------------------------- */

static int win_strided(const char *call, int kind, reach_win_t *w, reach_type_t type,
                       const void *scale, const void *local, size_t disp,
                       const reach_strided_t *shape, int rank)
{
    reach_strided_t plan;
    size_t src_ext, dst_ext;
    void *remote = NULL;
    int st = strided_plan(call, shape, &plan, &src_ext, &dst_ext);
    if (st == REACH_SUCCESS)
        st = win_op_check(call, w, disp, kind == WIN_OP_GET ? src_ext : dst_ext, rank, local,
                          kind == WIN_OP_GET ? "destination" : "source", &remote);
    if (st == REACH_SUCCESS && kind == WIN_OP_ACC)
        st = acc_check(call, type, scale, remote, plan.count[0]);
    if (st != REACH_SUCCESS || strided_bytes(&plan) == 0)
        return st;
    if (!w->deferred) {
        rma_count(win_kind[kind], rank, strided_bytes(&plan));
        rma_strided(kind, rank, type, scale, &plan, local, (uintptr_t)remote);
        return REACH_SUCCESS;
    }
    /* Queued run by run; for a get the remote side is the source. */
    int get = kind == WIN_OP_GET;
    strided_iter_t it = strided_begin(1);
    do {
        const char *l = (const char *)local + (get ? it.dst : it.src);
        uintptr_t r = (uintptr_t)remote + (get ? it.src : it.dst);
        win_queue_op(&w->queue[rank], kind, type, scale, get ? NULL : l, get ? (void *)l : NULL, r,
                     plan.count[0]);
    } while (strided_next(&it, &plan));
    return REACH_SUCCESS;
}

int win_put_strided(reach_win_t *w, const void *src, size_t disp, const reach_strided_t *shape,
                          int rank)
{
    return win_strided("reach_win_put_strided", WIN_OP_PUT, w, REACH_INT, NULL, src, disp, shape, rank);
}

int win_get_strided(reach_win_t *w, void *dst, size_t disp, const reach_strided_t *shape,
                          int rank)
{
    return win_strided("reach_win_get_strided", WIN_OP_GET, w, REACH_INT, NULL, dst, disp, shape, rank);
}

int win_acc_strided(reach_win_t *w, reach_type_t type, const void *scale, const void *src,
                          size_t disp, const reach_strided_t *shape, int rank)
{
    return win_strided("reach_win_acc_strided", WIN_OP_ACC, w, type, scale, src, disp, shape, rank);
}

/* A vector in an epoch: the remote side of each pair is a displacement in
 * rank's window. Every pair is checked before anything is issued. */
static int win_vector(const char *call, int kind, reach_win_t *w, reach_type_t type,
                      const void *scale, const reach_vector_t *v, size_t n, int rank)
{
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS && v == NULL && n > 0)
        st = rt_error(REACH_ERR_ARG, call, "the descriptors are NULL");
    for (size_t i = 0; st == REACH_SUCCESS && i < n; i++)
        for (size_t j = 0; st == REACH_SUCCESS && j < v[i].count; j++) {
            void *remote = NULL;
            const void *local = kind == WIN_OP_GET ? v[i].dst[j] : v[i].src[j];
            size_t disp = (size_t)(uintptr_t)(kind == WIN_OP_GET ? v[i].src[j] : v[i].dst[j]);
            st = win_op_check(call, w, disp, v[i].bytes, rank, local,
                              kind == WIN_OP_GET ? "destination" : "source", &remote);
            if (st == REACH_SUCCESS && kind == WIN_OP_ACC)
                st = acc_check(call, type, scale, remote, v[i].bytes);
        }
    for (size_t i = 0; st == REACH_SUCCESS && i < n; i++)
        for (size_t j = 0; st == REACH_SUCCESS && j < v[i].count; j++) {
            int get = kind == WIN_OP_GET;
            uintptr_t remote = w->base[rank] + (uintptr_t)(get ? v[i].src[j] : v[i].dst[j]);
            if (w->deferred)
                win_queue_op(&w->queue[rank], kind, type, scale, get ? NULL : v[i].src[j],
                             get ? v[i].dst[j] : NULL, remote, v[i].bytes);
            else {
                rma_count(win_kind[kind], rank, v[i].bytes);
                rma_xfer(kind, rank, type, scale, get ? v[i].dst[j] : v[i].src[j], remote, v[i].bytes);
            }
        }
    return st;
}

int win_put_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank)
{
    return win_vector("reach_win_put_vector", WIN_OP_PUT, w, REACH_INT, NULL, v, n, rank);
}

int win_get_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank)
{
    return win_vector("reach_win_get_vector", WIN_OP_GET, w, REACH_INT, NULL, v, n, rank);
}

int win_acc_vector(reach_win_t *w, reach_type_t type, const void *scale, const reach_vector_t *v,
                         size_t n, int rank)
{
    return win_vector("reach_win_acc_vector", WIN_OP_ACC, w, type, scale, v, n, rank);
}

/* A typed atomic at disp (width 4 or 8); deferred, *old is filled when
 * the epoch's operations complete (flush or unlock). */
static int win_atomic(const char *call, reach_win_t *w, size_t disp, int width, int op, int64_t a,
                      int64_t b, void *old, int rank)
{
    void *remote = NULL;
    int st = win_op_check(call, w, disp, (size_t)width, rank, old, "old", &remote);
    if (st == REACH_SUCCESS && old == NULL)
        st = rt_error(REACH_ERR_ARG, call, "old is NULL");
    if (st == REACH_SUCCESS && ((uintptr_t)remote & (uintptr_t)(width - 1)) != 0)
        st = rt_error(REACH_ERR_ALIGN, call, "target %p (displacement %zu) is not %d-byte aligned", remote,
                      disp, width);
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred) {
        rma_count(REACH_OP_ATOMIC, rank, (size_t)width);
        int64_t o = rma_atomic(rank, (uintptr_t)remote, width, (amo_op_t)op, a, b);
        int32_t o32 = (int32_t)o;
        memcpy(old, width == 4 ? (void *)&o32 : (void *)&o, (size_t)width);
        return REACH_SUCCESS;
    }
    win_op_t *q = win_queue_op(&w->queue[rank], WIN_OP_ATOMIC, REACH_INT, NULL, NULL, old, (uintptr_t)remote,
                               (size_t)width);
    q->atomic = (uint8_t)op;
    q->u.arg[0] = a;
    q->u.arg[1] = b;
    return REACH_SUCCESS;
}

int win_fetch_add_i32(reach_win_t *w, size_t disp, int32_t add, int32_t *old, int rank)
{
    return win_atomic("reach_win_fetch_add_i32", w, disp, 4, AMO_ADD, add, 0, old, rank);
}

int win_fetch_add_i64(reach_win_t *w, size_t disp, int64_t add, int64_t *old, int rank)
{
    return win_atomic("reach_win_fetch_add_i64", w, disp, 8, AMO_ADD, add, 0, old, rank);
}

int win_swap_i32(reach_win_t *w, size_t disp, int32_t value, int32_t *old, int rank)
{
    return win_atomic("reach_win_swap_i32", w, disp, 4, AMO_SWAP, value, 0, old, rank);
}

int win_swap_i64(reach_win_t *w, size_t disp, int64_t value, int64_t *old, int rank)
{
    return win_atomic("reach_win_swap_i64", w, disp, 8, AMO_SWAP, value, 0, old, rank);
}

int win_cas_i32(reach_win_t *w, size_t disp, int32_t compare, int32_t value, int32_t *old,
                      int rank)
{
    return win_atomic("reach_win_cas_i32", w, disp, 4, AMO_CAS, compare, value, old, rank);
}

int win_cas_i64(reach_win_t *w, size_t disp, int64_t compare, int64_t value, int64_t *old,
                      int rank)
{
    return win_atomic("reach_win_cas_i64", w, disp, 8, AMO_CAS, compare, value, old, rank);
}
