/* reach-bench's harness: the state every experiment shares, the timed
 * batches of single operations, the MPI-3 baseline's phases and the JSON
 * file each experiment writes. The experiments, one file per paper, and
 * main.c use it. */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include "reach.h"
#include "stats.h"

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

enum op {
    REACH_PUT,
    REACH_GET,
    REACH_ACC,
    MPI_PUT,
    MPI_GET,
    MPI_ACC,
    LOCAL_COPY,
    LOCAL_ACC,
    REACH_FADD,
    MPI_FADD,
    REACH_LOCK,
    MPI_LOCK,
    REACH_BARRIER,
    MPI_BARRIER,
    REACH_PUTS,
    REACH_GETS,
    REACH_ACCS
};

struct bench {
    int me, np, cores, samples;
    int machines; /* count_machines() */
    size_t max_size;
    char *seg_target; /* rank 1's segment (its address) */
    char *src, *dst;  /* local buffers */
    double *acc_src, *acc_dst;
    reach_mutexes_t *mutexes;
    MPI_Comm pair; /* ranks 0 and 1 */
    MPI_Win win;
    reach_strided_t shape; /* of the strided table: runs spread at twice their length */
    FILE *json;
    int json_first;
};
extern struct bench B;

/* An experiment: the function that runs it and what its JSON file says
 * of it (see the table in main.c). */
struct experiment {
    const char *name;
    void (*run)(void);
    const char *title, *figure, *x, *plot;
};

/* Times n (at most 8) operations on the same size, their samples interleaved so that a
 * burst of noise from the machine falls on all of them alike. us[k][s] is
 * sample s of ops[k] in microseconds per operation; med[k] its median. */
void measure(int n, const enum op *ops, size_t size, double us[][MAX_SAMPLES], double *med);

/* One figure's samples (n of them, in unit), their median and spread
 * (smallest, 25th and 75th percentile, largest): a point x of the series
 * `op` of implementation impl, in the open experiment's file. bytes, if
 * not 0, is what one operation moved where x does not say it. */
void json_values(const char *op, const char *impl, size_t x, size_t bytes, const char *unit, double median,
                 const double *v, int n);
/* The same, of B.samples samples in microseconds and nothing more moved. */
void json_result(const char *op, const char *impl, size_t size, double median, const double *us);

/* Ends a phase of measurements taken on rank 0. Meanwhile the target
 * waited the way the measured operations need: inside MPI (polling, as
 * MPI's passive target needs) or in reach (sleeping, so that its server
 * thread has a core). */
void phase_end(int mpi_target);

/* Starts a phase of MPI measurements: origin and target meet inside MPI
 * first, so that the target is polling MPI when the first operation
 * arrives. */
void mpi_phase_begin(void);

/* Ends the MPI-3 pair's lock_all epoch (set up for the transfer tables
 * and the fetch-and-add), once; both sides must be inside MPI. */
void mpi_end_lock_all(void);

/* On rank 0: the run's description (machine, MPI, samples, the REACH_ and
 * UCX_ environment), written into every experiment's file. */
void describe_run(void);
/* Where rank 1 is from rank 0: "same node", "other node" or "other
 * machine". */
const char *target_place(void);

/* A progress line, on stdout with the tables (see harness.c). */
void progress(const char *fmt, ...);

/* Opens (on rank 0) the experiment's file <out>/<name>-np<processes>.json
 * and writes its head; experiment_end writes its tail and closes it. */
void experiment_begin(const struct experiment *x, const char *out);
void experiment_end(void);

/* The experiments, one file per paper (the papers' short names are
 * docs/references.md's). */
/* exp_000_sync.c: Buntinas03's GA_Sync test and lock test. */
void bench_ga_sync(void);
void bench_locks(void);
/* exp_001_amo.c: fetch-and-add, lock+unlock and barrier against MPI-3. */
void bench_sync(void);
/* exp_002_window.c: Santhanaraman08's window epochs, overlap and LU. */
void bench_win_latency(void);
void bench_win_overlap(void);
void bench_win_receiver(void);
void bench_lu(void);
/* exp_003_rma.c: contiguous and strided put, get and accumulate, and the
 * overlap of non-blocking put and get. */
/* Starts and stops reach itself (before reach-bench's own start-up). */
void bench_networks(const struct experiment *x, const char *out);
/* The network library of backend net ("ucx", "ofi") alone over TCP, 8 B
 * round trips (bench/net_floor.c), in FLOOR_WAYS ways, polled: without a
 * wait object, with a descriptor to wait on, and that with a thread of
 * its own answering. Collective; on rank 0 each way's median in
 * microseconds and its B.samples samples, 0 where it cannot be measured
 * (or this build lacks the library). */
enum { FLOOR_WAYS = 3 };
void net_floor(const char *net, double us[FLOOR_WAYS][MAX_SAMPLES], double med[FLOOR_WAYS]);
void bench_transfers(void);
void bench_strided(void);
void bench_nb_overlap(void);

#endif
