/* The data operations of core/rma.h: each decides once, by rma_here,
 * between the node's mapping (transport/shm) and the protocol
 * (transport/am). Their contracts are in the header. */
#include "core/rma.h"
#include "transport/am/am.h"
#include "transport/shm/shm_ops.h"

#include <string.h>

uint64_t rma_put_nb(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        shm_copy(here, src, bytes);
        return 0;
    }
    return am_put_nbi(rank, src, raddr, bytes);
}

void rma_put(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL))
        shm_copy(here, src, bytes);
    else
        am_put(rank, src, raddr, bytes);
}

uint64_t rma_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        shm_copy(dst, here, bytes);
        return 0;
    }
    return am_get_nb(rank, raddr, dst, bytes);
}

void rma_complete(int rank, uint64_t ticket)
{
    if (ticket != 0 && rma_remote(rank))
        am_complete(rank, ticket);
}

int rma_test(int rank, uint64_t ticket)
{
    return ticket == 0 || !rma_remote(rank) || am_test(rank, ticket);
}

void rma_get(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    if (unlikely(bytes == 0))
        return;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL))
        shm_copy(dst, here, bytes);
    else
        am_get(rank, raddr, dst, bytes);
}

uint64_t rma_acc_nb(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr, size_t bytes)
{
    if (unlikely(bytes == 0))
        return 0;
    char *here = rma_here(rank, raddr);
    if (likely(here != NULL)) {
        shm_acc(rank, t, scale, src, here, bytes);
        return 0;
    }
    return am_acc_nbi(rank, t, scale, src, raddr, bytes);
}

void rma_acc(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr, size_t bytes)
{
    rma_complete(rank, rma_acc_nb(rank, t, scale, src, raddr, bytes));
}

void rma_xfer(xfer_t op, int rank, reach_type_t t, const void *scale, const void *local, uintptr_t raddr, size_t bytes)
{
    if (op == XFER_PUT)
        rma_put(rank, local, raddr, bytes);
    else if (op == XFER_GET)
        rma_get(rank, raddr, (void *)local, bytes);
    else
        rma_acc(rank, t, scale, local, raddr, bytes);
}

int64_t rma_atomic(int rank, uintptr_t raddr, int width, amo_op_t op, int64_t a, int64_t b)
{
    char *here = rma_here(rank, raddr);
    int64_t old = here ? shm_atomic(rank, here, width, op, a, b) : am_atomic(rank, raddr, width, op, a, b);
    return width == 4 ? (int32_t)old : old;
}

uint64_t rma_strided_nb(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *plan,
                        const void *local, uintptr_t raddr)
{
    char *here = rma_here(rank, raddr);
    if (here == NULL)
        return am_strided(op, rank, t, scale, plan, local, raddr);
    if (op == XFER_GET)
        shm_strided_copy(plan, here, (char *)local);
    else if (op == XFER_PUT)
        shm_strided_copy(plan, local, here);
    else
        shm_strided_acc(rank, t, scale, plan, local, here);
    return 0;
}

void rma_strided(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *plan, const void *local,
                 uintptr_t raddr)
{
    rma_complete(rank, rma_strided_nb(op, rank, t, scale, plan, local, raddr));
}

void rma_copy_strided(const reach_strided_t *plan, const void *src, void *dst)
{
    shm_strided_copy(plan, src, dst);
}

uint64_t rma_vector_nb(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v, size_t n)
{
    if (rma_remote(rank))
        return am_vector(op, rank, t, scale, v, n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < v[i].count && v[i].bytes > 0; j++) {
            int get = op == XFER_GET;
            rma_xfer(op, rank, t, scale, get ? v[i].dst[j] : v[i].src[j], (uintptr_t)(get ? v[i].src[j] : v[i].dst[j]),
                     v[i].bytes);
        }
    return 0;
}

void rma_fence(int rank)
{
    atom_fence_seq_cst();
    if (rma_remote(rank))
        am_flush(rank);
}

void rma_flush_local_all(void)
{
    if (rt.node_count > 1)
        am_flush_local_all();
}

void rma_fence_all(void)
{
    atom_fence_seq_cst();
    am_flush_all();
}

void rma_flush_all(void)
{
    am_flush_all();
}

void rma_flush_local(int rank)
{
    if (rma_remote(rank))
        am_flush_local(rank);
}

/* ---- the runtime's own words ---------------------------------------------------- */

uint64_t rma_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b)
{
    char *here = rma_here(rank, raddr);
    return here ? word_apply(here, op, a, b) : am_word(rank, raddr, op, a, b);
}

uint64_t rma_word_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b)
{
    char *here = rma_here(rank, raddr);
    if (here == NULL)
        return am_amo(rank, raddr, cas, a, b);
    return word_apply(here, cas ? WORD_CAS64 : WORD_ADD64, a, b);
}

void rma_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word)
{
    if (rma_remote(rank)) {
        am_signal(rank, src, raddr, bytes, word);
        return;
    }
    if (bytes > 0)
        memcpy(rma_here(rank, raddr), src, bytes);
    waitword_add((waitword_t *)(void *)rma_here(rank, word), 1);
}

void rma_wait_signal(waitword_t *ww, uint32_t target, int from)
{
    if (rma_remote(from))
        am_wait_signal(ww, target);
    else
        waitword_wait_count(ww, target);
}
