/* Collectives of a group's members on reach's own signals: a barrier,
 * reductions and a broadcast, over all members, those of one node, or the
 * first member of each node. Every message is rma_signal: a copy into the
 * receiver's slot and an add to its waitword, which on a node are stores
 * and a futex wake, and to another node one message that the waiting
 * receiver takes itself. Waits sleep, so that more processes than cores
 * cost no more than the signals they wait for.
 *
 * The barrier is a dissemination barrier (ceil(log2 n) rounds of one
 * signal); the world's is reach_barrier's without its fence. Reductions
 * and broadcasts run on a binomial tree rooted at the scope's first
 * member: member r > 0 has its parent at r - lowbit(r) and its children
 * at r + 2^k for 2^k < lowbit(r). A reduction climbs the tree (a member
 * combines its children's parts, child r + 2^k's arriving in up slot k,
 * and sends the result to its parent); an allreduce then comes back down
 * (the down slot), chunk i - 1 descending while chunk i climbs. A
 * broadcast from member b climbs from b to the root along b's ancestors,
 * then comes down to every other member. Data goes in chunks of one slot.
 * An allreduce of at most COLL_XSLOT bytes goes by recursive doubling
 * instead (coll_exchange): one message each way per round.
 *
 * A slot is refilled only once its receiver has read it: the receiver
 * acknowledges every message (one signal on the sender's ack word of that
 * link), and a sender waits for the acknowledgements of all it sent over a
 * link before it sends on it again. Links are the fixed tree's, so each
 * slot has one sender; the acknowledgement is off the critical path. */
#include "core/group.h"
#include "sync/calls.h"
#include "core/mem.h"
#include "core/rma.h"
#include "base/acc.h"
#include "base/reduce.h"
#include "base/wait.h"
#include "sync/sync.h"

#include <stdlib.h>
#include <string.h>

#define COLL_SLOT ((size_t)16 << 10)   /* bytes of one chunk */
#define COLL_XSLOT ((size_t)2 << 10)   /* the most an allreduce exchanges */
#define COLL_ROUNDS 31                 /* ceil(log2 n) of any int n */

/* An area: waitwords, then slots. W_BARRIER, W_UP, W_ACK_CHILD and
 * W_XCHG have a word per round, the others one. */
enum { W_BARRIER, W_UP, W_ACK_CHILD, W_XCHG, W_DOWN, W_ACK_PARENT, W_FOLD, W_UNFOLD, W_END };

typedef struct coll {
    int n, me, steps;    /* members (0: not one), this process's number, ceil(log2 n) */
    int rounds;          /* of the area's layout: ceil(log2 n) of the whole group */
    int *rank;           /* member -> rank of the job */
    uintptr_t *area;     /* member -> its area, in its own addresses */
    char *mine;          /* this process's area */
    size_t words;        /* bytes of an area's waitwords (its slots follow) */
    uint32_t barriers;                          /* barriers so far */
    uint32_t got_up[COLL_ROUNDS], got_down;     /* messages taken, by slot */
    uint32_t sent_down[COLL_ROUNDS], sent_up;   /* messages sent, by link */
    uint32_t exchanges, got_fold, got_unfold;   /* small allreduces so far, and their messages */
    char *acc;           /* a reduction's partial result, one chunk */
} coll_t;

/* A group's collectives, one per scope, in one collective allocation
 * (NODE is ALL where the group lies on one node). */
struct group_coll {
    coll_t own[3], *scope[3];
    reach_group_t *group;
    void *block;   /* this process's block */
    struct group_coll *next;
};
static struct group_coll *colls;   /* every live group's, freed at finalize */

/* ---- layout ---------------------------------------------------------------------- */

static size_t coll_word(int rounds, int which, int k)
{
    size_t r = (size_t)rounds;
    size_t at = which <= W_XCHG ? (size_t)which * r : (W_XCHG + 1) * r + (size_t)(which - W_DOWN);
    return (at + (size_t)k) * sizeof(waitword_t);
}

