/* Deferred window epochs (Santhanaraman08's baseline, docs/references.md):
 * nothing leaves the origin before unlock. Operations are queued (puts and accumulates
 * copied) in one message: a win_epoch_t, then per operation a win_op_t and
 * its data. At unlock (or flush) the lock, the operations and the release
 * go together: on the node the origin does the three steps itself; to
 * another node the message goes to the target's server, which takes the
 * lock on the origin's behalf (retrying while others hold it), applies the
 * operations and answers with the gets' data. */
#include "base/acc.h"
#include "core/rma.h"
#include "core/service.h"
#include "sync/window.h"

#include <stdlib.h>
#include <string.h>

static int win_id_epoch; /* the server's handler of an epoch */

/* Applies the operations of epoch e to rank's memory (this process's, or
 * one mapped here), writing the gets' data and atomics' old values to out. */
static void win_epoch_apply(int rank, const win_epoch_t *e, char *out)
{
    const char *p = (const char *)(e + 1);
    for (uint64_t i = 0; i < e->nops; i++) {
        const win_op_t *op = (const win_op_t *)(const void *)p;
        p += sizeof *op;
        if (op->kind == WIN_OP_GET) {
            rma_get(rank, op->addr, out, op->bytes);
            out += op->bytes;
        } else if (op->kind == WIN_OP_ATOMIC) {
            int64_t old = rma_atomic(rank, op->addr, (int)op->bytes, (amo_op_t)op->atomic, op->u.arg[0], op->u.arg[1]);
            int32_t old32 = (int32_t)old;
            memcpy(out, op->bytes == 4 ? (void *)&old32 : (void *)&old, op->bytes);
            out += op->bytes;
        } else {
            rma_xfer(op->kind, rank, (reach_type_t)op->type, op->u.scale, p, op->addr, op->bytes);
            p += win_round8(op->bytes);
        }
    }
}

/* The server's side: one attempt at the lock (t->state: an exclusive
 * request already counts as waiting), then the operations, the release if
 * asked, and the gets' data in the answer. 0 while the lock is held by
 * others: the server tries again. */
static int win_serve_epoch(svc_target_t *t)
{
    const win_epoch_t *e = t->data;
    if ((e->flags & WIN_ACQUIRE) && !win_try(rt.rank, e->word, (int)e->mode, &t->state))
        return 0;
    win_epoch_apply(rt.rank, e, svc_answer(t, e->get_bytes));
    if (e->flags & WIN_RELEASE)
        win_unlock_word(rt.rank, e->word, (int)e->mode);
    return 1;
}

void window_register(void)
{
    win_id_epoch = svc_handler(win_serve_epoch, 0);
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
        rt_oom("deferred window epoch", c * unit);
    *cap = c;
    return q;
}

void win_queue_start(win_queue_t *q, uintptr_t word, int mode)
{
    q->msg = win_grow(q->msg, &q->cap, sizeof(win_epoch_t), 1);
    *(win_epoch_t *)(void *)q->msg = (win_epoch_t){.word = word, .mode = (uint32_t)mode};
    q->len = sizeof(win_epoch_t);
    q->ngets = 0;
}

win_op_t *win_queue_op(win_queue_t *q, int kind, reach_type_t type, const void *scale, const void *data, void *answer,
                       uintptr_t addr, size_t bytes)
{
    size_t data_len = win_op_answers(kind) ? 0 : win_round8(bytes);
    q->msg = win_grow(q->msg, &q->cap, q->len + sizeof(win_op_t) + data_len, 1);
    win_op_t *op = (win_op_t *)(void *)(q->msg + q->len);
    *op = (win_op_t){.kind = (uint8_t)kind, .type = (uint8_t)type, .addr = addr, .bytes = bytes};
    if (kind == WIN_OP_ACC)
        memcpy(op->u.scale, scale, acc_elem_size(type)); /* the scale is one element */
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

void win_queue_send(win_queue_t *q, int rank, int release)
{
    win_epoch_t *e = (win_epoch_t *)(void *)q->msg;
    e->flags = (q->acquired ? 0 : WIN_ACQUIRE) | (release ? WIN_RELEASE : 0);
    char *gets = q->gets = win_grow(q->gets, &q->capbytes, e->get_bytes ? e->get_bytes : 1, 1);
    if (rma_remote(rank)) {
        svc_call(rank, win_id_epoch, 0, 0, 0, q->msg, q->len, 1, gets, e->get_bytes);
    } else {
        /* On this node the same steps, done here. */
        if (e->flags & WIN_ACQUIRE)
            win_lock_word(rank, e->word, (int)e->mode);
        win_epoch_apply(rank, e, gets);
        atom_fence_seq_cst();
        if (release)
            win_unlock_word(rank, e->word, (int)e->mode);
    }
    char *p = gets;
    for (size_t i = 0; i < q->ngets; i++) {
        memcpy(q->get_dst[i], p, q->get_len[i]);
        p += q->get_len[i];
    }
    q->acquired = !release;
    win_queue_start(q, e->word, (int)e->mode);
}

void win_queue_free(win_queue_t *q)
{
    free(q->msg);
    free(q->get_dst);
    free(q->get_len);
    free(q->gets);
}
