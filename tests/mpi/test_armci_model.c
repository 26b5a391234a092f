/* ARMCI's data calls against a sequential model. Every rank issues random
 * puts, gets and accumulates (contiguous; strided of 0 to 3 levels with
 * byte strides of any alignment; vector, adjacent pairs included; puts of
 * one int, long, float or double by value, at any alignment), blocking
 * and non-blocking on explicit, implicit (NULL) and aggregate handles, to
 * random targets, without fences, each rank into its own region of every
 * target. ARMCI applies one origin's operations to one location in issue
 * order, so each region follows from its origin's operations alone: a get
 * is compared with the model as it stood when the get was issued, and every
 * region at the end. A directed part first puts, accumulates by ARMCI_Acc,
 * ARMCI_AccS and ARMCI_AccV (one element per descriptor) and gets by each
 * path, for every type. Accumulate sources are small integers and scales
 * integers or halves, so float sums are exact; where other calls left
 * other bytes, the model computes as the kernels do (d + s * v in the
 * type), and only the target can be an infinity or a NaN. Bursts among
 * them put a run of thousands of elements to one target as Global Arrays
 * does, all on one handle (aggregate, reused after each wait, or
 * implicit): hundreds of value puts, a vector, strided and contiguous
 * pieces, a wait, then gets of it all in the same pieces.
 *   test_armci_model [--seed S] [--ops N] [--bursts B]
 * The seed is printed; a failure names the operation, the byte and the
 * value the model expected. */
#include "mpi_check.h"
#include "armci.h"

#include <string.h>
#include <time.h>

#define SEG (128 * 1024)         /* per rank; np regions of SEG/np */
#define EXT_MAX 6144             /* bytes an operation spans, either side */
#define ARENA (1024 * 1024)      /* local buffers until everything completes */
#define OP_ROOM (8 * EXT_MAX)    /* arena an operation may take */
#define PENDING 12               /* operations not yet completed */
#define VEC_RAND 20              /* pairs of a random vector operation (over 16, libarmci allocates) */
#define VEC_MAX 64               /* pairs of any vector operation */
#define BURST_MAX 6400           /* elements a burst writes and reads back */
#define REPORT_MAX 5             /* mismatches printed per rank */

enum dir { PUT, GET, ACC };
enum shape { CONTIG, STRIDED, VECTOR };
enum form { BLOCKING, HANDLE, IMPLICIT, AGGREGATE };

#define NTYPES 6
static const struct {
    int code;
    size_t size, comp;
    const char *name;
} types[NTYPES] = {{ARMCI_ACC_INT, sizeof(int), sizeof(int), "INT"},
                   {ARMCI_ACC_LNG, sizeof(long), sizeof(long), "LNG"},
                   {ARMCI_ACC_FLT, sizeof(float), sizeof(float), "FLT"},
                   {ARMCI_ACC_DBL, sizeof(double), sizeof(double), "DBL"},
                   {ARMCI_ACC_CPL, 2 * sizeof(float), sizeof(float), "CPL"},
                   {ARMCI_ACC_DCP, 2 * sizeof(double), sizeof(double), "DCP"}};
enum { T_INT, T_LNG, T_FLT, T_DBL, T_CPL, T_DCP };

/* Scales as {re, im}; integer types take the integral real ones, real
 * types the real ones. */
static const double scales[][2] = {{1, 0},  {2, 0},  {-1, 0},   {3, 0},
                                   {-1.5, 0}, {0, 1}, {1, -2}, {-1.5, 0.5}};
#define NSCALES (int)(sizeof scales / sizeof scales[0])

/* One operation: the remote side at region offset roff of target; local
 * runs at local. Contiguous is levels 0. A vector's pairs are flattened:
 * descriptor d has npair[d] pairs of bytes[d] bytes. */
typedef struct op {
    int dir, shape, form, target, type;
    int value;    /* a put of one element by ARMCI_PutValue* or ARMCI_NbPutValue* */
    double scale[2];
    char scale_bytes[16];
    char *local;
    size_t roff;
    int levels, count[4], lstride[3], rstride[3];
    int ndesc, npair[VEC_MAX], bytes[VEC_MAX];
    size_t vroff[VEC_MAX];
    char *vlocal[VEC_MAX];
    char *want;   /* a get: what its local buffer must hold; got is local */
    int *from;    /* a get: the region byte behind each byte of want, or -1 */
    size_t lext;  /* a get: bytes of its local buffer */
} op_t;

static int me, np, nops = 1;
static unsigned long long seed, rng;
static void **bases;
static size_t part;
static unsigned char *model;   /* my region of every target */
static int *last;              /* per model byte: the operation that last wrote it */
static char (*oplog)[240];     /* each operation; 0 is the zeros a region starts with */
static char *arena;
static size_t arena_used;
static int reports;

static unsigned rnd(unsigned n)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (unsigned)((rng * 0x2545F4914F6CDD1DULL) >> 33) % n;
}

