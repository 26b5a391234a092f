/* Notifying counters: the home side (run by whoever changes a counter) and
 * the public calls. See counter.h. */
#include "sync/counter.h"
#include "core/group.h"
#include "base/handle.h"
#include "core/mem.h"
#include "base/wait.h"
#include "sync/sync.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

#include <stdlib.h>
#include <string.h>

/* ---- the home side ----------------------------------------------------------- */

size_t ctr_home_size(void)
{
    size_t bytes = sizeof(ctr_home_t) + sizeof(ctr_want_t) * (size_t)rt.size;
    return (bytes + 63) & ~(size_t)63;
}

/* Pushes to rank if its registration is still waiting: whoever claims it
 * first (an adder or the registration itself) sends the one push. */
static void ctr_claim(ctr_home_t *h, int rank, int64_t value, ctr_push_fn push)
{
    uint32_t one = 1;
    if (atom_cas_acq_rel(&h->want[rank].waiting, &one, 0)) {
        atom_fetch_sub_seq_cst(&h->registered, 1);
        push(rank, value);
    }
}

/* The add and the registration meet Dekker-style: the adder changes the
 * value, then reads `registered`; the registrant raises `registered`, then
 * reads the value (all sequentially consistent), so at least one of them
 * sees the other and the waiter is pushed to exactly once. */
int64_t ctr_home_add(ctr_home_t *h, int64_t add, ctr_push_fn push)
{
    int64_t old = atom_fetch_add_seq_cst(&h->value, add), now = old + add;
    waitword_add(&h->changes, 1);
    if (atom_load_seq_cst(&h->registered) != 0)
        for (int r = 0; r < rt.size; r++)
            if (atom_load_acquire(&h->want[r].waiting) &&
                atom_load_relaxed(&h->want[r].target) <= now)
                ctr_claim(h, r, now, push);
    return old;
}

void ctr_home_want(ctr_home_t *h, int rank, int64_t target, ctr_push_fn push)
{
    atom_store_relaxed(&h->want[rank].target, target);
    atom_store_seq_cst(&h->want[rank].waiting, 1);
    atom_fetch_add_seq_cst(&h->registered, 1);
    int64_t now = atom_load_seq_cst(&h->value);
    if (now >= target)
        ctr_claim(h, rank, now, push);
}

void ctr_lock_request(ctr_home_t *taken, int rank, ctr_push_fn push)
{
    int64_t ticket = ctr_home_add(taken, 1, push);
    ctr_home_want(ctr_lock_served(taken), rank, ticket, push);
}

/* Served can only be behind taken; if taken equals served, nobody holds
 * or awaits the lock, and moving taken from that value takes the turn. */
int ctr_lock_try(ctr_home_t *taken)
{
    int64_t served = atom_load_seq_cst(&ctr_lock_served(taken)->value);
    return atom_cas_acq_rel(&taken->value, &served, served + 1);
}

/* ---- the side of a process using a counter ------------------------------------ */

/* The push of a process on the home's node (waiters registered there are
 * on other nodes). */
static void ctr_push_client(int rank, int64_t value)
{
    net->push(rank, value);
}

void ctr_ref_init(ctr_ref_t *ref, int home, uintptr_t base)
{
    peer_t *p = &rt.peers[home];
    ref->home = home;
    ref->raddr = base;
    ref->here = p->map ? (ctr_home_t *)(void *)(p->map + (base - p->rbase)) : NULL;
}

int ctr_alloc(const char *call, int home, int64_t initial, ctr_ref_t *ref, void **mine)
{
    void **bases = malloc(sizeof(void *) * (size_t)rt.size);
    if (!bases)
        rt_fatal("%s: out of private memory", call);
    int st = mem_alloc_collective(call, &group_world, rt.rank == home ? ctr_home_size() : 0, bases, 0);
    if (st == REACH_SUCCESS) {
        *mine = bases[rt.rank];
        if (*mine) {
            memset(*mine, 0, ctr_home_size());
            atom_store_relaxed(&((ctr_home_t *)*mine)->value, initial);
        }
        ctr_ref_init(ref, home, (uintptr_t)bases[home]);
        /* The home is set up before anyone adds. */
        group_barrier(&group_world);
    }
    free(bases);
    return st;
}

void ctr_add(const ctr_ref_t *c, int64_t add, int64_t *old)
{
    if (c->here) {
        int64_t o = ctr_home_add(c->here, add, ctr_push_client);
        if (old)
            *old = o;
        return;
    }
    uint64_t o;
    net->sync(c->home, c->raddr, NET_SYNC_CTR_ADD, (uint64_t)add, 0, old ? &o : NULL);
    if (old)
        *old = (int64_t)o;
}

