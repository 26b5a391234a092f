/* The set-up of a group's collectives: at the group's creation, for each
 * scope (all members, those of this node, the first member of each node),
 * its members and an area of waitwords and slots (coll.h) in one
 * collective allocation; their release with the group or at finalize,
 * once every message sent has been acknowledged; and coll_of, which finds
 * the collective of a call's group and scope. */
#include "sync/coll.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/rma.h"
#include "sync/sync.h"

#include <stdlib.h>
#include <string.h>

/* A group's collectives, one per scope, in one collective allocation
 * (NODE is ALL where the group lies on one node). */
struct group_coll {
    coll_t own[3], *scope[3];
    reach_group_t *group;
    void *block; /* this process's block */
    struct group_coll *next;
};
static struct group_coll *colls; /* every live group's, freed at finalize */

/* ---- set-up ---------------------------------------------------------------------------- */

/* Scope s of g as its members' numbers in g, in g's order, into of; their
 * count (0 if this process is outside), and this process's number. */
static int coll_members(const reach_group_t *g, int s, int *of, int *me)
{
    int n = 0, my_node = rt.peers[rt.rank].node;
    char *seen = calloc((size_t)rt.node_count, 1); /* MASTERS: nodes with a member so far */
    if (!seen)
        rt_oom("reach_group_create", (size_t)rt.node_count);
    *me = -1;
    for (int i = 0; i < g->size; i++) {
        int node = rt.peers[g->world[i]].node;
        int take = s == REACH_SCOPE_ALL || (s == REACH_SCOPE_NODE ? node == my_node : !seen[node]);
        seen[node] = 1;
        if (!take)
            continue;
        if (i == g->rank)
            *me = n;
        of[n++] = i;
    }
    free(seen);
    return *me < 0 ? 0 : n;
}

static int coll_rounds(int n)
{
    int r = 0;
    while ((1u << r) < (unsigned)n)
        r++;
    return r;
}

/* Collective over g (at its creation): its collectives' areas, their
 * words zeroed before any member can signal into them. */
static int coll_make(reach_group_t *g)
{
    const char *call = "reach_group_create";
    int one_node = 1;
    for (int i = 1; i < g->size; i++)
        one_node &= rt.peers[g->world[i]].node == rt.peers[g->world[0]].node;
    int rounds = coll_rounds(g->size);
    size_t words = coll_word(rounds, W_END, 0);
    /* Each scope's chunk, and where its area starts: every member
     * computes the same, from the group and the scope alone. */
    size_t chunk[3], off[4] = {0};
    for (int s = 0; s < 3; s++) {
        chunk[s] = one_node || s == REACH_SCOPE_NODE ? COLL_SLOT_NODE : COLL_SLOT_NET;
        off[s + 1] = off[s] + coll_area_bytes(rounds, chunk[s]);
    }
    struct group_coll *gc = calloc(1, sizeof *gc);
    void **bases = malloc(sizeof(void *) * (size_t)g->size);
    int *of = malloc(sizeof(int) * (size_t)g->size);
    if (!gc || !bases || !of)
        rt_oom(call, sizeof(void *) * (size_t)g->size);
    /* A group on one node needs one area: its NODE scope is ALL, and its
     * MASTERS scope one member, which sends nothing. Elsewhere a member
     * that is not its node's first has no MASTERS area. */
    int unused, master = coll_members(g, REACH_SCOPE_MASTERS, of, &unused) > 0;
    int st = mem_alloc_collective(call, g, off[one_node ? 1 : master ? 3 : 2], bases, 0);
    for (int s = 0; st == REACH_SUCCESS && s < 3; s++) {
        coll_t *c = gc->scope[s] = &gc->own[s];
        if (one_node && s == REACH_SCOPE_NODE) {
            gc->scope[s] = &gc->own[REACH_SCOPE_ALL];
            continue;
        }
        size_t at = one_node ? 0 : off[s];
        if ((c->n = coll_members(g, s, of, &c->me)) == 0)
            continue; /* outside MASTERS: no area */
        c->steps = coll_rounds(c->n);
        c->rounds = rounds;
        c->words = words;
        c->chunk = chunk[s];
        c->mine = rma_here(rt.rank, (uintptr_t)bases[g->rank] + at);
        memset(c->mine, 0, words);
        c->rank = malloc(sizeof(int) * (size_t)(c->n + 1));
        c->area = malloc(sizeof(uintptr_t) * (size_t)(c->n + 1));
        if (!c->rank || !c->area)
            rt_oom(call, sizeof(uintptr_t) * (size_t)c->n);
        for (int i = 0; i < c->n; i++) {
            c->rank[i] = g->world[of[i]];
            c->area[i] = (uintptr_t)bases[of[i]] + at;
        }
    }
    if (st == REACH_SUCCESS) {
        group_barrier(g); /* every area zeroed before anyone signals */
        gc->group = g;
        gc->block = bases[g->rank];
        gc->next = colls;
        colls = gc;
        g->coll = gc;
    } else {
        free(gc);
    }
    free(bases);
    free(of);
    return st;
}

