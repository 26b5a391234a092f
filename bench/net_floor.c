/* The networks table's floor: each network library's own round trip of
 * 8 B between ranks 0 and 1 over TCP (UCX's tcp transport, libfabric's
 * tcp provider), with nothing of reach in between, built three ways:
 * polled without a wait object (as ucx_perftest and fi_pingpong do); with
 * a file descriptor to wait on (UCX's wakeup feature, libfabric's
 * FI_WAIT_FD), as reach's backends need so that a server may sleep,
 * though here, as in reach's waits before they sleep, polled; and the
 * same with the answer given by a thread of its own at the target, as
 * reach's server thread does. An 8 B get through reach's backend cannot
 * take less than the last. */
#include "harness.h"

#include <string.h>

#if defined REACH_BENCH_OFI || defined REACH_BENCH_UCX
#include <pthread.h>

#define FLOOR_ROUNDS 200   /* round trips per sample */
#define FLOOR_PATIENCE 5.0 /* seconds a side waits for the other's message */
#define FLOOR_NAME 1024    /* the longest endpoint name exchanged */

/* One library's pieces. Each returns 0 or the library's negative error
 * code, which error() names; open says in *where which step failed. */
struct floor_lib {
    int (*open)(int way, const char **where);
    int (*send)(void);
    int (*arrival)(void); /* the next message, FLOOR_PATIENCE at most */
    void (*close)(void);
    const char *(*error)(int rc);
};

static MPI_Comm floor_pair; /* ranks 0 and 1 */
static long floor_trips;    /* the target answers this many */

/* Whether both sides' step succeeded. */
static int floor_both(int ok)
{
    int both;
    MPI_Allreduce(&ok, &both, 1, MPI_INT, MPI_LAND, floor_pair);
    return both;
}

/* Each side's endpoint name (len bytes, at most FLOOR_NAME) into
 * names[rank]. */
static void floor_swap_names(char names[2][FLOOR_NAME])
{
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, names, FLOOR_NAME, MPI_BYTE, floor_pair);
}

/* Whether the other side's message came before give_up (checked every
 * 4096 polls). */
static int floor_patient(unsigned polls, double give_up)
{
    return polls % 4096 != 0 || now() < give_up;
}
#endif

#ifdef REACH_BENCH_OFI
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

static struct {
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    fi_addr_t peer;
    char buf[2][64];
    struct fi_context ctx[2];
} F;

/* Waits for the next arrival and posts its buffer again. */
static int ofi_floor_arrival(void)
{
    struct fi_cq_msg_entry c;
    ssize_t n;
    double give_up = now() + FLOOR_PATIENCE;
    for (unsigned k = 1; (n = fi_cq_read(F.cq, &c, 1)) == -FI_EAGAIN;)
        if (!floor_patient(k++, give_up))
            return -FI_ETIMEDOUT;
    if (n < 0)
        return (int)n;
    int k = c.op_context == &F.ctx[1];
    return (int)fi_recv(F.ep, F.buf[k], sizeof F.buf[k], NULL, FI_ADDR_UNSPEC, &F.ctx[k]);
}

static int ofi_floor_send(void)
{
    static const char msg[8];
    ssize_t rc;
    while ((rc = fi_inject(F.ep, msg, sizeof msg, F.peer)) == -FI_EAGAIN)
        fi_cq_read(F.cq, NULL, 0);
    return (int)rc;
}

