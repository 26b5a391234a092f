#include "core/mem.h"
#include "base/handle.h"
#include "transport/shm/shm.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One collective allocation as this process knows it. */
typedef struct mem_alloc {
    long long id; /* the same on every member (agreed at allocation) */
    reach_group_t *group;
    void *mine; /* this rank's block, NULL if it asked for 0 */
    int members;
    int *world;       /* member number -> job-wide rank */
    uintptr_t *bases; /* every member's block */
    size_t *lens;     /* every member's length */
    int user;
    struct mem_alloc *next;
} mem_alloc_t;

static mem_alloc_t *allocs;

int mem_alloc_collective(const char *call, reach_group_t *g, size_t bytes, void *bases[], int user)
{
    int st = REACH_SUCCESS;
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");

    /* The node's members allocate at once: check their sum against what
     * the node has, so that the answer is the same everywhere. The freed
     * blocks they keep committed count as free: a member that finds the
     * node short without them gives its own back. What the node has is
     * read before the reduction, so before any member gives back. */
    size_t avail = shm_available();
    long node[2] = {bytes > PTRDIFF_MAX ? 0 : (long)bytes, (long)shm_cache_bytes()}; /* (too large: refused below) */
    group_allreduce_long(g, REACH_SCOPE_NODE, node, 2, REACH_REDUCE_SUM);
    long node_total = node[0];
    if ((size_t)node_total > avail) {
        shm_cache_flush();
        avail += (size_t)node[1];
    }
    if (bytes > PTRDIFF_MAX)
        st = rt_error(REACH_ERR_ARG, call, "size %zu is too large (a negative size?)", bytes);
    else if (bases == NULL && user)
        st = rt_error(REACH_ERR_ARG, call, "the array of base addresses is NULL");
    else if ((size_t)node_total > avail) {
        char a[32], h[32], v[32];
        int here = boot_comm_size(g->node_comm);
        st = rt_error(REACH_ERR_NOMEM, call,
                      "shared memory is short: the %d processes of this node asked %s (%s here), "
                      "%s are available",
                      here, rt_size_str(a, sizeof a, (size_t)node_total), rt_size_str(h, sizeof h, bytes),
                      rt_size_str(v, sizeof v, avail));
    }

    void *mine = NULL;
    if (st == REACH_SUCCESS && bytes > 0)
        st = shm_alloc(call, bytes, SHM_BLOCK_COLLECTIVE, &mine);
    /* One reduction (a maximum) agrees on success and on the allocation's
     * id, and gathers every member's block: whether any member failed; the
     * highest next id of any member, so that ids match across the group
     * although members take part in different groups' allocations; then
     * each member's base and length, the others' slots zero. */
    size_t nv = 2 + 2 * (size_t)g->size;
    long *v = calloc(nv, sizeof(long));
    mem_alloc_t *a = calloc(1, sizeof *a);
    if (!v || !a)
        rt_oom(call, sizeof(long) * nv);
    v[0] = st != REACH_SUCCESS;
    v[1] = rt.alloc_seq;
    v[2 + 2 * g->rank] = (long)(uintptr_t)mine;
    v[3 + 2 * g->rank] = (long)bytes;
    group_allreduce_long(g, REACH_SCOPE_ALL, v, nv, REACH_REDUCE_MAX);
    if (v[0]) {
        if (mine)
            shm_free(mine, SHM_BLOCK_COLLECTIVE);
        free(v);
        free(a);
        return st != REACH_SUCCESS ? st : REACH_ERR_NOMEM;
    }
    const long *all = v + 2;
    a->members = g->size;
    a->world = malloc(sizeof(int) * (size_t)g->size);
    a->bases = malloc(sizeof(uintptr_t) * (size_t)g->size);
    a->lens = malloc(sizeof(size_t) * (size_t)g->size);
    if (!a->world || !a->bases || !a->lens)
        rt_oom(call, sizeof(uintptr_t) * (size_t)g->size);
    for (int i = 0; i < g->size; i++) {
        a->world[i] = g->world[i];
        a->bases[i] = (uintptr_t)all[2 * i];
        a->lens[i] = (size_t)all[2 * i + 1];
        if (bases)
            bases[i] = (void *)a->bases[i];
        if (user && a->lens[i] > 0 &&
            seg_table_insert(&rt.peers[a->world[i]].segs, a->bases[i], a->bases[i] + a->lens[i]) != 0)
            rt_oom(call, sizeof(seg_range_t));
    }
    a->id = v[1];
    rt.alloc_seq = v[1] + 1;
    free(v);
    a->group = g;
    a->mine = mine;
    a->user = user;
    a->next = allocs;
    allocs = a;
    rt.stats.allocations++;
    return REACH_SUCCESS;
}

