/* Buntinas03's evaluation (docs/references.md): the GA_Sync test
 * (Figure 7) and the lock test (Figures 8-10). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

/* Buntinas03, Figure 7 (the GA_Sync test): every rank writes GA_BYTES into
 * the block of a distributed array owned by every other rank, all meet in
 * a barrier (untimed, so that skew is not timed: ga_sync_meet), then the
 * sync alone is timed: reach_barrier under each algorithm; Global Arrays' GA_Sync as
 * reach's ARMCI runs it (reach_fence_all, then reach_sync_group: the
 * default algorithm's barrier without its fence); against MPI-3's
 * MPI_Win_flush_all + MPI_Barrier doing the same work. A sample is the
 * time per sync averaged over GA_ITERS syncs and over the ranks (as in the
 * paper); messages are those one process sent in one more sync, between
 * MPI_Barriers, averaged over the ranks, without the acks that bound the
 * puts in flight. */
#define GA_BYTES 4096
#define GA_ITERS 20

static double ga_messages(void)
{
    reach_stats_t st;
    if (reach_stats_get(&st) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_stats_get failed");
    return (double)(st.messages - st.flow_acks);
}

/* Every rank writes GA_BYTES into its block of every other rank. */
static void ga_sync_writes(int reach, void **bases, MPI_Win win)
{
    int bad = 0;
    for (int k = 1; k < B.np; k++) {
        int to = (B.me + k) % B.np;
        if (reach)
            bad |= reach_put(B.src, (char *)bases[to] + (size_t)B.me * GA_BYTES, GA_BYTES, to) != 0;
        else
            bad |= MPI_Put(B.src, GA_BYTES, MPI_BYTE, to, (MPI_Aint)B.me * GA_BYTES, GA_BYTES, MPI_BYTE, win) != 0;
    }
    if (bad)
        reach_abort(1, "reach-bench: a put failed");
}

/* The untimed meeting before a timed sync, so that skew is not timed:
 * MPI_Barrier, as in the paper, where every process has a core. With more
 * processes than cores, reach's barrier without its fence for reach (its
 * waits sleep): MPI_Barrier busy-polls there and leaves the ranks a
 * scheduler slice out of step (1.8 ms a sync at 4 processes on 2 cores
 * of one node, 92-95 us after reach's). */
static void ga_sync_meet(int reach)
{
    if (reach && B.np > B.cores ? reach_sync_group(NULL, REACH_SCOPE_ALL) != 0 : MPI_Barrier(MPI_COMM_WORLD) != 0)
        reach_abort(1, "reach-bench: the meeting before a sync failed");
}

void bench_ga_sync(void)
{
    static const char *const kinds[] = {"fence+dissemination", "combined", "tree", "counter", "fence_all+sync_group"};
    enum { NKINDS = 5, PAIR = 4 };
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    if (!bases || reach_malloc((size_t)B.np * GA_BYTES, bases) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: set-up of the GA_Sync test failed");
    int mpi = B.np <= B.cores;
    MPI_Win win = MPI_WIN_NULL;
    void *wbase = NULL;
    MPI_Win_allocate((MPI_Aint)(((size_t)B.np * GA_BYTES + 15) & ~(size_t)15), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase,
                     &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win); /* no grants to wait for: see main.c */
    if (B.me == 0)
        printf("\nGA_Sync: every rank writes %d bytes into every other rank, then the sync "
               "(Buntinas03, Fig. 7; us per sync, median of %d; %d processes%s)\n%-22s %10s %10s %12s\n",
               GA_BYTES, B.samples, B.np, B.np > B.cores ? ", more than cores" : "", "sync", "us", "x combined",
               "msgs/process");
    double med[NKINDS + 1], msgs[NKINDS + 1], us[MAX_SAMPLES];
    for (int v = 0; v <= NKINDS; v++) {
        if (v < NKINDS && reach_set_barrier(v == PAIR ? "combined" : kinds[v]) != REACH_SUCCESS)
            reach_abort(1, "reach-bench: reach_set_barrier failed");
        if (v == NKINDS && !mpi)
            break;
        double m = 0;
        for (int s = 0; s < B.samples; s++) {
            double t = 0, m0 = 0;
            /* GA_ITERS timed syncs, then one whose messages are counted */
            for (int i = 0; i <= GA_ITERS; i++) {
                int counted = i == GA_ITERS;
                if (counted)
                    MPI_Barrier(MPI_COMM_WORLD); /* the timed syncs' answers are in */
                ga_sync_writes(v < NKINDS, bases, win);
                if (counted) {
                    m0 -= ga_messages();
                    MPI_Barrier(MPI_COMM_WORLD);
                } else {
                    ga_sync_meet(v < NKINDS);
                }
                double t0 = now();
                int bad;
                if (v == PAIR)
                    bad = reach_fence_all() != 0 || reach_sync_group(NULL, REACH_SCOPE_ALL) != 0;
                else if (v < NKINDS)
                    bad = reach_barrier() != 0;
                else
                    bad = MPI_Win_flush_all(win) != 0 || MPI_Barrier(MPI_COMM_WORLD) != 0;
                if (!counted)
                    t += now() - t0;
                if (bad)
                    reach_abort(1, "reach-bench: the sync failed");
                if (counted) {
                    MPI_Barrier(MPI_COMM_WORLD); /* every server's answers are counted */
                    m0 += ga_messages();
                }
            }
            double mine[2] = {1e6 * t / GA_ITERS, m0}, sum[2];
            MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            us[s] = sum[0] / B.np;
            m += sum[1] / B.np / B.samples;
        }
        med[v] = median(us, B.samples);
        msgs[v] = m;
        char impl[48] = "mpi3";
        if (v < NKINDS)
            snprintf(impl, sizeof impl, "reach %s", kinds[v]);
        if (B.me == 0)
            json_result("sync", impl, GA_BYTES, med[v], us);
    }
    if (B.me == 0) {
        for (int v = 0; v < NKINDS; v++)
            printf("%-22s %10.2f %10.2f %12.1f\n", kinds[v], med[v], med[v] / med[1], msgs[v]);
        if (mpi)
            printf("%-22s %10.2f %10.2f %12s\n", "MPI-3 flush_all+Barrier", med[NKINDS], med[NKINDS] / med[1], "-");
        else
            printf("%-22s %10s %10s %12s   (%d processes > %d cores: not measured)\n", "MPI-3 flush_all+Barrier", "-",
                   "-", "-", B.np, B.cores);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    reach_free(bases[B.me]);
    free(bases);
    if (reach_set_barrier(getenv("REACH_BARRIER") ? getenv("REACH_BARRIER") : "combined") != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_set_barrier failed");
}

/* Buntinas03, Figures 8-10: P processes repeatedly request and release one
 * lock hosted by rank 0, each for LOCK_SECONDS; the time to request and
 * acquire, the time to release, and both, per lock+unlock averaged over the
 * processes (a sample), for every lock algorithm (Zhang04's ticket lock
 * beside Buntinas03's two), with MPI-3's exclusive window lock as the
 * baseline where the job fits the cores. With P = 1 the paper averages
 * the lock on the process itself and on another; so does this (rank 0,
 * then rank 1). Messages: all that the job sent (requests, answers,
 * pushes) per lock+unlock made from another node than the lock's.
 * Processes not taking part wait in a reach barrier, which sleeps. */
#define LOCK_SECONDS 0.02

/* Locks and unlocks until the time is up: adds the time spent acquiring
 * and releasing, returns the iterations. m NULL: MPI-3's window lock. */
static long lock_loop(reach_mutexes_t *m, MPI_Win win, double *t_acq, double *t_rel)
{
    long n = 0;
    for (double end = now() + LOCK_SECONDS, t0 = now(); t0 < end; n++) {
        int bad = m ? reach_mutex_lock(m, 0, 0) != 0 : MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) != 0;
        double t1 = now();
        bad |= m ? reach_mutex_unlock(m, 0, 0) != 0 : MPI_Win_unlock(0, win) != 0;
        double t2 = now();
        *t_acq += t1 - t0;
        *t_rel += t2 - t1;
        t0 = t2;
        if (bad)
            reach_abort(1, "reach-bench: lock or unlock failed");
    }
    return n;
}

static void lock_sync(reach_mutexes_t *m)
{
    if (m)
        reach_barrier(); /* sleeps, so the processes taking part have the cores */
    else
        MPI_Barrier(MPI_COMM_WORLD);
}

/* One sample: mean microseconds to acquire and to release, the mean
 * lock+unlock of the slowest process (a lock that favours its own node's
 * processes starves the others: the mean alone hides it), and messages
 * per lock+unlock. */
static void lock_sample(reach_mutexes_t *m, MPI_Win win, int p, double *acq, double *rel, double *slowest, double *msgs)
{
    double mine[4] = {0, 0, 0, -ga_messages()}, sum[4], both = 0;
    long n = 0;
    for (int phase = 0; phase < (p == 1 ? 2 : 1); phase++) {
        lock_sync(m);
        if (p == 1 ? B.me == phase : B.me < p) {
            double a = 0, r = 0;
            long k = lock_loop(m, win, &a, &r);
            mine[0] += a / (double)k;
            mine[1] += r / (double)k;
            both = (a + r) / (double)k;
            n += k;
        }
    }
    lock_sync(m);
    mine[2] = reach_same_node(0) ? 0 : (double)n; /* locks from other nodes */
    mine[3] += ga_messages();
    MPI_Allreduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &both, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int parts = p == 1 ? 2 : p;
    *acq = 1e6 * sum[0] / parts;
    *rel = 1e6 * sum[1] / parts;
    *slowest = 1e6 * both;
    *msgs = sum[2] > 0 ? sum[3] / sum[2] : 0;
}

void bench_locks(void)
{
    static const char *const names[] = {"hybrid", "ticket", "mcs", "MPI-3"};
    enum { NALGOS = 3, MCS = 2 };
    MPI_Win win;
    void *wbase;
    MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
    if (B.me == 0)
        printf("\nlocks: P processes request and release one lock on rank 0 (Buntinas03, Figs. 8-10; "
               "us, median of %d; slowest: the mean lock+unlock of the slowest process)\n"
               "%-3s %-7s %10s %10s %10s %8s %10s %10s\n",
               B.samples, "P", "lock", "acquire", "release", "both", "x mcs", "slowest", "msgs/lock");
    for (int p = 1; p <= B.np; p = p < B.np && 2 * p > B.np ? B.np : 2 * p) {
        double med[NALGOS + 1][4], msgs[NALGOS + 1];
        /* MPI's passive target needs every process polling inside MPI. */
        int variants = B.np <= B.cores ? NALGOS + 1 : NALGOS;
        for (int a = 0; a < variants; a++) {
            reach_mutexes_t *m = NULL;
            if (a < NALGOS &&
                (reach_set_lock(names[a]) != REACH_SUCCESS || reach_mutexes_create(B.me == 0, &m) != REACH_SUCCESS))
                reach_abort(1, "reach-bench: set-up of the lock test failed");
            double us[4][MAX_SAMPLES], mm;
            msgs[a] = 0;
            for (int s = 0; s < B.samples; s++) {
                lock_sample(m, win, p, &us[0][s], &us[1][s], &us[3][s], &mm);
                us[2][s] = us[0][s] + us[1][s];
                msgs[a] += mm / B.samples;
            }
            if (m && reach_mutexes_destroy(m) != REACH_SUCCESS)
                reach_abort(1, "reach-bench: reach_mutexes_destroy failed");
            static const char *const parts[] = {"lock acquire", "lock release", "lock+unlock",
                                                "lock+unlock, slowest process"};
            for (int k = 0; k < 4; k++) {
                med[a][k] = median(us[k], B.samples);
                char impl[48];
                snprintf(impl, sizeof impl, "reach %s", names[a]);
                if (B.me == 0)
                    json_result(parts[k], a < NALGOS ? impl : "mpi3", (size_t)p, med[a][k], us[k]);
            }
        }
        for (int a = 0; a < variants && B.me == 0; a++) {
            printf("%-3d %-7s %10.2f %10.2f %10.2f %8.2f %10.2f", p, names[a], med[a][0], med[a][1], med[a][2],
                   med[a][2] / med[MCS][2], med[a][3]);
            if (a < NALGOS)
                printf(" %10.1f\n", msgs[a]);
            else
                printf(" %10s\n", "-");
        }
    }
    MPI_Win_free(&win);
    if (reach_set_lock(getenv("REACH_LOCK") ? getenv("REACH_LOCK") : "mcs") != REACH_SUCCESS)
        reach_abort(1, "reach-bench: reach_set_lock failed");
}
