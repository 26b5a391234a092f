/* ga_math: Global Arrays' collective mathematics, checked against models
 * every process computes itself in plain C arrays.  Inputs are small
 * integers, halves and powers of two, so every result is exact.
 *
 *  - element-wise: GA_Abs_value, GA_Add_constant, GA_Recip,
 *    GA_Elem_multiply, GA_Elem_divide, GA_Elem_maximum, GA_Elem_minimum and
 *    their _patch forms, the patches of the three arrays at different
 *    places;
 *  - patches: NGA_Fill_patch, NGA_Zero_patch, NGA_Scale_patch,
 *    NGA_Copy_patch (plain and transposed), NGA_Add_patch, NGA_Ddot_patch,
 *    NGA_Idot_patch, and on whole arrays GA_Ddot, GA_Idot, GA_Add, GA_Copy;
 *  - GA_Dgemm, 37x29 times 29x41, with every combination of transposes and
 *    several alpha and beta, against a local triple loop; GA_Transpose;
 *    NGA_Matmul_patch on patches of the same arrays;
 *  - GA_Patch_enum, GA_Pack, GA_Unpack, GA_Scan_copy, GA_Scan_add
 *    (inclusive and exclusive) on 1-D arrays with a mask of segment starts.
 * Each process checks a slab of every result that straddles block
 * boundaries; together the slabs cover every element. */
#include <string.h>

#include "ga_array.h"

enum { M = 37, K = 29, N = 41, LEN = 101 };

static int me, np;

/* Small exact inputs: -5..5 with zeros, and signed powers of two. */
static double val_a(long i)
{
    return (double)((i * 7 + 3) % 11) - 5;
}

static double val_b(long i)
{
    static const double pow2[5] = {0.25, 0.5, 1, 2, 4};
    return (i % 3 ? 1 : -1) * pow2[(i * 3) % 5];
}

/* A 2-D patch: rows r0..r0+nr-1, columns c0..c0+nc-1. */
struct patch {
    int lo[2], hi[2];
};

static struct patch patch(int r0, int c0, int nr, int nc)
{
    return (struct patch){{r0, c0}, {r0 + nr - 1, c0 + nc - 1}};
}

static long at(const struct arr *a, const struct patch *p, int k)
{
    int nc = p->hi[1] - p->lo[1] + 1;
    return (long)(p->lo[0] + k / nc) * a->dims[1] + p->lo[1] + k % nc;
}

static int patch_len(const struct patch *p)
{
    return (p->hi[0] - p->lo[0] + 1) * (p->hi[1] - p->lo[1] + 1);
}

/* Arrays of M x K doubles and ints, created once: creating an array is
 * costly with many processes on few cores. */
static struct arr pool[6], ipool[2];

