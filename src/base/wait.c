#include "base/wait.h"
#include "base/atomic.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

_Thread_local struct wait_state wait_now;
_Thread_local int wait_contended;
/* This thread's involuntary context switches when it last looked, and
 * when it last found that they had grown. */
static _Thread_local long wait_preemptions;
static _Thread_local double wait_preempted_at;
/* Looks (wait_tick) since the core was last found contended; this
 * thread's run-queue time (ns) when it last read it, from 0 at its start,
 * and when it was last found contended (-1: not known); the hold's
 * multiple, when the contended state last ended, and whether its sleeps
 * woke promptly (wait_look_at_core). */
static _Thread_local unsigned wait_calm, wait_hold = 1;
static _Thread_local long long wait_run_delayed, wait_held_delay = -1;
static _Thread_local double wait_calm_since = -1e9;
static _Thread_local int wait_woke_promptly;
/* When this thread last looked for ranks of its machine on its core;
 * whether it has looked at its core since it started or last forgot
 * (wait_forget_core). */
static _Thread_local double wait_spread_at;
static _Thread_local int wait_looked;

/* The description of a barrier wait, registered by the barrier. */
static wait_describe_fn barrier_describe;
static struct {
    _Atomic int checking; /* liveness checks are on (the networks' watches read it too) */
    double next_check;    /* when to look at the peers again */
    int lost;             /* a rank found gone, or -1 */
    double lost_at;       /* when it was found gone */
} wt = {.lost = -1};

static double wait_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A /proc file read into buf (len bytes, terminated); 0, or -1. */
static int wait_read_proc(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* /proc/PID/stat read into buf (len bytes): where its field 2, the
 * command name, ends, or NULL. The name may hold spaces and parentheses:
 * fields resume after the last ')'. */
static const char *wait_proc_stat(int pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    return wait_read_proc(path, buf, len) == 0 ? strrchr(buf, ')') : NULL;
}

int wait_proc_state(int pid, char *state, unsigned long long *start)
{
    char buf[1024];
    /* Field 3 is the state, field 22 the start time. */
    const char *p = wait_proc_stat(pid, buf, sizeof buf);
    if (p == NULL || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                            state, start) != 2)
        return -1;
    return 0;
}

/* The first failure the network reported, for the message: lost_said is
 * 1 while it is written, 2 once it may be read. */
static char lost_why[128];
static _Atomic int lost_said;

void wait_peer_lost(int rank, const char *why)
{
    int none = 0;
    if (atomic_compare_exchange_strong(&lost_said, &none, 1)) {
        snprintf(lost_why, sizeof lost_why, "%s", why);
        atomic_store(&lost_said, 2);
    }
    atomic_store_explicit(&rt.peers[rank].lost, 1, memory_order_release);
}

void wait_forget_lost(void)
{
    atomic_store(&lost_said, 0);
}

int wait_peer_gone(int rank)
{
    return atomic_load_explicit(&rt.peers[rank].lost, memory_order_acquire) ||
           (rt.cfg.peer_proc && wait_proc_gone(rank));
}

