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
 * Operations are issued at once (reach_put/get/acc at the window's base
 * plus the displacement) and complete at unlock or flush (a fence). */
#include "core/group.h"
#include "core/mem.h"
#include "sync/sync.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN_MAGIC 0x57494e44u   /* "WIND" */
#define WIN_READER ((uint64_t)1)
#define WIN_WRITER ((uint64_t)1 << 32)
#define WIN_WAITER ((uint64_t)1 << 40)
#define WIN_READERS_MASK (WIN_WRITER - 1)

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
    reach_win_t *next_live;
};

static reach_win_t *live;   /* released at finalize */

static void win_release_struct(reach_win_t *w)
{
    w->magic = 0;
    free(w->base);
    free(w->size);
    free(w->word);
    free(w->held);
    free(w);
}

void window_finalize(void)
{
    while (live) {
        reach_win_t *w = live;
        live = w->next_live;
        win_release_struct(w);
    }
}

/* An atomic on rank's lock word: add (returns the old value) or CAS. */
static uint64_t win_word_op(reach_win_t *w, int rank, net_sync_op_t op, uint64_t a, uint64_t b)
{
    peer_t *p = &rt.peers[rank];
    if (p->map == NULL) {
        uint64_t old = 0;
        net->sync(rank, w->word[rank], op, a, b, &old);
        return old;
    }
    _Atomic uint64_t *word = (_Atomic uint64_t *)(void *)(p->map + (w->word[rank] - p->rbase));
    if (op == NET_SYNC_ADD64)
        return atom_fetch_add_acq_rel(word, a);
    uint64_t old = a;
    atom_cas_acq_rel(word, &old, b);
    return old;
}

static void win_backoff(long *ns)
{
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
    if (*ns < 1000000)
        *ns *= 2;
}

static void win_lock_shared(reach_win_t *w, int rank)
{
    for (long ns = 1000;; win_backoff(&ns)) {
        uint64_t old = win_word_op(w, rank, NET_SYNC_ADD64, WIN_READER, 0);
        if ((old & ~WIN_READERS_MASK) == 0)
            return;
        win_word_op(w, rank, NET_SYNC_ADD64, (uint64_t)-WIN_READER, 0);
    }
}

static void win_lock_exclusive(reach_win_t *w, int rank)
{
    uint64_t seen = win_word_op(w, rank, NET_SYNC_ADD64, WIN_WAITER, 0) + WIN_WAITER;
    for (long ns = 1000;;) {
        if ((seen & (WIN_WRITER | WIN_READERS_MASK)) == 0) {
            uint64_t old = win_word_op(w, rank, NET_SYNC_CAS64, seen, seen - WIN_WAITER + WIN_WRITER);
            if (old == seen)
                return;
            seen = old;   /* changed meanwhile: try again at once if free */
            continue;
        }
        win_backoff(&ns);
        seen = win_word_op(w, rank, NET_SYNC_ADD64, 0, 0);
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
    if (!rt_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    reach_win_t *w = calloc(1, sizeof *w);
    void **words = malloc(sizeof(void *) * (size_t)rt.size);
    if (!w || !words)
        rt_fatal("%s: out of private memory", call);
    w->base = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    w->size = malloc(sizeof(size_t) * (size_t)rt.size);
    w->word = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    w->held = calloc((size_t)rt.size, 1);
    if (!w->base || !w->size || !w->word || !w->held)
        rt_fatal("%s: out of private memory", call);
    st = mem_alloc_collective(call, &group_world, 64, words, 0);
    if (st != REACH_SUCCESS) {
        free(words);
        free(w->base);
        free(w->size);
        free(w->word);
        free(w->held);
        free(w);
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
    w->mine = allocated ? base : NULL;
    w->magic = WIN_MAGIC;
    w->next_live = live;
    live = w;
    group_barrier(&group_world);   /* every lock word is zero before anyone locks */
    *out = w;
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

int reach_win_lock(reach_win_t *w, int mode, int rank)
{
    const char *call = "reach_win_lock";
    int st = win_check_epoch(call, w, rank, 0);
    if (st == REACH_SUCCESS && mode != REACH_LOCK_SHARED && mode != REACH_LOCK_EXCLUSIVE)
        st = rt_error(REACH_ERR_ARG, call, "mode %d is neither REACH_LOCK_SHARED nor REACH_LOCK_EXCLUSIVE",
                      mode);
    if (st != REACH_SUCCESS)
        return st;
    if (mode == REACH_LOCK_SHARED)
        win_lock_shared(w, rank);
    else
        win_lock_exclusive(w, rank);
    w->held[rank] = (signed char)mode;
    w->open++;
    rt_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

/* Completes the epoch's operations, then releases the lock. */
static void win_release(reach_win_t *w, int rank)
{
    reach_fence(rank);
    uint64_t sub = w->held[rank] == REACH_LOCK_SHARED ? WIN_READER : WIN_WRITER;
    win_word_op(w, rank, NET_SYNC_ADD64, (uint64_t)-sub, 0);
    w->held[rank] = 0;
    w->open--;
    rt_count(REACH_OP_UNLOCK, rank, 0);
}

int reach_win_unlock(reach_win_t *w, int rank)
{
    const char *call = "reach_win_unlock";
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS && w->all)
        st = rt_error(REACH_ERR_EPOCH, call, "the epoch on rank %d is part of a lock_all", rank);
    if (st != REACH_SUCCESS)
        return st;
    win_release(w, rank);
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
    for (int r = 0; r < rt.size; r++) {
        win_lock_shared(w, r);
        w->held[r] = REACH_LOCK_SHARED;
    }
    w->open = rt.size;
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
    reach_fence_all();
    for (int r = 0; r < rt.size; r++) {
        win_word_op(w, r, NET_SYNC_ADD64, (uint64_t)-WIN_READER, 0);
        w->held[r] = 0;
    }
    w->open = 0;
    w->all = 0;
    return REACH_SUCCESS;
}

int reach_win_flush(reach_win_t *w, int rank)
{
    int st = win_check_epoch("reach_win_flush", w, rank, 1);
    return st != REACH_SUCCESS ? st : reach_fence(rank);
}

int reach_win_flush_all(reach_win_t *w)
{
    const char *call = "reach_win_flush_all";
    int st = win_check(call, w);
    if (st == REACH_SUCCESS && !w->open)
        st = rt_error(REACH_ERR_EPOCH, call, "no epoch is open on this window");
    return st != REACH_SUCCESS ? st : reach_fence_all();
}

int reach_win_flush_local(reach_win_t *w, int rank)
{
    /* Operations return once their local buffers may be reused. */
    return win_check_epoch("reach_win_flush_local", w, rank, 1);
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
    if (st != REACH_SUCCESS)
        return st;
    return reach_put(src, remote, bytes, rank);
}

int reach_win_get(reach_win_t *w, void *dst, size_t disp, size_t bytes, int rank)
{
    void *remote = NULL;
    int st = win_op_check("reach_win_get", w, disp, bytes, rank, dst, "destination", &remote);
    return st != REACH_SUCCESS ? st : reach_get(remote, dst, bytes, rank);
}

int reach_win_acc(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp,
                  size_t bytes, int rank)
{
    void *remote = NULL;
    int st = win_op_check("reach_win_acc", w, disp, bytes, rank, src, "source", &remote);
    return st != REACH_SUCCESS ? st : reach_acc(type, scale, src, remote, bytes, rank);
}
