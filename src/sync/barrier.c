/* ARMCI_Barrier: every write issued before it is complete everywhere after
 * it, and nobody leaves before everyone arrived. REACH_BARRIER chooses how
 * (the papers are cited in docs/references.md):
 *
 * fence+dissemination  the baseline of Buntinas03: an all-fence (one fence
 *   request to every rank written to, all at once, and their answers), then
 *   a barrier: the node's processes meet in shared memory, the node
 *   leaders in a dissemination barrier (ceil(log2 nodes) rounds of one
 *   message), then the node again.
 * combined  Buntinas03's ARMCI_Barrier: no fence. Each process knows how
 *   many writes it sent to each rank (op_init) and its server counts the
 *   writes it completed (op_done). The op_init arrays are combined so that
 *   each process learns how many writes were sent to it, in ceil(log2 N)
 *   rounds for any N (below), it waits until op_done reaches that number,
 *   and then the same barrier as above: at most 2 ceil(log2 N) messages.
 *   With two processes the wait is the end (bx_combined): one message.
 *   The exchange is itself a dissemination barrier over every rank, and
 *   it also tells every process whether any process sent a write to
 *   another node since its last exchange: if none did, there is nothing to wait for, and the
 *   barrier ends after ceil(log2 N) messages (ARMCI_Barrier with no writes,
 *   one rank on each of two machines: 17.9 us, where both phases took
 *   40.7; docs/benchmarks.md).
 * tree  for comparison: an all-fence, then a combining tree of radix
 *   REACH_BARRIER_RADIX over the ranks: arrivals climb to rank 0, the
 *   release comes back down.
 * counter  Zhang04's barrier: an all-fence, then every process adds one
 *   to a counter at rank 0 with the test value N x round; the home pushes
 *   the release when the count is reached (a futex wake on its node, one
 *   message to each process on another).
 *
 * On one node there is no network and a write is complete when its stores
 * are visible: every variant is a memory fence and the node barrier. */
#include "base/arena.h"
#include "base/wait.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/rma.h"
#include "core/service.h"
#include "sync/calls.h"
#include "sync/counter.h"
#include "sync/sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    /* Uses of each mechanism so far (the algorithm may change between
     * barriers): each waitword counts to its mechanism's epoch. */
    uint32_t dissem_epoch, xchg_epoch, tree_epoch;
    uint32_t arrivals;    /* tree: children's arrivals expected so far */
    int rounds;           /* ceil(log2 size) */
    size_t per_round;     /* entries in one round's buffer */
    uint32_t *buf;        /* my round buffers, 2 x rounds x per_round (by the
                           * exchange's parity: below) */
    uint32_t sent_sum;    /* the writes this process had sent at its last exchange */
    uint32_t *sent;       /* by rank: the writes this process had sent it then */
    uintptr_t *raddr;     /* by rank: its round buffers, in its addresses */
    uint32_t *sums, *out; /* the combining array and a round's outgoing part */
    int counter_ready;    /* the counter barrier's counter exists */
    ctr_ref_t counter;    /* at rank 0 */
    int64_t counter_rounds;
} bx;

/* A word of this process's arena header. */
static inline waitword_t *bx_word(size_t off)
{
    return (waitword_t *)(void *)rma_here(rt.rank, rt.peers[rt.rank].rbase + off);
}

/* Waits until the waitword at header offset off has counted to target,
 * which the signal of rank `from` completes (-1: of several ranks, by
 * bx_signal). */
static void bx_wait(size_t off, uint32_t target, int from)
{
    wait_now.what.rank = from;
    if (from < 0)
        waitword_wait_count(bx_word(off), target);
    else
        rma_wait_signal(bx_word(off), target, from);
}

/* The node barrier: waits for the ranks of the node. */
static void bx_node(void)
{
    wait_now.what.rank = -1;
    svc_node_barrier();
}

/* Adds one to the waitword at header offset off of rank's arena, waking
 * its sleepers: a store on this node, one message to another. A waiter
 * that knows the one rank that signals it (bx_wait's from) is signalled by
 * rma_signal instead, which it takes itself: nothing of its process has
 * to wake. */
