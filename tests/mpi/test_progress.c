/* reach_progress moves a non-blocking put on while its origin computes and
 * makes no other reach call. Rank 0 puts 256 KiB to the last rank, then
 * only computes and calls reach_progress, until the last rank, which reads
 * its memory, says over MPI that every byte has arrived. Over UCX's TCP
 * transport (modes tcp and m2) the put's data leaves only as its origin's
 * client is progressed: without reach_progress it waited for the origin's
 * next reach call, here for ever. Fails if the data has not arrived
 * within 20 s, and if the put's request then does not complete. */
#include "mpi_check.h"
#include "reach.h"

#include <sched.h>
#include <string.h>

#define BYTES (256 << 10)
#define LIMIT_S 20.0

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + 1);
}

/* The last rank: 1 once every byte holds the pattern, 0 after the limit. */
static int wait_arrived(const volatile unsigned char *mem)
{
    for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < LIMIT_S; sched_yield()) {
        size_t i = 0;
        while (i < BYTES && mem[i] == pattern(i))
            i++;
        if (i == BYTES)
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    int me = reach_rank(), np = reach_size(), t = np - 1;
    void **bases = malloc(sizeof(void *) * (size_t)np);
    unsigned char *src = malloc(BYTES);
    CHECK(bases && src && reach_malloc(BYTES, bases) == REACH_SUCCESS);
    memset(bases[me], 0, BYTES);
    for (size_t i = 0; i < BYTES; i++)
        src[i] = pattern(i);
    reach_barrier();
    if (np < 2 && me == 0)
        printf("test_progress: one rank, no put to make\n");
    else if (me == 0) {
        reach_request_t req;
        int arrived = 0, heard = 0;
        MPI_Request said;
        double t0 = MPI_Wtime();
        CHECK(reach_put_nb(src, bases[t], BYTES, t, &req) == REACH_SUCCESS);
        MPI_Irecv(&arrived, 1, MPI_INT, t, 0, MPI_COMM_WORLD, &said);
        while (!heard) {
            CHECK(reach_progress() == REACH_SUCCESS);
            volatile double work = 0; /* computing between calls */
            for (int i = 0; i < 2000; i++)
                work += i;
            MPI_Test(&said, &heard, MPI_STATUS_IGNORE);
        }
        printf("rank 0: the put of %d KiB to rank %d had arrived after %.0f us: %s\n", BYTES >> 10, t,
               (MPI_Wtime() - t0) * 1e6, arrived ? "yes" : "no");
        CHECK(arrived);
        CHECK(reach_wait(&req) == REACH_SUCCESS);
    } else if (me == t) {
        int arrived = wait_arrived(bases[t]);
        MPI_Send(&arrived, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    free(src);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_progress");
    MPI_Finalize();
    return rc;
}
