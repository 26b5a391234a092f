/* ARMCI message layer of reach (Global Arrays' message.h names), carried
 * by MPI over the communicators of reach's groups.
 *
 * Scopes: SCOPE_ALL is every member of the group (the default group for
 * the calls without a group argument), SCOPE_NODE the members on this
 * process's node, SCOPE_MASTERS the first member on each node. Roots are
 * job-wide ranks, of members of the scope (armci_grp_clus_brdcst's
 * grp_master excepted). Reduction ops: "+", "*", "max", "min", "absmax",
 * "absmin", and for integer types "&&" ("land"), "||" ("lor"), "&"
 * ("band") and "|" ("bor", "or").
 *
 * Constant values are ARMCI-MPI's (see armci.h); as there, armci_msg_sel
 * is a function. */
#ifndef _MESSAGE_H_
#define _MESSAGE_H_

#include "armci.h"

#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

enum armci_scope_e { SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS };

enum armci_type_e { ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE };

extern void armci_msg_init(int *argc, char ***argv);
extern void armci_msg_finalize(void);
extern int armci_msg_me(void);
extern int armci_msg_nproc(void);
extern void armci_msg_abort(int code);
extern double armci_timer(void);

extern void armci_msg_barrier(void);
extern void armci_msg_group_barrier(ARMCI_Group *group);
/* The binary tree over a scope: job-wide ranks of its root, of this
 * process's parent and children (-1 where there is none). */
extern void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

extern void armci_msg_bcast(void *buffer, int len, int root);
extern void armci_msg_bcast_scope(int scope, void *buffer, int len, int root);
extern void armci_msg_brdcst(void *buffer, int len, int root);
extern void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);
/* The first member on this node broadcasts to the node's members. */
extern void armci_msg_clus_brdcst(void *buf, int len);
/* grp_master (a rank of mastergroup) broadcasts to mastergroup's members on
 * its node; grp_clus_nproc is implied by the group and not used. */
extern void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc, ARMCI_Group *mastergroup);

extern void armci_msg_snd(int tag, void *buffer, int len, int to);
extern void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
extern int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

/* Reductions: gop leaves the result everywhere in the scope, reduce only
 * at its first member. */
extern void armci_msg_reduce(void *x, int n, char *op, int type);
extern void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);
extern void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
extern void armci_msg_igop(int *x, int n, char *op);
extern void armci_msg_lgop(long *x, int n, char *op);
extern void armci_msg_llgop(long long *x, int n, char *op);
extern void armci_msg_fgop(float *x, int n, char *op);
extern void armci_msg_dgop(double *x, int n, char *op);
extern void armci_msg_clus_igop(int *x, int n, char *op);
extern void armci_msg_clus_lgop(long *x, int n, char *op);
extern void armci_msg_clus_llgop(long long *x, int n, char *op);
extern void armci_msg_clus_fgop(float *x, int n, char *op);
extern void armci_msg_clus_dgop(double *x, int n, char *op);
extern void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group);
extern void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
extern void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
extern void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
extern void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
extern void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);

/* Select: x holds n bytes whose first element (of type) is compared; the
 * buffer of the contributing process with the "max" or "min" value reaches
 * every process of the scope (lowest rank on a tie). */
extern void armci_msg_sel(void *x, int n, char *op, int type, int contribute);
extern void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);

/* ptr_ar[n]: each member sets its own entry; afterwards all hold all. */
extern void armci_exchange_address(void *ptr_ar[], int n);
extern void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group);

#if defined(__cplusplus) || defined(c_plusplus)
}
#endif

#endif
