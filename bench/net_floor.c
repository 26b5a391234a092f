/* The networks table's floor: libfabric's own round trip of 8 B between
 * ranks 0 and 1 over the tcp provider, with nothing of reach in between,
 * built three ways: queues without a wait object (as fi_pingpong's);
 * queues with a file descriptor to wait on (FI_WAIT_FD), as reach's ofi
 * backend needs so that a server may sleep, though here, as in reach's
 * waits before they sleep, they are polled; and the same with the answer
 * given by a thread of its own at the target, as reach's server thread
 * does. An 8 B get through reach's ofi backend cannot take less than the
 * last. */
#include "harness.h"

#ifdef REACH_BENCH_OFI
#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <string.h>

#define FLOOR_ROUNDS 200   /* round trips per sample */
#define FLOOR_PATIENCE 5.0 /* seconds a side waits for the other's message */

static struct {
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    fi_addr_t peer;
    MPI_Comm pair; /* ranks 0 and 1 */
    char buf[2][64];
    struct fi_context ctx[2];
    long trips; /* the target answers this many */
} F;

/* Waits for the next arrival (FLOOR_PATIENCE at most: the other side
 * may have failed), and posts its buffer again: 0, or a negative
 * fi_errno. */
static int floor_arrival(void)
{
    struct fi_cq_msg_entry c;
    ssize_t n;
    double give_up = now() + FLOOR_PATIENCE;
    for (unsigned k = 1; (n = fi_cq_read(F.cq, &c, 1)) == -FI_EAGAIN; k++)
        if (k % 4096 == 0 && now() > give_up)
            return -FI_ETIMEDOUT;
    if (n < 0)
        return (int)n;
    int k = c.op_context == &F.ctx[1];
    return (int)fi_recv(F.ep, F.buf[k], sizeof F.buf[k], NULL, FI_ADDR_UNSPEC, &F.ctx[k]);
}

static int floor_send(void)
{
    static const char msg[8];
    ssize_t rc;
    while ((rc = fi_inject(F.ep, msg, sizeof msg, F.peer)) == -FI_EAGAIN)
        fi_cq_read(F.cq, NULL, 0);
    return (int)rc;
}

static void *floor_target(void *arg)
{
    int *rc = arg;
    for (long i = 0; i < F.trips && *rc == 0; i++)
        if ((*rc = floor_arrival()) == 0)
            *rc = floor_send();
    return NULL;
}

/* Opens everything on ranks 0 and 1 and exchanges the endpoints' names:
 * 0, or why not (a negative fi_errno; where names the step). */
static int floor_open(int wait_fd, const char **where)
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
    struct fi_cq_attr ca = {.format = FI_CQ_FORMAT_MSG, .wait_obj = wait_fd ? FI_WAIT_FD : FI_WAIT_NONE, .size = 64};
    struct fi_av_attr aa = {.type = FI_AV_TABLE};
    char name[2][256] = {{0}};
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
    int ok = rc == 0, both;
    MPI_Allreduce(&ok, &both, 1, MPI_INT, MPI_LAND, F.pair);
    if (!both)
        return rc ? rc : -FI_EOTHER;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, name, sizeof name[0], MPI_BYTE, F.pair);
    *where = "fi_av_insert or fi_recv";
    rc = fi_av_insert(F.av, name[1 - B.me], 1, &F.peer, 0, NULL) == 1 ? 0 : -FI_EOTHER;
    for (int k = 0; k < 2 && rc == 0; k++)
        rc = (int)fi_recv(F.ep, F.buf[k], sizeof F.buf[k], NULL, FI_ADDR_UNSPEC, &F.ctx[k]);
    ok = rc == 0;
    MPI_Allreduce(&ok, &both, 1, MPI_INT, MPI_LAND, F.pair);
    return both ? 0 : rc ? rc : -FI_EOTHER;
}

static void floor_close(void)
{
    struct fid *fids[] = {F.ep ? &F.ep->fid : NULL, F.cq ? &F.cq->fid : NULL, F.av ? &F.av->fid : NULL,
                          F.domain ? &F.domain->fid : NULL, F.fabric ? &F.fabric->fid : NULL};
    for (size_t k = 0; k < sizeof fids / sizeof fids[0]; k++)
        if (fids[k])
            fi_close(fids[k]);
    MPI_Comm pair = F.pair;
    memset(&F, 0, sizeof F);
    F.pair = pair;
}

/* One way of FLOOR_WAYS on ranks 0 and 1: on rank 0 the median round
 * trip (its samples in us), 0 if it could not be measured (said why). */
static double floor_run(int way, double *us)
{
    const char *where;
    int rc = floor_open(way > 0, &where), served = 0;
    double med = 0;
    if (rc != 0 && B.me == 0)
        printf("(libfabric alone: %s failed: %s)\n", where, fi_strerror(-rc));
    if (rc == 0) {
        F.trips = (long)(B.samples + 1) * FLOOR_ROUNDS;
        MPI_Barrier(F.pair);
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
                    if ((rc = floor_send()) == 0)
                        rc = floor_arrival();
                if (s >= 0)
                    us[s] = 1e6 * (now() - t0) / FLOOR_ROUNDS;
            }
        }
        int worst, mine = rc ? rc : served; /* both sides have stopped waiting */
        MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, F.pair);
        if (worst != 0 && B.me == 0)
            printf("(libfabric alone: a round trip failed: %s)\n", fi_strerror(-worst));
        else if (B.me == 0)
            med = median(us, B.samples);
    }
    floor_close();
    return med;
}

void net_floor_ofi(double us[FLOOR_WAYS][MAX_SAMPLES], double med[FLOOR_WAYS])
{
    MPI_Comm_split(MPI_COMM_WORLD, B.me < 2 ? 0 : MPI_UNDEFINED, B.me, &F.pair);
    for (int w = 0; w < FLOOR_WAYS; w++)
        med[w] = F.pair == MPI_COMM_NULL ? 0 : floor_run(w, us[w]);
    if (F.pair != MPI_COMM_NULL)
        MPI_Comm_free(&F.pair);
}
#else
void net_floor_ofi(double us[FLOOR_WAYS][MAX_SAMPLES], double med[FLOOR_WAYS])
{
    (void)us;
    for (int w = 0; w < FLOOR_WAYS; w++)
        med[w] = 0;
}
#endif
