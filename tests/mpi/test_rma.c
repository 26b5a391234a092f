/* Contiguous put, get and accumulate between every pair of ranks, blocking
 * and non-blocking; location consistency; visibility after fence and barrier;
 * allocations of differing and zero sizes; statistics by path. */
#include "mpi_check.h"
#include "reach.h"

#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define N 1024

static int me, np;

static void test_put_get(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(N * sizeof(long), bases) == REACH_SUCCESS);
    long *mine = bases[me];
    for (int i = 0; i < N; i++)
        mine[i] = -1;
    reach_barrier();
    /* Each rank writes its slice of N/np longs into every rank. */
    int chunk = N / np;
    long src[N];
    for (int i = 0; i < chunk; i++)
        src[i] = me * 100000L + i;
    for (int t = 0; t < np; t++)
        CHECK(reach_put(src, (long *)bases[t] + me * chunk, chunk * sizeof(long), t) == REACH_SUCCESS);
    reach_barrier();
    for (int r = 0; r < np; r++)
        for (int i = 0; i < chunk; i++)
            CHECK_EQ_LL(mine[r * chunk + i], r * 100000L + i);
    /* Read everyone's copy back. */
    long got[N];
    for (int t = 0; t < np; t++) {
        memset(got, 0, sizeof got);
        CHECK(reach_get(bases[t], got, (size_t)chunk * (size_t)np * sizeof(long), t) == REACH_SUCCESS);
        for (int r = 0; r < np; r++)
            for (int i = 0; i < chunk; i++)
                CHECK_EQ_LL(got[r * chunk + i], r * 100000L + i);
    }
    reach_barrier();
    /* Location consistency: a put then a get of the same bytes from one
     * origin returns the put value. Each rank uses its own slot. */
    int t = (me + 1) % np;
    for (long v = 0; v < 100; v++) {
        long back = -1;
        CHECK(reach_put(&v, (long *)bases[t] + me * chunk, sizeof v, t) == REACH_SUCCESS);
        CHECK(reach_get((long *)bases[t] + me * chunk, &back, sizeof back, t) == REACH_SUCCESS);
        CHECK_EQ_LL(back, v);
    }
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

static void test_nonblocking(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(np * sizeof(double), bases) == REACH_SUCCESS);
    memset(bases[me], 0, np * sizeof(double));
    reach_barrier();
    reach_request_t req[64];
    double one = 1.0, v[64];
    for (int t = 0; t < np; t++) {
        v[t] = me + 0.5;
        CHECK(reach_put_nb(&v[t], (double *)bases[t] + me, sizeof(double), t, &req[t]) == REACH_SUCCESS);
    }
    for (int t = 0; t < np; t++) {
        int done = 0;
        CHECK(reach_test(&req[t], &done) == REACH_SUCCESS);
        if (!done)
            CHECK(reach_wait(&req[t]) == REACH_SUCCESS);
    }
    CHECK(reach_wait_all() == REACH_SUCCESS);
    reach_barrier();
    for (int r = 0; r < np; r++)
        CHECK(((double *)bases[me])[r] == r + 0.5);
    reach_barrier();
    for (int t = 0; t < np; t++)
        CHECK(reach_acc_nb(REACH_DOUBLE, &one, &v[t], (double *)bases[t] + me, sizeof(double), t,
                           &req[t]) == REACH_SUCCESS);
    for (int t = 0; t < np; t++)
        CHECK(reach_wait(&req[t]) == REACH_SUCCESS);
    reach_barrier();
    for (int r = 0; r < np; r++)
        CHECK(((double *)bases[me])[r] == 2 * (r + 0.5));
    double g[64];
    for (int t = 0; t < np; t++)
        CHECK(reach_get_nb((double *)bases[t] + me, &g[t], sizeof(double), t, &req[t]) == REACH_SUCCESS);
    CHECK(reach_wait_rank((me + 1) % np) == REACH_SUCCESS);
    for (int t = 0; t < np; t++) {
        CHECK(reach_wait(&req[t]) == REACH_SUCCESS);
        CHECK(g[t] == 2 * (me + 0.5));
    }
    /* Waiting twice, or on a zeroed request, is fine. */
    CHECK(reach_wait(&req[0]) == REACH_SUCCESS);
    reach_request_t zero = {0, 0, 0};
    CHECK(reach_wait(&zero) == REACH_SUCCESS);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Transfers large enough to be in flight when a non-blocking call to
 * another node returns: many gets at once, tested until done; a get then a
 * put to the same bytes (the get sees the old value); completion by
 * reach_wait_rank, a fence and a barrier; a corrupted request refused. */
