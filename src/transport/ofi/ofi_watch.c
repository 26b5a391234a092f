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
 * answers, once the last ping was answered. A ping that fails (the rank's
 * process ended, its machine refused the connection) or is not answered
 * within REACH_PEER_TIMEOUT (its machine or the link is down) is reported
 * to wait_peer_lost, which gives the rank REACH_PEER_TIMEOUT more. */
#include "transport/ofi/ofi.h"
#include "base/wait.h"

#include <stdio.h>
#include <time.h>

static double ofi_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The ranks the watch pings: those /proc cannot see, while lost ranks
 * are looked for. */
static int ofi_watches(int rank)
{
    return rt.cfg.peer_timeout > 0 && rank != rt.rank && !(rt.cfg.peer_proc && wait_proc_visible(rank)) &&
           !wait_peer_gone(rank);
}

/* Tries to post a ping to rank (once: a provider that cannot take it now
 * is asked again next round). */
static void ofi_ping(int rank, double now)
{
    struct ofi_ping *p = &ofi.pings[rank];
    if (p->since == 0)
        p->since = now;
    ofi_req_t *r = ofi_req_new(OFI_REQ_SEND);
    if (!(r->buf = calloc(1, sizeof(ofi_wire_t))))
        rt_oom("network watch", sizeof(ofi_wire_t));
    *(ofi_wire_t *)r->buf = (ofi_wire_t){.kind = OFI_PING, .from = rt.rank};
    r->rank = rank;
    ssize_t rc = fi_send(ofi.w[NET_WATCH].ep, r->buf, sizeof(ofi_wire_t), NULL, ofi.addr[rank][NET_WATCH], &r->ctx);
    if (rc == 0) {
        p->posted = 1;
        return;
    }
    ofi_req_free(r);
    if (rc != -FI_EAGAIN)
        ofi_watch_failed(rank, (int)-rc);
}

unsigned ofi_watch_progress(void)
{
    fi_cq_read(ofi.w[NET_CLIENT].cq, NULL, 0);
    unsigned events = ofi_progress_worker(NET_WATCH);
    double now = ofi_now();
    if (rt.cfg.peer_timeout <= 0 || now < ofi.next_ping)
        return events;
    ofi.next_ping = now + rt.cfg.peer_timeout / 4;
    for (int r = 0; r < rt.size; r++) {
        struct ofi_ping *p = &ofi.pings[r];
        if (!ofi_watches(r)) {
            *p = (struct ofi_ping){0, 0};
        } else if (p->since != 0 && now - p->since >= rt.cfg.peer_timeout) {
            char why[96];
            snprintf(why, sizeof why, "libfabric: rank %d has not answered the watch's ping for %.1f s", r,
                     now - p->since);
            wait_peer_lost(r, why);
        } else if (!p->posted) {
            ofi_ping(r, now);
        }
    }
    return events;
}

void ofi_watch_arrived(const ofi_wire_t *m)
{
    if (m->kind == OFI_PING) {
        ofi_wire_t a = {.kind = OFI_PONG, .from = rt.rank};
        ofi_send_control(NET_WATCH, m->from, NET_WATCH, &a);
        return;
    }
    ofi.pings[m->from] = (struct ofi_ping){0, 0};
}

void ofi_watch_failed(int rank, int err)
{
    char why[96];
    snprintf(why, sizeof why, "libfabric: a ping of the watch failed: %s", fi_strerror(err));
    wait_peer_lost(rank, why);
}
