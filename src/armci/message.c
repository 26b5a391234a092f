/* The ARMCI message layer. After ARMCI_Init, the collectives Global Arrays
 * calls in its loops (barrier, broadcast, reductions) are reach's own
 * (reach_sync_group, reach_bcast, reach_allreduce, reach_reduce: shared
 * memory on a node, the network between nodes, waits that sleep); point to
 * point messages, selection, address exchange and everything before
 * ARMCI_Init are MPI's, on the communicators of reach's groups or, before,
 * a private duplicate of MPI_COMM_WORLD (scope ALL only). */
#include "armci_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm msg_world_comm = MPI_COMM_NULL;

/* Ends the job with "CALL: " and what fmt says. */
_Noreturn __attribute__((format(printf, 1, 2))) static void msg_die(const char *fmt, ...)
{
    char what[256], msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "%s: %s", armci_call(), what);
    reach_abort(1, msg);
}

/* The whole job. */
static MPI_Comm msg_world(void)
{
    if (reach_initialized())
        return reach_group_comm(reach_group_world());
    if (msg_world_comm == MPI_COMM_NULL) {
        int inited = 0;
        MPI_Initialized(&inited);
        if (!inited)
            msg_die("MPI is not initialized (call armci_msg_init or ARMCI_Init)");
        MPI_Comm_dup(MPI_COMM_WORLD, &msg_world_comm);
    }
    return msg_world_comm;
}

/* The group of a call: the given one, else the default group. */
static reach_group_t *msg_group(ARMCI_Group *group)
{
    reach_group_t *g = group ? armci_group(group) : armci_default_group();
    if (g == NULL)
        msg_die("no such group");
    return g;
}

/* The communicator of a scope; MPI_COMM_NULL if this process is outside it
 * (a non-master for SCOPE_MASTERS). Without reach started, only SCOPE_ALL
 * of the world exists. */
static MPI_Comm msg_comm(int scope, ARMCI_Group *group)
{
    if (!reach_initialized()) {
        if (scope != SCOPE_ALL || group != NULL)
            msg_die("scopes and groups need ARMCI_Init first");
        return msg_world();
    }
    reach_group_t *g = msg_group(group);
    switch (scope) {
    case SCOPE_ALL: return reach_group_comm(g);
    case SCOPE_NODE: return reach_group_node_comm(g);
    case SCOPE_MASTERS: return reach_group_masters_comm(g);
    default: msg_die("unknown scope (SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS)");
    }
}

/* The rank in comm of root, a job-wide rank (ARMCI's roots are, in every
 * scope and group). */
static int msg_root(int root, MPI_Comm comm)
{
    MPI_Comm world = msg_world();
    int size;
    MPI_Comm_size(world, &size);
    if (root < 0 || root >= size)
        msg_die("root %d is out of range [0, %d)", root, size);
    if (comm == world)
        return root;
    MPI_Group gw, gc;
    int r;
    MPI_Comm_group(world, &gw);
    MPI_Comm_group(comm, &gc);
    MPI_Group_translate_ranks(gw, 1, &root, gc, &r);
    MPI_Group_free(&gw);
    MPI_Group_free(&gc);
    if (r == MPI_UNDEFINED)
        msg_die("root %d is not in this process's scope", root);
    return r;
}

void armci_msg_init(int *argc, char ***argv)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(argc, argv);
    msg_world();
}

void armci_msg_finalize(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin)
        return;
    if (msg_world_comm != MPI_COMM_NULL)
        MPI_Comm_free(&msg_world_comm);
    MPI_Finalize();
}

int armci_msg_me(void)
{
    ARMCI_ENTRY();
    int r;
    MPI_Comm_rank(msg_world(), &r);
    return r;
}

int armci_msg_nproc(void)
{
    ARMCI_ENTRY();
    int n;
    MPI_Comm_size(msg_world(), &n);
    return n;
}

void armci_msg_abort(int code)
{
    reach_abort(code, "armci_msg_abort");
}

double armci_timer(void)
{
    return MPI_Wtime();
}

/* A barrier of the scope: reach's (no fence: ARMCI_Barrier has one). */
static void msg_barrier(ARMCI_Group *group)
{
    if (reach_initialized())
        armci_check(reach_sync_group(msg_group(group), REACH_SCOPE_ALL));
    else
        MPI_Barrier(msg_comm(SCOPE_ALL, group));
}

