/* Data written under an ARMCI mutex against a sequential model: what the
 * holder wrote, to any process and by any data call, is complete when it
 * unlocks, and the next holder sees it.
 *
 * Counter phase (the pattern of outside programs such as ARMCI-MPI's
 * test_mutex_rmw): every rank, many times, locks mutex 0 of rank 0, gets
 * an int there, adds 5 and puts it back, then unlocks; and the variant with
 * two counters, one on the mutex's process (the last rank) written by a
 * blocking put and one on rank 0 by a non-blocking put waited on before
 * the unlock. Each ends at 5 x rounds x ranks.
 *
 * Order phase: an ARMCI_Rmw sees the same process's puts just before it
 * to its process, small and large.
 *
 * Hand-over phase: the next holder of a mutex sees, in its own memory, the
 * bulk put the last holder made there by rendezvous just before it
 * unlocked, though the last holder writes there again right after.
 *
 * Model phase: every rank hosts MUTEXES mutexes; mutex g guards a group of
 * cells spread over up to SPAN ranks from its own, and a log on its rank.
 * Each critical section takes one mutex or two (in order), and for each
 * guarded rank, in random order, reads the cells by a random call
 * (contiguous get, blocking or non-blocking, strided, vector, or ARMCI_Rmw
 * adding 0) and writes them plus increments by another (contiguous put,
 * blocking, non-blocking waited, non-blocking on the implicit handle and
 * not waited, on an aggregate handle, strided, vector, value puts, a
 * contiguous accumulate of the increments, or ARMCI_Rmw fetch-and-add);
 * then it reads the log's length, writes its own tag at that index and
 * the length plus one, and unlocks. Every other section first gets the
 * group's bulk block (256 KiB, on the group's last rank), adds one to
 * every element and puts it back, by rendezvous, blocking or non-blocking
 * and not waited on. No fence is issued. Afterwards every
 * cell must hold the sum of the increments all ranks made to it (a lost
 * update or a read of stale data shows as a wrong sum), every bulk
 * element the number of bulk sections of its group, and every log exactly
 * the tags of the critical sections of its mutex.
 *   test_mutex_model [--seed S] [--rounds N] [--counter N] [--repeat K]
 * The seed is printed; a failure names the cell or the log. */
#include "mpi_check.h"
#include "armci.h"

#include <string.h>
#include <time.h>

#define MUTEXES 3 /* per rank */
#define SPAN 3    /* ranks a group's cells lie on */
#define CPR 3     /* cells of a group on each of its ranks */
#define SPACING 2 /* longs from one cell to the next: strided calls skip a gap */
#define BLOCK (CPR * SPACING)
#define RING 64 /* sources of writes not waited on, kept until the unlock */
#define BULK 32768 /* longs of a group's bulk block: 256 KiB, sent by rendezvous */

static int me, np, ngroups, rounds = 200, counter_rounds = 500, repeat = 1;
static unsigned long seed;
static long **cells; /* per rank: ngroups blocks of BLOCK longs */
static long **logs;  /* per rank: ngroups logs of 1 + loglen longs (length, tags) */
static long **bulk;  /* per rank: ngroups bulk blocks of BULK longs */
static long *bulk_src[2], *bulk_buf; /* sources of bulk puts (one may be in flight), a get's */
static long *bulked; /* ngroups: bulk sections of this rank */
static unsigned bulk_next;
static int loglen;
static long *added;  /* ngroups x SPAN x CPR: what this rank added */
static long *made;   /* ngroups: critical sections of this rank */

static unsigned long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
    return (unsigned)(rng_state >> 33) % n;
}

static int group_rank(int g, int j)
{
    return (g / MUTEXES + j) % np;
}

static int group_span(void)
{
    return np < SPAN ? np : SPAN;
}

/* ---- the counter phase ------------------------------------------------------------ */

