/* A shared task counter: rank 0 holds the number of the next task, and
 * every rank takes tasks with a remote fetch-and-add until none are left,
 * so a rank that is quick (or less loaded) takes more of them. Task t counts
 * the primes in [t * SPAN, (t + 1) * SPAN), a fraction of a millisecond of
 * work; the counts are accumulated into rank 0, and each task is marked
 * there as taken. At the end rank 0 prints how many tasks each rank took
 * and checks that every task was taken exactly once (exit status 1 if
 * not). Run: mpiexec -n 4 ./counter */
#include <reach.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TASKS = 1000, SPAN = 2000 };

/* What rank 0 holds. */
typedef struct {
    int64_t next;          /* the next task to take */
    long primes;           /* the sum of the tasks' counts */
    int taken[TASKS];      /* how many times each task was taken */
    int64_t took[];        /* how many tasks each rank took */
} board_t;

/* The work of one task: the primes in [lo, hi), by trial division. */
static long count_primes(long lo, long hi)
{
    long n = 0;
    for (long k = lo < 2 ? 2 : lo; k < hi; k++) {
        int prime = 1;
        for (long d = 2; d * d <= k && prime; d++)
            prime = k % d != 0;
        n += prime;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    int me = reach_rank(), np = reach_size();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    /* rank 0 holds the board; the others hold nothing */
    size_t board_bytes = sizeof(board_t) + sizeof(int64_t) * (size_t)np;
    reach_malloc(me == 0 ? board_bytes : 0, bases);
    board_t *board = bases[0];   /* an address in rank 0's memory */
    if (me == 0)
        memset(board, 0, board_bytes);
    reach_barrier();             /* everyone starts together */

    int64_t task, took = 0;
    const long one = 1;
    const int once = 1;
    for (;;) {
        reach_fetch_add_i64(&board->next, 1, &task, 0);
        if (task >= TASKS)
            break;
        long primes = count_primes((long)task * SPAN, (long)(task + 1) * SPAN);
        reach_acc(REACH_LONG, &one, &primes, &board->primes, sizeof primes, 0);  /* += primes */
        reach_acc(REACH_INT, &once, &once, &board->taken[task], sizeof once, 0); /* += 1 */
        took++;
    }
    reach_put(&took, &board->took[me], sizeof took, 0);
    reach_barrier();             /* every task is done and counted */

    int ok = 1;
    if (me == 0) {
        int64_t total = 0;
        int busy = 0;
        for (int r = 0; r < np; r++) {
            printf("rank %d took %lld tasks\n", r, (long long)board->took[r]);
            total += board->took[r];
            busy += board->took[r] > 0;
        }
        for (int t = 0; t < TASKS; t++)
            if (board->taken[t] != 1) {
                printf("task %d was taken %d times\n", t, board->taken[t]);
                ok = 0;
            }
        if (total != TASKS) {
            printf("%lld tasks were taken, not %d\n", (long long)total, TASKS);
            ok = 0;
        }
        if (ok)
            printf("%d tasks, each taken once, by %d of %d ranks: %ld primes below %d\n", TASKS,
                   busy, np, board->primes, TASKS * SPAN);
    }
    reach_free(bases[me]);
    free(bases);
    reach_finalize();
    return ok ? 0 : 1;
}
