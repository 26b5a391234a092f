/* ga_basic: creation, distribution and one-sided data movement of Global
 * Arrays, checked value by value against a model every process keeps in
 * plain C arrays.
 *
 * For arrays of C_INT, C_LONG, C_LONGLONG, C_FLOAT, C_DBL, C_SCPL and C_DCPL
 * in 1, 2 and 3 dimensions, with odd extents, created with NGA_Create
 * (GA's own distribution, with and without chunks) and NGA_Create_irreg
 * (uneven blocks, some processes left without one), it checks:
 *  - NGA_Inquire; NGA_Distribution against the requested map (irregular) or
 *    as an exact tiling of the array (regular, strips where chunk asks for
 *    them); NGA_Locate of every element against the distribution;
 *  - GA_Zero, then NGA_Put of slabs spanning several owners, NGA_Get of
 *    odd patches (rank 0: the whole array) into buffers with padded leading
 *    dimensions, whose padding must stay untouched;
 *  - NGA_Acc by every process onto one shared patch and onto a patch of its
 *    own, with a scale factor per process (2, -1, 3, 1 / 0.5, 2, -1, 1.5 /
 *    complex); not for C_LONGLONG, which GA 5.8 cannot accumulate;
 *  - NGA_NbPut, NGA_NbGet and NGA_NbAcc with several outstanding handles,
 *    completed by NGA_NbWait;
 *  - GA_Duplicate (same distribution), GA_Copy, GA_Scale, GA_Fill, GA_Zero;
 *  - NGA_Access of the local block read back then NGA_Release, and written
 *    then NGA_Release_update, seen by every process afterwards.
 * After each step every process gets a slab of the array straddling block
 * boundaries; the slabs together cover every element.  Values are small
 * integers and halves, so every result is exact. */
#include <string.h>

#include "ga_check.h"

#define NPAD 3          /* extra elements per buffer row for ld checks */
#define SENTINEL 12345. /* what a buffer holds where GA must not write */

struct layout {
    int type, ndim, dims[3];
    int irregular; /* NGA_Create_irreg instead of NGA_Create */
    int chunk[3];  /* NGA_Create's chunk argument */
    int idle;      /* NGA_Create_irreg: processes left without a block */
    int phases;    /* optional phases: NONBLOCKING, WHOLE */
};

enum { NONBLOCKING = 1, WHOLE = 2 };

static int me, np;

/* Model value of element i for a given seed: small integers. */
static void value(int type, long i, int seed, double *re, double *im)
{
    *re = (double)((i * 7 + seed * 3) % 23) - 11;
    *im = gc_is_complex(type) ? (double)((i * 5 + seed) % 13) - 6 : 0;
}

/* The k-th scale factor of a type: exact in every type. */
static void alpha_of(int type, int k, double *re, double *im)
{
    static const double ints[4] = {2, -1, 3, 1}, reals[4] = {0.5, 2, -1, 1.5};
    static const double cre[4] = {1, 0, 2, 0.5}, cim[4] = {0, 1, -1, 0.5};
    k %= 4;
    *im = 0;
    if (type == C_INT || type == C_LONG || type == C_LONGLONG)
        *re = ints[k];
    else if (gc_is_complex(type)) {
        *re = cre[k];
        *im = cim[k];
    } else
        *re = reals[k];
}

/* (re, im) += (are, aim) * (bre, bim) */
static void mul_add(double *re, double *im, double are, double aim, double bre, double bim)
{
    double r = are * bre - aim * bim, i = are * bim + aim * bre;
    *re += r;
    *im += i;
}

static long total(const struct layout *L)
{
    long n = 1;
    for (int d = 0; d < L->ndim; d++)
        n *= L->dims[d];
    return n;
}

static void whole(const struct layout *L, int lo[], int hi[], int ld[])
{
    for (int d = 0; d < L->ndim; d++) {
        lo[d] = 0;
        hi[d] = L->dims[d] - 1;
        if (d > 0)
            ld[d - 1] = L->dims[d];
    }
}

static void fill_sentinel(int type, void *buf, long n)
{
    for (long i = 0; i < n; i++)
        gc_store(type, buf, i, SENTINEL, SENTINEL);
}

