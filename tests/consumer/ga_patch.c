/* ga_patch: Global Arrays' masked 1-D operations, element-wise operations
 * on patches and matrix multiplication on patches, checked element by
 * element against models every process computes itself in plain C arrays.
 * Inputs are small integers, quarters and signed powers of two, so every
 * result is exact.
 *
 *  - GA_Pack, GA_Unpack, GA_Scan_copy and GA_Scan_add (inclusive and
 *    exclusive) on 1-D arrays of every type with a C_INT mask, and C_DBL
 *    with masks of every type (`ga_patch N pairs`: every type with every
 *    type of mask), made afresh for each pair: 4099 elements
 *    (or the number given as the argument), with a
 *    dense mask (every 3rd and every 7th element, set to varying non-zero
 *    values) and a sparse one (segments longer than a block from 4
 *    processes), over the whole array and over a range that starts and
 *    ends inside blocks; elements outside the range and past the packed
 *    count must keep their previous values, and the counts must be exact;
 *  - on 157x143 C_DBL arrays, patches of 61x75 at different places of each
 *    array, none aligned with the distribution: GA_Elem_multiply_patch,
 *    GA_Elem_divide_patch, GA_Elem_maximum_patch, GA_Elem_minimum_patch,
 *    GA_Median_patch, GA_Abs_value_patch, GA_Add_constant_patch,
 *    GA_Recip_patch (every element of the result arrays checked, inside
 *    the patch changed, outside unchanged); GA_Step_max_patch (over the
 *    arrays' whole extent, see check_elementwise) and GA_Step_max;
 *  - NGA_Matmul_patch with 'N' and 'T' for each operand on 37x29 and 29x41
 *    sub-blocks of larger arrays into a 37x41 sub-block of a third, the
 *    2-D GA_Matmul_patch (Fortran-ordered indices, as GA's C API passes
 *    them on) and a whole-array GA_Dgemm, against local triple loops.
 * Each process checks a slab of every result that straddles block
 * boundaries; together the slabs cover every element. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ga_array.h"

/* 1-D length and sub-range; `ga_patch N` takes N elements (Global Arrays'
 * own pack and scan tests use 200,000), the range from about N/8 to
 * N - N/20. */
static int N1 = 4099, LO1 = 518, HI1 = 3901;
enum { R = 157, C = 143 };                  /* 2-D element-wise arrays */

static int me, np;

static long size_of(const struct arr *a)
{
    return (long)a->dims[0] * a->dims[1];
}


/* ---------------------------------------------------------------------
 * GA_Pack, GA_Unpack, GA_Scan_copy, GA_Scan_add */

static double src_value(int type, long i)
{
    if (type == C_INT || type == C_LONG || type == C_LONGLONG)
        return (double)((i * 37) % 101) - 50;
    return (double)((i * 53) % 64 - 32) * 0.25;
}

/* What a destination holds before each operation: none of the values an
 * operation writes. */
static double sentinel(long i)
{
    return -1000.0 - (double)(i % 13);
}

/* Mask values: set elements hold varying non-zero values. */
static double dense_mask(long i)
{
    if (i % 3 != 0 && i % 7 != 0)
        return 0;
    return i % 4 == 1 ? -1 : (double)(i % 4 + 1);
}

/* Segments of up to 1100 elements, longer than a block from 4 processes,
 * so sums and copies carry across whole blocks; set where each range used
 * starts (0 and LO1). */
static double sparse_mask(long i)
{
    return i % 1100 == 0 || i == LO1 || i == 2999 ? 2 : 0;
}

static void fill_sentinel(struct arr *a)
{
    for (long i = 0; i < size_of(a); i++)
        a->model[i] = sentinel(i);
    store_local(a);
    GA_Sync();
}

