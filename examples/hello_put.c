/* Every rank writes a greeting into its right neighbour's segment, then
 * reads its own after the barrier. Run: mpiexec -n 4 ./hello_put */
#include <reach.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    int me = reach_rank(), np = reach_size();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_malloc(64, bases);                     /* collective: 64 bytes per rank */

    char msg[64];
    int len = snprintf(msg, sizeof msg, "hello from rank %d", me) + 1;
    int right = (me + 1) % np;
    reach_put(msg, bases[right], (size_t)len, right);
    reach_barrier();                             /* every put is complete everywhere */

    printf("rank %d got: %s\n", me, (char *)bases[me]);
    reach_free(bases[me]);
    free(bases);
    reach_finalize();
    return 0;
}
