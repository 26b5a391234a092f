/* ARMCI groups over reach groups (the handle is ARMCI-MPI's struct, see
 * armci.h); locality domains; the ARMCIX extensions. */
#include "armci_internal.h"

#include <pthread.h>
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

/* Record 0 is the world; a slot whose members is NULL is free. The table
 * moves as it grows: it is read and written under groups_lock, and a
 * caller keeps a copy of a record, whose arrays stay in place. (Threads may
 * look groups up while one of them makes a group.) */
static armci_record_t *table;
static int table_len;
static int default_record;
static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;

/* The group of no members: a freed handle, or a split that leaves this
 * process out. */
static const ARMCI_Group armci_no_group = {.comm = MPI_COMM_NULL, .noncoll_pgroup_comm = MPI_COMM_NULL, .rank = -1};

/* The groups the program did not free are released with the rest. */
void armci_groups_reset(void)
{
    pthread_mutex_lock(&groups_lock);
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
    pthread_mutex_unlock(&groups_lock);
}

static void *armci_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL)
        reach_abort(1, "ARMCI groups: out of memory");
    return p;
}

/* A record for g, or for the n members (job-wide ranks, taken over) of a
 * group this process is not in; its index. Under groups_lock. */
static int armci_record_add_locked(reach_group_t *g, int n, int *members)
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
 * message) before. Under groups_lock. */
static int armci_groups_ready_locked(void)
{
    if (!reach_initialized())
        return armci_error(REACH_ERR_NOT_INIT, "ARMCI is not initialized");
    if (table_len == 0)
        armci_record_add_locked(reach_group_world(), 0, NULL);
    return REACH_SUCCESS;
}

/* The index of the record *group names, or -1 for the group of no members;
 * an error (after a message) if it is no handle of this process. Under
 * groups_lock. */
