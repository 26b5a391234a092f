/* reach's group collectives (reach_sync_group, reach_allreduce,
 * reach_reduce, reach_bcast) against values computed here: sizes of one
 * element to several slots (16 KiB each on one node, 64 KiB across
 * nodes), every root, broadcasts from changing roots back to back (a slot
 * refilled only once read), the world, a group of the even ranks and a
 * group of all but the last, each over all its members, its node and its
 * nodes' first members; reduce leaves the other members' buffers alone;
 * barriers order the stores before them; max and min of NaN and of -0
 * and +0 the same bits on every member; the refusals (bad scope, type,
 * operation, root, a group made before reach started again), and with the
 * argument null-buffer, rank 0 passing a NULL buffer, which ends the job
 * naming the call. The message layer's own checks are test_msg's. */
#include "mpi_check.h"
#include "reach.h"

#include <math.h>
#include <string.h>

static int me, np;
static void **by_rank;   /* the group's block of each member, by job rank */

/* Members of scope s of group g (by job rank), into of; their count. */
static int scope_members(reach_group_t *g, reach_scope_t s, int *of)
{
    int n = 0, size = reach_group_size(g);
    int my_node = reach_node_of(me);
    for (int i = 0; i < size; i++) {
        int r = reach_group_world_rank(g, i), take = 1;
        if (s == REACH_SCOPE_NODE)
            take = reach_node_of(r) == my_node;
        for (int j = 0; s == REACH_SCOPE_MASTERS && j < i && take; j++)
            take = reach_node_of(reach_group_world_rank(g, j)) != reach_node_of(r);
        if (take)
            of[n++] = r;
    }
    return n;
}

static double contribution(int rank, size_t i)
{
    return (double)((rank * 131 + (int)(i % 977)) % 61) - 30;
}

static void check_reductions(reach_group_t *g, reach_scope_t s, const int *of, int n)
{
    static const size_t counts[] = {1, 100, 2047, 2048, 2049, 8192, 8193, 10000, 20000};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t cnt = counts[c];
        double *d = malloc(cnt * sizeof *d);
        long *l = malloc(cnt * sizeof *l);
        int *m = malloc(cnt * sizeof *m); /* 4-byte elements: other pieces */
        for (size_t i = 0; i < cnt; i++) {
            d[i] = contribution(me, i);
            l[i] = (long)contribution(me, i);
            m[i] = (int)contribution(me, i);
        }
        CHECK_EQ_LL(reach_allreduce(g, s, d, cnt, REACH_DOUBLE, REACH_REDUCE_SUM), 0);
        CHECK_EQ_LL(reach_allreduce(g, s, l, cnt, REACH_LONG, REACH_REDUCE_MAX), 0);
        CHECK_EQ_LL(reach_allreduce(g, s, m, cnt, REACH_INT, REACH_REDUCE_MIN), 0);
        for (size_t i = 0; i < cnt; i++) {
            double sum = 0;
            long max = -1000;
            int min = 1000;
            for (int k = 0; k < n; k++) {
                sum += contribution(of[k], i);
                max = (long)contribution(of[k], i) > max ? (long)contribution(of[k], i) : max;
                min = (int)contribution(of[k], i) < min ? (int)contribution(of[k], i) : min;
            }
            CHECK(d[i] == sum);
            CHECK_EQ_LL(l[i], max);
            CHECK_EQ_LL(m[i], min);
            if (d[i] != sum || l[i] != max || m[i] != min)
                break;
        }
        /* reduce: the first member has the product, the others their own. */
        for (size_t i = 0; i < cnt; i++)
            l[i] = 1 + (me + (long)i) % 3;
        CHECK_EQ_LL(reach_reduce(g, s, l, cnt, REACH_LONG, REACH_REDUCE_PROD), 0);
        for (size_t i = 0; i < cnt; i++) {
            long want = 1;
            for (int k = 0; k < n && me == of[0]; k++)
                want *= 1 + (of[k] + (long)i) % 3;
            if (me != of[0])
                want = 1 + (me + (long)i) % 3;
            CHECK_EQ_LL(l[i], want);
            if (l[i] != want)
                break;
        }
        free(d);
        free(l);
        free(m);
    }
}

/* Broadcasts from every member in turn, back to back, of sizes within a
 * slot and across several (a slot is 16 KiB in a scope of one node, 64 KiB
 * in one that spans nodes); then barriers. */
