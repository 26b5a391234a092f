/* Who is where: ranks, nodes, and the transports that reach them. */
#include "base/serial.h"
#include "core/rma.h"
#include "core/service.h"
#include "base/trace.h"

#include <stdio.h>
#include <string.h>

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
    return !rma_remote(rank);
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

const char *reach_transports(void)
{
    SERIAL_CALL(SERIAL_SYNC);
    static char line[320];
    snprintf(line, sizeof line,
             "shm (memfd arenas, CPU atomics, futex waits) within a node; %s: RMA, active messages to "
             "a server thread, between nodes",
             svc_describe());
    return line;
}

int reach_trace_mark(const char *label)
{
    SERIAL_CALL(SERIAL_SYNC);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_trace_mark", "reach is not initialized");
    if (!label || !label[0] || strlen(label) >= CONFIG_STRING_MAX || strchr(label, '\n'))
        return rt_error(REACH_ERR_ARG, "reach_trace_mark", "the label must be 1 to %d bytes without a line break",
                        CONFIG_STRING_MAX - 1);
    return trace_mark(label);
}