static void test_in_flight(void)
{
    enum { BLOCK = 64 << 10 };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)(np + 1) * BLOCK, bases) == REACH_SUCCESS);   /* block np: never written */
    long *mine = bases[me];
    size_t per = BLOCK / sizeof(long);
    for (size_t i = 0; i < (size_t)(np + 1) * per; i++)
        mine[i] = me * 1000000L + (long)i;
    long *got = malloc((size_t)(np + 1) * BLOCK);   /* np blocks, or one and a little */
    reach_request_t *req = malloc(sizeof *req * (size_t)(np + 3));
    reach_barrier();
    for (int t = 0; t < np; t++)
        CHECK(reach_get_nb((char *)bases[t] + (size_t)me * BLOCK, (char *)got + (size_t)t * BLOCK, BLOCK, t,
                           &req[t]) == REACH_SUCCESS);
    for (int t = 0, left = np; left > 0; t = (t + 1) % np) {
        int done = 0;
        if (req[t].magic == 0)
            continue;
        CHECK(reach_test(&req[t], &done) == REACH_SUCCESS);
        left -= done;
    }
    for (int t = 0; t < np; t++)
        for (size_t i = 0; i < per; i += 997)
            CHECK_EQ_LL(got[(size_t)t * per + i], t * 1000000L + (long)((size_t)me * per + i));
    reach_barrier();
    /* A get, then a put to the same bytes: the get reads what was there. */
    int t = (me + 1) % np;
    long *theirs = (long *)((char *)bases[t] + (size_t)me * BLOCK);
    long *fresh = malloc(BLOCK);
    for (size_t i = 0; i < per; i++)
        fresh[i] = -1 - (long)i;
    CHECK(reach_get_nb(theirs, got, BLOCK, t, &req[0]) == REACH_SUCCESS);
    CHECK(reach_put(fresh, theirs, BLOCK, t) == REACH_SUCCESS);
    CHECK(reach_wait(&req[0]) == REACH_SUCCESS);
    CHECK_EQ_LL(got[per - 1], t * 1000000L + (long)((size_t)me * per + per - 1));
    CHECK(reach_fence(t) == REACH_SUCCESS);
    CHECK(reach_get(theirs, got, BLOCK, t) == REACH_SUCCESS);
    CHECK_EQ_LL(got[per - 1], -(long)per);
    /* A put in flight, completed by reach_wait_rank; another by a fence. */
    fresh[0] = 42;
    CHECK(reach_put_nb(fresh, theirs, BLOCK, t, &req[0]) == REACH_SUCCESS);
    CHECK(reach_wait_rank(t) == REACH_SUCCESS);
    fresh[1] = 43;
    CHECK(reach_put_nb(fresh, theirs, BLOCK, t, &req[1]) == REACH_SUCCESS);
    CHECK(reach_fence(t) == REACH_SUCCESS);
    /* Gets in flight together to one rank, of sizes about the points
     * where the target's server writes them into place (REACH_GET_WRITE:
     * 64k by default, 16k in a variant), into unaligned places: each
     * lands where it should, and nowhere else. */
    {
        enum { GETS = 7 };
        static const size_t size[GETS] = {8, 16383, 16384, 16387, 65535, 65536, 65543};
        size_t at[GETS], total = 0;
        for (int k = 0; k < GETS; k++) {
            at[k] = total + 1 + (size_t)k;
            total = at[k] + size[k];
        }
        char *dst = malloc(total + 1);
        reach_request_t greq[GETS];
        memset(dst, 0x5a, total + 1);
        const char *src = (const char *)bases[t] + (size_t)me * BLOCK;
        for (int k = 0; k < GETS; k++)
            CHECK(reach_get_nb(src + (size_t)k * 8, dst + at[k], size[k], t, &greq[k]) == REACH_SUCCESS);
        CHECK(reach_wait_all() == REACH_SUCCESS);
        CHECK(reach_get(theirs, got, BLOCK + 64, t) == REACH_SUCCESS);   /* the model: the bytes as they are */
        size_t bad = 0;
        for (int k = 0; k < GETS; k++) {
            bad += memcmp(dst + at[k], (const char *)got + (size_t)k * 8, size[k]) != 0;
            bad += dst[at[k] - 1] != 0x5a;
        }
        bad += dst[total] != 0x5a;
        CHECK_EQ_LL((long long)bad, 0);
        free(dst);
    }
    /* More gets in flight to one rank than its ring of transfers holds
     * (256): the oldest complete to make room, and every one lands. */
    {
        enum { MANY = 300 };
        long *many = malloc(sizeof(long) * MANY);
        reach_request_t *mreq = malloc(sizeof *mreq * MANY);
        const long *src = (const long *)((char *)bases[t] + (size_t)me * BLOCK);
        for (int k = 0; k < MANY; k++) {
            many[k] = -1;
            CHECK(reach_get_nb(src + k, &many[k], sizeof(long), t, &mreq[k]) == REACH_SUCCESS);
        }
        CHECK(reach_wait(&mreq[MANY - 1]) == REACH_SUCCESS);
        CHECK(reach_wait_all() == REACH_SUCCESS);
        CHECK(reach_get(theirs, got, MANY * sizeof(long), t) == REACH_SUCCESS);   /* the model */
        int bad = 0;
        for (int k = 0; k < MANY; k++)
            bad += many[k] != got[k];
        CHECK_EQ_LL(bad, 0);
        free(mreq);
        free(many);
    }
    /* A get in flight, completed by the barrier: read before any wait. */
    CHECK(reach_get_nb((char *)bases[t] + (size_t)np * BLOCK, got, sizeof(long), t, &req[2]) == REACH_SUCCESS);
    reach_barrier();
    CHECK_EQ_LL(got[0], t * 1000000L + (long)((size_t)np * per));
    CHECK_EQ_LL(((long *)((char *)bases[me] + (size_t)((me + np - 1) % np) * BLOCK))[1], 43);
    for (int k = 0; k < 3; k++)
        CHECK(reach_wait(&req[k]) == REACH_SUCCESS);
    /* A request whose rank is out of range was never reach's. */
    req[0] = (reach_request_t){0x52435251u, 2u + (uint32_t)np, 1};
    CHECK(reach_wait(&req[0]) == REACH_ERR_HANDLE);
    reach_barrier();
    free(fresh);
    free(req);
    free(got);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Every rank accumulates into every rank at once; sums are exact because
 * all values are small integers. */
