/* The libfabric backend's endpoints: start-up and shut-down, requests,
 * memory registration and posted receives. Below the rest of the
 * backend: it runs none of its handlers (ofi.c handles completions). */
#include "transport/ofi/ofi.h"
#include "boot/boot.h"
#include "base/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ofi_state ofi;

/* ---- requests and registrations ------------------------------------------------- */

ofi_req_t *ofi_req_new(int kind)
{
    ofi_req_t *r = calloc(1, sizeof *r);
    if (!r)
        rt_oom("network request", sizeof *r);
    r->kind = kind;
    r->rank = -1;
    atomic_fetch_add_explicit(&ofi.owned, 1, memory_order_relaxed);
    return r;
}

/* Send copies of OFI_COPY_MIN bytes or more are buffers of OFI_EAGER
 * bytes, taken from the kept ones first; either worker's thread may take
 * or give one. */
void *ofi_copy_take(size_t total, int *kept)
{
    *kept = total >= OFI_COPY_MIN && total <= OFI_EAGER;
    void *buf = NULL;
    for (int i = 0; *kept && !buf && i < OFI_COPIES; i++)
        buf = atomic_exchange(&ofi.copies[i], NULL);
    size_t size = *kept ? OFI_EAGER : total;
    if (!buf && !(buf = malloc(size)))
        rt_oom("network send", size);
    return buf;
}

/* A send copy of OFI_EAGER bytes, kept for the next send if a place is
 * free. */
void ofi_copy_give(void *buf)
{
    for (int i = 0; i < OFI_COPIES; i++) {
        void *none = NULL;
        if (atomic_compare_exchange_strong(&ofi.copies[i], &none, buf))
            return;
    }
    free(buf);
}

int ofi_register(int w, const void *buf, size_t len, struct fid_mr **mr, uint64_t *key)
{
    int rc = fi_mr_reg(ofi.domain, buf, len, FI_REMOTE_READ, 0, ofi.prov_key ? 0 : atomic_fetch_add(&ofi.next_key, 1),
                       0, mr, NULL);
    if (rc == 0 && ofi.mr_endpoint &&
        ((rc = fi_mr_bind(*mr, &ofi.w[w].ep->fid, 0)) != 0 || (rc = fi_mr_enable(*mr)) != 0))
        fi_close(&(*mr)->fid);
    if (rc != 0)
        *mr = NULL;
    else
        *key = fi_mr_key(*mr);
    return rc;
}

void ofi_post_recv(int w, ofi_req_t *r)
{
    ssize_t rc;
    while ((rc = fi_recv(ofi.w[w].ep, r->buf, ofi.w[w].rlen, NULL, FI_ADDR_UNSPEC, &r->ctx)) == -FI_EAGAIN)
        fi_cq_read(ofi.w[w].cq, NULL, 0);
    if (rc != 0)
        rt_fatal("libfabric cannot post a receive: %s", fi_strerror((int)-rc));
}

/* ---- start-up and shut-down ------------------------------------------------------- */

/* Opens worker w: its endpoint and completion queue, with receives
 * posted. 0, or a negative fi_errno with *step naming what failed. Every
 * queue has a descriptor to sleep on. (A client queue without one, where
 * each rank had a core, made a round trip over tcp 13.3 us instead of
 * 14.8. But its waits then paused a millisecond at a time once their spin
 * ran out, and a spin runs out at once on a shared core (base/wait.h):
 * at 2 ranks on 2 cores, each its own node, an 8 B put through Global
 * Arrays took 1180 us instead of 11.) */