static void bx_signal(int rank, size_t off, int waiter_knows)
{
    if (waiter_knows)
        rma_signal(rank, NULL, 0, 0, rt.peers[rank].rbase + off);
    else
        rma_word(rank, rt.peers[rank].rbase + off, WORD_ADD32_WAKE, 1, 0);
}

/* Collective: the combined barrier's round buffers, once. */
static int bx_combined_init(const char *call)
{
    if (rt.node_count < 2 || bx.buf != NULL)
        return REACH_SUCCESS;
    void **bases = malloc(sizeof(void *) * (size_t)rt.size);
    bx.raddr = malloc(sizeof(uintptr_t) * (size_t)rt.size);
    bx.sums = malloc(sizeof(uint32_t) * (size_t)rt.size);
    bx.out = malloc(sizeof(uint32_t) * bx.per_round);
    bx.sent = malloc(sizeof(uint32_t) * (size_t)rt.size);
    if (!bases || !bx.raddr || !bx.sums || !bx.out || !bx.sent)
        rt_oom(call, sizeof(uintptr_t) * (size_t)rt.size);
    int st =
        mem_alloc_collective(call, &group_world, sizeof(uint32_t) * bx.per_round * 2 * (size_t)bx.rounds, bases, 0);
    if (st == REACH_SUCCESS) {
        bx.buf = bases[rt.rank];
        for (int r = 0; r < rt.size; r++)
            bx.raddr[r] = (uintptr_t)bases[r];
    }
    free(bases);
    return st;
}

/* Collective: the counter barrier's counter, once. */
static int bx_counter_init(const char *call)
{
    if (rt.node_count < 2 || bx.counter_ready)
        return REACH_SUCCESS;
    void *mine; /* released with every other allocation */
    int st = ctr_alloc(call, 0, 0, &bx.counter, &mine);
    bx.counter_ready = st == REACH_SUCCESS;
    bx.counter_rounds = 0;
    return st;
}

/* Collective: what the barrier algorithm kind needs, once. */
static int bx_prepare(const char *call, int kind)
{
    if (kind == BARRIER_COMBINED)
        return bx_combined_init(call);
    if (kind == BARRIER_COUNTER)
        return bx_counter_init(call);
    return REACH_SUCCESS;
}

/* Barriers rank r (of this node) has entered. */
static uint32_t bx_entered(int r)
{
    return atom_load_relaxed((_Atomic uint32_t *)(void *)rma_here(r, rt.peers[r].rbase + ARENA_ENTERED_OFF));
}

/* A barrier wait's report: whose signal it awaits, and the ranks of this
 * node that have not yet entered the barrier. */
static void bx_describe(const wait_what_t *w, char *buf, size_t len)
{
    int n = w->rank >= 0 ? snprintf(buf, len, "in a barrier, for the signal of rank %d", w->rank)
                         : snprintf(buf, len, "in a barrier");
    uint32_t mine = bx_entered(rt.rank);
    int late = 0;
    for (int i = 0; i < rt.node_size && (size_t)n < len; i++) {
        int r = rt.node_peers[i];
        if ((int32_t)(bx_entered(r) - mine) < 0)
            n += snprintf(buf + n, len - (size_t)n, "%s%d", late++ ? ", " : "; not yet in it: rank ", r);
    }
    if ((size_t)n < len && rt.node_count > 1)
        snprintf(buf + n, len - (size_t)n, "%s",
                 late ? " (ranks of other nodes not seen from here)" : "; the ranks of this node are all in it");
}

int barrier_init(void)
{
    wait_describe_barrier(bx_describe);
    if (rt.cfg.barrier_radix < 2)
        return rt_error(REACH_ERR_ARG, "reach_init", "REACH_BARRIER_RADIX=%u: the tree needs 2 or more",
                        rt.cfg.barrier_radix);
    bx.dissem_epoch = bx.xchg_epoch = bx.tree_epoch = bx.arrivals = 0;
    bx.rounds = 0;
    while ((1 << bx.rounds) < rt.size)
        bx.rounds++;
    bx.per_round = (size_t)rt.size / 2 + 1;
    bx.buf = NULL;
    bx.sent_sum = 0;
    bx.counter_ready = 0;
    return bx_prepare("reach_init", rt.cfg.barrier);
}

