/* ARMCI groups as handles (GA's ARMCI_Group is an int) over reach groups;
 * locality domains; the ARMCIX extensions. */
#include "armci_internal.h"

#include <stdlib.h>

/* What a handle stands for: a group of this process, or one that it is not
 * a member of, known by its members' job-wide ranks. */
typedef struct {
    reach_group_t *group;   /* NULL: this process is not a member */
    int size;               /* without group: the number of members */
    int *world;             /* without group: their job-wide ranks */
} armci_handle_t;

/* Handle 0 is the world; others index this table. ARMCI_GROUP_NULL is the
 * group of no members. */
static armci_handle_t *table;
static int table_len;
static ARMCI_Group default_handle;
static const armci_handle_t null_handle;

void armci_groups_reset(void)
{
    for (int h = 0; h < table_len; h++)
        free(table[h].world);
    free(table);
    table = NULL;
    table_len = 0;
    default_handle = 0;
}

static int armci_handle_live(int h)
{
    return table[h].group != NULL || table[h].world != NULL;
}

/* What *group stands for, into *h; an error (after a message) if it is no
 * handle of this process. */
static int armci_handle(const ARMCI_Group *group, armci_handle_t *h)
{
    *h = null_handle;
    if (!reach_initialized())
        return armci_error(REACH_ERR_NOT_INIT, "ARMCI is not initialized");
    if (group != NULL && *group == ARMCI_GROUP_NULL)
        return REACH_SUCCESS;
    if (group != NULL && *group == 0) {
        h->group = reach_group_world();
        return REACH_SUCCESS;
    }
    if (group == NULL || *group < 0 || *group >= table_len || !armci_handle_live(*group))
        return armci_error(REACH_ERR_HANDLE, "group %d is not a group of this process",
                           group ? *group : -1);
    *h = table[*group];
    return REACH_SUCCESS;
}

reach_group_t *armci_group(const ARMCI_Group *group)
{
    armci_handle_t h;
    if (armci_handle(group, &h) != REACH_SUCCESS)
        return NULL;
    if (h.group == NULL)
        armci_error(REACH_ERR_HANDLE, "this process is not a member of group %d", *group);
    return h.group;
}

reach_group_t *armci_default_group(void)
{
    return armci_group(&default_handle);
}

/* A handle for group g, or for a group of size members (job-wide ranks
 * world) that this process is not in; ARMCI_GROUP_NULL for neither. */
static ARMCI_Group armci_group_handle(reach_group_t *g, int size, int *world)
{
    if (g == NULL && world == NULL)
        return ARMCI_GROUP_NULL;
    int h = 1;
    while (h < table_len && armci_handle_live(h))
        h++;
    if (h >= table_len) {
        int len = table_len ? table_len * 2 : 8;
        armci_handle_t *t = realloc(table, sizeof *t * (size_t)len);
        if (t == NULL)
            reach_abort(1, "ARMCI groups: out of memory");
        for (int i = table_len; i < len; i++)
            t[i] = null_handle;
        table = t;
        table_len = len;
    }
    table[h] = (armci_handle_t){g, size, world};
    return h;
}

/* A process outside the new group gets a handle too, which knows the
 * members (a group of none is ARMCI_GROUP_NULL). */
void PARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *parent)
{
    ARMCI_ENTRY();
    reach_group_t *p = armci_group(parent), *g = NULL;
    armci_check(p ? reach_group_create(p, n, pid_list, &g) : REACH_ERR_HANDLE);
    int *world = NULL;
    if (g == NULL && n > 0) {
        world = malloc(sizeof(int) * (size_t)n);
        if (world == NULL)
            reach_abort(1, "ARMCI groups: out of memory");
        for (int i = 0; i < n; i++)
            world[i] = reach_group_world_rank(p, pid_list[i]);
    }
    *group_out = armci_group_handle(g, n, world);
}
ARMCI_ALIAS(ARMCI_Group_create_child)

void PARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out)
{
    ARMCI_ENTRY();
    PARMCI_Group_create_child(n, pid_list, group_out, &default_handle);
}
ARMCI_ALIAS(ARMCI_Group_create)

void PARMCI_Group_free(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    if (group == NULL || *group == ARMCI_GROUP_NULL)
        return;
    armci_handle_t h;
    armci_check(armci_handle(group, &h));
    if (h.group != NULL)
        armci_check(reach_group_free(h.group));
    free(h.world);
    table[*group] = null_handle;
    if (default_handle == *group)
        default_handle = 0;
    *group = ARMCI_GROUP_NULL;
}
ARMCI_ALIAS(ARMCI_Group_free)

/* Outside the group: -1. */
int PARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    ARMCI_ENTRY();
    armci_handle_t h;
    int st = armci_handle(group, &h);
    if (st == REACH_SUCCESS)
        *rank = h.group ? reach_group_rank(h.group) : -1;
    return st;
}
ARMCI_ALIAS(ARMCI_Group_rank)

void PARMCI_Group_size(ARMCI_Group *group, int *size)
{
    ARMCI_ENTRY();
    armci_handle_t h;
    armci_check(armci_handle(group, &h));
    *size = h.group ? reach_group_size(h.group) : h.size;
}
ARMCI_ALIAS(ARMCI_Group_size)

