/* The protocol's server thread (and the application thread's serving
 * while it waits), the choice of network backend, and start-up and
 * shut-down of the network. What the server does with each request is
 * target.c's.
 *
 * Why a server thread per process rather than one per node: a network's
 * software RMA (UCX's) needs the target's own worker progressed, and a
 * per-node server would need a second endpoint mesh on top of the
 * per-process one; the per-process thread costs nothing while it sleeps. */
#include "transport/am/am_internal.h"
#include "base/trace.h"
#include "boot/boot.h"
#include "transport/shm/shm_ops.h"

#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct am_state am;

/* The network backends this build has, by REACH_NETWORK's choice. */
static const net_backend_t *const net_backends[NETWORK_KINDS] = {
#ifdef REACH_HAVE_UCX
    [NETWORK_UCX] = &net_ucx,
#endif
#ifdef REACH_HAVE_OFI
    [NETWORK_OFI] = &net_ofi,
#endif
};

/* The backend a REACH_NETWORK choice names (auto: the first this build
 * has): its index, NETWORK_AUTO if this build has none. */
static int am_network(int choice)
{
    for (int k = NETWORK_AUTO + 1; choice == NETWORK_AUTO && k < NETWORK_KINDS; k++)
        if (net_backends[k])
            choice = k;
    return choice;
}

/* One round of serving: handler requests to retry, then what the server
 * worker has received; then, if it found nothing (or completed a request
 * that asked for AM_TELL_ROUND, or has handled AM_TELL_EVERY events
 * since), the origins whose writes completed are told. The caller holds
 * am.serve. */
static unsigned am_serve(void)
{
    rt_order_acquire();
    unsigned progressed = am.retries ? am_retry() : 0;
    progressed += am.net->progress(NET_SERVER);
    am.untold_events += progressed;
    if (am.nuntold && (!progressed || am.tell_round || am.untold_events >= AM_TELL_EVERY)) {
        am.untold_events = 0;
        am_tell_done();
    }
    rt_order_release();
    return progressed;
}

/* Why the application thread serves too: with the server thread asleep, a
 * request to a process that is itself waiting (in a barrier, for a lock,
 * for a reply) would cost a wake-up of that thread (~15 us) on the
 * requester's critical path. A waiting application thread takes am.serve
 * when it is free and serves the request at once; the server thread holds
 * am.serve while it runs and lets go of it only to sleep, so no two threads
 * ever progress the server worker at once. */
unsigned am_serve_try(void)
{
    uint32_t free_value = 0;
    if (!atom_cas_acquire(&am.serve, &free_value, 1))
        return 0;
    unsigned progressed = am_serve();
    /* The server thread tells once a round finds nothing. This thread may
     * not come back for another round: its wait may end, or sleep on the
     * client's descriptor (10 ms), while the server thread sleeps with no
     * new request to wake it. A tell left listed waited for one or the
     * other: a fence between two machines took 10 ms in about 1 of 3000,
     * where it takes 25 us. */
    if (am.nuntold)
        am_tell_done();
    futex_mutex_unlock(&am.serve);
    return progressed;
}

static void am_serve_poll(void)
{
    am_serve_try();
}

/* One round of the client worker's progress by the application thread:
 * before a wait's sleep (waitword_sleeping) and in reach_progress. (Never
 * inside a handler of the client worker: progressing that worker from its
 * own callback is not allowed; no public call runs in one.) */
static void am_progress_client(void)
{
    rt_order_release();
    am.net->progress(NET_CLIENT);
    rt_order_acquire();
}

void am_progress(void)
{
    if (am.net == NULL)
        return;
    am_progress_client();
    am_serve_try();
}

/* A busy server runs the backend's watch once in this many rounds (and an
 * idle one when its sleep times out or the watch has news), always while
 * it holds am.serve: libfabric's watch shares the server's endpoint. */
#define AM_WATCH_EVERY 4096

/* The kernel's struct sched_attr, its first version (48 bytes). */
struct am_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

/* Asks the scheduler for a short slice for this thread (REACH_SERVER_SLICE;
 * EEVDF, Linux 6.12 and later): a woken thread with a shorter slice than
 * the one running gets an earlier deadline, and so the core at once. A
 * rank bound to one core (Open MPI's default at 2 processes or fewer, or
 * -bind-to core) shares it between its computing thread and its server,
 * which without this waits out the computing thread's slice (milliseconds)
 * before it serves a request. Only the slice changes: the policy (if it is
 * SCHED_OTHER or SCHED_BATCH; a real-time one is left alone), nice value
 * and flags are read first and kept. On older kernels the slice is not
 * used; a kernel that refuses it leaves the default. */
