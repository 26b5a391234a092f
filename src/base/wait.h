/* Long waits. Every place where a process sleeps (a futex on a shared word,
 * the network worker's descriptor) calls wait_tick() each time it wakes, at
 * least every WAIT_SLEEP_MS. The tick does two things:
 *
 * - Lost peers: a rank that ended without reach_finalize (killed,
 *   crashed, exited) can never answer; once one has been gone for
 *   REACH_PEER_TIMEOUT seconds and this process still waits, the job ends
 *   with a message naming that rank. Two things find such a rank. The
 *   tick checks, a few times a second, that the ranks on this machine are
 *   still running (their /proc entry, with the start time recorded at
 *   reach_init, so a reused pid does not count; REACH_PEER_PROC=0 turns
 *   this off). And the network backend reports a rank of another node
 *   whose failure it has seen (wait_peer_lost), from whichever thread
 *   progressed it.
 * - Deadlock help: a process that has waited REACH_WAIT_REPORT seconds in a
 *   mutex, barrier, counter, notification or window lock prints, once per
 *   wait, what it waits for and who holds it, and keeps waiting.
 *
 * The calls that wait name what they wait for with wait_for(), and
 * wait_done() when they return; only the application thread does (the
 * server thread's ticks, rt_on_server, do nothing). */
#ifndef REACH_BASE_WAIT_H
#define REACH_BASE_WAIT_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/state.h"
#include "base/trace.h"

/* The longest a waiting process sleeps before it looks again. */
#define WAIT_SLEEP_MS 100

/* How long a wait spins before it sleeps. A spin pays only while the
 * thread's core is its own: where another runnable thread shares it (a
 * rank of the same job, the process's server thread, another job), the
 * spin takes the core from the very thread that would end the wait, or
 * runs the thread's share of it out so that the scheduler then makes it
 * wait a whole slice behind the others. Two ranks of a barrier on one of
 * 2 cores, beside 4 busy processes: each barrier cost the 2000 polls'
 * 65 us; sleeping at once, it costs a wake-up. So before each sleep the
 * thread asks the kernel whether it has been preempted since it last
 * asked (its involuntary context switches) and, if so, how long it has
 * stood runnable on a run queue since it last read that
 * (/proc/thread-self/schedstat). If that comes to WAIT_LOST_US or more
 * a preemption, a slice of another thread's, its waits spin
 * WAIT_SPIN_CONTENDED polls (REACH_SPIN_COUNT if fewer), until
 * WAIT_CALM_SLEEPS looks (wait_tick: one before each sleep, or each
 * yield of a yielding wait) or WAIT_CONTENDED_MS pass without such a
 * preemption; then REACH_SPIN_COUNT again. Where the kernel keeps no
 * run-queue time, every preemption counts.
 *
 * Both limits break a trap of the short spin's own making. A thread that
 * sleeps at every wait leaves its core idle, and waking an idle core
 * took 20-30 us on the 2-core reference machine (a virtual machine); a
 * thread woken that way, or a server thread that runs a few microseconds
 * on its core, preempts it now and then. With the flag held for 50 ms
 * after any preemption, two ranks in reach-bench's 20 ms barrier test
 * stayed in that state once one of them had been preempted: 22-35 us a
 * barrier against 0.04-0.35, 1 sitting in 6 (perf sched: each rank
 * slept at every barrier, and the other waited 24 us for the core it
 * woke).
 *
 * A long spin also looks, every WAIT_LOOK_EVERY polls (wait_spin_on).
 * A spin whose event comes before it would sleep never ticks; where the
 * scheduler preempts it, the event comes a slice later, still within the
 * spin, and so the thread would hold its core through every wait.
 *
 * And where the waits' own spins make the contention, the hold grows: if
 * the state's sleeps woke promptly (their run-queue time came to less
 * than WAIT_PROMPT_WAKE_US a sleep: the cores were idle while this
 * thread slept), a core found contended again within WAIT_CONTENDED_MS
 * of the state's end doubles both limits, up to WAIT_HOLD_MOST times;
 * found contended later, or after slow wake-ups, they are back to one.
 * Else each end of the state costs a preempted spin, a slice. Four ranks
 * of a barrier on four emulated machines sharing 2 cores (UCX,
 * REACH_SPIN_COUNT 2000): 1.19 ms a barrier, one message in six taking
 * 1-2 ms; with 20 polls, 0.26 ms. Beside another job's busy pollers,
 * each sleep waits for a poller's core, and the spins pay: there, holding
 * the state longer made GA_Dgop of 10,000 doubles 3 times slower.
 *
 * A network wait's spin is the exception (wait_net_spin_on): found
 * preempted by its own look, it doubles the hold after slow wake-ups
 * too. Its poll is a call into the network, a system call or more: 1.5
 * us over UCX's TCP on the reference machine, against a shared word's
 * 33 ns. So its REACH_SPIN_COUNT polls last about 3 ms, a slice or more.
 * On a shared core such a spin is preempted, and it holds the core from
 * the thread it waits for when that one shares it. Two ranks of two
 * emulated machines shared one core beside a CPU loop, which kept its
 * slice, so their wake-ups were slow. NGA_Create took 1.59-1.62 ms
 * (median): each state ended after 8 sleeps and came back at the next
 * long spin. With the longer hold it took 0.13 ms (docs/benchmarks.md,
 * "Spins that lose their core"). */