/* Slots, by number: the up slots 0..rounds-1 and the down slot, of
 * COLL_SLOT bytes; then, of COLL_XSLOT, two exchange slots per round
 * (alternate exchanges use alternate ones), the fold and the unfold slot. */
static int slot_down(int rounds)
{
    return rounds;
}

static int slot_xchg(int rounds, int k, uint32_t parity)
{
    return rounds + 1 + 2 * k + (int)parity;
}

static int slot_fold(int rounds)
{
    return 3 * rounds + 1;
}

static int slot_unfold(int rounds)
{
    return 3 * rounds + 2;
}

static size_t coll_slot_at(int rounds, int slot)
{
    size_t big = (size_t)rounds + 1, n = (size_t)slot;
    return n < big ? n * COLL_SLOT : big * COLL_SLOT + (n - big) * COLL_XSLOT;
}

static size_t coll_area_bytes(int rounds)
{
    return coll_word(rounds, W_END, 0) + coll_slot_at(rounds, slot_unfold(rounds) + 1);
}

static waitword_t *coll_ww(const coll_t *c, int which, int k)
{
    return (waitword_t *)(void *)(c->mine + coll_word(c->rounds, which, k));
}

static char *coll_slot(const coll_t *c, int k)
{
    return c->mine + c->words + coll_slot_at(c->rounds, k);
}

static int lowbit(int r)
{
    return r & -r;
}

static int log2_floor(int x)
{
    return 31 - __builtin_clz((unsigned)x);
}

/* The span of member r's subtree: lowbit(r), all of the tree for the root. */
static int coll_span(const coll_t *c, int r)
{
    return r ? lowbit(r) : 1 << c->steps;
}

/* Whether r is b or an ancestor of b. */
static int coll_on_path(const coll_t *c, int r, int b)
{
    return r == b || (r < b && b < r + coll_span(c, r));
}

/* ---- messages -------------------------------------------------------------------- */

/* Waits until this process's waitword (which, k) has counted to target,
 * which member `from` completes. */
static void coll_wait(const coll_t *c, int which, int k, uint32_t target, int from)
{
    wait_now.what.rank = c->rank[from];
    rma_wait_signal(coll_ww(c, which, k), target, c->rank[from]);
}

/* Copies bytes of src into member to's slot and adds one to its
 * waitword (which, k). */
static void coll_signal(const coll_t *c, int to, const void *src, size_t bytes, int slot, int which,
                        int k)
{
    uintptr_t a = c->area[to];
    rma_signal(c->rank[to], src, a + c->words + coll_slot_at(c->rounds, slot), bytes,
               a + coll_word(c->rounds, which, k));
}

/* Sends bytes of src to the parent, into its up slot of this link. */
static void coll_send_up(coll_t *c, const void *src, size_t bytes)
{
    int low = lowbit(c->me), parent = c->me - low, k = log2_floor(low);
    coll_wait(c, W_ACK_PARENT, 0, c->sent_up, parent);
    coll_signal(c, parent, src, bytes, k, W_UP, k);
    c->sent_up++;
}

/* Takes child me + 2^k's message: combined into dst by op (n elements),
 * or copied there (op NULL, bytes); then acknowledges it. */
static void coll_take_up(coll_t *c, int k, void *dst, size_t bytes, reduce_fn *op, size_t n)
{
    int child = c->me + (1 << k);
    coll_wait(c, W_UP, k, ++c->got_up[k], child);
    if (op)
        op(dst, coll_slot(c, k), n);
    else
        memcpy(dst, coll_slot(c, k), bytes);
    coll_signal(c, child, NULL, 0, 0, W_ACK_PARENT, 0);
}

/* The way down from the root: every member not on b's path takes buf
 * from its parent, and each passes it on to its children off the path. */
