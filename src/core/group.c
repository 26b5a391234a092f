#include "core/group.h"
#include "base/handle.h"
#include "transport/shm/shm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_MAGIC 0x47525550u /* "GRUP" */

reach_group_t group_world;
static handle_pool_t group_pool;
static int (*group_made)(reach_group_t *);
static void (*group_freeing)(reach_group_t *);
static int (*group_coll_allreduce)(reach_group_t *, reach_scope_t, void *, size_t, reach_type_t, reach_reduce_op_t);
static int (*group_coll_sync)(reach_group_t *, reach_scope_t);

void group_on_make(int (*made)(reach_group_t *), void (*freeing)(reach_group_t *))
{
    group_made = made;
    group_freeing = freeing;
}

void group_on_coll(int (*allreduce)(reach_group_t *, reach_scope_t, void *, size_t, reach_type_t, reach_reduce_op_t),
                   int (*sync)(reach_group_t *, reach_scope_t))
{
    group_coll_allreduce = allreduce;
    group_coll_sync = sync;
}

/* Fills g from its communicator: member ranks, node and masters splits. */
static int group_build(reach_group_t *g, boot_comm_t *comm)
{
    memset(g, 0, sizeof *g);
    g->comm = comm;
    g->rank = boot_comm_rank(comm);
    g->size = boot_comm_size(comm);
    g->world = malloc(sizeof(int) * (size_t)g->size);
    if (!g->world)
        rt_oom("group", sizeof(int) * (size_t)g->size);
    boot_allgather(comm, &rt.rank, sizeof rt.rank, g->world);
    /* Nodes as reach sees them, so that a split of the job into "nodes"
     * for testing shows here too. */
    g->node_comm = boot_comm_split(comm, rt.node, g->rank);
    g->masters_comm = boot_comm_split(comm, boot_comm_rank(g->node_comm) == 0 ? 0 : -1, g->rank);
    g->magic = GROUP_MAGIC;
    return REACH_SUCCESS;
}

static void group_release(reach_group_t *g)
{
    g->magic = 0;
    boot_comm_free(g->node_comm);
    boot_comm_free(g->masters_comm);
    if (g->comm != rt.comm)
        boot_comm_free(g->comm);
    g->comm = g->node_comm = g->masters_comm = NULL;
    free(g->world);
    g->world = NULL;
}

int group_init_world(void)
{
    int st = group_build(&group_world, rt.comm);
    return st == REACH_SUCCESS && group_made ? group_made(&group_world) : st;
}

void group_finalize_world(void)
{
    group_release(&group_world);
}

int group_check(const char *call, const reach_group_t *g)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (g == NULL || g->magic != GROUP_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "group %p is not a live group of this process", (const void *)g);
    return REACH_SUCCESS;
}

void group_barrier(reach_group_t *g)
{
    /* The world's barrier on one node is the node barrier, which sleeps
     * rather than polls; other groups, and the world across nodes, use MPI
     * (set-up only: allocation uses group_sync). */
    rt_order_release();
    if (g == &group_world && rt.node_count == 1)
        shm_node_barrier();
    else
        boot_comm_barrier(g->comm);
    rt_order_acquire();
}

_Static_assert(sizeof(long) == sizeof(long long), "group_allreduce_long passes longs to MPI as long longs");

void group_allreduce_long(reach_group_t *g, reach_scope_t scope, long *buf, size_t count, reach_reduce_op_t op)
{
    if (count == 0)
        return;
    if (g->coll != NULL && group_coll_allreduce != NULL) {
        int st = group_coll_allreduce(g, scope, buf, count, REACH_LONG, op);
        if (st != REACH_SUCCESS)
            rt_fatal("a collective allocation's reduction failed (%d)", st);
        return;
    }
    if (count > INT_MAX)
        rt_fatal("a collective allocation's reduction of %zu values", count);
    long *out = malloc(sizeof(long) * count);
    if (!out)
        rt_oom("group", sizeof(long) * count);
    boot_allreduce(scope == REACH_SCOPE_NODE ? g->node_comm : g->comm,
                   op == REACH_REDUCE_SUM ? BOOT_ULL_SUM : BOOT_LL_MAX, buf, out, (int)count);
    memcpy(buf, out, sizeof(long) * count);
    free(out);
}

void group_sync(reach_group_t *g)
{
    if (g->coll != NULL && group_coll_sync != NULL)
        group_coll_sync(g, REACH_SCOPE_ALL);
    else
        group_barrier(g);
}

/* Wraps a new communicator (or none) into *out. */
static int group_adopt(boot_comm_t *comm, reach_group_t **out)
{
    *out = NULL;
    if (comm == NULL)
        return REACH_SUCCESS;
    reach_group_t *g = handle_new(&group_pool, sizeof *g);
    if (!g)
        rt_oom("group", sizeof *g);
    group_build(g, comm);
    int st = group_made ? group_made(g) : REACH_SUCCESS;
    if (st != REACH_SUCCESS) {
        group_release(g);
        handle_retire(&group_pool, g);
        return st;
    }
    *out = g;
    return REACH_SUCCESS;
}

int group_create(reach_group_t *parent, int n, const int *members, reach_group_t **out)
{
    return group_adopt(boot_comm_create(parent->comm, n, members), out);
}

int group_split(reach_group_t *parent, int color, int key, reach_group_t **out)
{
    return group_adopt(boot_comm_split(parent->comm, color, key), out);
}

int group_dup(reach_group_t *parent, reach_group_t **out)
{
    return group_adopt(boot_comm_dup(parent->comm), out);
}

void group_free(reach_group_t *g)
{
    if (group_freeing)
        group_freeing(g);
    group_release(g);
    handle_retire(&group_pool, g);
}
