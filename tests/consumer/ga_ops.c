/* ga_ops: Global Arrays' irregular one-sided operations, atomics, mutexes,
 * collectives and processor groups, checked against models every process
 * computes itself.
 *
 *  - NGA_Scatter, NGA_Gather and NGA_Scatter_acc on a C_DBL 2-D and a C_INT
 *    3-D array: subscripts owned by every process, and in Scatter_acc the
 *    same element several times in one call and from every process;
 *  - NGA_Read_inc under contention: every process increments a counter on
 *    rank 0 by 1 and one on the last rank by 3, many times; the returned
 *    values, collected, must be exactly 0..total-1 (and 0, 3, 6, ...) with
 *    no duplicate, increasing on each process, and the finals exact;
 *  - GA_Create_mutexes, GA_Lock, GA_Unlock guarding a non-atomic
 *    NGA_Get + NGA_Put increment (with GA_Init_fence / GA_Fence), and
 *    GA_Destroy_mutexes: the final counts must be exact;
 *  - GA_Igop, GA_Lgop, GA_Llgop, GA_Fgop, GA_Dgop of 7 and of 700 elements
 *    (reach's two algorithms) with "+", "*", "max",
 *    "min", "absmax", "absmin" (the operations GA documents), and for the
 *    integer types the logical and bitwise operations GA passes on to
 *    ARMCI ("&&", "||", "land", "lor", "&", "|", "band", "bor", "or");
 *    GA_Cgop and GA_Zgop with "+";
 *  - GA_Brdcst from the first and the last rank; GA_Nodeid, GA_Nnodes
 *    against MPI; GA_Sync completing puts to other processes;
 *  - processor groups: GA_Pgroup_create of the even and of the odd ranks,
 *    GA_Pgroup_nnodes / GA_Pgroup_nodeid, GA_Pgroup_sync, GA_Pgroup_dgop,
 *    GA_Pgroup_igop, GA_Pgroup_brdcst, an array created on each group
 *    with NGA_Create_config used concurrently by both groups,
 *    GA_Pgroup_destroy. */
#include <string.h>

#include "ga_check.h"

#define INC_ROUNDS 20   /* NGA_Read_inc calls per process and counter */
#define LOCK_ROUNDS 6   /* mutex-guarded increments per process and mutex */

static int me, np;

static int create(int type, int ndim, const int dims_in[], const char *name)
{
    int dims[3], chunk[3] = {-1, -1, -1};
    memcpy(dims, dims_in, sizeof(int) * (size_t)ndim);
    int g = NGA_Create(type, ndim, dims, (char *)name, chunk);
    gc_begin("NGA_Create %s", name);
    gc_int(0, 1, g != 0);
    return g;
}

static void subscript(int ndim, const int dims[], long i, int sub[])
{
    for (int d = ndim - 1; d >= 0; d--) {
        sub[d] = (int)(i % dims[d]);
        i /= dims[d];
    }
}

