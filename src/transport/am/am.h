/* reach's protocol to ranks on other nodes, over any network backend
 * (transport/net.h): Nieplocha02's client-server protocol (the papers' short
 * names are docs/references.md's). Writes (put, accumulate, packed strided
 * and vector chunks) are active messages to the target's server thread,
 * which applies them to its own arena with the code the node uses
 * (transport/shm), under the same stripe locks: one atomicity domain. Gets
 * read the target's memory through the network. Writes are counted, not
 * answered (Buntinas03's op_init and op_done), and a fence asks the target
 * to answer once it has completed them. The layers above reach this only
 * through core/ (rma.h's operations, service.h's handlers and pushes).
 *
 * Every call to a rank is blocking unless said: it returns when local
 * buffers may be reused (a get: with the data); a write is complete at the
 * target after am_flush. Failures end the job (the backend says why). */
#ifndef REACH_TRANSPORT_AM_H
#define REACH_TRANSPORT_AM_H

#include <stddef.h>
#include <stdint.h>

#include "base/state.h"
#include "base/strided.h"
#include "base/waitword.h"
#include "transport/am/am_target.h"

/* Collective: starts the network backend and the server thread (only
 * when the job spans more than one node). */
int am_init(void) REACH_HIDDEN;
/* Collective: completes what is in flight, stops the server, closes. */
void am_finalize(void) REACH_HIDDEN;
/* One line naming the backend, for reach_transports(). */
const char *am_describe(void) REACH_HIDDEN;

void am_put(int rank, const void *src, uintptr_t raddr, size_t bytes) REACH_HIDDEN;
/* Transfers in flight: a put that returns at once (src stays unchanged)
 * and a get that returns before its data has arrived. Each returns 0 if
 * it is complete already, else a ticket: am_complete(rank, ticket) waits
 * for it, am_test asks. am_flush_local, a fence and the next operation to
 * rank but a get (location consistency) complete every one to rank. */
uint64_t am_put_nbi(int rank, const void *src, uintptr_t raddr, size_t bytes) REACH_HIDDEN;
uint64_t am_get_nb(int rank, uintptr_t raddr, void *dst, size_t bytes) REACH_HIDDEN;
void am_complete(int rank, uint64_t ticket) REACH_HIDDEN;
int am_test(int rank, uint64_t ticket) REACH_HIDDEN;
void am_flush_local(int rank) REACH_HIDDEN;
void am_flush_local_all(void) REACH_HIDDEN;
/* One round of the client's progress, and of the server's if no thread
 * serves now; waits for nothing (reach_progress). */
void am_progress(void) REACH_HIDDEN;
/* A signal: bytes copied to raddr, then one added to the waitword at word
 * (both rank's addresses), in one message to rank's application thread,
 * which takes it while it waits for it (am_wait_signal): no thread of
 * rank's has to wake. */
void am_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word) REACH_HIDDEN;
/* Waits until this process's waitword ww has counted to target, taking
 * signals (and serving requests) meanwhile. */
void am_wait_signal(waitword_t *ww, uint32_t target) REACH_HIDDEN;
void am_get(int rank, uintptr_t raddr, void *dst, size_t bytes) REACH_HIDDEN;
/* An accumulate that returns with its last chunk in flight (src
 * unchanged until it completes): 0 or a ticket, as am_put_nbi. */
uint64_t am_acc_nbi(int rank, reach_type_t t, const void *scale, const void *src, uintptr_t raddr,
                    size_t bytes) REACH_HIDDEN;
/* A user atomic (base/xfer.h) at the target under its stripe
 * locks; returns the old value. */
int64_t am_atomic(int rank, uintptr_t raddr, int width, int op, int64_t a, int64_t b) REACH_HIDDEN;
/* A strided transfer of a merged plan: local is this process's side,
 * raddr rank's. Packed in pipelined chunks or run by run, as
 * REACH_STRIDED_PROTOCOL and the run length say. Returns with the
 * transfer in flight: 0 or a ticket, as am_put_nbi and am_get_nb (a get's
 * packed chunks are unpacked as their replies arrive). */
uint64_t am_strided(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *plan,
                    const char *local, uintptr_t raddr) REACH_HIDDEN;
uint64_t am_vector(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v,
                   size_t n) REACH_HIDDEN;
