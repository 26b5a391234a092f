/* The UCX backend of net.h. One UCP context with RMA, 64-bit atomics,
 * active messages and wake-up; two workers per process: the client, which
 * only the application thread progresses, and the server, progressed by
 * one thread at a time (the server thread, or the application thread while
 * it waits: transport/am serializes them). Both are single-threaded in
 * UCX's sense, as no two threads use one at once: UCX's serialized mode
 * would start an async thread of its own. The arena is registered once and
 * its key given to every rank, so gets go zero-copy from the target's
 * memory (UCX emulates them with messages where the network cannot).
 * Atomics use ATOMIC_MODE=cpu: a device's atomics only where they are
 * coherent with the CPU's, emulated at the target's server worker
 * otherwise, so they are atomic against the CPU atomics of the target's
 * node. With REACH_PEER_TIMEOUT, a third worker, the server thread's,
 * watches every rank for its failure (ux_watch).
 *
 * This file: start-up and shut-down, the workers and the data endpoints,
 * and the backend's table; the operations are ucx_ops.c's, the watch
 * ucx_watch.c's (ucx.h). */
#include "transport/ucx/ucx.h"
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The worker each kind of endpoint sends from. */
static ucp_worker_h ux_from(int ep)
{
    return ux.worker[ep == UX_S2C ? NET_SERVER : NET_CLIENT];
}

/* ---- start-up and shut-down ---------------------------------------------------- */

/* Whether UCX's only network transport here is TCP: the resources that
 * ucp_context_print_info lists ("... flags -- tcp/eth0") name no transport
 * but TCP and the shared-memory ones. Then UCX does a get from another
 * machine in software (ux_get). Where it cannot tell, it says no. *cma
 * says whether it lists a transport that reads another process's memory
 * on this machine with no help from it (cma, knem, xpmem): without one,
 * UCX does such a get in software too. */
static int ux_tcp_only(int *cma)
{
    /* The transports it knows: TCP, the shared-memory ones, and from
     * UX_TL_READS on those that read another process's memory. */
    static const char *const ok[] = {"tcp", "self", "sysv", "posix", "cma", "knem", "xpmem"};
    enum { UX_TL_TCP = 0, UX_TL_READS = 4, UX_TL_KNOWN = sizeof ok / sizeof ok[0] };
    char *text = NULL, line[512];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return 0;
    ucp_context_print_info(ux.ctx, f);
    if (fclose(f) != 0 || text == NULL)
        return 0;
    int tcp = 0, other = 0;
    FILE *in = fmemopen(text, len, "r");
    while (in && fgets(line, sizeof line, in)) {
        const char *tl = strstr(line, "resource") ? strstr(line, "-- ") : NULL;
        if (tl == NULL)
            continue;
        tl += 3;
        size_t n = strcspn(tl, "/ \n");
        int i = 0;
        while (i < UX_TL_KNOWN && !(strlen(ok[i]) == n && strncmp(tl, ok[i], n) == 0))
            i++;
        tcp |= i == UX_TL_TCP;
        *cma |= i >= UX_TL_READS && i < UX_TL_KNOWN;
        other |= i == UX_TL_KNOWN;
    }
    if (in)
        fclose(in);
    free(text);
    return tcp && !other;
}

/* Whether a rank of another node runs on this machine (its host, the
 * kernel's machine: MPI's is not UCX's under MPIR_CVAR_NOLOCAL;
 * REACH_NODE_SIZE cuts one machine into nodes). UCX's shared-memory
 * transports reach only such ranks: those of this node go through
 * reach's own node layer. Each worker's shared-memory interfaces hold 4
 * MB (posix and sysv, a receive queue and its buffers each), 12 MB of the
 * 14 MB that reach's UCX context added to a process between two
 * machines. */
static int ux_machine_shared(void)
{
    for (int r = 0; r < rt.size; r++)
        if (rt.peers[r].node != rt.node && rt.peers[r].host == rt.peers[rt.rank].host)
            return 1;
    return 0;
}

/* A worker and the handlers of its active messages, n of them. */
static int ux_worker(net_worker_t w, const ucp_am_handler_param_t *handlers, int n)
{
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    if (ucp_worker_create(ux.ctx, &wp, &ux.worker[w]) != UCS_OK)
        return -1;
    int ok = ucp_worker_get_efd(ux.worker[w], &ux.fd[w]) == UCS_OK;
    for (int i = 0; ok && i < n; i++)
        ok = ucp_worker_set_am_recv_handler(ux.worker[w], &handlers[i]) == UCS_OK;
    if (!ok) {
        ucp_worker_destroy(ux.worker[w]);
        ux.worker[w] = NULL;
        return -1;
    }
    return 0;
}

