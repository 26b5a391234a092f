#include "base/state.h"

#include <string.h>

static const char *const kind_names[REACH_OP_KINDS] = {
    "put", "get", "acc", "atomic", "fence", "barrier", "lock", "unlock"};
static const char *const path_names[REACH_PATHS] = {"self", "shm", "net"};

const char *reach_op_kind_name(reach_op_kind_t kind)
{
    return (unsigned)kind < REACH_OP_KINDS ? kind_names[kind] : "?";
}

const char *reach_path_name(reach_path_t path)
{
    return (unsigned)path < REACH_PATHS ? path_names[path] : "?";
}

/* The server thread adds to some counters (rt_stat_inc) while the
 * application reads or clears them: each counter is read and written
 * atomically. */
_Static_assert(sizeof(reach_stats_t) % sizeof(uint64_t) == 0, "reach_stats_t holds only uint64_t");
#define STATS_WORDS (sizeof(reach_stats_t) / sizeof(uint64_t))

int reach_stats_get(reach_stats_t *out)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_stats_get", "reach is not initialized");
    if (out == NULL)
        return rt_error(REACH_ERR_ARG, "reach_stats_get", "out is NULL");
    uint64_t *from = (uint64_t *)(void *)&rt.stats, *to = (uint64_t *)(void *)out;
    for (size_t i = 0; i < STATS_WORDS; i++)
        to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
    return REACH_SUCCESS;
}

int reach_stats_reset(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_stats_reset", "reach is not initialized");
    uint64_t *c = (uint64_t *)(void *)&rt.stats;
    for (size_t i = 0; i < STATS_WORDS; i++)
        __atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
    return REACH_SUCCESS;
}

/* One line per rank, written at once, so that the lines of ranks that
 * finalize together do not interleave. */
void stats_print(FILE *out)
{
    reach_stats_t st;
    reach_stats_get(&st);
    char line[2048];
    size_t n = (size_t)snprintf(line, sizeof line, "reach stats rank %d:", rt.rank);
    for (int k = 0; k < REACH_OP_KINDS; k++)
        for (int p = 0; p < REACH_PATHS; p++)
            if (st.ops[k][p] && n < sizeof line)
                n += (size_t)snprintf(line + n, sizeof line - n, " %s.%s=%llu/%lluB", kind_names[k],
                                      path_names[p], (unsigned long long)st.ops[k][p],
                                      (unsigned long long)st.bytes[k][p]);
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n,
                 " blocking_waits=%llu lock_contended=%llu allocations=%llu messages=%llu"
                 " flow_acks=%llu remote_atomics=%llu server_wakeups=%llu\n",
                 (unsigned long long)st.blocking_waits, (unsigned long long)st.lock_contended,
                 (unsigned long long)st.allocations, (unsigned long long)st.messages,
                 (unsigned long long)st.flow_acks, (unsigned long long)st.remote_atomics,
                 (unsigned long long)st.server_wakeups);
    fputs(line, out);
}
