/* The ARMCI message layer over MPI, on a private duplicate of
 * MPI_COMM_WORLD made at first use. */
#pragma GCC visibility push(default)
#include "message.h"
#pragma GCC visibility pop

#include "reach.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm msg_comm = MPI_COMM_NULL;

static MPI_Comm msg_world(void)
{
    if (msg_comm == MPI_COMM_NULL) {
        int inited = 0;
        MPI_Initialized(&inited);
        if (!inited)
            reach_abort(1, "armci_msg: MPI is not initialized (call armci_msg_init or ARMCI_Init)");
        MPI_Comm_dup(MPI_COMM_WORLD, &msg_comm);
    }
    return msg_comm;
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
    if (msg_comm != MPI_COMM_NULL)
        MPI_Comm_free(&msg_comm);
    MPI_Finalize();
}

int armci_msg_me(void)
{
    int r;
    MPI_Comm_rank(msg_world(), &r);
    return r;
}

int armci_msg_nproc(void)
{
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

void armci_msg_barrier(void)
{
    MPI_Barrier(msg_world());
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    MPI_Bcast(buffer, len, MPI_BYTE, root, msg_world());
}

void armci_msg_brdcst(void *buffer, int len, int root)
{
    armci_msg_bcast(buffer, len, root);
}

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    MPI_Send(buffer, len, MPI_BYTE, to, tag, msg_world());
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    MPI_Status s;
    MPI_Recv(buffer, buflen, MPI_BYTE, from, tag, msg_world(), &s);
    if (msglen)
        MPI_Get_count(&s, MPI_BYTE, msglen);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    MPI_Status s;
    MPI_Recv(buffer, buflen, MPI_BYTE, MPI_ANY_SOURCE, tag, msg_world(), &s);
    if (msglen)
        MPI_Get_count(&s, MPI_BYTE, msglen);
    return s.MPI_SOURCE;
}

/* The MPI datatype of an ARMCI type code, MPI_DATATYPE_NULL if unknown. */
static MPI_Datatype msg_type(int type, size_t *size)
{
    switch (type) {
    case ARMCI_INT: *size = sizeof(int); return MPI_INT;
    case ARMCI_LONG: *size = sizeof(long); return MPI_LONG;
    case ARMCI_LONG_LONG: *size = sizeof(long long); return MPI_LONG_LONG;
    case ARMCI_FLOAT: *size = sizeof(float); return MPI_FLOAT;
    case ARMCI_DOUBLE: *size = sizeof(double); return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

/* absmax and absmin reduce the absolute values, as ARMCI defines them. */
static void msg_abs(void *x, int n, int type)
{
    for (int i = 0; i < n; i++) {
        switch (type) {
        case ARMCI_INT: ((int *)x)[i] = abs(((int *)x)[i]); break;
        case ARMCI_LONG: ((long *)x)[i] = labs(((long *)x)[i]); break;
        case ARMCI_LONG_LONG: ((long long *)x)[i] = llabs(((long long *)x)[i]); break;
        case ARMCI_FLOAT: ((float *)x)[i] = fabsf(((float *)x)[i]); break;
        case ARMCI_DOUBLE: ((double *)x)[i] = fabs(((double *)x)[i]); break;
        }
    }
}

/* Reduces x (n elements of type) with op into every rank (root < 0) or
 * into root. */
static void msg_reduce(void *x, int n, const char *op, int type, int root, const char *call)
{
    size_t size;
    MPI_Datatype dt = msg_type(type, &size);
    MPI_Op mop;
    if (dt == MPI_DATATYPE_NULL) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: %d is not an ARMCI type", call, type);
        reach_abort(1, msg);
    }
    if (op == NULL)
        op = "(null)";
    if (strcmp(op, "+") == 0 || strcmp(op, "sum") == 0)
        mop = MPI_SUM;
    else if (strcmp(op, "*") == 0 || strcmp(op, "mult") == 0)
        mop = MPI_PROD;
    else if (strcmp(op, "max") == 0 || strcmp(op, "absmax") == 0)
        mop = MPI_MAX;
    else if (strcmp(op, "min") == 0 || strcmp(op, "absmin") == 0)
        mop = MPI_MIN;
    else {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: \"%s\" is not an operation (+, *, max, min, absmax, absmin)",
                 call, op);
        reach_abort(1, msg);
    }
    if (strncmp(op, "abs", 3) == 0)
        msg_abs(x, n, type);
    if (root < 0)
        MPI_Allreduce(MPI_IN_PLACE, x, n, dt, mop, msg_world());
    else if (armci_msg_me() == root)
        MPI_Reduce(MPI_IN_PLACE, x, n, dt, mop, root, msg_world());
    else
        MPI_Reduce(x, NULL, n, dt, mop, root, msg_world());
}

void armci_msg_reduce(void *x, int n, char *op, int type)
{
    msg_reduce(x, n, op, type, 0, "armci_msg_reduce");
}

void armci_msg_igop(int *x, int n, char *op)
{
    msg_reduce(x, n, op, ARMCI_INT, -1, "armci_msg_igop");
}

void armci_msg_lgop(long *x, int n, char *op)
{
    msg_reduce(x, n, op, ARMCI_LONG, -1, "armci_msg_lgop");
}

void armci_msg_llgop(long long *x, int n, char *op)
{
    msg_reduce(x, n, op, ARMCI_LONG_LONG, -1, "armci_msg_llgop");
}

void armci_msg_fgop(float *x, int n, char *op)
{
    msg_reduce(x, n, op, ARMCI_FLOAT, -1, "armci_msg_fgop");
}

void armci_msg_dgop(double *x, int n, char *op)
{
    msg_reduce(x, n, op, ARMCI_DOUBLE, -1, "armci_msg_dgop");
}