#define UX_HANDLER(i, f)                                                                                  \
    {                                                                                                     \
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB, .id = (i), .cb = (f) \
    }

/* Closes an endpoint without waiting for its peer. */
static void ux_close(ucp_worker_h w, ucp_ep_h ep)
{
    if (ep == NULL)
        return;
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
    void *req = ucp_ep_close_nbx(ep, &p);
    if (req && !UCS_PTR_IS_ERR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS)
            ucp_worker_progress(w);
        ucp_request_free(req);
    }
}

/* Every endpoint and key, then the arrays. */
static void ux_disconnect(void)
{
    for (int r = 0; ux.rkey && r < rt.size; r++) {
        if (ux.rkey[r])
            ucp_rkey_destroy(ux.rkey[r]);
        for (int c = 0; c < UX_EPS; c++)
            ux_close(ux_from(c), ux.ep[c][r]);
        ux_close(ux.worker[NET_WATCH], ux.watch[r]);
    }
    for (int c = 0; c < UX_EPS; c++) {
        free(ux.ep[c]);
        ux.ep[c] = NULL;
    }
    free(ux.watch);
    ux.watch = NULL;
    free(ux.pings);
    ux.pings = NULL;
    free(ux.rkey);
    ux.rkey = NULL;
}

/* At start-up, before the server thread runs: every worker. */
static void ux_settle_progress(void)
{
    for (int w = NET_CLIENT; w <= NET_WATCH; w++)
        ux_progress((net_worker_t)w);
}

/* Collective: completes every endpoint's connections. Between two
 * workers that each have an endpoint to the other (a client's to a
 * server and that server's to the client, two clients, two watches),
 * UCX's TCP transport opens two connections and settles them, closing
 * one, when both sides progress. Left to the job, that happens while it
 * runs: the process's descriptors and mappings change under it, and a
 * message sent meanwhile may need its sender's progress after its send
 * completed, which a process asleep outside the network does not give
 * (between machines, a barrier's signal so sent was never seen, and the
 * job waited until it was killed). A flush completes once its endpoint
 * is connected; a rank that is done keeps its workers going until every
 * rank is, as the others' connections need them. */
static void ux_settle(void)
{
    ucp_ep_h *lists[] = {ux.ep[UX_C2S], ux.ep[UX_S2C], ux.ep[UX_C2C], ux.watch};
    size_t n = 0, most = sizeof lists / sizeof lists[0] * (size_t)rt.size;
    void **reqs = malloc(sizeof(void *) * most);
    if (!reqs)
        rt_oom("reach_init", sizeof(void *) * most);
    ucp_request_param_t p = {.op_attr_mask = 0};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (int r = 0; r < rt.size; r++) {
            void *req = lists[l][r] ? ucp_ep_flush_nbx(lists[l][r], &p) : NULL;
            if (req != NULL && !UCS_PTR_IS_ERR(req))
                reqs[n++] = req;
        }
    for (size_t i = 0; i < n; i++) {
        while (ucp_request_check_status(reqs[i]) == UCS_INPROGRESS)
            ux_settle_progress();
        ucp_request_free(reqs[i]);
    }
    free(reqs);
    boot_barrier_progress(ux_settle_progress);
}

/* Connects to every other rank from the gathered addresses and keys (and
 * watch addresses, where ranks have them). */