static int ofi_open_worker(int w, const char **step)
{
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_FD, .size = 1024};
    int rc;
    ofi.w[w].fd = -1;
    ofi.w[w].rlen = OFI_EAGER;
    if ((rc = fi_endpoint(ofi.domain, ofi.info, &ofi.w[w].ep, NULL)) != 0)
        *step = "fi_endpoint";
    else if ((rc = fi_cq_open(ofi.domain, &ca, &ofi.w[w].cq, NULL)) != 0)
        *step = "fi_cq_open with a file descriptor to wait on";
    else if ((rc = fi_ep_bind(ofi.w[w].ep, &ofi.w[w].cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
             (rc = fi_ep_bind(ofi.w[w].ep, &ofi.av->fid, 0)) != 0 || (rc = fi_enable(ofi.w[w].ep)) != 0)
        *step = "fi_ep_bind or fi_enable";
    else if ((rc = fi_control(&ofi.w[w].cq->fid, FI_GETWAIT, &ofi.w[w].fd)) != 0)
        *step = "fi_control(FI_GETWAIT)";
    if (rc != 0)
        return rc;
    for (int i = 0; i < OFI_RECVS; i++) {
        ofi_req_t *r = calloc(1, sizeof *r);
        if (!r || !(r->buf = malloc(ofi.w[w].rlen)))
            rt_oom("network receive buffers", ofi.w[w].rlen);
        r->kind = OFI_REQ_RECV;
        r->rank = -1;
        ofi.w[w].recv[i] = r;
        ofi_post_recv(w, r);
    }
    return 0;
}

/* Closes everything opened, registrations before the endpoints they may
 * be bound to; what fails to close is said, not fatal. */
static void ofi_close(struct fid *f, const char *what)
{
    int rc = f ? fi_close(f) : 0;
    if (rc != 0)
        rt_error(REACH_SUCCESS, "reach_finalize", "libfabric cannot close its %s: %s", what, fi_strerror(-rc));
}

void ofi_close_all(void)
{
    ofi_close(ofi.mr ? &ofi.mr->fid : NULL, "arena registration");
    for (int w = 0; w < OFI_WORKERS; w++) {
        ofi_close(ofi.w[w].ep ? &ofi.w[w].ep->fid : NULL, "endpoint");
        ofi_close(ofi.w[w].cq ? &ofi.w[w].cq->fid : NULL, "completion queue");
        for (int i = 0; i < OFI_RECVS; i++)
            if (ofi.w[w].recv[i]) {
                free(ofi.w[w].recv[i]->buf);
                free(ofi.w[w].recv[i]);
            }
        free(ofi.w[w].queue);
    }
    ofi_close(ofi.av ? &ofi.av->fid : NULL, "address vector");
    ofi_close(ofi.domain ? &ofi.domain->fid : NULL, "domain");
    ofi_close(ofi.fabric ? &ofi.fabric->fid : NULL, "fabric");
    if (ofi.info)
        fi_freeinfo(ofi.info);
    free(ofi.addr);
    free(ofi.pings);
    free(ofi.keys);
    free(ofi.bases);
    for (int i = 0; i < OFI_COPIES; i++)
        free(atomic_load(&ofi.copies[i]));
    memset(&ofi, 0, sizeof ofi);
}

/* Sizes of the buffers of libfabric's ofi_rxm layer, which serves the
 * tcp provider (the one reach runs over today: verbs and efa need
 * FI_MR_LOCAL), reach's unless the user set them. libfabric reads them
 * when it first loads its providers: at reach_init's fi_getinfo, unless
 * MPI loaded libfabric before. setenv runs before reach starts a thread;
 * child processes inherit the values.
 * - FI_OFI_RXM_MSG_RX_SIZE, receives posted per connection: with the
 *   default of 128 a process took 258 MB after ARMCI_Init between two
 *   machines, with 16 it took 109 before the bounce buffers below were
 *   made small (reach's own 16 receives an endpoint keep up; what comes
 *   beyond waits in the socket).
 * - FI_OFI_RXM_EAGER_LIMIT, the largest message sent whole: reach's
 *   largest eager message (OFI_EAGER), so that a put, an accumulate's
 *   chunk or a get's answer of up to 64 KiB is one message, not segments
 *   of the provider's 16 KiB (docs/benchmarks.md, "libfabric's eager
 *   limit"). With the two settings below on, the layer reads such a
 *   message straight into reach's posted receive, so the limit takes no
 *   memory of its own; where the user turned either off, it stays the
 *   provider's, as the bounce buffers do (they follow it).
 * - FI_OFI_RXM_BUFFER_SIZE, its bounce buffers, and FI_OFI_RXM_RX_SIZE,
 *   the receives an endpoint may have posted (reach posts OFI_RECVS). The
 *   layer keeps pools of 1024 bounce buffers, a receive pool on each
 *   endpoint and a send pool on each that sends, all touched when made.
 *   The provider's default buffer is the eager limit (17 MB a pool: 111 MB
 *   a process at 4 ranks between two machines) and its default receives
 *   2048; 512 bytes and 64 receives make it 28 MB. Over tcp a larger
 *   message needs no bounce buffer: the provider reads its header and
 *   places the rest straight into reach's posted receive
 *   (FI_OFI_RXM_ENABLE_DYN_RBUF, on by default), and sends it from
 *   reach's buffer (FI_OFI_RXM_ENABLE_DIRECT_SEND, on by default). Where
 *   the user turned either off, the buffers are left at the provider's
 *   size. They hold reach's injected messages (OFI_INJECT).
 *   docs/benchmarks.md, "Memory", has the figures.
 * - FI_OFI_RXM_TX_SIZE, the sends an endpoint may have in the layer at
 *   once, each with a bounce buffer of its send pool: 2048 by default,
 *   256 here (1.3 MB less a process after traffic, at 4 ranks between two
 *   machines). A send beyond them is refused (-FI_EAGAIN) and posted
 *   again after progress (ofi_post_send); a send leaves the layer once
 *   the socket has taken it.
 * - FI_OFI_RXM_CM_PROGRESS_INTERVAL, how often (us) the layer's progress
 *   also reads its connection events: 10 ms by default. A connection is
 *   made on the first send between two endpoints, and until its events
 *   were read every message waited: between two machines reach-bench's
 *   first figure, a put of 8 B with its fence, took 130-176 us where it
 *   takes 39 with 100 us (medians of 3 sittings). */
static int ofi_env_off(const char *name)
{
    const char *v = getenv(name);
    int on;
    return v && config_parse_bool(v, &on) == 0 && !on;
}

static void ofi_provider_sizes(void)
{
    char size[32];
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "16", 0);
    setenv("FI_OFI_RXM_RX_SIZE", "64", 0);
    setenv("FI_OFI_RXM_TX_SIZE", "256", 0);
    setenv("FI_OFI_RXM_CM_PROGRESS_INTERVAL", "100", 0);
    if (!ofi_env_off("FI_OFI_RXM_ENABLE_DYN_RBUF") && !ofi_env_off("FI_OFI_RXM_ENABLE_DIRECT_SEND")) {
        snprintf(size, sizeof size, "%zu", OFI_EAGER);
        setenv("FI_OFI_RXM_EAGER_LIMIT", size, 0);
        snprintf(size, sizeof size, "%zu", OFI_PROVIDER_BUFFER);
        setenv("FI_OFI_RXM_BUFFER_SIZE", size, 0);
    }
}

