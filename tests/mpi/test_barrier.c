/* The barrier variants (REACH_BARRIER): after the barrier every write
 * issued before it by every rank is visible — small puts, puts large
 * enough to travel by rendezvous, accumulates — and no rank leaves early.
 * Then the message accounting of one barrier after every rank wrote to
 * every other: combined sends at most 2 ceil(log2 N) messages per
 * process (ceil(log2 N) when none wrote, or with two ranks), and a fence
 * after it sends nothing (with two ranks, at most one request: the barrier
 * did not learn that its writes completed); fence+dissemination at most ceil(log2 N) + N-1 (its fences
 * send nothing, or one request a rank, and wait for the targets' tells;
 * they sent a request and answered one a rank before), not counting the
 * acks and tells of completed writes, which belong to the writes. Counts
 * are asserted only where every rank is its own node (REACH_NODE_SIZE=1);
 * on one node there is no network and the barrier sends nothing. */
#include "mpi_check.h"
#include "reach.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (256 << 10)   /* above UCX's rendezvous threshold */

static int me, np;

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static void test_visibility(void)
{
    void **small = malloc(sizeof(void *) * (size_t)np), **big = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)np * sizeof(long), small) == REACH_SUCCESS);
    CHECK(reach_malloc(2 * BIG, big) == REACH_SUCCESS);
    memset(small[me], 0, (size_t)np * sizeof(long));
    memset(big[me], 0, 2 * BIG);
    long *src = malloc(BIG);
    reach_barrier();
    int next = (me + 1) % np;
    for (int round = 1; round <= 20; round++) {
        if (round % 7 == me % 7)
            usleep(3000);   /* a late rank makes early leavers visible */
        for (long i = 0; i < BIG / (long)sizeof(long); i++)
            src[i] = round * 1000003L + i;
        CHECK(reach_put(src, big[next], BIG, next) == REACH_SUCCESS);
        long one = 1;
        for (int t = 0; t < np; t++) {
            CHECK(reach_put(&one, (long *)small[t] + me, sizeof one, t) == REACH_SUCCESS);
            CHECK(reach_acc(REACH_LONG, &one, &one, (char *)big[t] + BIG, sizeof one, t) ==
                  REACH_SUCCESS);
        }
        CHECK(reach_barrier() == REACH_SUCCESS);
        const long *got = big[me];
        int bad = 0;
        for (long i = 0; i < BIG / (long)sizeof(long) && !bad; i++)
            if (got[i] != round * 1000003L + i) {
                CHECK_EQ_LL(got[i], round * 1000003L + i);
                bad = 1;
            }
        CHECK_EQ_LL(*(long *)((char *)big[me] + BIG), (long long)round * np);
        for (int r = 0; r < np; r++)
            CHECK_EQ_LL(((long *)small[me])[r], 1);
        memset(small[me], 0, (size_t)np * sizeof(long));
        CHECK(reach_barrier() == REACH_SUCCESS);
    }
    free(src);
    CHECK(reach_free(big[me]) == REACH_SUCCESS);
    CHECK(reach_free(small[me]) == REACH_SUCCESS);
    free(big);
    free(small);
}

