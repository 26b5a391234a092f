/* Windows with passive-target epochs (paper 002), one-sided in both lock
 * modes. Each rank's window has a 64-bit lock word in its arena:
 *
 *   bits  0..31  shared holders
 *   bit  32      exclusive holder
 *   bits 40..63  exclusive lockers waiting
 *
 * Shared lock: add one holder; if the word shows an exclusive holder or a
 * waiting exclusive locker, take it back, back off and retry — so a stream
 * of readers cannot starve a writer. Exclusive lock: announce the wait
 * (add one waiting), then compare-and-swap "nobody holds it" to "held,
 * one fewer waiting", backing off while others hold it. Unlock subtracts
 * what the lock added. Every step is a CPU atomic on this node and a
 * remote atomic at the target's server from another: the target process
 * never takes part. Back-off doubles from 1 us to 1 ms, sleeping, so that
 * contention neither floods the network nor burns a core.
 *
 * REACH_WIN_SYNC chooses, per window at its creation, how an epoch's
 * operations travel:
 *
 * direct  (paper 002) the lock is taken at reach_win_lock; operations are
 *   issued at once (reach_put/get/acc at the window's base plus the
 *   displacement) and complete at unlock or flush (a fence).
 * deferred  (the paper's baseline) nothing leaves the origin before
 *   unlock: operations are queued (puts and accumulates copied), and at
 *   unlock the lock, the operations and the release go together — to the
 *   target's server in one message for a target on another node, which
 *   takes the lock on the origin's behalf (retrying while it is held),
 *   applies the operations and answers with the gets' data. A flush sends
 *   what is queued with the lock and keeps it; the rest follows at unlock.
 */
#include "core/rma.h"
#include "api/rma.h"
#include "base/acc.h"
#include "core/group.h"
#include "base/handle.h"
#include "base/wait.h"
#include "base/strided.h"
#include "core/mem.h"
#include "sync/sync.h"
#include "sync/window.h"
#include "transport/shm/shm_ops.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN_MAGIC 0x57494e44u   /* "WIND" */

/* A deferred epoch's queue to one rank: the message being built (header,
 * operations, data) and where each get's data goes. */
typedef struct win_queue {
    char *msg;
    size_t len, cap;
    void **get_dst;
    size_t *get_len;
    size_t ngets, capgets;
    int acquired;        /* a flush already took the lock */
} win_queue_t;