void parmci_msg_barrier(void)
{
    ARMCI_ENTRY();
    msg_barrier(NULL);
}
extern __typeof__(parmci_msg_barrier) armci_msg_barrier
    __attribute__((weak, alias("parmci_msg_barrier")));

void parmci_msg_group_barrier(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    msg_barrier(group);
}
extern __typeof__(parmci_msg_group_barrier) armci_msg_group_barrier
    __attribute__((weak, alias("parmci_msg_group_barrier")));

/* ---- point to point ------------------------------------------------------ */

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    ARMCI_ENTRY();
    MPI_Send(buffer, len, MPI_BYTE, to, tag, msg_world());
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    ARMCI_ENTRY();
    MPI_Status s;
    MPI_Recv(buffer, buflen, MPI_BYTE, from, tag, msg_world(), &s);
    if (msglen)
        MPI_Get_count(&s, MPI_BYTE, msglen);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    ARMCI_ENTRY();
    MPI_Status s;
    MPI_Recv(buffer, buflen, MPI_BYTE, MPI_ANY_SOURCE, tag, msg_world(), &s);
    if (msglen)
        MPI_Get_count(&s, MPI_BYTE, msglen);
    return s.MPI_SOURCE;
}

/* ---- broadcast ------------------------------------------------------------- */

static reach_scope_t msg_scope(int scope)
{
    switch (scope) {
    case SCOPE_ALL: return REACH_SCOPE_ALL;
    case SCOPE_NODE: return REACH_SCOPE_NODE;
    case SCOPE_MASTERS: return REACH_SCOPE_MASTERS;
    default: msg_die("unknown scope (SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS)");
    }
}

static void msg_bcast(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    if (buf == NULL && len > 0)
        msg_die("the buffer is NULL");
    if (len < 0)
        msg_die("length %d is negative", len);
    if (reach_initialized()) {
        armci_check(reach_bcast(msg_group(group), msg_scope(scope), buf, (size_t)len, root));
        return;
    }
    MPI_Comm comm = msg_comm(scope, group);
    MPI_Bcast(buf, len, MPI_BYTE, msg_root(root, comm), comm);
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    ARMCI_ENTRY();
    msg_bcast(SCOPE_ALL, buffer, len, root, NULL);
}

void armci_msg_brdcst(void *buffer, int len, int root)
{
    ARMCI_ENTRY();
    msg_bcast(SCOPE_ALL, buffer, len, root, NULL);
}

void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    ARMCI_ENTRY();
    msg_bcast(scope, buffer, len, root, NULL);
}

void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    ARMCI_ENTRY();
    msg_bcast(scope, buf, len, root, group);
}

void armci_msg_clus_brdcst(void *buf, int len)
{
    ARMCI_ENTRY();
    MPI_Comm comm = msg_comm(SCOPE_NODE, NULL);
    MPI_Bcast(buf, len, MPI_BYTE, 0, comm);
}

void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *mastergroup)
{
    ARMCI_ENTRY();
    (void)grp_clus_nproc;
    int root = reach_group_world_rank(msg_group(mastergroup), grp_master);
    if (root < 0)
        msg_die("grp_master is not a rank of mastergroup");
    msg_bcast(SCOPE_NODE, buf, len, root, mastergroup);
}

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
    default: msg_die("not an ARMCI type (ARMCI_INT, _LONG, _LONG_LONG, _FLOAT, _DOUBLE)");
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
        msg_die("the operation is NULL");
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
        msg_die("unknown operation \"%.32s\": the operations are + (sum), * (mult), max, min, "
                "absmax, absmin, and for integer types && (land), || (lor), & (band), "
                "| (bor, or)", op);
    if (type == ARMCI_FLOAT || type == ARMCI_DOUBLE)
        msg_die("operation \"%s\" takes integer types only (ARMCI_INT, ARMCI_LONG, "
                "ARMCI_LONG_LONG)", op);
    return integer_op;
}

