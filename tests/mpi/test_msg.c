/* The message layer against local computations: every reduction op and
 * type, scopes, select, broadcast variants, bintree, address exchange; and
 * notify and put-with-flag ordering. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"
#include "reach.h"

#include <math.h>
#include <string.h>

static int me, np;
static int node_size, node_first, masters;   /* this rank's node, the number of nodes */

/* Each rank's contribution: signed, so that abs matters. */
static long long val(int r, int i)
{
    return (long long)((r * 7 + i * 3) % 11) - 5;
}

static long long fold(const char *op, long long a, long long b)
{
    if (!strcmp(op, "+")) return a + b;
    if (!strcmp(op, "*")) return a * b;
    if (!strcmp(op, "max")) return a > b ? a : b;
    if (!strcmp(op, "min")) return a < b ? a : b;
    if (!strcmp(op, "absmax")) return llabs(a) > llabs(b) ? llabs(a) : llabs(b);
    if (!strcmp(op, "absmin")) return llabs(a) < llabs(b) ? llabs(a) : llabs(b);
    return a | b;
}

static long long expected(const char *op, int i, int nranks, const int *ranks)
{
    long long acc = val(ranks[0], i);
    if (!strncmp(op, "abs", 3))
        acc = llabs(acc);
    for (int k = 1; k < nranks; k++)
        acc = fold(op, acc, val(ranks[k], i));
    return acc;
}

static void test_reductions(void)
{
    static const char *ops[] = {"+", "*", "max", "min", "absmax", "absmin", "or"};
    int all[256];
    for (int r = 0; r < np; r++)
        all[r] = r;
    enum { N = 5 };
    for (int o = 0; o < 7; o++) {
        const char *op = ops[o];
        int x[N]; long l[N]; long long ll[N]; float f[N]; double d[N];
        for (int i = 0; i < N; i++)
            x[i] = (int)val(me, i), l[i] = (long)val(me, i), ll[i] = val(me, i),
            f[i] = (float)val(me, i), d[i] = (double)val(me, i);
        armci_msg_igop(x, N, (char *)op);
        armci_msg_lgop(l, N, (char *)op);
        armci_msg_llgop(ll, N, (char *)op);
        if (o < 6) {
            armci_msg_fgop(f, N, (char *)op);
            armci_msg_dgop(d, N, (char *)op);
        }
        for (int i = 0; i < N; i++) {
            long long e = expected(op, i, np, all);
            CHECK_EQ_LL(x[i], (int)e);
            CHECK_EQ_LL(l[i], (long)e);
            CHECK_EQ_LL(ll[i], e);
            if (o < 6) {
                CHECK(f[i] == (float)e);
                CHECK(d[i] == (double)e);
            }
        }
        /* The same through gop_scope and the typed group calls on world. */
        ARMCI_Group world;
        ARMCI_Group_get_world(&world);
        long long g[N];
        for (int i = 0; i < N; i++)
            g[i] = val(me, i);
        armci_msg_group_gop_scope(SCOPE_ALL, g, N, (char *)op, ARMCI_LONG_LONG, &world);
        for (int i = 0; i < N; i++)
            CHECK_EQ_LL(g[i], expected(op, i, np, all));
    }
    /* reduce: only the first member has the result. */
    double r = me + 1.0;
    armci_msg_reduce(&r, 1, "+", ARMCI_DOUBLE);
    if (me == 0)
        CHECK(r == np * (np + 1) / 2.0);
    /* Scopes: NODE is this rank's node, MASTERS the first rank of each. */
    int n = 1, m = 1;
    armci_msg_gop_scope(SCOPE_NODE, &n, 1, "+", ARMCI_INT);
    CHECK_EQ_LL(n, node_size);
    armci_msg_gop_scope(SCOPE_MASTERS, &m, 1, "+", ARMCI_INT);
    CHECK_EQ_LL(m, me == node_first ? masters : 1);   /* others are outside: untouched */
    int c = me;
    armci_msg_clus_igop(&c, 1, "max");
    CHECK_EQ_LL(c, node_first + node_size - 1);
    double cd = 1;
    armci_msg_clus_dgop(&cd, 1, "+");
    CHECK(cd == node_size);
    long cl = 2; long long cll = 3; float cf = 1;
    armci_msg_clus_lgop(&cl, 1, "*");
    armci_msg_clus_llgop(&cll, 1, "min");
    armci_msg_clus_fgop(&cf, 1, "+");
    CHECK(cl == (long)pow(2, node_size) && cll == 3 && cf == (float)node_size);
    int rs = 2;
    armci_msg_reduce_scope(SCOPE_NODE, &rs, 1, "+", ARMCI_INT);
    if (me == node_first)
        CHECK_EQ_LL(rs, 2 * node_size);
}

