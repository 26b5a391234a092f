/* Strided and vector transfers to another node. Two protocols
 * (Nieplocha02, docs/references.md), chosen per request by
 * REACH_STRIDED_PROTOCOL and the length of a run or pair:
 *
 * direct  one operation per run or pair (a put, get or accumulate of its
 *   own), zero-copy where the network can;
 * pack  streaming through a bounce buffer: runs are packed into chunks
 *   sent back to back, so that packing, the wire and the target's
 *   unpacking overlap. The chunk grows with the request, from a few KiB (a
 *   small request goes in one or two messages) to 64 KiB (a large one
 *   streams about eight chunks deep); one bounce buffer suffices because a
 *   send returns once its data is out. Gets send the chunk requests, then
 *   unpack the replies as they arrive. */
#include "transport/am/am_internal.h"
#include "base/acc.h"

#include <stdlib.h>
#include <string.h>

#define AM_PACK_MIN ((size_t)4 << 10) /* smallest chunk, but for small requests */
/* auto: runs shorter than this go packed. Measured over UCX shared memory
 * (1 MiB in all): packed put and accumulate stream at 12-13 GB/s for runs
 * of 512 B and more, direct ones pass that from 8 KiB runs (17 GB/s);
 * direct gets wait for each run and pass packed ones (12 GB/s) only from
 * 32 KiB runs. */
#define AM_DIRECT_MIN_RUN ((size_t)8 << 10)
#define AM_DIRECT_MIN_RUN_GET ((size_t)32 << 10)

void am_pack_runs(const reach_strided_t *p, const size_t *stride, char *base, uint64_t first, uint64_t count,
                  char *packed, int to_packed)
{
    size_t run = p->count[0];
    for (uint64_t j = 0; j < count; j++) {
        char *place = base + strided_run_offset(p, stride, first + j);
        if (to_packed)
            memcpy(packed + j * run, place, run);
        else
            memcpy(place, packed + j * run, run);
    }
}

/* One contiguous transfer of the direct protocol, left in flight (the
 * caller's am_flight_last covers it). */
static void am_one(xfer_t op, int rank, reach_type_t t, const void *scale, const char *local, uintptr_t raddr,
                   size_t bytes)
{
    if (op == XFER_PUT)
        am_put_nbi(rank, local, raddr, bytes);
    else if (op == XFER_GET)
        am_get_nb(rank, raddr, (char *)local, bytes);
    else
        am_acc_nbi(rank, t, scale, local, raddr, bytes);
}

/* Whether an item (a run or a pair) of this size goes packed: always for
 * pack, below the measured crossover for auto. */
static int am_pack_item(xfer_t op, size_t item)
{
    int proto = rt.cfg.strided_protocol;
    return proto == PROTOCOL_PACK ||
           (proto == PROTOCOL_AUTO && item < (op == XFER_GET ? AM_DIRECT_MIN_RUN_GET : AM_DIRECT_MIN_RUN));
}

/* Items of `unit` bytes per chunk for a request of `total` bytes: about an
 * eighth of the request, between AM_PACK_MIN and AM_PACK_MAX, at least one. */
static size_t am_chunk_items(size_t total, size_t unit)
{
    size_t chunk = total / 8;
    chunk = chunk < AM_PACK_MIN ? AM_PACK_MIN : chunk > AM_PACK_MAX ? AM_PACK_MAX : chunk;
    return chunk >= unit ? chunk / unit : 1;
}

/* A request's kind and scale for a chunk of op. */
static am_request_t am_chunk_request(xfer_t op, int strided, reach_type_t t, const void *scale)
{
    static const uint8_t kind[2][3] = {{REQ_PUTV, REQ_GETV, REQ_ACCV}, {REQ_PUTS, REQ_GETS, REQ_ACCS}};
    am_request_t rq = {.kind = kind[strided][op], .counted = 1, .type = (uint8_t)t};
    if (op == XFER_ACC)
        memcpy(rq.scale, scale, acc_elem_size(t)); /* the scale is one element */
    return rq;
}

/* The reply slots of a get in nchunks chunks, with `extra` bytes after
 * them; NULL for other ops. */
static am_gets_t *am_gets_new(xfer_t op, size_t nchunks, size_t extra)
{
    if (op != XFER_GET)
        return NULL;
    size_t size = sizeof(am_gets_t) + nchunks * sizeof(am_slot_t) + extra;
    am_gets_t *g = calloc(1, size);
    if (!g)
        rt_oom("strided or vector get", size);
    g->n = nchunks;
    return g;
}