/* Process r's slab: a range of indices of the first dimension, shifted
 * from an even split so it straddles block boundaries. */
static void slab(const struct layout *L, int r, int *start, int *end)
{
    int d0 = L->dims[0];
    int s = r == 0 ? 0 : r * d0 / np + 1, e = r == np - 1 ? d0 : (r + 1) * d0 / np + 1;
    *start = s < d0 ? s : d0;
    *end = e < d0 ? e : d0;
}

/* Every process gets its slab (see slab()) with NGA_Get and compares it
 * with the model: together they check the whole array, each touching only
 * a few owners. */
static void check_all(int g, const struct layout *L, void *buf, const double *re,
                      const double *im, const char *what)
{
    int lo[3], hi[3], ld[2];
    whole(L, lo, hi, ld);
    slab(L, me, &lo[0], &hi[0]);
    hi[0]--;
    long n = gc_patch_count(L->ndim, lo, hi);
    if (n == 0)
        return;
    fill_sentinel(L->type, buf, n);
    NGA_Get(g, lo, hi, buf, ld);
    gc_begin("%s, %s %d-D %s", what, gc_type_name(L->type), L->ndim,
             L->irregular ? "irregular" : "regular");
    for (long k = 0; k < n; k++) {
        long gi, li;
        gc_patch_index(L->ndim, L->dims, lo, hi, ld, k, &gi, &li);
        gc_value(L->type, gi, re[gi], im[gi], buf, li);
    }
}

/* Blocks per dimension for nproc processes: prime factors go to the
 * dimension with the longest blocks. */
static void split_procs(int nproc, const struct layout *L, int nblock[])
{
    for (int d = 0; d < L->ndim; d++)
        nblock[d] = 1;
    for (int f = 2; nproc > 1;) {
        if (nproc % f) {
            f++;
            continue;
        }
        int best = 0;
        for (int d = 1; d < L->ndim; d++)
            if (L->dims[d] / nblock[d] > L->dims[best] / nblock[best])
                best = d;
        nblock[best] *= f;
        nproc /= f;
    }
}

/* Uneven block starts: even ones, odd-numbered ones pulled down a third. */
static void make_map(const struct layout *L, const int nblock[], int map[])
{
    int k = 0;
    for (int d = 0; d < L->ndim; d++)
        for (int b = 0; b < nblock[d]; b++) {
            int even = (int)((long)b * L->dims[d] / nblock[d]);
            int prev = (int)((long)(b - 1) * L->dims[d] / nblock[d]);
            map[k++] = b % 2 ? even - (even - prev) / 3 : even;
        }
}

static int create(const struct layout *L, int nblock[], int map[])
{
    int dims[3], chunk[3];
    memcpy(dims, L->dims, sizeof dims);
    memcpy(chunk, L->chunk, sizeof chunk);
    if (!L->irregular)
        return NGA_Create(L->type, L->ndim, dims, "basic", chunk);
    split_procs(np > L->idle ? np - L->idle : 1, L, nblock);
    make_map(L, nblock, map);
    return NGA_Create_irreg(L->type, L->ndim, dims, "basic", nblock, map);
}

