/* ARMCI extensions (ARMCI-MPI's armcix.h names): group split and duplicate,
 * mutex sets that libraries can create alongside the program's own, and an
 * explicit progress call. */
#ifndef _ARMCIX_H_
#define _ARMCIX_H_

#include "armci.h"

#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

/* Collective over parent. A negative color leaves the process out
 * (new_group is the group of no members). */
extern int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
extern int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/* A set of count mutexes on every member of pgroup (collective over it);
 * proc in the calls below is a rank of that group, which must outlive the
 * set. */
typedef struct armcix_mutex_hdl_s *armcix_mutex_hdl_t;
extern armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
extern int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
extern void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
/* 0 if the mutex was taken, 1 if it is held elsewhere; never waits. */
extern int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
extern void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);

/* Operations progress on their own; this returns at once. */
extern void ARMCIX_Progress(void);

#if defined(__cplusplus) || defined(c_plusplus)
}
#endif
#endif