static void check_bcast_sync(reach_group_t *g, reach_scope_t s, const int *of, int n)
{
    static const size_t sizes[] = {1, 8, 1000, 16384, 16385, 50000, 65536, 65537, 200000};
    char *buf = malloc(200000);
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int b = 0; b < n; b++) {
            size_t bytes = sizes[z];
            for (size_t i = 0; i < bytes; i++)
                buf[i] = me == of[b] ? (char)(i * 7 + (size_t)b) : (char)0xEE;
            CHECK_EQ_LL(reach_bcast(g, s, buf, bytes, of[b]), 0);
            for (size_t i = 0; i < bytes; i++)
                if (buf[i] != (char)(i * 7 + (size_t)b)) {
                    CHECK_EQ_LL(buf[i], (char)(i * 7 + (size_t)b));
                    break;
                }
        }
    free(buf);
    /* Each member puts the round into its word at every member, completes
     * the puts, and syncs: after it, every member's word shows the round
     * (nobody left before everybody arrived). */
    for (int round = 1; round <= 20; round++) {
        for (int k = 0; k < n; k++)
            CHECK_EQ_LL(reach_put(&round, (int *)by_rank[of[k]] + me, sizeof round, of[k]), 0);
        CHECK_EQ_LL(reach_fence_all(), 0);
        CHECK_EQ_LL(reach_sync_group(g, s), 0);
        const int *seen = by_rank[me];
        for (int k = 0; k < n; k++)
            if (__atomic_load_n(&seen[of[k]], __ATOMIC_RELAXED) < round) {
                CHECK_EQ_LL(__atomic_load_n(&seen[of[k]], __ATOMIC_RELAXED), round);
                break;
            }
    }
}

/* The world, the even ranks, all but the last: each in every scope. */
static void check_group(reach_group_t *g)
{
    int of[1024], size = reach_group_size(g);
    void **bases = malloc(sizeof(void *) * (size_t)size);
    by_rank = calloc((size_t)np, sizeof(void *));
    CHECK_EQ_LL(reach_malloc_group(g, sizeof(int) * (size_t)np, bases), 0);
    for (int i = 0; i < size; i++)
        by_rank[reach_group_world_rank(g, i)] = bases[i];
    memset(by_rank[me], 0, sizeof(int) * (size_t)np);
    CHECK_EQ_LL(reach_barrier_group(g), 0);
    for (reach_scope_t s = REACH_SCOPE_ALL; s <= REACH_SCOPE_MASTERS; s++) {
        int n = scope_members(g, s, of);
        int inside = 0;
        for (int k = 0; k < n; k++)
            inside |= of[k] == me;
        if (!inside) {   /* a node's later members: outside MASTERS, untouched */
            long x = 5;
            CHECK_EQ_LL(reach_allreduce(g, s, &x, 1, REACH_LONG, REACH_REDUCE_SUM), 0);
            CHECK_EQ_LL(x, 5);
            continue;
        }
        check_reductions(g, s, of, n);
        check_bcast_sync(g, s, of, n);
    }
    CHECK_EQ_LL(reach_barrier_group(g), 0);
    CHECK_EQ_LL(reach_free_group(g, by_rank[me]), 0);
    free(bases);
    free(by_rank);
}

static void check_refusals(void)
{
    double x = 1;
    CHECK_EQ_LL(reach_allreduce(NULL, (reach_scope_t)7, &x, 1, REACH_DOUBLE, REACH_REDUCE_SUM),
                REACH_ERR_ARG);
    CHECK_EQ_LL(reach_allreduce(NULL, REACH_SCOPE_ALL, &x, 1, REACH_COMPLEX, REACH_REDUCE_SUM),
                REACH_ERR_TYPE);
    CHECK_EQ_LL(reach_allreduce(NULL, REACH_SCOPE_ALL, &x, 1, REACH_DOUBLE, REACH_REDUCE_BAND),
                REACH_ERR_ARG);
    CHECK_EQ_LL(reach_allreduce(NULL, REACH_SCOPE_ALL, &x, 1, REACH_DOUBLE, REACH_REDUCE_COUNT),
                REACH_ERR_ARG);
    CHECK_EQ_LL(reach_bcast(NULL, REACH_SCOPE_ALL, &x, sizeof x, np), REACH_ERR_RANK);
    CHECK_EQ_LL(reach_bcast(NULL, REACH_SCOPE_ALL, &x, 0, -1), REACH_ERR_RANK);
    CHECK_EQ_LL(reach_sync_group(NULL, (reach_scope_t)-1), REACH_ERR_ARG);
    CHECK_EQ_LL(x, 1);   /* nothing written */
}

