/* Mutexes, by one of three algorithms chosen per set (REACH_LOCK,
 * reach_set_lock; the papers are cited in docs/references.md):
 *
 * mcs  Buntinas03's software queuing lock (mutex_mcs.h).
 * ticket  Zhang04's ticket lock over two counters (mutex_ticket.h).
 * hybrid  Buntinas03's baseline, ARMCI's original lock (mutex_ticket.h). */
#include "sync/mutex_mcs.h"
#include "sync/mutex_ticket.h"
#include "base/arena.h"
#include "base/handle.h"
#include "core/mem.h"
#include "core/rma.h"
#include "sync/calls.h"
#include "sync/sync.h"

#include <stdlib.h>
#include <string.h>

#define MUTEXES_MAGIC 0x4d555458u /* "MUTX" */

static reach_mutexes_t *sets; /* live sets, destroyed at finalize */
static handle_pool_t set_pool;

static int mutex_check(const char *call, reach_mutexes_t *set, int id, int rank)
{
    int st = rt_check_rank(call, rank);
    if (st != REACH_SUCCESS)
        return st;
    if (set == NULL || set->magic != MUTEXES_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "mutex set %p is not a live set", (void *)set);
    if (id < 0 || id >= set->count[rank])
        return rt_error(REACH_ERR_MUTEX, call, "mutex %d does not exist on rank %d (it hosts %d)", id, rank,
                        set->count[rank]);
    return REACH_SUCCESS;
}

