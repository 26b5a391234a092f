/* base/wait.c's reading of where a process runs (wait_proc_cpu, from
 * /proc/PID/stat, whose command name may hold spaces and parentheses),
 * its choice of a less crowded core for a rank that shares its own with
 * another rank of its machine (wait_less_crowded), and its judgement of
 * whether a thread's core is contended (wait_contended, set by
 * wait_tick, and by a long spin's looks, wait_spin_on): by a thread
 * that takes the core for a slice, and not for good; held longer where
 * it comes back soon, after prompt wake-ups or by a network wait's spin
 * (wait_next_hold, wait_net_spin_on); not by what came before the
 * thread's first look or wait_forget_core. */
#include "../check.h"
#include "base/wait.h"

#include <pthread.h>
#include <stdio.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void pin(int core)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(core, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
}

static void test_proc_cpu(void)
{
    cpu_set_t allowed;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    /* A name that a parser splitting at the first ')' or at spaces misreads. */
    CHECK(prctl(PR_SET_NAME, "a) 1 2 (b c") == 0);
    int seen = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        pin(c);
        sched_yield();
        CHECK_EQ_LL(wait_proc_cpu(getpid()), c);
        seen++;
    }
    CHECK(seen > 0);
    CHECK(sched_setaffinity(0, sizeof allowed, &allowed) == 0);
    CHECK_EQ_LL(wait_proc_cpu(-1), -1); /* no such process */
}

static void test_less_crowded(void)
{
    static int on[CPU_SETSIZE];
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    CPU_SET(0, &allowed);
    CPU_SET(1, &allowed);
    CPU_SET(2, &allowed);
    /* Another rank on core 0 with this one: core 1 is free. */
    on[0] = 1;
    CHECK_EQ_LL(wait_less_crowded(0, &allowed, on), 1);
    /* As crowded everywhere: it stays. */
    on[1] = on[2] = 1;
    CHECK_EQ_LL(wait_less_crowded(0, &allowed, on), 0);
    /* The least crowded of those allowed, not one it may not run on. */
    on[1] = 2;
    on[2] = 0;
    on[3] = 0;
    CHECK_EQ_LL(wait_less_crowded(0, &allowed, on), 2);
    CPU_CLR(2, &allowed);
    CHECK_EQ_LL(wait_less_crowded(0, &allowed, on), 0);
    /* Bound to one core: it stays. */
    CPU_ZERO(&allowed);
    CPU_SET(0, &allowed);
    CHECK_EQ_LL(wait_less_crowded(0, &allowed, on), 0);
}

static double clock_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Runs 20 ms on the caller's core (its thread pinned there). */
static void *hog(void *core)
{
    pin(*(int *)core);
    for (double end = clock_ms() + 20; clock_ms() < end;)
        ;
    return NULL;
}

/* This thread's run-queue time, ns (-1: the kernel keeps none). */
static long long run_delay(void)
{
    long long run = 0, delay = -1;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f == NULL || fscanf(f, "%lld %lld", &run, &delay) != 2 || run == 0)
        delay = -1;
    if (f)
        fclose(f);
    return delay;
}

/* When the last contended state ended, and whether its calm sleeps woke
 * promptly (as wait.c judges it). */
static double calm_at;
static int calm_prompt;

/* Sleeps and looks (wait_tick), as a waiting thread does, until the
 * contended state ends (1000 looks at most); records its end in calm_at
 * and calm_prompt, and returns the looks it took. */
static int calm_sleeps(void)
{
    int ticks = 0;
    long long delay = run_delay();
    for (; ticks < 1000 && wait_contended; ticks++) {
        nanosleep(&(struct timespec){0, 100000}, NULL);
        wait_tick();
    }
    calm_at = clock_ms();
    calm_prompt = delay >= 0 && run_delay() - delay < (long long)ticks * WAIT_PROMPT_WAKE_US * 1000;
    return ticks;
}

/* Spins on core until the hog has finished, so that the hog takes the
 * core from it for slices; then looks (wait_tick) as a wait does. */
static void test_contended(void)
{
    if (run_delay() < 0)
        printf("test_wait_cpu: the kernel keeps no run-queue time here, so every preemption counts\n");
    cpu_set_t allowed;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int core = sched_getcpu();
    pin(core);
    wait_tick(); /* the thread's history so far */
    (void)calm_sleeps();
    CHECK(!wait_contended);
    /* Kept off its core for the hog's slices. On a machine loaded by
     * other jobs, brief preemptions by them may dilute the mean delay of
     * one run below WAIT_LOST_US; a detector that works finds one of
     * three. */
    for (int run = 0; run < 3 && !wait_contended; run++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, hog, &core) == 0);
        for (double end = clock_ms() + 40; clock_ms() < end;)
            ;
        CHECK(pthread_join(t, NULL) == 0);
        wait_tick();
    }
    CHECK(wait_contended);
    /* Calm sleeps give the full spin back (WAIT_CALM_SLEEPS of them on
     * a quiet machine; a loaded one may preempt it meanwhile). */
    double start = clock_ms();
    int ticks = calm_sleeps();
    CHECK(!wait_contended);
    if (calm_at - start < WAIT_CONTENDED_MS) /* (else the time limit ended it) */
        CHECK(ticks >= WAIT_CALM_SLEEPS);
    CHECK(sched_setaffinity(0, sizeof allowed, &allowed) == 0);
}

