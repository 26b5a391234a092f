/* ARMCI_Init_mpi_comm: two halves of the job each run reach on their own
 * communicator, side by side on the node, without seeing each other. */
#include "mpi_check.h"
#include "armci.h"
#include "message.h"
#include "reach.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wr, wn;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &half);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    CHECK(ARMCI_Init_mpi_comm(half) == 0);
    CHECK_EQ_LL(reach_rank(), hr);
    CHECK_EQ_LL(reach_size(), hn);
    CHECK_EQ_LL(armci_msg_nproc(), hn);
    void **p = malloc(sizeof(void *) * (size_t)hn);
    CHECK(ARMCI_Malloc(p, sizeof(int) * 4) == 0);
    int right = (hr + 1) % hn;
    CHECK(ARMCI_PutValueInt(100 * (wr % 2) + hr, p[right], right) == 0);
    ARMCI_Barrier();
    CHECK_EQ_LL(*(int *)p[hr], 100 * (wr % 2) + (hr + hn - 1) % hn);
    int sum = 1;
    armci_msg_igop(&sum, 1, "+");
    CHECK_EQ_LL(sum, hn);
    CHECK(ARMCI_Free(p[hr]) == 0);
    free(p);
    ARMCI_Finalize();
    MPI_Comm_free(&half);
    int rc = check_exit("test_init_comm");
    MPI_Finalize();
    return rc;
}
