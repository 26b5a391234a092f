/* Collectives of a group's members on reach's own signals: a barrier,
 * reductions and a broadcast, over all members, those of one node, or the
 * first member of each node. Every message is rma_signal: a copy into the
 * receiver's slot and an add to its waitword, which on a node are stores
 * and a futex wake, and to another node one message that the waiting
 * receiver takes itself. Waits sleep, so that more processes than cores
 * cost no more than the signals they wait for.
 *
 * The barrier is a dissemination barrier (ceil(log2 n) rounds of one
 * signal); the world's is reach_barrier's without its fence. A reduce
 * to the root and a broadcast run on a binomial tree rooted at the
 * scope's first member: member r > 0 has its parent at r - lowbit(r) and
 * its children at r + 2^k for 2^k < lowbit(r). A reduction climbs the
 * tree (a member combines its children's parts, child r + 2^k's arriving
 * in up slot k, and sends the result to its parent). A broadcast from
 * member b climbs from b to the root along b's ancestors, then comes down
 * to every other member (the down slot). Data goes in chunks of one slot
 * (coll.h: 16 KiB within a node, 64 KiB in a scope across nodes). An
 * allreduce of at most COLL_XSLOT bytes goes by recursive doubling
 * (coll_exchange): one message each way per round; a larger one by
 * halving (coll_halving), in slots of its own.
 *
 * A slot is refilled only once its receiver has read it. On the tree the
 * receiver acknowledges every message (one signal on the sender's ack word
 * of that link), and a sender waits for the acknowledgements of all it
 * sent over a link before it sends on it again. Links are the fixed
 * tree's, so each slot has one sender; the acknowledgement is off the
 * critical path. The exchanges of an allreduce need none: both members of
 * a link exchange alike, in two slots used in turn (coll_exchange,
 * coll_swap). */
#include "sync/coll.h"
#include "core/rma.h"
#include "base/wait.h"

#include <string.h>

/* ---- layout ---------------------------------------------------------------------- */

size_t coll_word(int rounds, int which, int k)
{
    size_t r = (size_t)rounds;
    size_t at = which <= W_HALF ? (size_t)which * r : (W_HALF + 1) * r + (size_t)(which - W_DOWN);
    return (at + (size_t)k) * sizeof(waitword_t);
}

/* Slots, by number: the up slots 0..rounds-1 and the down slot, of a
 * chunk's bytes; two halving slots per round (coll_hslot); then, of
 * COLL_XSLOT, two exchange slots per round, the fold and the unfold slot.
 * (Alternate exchanges over a round's link use alternate ones of its
 * two.) */
static int slot_down(int rounds)
{
    return rounds;
}

static int slot_half(int rounds, int k, uint32_t parity)
{
    return rounds + 1 + 2 * k + (int)parity;
}

static int slot_xchg(int rounds, int k, uint32_t parity)
{
    return 3 * rounds + 1 + 2 * k + (int)parity;
}

static int slot_fold(int rounds)
{
    return 5 * rounds + 1;
}

static int slot_unfold(int rounds)
{
    return 5 * rounds + 2;
}

/* The bytes of a halving slot, in a scope of chunks of chunk bytes. */
static size_t coll_hslot(size_t chunk)
{
    return chunk > COLL_HSLOT_MIN ? chunk : COLL_HSLOT_MIN;
}

static size_t coll_slot_at(int rounds, size_t chunk, int slot)
{
    size_t n = (size_t)slot, big = (size_t)rounds + 1, halves = 2 * (size_t)rounds, h = coll_hslot(chunk);
    if (n < big)
        return n * chunk;
    if (n < big + halves)
        return big * chunk + (n - big) * h;
    return big * chunk + halves * h + (n - big - halves) * COLL_XSLOT;
}

size_t coll_area_bytes(int rounds, size_t chunk)
{
    return coll_word(rounds, W_END, 0) + coll_slot_at(rounds, chunk, slot_unfold(rounds) + 1);
}

static waitword_t *coll_ww(const coll_t *c, int which, int k)
{
    return (waitword_t *)(void *)(c->mine + coll_word(c->rounds, which, k));
}

static char *coll_slot(const coll_t *c, int k)
{
    return c->mine + c->words + coll_slot_at(c->rounds, c->chunk, k);
}

int lowbit(int r)
{
    return r & -r;
}

static int log2_floor(int x)
{
    return 31 - __builtin_clz((unsigned)x);
}

/* The span of member r's subtree: lowbit(r), all of the tree for the root. */
int coll_span(const coll_t *c, int r)
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
void coll_wait(const coll_t *c, int which, int k, uint32_t target, int from)
{
    wait_now.what.rank = c->rank[from];
    rma_wait_signal(coll_ww(c, which, k), target, c->rank[from]);
}

/* Copies bytes of src into member to's slot and adds one to its
 * waitword (which, k). */
