/* Strided and vector put, get and accumulate against a model: random
 * shapes of 0 to 8 levels, random offsets, gaps and targets (self and
 * others), blocking and non-blocking, through reach.h and through armci.h.
 * Every rank writes only its own partition of each target, so the final
 * contents are known; the model is kept with a recursive walk written
 * independently of reach's. At the end every partition is compared byte
 * for byte, then all ranks accumulate into the same region at once and the
 * sums are checked exactly. Seed: REACH_TEST_SEED (printed on failure). */
#include "mpi_check.h"
#include "armci.h"
#include "reach.h"

#include <complex.h>
#include <string.h>

#define SEG (256 * 1024)
#define MAXB 6144

static int me, np;
static unsigned long long rng;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const size_t esize[REACH_TYPE_COUNT] = {sizeof(int), sizeof(long), sizeof(float),
                                               sizeof(double), 8, 16};
static const size_t csize[REACH_TYPE_COUNT] = {sizeof(int), sizeof(long), 4, 8, 4, 8};
static const int armci_acc_code[REACH_TYPE_COUNT] = {ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT,
                                                     ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP};

/* Reference accumulate of one element (exact for the small integers used). */
static void ref_acc_elem(int t, const void *scale, const char *s, char *d)
{
    switch (t) {
    /* Integers wrap, as reach's kernels do (unsigned arithmetic). */
    case REACH_INT: { unsigned a, b; memcpy(&a, d, 4); memcpy(&b, s, 4); a += (unsigned)*(const int *)scale * b; memcpy(d, &a, 4); break; }
    case REACH_LONG: { unsigned long a, b; memcpy(&a, d, 8); memcpy(&b, s, 8); a += (unsigned long)*(const long *)scale * b; memcpy(d, &a, 8); break; }
    case REACH_FLOAT: { float a, b; memcpy(&a, d, 4); memcpy(&b, s, 4); a += *(const float *)scale * b; memcpy(d, &a, 4); break; }
    case REACH_DOUBLE: { double a, b; memcpy(&a, d, 8); memcpy(&b, s, 8); a += *(const double *)scale * b; memcpy(d, &a, 8); break; }
    case REACH_COMPLEX: { float complex a, b; memcpy(&a, d, 8); memcpy(&b, s, 8); a += *(const float complex *)scale * b; memcpy(d, &a, 8); break; }
    default: { double complex a, b; memcpy(&a, d, 16); memcpy(&b, s, 16); a += *(const double complex *)scale * b; memcpy(d, &a, 16); break; }
    }
}

/* The model's walk: recursion over levels, one run at the bottom. */
static void ref_walk(const reach_strided_t *sh, int level, const char *s, char *d, int acc, int t,
                     const void *scale)
{
    if (level == 0) {
        if (!acc)
            memmove(d, s, sh->count[0]);
        else
            for (size_t e = 0; e < sh->count[0]; e += esize[t])
                ref_acc_elem(t, scale, s + e, d + e);
        return;
    }
    for (size_t i = 0; i < sh->count[level]; i++)
        ref_walk(sh, level - 1, s + i * sh->src_stride[level - 1], d + i * sh->dst_stride[level - 1],
                 acc, t, scale);
}

static size_t extent(const reach_strided_t *sh, const size_t *stride)
{
    size_t e = sh->count[0];
    for (int i = 1; i <= sh->levels; i++)
        e += (sh->count[i] - 1) * stride[i - 1];
    return e;
}

/* A random shape of at most MAXB bytes whose remote extent fits in room;
 * unit divides run lengths and remote gaps (element or component size). */
static void random_shape(reach_strided_t *sh, size_t unit, size_t gap_unit, size_t room)
{
    for (;;) {
        memset(sh, 0, sizeof *sh);
        sh->levels = (int)rnd(REACH_MAX_STRIDE_LEVELS + 1);
        sh->count[0] = unit * (1 + rnd(rnd(2) ? 8 : 48 / (unsigned)unit + 1));
        size_t total = sh->count[0];
        for (int i = 1; i <= sh->levels; i++) {
            sh->count[i] = 1 + rnd(i <= 2 ? 4 : 2);
            total *= sh->count[i];
        }
        int dense = rnd(3) == 0; /* all gaps 0: contiguous, must merge */
        size_t sspan = sh->count[0], dspan = sh->count[0];
        for (int i = 0; i < sh->levels; i++) {
            sh->src_stride[i] = sspan + (dense ? 0 : rnd(3) * 8);
            sh->dst_stride[i] = dspan + (dense ? 0 : rnd(3) * gap_unit);
            sspan = sh->src_stride[i] * sh->count[i + 1];
            dspan = sh->dst_stride[i] * sh->count[i + 1];
        }
        if (total <= MAXB && extent(sh, sh->dst_stride) <= room && extent(sh, sh->src_stride) <= room)
            return;
    }
}

