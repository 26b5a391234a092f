/* The reductions and the selection of the ARMCI message layer
 * (armci_msg_reduce, the *gop calls of every type and scope, armci_msg_sel):
 * after ARMCI_Init, reach_allreduce and reach_reduce with Global Arrays'
 * operations mapped to reach's (absmax, absmin and the logical ones applied
 * to the values first); before, MPI's reductions. The selection gathers each
 * process's first element over MPI and broadcasts the winner's. */
#include "armci_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reductions -------------------------------------------------------------- */

_Static_assert(sizeof(long long) == sizeof(long), "ARMCI_LONG_LONG reduces as reach's long");

static MPI_Datatype msg_type(int type)
{
    switch (type) {
    case ARMCI_INT: return MPI_INT;
    case ARMCI_LONG: return MPI_LONG;
    case ARMCI_LONG_LONG: return MPI_LONG_LONG;
    case ARMCI_FLOAT: return MPI_FLOAT;
    case ARMCI_DOUBLE: return MPI_DOUBLE;
    default: armci_msg_die("not an ARMCI type (ARMCI_INT, _LONG, _LONG_LONG, _FLOAT, _DOUBLE)");
    }
}

/* absmax and absmin reduce the absolute values, as ARMCI defines them; &&
 * and || reduce truth values, so that the result is 0 or 1 on a scope of
 * one process too. */
static void msg_unary(void *x, int n, int type, int truth)
{
    for (int i = 0; i < n; i++) {
        switch (type) {
        case ARMCI_INT: {
            int *v = (int *)x + i;
            *v = truth ? *v != 0 : abs(*v);
            break;
        }
        case ARMCI_LONG: {
            long *v = (long *)x + i;
            *v = truth ? *v != 0 : labs(*v);
            break;
        }
        case ARMCI_LONG_LONG: {
            long long *v = (long long *)x + i;
            *v = truth ? *v != 0 : llabs(*v);
            break;
        }
        case ARMCI_FLOAT: ((float *)x)[i] = fabsf(((float *)x)[i]); break;
        case ARMCI_DOUBLE: ((double *)x)[i] = fabs(((double *)x)[i]); break;
        }
    }
}

static int msg_is(const char *op, const char *name, const char *alias)
{
    return strcmp(op, name) == 0 || strcmp(op, alias) == 0;
}

/* The operations of Global Arrays' message layer; the logical and bitwise
 * ones take integer types only, as there. */
static MPI_Op msg_op(const char *op, int type)
{
    if (op == NULL)
        armci_msg_die("the operation is NULL");
    if (msg_is(op, "+", "sum"))
        return MPI_SUM;
    if (msg_is(op, "*", "mult"))
        return MPI_PROD;
    if (msg_is(op, "max", "absmax"))
        return MPI_MAX;
    if (msg_is(op, "min", "absmin"))
        return MPI_MIN;
    MPI_Op integer_op = MPI_OP_NULL;
    if (msg_is(op, "&&", "land"))
        integer_op = MPI_LAND;
    else if (msg_is(op, "||", "lor"))
        integer_op = MPI_LOR;
    else if (msg_is(op, "&", "band"))
        integer_op = MPI_BAND;
    else if (msg_is(op, "|", "bor") || strcmp(op, "or") == 0)
        integer_op = MPI_BOR;
    if (integer_op == MPI_OP_NULL)
        armci_msg_die("unknown operation \"%.32s\": the operations are + (sum), * (mult), max, min, "
                      "absmax, absmin, and for integer types && (land), || (lor), & (band), "
                      "| (bor, or)",
                      op);
    if (type == ARMCI_FLOAT || type == ARMCI_DOUBLE)
        armci_msg_die("operation \"%s\" takes integer types only (ARMCI_INT, ARMCI_LONG, "
                      "ARMCI_LONG_LONG)",
                      op);
    return integer_op;
}

