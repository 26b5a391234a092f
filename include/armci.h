/* ARMCI interface of reach. Names and signatures follow Global Arrays'
 * armci.h, so that programs written for ARMCI build against libarmci
 * unchanged; types, layouts and constant values are ARMCI-MPI's (below).
 * Every call translates to reach.h. */
#ifndef _ARMCI_H
#define _ARMCI_H

#include <mpi.h>
#include <stdlib.h>

#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

/* ARMCI-MPI's armci.h is Debian's (libarmci-mpi-dev): a program or library
 * compiled against it -- Debian's prebuilt Global Arrays among them --
 * links against reach's libarmci without a rebuild. */

/* A vector descriptor: ptr_array_len segments of bytes each. */
typedef struct {
    void **src_ptr_array;
    void **dst_ptr_array;
    int bytes;
    int ptr_array_len;
} armci_giov_t;

typedef long armci_size_t;

/* Non-blocking request handle (ARMCI-MPI's layout). target is the rank the
 * handle's operations went to (-1 while it carries none), aggregate is 1
 * for an aggregate handle. A wait completes every operation to the
 * handle's target (all targets for an aggregate handle), as in ARMCI-MPI. */
typedef struct armci_hdl_s {
    int target;
    int aggregate;
} armci_hdl_t;
#define armci_req_t armci_hdl_t

/* A group handle (ARMCI-MPI's layout). reach fills it and owns what it
 * points to until ARMCI_Group_free: comm is the group's communicator
 * (MPI_COMM_NULL in a process outside the group), grp_to_abs the members'
 * job-wide ranks, abs_to_grp each job-wide rank's rank in the group (-1
 * for others), rank this process's rank in it (-1 outside), size the
 * number of members. noncoll_pgroup_comm is MPI_COMM_NULL. Copies of a
 * handle name the same group. */
typedef struct {
    MPI_Comm comm;
    MPI_Comm noncoll_pgroup_comm;
    int *grp_to_abs;
    int *abs_to_grp;
    int rank;
    int size;
} ARMCI_Group;

typedef int armci_domain_t;
enum armci_domain_e { ARMCI_DOMAIN_SMP };

#define FAIL -1
#define FAIL2 -2
#define FAIL3 -3
#define FAIL4 -4
#define FAIL5 -5
#define FAIL6 -6
#define FAIL7 -7
#define FAIL8 -8

enum ARMCI_Rmw_e { ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, ARMCI_SWAP, ARMCI_SWAP_LONG };

/* Accumulate types: int, long, float, double, single and double complex. */
enum ARMCI_Acc_e { ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT, ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP };

#define ARMCI_MAX_STRIDE_LEVEL 8

/* start-up and termination */
extern int ARMCI_Init(void);
extern int ARMCI_Init_args(int *argc, char ***argv);
/* Starts on comm's processes instead of MPI_COMM_WORLD's. */
extern int ARMCI_Init_mpi_comm(MPI_Comm comm);
/* ARMCI-MPI's threaded start-up: armci_requested is an MPI_THREAD_* level.
 * MPI not running yet is started at that level (and ended by
 * ARMCI_Finalize); a running MPI that provides less is refused. */
extern int ARMCI_Init_thread(int armci_requested);
extern int ARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
extern int ARMCI_Initialized(void);
extern int ARMCI_Finalize(void);
/* reach's shared memory has no name in the file system: nothing to clean. */
extern void ARMCI_Cleanup(void);
/* Prints msg and code, ends the whole job; the exit status is never 0. */
extern void ARMCI_Error(const char *msg, int code);

/* memory: collective over the default group; ptr_arr has one entry per
 * member */
extern int ARMCI_Malloc(void *ptr_arr[], armci_size_t bytes);
extern int ARMCI_Free(void *ptr);
extern int ARMCI_Malloc_group(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group);
extern int ARMCI_Free_group(void *ptr, ARMCI_Group *group);
/* device is accepted and ignored: memory is host memory */
extern int ARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
extern int ARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device);
extern int ARMCI_Free_memdev(void *ptr);
extern int ARMCI_Free_group_memdev(void *ptr, ARMCI_Group *group);
extern void *ARMCI_Malloc_local(armci_size_t bytes);
extern int ARMCI_Free_local(void *ptr);
extern void ARMCI_Set_shm_limit(unsigned long shmemlimit);
extern int ARMCI_Same_node(int proc);
extern int ARMCI_Uses_shm(void);
extern int ARMCI_Uses_shm_grp(ARMCI_Group *group);
/* Direct load/store access to local memory needs no bracketing here. */
extern void ARMCI_Access_begin(void *ptr);
extern void ARMCI_Access_end(void *ptr);
/* Local copy of n bytes. */
extern void ARMCI_Copy(void *src, void *dst, int n);

/* contiguous transfers */
extern int ARMCI_Put(void *src, void *dst, int bytes, int proc);
extern int ARMCI_Get(void *src, void *dst, int bytes, int proc);
extern int ARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc);
/* Puts the data, then sets *f = v at proc; the flag is never seen before the data. */
extern int ARMCI_Put_flag(void *src, void *dst, int bytes, int *f, int v, int proc);

