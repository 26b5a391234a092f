/* reach_init starts MPI itself when the program has not, and reach_finalize
 * finalizes what it started; init twice is harmless. */
#include "../check.h"
#include "reach.h"

#include <mpi.h>

int main(int argc, char **argv)
{
    int inited = 1;
    MPI_Initialized(&inited);
    CHECK(!inited);
    CHECK(reach_initialized() == 0);
    CHECK(reach_rank() == -1);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    MPI_Initialized(&inited);
    CHECK(inited);
    CHECK(reach_initialized() == 1);
    int np = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(reach_size() == np);
    int me0 = reach_rank();
    for (int r = 0; r < np; r++)
        CHECK(reach_same_node(r) == (reach_node_of(r) == reach_node_of(me0)));
    /* Failures are counted on every rank before MPI goes away. */
    int total = 0;
    MPI_Allreduce(&check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int me = reach_rank();
    CHECK(reach_finalize() == REACH_SUCCESS);
    int fin = 0;
    MPI_Finalized(&fin);
    CHECK(fin);
    CHECK(reach_initialized() == 0);
    total += check_failures;
    if (me == 0)
        printf("test_init: %s\n", total ? "FAILED" : "passed");
    return total ? 1 : 0;
}