static void mem_release(mem_alloc_t *a)
{
    for (int i = 0; i < a->members && a->user; i++)
        if (a->lens[i] > 0)
            seg_table_remove(&rt.peers[a->world[i]].segs, a->bases[i]);
    if (a->mine)
        shm_free(a->mine, SHM_BLOCK_COLLECTIVE);
    free(a->world);
    free(a->bases);
    free(a->lens);
    free(a);
}

int mem_free_collective(const char *call, reach_group_t *g, void *base, int user)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    /* A rank that passes NULL had no block; it learns which allocation is
     * meant from the ranks that did. */
    mem_alloc_t *found = NULL;
    for (mem_alloc_t *a = allocs; base && a; a = a->next)
        if (a->mine == base && a->user == user && a->group == g)
            found = a;
    int st = REACH_SUCCESS;
    if (base && !found)
        st = rt_error(REACH_ERR_ARG, call, "%p is not the base of a live collective allocation", base);
    long v[2] = {found ? found->id : -1, found ? -found->id : LONG_MIN};
    group_allreduce_long(g, REACH_SCOPE_ALL, v, 2, REACH_REDUCE_MAX);
    long id_max = v[0];
    if (st == REACH_SUCCESS && id_max >= 0 && -v[1] != id_max)
        st = rt_error(REACH_ERR_ARG, call, "ranks passed blocks of different allocations");
    if (st == REACH_SUCCESS && !found) {
        /* Every rank that passed NULL: the agreed allocation, or, if all
         * passed NULL, the oldest allocation in which every block is empty. */
        for (mem_alloc_t *a = allocs; a; a = a->next) {
            int empty = 1;
            for (int i = 0; i < a->members && empty; i++)
                empty = a->lens[i] == 0;
            if (a->user == user && a->group == g && (id_max >= 0 ? a->id == id_max : empty))
                found = a;
        }
        if (!found)
            st = rt_error(REACH_ERR_ARG, call, "NULL names no allocation in which this rank has no block");
        else if (found->lens[g->rank] != 0)
            st = rt_error(REACH_ERR_ARG, call, "NULL passed, but this rank's block of the allocation is %p",
                          (void *)found->bases[g->rank]);
    }
    long failed = st != REACH_SUCCESS;
    group_allreduce_long(g, REACH_SCOPE_ALL, &failed, 1, REACH_REDUCE_MAX);
    if (failed)
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;

    /* Nobody may reuse the memory while a member still works on it. */
    group_sync(g);
    HANDLE_UNLINK(&allocs, found, next);
    mem_release(found);
    return REACH_SUCCESS;
}

void mem_release_all(void)
{
    while (allocs) {
        mem_alloc_t *a = allocs;
        allocs = a->next;
        mem_release(a);
    }
}

int mem_alloc_local(const char *call, size_t bytes, void **ptr)
{
    return shm_alloc(call, bytes, SHM_BLOCK_LOCAL, ptr);
}

int mem_free_local(void *ptr)
{
    return shm_free(ptr, SHM_BLOCK_LOCAL);
}
