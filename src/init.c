/* reach_init and reach_finalize: the only file that calls into every
 * layer. Start-up goes bottom up (boot, the node's arenas, the network,
 * then the structures of the layers above), shut-down top down. */
#include "base/serial.h"
#include "base/state.h"
#include "base/trace.h"
#include "base/wait.h"
#include "boot/boot_mpi.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/rma.h"
#include "sync/calls.h"
#include "sync/counter.h"
#include "sync/mutex_mcs.h"
#include "sync/sync.h"
#include "sync/window.h"
#include "transport/am/am.h"
#include "transport/shm/shm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A process that exits while reach is initialized leaves its peers waiting
 * for it. It says so, naming itself. With a non-zero status the launcher
 * ends the job (so does MPI_Abort, which exits so, and must not be aborted
 * again); with status 0 some launchers (MPICH's Hydra among them) would end
 * it with status 0 and no word, so the process ends the job itself, with
 * status 1. Forked children (another pid) are left alone. on_exit (glibc)
 * gives the status. */
static pid_t rt_init_pid;

static void rt_exit_check(int status, void *arg)
{
    (void)arg;
    if (!rt.initialized || rt_ending || getpid() != rt_init_pid)
        return;
    fprintf(stderr,
            "reach: rank %d (pid %d) ended without reach_finalize (exit status %d while reach is "
            "initialized)%s\n",
            rt.rank, (int)getpid(), status, status == 0 ? "; ending the job" : "");
    if (status == 0)
        rt_end_job(1);
}

static int handlers_registered;

/* Start-up on comm (NULL: the world, initializing MPI if needed). */
static int rt_init(int *argc, char ***argv, boot_comm_t *comm)
{
    if (rt.initialized)
        return REACH_SUCCESS;
    int bad_env = config_load(&rt.cfg) != REACH_SUCCESS;
    int st = boot_init(argc, argv, comm);
    if (st != REACH_SUCCESS)
        return st;
    /* What is wrong with the environment is said once per job: by rank 0,
     * and by a rank whose own environment is invalid where rank 0's is not.
     * If it is invalid anywhere, start-up fails everywhere. */
    int mine[2] = {bad_env, rt.rank == 0 && bad_env}, any[2];
    boot_allreduce(rt.comm, BOOT_INT_MAX, mine, any, 2);
    if (rt.rank == 0 || (bad_env && !any[1]))
        config_check();
    if (any[0]) {
        boot_finalize();
        return REACH_ERR_ARG;
    }
    int shm_st = shm_init();
    memset(&rt.stats, 0, sizeof rt.stats);
    rt.alloc_seq = 0;
    /* Target handlers of the layers above, before any request can come. */
    if (!handlers_registered) {
        counter_register();
        mcs_register();
        window_register();
        coll_register();
        group_on_coll(coll_allreduce, coll_sync_group); /* collective allocation's */
        handlers_registered = 1;
    }
    wait_forget_lost();
    /* Traced messages carry a tag that only a traced rank takes off. One
     * reduction agrees on the arenas and the trace: every node's arenas or
     * none (a node that failed must not leave the others waiting in the
     * network's start-up), and a trace on every rank or none. */
    st = shm_st == REACH_SUCCESS ? trace_start(shm_arena_size()) : REACH_SUCCESS;
    int traced = rt.cfg.trace[0] != '\0';
    int state[4] = {shm_st != REACH_SUCCESS, st != REACH_SUCCESS, traced, !traced}, worst[4];
    boot_allreduce(rt.comm, BOOT_INT_MAX, state, worst, 4);
    int alike = !(worst[2] && worst[3]);
    if (worst[0] == 0 && !alike && rt.rank == 0)
        rt_error(REACH_ERR_ARG, "reach_init", "REACH_TRACE is set on some ranks and not on others");
    if (worst[0] || worst[1] || !alike) {
        trace_abandon();
        if (shm_st == REACH_SUCCESS)
            shm_finalize();
        boot_finalize();
        if (shm_st != REACH_SUCCESS)
            return shm_st;
        if (worst[0])
            return REACH_ERR_SYSTEM;
        return st != REACH_SUCCESS ? st : REACH_ERR_ARG;
    }
    if ((st = am_init()) != REACH_SUCCESS) {
        trace_abandon();
        shm_finalize();
        boot_finalize();
        return st;
    }
    for (int r = 0; r < rt.size; r++)
        trace_map(r, rma_here(r, rt.peers[r].rbase));
    rt.initialized = 1;
    if (rt_init_pid == 0 && on_exit(rt_exit_check, NULL) != 0)
        rt_error(REACH_ERR_SYSTEM, "reach_init", "cannot register the exit check: %s", strerror(errno));
    rt_init_pid = getpid();
    st = group_init_world();
    if (st == REACH_SUCCESS)
        st = notify_init();
    if (st == REACH_SUCCESS)
        st = barrier_init();
    if (st != REACH_SUCCESS) {
        reach_finalize();
        return st;
    }
    wait_start_checks();
    wait_forget_core();
    serial_start(rt.threads_multiple);
    return REACH_SUCCESS;
}

int reach_init(int *argc, char ***argv)
{
    return rt_init(argc, argv, NULL);
}

int reach_init_comm(MPI_Comm comm)
{
    boot_comm_t *c = boot_comm_wrap(comm);
    if (c == NULL)
        return rt_error(REACH_ERR_ARG, "reach_init_comm", "the communicator is MPI_COMM_NULL");
    int st = rt_init(NULL, NULL, c);
    boot_comm_free(c);
    return st;
}

int reach_initialized(void)
{
    return rt.initialized;
}

int reach_finalize(void)
{
    SERIAL_CALL(SERIAL_SYNC);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_finalize", "reach is not initialized");
    /* Nobody unmaps while a peer may still be working on its memory. */
    coll_finalize();
    sync_barrier();
    wait_stop_checks();
    if (rt.cfg.stats)
        stats_print(stderr);
    am_finalize();
    trace_stop();
    notify_finalize();
    barrier_finalize();
    mem_release_all();
    mutex_finalize();
    counter_finalize();
    window_finalize();
    group_finalize_world();
    for (int r = 0; r < rt.size; r++)
        seg_table_clear(&rt.peers[r].segs);
    shm_finalize();
    rt.initialized = 0;
    serial_start(0);
    boot_finalize();
    return REACH_SUCCESS;
}
