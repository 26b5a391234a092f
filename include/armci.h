/* ARMCI interface of reach. Names, signatures and constant values follow
 * Global Arrays' armci.h, so that programs written for ARMCI build against
 * libarmci unchanged. Every call translates to reach.h. */
#ifndef _ARMCI_H
#define _ARMCI_H

#include <stdlib.h>

#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

typedef struct {
    void **src_ptr_array;
    void **dst_ptr_array;
    int ptr_array_len;
    int bytes;
} armci_giov_t;

typedef long armci_size_t;

/* Non-blocking request handle. data[0] is 0 for a handle that carries no
 * operation (ARMCI_INIT_HANDLE or completed); the rest holds reach's request. */
typedef struct {
    int data[4];
    double dummy[72];
} armci_hdl_t;
#define armci_req_t armci_hdl_t
#define ARMCI_INIT_HANDLE(hdl) do { (hdl)->data[0] = 0; (hdl)->data[1] = 0; \
                                    (hdl)->data[2] = 0; (hdl)->data[3] = 0; } while (0)

typedef int ARMCI_Group;
typedef int armci_domain_t;
#define ARMCI_DOMAIN_SMP 0

#define FAIL  -1
#define FAIL2 -2
#define FAIL3 -3
#define FAIL4 -4
#define FAIL5 -5
#define FAIL6 -6
#define FAIL7 -7
#define FAIL8 -8

#define ARMCI_SWAP 10
#define ARMCI_SWAP_LONG 11
#define ARMCI_FETCH_AND_ADD 12
#define ARMCI_FETCH_AND_ADD_LONG 13

#define ARMCI_ACC_OFF 36
#define ARMCI_ACC_INT (ARMCI_ACC_OFF + 1)
#define ARMCI_ACC_DBL (ARMCI_ACC_OFF + 2)
#define ARMCI_ACC_FLT (ARMCI_ACC_OFF + 3)
#define ARMCI_ACC_CPL (ARMCI_ACC_OFF + 4)
#define ARMCI_ACC_DCP (ARMCI_ACC_OFF + 5)
#define ARMCI_ACC_LNG (ARMCI_ACC_OFF + 6)

#define ARMCI_MAX_STRIDE_LEVEL 8

/* start-up and termination */
extern int ARMCI_Init(void);
extern int ARMCI_Init_args(int *argc, char ***argv);
extern int ARMCI_Initialized(void);
extern void ARMCI_Finalize(void);
extern void ARMCI_Cleanup(void);
/* Prints msg and code, ends the whole job; the exit status is never 0. */
extern void ARMCI_Error(char *msg, int code);

/* memory */
extern int ARMCI_Malloc(void *ptr_arr[], armci_size_t bytes);
extern int ARMCI_Free(void *ptr);
extern void *ARMCI_Malloc_local(armci_size_t bytes);
extern int ARMCI_Free_local(void *ptr);
extern int ARMCI_Same_node(int proc);
extern int ARMCI_Uses_shm(void);

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

/* non-blocking transfers; a NULL handle makes the operation implicit,
 * completed by ARMCI_WaitAll, ARMCI_WaitProc or a fence */
extern int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbAcc(int optype, void *scale, void *src, void *dst, int bytes, int proc,
                       armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueInt(int src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueLong(long src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueFloat(float src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_NbPutValueDouble(double src, void *dst, int proc, armci_hdl_t *nb_handle);
extern int ARMCI_Wait(armci_hdl_t *nb_handle);
/* 0 once the operation is complete, 1 while it is not */
extern int ARMCI_Test(armci_hdl_t *nb_handle);
extern int ARMCI_WaitAll(void);
extern int ARMCI_WaitProc(int proc);

/* completion and synchronization */
extern void ARMCI_Fence(int proc);
extern void ARMCI_AllFence(void);
extern void ARMCI_Barrier(void);

/* atomics: ARMCI_FETCH_AND_ADD(_LONG) puts the old value of *prem in *ploc
 * and adds extra; ARMCI_SWAP(_LONG) exchanges *ploc and *prem. */
extern int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc);

/* mutexes: each process creates num of its own; one set at a time */
extern int ARMCI_Create_mutexes(int num);
extern int ARMCI_Destroy_mutexes(void);
extern void ARMCI_Lock(int mutex, int proc);
extern void ARMCI_Unlock(int mutex, int proc);

#if defined(__cplusplus) || defined(c_plusplus)
}
#endif

#endif /* _ARMCI_H */
