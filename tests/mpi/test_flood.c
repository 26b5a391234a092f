/* A flood of one million non-blocking 8-byte puts to one target completes
 * with bounded memory: the resident size grows by less than 32 MiB, and
 * every put arrives (each of the target's 1024 words holds the last value
 * put there). The requests are dropped and reach_wait_all completes them,
 * so each put's source stays untouched until then or until the next put
 * to the rank, which completes it: a ring of 1024 sources, outliving the
 * loop. */
#include "mpi_check.h"
#include "reach.h"

#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    int me = reach_rank(), np = reach_size();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(1 << 16, bases) == REACH_SUCCESS);
    memset(bases[me], 0, 1 << 16);
    reach_barrier();
    if (me == 0) {
        enum { WORDS = 1024 };
        const long puts = 1000000;
        static long src[WORDS], got[WORDS];
        int t = np - 1;
        long before = resident_kib();
        reach_request_t req;
        for (long i = 0; i < puts; i++) {
            src[i % WORDS] = i;
            if (reach_put_nb(&src[i % WORDS], (long *)bases[t] + i % WORDS, sizeof(long), t, &req) != REACH_SUCCESS) {
                CHECK(0);
                break;
            }
        }
        CHECK(reach_wait_all() == REACH_SUCCESS);
        CHECK(reach_fence(t) == REACH_SUCCESS);
        long grown = resident_kib() - before;
        printf("rank 0: resident size grew by %ld KiB over %ld puts\n", grown, puts);
        CHECK(grown < 32 * 1024);
        CHECK(reach_get(bases[t], got, sizeof got, t) == REACH_SUCCESS);
        for (long w = 0; w < WORDS; w++)
            CHECK_EQ_LL(got[w], puts - 1 - (puts - 1 - w) % WORDS); /* the last i with i % WORDS == w */
    }
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_flood");
    MPI_Finalize();
    return rc;
}