static void am_server_slice(void)
{
    struct am_sched_attr a = {0};
    if (rt.cfg.server_slice_us == 0 || syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) != 0 ||
        (a.policy != SCHED_OTHER && a.policy != SCHED_BATCH))
        return;
    a.size = sizeof a;
    a.runtime = (uint64_t)rt.cfg.server_slice_us * 1000;
    (void)syscall(SYS_sched_setattr, 0, &a, 0);
}

/* The server polls a little after its last request (REACH_SERVER_SPIN
 * empty progress calls), so that a burst of requests does not pay a
 * wake-up each; then it sleeps on the worker's file descriptor. It polls
 * briefly: a polling server takes the core that the process's own woken
 * thread needs (2 ranks on 2 cores: barrier 14 us at 50 calls, 135 us at
 * 2000). Woken while the application thread serves, it waits for am.serve. */
void *am_server_main(void *arg)
{
    (void)arg;
    rt_on_server = 1;
    am_server_slice();
    unsigned idle = 0;
    futex_mutex_lock(&am.serve);
    for (unsigned round = 1; !atomic_load(&am.stop); round++) {
        if (round % AM_WATCH_EVERY == 0)
            am.net->progress(NET_WATCH);
        if (am_serve()) {
            idle = 0;
            continue;
        }
        /* (idle stays up: woken, the server spins again only once it has
         * served something, so a wake that brings nothing costs one round) */
        if (++idle < rt.cfg.server_spin)
            continue;
        if (!am.net->arm(NET_SERVER))
            continue;
        if (!am.net->arm(NET_WATCH)) {
            am.net->progress(NET_WATCH);
            continue;
        }
        int retrying = am.retries != NULL;
        futex_mutex_unlock(&am.serve);
        struct pollfd pfd[2] = {{am.net->fd(NET_SERVER), POLLIN, 0}, {am.net->fd(NET_WATCH), POLLIN, 0}};
        /* An idle process sleeps here (waking as the backend's checks
         * on its peers need); with requests waiting for a lock that
         * others release by remote atomics, it looks again each ms. */
        int woken = poll(pfd, pfd[1].fd >= 0 ? 2 : 1, retrying ? 1 : am.net->idle_ms());
        rt_stat_inc(&rt.stats.server_wakeups);
        futex_mutex_lock(&am.serve);
        if (woken == 0 || (pfd[1].fd >= 0 && pfd[1].revents != 0)) /* not on the way to a request */
            am.net->progress(NET_WATCH);
    }
    futex_mutex_unlock(&am.serve);
    return NULL;
}

/* ---- start-up and shut-down ---------------------------------------------------- */

static const net_upcalls_t am_upcalls = {am_on_request, am_on_reply, am_on_push, am_received};

static void am_free_state(void)
{
    free(am.pending);
    free(am.sent);
    free(am.fenced);
    free(am.quiet);
    free(am.since_ack);
    free(am.waited);
    for (int r = 0; am.flight && r < rt.size; r++)
        free(am.flight[r].ring);
    free(am.flight);
    free(am.done_from);
    free(am.told);
    free(am.want);
    free(am.untold);
    free(am.listed);
    free(am.tell_cause);
    free(am.asked);
    free(am.same_process);
    free(am.bounce);
    while (am.retries) { /* none if every origin saw its requests done */
        am_retry_t *r = am.retries;
        am.retries = r->next;
        free(r);
    }
    memset(&am, 0, sizeof am);
}

