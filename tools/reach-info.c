/* reach-info: the transports of this build and the environment variables
 * reach reads (defaults, values in force, help), or, with --topology under
 * mpiexec, where every rank runs. */
#include "reach.h"

#include <stdio.h>
#include <string.h>

static void usage(void)
{
    printf("usage: reach-info [--topology | --help]\n"
           "  prints reach's transports and its environment variables with defaults and\n"
           "  values in force; names REACH_ variables that are not reach's, and fails on\n"
           "  a value that is not valid, saying what the variable takes.\n"
           "  --topology (run under mpiexec, e.g. mpiexec -n 4 reach-info --topology)\n"
           "  prints instead how many ranks run on how many nodes, each rank's node, and\n"
           "  how rank 0 reaches it (self, shm or net).\n");
}

int main(int argc, char **argv)
{
    int topology = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--topology") == 0)
            topology = 1;
        else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (!topology) {
        printf("reach %d.%d\ntransports: %s\n\n", REACH_VERSION_MAJOR, REACH_VERSION_MINOR,
               reach_transports());
        reach_config_print();
        fflush(stdout);
        return reach_config_check() == REACH_SUCCESS ? 0 : 1;
    }
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    if (reach_rank() == 0) {
        printf("%d ranks on %d node(s)\n", reach_size(), reach_node_count());
        for (int r = 0; r < reach_size(); r++)
            printf("rank %d: node %d, reached from rank 0 by %s\n", r, reach_node_of(r),
                   r == 0 ? "self" : reach_same_node(r) ? "shm" : "net");
    }
    reach_finalize();
    return 0;
}