static void coll_signal(const coll_t *c, int to, const void *src, size_t bytes, int slot, int which, int k)
{
    uintptr_t a = c->area[to];
    rma_signal(c->rank[to], src, a + c->words + coll_slot_at(c->rounds, c->chunk, slot), bytes,
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

void coll_barrier(coll_t *c)
{
    c->barriers++;
    for (int k = 0; k < c->steps; k++) {
        int d = 1 << k;
        coll_signal(c, (c->me + d) % c->n, NULL, 0, 0, W_BARRIER, k);
        coll_wait(c, W_BARRIER, k, c->barriers, (c->me + c->n - d) % c->n);
    }
}

/* One chunk of n elements of es bytes at x, combined up the tree: the
 * result into x at the root. The root combines its children's parts into
 * x, the others into acc (their x stays as it was). */
static void coll_up(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op)
{
    char *into = c->me == 0 ? x : c->acc;
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
static void coll_combine_ordered(char *x, const char *y, int y_first, size_t n, size_t bytes, reduce_fn *op)
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
void coll_exchange(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op)
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

/* Of a range of total elements cut in pieces of per, the length of piece j
 * (0 past its end). */
static size_t coll_piece(size_t total, size_t j, size_t per)
{
    return j * per >= total ? 0 : total - j * per < per ? total - j * per : per;
}

/* One exchange over round k's link: bytes of src into the partner's
 * halving slot, and what the partner put into this member's; returns
 * that. Both sides make the same exchanges over a link, so a partner may
 * be one exchange ahead (in the other slot), never two: it cannot finish
 * one without this member's part. */
static const char *coll_swap(coll_t *c, int k, const void *src, size_t bytes)
{
    int partner = c->me ^ (1 << k), slot = slot_half(c->rounds, k, c->halves[k] & 1);
    coll_signal(c, partner, src, bytes, slot, W_HALF, k);
    coll_wait(c, W_HALF, k, ++c->halves[k], partner);
    return coll_slot(c, slot);
}

/* A trade over round k's link, in pieces of a halving slot: this
 * member's give elements at x + given_at go to member me ^ 2^k, whose
 * take elements are combined by op into x + taken_at, or copied there
 * (op NULL). Either count may be 0; both members make as many exchanges. */
static void coll_trade(coll_t *c, int k, char *x, size_t es, size_t given_at, size_t give, size_t taken_at, size_t take,
                       reduce_fn *op)
{
    size_t per = coll_hslot(c->chunk) / es;
    for (size_t j = 0; j * per < give || j * per < take; j++) {
        size_t out = coll_piece(give, j, per), m = coll_piece(take, j, per);
        const char *in = coll_swap(c, k, out ? x + (given_at + j * per) * es : x, out * es);
        if (m && op)
            op(x + (taken_at + j * per) * es, in, m);
        else if (m)
            memcpy(x + (taken_at + j * per) * es, in, m * es);
    }
}

/* A large allreduce (n elements of es bytes at x): a reduce-scatter by
 * recursive halving, then an allgather by recursive doubling, among the
 * first p = 2^floor(log2 members). In round k a member and member
 * me ^ 2^k split their common range in two: each keeps one half, sends
 * the other its part of the other half, and combines in what it
 * receives. After the last round each member holds one p-th of the
 * result, which the rounds then gather back in the reverse order. Each
 * member combines about n elements and sends about 2n, where the tree has
 * its root combine n at each level and send n down. A member p + j first
 * gives its elements to member j, which combines them in, and takes the
 * result from it at the end: over the link of round log2 p, which the
 * rounds among p do not use. Every element is combined by one member and
 * copied to the others, so every member ends with the same bits. The
 * first rounds, with the most data, go to the nearest members where a
 * node's ranks are numbered together. */
void coll_halving(coll_t *c, char *x, size_t n, size_t es, reduce_fn *op)
{
    int top = log2_floor(c->n), p = 1 << top, me = c->me, folded = me < c->n - p;
    if (me >= p) {
        coll_trade(c, top, x, es, 0, n, 0, 0, NULL);
        coll_trade(c, top, x, es, 0, 0, 0, n, NULL);
        return;
    }
    if (folded)
        coll_trade(c, top, x, es, 0, 0, 0, n, op);
    size_t lo[COLL_ROUNDS + 1], len[COLL_ROUNDS + 1];
    lo[0] = 0;
    len[0] = n;
    for (int k = 0; k < top; k++) {
        int upper = (me >> k) & 1;
        size_t lower = len[k] / 2;
        len[k + 1] = upper ? len[k] - lower : lower;
        lo[k + 1] = lo[k] + (upper ? lower : 0);
        coll_trade(c, k, x, es, lo[k] + (upper ? 0 : lower), len[k] - len[k + 1], lo[k + 1], len[k + 1], op);
    }
    for (int k = top; k-- > 0;) {
        size_t theirs_at = (me >> k) & 1 ? lo[k] : lo[k] + len[k + 1];
        coll_trade(c, k, x, es, lo[k + 1], len[k + 1], theirs_at, len[k] - len[k + 1], NULL);
    }
    if (folded)
        coll_trade(c, top, x, es, 0, n, 0, 0, NULL);
}

/* count elements of es bytes at buf, reduced into the root's buf chunk by
 * chunk. */
void coll_reduce(coll_t *c, char *buf, size_t count, size_t es, reduce_fn *op)
{
    size_t per = c->chunk / es;
    for (size_t i = 0; i * per < count; i++)
        coll_up(c, buf + i * per * es, coll_piece(count, i, per), es, op);
}

/* One chunk of a broadcast from member b: up b's path to the root, then
 * down to the others. */
void coll_bcast_chunk(coll_t *c, void *x, size_t bytes, int b)
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
