/* Shared counters: the public calls, each done by sync/ (sync/counter.c). */
#include "base/serial.h"
#include "sync/calls.h"

int reach_counter_create(int home, int64_t initial, reach_counter_t **out)
{
    SERIAL_CALL(SERIAL_SYNC);
    return counter_create(home, initial, out);
}

int reach_counter_destroy(reach_counter_t *c)
{
    SERIAL_CALL(SERIAL_SYNC);
    return counter_destroy(c);
}

int reach_counter_add(reach_counter_t *c, int64_t add, int64_t *old)
{
    SERIAL_CALL(SERIAL_SYNC);
    return counter_add(c, add, old);
}

int reach_counter_read(reach_counter_t *c, int64_t *now)
{
    SERIAL_CALL(SERIAL_SYNC);
    return counter_read(c, now);
}

int reach_counter_add_wait(reach_counter_t *c, int64_t add, int64_t test, int64_t *now)
{
    SERIAL_CALL(SERIAL_SYNC);
    return counter_add_wait(c, add, test, now);
}

int reach_counter_wait(reach_counter_t *c, int64_t value, int64_t *now)
{
    SERIAL_CALL(SERIAL_SYNC);
    return counter_wait(c, value, now);
}