static void check_elementwise(void)
{
    struct arr a = pool[0], b = pool[1], c[4] = {pool[2], pool[3], pool[4], pool[5]};
    for (long i = 0; i < M * K; i++) {
        a.model[i] = val_a(i);
        b.model[i] = val_b(i);
    }
    store_local(&a);
    store_local(&b);
    GA_Sync();

    GA_Elem_multiply(a.g, b.g, c[0].g);
    GA_Elem_divide(a.g, b.g, c[1].g);
    GA_Elem_maximum(a.g, b.g, c[2].g);
    GA_Elem_minimum(a.g, b.g, c[3].g);
    for (long i = 0; i < M * K; i++) {
        double x = a.model[i], y = b.model[i];
        c[0].model[i] = x * y;
        c[1].model[i] = x / y;
        c[2].model[i] = x > y ? x : y;
        c[3].model[i] = x < y ? x : y;
    }
    check(&c[0], "GA_Elem_multiply");
    check(&c[1], "GA_Elem_divide");
    check(&c[2], "GA_Elem_maximum");
    check(&c[3], "GA_Elem_minimum");
    GA_Sync();

    struct arr r = c[0], s = c[1];
    GA_Copy(b.g, r.g);
    GA_Recip(r.g);
    GA_Copy(a.g, s.g);
    GA_Abs_value(s.g);
    double plus = 2.5;
    GA_Add_constant(s.g, &plus);
    for (long i = 0; i < M * K; i++) {
        double x = a.model[i];
        r.model[i] = 1 / b.model[i];
        s.model[i] = (x < 0 ? -x : x) + plus;
    }
    check(&r, "GA_Copy then GA_Recip");
    check(&s, "GA_Copy, GA_Abs_value, GA_Add_constant");
    GA_Sync();

    /* The patch forms: the three patches of each operation are at
     * different places of their arrays. */
    struct patch p1 = patch(3, 2, 18, 16), p2 = patch(10, 11, 18, 16), p3 = patch(19, 0, 18, 16);
    for (int j = 0; j < 4; j++) {
        GA_Zero(c[j].g);
        memset(c[j].model, 0, sizeof(double) * M * K);
    }
    GA_Elem_multiply_patch(a.g, p1.lo, p1.hi, b.g, p2.lo, p2.hi, c[0].g, p3.lo, p3.hi);
    GA_Elem_divide_patch(a.g, p2.lo, p2.hi, b.g, p1.lo, p1.hi, c[1].g, p3.lo, p3.hi);
    GA_Elem_maximum_patch(a.g, p3.lo, p3.hi, b.g, p2.lo, p2.hi, c[2].g, p1.lo, p1.hi);
    GA_Elem_minimum_patch(a.g, p1.lo, p1.hi, b.g, p3.lo, p3.hi, c[3].g, p2.lo, p2.hi);
    GA_Abs_value_patch(a.g, p1.lo, p1.hi);
    GA_Add_constant_patch(a.g, p2.lo, p2.hi, &plus);
    GA_Recip_patch(b.g, p3.lo, p3.hi);
    for (int k = 0; k < patch_len(&p1); k++) {
        double x;
        c[0].model[at(&c[0], &p3, k)] = a.model[at(&a, &p1, k)] * b.model[at(&b, &p2, k)];
        c[1].model[at(&c[1], &p3, k)] = a.model[at(&a, &p2, k)] / b.model[at(&b, &p1, k)];
        x = a.model[at(&a, &p3, k)] > b.model[at(&b, &p2, k)] ? a.model[at(&a, &p3, k)]
                                                               : b.model[at(&b, &p2, k)];
        c[2].model[at(&c[2], &p1, k)] = x;
        x = a.model[at(&a, &p1, k)] < b.model[at(&b, &p3, k)] ? a.model[at(&a, &p1, k)]
                                                               : b.model[at(&b, &p3, k)];
        c[3].model[at(&c[3], &p2, k)] = x;
    }
    for (int k = 0; k < patch_len(&p1); k++) {
        double *x = &a.model[at(&a, &p1, k)];
        *x = *x < 0 ? -*x : *x;
    }
    for (int k = 0; k < patch_len(&p2); k++)
        a.model[at(&a, &p2, k)] += plus;
    for (int k = 0; k < patch_len(&p3); k++)
        b.model[at(&b, &p3, k)] = 1 / b.model[at(&b, &p3, k)];
    check(&c[0], "GA_Elem_multiply_patch");
    check(&c[1], "GA_Elem_divide_patch");
    check(&c[2], "GA_Elem_maximum_patch");
    check(&c[3], "GA_Elem_minimum_patch");
    check(&a, "GA_Abs_value_patch then GA_Add_constant_patch");
    check(&b, "GA_Recip_patch");
    GA_Sync();
}