static void counter_phase(void)
{
    int **ctr = malloc(sizeof(int *) * (size_t)np);
    ARMCI_Malloc((void **)ctr, 2 * sizeof(int));
    ctr[me][0] = ctr[me][1] = 0;
    ARMCI_Barrier();
    int home = np - 1;
    for (int i = 0; i < counter_rounds; i++) {
        int v = 0;
        ARMCI_Lock(0, 0);
        ARMCI_Get(&ctr[0][0], &v, sizeof v, 0);
        v += 5;
        ARMCI_Put(&v, &ctr[0][0], sizeof v, 0);
        ARMCI_Unlock(0, 0);
    }
    for (int i = 0; i < counter_rounds; i++) {
        int a = 0, b = 0;
        armci_hdl_t h;
        ARMCI_Lock(0, home);
        ARMCI_Get(&ctr[home][1], &a, sizeof a, home);
        ARMCI_Get(&ctr[0][1], &b, sizeof b, 0);
        a += 5;
        b += 5;
        ARMCI_Put(&a, &ctr[home][1], sizeof a, home);
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbPut(&b, &ctr[0][1], sizeof b, 0, &h);
        ARMCI_Wait(&h);
        ARMCI_Unlock(0, home);
    }
    ARMCI_Barrier();
    long want = 5L * counter_rounds * np;
    if (me == 0) {
        CHECK_EQ_LL(ctr[0][0], want);
        CHECK_EQ_LL(ctr[0][1], want);
    }
    if (me == home)
        CHECK_EQ_LL(ctr[home][1], want);
    ARMCI_Barrier();
    ARMCI_Free(ctr[me]);
    free(ctr);
}

/* ---- order to one process ------------------------------------------------------------ */

/* ARMCI_Rmw is applied after the same process's earlier writes to its
 * process, which a section's read of a counter relies on: a put of 8 B,
 * then one of BULK longs (by rendezvous), each followed at once by an
 * ARMCI_Rmw adding 0 to its last element, must return what was put. */
static void order_phase(void)
{
    long **area = malloc(sizeof(long *) * (size_t)np), *src = malloc(sizeof(long) * BULK);
    ARMCI_Malloc((void **)area, sizeof(long) * BULK);
    int right = (me + 1) % np;
    for (int round = 1; round <= 20; round++) {
        long small = round * 1000L + me, old = 0;
        ARMCI_Put(&small, area[right], sizeof small, right);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, area[right], 0, right);
        CHECK_EQ_LL(old, small);
        for (int k = 0; k < BULK; k++)
            src[k] = round * 1000000L + k;
        ARMCI_NbPut(src, area[right], (int)(sizeof(long) * BULK), right, NULL);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, area[right] + BULK - 1, 0, right);
        CHECK_EQ_LL(old, round * 1000000L + BULK - 1);
        ARMCI_Fence(right);
    }
    ARMCI_Barrier();
    ARMCI_Free(area[me]);
    free(area);
    free(src);
}

/* ---- hand-over after a rendezvous ------------------------------------------------- */

/* The next holder sees a bulk put the last holder made to its process,
 * though that put may still be landing when the lock passes and the last
 * holder writes there again at once. Each section reads the count of
 * sections and the stamp last written to each rank (on rank 0), checks
 * that its own bulk block, in its own memory, holds its stamp, puts the
 * next stamp into its right neighbour's block (by rendezvous,
 * non-blocking, waited for only after the unlock), and unlocks; then it
 * puts 8 B to that neighbour at once. A lock passed on a count of
 * completed writes relies on the origin completing the bulk put before
 * that 8 B write is sent (transport/am/README.md, the gate). */
