/* Groups: a communicator and the job-wide ranks of its members. */
#ifndef REACH_CORE_GROUP_H
#define REACH_CORE_GROUP_H
#include "base/state.h"
#include "boot/boot.h"

struct reach_group {
    uint32_t magic;
    boot_comm_t *comm;         /* the members */
    boot_comm_t *node_comm;    /* the members on this node */
    boot_comm_t *masters_comm; /* the first member on each node; NULL elsewhere */
    int rank, size;
    int *world;              /* member number -> job-wide rank */
    struct group_coll *coll; /* its collectives (sync/coll_setup.c) */
};

/* What the sync layer does when a group is made (collective over it; an
 * error fails the creation) and before one is freed: registered at
 * start-up, since core cannot call up. */
void group_on_make(int (*made)(reach_group_t *), void (*freeing)(reach_group_t *)) REACH_HIDDEN;

/* The sync layer's collectives (reach_allreduce's and reach_sync_group's),
 * which run on reach's own signals and waits that sleep: registered at
 * start-up, for group_allreduce_long and group_sync to use once a group has
 * its collectives. */
void group_on_coll(int (*allreduce)(reach_group_t *, reach_scope_t, void *, size_t, reach_type_t, reach_reduce_op_t),
                   int (*sync)(reach_group_t *, reach_scope_t)) REACH_HIDDEN;

/* Builds the world group over rt.comm (reach_init). */
int group_init_world(void) REACH_HIDDEN;
void group_finalize_world(void) REACH_HIDDEN;
extern reach_group_t group_world REACH_HIDDEN;

/* Checks that g is a live group this process belongs to. */
int group_check(const char *call, const reach_group_t *g) REACH_HIDDEN;
/* Collective over parent: a new group of the n members listed (member
 * numbers in parent); of the members that passed this one's color, ordered
 * by key (a negative color joins none); or of every member. *out is NULL
 * on a process left out. The sync layer's make hook (group_on_make) runs
 * on the new group, and its error is returned. */
int group_create(reach_group_t *parent, int n, const int *members, reach_group_t **out) REACH_HIDDEN;
int group_split(reach_group_t *parent, int color, int key, reach_group_t **out) REACH_HIDDEN;
int group_dup(reach_group_t *parent, reach_group_t **out) REACH_HIDDEN;
/* Collective over g: runs the sync layer's freeing hook, then frees g (not
 * the world group). */
void group_free(reach_group_t *g) REACH_HIDDEN;
/* Barrier of the members (no fence), over MPI (but the world's on one
 * node): for set-up, before a group's collectives exist. */
void group_barrier(reach_group_t *g) REACH_HIDDEN;
/* Collective over the scope of g: the members' count longs at buf combined
 * by op (REACH_REDUCE_SUM or _MAX) into buf on every member; and a barrier
 * (no fence). On the group's own collectives once it has them, else over
 * MPI, as while they are being made. Collective allocation uses these:
 * Global Arrays creates and destroys arrays all the time, and with more
 * processes than cores each of MPI's busy-polling collectives took
 * milliseconds. */
void group_allreduce_long(reach_group_t *g, reach_scope_t scope, long *buf, size_t count,
                          reach_reduce_op_t op) REACH_HIDDEN;
void group_sync(reach_group_t *g) REACH_HIDDEN;
#endif