struct reach_win {
    uint32_t magic;
    int allocated;       /* reach_win_allocate made the memory */
    void *mine;          /* this rank's block (allocated) */
    void *word_block;    /* this rank's lock word */
    uintptr_t *base;     /* by rank: window base, in its address space */
    size_t *size;        /* by rank: window bytes */
    uintptr_t *word;     /* by rank: lock word, in its address space */
    signed char *held;   /* by rank: 0, REACH_LOCK_SHARED or REACH_LOCK_EXCLUSIVE */
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
    for (int r = 0; r < rt.size; r++) {
        free(w->queue[r].msg);
        free(w->queue[r].get_dst);
        free(w->queue[r].get_len);
    }
    free(w->queue);
    free(w->base);
    free(w->size);
    free(w->word);
    free(w->held);
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

/* An atomic on a lock word of this node: add (returns the old value) or
 * compare-and-swap. */
static uint64_t win_word_here(void *ctx, net_sync_op_t op, uint64_t a, uint64_t b)
{
    _Atomic uint64_t *word = ctx;
    if (op == NET_SYNC_ADD64)
        return atom_fetch_add_acq_rel(word, a);
    uint64_t old = a;
    atom_cas_acq_rel(word, &old, b);
    return old;
}

/* An atomic on rank's lock word: add (returns the old value) or CAS. */
static uint64_t win_word_op(reach_win_t *w, int rank, net_sync_op_t op, uint64_t a, uint64_t b)
{
    peer_t *p = &rt.peers[rank];
    if (p->map == NULL)
        return net->amo(rank, w->word[rank], op, a, b);
    return win_word_here(p->map + (w->word[rank] - p->rbase), op, a, b);
}

static void win_backoff(long *ns)
{
    struct timespec ts = {0, *ns};
    wait_tick();
    nanosleep(&ts, NULL);
    if (*ns < 1000000)
        *ns *= 2;
}

/* An atomic on a lock word: add (returns the old value) or compare-and-
 * swap; ctx says which word and how it is reached. */
typedef uint64_t (*win_word_fn)(void *ctx, net_sync_op_t op, uint64_t a, uint64_t b);

/* One attempt at the lock. Shared: add a holder, take it back if a
 * writer holds or waits. Exclusive: announce the wait once, then swap
 * "free" for "held" while the word shows it free. 1 if taken. */
static int win_try(win_word_fn op, void *ctx, int mode, int *announced)
{
    if (mode == REACH_LOCK_SHARED) {
        if ((op(ctx, NET_SYNC_ADD64, WIN_READER, 0) & ~WIN_READERS_MASK) == 0)
            return 1;
        op(ctx, NET_SYNC_ADD64, (uint64_t)-WIN_READER, 0);
        return 0;
    }
    uint64_t seen = op(ctx, NET_SYNC_ADD64, *announced ? 0 : WIN_WAITER, 0);
    if (!*announced) {
        seen += WIN_WAITER;
        *announced = 1;
    }
    while ((seen & (WIN_WRITER | WIN_READERS_MASK)) == 0) {
        uint64_t old = op(ctx, NET_SYNC_CAS64, seen, seen - WIN_WAITER + WIN_WRITER);
        if (old == seen)
            return 1;
        seen = old;   /* changed meanwhile: again at once if still free */
    }
    return 0;
}

typedef struct win_word_at {
    reach_win_t *w;
    int rank;
} win_word_at_t;

static uint64_t win_word_remote(void *ctx, net_sync_op_t op, uint64_t a, uint64_t b)
{
    win_word_at_t *at = ctx;
    return win_word_op(at->w, at->rank, op, a, b);
}

/* Takes rank's lock, backing off (sleeping) between attempts. */
static void win_lock_word(reach_win_t *w, int rank, int mode)
{
    win_word_at_t at = {w, rank};
    int announced = 0;
    for (long ns = 1000; !win_try(win_word_remote, &at, mode, &announced);)
        win_backoff(&ns);
}

int win_try_lock_here(_Atomic uint64_t *word, int mode, int *announced)
{
    return win_try(win_word_here, word, mode, announced);
}

void win_unlock_here(_Atomic uint64_t *word, int mode)
{
    atom_fetch_add_acq_rel(word, (uint64_t)-win_hold(mode));
}

void win_epoch_apply(int rank, const win_epoch_t *e, char *out)
{
    peer_t *me = &rt.peers[rank];
    const char *p = (const char *)(e + 1);
    for (uint64_t i = 0; i < e->nops; i++) {
        const win_op_t *op = (const win_op_t *)(const void *)p;
        char *local = me->map + (op->addr - me->rbase);
        p += sizeof *op;
        if (op->kind == WIN_OP_GET) {
            memcpy(out, local, op->bytes);
            out += op->bytes;
            continue;
        }
        if (op->kind == WIN_OP_ATOMIC) {
            int64_t old = shm_atomic(rank, local, (int)op->bytes, (shm_atomic_op_t)op->atomic,
                                     op->u.arg[0], op->u.arg[1]);
            int32_t old32 = (int32_t)old;
            memcpy(out, op->bytes == 4 ? (void *)&old32 : (void *)&old, op->bytes);
            out += op->bytes;
            continue;
        }
        if (op->kind == WIN_OP_PUT)
            shm_copy(local, p, op->bytes);
        else
            shm_acc(rank, (reach_type_t)op->type, op->u.scale, p, local, op->bytes);
        p += win_round8(op->bytes);
    }
}

static void *win_grow(void *p, size_t *cap, size_t need, size_t unit)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * unit);
    if (!q)
        rt_fatal("reach: out of private memory for a deferred epoch");
    *cap = c;
    return q;
}

/* Starts rank's queue: an empty epoch message. */
static void win_queue_start(reach_win_t *w, int rank, int mode)
{
    win_queue_t *q = &w->queue[rank];
    q->msg = win_grow(q->msg, &q->cap, sizeof(win_epoch_t), 1);
    *(win_epoch_t *)(void *)q->msg = (win_epoch_t){.word = w->word[rank], .mode = (uint32_t)mode};
    q->len = sizeof(win_epoch_t);
    q->ngets = 0;
}

/* Queues one operation (data: bytes of a put or accumulate, copied;
 * answer: where a get's data or an atomic's old value goes); returns it,
 * for the caller to fill in what else it needs. */