static void check_distribution(int g, const struct layout *L, const int nblock[],
                               const int map[])
{
    int type, ndim, dims[3];
    NGA_Inquire(g, &type, &ndim, dims);
    gc_begin("NGA_Inquire, %s %d-D", gc_type_name(L->type), L->ndim);
    gc_int(0, L->type, type);
    gc_int(1, L->ndim, ndim);
    for (int d = 0; d < ndim && d < L->ndim; d++)
        gc_int(2 + d, L->dims[d], dims[d]);

    long n = total(L);
    int *owner = malloc(sizeof(int) * (size_t)n), *count = calloc((size_t)n, sizeof(int));
    int nowned = 1;
    for (int d = 0; d < L->ndim; d++)
        nowned *= L->irregular ? nblock[d] : 1;
    const char *kind = L->irregular ? "irregular" : "regular";
    /* A regular array's blocks are GA's choice: only strips asked for by
     * chunk are checked here, the tiling and NGA_Locate below. */
    int strips = 0;
    for (int d = 0; d < L->ndim; d++)
        strips |= L->chunk[d] == L->dims[d];
    if (L->irregular || strips)
        gc_begin("NGA_Distribution, %s %d-D %s", gc_type_name(L->type), L->ndim, kind);
    for (int p = 0; p < np; p++) {
        int lo[3], hi[3];
        NGA_Distribution(g, p, lo, hi);
        int empty = 0;
        for (int d = 0; d < L->ndim; d++)
            empty |= hi[d] < lo[d];
        if (L->irregular) {
            /* Blocks go to processes in row-major order of block indices. */
            gc_int(p, p >= nowned, empty);
            int rest = p, first = 0;
            for (int d = L->ndim - 1; d >= 0 && p < nowned; d--) {
                first = 0;
                for (int e = 0; e < d; e++)
                    first += nblock[e];
                int b = rest % nblock[d];
                rest /= nblock[d];
                int elo = map[first + b];
                int ehi = b + 1 < nblock[d] ? map[first + b + 1] - 1 : L->dims[d] - 1;
                gc_int(p * 10 + d, elo, lo[d]);
                gc_int(p * 10 + 5 + d, ehi, hi[d]);
            }
        } else {
            for (int d = 0; d < L->ndim && !empty; d++)
                if (L->chunk[d] == L->dims[d]) {
                    gc_int(p * 10 + d, 0, lo[d]);
                    gc_int(p * 10 + 5 + d, L->dims[d] - 1, hi[d]);
                }
        }
        if (empty)
            continue;
        int ld[2] = {0, 0};
        for (int d = 1; d < L->ndim; d++)
            ld[d - 1] = hi[d] - lo[d] + 1;
        long m = gc_patch_count(L->ndim, lo, hi);
        for (long k = 0; k < m; k++) {
            long gi, li;
            gc_patch_index(L->ndim, L->dims, lo, hi, ld, k, &gi, &li);
            owner[gi] = p;
            count[gi]++;
        }
    }
    gc_begin("NGA_Distribution tiles the array once, %s %d-D %s", gc_type_name(L->type),
             L->ndim, kind);
    for (long i = 0; i < n; i++)
        gc_int(i, 1, count[i]);
    gc_begin("NGA_Locate, %s %d-D %s", gc_type_name(L->type), L->ndim, kind);
    for (long i = 0; i < n; i++) {
        int sub[3];
        long rest = i;
        for (int d = L->ndim - 1; d >= 0; d--) {
            sub[d] = (int)(rest % L->dims[d]);
            rest /= L->dims[d];
        }
        gc_int(i, count[i] == 1 ? owner[i] : -1, NGA_Locate(g, sub));
    }
    free(owner);
    free(count);
}

/* Padded leading dimensions for a buffer holding the patch lo..hi; returns
 * the number of buffer elements one index of the first dimension takes. */
static long padded_ld(const struct layout *L, const int lo[], const int hi[], int ld[])
{
    long row = 1;
    for (int d = 1; d < L->ndim; d++) {
        ld[d - 1] = hi[d] - lo[d] + 1 + (d == L->ndim - 1 ? NPAD : 1);
        row *= ld[d - 1];
    }
    return row;
}

/* Puts (or non-blocking puts, in two halves) process me's slab with values
 * of the given seed, from a padded buffer; sets the model for every
 * process's slab. */
static void put_slabs(int g, const struct layout *L, int seed, int nonblocking, double *re,
                      double *im)
{
    size_t size = gc_size(L->type);
    for (int r = 0; r < np; r++) {
        int s, e, lo[3] = {0, 0, 0}, hi[3], ld[2];
        slab(L, r, &s, &e);
        if (e <= s)
            continue;
        for (int d = 0; d < L->ndim; d++)
            hi[d] = L->dims[d] - 1;
        if (L->ndim > 1)
            hi[L->ndim - 1]--; /* the last index stays as GA_Zero left it */
        lo[0] = s;
        hi[0] = e - 1;
        long row = padded_ld(L, lo, hi, ld), m = gc_patch_count(L->ndim, lo, hi);
        unsigned char *buf = malloc(size * (size_t)((e - s) * row));
        fill_sentinel(L->type, buf, (e - s) * row);
        for (long k = 0; k < m; k++) {
            long gi, li;
            gc_patch_index(L->ndim, L->dims, lo, hi, ld, k, &gi, &li);
            value(L->type, gi, seed, &re[gi], &im[gi]);
            gc_store(L->type, buf, li, re[gi], im[gi]);
        }
        if (r == me && !nonblocking)
            NGA_Put(g, lo, hi, buf, ld);
        if (r == me && nonblocking) {
            /* Two halves of the slab, both outstanding before the waits. */
            int mid = s + (e - s) / 2, lo2[3], hi2[3];
            memcpy(lo2, lo, sizeof lo2);
            memcpy(hi2, hi, sizeof hi2);
            hi[0] = mid - 1;
            lo2[0] = mid;
            ga_nbhdl_t h[2];
            int n = 0;
            if (hi[0] >= lo[0])
                NGA_NbPut(g, lo, hi, buf, ld, &h[n++]);
            NGA_NbPut(g, lo2, hi2, buf + size * (size_t)((mid - s) * row), ld, &h[n++]);
            for (int i = 0; i < n; i++)
                NGA_NbWait(&h[i]);
        }
        free(buf);
    }
}

