/* Shared checks for the Global Arrays consumer tests (ga_basic, ga_ops,
 * ga_math), written against GA's public C API only.
 *
 * A check is a named comparison of one or more values against a model the
 * process computed itself.  Every mismatch is counted; the first few of each
 * check are printed, one line each, naming the check, the rank, the index,
 * the expected and the actual value.  A check that compares no value at all
 * is itself a failure, so no check can pass vacuously.  gc_finish() sums the
 * failures with GA_Igop, prints the verdict on rank 0, ends GA and MPI and
 * returns the exit status: non-zero on every rank when any rank failed, and
 * always non-zero on a rank that saw a failure itself. */
#ifndef GA_CHECK_H
#define GA_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ga.h"
#include "macdecls.h"

#define GC_MAX_PRINT 4 /* mismatches printed per check and rank */

static const char *gc_prog; /* program name, first word of every line */
static char gc_name[192];   /* check in progress */
static int gc_rank;
static int gc_open;         /* a check is in progress */
static long gc_compared;    /* values compared in the check in progress */
static long gc_mismatches;  /* mismatches in the check in progress */
static int gc_checks;       /* checks made on this rank */
static int gc_failed;       /* failed checks on this rank */

/* MPI_Init, GA_Initialize and MA_init with ma_doubles doubles each of stack
 * and heap. */
static inline void gc_init(const char *prog, int *argc, char ***argv, long ma_doubles)
{
    MPI_Init(argc, argv);
    GA_Initialize();
    gc_prog = prog;
    gc_rank = GA_Nodeid();
    if (!MA_init(C_DBL, ma_doubles, ma_doubles))
        GA_Error("MA_init failed", 0);
}

static inline void gc_end(void)
{
    if (!gc_open)
        return;
    if (gc_compared == 0) {
        printf("%s: FAIL %s: rank %d: the check compared nothing\n", gc_prog, gc_name, gc_rank);
        gc_mismatches = 1;
    }
    if (gc_mismatches > GC_MAX_PRINT)
        printf("%s: FAIL %s: rank %d: %ld mismatches in all\n", gc_prog, gc_name, gc_rank,
               gc_mismatches);
    if (gc_mismatches)
        gc_failed++;
    fflush(stdout);
    gc_open = 0;
}

/* Starts a check (ending the previous one); the name is a printf format. */
static inline void gc_begin(const char *fmt, ...)
{
    gc_end();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gc_name, sizeof gc_name, fmt, ap);
    va_end(ap);
    gc_open = 1;
    gc_compared = 0;
    gc_mismatches = 0;
    gc_checks++;
}

/* Counts a compared value and reports whether it may still be printed. */
static inline int gc_mismatch(int equal)
{
    if (!gc_open) {
        printf("%s: FAIL value compared outside a check on rank %d\n", gc_prog, gc_rank);
        gc_failed++;
        return 0;
    }
    gc_compared++;
    if (equal)
        return 0;
    return ++gc_mismatches <= GC_MAX_PRINT;
}

static inline void gc_int(long index, long long expected, long long actual)
{
    if (gc_mismatch(expected == actual))
        printf("%s: FAIL %s: rank %d: index %ld: expected %lld, got %lld\n", gc_prog, gc_name,
               gc_rank, index, expected, actual);
}

/* Exact comparison: the tests choose values whose arithmetic is exact. */
static inline void gc_dbl(long index, double expected, double actual)
{
    if (gc_mismatch(expected == actual))
        printf("%s: FAIL %s: rank %d: index %ld: expected %.17g, got %.17g\n", gc_prog,
               gc_name, gc_rank, index, expected, actual);
}

static inline void gc_cplx(long index, double ere, double eim, double are, double aim)
{
    if (gc_mismatch(ere == are && eim == aim))
        printf("%s: FAIL %s: rank %d: index %ld: expected (%.17g, %.17g), got (%.17g, %.17g)\n",
               gc_prog, gc_name, gc_rank, index, ere, eim, are, aim);
}

/* Sums the failures over all processes, prints the verdict on rank 0, ends
 * GA and MPI; returns the exit status for main. */
static inline int gc_finish(void)
{
    gc_end();
    int counts[2] = {gc_failed, gc_checks};
    GA_Igop(counts, 2, "+");
    if (gc_rank == 0) {
        if (counts[0] == 0 && gc_failed == 0)
            printf("%s: passed (%d checks)\n", gc_prog, counts[1]);
        else
            printf("%s: FAILED (%d of %d checks failed)\n", gc_prog, counts[0], counts[1]);
        fflush(stdout);
    }
    int status = counts[0] != 0 || gc_failed != 0;
    GA_Terminate();
    MPI_Finalize();
    return status;
}