static win_op_t *win_queue_op(reach_win_t *w, int rank, int kind, reach_type_t type,
                              const void *scale, const void *data, void *answer, uintptr_t addr,
                              size_t bytes)
{
    win_queue_t *q = &w->queue[rank];
    size_t data_len = win_op_answers(kind) ? 0 : win_round8(bytes);
    q->msg = win_grow(q->msg, &q->cap, q->len + sizeof(win_op_t) + data_len, 1);
    win_op_t *op = (win_op_t *)(void *)(q->msg + q->len);
    *op = (win_op_t){.kind = (uint8_t)kind, .type = (uint8_t)type, .addr = addr, .bytes = bytes};
    if (kind == WIN_OP_ACC)
        memcpy(op->u.scale, scale, acc_elem_size(type));   /* the scale is one element */
    if (data_len)
        memcpy(op + 1, data, bytes);
    q->len += sizeof(win_op_t) + data_len;
    win_epoch_t *e = (win_epoch_t *)(void *)q->msg;
    e->nops++;
    if (win_op_answers(kind)) {
        size_t n = q->ngets + 1, c1 = q->capgets, c2 = q->capgets;
        q->get_dst = win_grow(q->get_dst, &c1, n, sizeof(void *));
        q->get_len = win_grow(q->get_len, &c2, n, sizeof(size_t));
        q->capgets = c1;
        q->get_dst[q->ngets] = answer;
        q->get_len[q->ngets++] = bytes;
        e->get_bytes += bytes;
    }
    return op;
}

/* Sends rank's queued epoch with these flags (WIN_ACQUIRE unless a flush
 * took the lock already, WIN_RELEASE at unlock) and waits until it is
 * done there; the gets' data lands in their buffers. */
static void win_queue_send(reach_win_t *w, int rank, int release)
{
    win_queue_t *q = &w->queue[rank];
    win_epoch_t *e = (win_epoch_t *)(void *)q->msg;
    e->flags = (q->acquired ? 0 : WIN_ACQUIRE) | (release ? WIN_RELEASE : 0);
    char *gets = malloc(e->get_bytes ? e->get_bytes : 1);
    if (!gets)
        rt_fatal("reach: out of private memory for a deferred epoch");
    if (rt.peers[rank].map == NULL) {
        net->epoch(rank, q->msg, q->len, gets, e->get_bytes);
    } else {
        /* On this node the same steps, done here. */
        if (e->flags & WIN_ACQUIRE)
            win_lock_word(w, rank, (int)e->mode);
        win_epoch_apply(rank, e, gets);
        atom_fence_seq_cst();
        if (release)
            win_word_op(w, rank, NET_SYNC_ADD64, (uint64_t)-win_hold((int)e->mode), 0);
    }
    char *p = gets;
    for (size_t i = 0; i < q->ngets; i++) {
        memcpy(q->get_dst[i], p, q->get_len[i]);
        p += q->get_len[i];
    }
    free(gets);
    q->acquired = !release;
    win_queue_start(w, rank, (int)e->mode);
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
        st = rt_error(REACH_ERR_ARG, call, "the ranks chose different epoch modes (direct, deferred)");
    if (!rt_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    reach_win_t *w = handle_new(&win_pool, sizeof *w);
    void **words = malloc(sizeof(void *) * (size_t)rt.size);
    if (!w || !words)
        rt_fatal("%s: out of private memory", call);
    w->base = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    w->size = malloc(sizeof(size_t) * (size_t)rt.size);
    w->word = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    w->held = calloc((size_t)rt.size, 1);
    w->queue = calloc((size_t)rt.size, sizeof *w->queue);
    if (!w->base || !w->size || !w->word || !w->held || !w->queue)
        rt_fatal("%s: out of private memory", call);
    st = mem_alloc_collective(call, &group_world, 64, words, 0);
    if (st != REACH_SUCCESS) {
        free(words);
        free(w->base);
        free(w->size);
        free(w->word);
        free(w->held);
        free(w->queue);
        handle_retire(&win_pool, w);
        return st;
    }
    w->word_block = words[rt.rank];
    memset(w->word_block, 0, 64);
    for (int r = 0; r < rt.size; r++)
        w->word[r] = (uintptr_t)words[r];
    free(words);
    uintptr_t mine = (uintptr_t)base;
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, w->base, sizeof mine, MPI_BYTE, rt.comm);
    MPI_Allgather(&bytes, sizeof bytes, MPI_BYTE, w->size, sizeof bytes, MPI_BYTE, rt.comm);
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

int reach_set_win_sync(const char *mode)
{
    const char *call = "reach_set_win_sync";
    int kind;
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (mode == NULL)
        return rt_error(REACH_ERR_ARG, call, "the mode is NULL");
    if (config_parse_winsync(mode, &kind) != 0)
        return rt_error(REACH_ERR_ARG, call, "\"%s\" is not an epoch mode (direct, deferred)", mode);
    rt.cfg.win_sync = kind;
    return REACH_SUCCESS;
}

int reach_win_create(void *base, size_t bytes, reach_win_t **win)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_win_create", "reach is not initialized");
    return win_make("reach_win_create", base, bytes, 0, win);
}

