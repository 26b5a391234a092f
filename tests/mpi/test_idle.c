/* An idle job uses no CPU: rank 0 sleeps three seconds before a barrier
 * while the others wait in it; their process CPU time over the wait (all
 * threads, server included) must stay far below the time waited. Then rank
 * 0 waits in a lock held by rank 1 for three seconds, likewise. */
#include "mpi_check.h"
#include "reach.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    int me = reach_rank(), np = reach_size();
    reach_barrier();

    double c0 = cpu_seconds();
    if (me == 0)
        sleep(3);
    CHECK(reach_barrier() == REACH_SUCCESS);
    double used = cpu_seconds() - c0;
    if (me != 0 && used > 0.3) {
        fprintf(stderr, "rank %d used %.2f s of CPU waiting 3 s in a barrier\n", me, used);
        CHECK(used <= 0.3);
    }

    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(1, &m) == REACH_SUCCESS);
    if (np > 1) {
        if (me == 1)
            CHECK(reach_mutex_lock(m, 0, 0) == REACH_SUCCESS);
        reach_barrier();
        c0 = cpu_seconds();
        if (me == 1) {
            sleep(3);
            CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
        } else if (me == 0) {
            CHECK(reach_mutex_lock(m, 0, 0) == REACH_SUCCESS);
            used = cpu_seconds() - c0;
            if (used > 0.3) {
                fprintf(stderr, "rank 0 used %.2f s of CPU waiting 3 s for a lock\n", used);
                CHECK(used <= 0.3);
            }
            CHECK(reach_mutex_unlock(m, 0, 0) == REACH_SUCCESS);
        }
    }
    reach_barrier();
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_idle");
    MPI_Finalize();
    return rc;
}
