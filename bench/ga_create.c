/* ga-bench's NGA_Create and GA_Destroy figure (ga_main.c says what it
 * is), timed and then checked. */
#include "ga_harness.h"

#include <ga.h>
#include <stdio.h>

/* A 1-D array of n doubles on each process (n odd: see ga_main.c). */
static int create_array(int n)
{
    int dims = B.np * n, block = B.np, map[B.np];
    for (int q = 0; q < B.np; q++)
        map[q] = q * n;
    int g = NGA_Create_irreg(C_DBL, 1, &dims, "created", &block, map);
    if (!g)
        fail("NGA_Create of %d doubles failed", dims);
    return g;
}

struct create_how {
    int n;    /* doubles on each process */
    int zero; /* GA_Zero between create and destroy */
};

static double create_batch(long iters, void *p)
{
    const struct create_how *how = p;
    double t0 = now();
    for (long i = 0; i < iters; i++) {
        int g = create_array(how->n);
        if (how->zero)
            GA_Zero(g);
        GA_Destroy(g);
    }
    return now() - t0;
}

/* NGA_Create then GA_Destroy of an array, by every process at once (GA
 * programs create and destroy arrays in their loops): µs per pair; and
 * with GA_Zero between them, as a program that writes the array it made
 * (the first touch of its pages is then timed too). An array made
 * afterwards holds what each process puts in its part. */
void bench_create(void)
{
    static const int counts[] = {1025, 131073}; /* about 8 KiB and 1 MiB on each process */
    for (size_t z = 0; z < sizeof counts / sizeof *counts; z++) {
        int n = counts[z], lo = B.me * n, hi = lo + n - 1, ld = 1;
        double v[MAX_SAMPLES], vz[MAX_SAMPLES];
        sample(create_batch, &(struct create_how){n, 0}, 1, v);
        sample(create_batch, &(struct create_how){n, 1}, 1, vz);
        int g = create_array(n);
        NGA_Put(g, &lo, &hi, B.src, &ld);
        GA_Sync();
        int right = (B.me + 1) % B.np, rlo = right * n, rhi = rlo + n - 1;
        NGA_Get(g, &rlo, &rhi, B.buf, &ld);
        for (int i = 0; i < n; i++)
            if (B.buf[i] != pattern(right, i))
                fail("a created array: element %d of rank %d's part is %g, not %g", i, right, B.buf[i],
                     pattern(right, i));
        GA_Sync();
        GA_Destroy(g);
        if (B.me == 0) {
            char label[32];
            size_label((size_t)n * sizeof(double), label, sizeof label);
            scale(v, 1e6);
            scale(vz, 1e6);
            record("create", (size_t)n * sizeof(double), label, "us", v);
            record("create_zero", (size_t)n * sizeof(double), label, "us", vz);
        }
    }
}