static char *region(int t)
{
    return (char *)bases[t] + (size_t)me * part;
}

/* ---- the model ------------------------------------------------------------------ */

/* d += scale * v for one element, computed as the kernels compute it
 * (integers wrap). */
#define MODEL_REAL(T)                                                                \
    do {                                                                             \
        T a, x, y;                                                                   \
        memcpy(&a, scale, sizeof a);                                                 \
        memcpy(&x, d, sizeof x);                                                     \
        memcpy(&y, v, sizeof y);                                                     \
        x = x + a * y;                                                               \
        memcpy(d, &x, sizeof x);                                                     \
    } while (0)
#define MODEL_COMPLEX(T)                                                             \
    do {                                                                             \
        T a[2], x[2], y[2];                                                          \
        memcpy(a, scale, sizeof a);                                                  \
        memcpy(x, d, sizeof x);                                                      \
        memcpy(y, v, sizeof y);                                                      \
        x[0] = x[0] + (a[0] * y[0] - a[1] * y[1]);                                   \
        x[1] = x[1] + (a[0] * y[1] + a[1] * y[0]);                                   \
        memcpy(d, x, sizeof x);                                                      \
    } while (0)

static void model_acc_elem(int t, const char *scale, const char *v, unsigned char *d)
{
    switch (t) {
    case T_INT: MODEL_REAL(unsigned); break;
    case T_LNG: MODEL_REAL(unsigned long); break;
    case T_FLT: MODEL_REAL(float); break;
    case T_DBL: MODEL_REAL(double); break;
    case T_CPL: MODEL_COMPLEX(float); break;
    default: MODEL_COMPLEX(double); break;
    }
}

/* One run of op o: n bytes at region offset roff, local bytes at l. */
static void model_run(const op_t *o, size_t roff, char *l, size_t n)
{
    unsigned char *m = model + (size_t)o->target * part + roff;
    int *w = last + (size_t)o->target * part + roff;
    if (o->dir == GET) {
        size_t at = (size_t)(l - o->local);
        memcpy(o->want + at, m, n);
        for (size_t i = 0; i < n; i++)
            o->from[at + i] = (int)(roff + i);
        return;
    }
    if (o->dir == PUT)
        memcpy(m, l, n);
    else
        for (size_t e = 0; e < n; e += types[o->type].size)
            model_acc_elem(o->type, o->scale_bytes, l + e, m + e);
    for (size_t i = 0; i < n; i++)
        w[i] = nops;
}

typedef void run_fn(const op_t *o, size_t roff, char *l, size_t n);

/* The runs of a strided shape, by recursion over its levels. */
static void walk_levels(const op_t *o, int level, size_t roff, char *l, run_fn *fn)
{
    if (level == 0) {
        fn(o, roff, l, (size_t)o->count[0]);
        return;
    }
    for (int i = 0; i < o->count[level]; i++)
        walk_levels(o, level - 1, roff + (size_t)i * (size_t)o->rstride[level - 1],
                    l + (size_t)i * (size_t)o->lstride[level - 1], fn);
}

/* Calls fn on every run of o, in no particular order (runs are disjoint). */
static void walk(const op_t *o, run_fn *fn)
{
    if (o->shape != VECTOR) {
        walk_levels(o, o->levels, o->roff, o->local, fn);
        return;
    }
    for (int d = 0, k = 0; d < o->ndesc; d++)
        for (int j = 0; j < o->npair[d]; j++, k++)
            fn(o, o->vroff[k], o->vlocal[k], (size_t)o->bytes[d]);
}

/* ---- the arena and pending operations ------------------------------------------- */

