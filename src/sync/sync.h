/* What the rest of reach calls in the sync layer: the barrier, and the
 * set-up and release of the sync structures. */
#ifndef REACH_SYNC_H
#define REACH_SYNC_H
#include "base/state.h"

/* All-fence, then a barrier of every rank, as REACH_BARRIER chooses. */
void sync_barrier(void) REACH_HIDDEN;
/* The same barrier without the all-fence (transfers stay in flight). */
void sync_barrier_only(void) REACH_HIDDEN;
int barrier_init(void) REACH_HIDDEN;
void barrier_finalize(void) REACH_HIDDEN;
/* Destroys mutex sets left at finalize. */
void mutex_finalize(void) REACH_HIDDEN;
/* Releases windows left at finalize. */
void window_finalize(void) REACH_HIDDEN;
/* Notification counters: one per (receiver, sender) at the receiver. */
int notify_init(void) REACH_HIDDEN;
void notify_finalize(void) REACH_HIDDEN;
/* Group collectives: their set-up at every group's creation, registered
 * once; their structures released at finalize. */
void coll_register(void) REACH_HIDDEN;
void coll_finalize(void) REACH_HIDDEN;
#endif