/* gop (root < 0: result everywhere) or reduce to the scope's first member. */
static void msg_reduce(int scope, void *x, int n, const char *op, int type, int to_first, ARMCI_Group *group)
{
    MPI_Datatype dt = msg_type(type);
    MPI_Op mop = msg_op(op, type);
    MPI_Comm comm = armci_msg_comm(scope, group);
    if (comm == MPI_COMM_NULL || n <= 0)
        return;
    int truth = mop == MPI_LAND || mop == MPI_LOR;
    if (truth || strncmp(op, "abs", 3) == 0)
        msg_unary(x, n, type, truth);
    if (reach_initialized()) {
        reach_reduce_op_t rop = mop == MPI_SUM    ? REACH_REDUCE_SUM
                                : mop == MPI_PROD ? REACH_REDUCE_PROD
                                : mop == MPI_MAX  ? REACH_REDUCE_MAX
                                : mop == MPI_MIN  ? REACH_REDUCE_MIN
                                : mop == MPI_LAND ? REACH_REDUCE_LAND
                                : mop == MPI_LOR  ? REACH_REDUCE_LOR
                                : mop == MPI_BAND ? REACH_REDUCE_BAND
                                                  : REACH_REDUCE_BOR;
        reach_type_t t = type == ARMCI_INT      ? REACH_INT
                         : type == ARMCI_FLOAT  ? REACH_FLOAT
                         : type == ARMCI_DOUBLE ? REACH_DOUBLE
                                                : REACH_LONG; /* long, long long */
        reach_group_t *g = armci_msg_group(group);
        armci_check(to_first ? reach_reduce(g, armci_msg_scope(scope), x, (size_t)n, t, rop)
                             : reach_allreduce(g, armci_msg_scope(scope), x, (size_t)n, t, rop));
        return;
    }
    int me;
    MPI_Comm_rank(comm, &me);
    if (!to_first)
        MPI_Allreduce(MPI_IN_PLACE, x, n, dt, mop, comm);
    else if (me == 0)
        MPI_Reduce(MPI_IN_PLACE, x, n, dt, mop, 0, comm);
    else
        MPI_Reduce(x, NULL, n, dt, mop, 0, comm);
}

void armci_msg_reduce(void *x, int n, char *op, int type)
{
    ARMCI_ENTRY();
    msg_reduce(SCOPE_ALL, x, n, op, type, 1, NULL);
}

void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    ARMCI_ENTRY();
    msg_reduce(scope, x, n, op, type, 1, NULL);
}

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    ARMCI_ENTRY();
    msg_reduce(scope, x, n, op, type, 0, NULL);
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group)
{
    ARMCI_ENTRY();
    msg_reduce(scope, x, n, op, type, 0, group);
}

#define MSG_GOPS(letter, T, TYPE)                                                 \
    void armci_msg_##letter##gop(T *x, int n, char *op)                           \
    {                                                                             \
        ARMCI_ENTRY();                                                            \
        msg_reduce(SCOPE_ALL, x, n, op, TYPE, 0, NULL);                           \
    }                                                                             \
    void armci_msg_clus_##letter##gop(T *x, int n, char *op)                      \
    {                                                                             \
        ARMCI_ENTRY();                                                            \
        msg_reduce(SCOPE_NODE, x, n, op, TYPE, 0, NULL);                          \
    }                                                                             \
    void armci_msg_group_##letter##gop(T *x, int n, char *op, ARMCI_Group *group) \
    {                                                                             \
        ARMCI_ENTRY();                                                            \
        msg_reduce(SCOPE_ALL, x, n, op, TYPE, 0, group);                          \
    }
MSG_GOPS(i, int, ARMCI_INT)
MSG_GOPS(l, long, ARMCI_LONG)
MSG_GOPS(ll, long long, ARMCI_LONG_LONG)
MSG_GOPS(f, float, ARMCI_FLOAT)
MSG_GOPS(d, double, ARMCI_DOUBLE)

/* ---- select ------------------------------------------------------------------ */

/* The first element of x as a comparable pair (integers exactly). */
typedef struct {
    int contribute;
    int rank;
    long long i;
    double d;
} msg_sel_t;

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    ARMCI_ENTRY();
    MPI_Comm comm = armci_msg_comm(scope, NULL);
    if (comm == MPI_COMM_NULL)
        return;
    msg_type(type);
    int want_max = op && strcmp(op, "max") == 0;
    if (!want_max && !(op && strcmp(op, "min") == 0))
        armci_msg_die("the operation must be \"max\" or \"min\"");
    msg_sel_t mine = {contribute != 0, 0, 0, 0};
    MPI_Comm_rank(comm, &mine.rank);
    if (mine.contribute) {
        switch (type) {
        case ARMCI_INT: mine.i = *(int *)x; break;
        case ARMCI_LONG: mine.i = *(long *)x; break;
        case ARMCI_LONG_LONG: mine.i = *(long long *)x; break;
        case ARMCI_FLOAT: mine.d = *(float *)x; break;
        default: mine.d = *(double *)x; break;
        }
    }
    int size;
    MPI_Comm_size(comm, &size);
    msg_sel_t *all = malloc(sizeof *all * (size_t)size);
    if (!all)
        armci_msg_die("out of memory");
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm);
    int win = -1, floating = type == ARMCI_FLOAT || type == ARMCI_DOUBLE;
    for (int r = 0; r < size; r++) {
        if (!all[r].contribute)
            continue;
        int better = win < 0;
        if (!better) {
            int cmp = floating ? (all[r].d > all[win].d) - (all[r].d < all[win].d)
                               : (all[r].i > all[win].i) - (all[r].i < all[win].i);
            better = want_max ? cmp > 0 : cmp < 0;
        }
        if (better)
            win = r;
    }
    free(all);
    if (win >= 0)
        MPI_Bcast(x, n, MPI_BYTE, win, comm);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    ARMCI_ENTRY();
    armci_msg_sel_scope(SCOPE_ALL, x, n, op, type, contribute);
}
