/* After ARMCI_Init, the message-layer collectives Global Arrays calls in
 * its loops make no MPI call: barriers, broadcasts and every gop and
 * reduce, over the world, a group and every scope, run on reach's own
 * signals (whose waits sleep, where MPICH's busy-poll). This program
 * defines MPI's collectives itself (the profiling interface: each counts
 * the call, then calls PMPI_), so libarmci's calls to them land here; it
 * checks the count stays 0 across the collectives and each result, and
 * that a call still made through MPI is counted. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"

#include <stdio.h>
#include <string.h>

static int mpi_collectives;   /* MPI collectives called since counting began */
static int counting;

#define COUNTED(decl, call)                                                          \
    int decl                                                                         \
    {                                                                                \
        mpi_collectives += counting;                                                 \
        return call;                                                                 \
    }
COUNTED(MPI_Barrier(MPI_Comm comm), PMPI_Barrier(comm))
COUNTED(MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm comm),
        PMPI_Bcast(b, n, t, root, comm))
COUNTED(MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
        PMPI_Allreduce(s, r, n, t, op, comm))
COUNTED(MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm),
        PMPI_Reduce(s, r, n, t, op, root, comm))
COUNTED(MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                      MPI_Comm comm),
        PMPI_Allgather(s, sn, st, r, rn, rt, comm))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_EQ_LL(ARMCI_Init(), 0);
    int me = armci_msg_me(), np = armci_msg_nproc();
    int evens[64], ne = 0;
    for (int r = 0; r < np && ne < 64; r += 2)
        evens[ne++] = r;
    ARMCI_Group even;
    ARMCI_Group_create(ne, evens, &even);   /* MPI is allowed here: set-up */

    counting = 1;
    for (int round = 0; round < 3; round++) {
        armci_msg_barrier();
        int i = me + 1;
        long l = me + 1;
        long long ll = me + 1;
        float f = (float)(me + 1);
        double d[300];
        for (int k = 0; k < 300; k++)
            d[k] = me + k;
        armci_msg_igop(&i, 1, "+");
        armci_msg_lgop(&l, 1, "max");
        armci_msg_llgop(&ll, 1, "min");
        armci_msg_fgop(&f, 1, "+");
        armci_msg_dgop(d, 300, "+");
        CHECK_EQ_LL(i, np * (np + 1) / 2);
        CHECK_EQ_LL(l, np);
        CHECK_EQ_LL(ll, 1);
        CHECK(f == (float)(np * (np + 1) / 2));
        CHECK(d[299] == (double)np * 299 + (double)np * (np - 1) / 2);
        int node = me + 1, node_sum = 0, dom = armci_domain_my_id(ARMCI_DOMAIN_SMP);
        for (int k = 0; k < armci_domain_nprocs(ARMCI_DOMAIN_SMP, dom); k++)
            node_sum += armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, dom, k) + 1;
        armci_msg_gop_scope(SCOPE_NODE, &node, 1, "+", ARMCI_INT);
        CHECK_EQ_LL(node, node_sum);
        int master = 1;
        armci_msg_gop_scope(SCOPE_MASTERS, &master, 1, "+", ARMCI_INT);
        if (armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, dom, 0) == me)
            CHECK_EQ_LL(master, armci_domain_count(ARMCI_DOMAIN_SMP));
        else
            CHECK_EQ_LL(master, 1);   /* outside the scope: untouched */
        int red = 1;
        armci_msg_reduce(&red, 1, "+", ARMCI_INT);
        if (me == 0)
            CHECK_EQ_LL(red, np);
        char msg[64] = "";
        if (me == np - 1)
            snprintf(msg, sizeof msg, "from %d, round %d", np - 1, round);
        armci_msg_bcast(msg, sizeof msg, np - 1);
        char want[64];
        snprintf(want, sizeof want, "from %d, round %d", np - 1, round);
        CHECK(strcmp(msg, want) == 0);
        int b = me;
        armci_msg_bcast_scope(SCOPE_ALL, &b, sizeof b, 0);
        CHECK_EQ_LL(b, 0);
        if (me % 2 == 0) {
            armci_msg_group_barrier(&even);
            int e = 1;
            armci_msg_group_igop(&e, 1, "+", &even);
            CHECK_EQ_LL(e, ne);
            double g = me;
            armci_msg_group_gop_scope(SCOPE_ALL, &g, 1, "max", ARMCI_DOUBLE, &even);
            CHECK(g == (double)evens[ne - 1]);
            int v = me;
            armci_msg_group_bcast_scope(SCOPE_ALL, &v, sizeof v, evens[ne - 1], &even);
            CHECK_EQ_LL(v, evens[ne - 1]);
        }
    }
    ARMCI_Barrier();
    CHECK_EQ_LL(mpi_collectives, 0);
    /* The counting itself works: armci_msg_clus_brdcst is still MPI's. */
    int v = me;
    armci_msg_clus_brdcst(&v, sizeof v);
    counting = 0;
    CHECK_EQ_LL(mpi_collectives, 1);

    ARMCI_Group_free(&even);
    ARMCI_Finalize();
    int rc = check_exit("test_msg_reach");
    MPI_Finalize();
    return rc;
}
