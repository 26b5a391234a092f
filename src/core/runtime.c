#include "core/runtime.h"
#include "boot/boot.h"
#include "core/group.h"
#include "core/mem.h"
#include "core/wait.h"
#include "reach_mpi.h"
#include "sync/sync.h"
#include "sync/counter.h"
#include "transport/shm/shm.h"
#include "transport/transport.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

runtime_t rt;
uint64_t rt_order_word;
int rt_order_threads;

/* Asked for the function of the layer above reach that the calling thread
 * is in (reach_set_caller_hook); messages name it instead of reach's call. */
static const char *(*rt_caller_hook)(void);

/* "reach: rank R: " with the rank only where it is known: reach's rank
 * from start-up to finalize, else MPI_COMM_WORLD's while MPI runs, else
 * none ("reach: "). */
static const char *rt_prefix(char *buf, size_t len)
{
    int inited = 0, fin = 0, rank;
    if (rt.peers != NULL) {
        snprintf(buf, len, "reach: rank %d: ", rt.rank);
        return buf;
    }
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    if (inited && !fin && MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS)
        snprintf(buf, len, "reach: world rank %d: ", rank);
    else
        snprintf(buf, len, "reach: ");
    return buf;
}

int rt_error(int status, const char *call, const char *fmt, ...)
{
    if (rt.cfg.quiet)
        return status;
    int saved = errno;
    char msg[512], prefix[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *layer = rt_caller_hook ? rt_caller_hook() : NULL;
    fprintf(stderr, "%s%s: %s\n", rt_prefix(prefix, sizeof prefix), layer ? layer : call, msg);
    errno = saved;
    return status;
}

int rt_all_agree(MPI_Comm comm, int ok)
{
    int all = 0;
    ok = ok != 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

int rt_all_same(MPI_Comm comm, int value, int *lo, int *hi)
{
    int mine[2] = {value, -value}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, comm);
    *lo = -all[1];
    *hi = all[0];
    return *lo == *hi;
}

const char *rt_size_str(char *buf, size_t len, size_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%zu B", bytes);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
    return buf;
}

/* Set once the job is being ended on purpose, so that the exit handler
 * does not end it a second time. */
static volatile int rt_ending;

/* Ends the job with MPI_Abort. The launcher kills every process as soon as
 * it hears of the abort, and may drop what it has not yet forwarded of their
 * output; a short pause after writing lets the message through. */
_Noreturn static void rt_abort_job(int status)
{
    rt_ending = 1;
    fflush(stdout);
    fflush(stderr);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    /* The launcher ends the process; should it not (a peer is gone and MPI
     * waits for it), SIGALRM does. */
    alarm(10);
    if (inited && !fin)
        MPI_Abort(MPI_COMM_WORLD, status);
    /* Not exit(): this may run inside an exit handler. */
    _exit(status);
}

_Noreturn void rt_fatal(const char *fmt, ...)
{
    char msg[512], prefix[48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%sfatal: %s\n", rt_prefix(prefix, sizeof prefix), msg);
    rt_abort_job(1);
}

int reach_report(int status, const char *call, const char *msg)
{
    return rt_error(status, call ? call : "?", "%s", msg ? msg : "");
}

void reach_set_caller_hook(const char *(*caller)(void))
{
    rt_caller_hook = caller;
}

void reach_abort(int code, const char *msg)
{
    char prefix[48];
    fprintf(stderr, "%sabort (code %d): %s\n", rt_prefix(prefix, sizeof prefix), code,
            msg ? msg : "");
    /* A failure must never look like success: code 0 still exits non-zero. */
    rt_abort_job(code != 0 ? code : 1);
}

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
        rt_abort_job(1);
}

/* Start-up on comm (MPI_COMM_NULL: the world, initializing MPI if needed). */
static int rt_init(int *argc, char ***argv, MPI_Comm comm)
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
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, rt.comm);
    if (rt.rank == 0 || (bad_env && !any[1]))
        reach_config_check();
    if (any[0]) {
        boot_finalize();
        return REACH_ERR_ARG;
    }
    st = shm_init();
    if (st != REACH_SUCCESS) {
        boot_finalize();
        return st;
    }
    memset(&rt.stats, 0, sizeof rt.stats);
    rt.alloc_seq = 0;
    if (rt.node_count > 1 && (st = ucx_init()) != REACH_SUCCESS) {
        shm_finalize();
        boot_finalize();
        return st;
    }
    rt.initialized = 1;
    if (rt_init_pid == 0 && on_exit(rt_exit_check, NULL) != 0)
        rt_error(REACH_ERR_SYSTEM, "reach_init", "cannot register the exit check: %s",
                 strerror(errno));
    rt_init_pid = getpid();
    group_init_world();
    st = notify_init();
    if (st == REACH_SUCCESS)
        st = barrier_init();
    if (st != REACH_SUCCESS) {
        reach_finalize();
        return st;
    }
    wait_start_checks();
    return REACH_SUCCESS;
}