int64_t ctr_wait_here(ctr_home_t *h, int64_t target)
{
    for (;;) {
        uint32_t seen = atom_load_acquire(&h->changes.value);
        int64_t now = atom_load_seq_cst(&h->value);
        if (now >= target)
            return now;
        waitword_wait_change(&h->changes, seen);
    }
}

int64_t ctr_add_wait(const ctr_ref_t *c, int64_t add, int64_t target)
{
    if (c->here) {
        if (add != 0)
            ctr_home_add(c->here, add, ctr_push_client);
        return ctr_wait_here(c->here, target);
    }
    net->sync(c->home, c->raddr, NET_SYNC_CTR_WANT, (uint64_t)add, (uint64_t)target, NULL);
    return net->wait_push();
}

/* ---- the public calls ---------------------------------------------------------- */

#define COUNTER_MAGIC 0x434e5452u   /* "CNTR" */

struct reach_counter {
    uint32_t magic;
    ctr_ref_t ref;
    void *mine;                     /* the home's block, NULL elsewhere */
    reach_counter_t *next_live;
};

static reach_counter_t *live;    /* destroyed at finalize */
static handle_pool_t counter_pool;

static int counter_check(const char *call, reach_counter_t *c)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (c == NULL || c->magic != COUNTER_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "counter %p is not a live counter", (void *)c);
    return REACH_SUCCESS;
}

int reach_counter_create(int home, int64_t initial, reach_counter_t **out)
{
    const char *call = "reach_counter_create";
    int st = rt_check_rank(call, home);
    if (st == REACH_SUCCESS && out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the output pointer is NULL");
    if (!rt.initialized)
        return st;
    /* Every rank must name the same home. */
    int lo, hi;
    if (!rt_all_same(rt.comm, home, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks named different homes (%d to %d)", lo, hi);
    if (!rt_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;

    reach_counter_t *c = handle_new(&counter_pool, sizeof *c);
    if (!c)
        rt_fatal("%s: out of private memory", call);
    if ((st = ctr_alloc(call, home, initial, &c->ref, &c->mine)) != REACH_SUCCESS) {
        handle_retire(&counter_pool, c);
        return st;
    }
    c->magic = COUNTER_MAGIC;
    c->next_live = live;
    live = c;
    *out = c;
    return REACH_SUCCESS;
}

int reach_counter_destroy(reach_counter_t *c)
{
    const char *call = "reach_counter_destroy";
    int st = counter_check(call, c);
    if (st != REACH_SUCCESS)
        return st;
    st = mem_free_collective(call, &group_world, c->mine, 0);
    reach_counter_t **pp = &live;
    while (*pp != c)
        pp = &(*pp)->next_live;
    *pp = c->next_live;
    handle_retire(&counter_pool, c);
    return st;
}

void counter_finalize(void)
{
    while (live) {
        reach_counter_t *c = live;
        live = c->next_live;
        handle_retire(&counter_pool, c);
    }
}

int reach_counter_add(reach_counter_t *c, int64_t add, int64_t *old)
{
    int st = counter_check("reach_counter_add", c);
    if (st == REACH_SUCCESS)
        ctr_add(&c->ref, add, old);
    return st;
}

int reach_counter_read(reach_counter_t *c, int64_t *now)
{
    int st = counter_check("reach_counter_read", c);
    if (st == REACH_SUCCESS && now == NULL)
        st = rt_error(REACH_ERR_ARG, "reach_counter_read", "now is NULL");
    if (st == REACH_SUCCESS)
        ctr_add(&c->ref, 0, now);
    return st;
}

int reach_counter_add_wait(reach_counter_t *c, int64_t add, int64_t test, int64_t *now)
{
    int st = counter_check("reach_counter_add_wait", c);
    if (st != REACH_SUCCESS)
        return st;
    wait_for(WAIT_COUNTER, c->ref.home, 0, test);
    int64_t v = ctr_add_wait(&c->ref, add, test);
    wait_done();
    if (now)
        *now = v;
    return REACH_SUCCESS;
}

int reach_counter_wait(reach_counter_t *c, int64_t value, int64_t *now)
{
    int st = counter_check("reach_counter_wait", c);
    if (st != REACH_SUCCESS)
        return st;
    wait_for(WAIT_COUNTER, c->ref.home, 0, value);
    int64_t v = ctr_add_wait(&c->ref, 0, value);
    wait_done();
    if (now)
        *now = v;
    return REACH_SUCCESS;
}
