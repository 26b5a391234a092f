/* Collective and local allocation. */
#include "base/serial.h"
#include "core/mem.h"
#include "core/group.h"

int reach_malloc(size_t bytes, void *bases[])
{
    SERIAL_CALL(SERIAL_SYNC);
    return mem_alloc_collective("reach_malloc", &group_world, bytes, bases, 1);
}

int reach_free(void *base)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mem_free_collective("reach_free", &group_world, base, 1);
}

/* Local blocks come from the arena too, so that they are already in memory
 * every transport can reach. */
void *reach_malloc_local(size_t bytes)
{
    SERIAL_CALL(SERIAL_SYNC);
    void *p = NULL;
    if (!rt.initialized) {
        rt_error(REACH_ERR_NOT_INIT, "reach_malloc_local", "reach is not initialized");
        return NULL;
    }
    if (bytes == 0)
        bytes = 1;
    return mem_alloc_local("reach_malloc_local", bytes, &p) == REACH_SUCCESS ? p : NULL;
}

int reach_set_shm_limit(size_t bytes)
{
    SERIAL_CALL(SERIAL_SYNC);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_set_shm_limit", "reach is not initialized");
    rt.cfg.shm_limit = bytes;
    return REACH_SUCCESS;
}

int reach_free_local(void *ptr)
{
    SERIAL_CALL(SERIAL_SYNC);
    if (!rt.initialized)
        return rt_error(REACH_ERR_NOT_INIT, "reach_free_local", "reach is not initialized");
    if (ptr == NULL)
        return REACH_SUCCESS;
    if (mem_free_local(ptr) != REACH_SUCCESS)
        return rt_error(REACH_ERR_ARG, "reach_free_local", "%p was not returned by reach_malloc_local", ptr);
    return REACH_SUCCESS;
}
