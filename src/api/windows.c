/* Windows and their epochs: the public calls, each done by sync/ (sync/window.c, window_epoch.c, window_ops.c). */
#include "base/serial.h"
#include "sync/calls.h"

int reach_set_win_sync(const char *mode)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_set_sync(mode);
}

int reach_win_create(void *base, size_t bytes, reach_win_t **win)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_create(base, bytes, win);
}

int reach_win_allocate(size_t bytes, void *bases[], reach_win_t **win)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_allocate(bytes, bases, win);
}

int reach_win_free(reach_win_t *w)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_free(w);
}

int reach_win_lock(reach_win_t *w, int mode, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_lock(w, mode, rank);
}

int reach_win_unlock(reach_win_t *w, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_unlock(w, rank);
}

int reach_win_lock_all(reach_win_t *w)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_lock_all(w);
}

int reach_win_unlock_all(reach_win_t *w)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_unlock_all(w);
}

int reach_win_flush(reach_win_t *w, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_flush(w, rank);
}

int reach_win_flush_all(reach_win_t *w)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_flush_all(w);
}

int reach_win_flush_local(reach_win_t *w, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_flush_local(w, rank);
}

int reach_win_put(reach_win_t *w, const void *src, size_t disp, size_t bytes, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_put(w, src, disp, bytes, rank);
}

int reach_win_get(reach_win_t *w, void *dst, size_t disp, size_t bytes, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_get(w, dst, disp, bytes, rank);
}

int reach_win_acc(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp, size_t bytes,
                  int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_acc(w, type, scale, src, disp, bytes, rank);
}

int reach_win_put_strided(reach_win_t *w, const void *src, size_t disp, const reach_strided_t *shape, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_put_strided(w, src, disp, shape, rank);
}

int reach_win_get_strided(reach_win_t *w, void *dst, size_t disp, const reach_strided_t *shape, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_get_strided(w, dst, disp, shape, rank);
}

int reach_win_acc_strided(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp,
                          const reach_strided_t *shape, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_acc_strided(w, type, scale, src, disp, shape, rank);
}

int reach_win_put_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_put_vector(w, v, n, rank);
}

int reach_win_get_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_get_vector(w, v, n, rank);
}

int reach_win_acc_vector(reach_win_t *w, reach_type_t type, const void *scale, const reach_vector_t *v, size_t n,
                         int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_acc_vector(w, type, scale, v, n, rank);
}

int reach_win_fetch_add_i32(reach_win_t *w, size_t disp, int32_t add, int32_t *old, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_fetch_add_i32(w, disp, add, old, rank);
}

int reach_win_fetch_add_i64(reach_win_t *w, size_t disp, int64_t add, int64_t *old, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_fetch_add_i64(w, disp, add, old, rank);
}

int reach_win_swap_i32(reach_win_t *w, size_t disp, int32_t value, int32_t *old, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_swap_i32(w, disp, value, old, rank);
}

int reach_win_swap_i64(reach_win_t *w, size_t disp, int64_t value, int64_t *old, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_swap_i64(w, disp, value, old, rank);
}

int reach_win_cas_i32(reach_win_t *w, size_t disp, int32_t compare, int32_t value, int32_t *old, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_cas_i32(w, disp, compare, value, old, rank);
}

int reach_win_cas_i64(reach_win_t *w, size_t disp, int64_t compare, int64_t value, int64_t *old, int rank)
{
    SERIAL_CALL(SERIAL_SYNC);
    return win_cas_i64(w, disp, compare, value, old, rank);
}
