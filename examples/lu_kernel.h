/* The blocked LU of examples/lu, as a function for the example and for
 * reach-bench (Santhanaraman08, Figs. 7-8; docs/references.md). */
#ifndef REACH_LU_KERNEL_H
#define REACH_LU_KERNEL_H

#include <reach.h>

enum { LU_LOCK, LU_GET, LU_UNLOCK, LU_BARRIER, LU_COMPUTE, LU_PARTS };
extern const char *const lu_part_name[LU_PARTS];

/* Whose epochs fetch the blocks: reach's windows (in the REACH_WIN_SYNC
 * mode in force) or MPI-3's, the baseline. */
typedef enum lu_impl { LU_REACH, LU_MPI3 } lu_impl_t;

typedef struct lu_result {
    double seconds;           /* the factorization */
    double part[LU_PARTS];    /* its breakdown, seconds, the mean over the grid's ranks */
    double residual;          /* max|A - LU| / max|A|, if checked */
} lu_result_t;

/* Collective: factors an n x n matrix in b x b blocks over ranks 0..p-1
 * (the others join the barriers only) with impl's windows; the result on rank 0, its residual if check (else 0; it
 * costs about n^3/3 multiply-adds on rank 0). An error if the arguments
 * are wrong or a reach call failed. */
int lu_run(int n, int b, int p, lu_impl_t impl, int check, lu_result_t *out);
/* lu_run in its three parts, for a caller that times or traces the
 * factorization alone (reach-scale), each collective: lu_setup allocates
 * the window and fills the matrix (an error for wrong arguments, a failed
 * allocation, or a set-up not yet finished); lu_factor factors it;
 * lu_finish gathers the result as lu_run does, frees the window and
 * returns the first error of a reach call since lu_setup (an error too
 * without a set-up). */
int lu_setup(int n, int b, int p, lu_impl_t impl);
void lu_factor(void);
int lu_finish(int check, lu_result_t *out);
#endif
