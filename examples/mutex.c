/* A linked list appended to under a mutex: each rank adds its entries to a
 * shared array on rank 0 whose length is guarded by mutex 0 of rank 0.
 * Run: mpiexec -n 4 ./mutex */
#include <reach.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    reach_init(&argc, &argv);
    int me = reach_rank(), np = reach_size();
    enum { PER_RANK = 10 };
    void **bases = malloc(sizeof(void *) * (size_t)np);
    reach_malloc(me == 0 ? (1 + (size_t)np * PER_RANK) * sizeof(int) : 0, bases);
    int *len = bases[0], *items = (int *)bases[0] + 1;
    if (me == 0)
        *len = 0;
    reach_mutexes_t *m;
    reach_mutexes_create(me == 0 ? 1 : 0, &m);   /* rank 0 hosts one mutex */

    for (int i = 0; i < PER_RANK; i++) {
        reach_mutex_lock(m, 0, 0);
        int n;
        reach_get(len, &n, sizeof n, 0);
        int item = me * 100 + i;
        reach_put(&item, &items[n], sizeof item, 0);
        n++;
        reach_put(&n, len, sizeof n, 0);
        reach_fence(0);                          /* complete before the next holder reads */
        reach_mutex_unlock(m, 0, 0);
    }
    reach_barrier();
    if (me == 0)
        printf("list has %d items (expected %d)\n", *len, np * PER_RANK);
    int ok = me != 0 || *len == np * PER_RANK;
    reach_mutexes_destroy(m);
    reach_free(bases[me]);
    free(bases);
    reach_finalize();
    return ok ? 0 : 1;
}
