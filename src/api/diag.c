/* Diagnostics: messages, the end of the job, status names, statistics and
 * the configuration's report. */
#include "base/serial.h"
#include "base/state.h"

int reach_report(int status, const char *call, const char *msg)
{
    return rt_error(status, call ? call : "?", "%s", msg ? msg : "");
}

void reach_set_caller_hook(const char *(*caller)(void))
{
    rt_set_caller_hook(caller);
}

void reach_abort(int code, const char *msg)
{
    rt_abort(code, msg);
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

const char *reach_op_kind_name(reach_op_kind_t kind)
{
    return stats_kind_name((int)kind);
}

const char *reach_path_name(reach_path_t path)
{
    return stats_path_name((int)path);
}

int reach_stats_get(reach_stats_t *out)
{
    SERIAL_CALL(SERIAL_SYNC);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_stats_get", "reach is not initialized");
    if (out == NULL)
        return rt_error(REACH_ERR_ARG, "reach_stats_get", "out is NULL");
    stats_copy(out);
    return REACH_SUCCESS;
}

int reach_stats_reset(void)
{
    SERIAL_CALL(SERIAL_SYNC);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_stats_reset", "reach is not initialized");
    stats_clear();
    return REACH_SUCCESS;
}

int reach_config_check(void)
{
    return config_check();
}

void reach_config_print(void)
{
    config_print();
}