/* The k-th odd patch of process r (rank 0's first: the whole array). */
static void odd_patch(const struct layout *L, int r, int k, int lo[], int hi[])
{
    int all = k == 0 && r == 0;
    for (int d = 0; d < L->ndim; d++) {
        int n = L->dims[d];
        lo[d] = all ? 0 : (r * 5 + k * 3 + d) % n;
        int ext = all ? n : 1 + (r * 3 + k * 7 + d * 5) % n;
        hi[d] = lo[d] + ext - 1 < n - 1 ? lo[d] + ext - 1 : n - 1;
    }
}

/* NGA_Get (or NGA_NbGet, three outstanding) of odd patches into padded
 * buffers: the patch must match the model, the padding must stay intact. */
static void check_patches(int g, const struct layout *L, const double *re, const double *im,
                          int nonblocking)
{
    enum { NP = 3 };
    size_t size = gc_size(L->type);
    int lo[NP][3], hi[NP][3], ld[NP][2];
    long len[NP];
    unsigned char *buf[NP];
    ga_nbhdl_t h[NP];
    for (int k = 0; k < NP; k++) {
        odd_patch(L, me, k + nonblocking, lo[k], hi[k]);
        len[k] = (hi[k][0] - lo[k][0] + 1) * padded_ld(L, lo[k], hi[k], ld[k]);
        buf[k] = malloc(size * (size_t)len[k]);
        fill_sentinel(L->type, buf[k], len[k]);
        if (nonblocking)
            NGA_NbGet(g, lo[k], hi[k], buf[k], ld[k], &h[k]);
        else
            NGA_Get(g, lo[k], hi[k], buf[k], ld[k]);
    }
    for (int k = 0; k < NP; k++) {
        if (nonblocking)
            NGA_NbWait(&h[k]);
        gc_begin("%s of patch %d, %s %d-D %s", nonblocking ? "NGA_NbGet" : "NGA_Get", k,
                 gc_type_name(L->type), L->ndim, L->irregular ? "irregular" : "regular");
        char *hit = calloc((size_t)len[k], 1);
        long m = gc_patch_count(L->ndim, lo[k], hi[k]);
        for (long j = 0; j < m; j++) {
            long gi, li;
            gc_patch_index(L->ndim, L->dims, lo[k], hi[k], ld[k], j, &gi, &li);
            gc_value(L->type, gi, re[gi], im[gi], buf[k], li);
            hit[li] = 1;
        }
        for (long li = 0; li < len[k]; li++)
            if (!hit[li])
                gc_value(L->type, -1 - li, SENTINEL, gc_is_complex(L->type) ? SENTINEL : 0,
                         buf[k], li);
        free(hit);
        free(buf[k]);
    }
}

/* Every process accumulates onto one shared patch around the middle of the
 * array (and onto an odd patch of
 * its own), with a scale factor that depends on its rank; the model adds
 * every process's contribution. */