int wait_rank_ended(int rank)
{
    for (int ms = 0; ms < 1000; ms += 5) {
        if (wait_peer_gone(rank) || wait_proc_gone(rank))
            return 1;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    return 0;
}

/* Whether rank's pid names a process here at all: another rank of this
 * machine, in this pid namespace. */
static int wait_proc_visible(int rank)
{
    const peer_t *p = &rt.peers[rank], *me = &rt.peers[rt.rank];
    return rank != rt.rank && p->machine == me->machine && p->pidns == me->pidns && p->pidns != 0;
}

/* 1 if rank's process is the one its pid names here (its start time), with
 * its state letter in *state. */
static int wait_proc_is(int rank, char *state)
{
    unsigned long long start;
    return wait_proc_state(rt.peers[rank].pid, state, &start) == 0 && start == rt.peers[rank].pstart;
}

int wait_proc_gone(int rank)
{
    char state;
    if (!wait_proc_visible(rank))
        return 0;
    return !wait_proc_is(rank, &state) || state == 'Z' || state == 'X' || state == 'x';
}

int wait_proc_alive(int rank)
{
    char state;
    return wait_proc_visible(rank) && wait_proc_is(rank, &state) && state != 'Z' && state != 'X' && state != 'x';
}

int wait_watched(int rank)
{
    return rt.cfg.peer_timeout > 0 && rank != rt.rank && !(rt.cfg.peer_proc && wait_proc_visible(rank));
}

void wait_watch_round(wait_ping_t *pings, double *next, int (*ping)(int rank), const char *net)
{
    double now = wait_clock();
    if (rt.cfg.peer_timeout <= 0 || !wt.checking || now < *next)
        return;
    *next = now + rt.cfg.peer_timeout / 4;
    for (int r = 0; r < rt.size; r++) {
        wait_ping_t *p = &pings[r];
        if (!wait_watched(r) || wait_peer_gone(r)) {
            p->since = 0;
        } else if (p->since != 0 && now - p->since >= rt.cfg.peer_timeout) {
            char why[128];
            snprintf(why, sizeof why, "%s: rank %d has not answered the watch's ping for %.1f s", net, r,
                     now - p->since);
            wait_peer_lost(r, why);
        } else if (ping(r) < 0) {
            p->since = 0;
        } else if (p->since == 0) { /* (also when the backend could not take it: that can last) */
            p->since = now;
        }
    }
}

void wait_watch_failed(int rank, const char *net, const char *why)
{
    char text[128];
    snprintf(text, sizeof text, "%s: the watch cannot reach rank %d: %s", net, rank, why);
    wait_peer_lost(rank, text);
}

void wait_describe_barrier(wait_describe_fn fn)
{
    barrier_describe = fn;
}

void wait_start_checks(void)
{
    wt.checking = 1;
    wt.next_check = 0;
    wt.lost = -1;
    wait_now.what.kind = WAIT_NONE;
}

void wait_stop_checks(void)
{
    wt.checking = 0;
}

/* "for mutex 3 of rank 0, held by rank 2" and the like. */
static void wait_describe(char *buf, size_t len)
{
    const wait_what_t *w = &wait_now.what;
    switch (w->kind) {
    case WAIT_MUTEX: {
        int n = snprintf(buf, len, "for mutex %d of rank %d", w->id, w->rank);
        if (w->ahead == WAIT_AHEAD_AT_HOME)
            snprintf(buf + n, len - (size_t)n,
                     ", queued behind a rank of its node (its holder, or a rank waiting ahead)");
        else if (w->ahead < 0)
            snprintf(buf + n, len - (size_t)n, " (the ticket and hybrid locks do not record their holder)");
        else if (w->ahead_waits == NULL)
            snprintf(buf + n, len - (size_t)n, ", queued behind rank %d (its holder, or a rank waiting ahead)",
                     w->ahead);
        else if (atom_load_acquire(w->ahead_waits) != 0)
            snprintf(buf + n, len - (size_t)n, ", queued behind rank %d, which waits for it as well", w->ahead);
        else
            snprintf(buf + n, len - (size_t)n, ", held by rank %d", w->ahead);
        break;
    }
    case WAIT_BARRIER:
        if (barrier_describe)
            barrier_describe(w, buf, len);
        else
            snprintf(buf, len, "in a barrier");
        break;
    case WAIT_COUNTER:
        snprintf(buf, len, "for the counter of rank %d to reach %lld", w->rank, (long long)w->value);
        break;
    case WAIT_WINDOW:
        snprintf(buf, len, "for the %s lock of rank %d's window (holders are not recorded)",
                 w->id == REACH_LOCK_EXCLUSIVE ? "exclusive" : "shared", w->rank);
        break;
    case WAIT_NOTIFY: snprintf(buf, len, "for notification %lld from rank %d", (long long)w->value, w->rank); break;
    default: snprintf(buf, len, "for a transfer, fence or window epoch to complete"); break;
    }
}

int wait_proc_cpu(int pid)
{
    char buf[1024];
    int cpu = -1;
    const char *p = wait_proc_stat(pid, buf, sizeof buf);
    for (int field = 2; p && field < 39; field++)
        p = strchr(p + 1, ' ');
    if (p == NULL || sscanf(p + 1, "%d", &cpu) != 1)
        return -1;
    return cpu;
}

int wait_less_crowded(int here, const void *allowed, const int *on)
{
    int best = here;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, (const cpu_set_t *)allowed) && on[c] < on[best])
            best = c;
    return best;
}

