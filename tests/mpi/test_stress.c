/* Random operations against a sequential model.
 *
 *   test_stress [--seed S] [--phases P | --seconds T] [--ops K]
 *
 * Every rank draws its operations from its own generator, seeded from S
 * and its rank, and every rank can draw every other rank's: so each keeps
 * a model of every segment and applies all ranks' operations to it. The
 * operations are chosen so that the final state does not depend on their
 * interleaving: puts go to the origin's own slot at each target (one
 * writer per byte, in issue order), accumulates and fetch-and-adds add
 * integers (exact in int64 and double), compare-and-swap loops and mutex-
 * protected read-modify-write sequences add as well. A phase is up to K
 * operations per rank, blocking or not, contiguous, strided or vector, with
 * fences and gets of its own slots (checked against the model at once);
 * then a barrier, after which one rank's whole segment is read back and
 * compared byte for byte. At the end every rank compares its own segment,
 * and the values fetch-and-add returned must be exactly 0 .. n-1 for each
 * counter. With --seconds, rank 0 decides after each phase whether another
 * fits; the seed and phase count to rerun a failure are printed. */
#include "reach.h"
#include "mpi_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT 512                 /* an origin's bytes at each target */
#define ROW 32                   /* the slot as 16 rows of 32 bytes, for strided puts */
#define NLONG 256                /* accumulated longs */
#define NDBL 256                 /* accumulated doubles, as a 16 x 16 matrix */
#define NCTR 8                   /* fetch-and-add counters */
#define NCAS 8                   /* counters incremented by compare-and-swap */
#define NLOCKED 8                /* counters incremented under a mutex */
#define NMUTEX 4                 /* mutexes per rank */
#define MAX_PENDING 16           /* non-blocking operations in flight */

enum { OP_PUT, OP_PUT_STRIDED, OP_PUT_VECTOR, OP_ACC_LONG, OP_ACC_DBL_STRIDED, OP_ACC_VECTOR,
       OP_FETCH_ADD, OP_CAS, OP_LOCKED, OP_GET, OP_FENCE, OP_KINDS };
static const char *const op_names[OP_KINDS] = {
    "put", "put_strided", "put_vector", "acc_long", "acc_double_strided", "acc_vector",
    "fetch_add", "cas", "locked_rmw", "get", "fence"};

static int np, me;
static size_t off_long, off_dbl, off_ctr, off_cas, off_locked, seg_bytes;
static unsigned char *model;     /* np segments */
static void **seg;
static reach_mutexes_t *mutexes;
static unsigned long long seed;
static long phase;
static int64_t *fetched;         /* values fetch-and-add returned here, per (target, counter) */
static int *nfetched, fetch_cap;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return (size_t)(rng_next(s) % n);
}

/* One operation, as drawn: everything needed to issue it and to model it. */
typedef struct op {
    int kind, target, nb;
    uint64_t value;            /* data pattern / accumulate values */
    size_t off, len;           /* put, get, acc_long: bytes or cells */
    size_t r0, h, c0, w;       /* strided: rows and columns */
    size_t pieces, piece;      /* vector: pieces of `piece` bytes or cells */
    int64_t scale;
    int cell;
} op_t;

static void draw(uint64_t *s, op_t *o)
{
    memset(o, 0, sizeof *o);
    o->kind = (int)rng_below(s, OP_KINDS);
    o->target = (int)rng_below(s, (size_t)np);
    o->nb = rng_below(s, 3) == 0;
    o->value = rng_next(s);
    o->scale = 1 + (int64_t)rng_below(s, 3);
    o->cell = (int)rng_below(s, 1024);
    o->off = rng_below(s, SLOT);
    o->len = 1 + rng_below(s, SLOT - o->off);
    o->r0 = rng_below(s, SLOT / ROW);
    o->h = 1 + rng_below(s, SLOT / ROW - o->r0);
    o->c0 = rng_below(s, ROW);
    o->w = 1 + rng_below(s, ROW - o->c0);
    o->pieces = 1 + rng_below(s, 4);
    o->piece = 1 + rng_below(s, SLOT / 4);
    if (o->kind == OP_ACC_LONG) {
        o->off = rng_below(s, NLONG);
        o->len = 1 + rng_below(s, NLONG - o->off);
    }
    if (o->kind == OP_ACC_VECTOR)
        o->piece = 1 + rng_below(s, NLONG / 4);
    if (o->kind == OP_ACC_DBL_STRIDED) {
        o->r0 = rng_below(s, 16);
        o->h = 1 + rng_below(s, 16 - o->r0);
        o->c0 = rng_below(s, 16);
        o->w = 1 + rng_below(s, 16 - o->c0);
    }
}