static void check_pack_scan_one(int type, struct arr *src, struct arr *mask, struct arr *x,
                                struct arr *y, const char *mname, int lo, int hi)
{
    const char *tn = gc_type_name(type);
    long count = 0;
    for (long i = lo; i <= hi; i++)
        if (mask->model[i] != 0)
            count++;

    /* GA_Pack into x: the first count elements, the rest unchanged. */
    fill_sentinel(x);
    int icount = -1;
    GA_Pack(src->g, x->g, mask->g, lo, hi, &icount);
    long k = 0;
    for (long i = lo; i <= hi; i++)
        if (mask->model[i] != 0)
            x->model[k++] = src->model[i];
    gc_begin("GA_Pack %s, %s mask, %d..%d: count", tn, mname, lo, hi);
    gc_int(0, count, icount);
    check(x, "GA_Pack %s, %s mask, %d..%d", tn, mname, lo, hi);
    GA_Sync();

    /* GA_Unpack of x into y: the masked elements of the range, in order. */
    fill_sentinel(y);
    int ucount = -1;
    GA_Unpack(x->g, y->g, mask->g, lo, hi, &ucount);
    for (long i = lo; i <= hi; i++)
        if (mask->model[i] != 0)
            y->model[i] = src->model[i];
    gc_begin("GA_Unpack %s, %s mask, %d..%d: count", tn, mname, lo, hi);
    gc_int(0, count, ucount);
    check(y, "GA_Unpack %s, %s mask, %d..%d", tn, mname, lo, hi);
    GA_Sync();

    /* Segments start where the mask is set; each range starts on a set
     * element. */
    fill_sentinel(x);
    GA_Scan_copy(src->g, x->g, mask->g, lo, hi);
    double first = 0;
    for (long i = lo; i <= hi; i++) {
        if (mask->model[i] != 0)
            first = src->model[i];
        x->model[i] = first;
    }
    check(x, "GA_Scan_copy %s, %s mask, %d..%d", tn, mname, lo, hi);
    GA_Sync();

    for (int excl = 0; excl <= 1; excl++) {
        fill_sentinel(y);
        GA_Scan_add(src->g, y->g, mask->g, lo, hi, excl);
        double sum = 0;
        for (long i = lo; i <= hi; i++) {
            if (mask->model[i] != 0)
                sum = 0;
            y->model[i] = excl ? sum : sum + src->model[i];
            sum += src->model[i];
        }
        check(y, "GA_Scan_add %s %s, %s mask, %d..%d", excl ? "exclusive" : "inclusive", tn,
              mname, lo, hi);
        GA_Sync();
    }
}

/* One type of array with one type of mask, every array made afresh and
 * destroyed after, as Global Arrays' own pack and scan tests do for every
 * pair of types. */
static void check_pack_scan_types(int type, int mtype)
{
    struct arr dense = make(mtype, 1, N1, 1, "dense mask");
    struct arr sparse = make(mtype, 1, N1, 1, "sparse mask");
    struct arr src = make(type, 1, N1, 1, "source");
    struct arr x = make(type, 1, N1, 1, "x"), y = make(type, 1, N1, 1, "y");
    for (long i = 0; i < N1; i++) {
        dense.model[i] = dense_mask(i);
        sparse.model[i] = sparse_mask(i);
        src.model[i] = src_value(type, i);
    }
    store_local(&dense);
    store_local(&sparse);
    store_local(&src);
    GA_Sync();
    char dname[32], sname[32];
    snprintf(dname, sizeof dname, "dense %s", gc_type_name(mtype));
    snprintf(sname, sizeof sname, "sparse %s", gc_type_name(mtype));
    check_pack_scan_one(type, &src, &dense, &x, &y, dname, 0, N1 - 1);
    check_pack_scan_one(type, &src, &dense, &x, &y, dname, LO1, HI1);
    check_pack_scan_one(type, &src, &sparse, &x, &y, sname, 0, N1 - 1);
    check_pack_scan_one(type, &src, &sparse, &x, &y, sname, LO1, HI1);
    destroy(&src);
    destroy(&x);
    destroy(&y);
    destroy(&dense);
    destroy(&sparse);
}