static void test_accumulate(void)
{
    enum { M = 3000 }; /* spans stripes of the lock table */
    void **bases = malloc(sizeof(void *) * (size_t)np);
    size_t bytes = M * 16;
    CHECK(reach_malloc(bytes * REACH_TYPE_COUNT, bases) == REACH_SUCCESS);
    memset(bases[me], 0, bytes * REACH_TYPE_COUNT);
    reach_barrier();
    static int si[M]; static long sl[M]; static float sf[M]; static double sd[M];
    static float complex sc[M]; static double complex sz[M];
    for (int i = 0; i < M; i++) {
        si[i] = i % 7; sl[i] = i % 11; sf[i] = (float)(i % 5); sd[i] = i % 13;
        sc[i] = (float)(i % 3) + (float)(i % 2) * I; sz[i] = (i % 4) + (i % 5) * I;
    }
    int is = 2; long ls = 3; float fs = 0.5f; double ds = 2.0;
    float complex cs = 1.0f + 1.0f * I; double complex zs = 2.0 - 1.0 * I;
    const void *scale[REACH_TYPE_COUNT] = {&is, &ls, &fs, &ds, &cs, &zs};
    const void *src[REACH_TYPE_COUNT] = {si, sl, sf, sd, sc, sz};
    size_t esz[REACH_TYPE_COUNT] = {sizeof(int), sizeof(long), sizeof(float), sizeof(double),
                                    sizeof(float complex), sizeof(double complex)};
    int reps = 20;
    for (int rep = 0; rep < reps; rep++)
        for (int k = 0; k < np; k++) {
            int t = (me + k) % np;
            for (int ty = 0; ty < REACH_TYPE_COUNT; ty++)
                CHECK(reach_acc((reach_type_t)ty, scale[ty], src[ty], (char *)bases[t] + ty * bytes,
                                M * esz[ty], t) == REACH_SUCCESS);
        }
    reach_barrier();
    char *b = bases[me];
    long n = (long)np * reps;
    int bad = 0;
    for (int i = 0; i < M; i++) {
        bad += ((int *)b)[i] != n * is * si[i];
        bad += ((long *)(b + bytes))[i] != n * ls * sl[i];
        bad += ((float *)(b + 2 * bytes))[i] != (float)(n * fs * sf[i]);
        bad += ((double *)(b + 3 * bytes))[i] != n * ds * sd[i];
        bad += ((float complex *)(b + 4 * bytes))[i] != (float)n * (cs * sc[i]);
        bad += ((double complex *)(b + 5 * bytes))[i] != (double)n * (zs * sz[i]);
    }
    CHECK_EQ_LL(bad, 0);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Sizes differ per rank and some are zero; every base is reported. */
static void test_uneven_alloc(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    size_t mine = (me % 2) ? 0 : 4096 * (size_t)(me + 1) + 8;
    CHECK(reach_malloc(mine, bases) == REACH_SUCCESS);
    for (int r = 0; r < np; r++)
        CHECK((bases[r] == NULL) == (r % 2 == 1));
    if (mine)
        memset(bases[me], me, mine);
    reach_barrier();
    for (int r = 0; r < np; r += 2) {
        unsigned char last = 0;
        size_t sz = 4096 * (size_t)(r + 1) + 8;
        CHECK(reach_get((char *)bases[r] + sz - 1, &last, 1, r) == REACH_SUCCESS);
        CHECK_EQ_LL(last, r);
        /* One byte past the end belongs to no segment. */
        reach_stats_t before, after;
        reach_stats_get(&before);
        CHECK(reach_get((char *)bases[r] + sz, &last, 1, r) == REACH_ERR_RANGE);
        reach_stats_get(&after);
        CHECK_EQ_LL(after.ops[REACH_OP_GET][REACH_PATH_SHM] + after.ops[REACH_OP_GET][REACH_PATH_SELF],
                    before.ops[REACH_OP_GET][REACH_PATH_SHM] + before.ops[REACH_OP_GET][REACH_PATH_SELF]);
    }
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    /* An allocation in which every rank asks for nothing. */
    CHECK(reach_malloc(0, bases) == REACH_SUCCESS);
    for (int r = 0; r < np; r++)
        CHECK(bases[r] == NULL);
    CHECK(reach_free(NULL) == REACH_SUCCESS);
    free(bases);
}

static void test_stats(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(8 * (size_t)np, bases) == REACH_SUCCESS);
    reach_barrier();
    reach_stats_reset();
    char buf[8] = {0};
    for (int t = 0; t < np; t++)   /* each origin its own 8 bytes */
        CHECK(reach_put(buf, (char *)bases[t] + 8 * me, 8, t) == REACH_SUCCESS);
    reach_stats_t s;
    CHECK(reach_stats_get(&s) == REACH_SUCCESS);
    int here = 0;   /* other ranks on this node */
    for (int t = 0; t < np; t++)
        here += t != me && reach_same_node(t);
    CHECK_EQ_LL(s.ops[REACH_OP_PUT][REACH_PATH_SELF], 1);
    CHECK_EQ_LL(s.ops[REACH_OP_PUT][REACH_PATH_SHM], here);
    CHECK_EQ_LL(s.bytes[REACH_OP_PUT][REACH_PATH_SHM], 8 * here);
    CHECK_EQ_LL(s.ops[REACH_OP_PUT][REACH_PATH_NET], np - 1 - here);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Whether this process may write into rank t's with process_vm_writev
 * (ptrace rules such as Yama's ptrace_scope, or a container's seccomp
 * filter, may forbid it): tried on a word of t's that t never reads.
 * Collective. */
static int may_write_into(int t)
{
    static long word;
    long *addr = &word, one = 1;
    int pid = getpid(), *pids = malloc(sizeof(int) * (size_t)np);
    long **addrs = malloc(sizeof(long *) * (size_t)np);
    MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&addr, sizeof addr, MPI_BYTE, addrs, sizeof addr, MPI_BYTE, MPI_COMM_WORLD);
    struct iovec from = {&one, sizeof one}, to = {addrs[t], sizeof one};
    int ok = process_vm_writev(pids[t], &from, 1, &to, 1, 0) == (ssize_t)sizeof one;
    free(pids);
    free(addrs);
    return ok;
}