/* Waits until every message this process sent in gc's collectives has
 * been read, and its acknowledgement is here: no signal of them is left
 * in flight to an area that is then freed (or to a process that ends). */
static void coll_drain(struct group_coll *gc)
{
    for (int s = 0; s < 3; s++) {
        coll_t *c = &gc->own[s];
        if (c->n == 0 || c->steps == 0)
            continue;
        if (c->me != 0)
            coll_wait(c, W_ACK_PARENT, 0, c->sent_up, c->me - lowbit(c->me));
        for (int k = 0; k < c->steps; k++)
            if (c->me + (1 << k) < c->n && (1 << k) < coll_span(c, c->me))
                coll_wait(c, W_ACK_CHILD, k, c->sent_down[k], c->me + (1 << k));
    }
}

static void coll_forget(struct group_coll *gc)
{
    for (struct group_coll **p = &colls; *p; p = &(*p)->next)
        if (*p == gc) {
            *p = gc->next;
            break;
        }
    for (int s = 0; s < 3; s++) {
        free(gc->own[s].rank);
        free(gc->own[s].area);
        free(gc->own[s].acc);
    }
    gc->group->coll = NULL;
    free(gc);
}

/* Collective over g (at its release). The area is freed over MPI: its
 * own collectives, drained, send nothing more into it. */
static void coll_release(reach_group_t *g)
{
    struct group_coll *gc = g->coll;
    if (gc == NULL)
        return;
    coll_drain(gc);
    g->coll = NULL;
    mem_free_collective("reach_group_free", g, gc->block, 0);
    coll_forget(gc);
}

void coll_register(void)
{
    group_on_make(coll_make, coll_release);
}

/* At finalize, before the last barrier (every allocation is released
 * after it). */
void coll_finalize(void)
{
    for (struct group_coll *gc = colls; gc; gc = gc->next)
        coll_drain(gc);
    while (colls)
        coll_forget(colls);
}

/* The collective of scope of group g (NULL: the world); NULL with *st an
 * error, or with *st REACH_SUCCESS where this process is outside it. */
coll_t *coll_of(const char *call, reach_group_t **g, int scope, int *st)
{
    if (*g == NULL && rt.initialized)
        *g = &group_world;
    if ((*st = group_check(call, *g)) != REACH_SUCCESS)
        return NULL;
    if (scope < REACH_SCOPE_ALL || scope > REACH_SCOPE_MASTERS) {
        *st = rt_error(REACH_ERR_ARG, call, "scope %d is not REACH_SCOPE_ALL, _NODE or _MASTERS", scope);
        return NULL;
    }
    if ((*g)->coll == NULL) { /* made before the last reach_finalize */
        *st = rt_error(REACH_ERR_HANDLE, call, "group %p was made before reach was last started", (void *)*g);
        return NULL;
    }
    coll_t *c = (*g)->coll->scope[scope];
    return c->n > 0 ? c : NULL;
}