extern int ARMCI_PutValueInt(int src, void *dst, int proc);
extern int ARMCI_PutValueLong(long src, void *dst, int proc);
extern int ARMCI_PutValueFloat(float src, void *dst, int proc);
extern int ARMCI_PutValueDouble(double src, void *dst, int proc);
extern int ARMCI_GetValueInt(void *src, int proc);
extern long ARMCI_GetValueLong(void *src, int proc);
extern float ARMCI_GetValueFloat(void *src, int proc);
extern double ARMCI_GetValueDouble(void *src, int proc);

/* strided transfers: count[0] bytes, count[1..stride_levels] repetitions,
 * stride arrays in bytes (stride_levels entries each) */
extern int ARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                      int stride_levels, int proc);
extern int ARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                      int stride_levels, int proc);
extern int ARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[],
                      int count[], int stride_levels, int proc);
/* PutS, then *flag = val at proc, never seen before the data */
extern int ARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                           int stride_levels, int *flag, int val, int proc);
extern int ARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                               int stride_levels, int *flag, int val, int proc);
/* local strided copies: ptr strided, buf contiguous */
extern void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);
extern void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf);

/* vector transfers */
extern int ARMCI_PutV(armci_giov_t darr[], int len, int proc);
extern int ARMCI_GetV(armci_giov_t darr[], int len, int proc);
extern int ARMCI_AccV(int op, void *scale, armci_giov_t darr[], int len, int proc);

/* non-blocking transfers; a NULL handle makes the operation implicit,
 * completed by ARMCI_WaitAll, ARMCI_WaitProc or a fence */
extern int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                        int stride_levels, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbGetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                        int stride_levels, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbAccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                        int dst_stride_arr[], int count[], int stride_levels, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbGetV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbAccV(int op, void *scale, armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *nb_handle);
/* Makes a handle that carries no operation; a wait on it returns at once. */
extern void ARMCI_INIT_HANDLE(armci_hdl_t *nb_handle);
extern int ARMCI_Wait(armci_hdl_t *nb_handle);
/* 0 once the operation is complete, 1 while it is not */
extern int ARMCI_Test(armci_hdl_t *nb_handle);
extern int ARMCI_WaitAll(void);
extern int ARMCI_WaitProc(int proc);
/* Operations issued on an aggregate handle are completed together by one
 * ARMCI_Wait. */
extern void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);
extern void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);

/* completion and synchronization */
extern void ARMCI_Fence(int proc);
extern void ARMCI_AllFence(void);
extern void ARMCI_GroupFence(ARMCI_Group *group);
extern void ARMCI_Barrier(void);
/* armci_notify completes this process's operations to proc and counts one
 * notification there (returns the number sent); armci_notify_wait waits
 * for the next one from proc (*pval: its number; returns the number
 * received). */
extern int armci_notify(int proc);
extern int armci_notify_wait(int proc, int *pval);

/* atomics: ARMCI_FETCH_AND_ADD(_LONG) puts the old value of *prem in *ploc
 * and adds extra; ARMCI_SWAP(_LONG) exchanges *ploc and *prem. */
extern int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc);

/* mutexes: each process creates num of its own; one set at a time */
extern int ARMCI_Create_mutexes(int num);
extern int ARMCI_Destroy_mutexes(void);
extern void ARMCI_Lock(int mutex, int proc);
extern void ARMCI_Unlock(int mutex, int proc);

/* groups: ARMCI_Group_create is collective over the default group,
 * _create_child over parent; pid_list holds ranks of that group. A process
 * not in the list receives a handle too: its rank there is -1, while the
 * size and ARMCI_Absolute_id answer for the members. A freed handle, and
 * the result of a split that leaves the process out, is the group of no
 * members (size 0, rank -1). */
extern void ARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out);
extern void ARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *group_parent);
extern void ARMCI_Group_free(ARMCI_Group *group);
extern int ARMCI_Group_rank(ARMCI_Group *group, int *rank);
extern void ARMCI_Group_size(ARMCI_Group *group, int *size);
extern void ARMCI_Group_set_default(ARMCI_Group *group);
extern void ARMCI_Group_get_default(ARMCI_Group *group_out);
extern void ARMCI_Group_get_world(ARMCI_Group *group_out);
extern int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank);
/* The group's MPI communicator (for Global Arrays). */
extern MPI_Comm armci_group_comm(ARMCI_Group *group);

/* locality: domain ARMCI_DOMAIN_SMP is the node */
extern int armci_domain_nprocs(armci_domain_t domain, int id);
extern int armci_domain_id(armci_domain_t domain, int glob_proc_id);
extern int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id);
extern int armci_domain_my_id(armci_domain_t domain);
extern int armci_domain_count(armci_domain_t domain);
extern int armci_domain_same_id(armci_domain_t domain, int proc);

/* Global Arrays' configure looks for this; strided descriptors need no
 * set-up here. */
extern void armci_stride_info_init(void);

#if defined(__cplusplus) || defined(c_plusplus)
}
#endif

/* As in ARMCI-MPI, armci.h brings the message layer and the profiling
 * interface (PARMCI_*) with it. */
#include "message.h"
#include "parmci.h"

#endif /* _ARMCI_H */