static void check_patch_ops(void)
{
    struct arr a = pool[0], b = pool[1], d = pool[2], e = pool[3], f = pool[4], h = pool[5];
    struct arr ia = ipool[0], ib = ipool[1];
    memset(e.model, 0, sizeof(double) * M * K);
    memset(f.model, 0, sizeof(double) * M * K);
    for (long i = 0; i < M * K; i++) {
        a.model[i] = val_a(i);
        b.model[i] = val_b(i);
        ia.model[i] = val_a(i * 3);
        ib.model[i] = (double)(i % 5) - 2;
    }
    store_local(&a);
    store_local(&b);
    store_local(&ia);
    store_local(&ib);
    GA_Zero(e.g);
    GA_Zero(f.g);
    GA_Sync();

    /* d: a copy of a, then filled, zeroed and scaled on overlapping patches. */
    struct patch q1 = patch(0, 0, 20, 10), q2 = patch(15, 5, 22, 7), q3 = patch(5, 8, 30, 21);
    double fill = 7.5, scale = -0.5;
    GA_Copy(a.g, d.g);
    NGA_Fill_patch(d.g, q1.lo, q1.hi, &fill);
    NGA_Zero_patch(d.g, q2.lo, q2.hi);
    NGA_Scale_patch(d.g, q3.lo, q3.hi, &scale);
    memcpy(d.model, a.model, sizeof(double) * M * K);
    for (int k = 0; k < patch_len(&q1); k++)
        d.model[at(&d, &q1, k)] = fill;
    for (int k = 0; k < patch_len(&q2); k++)
        d.model[at(&d, &q2, k)] = 0;
    for (int k = 0; k < patch_len(&q3); k++)
        d.model[at(&d, &q3, k)] *= scale;
    check(&d, "GA_Copy, NGA_Fill_patch, NGA_Zero_patch, NGA_Scale_patch");

    /* e: a patch of a copied elsewhere; f: one copied transposed. */
    struct patch p1 = patch(3, 2, 18, 16), p2 = patch(10, 11, 18, 16), pt = patch(5, 7, 16, 18);
    NGA_Copy_patch('N', a.g, p1.lo, p1.hi, e.g, p2.lo, p2.hi);
    NGA_Copy_patch('T', a.g, p1.lo, p1.hi, f.g, pt.lo, pt.hi);
    for (int i = 0; i < 18; i++)
        for (int j = 0; j < 16; j++) {
            double x = a.model[(long)(3 + i) * K + 2 + j];
            e.model[(long)(10 + i) * K + 11 + j] = x;
            f.model[(long)(5 + j) * K + 7 + i] = x;
        }
    check(&e, "NGA_Copy_patch");
    check(&f, "NGA_Copy_patch transposed");

    /* h = 0.5 a + 3 b, then h's patch p3 = 2 a(p1) - 0.5 b(p2). */
    double alpha = 0.5, beta = 3, alpha2 = 2, beta2 = -0.5;
    struct patch p3 = patch(19, 0, 18, 16);
    GA_Add(&alpha, a.g, &beta, b.g, h.g);
    NGA_Add_patch(&alpha2, a.g, p1.lo, p1.hi, &beta2, b.g, p2.lo, p2.hi, h.g, p3.lo, p3.hi);
    for (long i = 0; i < M * K; i++)
        h.model[i] = alpha * a.model[i] + beta * b.model[i];
    for (int k = 0; k < patch_len(&p1); k++)
        h.model[at(&h, &p3, k)] = alpha2 * a.model[at(&a, &p1, k)] + beta2 * b.model[at(&b, &p2, k)];
    check(&h, "GA_Add then NGA_Add_patch");

    double ddot = 0, pdot = 0;
    long idot = 0, ipdot = 0;
    for (long i = 0; i < M * K; i++) {
        ddot += a.model[i] * b.model[i];
        idot += (long)(ia.model[i] * ib.model[i]);
    }
    for (int k = 0; k < patch_len(&p1); k++) {
        pdot += a.model[at(&a, &p1, k)] * b.model[at(&b, &p2, k)];
        ipdot += (long)(ia.model[at(&ia, &p2, k)] * ib.model[at(&ib, &p1, k)]);
    }
    gc_begin("GA_Ddot and NGA_Ddot_patch");
    gc_dbl(0, ddot, GA_Ddot(a.g, b.g));
    gc_dbl(1, pdot, NGA_Ddot_patch(a.g, 'N', p1.lo, p1.hi, b.g, 'N', p2.lo, p2.hi));
    gc_begin("GA_Idot and NGA_Idot_patch");
    gc_int(0, idot, GA_Idot(ia.g, ib.g));
    gc_int(1, ipdot, NGA_Idot_patch(ia.g, 'N', p2.lo, p2.hi, ib.g, 'N', p1.lo, p1.hi));
    GA_Sync();
}

