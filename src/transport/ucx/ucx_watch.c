/* The UCX backend's watch of lost ranks (REACH_PEER_TIMEOUT): a third
 * worker, progressed by the server thread, with an endpoint to every
 * rank's watch in UCX's peer failure mode; the pings it sends there
 * (UX_PING) and their answers (UX_PONG). Calls only ucx_ops.c of the backend. */
#include "transport/ucx/ucx.h"
#include "boot/boot.h"

#include <string.h>

/* UCX found the rank at the other end of a watch endpoint failed: the
 * rank is lost. The endpoint is not used again but to close it. */
static void ux_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    (void)ep;
    wait_peer_lost((int)(intptr_t)arg, ucs_status_string(status));
}

/* With lost-peer checks on (REACH_PEER_TIMEOUT), a third worker (the
 * watch, progressed by the server thread) has an endpoint to each rank's
 * watch that carries only its pings (ux_ping): it is opened in UCX's
 * peer failure mode, whose keepalive (or a connection reset) finds a
 * failed peer. The endpoints that carry data stay in the default mode:
 * on this UCX (1.13) peer failure mode excludes the shared-memory
 * transports and would send everything over TCP; and on a worker of their
 * own the watch endpoints' TCP transport is not polled on every progress
 * of the data workers (it made a remote fetch-and-add 20% slower). */
ucs_status_t ux_watch(int rank, void *address)
{
    ucp_ep_params_t p = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                                       UCP_EP_PARAM_FIELD_ERR_HANDLER,
                         .address = (ucp_address_t *)address,
                         .err_mode = UCP_ERR_HANDLING_MODE_PEER,
                         .err_handler = {ux_ep_failed, (void *)(intptr_t)rank}};
    return ucp_ep_create(ux.worker[NET_WATCH], &p, &ux.watch[rank]);
}

/* Sends the watch's message id (a ping or its answer, from this rank) to
 * rank's watch: 1 once sent or failed (the rank is then lost). */
static int ux_watch_send(int rank, unsigned id)
{
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_EAGER};
    void *req = ucp_am_send_nbx(ux.watch[rank], id, &ux.me, sizeof ux.me, NULL, 0, &p);
    if (UCS_PTR_IS_ERR(req))
        wait_watch_failed(rank, "UCX", ucs_status_string(UCS_PTR_STATUS(req)));
    else if (req)
        ucp_request_free(req); /* (released once sent) */
    return 1;
}

/* (A rank without a watch endpoint, of this node or without a transport
 * that handles peer failure, is not pinged.) */
static int ux_ping(int rank)
{
    return ux.watch[rank] ? ux_watch_send(rank, UX_PING) : -1;
}

/* At the watch: the rank a ping or an answer came from, or -1. */
static int ux_watch_from(const void *header, size_t header_length)
{
    int32_t from;
    if (header_length != sizeof from)
        return -1;
    memcpy(&from, header, sizeof from);
    return from >= 0 && from < rt.size && ux.watch[from] ? from : -1;
}

ucs_status_t ux_on_ping(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)length, (void)param;
    int from = ux_watch_from(header, header_length);
    if (from >= 0)
        ux_watch_send(from, UX_PONG);
    return UCS_OK;
}

ucs_status_t ux_on_pong(void *arg, const void *header, size_t header_length, void *data, size_t length,
                        const ucp_am_recv_param_t *param)
{
    (void)arg, (void)data, (void)length, (void)param;
    int from = ux_watch_from(header, header_length);
    if (from >= 0)
        wait_watch_answered(ux.pings, from);
    return UCS_OK;
}

/* UCX's keepalive finds a peer whose connection failed; a machine or link
 * that is down shows only as silence, which the watch's own pings find
 * (wait_watch_round). */
unsigned ux_watch_progress(void)
{
    unsigned events = ux_progress(NET_WATCH);
    if (ux.pings)
        wait_watch_round(ux.pings, &ux.next_ping, ux_ping, "UCX");
    return events;
}