static int ux_connect(void *saddr, size_t slen, void *caddr, size_t clen, void *rkey, size_t klen, void *waddr,
                      size_t wlen)
{
    int st = REACH_SUCCESS, unwatched = 0, *off;
    /* Rank r's part p (server address, client address, key, watch
     * address) lies at all + off[4 * r + p]. */
    const void *parts[4] = {saddr, caddr, rkey, waddr};
    const size_t lens[4] = {slen, clen, klen, wlen};
    char *all = boot_allgatherv(4, parts, lens, &off);
    for (int c = 0; c < UX_EPS; c++)
        ux.ep[c] = calloc((size_t)rt.size, sizeof(ucp_ep_h));
    ux.rkey = calloc((size_t)rt.size, sizeof *ux.rkey);
    ux.watch = calloc((size_t)rt.size, sizeof(ucp_ep_h));
    ux.pings = calloc((size_t)rt.size, sizeof *ux.pings);
    ux.me = rt.rank;
    if (!ux.ep[UX_C2S] || !ux.ep[UX_S2C] || !ux.ep[UX_C2C] || !ux.rkey || !ux.watch || !ux.pings)
        rt_oom("reach_init", sizeof(ucp_ep_h) * (size_t)rt.size);
    for (int r = 0; r < rt.size && st == REACH_SUCCESS; r++) {
        if (rt.peers[r].node == rt.node)
            continue; /* reached through its mapping, never the network */
        const int *at = off + 4 * r;
        ucp_ep_params_t to_server = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                                     .address = (ucp_address_t *)(void *)(all + at[0])};
        ucp_ep_params_t to_client = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                                     .address = (ucp_address_t *)(void *)(all + at[1])};
        ucs_status_t s;
        if ((s = ucp_ep_create(ux.worker[NET_CLIENT], &to_server, &ux.ep[UX_C2S][r])) != UCS_OK ||
            (s = ucp_ep_create(ux.worker[NET_SERVER], &to_client, &ux.ep[UX_S2C][r])) != UCS_OK ||
            (s = ucp_ep_create(ux.worker[NET_CLIENT], &to_client, &ux.ep[UX_C2C][r])) != UCS_OK ||
            (s = ucp_ep_rkey_unpack(ux.ep[UX_C2S][r], all + at[2], &ux.rkey[r])) != UCS_OK)
            st = rt_error(REACH_ERR_SYSTEM, "reach_init", "UCX cannot reach rank %d: %s", r, ucs_status_string(s));
        else if (ux.worker[NET_WATCH] && at[4] > at[3] && ux_watch(r, all + at[3]) != UCS_OK)
            unwatched++;
        else if (ux.watch[r])
            ux.watching++;
    }
    ux_settle();
    if (unwatched > 0)
        rt_error(REACH_SUCCESS, "reach_init",
                 "UCX has no transport with peer failure handling to %d other rank%s (UCX_TLS?): a lost "
                 "rank there is found only by the /proc check (REACH_PEER_PROC), on this machine",
                 unwatched, unwatched > 1 ? "s" : "");
    free(all);
    free(off);
    return st;
}

static int ux_init(void *base, size_t len, const net_upcalls_t *up)
{
    const char *call = "reach_init";
    ucp_config_t *config = NULL;
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
                           .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
                           .mt_workers_shared = 1};
    void *rkey = NULL;
    ucp_address_t *saddr = NULL, *caddr = NULL, *waddr = NULL;
    size_t klen = 0, slen = 0, clen = 0, wlen = 0;
    ucs_status_t s;
    int st = REACH_SUCCESS;
    ux.up = up;

    /* Everything that can fail here alone, then one agreement, before the
     * first exchange: a rank that failed must not leave the others
     * waiting in it. */
    if (ucp_config_read("REACH", NULL, &config) != UCS_OK) {
        st = rt_error(REACH_ERR_SYSTEM, call, "cannot read UCX's configuration");
        goto agree;
    }
    s = ucp_config_modify(config, "ATOMIC_MODE", "cpu");
    /* Keepalive rounds four times per REACH_PEER_TIMEOUT (UCX's default
     * is 20 s), unless the user chose. */
    char interval[32];
    snprintf(interval, sizeof interval, "%dms", ux_keepalive_ms());
    if (s == UCS_OK && rt.cfg.peer_timeout > 0 && !getenv("UCX_KEEPALIVE_INTERVAL") &&
        !getenv("REACH_UCX_KEEPALIVE_INTERVAL"))
        s = ucp_config_modify(config, "KEEPALIVE_INTERVAL", interval);
    /* Without shared-memory transports where no rank needs them, unless
     * the user chose the transports. */
    ux.tls = getenv("UCX_TLS") || getenv("REACH_UCX_TLS") ? UX_TLS_USER
             : ux_machine_shared()                        ? UX_TLS_ALL
                                                          : UX_TLS_NO_SM;
    if (s == UCS_OK && ux.tls == UX_TLS_NO_SM)
        s = ucp_config_modify(config, "TLS", "^sm");
    if (s == UCS_OK)
        s = ucp_init(&params, config, &ux.ctx);
    ucp_config_release(config);
    if (s != UCS_OK) {
        st = rt_error(REACH_ERR_SYSTEM, call, "UCX: %s", ucs_status_string(s));
        goto agree;
    }
    ux.tcp = ux_tcp_only(&ux.cma);
    static const ucp_am_handler_param_t client[] = {UX_HANDLER(UX_REPLY, ux_on_reply), UX_HANDLER(UX_PUSH, ux_on_push),
                                                    UX_HANDLER(UX_GET_DATA, ux_on_get_data)},
                                        server[] = {UX_HANDLER(UX_REQUEST, ux_on_request),
                                                    UX_HANDLER(UX_GET, ux_on_get)},
                                        watch[] = {UX_HANDLER(UX_PING, ux_on_ping), UX_HANDLER(UX_PONG, ux_on_pong)};
    if (ux_worker(NET_CLIENT, client, 3) != 0 || ux_worker(NET_SERVER, server, 2) != 0 ||
        (rt.cfg.peer_timeout > 0 && ux_worker(NET_WATCH, watch, 2) != 0)) {
        st = rt_error(REACH_ERR_SYSTEM, call, "cannot create a UCX worker");
        goto agree;
    }
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH, .address = base, .length = len};
    if ((s = ucp_mem_map(ux.ctx, &mp, &ux.mem)) != UCS_OK) {
        char size[32];
        ux.mem = NULL;
        st = rt_error(REACH_ERR_SYSTEM, call,
                      "UCX cannot register the arena (%s, REACH_ARENA_SIZE): %s; a smaller "
                      "REACH_ARENA_SIZE, or a raised locked-memory limit (ulimit -l), may let it",
                      rt_size_str(size, sizeof size, len), ucs_status_string(s));
        goto agree;
    }
    if (ucp_rkey_pack(ux.ctx, ux.mem, &rkey, &klen) != UCS_OK ||
        ucp_worker_get_address(ux.worker[NET_SERVER], &saddr, &slen) != UCS_OK ||
        ucp_worker_get_address(ux.worker[NET_CLIENT], &caddr, &clen) != UCS_OK ||
        (ux.worker[NET_WATCH] && ucp_worker_get_address(ux.worker[NET_WATCH], &waddr, &wlen) != UCS_OK))
        st = rt_error(REACH_ERR_SYSTEM, call, "UCX cannot describe this process");