/* The provider: RDM endpoints with messages in order and reads, local
 * buffers unregistered, resource management on, thread-safe (the two
 * workers' threads share the domain). */
static int ofi_open(const char *call)
{
    const char *why = ofi_lib_open();
    if (why)
        return rt_error(REACH_ERR_SYSTEM, call, "libfabric cannot be loaded (REACH_NETWORK=ofi): %s", why);
    ofi_provider_sizes();
    struct fi_info *hints = fi_allocinfo();
    if (!hints)
        rt_oom(call, sizeof *hints);
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->tx_attr->msg_order = hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    /* The provider queues what arrives beyond the receives posted, rather
     * than dropping it: a target may get 64 requests per origin at once. */
    hints->domain_attr->resource_mgmt = FI_RM_ENABLED;
    if (rt.cfg.ofi_provider[0] && !(hints->fabric_attr->prov_name = strdup(rt.cfg.ofi_provider)))
        rt_oom(call, strlen(rt.cfg.ofi_provider));
    /* Messages up to OFI_INJECT go without a completion to wait for (and
     * without a copy of their own): asked for, taken where offered. */
    hints->tx_attr->inject_size = OFI_INJECT;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &ofi.info);
    if (rc == -FI_ENODATA) {
        hints->tx_attr->inject_size = 0;
        rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &ofi.info);
    }
    fi_freeinfo(hints);
    if (rc != 0)
        return rt_error(REACH_ERR_SYSTEM, call,
                        "libfabric has no provider%s%s with reliable datagram endpoints, ordered messages "
                        "and RMA reads without registered local buffers: %s (REACH_OFI_PROVIDER)",
                        rt.cfg.ofi_provider[0] ? " " : "", rt.cfg.ofi_provider, fi_strerror(-rc));
    int mode = ofi.info->domain_attr->mr_mode;
    ofi.virt_addr = (mode & FI_MR_VIRT_ADDR) != 0;
    ofi.prov_key = (mode & FI_MR_PROV_KEY) != 0;
    ofi.mr_endpoint = (mode & FI_MR_ENDPOINT) != 0;
    ofi.inject = ofi.info->tx_attr->inject_size;
    atomic_store(&ofi.next_key, 1);
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    if ((rc = fi_fabric(ofi.info->fabric_attr, &ofi.fabric, NULL)) != 0 ||
        (rc = fi_domain(ofi.fabric, ofi.info, &ofi.domain, NULL)) != 0 ||
        (rc = fi_av_open(ofi.domain, &aa, &ofi.av, NULL)) != 0)
        return rt_error(REACH_ERR_SYSTEM, call, "libfabric (%s): %s", ofi.info->fabric_attr->prov_name,
                        fi_strerror(-rc));
    const char *step = NULL;
    for (int w = 0; w < OFI_WORKERS && rc == 0; w++)
        rc = ofi_open_worker(w, &step);
    if (rc != 0)
        return rt_error(REACH_ERR_SYSTEM, call, "libfabric (%s) cannot open an endpoint: %s: %s",
                        ofi.info->fabric_attr->prov_name, step, fi_strerror(-rc));
    return REACH_SUCCESS;
}

