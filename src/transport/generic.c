/* Strided and vector transfers over any transport's contiguous entries. */
#include "transport/transport.h"

int net_strided_direct(int op, int rank, reach_type_t t, const void *scale,
                       const reach_strided_t *p, const char *local, uintptr_t raddr)
{
    const int L = p->levels;
    /* For a get the remote side is the source, else the destination. */
    const size_t *lstride = op == NET_GET ? p->dst_stride : p->src_stride;
    const size_t *rstride = op == NET_GET ? p->src_stride : p->dst_stride;
    size_t idx[REACH_MAX_STRIDE_LEVELS + 1] = {0};
    for (;;) {
        int st;
        if (op == NET_PUT)
            st = net->put(rank, local, raddr, p->count[0]);
        else if (op == NET_GET)
            st = net->get(rank, raddr, (char *)local, p->count[0]);
        else
            st = net->acc(rank, t, scale, local, raddr, p->count[0]);
        if (st != REACH_SUCCESS)
            return st;
        int k = 1;
        for (; k <= L; k++) {
            if (++idx[k] < p->count[k]) {
                local += lstride[k - 1];
                raddr += rstride[k - 1];
                break;
            }
            local -= (p->count[k] - 1) * lstride[k - 1];
            raddr -= (p->count[k] - 1) * rstride[k - 1];
            idx[k] = 0;
        }
        if (k > L)
            return REACH_SUCCESS;
    }
}

int net_vector_direct(int op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v,
                      size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < v[i].count && v[i].bytes > 0; j++) {
            size_t b = v[i].bytes;
            int st = op == NET_PUT ? net->put(rank, v[i].src[j], (uintptr_t)v[i].dst[j], b)
                   : op == NET_GET ? net->get(rank, (uintptr_t)v[i].src[j], v[i].dst[j], b)
                                   : net->acc(rank, t, scale, v[i].src[j], (uintptr_t)v[i].dst[j], b);
            if (st != REACH_SUCCESS)
                return st;
        }
    return REACH_SUCCESS;
}
