/* The ARMCI message layer. After ARMCI_Init, the collectives Global Arrays
 * calls in its loops (barrier, broadcast, reductions) are reach's own
 * (reach_sync_group, reach_bcast, reach_allreduce, reach_reduce: shared
 * memory on a node, the network between nodes, waits that sleep); point to
 * point messages, selection, address exchange and everything before
 * ARMCI_Init are MPI's, on the communicators of reach's groups or, before,
 * a private duplicate of MPI_COMM_WORLD (scope ALL only). This file holds
 * the scopes and their communicators, start-up, barriers, point to point
 * messages, broadcasts, trees and address exchange; the reductions and the
 * selection are in armci_msg_reduce.c. */
#include "armci_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static MPI_Comm msg_world_comm = MPI_COMM_NULL;

void armci_msg_die(const char *fmt, ...)
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
            armci_msg_die("MPI is not initialized (call armci_msg_init or ARMCI_Init)");
        MPI_Comm_dup(MPI_COMM_WORLD, &msg_world_comm);
    }
    return msg_world_comm;
}

reach_group_t *armci_msg_group(ARMCI_Group *group)
{
    reach_group_t *g = group ? armci_group(group) : armci_default_group();
    if (g == NULL)
        armci_msg_die("no such group");
    return g;
}

MPI_Comm armci_msg_comm(int scope, ARMCI_Group *group)
{
    if (!reach_initialized()) {
        if (scope != SCOPE_ALL || group != NULL)
            armci_msg_die("scopes and groups need ARMCI_Init first");
        return msg_world();
    }
    reach_group_t *g = armci_msg_group(group);
    switch (scope) {
    case SCOPE_ALL: return reach_group_comm(g);
    case SCOPE_NODE: return reach_group_node_comm(g);
    case SCOPE_MASTERS: return reach_group_masters_comm(g);
    default: armci_msg_die("unknown scope (SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS)");
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
        armci_msg_die("root %d is out of range [0, %d)", root, size);
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
        armci_msg_die("root %d is not in this process's scope", root);
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
        armci_check(reach_sync_group(armci_msg_group(group), REACH_SCOPE_ALL));
    else
        MPI_Barrier(armci_msg_comm(SCOPE_ALL, group));
}

void parmci_msg_barrier(void)
{
    ARMCI_ENTRY();
    msg_barrier(NULL);
}
extern __typeof__(parmci_msg_barrier) armci_msg_barrier __attribute__((weak, alias("parmci_msg_barrier")));

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

static void msg_bcast(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    if (buf == NULL && len > 0)
        armci_msg_die("the buffer is NULL");
    if (len < 0)
        armci_msg_die("length %d is negative", len);
    if (reach_initialized()) {
        armci_check(reach_bcast(armci_msg_group(group), armci_msg_scope(scope), buf, (size_t)len, root));
        return;
    }
    MPI_Comm comm = armci_msg_comm(scope, group);
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
    MPI_Comm comm = armci_msg_comm(SCOPE_NODE, NULL);
    MPI_Bcast(buf, len, MPI_BYTE, 0, comm);
}

void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc, ARMCI_Group *mastergroup)
{
    ARMCI_ENTRY();
    (void)grp_clus_nproc;
    int root = reach_group_world_rank(armci_msg_group(mastergroup), grp_master);
    if (root < 0)
        armci_msg_die("grp_master is not a rank of mastergroup");
    msg_bcast(SCOPE_NODE, buf, len, root, mastergroup);
}

/* ---- trees and addresses --------------------------------------------------- */

void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    ARMCI_ENTRY();
    MPI_Comm comm = armci_msg_comm(scope, NULL);
    *Up = *Left = *Right = -1;
    if (comm == MPI_COMM_NULL) {
        /* Not a master: no place in the masters' tree, whose root is the
         * group's first member (always the first of its node). */
        *Root = reach_group_world_rank(armci_msg_group(NULL), 0);
        return;
    }
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *world = malloc(sizeof(int) * (size_t)n), self = reach_initialized() ? reach_rank() : me;
    if (!world)
        armci_msg_die("out of memory");
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
    MPI_Comm comm = armci_msg_comm(SCOPE_ALL, group);
    int size;
    MPI_Comm_size(comm, &size);
    if (n != size || ptr_arr == NULL)
        armci_msg_die("the array must have one entry per member of the group");
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
