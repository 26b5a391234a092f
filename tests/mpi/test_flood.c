/* A flood of one million non-blocking 8-byte puts to one target completes
 * with bounded memory: the resident size grows by less than 32 MiB. */
#include "mpi_check.h"
#include "reach.h"

#include <string.h>

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

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
        int t = np - 1;
        long before = rss_kib();
        reach_request_t req;
        for (long i = 0; i < 1000000; i++) {
            long v = i;
            /* Requests are dropped: wait_all completes them. */
            if (reach_put_nb(&v, (long *)bases[t] + (i & 1023), sizeof v, t, &req) != REACH_SUCCESS) {
                CHECK(0);
                break;
            }
        }
        CHECK(reach_wait_all() == REACH_SUCCESS);
        CHECK(reach_fence(t) == REACH_SUCCESS);
        long grown = rss_kib() - before;
        if (grown >= 32 * 1024)
            fprintf(stderr, "resident size grew by %ld KiB\n", grown);
        CHECK(grown < 32 * 1024);
        long last;
        CHECK(reach_get((long *)bases[t] + (999999 & 1023), &last, sizeof last, t) == REACH_SUCCESS);
        CHECK_EQ_LL(last, 999999);
    }
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_flood");
    MPI_Finalize();
    return rc;
}