/* Returns the get's ticket; the writes' chunks have gone out. */
static uint64_t am_strided_pack(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *p,
                                const char *local, uintptr_t raddr)
{
    size_t run = p->count[0];
    uint64_t runs = strided_bytes(p) / run;
    uint64_t per = am_chunk_items(run * runs, run); /* run <= AM_PACK_MAX */
    uint64_t nchunks = (runs + per - 1) / per;
    am_request_t rq = am_chunk_request(op, 1, t, scale);
    rq.raddr = raddr;
    am_gets_t *g = am_gets_new(op, nchunks, 0);
    am_pack_t *pk = (am_pack_t *)(void *)am.bounce;
    pk->plan = *p;
    if (g)
        g->plan = *p;
    for (uint64_t c = 0; c < nchunks; c++) {
        pk->first = c * per;
        pk->count = runs - pk->first < per ? runs - pk->first : per;
        rq.tell = c + 1 < nchunks ? AM_TELL_DRAINED : AM_TELL_NO; /* (am_send_nbx) */
        if (g) {
            g->slot[c] = (am_slot_t){.plan = &g->plan, .local = (char *)local, .first = pk->first};
            am_send(rank, &rq, pk, sizeof *pk, &g->slot[c]);
        } else {
            am_pack_runs(p, p->src_stride, (char *)local, pk->first, pk->count, (char *)(pk + 1), 1);
            am_send(rank, &rq, pk, sizeof *pk + pk->count * run, NULL);
        }
    }
    return g ? am_flight_gets(rank, g) : 0;
}

uint64_t am_strided(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_strided_t *p, const char *local,
                    uintptr_t raddr)
{
    /* A get sees every write before it (am_order). A write needs no more
     * than its send's own wait for the transfers in flight to rank
     * (am_send_nbx): the requests to rank arrive and are done in order.
     * Completing the earlier writes first, as a get must, would cost each
     * NGA_Acc (an ARMCI_AccS) a round trip. */
    if (op == XFER_GET)
        am_order(rank);
    if (p->levels > 0 && p->count[0] <= AM_PACK_MAX && am_pack_item(op, p->count[0]))
        return am_strided_pack(op, rank, t, scale, p, local, raddr);
    /* For a get the remote side is the source, else the destination. */
    strided_iter_t it = strided_begin(1);
    do
        am_one(op, rank, t, scale, local + (op == XFER_GET ? it.dst : it.src),
               raddr + (op == XFER_GET ? it.src : it.dst), p->count[0]);
    while (strided_next(&it, p));
    return am_flight_last(rank);
}

/* A descriptor's pairs go in chunks carrying their target addresses; a
 * get's replies stay in flight (am_flight_last covers them). */
static void am_vector_pack(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v)
{
    size_t b = v->bytes, cnt = v->count;
    size_t per = am_chunk_items(cnt * b, b + sizeof(uint64_t));
    size_t nchunks = (cnt + per - 1) / per;
    am_request_t rq = am_chunk_request(op, 0, t, scale);
    am_gets_t *g = am_gets_new(op, nchunks, cnt * sizeof(void *));
    void **places = g ? (void **)(void *)&g->slot[nchunks] : NULL;
    am_vpack_t *vp = (am_vpack_t *)(void *)am.bounce;
    uint64_t *addr = (uint64_t *)(vp + 1);
    void **remote = op == XFER_GET ? v->src : v->dst;
    if (places)
        memcpy(places, v->dst, cnt * sizeof(void *));
    for (size_t c = 0; c < nchunks; c++) {
        size_t first = c * per;
        vp->count = cnt - first < per ? cnt - first : per;
        rq.tell = c + 1 < nchunks ? AM_TELL_DRAINED : AM_TELL_NO; /* (am_send_nbx) */
        vp->bytes = b;
        char *d = (char *)(addr + vp->count);
        for (size_t j = 0; j < vp->count; j++) {
            addr[j] = (uint64_t)(uintptr_t)remote[first + j];
            if (!g)
                memcpy(d + j * b, v->src[first + j], b);
        }
        size_t len = sizeof *vp + vp->count * sizeof(uint64_t) + (g ? 0 : vp->count * b);
        if (g)
            g->slot[c] = (am_slot_t){.dsts = places + first, .bytes = b};
        am_send(rank, &rq, vp, len, g ? &g->slot[c] : NULL);
    }
    if (g)
        am_flight_gets(rank, g);
}

uint64_t am_vector(xfer_t op, int rank, reach_type_t t, const void *scale, const reach_vector_t *v, size_t n)
{
    if (op == XFER_GET) /* (as am_strided) */
        am_order(rank);
    for (size_t i = 0; i < n; i++) {
        size_t b = v[i].bytes;
        if (v[i].count > 1 && b > 0 && b + sizeof(uint64_t) <= AM_PACK_MAX && am_pack_item(op, b)) {
            am_vector_pack(op, rank, t, scale, &v[i]);
            continue;
        }
        for (size_t j = 0; j < v[i].count && b > 0; j++) {
            int get = op == XFER_GET;
            am_one(op, rank, t, scale, get ? v[i].dst[j] : v[i].src[j], (uintptr_t)(get ? v[i].src[j] : v[i].dst[j]),
                   b);
        }
    }
    return am_flight_last(rank);
}