/* Everything issued to rank (to every rank) is complete at the target. */
void am_flush(int rank) REACH_HIDDEN;
void am_flush_all(void) REACH_HIDDEN;
/* A release: every write this process issued (puts, accumulates, packed
 * strided and vector chunks, counted calls; blocking or in flight) is
 * complete at its target, each target written since the last release
 * fenced once, all at once; nothing is sent if none was. */
void am_release(void) REACH_HIDDEN;
/* A rank of another node written since the last release: prefer if it
 * was, else any (-1: none). */
int am_written(int prefer) REACH_HIDDEN;
/* A release whose last step is a message to via's server that takes
 * effect only after this process's writes to via (am_call_after): every
 * other rank written since the last release is fenced, all at once, and
 * via's writes need no fence. Returns the gate for that message. */
uint32_t am_release_but(int via) REACH_HIDDEN;

/* A word operation (base/waitword.h) done by rank's server. */
/* Ops that answer (word_op_answers) wait for and return the old value;
 * the others return at once (a signal: its effect is seen by other means). */
uint64_t am_word(int rank, uintptr_t raddr, word_op_t op, uint64_t a, uint64_t b) REACH_HIDDEN;
/* A 64-bit fetch-add (cas 0: a added) or compare-and-swap (cas 1: a
 * expected, b stored) by the network's own atomics, without the target's
 * server where the network can; returns the old value. */
uint64_t am_amo(int rank, uintptr_t raddr, int cas, uint64_t a, uint64_t b) REACH_HIDDEN;

/* ---- target handlers: requests whose meaning belongs to a layer above ---- */
/* (the request as a handler sees it, and the handler's type: am_target.h) */

/* Registers a handler, before am_init and in the same order on every
 * rank; returns its id. counted: a request without answer is a write,
 * complete at the target after am_flush; otherwise it is a signal. */
int am_handler(am_handler_fn fn, int counted) REACH_HIDDEN;
/* Sends a request to handler id at rank. With answer, waits and returns
 * the answer's value, its data (answer_len bytes) in answer_buf. */
int64_t am_call(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, const void *data, size_t len, int answer,
                void *answer_buf, size_t answer_len) REACH_HIDDEN;
/* A request to handler id at rank, without answer, that its handler takes
 * only once every counted request this process sent rank before `gate`
 * (am_sent_to's count then) has completed there: it travels behind the
 * writes it follows, and no fence has to come back first. The gate is a
 * count, as a fence's is: it names those requests because a target
 * completes one origin's counted requests in the order they were sent
 * (eager messages arrive in order on the origin's endpoint, and a
 * rendezvous' data is in place before its send completes at the origin,
 * which the next request to the rank waits for). A backend must keep
 * that order. */
void am_call_after(int rank, int id, uintptr_t raddr, uint64_t a, uint64_t b, uint32_t gate) REACH_HIDDEN;
/* In a handler: the buffer of len bytes its answer carries. */
void *am_answer(am_target_t *t, size_t len) REACH_HIDDEN;

/* A push: one message from a process to rank's application thread, which
 * waits for it with am_wait_push (one at a time) and gets its value.
 * am_server_push is the same from a handler. */
void am_push(int rank, int64_t value) REACH_HIDDEN;
/* A push that rank's am_wait_push returns only once every counted request
 * this process sent rank before `gate` (am_sent_to's count then) has
 * completed there. */
void am_push_after(int rank, int64_t value, uint32_t gate) REACH_HIDDEN;
void am_server_push(int rank, int64_t value) REACH_HIDDEN;
int64_t am_wait_push(void) REACH_HIDDEN;

/* Buntinas03's op_init and op_done: writes sent to rank since start-up,
 * and waiting until this process has completed `count` writes from all
 * origins (both modulo 2^32). For the combined barrier, which completes
 * writes by these counts: once it reads them, this process's writes stop
 * asking their targets to tell it they completed (transport/am/target.c,
 * am_fence), until a fence has to ask again. */
uint32_t am_sent_to(int rank) REACH_HIDDEN;
void am_wait_completed(uint32_t count) REACH_HIDDEN;
/* rank has completed the counted requests this process sent it up to
 * `upto` (am_sent_to's count then), as a barrier that counted them has
 * learnt: a fence or a get there need not ask for them again. */
void am_completed_to(int rank, uint32_t upto) REACH_HIDDEN;

#endif