static void acc_all(int g, const struct layout *L, int seed, int nonblocking, double *re,
                    double *im)
{
    size_t size = gc_size(L->type);
    for (int r = 0; r < np; r++)
        for (int k = 0; k < 2; k++) {
            int lo[3], hi[3], ld[2];
            if (k == 0)
                for (int d = 0; d < L->ndim; d++) {
                    int mid = L->dims[d] / 2, w = d == 0 ? 1 : L->dims[d] / 3;
                    lo[d] = mid - w > 0 ? mid - w : 0;
                    hi[d] = mid + w < L->dims[d] ? mid + w : L->dims[d] - 1;
                }
            else
                odd_patch(L, r, 2, lo, hi);
            long len = (hi[0] - lo[0] + 1) * padded_ld(L, lo, hi, ld);
            long m = gc_patch_count(L->ndim, lo, hi);
            unsigned char *buf = malloc(size * (size_t)len), alpha[16];
            double are, aim;
            alpha_of(L->type, r + k, &are, &aim);
            gc_store(L->type, alpha, 0, are, aim);
            fill_sentinel(L->type, buf, len);
            for (long j = 0; j < m; j++) {
                long gi, li;
                double bre, bim;
                gc_patch_index(L->ndim, L->dims, lo, hi, ld, j, &gi, &li);
                value(L->type, gi, seed + r * 2 + k, &bre, &bim);
                gc_store(L->type, buf, li, bre, bim);
                mul_add(&re[gi], &im[gi], are, aim, bre, bim);
            }
            if (r == me && nonblocking) {
                ga_nbhdl_t h;
                NGA_NbAcc(g, lo, hi, buf, ld, alpha, &h);
                NGA_NbWait(&h);
            } else if (r == me)
                NGA_Acc(g, lo, hi, buf, ld, alpha);
            free(buf);
        }
}

/* GA_Duplicate, GA_Copy, GA_Scale, GA_Fill and GA_Zero on a copy. */
static void check_whole_array_ops(int g, const struct layout *L, void *buf, const double *re,
                                  const double *im)
{
    long n = total(L);
    int g2 = GA_Duplicate(g, "duplicate");
    gc_begin("GA_Duplicate keeps the distribution, %s %d-D", gc_type_name(L->type), L->ndim);
    for (int p = 0; p < np; p++) {
        int lo[3], hi[3], lo2[3], hi2[3];
        NGA_Distribution(g, p, lo, hi);
        NGA_Distribution(g2, p, lo2, hi2);
        for (int d = 0; d < L->ndim; d++) {
            gc_int(p * 10 + d, lo[d], lo2[d]);
            gc_int(p * 10 + 5 + d, hi[d], hi2[d]);
        }
    }
    double *mre = malloc(sizeof(double) * (size_t)n), *mim = malloc(sizeof(double) * (size_t)n);
    GA_Copy(g, g2);
    check_all(g2, L, buf, re, im, "GA_Copy");
    GA_Sync();

    unsigned char scale[16], fill[16];
    double sre, sim;
    alpha_of(L->type, 1, &sre, &sim);
    gc_store(L->type, scale, 0, sre, sim);
    GA_Scale(g2, scale);
    for (long i = 0; i < n; i++) {
        mre[i] = mim[i] = 0;
        mul_add(&mre[i], &mim[i], sre, sim, re[i], im[i]);
    }
    check_all(g2, L, buf, mre, mim, "GA_Scale");
    GA_Sync();

    double fre = -7, fim = gc_is_complex(L->type) ? 5 : 0;
    gc_store(L->type, fill, 0, fre, fim);
    GA_Fill(g2, fill);
    for (long i = 0; i < n; i++) {
        mre[i] = fre;
        mim[i] = fim;
    }
    check_all(g2, L, buf, mre, mim, "GA_Fill");
    GA_Sync();

    GA_Zero(g2);
    for (long i = 0; i < n; i++)
        mre[i] = mim[i] = 0;
    check_all(g2, L, buf, mre, mim, "GA_Zero of a duplicate");
    GA_Sync();
    GA_Destroy(g2);
    free(mre);
    free(mim);
}

/* NGA_Access of the local block: read it (NGA_Release), then turn every x
 * into 3x - 1 in place (NGA_Release_update); the model follows. */