static int armci_record_locked(const ARMCI_Group *group, int *index)
{
    *index = -1;
    int st = armci_groups_ready_locked();
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

static int armci_record_add(reach_group_t *g, int n, int *members)
{
    pthread_mutex_lock(&groups_lock);
    int i = armci_record_add_locked(g, n, members);
    pthread_mutex_unlock(&groups_lock);
    return i;
}

/* A copy of the record *group names, all zero for the group of no members
 * (*index -1); an error (after a message) as armci_record_locked's. */
static int armci_record(const ARMCI_Group *group, armci_record_t *copy, int *index)
{
    pthread_mutex_lock(&groups_lock);
    int i, st = armci_record_locked(group, &i);
    *copy = st == REACH_SUCCESS && i >= 0 ? table[i] : (armci_record_t){0};
    pthread_mutex_unlock(&groups_lock);
    *index = i;
    return st;
}

/* Record i, default_record if i is ARMCI_DEFAULT: its index (-1 and an
 * error, after a message, before start-up) and a copy. */
enum { ARMCI_DEFAULT = -2 };
static int armci_record_at(int i, armci_record_t *copy)
{
    pthread_mutex_lock(&groups_lock);
    int st = armci_groups_ready_locked();
    if (i == ARMCI_DEFAULT)
        i = default_record;
    *copy = st == REACH_SUCCESS ? table[i] : (armci_record_t){0};
    pthread_mutex_unlock(&groups_lock);
    return st == REACH_SUCCESS ? i : -1;
}

/* Fills *out for a copy of a record (members NULL: the group of no
 * members). */
static void armci_handle_fill(const armci_record_t *r, ARMCI_Group *out)
{
    if (r->members == NULL) {
        *out = armci_no_group;
        return;
    }
    *out = (ARMCI_Group){.comm = r->group ? reach_group_comm(r->group) : MPI_COMM_NULL,
                         .noncoll_pgroup_comm = MPI_COMM_NULL,
                         .grp_to_abs = r->members,
                         .abs_to_grp = r->inverse,
                         .rank = r->group ? reach_group_rank(r->group) : -1,
                         .size = r->size};
}

/* The handle of a record just made (i), or of the group of no members
 * (i -1). */
static void armci_handle_of(int i, ARMCI_Group *out)
{
    armci_record_t r = {0};
    if (i >= 0)
        armci_record_at(i, &r);
    armci_handle_fill(&r, out);
}

reach_group_t *armci_group(const ARMCI_Group *group)
{
    armci_record_t r;
    int i;
    if (armci_record(group, &r, &i) != REACH_SUCCESS)
        return NULL;
    if (r.group == NULL)
        armci_error(REACH_ERR_HANDLE, "this process is not a member of the group");
    return r.group;
}

reach_group_t *armci_default_group(void)
{
    armci_record_t r;
    return armci_record_at(ARMCI_DEFAULT, &r) >= 0 ? r.group : NULL;
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
    armci_handle_of(g || members ? armci_record_add(g, n, members) : -1, group_out);
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

/* The world's handle is not freed (another call gets it again). The
 * record is marked freed under the lock; the group is freed (a collective
 * call) outside it. */
void PARMCI_Group_free(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    int i;
    reach_group_t *g = NULL;
    pthread_mutex_lock(&groups_lock);
    int st = armci_record_locked(group, &i);
    if (st == REACH_SUCCESS && i > 0) {
        g = table[i].group;
        free(table[i].inverse);
        table[i] = (armci_record_t){.members = table[i].members, .freed = 1};
        if (default_record == i)
            default_record = 0;
    }
    pthread_mutex_unlock(&groups_lock);
    armci_check(st);
    if (i <= 0)
        return;
    if (g != NULL)
        armci_check(reach_group_free(g));
    *group = armci_no_group;
}
ARMCI_ALIAS(ARMCI_Group_free)

/* Outside the group: -1. */
int PARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    ARMCI_ENTRY();
    armci_record_t r;
    int i, st = armci_record(group, &r, &i);
    if (st == REACH_SUCCESS)
        *rank = r.group ? reach_group_rank(r.group) : -1;
    return st;
}
ARMCI_ALIAS(ARMCI_Group_rank)

void PARMCI_Group_size(ARMCI_Group *group, int *size)
{
    ARMCI_ENTRY();
    armci_record_t r;
    int i;
    armci_check(armci_record(group, &r, &i));
    *size = r.size;
}
ARMCI_ALIAS(ARMCI_Group_size)

void PARMCI_Group_set_default(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    int i;
    pthread_mutex_lock(&groups_lock);
    int st = armci_record_locked(group, &i);
    if (st == REACH_SUCCESS && (i < 0 || table[i].group == NULL))
        st = armci_error(REACH_ERR_HANDLE, "this process is not a member of the group");
    if (st == REACH_SUCCESS)
        default_record = i;
    pthread_mutex_unlock(&groups_lock);
    armci_check(st);
}
ARMCI_ALIAS(ARMCI_Group_set_default)

void PARMCI_Group_get_default(ARMCI_Group *group_out)
{
    ARMCI_ENTRY();
    armci_record_t r;
    armci_check(armci_record_at(ARMCI_DEFAULT, &r) >= 0 ? REACH_SUCCESS : REACH_ERR_NOT_INIT);
    armci_handle_fill(&r, group_out);
}
ARMCI_ALIAS(ARMCI_Group_get_default)

void PARMCI_Group_get_world(ARMCI_Group *group_out)
{
    ARMCI_ENTRY();
    armci_record_t r;
    armci_check(armci_record_at(0, &r) >= 0 ? REACH_SUCCESS : REACH_ERR_NOT_INIT);
    armci_handle_fill(&r, group_out);
}
ARMCI_ALIAS(ARMCI_Group_get_world)

int PARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    ARMCI_ENTRY();
    armci_record_t r;
    int i;
    if (armci_record(group, &r, &i) != REACH_SUCCESS)
        return -1;
    if (group_rank < 0 || group_rank >= r.size) {
        armci_error(REACH_ERR_RANK, "rank %d is out of range [0, %d)", group_rank, r.size);
        return -1;
    }
    return r.members[group_rank];
}
ARMCI_ALIAS(ARMCI_Absolute_id)

/* MPI_COMM_NULL outside the group, as MPI gives it. */
MPI_Comm armci_group_comm(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    armci_record_t r;
    int i;
    if (armci_record(group, &r, &i) != REACH_SUCCESS || r.group == NULL)
        return MPI_COMM_NULL;
    return reach_group_comm(r.group);
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
        armci_handle_of(g ? armci_record_add(g, 0, NULL) : -1, new_group);
    return st;
}

int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    ARMCI_ENTRY();
    reach_group_t *p = armci_group(parent), *g = NULL;
    int st = p ? reach_group_dup(p, &g) : REACH_ERR_HANDLE;
    if (st == REACH_SUCCESS)
        armci_handle_of(g ? armci_record_add(g, 0, NULL) : -1, new_group);
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
    ARMCI_ENTRY();
    armci_check(reach_progress());
}