static void coll_down(coll_t *c, void *buf, size_t bytes, int b)
{
    int me = c->me, span = coll_span(c, me);
    if (!coll_on_path(c, me, b)) {
        int k = log2_floor(span);
        coll_wait(c, W_DOWN, 0, ++c->got_down, me - span);
        memcpy(buf, coll_slot(c, slot_down(c->rounds)), bytes);
        coll_signal(c, me - span, NULL, 0, 0, W_ACK_CHILD, k);
    }
    for (int k = log2_floor(span); k-- > 0;) {
        int child = me + (1 << k);
        if (child >= c->n || coll_on_path(c, child, b))
            continue;
        coll_wait(c, W_ACK_CHILD, k, c->sent_down[k], child);
        coll_signal(c, child, buf, bytes, slot_down(c->rounds), W_DOWN, 0);
        c->sent_down[k]++;
    }
}

/* ---- the collectives --------------------------------------------------------------- */

static void coll_barrier(coll_t *c)
{
    c->barriers++;
    for (int k = 0; k < c->steps; k++) {
        int d = 1 << k;
        coll_signal(c, (c->me + d) % c->n, NULL, 0, 0, W_BARRIER, k);
        coll_wait(c, W_BARRIER, k, c->barriers, (c->me + c->n - d) % c->n);
    }
}

/* One chunk of n elements of es bytes at x, combined up the tree: the
 * result into x at the root. A member combines its children's parts into
 * x where x is to be overwritten anyway (an allreduce's, or the root's),
 * else into acc. */
static void coll_up(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op, int all)
{
    char *into = all || c->me == 0 ? x : c->acc;
    const char *part = x;
    int me = c->me, span = coll_span(c, me);
    for (int k = 0; (1 << k) < span && me + (1 << k) < c->n; k++) {
        if (part != into)
            part = memcpy(into, x, n * es);
        coll_take_up(c, k, into, n * es, op, n);
    }
    if (me != 0)
        coll_send_up(c, part, n * es);
}

/* x = op(x, y), or with y_first, op(y, x), so that both sides of an
 * exchange combine the lower member's part first: max and min of a NaN or
 * of -0 and +0 then give the same bits on both. */
static void coll_combine_ordered(char *x, const char *y, int y_first, size_t n, size_t bytes,
                                 reduce_fn *op)
{
    if (!y_first) {
        op(x, y, n);
        return;
    }
    char lower[COLL_XSLOT];
    memcpy(lower, y, bytes);
    op(lower, x, n);
    memcpy(x, lower, bytes);
}

/* A small allreduce (n elements, at most COLL_XSLOT bytes) by recursive
 * doubling: one message per round each way instead of the tree's climb
 * and descent. Among the first p = 2^floor(log2 n) members, in round k
 * each sends its x to member me ^ 2^k and combines what that one sent; a
 * member p + j first sends x to member j, which combines it in before the
 * rounds and sends the result back after them. Both members of a round
 * combine the same two parts in the same order, so every member ends with
 * the same bits. The two slots of a round alternate between exchanges: a
 * partner may be one exchange ahead, never two (it cannot finish one
 * without this member's part). */
static void coll_exchange(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op)
{
    int p = 1 << log2_floor(c->n), me = c->me, fold = c->n - p;
    uint32_t parity = c->exchanges++ & 1;
    size_t bytes = n * es;
    if (me >= p) {
        coll_signal(c, me - p, x, bytes, slot_fold(c->rounds), W_FOLD, 0);
        coll_wait(c, W_UNFOLD, 0, ++c->got_unfold, me - p);
        memcpy(x, coll_slot(c, slot_unfold(c->rounds)), bytes);
        return;
    }
    if (me < fold) {
        coll_wait(c, W_FOLD, 0, ++c->got_fold, me + p);
        op(x, coll_slot(c, slot_fold(c->rounds)), n);
    }
    for (int k = 0; (1 << k) < p; k++) {
        int partner = me ^ (1 << k), slot = slot_xchg(c->rounds, k, parity);
        coll_signal(c, partner, x, bytes, slot, W_XCHG, k);
        coll_wait(c, W_XCHG, k, c->exchanges, partner);
        coll_combine_ordered(x, coll_slot(c, slot), partner < me, n, bytes, op);
    }
    if (me < fold)
        coll_signal(c, me + p, x, bytes, slot_unfold(c->rounds), W_UNFOLD, 0);
}

