/* Errors and the end of the job: one-line messages naming the call, and
 * the fatal path. */
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
/* The job's launcher (rt_set_job): the world rank, and the job's end. */
static int (*rt_world_rank)(void);
static void (*rt_job_end)(int status);

void rt_set_caller_hook(const char *(*caller)(void))
{
    rt_caller_hook = caller;
}

void rt_set_job(int (*world_rank)(void), void (*end_job)(int status))
{
    rt_world_rank = world_rank;
    rt_job_end = end_job;
}

/* "reach: rank R: " with the rank only where it is known: reach's rank
 * from start-up to finalize, else the world rank while the launcher's job
 * runs, else none ("reach: "). */
static const char *rt_prefix(char *buf, size_t len)
{
    int rank;
    if (rt.peers != NULL)
        snprintf(buf, len, "reach: rank %d: ", rt.rank);
    else if (rt_world_rank && (rank = rt_world_rank()) >= 0)
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

/* Ends the job through the launcher (rt_set_job), which kills every
 * process as soon as it hears of the end, and may drop what it has not yet
 * forwarded of their output; a short pause after writing lets the message
 * through. */
_Noreturn void rt_end_job(int status)
{
    rt_ending = 1;
    fflush(stdout);
    fflush(stderr);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    /* The launcher ends the process; should it not (a peer is gone and MPI
     * waits for it), SIGALRM does. */
    alarm(10);
    if (rt_job_end)
        rt_job_end(status);
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
    rt_fatal("%s: out of private memory (malloc of %s failed)", call, rt_size_str(size, sizeof size, bytes));
}

_Noreturn void rt_abort(int code, const char *msg)
{
    char prefix[48];
    fprintf(stderr, "%sabort (code %d): %s\n", rt_prefix(prefix, sizeof prefix), code, msg ? msg : "");
    /* A failure must never look like success: code 0 still exits non-zero. */
    rt_end_job(code != 0 ? code : 1);
}
