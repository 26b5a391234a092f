/* Blocked dense LU factorization (SPLASH-2 LU, as in Santhanaraman08;
 * docs/references.md) over a reach window: the n x n matrix is cut into
 * b x b blocks distributed 2-D block-cyclically over a pr x pc process grid;
 * each step k factors the diagonal block, then the perimeter blocks of row
 * and column k with it, then updates the interior. Blocks owned elsewhere
 * are fetched with lock (exclusive, as in the paper) / get / unlock —
 * reach's window epochs, or MPI-3's (MPI_Win_lock / MPI_Get /
 * MPI_Win_unlock, with MPI_Barrier between the steps) as the baseline. No
 * pivoting: the matrix is diagonally dominant. At the end rank 0 gathers L
 * and U and checks the residual max|A - LU| / max|A|. Used by examples/lu
 * and by reach-bench (Santhanaraman08, Figs. 7-8). */
#include "lu_kernel.h"

#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const lu_part_name[LU_PARTS] = {"lock", "get", "unlock", "barrier", "compute"};

static int n, b, nb, pr, pc, me, np;
static double *mine;          /* my blocks, b*b doubles each, in order of block index */
static lu_impl_t impl;
static reach_win_t *win;      /* LU_REACH */
static MPI_Win mpi_win;       /* LU_MPI3 */
static double spent[LU_PARTS];
static int failed;            /* the first error of a reach or MPI call, if any */
static void **bases, **sums;  /* every rank's window and figures, lu_setup to lu_finish */
static double factored;       /* the factorization's seconds here */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(int st)
{
    if (failed == REACH_SUCCESS)
        failed = st;
}

static void check_mpi(int rc)
{
    check(rc == MPI_SUCCESS ? REACH_SUCCESS : REACH_ERR_SYSTEM);
}

static double a_entry(int i, int j)
{
    return 1.0 / (1.0 + abs(i - j)) + (i == j ? n : 0);
}

static int owner(int bi, int bj)
{
    return (bi % pr) * pc + bj % pc;
}

/* Position of block (bi, bj) among its owner's blocks. */
static size_t local_index(int bi, int bj)
{
    int lrows = (nb + pr - 1) / pr;
    return (size_t)(bj / pc) * (size_t)lrows + (size_t)(bi / pr);
}

static double *my_block(int bi, int bj)
{
    return mine + local_index(bi, bj) * (size_t)b * (size_t)b;
}

/* A block of another rank, copied into buf by lock / get / unlock. */
static const double *fetch(int bi, int bj, double *buf)
{
    int r = owner(bi, bj);
    if (r == me)
        return my_block(bi, bj);
    size_t bytes = (size_t)b * (size_t)b * sizeof(double);
    size_t disp = local_index(bi, bj) * bytes;
    double t0 = now(), t1, t2;
    if (impl == LU_MPI3) {
        check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, mpi_win));
        t1 = now();
        check_mpi(MPI_Get(buf, (int)bytes, MPI_BYTE, r, (MPI_Aint)disp, (int)bytes, MPI_BYTE, mpi_win));
        t2 = now();
        check_mpi(MPI_Win_unlock(r, mpi_win));
    } else {
        check(reach_win_lock(win, REACH_LOCK_EXCLUSIVE, r));
        t1 = now();
        check(reach_win_get(win, buf, disp, bytes, r));
        t2 = now();
        check(reach_win_unlock(win, r));
    }
    double t3 = now();
    spent[LU_LOCK] += t1 - t0;
    spent[LU_GET] += t2 - t1;
    spent[LU_UNLOCK] += t3 - t2;
    return buf;
}

/* Every rank meets; with MPI-3 inside MPI, whose passive target needs the
 * target's polling (rank 0 reads the blocks for the residual meanwhile). */
static void sync_ranks(void)
{
    if (impl == LU_MPI3)
        check_mpi(MPI_Barrier(MPI_COMM_WORLD));
    else
        check(reach_barrier());
}

static void barrier(void)
{
    double t0 = now();
    sync_ranks();
    spent[LU_BARRIER] += now() - t0;
}

