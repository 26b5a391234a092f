/* base/wait.c's reading of where a process runs (wait_proc_cpu, from
 * /proc/PID/stat, whose command name may hold spaces and parentheses) and
 * its choice of a less crowded core for a rank that shares its own with
 * another rank of its node (wait_less_crowded). */
#include "../check.h"
#include "base/wait.h"

#include <stdio.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

static void test_proc_cpu(void)
{
    cpu_set_t allowed, one;
    CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    /* A name that a parser splitting at the first ')' or at spaces misreads. */
    CHECK(prctl(PR_SET_NAME, "a) 1 2 (b c") == 0);
    int seen = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
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

int main(void)
{
    test_proc_cpu();
    test_less_crowded();
    printf("test_wait_cpu: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
