/* The libfabric backend's watch: a third endpoint, progressed only by the
 * server thread (net.h's NET_WATCH), that does two things.
 *
 * It keeps the client's sends moving. Over tcp a send the socket did not
 * take whole waits in the provider until its endpoint is progressed
 * again; a client that then sleeps on a futex (a barrier among the ranks
 * of its node, a fence's wait for write counts) would hold it there, and
 * the rank waiting for it would wait for ever. Where a link's MTU is
 * Ethernet's 1500 bytes this is most runs of test_rma at 2 nodes of 2:
 * the watch progresses the client's provider (not reach's handlers) each
 * time it runs, at least every ofi_idle_ms.
 *
 * And it finds ranks lost on other machines, which /proc cannot see (as
 * UCX's keepalive does for that backend): every quarter of
 * REACH_PEER_TIMEOUT it pings each such rank's watch, whose server thread
 * answers (wait_watch_round). A ping that fails (the rank's process
 * ended, its machine refused the connection) or is not answered within
 * REACH_PEER_TIMEOUT (its machine or the link is down) is reported to
 * wait_peer_lost, which gives the rank REACH_PEER_TIMEOUT more. */
#include "transport/ofi/ofi.h"
#include "base/wait.h"

#include <stdio.h>

/* Tries to post a ping to rank: 1 once posted (or failed: the rank is then
 * lost), 0 if the provider cannot take it now. */
static int ofi_ping(int rank)
{
    ofi_req_t *r = ofi_req_new(OFI_REQ_SEND);
    if (!(r->buf = calloc(1, sizeof(ofi_wire_t))))
        rt_oom("network watch", sizeof(ofi_wire_t));
    *(ofi_wire_t *)r->buf = (ofi_wire_t){.kind = OFI_PING, .from = rt.rank};
    r->rank = rank;
    ssize_t rc = fi_send(ofi.w[NET_WATCH].ep, r->buf, sizeof(ofi_wire_t), NULL, ofi.addr[rank][NET_WATCH], &r->ctx);
    if (rc == 0)
        return 1;
    ofi_req_free(r);
    if (rc == -FI_EAGAIN)
        return 0;
    ofi_watch_failed(rank, (int)-rc);
    return 1;
}

unsigned ofi_watch_progress(void)
{
    fi_cq_read(ofi.w[NET_CLIENT].cq, NULL, 0);
    unsigned events = ofi_progress_worker(NET_WATCH);
    wait_watch_round(ofi.pings, &ofi.next_ping, ofi_ping, "libfabric");
    return events;
}

void ofi_watch_arrived(const ofi_wire_t *m)
{
    if (m->kind == OFI_PING) {
        ofi_wire_t a = {.kind = OFI_PONG, .from = rt.rank};
        ofi_send_control(NET_WATCH, m->from, NET_WATCH, &a);
        return;
    }
    wait_watch_answered(ofi.pings, m->from);
}

void ofi_watch_failed(int rank, int err)
{
    char why[96];
    snprintf(why, sizeof why, "libfabric: a ping of the watch failed: %s", fi_strerror(err));
    wait_peer_lost(rank, why);
}