static void test_sel_bcast_tree(void)
{
    /* sel: a record whose first element is compared; odd ranks abstain. */
    struct { double v; int who; } rec = {(double)((me * 5) % 7), me};
    armci_msg_sel(&rec, (int)sizeof rec, "max", ARMCI_DOUBLE, me % 2 == 0);
    double best = -1; int who = -1;
    for (int r = 0; r < np; r += 2)
        if ((r * 5) % 7 > best)
            best = (r * 5) % 7, who = r;
    CHECK(rec.v == best && rec.who == who);
    struct { long long v; int who; } lrec = {-(long long)me, me};
    armci_msg_sel_scope(SCOPE_ALL, &lrec, (int)sizeof lrec, "min", ARMCI_LONG_LONG, 1);
    CHECK(lrec.v == -(np - 1) && lrec.who == np - 1);

    char buf[32];
    for (int root = 0; root < np; root++) {
        snprintf(buf, sizeof buf, me == root ? "from %d" : "junk", root);
        armci_msg_bcast_scope(SCOPE_ALL, buf, sizeof buf, root);
        char want[32];
        snprintf(want, sizeof want, "from %d", root);
        CHECK(strcmp(buf, want) == 0);
    }
    int x = me == node_first ? 77 : 0;
    armci_msg_clus_brdcst(&x, sizeof x);
    CHECK_EQ_LL(x, 77);
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    int last = node_first + node_size - 1;
    x = me == last ? 5 : 0;
    armci_msg_group_bcast_scope(SCOPE_NODE, &x, sizeof x, last, &world);
    CHECK_EQ_LL(x, 5);
    x = me == node_first ? 9 : 0;
    armci_grp_clus_brdcst(&x, sizeof x, node_first, node_size, &world);
    CHECK_EQ_LL(x, 9);

    int root, up, left, right;
    armci_msg_bintree(SCOPE_ALL, &root, &up, &left, &right);
    CHECK(root == 0);
    CHECK(up == (me ? (me - 1) / 2 : -1));
    CHECK(left == (2 * me + 1 < np ? 2 * me + 1 : -1));
    CHECK(right == (2 * me + 2 < np ? 2 * me + 2 : -1));
    /* The masters' tree: over node numbers, reported as ranks. */
    armci_msg_bintree(SCOPE_MASTERS, &root, &up, &left, &right);
    CHECK(root == 0);
    if (me == node_first) {
        int i = reach_node_of(me);
        CHECK(up == (i ? reach_node_rank((i - 1) / 2, 0) : -1));
        CHECK(left == (2 * i + 1 < masters ? reach_node_rank(2 * i + 1, 0) : -1));
        CHECK(right == (2 * i + 2 < masters ? reach_node_rank(2 * i + 2, 0) : -1));
    } else {
        CHECK(up == -1 && left == -1 && right == -1);
    }

    void *addr[256];
    memset(addr, 0, sizeof addr);
    addr[me] = (void *)(long)(1000 + me);
    armci_exchange_address(addr, np);
    for (int r = 0; r < np; r++)
        CHECK(addr[r] == (void *)(long)(1000 + r));
}

/* Notify: each rank puts a value to its right neighbour and notifies it;
 * the neighbour waits and must see the value. Several rounds. */
static void test_notify(void)
{
    void **p = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(p, 64) == 0);
    memset(p[me], 0, 64);
    ARMCI_Barrier();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int round = 1; round <= 20; round++) {
        int v = round * 1000 + me;
        CHECK(ARMCI_Put(&v, p[right], sizeof v, right) == 0);
        CHECK_EQ_LL(armci_notify(right), round);
        int waited = 0;
        int received = armci_notify_wait(left, &waited);
        CHECK_EQ_LL(waited, round);
        CHECK(received >= round);
        CHECK_EQ_LL(*(volatile int *)p[me], round * 1000 + left);
        armci_msg_barrier();   /* the next round's put must not overtake the check */
    }
    ARMCI_Barrier();
    CHECK(ARMCI_Free(p[me]) == 0);
    free(p);
}

/* PutS_flag and Put_flag: the receiver polls its flag and, the moment it
 * changes, finds all the data. */
static void test_put_flag(void)
{
    if (np < 2)
        return;
    enum { ROWS = 64, COLS = 64 };
    void **p = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(p, (ROWS * COLS + 16) * sizeof(double)) == 0);
    memset(p[me], 0, (ROWS * COLS + 16) * sizeof(double));
    ARMCI_Barrier();
    double *block = p[me];
    volatile int *flag = (volatile int *)(block + ROWS * COLS);
    static double src[ROWS * COLS];
    for (int round = 1; round <= 30; round++) {
        if (me == 0) {
            for (int i = 0; i < ROWS * COLS; i++)
                src[i] = round * 1e6 + i;
            int ss[1] = {COLS * (int)sizeof(double)}, ds[1] = {COLS * (int)sizeof(double)};
            int cnt[2] = {COLS / 2 * (int)sizeof(double), ROWS};   /* half of each row */
            int *rflag = (int *)((double *)p[1] + ROWS * COLS);
            if (round % 2)
                CHECK(ARMCI_PutS_flag(src, ss, p[1], ds, cnt, 1, rflag, round, 1) == 0);
            else
                CHECK(ARMCI_Put_flag(src, p[1], ROWS * COLS * sizeof(double), rflag, round, 1) == 0);
        } else if (me == 1) {
            while (*flag != round)
                ;
            int bad = 0;
            for (int r = 0; r < ROWS; r++)
                for (int c = 0; c < (round % 2 ? COLS / 2 : COLS); c++)
                    bad += block[r * COLS + c] != round * 1e6 + r * COLS + c;
            CHECK_EQ_LL(bad, 0);
        }
        armci_msg_barrier();
    }
    CHECK(ARMCI_Free(p[me]) == 0);
    free(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(ARMCI_Init() == 0);
    me = armci_msg_me();
    np = armci_msg_nproc();
    node_size = reach_node_size(reach_node_of(me));
    node_first = reach_node_rank(reach_node_of(me), 0);
    masters = reach_node_count();
    test_reductions();
    test_sel_bcast_tree();
    test_notify();
    test_put_flag();
    ARMCI_Finalize();
    int rc = check_exit("test_msg");
    MPI_Finalize();
    return rc;
}