static double val_ga(int i, int l)
{
    return (double)((i * 3 + l * 5) % 7) - 3;
}

static double val_gb(int l, int j)
{
    return (double)((l * 2 + j * 3) % 5) - 2;
}

static double val_gc(int i, int j)
{
    return (double)((i + 2 * j) % 9) - 4;
}

/* GA_Dgemm with every transpose combination, GA_Transpose, and
 * NGA_Matmul_patch. */
static void check_matrix_ops(void)
{
    struct arr an = pool[0], at_ = make(C_DBL, 2, K, M, "a stored transposed");
    struct arr bn = make(C_DBL, 2, K, N, "b"), bt = make(C_DBL, 2, N, K, "b stored transposed");
    struct arr c = make(C_DBL, 2, M, N, "c");
    for (int i = 0; i < M; i++)
        for (int l = 0; l < K; l++)
            an.model[i * K + l] = at_.model[l * M + i] = val_ga(i, l);
    for (int l = 0; l < K; l++)
        for (int j = 0; j < N; j++)
            bn.model[l * N + j] = bt.model[j * K + l] = val_gb(l, j);
    store_local(&an);
    store_local(&at_);
    store_local(&bn);
    store_local(&bt);

    static const struct {
        char ta, tb;
        double alpha, beta;
    } cases[] = {{'N', 'N', 1, 0}, {'T', 'N', 0.5, -1}, {'N', 'T', 2, 2}, {'T', 'T', -1, 0.5}};
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                c.model[i * N + j] = val_gc(i, j);
        store_local(&c);
        GA_Sync();
        int ga = cases[t].ta == 'N' ? an.g : at_.g, gb = cases[t].tb == 'N' ? bn.g : bt.g;
        GA_Dgemm(cases[t].ta, cases[t].tb, M, N, K, cases[t].alpha, ga, gb, cases[t].beta, c.g);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double sum = 0;
                for (int l = 0; l < K; l++)
                    sum += val_ga(i, l) * val_gb(l, j);
                c.model[i * N + j] = cases[t].alpha * sum + cases[t].beta * c.model[i * N + j];
            }
        char what[64];
        snprintf(what, sizeof what, "GA_Dgemm '%c' '%c' alpha %g beta %g", cases[t].ta,
                 cases[t].tb, cases[t].alpha, cases[t].beta);
        check(&c, "%s", what);
        GA_Sync();
    }

    /* GA_Transpose into the zeroed array that held a transposed. */
    GA_Zero(at_.g);
    GA_Transpose(an.g, at_.g);
    check(&at_, "GA_Zero then GA_Transpose");

    /* c(1..11, 2..16) = 0.5 c + 2 a(2..12, 3..10) b(4..11, 5..19) */
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            c.model[i * N + j] = val_gc(i, j);
    GA_Sync();
    store_local(&c);
    GA_Sync();
    int alo[2] = {2, 3}, ahi[2] = {12, 10}, blo[2] = {4, 5}, bhi[2] = {11, 19};
    int clo[2] = {1, 2}, chi[2] = {11, 16};
    double alpha = 2, beta = 0.5;
    NGA_Matmul_patch('N', 'N', &alpha, &beta, an.g, alo, ahi, bn.g, blo, bhi, c.g, clo, chi);
    for (int i = 0; i <= chi[0] - clo[0]; i++)
        for (int j = 0; j <= chi[1] - clo[1]; j++) {
            double sum = 0;
            for (int l = 0; l <= ahi[1] - alo[1]; l++)
                sum += val_ga(alo[0] + i, alo[1] + l) * val_gb(blo[0] + l, blo[1] + j);
            double *x = &c.model[(clo[0] + i) * N + clo[1] + j];
            *x = alpha * sum + beta * *x;
        }
    check(&c, "NGA_Matmul_patch");
    GA_Sync();
    struct arr *all[] = {&at_, &bn, &bt, &c};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        destroy(all[i]);
}

