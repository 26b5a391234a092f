/* Global arrays with a model of what they must hold, for the consumer
 * tests (ga_math, ga_patch): made, filled from the model, and checked
 * against it by every process on a slab of rows that straddles owners.
 * Uses GA's public C API and ga_check.h's checks only. */
#ifndef GA_ARRAY_H
#define GA_ARRAY_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ga_check.h"

struct arr {
    int g, type, ndim, dims[2];
    double *model; /* row-major, what the array must hold */
};

static inline struct arr make(int type, int ndim, int d0, int d1, const char *name)
{
    struct arr a = {0, type, ndim, {d0, ndim > 1 ? d1 : 1}, NULL};
    int dims[2] = {d0, d1}, chunk[2] = {-1, -1};
    a.g = NGA_Create(type, ndim, dims, (char *)name, chunk);
    gc_begin("NGA_Create %s", name);
    gc_int(0, 1, a.g != 0);
    a.model = calloc((size_t)d0 * (size_t)a.dims[1], sizeof(double));
    return a;
}

static inline void destroy(struct arr *a)
{
    GA_Destroy(a->g);
    free(a->model);
}

/* Writes the model into the process's own block with NGA_Put; the caller
 * syncs. */
static inline void store_local(const struct arr *a)
{
    int lo[2], hi[2], ld[1];
    NGA_Distribution(a->g, GA_Nodeid(), lo, hi);
    long n = gc_patch_count(a->ndim, lo, hi);
    if (n == 0)
        return;
    ld[0] = a->ndim > 1 ? hi[1] - lo[1] + 1 : 1;
    unsigned char *buf = malloc(gc_size(a->type) * (size_t)n);
    for (long k = 0; k < n; k++) {
        long gi, li;
        gc_patch_index(a->ndim, a->dims, lo, hi, ld, k, &gi, &li);
        gc_store(a->type, buf, li, a->model[gi], 0);
    }
    NGA_Put(a->g, lo, hi, buf, ld);
    free(buf);
}

/* Gets this process's slab of rows (shifted off the even split so it
 * straddles owners) and compares it with the model; the slabs of all
 * processes cover every element. */
__attribute__((format(printf, 2, 3))) static inline void check(const struct arr *a, const char *fmt,
                                                               ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int d0 = a->dims[0], me = GA_Nodeid(), np = GA_Nnodes();
    int s = me == 0 ? 0 : me * d0 / np + 1, e = me == np - 1 ? d0 : (me + 1) * d0 / np + 1;
    s = s < d0 ? s : d0;
    e = e < d0 ? e : d0;
    if (e <= s)
        return;
    int lo[2] = {s, 0}, hi[2] = {e - 1, a->dims[1] - 1}, ld[1] = {a->dims[1]};
    long n = gc_patch_count(a->ndim, lo, hi);
    unsigned char *buf = malloc(gc_size(a->type) * (size_t)n);
    for (long k = 0; k < n; k++)
        gc_store(a->type, buf, k, -999.25, 0);
    NGA_Get(a->g, lo, hi, buf, ld);
    gc_begin("%s", what);
    long first = (long)s * a->dims[1];
    for (long k = 0; k < n; k++)
        gc_value(a->type, first + k, a->model[first + k], 0, buf, k);
    free(buf);
}

#endif