/* Every type of array with a C_INT mask, and C_DBL with every type of
 * mask; or, with every_pair, every type with every type of mask (49
 * pairs, as Global Arrays' own tests). */
static void check_pack_scan(int every_pair)
{
    static const int types[] = {C_INT, C_LONG, C_LONGLONG, C_FLOAT, C_DBL, C_SCPL, C_DCPL};
    enum { NT = sizeof types / sizeof *types };
    for (size_t m = 0; m < NT; m++) /* (types[0] is C_INT) */
        for (size_t t = 0; t < NT; t++)
            if (every_pair || m == 0 || types[t] == C_DBL)
                check_pack_scan_types(types[t], types[m]);
}

/* ---------------------------------------------------------------------
 * Element-wise operations on patches */

/* Small exact inputs: -5..5 with zeros; signed powers of two; -4..4. */
static double val_a(long i)
{
    return (double)((i * 7 + 3) % 11) - 5;
}

static double val_b(long i)
{
    static const double pow2[5] = {0.25, 0.5, 1, 2, 4};
    return (i % 3 ? 1 : -1) * pow2[(i * 3) % 5];
}

static double val_c(long i)
{
    return (double)((i * 5 + 1) % 9) - 4;
}

struct patch {
    int lo[2], hi[2];
};

static struct patch patch(int r0, int c0, int nr, int nc)
{
    return (struct patch){{r0, c0}, {r0 + nr - 1, c0 + nc - 1}};
}

/* The flat index of the k-th element (row-major) of patch p. */
static long at(const struct patch *p, long k)
{
    int nc = p->hi[1] - p->lo[1] + 1;
    return (long)(p->lo[0] + k / nc) * C + p->lo[1] + k % nc;
}

static long patch_len(const struct patch *p)
{
    return (long)(p->hi[0] - p->lo[0] + 1) * (p->hi[1] - p->lo[1] + 1);
}

static double median3(double a, double b, double c)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

static void set_model(struct arr *a, double (*f)(long))
{
    for (long i = 0; i < size_of(a); i++)
        a->model[i] = f(i);
}

