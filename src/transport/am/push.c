/* The protocol's pushes: values and signals the application thread sends
 * straight to another rank's client, and the waits for them. */
#include "transport/am/am_internal.h"
#include "base/trace.h"
#include "base/wait.h"

#include <string.h>

/* A push from the application thread to rank's: one message, which the
 * waiter progresses while it waits (no thread of the waiter's process has
 * to wake in between). */
void am_push(int rank, int64_t value)
{
    am_client_sent();
    am_wait_req(am.net->send(NET_PUSH, rank, &value, sizeof value, NULL, 0, NET_EAGER), "push", rank);
}

/* The receiver serves the writes the gate names itself while it waits
 * (am_wait_push): one message and one wake-up, not a fence's round trip
 * through its server thread before the push. */
void am_push_after(int rank, int64_t value, uint32_t gate)
{
    am_gated_push_t p = {value, rt.rank, gate};
    am_client_sent();
    am_wait_req(am.net->send(NET_PUSH, rank, &p, sizeof p, NULL, 0, NET_EAGER), "push", rank);
}

void am_signal(int rank, const void *src, uintptr_t raddr, size_t bytes, uintptr_t word)
{
    am_request_t rq = {.kind = REQ_SIGNAL, .origin = rt.rank, .raddr = raddr, .b = word};
    am_client_sent();
    am_wait_req(am.net->send(NET_PUSH, rank, &rq, sizeof rq, src, bytes, NET_EAGER), "signal", rank);
}

/* Spins as a wait on a word does (waitword_wait_change): requests served
 * meanwhile do not prolong the spinning, which leaves them to the server
 * thread once the waiter sleeps (else both threads would run on their
 * account). */
void am_wait_signal(waitword_t *ww, uint32_t target)
{
    for (uint32_t i = 1; (int32_t)(atom_load_acquire(&ww->value) - target) < 0; i++) {
        rt_order_release();
        unsigned got = am.net->progress(NET_CLIENT);
        am_serve_try();
        rt_order_acquire();
        if (got) {
            i = 0;
        } else if (!wait_net_spin_on(i)) {
            i = am_client_sleep() ? wait_spins() : 0;
        }
    }
    if (trace_on)
        trace_word(TRACE_SEE, ww, atom_load_acquire(&ww->value));
}

int64_t am_wait_push(void)
{
    unsigned spins = 0;
    am.pushes_awaited++;
    while ((int32_t)(am.pushes - am.pushes_awaited) < 0)
        am_client_progress(&spins);
    trace_word(TRACE_SEE, &am.pushes, am.pushes);
    if (am.push_from >= 0)
        am_wait_done_from(am.push_from, am.push_gate);
    return am.pushed;
}

/* A value pushed (its header is the value, or an am_gated_push_t) or a
 * signal (an am_request_t, with its data). */
void am_on_push(const void *hdr, size_t hlen, void *data, size_t len, void *rndv)
{
    am_request_t rq;
    if (rndv || (hlen != sizeof am.pushed && hlen != sizeof(am_gated_push_t) && hlen != sizeof rq))
        rt_fatal("network: malformed push");
    if (hlen != sizeof rq) {
        am_gated_push_t p = {0, -1, 0};
        memcpy(&p, hdr, hlen); /* a plain push's value is the first field */
        am.pushed = p.value;
        am.push_from = hlen == sizeof p ? p.origin : -1;
        am.push_gate = p.gate;
        am.pushes++;
        trace_word(TRACE_STORE, &am.pushes, am.pushes);
        return;
    }
    memcpy(&rq, hdr, sizeof rq);
    if (rq.kind != REQ_SIGNAL)
        rt_fatal("network: a push of request kind %d", rq.kind);
    if (len > 0)
        memcpy((void *)(uintptr_t)rq.raddr, data, len);
    waitword_add((waitword_t *)(uintptr_t)rq.b, 1);
}