static void *take(size_t n)
{
    void *p = arena + arena_used;
    arena_used += (n + 15) & ~(size_t)15;
    if (arena_used > ARENA) {
        fprintf(stderr, "test_armci_model: arena exhausted\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* An operation issued and not yet known complete; a get's buffer is
 * compared with the model's copy once it is. */
typedef struct pending {
    int used, form, target, op;
    char *got, *want;
    int *from;
    size_t len;
    armci_hdl_t h;
} pending_t;

static pending_t pend[PENDING];
static armci_hdl_t agg;

static void settle(pending_t *p)
{
    p->used = 0;
    if (p->got == NULL || memcmp(p->got, p->want, p->len) == 0)
        return;
    check_failures++;
    size_t i = 0;
    while (p->got[i] == p->want[i])
        i++;
    if (reports++ >= REPORT_MAX)
        return;
    fprintf(stderr, "test_armci_model: rank %d, seed %llu: op #%d %s: byte %zu of its local "
            "buffer ", me, seed, p->op, oplog[p->op], i);
    int r = p->from[i];
    if (r < 0) {
        fprintf(stderr, "(not one it reads) is 0x%02x, was 0x%02x\n", (unsigned char)p->got[i],
                (unsigned char)p->want[i]);
        return;
    }
    int k = last[(size_t)p->target * part + (size_t)r];
    fprintf(stderr, "(region byte %d) is 0x%02x, the model expects 0x%02x (last written by op #%d "
            "%s)\n", r, (unsigned char)p->got[i], (unsigned char)p->want[i], k, oplog[k]);
}

/* Completes p and whatever completes with it. */
static void complete(pending_t *p)
{
    if (p->form == HANDLE) {
        CHECK_EQ_LL(ARMCI_Wait(&p->h), 0);
        settle(p);
        return;
    }
    int form = p->form, target = p->target;
    if (form == IMPLICIT)
        CHECK_EQ_LL(ARMCI_WaitProc(target), 0);
    else
        CHECK_EQ_LL(ARMCI_Wait(&agg), 0);
    for (int i = 0; i < PENDING; i++)
        if (pend[i].used && pend[i].form == form && (form == AGGREGATE || pend[i].target == target))
            settle(&pend[i]);
}

static void complete_all(void)
{
    for (int i = 0; i < PENDING; i++)
        if (pend[i].used)
            complete(&pend[i]);
    CHECK_EQ_LL(ARMCI_WaitAll(), 0);
}

/* Completes the pending gets from target, so that a later write to the
 * same bytes cannot be what they read. */
static void complete_gets(int target)
{
    for (int i = 0; i < PENDING; i++)
        if (pend[i].used && pend[i].got && pend[i].target == target)
            complete(&pend[i]);
}

static pending_t *free_slot(void)
{
    for (;;) {
        for (int i = 0; i < PENDING; i++)
            if (!pend[i].used)
                return &pend[i];
        complete(&pend[rnd(PENDING)]);
    }
}

/* ---- issuing -------------------------------------------------------------------- */

static void describe(const op_t *o)
{
    static const char *const name[3][3] = {
        {"Put", "Get", "Acc"}, {"PutS", "GetS", "AccS"}, {"PutV", "GetV", "AccV"}};
    static const char *const form_name[] = {"blocking", "explicit handle", "NULL handle",
                                            "aggregate handle"};
    char *s = oplog[nops];
    size_t n = sizeof oplog[0];
    int k = snprintf(s, n, "ARMCI_%s%s%s to rank %d (%s)", o->form == BLOCKING ? "" : "Nb",
                     name[o->shape][o->dir], o->value ? "Value" : "", o->target, form_name[o->form]);
    if (o->value)
        k += snprintf(s + k, n - (size_t)k, ", %s", types[o->type].name);
    if (o->dir == ACC && (o->type == T_CPL || o->type == T_DCP))
        k += snprintf(s + k, n - (size_t)k, ", %s scale %g%+gi", types[o->type].name, o->scale[0],
                      o->scale[1]);
    else if (o->dir == ACC)
        k += snprintf(s + k, n - (size_t)k, ", %s scale %g", types[o->type].name, o->scale[0]);
    if (o->shape == VECTOR) {
        snprintf(s + k, n - (size_t)k, ", %d descriptors, the first %d x %d bytes from region "
                 "byte %zu", o->ndesc, o->npair[0], o->bytes[0], o->vroff[0]);
        return;
    }
    k += snprintf(s + k, n - (size_t)k, " at region byte %zu, count [%d", o->roff, o->count[0]);
    for (int i = 1; i <= o->levels; i++)
        k += snprintf(s + k, n - (size_t)k, ",%d", o->count[i]);
    k += snprintf(s + k, n - (size_t)k, "]");
    for (int i = 0; i < o->levels; i++)
        k += snprintf(s + k, n - (size_t)k, "%s%d/%d", i ? "," : ", remote/local strides ",
                      o->rstride[i], o->lstride[i]);
}

static int issue_vector(const op_t *o, armci_hdl_t *h)
{
    int t = o->target, get = o->dir == GET, code = types[o->type].code;
    void *scale = (void *)o->scale_bytes;
    armci_giov_t *g = take(sizeof *g * (size_t)o->ndesc);
    for (int d = 0, k = 0; d < o->ndesc; d++) {
        void **r = take(sizeof(void *) * (size_t)o->npair[d]);
        void **l = take(sizeof(void *) * (size_t)o->npair[d]);
        for (int j = 0; j < o->npair[d]; j++, k++) {
            r[j] = region(t) + o->vroff[k];
            l[j] = o->vlocal[k];
        }
        g[d] = (armci_giov_t){.src_ptr_array = get ? r : l, .dst_ptr_array = get ? l : r,
                              .bytes = o->bytes[d], .ptr_array_len = o->npair[d]};
    }
    if (o->form == BLOCKING)
        return o->dir == PUT ? ARMCI_PutV(g, o->ndesc, t)
             : get           ? ARMCI_GetV(g, o->ndesc, t)
                             : ARMCI_AccV(code, scale, g, o->ndesc, t);
    return o->dir == PUT ? ARMCI_NbPutV(g, o->ndesc, t, h)
         : get           ? ARMCI_NbGetV(g, o->ndesc, t, h)
                         : ARMCI_NbAccV(code, scale, g, o->ndesc, t, h);
}

/* The element at o->local, passed by value: it lives in the call's own
 * argument, which is gone when the call returns. */
#define PUT_VALUE(T, Name)                                                           \
    do {                                                                             \
        T v;                                                                         \
        memcpy(&v, o->local, sizeof v);                                              \
        return o->form == BLOCKING ? ARMCI_PutValue##Name(v, dst, o->target)         \
                                   : ARMCI_NbPutValue##Name(v, dst, o->target, h);   \
    } while (0)

static int issue_value(const op_t *o, armci_hdl_t *h)
{
    void *dst = region(o->target) + o->roff;
    switch (o->type) {
    case T_INT: PUT_VALUE(int, Int);
    case T_LNG: PUT_VALUE(long, Long);
    case T_FLT: PUT_VALUE(float, Float);
    default: PUT_VALUE(double, Double);
    }
}

static int issue_contig(const op_t *o, armci_hdl_t *h)
{
    int t = o->target, get = o->dir == GET, n = o->count[0];
    char *remote = region(t) + o->roff;
    void *src = get ? remote : o->local, *dst = get ? o->local : remote;
    void *scale = (void *)o->scale_bytes;
    if (o->value)
        return issue_value(o, h);
    if (o->form == BLOCKING)
        return o->dir == PUT ? ARMCI_Put(src, dst, n, t)
             : get           ? ARMCI_Get(src, dst, n, t)
                             : ARMCI_Acc(types[o->type].code, scale, src, dst, n, t);
    return o->dir == PUT ? ARMCI_NbPut(src, dst, n, t, h)
         : get           ? ARMCI_NbGet(src, dst, n, t, h)
                         : ARMCI_NbAcc(types[o->type].code, scale, src, dst, n, t, h);
}

static int issue_strided(op_t *o, armci_hdl_t *h)
{
    int t = o->target, get = o->dir == GET, L = o->levels, code = types[o->type].code;
    char *remote = region(t) + o->roff;
    void *src = get ? remote : o->local, *dst = get ? o->local : remote;
    int *ss = get ? o->rstride : o->lstride, *ds = get ? o->lstride : o->rstride;
    void *scale = o->scale_bytes;
    if (o->form == BLOCKING)
        return o->dir == PUT ? ARMCI_PutS(src, ss, dst, ds, o->count, L, t)
             : get           ? ARMCI_GetS(src, ss, dst, ds, o->count, L, t)
                             : ARMCI_AccS(code, scale, src, ss, dst, ds, o->count, L, t);
    return o->dir == PUT ? ARMCI_NbPutS(src, ss, dst, ds, o->count, L, t, h)
         : get           ? ARMCI_NbGetS(src, ss, dst, ds, o->count, L, t, h)
                         : ARMCI_NbAccS(code, scale, src, ss, dst, ds, o->count, L, t, h);
}

/* Issues o through ARMCI on handle h and applies it to the model, in
 * issue order; p records it (a failed one is settled at once). */
static int issue_on(op_t *o, armci_hdl_t *h, pending_t *p)
{
    *p = (pending_t){.used = 1, .form = o->form, .target = o->target, .op = nops, .want = o->want,
                     .from = o->from, .len = o->lext, .got = o->dir == GET ? o->local : NULL};
    describe(o);
    int st = o->shape == VECTOR ? issue_vector(o, h)
           : o->shape == CONTIG ? issue_contig(o, h)
                                : issue_strided(o, h);
    if (st == 0) {
        walk(o, model_run);
    } else {
        check_failures++;
        p->got = NULL;
        settle(p);
        if (reports++ < REPORT_MAX)
            fprintf(stderr, "test_armci_model: rank %d, seed %llu: op #%d %s returned %d\n", me,
                    seed, nops, oplog[nops], st);
    }
    nops++;
    return st;
}

/* Issues o; a non-blocking one stays pending until it is completed. */
static void issue(op_t *o)
{
    if (o->dir != GET)
        complete_gets(o->target);
    pending_t now, *p = o->form == BLOCKING ? &now : free_slot();
    armci_hdl_t *h = o->form == HANDLE ? &p->h : o->form == AGGREGATE ? &agg : NULL;
    if (h == &p->h)
        ARMCI_INIT_HANDLE(h);
    if (issue_on(o, h, p) == 0 && p == &now)
        settle(p);
}

/* ---- building operations -------------------------------------------------------- */

/* Stores v ({re, im}) as one element of type t. */
static void to_type(int t, const double *v, char *e)
{
    switch (t) {
    case T_INT: { int x = (int)v[0]; memcpy(e, &x, sizeof x); break; }
    case T_LNG: { long x = (long)v[0]; memcpy(e, &x, sizeof x); break; }
    case T_FLT: { float x = (float)v[0]; memcpy(e, &x, sizeof x); break; }
    case T_DBL: memcpy(e, v, sizeof(double)); break;
    case T_CPL: { float x[2] = {(float)v[0], (float)v[1]}; memcpy(e, x, sizeof x); break; }
    default: memcpy(e, v, 2 * sizeof(double)); break;
    }
}

/* n elements of type t at e, small integers (-4..4) in every component. */
static void fill_values(int t, char *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v[2] = {(int)rnd(9) - 4, (int)rnd(9) - 4};
        to_type(t, v, e + i * types[t].size);
    }
}

static void fill_run(const op_t *o, size_t roff, char *l, size_t n)
{
    (void)roff;
    fill_values(o->type, l, n / types[o->type].size);
}

static void set_scale(op_t *o, const double *s)
{
    o->scale[0] = s[0], o->scale[1] = s[1];
    to_type(o->type, s, o->scale_bytes);
}

static void random_scale(op_t *o)
{
    for (;;) {
        const double *s = scales[rnd(NSCALES)];
        int cplx = o->type == T_CPL || o->type == T_DCP;
        int integral = o->type == T_INT || o->type == T_LNG;
        if ((s[1] != 0 && !cplx) || (integral && s[0] != (long)s[0]))
            continue;
        set_scale(o, s);
        return;
    }
}

/* Local buffers lie at any alignment. */
static char *take_local(size_t ext)
{
    return (char *)take(ext + 16) + rnd(16);
}

/* Fills the ext bytes of o's local side: for a get, with a pattern that
 * the model's copy shares; for an accumulate, with values of its type in
 * every run; for a put, with values of some type, or any bytes. */
static void fill_local(op_t *o, size_t ext)
{
    char *l = o->local;
    if (o->dir == GET) {
        o->lext = ext;
        memset(l, 0xA5, ext);
        o->want = memcpy(take_local(ext), l, ext);
        o->from = take(sizeof(int) * ext);
        for (size_t i = 0; i < ext; i++)
            o->from[i] = -1;
    } else if (o->dir == ACC) {
        walk(o, fill_run);
    } else if (rnd(4) == 0) {
        for (size_t i = 0; i < ext; i++)
            l[i] = (char)rnd(256);
    } else {
        int t = (int)rnd(NTYPES);
        size_t n = ext / types[t].size;
        fill_values(t, l, n);
        memset(l + n * types[t].size, 0x11, ext - n * types[t].size);
    }
}

/* An offset for an extent of ext bytes, aligned to align: often near the
 * start of the region, where operations overlap. */
static size_t place(size_t ext, size_t align)
{
    size_t room = part - ext, off = rnd(2) ? rnd(256) : rnd((unsigned)room + 1);
    off = off > room ? room : off;
    return off - off % align;
}

static size_t extent(const int *count, const int *stride, int levels)
{
    size_t e = (size_t)count[0];
    for (int i = 1; i <= levels; i++)
        e += (size_t)(count[i] - 1) * (size_t)stride[i - 1];
    return e;
}

/* A strided (at levels 0, contiguous) operation: count[0] a multiple of
 * the element for accumulates, gaps of any bytes between items. */
static void build_strided(op_t *o)
{
    size_t unit = o->dir == ACC ? types[o->type].size : 1;
    size_t rext, lext;
    do {
        int big = rnd(3) == 0;
        o->count[0] = (int)(unit * (1 + rnd(big ? 256 / (unsigned)unit + 1 : 4)));
        if (o->shape == CONTIG && big)
            o->count[0] = (int)(unit * (1 + rnd(EXT_MAX / (unsigned)unit)));
        size_t rspan = (size_t)o->count[0], lspan = rspan;
        for (int i = 0; i < o->levels; i++) {
            o->count[i + 1] = 1 + (int)rnd(i == 0 ? 6 : 3);
            o->rstride[i] = (int)rspan + (rnd(3) ? (int)rnd(40) : 0);
            o->lstride[i] = (int)lspan + (rnd(3) ? (int)rnd(40) : 0);
            rspan = (size_t)o->rstride[i] * (size_t)o->count[i + 1];
            lspan = (size_t)o->lstride[i] * (size_t)o->count[i + 1];
        }
        rext = extent(o->count, o->rstride, o->levels);
        lext = extent(o->count, o->lstride, o->levels);
    } while (rext > EXT_MAX || lext > EXT_MAX || rext > part);
    /* A contiguous accumulate keeps its target aligned to the component. */
    o->roff = place(rext, o->shape == CONTIG && o->dir == ACC ? types[o->type].comp : 1);
    o->local = take_local(lext);
    fill_local(o, lext);
}

/* A vector operation: pairs one after another on each side, with gaps of
 * any bytes or none (adjacent), the remote places possibly shuffled. */
static void build_vector(op_t *o)
{
    size_t unit = o->dir == ACC ? types[o->type].size : 1;
    int single = rnd(4) == 0;   /* descriptors of one pair of one element */
    o->ndesc = single ? 1 + (int)rnd(VEC_RAND) : 1 + (int)rnd(4);
    int adjacent = single || rnd(2), pairs = 0;
    size_t rext = 0, lext = 0, rpos[VEC_RAND], lpos[VEC_RAND];
    for (int d = 0; d < o->ndesc; d++) {
        o->npair[d] = single ? 1 : 1 + (int)rnd((unsigned)(VEC_RAND - pairs - (o->ndesc - d - 1)));
        o->bytes[d] = (int)(unit * (single ? 1 : 1 + rnd(unit == 1 ? 40 : 4)));
        for (int j = 0; j < o->npair[d]; j++, pairs++) {
            rpos[pairs] = rext;
            lpos[pairs] = lext;
            rext += (size_t)o->bytes[d] + (adjacent ? 0 : rnd(24));
            lext += (size_t)o->bytes[d] + rnd(8);
        }
    }
    /* Places of one size can be exchanged and stay disjoint. */
    int same = 1;
    for (int d = 1; d < o->ndesc; d++)
        same &= o->bytes[d] == o->bytes[0];
    if (same && rnd(3) == 0)
        for (int k = pairs - 1; k > 0; k--) {
            int j = (int)rnd((unsigned)k + 1);
            size_t x = rpos[k];
            rpos[k] = rpos[j], rpos[j] = x;
        }
    size_t base = place(rext, 1);
    o->local = take_local(lext);
    for (int k = 0; k < pairs; k++) {
        o->vroff[k] = base + rpos[k];
        o->vlocal[k] = o->local + lpos[k];
    }
    fill_local(o, lext);
}

static void random_op(void)
{
    op_t o = {0};
    o.dir = (int)rnd(3);
    o.shape = (int)rnd(3);
    o.form = (int)rnd(4);
    o.target = (int)rnd((unsigned)np);
    o.type = (int)rnd(NTYPES);
    if (o.dir == ACC)
        random_scale(&o);
    o.levels = o.shape == STRIDED ? (int)rnd(4) : 0;
    if (o.dir == PUT && o.shape == CONTIG && o.type <= T_DBL && rnd(3) == 0) {
        size_t es = types[o.type].size;
        o.value = 1, o.count[0] = (int)es, o.roff = place(es, 1);
        o.local = take_local(es);
        fill_values(o.type, o.local, 1);
    } else if (o.shape == VECTOR) {
        build_vector(&o);
    } else {
        build_strided(&o);
    }
    issue(&o);
}

/* The 16 elements at region offset at as a vector of one element per
 * descriptor. */
static void single_pairs(op_t *o, size_t at)
{
    size_t es = types[o->type].size;
    o->shape = VECTOR;
    o->ndesc = 16;
    o->local = take_local(16 * es);
    for (int i = 0; i < 16; i++) {
        o->npair[i] = 1, o->bytes[i] = (int)es;
        o->vroff[i] = at + (size_t)i * es;
        o->vlocal[i] = o->local + (size_t)i * es;
    }
}

/* Put, then ARMCI_Acc, ARMCI_AccS (target stride two elements) and
 * ARMCI_AccV (one element per descriptor, adjacent: every source 1, scale
 * 2) over the same 16 elements of target, then a get by path `shape`, with
 * no fence between: the get sees the sum in issue order. */
static void directed(int type, int shape, int target)
{
    const size_t es = types[type].size;
    const double one[2] = {1, 0};
    op_t o = {.target = target, .type = type, .form = (int)rnd(4)};
    size_t at = place(16 * es, types[type].comp);
    o.dir = PUT, o.shape = CONTIG, o.roff = at, o.count[0] = 16 * (int)es;
    o.local = take_local(16 * es);
    fill_values(type, o.local, 16);
    issue(&o);

    o.dir = ACC, o.form = (int)rnd(4);
    random_scale(&o);
    o.local = take_local(16 * es);
    fill_local(&o, 16 * es);
    issue(&o);

    o.shape = STRIDED, o.form = (int)rnd(4), o.levels = 1;
    o.count[0] = (int)es, o.count[1] = 8;
    o.rstride[0] = 2 * (int)es, o.lstride[0] = (int)es;
    random_scale(&o);
    o.local = take_local(8 * es);
    fill_local(&o, 8 * es);
    issue(&o);

    o.form = (int)rnd(4);
    set_scale(&o, scales[1]);
    single_pairs(&o, at);
    for (int i = 0; i < 16; i++)
        to_type(type, one, o.vlocal[i]);
    issue(&o);

    op_t g = {.dir = GET, .shape = shape, .form = (int)rnd(4), .target = target, .type = type,
              .roff = at};
    if (shape == VECTOR) {
        single_pairs(&g, at);
        fill_local(&g, 16 * es);
    } else {
        g.levels = shape == STRIDED;
        g.count[0] = shape == STRIDED ? 4 * (int)es : 16 * (int)es, g.count[1] = 4;
        g.rstride[0] = 4 * (int)es, g.lstride[0] = 4 * (int)es + 3;
        size_t ext = extent(g.count, g.lstride, g.levels);
        g.local = take_local(ext);
        fill_local(&g, ext);
    }
    issue(&g);
}

/* ---- bursts --------------------------------------------------------------------- */

#define CHUNK 20   /* elements of a burst's vector pair, strided and contiguous pieces */

static armci_hdl_t burst_h;   /* an aggregate handle of the bursts', reused after each wait */

/* Issues piece after piece of a run of n elements of type from the first
 * byte of target t's region, in direction dir, as a Global Arrays program
 * writes a row: nval single elements (value puts, or 1-element gets), one vector of
 * up to VEC_MAX pairs of CHUNK elements in 1 to 3 descriptors, nstr
 * strided pieces of no levels, and contiguous pieces for the rest. Puts
 * take their data from src; a get's piece is recorded in gets[*ngets]. */
static void burst_pass(int dir, int t, int type, size_t n, size_t nval, size_t nstr, armci_hdl_t *h,
                       const char *src, pending_t *gets, int *ngets)
{
    size_t es = types[type].size, chunk = CHUNK * es;
    int form = h == NULL ? IMPLICIT : AGGREGATE, vector = 1;
    for (size_t k = 0; k < n;) {
        op_t o = {.dir = dir, .shape = CONTIG, .form = form, .target = t, .type = type, .roff = k * es};
        size_t left = (n - k) * es, pairs = left / chunk < VEC_MAX ? left / chunk : VEC_MAX;
        if (k < nval) {
            o.value = dir == PUT;
            o.form = o.value && rnd(16) == 0 ? BLOCKING : form;
            o.count[0] = (int)es;
        } else if (vector && pairs > 0) {
            vector = 0;
            o.shape = VECTOR;
            o.ndesc = 1 + (int)rnd(pairs < 3 ? (unsigned)pairs : 3);
            for (int d = 0; d < o.ndesc; d++) {
                o.npair[d] = (int)(pairs / (size_t)o.ndesc + (d == 0 ? pairs % (size_t)o.ndesc : 0));
                o.bytes[d] = (int)chunk;
            }
            o.count[0] = (int)(pairs * chunk);
        } else {
            o.shape = nstr > 0 ? STRIDED : CONTIG;
            nstr -= nstr > 0;
            o.count[0] = (int)(left < chunk ? left : chunk);
        }
        o.local = dir == PUT ? (char *)src + k * es : take_local((size_t)o.count[0]);
        for (size_t p = 0; o.shape == VECTOR && p < pairs; p++) {
            o.vroff[p] = o.roff + p * chunk;
            o.vlocal[p] = o.local + p * chunk;
        }
        if (dir == GET)
            fill_local(&o, (size_t)o.count[0]);
        pending_t now, *p = dir == GET ? &gets[(*ngets)++] : &now;
        issue_on(&o, o.form == BLOCKING ? NULL : h, p);
        k += (size_t)o.count[0] / es;
    }
}

/* Completes a burst's handle (an implicit one's target) and checks its gets. */
static void burst_wait(armci_hdl_t *h, int t, pending_t *gets, int ngets)
{
    CHECK_EQ_LL(h ? ARMCI_Wait(h) : ARMCI_WaitProc(t), 0);
    for (int i = 0; i < ngets; i++)
        if (gets[i].used)
            settle(&gets[i]);
}

/* A burst: to one target, hundreds to thousands of operations in flight
 * on one handle (the aggregate one the random operations share, the
 * bursts' own, or none), writing a run of up to BURST_MAX elements of one
 * type with consecutive values; the handle waited on, then the run read
 * back in the same pieces on the same handle. */
static void burst(void)
{
    int t = (int)rnd((unsigned)np), type = (int)rnd(T_DBL + 1), which = (int)rnd(3);
    armci_hdl_t *h = which == 0 ? &agg : which == 1 ? &burst_h : NULL;
    size_t es = types[type].size, n = part / es < BURST_MAX ? part / es : BURST_MAX;
    size_t nval = n / 6 + rnd((unsigned)(n / 6)), nstr = 10 + rnd(50);
    size_t pieces = nval + n / CHUNK + 1;
    if (arena_used + 8 * n * es + pieces * (sizeof(pending_t) + 80) > ARENA) {
        complete_all();
        arena_used = 0;
    }
    complete_gets(t);
    char *src = take_local(n * es);
    for (size_t k = 0; k < n; k++) {
        double v[2] = {(double)(1 + k + (size_t)me * BURST_MAX), 0};
        to_type(type, v, src + k * es);
    }
    pending_t *gets = take(sizeof *gets * pieces);
    int ngets = 0;
    burst_pass(PUT, t, type, n, nval, nstr, h, src, gets, &ngets);
    burst_wait(h, t, gets, ngets);
    burst_pass(GET, t, type, n, nval, nstr, h, src, gets, &ngets);
    burst_wait(h, t, gets, ngets);
}

/* Room in the arena for the next operation; when there is none, every
 * operation is completed first. */
static void make_room(void)
{
    if (arena_used + OP_ROOM <= ARENA)
        return;
    complete_all();
    arena_used = 0;
}

/* After an operation: sometimes one pending operation is tested or
 * completed, or one target's implicit ones, or everything. */
static void progress(void)
{
    pending_t *p = &pend[rnd(PENDING)];
    switch (rnd(8)) {
    case 0:
        if (p->used && p->form == HANDLE) {
            if (ARMCI_Test(&p->h) == 0)
                settle(p);
        } else if (p->used) {
            complete(p);
        }
        break;
    case 1: {
        int t = (int)rnd((unsigned)np);
        CHECK_EQ_LL(ARMCI_WaitProc(t), 0);
        for (int i = 0; i < PENDING; i++)
            if (pend[i].used && pend[i].form == IMPLICIT && pend[i].target == t)
                settle(&pend[i]);
        break;
    }
    case 2:
        if (rnd(8) == 0)
            complete_all();
        break;
    default:
        break;
    }
}

/* Every region this rank wrote, read back, against the model. */
static void compare_regions(void)
{
    char *got = malloc(part);
    for (int t = 0; t < np; t++) {
        CHECK_EQ_LL(ARMCI_Get(region(t), got, (int)part, t), 0);
        const unsigned char *m = model + (size_t)t * part;
        for (size_t i = 0; i < part; i++) {
            if ((unsigned char)got[i] == m[i])
                continue;
            check_failures++;
            int k = last[(size_t)t * part + i];
            if (reports++ < REPORT_MAX)
                fprintf(stderr,
                        "test_armci_model: rank %d, seed %llu: rank %d, region byte %zu is 0x%02x, "
                        "the model expects 0x%02x (last written by op #%d %s)\n",
                        me, seed, t, i, (unsigned char)got[i], m[i], k, oplog[k]);
            break;
        }
    }
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_EQ_LL(ARMCI_Init(), 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    seed = (unsigned long long)time(NULL);
    int random_ops = 4000, bursts = 6;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--ops") == 0)
            random_ops = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--bursts") == 0)
            bursts = atoi(argv[i + 1]);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    rng = seed * 0x9E3779B97F4A7C15ULL + 2 * (unsigned long long)me + 1;
    if (me == 0)
        printf("test_armci_model: %d ranks, seed %llu, %d random operations and %d bursts per "
               "rank\n", np, seed, random_ops, bursts);

    bases = malloc(sizeof(void *) * (size_t)np);
    CHECK_EQ_LL(ARMCI_Malloc(bases, SEG), 0);
    memset(bases[me], 0, SEG);
    part = (SEG / (size_t)np) & ~(size_t)63;
    model = calloc((size_t)np, part);
    last = calloc((size_t)np * part, sizeof(int));
    size_t burst_ops = 2 * (BURST_MAX / 3 + BURST_MAX / CHUNK + 2);
    oplog = calloc(1 + NTYPES * 3 * 5 + (size_t)random_ops + (size_t)bursts * burst_ops,
                   sizeof *oplog);
    strcpy(oplog[0], "(none: the region's initial zeros)");
    arena = malloc(ARENA);
    ARMCI_INIT_HANDLE(&agg);
    ARMCI_SET_AGGREGATE_HANDLE(&agg);
    ARMCI_INIT_HANDLE(&burst_h);
    ARMCI_SET_AGGREGATE_HANDLE(&burst_h);
    ARMCI_Barrier();

    for (int type = 0; type < NTYPES; type++)
        for (int shape = CONTIG; shape <= VECTOR; shape++) {
            make_room();
            directed(type, shape, (int)rnd((unsigned)np));
            progress();
        }
    for (int i = 0, b = 0; i < random_ops || b < bursts; i++) {
        for (; b < bursts && (long)b * random_ops <= (long)i * bursts; b++)
            burst();
        if (i >= random_ops)
            continue;
        make_room();
        random_op();
        progress();
    }
    complete_all();
    ARMCI_AllFence();
    ARMCI_Barrier();
    compare_regions();

    if (check_failures)
        fprintf(stderr, "test_armci_model: rank %d failed; rerun with --seed %llu --ops %d --bursts "
                "%d\n", me, seed, random_ops, bursts);
    ARMCI_Barrier();
    CHECK_EQ_LL(ARMCI_Free(bases[me]), 0);
    free(bases);
    free(model);
    free(last);
    free(oplog);
    free(arena);
    ARMCI_Finalize();
    int rc = check_exit("test_armci_model");
    MPI_Finalize();
    return rc;
}