void PARMCI_Group_set_default(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    armci_check(armci_group(group) ? REACH_SUCCESS : REACH_ERR_HANDLE);
    default_handle = *group;
}
ARMCI_ALIAS(ARMCI_Group_set_default)

void PARMCI_Group_get_default(ARMCI_Group *group_out)
{
    *group_out = default_handle;
}
ARMCI_ALIAS(ARMCI_Group_get_default)

void PARMCI_Group_get_world(ARMCI_Group *group_out)
{
    *group_out = 0;
}
ARMCI_ALIAS(ARMCI_Group_get_world)

int PARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    ARMCI_ENTRY();
    armci_handle_t h;
    if (armci_handle(group, &h) != REACH_SUCCESS)
        return -1;
    if (h.group != NULL)
        return reach_group_world_rank(h.group, group_rank);
    if (group_rank < 0 || group_rank >= h.size) {
        armci_error(REACH_ERR_RANK, "rank %d is out of range [0, %d)", group_rank, h.size);
        return -1;
    }
    return h.world[group_rank];
}
ARMCI_ALIAS(ARMCI_Absolute_id)

/* MPI_COMM_NULL outside the group, as MPI gives it. */
MPI_Comm armci_group_comm(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    armci_handle_t h;
    if (armci_handle(group, &h) != REACH_SUCCESS || h.group == NULL)
        return MPI_COMM_NULL;
    return reach_group_comm(h.group);
}

/* ---- locality domains ------------------------------------------------------ */

static int armci_domain_ok(armci_domain_t domain)
{
    if (domain != ARMCI_DOMAIN_SMP) {
        armci_error(REACH_ERR_ARG, "domain %d is not ARMCI_DOMAIN_SMP", domain);
        return 0;
    }
    return 1;
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    ARMCI_ENTRY();
    return armci_domain_ok(domain) ? reach_node_size(id) : -1;
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    ARMCI_ENTRY();
    return armci_domain_ok(domain) ? reach_node_of(glob_proc_id) : -1;
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    ARMCI_ENTRY();
    return armci_domain_ok(domain) ? reach_node_rank(id, loc_proc_id) : -1;
}

int armci_domain_my_id(armci_domain_t domain)
{
    ARMCI_ENTRY();
    return armci_domain_ok(domain) ? reach_node_of(reach_rank()) : -1;
}

int armci_domain_count(armci_domain_t domain)
{
    ARMCI_ENTRY();
    return armci_domain_ok(domain) ? reach_node_count() : -1;
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    ARMCI_ENTRY();
    return armci_domain_ok(domain) ? reach_same_node(proc) : 0;
}

/* ---- ARMCIX ------------------------------------------------------------------ */

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group)
{
    ARMCI_ENTRY();
    reach_group_t *p = armci_group(parent), *g = NULL;
    int st = p ? reach_group_split(p, color, key, &g) : REACH_ERR_HANDLE;
    if (st == REACH_SUCCESS)
        *new_group = armci_group_handle(g, 0, NULL);
    return st;
}

int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    ARMCI_ENTRY();
    reach_group_t *p = armci_group(parent), *g = NULL;
    int st = p ? reach_group_dup(p, &g) : REACH_ERR_HANDLE;
    if (st == REACH_SUCCESS)
        *new_group = armci_group_handle(g, 0, NULL);
    return st;
}

struct armcix_mutex_hdl_s {
    reach_mutexes_t *set;
    reach_group_t *group;
};

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup)
{
    ARMCI_ENTRY();
    reach_group_t *g = armci_group(pgroup);
    armcix_mutex_hdl_t h = malloc(sizeof *h);
    if (g == NULL || h == NULL || reach_mutexes_create_group(g, count, &h->set) != REACH_SUCCESS) {
        free(h);
        return NULL;
    }
    h->group = g;
    return h;
}

int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl)
{
    ARMCI_ENTRY();
    if (hdl == NULL)
        return armci_error(REACH_ERR_HANDLE, "the handle is NULL");
    int st = reach_mutexes_destroy(hdl->set);
    if (st == REACH_SUCCESS)
        free(hdl);
    return st;
}

/* The job-wide rank of member proc of the handle's group, or -1. */
static int armcix_rank(armcix_mutex_hdl_t hdl, int proc)
{
    if (hdl == NULL) {
        armci_error(REACH_ERR_HANDLE, "the handle is NULL");
        return -1;
    }
    return reach_group_world_rank(hdl->group, proc);
}

void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    ARMCI_ENTRY();
    int r = armcix_rank(hdl, proc);
    armci_check(r < 0 ? REACH_ERR_RANK : reach_mutex_lock(hdl->set, mutex, r));
}

int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    ARMCI_ENTRY();
    int r = armcix_rank(hdl, proc), got = 0;
    armci_check(r < 0 ? REACH_ERR_RANK : reach_mutex_trylock(hdl->set, mutex, r, &got));
    return got ? 0 : 1;
}

void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    ARMCI_ENTRY();
    int r = armcix_rank(hdl, proc);
    armci_check(r < 0 ? REACH_ERR_RANK : reach_mutex_unlock(hdl->set, mutex, r));
}

void ARMCIX_Progress(void)
{
}