/* The data byte i of a put, and the element i of an accumulate. */
static unsigned char pattern(uint64_t v, size_t i)
{
    return (unsigned char)((v >> (8 * (i % 8))) + i * 131);
}
static int64_t acc_value(uint64_t v, size_t i)
{
    return (int64_t)((v + i * 2654435761u) % 7) - 3;
}

/* Where an origin's slot lies in a segment; the vector pieces' offsets. */
static size_t slot_of(int origin)
{
    return (size_t)origin * SLOT;
}
static size_t piece_off(const op_t *o, size_t k, size_t room)
{
    return k * room + (o->value >> (8 * k)) % (room - o->piece + 1);
}

/* Applies o, issued by origin, to the model. */
static void model_apply(int origin, const op_t *o)
{
    unsigned char *m = model + (size_t)o->target * seg_bytes;
    unsigned char *slot = m + slot_of(origin);
    int64_t *lng = (int64_t *)(void *)(m + off_long);
    double *dbl = (double *)(void *)(m + off_dbl);
    switch (o->kind) {
    case OP_PUT:
        for (size_t i = 0; i < o->len; i++)
            slot[o->off + i] = pattern(o->value, i);
        break;
    case OP_PUT_STRIDED:
        for (size_t r = 0; r < o->h; r++)
            for (size_t c = 0; c < o->w; c++)
                slot[(o->r0 + r) * ROW + o->c0 + c] = pattern(o->value, r * o->w + c);
        break;
    case OP_PUT_VECTOR:
        for (size_t k = 0; k < o->pieces; k++)
            for (size_t i = 0; i < o->piece; i++)
                slot[piece_off(o, k, SLOT / 4) + i] = pattern(o->value, k * o->piece + i);
        break;
    case OP_ACC_LONG:
        for (size_t i = 0; i < o->len; i++)
            lng[o->off + i] += o->scale * acc_value(o->value, i);
        break;
    case OP_ACC_DBL_STRIDED:
        for (size_t r = 0; r < o->h; r++)
            for (size_t c = 0; c < o->w; c++)
                dbl[(o->r0 + r) * 16 + o->c0 + c] +=
                    (double)(o->scale * acc_value(o->value, r * o->w + c));
        break;
    case OP_ACC_VECTOR:
        for (size_t k = 0; k < o->pieces; k++)
            for (size_t i = 0; i < o->piece; i++)
                lng[piece_off(o, k, NLONG / 4) + i] += o->scale * acc_value(o->value, k * o->piece + i);
        break;
    case OP_FETCH_ADD:
        ((int64_t *)(void *)(m + off_ctr))[o->cell % NCTR] += 1;
        break;
    case OP_CAS:
        ((int64_t *)(void *)(m + off_cas))[o->cell % NCAS] += 1;
        break;
    case OP_LOCKED:
        ((int64_t *)(void *)(m + off_locked))[o->cell % NLOCKED] += o->scale;
        break;
    default:
        break;
    }
}

/* Non-blocking operations in flight, with the buffers they use. */
static struct {
    reach_request_t req;
    void *buf;
} pending[MAX_PENDING];
static int npending;

static void complete_all(void)
{
    for (int i = 0; i < npending; i++) {
        CHECK_EQ_LL(reach_wait(&pending[i].req), REACH_SUCCESS);
        free(pending[i].buf);
    }
    npending = 0;
}

/* A request slot for an operation that keeps buf until it completes; NULL
 * for a blocking one (buf is freed after the call). */
static reach_request_t *request_for(const op_t *o, void *buf)
{
    if (!o->nb)
        return NULL;
    if (npending == MAX_PENDING)
        complete_all();
    pending[npending].buf = buf;
    return &pending[npending++].req;
}

static void report_mismatch(int target, size_t at, unsigned got, unsigned want, const char *when)
{
    const char *region = at < off_long ? "put slots" : at < off_dbl ? "accumulated longs"
                       : at < off_ctr ? "accumulated doubles" : at < off_cas ? "fetch-and-add counters"
                       : at < off_locked ? "compare-and-swap counters" : "mutex-protected counters";
    if (check_failures++ >= 5)   /* the first few say enough */
        return;
    fprintf(stderr,
            "stress: rank %d, seed %llu, phase %ld, %s: segment of rank %d, byte %zu (%s) is 0x%02x, "
            "the model says 0x%02x\n",
            me, seed, phase, when, target, at, region, got, want);
}

