/* Mutexes: the public calls, each done by sync/ (sync/mutex.c). */
#include "base/serial.h"
#include "sync/calls.h"

int reach_mutexes_create_group(reach_group_t *g, int count, reach_mutexes_t **out)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutexes_create_group(g, count, out);
}

int reach_mutexes_create(int count, reach_mutexes_t **out)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutexes_create(count, out);
}

int reach_mutexes_destroy(reach_mutexes_t *set)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutexes_destroy(set);
}

int reach_set_lock(const char *algorithm)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutex_set_kind(algorithm);
}

int reach_mutex_lock(reach_mutexes_t *set, int id, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutex_lock(set, id, rank);
}

int reach_mutex_trylock(reach_mutexes_t *set, int id, int rank, int *acquired)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutex_trylock(set, id, rank, acquired);
}

int reach_mutex_unlock(reach_mutexes_t *set, int id, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return mutex_unlock(set, id, rank);
}
