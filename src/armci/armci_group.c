/* ARMCI groups over reach groups (the handle is ARMCI-MPI's struct, see
 * armci.h); locality domains; the ARMCIX extensions. */
#include "armci_internal.h"

#include <stdlib.h>

/* What a handle stands for: a group of this process, or one that it is not
 * a member of, known by its members' job-wide ranks. A handle names its
 * record by grp_to_abs, which is the record's members array. A freed
 * group's record keeps that array (until ARMCI_Finalize), so that no later
 * group gets its address and a stale copy of the handle is refused. */
typedef struct {
    reach_group_t *group; /* NULL: this process is not a member */
    int size;
    int *members; /* job-wide rank of each member: grp_to_abs */
    int *inverse; /* group rank of each job-wide rank, or -1: abs_to_grp */
    int freed;
} armci_record_t;

/* Record 0 is the world; a slot whose members is NULL is free. */
static armci_record_t *table;
static int table_len;
static int default_record;

/* The group of no members: a freed handle, or a split that leaves this
 * process out. */
static const ARMCI_Group armci_no_group = {.comm = MPI_COMM_NULL, .noncoll_pgroup_comm = MPI_COMM_NULL, .rank = -1};

/* The groups the program did not free are released with the rest. */
void armci_groups_reset(void)
{
    for (int i = 0; i < table_len; i++) {
        if (i > 0 && table[i].group != NULL)
            reach_group_free(table[i].group);
        free(table[i].members);
        free(table[i].inverse);
    }
    free(table);
    table = NULL;
    table_len = 0;
    default_record = 0;
}

static void *armci_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL)
        reach_abort(1, "ARMCI groups: out of memory");
    return p;
}

/* A record for g, or for the n members (job-wide ranks, taken over) of a
 * group this process is not in; its index. */
static int armci_record_add(reach_group_t *g, int n, int *members)
{
    int i = 0;
    while (i < table_len && table[i].members != NULL)
        i++;
    if (i == table_len) {
        int len = table_len ? table_len * 2 : 8;
        armci_record_t *t = realloc(table, sizeof *t * (size_t)len);
        if (t == NULL)
            reach_abort(1, "ARMCI groups: out of memory");
        for (int j = table_len; j < len; j++)
            t[j] = (armci_record_t){0};
        table = t;
        table_len = len;
    }
    if (g != NULL) {
        n = reach_group_size(g);
        members = armci_alloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
        for (int r = 0; r < n; r++)
            members[r] = reach_group_world_rank(g, r);
    }
    int world = reach_size();
    int *inverse = armci_alloc(sizeof(int) * (size_t)world);
    for (int w = 0; w < world; w++)
        inverse[w] = -1;
    for (int r = 0; r < n; r++)
        inverse[members[r]] = r;
    table[i] = (armci_record_t){g, n, members, inverse, 0};
    return i;
}

/* The world's record exists once reach has started; an error (after a
 * message) before. */
static int armci_groups_ready(void)
{
    if (!reach_initialized())
        return armci_error(REACH_ERR_NOT_INIT, "ARMCI is not initialized");
    if (table_len == 0)
        armci_record_add(reach_group_world(), 0, NULL);
    return REACH_SUCCESS;
}

/* The index of the record *group names, or -1 for the group of no members;
 * an error (after a message) if it is no handle of this process. */
static int armci_record(const ARMCI_Group *group, int *index)
{
    *index = -1;
    int st = armci_groups_ready();
    if (st != REACH_SUCCESS)
        return st;
    if (group == NULL)
        return armci_error(REACH_ERR_HANDLE, "the group is NULL");
    if (group->grp_to_abs == NULL && group->size == 0 && group->comm == MPI_COMM_NULL)
        return REACH_SUCCESS;
    for (int i = 0; i < table_len; i++)
        if (table[i].members != NULL && table[i].members == group->grp_to_abs) {
            if (table[i].freed)
                return armci_error(REACH_ERR_HANDLE, "the group was freed (a copy of a handle "
                                                     "given to ARMCI_Group_free)");
            *index = i;
            return REACH_SUCCESS;
        }
    return armci_error(REACH_ERR_HANDLE,
                       "the handle (size %d, rank %d) is not a group of this process "
                       "(made by ARMCI_Group_create or _get_world and not freed)",
                       group->size, group->rank);
}

/* Fills *out for record i (-1: the group of no members). */
static void armci_handle_fill(int i, ARMCI_Group *out)
{
    if (i < 0) {
        *out = armci_no_group;
        return;
    }
    const armci_record_t *r = &table[i];
    *out = (ARMCI_Group){.comm = r->group ? reach_group_comm(r->group) : MPI_COMM_NULL,
                         .noncoll_pgroup_comm = MPI_COMM_NULL,
                         .grp_to_abs = r->members,
                         .abs_to_grp = r->inverse,
                         .rank = r->group ? reach_group_rank(r->group) : -1,
                         .size = r->size};
}

