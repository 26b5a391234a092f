/* A shared work counter: ranks take task numbers from rank 0 with a remote
 * fetch-and-add until none are left, and accumulate their results into rank
 * 0. Run: mpiexec -n 4 ./counter */
#include <reach.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    reach_init(&argc, &argv);
    int me = reach_rank(), np = reach_size();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    /* rank 0 holds the counter and the sum; the others hold nothing */
    reach_malloc(me == 0 ? 2 * sizeof(int64_t) : 0, bases);
    int64_t *counter = bases[0], *sum = (int64_t *)bases[0] + 1;
    if (me == 0)
        *counter = *sum = 0;
    reach_barrier();

    const int64_t tasks = 1000;
    int64_t task, done = 0;
    for (;;) {
        reach_fetch_add_i64(counter, 1, &task, 0);
        if (task >= tasks)
            break;
        long result = (long)task;                /* the work of task number `task` */
        long one = 1;
        reach_acc(REACH_LONG, &one, &result, sum, sizeof result, 0);
        done++;
    }
    reach_barrier();
    if (me == 0)
        printf("sum of 0..%lld = %lld (expected %lld)\n", (long long)tasks - 1,
               (long long)*sum, (long long)(tasks * (tasks - 1) / 2));
    printf("rank %d did %lld tasks\n", me, (long long)done);
    int ok = me != 0 || *sum == tasks * (tasks - 1) / 2;
    reach_free(bases[me]);
    free(bases);
    reach_finalize();
    return ok ? 0 : 1;
}
