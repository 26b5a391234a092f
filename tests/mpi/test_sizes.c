/* Put, get and accumulate of every size class from 1 byte to 16 MiB, to the
 * next rank (the previous one writes here): blocking, and then as many
 * non-blocking operations in flight at once as fit in 32 MiB (256 for the
 * small sizes), each checked byte for byte against what it must be. Across
 * machines this is traffic cut into Ethernet frames (MTU 1500): every
 * eager, pipelined and rendezvous path of each network backend, with
 * partial sends and hundreds of messages queued. */
#include "mpi_check.h"
#include "reach.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES ((size_t)16 << 20)
#define ROOM ((size_t)32 << 20)   /* the segment: room for MAX_BYTES twice */
#define MAX_FLIGHT 256

static const size_t sizes[] = {1,     3,      8,      13,      64,        100,       1000,     1500,
                               4096,  4097,   8192,   16384,   65536,     65537,     100000,   262144,
                               1 << 20, (1 << 20) + 5, 4 << 20, 16 << 20};

static int me, np;

/* The byte i of the data rank `from` writes in round `round`. */
static unsigned char pattern(int from, int round, size_t i)
{
    return (unsigned char)((size_t)from * 131 + (size_t)round * 29 + i * 7 + (i >> 9));
}

/* Checks buf[0, len) against the pattern, naming the first byte that
 * differs (one failed check). */
static void check_pattern(const unsigned char *buf, size_t len, int from, int round, const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != pattern(from, round, i)) {
            fprintf(stderr, "rank %d: %s of %zu bytes from rank %d, round %d: byte %zu is %d, not %d\n", me,
                    what, len, from, round, i, buf[i], pattern(from, round, i));
            CHECK(0);
            return;
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    int to = (me + 1) % np, from = (me + np - 1) % np;
    void **bases = malloc(sizeof(void *) * (size_t)np);
    unsigned char *src = malloc(ROOM), *dst = malloc(ROOM);
    reach_request_t *reqs = malloc(sizeof *reqs * MAX_FLIGHT);
    CHECK(bases && src && dst && reqs);
    CHECK(reach_malloc(ROOM, bases) == REACH_SUCCESS);
    unsigned char *mine = bases[me], *theirs = bases[to];
    int round = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t len = sizes[k];
        size_t flight = ROOM / len < MAX_FLIGHT ? ROOM / len : MAX_FLIGHT;
        /* Blocking put, then a get of what was put. */
        round++;
        for (size_t i = 0; i < len; i++)
            src[i] = pattern(me, round, i);
        CHECK(reach_put(src, theirs, len, to) == REACH_SUCCESS);
        reach_barrier();
        check_pattern(mine, len, from, round, "put");
        memset(dst, 0, len);
        CHECK(reach_get(theirs, dst, len, to) == REACH_SUCCESS);
        check_pattern(dst, len, me, round, "get");
        reach_barrier();
        /* `flight` puts in flight at once, each to its own place. */
        round++;
        for (size_t j = 0; j < flight; j++)
            for (size_t i = 0; i < len; i++)
                src[j * len + i] = pattern(me, round + (int)j, i);
        for (size_t j = 0; j < flight; j++)
            CHECK(reach_put_nb(src + j * len, theirs + j * len, len, to, &reqs[j]) == REACH_SUCCESS);
        CHECK(reach_wait_all() == REACH_SUCCESS);
        reach_barrier();
        for (size_t j = 0; j < flight; j++)
            check_pattern(mine + j * len, len, from, round + (int)j, "non-blocking put");
        /* And as many gets of it. */
        memset(dst, 0, flight * len);
        for (size_t j = 0; j < flight; j++)
            CHECK(reach_get_nb(theirs + j * len, dst + j * len, len, to, &reqs[j]) == REACH_SUCCESS);
        for (size_t j = 0; j < flight; j++)
            CHECK(reach_wait(&reqs[j]) == REACH_SUCCESS);
        for (size_t j = 0; j < flight; j++)
            check_pattern(dst + j * len, len, me, round + (int)j, "non-blocking get");
        round += (int)flight;
        reach_barrier();
        /* Accumulates of longs: each rank adds (i + rank + 1) * 2 into every
         * rank's zeroed cells, blocking to one place and non-blocking to
         * `flight` others; every cell must hold the sum over the ranks. */
        size_t n = len / sizeof(long) ? len / sizeof(long) : 1, bytes = n * sizeof(long);
        size_t places = ROOM / bytes < MAX_FLIGHT ? ROOM / bytes : MAX_FLIGHT;
        memset(mine, 0, places * bytes);
        reach_barrier();
        long *v = (long *)src, scale = 2;
        for (size_t i = 0; i < n; i++)
            v[i] = (long)i + me + 1;
        for (int r = 0; r < np; r++) {
            unsigned char *at = bases[r];
            CHECK(reach_acc(REACH_LONG, &scale, v, at, bytes, r) == REACH_SUCCESS);
            for (size_t j = 1; j < places; j++)
                CHECK(reach_acc_nb(REACH_LONG, &scale, v, at + j * bytes, bytes, r, &reqs[j]) == REACH_SUCCESS);
            CHECK(reach_wait_all() == REACH_SUCCESS);
        }
        reach_barrier();
        long ranks = (long)np * (np + 1) / 2;
        for (size_t j = 0; j < places; j++) {
            const long *cell = (const long *)(mine + j * bytes);
            for (size_t i = 0; i < n; i++)
                if (cell[i] != 2 * ((long)i * np + ranks)) {
                    fprintf(stderr, "rank %d: accumulate of %zu bytes, place %zu: cell %zu is %ld, not %ld\n", me,
                            bytes, j, i, cell[i], 2 * ((long)i * np + ranks));
                    CHECK(0);
                    break;
                }
        }
        reach_barrier();
    }
    CHECK(reach_free(mine) == REACH_SUCCESS);
    free(bases);
    free(src);
    free(dst);
    free(reqs);
    int status = check_exit("test_sizes");
    reach_finalize();
    MPI_Finalize();
    return status;
}
