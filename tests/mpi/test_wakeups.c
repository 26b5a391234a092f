/* No wake-up is lost on a contended core. Every rank starts a CPU-bound
 * process beside it, in a session of its own as another job's would be
 * (a neighbour that never sleeps), so that, at 4 ranks on 2 cores, each
 * rank shares its core with others that are runnable. Then 1000 rounds of
 * a barrier, a mutex (each round another rank's) guarding a
 * read-modify-write of a shared total, and a fetch-and-add. The total and
 * the fetch-and-adds must be exact. From reach's counters: with twice as
 * many ranks as cores, the waits slept (so the test saw sleeping waits);
 * and of the sleeps that ended on their time limit (a loaded machine's,
 * counted and printed), at most 1 in 100 sleeps (or 2 a rank) found that
 * their event had come without waking them. */
#include "mpi_check.h"
#include "reach.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 1000

/* The neighbour: started before MPI, it loops until this process kills it
 * (or ends). */
static pid_t neighbour(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setsid(); /* another job's process, as mpiexec makes each rank its own session */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    return pid;
}

int main(int argc, char **argv)
{
    pid_t busy = neighbour();
    CHECK(busy > 0);
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    int me = reach_rank(), np = reach_size();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(2 * sizeof(int64_t), bases) == REACH_SUCCESS);
    int64_t *mine = bases[me];
    mine[0] = mine[1] = 0;
    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(1, &m) == REACH_SUCCESS);
    CHECK(reach_barrier() == REACH_SUCCESS);

    CHECK(reach_stats_reset() == REACH_SUCCESS);
    int64_t last_fetched = -1;
    for (int round = 0; round < ROUNDS; round++) {
        int home = round % np;
        int64_t *total = (int64_t *)bases[home];
        int64_t v, old;
        CHECK(reach_barrier() == REACH_SUCCESS);
        CHECK(reach_mutex_lock(m, 0, home) == REACH_SUCCESS);
        CHECK(reach_get(total, &v, sizeof v, home) == REACH_SUCCESS);
        v++;
        CHECK(reach_put(&v, total, sizeof v, home) == REACH_SUCCESS);
        CHECK(reach_fence(home) == REACH_SUCCESS);
        CHECK(reach_mutex_unlock(m, 0, home) == REACH_SUCCESS);
        CHECK(reach_fetch_add_i64((int64_t *)bases[0] + 1, 1, &old, 0) == REACH_SUCCESS);
        CHECK(old > last_fetched);
        last_fetched = old;
    }
    CHECK(reach_barrier() == REACH_SUCCESS);
    reach_stats_t s;
    CHECK(reach_stats_get(&s) == REACH_SUCCESS);
    if (busy > 0) {
        kill(busy, SIGKILL);
        waitpid(busy, NULL, 0);
    }

    /* This rank was the home of the rounds round % np == me, in each of
     * which every rank added one. */
    int64_t expect = 0;
    for (int round = 0; round < ROUNDS; round++)
        expect += round % np == me;
    CHECK_EQ_LL(mine[0], expect * np);
    if (me == 0)
        CHECK_EQ_LL(mine[1], (long long)ROUNDS * np);

    long long mine_counts[3] = {(long long)s.blocking_waits, (long long)s.wait_timeouts, (long long)s.wait_missed},
              all[3];
    MPI_Allreduce(mine_counts, all, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("%d ranks, each beside a busy process: %lld sleeping waits, %lld ended on their time limit, "
               "%lld of them with their event come\n",
               np, all[0], all[1], all[2]);
        /* With twice as many ranks as cores, waits sleep. */
        if (np >= 2 * sysconf(_SC_NPROCESSORS_ONLN))
            CHECK(all[0] > 0);
        CHECK(all[2] * 100 <= all[0] || all[2] <= 2LL * np);
    }
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    CHECK(reach_free(mine) == REACH_SUCCESS);
    free(bases);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_wakeups");
    MPI_Finalize();
    return rc;
}