int reach_init(int *argc, char ***argv)
{
    return rt_init(argc, argv, MPI_COMM_NULL);
}

int reach_init_comm(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return rt_error(REACH_ERR_ARG, "reach_init_comm", "the communicator is MPI_COMM_NULL");
    return rt_init(NULL, NULL, comm);
}

int reach_initialized(void)
{
    return rt.initialized;
}

int reach_finalize(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_finalize", "reach is not initialized");
    /* Nobody unmaps while a peer may still be working on its memory. */
    sync_barrier();
    wait_stop_checks();
    if (rt.cfg.stats)
        stats_print(stderr);
    ucx_finalize();
    notify_finalize();
    barrier_finalize();
    mem_release_all();
    sync_finalize();
    counter_finalize();
    window_finalize();
    group_finalize_world();
    for (int r = 0; r < rt.size; r++)
        seg_table_clear(&rt.peers[r].segs);
    shm_finalize();
    rt.initialized = 0;
    boot_finalize();
    return REACH_SUCCESS;
}

int reach_rank(void)
{
    return rt.initialized ? rt.rank : -1;
}

int reach_size(void)
{
    return rt.initialized ? rt.size : -1;
}

int reach_same_node(int rank)
{
    if (!rt.initialized || rank < 0 || rank >= rt.size)
        return 0;
    return rt.peers[rank].node == rt.node;
}

int reach_node_of(int rank)
{
    if (rt_check_rank("reach_node_of", rank) != REACH_SUCCESS)
        return -1;
    return rt.peers[rank].node;
}

int reach_node_count(void)
{
    return rt.initialized ? rt.node_count : -1;
}

int reach_node_size(int node)
{
    if (!rt.initialized || node < 0 || node >= rt.node_count)
        return rt_error(rt.initialized ? REACH_ERR_ARG : REACH_ERR_NOT_INIT, "reach_node_size",
                        "node %d does not exist", node);
    return rt.node_first[node + 1] - rt.node_first[node];
}

int reach_node_rank(int node, int i)
{
    int n = reach_node_size(node);
    if (n < 0)
        return n;
    if (i < 0 || i >= n)
        return rt_error(REACH_ERR_RANK, "reach_node_rank", "node %d has %d ranks, not %d", node, n, i + 1);
    return rt.node_members[rt.node_first[node] + i];
}

const char *reach_strerror(int status)
{
    switch (status) {
    case REACH_SUCCESS: return "success";
    case REACH_ERR_NOT_INIT: return "reach is not initialized";
    case REACH_ERR_ARG: return "invalid argument";
    case REACH_ERR_RANK: return "rank out of range";
    case REACH_ERR_RANGE: return "remote range outside every segment of the rank";
    case REACH_ERR_ALIGN: return "misaligned address";
    case REACH_ERR_NOMEM: return "out of shared memory";
    case REACH_ERR_HANDLE: return "invalid request or mutex handle";
    case REACH_ERR_MUTEX: return "invalid mutex use";
    case REACH_ERR_TYPE: return "unknown type or operation";
    case REACH_ERR_UNSUPPORTED: return "not supported in this configuration";
    case REACH_ERR_SYSTEM: return "system call failed";
    case REACH_ERR_EPOCH: return "no window epoch open, or one already open";
    default: return "unknown status";
    }
}