#define WAIT_SPIN_CONTENDED 20
#define WAIT_CONTENDED_MS 50
#define WAIT_LOST_US 200
#define WAIT_CALM_SLEEPS 8
#define WAIT_PROMPT_WAKE_US 50
#define WAIT_HOLD_MOST 64

extern _Thread_local int wait_contended REACH_HIDDEN;

/* The hold's multiple for a contended state that begins now, after one
 * of hold. It is twice that, at most WAIT_HOLD_MOST, if the last state
 * ended less than WAIT_CONTENDED_MS ago (soon) and either its sleeps
 * woke promptly or a network wait's spin found this one (net). Else 1. */
unsigned wait_next_hold(unsigned hold, int soon, int prompt, int net) REACH_HIDDEN;

/* Polls of a long spin between two looks at the core. A look is a
 * getrusage call, 0.4 us on the reference machine: 5% of the time of
 * 256 polls of a shared word (2000 take 65 us), only in a spin that
 * waits that long. A look that finds a preemption also reads the
 * run-queue time, and at most every 50 ms where its machine's ranks run
 * (wait_spread). */
#define WAIT_LOOK_EVERY 256

/* Polls a wait makes before it sleeps, now. */
static inline uint32_t wait_spins(void)
{
    uint32_t spins = rt.cfg.spin_count;
    return wait_contended && spins > WAIT_SPIN_CONTENDED ? WAIT_SPIN_CONTENDED : spins;
}

/* Looks at this thread's core now (wait_spins), as a tick does, but a
 * look that finds no preemption does not count as a calm one; net: for a
 * network wait's spin. */
void wait_look(int net) REACH_HIDDEN;
/* Forgets what this thread has seen of its core: not contended, and its
 * next look only takes the counts (as a thread's first look does).
 * reach_init calls it last, as MPI's start-up collectives busy-poll:
 * what they did to the thread says nothing of the job's waits. */
void wait_forget_core(void) REACH_HIDDEN;

/* Whether a wait that has made polls empty polls spins on rather than
 * sleep: fewer than wait_spins(), which a look every WAIT_LOOK_EVERY
 * polls may cut to WAIT_SPIN_CONTENDED. */
static inline int wait_spin_looking(uint32_t polls, int net)
{
    if (polls && polls % WAIT_LOOK_EVERY == 0)
        wait_look(net);
    return polls < wait_spins();
}

/* For a wait that polls memory. */
static inline int wait_spin_on(uint32_t polls)
{
    return wait_spin_looking(polls, 0);
}

/* For a wait whose poll is a call into the network. */
static inline int wait_net_spin_on(uint32_t polls)
{
    return wait_spin_looking(polls, 1);
}

typedef enum {
    WAIT_NONE,    /* a transfer, fence or epoch: liveness checks only */
    WAIT_MUTEX,   /* rank = the mutex's home, id = the mutex */
    WAIT_BARRIER, /* rank = the rank whose signal is awaited, -1: the node's ranks */
    WAIT_COUNTER, /* rank = the counter's home, value = the value awaited */
    WAIT_NOTIFY,  /* rank = the notifier, value = the notification awaited */
    WAIT_WINDOW,  /* rank = the window's rank, id = REACH_LOCK_SHARED or _EXCLUSIVE */
} wait_kind_t;

#define WAIT_AHEAD_AT_HOME (-2)

typedef struct wait_what {
    wait_kind_t kind;
    int rank, id;
    int64_t value;
    /* Mutexes: the rank queued just ahead of this one (-1: unknown;
     * WAIT_AHEAD_AT_HOME: a rank of the mutex's node, where its server
     * queued this one) and, when that rank is on this node, its "still
     * waiting" flag (non-zero while it waits; zero once it holds the
     * mutex). */
    int ahead;
    const _Atomic uint32_t *ahead_waits;
} wait_what_t;

/* What the calling thread waits for now, and since when. */
extern _Thread_local struct wait_state {
    wait_what_t what;
    double since; /* 0 until the first tick of this wait */
    int reported;
} wait_now REACH_HIDDEN;

static inline void wait_for(wait_kind_t kind, int rank, int id, int64_t value)
{
    wait_now.what = (wait_what_t){kind, rank, id, value, -1, NULL};
    wait_now.since = 0;
    wait_now.reported = 0;
    if (__builtin_expect(trace_on, 0))
        trace_record(TRACE_WAIT, kind, rank, 0, 0, 0);
}

/* A mutex wait learns the rank ahead of it once it has queued. */
static inline void wait_behind(int ahead, const _Atomic uint32_t *ahead_waits)
{
    wait_now.what.ahead = ahead;
    wait_now.what.ahead_waits = ahead_waits;
}

/* The wait is over: what the ranks it waited for wrote is visible here
 * (rt_order_acquire). */