int barrier_set_kind(const char *algorithm)
{
    const char *call = "reach_set_barrier";
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    int kind = -1, st = REACH_SUCCESS;
    if (algorithm == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the algorithm is NULL");
    else if (config_parse_barrier(algorithm, &kind) != 0)
        st = rt_error(REACH_ERR_ARG, call, "\"%s\" is not a barrier algorithm (%s)", algorithm,
                      config_choices("BARRIER"));
    /* Every rank must switch together, to the same algorithm. */
    int lo, hi;
    if (!boot_all_same(rt.comm, kind, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks named different algorithms");
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    if ((st = bx_prepare(call, kind)) != REACH_SUCCESS)
        return st;
    /* No rank may still be inside a barrier of the old kind. */
    sync_barrier();
    rt.cfg.barrier = kind;
    return REACH_SUCCESS;
}

void barrier_finalize(void)
{
    free(bx.raddr);
    free(bx.sums);
    free(bx.out);
    free(bx.sent);
    bx.raddr = NULL;
    bx.sums = bx.out = bx.sent = NULL;
    bx.buf = NULL; /* released with every other allocation */
}

/* The node barrier, the node leaders' dissemination, the node barrier. */
static void bx_hierarchical(void)
{
    bx_node();
    if (rt.node_count < 2)
        return;
    if (rt.node_rank == 0) {
        int n = rt.node_count, i = rt.node;
        bx.dissem_epoch++;
        for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
            int peer = rt.node_members[rt.node_first[(i + dist) % n]];
            int from = rt.node_members[rt.node_first[(i + n - dist) % n]];
            bx_signal(peer, ARENA_DISSEM_OFF + (size_t)k * sizeof(waitword_t), 1);
            bx_wait(ARENA_DISSEM_OFF + (size_t)k * sizeof(waitword_t), bx.dissem_epoch, from);
        }
    }
    bx_node();
}

/* Combines every process's op_init so that each learns how many writes
 * were sent to it. sums[o] holds the partial count destined to rank
 * me + o (mod N). In round k every process passes the entries whose
 * offset has bit k set to rank me + 2^k, which adds them to its entries at
 * offset o - 2^k: each count travels along the bits of its offset and
 * arrives at offset 0 of its destination after ceil(log2 N) rounds, one
 * message each, whatever N. Each message also carries whether its sender
 * or any process it has heard from sent a write since its last exchange
 * (an OR, which the dissemination pattern completes for any N, where a
 * sum would count some processes twice): *wrote says whether any process
 * did. Returns the number of writes sent here.
 *
 * A process leaves the exchange once every process has entered it, but a
 * peer may not yet have read what it was sent: an exchange with no writes
 * anywhere is the whole barrier, so a process may send the next
 * exchange's messages to a peer still reading this one's. The rounds'
 * buffers alternate by the exchange's parity: to send the one after next,
 * a process must have heard from every process in the next, which each
 * enters only once it has read this one. A round's waitword then counts
 * the signals of two exchanges: one sender's signals must arrive in the
 * order sent (as coll_exchange's do). */
static uint32_t bx_exchange(uint32_t *wrote)
{
    int n = rt.size, me = rt.rank;
    uint32_t sum = 0;
    bx.xchg_epoch++;
    for (int o = 0; o < n; o++) {
        int dest = (me + o) % n;
        bx.sums[o] = bx.sent[dest] = svc_sent_to(dest); /* 0 on the node: no counted writes */
        sum += bx.sums[o];
    }
    *wrote = sum != bx.sent_sum;
    bx.sent_sum = sum;
    size_t half = (bx.xchg_epoch & 1) * (size_t)bx.rounds * bx.per_round; /* this exchange's buffers */
    for (int k = 0; k < bx.rounds; k++) {
        int d = 1 << k, peer = (me + d) % n;
        size_t m = 0;
        for (int o = d; o < n; o++)
            if (o & d) {
                bx.out[m++] = bx.sums[o];
                bx.sums[o] = 0;
            }
        bx.out[m++] = *wrote;
        size_t off = (half + (size_t)k * bx.per_round) * sizeof(uint32_t);
        size_t word = ARENA_XCHG_OFF + (size_t)k * sizeof(waitword_t);
        rma_signal(peer, bx.out, bx.raddr[peer] + off, m * sizeof(uint32_t), rt.peers[peer].rbase + word);
        bx_wait(word, bx.xchg_epoch, (me + n - d) % n);
        const uint32_t *in = bx.buf + half + (size_t)k * bx.per_round;
        m = 0;
        for (int o = d; o < n; o++)
            if (o & d)
                bx.sums[o - d] += in[m++];
        *wrote |= in[m];
    }
    return bx.sums[0];
}

/* Buntinas03's combined barrier (above), and what it learns: once every
 * process has completed the writes sent to it, this process's writes
 * before the exchange are complete everywhere, and no later fence or get
 * asks for them (svc_completed_to). If no process wrote since its last
 * exchange, the last barrier's waits completed every write before this
 * one, and the exchange is the barrier.
 *
 * With two processes there is no third to tell: each leaves once it has
 * completed the writes sent to it, one message after it entered, where
 * the barrier after the wait takes a second. Its own writes to the other
 * are not yet known complete, but nobody can see them undone: the other's
 * server does this process's later requests after them (a target
 * completes one origin's counted requests in order, transport/am/am.h), a
 * get there first fences them (am_order), and the other reads its own
 * memory only after its own wait. */
static void bx_combined(void)
{
    uint32_t wrote, count = bx_exchange(&wrote);
    if (wrote) {
        svc_wait_completed(count);
        if (rt.size == 2)
            return;
        bx_hierarchical();
    }
    for (int r = 0; r < rt.size; r++)
        svc_completed_to(r, bx.sent[r]);
}

/* The tree: children of i are i*radix+1 .. i*radix+radix, those below N;
 * how many i has. */
static int bx_tree_children(int i)
{
    int n = rt.size, radix = (int)rt.cfg.barrier_radix, first = i * radix + 1;
    return first >= n ? 0 : n - first < radix ? n - first : radix;
}

static void bx_tree(void)
{
    int me = rt.rank, radix = (int)rt.cfg.barrier_radix;
    int first = me * radix + 1, children = bx_tree_children(me);
    bx.arrivals += (uint32_t)children;
    bx.tree_epoch++;
    bx_wait(ARENA_TREE_ARRIVE_OFF, bx.arrivals, children == 1 ? first : -1);
    if (me > 0) {
        int parent = (me - 1) / radix;
        bx_signal(parent, ARENA_TREE_ARRIVE_OFF, bx_tree_children(parent) == 1);
        bx_wait(ARENA_TREE_RELEASE_OFF, bx.tree_epoch, parent);
    }
    for (int c = first; c < first + children; c++)
        bx_signal(c, ARENA_TREE_RELEASE_OFF, 1);
}

/* The barrier of every rank, as REACH_BARRIER chooses; with fence, every
 * write issued before it is complete everywhere after it (the combined
 * algorithm counts writes instead of fencing them), without, only this
 * process's stores are ordered before it. */
static void bx_run(int fence)
{
    if (fence)
        rma_flush_local_all(); /* non-blocking transfers: complete at the barrier */
    atom_fence_seq_cst();
    rt_order_release();
    wait_for(WAIT_BARRIER, -1, 0, 0);
    _Atomic uint32_t *entered =
        (_Atomic uint32_t *)(void *)rma_here(rt.rank, rt.peers[rt.rank].rbase + ARENA_ENTERED_OFF);
    atom_store_relaxed(entered, atom_load_relaxed(entered) + 1); /* for reports only */
    if (rt.node_count < 2) {
        svc_node_barrier();
    } else {
        switch (rt.cfg.barrier) {
        case BARRIER_COMBINED:
            if (fence)
                bx_combined();
            else
                bx_hierarchical();
            break;
        case BARRIER_TREE:
            if (fence)
                rma_flush_all();
            bx_tree();
            break;
        case BARRIER_COUNTER:
            if (fence)
                rma_flush_all();
            bx.counter_rounds++;
            ctr_add_wait(&bx.counter, 1, bx.counter_rounds * rt.size);
            break;
        default:
            if (fence)
                rma_flush_all();
            bx_hierarchical();
            break;
        }
    }
    wait_done();
    rma_count(REACH_OP_BARRIER, rt.rank, 0);
}

void sync_barrier(void)
{
    bx_run(1);
}

void sync_barrier_only(void)
{
    bx_run(0);
}