/* Between nodes of one machine, a non-blocking get of REACH_GET_WRITE
 * bytes or more (64k by default, 16k in a variant; 96 KiB here) is
 * written into place by the target's server where the system allows it:
 * the data is there before this process calls reach again. One whose
 * place is read-only when the target tries (here: for 200 ms after the
 * call) is done by the network at the wait, and lands whole. More such
 * gets in flight to one rank than replies may be awaited (64) and than
 * the ring of transfers holds (256) all land. Where every get goes by the
 * network (REACH_GET_WRITE=0), only the last: nothing is written before
 * the wait, and the network would write into the read-only page. */
static void test_get_write(void)
{
    const char *gw = getenv("REACH_GET_WRITE");
    int t = (me + 1) % np;
    enum { BYTES = 96 << 10, LONGS = BYTES / sizeof(long), MANY = 300, PIECE = 64 << 10 };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(BYTES, bases) == REACH_SUCCESS);
    for (size_t i = 0; i < LONGS; i++)
        ((long *)bases[me])[i] = me * 1000000L + (long)i;
    reach_barrier();
    int may = may_write_into(t);
    int written = !reach_same_node(t) && !(gw && strcmp(gw, "0") == 0) && may;
    if (written) {
        long *dst = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(dst != MAP_FAILED);
        reach_request_t req;
        CHECK(reach_get_nb(bases[t], dst, BYTES, t, &req) == REACH_SUCCESS);
        volatile long *last = &dst[LONGS - 1];
        for (int ms = 0; ms < 10000 && *last != t * 1000000L + (long)(LONGS - 1); ms++)
            usleep(1000);   /* no reach call: only the target can write it */
        CHECK_EQ_LL(*last, t * 1000000L + (long)(LONGS - 1));
        CHECK(reach_wait(&req) == REACH_SUCCESS);
        long bad = 0;
        for (size_t i = 0; i < LONGS; i++)
            bad += dst[i] != t * 1000000L + (long)i;
        CHECK_EQ_LL(bad, 0);

        memset(dst, 0, BYTES);
        CHECK(mprotect(dst, BYTES, PROT_READ) == 0);
        CHECK(reach_get_nb(bases[t], dst, BYTES, t, &req) == REACH_SUCCESS);
        usleep(200000);   /* the target's server tries meanwhile */
        CHECK(mprotect(dst, BYTES, PROT_READ | PROT_WRITE) == 0);
        CHECK(reach_wait(&req) == REACH_SUCCESS);
        bad = 0;
        for (size_t i = 0; i < LONGS; i++)
            bad += dst[i] != t * 1000000L + (long)i;
        CHECK_EQ_LL(bad, 0);
        munmap(dst, BYTES);
    }
    char *many = malloc((size_t)MANY * PIECE);
    reach_request_t *mreq = malloc(sizeof *mreq * MANY);
    for (int k = 0; k < MANY; k++)   /* each from its own offset */
        CHECK(reach_get_nb((char *)bases[t] + (size_t)(k % 64) * 8, many + (size_t)k * PIECE, PIECE, t,
                           &mreq[k]) == REACH_SUCCESS);
    CHECK(reach_wait_all() == REACH_SUCCESS);
    long bad = 0;
    for (int k = 0; k < MANY; k++)
        for (size_t i = 0; i < PIECE / sizeof(long); i++)
            bad += ((long *)(many + (size_t)k * PIECE))[i] != t * 1000000L + (k % 64) + (long)i;
    CHECK_EQ_LL(bad, 0);
    free(many);
    free(mreq);
    reach_barrier();
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    CHECK(reach_node_of(me) >= 0 && reach_node_of(me) < reach_node_count() && reach_same_node(me));
    test_put_get();
    test_nonblocking();
    test_in_flight();
    test_accumulate();
    test_uneven_alloc();
    test_stats();
    test_get_write();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_rma");
    MPI_Finalize();
    return rc;
}
