/* ARMCI message layer of reach (Global Arrays' message.h names and
 * constants), carried by MPI over the communicator reach started on. */
#ifndef _MESSAGE_H_
#define _MESSAGE_H_

#include "armci.h"

#if defined(__cplusplus) || defined(c_plusplus)
extern "C" {
#endif

#define ARMCI_INT       -99
#define ARMCI_LONG      -101
#define ARMCI_LONG_LONG -102
#define ARMCI_FLOAT     -306
#define ARMCI_DOUBLE    -307

#define SCOPE_ALL     333
#define SCOPE_NODE    337
#define SCOPE_MASTERS 339

extern void armci_msg_init(int *argc, char ***argv);
extern void armci_msg_finalize(void);
extern int armci_msg_me(void);
extern int armci_msg_nproc(void);
extern void armci_msg_abort(int code);
extern double armci_timer(void);
extern void armci_msg_barrier(void);

extern void armci_msg_bcast(void *buffer, int len, int root);
extern void armci_msg_brdcst(void *buffer, int len, int root);
extern void armci_msg_snd(int tag, void *buffer, int len, int to);
extern void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
extern int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

/* op: "+", "*", "max", "min", "absmax", "absmin" */
extern void armci_msg_reduce(void *x, int n, char *op, int type);
extern void armci_msg_igop(int *x, int n, char *op);
extern void armci_msg_lgop(long *x, int n, char *op);
extern void armci_msg_llgop(long long *x, int n, char *op);
extern void armci_msg_fgop(float *x, int n, char *op);
extern void armci_msg_dgop(double *x, int n, char *op);

#if defined(__cplusplus) || defined(c_plusplus)
}
#endif

#endif
