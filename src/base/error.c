/* Errors and the end of the job: one-line messages naming the call,
 * agreement of a collective call's ranks, and the fatal path. */
#include "base/state.h"

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
_Thread_local int rt_on_server;

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

volatile int rt_ending;

/* Ends the job with MPI_Abort. The launcher kills every process as soon as
 * it hears of the abort, and may drop what it has not yet forwarded of their
 * output; a short pause after writing lets the message through. */
_Noreturn void rt_end_job(int status)
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
    if (rt_on_server) {
        /* The server thread never calls MPI (the program may have asked
         * for MPI_THREAD_SINGLE): it says why and ends the process, which
         * the launcher sees as a failed rank and ends the job. */
        fprintf(stderr, "reach: rank %d: server thread: fatal: %s\n", rt.rank, msg);
        rt_ending = 1;
        _exit(1);
    }
    fprintf(stderr, "%sfatal: %s\n", rt_prefix(prefix, sizeof prefix), msg);
    rt_end_job(1);
}

_Noreturn void rt_oom(const char *call, size_t bytes)
{
    char size[32];
    rt_fatal("%s: out of private memory (malloc of %s failed)", call,
             rt_size_str(size, sizeof size, bytes));
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
    rt_end_job(code != 0 ? code : 1);
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
