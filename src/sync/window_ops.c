/* The operations in a window epoch: contiguous puts, gets and
 * accumulates, their strided and vector forms, and the typed atomics. Each
 * checks its range inside the target's window, then is issued at once
 * through core/rma.h (direct) or queued for the epoch's message
 * (deferred, window_deferred.c). */
#include "base/acc.h"
#include "base/strided.h"
#include "core/rma.h"
#include "sync/calls.h"
#include "sync/window.h"

#include <string.h>

/* Checks an operation of bytes at disp on rank's window (and, if rank's
 * memory was freed anywhere since the last look, that the window's range
 * is still reach memory); *remote gets the target address. */
static inline int win_op_check(const char *call, reach_win_t *w, size_t disp, size_t bytes, int rank, const void *buf,
                               const char *what, void **remote)
{
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS)
        st = rt_check_local(call, buf, bytes, what);
    if (st != REACH_SUCCESS)
        return st;
    if (disp > w->size[rank] || bytes > w->size[rank] - disp)
        return rt_error(REACH_ERR_RANGE, call, "[%zu, +%zu) is outside rank %d's window of %zu bytes", disp, bytes,
                        rank, w->size[rank]);
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
    int st = win_op_check(call, w, disp, bytes, rank, local, op == XFER_GET ? "destination" : "source", &remote);
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
        rma_put_nb(rank, local, (uintptr_t)remote, bytes); /* completed by flush_local, flush or unlock */
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

int win_acc(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp, size_t bytes, int rank)
{
    return win_xfer("reach_win_acc", XFER_ACC, w, type, scale, src, disp, bytes, rank);
}

/* ---- strided, vector and atomic operations in an epoch -------------------------- */

static int win_strided(const char *call, int kind, reach_win_t *w, reach_type_t type, const void *scale,
                       const void *local, size_t disp, const reach_strided_t *shape, int rank)
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
        win_queue_op(&w->queue[rank], kind, type, scale, get ? NULL : l, get ? (void *)l : NULL, r, plan.count[0]);
    } while (strided_next(&it, &plan));
    return REACH_SUCCESS;
}

int win_put_strided(reach_win_t *w, const void *src, size_t disp, const reach_strided_t *shape, int rank)
{
    return win_strided("reach_win_put_strided", WIN_OP_PUT, w, REACH_INT, NULL, src, disp, shape, rank);
}

int win_get_strided(reach_win_t *w, void *dst, size_t disp, const reach_strided_t *shape, int rank)
{
    return win_strided("reach_win_get_strided", WIN_OP_GET, w, REACH_INT, NULL, dst, disp, shape, rank);
}

int win_acc_strided(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp,
                    const reach_strided_t *shape, int rank)
{
    return win_strided("reach_win_acc_strided", WIN_OP_ACC, w, type, scale, src, disp, shape, rank);
}

/* A vector in an epoch: the remote side of each pair is a displacement in
 * rank's window. Every pair is checked before anything is issued. */
static int win_vector(const char *call, int kind, reach_win_t *w, reach_type_t type, const void *scale,
                      const reach_vector_t *v, size_t n, int rank)
{
    int st = win_check_epoch(call, w, rank, 1);
    if (st == REACH_SUCCESS && v == NULL && n > 0)
        st = rt_error(REACH_ERR_ARG, call, "the descriptors are NULL");
    for (size_t i = 0; st == REACH_SUCCESS && i < n; i++)
        for (size_t j = 0; st == REACH_SUCCESS && j < v[i].count; j++) {
            void *remote = NULL;
            const void *local = kind == WIN_OP_GET ? v[i].dst[j] : v[i].src[j];
            size_t disp = (size_t)(uintptr_t)(kind == WIN_OP_GET ? v[i].src[j] : v[i].dst[j]);
            st = win_op_check(call, w, disp, v[i].bytes, rank, local, kind == WIN_OP_GET ? "destination" : "source",
                              &remote);
            if (st == REACH_SUCCESS && kind == WIN_OP_ACC)
                st = acc_check(call, type, scale, remote, v[i].bytes);
        }
    for (size_t i = 0; st == REACH_SUCCESS && i < n; i++)
        for (size_t j = 0; st == REACH_SUCCESS && j < v[i].count; j++) {
            int get = kind == WIN_OP_GET;
            uintptr_t remote = w->base[rank] + (uintptr_t)(get ? v[i].src[j] : v[i].dst[j]);
            if (w->deferred)
                win_queue_op(&w->queue[rank], kind, type, scale, get ? NULL : v[i].src[j], get ? v[i].dst[j] : NULL,
                             remote, v[i].bytes);
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

int win_acc_vector(reach_win_t *w, reach_type_t type, const void *scale, const reach_vector_t *v, size_t n, int rank)
{
    return win_vector("reach_win_acc_vector", WIN_OP_ACC, w, type, scale, v, n, rank);
}

/* A typed atomic at disp (width 4 or 8); deferred, *old is filled when
 * the epoch's operations complete (flush or unlock). */
static int win_atomic(const char *call, reach_win_t *w, size_t disp, int width, int op, int64_t a, int64_t b, void *old,
                      int rank)
{
    void *remote = NULL;
    int st = win_op_check(call, w, disp, (size_t)width, rank, old, "old", &remote);
    if (st == REACH_SUCCESS && old == NULL)
        st = rt_error(REACH_ERR_ARG, call, "old is NULL");
    if (st == REACH_SUCCESS && ((uintptr_t)remote & (uintptr_t)(width - 1)) != 0)
        st =
            rt_error(REACH_ERR_ALIGN, call, "target %p (displacement %zu) is not %d-byte aligned", remote, disp, width);
    if (st != REACH_SUCCESS)
        return st;
    if (!w->deferred) {
        rma_count(REACH_OP_ATOMIC, rank, (size_t)width);
        int64_t o = rma_atomic(rank, (uintptr_t)remote, width, (amo_op_t)op, a, b);
        int32_t o32 = (int32_t)o;
        memcpy(old, width == 4 ? (void *)&o32 : (void *)&o, (size_t)width);
        return REACH_SUCCESS;
    }
    win_op_t *q =
        win_queue_op(&w->queue[rank], WIN_OP_ATOMIC, REACH_INT, NULL, NULL, old, (uintptr_t)remote, (size_t)width);
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

int win_cas_i32(reach_win_t *w, size_t disp, int32_t compare, int32_t value, int32_t *old, int rank)
{
    return win_atomic("reach_win_cas_i32", w, disp, 4, AMO_CAS, compare, value, old, rank);
}

int win_cas_i64(reach_win_t *w, size_t disp, int64_t compare, int64_t value, int64_t *old, int rank)
{
    return win_atomic("reach_win_cas_i64", w, disp, 8, AMO_CAS, compare, value, old, rank);
}
