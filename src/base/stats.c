#include "base/state.h"

#include <string.h>

static const char *const kind_names[REACH_OP_KINDS] = {"put",   "get",     "acc",  "atomic",
                                                       "fence", "barrier", "lock", "unlock"};
static const char *const path_names[REACH_PATHS] = {"self", "shm", "net"};

const char *stats_kind_name(int kind)
{
    return (unsigned)kind < REACH_OP_KINDS ? kind_names[kind] : "?";
}

const char *stats_path_name(int path)
{
    return (unsigned)path < REACH_PATHS ? path_names[path] : "?";
}

/* The server thread adds to some counters (rt_stat_inc) while the
 * application reads or clears them: each counter is read and written
 * atomically. */
_Static_assert(sizeof(reach_stats_t) % sizeof(uint64_t) == 0, "reach_stats_t holds only uint64_t");
#define STATS_WORDS (sizeof(reach_stats_t) / sizeof(uint64_t))

void stats_copy(reach_stats_t *out)
{
    uint64_t *from = (uint64_t *)(void *)&rt.stats, *to = (uint64_t *)(void *)out;
    for (size_t i = 0; i < STATS_WORDS; i++)
        to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
}

void stats_clear(void)
{
    uint64_t *c = (uint64_t *)(void *)&rt.stats;
    for (size_t i = 0; i < STATS_WORDS; i++)
        __atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
}

/* One line per rank, written at once, so that the lines of ranks that
 * finalize together do not interleave. */
void stats_print(FILE *out)
{
    reach_stats_t st;
    stats_copy(&st);
    char line[2048];
    size_t n = (size_t)snprintf(line, sizeof line, "reach stats rank %d:", rt.rank);
    for (int k = 0; k < REACH_OP_KINDS; k++)
        for (int p = 0; p < REACH_PATHS; p++)
            if (st.ops[k][p] && n < sizeof line)
                n += (size_t)snprintf(line + n, sizeof line - n, " %s.%s=%llu/%lluB", kind_names[k], path_names[p],
                                      (unsigned long long)st.ops[k][p], (unsigned long long)st.bytes[k][p]);
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n,
                 " blocking_waits=%llu lock_contended=%llu allocations=%llu messages=%llu"
                 " flow_acks=%llu remote_atomics=%llu server_wakeups=%llu wait_timeouts=%llu wait_missed=%llu\n",
                 (unsigned long long)st.blocking_waits, (unsigned long long)st.lock_contended,
                 (unsigned long long)st.allocations, (unsigned long long)st.messages, (unsigned long long)st.flow_acks,
                 (unsigned long long)st.remote_atomics, (unsigned long long)st.server_wakeups,
                 (unsigned long long)st.wait_timeouts, (unsigned long long)st.wait_missed);
    fputs(line, out);
}