/* gop (root < 0: result everywhere) or reduce to the scope's first member. */
static void msg_reduce(int scope, void *x, int n, const char *op, int type, int to_first,
                       ARMCI_Group *group)
{
    MPI_Datatype dt = msg_type(type);
    MPI_Op mop = msg_op(op, type);
    MPI_Comm comm = msg_comm(scope, group);
    if (comm == MPI_COMM_NULL || n <= 0)
        return;
    int truth = mop == MPI_LAND || mop == MPI_LOR;
    if (truth || strncmp(op, "abs", 3) == 0)
        msg_unary(x, n, type, truth);
    if (reach_initialized()) {
        reach_reduce_op_t rop = mop == MPI_SUM    ? REACH_REDUCE_SUM
                              : mop == MPI_PROD   ? REACH_REDUCE_PROD
                              : mop == MPI_MAX    ? REACH_REDUCE_MAX
                              : mop == MPI_MIN    ? REACH_REDUCE_MIN
                              : mop == MPI_LAND   ? REACH_REDUCE_LAND
                              : mop == MPI_LOR    ? REACH_REDUCE_LOR
                              : mop == MPI_BAND   ? REACH_REDUCE_BAND
                                                  : REACH_REDUCE_BOR;
        reach_type_t t = type == ARMCI_INT     ? REACH_INT
                       : type == ARMCI_FLOAT   ? REACH_FLOAT
                       : type == ARMCI_DOUBLE  ? REACH_DOUBLE
                                               : REACH_LONG;   /* long, long long */
        reach_group_t *g = msg_group(group);
        armci_check(to_first ? reach_reduce(g, msg_scope(scope), x, (size_t)n, t, rop)
                             : reach_allreduce(g, msg_scope(scope), x, (size_t)n, t, rop));
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

#define MSG_GOPS(letter, T, TYPE)                                                   \
    void armci_msg_##letter##gop(T *x, int n, char *op)                             \
    {                                                                               \
        ARMCI_ENTRY();                                                              \
        msg_reduce(SCOPE_ALL, x, n, op, TYPE, 0, NULL);                             \
    }                                                                               \
    void armci_msg_clus_##letter##gop(T *x, int n, char *op)                        \
    {                                                                               \
        ARMCI_ENTRY();                                                              \
        msg_reduce(SCOPE_NODE, x, n, op, TYPE, 0, NULL);                            \
    }                                                                               \
    void armci_msg_group_##letter##gop(T *x, int n, char *op, ARMCI_Group *group)   \
    {                                                                               \
        ARMCI_ENTRY();                                                              \
        msg_reduce(SCOPE_ALL, x, n, op, TYPE, 0, group);                            \
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
    MPI_Comm comm = msg_comm(scope, NULL);
    if (comm == MPI_COMM_NULL)
        return;
    msg_type(type);
    int want_max = op && strcmp(op, "max") == 0;
    if (!want_max && !(op && strcmp(op, "min") == 0))
        msg_die("the operation must be \"max\" or \"min\"");
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
        msg_die("out of memory");
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

/* ---- trees and addresses --------------------------------------------------- */

void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    ARMCI_ENTRY();
    MPI_Comm comm = msg_comm(scope, NULL);
    *Up = *Left = *Right = -1;
    if (comm == MPI_COMM_NULL) {
        /* Not a master: no place in the masters' tree, whose root is the
         * group's first member (always the first of its node). */
        *Root = reach_group_world_rank(msg_group(NULL), 0);
        return;
    }
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *world = malloc(sizeof(int) * (size_t)n), self = reach_initialized() ? reach_rank() : me;
    if (!world)
        msg_die("out of memory");
    MPI_Allgather(&self, 1, MPI_INT, world, 1, MPI_INT, comm);
    *Root = world[0];
    if (me > 0)
        *Up = world[(me - 1) / 2];
    if (2 * me + 1 < n)
        *Left = world[2 * me + 1];
    if (2 * me + 2 < n)
        *Right = world[2 * me + 2];
    free(world);
}

static void msg_exchange(void *ptr_arr[], int n, ARMCI_Group *group)
{
    MPI_Comm comm = msg_comm(SCOPE_ALL, group);
    int size;
    MPI_Comm_size(comm, &size);
    if (n != size || ptr_arr == NULL)
        msg_die("the array must have one entry per member of the group");
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ptr_arr, sizeof(void *), MPI_BYTE, comm);
}

void armci_exchange_address(void *ptr_ar[], int n)
{
    ARMCI_ENTRY();
    msg_exchange(ptr_ar, n, NULL);
}

void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group)
{
    ARMCI_ENTRY();
    msg_exchange(ptr_arr, n, group);
}