/* count elements of es bytes at buf, reduced (all: and back down to every
 * member) chunk by chunk; chunk i climbs while chunk i - 1 descends. */
static void coll_reduce(coll_t *c, char *buf, size_t count, size_t es, reduce_fn *op, int all)
{
    size_t per = COLL_SLOT / es, chunks = (count + per - 1) / per;
    for (size_t i = 0; i <= chunks; i++) {
        if (i < chunks)
            coll_up(c, buf + i * per * es, count - i * per < per ? count - i * per : per, es, op, all);
        if (all && i > 0)
            coll_down(c, buf + (i - 1) * per * es, (i == chunks ? count - (i - 1) * per : per) * es, 0);
    }
}

/* One chunk of a broadcast from member b: up b's path to the root, then
 * down to the others. */
static void coll_bcast_chunk(coll_t *c, void *x, size_t bytes, int b)
{
    int me = c->me;
    if (b != 0 && coll_on_path(c, me, b)) {
        if (me != b)
            coll_take_up(c, log2_floor(b - me), x, bytes, NULL, 0);
        if (me != 0)
            coll_send_up(c, x, bytes);
    }
    coll_down(c, x, bytes, b);
}

/* ---- set-up ---------------------------------------------------------------------------- */

/* Scope s of g as its members' numbers in g, in g's order, into of; their
 * count (0 if this process is outside), and this process's number. */