static void handover_phase(void)
{
    long **area = malloc(sizeof(long *) * (size_t)np), *src = malloc(sizeof(long) * BULK);
    long *book = malloc(sizeof(long) * (size_t)(np + 1)); /* the count, then each rank's stamp */
    size_t bytes = sizeof(long) * (BULK + 2 + (size_t)np); /* block, scratch word, book on rank 0 */
    ARMCI_Malloc((void **)area, (int)bytes);
    memset(area[me], 0, bytes);
    ARMCI_Barrier();
    int right = (me + 1) % np;
    long *home_book = area[0] + BULK + 1, mine = 0;
    for (int round = 0; round < 100; round++) {
        ARMCI_Lock(0, 0);
        ARMCI_Get(home_book, book, (int)(sizeof(long) * (size_t)(np + 1)), 0);
        long want = book[1 + me], bad = 0;
        for (int k = 0; k < BULK; k++)
            bad += area[me][k] != want;
        if (bad)
            fprintf(stderr, "rank %d, hand-over round %d: %ld of %d elements of its block are not stamp %ld (e.g. %ld)\n",
                    me, round, bad, BULK, want, area[me][BULK - 1]);
        CHECK_EQ_LL(bad, 0);
        long stamp = ++book[0];
        for (int k = 0; k < BULK; k++)
            src[k] = stamp;
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbPut(src, area[right], (int)(sizeof(long) * BULK), right, &h);
        book[1 + right] = stamp;
        ARMCI_Put(book, home_book, (int)(sizeof(long) * (size_t)(np + 1)), 0);
        ARMCI_Unlock(0, 0);
        mine++;
        ARMCI_Put(&mine, area[right] + BULK, sizeof mine, right);
        ARMCI_Wait(&h); /* (src is written again next round) */
    }
    ARMCI_Barrier();
    ARMCI_Free(area[me]);
    free(area);
    free(src);
    free(book);
}

/* ---- the model phase -------------------------------------------------------------- */

enum { RD_GET, RD_NBGET, RD_GETS, RD_GETV, RD_RMW, RD_KINDS };
enum { WR_PUT, WR_NBPUT, WR_IMPLICIT, WR_AGGREGATE, WR_PUTS, WR_PUTV, WR_VALUE, WR_ACC, WR_RMW, WR_KINDS };

/* Sources of writes that are not waited on stay valid until the unlock. */
static long ring[RING][BLOCK];
static int ring_next;

static long *ring_take(void)
{
    long *b = ring[ring_next];
    ring_next = (ring_next + 1) % RING;
    return b;
}

/* Reads the CPR cells of block remote on rank into v[CPR]. */
static void read_cells(int how, long *remote, int rank, long *v)
{
    long buf[BLOCK];
    int one = sizeof(long), stride = SPACING * sizeof(long), count[2] = {one, CPR};
    switch (how) {
    case RD_GET: ARMCI_Get(remote, buf, (int)sizeof buf, rank); break;
    case RD_NBGET: {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbGet(remote, buf, (int)sizeof buf, rank, &h);
        ARMCI_Wait(&h);
        break;
    }
    case RD_GETS: ARMCI_GetS(remote, &stride, buf, &stride, count, 1, rank); break;
    case RD_GETV: {
        void *src[CPR], *dst[CPR];
        for (int i = 0; i < CPR; i++) {
            src[i] = remote + i * SPACING;
            dst[i] = buf + i * SPACING;
        }
        armci_giov_t d = {.src_ptr_array = src, .dst_ptr_array = dst, .bytes = one, .ptr_array_len = CPR};
        ARMCI_GetV(&d, 1, rank);
        break;
    }
    default:
        for (int i = 0; i < CPR; i++)
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &buf[i * SPACING], remote + i * SPACING, 0, rank);
    }
    for (int i = 0; i < CPR; i++)
        v[i] = buf[i * SPACING];
}

/* Writes v[i] + add[i] to the cells of block remote on rank, which held
 * v[i] (the gaps between them hold 0). */