/* Keeps a machine's ranks off one core. The kernel wakes a sleeping thread
 * near the thread that woke it, so two ranks that wake each other (a
 * barrier's, a lock's) gather on one core. Beside busy neighbours that is
 * a slice's wait at each hand-over: the one that sleeps leaves the core to
 * a neighbour, which runs until the next tick (4 ms at HZ 250), not to the
 * rank it woke. Two ranks of GA_Sync beside 4 CPU loops on 2 cores took
 * 8 ms a barrier so, as when bound to one core; bound to a core each,
 * 0.2 us in 2 sittings of 3. So when this
 * thread finds it has been preempted, at most every WAIT_CONTENDED_MS, it
 * looks where its machine's other ranks last ran: its node's, and those
 * of the machine's other nodes (REACH_NODE_SIZE), which gather as well
 * (every rank its own node, perf sched found both ranks of a
 * notification's round trip on one core and both server threads on the
 * other, 19-25 us a round trip against 0.5). Every rank's entry is
 * looked at, but /proc is read only for those of this machine. If one
 * shares its core and
 * a core it may run on holds fewer, it moves there: its affinity is set to
 * that core, which moves it at once, then given back as it was, so that a
 * binding of the user's or the launcher's stays. Beside the same loops the
 * barriers then took 0.4-3 us (docs/benchmarks.md, "Beside busy
 * neighbours"). The core read is that of each rank's main thread, the
 * one that calls reach unless the program calls it from others. */
static void wait_spread(double now)
{
    if (rt_on_server || rt.size < 2 || rt.peers == NULL || now - wait_spread_at < WAIT_CONTENDED_MS * 1e-3)
        return;
    wait_spread_at = now;
    cpu_set_t allowed;
    int here = sched_getcpu(), on[CPU_SETSIZE] = {0};
    if (here < 0 || here >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
        CPU_COUNT(&allowed) < 2)
        return;
    for (int r = 0; r < rt.size; r++) {
        int cpu = wait_proc_visible(r) ? wait_proc_cpu(rt.peers[r].pid) : -1;
        if (cpu >= 0 && cpu < CPU_SETSIZE)
            on[cpu]++;
    }
    int best = wait_less_crowded(here, &allowed, on);
    if (best == here)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(best, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0)
        sched_setaffinity(0, sizeof allowed, &allowed);
}

unsigned wait_next_hold(unsigned hold, int soon, int prompt, int net)
{
    if (!soon || !(prompt || net))
        return 1;
    return 2 * hold < WAIT_HOLD_MOST ? 2 * hold : WAIT_HOLD_MOST;
}

/* The time this thread has spent runnable but not running, in ns
 * (/proc/thread-self/schedstat's second field), or -1 where the kernel
 * does not keep it (no such file, or "0 0 0"). */
static long long wait_run_delay(void)
{
    char buf[96];
    long long run, delay;
    if (wait_read_proc("/proc/thread-self/schedstat", buf, sizeof buf) != 0 ||
        sscanf(buf, "%lld %lld", &run, &delay) != 2 || run == 0)
        return -1;
    return delay;
}

/* Whether this thread's core is contended now (wait_spins): whether it
 * was preempted since it last looked, and kept off its core long enough
 * for it to matter. The run-queue time is read after a preemption (so
 * its growth also holds the wake-ups of the sleeps since the last read)
 * and when the contended state ends (how promptly its sleeps woke). A
 * look that is not calm (a spin's, wait_look) does not count towards the
 * state's end: while the state holds, a spin reaches WAIT_LOOK_EVERY
 * polls only in a wait that keeps polling past its limit (a server's
 * own queue, an MCS slot's reclaim). net: the look of a network wait's
 * spin. */