static int spin_on(uint32_t polls, int net)
{
    return net ? wait_net_spin_on(polls) : wait_spin_on(polls);
}

/* A spin that never sleeps, so never ticks, looks at its core all the
 * same (wait_spin_on, wait_net_spin_on). Found contended again soon
 * after calm sleeps, the core stays marked twice as long: a memory
 * wait's spin only if those sleeps woke promptly, a network wait's
 * whatever they did. */
static void test_spin_looks(int net)
{
    cpu_set_t allowed;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int core = sched_getcpu();
    pin(core);
    CHECK(!wait_contended);
    rt.cfg.spin_count = 2000; /* REACH_SPIN_COUNT's default */
    CHECK(spin_on(WAIT_SPIN_CONTENDED, net));
    pthread_t t;
    double hog_start = clock_ms();
    CHECK(pthread_create(&t, NULL, hog, &core) == 0);
    uint32_t polls = 1;
    for (double end = clock_ms() + 40; clock_ms() < end; polls++)
        (void)spin_on(polls, net);
    CHECK(pthread_join(t, NULL) == 0);
    for (uint32_t i = 0; i < WAIT_LOOK_EVERY; i++, polls++) /* a look after the hog's end */
        (void)spin_on(polls, net);
    CHECK(wait_contended); /* found by the spin's own looks */
    CHECK(wait_spins() == WAIT_SPIN_CONTENDED && spin_on(WAIT_SPIN_CONTENDED - 1, net) &&
          !spin_on(WAIT_SPIN_CONTENDED, net)); /* and the spin cut short */
    int soon = clock_ms() - calm_at < WAIT_CONTENDED_MS - 5, last_prompt = calm_prompt;
    int ticks = calm_sleeps();
    CHECK(!wait_contended);
    /* (unless the last state's sleeps were slow and this is a memory
     * wait's spin, this state came late, or the time limit, counted from
     * a preemption by the hog, ended it) */
    if ((net || last_prompt) && soon && clock_ms() - hog_start < 2 * WAIT_CONTENDED_MS)
        CHECK(ticks >= 2 * WAIT_CALM_SLEEPS);
    CHECK(!spin_on(2000, net) && spin_on(1999, net)); /* the full spin again */
    rt.cfg.spin_count = 0;
    CHECK(sched_setaffinity(0, sizeof allowed, &allowed) == 0);
}

/* The hold of a state that begins: doubled (up to WAIT_HOLD_MOST) when it
 * comes soon after the last, if that one's sleeps woke promptly or a
 * network wait's spin found this one; else back to one. */
static void test_next_hold(void)
{
    CHECK_EQ_LL(wait_next_hold(1, 1, 1, 0), 2);
    CHECK_EQ_LL(wait_next_hold(4, 1, 1, 0), 8);
    CHECK_EQ_LL(wait_next_hold(4, 1, 0, 0), 1); /* beside busy pollers: a memory wait's spins pay */
    CHECK_EQ_LL(wait_next_hold(4, 1, 0, 1), 8); /* a network wait's spin lost its core all the same */
    CHECK_EQ_LL(wait_next_hold(4, 0, 1, 1), 1); /* not soon */
    CHECK_EQ_LL(wait_next_hold(4, 0, 0, 1), 1);
    CHECK_EQ_LL(wait_next_hold(WAIT_HOLD_MOST, 1, 1, 1), WAIT_HOLD_MOST);
    CHECK_EQ_LL(wait_next_hold(WAIT_HOLD_MOST / 2, 1, 0, 1), WAIT_HOLD_MOST);
}

/* What a thread went through before it forgot its core (reach_init's
 * end: MPI's start-up collectives busy-poll) does not make it contended:
 * its next look only takes the counts. */
static void test_forget(void)
{
    cpu_set_t allowed;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int core = sched_getcpu();
    pin(core);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, hog, &core) == 0);
    for (double end = clock_ms() + 40; clock_ms() < end;)
        ;
    CHECK(pthread_join(t, NULL) == 0);
    wait_forget_core();
    wait_tick();
    CHECK(!wait_contended); /* the hog's slices came before */
    CHECK(sched_setaffinity(0, sizeof allowed, &allowed) == 0);
}

int main(void)
{
    test_proc_cpu();
    test_less_crowded();
    test_contended();
    test_spin_looks(0);
    test_spin_looks(1);
    test_next_hold();
    test_forget();
    printf("test_wait_cpu: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