/* Every rank's endpoint names, arena key and base, exchanged; every
 * endpoint of every rank in the address vector. */
static int ofi_connect(const char *call, void *base, uint64_t key)
{
    struct {
        uint64_t key, base, namelen;
        char names[OFI_WORKERS][256];
    } mine = {key, (uint64_t)(uintptr_t)base, 0, {{0}}};
    for (int w = 0; w < OFI_WORKERS; w++) {
        size_t got = sizeof mine.names[w];
        if (fi_getname(&ofi.w[w].ep->fid, mine.names[w], &got) != 0 || (w > 0 && got != mine.namelen))
            return rt_error(REACH_ERR_SYSTEM, call, "libfabric cannot name an endpoint");
        mine.namelen = got;
    }
    uint64_t namelen = mine.namelen;
    size_t n = (size_t)rt.size;
    char *all = malloc(sizeof mine * n);
    if (!all)
        rt_oom(call, sizeof mine * n);
    boot_allgather(rt.comm, &mine, sizeof mine, all);
    ofi.addr = calloc(n, sizeof *ofi.addr);
    ofi.pings = calloc(n, sizeof *ofi.pings);
    ofi.keys = calloc(n, sizeof *ofi.keys);
    ofi.bases = calloc(n, sizeof *ofi.bases);
    if (!ofi.addr || !ofi.pings || !ofi.keys || !ofi.bases)
        rt_oom(call, n * sizeof *ofi.addr);
    int st = REACH_SUCCESS;
    for (int r = 0; r < rt.size && st == REACH_SUCCESS; r++) {
        memcpy(&mine, all + sizeof mine * (size_t)r, sizeof mine);
        ofi.keys[r] = mine.key;
        ofi.bases[r] = mine.base;
        for (int w = 0; w < OFI_WORKERS && st == REACH_SUCCESS; w++)
            if (mine.namelen != namelen || fi_av_insert(ofi.av, mine.names[w], 1, &ofi.addr[r][w], 0, NULL) != 1)
                st = rt_error(REACH_ERR_SYSTEM, call, "libfabric cannot address rank %d", r);
    }
    free(all);
    return st;
}

int ofi_init(void *base, size_t len, const net_upcalls_t *up)
{
    const char *call = "reach_init";
    ofi.up = up;
    uint64_t key = 0;
    int st = ofi_open(call);
    int rc;
    if (st == REACH_SUCCESS && (rc = ofi_register(NET_SERVER, base, len, &ofi.mr, &key)) != 0)
        st = rt_error(REACH_ERR_SYSTEM, call, "libfabric cannot register the arena (REACH_ARENA_SIZE): %s",
                      fi_strerror(-rc));
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS)) {
        ofi_close_all();
        return st != REACH_SUCCESS ? st : REACH_ERR_SYSTEM;
    }
    st = ofi_connect(call, base, key);
    if (!boot_all_agree(rt.comm, st == REACH_SUCCESS)) {
        ofi_close_all();
        return st != REACH_SUCCESS ? st : REACH_ERR_SYSTEM;
    }
    return REACH_SUCCESS;
}