static void test_messages(void)
{
    const char *kind = getenv("REACH_BARRIER");
    if (kind == NULL)
        kind = "combined"; /* reach's default */
    int every_rank_a_node = reach_node_count() == np;
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)np * sizeof(int), bases) == REACH_SUCCESS);
    /* A process whose fence has asked its targets once has its later
     * writes ask to be told (transport/am): from then on its fences send
     * nothing, whatever barriers ran before this test. */
    for (int t = 0; t < np; t++)
        if (t != me)
            CHECK(reach_put(&me, (int *)bases[t] + me, sizeof me, t) == REACH_SUCCESS);
    CHECK(reach_fence_all() == REACH_SUCCESS);
    for (int round = 0; round < 3; round++) {
        for (int t = 0; t < np && round != 2; t++)
            if (t != me)
                CHECK(reach_put(&round, (int *)bases[t] + me, sizeof round, t) == REACH_SUCCESS);
        /* Every write issued, none fenced, every counter zero before
         * anyone enters the barrier (a server answers others' fences). */
        MPI_Barrier(MPI_COMM_WORLD);
        reach_stats_t s;
        CHECK(reach_stats_reset() == REACH_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(reach_barrier() == REACH_SUCCESS);
        CHECK(reach_stats_get(&s) == REACH_SUCCESS);
        /* The acks and tells of completed puts belong to the puts. */
        long long sent = (long long)(s.messages - s.flow_acks);
        if (reach_node_count() == 1)
            CHECK_EQ_LL(sent, 0);
        else if (every_rank_a_node && strcmp(kind, "combined") == 0 && (round == 2 || np == 2))
            CHECK_EQ_LL(sent, ceil_log2(np)); /* nobody wrote, or no third rank: the exchange is the barrier */
        else if (every_rank_a_node && strcmp(kind, "combined") == 0)
            CHECK(sent <= 2 * ceil_log2(np));
        else if (every_rank_a_node && strcmp(kind, "fence+dissemination") == 0)
            CHECK(sent <= ceil_log2(np) + np - 1);
        /* A fence request to each other rank at most, then one add at the
         * home (rank 0), whose server pushes one release to every other
         * rank (rank 0 itself may leave before its server has sent them
         * all). */
        else if (every_rank_a_node && strcmp(kind, "counter") == 0)
            CHECK(me == 0 ? sent <= 2 * (np - 1) : sent <= np);
        if (me == 0 && round == 0)
            printf("%s barrier, %d ranks on %d nodes: rank 0 sent %lld messages "
                   "(ceil(log2 N) = %d)\n",
                   kind, np, reach_node_count(), sent, ceil_log2(np));
        /* A fence after it: the combined barrier completed the writes
         * before it by their counts, unless it had no third rank to wait
         * for. */
        CHECK(reach_stats_reset() == REACH_SUCCESS);
        CHECK(reach_fence_all() == REACH_SUCCESS);
        CHECK(reach_stats_get(&s) == REACH_SUCCESS);
        sent = (long long)(s.messages - s.flow_acks);
        if (every_rank_a_node && strcmp(kind, "combined") == 0)
            CHECK(np == 2 && round != 2 ? sent <= 1 : sent == 0);
    }
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Barriers where no rank wrote since the last, or one rank did, in turn
 * (with no writes the combined barrier is its exchange alone, and the
 * next exchange may start while a peer still reads this one): no rank
 * leaves before every rank has entered, which a counter at rank 0 shows
 * (its adds are answered, not counted writes), and the one writer's puts
 * are visible everywhere after it. */
static void test_few_writers(void)
{
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(2 * sizeof(int64_t), bases) == REACH_SUCCESS);
    memset(bases[me], 0, 2 * sizeof(int64_t));
    CHECK(reach_barrier() == REACH_SUCCESS);
    int64_t *counter = (int64_t *)bases[0] + 1;
    for (int round = 1; round <= 60; round++) {
        if (round % 7 == me % 7)
            usleep(2000); /* a late rank makes early leavers visible */
        int64_t old, seen;
        CHECK(reach_fetch_add_i64(counter, 1, &old, 0) == REACH_SUCCESS);
        int writer = round % 3 == 0 ? (round / 3) % np : -1;
        int64_t v = round;
        for (int t = 0; me == writer && t < np; t++)
            CHECK(reach_put(&v, bases[t], sizeof v, t) == REACH_SUCCESS);
        CHECK(reach_barrier() == REACH_SUCCESS);
        CHECK(reach_get(counter, &seen, sizeof seen, 0) == REACH_SUCCESS);
        CHECK(seen >= (int64_t)round * np && seen <= (int64_t)(round + 1) * np);
        /* What the writer put at the next rank, read from here: a rank
         * that did not write has no fence of its own before the get. */
        int64_t there;
        int next = (me + 1) % np;
        CHECK(reach_get(bases[next], &there, sizeof there, next) == REACH_SUCCESS);
        if (writer >= 0)
            CHECK_EQ_LL(there, round);
        /* The writer's atomic there after the barrier sees its own put
         * before it, fenced or not (with two ranks the combined barrier
         * leaves without knowing that the put completed). */
        if (me == writer)
            CHECK(reach_fetch_add_i64((int64_t *)bases[next], 0, &seen, next) == REACH_SUCCESS && seen == round);
    }
    CHECK(reach_barrier() == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

/* Switching algorithm between barriers, in a sequence that mixes every
 * mechanism; bad names are refused on every rank and change nothing. */
static void test_switch(void)
{
    static const char *const kinds[] = {"tree", "combined", "counter", "fence+dissemination",
                                        "combined", "counter", "tree", "fence+dissemination"};
    const int nkinds = (int)(sizeof kinds / sizeof kinds[0]);
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc((size_t)np * sizeof(int), bases) == REACH_SUCCESS);
    memset(bases[me], 0, (size_t)np * sizeof(int));
    CHECK(reach_barrier() == REACH_SUCCESS);
    for (int i = 0; i < nkinds; i++) {
        CHECK(reach_set_barrier(kinds[i]) == REACH_SUCCESS);
        for (int round = 1; round <= 3; round++) {
            int v = i * 10 + round;
            for (int t = 0; t < np; t++)
                CHECK(reach_put(&v, (int *)bases[t] + me, sizeof v, t) == REACH_SUCCESS);
            CHECK(reach_barrier() == REACH_SUCCESS);
            for (int r = 0; r < np; r++)
                CHECK_EQ_LL(((int *)bases[me])[r], v);
            CHECK(reach_barrier() == REACH_SUCCESS);
        }
    }
    CHECK(reach_set_barrier("fastest") == REACH_ERR_ARG);
    CHECK(reach_set_barrier(NULL) == REACH_ERR_ARG);
    /* One rank naming another algorithm fails everywhere. */
    CHECK(reach_set_barrier(me == np - 1 && np > 1 ? "tree" : "combined") ==
          (np > 1 ? REACH_ERR_ARG : REACH_SUCCESS));
    CHECK(reach_barrier() == REACH_SUCCESS);
    const char *kind = getenv("REACH_BARRIER");
    CHECK(reach_set_barrier(kind ? kind : "combined") == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    test_visibility();
    test_few_writers();
    test_switch();
    test_messages();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int rc = check_exit("test_barrier");
    MPI_Finalize();
    return rc;
}
