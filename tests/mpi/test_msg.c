/* The message layer against local computations: every reduction op with
 * every type it takes, in every form, and the refusal of the others (with
 * arguments TYPE OP: see main); scopes, select, broadcast variants,
 * bintree, address exchange; and notify and put-with-flag ordering. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"
#include "reach.h"

#include <string.h>

static int me, np;
static int node_size, node_first, masters;   /* this rank's node, the number of nodes */

/* Each rank's contribution: signed, so that abs matters. Among the first
 * 11 elements every rank has each of -5..5 once, its 0 at its own place;
 * element 11 is 0 everywhere and element 12 only on rank 0 not, so that
 * && and || give both 0 and 1 at any process count. */
enum { N = 13 };
static long long val(int r, int i)
{
    if (i == 12)
        return r == 0 ? 6 : 0;
    return i == 11 ? 0 : (long long)((r * 7 + i * 3) % 11) - 5;
}

/* The operations; from "or" on, integer types only; from "land" on,
 * other names of the ones before. */
static const char *ops[] = {"+",  "*",  "max", "min", "absmax", "absmin", "or",  "&&",
                            "||", "&",  "|",   "land", "lor",   "band",   "bor"};
enum { NOPS = sizeof ops / sizeof ops[0], FIRST_INTEGER_OP = 6, FIRST_ALIAS = 11 };

static int is(const char *op, const char *a, const char *b)
{
    return !strcmp(op, a) || !strcmp(op, b);
}

static long long fold(const char *op, long long a, long long b)
{
    if (!strcmp(op, "+")) return a + b;
    if (!strcmp(op, "*")) return a * b;
    if (!strcmp(op, "max")) return a > b ? a : b;
    if (!strcmp(op, "min")) return a < b ? a : b;
    if (!strcmp(op, "absmax")) return llabs(a) > llabs(b) ? llabs(a) : llabs(b);
    if (!strcmp(op, "absmin")) return llabs(a) < llabs(b) ? llabs(a) : llabs(b);
    if (is(op, "&&", "land")) return a && b;
    if (is(op, "||", "lor")) return a || b;
    if (is(op, "&", "band")) return a & b;
    return a | b;
}

/* The reduction of element i over ranks[0..nranks-1]: && and || give 0 or
 * 1 on one rank too. */
static long long expected(const char *op, int i, int nranks, const int *ranks)
{
    long long acc = val(ranks[0], i);
    if (!strncmp(op, "abs", 3))
        acc = llabs(acc);
    if (is(op, "&&", "land") || is(op, "||", "lor"))
        acc = acc != 0;
    for (int k = 1; k < nranks; k++)
        acc = fold(op, acc, val(ranks[k], i));
    return acc;
}

/* The ways to reduce: the typed gops over the default group, over its
 * node and over a group (the even ranks), gop_scope, and reduce (the
 * result at the first member only). Other names of an operation are tried
 * with the first only. */
enum { GOP, CLUS, GROUP, SCOPE, REDUCE, NFORMS };
static const char *forms[] = {"gop", "clus", "group", "gop_scope", "reduce"};

/* Reduces one array of each type with op the given way. */
static void reduce_each(int form, int o, ARMCI_Group *group, int *x, long *l, long long *ll,
                        float *f, double *d)
{
    char *op = (char *)ops[o];
    int floating = o < FIRST_INTEGER_OP;
    switch (form) {
    case GOP:
        armci_msg_igop(x, N, op);
        armci_msg_lgop(l, N, op);
        armci_msg_llgop(ll, N, op);
        if (floating) {
            armci_msg_fgop(f, N, op);
            armci_msg_dgop(d, N, op);
        }
        break;
    case CLUS:
        armci_msg_clus_igop(x, N, op);
        armci_msg_clus_lgop(l, N, op);
        armci_msg_clus_llgop(ll, N, op);
        if (floating) {
            armci_msg_clus_fgop(f, N, op);
            armci_msg_clus_dgop(d, N, op);
        }
        break;
    case GROUP:
        armci_msg_group_igop(x, N, op, group);
        armci_msg_group_lgop(l, N, op, group);
        armci_msg_group_llgop(ll, N, op, group);
        if (floating) {
            armci_msg_group_fgop(f, N, op, group);
            armci_msg_group_dgop(d, N, op, group);
        }
        break;
    case SCOPE:
        armci_msg_gop_scope(SCOPE_ALL, x, N, op, ARMCI_INT);
        armci_msg_gop_scope(SCOPE_ALL, l, N, op, ARMCI_LONG);
        armci_msg_gop_scope(SCOPE_ALL, ll, N, op, ARMCI_LONG_LONG);
        if (floating) {
            armci_msg_gop_scope(SCOPE_ALL, f, N, op, ARMCI_FLOAT);
            armci_msg_gop_scope(SCOPE_ALL, d, N, op, ARMCI_DOUBLE);
        }
        break;
    case REDUCE:
        armci_msg_reduce(x, N, op, ARMCI_INT);
        armci_msg_reduce(l, N, op, ARMCI_LONG);
        armci_msg_reduce(ll, N, op, ARMCI_LONG_LONG);
        if (floating) {
            armci_msg_reduce(f, N, op, ARMCI_FLOAT);
            armci_msg_reduce(d, N, op, ARMCI_DOUBLE);
        }
        break;
    }
}