static void check_elementwise(void)
{
    struct arr a = make(C_DBL, 2, R, C, "a"), b = make(C_DBL, 2, R, C, "b");
    struct arr c = make(C_DBL, 2, R, C, "c"), r[5];
    for (int j = 0; j < 5; j++)
        r[j] = make(C_DBL, 2, R, C, "result");
    set_model(&a, val_a);
    set_model(&b, val_b);
    set_model(&c, val_c);
    store_local(&a);
    store_local(&b);
    store_local(&c);
    for (int j = 0; j < 5; j++) {
        set_model(&r[j], sentinel);
        store_local(&r[j]);
    }
    GA_Sync();

    /* 61x75 patches, each at a different place: GA's blocks start at rows
     * 79 (2 processes) or 40, 79 and 118 (4 and 8) and, with 8, at column
     * 72; every patch crosses block edges and none of its edges is one. */
    struct patch p1 = patch(11, 3, 61, 75), p2 = patch(90, 60, 61, 75), p3 = patch(41, 33, 61, 75);
    GA_Elem_multiply_patch(a.g, p1.lo, p1.hi, b.g, p2.lo, p2.hi, r[0].g, p3.lo, p3.hi);
    GA_Elem_divide_patch(a.g, p2.lo, p2.hi, b.g, p3.lo, p3.hi, r[1].g, p1.lo, p1.hi);
    GA_Elem_maximum_patch(a.g, p3.lo, p3.hi, b.g, p1.lo, p1.hi, r[2].g, p2.lo, p2.hi);
    GA_Elem_minimum_patch(a.g, p1.lo, p1.hi, c.g, p3.lo, p3.hi, r[3].g, p2.lo, p2.hi);
    GA_Median_patch(a.g, p2.lo, p2.hi, b.g, p1.lo, p1.hi, c.g, p3.lo, p3.hi, r[4].g, p1.lo,
                    p1.hi);
    for (long k = 0; k < patch_len(&p1); k++) {
        double x, y;
        r[0].model[at(&p3, k)] = a.model[at(&p1, k)] * b.model[at(&p2, k)];
        r[1].model[at(&p1, k)] = a.model[at(&p2, k)] / b.model[at(&p3, k)];
        x = a.model[at(&p3, k)];
        y = b.model[at(&p1, k)];
        r[2].model[at(&p2, k)] = x > y ? x : y;
        x = a.model[at(&p1, k)];
        y = c.model[at(&p3, k)];
        r[3].model[at(&p2, k)] = x < y ? x : y;
        r[4].model[at(&p1, k)] =
            median3(a.model[at(&p2, k)], b.model[at(&p1, k)], c.model[at(&p3, k)]);
    }
    check(&r[0], "GA_Elem_multiply_patch");
    check(&r[1], "GA_Elem_divide_patch");
    check(&r[2], "GA_Elem_maximum_patch");
    check(&r[3], "GA_Elem_minimum_patch");
    check(&r[4], "GA_Median_patch");
    check(&a, "inputs of the element-wise patch operations unchanged");
    check(&b, "inputs of the element-wise patch operations unchanged");
    check(&c, "inputs of the element-wise patch operations unchanged");
    GA_Sync();

    /* In place, on overlapping patches: |a| on p1, then + 2.5 on p3 (part
     * of it absolute); 1/b on p2. */
    double plus = 2.5;
    GA_Abs_value_patch(a.g, p1.lo, p1.hi);
    GA_Add_constant_patch(a.g, p3.lo, p3.hi, &plus);
    GA_Recip_patch(b.g, p2.lo, p2.hi);
    for (long k = 0; k < patch_len(&p1); k++) {
        double *x = &a.model[at(&p1, k)];
        *x = *x < 0 ? -*x : *x;
    }
    for (long k = 0; k < patch_len(&p3); k++)
        a.model[at(&p3, k)] += plus;
    for (long k = 0; k < patch_len(&p2); k++)
        b.model[at(&p2, k)] = 1 / b.model[at(&p2, k)];
    check(&a, "GA_Abs_value_patch then GA_Add_constant_patch");
    check(&b, "GA_Recip_patch");
    GA_Sync();

    /* GA_Step_max_patch and GA_Step_max: the largest step s with
     * x + s v >= 0, x > 0 (integers 1..8), v signed powers of two.  GA
     * 5.8.2 divides the patch into a temporary copy of x and takes the
     * maximum over the whole temporary, most of which a smaller patch
     * leaves unwritten (the result is then 0, with one process too), so
     * the patch here spans the arrays. */
    struct arr x = r[0], v = r[1];
    double step = -1;
    for (long i = 0; i < R * C; i++) {
        x.model[i] = (double)((i * 5) % 8 + 1);
        v.model[i] = val_b(i + 1);
        if (v.model[i] < 0) {
            double s = x.model[i] / -v.model[i];
            step = step < 0 || s < step ? s : step;
        }
    }
    store_local(&x);
    store_local(&v);
    GA_Sync();
    int whole_lo[2] = {0, 0}, whole_hi[2] = {R - 1, C - 1};
    double got = -1, got2 = -1;
    GA_Step_max_patch(x.g, whole_lo, whole_hi, v.g, whole_lo, whole_hi, &got);
    GA_Step_max(x.g, v.g, &got2);
    gc_begin("GA_Step_max_patch and GA_Step_max");
    gc_dbl(0, step, got);
    gc_dbl(1, step, got2);
    GA_Sync();

    struct arr *all[] = {&a, &b, &c, &r[0], &r[1], &r[2], &r[3], &r[4]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        destroy(all[i]);
}

/* ---------------------------------------------------------------------
 * Matrix multiplication on patches */

enum { AR = 83, AC = 71, BR = 77, BC = 89, CR = 91, CC = 97 };
enum { MM = 37, NN = 41, KK = 29 };

static double val_ma(long i)
{
    return (double)((i * 3 + 1) % 7) - 3;
}

static double val_mb(long i)
{
    return (double)((i * 5 + 2) % 9) - 4;
}

static double val_mc(long i)
{
    return (double)((i * 2 + 1) % 5) - 2;
}

/* Element (i, j) of op(X)'s patch with corner (r0, c0), both in op(X)'s
 * coordinates as GA takes them: X itself, or X transposed. */
static double op_at(const struct arr *x, char t, int r0, int c0, int i, int j)
{
    if (t == 'T')
        return x->model[(long)(c0 + j) * x->dims[1] + r0 + i];
    return x->model[(long)(r0 + i) * x->dims[1] + c0 + j];
}

static void check_matmul(void)
{
    struct arr a = make(C_DBL, 2, AR, AC, "matmul a"), b = make(C_DBL, 2, BR, BC, "matmul b");
    struct arr c = make(C_DBL, 2, CR, CC, "matmul c");
    set_model(&a, val_ma);
    set_model(&b, val_mb);
    store_local(&a);
    store_local(&b);

    /* Patch corners in op()'s coordinates, as GA documents them ("patch
     * indices _after_ op() operator was applied"): op(A) is MMxKK, op(B)
     * KKxNN, the C patch MMxNN; a transposed patch spans columns of the
     * stored array with its rows. */
    static const struct {
        char ta, tb;
        int ar, ac, br, bc, cr, cc;
        double alpha, beta;
    } cases[] = {
        {'N', 'N', 5, 11, 20, 7, 13, 30, 1, 0},
        {'T', 'N', 3, 40, 44, 45, 50, 51, 2, -1},
        {'N', 'T', 46, 38, 50, 30, 3, 9, 0.5, 1},
        {'T', 'T', 29, 17, 21, 9, 29, 55, -1, 0.5},
    };
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
        set_model(&c, val_mc);
        store_local(&c);
        GA_Sync();
        char ta = cases[t].ta, tb = cases[t].tb;
        int alo[2] = {cases[t].ar, cases[t].ac}, ahi[2] = {alo[0] + MM - 1, alo[1] + KK - 1};
        int blo[2] = {cases[t].br, cases[t].bc}, bhi[2] = {blo[0] + KK - 1, blo[1] + NN - 1};
        int clo[2] = {cases[t].cr, cases[t].cc}, chi[2] = {clo[0] + MM - 1, clo[1] + NN - 1};
        double alpha = cases[t].alpha, beta = cases[t].beta;
        NGA_Matmul_patch(ta, tb, &alpha, &beta, a.g, alo, ahi, b.g, blo, bhi, c.g, clo, chi);
        for (int i = 0; i < MM; i++)
            for (int j = 0; j < NN; j++) {
                double sum = 0;
                for (int l = 0; l < KK; l++)
                    sum += op_at(&a, ta, alo[0], alo[1], i, l) *
                           op_at(&b, tb, blo[0], blo[1], l, j);
                double *y = &c.model[(long)(clo[0] + i) * CC + clo[1] + j];
                *y = alpha * sum + beta * *y;
            }
        check(&c, "NGA_Matmul_patch '%c' '%c' alpha %g beta %g", ta, tb, alpha, beta);
        GA_Sync();
    }
    check(&a, "NGA_Matmul_patch leaves a unchanged");
    check(&b, "NGA_Matmul_patch leaves b unchanged");

    /* GA_Matmul_patch takes (i, j) bounds that GA's C API passes on to its
     * Fortran core as they are, so i runs along a C array's columns and j
     * along its rows: with X'(i, j) = X[j][i] it computes
     * C'(ci.., cj..) = alpha op(A')(ai.., aj..) op(B')(bi.., bj..) + beta C',
     * the bounds of A' and B' being those of op(A') and op(B'). */
    set_model(&c, val_mc);
    store_local(&c);
    GA_Sync();
    {
        /* op(A') = A' on A columns 8..44, rows 31..59; op(B') = B'^T, whose
         * (l, j) is B'(j, l) = B[l][j], on B rows 12..40, columns 40..80;
         * C' on C columns 51..87, rows 44..84. */
        int ai = 8, aj = 31, bi = 12, bj = 40, ci = 51, cj = 44;
        double alpha = -2, beta = 1;
        GA_Matmul_patch('N', 'T', &alpha, &beta, a.g, ai, ai + MM - 1, aj, aj + KK - 1, b.g, bi,
                        bi + KK - 1, bj, bj + NN - 1, c.g, ci, ci + MM - 1, cj, cj + NN - 1);
        for (int i = 0; i < MM; i++)
            for (int j = 0; j < NN; j++) {
                double sum = 0;
                for (int l = 0; l < KK; l++)
                    sum += a.model[(long)(aj + l) * AC + ai + i] *
                           b.model[(long)(bi + l) * BC + bj + j];
                double *y = &c.model[(long)(cj + j) * CC + ci + i];
                *y = alpha * sum + beta * *y;
            }
        check(&c, "GA_Matmul_patch 'N' 'T' alpha %g beta %g", alpha, beta);
        GA_Sync();
    }
    destroy(&a);
    destroy(&b);
    destroy(&c);

    /* A whole-array GA_Dgemm: d (67x59) = 0.5 e' f - d with e 45x67 and
     * f 45x59. */
    struct arr d = make(C_DBL, 2, 67, 59, "dgemm c"), e = make(C_DBL, 2, 45, 67, "dgemm a");
    struct arr f = make(C_DBL, 2, 45, 59, "dgemm b");
    set_model(&d, val_mc);
    set_model(&e, val_ma);
    set_model(&f, val_mb);
    store_local(&d);
    store_local(&e);
    store_local(&f);
    GA_Sync();
    GA_Dgemm('T', 'N', 67, 59, 45, 0.5, e.g, f.g, -1, d.g);
    for (int i = 0; i < 67; i++)
        for (int j = 0; j < 59; j++) {
            double sum = 0;
            for (int l = 0; l < 45; l++)
                sum += e.model[l * 67 + i] * f.model[l * 59 + j];
            d.model[i * 59 + j] = 0.5 * sum - d.model[i * 59 + j];
        }
    check(&d, "GA_Dgemm 'T' 'N' alpha 0.5 beta -1");
    GA_Sync();
    destroy(&d);
    destroy(&e);
    destroy(&f);
}

int main(int argc, char **argv)
{
    gc_init("ga_patch", &argc, &argv, 1L << 21);
    me = GA_Nodeid();
    np = GA_Nnodes();
    int every_pair = argc == 3 && strcmp(argv[2], "pairs") == 0;
    if (argc > 3 || (argc == 3 && !every_pair))
        GA_Error("ga_patch: usage: ga_patch [LENGTH [pairs]]", 0);
    if (argc > 1) {
        char *end = NULL;
        errno = 0;
        long n = strtol(argv[1], &end, 10);
        if (errno != 0 || end == argv[1] || *end != '\0' || n < 4000 || n > 100000000)
            GA_Error("ga_patch: LENGTH must be a whole number from 4000 to 100000000", 0);
        N1 = (int)n;
        LO1 = N1 / 8 - N1 / 8 % 21; /* set in the dense mask too */
        HI1 = N1 - N1 / 20;
    }
    check_pack_scan(every_pair);
    check_elementwise();
    check_matmul();
    return gc_finish();
}