int am_init(void)
{
    if (rt.node_count < 2)
        return REACH_SUCCESS;
    /* Every rank's arena base (addresses on other nodes are theirs) and
     * network backend, in one exchange. */
    struct {
        uintptr_t base;
        int64_t chosen;
    } mine = {(uintptr_t)shm_arena_base(), am_network(rt.cfg.network)}, *all = malloc(sizeof mine * (size_t)rt.size);
    if (!all)
        rt_oom("reach_init", sizeof mine * (size_t)rt.size);
    boot_allgather(rt.comm, &mine, sizeof mine, all);
    int chosen = (int)mine.chosen, alike = 1;
    for (int r = 0; r < rt.size; r++) {
        rt.peers[r].rbase = all[r].base;
        alike &= all[r].chosen == mine.chosen;
    }
    free(all);
    const net_backend_t *net = net_backends[chosen];
    if (net == NULL)
        rt_error(REACH_ERR_ARG, "reach_init",
                 "this build of reach has no %s network backend "
                 "(REACH_NETWORK; its library was not found when reach was built)",
                 getenv("REACH_NETWORK"));
    if (!alike) {
        if (rt.rank == 0)
            rt_error(REACH_ERR_ARG, "reach_init", "the ranks chose different network backends (REACH_NETWORK)");
        return REACH_ERR_ARG;
    }
    if (net == NULL) /* on every rank: they chose the same */
        return REACH_ERR_ARG;
    if (trace_on)
        net = am_trace_net(net);
    int st = net->init(shm_arena_base(), shm_arena_size(), &am_upcalls);
    if (st != REACH_SUCCESS)
        return st;
    size_t n = (size_t)rt.size;
    am.pending = calloc(n, sizeof(int));
    am.sent = calloc(n, sizeof(uint32_t));
    am.fenced = calloc(n, sizeof(uint32_t));
    am.quiet = calloc(n, sizeof(uint32_t));
    am.since_ack = calloc(n, sizeof(uint32_t));
    am.waited = calloc(n, sizeof(uint32_t));
    am.flight = calloc(n, sizeof(am_flight_t));
    am.done_from = calloc(n, sizeof(uint32_t));
    am.told = calloc(n, sizeof(uint32_t));
    am.want = calloc(n, sizeof(uint32_t));
    am.untold = calloc(n, sizeof(int));
    am.listed = calloc(n, 1);
    am.asked = calloc(n, sizeof(uint32_t));
    am.same_process = calloc(n, 1);
    am.bounce = malloc(sizeof(am_pack_t) + AM_PACK_MAX);
    if (!am.pending || !am.sent || !am.fenced || !am.quiet || !am.since_ack || !am.waited || !am.flight ||
        !am.done_from || !am.told || !am.want || !am.untold || !am.listed || !am.asked || !am.same_process ||
        !am.bounce)
        rt_oom("reach_init", sizeof(am_pack_t) + AM_PACK_MAX);
    if (trace_on && !(am.tell_cause = calloc(n, sizeof(uint64_t))))
        rt_oom("reach_init", n * sizeof(uint64_t));
    atom_store_relaxed(&am.done.value, 0);
    if (net->acc_chunk == 0 || net->acc_chunk % 16)
        rt_fatal("network backend: its accumulate chunk (%zu) is not a positive multiple of 16", net->acc_chunk);
    am.net = net;
    waitword_poll = am_serve_poll;
    waitword_sleeping = am_progress_client;
    rt_order_threads = 1;
    if (pthread_create(&am.thread, NULL, am_server_main, NULL) != 0)
        rt_fatal("reach_init: cannot start the server thread");
    return REACH_SUCCESS;
}

/* Shut down in steps that every rank takes together: once nobody sends,
 * the servers stop, then the backend closes. */
void am_finalize(void)
{
    if (am.net == NULL)
        return;
    am_flush_all();
    boot_barrier();
    atomic_store(&am.stop, 1);
    am.net->signal(NET_SERVER);
    pthread_join(am.thread, NULL);
    waitword_poll = NULL;
    waitword_sleeping = NULL;
    rt_order_threads = 0;
    am.net->finalize();
    am_free_state();
}

const char *am_describe(void)
{
#define AM_NETWORK_NAME(constant, name) name,
    static const char *const names[NETWORK_KINDS] = {CONFIG_NETWORK_CHOICES(AM_NETWORK_NAME)};
#undef AM_NETWORK_NAME
    static char line[192];
    config_t cfg;
    int choice = rt.initialized ? rt.cfg.network : (config_load(&cfg), cfg.network);
    const net_backend_t *net = net_backends[am_network(choice)];
    int n =
        snprintf(line, sizeof line, "%s (REACH_NETWORK: this build has", net ? net->describe() : "no network backend");
    for (int k = NETWORK_AUTO + 1; k < NETWORK_KINDS; k++)
        if (net_backends[k] && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, " %s", names[k]);
    if (n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ")");
    return line;
}