static inline void wait_done(void)
{
    if (__builtin_expect(trace_on, 0))
        trace_record(TRACE_WAITED, wait_now.what.kind, wait_now.what.rank, 0, 0, 0);
    wait_now.what.kind = WAIT_NONE;
    rt_order_acquire();
}

/* Called by a sleeping wait before each sleep: may end the job if a peer
 * is gone, and looks at this thread's preemptions (wait_spins). */
void wait_tick(void) REACH_HIDDEN;
/* Called by a sleeping wait after each sleep: timed_out says whether the
 * sleep ended on its time limit rather than on its event, and missed
 * whether the event had come all the same (counted: reach_stats_t's
 * wait_timeouts and wait_missed). A timeout is the scheduler's: on a
 * loaded machine the thread that ends the wait can sit runnable for
 * several ticks. A missed event is reach's: a change whose waker did not
 * wake, a message that did not ready the descriptor. */
void wait_woke(int timed_out, int missed) REACH_HIDDEN;
/* Writes what a barrier wait waits for into buf (the barrier knows who
 * has arrived): registered by the barrier at start-up. */
typedef void (*wait_describe_fn)(const wait_what_t *w, char *buf, size_t len);
void wait_describe_barrier(wait_describe_fn fn) REACH_HIDDEN;
/* The state letter and start time of process pid, from /proc/PID/stat;
 * -1 if there is no such process. */
int wait_proc_state(int pid, char *state, unsigned long long *start) REACH_HIDDEN;
/* The core process pid last ran on (/proc/PID/stat's field 39), or -1. */
int wait_proc_cpu(int pid) REACH_HIDDEN;
/* Where a thread on core here, allowed on the cores in allowed (a
 * cpu_set_t), had better run: the allowed core with the fewest of its
 * machine's other ranks (on, by core: CPU_SETSIZE counts), here unless one
 * holds fewer than here does. */
int wait_less_crowded(int here, const void *allowed, const int *on) REACH_HIDDEN;
/* Turns the liveness checks on (at the end of reach_init) and off (once
 * every rank has reached reach_finalize, when a rank that ends ends
 * normally). */
void wait_start_checks(void) REACH_HIDDEN;
void wait_stop_checks(void) REACH_HIDDEN;
/* 1 if rank has ended without reach_finalize: found in /proc (a rank of
 * this machine, unless REACH_PEER_PROC=0) or by the network. */
int wait_peer_gone(int rank) REACH_HIDDEN;
/* 1 if rank is of this machine and /proc says it has ended, whatever
 * REACH_PEER_PROC says (for the message of a failure). */
int wait_proc_gone(int rank) REACH_HIDDEN;
/* 1 if rank is another process of this machine, in this pid namespace,
 * that runs under its pid (its start time matches): this process may then
 * name it by that pid (0 if it cannot tell). */
int wait_proc_alive(int rank) REACH_HIDDEN;
/* Whether rank has ended, for the message of a failure to reach it
 * (either check above). A killed process's connections close before /proc
 * shows it ended, so a failure may come first: it is given a second to
 * show. */
int wait_rank_ended(int rank) REACH_HIDDEN;
/* The network has found rank failed, for the reason why: any thread may
 * call it; the application thread's next tick counts rank as gone. */
void wait_peer_lost(int rank, const char *why) REACH_HIDDEN;
/* At start-up: what an earlier job in this process was told of its lost
 * ranks is forgotten. */
void wait_forget_lost(void) REACH_HIDDEN;

/* A network backend's watch pings the ranks /proc cannot see (other
 * machines, other pid namespaces) while lost ranks are looked for
 * (REACH_PEER_TIMEOUT), and their server threads answer: a machine or a
 * link that is down then shows as silence, which neither a connection
 * reset nor /proc can show. By rank: when its unanswered ping was first
 * tried (0: none is out). */
typedef struct wait_ping {
    double since;
} wait_ping_t;
/* 1 if a backend's watch pings rank: REACH_PEER_TIMEOUT is on, and /proc
 * cannot see rank's process (or REACH_PEER_PROC is off). */
int wait_watched(int rank) REACH_HIDDEN;
/* Called by the watch's thread as often as it likes. While the checks are
 * on (wait_start_checks), once a quarter of REACH_PEER_TIMEOUT (*next
 * holds when), it pings each rank to watch, again each round until one
 * is answered: an answer the rank's backend dropped (it cannot hold its
 * server thread while a link is down) is asked for again. ping gives 1
 * once the backend took the ping, 0 if it could not now, -1 if the
 * backend cannot ping that rank (it is then not watched). A rank whose
 * pings are still unanswered REACH_PEER_TIMEOUT after the first was
 * tried is lost (wait_peer_lost, naming net). */
void wait_watch_round(wait_ping_t *pings, double *next, int (*ping)(int rank), const char *net) REACH_HIDDEN;
/* A ping to rank, or its answer, could not be sent (why): rank is lost. */
void wait_watch_failed(int rank, const char *net, const char *why) REACH_HIDDEN;
/* rank answered a ping. */
static inline void wait_watch_answered(wait_ping_t *pings, int rank)
{
    pings[rank] = (wait_ping_t){0};
}

#endif