int reach_win_allocate(size_t bytes, void *bases[], reach_win_t **win)
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

int reach_win_free(reach_win_t *w)
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
    reach_win_t **pp = &live;
    while (*pp != w)
        pp = &(*pp)->next_live;
    *pp = w->next_live;
    win_release_struct(w);
    return st;
}

/* Opens an epoch on rank: takes the lock (deferred: starts the queue). */
static void win_open(reach_win_t *w, int rank, int mode)
{
    if (w->deferred) {
        win_queue_start(w, rank, mode);
        w->queue[rank].acquired = 0;
    } else {
        wait_for(WAIT_WINDOW, rank, mode, 0);
        win_lock_word(w, rank, mode);
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
        win_queue_send(w, rank, 1);
    else
        win_word_op(w, rank, NET_SYNC_ADD64, (uint64_t)-win_hold(w->held[rank]), 0);
    w->held[rank] = 0;
    w->open--;
}

int reach_win_lock(reach_win_t *w, int mode, int rank)
{
    const char *call = "reach_win_lock";
    int st = win_check_epoch(call, w, rank, 0);
    if (st == REACH_SUCCESS && mode != REACH_LOCK_SHARED && mode != REACH_LOCK_EXCLUSIVE)
        st = rt_error(REACH_ERR_ARG, call, "mode %d is neither REACH_LOCK_SHARED nor REACH_LOCK_EXCLUSIVE",
                      mode);
    if (st != REACH_SUCCESS)
        return st;
    win_open(w, rank, mode);
    rt_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

int reach_win_unlock(reach_win_t *w, int rank)
{
    const char *call = "reach_win_unlock";
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS && w->all)
        st = rt_error(REACH_ERR_EPOCH, call, "the epoch on rank %d is part of a lock_all", rank);
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred)
        reach_fence(rank);
    win_close(w, rank);
    rt_count(REACH_OP_UNLOCK, rank, 0);
    return REACH_SUCCESS;
}

int reach_win_lock_all(reach_win_t *w)
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

int reach_win_unlock_all(reach_win_t *w)
{
    const char *call = "reach_win_unlock_all";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && !w->all)
        st = rt_error(REACH_ERR_EPOCH, call, "no lock_all epoch is open on this window");
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred)
        reach_fence_all();
    for (int r = 0; r < rt.size; r++)
        win_close(w, r);
    w->all = 0;
    return REACH_SUCCESS;
}

int reach_win_flush(reach_win_t *w, int rank)
{
    int st = win_check_epoch("reach_win_flush", w, rank, 1);
    if (st != REACH_SUCCESS)
        return st;
    if (w->deferred) {
        win_queue_send(w, rank, 0);
        return REACH_SUCCESS;
    }
    return reach_fence(rank);
}

int reach_win_flush_all(reach_win_t *w)
{
    const char *call = "reach_win_flush_all";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && !w->open)
        st = rt_error(REACH_ERR_EPOCH, call, "no epoch is open on this window");
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred)
        return reach_fence_all();
    for (int r = 0; r < rt.size; r++)
        if (w->held[r])
            win_queue_send(w, r, 0);
    return REACH_SUCCESS;
}

int reach_win_flush_local(reach_win_t *w, int rank)
{
    /* Deferred epochs copy what they send; a direct put to another node
     * may still be reading its source. */
    int st = win_check_epoch("reach_win_flush_local", w, rank, 1);
    if (st == REACH_SUCCESS && !w->deferred && !reach_same_node(rank))
        st = net->flush_local(rank);
    return st;
}