/* NGA_Scatter, NGA_Gather and NGA_Scatter_acc on one array. */
static void check_scatter_gather(int type, int ndim, const int dims[])
{
    const char *tn = gc_type_name(type);
    long n = 1;
    for (int d = 0; d < ndim; d++)
        n *= dims[d];
    int g = create(type, ndim, dims, "scatter");
    size_t size = gc_size(type);
    long cap = n + 8;
    int *subs = malloc(sizeof(int) * 3 * (size_t)cap), **sp = malloc(sizeof(int *) * (size_t)cap);
    unsigned char *v = malloc(size * (size_t)cap);
    double *model = calloc((size_t)n, sizeof(double));
    for (long k = 0; k < cap; k++)
        sp[k] = subs + 3 * k;

    /* Scatter: process r writes the elements i with i % np == r, every
     * other one; the rest stay zero. */
    GA_Zero(g);
    long m = 0;
    for (long i = 0; i < n; i++) {
        int r = (int)(i % np);
        if ((i / np) % 2)
            continue;
        model[i] = (double)(i % 17) - 8 + r;
        if (r != me)
            continue;
        subscript(ndim, dims, i, sp[m]);
        gc_store(type, v, m++, model[i], 0);
    }
    if (m > 0)
        NGA_Scatter(g, v, sp, (int)m);
    GA_Sync();

    /* Gather every element, in reverse order. */
    for (long k = 0; k < n; k++)
        subscript(ndim, dims, n - 1 - k, sp[k]);
    memset(v, 0x5a, size * (size_t)n);
    NGA_Gather(g, v, sp, (int)n);
    gc_begin("NGA_Scatter then NGA_Gather, %s %d-D", tn, ndim);
    for (long k = 0; k < n; k++)
        gc_value(type, n - 1 - k, model[n - 1 - k], 0, v, k);
    GA_Sync();

    /* Scatter_acc: every process adds to every element once, to the first
     * element three more times and to the last twice more, in one call. */
    m = 0;
    double alpha = me % 4 == 1 ? -1 : me % 4 + 1;
    for (long i = 0; i < n + 5; i++) {
        long e = i < n ? (i * 7 + me) % n : i < n + 3 ? 0 : n - 1;
        double x = (double)((i + me) % 5) - 2;
        subscript(ndim, dims, e, sp[m]);
        gc_store(type, v, m++, x, 0);
    }
    for (int r = 0; r < np; r++) {
        double a = r % 4 == 1 ? -1 : r % 4 + 1;
        for (long i = 0; i < n + 5; i++) {
            long e = i < n ? (i * 7 + r) % n : i < n + 3 ? 0 : n - 1;
            model[e] += a * (double)((i + r) % 5 - 2);
        }
    }
    unsigned char a[16];
    gc_store(type, a, 0, alpha, 0);
    NGA_Scatter_acc(g, v, sp, (int)m, a);
    GA_Sync();
    for (long k = 0; k < n; k++)
        subscript(ndim, dims, k, sp[k]);
    memset(v, 0x5a, size * (size_t)n);
    NGA_Gather(g, v, sp, (int)n);
    gc_begin("NGA_Scatter_acc, repeated subscripts, %s %d-D", tn, ndim);
    for (long k = 0; k < n; k++)
        gc_value(type, k, model[k], 0, v, k);
    GA_Sync();
    GA_Destroy(g);
    free(subs);
    free(sp);
    free(v);
    free(model);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* NGA_Read_inc by every process on two counters owned by different
 * processes; the values returned are collected in a second array. */
static void check_read_inc(void)
{
    int dims[1] = {np + 1}, last = np;
    int g = create(C_LONG, 1, dims, "counters");
    int rdims[1] = {2 * np * INC_ROUNDS};
    int gr = create(C_LONG, 1, rdims, "returned");
    GA_Zero(g);
    gc_begin("counters owned by rank 0 and the last rank");
    int s0[1] = {0}, s1[1] = {last};
    gc_int(0, 0, NGA_Locate(g, s0));
    gc_int(1, np - 1, NGA_Locate(g, s1));

    long got[2 * INC_ROUNDS];
    for (int k = 0; k < INC_ROUNDS; k++) {
        got[k] = NGA_Read_inc(g, s0, 1);
        got[INC_ROUNDS + k] = NGA_Read_inc(g, s1, 3);
    }
    gc_begin("NGA_Read_inc returns increasing values on each process");
    for (int k = 1; k < INC_ROUNDS; k++) {
        gc_int(k, 1, got[k] > got[k - 1]);
        gc_int(INC_ROUNDS + k, 1, got[INC_ROUNDS + k] > got[INC_ROUNDS + k - 1]);
    }
    /* Returned values: counter 0's of every process first, then counter 1's. */
    int lo[1] = {me * INC_ROUNDS}, hi[1] = {me * INC_ROUNDS + INC_ROUNDS - 1}, ld[1] = {0};
    NGA_Put(gr, lo, hi, got, ld);
    lo[0] += np * INC_ROUNDS;
    hi[0] += np * INC_ROUNDS;
    NGA_Put(gr, lo, hi, got + INC_ROUNDS, ld);
    GA_Sync();

    long total = (long)np * INC_ROUNDS, finals[2] = {-1, -1};
    NGA_Get(g, s0, s0, &finals[0], ld);
    NGA_Get(g, s1, s1, &finals[1], ld);
    gc_begin("NGA_Read_inc final counts");
    gc_int(0, total, finals[0]);
    gc_int(1, 3 * total, finals[1]);
    if (me == 0 || me == np - 1) {
        /* The values returned by all processes, sorted: exactly 0..total-1
         * for counter 0, and 0, 3, ..., 3 (total-1) for counter 1. */
        long *all = malloc(sizeof(long) * 2 * (size_t)total);
        int alo[1] = {0}, ahi[1] = {2 * (int)total - 1};
        NGA_Get(gr, alo, ahi, all, ld);
        qsort(all, (size_t)total, sizeof(long), cmp_long);
        qsort(all + total, (size_t)total, sizeof(long), cmp_long);
        gc_begin("NGA_Read_inc values by 1 are 0..total-1, each once");
        for (long i = 0; i < total; i++)
            gc_int(i, i, all[i]);
        gc_begin("NGA_Read_inc values by 3 are 0, 3, .., each once");
        for (long i = 0; i < total; i++)
            gc_int(i, 3 * i, all[total + i]);
        free(all);
    }
    GA_Sync();
    GA_Destroy(gr);
    GA_Destroy(g);
}

/* A get, add, put of one element, guarded by a mutex. */
static void check_mutexes(void)
{
    int dims[1] = {2 * np + 1};
    int g = create(C_INT, 1, dims, "guarded");
    GA_Zero(g);
    gc_begin("GA_Create_mutexes(2) succeeds");
    gc_int(0, 1, GA_Create_mutexes(2));
    int elem[2][1] = {{0}, {2 * np}}, ld[1] = {0};
    for (int k = 0; k < LOCK_ROUNDS; k++)
        for (int j = 0; j < 2; j++) {
            int x;
            GA_Lock(j);
            NGA_Get(g, elem[j], elem[j], &x, ld);
            x += 1 + j;
            GA_Init_fence();
            NGA_Put(g, elem[j], elem[j], &x, ld);
            GA_Fence();
            GA_Unlock(j);
        }
    GA_Sync();
    int finals[2] = {-1, -1};
    NGA_Get(g, elem[0], elem[0], &finals[0], ld);
    NGA_Get(g, elem[1], elem[1], &finals[1], ld);
    gc_begin("GA_Lock-guarded increments, final counts");
    gc_int(0, (long long)np * LOCK_ROUNDS, finals[0]);
    gc_int(1, 2LL * np * LOCK_ROUNDS, finals[1]);
    gc_begin("GA_Destroy_mutexes succeeds");
    gc_int(0, 1, GA_Destroy_mutexes());
    GA_Destroy(g);
}

/* Elements of a reduction: a few (recursive doubling), and enough that
 * every type's vector is more than 2 KiB (halving, src/sync/coll_algo.c). */
enum { NV = 7, NV_LARGE = 700 };

/* Process r's j-th contribution to a reduction: -3..3, zeros included; the
 * 64-bit types get a large term where the operation allows it. */
static long long contribution(int r, int j, int wide, const char *op)
{
    long long x = (long long)((r * 3 + j * 5 + 1) % 7) - 3;
    if (wide && strcmp(op, "*") != 0 && j % 3 == 0)
        x += (long long)(r + 1) << 36;
    return x;
}

static long long reduce_int(long long a, long long b, const char *op)
{
    if (!strcmp(op, "+"))
        return a + b;
    if (!strcmp(op, "*"))
        return a * b;
    if (!strcmp(op, "max"))
        return a > b ? a : b;
    if (!strcmp(op, "min"))
        return a < b ? a : b;
    if (!strcmp(op, "absmax"))
        return llabs(a) > llabs(b) ? llabs(a) : llabs(b);
    if (!strcmp(op, "absmin"))
        return llabs(a) < llabs(b) ? llabs(a) : llabs(b);
    if (!strcmp(op, "&&") || !strcmp(op, "land"))
        return a && b;
    if (!strcmp(op, "||") || !strcmp(op, "lor"))
        return a || b;
    if (!strcmp(op, "&") || !strcmp(op, "band"))
        return a & b;
    return a | b; /* "|", "bor", "or" */
}

static int is_logical(const char *op)
{
    return !strcmp(op, "&&") || !strcmp(op, "land") || !strcmp(op, "||") || !strcmp(op, "lor");
}

/* The model of a reduction over all processes, starting from rank 0's
 * value (the absolute operations start from its absolute value). */
static long long expected_gop(int j, int wide, const char *op)
{
    long long acc = contribution(0, j, wide, op);
    if (!strcmp(op, "absmax") || !strcmp(op, "absmin"))
        acc = llabs(acc);
    if (is_logical(op))
        acc = acc != 0;
    for (int r = 1; r < np; r++)
        acc = reduce_int(acc, contribution(r, j, wide, op), op);
    return acc;
}

/* A logical reduction yields 0 or 1, but over a single process no
 * operation is applied and ARMCI returns the operand itself: only its
 * truth is compared then. */
static long long result(long long x, const char *op)
{
    return np == 1 && is_logical(op) ? x != 0 : x;
}

static void check_gops(void)
{
    static const char *const arith[] = {"+", "*", "max", "min", "absmax", "absmin"};
    static const char *const logic[] = {"&&", "||", "land", "lor", "&", "|", "band", "bor", "or"};
    static const int sizes[] = {NV, NV_LARGE};
    int na = (int)(sizeof arith / sizeof *arith), nl = (int)(sizeof logic / sizeof *logic);
    for (int k = 0; k < (int)(sizeof sizes / sizeof *sizes) * (na + nl); k++) {
        int n = sizes[k / (na + nl)], o = k % (na + nl), arithmetic = o < na;
        const char *op = arithmetic ? arith[o] : logic[o - na];
        int xi[NV_LARGE];
        long xl[NV_LARGE];
        long long xll[NV_LARGE];
        float xf[NV_LARGE];
        double xd[NV_LARGE];
        for (int j = 0; j < n; j++) {
            xi[j] = (int)contribution(me, j, 0, op);
            xl[j] = (long)contribution(me, j, 1, op);
            xll[j] = contribution(me, j, 1, op);
            xf[j] = (float)contribution(me, j, 0, op);
            xd[j] = (double)contribution(me, j, 0, op);
        }
        GA_Igop(xi, n, (char *)op);
        gc_begin("GA_Igop \"%s\" of %d", op, n);
        for (int j = 0; j < n; j++)
            gc_int(j, expected_gop(j, 0, op), result(xi[j], op));
        /* The logical and bitwise names: all on int, the C ones on 64 bits. */
        if (arithmetic || strlen(op) <= 2) {
            GA_Lgop(xl, n, (char *)op);
            gc_begin("GA_Lgop \"%s\" of %d", op, n);
            for (int j = 0; j < n; j++)
                gc_int(j, expected_gop(j, 1, op), result(xl[j], op));
            GA_Llgop(xll, n, (char *)op);
            gc_begin("GA_Llgop \"%s\" of %d", op, n);
            for (int j = 0; j < n; j++)
                gc_int(j, expected_gop(j, 1, op), result(xll[j], op));
        }
        if (arithmetic) {
            GA_Fgop(xf, n, (char *)op);
            gc_begin("GA_Fgop \"%s\" of %d", op, n);
            for (int j = 0; j < n; j++)
                gc_dbl(j, (double)expected_gop(j, 0, op), xf[j]);
            GA_Dgop(xd, n, (char *)op);
            gc_begin("GA_Dgop \"%s\" of %d", op, n);
            for (int j = 0; j < n; j++)
                gc_dbl(j, (double)expected_gop(j, 0, op), xd[j]);
        }
    }
    SingleComplex c[NV];
    DoubleComplex z[NV];
    for (int j = 0; j < NV; j++) {
        c[j] = (SingleComplex){(float)(me + j), (float)(me - 2 * j)};
        z[j] = (DoubleComplex){me * 0.5 + j, -me - j};
    }
    GA_Cgop(c, NV, "+");
    GA_Zgop(z, NV, "+");
    double sum = np * (np - 1) / 2.0;
    gc_begin("GA_Cgop \"+\"");
    for (int j = 0; j < NV; j++)
        gc_cplx(j, sum + np * j, sum - 2.0 * np * j, c[j].real, c[j].imag);
    gc_begin("GA_Zgop \"+\"");
    for (int j = 0; j < NV; j++)
        gc_cplx(j, sum * 0.5 + np * j, -sum - (double)np * j, z[j].real, z[j].imag);
}

/* GA_Brdcst, GA_Nodeid / GA_Nnodes, GA_Sync. */
static void check_basics(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gc_begin("GA_Nodeid and GA_Nnodes match MPI_COMM_WORLD");
    gc_int(0, rank, GA_Nodeid());
    gc_int(1, size, GA_Nnodes());

    for (int root = 0; root < np; root += np > 1 ? np - 1 : 1) {
        double d[13];
        for (int j = 0; j < 13; j++)
            d[j] = me == root ? root * 100 + j * 0.5 : -1;
        GA_Brdcst(d, (int)sizeof d, root);
        gc_begin("GA_Brdcst from rank %d", root);
        for (int j = 0; j < 13; j++)
            gc_dbl(j, root * 100 + j * 0.5, d[j]);
    }

    /* Each process puts into the next one's element; after GA_Sync each
     * reads its own. */
    int dims[1] = {np}, ld[1] = {0};
    int g = create(C_INT, 1, dims, "sync");
    int next[1] = {(me + 1) % np}, mine[1] = {me}, x = 1000 + me, y = -1;
    NGA_Put(g, next, next, &x, ld);
    GA_Sync();
    NGA_Get(g, mine, mine, &y, ld);
    gc_begin("GA_Sync completes a put to another process");
    gc_int(me, 1000 + (me + np - 1) % np, y);
    GA_Sync();
    GA_Destroy(g);
}

/* The even ranks and the odd ranks each form a group and work in it at the
 * same time. */
static void check_groups(void)
{
    int *lists[2], counts[2] = {0, 0};
    lists[0] = malloc(sizeof(int) * (size_t)np);
    lists[1] = malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++)
        lists[r % 2][counts[r % 2]++] = r;
    int ngroups = np > 1 ? 2 : 1, grp[2];
    for (int k = 0; k < ngroups; k++)
        grp[k] = GA_Pgroup_create(lists[k], counts[k]);
    int mine = me % 2, count = counts[mine], gme = me / 2, mgrp = grp[mine];

    gc_begin("GA_Pgroup_nnodes and GA_Pgroup_nodeid");
    gc_int(0, count, GA_Pgroup_nnodes(mgrp));
    gc_int(1, gme, GA_Pgroup_nodeid(mgrp));

    double d[3] = {me, 1, -me * 0.5};
    GA_Pgroup_dgop(mgrp, d, 3, "+");
    int members = 0;
    for (int j = 0; j < count; j++)
        members += lists[mine][j];
    gc_begin("GA_Pgroup_dgop \"+\" over the group");
    gc_dbl(0, members, d[0]);
    gc_dbl(1, count, d[1]);
    gc_dbl(2, -members * 0.5, d[2]);
    int i[2] = {me, -me};
    GA_Pgroup_igop(mgrp, i, 2, "max");
    gc_begin("GA_Pgroup_igop \"max\" over the group");
    gc_int(0, lists[mine][count - 1], i[0]);
    gc_int(1, -lists[mine][0], i[1]);
    int b[5];
    for (int j = 0; j < 5; j++)
        b[j] = gme == count - 1 ? 7 * j + mine : -1;
    GA_Pgroup_brdcst(mgrp, b, (int)sizeof b, count - 1);
    gc_begin("GA_Pgroup_brdcst from the group's last member");
    for (int j = 0; j < 5; j++)
        gc_int(j, 7 * j + mine, b[j]);

    /* An array on the group: each member puts a slice, all get it all. */
    int dims[1] = {29 + mine}, chunk[1] = {-1}, n = dims[0], ld[1] = {0};
    int g = NGA_Create_config(C_DBL, 1, dims, "group", chunk, mgrp);
    gc_begin("NGA_Create_config on a group");
    gc_int(0, 1, g != 0);
    gc_begin("the group array is spread over the group's members only");
    int covered = 0;
    for (int p = 0; p < count; p++) {
        int lo[1], hi[1];
        NGA_Distribution(g, p, lo, hi);
        if (hi[0] < lo[0])
            continue;
        gc_int(p, covered, lo[0]);
        covered = hi[0] + 1;
    }
    gc_int(count, n, covered);
    int lo[1] = {gme * n / count}, hi[1] = {(gme + 1) * n / count - 1};
    double v[30];
    for (int j = lo[0]; j <= hi[0]; j++)
        v[j - lo[0]] = j * 2 + mine;
    if (hi[0] >= lo[0])
        NGA_Put(g, lo, hi, v, ld);
    GA_Pgroup_sync(mgrp);
    lo[0] = 0;
    hi[0] = n - 1;
    for (int j = 0; j < n; j++)
        v[j] = -1;
    NGA_Get(g, lo, hi, v, ld);
    gc_begin("NGA_Put, GA_Pgroup_sync, NGA_Get on a group array");
    for (int j = 0; j < n; j++)
        gc_dbl(j, j * 2 + mine, v[j]);
    GA_Pgroup_sync(mgrp);
    GA_Destroy(g);
    GA_Sync();
    for (int k = 0; k < ngroups; k++)
        GA_Pgroup_destroy(grp[k]);
    free(lists[0]);
    free(lists[1]);
}

int main(int argc, char **argv)
{
    gc_init("ga_ops", &argc, &argv, 1L << 20);
    me = GA_Nodeid();
    np = GA_Nnodes();
    int d2[2] = {23, 19}, d3[3] = {5, 6, 7};
    check_basics();
    check_scatter_gather(C_DBL, 2, d2);
    check_scatter_gather(C_INT, 3, d3);
    check_read_inc();
    check_mutexes();
    check_gops();
    check_groups();
    return gc_finish();
}