/* GA_Patch_enum, GA_Pack, GA_Unpack, GA_Scan_copy, GA_Scan_add; x and y
 * receive the results in turn, each zeroed first. */
static void check_pack_scan(void)
{
    struct arr src = make(C_INT, 1, LEN, 1, "source"), mask = make(C_INT, 1, LEN, 1, "mask");
    struct arr x = make(C_INT, 1, LEN, 1, "x"), y = make(C_INT, 1, LEN, 1, "y");
    int count = 0;
    for (int i = 0; i < LEN; i++) {
        src.model[i] = i * 2 - 50;
        mask.model[i] = i % 3 == 0 || i % 7 == 0;
        if (mask.model[i])
            y.model[count++] = src.model[i];
    }
    store_local(&src);
    store_local(&mask);
    GA_Zero(x.g);
    GA_Zero(y.g);
    GA_Sync();

    int start = 5, inc = 3, lo = 10, hi = 90;
    GA_Patch_enum(x.g, lo, hi, &start, &inc);
    for (int i = lo; i <= hi; i++)
        x.model[i] = start + (i - lo) * inc;
    check(&x, "GA_Patch_enum");

    int icount = -1;
    GA_Pack(src.g, y.g, mask.g, 0, LEN - 1, &icount);
    gc_begin("GA_Pack count");
    gc_int(0, count, icount);
    check(&y, "GA_Pack");
    GA_Sync();
    int ucount = -1;
    GA_Zero(x.g);
    GA_Unpack(y.g, x.g, mask.g, 0, LEN - 1, &ucount);
    for (int i = 0; i < LEN; i++)
        x.model[i] = mask.model[i] ? src.model[i] : 0;
    gc_begin("GA_Unpack count");
    gc_int(0, count, ucount);
    check(&x, "GA_Unpack");
    GA_Sync();

    /* Segments start where the mask is set (element 0 is). */
    GA_Zero(x.g);
    GA_Zero(y.g);
    GA_Scan_copy(src.g, x.g, mask.g, 0, LEN - 1);
    GA_Scan_add(src.g, y.g, mask.g, 0, LEN - 1, 0);
    double first = 0, sum = 0, *excl = malloc(sizeof(double) * LEN);
    for (int i = 0; i < LEN; i++) {
        if (mask.model[i]) {
            first = src.model[i];
            sum = 0;
        }
        x.model[i] = first;
        excl[i] = sum;
        sum += src.model[i];
        y.model[i] = sum;
    }
    check(&x, "GA_Scan_copy");
    check(&y, "GA_Scan_add inclusive");
    GA_Sync();
    GA_Zero(x.g);
    GA_Scan_add(src.g, x.g, mask.g, 0, LEN - 1, 1);
    memcpy(x.model, excl, sizeof(double) * LEN);
    check(&x, "GA_Scan_add exclusive");
    GA_Sync();
    free(excl);
    struct arr *all[] = {&src, &mask, &x, &y};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        destroy(all[i]);
}

int main(int argc, char **argv)
{
    gc_init("ga_math", &argc, &argv, 1L << 22);
    me = GA_Nodeid();
    np = GA_Nnodes();
    for (int i = 0; i < 6; i++)
        pool[i] = make(C_DBL, 2, M, K, "pool");
    for (int i = 0; i < 2; i++)
        ipool[i] = make(C_INT, 2, M, K, "int pool");
    check_elementwise();
    check_patch_ops();
    check_matrix_ops();
    check_pack_scan();
    for (int i = 0; i < 6; i++)
        destroy(&pool[i]);
    for (int i = 0; i < 2; i++)
        destroy(&ipool[i]);
    return gc_finish();
}
