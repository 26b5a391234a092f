/* What api/ calls of sync/: for each public entry point (include/reach.h says
 * what it does), its checks and its work. */
#ifndef REACH_SYNC_CALLS_H
#define REACH_SYNC_CALLS_H

#include "base/state.h"

/* fence.c */
int fence_rank(int rank) REACH_HIDDEN;
int fence_all(void) REACH_HIDDEN;
int fence_barrier(void) REACH_HIDDEN;
int fence_group(reach_group_t *g) REACH_HIDDEN;
int fence_barrier_group(reach_group_t *g) REACH_HIDDEN;
/* barrier.c */
int barrier_set_kind(const char *algorithm) REACH_HIDDEN;
/* notify.c */
int notify_rank(int rank) REACH_HIDDEN;
int notify_wait(int rank, int *waited) REACH_HIDDEN;
/* coll.c */
int coll_sync_group(reach_group_t *g, reach_scope_t scope) REACH_HIDDEN;
int coll_allreduce(reach_group_t *g, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                   reach_reduce_op_t op) REACH_HIDDEN;
int coll_reduce_root(reach_group_t *g, reach_scope_t scope, void *buf, size_t count, reach_type_t type,
                     reach_reduce_op_t op) REACH_HIDDEN;
int coll_bcast(reach_group_t *g, reach_scope_t scope, void *buf, size_t bytes, int root) REACH_HIDDEN;
/* counter.c */
int counter_create(int home, int64_t initial, reach_counter_t **out) REACH_HIDDEN;
int counter_destroy(reach_counter_t *c) REACH_HIDDEN;
int counter_add(reach_counter_t *c, int64_t add, int64_t *old) REACH_HIDDEN;
int counter_read(reach_counter_t *c, int64_t *now) REACH_HIDDEN;
int counter_add_wait(reach_counter_t *c, int64_t add, int64_t test, int64_t *now) REACH_HIDDEN;
int counter_wait(reach_counter_t *c, int64_t value, int64_t *now) REACH_HIDDEN;
/* mutex.c */
int mutexes_create_group(reach_group_t *g, int count, reach_mutexes_t **out) REACH_HIDDEN;
int mutexes_create(int count, reach_mutexes_t **out) REACH_HIDDEN;
int mutexes_destroy(reach_mutexes_t *set) REACH_HIDDEN;
int mutex_set_kind(const char *algorithm) REACH_HIDDEN;
int mutex_lock(reach_mutexes_t *set, int id, int rank) REACH_HIDDEN;
int mutex_trylock(reach_mutexes_t *set, int id, int rank, int *acquired) REACH_HIDDEN;
int mutex_unlock(reach_mutexes_t *set, int id, int rank) REACH_HIDDEN;
/* window.c */
int win_set_sync(const char *mode) REACH_HIDDEN;
int win_create(void *base, size_t bytes, reach_win_t **win) REACH_HIDDEN;
int win_allocate(size_t bytes, void *bases[], reach_win_t **win) REACH_HIDDEN;
int win_free(reach_win_t *w) REACH_HIDDEN;
/* window_epoch.c */
int win_lock(reach_win_t *w, int mode, int rank) REACH_HIDDEN;
int win_unlock(reach_win_t *w, int rank) REACH_HIDDEN;
int win_lock_all(reach_win_t *w) REACH_HIDDEN;
int win_unlock_all(reach_win_t *w) REACH_HIDDEN;
int win_flush(reach_win_t *w, int rank) REACH_HIDDEN;
int win_flush_all(reach_win_t *w) REACH_HIDDEN;
int win_flush_local(reach_win_t *w, int rank) REACH_HIDDEN;
/* window_ops.c */
int win_put(reach_win_t *w, const void *src, size_t disp, size_t bytes, int rank) REACH_HIDDEN;
int win_get(reach_win_t *w, void *dst, size_t disp, size_t bytes, int rank) REACH_HIDDEN;
int win_acc(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp, size_t bytes,
            int rank) REACH_HIDDEN;
int win_put_strided(reach_win_t *w, const void *src, size_t disp, const reach_strided_t *shape, int rank) REACH_HIDDEN;
int win_get_strided(reach_win_t *w, void *dst, size_t disp, const reach_strided_t *shape, int rank) REACH_HIDDEN;
int win_acc_strided(reach_win_t *w, reach_type_t type, const void *scale, const void *src, size_t disp,
                    const reach_strided_t *shape, int rank) REACH_HIDDEN;
int win_put_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank) REACH_HIDDEN;
int win_get_vector(reach_win_t *w, const reach_vector_t *v, size_t n, int rank) REACH_HIDDEN;
int win_acc_vector(reach_win_t *w, reach_type_t type, const void *scale, const reach_vector_t *v, size_t n,
                   int rank) REACH_HIDDEN;
int win_fetch_add_i32(reach_win_t *w, size_t disp, int32_t add, int32_t *old, int rank) REACH_HIDDEN;
int win_fetch_add_i64(reach_win_t *w, size_t disp, int64_t add, int64_t *old, int rank) REACH_HIDDEN;
int win_swap_i32(reach_win_t *w, size_t disp, int32_t value, int32_t *old, int rank) REACH_HIDDEN;
int win_swap_i64(reach_win_t *w, size_t disp, int64_t value, int64_t *old, int rank) REACH_HIDDEN;
int win_cas_i32(reach_win_t *w, size_t disp, int32_t compare, int32_t value, int32_t *old, int rank) REACH_HIDDEN;
int win_cas_i64(reach_win_t *w, size_t disp, int64_t compare, int64_t value, int64_t *old, int rank) REACH_HIDDEN;

#endif