reach_group_t *armci_group(const ARMCI_Group *group)
{
    int i;
    if (armci_record(group, &i) != REACH_SUCCESS)
        return NULL;
    if (i < 0 || table[i].group == NULL)
        armci_error(REACH_ERR_HANDLE, "this process is not a member of the group");
    return i < 0 ? NULL : table[i].group;
}

reach_group_t *armci_default_group(void)
{
    return armci_groups_ready() == REACH_SUCCESS ? table[default_record].group : NULL;
}

/* A process outside the new group gets a handle too, which knows the
 * members (a group of none is the group of no members). */
void PARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *parent)
{
    ARMCI_ENTRY();
    reach_group_t *p = armci_group(parent), *g = NULL;
    armci_check(p ? reach_group_create(p, n, pid_list, &g) : REACH_ERR_HANDLE);
    int *members = NULL;
    if (g == NULL && n > 0) {
        members = armci_alloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            members[i] = reach_group_world_rank(p, pid_list[i]);
    }
    armci_handle_fill(g || members ? armci_record_add(g, n, members) : -1, group_out);
}
ARMCI_ALIAS(ARMCI_Group_create_child)

void PARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out)
{
    ARMCI_ENTRY();
    ARMCI_Group d;
    PARMCI_Group_get_default(&d);
    PARMCI_Group_create_child(n, pid_list, group_out, &d);
}
ARMCI_ALIAS(ARMCI_Group_create)

/* The world's handle is not freed (another call gets it again). */
void PARMCI_Group_free(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    int i;
    armci_check(armci_record(group, &i));
    if (i <= 0)
        return;
    if (table[i].group != NULL)
        armci_check(reach_group_free(table[i].group));
    free(table[i].inverse);
    table[i] = (armci_record_t){.members = table[i].members, .freed = 1};
    if (default_record == i)
        default_record = 0;
    *group = armci_no_group;
}
ARMCI_ALIAS(ARMCI_Group_free)

/* Outside the group: -1. */
int PARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    ARMCI_ENTRY();
    int i, st = armci_record(group, &i);
    if (st == REACH_SUCCESS)
        *rank = i >= 0 && table[i].group ? reach_group_rank(table[i].group) : -1;
    return st;
}
ARMCI_ALIAS(ARMCI_Group_rank)

void PARMCI_Group_size(ARMCI_Group *group, int *size)
{
    ARMCI_ENTRY();
    int i;
    armci_check(armci_record(group, &i));
    *size = i >= 0 ? table[i].size : 0;
}
ARMCI_ALIAS(ARMCI_Group_size)

void PARMCI_Group_set_default(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    int i, st = armci_record(group, &i);
    if (st == REACH_SUCCESS && (i < 0 || table[i].group == NULL))
        st = armci_error(REACH_ERR_HANDLE, "this process is not a member of the group");
    armci_check(st);
    default_record = i;
}
ARMCI_ALIAS(ARMCI_Group_set_default)

void PARMCI_Group_get_default(ARMCI_Group *group_out)
{
    ARMCI_ENTRY();
    armci_check(armci_groups_ready());
    armci_handle_fill(default_record, group_out);
}
ARMCI_ALIAS(ARMCI_Group_get_default)

void PARMCI_Group_get_world(ARMCI_Group *group_out)
{
    ARMCI_ENTRY();
    armci_check(armci_groups_ready());
    armci_handle_fill(0, group_out);
}
ARMCI_ALIAS(ARMCI_Group_get_world)

int PARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    ARMCI_ENTRY();
    int i;
    if (armci_record(group, &i) != REACH_SUCCESS)
        return -1;
    int size = i >= 0 ? table[i].size : 0;
    if (group_rank < 0 || group_rank >= size) {
        armci_error(REACH_ERR_RANK, "rank %d is out of range [0, %d)", group_rank, size);
        return -1;
    }
    return table[i].members[group_rank];
}
ARMCI_ALIAS(ARMCI_Absolute_id)

/* MPI_COMM_NULL outside the group, as MPI gives it. */
MPI_Comm armci_group_comm(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    int i;
    if (armci_record(group, &i) != REACH_SUCCESS || i < 0 || table[i].group == NULL)
        return MPI_COMM_NULL;
    return reach_group_comm(table[i].group);
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
        armci_handle_fill(g ? armci_record_add(g, 0, NULL) : -1, new_group);
    return st;
}

int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    ARMCI_ENTRY();
    reach_group_t *p = armci_group(parent), *g = NULL;
    int st = p ? reach_group_dup(p, &g) : REACH_ERR_HANDLE;
    if (st == REACH_SUCCESS)
        armci_handle_fill(g ? armci_record_add(g, 0, NULL) : -1, new_group);
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