/* Opens everything on this side and exchanges the endpoints' names. */
static int ofi_floor_open(int way, const char **where)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    int rc = -FI_ENOMEM;
    *where = "fi_allocinfo";
    if (!hints)
        return rc;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->fabric_attr->prov_name = strdup("tcp");
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_MSG, .wait_obj = way > 0 ? FI_WAIT_FD : FI_WAIT_NONE, .size = 64};
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    char name[2][FLOOR_NAME] = {{0}};
    size_t len = sizeof name[0];
    if ((rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info)) != 0)
        *where = "fi_getinfo (provider tcp)";
    else if ((rc = fi_fabric(info->fabric_attr, &F.fabric, NULL)) != 0 ||
             (rc = fi_domain(F.fabric, info, &F.domain, NULL)) != 0 ||
             (rc = fi_av_open(F.domain, &aa, &F.av, NULL)) != 0 ||
             (rc = fi_endpoint(F.domain, info, &F.ep, NULL)) != 0 ||
             (rc = fi_cq_open(F.domain, &ca, &F.cq, NULL)) != 0 ||
             (rc = fi_ep_bind(F.ep, &F.cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
             (rc = fi_ep_bind(F.ep, &F.av->fid, 0)) != 0 || (rc = fi_enable(F.ep)) != 0 ||
             (rc = fi_getname(&F.ep->fid, name[B.me], &len)) != 0)
        *where = "opening the fabric, domain, endpoint and queue";
    fi_freeinfo(info);
    fi_freeinfo(hints);
    if (!floor_both(rc == 0))
        return rc ? rc : -FI_EOTHER;
    floor_swap_names(name);
    *where = "fi_av_insert or fi_recv";
    rc = fi_av_insert(F.av, name[1 - B.me], 1, &F.peer, 0, NULL) == 1 ? 0 : -FI_EOTHER;
    for (int k = 0; k < 2 && rc == 0; k++)
        rc = (int)fi_recv(F.ep, F.buf[k], sizeof F.buf[k], NULL, FI_ADDR_UNSPEC, &F.ctx[k]);
    return floor_both(rc == 0) ? 0 : rc ? rc : -FI_EOTHER;
}

static void ofi_floor_close(void)
{
    struct fid *fids[] = {F.ep ? &F.ep->fid : NULL, F.cq ? &F.cq->fid : NULL, F.av ? &F.av->fid : NULL,
                          F.domain ? &F.domain->fid : NULL, F.fabric ? &F.fabric->fid : NULL};
    for (size_t k = 0; k < sizeof fids / sizeof fids[0]; k++)
        if (fids[k])
            fi_close(fids[k]);
    memset(&F, 0, sizeof F);
}

static const char *ofi_floor_error(int rc)
{
    return fi_strerror(-rc);
}

static const struct floor_lib ofi_floor = {ofi_floor_open, ofi_floor_send, ofi_floor_arrival, ofi_floor_close,
                                           ofi_floor_error};
#endif

#ifdef REACH_BENCH_UCX
#include <ucp/api/ucp.h>

static struct {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h ep;
    unsigned arrived, seen; /* messages arrived, and taken by arrival */
} U;

static ucs_status_t ucx_floor_on_message(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                         const ucp_am_recv_param_t *param)
{
    (void)arg, (void)header, (void)header_length, (void)data, (void)length, (void)param;
    U.arrived++;
    return UCS_OK;
}

static int ucx_floor_arrival(void)
{
    double give_up = now() + FLOOR_PATIENCE;
    for (unsigned k = 1; U.arrived == U.seen; ucp_worker_progress(U.worker))
        if (!floor_patient(k++, give_up))
            return UCS_ERR_TIMED_OUT;
    U.seen++;
    return 0;
}

/* An eager active message of 8 B, complete when this returns. */
static int ucx_floor_send(void)
{
    static const char msg[8];
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_EAGER};
    void *req = ucp_am_send_nbx(U.ep, 0, NULL, 0, msg, sizeof msg, &p);
    if (UCS_PTR_IS_ERR(req))
        return UCS_PTR_STATUS(req);
    ucs_status_t s = UCS_OK;
    if (req) {
        while ((s = ucp_request_check_status(req)) == UCS_INPROGRESS)
            ucp_worker_progress(U.worker);
        ucp_request_free(req);
    }
    return s;
}

/* Opens everything on this side (UCX's tcp transport alone) and exchanges
 * the workers' addresses. */
static int ucx_floor_open(int way, const char **where)
{
    ucp_config_t *config = NULL;
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                           .features = UCP_FEATURE_AM | (way > 0 ? UCP_FEATURE_WAKEUP : 0)};
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB,
                                 .id = 0,
                                 .cb = ucx_floor_on_message};
    ucp_address_t *addr = NULL;
    size_t len = 0;
    char name[2][FLOOR_NAME] = {{0}};
    int fd;
    ucs_status_t s;
    *where = "opening the context, worker and handler (transport tcp)";
    if ((s = ucp_config_read(NULL, NULL, &config)) == UCS_OK) {
        if ((s = ucp_config_modify(config, "TLS", "tcp")) == UCS_OK)
            s = ucp_init(&params, config, &U.ctx);
        ucp_config_release(config);
    }
    if (s == UCS_OK && (s = ucp_worker_create(U.ctx, &wp, &U.worker)) == UCS_OK &&
        (way == 0 || (s = ucp_worker_get_efd(U.worker, &fd)) == UCS_OK) &&
        (s = ucp_worker_set_am_recv_handler(U.worker, &hp)) == UCS_OK &&
        (s = ucp_worker_get_address(U.worker, &addr, &len)) == UCS_OK) {
        if (len <= sizeof name[0])
            memcpy(name[B.me], addr, len);
        else
            s = UCS_ERR_BUFFER_TOO_SMALL, *where = "the worker's address (longer than reach-bench takes)";
        ucp_worker_release_address(U.worker, addr);
    }
    if (!floor_both(s == UCS_OK))
        return s != UCS_OK ? s : UCS_ERR_UNREACHABLE;
    floor_swap_names(name);
    /* (a forced close needs peer error handling on both sides) */
    ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
                          .address = (const ucp_address_t *)name[1 - B.me],
                          .err_mode = UCP_ERR_HANDLING_MODE_PEER};
    *where = "ucp_ep_create";
    s = ucp_ep_create(U.worker, &ep, &U.ep);
    return floor_both(s == UCS_OK) ? 0 : s != UCS_OK ? s : UCS_ERR_UNREACHABLE;
}

