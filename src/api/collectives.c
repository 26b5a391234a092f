/* Collectives over a group or a scope: the public calls, each done by sync/ (sync/coll.c). */
#include "base/serial.h"
#include "sync/calls.h"

int reach_sync_group(reach_group_t *g, reach_scope_t scope)
{
    SERIAL_CALL(SERIAL_SYNC);
    return coll_sync_group(g, scope);
}

int reach_allreduce(reach_group_t *g, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                    reach_reduce_op_t op)
{
    SERIAL_CALL(SERIAL_SYNC);
    return coll_allreduce(g, scope, buf, count, type, op);
}

int reach_reduce(reach_group_t *g, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                 reach_reduce_op_t op)
{
    SERIAL_CALL(SERIAL_SYNC);
    return coll_reduce_root(g, scope, buf, count, type, op);
}

int reach_bcast(reach_group_t *g, reach_scope_t scope, void *buf, size_t bytes, int root)
{
    SERIAL_CALL(SERIAL_SYNC);
    return coll_bcast(g, scope, buf, bytes, root);
}