int mutexes_create_group(reach_group_t *g, int count, reach_mutexes_t **out)
{
    const char *call = "reach_mutexes_create";
    int st = group_check(call, g);
    if (st != REACH_SUCCESS)
        return st;
    if (count < 0)
        st = rt_error(REACH_ERR_ARG, call, "count %d is negative", count);
    else if (out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the output pointer is NULL");
    /* Every member must create the set with the same algorithm. */
    int lo, hi;
    if (!boot_all_same(g->comm, rt.cfg.lock, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks chose different lock algorithms");
    if (!boot_all_agree(g->comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;

    reach_mutexes_t *set = handle_new(&set_pool, sizeof *set);
    void **bases = malloc(sizeof(void *) * (size_t)g->size);
    int *counts = malloc(sizeof(int) * (size_t)g->size);
    if (!set || !bases || !counts)
        rt_oom(call, sizeof(int) * (size_t)rt.size);
    set->algorithm = rt.cfg.lock;
    /* mcs: one lock word per cache line; ticket and hybrid: two counters. */
    set->stride = set->algorithm == LOCK_MCS ? CACHE_LINE : ticket_stride();
    st = mem_alloc_collective(call, g, (size_t)count * set->stride, bases, 0);
    if (st != REACH_SUCCESS) {
        handle_retire(&set_pool, set);
        free(bases);
        free(counts);
        return st;
    }
    set->group = g;
    set->mine = bases[g->rank];
    if (set->mine)
        memset(set->mine, 0, (size_t)count * set->stride);
    set->count = calloc((size_t)rt.size, sizeof(int));
    set->first = malloc(sizeof(int) * (size_t)rt.size);
    set->raddr = calloc((size_t)rt.size, sizeof(uintptr_t));
    if (!set->count || !set->first || !set->raddr)
        rt_oom(call, sizeof(int) * (size_t)rt.size);
    boot_allgather(g->comm, &count, sizeof count, counts);
    for (int i = 0; i < g->size; i++) {
        int r = g->world[i];
        set->count[r] = counts[i];
        set->raddr[r] = (uintptr_t)bases[i];
    }
    int total = 0;
    for (int r = 0; r < rt.size; r++) {
        set->first[r] = total;
        total += set->count[r];
    }
    free(bases);
    free(counts);
    set->held = malloc((size_t)total + 1);
    if (!set->held)
        rt_oom(call, sizeof(int) * (size_t)rt.size);
    memset(set->held, -1, (size_t)total + 1);
    set->magic = MUTEXES_MAGIC;
    set->next_set = sets;
    sets = set;
    /* The words are zero everywhere before anyone locks. */
    group_barrier(g);
    *out = set;
    return REACH_SUCCESS;
}

int mutexes_create(int count, reach_mutexes_t **out)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_mutexes_create", "reach is not initialized");
    return mutexes_create_group(&group_world, count, out);
}

static void mutexes_release(reach_mutexes_t *set)
{
    mcs_forget(set);
    set->magic = 0;
    free(set->count);
    free(set->first);
    free(set->raddr);
    free(set->held);
    handle_retire(&set_pool, set);
}

int mutexes_destroy(reach_mutexes_t *set)
{
    const char *call = "reach_mutexes_destroy";
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    /* A handle that is not a live set names no group to agree with. */
    if (set == NULL || set->magic != MUTEXES_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "mutex set %p is not a live set", (void *)set);
    /* A release's add or a link may still be on its way to a lock word:
     * this process's land before the words are freed. */
    rma_flush_all();
    int st = mem_free_collective(call, set->group, set->mine, 0);
    HANDLE_UNLINK(&sets, set, next_set);
    mutexes_release(set);
    return st;
}

void mutex_finalize(void)
{
    while (sets) {
        reach_mutexes_t *s = sets;
        sets = s->next_set;
        mutexes_release(s);
    }
    mcs_reset();
}

int mutex_set_kind(const char *algorithm)
{
    const char *call = "reach_set_lock";
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    int kind;
    if (algorithm == NULL)
        return rt_error(REACH_ERR_ARG, call, "the algorithm is NULL");
    if (config_parse_lock(algorithm, &kind) != 0)
        return rt_error(REACH_ERR_ARG, call, "\"%s\" is not a lock algorithm (%s)", algorithm, config_choices("LOCK"));
    rt.cfg.lock = kind;
    return REACH_SUCCESS;
}

/* Checks (set, id, rank) and whether this process holds that mutex:
 * returns its held[] entry. */
static int mutex_entry(const char *call, reach_mutexes_t *set, int id, int rank, int want_held, signed char **entry)
{
    int st = mutex_check(call, set, id, rank);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    signed char *h = &set->held[set->first[rank] + id];
    if (unlikely(want_held && *h < 0))
        return rt_error(REACH_ERR_MUTEX, call, "mutex %d of rank %d is not held by this process", id, rank);
    if (unlikely(!want_held && *h >= 0))
        return rt_error(REACH_ERR_MUTEX, call, "mutex %d of rank %d is already held by this process", id, rank);
    *entry = h;
    return REACH_SUCCESS;
}

/* ---- the calls -------------------------------------------------------------------- */

int mutex_lock(reach_mutexes_t *set, int id, int rank)
{
    const char *call = "reach_mutex_lock";
    signed char *entry = NULL;
    int st = mutex_entry(call, set, id, rank, 0, &entry);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    if (set->algorithm == LOCK_MCS) {
        if ((st = mcs_lock(call, set, id, rank, entry)) != REACH_SUCCESS)
            return st;
    } else {
        ticket_lock(set, id, rank);
        *entry = 0;
    }
    rt_order_acquire();
    rma_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

int mutex_trylock(reach_mutexes_t *set, int id, int rank, int *acquired)
{
    const char *call = "reach_mutex_trylock";
    signed char *entry = NULL;
    int st = mutex_entry(call, set, id, rank, 0, &entry);
    if (st == REACH_SUCCESS && acquired == NULL)
        st = rt_error(REACH_ERR_ARG, call, "acquired is NULL");
    if (unlikely(st != REACH_SUCCESS))
        return st;
    if (set->algorithm == LOCK_MCS) {
        if ((st = mcs_trylock(call, set, id, rank, entry, acquired)) != REACH_SUCCESS)
            return st;
    } else if ((*acquired = ticket_trylock(set, id, rank)) != 0) {
        *entry = 0;
    }
    if (*acquired)
        rma_count(REACH_OP_LOCK, rank, 0);
    return REACH_SUCCESS;
}

int mutex_unlock(reach_mutexes_t *set, int id, int rank)
{
    signed char *entry = NULL;
    int st = mutex_entry("reach_mutex_unlock", set, id, rank, 1, &entry);
    if (unlikely(st != REACH_SUCCESS))
        return st;
    rt_order_release();
    if (set->algorithm == LOCK_MCS)
        mcs_unlock(set, id, rank, entry);
    else
        ticket_unlock(set, id, rank);
    *entry = -1;
    rma_count(REACH_OP_UNLOCK, rank, 0);
    return REACH_SUCCESS;
}