static void check_access(int g, const struct layout *L, double *re, double *im)
{
    int lo[3], hi[3], ld[2];
    void *ptr;
    long n = total(L);
    NGA_Distribution(g, me, lo, hi);
    long m = gc_patch_count(L->ndim, lo, hi);
    if (m > 0) {
        NGA_Access(g, lo, hi, &ptr, ld);
        gc_begin("NGA_Access of the local block, %s %d-D %s", gc_type_name(L->type), L->ndim,
                 L->irregular ? "irregular" : "regular");
        for (long k = 0; k < m; k++) {
            long gi, li;
            gc_patch_index(L->ndim, L->dims, lo, hi, ld, k, &gi, &li);
            gc_value(L->type, gi, re[gi], im[gi], ptr, li);
        }
        NGA_Release(g, lo, hi);
        NGA_Access(g, lo, hi, &ptr, ld);
        for (long k = 0; k < m; k++) {
            long gi, li;
            double xre, xim;
            gc_patch_index(L->ndim, L->dims, lo, hi, ld, k, &gi, &li);
            gc_load(L->type, ptr, li, &xre, &xim);
            gc_store(L->type, ptr, li, 3 * xre - 1, 3 * xim);
        }
        NGA_Release_update(g, lo, hi);
    }
    for (long i = 0; i < n; i++) {
        re[i] = 3 * re[i] - 1;
        im[i] = 3 * im[i];
    }
    GA_Sync();
}

static void run(const struct layout *L)
{
    long n = total(L);
    int nblock[3], map[64];
    int g = create(L, nblock, map);
    gc_begin("array created, %s %d-D", gc_type_name(L->type), L->ndim);
    gc_int(0, 1, g != 0);
    check_distribution(g, L, nblock, map);

    /* A GA_Sync separates every phase that reads from one that writes. */
    double *re = calloc((size_t)n, sizeof(double)), *im = calloc((size_t)n, sizeof(double));
    void *buf = malloc(gc_size(L->type) * (size_t)n);
    GA_Zero(g);
    put_slabs(g, L, 1, 0, re, im);
    GA_Sync();
    check_all(g, L, buf, re, im, "GA_Zero and NGA_Put of slabs");
    check_patches(g, L, re, im, 0);
    GA_Sync();

    /* GA 5.8 has no accumulate for C_LONGLONG ("type not supported"). */
    int acc = L->type != C_LONGLONG;
    if (acc) {
        acc_all(g, L, 10, 0, re, im);
        GA_Sync();
        check_all(g, L, buf, re, im, "NGA_Acc by every process");
        GA_Sync();
    }
    if (L->phases & NONBLOCKING) {
        put_slabs(g, L, 30, 1, re, im);
        GA_Sync();
        check_patches(g, L, re, im, 1);
        GA_Sync();
        if (acc) {
            acc_all(g, L, 40, 1, re, im);
            GA_Sync();
            check_all(g, L, buf, re, im, "NGA_NbAcc by every process");
            GA_Sync();
        }
    }
    if (L->phases & WHOLE)
        check_whole_array_ops(g, L, buf, re, im);
    check_access(g, L, re, im);
    check_all(g, L, buf, re, im, "NGA_Release_update of local blocks");

    GA_Destroy(g);
    free(re);
    free(im);
    free(buf);
}

int main(int argc, char **argv)
{
    gc_init("ga_basic", &argc, &argv, 1L << 20);
    me = GA_Nodeid();
    np = GA_Nnodes();
    static const struct layout layouts[] = {
        {C_INT, 1, {101, 0, 0}, 0, {-1, 0, 0}, 0, NONBLOCKING | WHOLE},
        {C_LONG, 2, {37, 23, 0}, 1, {0, 0, 0}, 0, 0},
        {C_LONGLONG, 3, {9, 7, 11}, 0, {-1, -1, -1}, 0, NONBLOCKING},
        {C_FLOAT, 2, {37, 41, 0}, 0, {-1, 41, 0}, 0, NONBLOCKING},
        {C_DBL, 3, {11, 6, 13}, 1, {0, 0, 0}, 1, NONBLOCKING | WHOLE},
        {C_DBL, 2, {29, 31, 0}, 0, {29, -1, 0}, 0, 0},
        {C_SCPL, 1, {67, 0, 0}, 1, {0, 0, 0}, 3, 0},
        {C_DCPL, 2, {19, 27, 0}, 0, {-1, -1, 0}, 0, NONBLOCKING | WHOLE},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        run(&layouts[i]);
    return gc_finish();
}
