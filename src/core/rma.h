/* The one place that decides how a rank is reached. */
#ifndef REACH_CORE_RMA_H
#define REACH_CORE_RMA_H
#include "base/state.h"

static inline reach_path_t rt_path(int rank)
{
    if (rank == rt.rank)
        return REACH_PATH_SELF;
    return rt.peers[rank].map ? REACH_PATH_SHM : REACH_PATH_NET;
}
static inline void rt_count(reach_op_kind_t kind, int rank, size_t bytes)
{
    reach_path_t p = rt_path(rank);
    rt.stats.ops[kind][p]++;
    rt.stats.bytes[kind][p] += bytes;
}

/* Validates a remote range of rank and returns its local mapping in *local,
 * or NULL if rank is on another node (reached through transport.h's net).
 * Zero-byte ranges are valid anywhere and map to NULL; callers return
 * before using them. */
static inline int rt_translate(const char *call, int rank, const void *remote,
                               size_t bytes, char **local)
{
    int st = rt_check_rank(call, rank);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    if (unlikely(bytes == 0)) {
        *local = NULL;
        return REACH_SUCCESS;
    }
    const peer_t *p = &rt.peers[rank];
    uintptr_t a = (uintptr_t)remote;
    if (unlikely(!seg_table_contains(&p->segs, a, bytes)))
        return rt_error(REACH_ERR_RANGE, call,
                        "remote range [%p, +%zu) is not inside a segment of rank %d",
                        remote, bytes, rank);
    /* Locality, decided here once: a mapping, or NULL for the network. */
    *local = p->map ? p->map + (a - p->rbase) : NULL;
    return REACH_SUCCESS;
}
#endif