static void write_cells(int how, long *remote, int rank, const long *v, const long *add)
{
    long *buf = ring_take();
    int one = sizeof(long), stride = SPACING * sizeof(long), count[2] = {one, CPR};
    memset(buf, 0, sizeof(long) * BLOCK);
    for (int i = 0; i < CPR; i++)
        buf[i * SPACING] = how == WR_ACC ? add[i] : v[i] + add[i];
    void *src[CPR], *dst[CPR];
    for (int i = 0; i < CPR; i++) {
        src[i] = buf + i * SPACING;
        dst[i] = remote + i * SPACING;
    }
    armci_giov_t d = {.src_ptr_array = src, .dst_ptr_array = dst, .bytes = one, .ptr_array_len = CPR};
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    long lone = 1;
    switch (how) {
    case WR_PUT: ARMCI_Put(buf, remote, (int)(sizeof(long) * BLOCK), rank); break;
    case WR_NBPUT:
        ARMCI_NbPut(buf, remote, (int)(sizeof(long) * BLOCK), rank, &h);
        ARMCI_Wait(&h);
        break;
    case WR_IMPLICIT: ARMCI_NbPutS(buf, &stride, remote, &stride, count, 1, rank, NULL); break;
    case WR_AGGREGATE:
        ARMCI_SET_AGGREGATE_HANDLE(&h);
        for (int i = 0; i < CPR; i++)
            ARMCI_NbPutValueLong(buf[i * SPACING], remote + i * SPACING, rank, &h);
        ARMCI_Wait(&h);
        ARMCI_UNSET_AGGREGATE_HANDLE(&h);
        break;
    case WR_PUTS: ARMCI_PutS(buf, &stride, remote, &stride, count, 1, rank); break;
    case WR_PUTV: ARMCI_PutV(&d, 1, rank); break;
    case WR_VALUE:
        for (int i = 0; i < CPR; i++)
            ARMCI_PutValueLong(buf[i * SPACING], remote + i * SPACING, rank);
        break;
    case WR_ACC: ARMCI_Acc(ARMCI_ACC_LNG, &lone, buf, remote, (int)(sizeof(long) * BLOCK), rank); break;
    default:
        for (int i = 0; i < CPR; i++) {
            long old = 0;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, remote + i * SPACING, (int)add[i], rank);
        }
    }
}