/* Max and min of a NaN, and of -0 and +0, give every member the same
 * bits: in 4 elements (a small allreduce combines the lower member's part
 * first) and in 1000 (a large one combines each element at one member). */
static void check_same_bits(void)
{
    enum { LARGE = 1000 };
    static const size_t counts[] = {4, LARGE};
    double v[LARGE], w[LARGE];
    unsigned long long mine[2 * LARGE], first[2 * LARGE];
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int n = (int)counts[c];
        for (int i = 0; i < n; i++) {
            double pick[4] = {me == i % np ? NAN : 1.0, me == (i + 1) % np ? NAN : 2.0, me % 2 ? -0.0 : 0.0,
                              me % 2 ? 0.0 : -0.0};
            v[i] = pick[i % 4];
        }
        memcpy(w, v, sizeof v[0] * (size_t)n);
        CHECK_EQ_LL(reach_allreduce(NULL, REACH_SCOPE_ALL, v, (size_t)n, REACH_DOUBLE, REACH_REDUCE_MAX), 0);
        CHECK_EQ_LL(reach_allreduce(NULL, REACH_SCOPE_ALL, w, (size_t)n, REACH_DOUBLE, REACH_REDUCE_MIN), 0);
        memcpy(mine, v, sizeof v[0] * (size_t)n);
        memcpy(mine + n, w, sizeof w[0] * (size_t)n);
        memcpy(first, mine, sizeof mine[0] * (size_t)(2 * n));
        MPI_Bcast(first, 2 * n, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        for (int i = 0; i < 2 * n; i++)
            if (mine[i] != first[i]) {
                CHECK_EQ_LL(mine[i], first[i]);
                break;
            }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_EQ_LL(reach_init(&argc, &argv), 0);
    me = reach_rank();
    np = reach_size();
    if (argc > 1 && strcmp(argv[1], "null-buffer") == 0) {   /* ends the job */
        int x[3] = {1, 2, 3};
        reach_allreduce(NULL, REACH_SCOPE_ALL, me == 0 ? NULL : x, 3, REACH_INT, REACH_REDUCE_SUM);
        return 0;
    }
    check_group(reach_group_world());
    reach_group_t *even, *head;
    int members[1024], n = 0;
    for (int r = 0; r < np; r += 2)
        members[n++] = r;
    CHECK_EQ_LL(reach_group_create(reach_group_world(), n, members, &even), 0);
    for (int r = 0; r < np; r++)
        members[r] = r;
    CHECK_EQ_LL(reach_group_create(reach_group_world(), np > 1 ? np - 1 : 1, members, &head), 0);
    if (even)
        check_group(even);
    if (head)
        check_group(head);
    /* Freed after use, made again: the new areas see no stale signal. */
    for (int i = 0; i < 3; i++) {
        if (head)
            CHECK_EQ_LL(reach_group_free(head), 0);
        CHECK_EQ_LL(reach_group_create(reach_group_world(), np > 1 ? np - 1 : 1, members, &head),
                    0);
    }
    if (head) {
        int one = 1;
        CHECK_EQ_LL(reach_allreduce(head, REACH_SCOPE_ALL, &one, 1, REACH_INT, REACH_REDUCE_SUM), 0);
        CHECK_EQ_LL(one, np > 1 ? np - 1 : 1);
        CHECK_EQ_LL(reach_group_free(head), 0);
    }
    if (even)
        CHECK_EQ_LL(reach_group_free(even), 0);
    check_refusals();
    check_same_bits();
    /* A group made before reach_finalize has no collectives after reach
     * starts again: refused, not used. */
    reach_group_t *old = NULL;
    CHECK_EQ_LL(reach_group_dup(reach_group_world(), &old), 0);
    CHECK_EQ_LL(reach_finalize(), 0);
    CHECK_EQ_LL(reach_init(&argc, &argv), 0);
    int one = 1;
    CHECK_EQ_LL(reach_allreduce(old, REACH_SCOPE_ALL, &one, 1, REACH_INT, REACH_REDUCE_SUM),
                REACH_ERR_HANDLE);
    CHECK_EQ_LL(reach_sync_group(old, REACH_SCOPE_ALL), REACH_ERR_HANDLE);
    CHECK_EQ_LL(one, 1);
    CHECK_EQ_LL(reach_group_free(old), 0);   /* its communicators are still MPI's to free */
    CHECK_EQ_LL(reach_finalize(), 0);
    int rc = check_exit("test_coll");
    MPI_Finalize();
    return rc;
}
