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
 * This file makes and frees windows and holds the checks of a window and
 * of an epoch that the calls share; the epochs are opened, flushed and
 * closed in window_epoch.c, and the operations in an epoch are issued in
 * window_ops.c, through core/rma.h. */
#include "base/arena.h"
#include "base/handle.h"
#include "core/group.h"
#include "core/mem.h"
#include "sync/calls.h"
#include "sync/window.h"

#include <stdlib.h>
#include <string.h>

static reach_win_t *live; /* released at finalize */
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

static int win_make(const char *call, void *base, size_t bytes, int allocated, reach_win_t **out)
{
    int st = REACH_SUCCESS;
    if (out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the output pointer is NULL");
    else if (bytes > 0 && !seg_table_contains(&rt.peers[rt.rank].segs, (uintptr_t)base, bytes))
        st = rt_error(REACH_ERR_RANGE, call, "[%p, +%zu) is not inside this rank's reach memory", base, bytes);
    int lo, hi;
    if (!boot_all_same(rt.comm, rt.cfg.win_sync, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks chose different epoch modes (REACH_WIN_SYNC)");
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
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
        w->removals[r] = rt.peers[r].segs.removals; /* each rank checked its own range above */
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
    group_barrier(&group_world); /* every lock word is zero before anyone locks */
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
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
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
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_EPOCH;
    st = mem_free_collective(call, &group_world, w->word_block, 0);
    if (w->allocated && st == REACH_SUCCESS)
        st = mem_free_collective(call, &group_world, w->mine, 1);
    HANDLE_UNLINK(&live, w, next_live);
    win_release_struct(w);
    return st;
}
