/* Shared by the files of the ARMCI layer. Each ARMCI_X is defined as
 * PARMCI_X and aliased weakly, so that a profiling library can interpose. */
#ifndef REACH_ARMCI_INTERNAL_H
#define REACH_ARMCI_INTERNAL_H

#pragma GCC visibility push(default)
#include "armci.h"
#include "armcix.h"
#include "message.h"
#include "parmci.h"
#pragma GCC visibility pop

#include "reach.h"
#include "reach_mpi.h"

#define ARMCI_ALIAS(name) extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)));

/* The first statement of every entry point that can fail: until the
 * function returns, every message about a failure, reach's included, names
 * it ("ARMCI_Put: rank 2 is out of range"). The name is the function's own
 * without the profiling prefix (PARMCI_Put is the application's ARMCI_Put,
 * parmci_notify its armci_notify); when an entry point calls another, the
 * outer one names the call.
 *
 * Threads need nothing here: when MPI runs at MPI_THREAD_MULTIPLE, each
 * reach call the ARMCI call makes holds reach's own call lock. */
typedef struct armci_entry {
    const char *name; /* NULL: not the outermost entry point */
} armci_entry_t;
#define ARMCI_ENTRY() armci_entry_t armci_entry_ __attribute__((cleanup(armci_leave), unused)) = armci_enter(__func__)
/* The outermost entry point the thread is in; NULL outside them. reach asks
 * for it only when it reports a failure (reach_set_caller_hook). Initial-exec
 * TLS: one load relative to the thread pointer on every call. */
extern _Thread_local const char *armci_current __attribute__((tls_model("initial-exec"), visibility("hidden")));
static inline armci_entry_t armci_enter(const char *func)
{
    if (armci_current != NULL)
        return (armci_entry_t){NULL};
    armci_current = func + (func[0] == 'P' || func[0] == 'p');
    return (armci_entry_t){armci_current};
}
static inline void armci_leave(const armci_entry_t *entered)
{
    if (entered->name != NULL)
        armci_current = NULL;
}
/* The name of the entry point the calling thread is in. */
const char *armci_call(void) __attribute__((visibility("hidden")));

/* Ends the job when a call without a status fails. */
void armci_check(int status) __attribute__((visibility("hidden")));
/* One line naming the call and the problem (unless REACH_QUIET); returns
 * status. For checks the ARMCI layer makes itself (ARMCI codes, int sizes). */
int armci_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), visibility("hidden")));

/* The reach group behind an ARMCI group handle; NULL (after a message) if
 * the handle is not a live group of this process. */
reach_group_t *armci_group(const ARMCI_Group *group) __attribute__((visibility("hidden")));
/* The default group (world unless ARMCI_Group_set_default changed it). */
reach_group_t *armci_default_group(void) __attribute__((visibility("hidden")));
void armci_groups_reset(void) __attribute__((visibility("hidden")));

/* The reach type of an ARMCI_ACC_* code; -1 (after a message) if none. */
int armci_acc_type(int optype) __attribute__((visibility("hidden")));

/* Records in a non-blocking call's handle (if any) that an operation went
 * to proc, if st (the call's status) is success; returns st. */
int armci_mark(armci_hdl_t *h, int st, int proc) __attribute__((visibility("hidden")));

/* Shared by the files of the message layer (message.c, armci_msg_reduce.c). */
/* Ends the job with "CALL: " and what fmt says. */
_Noreturn void armci_msg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), visibility("hidden")));
/* The group of a call: the given one, else the default group. */
reach_group_t *armci_msg_group(ARMCI_Group *group) __attribute__((visibility("hidden")));
/* The communicator of a scope; MPI_COMM_NULL if this process is outside it
 * (a non-master for SCOPE_MASTERS). Without reach started, only SCOPE_ALL
 * of the world exists. */
MPI_Comm armci_msg_comm(int scope, ARMCI_Group *group) __attribute__((visibility("hidden")));
static inline reach_scope_t armci_msg_scope(int scope)
{
    switch (scope) {
    case SCOPE_ALL: return REACH_SCOPE_ALL;
    case SCOPE_NODE: return REACH_SCOPE_NODE;
    case SCOPE_MASTERS: return REACH_SCOPE_MASTERS;
    default: armci_msg_die("unknown scope (SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS)");
    }
}
#endif
