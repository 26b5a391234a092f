/* The ARMCI layer: each call translates to reach.h; it keeps no algorithm of
 * its own. Calls that return void cannot report a bad argument, so they end
 * the job instead (as ARMCI itself does). This file holds what every entry
 * point shares (the call's name, error reports, the ARMCI lock), start-up and
 * termination, memory, and atomics and mutexes; contiguous transfers are in
 * armci_contig.c, completion in armci_completion.c, strided and vector
 * transfers in armci_noncontig.c, groups in armci_group.c. */
#include "armci_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static reach_mutexes_t *armci_mutexes;

_Thread_local const char *armci_current;

static const char *armci_caller(void)
{
    return armci_current;
}

/* From the moment libarmci is loaded, reach's messages name the ARMCI call
 * they fail in. */
__attribute__((constructor)) static void armci_name_calls(void)
{
    reach_set_caller_hook(armci_caller);
}

const char *armci_call(void)
{
    return armci_current ? armci_current : "ARMCI";
}

void armci_check(int status)
{
    if (status != REACH_SUCCESS) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s failed: %s", armci_call(), reach_strerror(status));
        reach_abort(1, msg);
    }
}

int armci_error(int status, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return reach_report(status, armci_call(), msg);
}

/* ---- start-up and termination ------------------------------------------- */

int PARMCI_Init(void)
{
    ARMCI_ENTRY();
    return reach_init(NULL, NULL);
}
ARMCI_ALIAS(ARMCI_Init)

int PARMCI_Init_args(int *argc, char ***argv)
{
    ARMCI_ENTRY();
    return reach_init(argc, argv);
}
ARMCI_ALIAS(ARMCI_Init_args)

int PARMCI_Init_mpi_comm(MPI_Comm comm)
{
    ARMCI_ENTRY();
    return reach_init_comm(comm) == REACH_SUCCESS; /* GA's convention; ARMCI-MPI's is 0 */
}
ARMCI_ALIAS(ARMCI_Init_mpi_comm)

/* ARMCI-MPI's threaded start-up: MPI, if it is not running yet, is started
 * at the level asked (and ended by ARMCI_Finalize); if it is, it must
 * provide that level. reach's own server thread never calls MPI. Whether
 * the program's threads may call ARMCI at once follows MPI's level, as for
 * ARMCI_Init (reach_init asks it). */
static int armci_mpi_owned;

static int armci_thread_start(int level)
{
    if (level != MPI_THREAD_SINGLE && level != MPI_THREAD_FUNNELED && level != MPI_THREAD_SERIALIZED &&
        level != MPI_THREAD_MULTIPLE)
        return armci_error(REACH_ERR_ARG, "%d is not an MPI_THREAD_* level", level);
    int inited = 0, provided = MPI_THREAD_SINGLE;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init_thread(NULL, NULL, level, &provided) != MPI_SUCCESS)
            return armci_error(REACH_ERR_SYSTEM, "MPI_Init_thread failed");
        armci_mpi_owned = 1;
    } else {
        MPI_Query_thread(&provided);
    }
    if (provided < level)
        return armci_error(REACH_ERR_ARG, "MPI provides thread level %d, below the %d asked", provided, level);
    return REACH_SUCCESS;
}

int PARMCI_Init_thread(int armci_requested)
{
    ARMCI_ENTRY();
    int st = armci_thread_start(armci_requested);
    return st != REACH_SUCCESS ? st : reach_init(NULL, NULL);
}
ARMCI_ALIAS(ARMCI_Init_thread)

int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm)
{
    ARMCI_ENTRY();
    int st = armci_thread_start(armci_requested);
    return st != REACH_SUCCESS ? st : reach_init_comm(comm);
}
ARMCI_ALIAS(ARMCI_Init_thread_comm)

int PARMCI_Initialized(void)
{
    return reach_initialized();
}
ARMCI_ALIAS(ARMCI_Initialized)

int PARMCI_Finalize(void)
{
    ARMCI_ENTRY();
    armci_mutexes = NULL; /* reach_finalize destroys every mutex set */
    armci_groups_reset();
    int st = reach_initialized() ? reach_finalize() : REACH_SUCCESS;
    int fin = 0;
    MPI_Finalized(&fin);
    if (armci_mpi_owned && !fin)
        MPI_Finalize();
    armci_mpi_owned = 0;
    return st;
}
ARMCI_ALIAS(ARMCI_Finalize)

void PARMCI_Cleanup(void)
{
}
ARMCI_ALIAS(ARMCI_Cleanup)

void PARMCI_Error(const char *msg, int code)
{
    char line[512];
    snprintf(line, sizeof line, "ARMCI_Error: %s %d", msg ? msg : "", code);
    reach_abort(code, line);
}
ARMCI_ALIAS(ARMCI_Error)

/* ---- memory -------------------------------------------------------------- */

/* A negative size becomes a size_t too large for any allocation, which
 * reach rejects on every member alike. */
int PARMCI_Malloc_group(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group)
{
    ARMCI_ENTRY();
    reach_group_t *g = armci_group(group);
    return g ? reach_malloc_group(g, (size_t)bytes, ptr_arr) : REACH_ERR_HANDLE;
}
ARMCI_ALIAS(ARMCI_Malloc_group)

int PARMCI_Free_group(void *ptr, ARMCI_Group *group)
{
    ARMCI_ENTRY();
    reach_group_t *g = armci_group(group);
    return g ? reach_free_group(g, ptr) : REACH_ERR_HANDLE;
}
ARMCI_ALIAS(ARMCI_Free_group)