agree:
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
        goto err;
    st = ux_connect(saddr, slen, caddr, clen, rkey, klen, waddr, wlen);
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS))
        goto err_connected;
    ucp_worker_release_address(ux.worker[NET_SERVER], saddr);
    ucp_worker_release_address(ux.worker[NET_CLIENT], caddr);
    if (waddr)
        ucp_worker_release_address(ux.worker[NET_WATCH], waddr);
    ucp_rkey_buffer_release(rkey);
    return REACH_SUCCESS;

err_connected:
    ux_disconnect();
err:
    if (saddr)
        ucp_worker_release_address(ux.worker[NET_SERVER], saddr);
    if (caddr)
        ucp_worker_release_address(ux.worker[NET_CLIENT], caddr);
    if (waddr)
        ucp_worker_release_address(ux.worker[NET_WATCH], waddr);
    if (rkey)
        ucp_rkey_buffer_release(rkey);
    if (ux.mem)
        ucp_mem_unmap(ux.ctx, ux.mem);
    for (int w = 0; w < 3; w++)
        if (ux.worker[w])
            ucp_worker_destroy(ux.worker[w]);
    if (ux.ctx)
        ucp_cleanup(ux.ctx);
    memset(&ux, 0, sizeof ux);
    return st != REACH_SUCCESS ? st : REACH_ERR_SYSTEM;
}

/* In steps every rank takes together (the server threads have stopped):
 * the endpoints close, then the workers go, so that no worker is torn down
 * while a peer still talks to it (UCX's TCP transport does not survive
 * that). */
static void ux_finalize(void)
{
    ux_drain_gets();
    boot_barrier();
    ux_disconnect();
    boot_barrier();
    for (int w = 0; w < 3; w++)
        if (ux.worker[w])
            ucp_worker_destroy(ux.worker[w]);
    ucp_mem_unmap(ux.ctx, ux.mem);
    ucp_cleanup(ux.ctx);
    memset(&ux, 0, sizeof ux);
}

static const char *ux_describe(void)
{
    static char line[128];
    snprintf(line, sizeof line, "ucx (UCX %s%s)", ucp_get_version_string(),
             !ux.ctx                  ? ""
             : ux.tls == UX_TLS_NO_SM ? ", without its shared-memory transports"
             : ux.tls == UX_TLS_USER  ? ", the transports of UCX_TLS"
                                      : ", with its shared-memory transports");
    return line;
}

static unsigned ux_progress_any(net_worker_t w)
{
    return w == NET_WATCH ? ux_watch_progress() : ux_progress(w);
}

const net_backend_t net_ucx = {
    .init = ux_init,
    .finalize = ux_finalize,
    .describe = ux_describe,
    .send = ux_send,
    .recv_rndv = ux_recv_rndv,
    .get = ux_get,
    .amo = ux_amo,
    .test = ux_test,
    .progress = ux_progress_any,
    .arm = ux_arm,
    .fd = ux_fd,
    .idle_ms = ux_idle_ms,
    .signal = ux_signal,
    .acc_chunk = UX_ACC_CHUNK,
    .put_part = ux_put_part,
};