/* Blocks are column-major: element (i, j) at [j*b + i]. */
static void factor_diag(double *a)
{
    for (int k = 0; k < b; k++)
        for (int i = k + 1; i < b; i++) {
            a[k * b + i] /= a[k * b + k];
            for (int j = k + 1; j < b; j++)
                a[j * b + i] -= a[k * b + i] * a[j * b + k];
        }
}

/* Row perimeter: x = L^-1 x, L the unit lower triangle of d. */
static void solve_lower(const double *d, double *x)
{
    for (int j = 0; j < b; j++)
        for (int k = 0; k < b; k++)
            for (int i = k + 1; i < b; i++)
                x[j * b + i] -= d[k * b + i] * x[j * b + k];
}

/* Column perimeter: x = x U^-1, U the upper triangle of d. */
static void solve_upper(const double *d, double *x)
{
    for (int k = 0; k < b; k++)
        for (int i = 0; i < b; i++) {
            x[k * b + i] /= d[k * b + k];
            for (int j = k + 1; j < b; j++)
                x[j * b + i] -= x[k * b + i] * d[j * b + k];
        }
}

/* Interior: c -= l * u. */
static void update(double *c, const double *l, const double *u)
{
    for (int j = 0; j < b; j++)
        for (int k = 0; k < b; k++) {
            double ukj = u[j * b + k];
            for (int i = 0; i < b; i++)
                c[j * b + i] -= l[k * b + i] * ukj;
        }
}

/* A computation's start and end, marked in reach's trace (REACH_TRACE) so
 * that its replay counts the time the computation takes; the end adds it
 * to the breakdown. */
static double compute_start(void)
{
    if (impl == LU_REACH)
        check(reach_trace_mark("compute"));
    return now();
}

static void compute_end(double t0)
{
    spent[LU_COMPUTE] += now() - t0;
    if (impl == LU_REACH)
        check(reach_trace_mark("/compute"));
}

static void factor(void)
{
    size_t bb = (size_t)b * (size_t)b;
    double *diag = malloc(bb * sizeof(double)), *row = malloc(bb * sizeof(double)),
           *col = malloc(bb * sizeof(double));
    for (int k = 0; k < nb; k++) {
        double t0 = compute_start();
        if (owner(k, k) == me)
            factor_diag(my_block(k, k));
        compute_end(t0);
        barrier();
        const double *d = NULL;   /* the diagonal block, fetched once per step */
        for (int x = k + 1; x < nb; x++) {
            if (owner(k, x) == me) {
                d = d ? d : fetch(k, k, diag);
                t0 = compute_start();
                solve_lower(d, my_block(k, x));
                compute_end(t0);
            }
            if (owner(x, k) == me) {
                d = d ? d : fetch(k, k, diag);
                t0 = compute_start();
                solve_upper(d, my_block(x, k));
                compute_end(t0);
            }
        }
        barrier();
        for (int i = k + 1; i < nb; i++) {
            const double *l = NULL;
            for (int j = k + 1; j < nb; j++) {
                if (owner(i, j) != me)
                    continue;
                l = l ? l : fetch(i, k, col);
                const double *u = fetch(k, j, row);
                t0 = compute_start();
                update(my_block(i, j), l, u);
                compute_end(t0);
            }
        }
        barrier();
    }
    free(diag);
    free(row);
    free(col);
}

/* Rank 0 gathers every block and compares L*U with A. */
static double residual(void)
{
    size_t bb = (size_t)b * (size_t)b;
    double *lu = calloc((size_t)n * (size_t)n, sizeof(double));   /* column-major, packed L\U */
    double *buf = malloc(bb * sizeof(double));
    for (int bi = 0; bi < nb; bi++)
        for (int bj = 0; bj < nb; bj++) {
            const double *blk = fetch(bi, bj, buf);
            for (int j = 0; j < b; j++)
                for (int i = 0; i < b; i++)
                    lu[(size_t)(bj * b + j) * (size_t)n + (size_t)(bi * b + i)] = blk[j * b + i];
        }
    double worst = 0, amax = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            int kmax = i < j ? i : j;
            for (int k = 0; k <= kmax; k++) {
                double l = k == i ? 1.0 : lu[(size_t)k * (size_t)n + (size_t)i];
                s += l * lu[(size_t)j * (size_t)n + (size_t)k];
            }
            double a = a_entry(i, j);
            worst = fmax(worst, fabs(a - s));
            amax = fmax(amax, fabs(a));
        }
    free(lu);
    free(buf);
    return worst / amax;
}

