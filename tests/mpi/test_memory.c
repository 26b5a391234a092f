/* reach's resident memory stays within limits: what reach_init adds to a
 * process's resident set (VmRSS) beyond MPI_Init's, and what it has added
 * after a put, get and accumulate of 4 KiB to every rank and 10,000
 * non-blocking 64 B puts, round the other ranks. The limits, in MB, are
 * the arguments (tests/CMakeLists.txt gives them per backend), so that a
 * backend's buffers cannot grow unseen; docs/benchmarks.md, "Memory", has
 * the figures beside ARMCI-MPI's. */
#include "mpi_check.h"
#include "reach.h"

#include <stdlib.h>
#include <string.h>

static double resident_mb(void)
{
    return (double)resident_kib() / 1024;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* MPI's own start-up is over: what it sets up at its first collectives
     * is not reach's. */
    int ones[2] = {1, 1};
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, ones, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double at_mpi = resident_mb();
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    CHECK(argc == 3);
    double start_limit = argc == 3 ? atof(argv[1]) : 0, traffic_limit = argc == 3 ? atof(argv[2]) : 0;
    double at_init = resident_mb();
    int me = reach_rank(), np = reach_size();
    enum { BYTES = 4096, SMALL = 1000, BLOCK = 2 * BYTES + 64 * SMALL };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(bases && reach_malloc(BLOCK, bases) == REACH_SUCCESS);
    static double buf[BYTES / sizeof(double)];
    const double one = 1.0;
    for (size_t i = 0; i < BYTES / sizeof(double); i++)
        buf[i] = 1.0;
    for (int r = 0; r < np; r++) {
        CHECK(reach_put(buf, bases[r], BYTES, r) == REACH_SUCCESS);
        CHECK(reach_get(bases[r], buf, BYTES, r) == REACH_SUCCESS);
        CHECK(reach_acc(REACH_DOUBLE, &one, buf, (char *)bases[r] + BYTES, BYTES, r) == REACH_SUCCESS);
    }
    static char small[SMALL][64];
    for (int i = 0; i < 10000; i++) {
        int r = np > 1 ? (me + 1 + i % (np - 1)) % np : me;
        reach_request_t req;
        if (reach_put_nb(small[i % SMALL], (char *)bases[r] + 2 * BYTES + 64 * (i % SMALL), 64, r, &req) !=
            REACH_SUCCESS) {
            CHECK(0);
            break;
        }
    }
    CHECK(reach_wait_all() == REACH_SUCCESS);
    CHECK(reach_fence_all() == REACH_SUCCESS);
    reach_barrier();
    double at_end = resident_mb(), mine[2] = {at_init - at_mpi, at_end - at_mpi}, most[2];
    MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("reach added at most %.1f MB to a process's resident set at reach_init (limit %.0f), %.1f MB after "
               "the traffic (limit %.0f)\n",
               most[0], start_limit, most[1], traffic_limit);
    CHECK(at_mpi > 0 && at_init > 0 && at_end > 0);
    CHECK(mine[0] <= start_limit);
    CHECK(mine[1] <= traffic_limit);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_memory");
    MPI_Finalize();
    return rc;
}
