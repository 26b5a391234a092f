/* Profiling interface: every ARMCI_ call of armci.h is also defined as
 * PARMCI_, with the same signature; the ARMCI_ names are weak aliases, so a
 * profiling library can define ARMCI_X, do its work and call PARMCI_X. */
#ifndef _PARMCI_H
#define _PARMCI_H

/* This directory's armci.h, even where another ARMCI's lies in the system's
 * include directory. */
#include "armci.h"

#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

extern int PARMCI_Init(void);
extern int PARMCI_Init_args(int *argc, char ***argv);
extern int PARMCI_Init_mpi_comm(MPI_Comm comm);
extern int PARMCI_Init_thread(int armci_requested);
extern int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm);
extern int PARMCI_Initialized(void);
extern int PARMCI_Finalize(void);
extern void PARMCI_Cleanup(void);
extern void PARMCI_Error(const char *msg, int code);
extern int PARMCI_Malloc(void *ptr_arr[], armci_size_t bytes);
extern int PARMCI_Free(void *ptr);
extern int PARMCI_Malloc_group(void *ptr_arr[], armci_size_t bytes, ARMCI_Group *group);
extern int PARMCI_Free_group(void *ptr, ARMCI_Group *group);
extern int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device);
extern int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group, const char *device);
extern int PARMCI_Free_memdev(void *ptr);
extern int PARMCI_Free_group_memdev(void *ptr, ARMCI_Group *group);
extern void *PARMCI_Malloc_local(armci_size_t bytes);
extern int PARMCI_Free_local(void *ptr);
extern void PARMCI_Set_shm_limit(unsigned long shmemlimit);
extern int PARMCI_Same_node(int proc);
extern int PARMCI_Uses_shm(void);
extern int PARMCI_Uses_shm_grp(ARMCI_Group *group);
extern void PARMCI_Access_begin(void *ptr);
extern void PARMCI_Access_end(void *ptr);
extern void PARMCI_Copy(void *src, void *dst, int n);
extern int PARMCI_Put(void *src, void *dst, int bytes, int proc);
extern int PARMCI_Get(void *src, void *dst, int bytes, int proc);
extern int PARMCI_Acc(int optype, void *scale, void *src, void *dst, int bytes, int proc);
extern int PARMCI_Put_flag(void *src, void *dst, int bytes, int *f, int v, int proc);
extern int PARMCI_PutValueInt(int src, void *dst, int proc);
extern int PARMCI_PutValueLong(long src, void *dst, int proc);
extern int PARMCI_PutValueFloat(float src, void *dst, int proc);
extern int PARMCI_PutValueDouble(double src, void *dst, int proc);
extern int PARMCI_GetValueInt(void *src, int proc);
extern long PARMCI_GetValueLong(void *src, int proc);
extern float PARMCI_GetValueFloat(void *src, int proc);
extern double PARMCI_GetValueDouble(void *src, int proc);
extern int PARMCI_PutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                       int stride_levels, int proc);
extern int PARMCI_GetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                       int stride_levels, int proc);
extern int PARMCI_AccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                       int dst_stride_arr[], int count[], int stride_levels, int proc);
extern int PARMCI_PutS_flag(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                            int stride_levels, int *flag, int val, int proc);
extern int PARMCI_PutS_flag_dir(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                                int stride_levels, int *flag, int val, int proc);
extern int PARMCI_PutV(armci_giov_t darr[], int len, int proc);
extern int PARMCI_GetV(armci_giov_t darr[], int len, int proc);
extern int PARMCI_AccV(int op, void *scale, armci_giov_t darr[], int len, int proc);
extern int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbPutS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                         int stride_levels, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbGetS(void *src_ptr, int src_stride_arr[], void *dst_ptr, int dst_stride_arr[], int count[],
                         int stride_levels, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbAccS(int optype, void *scale, void *src_ptr, int src_stride_arr[], void *dst_ptr,
                         int dst_stride_arr[], int count[], int stride_levels, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbPutV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbGetV(armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbAccV(int op, void *scale, armci_giov_t darr[], int len, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int PARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *nb_handle);
extern void PARMCI_INIT_HANDLE(armci_hdl_t *nb_handle);
extern int PARMCI_Wait(armci_hdl_t *nb_handle);
extern int PARMCI_Test(armci_hdl_t *nb_handle);
extern int PARMCI_WaitAll(void);
extern int PARMCI_WaitProc(int proc);
extern void PARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);
extern void PARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *nb_handle);
extern void PARMCI_Fence(int proc);
extern void PARMCI_AllFence(void);
extern void PARMCI_GroupFence(ARMCI_Group *group);
extern void PARMCI_Barrier(void);
extern int PARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc);
extern int PARMCI_Create_mutexes(int num);
extern int PARMCI_Destroy_mutexes(void);
extern void PARMCI_Lock(int mutex, int proc);
extern void PARMCI_Unlock(int mutex, int proc);
extern void PARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out);
extern void PARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out, ARMCI_Group *group_parent);
extern void PARMCI_Group_free(ARMCI_Group *group);
extern int PARMCI_Group_rank(ARMCI_Group *group, int *rank);
extern void PARMCI_Group_size(ARMCI_Group *group, int *size);
extern void PARMCI_Group_set_default(ARMCI_Group *group);
extern void PARMCI_Group_get_default(ARMCI_Group *group_out);
extern void PARMCI_Group_get_world(ARMCI_Group *group_out);
extern int PARMCI_Absolute_id(ARMCI_Group *group, int group_rank);
extern int parmci_notify(int proc);
extern int parmci_notify_wait(int proc, int *pval);
extern void parmci_msg_barrier(void);
extern void parmci_msg_group_barrier(ARMCI_Group *group);

#if defined(__cplusplus) || defined(c_plusplus)
}
#endif
#endif