int lu_setup(int n_, int b_, int p, lu_impl_t impl_)
{
    int size = reach_size();
    if (bases) {
        fprintf(stderr, "lu_setup: already set up (lu_finish first)\n");
        return REACH_ERR_ARG;
    }
    if (n_ <= 0 || b_ <= 0 || n_ % b_ != 0 || p < 1 || p > size) {
        if (reach_rank() == 0)
            fprintf(stderr, "lu: n (%d) must be a positive multiple of the block size b (%d), "
                            "on 1 to %d processes (%d)\n", n_, b_, size, p);
        return REACH_ERR_ARG;
    }
    n = n_;
    b = b_;
    nb = n / b;
    me = reach_rank();
    np = p;
    impl = impl_;
    for (pr = 1; (pr + 1) * (pr + 1) <= np; pr++)
        ;
    while (np % pr)
        pr--;
    pc = np / pr;
    memset(spent, 0, sizeof spent);
    failed = REACH_SUCCESS;
    factored = 0;

    /* My blocks: every (bi, bj) with owner me, indexed by local_index. */
    int lrows = (nb + pr - 1) / pr, lcols = (nb + pc - 1) / pc;
    size_t bytes = me < np ? (size_t)lrows * (size_t)lcols * (size_t)b * (size_t)b * sizeof(double) : 0;
    bases = malloc(sizeof(void *) * (size_t)size);
    sums = malloc(sizeof(void *) * (size_t)size);
    int st = !bases || !sums ? REACH_ERR_NOMEM
             : impl == LU_REACH ? reach_win_allocate(bytes, bases, &win)
             /* rounded up to 16 bytes: MPICH 4.0.2 misaddresses windows of other sizes */
             : MPI_Win_allocate((MPI_Aint)((bytes + 15) & ~(size_t)15), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                &bases[me], &mpi_win) == MPI_SUCCESS ? REACH_SUCCESS : REACH_ERR_SYSTEM;
    if (st != REACH_SUCCESS) {
        free(bases);
        free(sums);
        bases = sums = NULL;
        return st;
    }
    mine = bases[me];
    for (int bi = 0; bi < nb; bi++)
        for (int bj = 0; bj < nb; bj++)
            if (owner(bi, bj) == me)
                for (int j = 0; j < b; j++)
                    for (int i = 0; i < b; i++)
                        my_block(bi, bj)[j * b + i] = a_entry(bi * b + i, bj * b + j);
    sync_ranks();
    return REACH_SUCCESS;
}

void lu_factor(void)
{
    if (!bases)
        return;
    double t0 = now();
    factor();   /* a rank beyond the grid owns nothing: it only joins the barriers */
    factored = now() - t0;
}

int lu_finish(int check_residual, lu_result_t *out)
{
    if (!bases) {
        fprintf(stderr, "lu_finish: not set up (lu_setup first)\n");
        return REACH_ERR_ARG;
    }
    /* Rank 0 reads every grid rank's figures for the mean breakdown. */
    int st = reach_malloc(sizeof spent, sums);
    if (st == REACH_SUCCESS) {
        memcpy(sums[me], spent, sizeof spent);
        sync_ranks();
        if (me == 0) {
            double part[LU_PARTS];
            *out = (lu_result_t){.seconds = factored};
            for (int r = 0; r < np; r++) {
                check(reach_get(sums[r], part, sizeof part, r));
                for (int k = 0; k < LU_PARTS; k++)
                    out->part[k] += part[k] / np;
            }
            out->residual = check_residual ? residual() : 0;
        }
        sync_ranks();
        check(reach_free(sums[me]));
    }
    check(st);
    if (impl == LU_MPI3)
        check_mpi(MPI_Win_free(&mpi_win));
    else
        check(reach_win_free(win));
    free(sums);
    free(bases);
    bases = sums = NULL;
    return failed;
}

int lu_run(int n_, int b_, int p, lu_impl_t impl_, int check_residual, lu_result_t *out)
{
    int st = lu_setup(n_, b_, p, impl_);
    if (st != REACH_SUCCESS)
        return st;
    lu_factor();
    return lu_finish(check_residual, out);
}