static void test_reductions(void)
{
    int all[256], node[256], even[128], neven = (np + 1) / 2;
    for (int r = 0; r < np; r++)
        all[r] = r;
    for (int k = 0; k < node_size; k++)
        node[k] = reach_node_rank(reach_node_of(me), k);
    for (int k = 0; k < neven; k++)
        even[k] = 2 * k;
    ARMCI_Group evens;
    ARMCI_Group_create(neven, even, &evens);
    for (int form = 0; form < NFORMS; form++) {
        if (form == GROUP && me % 2)
            continue;
        int nranks = form == CLUS ? node_size : form == GROUP ? neven : np;
        const int *ranks = form == CLUS ? node : form == GROUP ? even : all;
        for (int o = 0; o < (form == GOP ? NOPS : FIRST_ALIAS); o++) {
            const char *op = ops[o];
            int x[N]; long l[N]; long long ll[N]; float f[N]; double d[N];
            for (int i = 0; i < N; i++)
                x[i] = (int)val(me, i), l[i] = (long)val(me, i), ll[i] = val(me, i),
                f[i] = (float)val(me, i), d[i] = (double)val(me, i);
            reduce_each(form, o, &evens, x, l, ll, f, d);
            if (form == REDUCE && me != 0)
                continue;
            int bad = 0;
            for (int i = 0; i < N; i++) {
                long long e = expected(op, i, nranks, ranks);
                bad += x[i] != (int)e || l[i] != (long)e || ll[i] != e;
                if (o < FIRST_INTEGER_OP)
                    bad += f[i] != (float)e || d[i] != (double)e;
            }
            if (bad)
                fprintf(stderr, "rank %d: %s \"%s\": %d wrong elements\n", me, forms[form], op, bad);
            CHECK_EQ_LL(bad, 0);
        }
    }
    ARMCI_Group_free(&evens);
    /* Scopes: NODE is this rank's node, MASTERS the first rank of each. */
    int n = 1, m = 1;
    armci_msg_gop_scope(SCOPE_NODE, &n, 1, "+", ARMCI_INT);
    CHECK_EQ_LL(n, node_size);
    armci_msg_gop_scope(SCOPE_MASTERS, &m, 1, "+", ARMCI_INT);
    CHECK_EQ_LL(m, me == node_first ? masters : 1);   /* others are outside: untouched */
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
    /* On a group that leaves rank 0 out, the root is a job-wide rank, as
     * Global Arrays passes it (its pgroup broadcast). */
    int rest[64], nrest = np > 1 ? np - 1 : 1;
    for (int i = 0; i < nrest; i++)
        rest[i] = np > 1 ? i + 1 : 0;
    ARMCI_Group g;
    ARMCI_Group_create(nrest, rest, &g);
    if (np == 1 || me > 0) {
        x = me == np - 1 ? 11 : 0;
        armci_msg_group_bcast_scope(SCOPE_ALL, &x, sizeof x, np - 1, &g);
        CHECK_EQ_LL(x, 11);
    }
    ARMCI_Group_free(&g);

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
    /* With arguments TYPE OP ("int" or "double"): a reduction the message
     * layer must refuse, ending the job with a message that names the call
     * (tests/CMakeLists.txt runs it on one process). */
    if (argc == 3) {
        int i = 1;
        double d = 1;
        if (strcmp(argv[1], "double") == 0)
            armci_msg_dgop(&d, 1, argv[2]);
        else
            armci_msg_igop(&i, 1, argv[2]);
        fprintf(stderr, "test_msg: %s \"%s\" was not refused\n", argv[1], argv[2]);
        ARMCI_Finalize();
        MPI_Finalize();
        return 1;
    }
    test_reductions();
    test_sel_bcast_tree();
    test_notify();
    test_put_flag();
    ARMCI_Finalize();
    int rc = check_exit("test_msg");
    MPI_Finalize();
    return rc;
}