/* Compares n bytes read from target's segment at offset off with the model. */
static void compare(int target, size_t off, const unsigned char *got, size_t n, const char *when)
{
    const unsigned char *want = model + (size_t)target * seg_bytes + off;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            report_mismatch(target, off + i, got[i], want[i], when);
            return;
        }
}

static void issue(const op_t *o)
{
    int t = o->target;
    char *base = seg[t];
    char *slot = base + slot_of(me);
    switch (o->kind) {
    case OP_PUT: {
        unsigned char *src = malloc(o->len);
        for (size_t i = 0; i < o->len; i++)
            src[i] = pattern(o->value, i);
        reach_request_t *rq = request_for(o, src);
        CHECK_EQ_LL(rq ? reach_put_nb(src, slot + o->off, o->len, t, rq)
                       : reach_put(src, slot + o->off, o->len, t), REACH_SUCCESS);
        if (!rq)
            free(src);
        break;
    }
    case OP_PUT_STRIDED: {
        size_t sstride = o->w + o->value % 7;
        unsigned char *src = malloc(sstride * o->h);
        for (size_t r = 0; r < o->h; r++)
            for (size_t c = 0; c < o->w; c++)
                src[r * sstride + c] = pattern(o->value, r * o->w + c);
        reach_strided_t sh = {.levels = 1, .count = {o->w, o->h}, .src_stride = {sstride},
                              .dst_stride = {ROW}};
        char *dst = slot + o->r0 * ROW + o->c0;
        reach_request_t *rq = request_for(o, src);
        CHECK_EQ_LL(rq ? reach_put_strided_nb(src, dst, &sh, t, rq) : reach_put_strided(src, dst, &sh, t),
                    REACH_SUCCESS);
        if (!rq)
            free(src);
        break;
    }
    case OP_PUT_VECTOR:
    case OP_ACC_VECTOR: {
        int acc = o->kind == OP_ACC_VECTOR;
        size_t esize = acc ? sizeof(int64_t) : 1, bytes = o->piece * esize;
        /* One buffer: the two address arrays, then the data. */
        void **srcs = malloc(2 * o->pieces * sizeof(void *) + o->pieces * bytes), **dsts = srcs + o->pieces;
        char *buf = (char *)(dsts + o->pieces);
        for (size_t k = 0; k < o->pieces; k++) {
            char *data = buf + k * bytes;
            for (size_t i = 0; i < o->piece; i++) {
                if (acc) {
                    int64_t v = acc_value(o->value, k * o->piece + i);
                    memcpy(data + i * esize, &v, esize);
                } else {
                    data[i] = (char)pattern(o->value, k * o->piece + i);
                }
            }
            srcs[k] = data;
            dsts[k] = acc ? base + off_long + piece_off(o, k, NLONG / 4) * esize
                          : slot + piece_off(o, k, SLOT / 4);
        }
        reach_vector_t v = {srcs, dsts, o->pieces, bytes};
        long scale = (long)o->scale;
        reach_request_t *rq = request_for(o, srcs);
        int st = acc ? (rq ? reach_acc_vector_nb(REACH_LONG, &scale, &v, 1, t, rq)
                           : reach_acc_vector(REACH_LONG, &scale, &v, 1, t))
                     : (rq ? reach_put_vector_nb(&v, 1, t, rq) : reach_put_vector(&v, 1, t));
        CHECK_EQ_LL(st, REACH_SUCCESS);
        if (!rq)
            free(srcs);
        break;
    }
    case OP_ACC_LONG: {
        int64_t *src = malloc(o->len * sizeof *src);
        for (size_t i = 0; i < o->len; i++)
            src[i] = acc_value(o->value, i);
        long scale = (long)o->scale;
        char *dst = base + off_long + o->off * sizeof(int64_t);
        reach_request_t *rq = request_for(o, src);
        CHECK_EQ_LL(rq ? reach_acc_nb(REACH_LONG, &scale, src, dst, o->len * sizeof *src, t, rq)
                       : reach_acc(REACH_LONG, &scale, src, dst, o->len * sizeof *src, t),
                    REACH_SUCCESS);
        if (!rq)
            free(src);
        break;
    }
    case OP_ACC_DBL_STRIDED: {
        double *src = malloc(o->h * 16 * sizeof *src);
        for (size_t r = 0; r < o->h; r++)
            for (size_t c = 0; c < o->w; c++)
                src[r * 16 + c] = (double)acc_value(o->value, r * o->w + c);
        double scale = (double)o->scale;
        reach_strided_t sh = {.levels = 1, .count = {o->w * sizeof(double), o->h},
                              .src_stride = {16 * sizeof(double)}, .dst_stride = {16 * sizeof(double)}};
        char *dst = base + off_dbl + (o->r0 * 16 + o->c0) * sizeof(double);
        reach_request_t *rq = request_for(o, src);
        CHECK_EQ_LL(rq ? reach_acc_strided_nb(REACH_DOUBLE, &scale, src, dst, &sh, t, rq)
                       : reach_acc_strided(REACH_DOUBLE, &scale, src, dst, &sh, t),
                    REACH_SUCCESS);
        if (!rq)
            free(src);
        break;
    }
    case OP_FETCH_ADD: {
        int64_t old = -1;
        int c = o->cell % NCTR;
        CHECK_EQ_LL(reach_fetch_add_i64((int64_t *)(void *)(base + off_ctr) + c, 1, &old, t),
                    REACH_SUCCESS);
        int k = t * NCTR + c;
        if (nfetched[k] < fetch_cap)
            fetched[(size_t)k * (size_t)fetch_cap + (size_t)nfetched[k]++] = old;
        break;
    }
    case OP_CAS: {
        int64_t *cell = (int64_t *)(void *)(base + off_cas) + o->cell % NCAS, seen = 0, old = -1;
        for (;;) {
            CHECK_EQ_LL(reach_cas_i64(cell, seen, seen + 1, &old, t), REACH_SUCCESS);
            if (old == seen)
                break;
            seen = old;
        }
        break;
    }
    case OP_LOCKED: {
        int c = o->cell % NLOCKED, id = c % NMUTEX;
        int64_t *cell = (int64_t *)(void *)(base + off_locked) + c, v = 0;
        CHECK_EQ_LL(reach_mutex_lock(mutexes, id, t), REACH_SUCCESS);
        CHECK_EQ_LL(reach_get(cell, &v, sizeof v, t), REACH_SUCCESS);
        v += o->scale;
        CHECK_EQ_LL(reach_put(&v, cell, sizeof v, t), REACH_SUCCESS);
        CHECK_EQ_LL(reach_fence(t), REACH_SUCCESS);
        CHECK_EQ_LL(reach_mutex_unlock(mutexes, id, t), REACH_SUCCESS);
        break;
    }
    case OP_GET: {
        /* This rank's own slot: only its own puts write there, so the model
         * is exact once they are complete. */
        unsigned char got[SLOT];
        complete_all();
        if (o->nb) {
            reach_request_t rq;
            CHECK_EQ_LL(reach_get_nb(slot, got, SLOT, t, &rq), REACH_SUCCESS);
            CHECK_EQ_LL(reach_wait(&rq), REACH_SUCCESS);
        } else {
            reach_strided_t sh = {.levels = 1, .count = {ROW, SLOT / ROW}, .src_stride = {ROW},
                                  .dst_stride = {ROW}};
            CHECK_EQ_LL(reach_get_strided(slot, got, &sh, t), REACH_SUCCESS);
        }
        compare(t, slot_of(me), got, SLOT, "a get of its own slot");
        break;
    }
    case OP_FENCE:
        CHECK_EQ_LL(o->nb ? reach_fence_all() : reach_fence(t), REACH_SUCCESS);
        break;
    }
}

