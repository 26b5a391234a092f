/* ga_lock: read-modify-write of Global Arrays under GA's mutexes, as
 * applications write it, checked against counts every process computes.
 *
 *  - one shared counter (element 0, on the first process) under mutex 0:
 *    GA_Lock, NGA_Get, add 5, NGA_Put, GA_Unlock, many times by every
 *    process; it must end at 5 x rounds x processes;
 *  - a patch spanning every process's block under mutex 1: get it all,
 *    add one to each element, put it back (blocking or NGA_NbPut waited
 *    on); every element must end at rounds x processes;
 *  - NGA_Read_inc under GA_Lock: under mutex 0, a section reads and
 *    increments a counter array, reads the tag the section before put at
 *    the index below (it must be there), and puts its own tag at that
 *    index of a log array on other processes; the counter must end at the
 *    number of sections and the log hold every tag once.
 * No GA_Sync or GA_Fence is called between sections: the unlock alone must
 * make the holder's writes visible to the next holder.
 *   ga_lock [ROUNDS] */
#include <stdlib.h>

#include "ga_check.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    gc_init("ga_lock", &argc, &argv, 100000);
    int me = GA_Nodeid(), np = GA_Nnodes();
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    int per = 5, n = per * np, nlog = rounds * np;

    int ga = NGA_Create(C_INT, 1, &n, "ga_lock data", NULL);
    int ctr = NGA_Create(C_LONG, 1, &np, "ga_lock counter", NULL);
    int logs = NGA_Create(C_INT, 1, &nlog, "ga_lock log", NULL);
    if (!ga || !ctr || !logs)
        GA_Error("ga_lock: NGA_Create failed", 0);
    GA_Zero(ga);
    GA_Zero(ctr);
    GA_Fill(logs, &(int){-1});
    if (!GA_Create_mutexes(2))
        GA_Error("ga_lock: GA_Create_mutexes failed", 0);
    GA_Sync();

    int zero = 0, last = n - 1, one = 1;
    for (int i = 0; i < rounds; i++) {
        int v = 0;
        GA_Lock(0);
        NGA_Get(ga, &zero, &zero, &v, &one);
        v += 5;
        NGA_Put(ga, &zero, &zero, &v, &one);
        GA_Unlock(0);
    }

    int *patch = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < rounds; i++) {
        int lo = 1;
        GA_Lock(1);
        NGA_Get(ga, &lo, &last, patch, &n);
        for (int k = 0; k < n - 1; k++)
            patch[k]++;
        if (i % 2) {
            NGA_Put(ga, &lo, &last, patch, &n);
        } else {
            ga_nbhdl_t h;
            NGA_NbPut(ga, &lo, &last, patch, &n, &h);
            NGA_NbWait(&h);
        }
        GA_Unlock(1);
    }

    int unseen = 0; /* sections that did not find the previous one's tag */
    for (int i = 0; i < rounds; i++) {
        GA_Lock(0);
        int t = (int)NGA_Read_inc(ctr, &zero, 1);
        int tag = me * rounds + i, prev = -1, before = t - 1;
        if (t > 0 && t <= nlog) {
            NGA_Get(logs, &before, &before, &prev, &one);
            unseen += prev < 0;
        }
        if (t >= 0 && t < nlog)
            NGA_Put(logs, &t, &t, &tag, &one);
        GA_Unlock(0);
    }
    gc_begin("NGA_Read_inc under GA_Lock: each section sees the tag of the one before");
    gc_int(me, 0, unseen);
    GA_Sync();

    if (me == 0) {
        gc_begin("shared counter under GA_Lock (%d rounds, %d processes)", rounds, np);
        int v = 0;
        NGA_Get(ga, &zero, &zero, &v, &one);
        gc_int(0, 5LL * rounds * np, v);

        gc_begin("patch over every process under GA_Lock");
        int lo = 1;
        NGA_Get(ga, &lo, &last, patch, &n);
        for (int k = 0; k < n - 1; k++)
            gc_int(k + 1, (long long)rounds * np, patch[k]);

        gc_begin("NGA_Read_inc under GA_Lock: the counter");
        long c = 0;
        NGA_Get(ctr, &zero, &zero, &c, &one);
        gc_int(0, nlog, c);

        gc_begin("NGA_Read_inc under GA_Lock: every tag logged once");
        int *log = malloc(sizeof(int) * (size_t)nlog), hi = nlog - 1;
        NGA_Get(logs, &zero, &hi, log, &nlog);
        qsort(log, (size_t)nlog, sizeof(int), cmp_int);
        for (int k = 0; k < nlog; k++)
            gc_int(k, k, log[k]);
        free(log);
    }
    free(patch);
    GA_Sync();
    GA_Destroy_mutexes();
    GA_Destroy(logs);
    GA_Destroy(ctr);
    GA_Destroy(ga);
    return gc_finish();
}