int PARMCI_Malloc(void *ptr_arr[], armci_size_t bytes)
{
    ARMCI_ENTRY();
    reach_group_t *g = armci_default_group();
    return g ? reach_malloc_group(g, (size_t)bytes, ptr_arr) : REACH_ERR_NOT_INIT;
}
ARMCI_ALIAS(ARMCI_Malloc)

int PARMCI_Free(void *ptr)
{
    ARMCI_ENTRY();
    reach_group_t *g = armci_default_group();
    return g ? reach_free_group(g, ptr) : REACH_ERR_NOT_INIT;
}
ARMCI_ALIAS(ARMCI_Free)

int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    ARMCI_ENTRY();
    (void)device;
    return PARMCI_Malloc(ptr_arr, bytes);
}
ARMCI_ALIAS(ARMCI_Malloc_memdev)

int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device)
{
    ARMCI_ENTRY();
    (void)device;
    return PARMCI_Malloc_group(ptr_arr, bytes, group);
}
ARMCI_ALIAS(ARMCI_Malloc_group_memdev)

int PARMCI_Free_memdev(void *ptr)
{
    ARMCI_ENTRY();
    return PARMCI_Free(ptr);
}
ARMCI_ALIAS(ARMCI_Free_memdev)

int PARMCI_Free_group_memdev(void *ptr, ARMCI_Group *group)
{
    ARMCI_ENTRY();
    return PARMCI_Free_group(ptr, group);
}
ARMCI_ALIAS(ARMCI_Free_group_memdev)

void *PARMCI_Malloc_local(armci_size_t bytes)
{
    ARMCI_ENTRY();
    if (bytes < 0) {
        armci_error(REACH_ERR_ARG, "size %ld is negative", bytes);
        return NULL;
    }
    return reach_malloc_local((size_t)bytes);
}
ARMCI_ALIAS(ARMCI_Malloc_local)

int PARMCI_Free_local(void *ptr)
{
    ARMCI_ENTRY();
    return reach_free_local(ptr);
}
ARMCI_ALIAS(ARMCI_Free_local)

void PARMCI_Set_shm_limit(unsigned long shmemlimit)
{
    ARMCI_ENTRY();
    armci_check(reach_set_shm_limit(shmemlimit));
}
ARMCI_ALIAS(ARMCI_Set_shm_limit)

int PARMCI_Same_node(int proc)
{
    return reach_same_node(proc);
}
ARMCI_ALIAS(ARMCI_Same_node)

int PARMCI_Uses_shm(void)
{
    return 1;
}
ARMCI_ALIAS(ARMCI_Uses_shm)

int PARMCI_Uses_shm_grp(ARMCI_Group *group)
{
    ARMCI_ENTRY();
    return armci_group(group) != NULL;
}
ARMCI_ALIAS(ARMCI_Uses_shm_grp)

void PARMCI_Access_begin(void *ptr)
{
    (void)ptr;
}
ARMCI_ALIAS(ARMCI_Access_begin)

void PARMCI_Access_end(void *ptr)
{
    (void)ptr;
}
ARMCI_ALIAS(ARMCI_Access_end)

void PARMCI_Copy(void *src, void *dst, int n)
{
    if (n > 0)
        memcpy(dst, src, (size_t)n);
}
ARMCI_ALIAS(ARMCI_Copy)

/* ---- atomics and mutexes ----------------------------------------------------- */

int PARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc)
{
    ARMCI_ENTRY();
    if (op != ARMCI_FETCH_AND_ADD && op != ARMCI_FETCH_AND_ADD_LONG && op != ARMCI_SWAP && op != ARMCI_SWAP_LONG)
        return armci_error(REACH_ERR_TYPE, "%d is not an ARMCI read-modify-write operation", op);
    if (ploc == NULL)
        return armci_error(REACH_ERR_ARG, "ploc is NULL");
    int64_t old = 0;
    int st;
    switch (op) {
    case ARMCI_FETCH_AND_ADD: return reach_fetch_add_i32(prem, extra, ploc, proc);
    case ARMCI_SWAP: return reach_swap_i32(prem, *(int *)ploc, ploc, proc);
    case ARMCI_FETCH_AND_ADD_LONG: st = reach_fetch_add_i64(prem, extra, &old, proc); break;
    default: st = reach_swap_i64(prem, *(long *)ploc, &old, proc); break;
    }
    if (st == REACH_SUCCESS)
        *(long *)ploc = (long)old;
    return st;
}
ARMCI_ALIAS(ARMCI_Rmw)

int PARMCI_Create_mutexes(int num)
{
    ARMCI_ENTRY();
    if (armci_mutexes != NULL)
        return armci_error(REACH_ERR_MUTEX, "mutexes already exist; call ARMCI_Destroy_mutexes first");
    return reach_mutexes_create(num, &armci_mutexes);
}
ARMCI_ALIAS(ARMCI_Create_mutexes)

int PARMCI_Destroy_mutexes(void)
{
    ARMCI_ENTRY();
    int st = reach_mutexes_destroy(armci_mutexes);
    if (st == REACH_SUCCESS)
        armci_mutexes = NULL;
    return st;
}
ARMCI_ALIAS(ARMCI_Destroy_mutexes)

void PARMCI_Lock(int mutex, int proc)
{
    ARMCI_ENTRY();
    armci_check(reach_mutex_lock(armci_mutexes, mutex, proc));
}
ARMCI_ALIAS(ARMCI_Lock)

void PARMCI_Unlock(int mutex, int proc)
{
    ARMCI_ENTRY();
    armci_check(reach_mutex_unlock(armci_mutexes, mutex, proc));
}
ARMCI_ALIAS(ARMCI_Unlock)
