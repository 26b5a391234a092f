/* What the layers above (sync, api) need of the network beyond moving data
 * (core/rma.h): handlers for requests whose meaning is theirs, calls to
 * them, pushes to a waiting process, the counts of writes that the combined
 * barrier compares, the node barrier, and the network's name. Each is the
 * protocol's call (transport/am/am.h) or shared memory's
 * (transport/shm/shm.h) under a name of this layer. */
#ifndef REACH_CORE_SERVICE_H
#define REACH_CORE_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "base/state.h"
#include "transport/am/am_target.h"

/* A request being served at its target by a registered handler, and the
 * handler (which returns 1 when done, 0 to be retried later). */
typedef am_target_t svc_target_t;
typedef am_handler_fn svc_handler_fn;

/* Registers a handler, before the network starts and in the same order on
 * every rank; returns its id. counted: a request without answer is a
 * write, complete at the target after a fence; otherwise it is a signal. */
int svc_handler(svc_handler_fn fn, int counted) REACH_HIDDEN;
/* Sends a request to handler id at rank (on another node). With answer,
 * waits and returns the answer's value, its data (answer_len bytes) in
 * answer_buf. */
int64_t svc_call(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, const void *data, size_t len, int answer,
                 void *answer_buf, size_t answer_len) REACH_HIDDEN;
/* In a handler: the buffer of len bytes its answer carries. */
void *svc_answer(svc_target_t *t, size_t len) REACH_HIDDEN;

/* A release (core/rma.h's rma_release) whose last step is a message to
 * via: svc_release_but(via) completes this process's writes to every rank
 * but via, and returns the gate to give svc_call_after(via, ...), whose
 * handler runs only after this process's writes to via have completed
 * there, or svc_push_after(via, ...), which via's svc_wait_push returns
 * only then. So a lock passed through via travels behind the data, and no
 * fence comes back first. svc_written names a rank of another node
 * written since the last release, prefer if it was (-1: none). */
void svc_call_after(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, uint32_t gate) REACH_HIDDEN;
void svc_push_after(int rank, int64_t value, uint32_t gate) REACH_HIDDEN;
int svc_written(int prefer) REACH_HIDDEN;
uint32_t svc_release_but(int via) REACH_HIDDEN;

/* A push: one message from a process to rank's application thread (on
 * another node), which waits for it with svc_wait_push (one at a time)
 * and gets its value. svc_server_push is the same from a handler. */
void svc_push(int rank, int64_t value) REACH_HIDDEN;
void svc_server_push(int rank, int64_t value) REACH_HIDDEN;
int64_t svc_wait_push(void) REACH_HIDDEN;

/* Buntinas03's op_init and op_done: writes sent to rank since start-up (0
 * to a rank of this node), and waiting until this process has completed
 * `count` writes from all origins (both modulo 2^32). svc_completed_to:
 * rank has completed this process's writes up to `upto` (svc_sent_to's
 * count then), so that no later fence asks for them. */
uint32_t svc_sent_to(int rank) REACH_HIDDEN;
void svc_wait_completed(uint32_t count) REACH_HIDDEN;
void svc_completed_to(int rank, uint32_t upto) REACH_HIDDEN;

/* Barrier of the node's processes, in shared memory. */
void svc_node_barrier(void) REACH_HIDDEN;

/* One line naming the network backend, for reach_transports(). */
const char *svc_describe(void) REACH_HIDDEN;

#endif