/* Converts a shape to ARMCI's int arrays. */
static void to_armci(const reach_strided_t *sh, int *ss, int *ds, int *cnt)
{
    for (int i = 0; i <= sh->levels; i++)
        cnt[i] = (int)sh->count[i];
    for (int i = 0; i < sh->levels; i++) {
        ss[i] = (int)sh->src_stride[i];
        ds[i] = (int)sh->dst_stride[i];
    }
}

static void fill_small_ints(char *buf, size_t bytes, int t)
{
    for (size_t e = 0; e + csize[t] <= bytes; e += csize[t]) {
        int v = (int)rnd(7) - 3;
        switch (csize[t] == 4 ? (t == REACH_INT ? 0 : 1) : (t == REACH_LONG ? 2 : 3)) {
        case 0: memcpy(buf + e, &v, 4); break;
        case 1: { float f = (float)v; memcpy(buf + e, &f, 4); break; }
        case 2: { long l = v; memcpy(buf + e, &l, 8); break; }
        default: { double d = v; memcpy(buf + e, &d, 8); break; }
        }
    }
}

static const void *scale_of(int t)
{
    static const int si = 2; static const long sl = -1; static const float sf = 2.0f;
    static const double sd = 3.0; static const float complex sc = 1.0f - 1.0f * I;
    static const double complex sz = 2.0 + 1.0 * I;
    static const void *const s[REACH_TYPE_COUNT] = {&si, &sl, &sf, &sd, &sc, &sz};
    return s[t];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(ARMCI_Init() == 0);
    me = reach_rank();
    np = reach_size();
    const char *seed_env = getenv("REACH_TEST_SEED");
    unsigned long long seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x9E3779B97F4A7C15ull;
    rng = seed + 7919ull * (unsigned long long)(me + 1);

    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(SEG, bases) == REACH_SUCCESS);
    memset(bases[me], 0, SEG);
    const size_t part = (SEG / (size_t)np) & ~(size_t)63;
    char *model = calloc((size_t)np, part);            /* my partition of every target */
    char *src = malloc(2 * SEG), *got = malloc(2 * SEG), *expect = malloc(2 * SEG);
    reach_barrier();

    /* Non-blocking operations stay in flight in batches of up to BATCH,
     * each with its own slot of the local buffers; the batch is completed
     * together (each wait, reach_wait_all or ARMCI_WaitAll), and only then
     * are its gets compared. A vector call's descriptors are wiped as soon
     * as it returns: reach must not read them afterwards. */
    enum { BATCH = 4 };
    const size_t slot_size = SEG / 2;   /* >= part: any local extent fits */
    struct flying { int nb, armci, get; size_t len; reach_request_t req; armci_hdl_t h; } fl[BATCH];
    int iters = 400, bad_gets = 0, how = 0;
    for (int it = 0; it < iters; it++) {
        int k = it % BATCH;
        if (k == 0)   /* how the batch completes: each wait, reach_wait_all, ARMCI_WaitAll (implicit handles) */
            how = (int)rnd(3);
        int t_rank = rnd(3) == 0 ? me : (int)rnd((unsigned)np);
        char *remote = (char *)bases[t_rank] + (size_t)me * part;
        char *m = model + (size_t)t_rank * part;
        char *src_k = src + (size_t)k * slot_size, *got_k = got + (size_t)k * slot_size;
        char *expect_k = expect + (size_t)k * slot_size;
        int op = (int)rnd(6), type = (int)rnd(REACH_TYPE_COUNT), nb = (int)rnd(2), armci = (int)rnd(2);
        int acc = op == 2 || op == 5;
        size_t unit = acc ? esize[type] : 1, gap = acc ? csize[type] : 1;
        size_t off = acc ? csize[type] * rnd(8) : rnd(64);
        fl[k] = (struct flying){.nb = nb, .armci = armci, .get = op == 1 || op == 4};
        reach_request_t *req = &fl[k].req;
        armci_hdl_t *h = how == 2 ? NULL : &fl[k].h;
        ARMCI_INIT_HANDLE(&fl[k].h);
        int st = 0;
        if (op < 3) {
            reach_strided_t sh;
            random_shape(&sh, unit, gap, part - off);
            int ss[8], ds[8], cnt[9];
            to_armci(&sh, ss, ds, cnt);
            fill_small_ints(src_k, extent(&sh, sh.src_stride), acc ? type : REACH_DOUBLE);
            if (op == 0) {          /* put: src local, dst remote */
                st = armci ? (nb ? ARMCI_NbPutS(src_k, ss, remote + off, ds, cnt, sh.levels, t_rank, h)
                                 : ARMCI_PutS(src_k, ss, remote + off, ds, cnt, sh.levels, t_rank))
                           : (nb ? reach_put_strided_nb(src_k, remote + off, &sh, t_rank, req)
                                 : reach_put_strided(src_k, remote + off, &sh, t_rank));
                ref_walk(&sh, sh.levels, src_k, m + off, 0, 0, NULL);
            } else if (op == 1) {   /* get: remote strided (src strides), local dst strides */
                reach_strided_t gs = sh;   /* swap roles: the remote side uses dst strides */
                memcpy(gs.src_stride, sh.dst_stride, sizeof gs.src_stride);
                memcpy(gs.dst_stride, sh.src_stride, sizeof gs.dst_stride);
                to_armci(&gs, ss, ds, cnt);
                fl[k].len = extent(&gs, gs.dst_stride);
                memset(got_k, 0x5a, fl[k].len);
                memset(expect_k, 0x5a, fl[k].len);
                st = armci ? (nb ? ARMCI_NbGetS(remote + off, ss, got_k, ds, cnt, gs.levels, t_rank, h)
                                 : ARMCI_GetS(remote + off, ss, got_k, ds, cnt, gs.levels, t_rank))
                           : (nb ? reach_get_strided_nb(remote + off, got_k, &gs, t_rank, req)
                                 : reach_get_strided(remote + off, got_k, &gs, t_rank));
                ref_walk(&gs, gs.levels, m + off, expect_k, 0, 0, NULL);
            } else {                /* accumulate */
                st = armci ? (nb ? ARMCI_NbAccS(armci_acc_code[type], (void *)scale_of(type), src_k, ss,
                                                remote + off, ds, cnt, sh.levels, t_rank, h)
                                 : ARMCI_AccS(armci_acc_code[type], (void *)scale_of(type), src_k, ss,
                                              remote + off, ds, cnt, sh.levels, t_rank))
                           : (nb ? reach_acc_strided_nb((reach_type_t)type, scale_of(type), src_k,
                                                        remote + off, &sh, t_rank, req)
                                 : reach_acc_strided((reach_type_t)type, scale_of(type), src_k,
                                                     remote + off, &sh, t_rank));
                ref_walk(&sh, sh.levels, src_k, m + off, 1, type, scale_of(type));
            }
        } else {
            /* Vector: distinct slots of `bytes` in the partition. */
            size_t bytes = unit * (1 + rnd(acc ? 8 : 40));
            size_t slots = (part - 64) / bytes;
            int ndesc = 1 + (int)rnd(3), per = 1 + (int)rnd(6);
            void *sp[3][6], *dp[3][6];
            char *used = calloc(slots, 1);
            reach_vector_t v[3];
            armci_giov_t g[3];
            fl[k].len = (size_t)(ndesc * per) * bytes;
            fill_small_ints(src_k, fl[k].len, acc ? type : REACH_DOUBLE);
            memset(got_k, 0x5a, fl[k].len);
            memcpy(expect_k, got_k, fl[k].len);
            for (int d = 0; d < ndesc; d++) {
                for (int j = 0; j < per; j++) {
                    size_t slot;
                    do
                        slot = rnd((unsigned)slots);
                    while (used[slot]);
                    used[slot] = 1;
                    char *r = remote + slot * bytes, *l = (op == 4 ? got_k : src_k) + (size_t)(d * per + j) * bytes;
                    sp[d][j] = op == 4 ? (void *)r : (void *)l;
                    dp[d][j] = op == 4 ? (void *)l : (void *)r;
                    char *mr = m + slot * bytes;
                    if (op == 3)
                        memcpy(mr, l, bytes);
                    else if (op == 4)
                        memcpy(expect_k + (size_t)(d * per + j) * bytes, mr, bytes);
                    else
                        for (size_t e = 0; e < bytes; e += esize[type])
                            ref_acc_elem(type, scale_of(type), l + e, mr + e);
                }
                v[d] = (reach_vector_t){sp[d], dp[d], (size_t)per, bytes};
                g[d] = (armci_giov_t){.src_ptr_array = sp[d], .dst_ptr_array = dp[d], .bytes = (int)bytes,
                                      .ptr_array_len = per};
            }
            free(used);
            if (op == 3)
                st = armci ? (nb ? ARMCI_NbPutV(g, ndesc, t_rank, h) : ARMCI_PutV(g, ndesc, t_rank))
                           : (nb ? reach_put_vector_nb(v, (size_t)ndesc, t_rank, req)
                                 : reach_put_vector(v, (size_t)ndesc, t_rank));
            else if (op == 4)
                st = armci ? (nb ? ARMCI_NbGetV(g, ndesc, t_rank, h) : ARMCI_GetV(g, ndesc, t_rank))
                           : (nb ? reach_get_vector_nb(v, (size_t)ndesc, t_rank, req)
                                 : reach_get_vector(v, (size_t)ndesc, t_rank));
            else
                st = armci ? (nb ? ARMCI_NbAccV(armci_acc_code[type], (void *)scale_of(type), g, ndesc,
                                                t_rank, h)
                                 : ARMCI_AccV(armci_acc_code[type], (void *)scale_of(type), g, ndesc, t_rank))
                           : (nb ? reach_acc_vector_nb((reach_type_t)type, scale_of(type), v,
                                                       (size_t)ndesc, t_rank, req)
                                 : reach_acc_vector((reach_type_t)type, scale_of(type), v,
                                                    (size_t)ndesc, t_rank));
            memset(sp, 0, sizeof sp);
            memset(dp, 0, sizeof dp);
            memset(v, 0, sizeof v);
            memset(g, 0, sizeof g);
        }
        CHECK_EQ_LL(st, 0);
        if (!nb && fl[k].get)
            bad_gets += memcmp(got_k, expect_k, fl[k].len) != 0;
        if (k < BATCH - 1 && it < iters - 1)
            continue;
        if (how == 1)
            CHECK_EQ_LL(reach_wait_all(), 0);
        else if (how == 2)
            ARMCI_WaitAll();
        for (int j = 0; j <= k; j++) {
            if (!fl[j].nb)
                continue;
            if (how == 0)
                CHECK_EQ_LL(fl[j].armci ? ARMCI_Wait(&fl[j].h) : reach_wait(&fl[j].req), 0);
            if (fl[j].get)
                bad_gets += memcmp(got + (size_t)j * slot_size, expect + (size_t)j * slot_size, fl[j].len) != 0;
        }
    }
    CHECK_EQ_LL(bad_gets, 0);
    reach_barrier();
    /* Every partition of every target holds what the model says. */
    int bad_parts = 0;
    for (int t = 0; t < np; t++) {
        CHECK(reach_get((char *)bases[t] + (size_t)me * part, got, part, t) == REACH_SUCCESS);
        bad_parts += memcmp(got, model + (size_t)t * part, part) != 0;
    }
    CHECK_EQ_LL(bad_parts, 0);
    reach_barrier();

    /* Overlapping accumulates from every rank into every target, the same
     * shape everywhere (shared seed), different data: exact sums. */
    unsigned long long mine_rng = rng;
    rng = seed ^ 0xABCDEFull;
    for (int round = 0; round < 6; round++) {
        int type = (int)rnd(REACH_TYPE_COUNT);
        reach_strided_t sh;
        random_shape(&sh, esize[type], csize[type], SEG / 2);
        unsigned long long shared = rng;
        memset(bases[me], 0, SEG);
        reach_barrier();
        for (int r = 0; r < np; r++) {
            rng = shared + 31ull * (unsigned long long)(r + 1);
            fill_small_ints(r == me ? src : got, extent(&sh, sh.src_stride), type);
            /* expected = sum over ranks of scale * src_r, by the model */
            if (r == 0)
                memset(expect, 0, extent(&sh, sh.dst_stride));
            ref_walk(&sh, sh.levels, r == me ? src : got, expect, 1, type, scale_of(type));
        }
        rng = shared;
        for (int k = 0; k < np; k++) {
            int t = (me + k) % np;
            CHECK(reach_acc_strided((reach_type_t)type, scale_of(type), src, bases[t], &sh, t) ==
                  REACH_SUCCESS);
        }
        reach_barrier();
        CHECK(memcmp(bases[me], expect, extent(&sh, sh.dst_stride)) == 0);
        reach_barrier();
    }
    rng = mine_rng;

    if (check_failures)
        fprintf(stderr, "test_noncontig: rank %d failed with REACH_TEST_SEED=%llu\n", me, seed);
    free(model);
    free(src);
    free(got);
    free(expect);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    ARMCI_Finalize();
    int rc = check_exit("test_noncontig");
    MPI_Finalize();
    return rc;
}
