/* The calls of core/rma.h: the network's side of its inline operations
 * (rma_net_, the protocol's calls), and the operations whose node side is
 * a call too, which decide once, by rma_here, between the node's mapping
 * (transport/shm) and the protocol (transport/am). */
#include "core/rma.h"
#include "transport/am/am.h"
#include "transport/shm/shm_ops.h"

#include <string.h>

uint64_t rma_net_put_nb(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    return am_put_nbi(rank, src, raddr, bytes);
}

void rma_net_put(int rank, const void *src, uintptr_t raddr, size_t bytes)
{
    am_put(rank, src, raddr, bytes);
}

uint64_t rma_net_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    return am_get_nb(rank, raddr, dst, bytes);
}

void rma_net_get(int rank, uintptr_t raddr, void *dst, size_t bytes)
{
    am_get(rank, raddr, dst, bytes);
}

void rma_net_flush(int rank)
{
    am_flush(rank);
}

void rma_net_release(void)
{
    am_release();
}

uint64_t rma_net_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b)
{
    return am_word(rank, raddr, op, a, b);
}

uint64_t rma_net_word_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b)
{
    return am_amo(rank, raddr, cas, a, b);
}

void rma_net_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word)
{
    am_signal(rank, src, raddr, bytes, word);
}

void rma_net_wait_signal(waitword_t *ww, uint32_t target)
{
    am_wait_signal(ww, target);
}

void rma_net_complete(int rank, uint64_t ticket)
{
    am_complete(rank, ticket);
}

int rma_net_test(int rank, uint64_t ticket)
{
    return am_test(rank, ticket);
}

uint64_t rma_net_acc_nb(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr, size_t bytes)
{
    return am_acc_nbi(rank, t, scale, src, raddr, bytes);
}

int64_t rma_net_atomic(int rank, uintptr_t raddr, int width, amo_op_t op, int64_t a, int64_t b)
{
    return am_atomic(rank, raddr, width, op, a, b);
}

void rma_node_acc(int rank, reach_type_t t, const void *scale, const void *src, char *here, size_t bytes)
{
    shm_acc(rank, t, scale, src, here, bytes);
}

int64_t rma_node_atomic(int rank, char *here, int width, amo_op_t op, int64_t a, int64_t b)
{
    return shm_atomic(rank, here, width, op, a, b);
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

void rma_flush_local_all(void)
{
    if (rt.node_count > 1)
        am_flush_local_all();
}

void rma_progress(void)
{
    if (rt.node_count > 1)
        am_progress();
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
