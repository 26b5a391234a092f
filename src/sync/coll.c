/* The group collectives' calls (sync/calls.h): reach_sync_group,
 * reach_allreduce, reach_reduce and reach_bcast check their arguments, find
 * their scope's collective (coll_setup.c) and run its algorithm
 * (coll_algo.c). */
#include "sync/coll.h"
#include "core/group.h"
#include "core/rma.h"
#include "base/acc.h"
#include "base/reduce.h"
#include "base/wait.h"
#include "sync/calls.h"
#include "sync/sync.h"

#include <stdlib.h>

/* Each member passes a buffer of its own, so one member's NULL cannot be
 * refused on every member alike: refusing it here would leave the others
 * waiting for this one forever. It ends the job instead. */
static void coll_need_buffer(const char *call, const void *buf)
{
    if (buf == NULL)
        rt_fatal("%s: the buffer is NULL (the other members would wait for this one)", call);
}

static void coll_begin(void)
{
    atom_fence_seq_cst();
    rt_order_release();
    wait_for(WAIT_BARRIER, -1, 0, 0);
}

int coll_sync_group(reach_group_t *g, reach_scope_t scope)
{
    int st;
    coll_t *c = coll_of("reach_sync_group", &g, scope, &st);
    if (c == NULL)
        return st;
    if (g == &group_world && scope == REACH_SCOPE_ALL) {
        sync_barrier_only();
        return REACH_SUCCESS;
    }
    coll_begin();
    coll_barrier(c);
    wait_done();
    rma_count(REACH_OP_BARRIER, rt.rank, 0);
    return REACH_SUCCESS;
}

static int coll_reduction(const char *call, reach_group_t *g, reach_scope_t scope, void *buf, size_t count,
                          reach_type_t type, reach_reduce_op_t op, int all)
{
    int st;
    coll_t *c = coll_of(call, &g, scope, &st);
    if (st != REACH_SUCCESS)
        return st;
    if (type < REACH_INT || type > REACH_DOUBLE)
        return rt_error(REACH_ERR_TYPE, call, "type %d is not REACH_INT, _LONG, _FLOAT or _DOUBLE", (int)type);
    reduce_fn *kernel = reduce_kernel(type, op);
    if (kernel == NULL)
        return rt_error(REACH_ERR_ARG, call, "operation %d does not apply to type %d", (int)op, (int)type);
    size_t es = acc_elem_size(type);
    if (count > SIZE_MAX / es)
        return rt_error(REACH_ERR_ARG, call, "count %zu is too large", count);
    if (c == NULL || count == 0)
        return REACH_SUCCESS;
    coll_need_buffer(call, buf);
    if (!all && c->acc == NULL && !(c->acc = malloc(c->chunk)))
        rt_oom(call, c->chunk);
    coll_begin();
    if (all && count * es <= COLL_XSLOT)
        coll_exchange(c, buf, count, es, kernel);
    else if (all)
        coll_halving(c, buf, count, es, kernel);
    else
        coll_reduce(c, buf, count, es, kernel);
    wait_done();
    return REACH_SUCCESS;
}

int coll_allreduce(reach_group_t *g, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                   reach_reduce_op_t op)
{
    return coll_reduction("reach_allreduce", g, scope, buf, count, type, op, 1);
}

int coll_reduce_root(reach_group_t *g, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                     reach_reduce_op_t op)
{
    return coll_reduction("reach_reduce", g, scope, buf, count, type, op, 0);
}

int coll_bcast(reach_group_t *g, reach_scope_t scope, void *buf, size_t bytes, int root)
{
    const char *call = "reach_bcast";
    int st;
    coll_t *c = coll_of(call, &g, scope, &st);
    if (st != REACH_SUCCESS)
        return st;
    if (c == NULL)
        return REACH_SUCCESS;
    int b = 0;
    while (b < c->n && c->rank[b] != root)
        b++;
    if (b == c->n)
        return rt_error(REACH_ERR_RANK, call, "root %d is not a member of the scope", root);
    if (bytes == 0)
        return REACH_SUCCESS;
    coll_need_buffer(call, buf);
    coll_begin();
    for (size_t off = 0; off < bytes; off += c->chunk)
        coll_bcast_chunk(c, (char *)buf + off, bytes - off < c->chunk ? bytes - off : c->chunk, b);
    wait_done();
    return REACH_SUCCESS;
}