static void ucx_floor_close(void)
{
    if (U.ep) {
        ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
        void *req = ucp_ep_close_nbx(U.ep, &p);
        if (req && !UCS_PTR_IS_ERR(req)) {
            while (ucp_request_check_status(req) == UCS_INPROGRESS)
                ucp_worker_progress(U.worker);
            ucp_request_free(req);
        }
    }
    if (U.worker)
        ucp_worker_destroy(U.worker);
    if (U.ctx)
        ucp_cleanup(U.ctx);
    memset(&U, 0, sizeof U);
}

static const char *ucx_floor_error(int rc)
{
    return ucs_status_string((ucs_status_t)rc);
}

static const struct floor_lib ucx_floor = {ucx_floor_open, ucx_floor_send, ucx_floor_arrival, ucx_floor_close,
                                           ucx_floor_error};
#endif

#if defined REACH_BENCH_OFI || defined REACH_BENCH_UCX
struct floor_target {
    const struct floor_lib *lib;
    int rc;
};

/* The target's side: answers each message, floor_trips of them. */
static void *floor_target(void *arg)
{
    struct floor_target *t = arg;
    for (long i = 0; i < floor_trips && t->rc == 0; i++)
        if ((t->rc = t->lib->arrival()) == 0)
            t->rc = t->lib->send();
    return NULL;
}

/* One way of FLOOR_WAYS on ranks 0 and 1: on rank 0 the median round
 * trip (its samples in us), 0 if it could not be measured (said why). */
static double floor_run(const struct floor_lib *lib, const char *name, int way, double *us)
{
    const char *where;
    int rc = lib->open(way, &where);
    struct floor_target served = {lib, 0};
    double med = 0;
    if (rc != 0 && B.me == 0)
        printf("(%s alone: %s failed: %s)\n", name, where, lib->error(rc));
    if (rc == 0) {
        floor_trips = (long)(B.samples + 1) * FLOOR_ROUNDS;
        MPI_Barrier(floor_pair);
        if (B.me == 1) {
            pthread_t t;
            if (way < 2 || pthread_create(&t, NULL, floor_target, &served) != 0)
                floor_target(&served);
            else
                pthread_join(t, NULL);
        } else {
            for (int s = -1; s < B.samples && rc == 0; s++) { /* s = -1: warm-up */
                double t0 = now();
                for (int i = 0; i < FLOOR_ROUNDS && rc == 0; i++)
                    if ((rc = lib->send()) == 0)
                        rc = lib->arrival();
                if (s >= 0)
                    us[s] = 1e6 * (now() - t0) / FLOOR_ROUNDS;
            }
        }
        int worst, mine = rc ? rc : served.rc; /* both sides have stopped waiting */
        MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, floor_pair);
        if (worst != 0 && B.me == 0)
            printf("(%s alone: a round trip failed: %s)\n", name, lib->error(worst));
        else if (B.me == 0)
            med = median(us, B.samples);
    }
    lib->close();
    return med;
}

void net_floor(const char *net, double us[FLOOR_WAYS][MAX_SAMPLES], double med[FLOOR_WAYS])
{
    const struct floor_lib *lib = NULL;
    const char *name = NULL;
#ifdef REACH_BENCH_OFI
    if (strcmp(net, "ofi") == 0)
        lib = &ofi_floor, name = "libfabric";
#endif
#ifdef REACH_BENCH_UCX
    if (strcmp(net, "ucx") == 0)
        lib = &ucx_floor, name = "UCX";
#endif
    for (int w = 0; w < FLOOR_WAYS; w++)
        med[w] = 0;
    if (!lib)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, B.me < 2 ? 0 : MPI_UNDEFINED, B.me, &floor_pair);
    if (floor_pair == MPI_COMM_NULL)
        return;
    for (int w = 0; w < FLOOR_WAYS; w++)
        med[w] = floor_run(lib, name, w, us[w]);
    MPI_Comm_free(&floor_pair);
}
#else
void net_floor(const char *net, double us[FLOOR_WAYS][MAX_SAMPLES], double med[FLOOR_WAYS])
{
    (void)net, (void)us;
    for (int w = 0; w < FLOOR_WAYS; w++)
        med[w] = 0;
}
#endif