/* Checks an operation of bytes at disp on rank's window; *remote gets the
 * target address. */
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
    return REACH_SUCCESS;
}

int reach_win_put(reach_win_t *w, const void *src, size_t disp, size_t bytes, int rank)
{
    void *remote = NULL;
    int st = win_op_check("reach_win_put", w, disp, bytes, rank, src, "source", &remote);
    if (st != REACH_SUCCESS || !w->deferred)
        return st != REACH_SUCCESS ? st : rma_put("reach_win_put", src, remote, bytes, rank, 1);
    win_queue_op(w, rank, WIN_OP_PUT, REACH_INT, NULL, src, NULL, (uintptr_t)remote, bytes);
    return REACH_SUCCESS;
}

int reach_win_get(reach_win_t *w, void *dst, size_t disp, size_t bytes, int rank)
{
    void *remote = NULL;
    int st = win_op_check("reach_win_get", w, disp, bytes, rank, dst, "destination", &remote);
    if (st != REACH_SUCCESS || !w->deferred)
        return st != REACH_SUCCESS ? st : reach_get(remote, dst, bytes, rank);
    win_queue_op(w, rank, WIN_OP_GET, REACH_INT, NULL, NULL, dst, (uintptr_t)remote, bytes);
    return REACH_SUCCESS;
}

int reach_win_acc(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp,
                  size_t bytes, int rank)
{
    void *remote = NULL;
    const char *call = "reach_win_acc";
    int st = win_op_check(call, w, disp, bytes, rank, src, "source", &remote);
    if (st != REACH_SUCCESS || !w->deferred)
        return st != REACH_SUCCESS ? st : reach_acc(type, scale, src, remote, bytes, rank);
    if ((st = acc_check(call, type, scale, remote, bytes)) != REACH_SUCCESS)
        return st;
    win_queue_op(w, rank, WIN_OP_ACC, type, scale, src, NULL, (uintptr_t)remote, bytes);
    return REACH_SUCCESS;
}

/* ---- strided, vector and atomic operations in an epoch -------------------------- */

/* Calls fn on each contiguous run of plan: offsets on the source and the
 * destination side. */
static void win_runs(const reach_strided_t *plan, void (*fn)(void *ctx, size_t src, size_t dst),
                     void *ctx)
{
    size_t idx[REACH_MAX_STRIDE_LEVELS] = {0};
    for (;;) {
        size_t s = 0, d = 0;
        for (int l = 0; l < plan->levels; l++) {
            s += idx[l] * plan->src_stride[l];
            d += idx[l] * plan->dst_stride[l];
        }
        fn(ctx, s, d);
        int l = 0;
        while (l < plan->levels && ++idx[l] == plan->count[l + 1])
            idx[l++] = 0;
        if (l == plan->levels)
            return;
    }
}

typedef struct win_run_ctx {
    reach_win_t *w;
    int rank, kind;
    reach_type_t type;
    const void *scale;
    const char *local;       /* put, acc: source; get: destination */
    uintptr_t remote;
    size_t run;
} win_run_ctx_t;

static void win_queue_run(void *arg, size_t s, size_t d)
{
    win_run_ctx_t *c = arg;
    if (c->kind == WIN_OP_GET)
        win_queue_op(c->w, c->rank, WIN_OP_GET, REACH_INT, NULL, NULL, (char *)c->local + d,
                     c->remote + s, c->run);
    else
        win_queue_op(c->w, c->rank, c->kind, c->type, c->scale, c->local + s, NULL, c->remote + d,
                     c->run);
}

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
        if (kind == WIN_OP_PUT)
            return reach_put_strided(local, remote, shape, rank);
        if (kind == WIN_OP_GET)
            return reach_get_strided(remote, (void *)local, shape, rank);
        return reach_acc_strided(type, scale, local, remote, shape, rank);
    }
    win_run_ctx_t c = {w, rank, kind, type, scale, local, (uintptr_t)remote, plan.count[0]};
    win_runs(&plan, win_queue_run, &c);
    return REACH_SUCCESS;
}

int reach_win_put_strided(reach_win_t *w, const void *src, size_t disp, const reach_strided_t *shape,
                          int rank)
{
    return win_strided("reach_win_put_strided", WIN_OP_PUT, w, REACH_INT, NULL, src, disp, shape, rank);
}

