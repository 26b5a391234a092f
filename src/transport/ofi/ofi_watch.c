/* The libfabric backend's watch (net.h's NET_WATCH): a task of the server
 * thread, which runs it while it holds am.serve, with no endpoint of its
 * own (a third took 1.6-2.3 MB a process, its provider's pools). It does
 * two things.
 *
 * It keeps the client's sends moving. Over tcp a send the socket did not
 * take whole waits in the provider until its endpoint is progressed
 * again; a client that then sleeps on a futex (a barrier among the ranks
 * of its node, a fence's wait for write counts) would hold it there, and
 * the rank waiting for it would wait for ever. Where a link's MTU is
 * Ethernet's 1500 bytes this was most runs of test_rma at 2 nodes of 2.
 * So each time the watch runs (when a sleep of the server thread times
 * out, after ofi_idle_ms, and once in AM_WATCH_EVERY rounds of a busy
 * one) it progresses the client's provider: a read of none of its completions,
 * which the domain's FI_THREAD_SAFE allows beside the application
 * thread's own, and which runs none of reach's handlers.
 *
 * And it finds ranks lost on other machines, which /proc cannot see:
 * every quarter of REACH_PEER_TIMEOUT it pings each such rank's server
 * endpoint, where whichever thread serves answers (wait_watch_round, as
 * UCX's watch does; pings, answers and their table change under am.serve). A
 * ping that fails (the rank's process ended, its machine refused the
 * connection) or is not answered within REACH_PEER_TIMEOUT (its machine
 * or the link is down) is reported to wait_peer_lost, which gives the
 * rank REACH_PEER_TIMEOUT more. */
#include "transport/ofi/ofi.h"

#include <stdio.h>

void ofi_watch_failed(int rank, int err)
{
    wait_watch_failed(rank, "libfabric", fi_strerror(err));
}

ofi_req_t *ofi_ping_new(int rank)
{
    ofi_req_t *r = ofi_req_new(OFI_REQ_PING);
    ofi_wire_t m = {.kind = OFI_PING, .from = rt.rank};
    if (!(r->buf = malloc(sizeof m)))
        rt_oom("network watch", sizeof m);
    memcpy(r->buf, &m, sizeof m);
    r->rank = rank;
    return r;
}

/* Tries to post a ping to rank: 1 once posted (or failed: the rank is then
 * lost), 0 if the provider cannot take it now. */
static int ofi_ping(int rank)
{
    ofi_req_t *r = ofi_ping_new(rank);
    ssize_t rc = fi_send(ofi.w[NET_SERVER].ep, r->buf, sizeof(ofi_wire_t), NULL, ofi.addr[rank][NET_SERVER], &r->ctx);
    if (rc == 0)
        return 1;
    ofi_req_free(r);
    if (rc == -FI_EAGAIN)
        return 0;
    ofi_watch_failed(rank, (int)-rc);
    return 1;
}

void ofi_watch_round(void)
{
    fi_cq_read(ofi.w[NET_CLIENT].cq, NULL, 0);
    wait_watch_round(ofi.pings, &ofi.next_ping, ofi_ping, "libfabric");
}

/* A ping is answered once, by inject: a provider that cannot take the
 * answer now (the link to the pinging rank is down) drops it rather than
 * hold the server thread; the rank pings again next round. */
void ofi_watch_arrived(const ofi_wire_t *m, size_t got)
{
    if (got != sizeof *m || m->from < 0 || m->from >= rt.size)
        return;
    if (m->kind == OFI_PONG) {
        wait_watch_answered(ofi.pings, m->from);
        return;
    }
    ofi_wire_t a = {.kind = OFI_PONG, .from = rt.rank};
    ssize_t rc = fi_inject(ofi.w[NET_SERVER].ep, &a, sizeof a, ofi.addr[m->from][NET_SERVER]);
    if (rc != 0 && rc != -FI_EAGAIN)
        ofi_watch_failed(m->from, (int)-rc);
}