static void wait_look_at_core(double now, int calm, int net)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return;
    if (!wait_looked || ru.ru_nivcsw < wait_preemptions) { /* the first look (or a child of fork's): counts only */
        long long delay = wait_run_delay();
        wait_looked = 1;
        wait_preemptions = ru.ru_nivcsw;
        wait_run_delayed = delay > 0 ? delay : 0;
        return;
    }
    long preempted = ru.ru_nivcsw - wait_preemptions;
    if (preempted > 0) {
        wait_preemptions = ru.ru_nivcsw;
        long long delay = wait_run_delay();
        int lost = delay < 0 || (delay - wait_run_delayed) / preempted >= WAIT_LOST_US * 1000LL;
        if (delay >= 0)
            wait_run_delayed = delay;
        wait_spread(now);
        if (lost) {
            if (!wait_contended)
                wait_hold = wait_next_hold(wait_hold, now - wait_calm_since < WAIT_CONTENDED_MS * 1e-3,
                                           wait_woke_promptly, net);
            wait_preempted_at = now;
            wait_held_delay = delay;
            wait_contended = 1;
            wait_calm = 0;
            return;
        }
    }
    if (wait_contended && calm &&
        (++wait_calm >= WAIT_CALM_SLEEPS * wait_hold ||
         now - wait_preempted_at >= WAIT_CONTENDED_MS * 1e-3 * wait_hold)) {
        long long delay = wait_run_delay();
        wait_woke_promptly = delay >= 0 && wait_held_delay >= 0 &&
                             delay - wait_held_delay < (long long)wait_calm * WAIT_PROMPT_WAKE_US * 1000;
        wait_contended = 0;
        wait_calm_since = now;
    }
}

void wait_forget_core(void)
{
    wait_looked = 0;
    wait_contended = 0;
    wait_calm = 0;
    wait_hold = 1;
}

void wait_look(int net)
{
    wait_look_at_core(wait_clock(), 0, net);
}

void wait_woke(int timed_out, int missed)
{
    if (timed_out)
        rt_stat_inc(&rt.stats.wait_timeouts);
    if (timed_out && missed)
        rt_stat_inc(&rt.stats.wait_missed);
}

void wait_tick(void)
{
    double now = wait_clock();
    wait_look_at_core(now, 1, 0);
    if (rt_on_server)
        return;
    if (wait_now.since == 0) {
        wait_now.since = now;
    } else if (wait_now.what.kind != WAIT_NONE && !wait_now.reported && rt.cfg.wait_report > 0 &&
               now - wait_now.since >= rt.cfg.wait_report) {
        char what[256];
        wait_describe(what, sizeof what);
        fprintf(stderr, "reach: rank %d: has waited %.1f s %s; still waiting (REACH_WAIT_REPORT)\n", rt.rank,
                now - wait_now.since, what);
        wait_now.reported = 1;
    }
    if (!wt.checking || rt.cfg.peer_timeout <= 0)
        return;
    if (wt.lost < 0 && now >= wt.next_check) {
        wt.next_check = now + 0.2;
        for (int r = 0; r < rt.size && wt.lost < 0; r++)
            if (wait_peer_gone(r)) {
                wt.lost = r;
                wt.lost_at = now;
            }
    }
    if (wt.lost >= 0 && now - wt.lost_at >= rt.cfg.peer_timeout) {
        /* Every rank gone by now, "3 (pid 812), 5 (pid 830)". */
        char who[256], what[256];
        int n = 0, count = 0;
        for (int r = wt.lost; r < rt.size && n < (int)sizeof who - 32; r++)
            if (wait_peer_gone(r))
                n +=
                    snprintf(who + n, sizeof who - (size_t)n, "%s%d (pid %d)", count++ ? ", " : "", r, rt.peers[r].pid);
        wait_describe(what, sizeof what);
        char net[160] = "";
        if (atomic_load(&lost_said) == 2)
            snprintf(net, sizeof net, " (the network reports: %s)", lost_why);
        rt_fatal("rank%s %s %s ended without reach_finalize (killed, crashed or exited)%s%s, and this "
                 "rank still waits %s; ending the job",
                 count > 1 ? "s" : "", who, count > 1 ? "have" : "has", net[0] ? " or cannot be reached" : "", net,
                 what);
    }
}