int reach_win_get_strided(reach_win_t *w, void *dst, size_t disp, const reach_strided_t *shape,
                          int rank)
{
    return win_strided("reach_win_get_strided", WIN_OP_GET, w, REACH_INT, NULL, dst, disp, shape, rank);
}

int reach_win_acc_strided(reach_win_t *w, reach_type_t type, const void *scale, const void *src,
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
                win_queue_op(w, rank, kind, type, scale, get ? NULL : v[i].src[j],
                             get ? v[i].dst[j] : NULL, remote, v[i].bytes);
            else if (get)
                st = reach_get((void *)remote, v[i].dst[j], v[i].bytes, rank);
            else if (kind == WIN_OP_PUT)
                st = reach_put(v[i].src[j], (void *)remote, v[i].bytes, rank);
            else
                st = reach_acc(type, scale, v[i].src[j], (void *)remote, v[i].bytes, rank);
        }
    return st;
}

int reach_win_put_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank)
{
    return win_vector("reach_win_put_vector", WIN_OP_PUT, w, REACH_INT, NULL, v, n, rank);
}

int reach_win_get_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank)
{
    return win_vector("reach_win_get_vector", WIN_OP_GET, w, REACH_INT, NULL, v, n, rank);
}

int reach_win_acc_vector(reach_win_t *w, reach_type_t type, const void *scale, const reach_vector_t *v,
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
    if (st == REACH_SUCCESS && (disp & (size_t)(width - 1)) != 0)
        st = rt_error(REACH_ERR_ALIGN, call, "displacement %zu is not %d-byte aligned", disp, width);
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred)
        return width == 4 ? (op == SHM_ATOMIC_ADD ? reach_fetch_add_i32(remote, (int32_t)a, old, rank)
                             : op == SHM_ATOMIC_SWAP ? reach_swap_i32(remote, (int32_t)a, old, rank)
                                                     : reach_cas_i32(remote, (int32_t)a, (int32_t)b, old, rank))
                          : (op == SHM_ATOMIC_ADD ? reach_fetch_add_i64(remote, a, old, rank)
                             : op == SHM_ATOMIC_SWAP ? reach_swap_i64(remote, a, old, rank)
                                                     : reach_cas_i64(remote, a, b, old, rank));
    win_op_t *q = win_queue_op(w, rank, WIN_OP_ATOMIC, REACH_INT, NULL, NULL, old, (uintptr_t)remote,
                               (size_t)width);
    q->atomic = (uint8_t)op;
    q->u.arg[0] = a;
    q->u.arg[1] = b;
    return REACH_SUCCESS;
}

int reach_win_fetch_add_i32(reach_win_t *w, size_t disp, int32_t add, int32_t *old, int rank)
{
    return win_atomic("reach_win_fetch_add_i32", w, disp, 4, SHM_ATOMIC_ADD, add, 0, old, rank);
}

int reach_win_fetch_add_i64(reach_win_t *w, size_t disp, int64_t add, int64_t *old, int rank)
{
    return win_atomic("reach_win_fetch_add_i64", w, disp, 8, SHM_ATOMIC_ADD, add, 0, old, rank);
}

int reach_win_swap_i32(reach_win_t *w, size_t disp, int32_t value, int32_t *old, int rank)
{
    return win_atomic("reach_win_swap_i32", w, disp, 4, SHM_ATOMIC_SWAP, value, 0, old, rank);
}

int reach_win_swap_i64(reach_win_t *w, size_t disp, int64_t value, int64_t *old, int rank)
{
    return win_atomic("reach_win_swap_i64", w, disp, 8, SHM_ATOMIC_SWAP, value, 0, old, rank);
}

int reach_win_cas_i32(reach_win_t *w, size_t disp, int32_t compare, int32_t value, int32_t *old,
                      int rank)
{
    return win_atomic("reach_win_cas_i32", w, disp, 4, SHM_ATOMIC_CAS, compare, value, old, rank);
}

int reach_win_cas_i64(reach_win_t *w, size_t disp, int64_t compare, int64_t value, int64_t *old,
                      int rank)
{
    return win_atomic("reach_win_cas_i64", w, disp, 8, SHM_ATOMIC_CAS, compare, value, old, rank);
}
