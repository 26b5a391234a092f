/* Window epochs: reach_win_lock and reach_win_unlock (and their lock_all
 * forms) open and close a passive-target epoch on a rank's window, taking
 * and releasing its lock word at once (direct) or queueing the epoch for
 * unlock (deferred, window_deferred.c); the flushes complete what an
 * epoch issued so far. */
#include "base/wait.h"
#include "core/rma.h"
#include "sync/calls.h"
#include "sync/window.h"

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
        st = rt_error(REACH_ERR_ARG, call, "mode %d is neither REACH_LOCK_SHARED nor REACH_LOCK_EXCLUSIVE", mode);
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