/* The values fetch-and-add returned for one counter, over all ranks, must
 * be distinct and below the counter's final value (the number of adds):
 * with every value recorded, exactly 0 .. n-1. */
static void check_fetched(void)
{
    int cells = np * NCTR;
    int *counts = malloc(sizeof(int) * (size_t)cells * (size_t)np);
    int64_t *all = malloc(sizeof(int64_t) * (size_t)cells * (size_t)fetch_cap * (size_t)np);
    MPI_Allgather(nfetched, cells, MPI_INT, counts, cells, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(fetched, cells * fetch_cap, MPI_INT64_T, all, cells * fetch_cap, MPI_INT64_T,
                  MPI_COMM_WORLD);
    for (int k = me; k < cells; k += np) {   /* each rank checks some counters */
        int64_t n;
        memcpy(&n, model + (size_t)(k / NCTR) * seg_bytes + off_ctr + (size_t)(k % NCTR) * sizeof n,
               sizeof n);
        unsigned char *seen = calloc((size_t)n + 1, 1);
        int bad = 0;
        for (int r = 0; r < np && !bad; r++)
            for (int i = 0; i < counts[r * cells + k] && !bad; i++) {
                int64_t v = all[((size_t)r * (size_t)cells + (size_t)k) * (size_t)fetch_cap + (size_t)i];
                bad = v < 0 || v >= n || seen[v]++;
                if (bad) {
                    fprintf(stderr, "stress: rank %d, seed %llu: fetch-and-add on counter %d of rank %d "
                            "returned %lld twice or outside [0, %lld)\n",
                            me, seed, k % NCTR, k / NCTR, (long long)v, (long long)n);
                    check_failures++;
                }
            }
        free(seen);
    }
    free(counts);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long phases = -1, ops = 40;
    double seconds = 5;
    seed = (unsigned long long)time(NULL);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--phases") == 0)
            phases = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--ops") == 0)
            ops = atol(argv[i + 1]);
        else {
            fprintf(stderr, "usage: test_stress [--seed S] [--phases P | --seconds T] [--ops K]\n");
            return 2;
        }
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;

    off_long = (size_t)np * SLOT;
    off_dbl = off_long + NLONG * sizeof(int64_t);
    off_ctr = off_dbl + NDBL * sizeof(double);
    off_cas = off_ctr + NCTR * sizeof(int64_t);
    off_locked = off_cas + NCAS * sizeof(int64_t);
    seg_bytes = off_locked + NLOCKED * sizeof(int64_t);
    seg = malloc(sizeof(void *) * (size_t)np);
    model = calloc((size_t)np, seg_bytes);
    uint64_t *rng = malloc(sizeof(uint64_t) * (size_t)np);
    fetch_cap = 1024;   /* values recorded per counter; the rest are only counted */
    fetched = malloc(sizeof(int64_t) * (size_t)np * NCTR * (size_t)fetch_cap);
    nfetched = calloc((size_t)np * NCTR, sizeof(int));
    long *kinds = calloc(OP_KINDS, sizeof(long));
    if (!seg || !model || !rng || !fetched || !nfetched || !kinds ||
        reach_malloc(seg_bytes, seg) != REACH_SUCCESS ||
        reach_mutexes_create(NMUTEX, &mutexes) != REACH_SUCCESS)
        return 1;
    memset(seg[me], 0, seg_bytes);
    for (int r = 0; r < np; r++)
        rng[r] = seed * 0x2545f4914f6cdd1dULL + (uint64_t)r;
    if (me == 0)
        printf("stress: %d ranks, seed %llu, %ld operations per rank and phase\n", np, seed, ops);
    reach_barrier();

    double t0 = MPI_Wtime();
    int more = 1;
    for (phase = 0; more; phase++) {
        for (int r = 0; r < np; r++) {
            long n = 1 + (long)rng_below(&rng[r], (size_t)ops);
            for (long i = 0; i < n; i++) {
                op_t o;
                draw(&rng[r], &o);
                if (r == me) {
                    issue(&o);
                    kinds[o.kind]++;
                }
                model_apply(r, &o);
            }
        }
        complete_all();
        CHECK_EQ_LL(reach_barrier(), REACH_SUCCESS);
        /* Everything of the phase is complete everywhere: read one rank's
         * whole segment back. */
        int t = (int)((phase + (long)me) % np);
        unsigned char *got = malloc(seg_bytes);
        CHECK_EQ_LL(reach_get(seg[t], got, seg_bytes, t), REACH_SUCCESS);
        compare(t, 0, got, seg_bytes, "a read-back after the phase's barrier");
        free(got);
        if (me == 0)
            more = phases >= 0 ? phase + 1 < phases : MPI_Wtime() - t0 < seconds;
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        reach_barrier();   /* nobody writes while a read-back is in flight */
    }
    compare(me, 0, seg[me], seg_bytes, "the final state of its own segment");
    check_fetched();

    long total[OP_KINDS];
    MPI_Reduce(kinds, total, OP_KINDS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("stress: %ld phases in %.1f s; operations:", phase, MPI_Wtime() - t0);
        for (int k = 0; k < OP_KINDS; k++)
            printf(" %s %ld", op_names[k], total[k]);
        printf("\nstress: rerun with: test_stress --seed %llu --phases %ld --ops %ld\n", seed, phase, ops);
    }
    reach_mutexes_destroy(mutexes);
    reach_free(seg[me]);
    reach_finalize();
    free(seg);
    free(model);
    free(rng);
    free(fetched);
    free(nfetched);
    free(kinds);
    int status = check_exit("test_stress");
    MPI_Finalize();
    return status;
}
