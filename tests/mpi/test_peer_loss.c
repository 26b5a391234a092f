/* Helper of peer_loss.sh. test_peer_loss WAIT HOW: rank 1 ends as HOW says
 * (kill: SIGKILL, crash: a segmentation fault, exit: exit(0) without
 * reach_finalize, _exit: _exit(0), which runs no exit handler, exit3:
 * exit(3), mpi_abort: MPI_Abort(MPI_COMM_WORLD, 3)) while, or
 * just before, the other ranks wait for it in WAIT: barrier, mutex (rank 1
 * holds it), counter (for an add rank 1 would make), get (4 MiB from rank
 * 1's segment, through the network transport when REACH_NODE_SIZE=1). The
 * job must end with a message naming rank 1 (from rank 1 itself after exit,
 * from the survivors otherwise); returning from the wait is a failure (exit
 * status 3).
 *
 * test_peer_loss report: nobody is lost; rank 1 holds a mutex, then comes
 * late to a barrier, 3 s each, so that with REACH_WAIT_REPORT=1 the others
 * print what they wait for, once per wait, and then carry on. */
#include "reach.h"
#include "reach_mpi.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *how)
{
    fprintf(stderr, "rank 1: ending by %s\n", how);
    if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
    if (strcmp(how, "crash") == 0)
        raise(SIGSEGV);   /* as a stray store to address 0 would */
    if (strcmp(how, "_exit") == 0)
        _exit(0);
    if (strcmp(how, "exit3") == 0)
        exit(3);
    if (strcmp(how, "mpi_abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    exit(0);
}

int main(int argc, char **argv)
{
    const char *wait = argc > 1 ? argv[1] : "barrier", *how = argc > 2 ? argv[2] : "kill";
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    int me = reach_rank();
    const size_t bytes = 4 << 20;
    void **seg = malloc(sizeof(void *) * (size_t)reach_size());
    char *buf = malloc(bytes);
    reach_mutexes_t *mutexes;
    reach_counter_t *counter;
    if (!seg || !buf || reach_malloc(bytes, seg) != REACH_SUCCESS ||
        reach_mutexes_create(1, &mutexes) != REACH_SUCCESS ||
        reach_counter_create(0, 0, &counter) != REACH_SUCCESS)
        return 1;

    if (strcmp(wait, "report") == 0) {
        if (me == 1)
            reach_mutex_lock(mutexes, 0, 0);
        reach_barrier();
        if (me == 1) {
            sleep(3);
            reach_mutex_unlock(mutexes, 0, 0);
        } else {
            reach_mutex_lock(mutexes, 0, 0);
            reach_mutex_unlock(mutexes, 0, 0);
        }
        reach_barrier();
        if (me == 1)
            sleep(3);
        reach_barrier();
        reach_mutexes_destroy(mutexes);
        reach_counter_destroy(counter);
        reach_free(seg[me]);
        reach_finalize();
        free(seg);
        free(buf);
        printf("rank %d: done\n", me);
        return 0;
    }

    if (strcmp(wait, "mutex") == 0 && me == 1)
        reach_mutex_lock(mutexes, 0, 0);
    reach_barrier();
    if (me == 1)
        die(how);
    if (strcmp(wait, "barrier") == 0) {
        reach_barrier();
    } else if (strcmp(wait, "mutex") == 0) {
        reach_mutex_lock(mutexes, 0, 0);
    } else if (strcmp(wait, "counter") == 0) {
        reach_counter_wait(counter, 1, NULL);
    } else if (strcmp(wait, "get") == 0) {
        sleep(1);   /* rank 1 is gone before the get starts */
        reach_get(seg[1], buf, bytes, 1);
        reach_barrier();
    } else {
        fprintf(stderr, "test_peer_loss: unknown wait %s\n", wait);
        return 2;
    }
    fprintf(stderr, "rank %d: returned from the %s wait, with rank 1 gone\n", me, wait);
    return 3;
}
