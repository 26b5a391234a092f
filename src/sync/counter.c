/* Notifying counters: the home side (run by whoever changes a counter) and
 * the public calls. See counter.h. */
#include "sync/counter.h"
#include "base/handle.h"
#include "base/wait.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/rma.h"
#include "core/service.h"
#include "sync/calls.h"
#include "sync/sync.h"

#include <stdlib.h>
#include <string.h>

/* ---- the home side ----------------------------------------------------------- */

size_t ctr_home_size(void)
{
    size_t bytes = sizeof(ctr_home_t) + sizeof(ctr_want_t) * (size_t)rt.size;
    return (bytes + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
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

void ctr_home_push(ctr_home_t *h, int64_t value, ctr_push_fn push)
{
    for (int r = 0; r < rt.size; r++)
        if (atom_load_acquire(&h->want[r].waiting) && atom_load_relaxed(&h->want[r].target) <= value)
            ctr_claim(h, r, value, push);
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

/* ---- the home's handlers, for processes on other nodes ------------------------ */

static int ctr_id_add, ctr_id_want, ctr_id_lock, ctr_id_try;

static int ctr_serve_add(svc_target_t *t)
{
    t->value = ctr_home_add((ctr_home_t *)(void *)t->local, (int64_t)t->a, svc_server_push);
    return 1;
}

/* Adds a (if not 0), then registers the origin until the value reaches b. */
static int ctr_serve_want(svc_target_t *t)
{
    ctr_home_t *h = (ctr_home_t *)(void *)t->local;
    if (t->a != 0)
        ctr_home_add(h, (int64_t)t->a, svc_server_push);
    ctr_home_want(h, t->origin, (int64_t)t->b, svc_server_push);
    return 1;
}

static int ctr_serve_lock(svc_target_t *t)
{
    ctr_lock_request((ctr_home_t *)(void *)t->local, t->origin, svc_server_push);
    return 1;
}

static int ctr_serve_try(svc_target_t *t)
{
    t->value = ctr_lock_try((ctr_home_t *)(void *)t->local);
    return 1;
}

void counter_register(void)
{
    /* An add without a result is a counted write, complete at a fence. */
    ctr_id_add = svc_handler(ctr_serve_add, 1);
    ctr_id_want = svc_handler(ctr_serve_want, 0);
    ctr_id_lock = svc_handler(ctr_serve_lock, 0);
    ctr_id_try = svc_handler(ctr_serve_try, 0);
}

/* ---- the side of a process using a counter ------------------------------------ */

/* A request to the counter's home on another node: a remote atomic. */
static int64_t ctr_call(const ctr_ref_t *c, int id, int64_t a, int64_t b, int answer)
{
    rt_stat_inc(&rt.stats.remote_atomics);
    return svc_call(c->home, id, c->raddr, (uint64_t)a, (uint64_t)b, NULL, 0, answer, NULL, 0);
}

int ctr_alloc(const char *call, int home, int64_t initial, ctr_ref_t *ref, void **mine)
{
    void **bases = malloc(sizeof(void *) * (size_t)rt.size);
    if (!bases)
        rt_oom(call, sizeof(void *) * (size_t)rt.size);
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
    ctr_home_t *h = ctr_here(c);
    int64_t o = h ? ctr_home_add(h, add, svc_push) : ctr_call(c, ctr_id_add, add, 0, old != NULL);
    if (old)
        *old = o;
}

void ctr_release_add(const ctr_ref_t *c, int64_t add)
{
    ctr_home_t *h = ctr_here(c);
    if (h) {
        rma_release();
        ctr_home_add(h, add, svc_push);
        return;
    }
    rt_stat_inc(&rt.stats.remote_atomics);
    svc_call_after(c->home, ctr_id_add, c->raddr, (uint64_t)add, 0, svc_release_but(c->home));
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
    ctr_home_t *h = ctr_here(c);
    if (h) {
        if (add != 0)
            ctr_home_add(h, add, svc_push);
        return ctr_wait_here(h, target);
    }
    ctr_call(c, ctr_id_want, add, target, 0);
    return svc_wait_push();
}

void ctr_lock_at_home(const ctr_ref_t *taken)
{
    ctr_call(taken, ctr_id_lock, 0, 0, 0);
    svc_wait_push();
}

int ctr_try_lock(const ctr_ref_t *taken)
{
    ctr_home_t *h = ctr_here(taken);
    return h ? ctr_lock_try(h) : (int)ctr_call(taken, ctr_id_try, 0, 0, 1);
}

/* ---- the public calls ---------------------------------------------------------- */

#define COUNTER_MAGIC 0x434e5452u /* "CNTR" */

struct reach_counter {
    uint32_t magic;
    ctr_ref_t ref;
    void *mine; /* the home's block, NULL elsewhere */
    reach_counter_t *next_live;
};

static reach_counter_t *live; /* destroyed at finalize */
static handle_pool_t counter_pool;

static int counter_check(const char *call, reach_counter_t *c)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, call, "reach is not initialized");
    if (c == NULL || c->magic != COUNTER_MAGIC)
        return rt_error(REACH_ERR_HANDLE, call, "counter %p is not a live counter", (void *)c);
    return REACH_SUCCESS;
}

int counter_create(int home, int64_t initial, reach_counter_t **out)
{
    const char *call = "reach_counter_create";
    int st = rt_check_rank(call, home);
    if (st == REACH_SUCCESS && out == NULL)
        st = rt_error(REACH_ERR_ARG, call, "the output pointer is NULL");
    if (!rt.initialized)
        return st;
    /* Every rank must name the same home. */
    int lo, hi;
    if (!boot_all_same(rt.comm, home, &lo, &hi) && st == REACH_SUCCESS)
        st = rt_error(REACH_ERR_ARG, call, "the ranks named different homes (%d to %d)", lo, hi);
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;

    reach_counter_t *c = handle_new(&counter_pool, sizeof *c);
    if (!c)
        rt_oom(call, sizeof *c);
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

int counter_destroy(reach_counter_t *c)
{
    const char *call = "reach_counter_destroy";
    int st = counter_check(call, c);
    if (st != REACH_SUCCESS)
        return st;
    rma_flush_all(); /* this process's adds land before the home is freed */
    st = mem_free_collective(call, &group_world, c->mine, 0);
    HANDLE_UNLINK(&live, c, next_live);
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

int counter_add(reach_counter_t *c, int64_t add, int64_t *old)
{
    int st = counter_check("reach_counter_add", c);
    if (st == REACH_SUCCESS)
        ctr_add(&c->ref, add, old);
    return st;
}

int counter_read(reach_counter_t *c, int64_t *now)
{
    int st = counter_check("reach_counter_read", c);
    if (st == REACH_SUCCESS && now == NULL)
        st = rt_error(REACH_ERR_ARG, "reach_counter_read", "now is NULL");
    if (st == REACH_SUCCESS)
        ctr_add(&c->ref, 0, now);
    return st;
}

int counter_add_wait(reach_counter_t *c, int64_t add, int64_t test, int64_t *now)
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

int counter_wait(reach_counter_t *c, int64_t value, int64_t *now)
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
