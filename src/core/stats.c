#include "core/runtime.h"
#include "sync/sync.h"

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

int reach_stats_get(reach_stats_t *out)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_stats_get", "reach is not initialized");
    if (out == NULL)
        return rt_error(REACH_ERR_ARG, "reach_stats_get", "out is NULL");
    *out = rt.stats;
    return REACH_SUCCESS;
}

int reach_stats_reset(void)
{
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_stats_reset", "reach is not initialized");
    memset(&rt.stats, 0, sizeof rt.stats);
    return REACH_SUCCESS;
}

void stats_print(FILE *out)
{
    fprintf(out, "reach stats rank %d:", rt.rank);
    for (int k = 0; k < REACH_OP_KINDS; k++)
        for (int p = 0; p < REACH_PATHS; p++)
            if (rt.stats.ops[k][p])
                fprintf(out, " %s.%s=%llu/%lluB", kind_names[k], path_names[p],
                        (unsigned long long)rt.stats.ops[k][p],
                        (unsigned long long)rt.stats.bytes[k][p]);
    fprintf(out, " blocking_waits=%llu lock_contended=%llu allocations=%llu messages=%llu"
                 " flow_acks=%llu remote_atomics=%llu server_wakeups=%llu\n",
            (unsigned long long)rt.stats.blocking_waits,
            (unsigned long long)rt.stats.lock_contended,
            (unsigned long long)rt.stats.allocations,
            (unsigned long long)rt.stats.messages,
            (unsigned long long)rt.stats.flow_acks,
            (unsigned long long)rt.stats.remote_atomics,
            (unsigned long long)rt.stats.server_wakeups);
}
