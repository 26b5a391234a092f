/* ARMCI_Init_mpi_comm: two halves of the job each run reach on their own
 * communicator, side by side on the node, without seeing each other; then
 * one half after the other, as Global Arrays' GA_Initialize_comm runs a
 * program on a sub-communicator (it goes on only if the call returns
 * nonzero), the other half waiting; then the whole job. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"
#include "reach.h"

/* Starts reach on comm, checks a ring of puts (values base + rank) and a
 * sum over comm, and finalizes. */
static void run_on(MPI_Comm comm, int base)
{
    int hr, hn;
    MPI_Comm_rank(comm, &hr);
    MPI_Comm_size(comm, &hn);
    CHECK_EQ_LL(ARMCI_Init_mpi_comm(comm), 1);
    CHECK_EQ_LL(ARMCI_Initialized(), 1);
    CHECK_EQ_LL(reach_rank(), hr);
    CHECK_EQ_LL(reach_size(), hn);
    CHECK_EQ_LL(armci_msg_nproc(), hn);
    void **p = malloc(sizeof(void *) * (size_t)hn);
    CHECK(ARMCI_Malloc(p, sizeof(int) * 4) == 0);
    int right = (hr + 1) % hn;
    CHECK(ARMCI_PutValueInt(base + hr, p[right], right) == 0);
    ARMCI_Barrier();
    CHECK_EQ_LL(*(int *)p[hr], base + (hr + hn - 1) % hn);
    int sum = 1;
    armci_msg_igop(&sum, 1, "+");
    CHECK_EQ_LL(sum, hn);
    CHECK(ARMCI_Free(p[hr]) == 0);
    free(p);
    CHECK_EQ_LL(ARMCI_Finalize(), 0);
    CHECK_EQ_LL(ARMCI_Initialized(), 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wr, wn;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &half);
    run_on(half, 100 * (wr % 2));
    for (int turn = 0; turn < 2; turn++) {
        if (wr % 2 == turn)
            run_on(half, 200 + 100 * turn);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    run_on(MPI_COMM_WORLD, 400);
    MPI_Comm_free(&half);
    int rc = check_exit("test_init_comm");
    MPI_Finalize();
    return rc;
}