static int coll_members(const reach_group_t *g, int s, int *of, int *me)
{
    int n = 0, my_node = rt.peers[rt.rank].node;
    char *seen = calloc((size_t)rt.node_count, 1);   /* MASTERS: nodes with a member so far */
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
    size_t area = coll_area_bytes(rounds), words = coll_word(rounds, W_END, 0);
    struct group_coll *gc = calloc(1, sizeof *gc);
    void **bases = malloc(sizeof(void *) * (size_t)g->size);
    int *of = malloc(sizeof(int) * (size_t)g->size);
    if (!gc || !bases || !of)
        rt_oom(call, sizeof(void *) * (size_t)g->size);
    /* A group on one node needs one area: its NODE scope is ALL, and its
     * MASTERS scope one member, which sends nothing. Elsewhere a member
     * that is not its node's first has no MASTERS area. */
    int unused, master = coll_members(g, REACH_SCOPE_MASTERS, of, &unused) > 0;
    int st = mem_alloc_collective(call, g, area * (one_node ? 1 : master ? 3 : 2), bases, 0);
    for (int s = 0; st == REACH_SUCCESS && s < 3; s++) {
        coll_t *c = gc->scope[s] = &gc->own[s];
        if (one_node && s == REACH_SCOPE_NODE) {
            gc->scope[s] = &gc->own[REACH_SCOPE_ALL];
            continue;
        }
        size_t off = one_node ? 0 : area * (size_t)s;
        if ((c->n = coll_members(g, s, of, &c->me)) == 0)
            continue;   /* outside MASTERS: no area */
        c->steps = coll_rounds(c->n);
        c->rounds = rounds;
        c->words = words;
        c->mine = rma_here(rt.rank, (uintptr_t)bases[g->rank] + off);
        memset(c->mine, 0, words);
        c->rank = malloc(sizeof(int) * (size_t)(c->n + 1));
        c->area = malloc(sizeof(uintptr_t) * (size_t)(c->n + 1));
        if (!c->rank || !c->area)
            rt_oom(call, sizeof(uintptr_t) * (size_t)c->n);
        for (int i = 0; i < c->n; i++) {
            c->rank[i] = g->world[of[i]];
            c->area[i] = (uintptr_t)bases[of[i]] + off;
        }
    }
    if (st == REACH_SUCCESS) {
        gc->group = g;
        gc->block = bases[g->rank];
        gc->next = colls;
        colls = gc;
        g->coll = gc;
        group_barrier(g);   /* every area zeroed before anyone signals */
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

/* Collective over g (at its release). */
static void coll_release(reach_group_t *g)
{
    if (g->coll == NULL)
        return;
    coll_drain(g->coll);
    mem_free_collective("reach_group_free", g, g->coll->block, 0);
    coll_forget(g->coll);
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

/* ---- entry points ------------------------------------------------------------------------ */

/* The collective of scope of group g (NULL: the world); NULL with *st an
 * error, or with *st REACH_SUCCESS where this process is outside it. */
static coll_t *coll_of(const char *call, reach_group_t **g, int scope, int *st)
{
    if (*g == NULL && rt.initialized)
        *g = &group_world;
    if ((*st = group_check(call, *g)) != REACH_SUCCESS)
        return NULL;
    if (scope < REACH_SCOPE_ALL || scope > REACH_SCOPE_MASTERS) {
        *st = rt_error(REACH_ERR_ARG, call, "scope %d is not REACH_SCOPE_ALL, _NODE or _MASTERS",
                       scope);
        return NULL;
    }
    if ((*g)->coll == NULL) {   /* made before the last reach_finalize */
        *st = rt_error(REACH_ERR_HANDLE, call, "group %p was made before reach was last started",
                       (void *)*g);
        return NULL;
    }
    coll_t *c = (*g)->coll->scope[scope];
    return c->n > 0 ? c : NULL;
}

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

static int coll_reduction(const char *call, reach_group_t *g, reach_scope_t scope, void *buf,
                          size_t count, reach_type_t type, reach_reduce_op_t op, int all)
{
    int st;
    coll_t *c = coll_of(call, &g, scope, &st);
    if (st != REACH_SUCCESS)
        return st;
    if (type < REACH_INT || type > REACH_DOUBLE)
        return rt_error(REACH_ERR_TYPE, call, "type %d is not REACH_INT, _LONG, _FLOAT or _DOUBLE",
                        (int)type);
    reduce_fn *kernel = reduce_kernel(type, op);
    if (kernel == NULL)
        return rt_error(REACH_ERR_ARG, call, "operation %d does not apply to type %d", (int)op,
                        (int)type);
    size_t es = acc_elem_size(type);
    if (count > SIZE_MAX / es)
        return rt_error(REACH_ERR_ARG, call, "count %zu is too large", count);
    if (c == NULL || count == 0)
        return REACH_SUCCESS;
    coll_need_buffer(call, buf);
    if (!all && c->acc == NULL && !(c->acc = malloc(COLL_SLOT)))
        rt_oom(call, COLL_SLOT);
    coll_begin();
    if (all && count * es <= COLL_XSLOT)
        coll_exchange(c, buf, count, es, kernel);
    else
        coll_reduce(c, buf, count, es, kernel, all);
    wait_done();
    return REACH_SUCCESS;
}

int coll_allreduce(reach_group_t *g, reach_scope_t scope, void *buf, size_t count,
                    reach_type_t type, reach_reduce_op_t op)
{
    return coll_reduction("reach_allreduce", g, scope, buf, count, type, op, 1);
}

int coll_reduce_root(reach_group_t *g, reach_scope_t scope, void *buf, size_t count,
                 reach_type_t type, reach_reduce_op_t op)
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
    for (size_t off = 0; off < bytes; off += COLL_SLOT)
        coll_bcast_chunk(c, (char *)buf + off, bytes - off < COLL_SLOT ? bytes - off : COLL_SLOT, b);
    wait_done();
    return REACH_SUCCESS;
}