/* Element types: stores and loads small exact values of any GA type through
 * a (real, imaginary) pair of doubles; real types ignore and yield im = 0. */
static inline void gc_store(int type, void *buf, long i, double re, double im)
{
    switch (type) {
    case C_INT: ((int *)buf)[i] = (int)re; break;
    case C_LONG: ((long *)buf)[i] = (long)re; break;
    case C_LONGLONG: ((long long *)buf)[i] = (long long)re; break;
    case C_FLOAT: ((float *)buf)[i] = (float)re; break;
    case C_DBL: ((double *)buf)[i] = re; break;
    case C_SCPL: ((SingleComplex *)buf)[i] = (SingleComplex){(float)re, (float)im}; break;
    case C_DCPL: ((DoubleComplex *)buf)[i] = (DoubleComplex){re, im}; break;
    default: GA_Error("gc_store: unknown type", type);
    }
}

static inline void gc_load(int type, const void *buf, long i, double *re, double *im)
{
    *im = 0;
    switch (type) {
    case C_INT: *re = ((const int *)buf)[i]; break;
    case C_LONG: *re = (double)((const long *)buf)[i]; break;
    case C_LONGLONG: *re = (double)((const long long *)buf)[i]; break;
    case C_FLOAT: *re = ((const float *)buf)[i]; break;
    case C_DBL: *re = ((const double *)buf)[i]; break;
    case C_SCPL:
        *re = ((const SingleComplex *)buf)[i].real;
        *im = ((const SingleComplex *)buf)[i].imag;
        break;
    case C_DCPL:
        *re = ((const DoubleComplex *)buf)[i].real;
        *im = ((const DoubleComplex *)buf)[i].imag;
        break;
    default: *re = 0; GA_Error("gc_load: unknown type", type);
    }
}

static inline size_t gc_size(int type)
{
    switch (type) {
    case C_INT: return sizeof(int);
    case C_LONG: return sizeof(long);
    case C_LONGLONG: return sizeof(long long);
    case C_FLOAT: return sizeof(float);
    case C_DBL: return sizeof(double);
    case C_SCPL: return sizeof(SingleComplex);
    case C_DCPL: return sizeof(DoubleComplex);
    default: GA_Error("gc_size: unknown type", type);
    }
    return 0;
}

static inline const char *gc_type_name(int type)
{
    switch (type) {
    case C_INT: return "C_INT";
    case C_LONG: return "C_LONG";
    case C_LONGLONG: return "C_LONGLONG";
    case C_FLOAT: return "C_FLOAT";
    case C_DBL: return "C_DBL";
    case C_SCPL: return "C_SCPL";
    case C_DCPL: return "C_DCPL";
    default: return "unknown type";
    }
}

static inline int gc_is_complex(int type)
{
    return type == C_SCPL || type == C_DCPL;
}

/* Compares a value loaded from a GA buffer with the model (re, im). */
static inline void gc_value(int type, long index, double ere, double eim, const void *buf, long i)
{
    double re, im;
    gc_load(type, buf, i, &re, &im);
    if (gc_is_complex(type))
        gc_cplx(index, ere, eim, re, im);
    else
        gc_dbl(index, ere, re);
}

/* Row-major patches: the number of elements of lo..hi, and for the k-th of
 * them (row-major within the patch) its flat index in an array of extents
 * dims and its index in a buffer of leading dimensions ld (ndim - 1 of them,
 * as GA's ld argument). */
static inline long gc_patch_count(int ndim, const int lo[], const int hi[])
{
    long n = 1;
    for (int d = 0; d < ndim; d++)
        n *= hi[d] >= lo[d] ? hi[d] - lo[d] + 1 : 0;
    return n;
}

static inline void gc_patch_index(int ndim, const int dims[], const int lo[], const int hi[],
                                  const int ld[], long k, long *global, long *local)
{
    int sub[GA_MAX_DIM];
    for (int d = ndim - 1; d >= 0; d--) {
        long ext = hi[d] - lo[d] + 1;
        sub[d] = (int)(k % ext);
        k /= ext;
    }
    long g = 0, l = 0;
    for (int d = 0; d < ndim; d++) {
        g = g * dims[d] + lo[d] + sub[d];
        l = d == 0 ? sub[0] : l * ld[d - 1] + sub[d];
    }
    *global = g;
    *local = l;
}

#endif