/* One critical section's work on group g, under its mutex. */
static void critical(int g, int round)
{
    int span = group_span(), order[SPAN];
    for (int j = 0; j < span; j++)
        order[j] = j;
    for (int j = span - 1; j > 0; j--) {
        int k = (int)rnd((unsigned)j + 1), t = order[j];
        order[j] = order[k];
        order[k] = t;
    }
    if (rnd(2) == 0) {
        int r = group_rank(g, span - 1);
        long *src = bulk_src[bulk_next++ % 2];
        ARMCI_Get(bulk[r] + (size_t)g * BULK, bulk_buf, (int)(sizeof(long) * BULK), r);
        for (int k = 0; k < BULK; k++)
            src[k] = bulk_buf[k] + 1;
        if (rnd(2))
            ARMCI_Put(src, bulk[r] + (size_t)g * BULK, (int)(sizeof(long) * BULK), r);
        else
            ARMCI_NbPut(src, bulk[r] + (size_t)g * BULK, (int)(sizeof(long) * BULK), r, NULL);
        bulked[g]++;
    }
    for (int jj = 0; jj < span; jj++) {
        int j = order[jj], r = group_rank(g, j);
        long *remote = cells[r] + (size_t)g * BLOCK, v[CPR], add[CPR];
        read_cells((int)rnd(RD_KINDS), remote, r, v);
        for (int i = 0; i < CPR; i++) {
            add[i] = 1 + (long)rnd(1000);
            added[((size_t)g * SPAN + (size_t)j) * CPR + (size_t)i] += add[i];
        }
        write_cells((int)rnd(WR_KINDS), remote, r, v, add);
    }
    /* The log: its length, then this section's tag at that index. */
    int home = g / MUTEXES;
    long *log = logs[home] + (size_t)g * (size_t)(1 + loglen), n = 0;
    if (rnd(2))
        ARMCI_Get(log, &n, sizeof n, home);
    else
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &n, log, 0, home);
    if (n < 0 || n >= loglen) {
        CHECK(n >= 0 && n < loglen);
        return;
    }
    long *tag = ring_take();
    tag[0] = (long)me << 32 | round;
    tag[1] = n + 1;
    if (rnd(2)) {
        ARMCI_PutValueLong(tag[0], log + 1 + n, home);
    } else {
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbPut(tag, log + 1 + n, sizeof(long), home, &h);
        ARMCI_Wait(&h);
    }
    switch (rnd(3)) {
    case 0: ARMCI_Put(&tag[1], log, sizeof(long), home); break;
    case 1: ARMCI_NbPut(&tag[1], log, sizeof(long), home, NULL); break;
    default: {
        long old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, log, 1, home);
    }
    }
    made[g]++;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void model_phase(void)
{
    ngroups = MUTEXES * np;
    loglen = 2 * rounds * np; /* a section may hold two mutexes */
    cells = malloc(sizeof(long *) * (size_t)np);
    logs = malloc(sizeof(long *) * (size_t)np);
    added = calloc((size_t)ngroups * SPAN * CPR, sizeof(long));
    made = calloc((size_t)ngroups, sizeof(long));
    bulked = calloc((size_t)ngroups, sizeof(long));
    bulk = malloc(sizeof(long *) * (size_t)np);
    for (int i = 0; i < 2; i++)
        bulk_src[i] = malloc(sizeof(long) * BULK);
    bulk_buf = malloc(sizeof(long) * BULK);
    ARMCI_Malloc((void **)bulk, sizeof(long) * (size_t)ngroups * BULK);
    memset(bulk[me], 0, sizeof(long) * (size_t)ngroups * BULK);
    ARMCI_Malloc((void **)cells, sizeof(long) * (size_t)ngroups * BLOCK);
    ARMCI_Malloc((void **)logs, sizeof(long) * (size_t)ngroups * (size_t)(1 + loglen));
    memset(cells[me], 0, sizeof(long) * (size_t)ngroups * BLOCK);
    memset(logs[me], 0, sizeof(long) * (size_t)ngroups * (size_t)(1 + loglen));
    ARMCI_Barrier();

    rng_state = seed * 2654435761UL + (unsigned long)me * 40503UL + 1;
    for (int round = 0; round < rounds; round++) {
        int a = (int)rnd((unsigned)ngroups), b = (int)rnd((unsigned)ngroups);
        int two = ngroups > 1 && a != b && rnd(4) == 0;
        if (two && b < a) {
            int t = a;
            a = b;
            b = t;
        }
        ARMCI_Lock(a % MUTEXES, a / MUTEXES);
        if (two)
            ARMCI_Lock(b % MUTEXES, b / MUTEXES);
        critical(a, round);
        if (two) {
            critical(b, round);
            if (rnd(2)) {
                ARMCI_Unlock(b % MUTEXES, b / MUTEXES);
                ARMCI_Unlock(a % MUTEXES, a / MUTEXES);
            } else {
                ARMCI_Unlock(a % MUTEXES, a / MUTEXES);
                ARMCI_Unlock(b % MUTEXES, b / MUTEXES);
            }
        } else {
            ARMCI_Unlock(a % MUTEXES, a / MUTEXES);
        }
    }
    ARMCI_Barrier();

    /* Every cell holds the sum of what all ranks added; every gap is 0. */
    size_t nadd = (size_t)ngroups * SPAN * CPR;
    long *sum = malloc(sizeof(long) * nadd), *total = malloc(sizeof(long) * (size_t)ngroups);
    MPI_Allreduce(added, sum, (int)nadd, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(made, total, ngroups, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    for (int g = 0; g < ngroups; g++)
        for (int j = 0; j < group_span(); j++) {
            if (group_rank(g, j) != me)
                continue;
            for (int k = 0; k < BLOCK; k++) {
                long want = k % SPACING ? 0 : sum[((size_t)g * SPAN + (size_t)j) * CPR + (size_t)(k / SPACING)];
                long got = cells[me][(size_t)g * BLOCK + (size_t)k];
                if (got != want && bad++ < 5)
                    fprintf(stderr, "rank %d: group %d cell %d holds %ld, the model %ld (seed %lu)\n", me, g, k, got,
                            want, seed);
            }
        }
    CHECK_EQ_LL(bad, 0);
    /* Every bulk element counts its group's bulk sections. */
    long *bulk_total = malloc(sizeof(long) * (size_t)ngroups);
    MPI_Allreduce(bulked, bulk_total, ngroups, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    bad = 0;
    for (int g = 0; g < ngroups; g++) {
        if (group_rank(g, group_span() - 1) != me)
            continue;
        for (int k = 0; k < BULK; k++)
            if (bulk[me][(size_t)g * BULK + (size_t)k] != bulk_total[g] && bad++ < 5)
                fprintf(stderr, "rank %d: group %d bulk element %d holds %ld, the model %ld (seed %lu)\n", me, g, k,
                        bulk[me][(size_t)g * BULK + (size_t)k], bulk_total[g], seed);
    }
    CHECK_EQ_LL(bad, 0);
    free(bulk_total);
    /* Every log: the length is the number of sections, and each of this
     * rank's tags is there once. */
    long *log = malloc(sizeof(long) * (size_t)(1 + loglen));
    for (int g = 0; g < ngroups; g++) {
        int home = g / MUTEXES;
        ARMCI_Get(logs[home] + (size_t)g * (size_t)(1 + loglen), log, (int)(sizeof(long) * (size_t)(1 + loglen)), home);
        if (log[0] != total[g]) {
            fprintf(stderr, "rank %d: log of group %d has %ld entries, the model %ld (seed %lu)\n", me, g, log[0],
                    total[g], seed);
            CHECK_EQ_LL(log[0], total[g]);
            continue;
        }
        qsort(log + 1, (size_t)log[0], sizeof(long), cmp_long);
        long mine = 0;
        for (long i = 1; i <= log[0]; i++) {
            if (i > 1 && log[i] == log[i - 1]) {
                fprintf(stderr, "rank %d: log of group %d holds tag %#lx twice (seed %lu)\n", me, g, log[i], seed);
                CHECK(log[i] != log[i - 1]);
            }
            mine += log[i] >> 32 == me;
        }
        CHECK_EQ_LL(mine, made[g]);
    }
    ARMCI_Barrier();
    free(log);
    free(sum);
    free(total);
    ARMCI_Free(cells[me]);
    ARMCI_Free(logs[me]);
    ARMCI_Free(bulk[me]);
    for (int i = 0; i < 2; i++)
        free(bulk_src[i]);
    free(bulk_buf);
    free(bulk);
    free(bulked);
    free(cells);
    free(logs);
    free(added);
    free(made);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    seed = (unsigned long)time(NULL);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            seed = strtoul(argv[i + 1], NULL, 0);
        else if (strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--counter") == 0)
            counter_rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--repeat") == 0)
            repeat = atoi(argv[i + 1]);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_mutex_model: seed %lu, %d rounds, counter %d x %d\n", seed, rounds, counter_rounds, repeat);
    ARMCI_Init();
    ARMCI_Create_mutexes(MUTEXES);
    order_phase();
    if (np > 1)
        handover_phase();
    for (int k = 0; k < repeat; k++)
        counter_phase();
    if (rounds > 0)
        model_phase();
    ARMCI_Destroy_mutexes();
    ARMCI_Finalize();
    int st = check_exit("test_mutex_model");
    MPI_Finalize();
    return st;
}
