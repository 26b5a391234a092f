/* strided_plan: levels whose items lie back to back on both sides merge
 * into the level below, levels of one item are dropped, a zero count moves
 * nothing, extents are exact; too many levels, a NULL shape and shapes
 * beyond the address space are refused with their message. A random part
 * checks every plan moves the same bytes, in the same order, as its shape. */
#include "../check.h"
#include "base/strided.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* A shape: levels, counts (levels + 1), source strides, destination
 * strides (levels each). */
static reach_strided_t shape_of(int levels, const size_t *count, const size_t *src, const size_t *dst)
{
    reach_strided_t s;
    memset(&s, 0, sizeof s);
    s.levels = levels;
    for (int i = 0; i <= levels && i <= REACH_MAX_STRIDE_LEVELS; i++)
        s.count[i] = count[i];
    for (int i = 0; i < levels && i < REACH_MAX_STRIDE_LEVELS; i++) {
        s.src_stride[i] = src[i];
        s.dst_stride[i] = dst[i];
    }
    return s;
}

/* What strided_plan printed on stderr during the last call of plan(). */
static char message[1024];

/* strided_plan on s, with the plan and extents filled with garbage first,
 * and its message (if any) captured. */
static int plan(const reach_strided_t *s, reach_strided_t *p, size_t *se, size_t *de)
{
    memset(p, 0xAB, sizeof *p);
    *se = *de = (size_t)0xABABABAB;
    message[0] = 0;
    FILE *f = tmpfile();
    int saved = dup(2);
    if (!f || saved < 0) {
        fprintf(stderr, "test_strided: no temporary file for stderr\n");
        exit(2);
    }
    fflush(stderr);
    dup2(fileno(f), 2);
    int st = strided_plan("strided_test", s, p, se, de);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(message, 1, sizeof message - 1, f);
    message[n] = 0;
    fclose(f);
    return st;
}

/* The plan is exactly: levels, counts, source and destination strides. */
static void check_plan(const reach_strided_t *p, int levels, const size_t *count, const size_t *src,
                       const size_t *dst, int line)
{
    int bad = p->levels != levels;
    for (int i = 0; !bad && i <= levels; i++)
        bad = p->count[i] != count[i];
    for (int i = 0; !bad && i < levels; i++)
        bad = p->src_stride[i] != src[i] || p->dst_stride[i] != dst[i];
    if (bad) {
        check_failures++;
        fprintf(stderr, "CHECK FAILED line %d: plan of %d levels, count[0] %zu, expected %d levels,"
                " count[0] %zu\n", line, p->levels, p->count[0], levels, count[0]);
    }
}
#define CHECK_PLAN(p, levels, count, src, dst) check_plan(p, levels, count, src, dst, __LINE__)
#define CHECK_MESSAGE(want)                                                           \
    do {                                                                              \
        if (strcmp(message, want) != 0) {                                             \
            check_failures++;                                                         \
            fprintf(stderr, "CHECK FAILED line %d: message \"%s\", expected \"%s\"\n", \
                    __LINE__, message, want);                                         \
        }                                                                             \
    } while (0)

/* The byte pairs (source offset, destination offset) a shape moves, in
 * order: count[0] bytes from each run, the runs with level 1 innermost. */
static size_t walk(const reach_strided_t *s, size_t (*out)[2], size_t max)
{
    size_t idx[REACH_MAX_STRIDE_LEVELS + 1] = {0}, n = 0;
    for (;;) {
        size_t so = 0, d = 0;
        for (int k = 1; k <= s->levels; k++) {
            so += idx[k] * s->src_stride[k - 1];
            d += idx[k] * s->dst_stride[k - 1];
        }
        for (size_t b = 0; b < s->count[0]; b++) {
            if (n == max)
                return n + 1;   /* more than max: a mismatch in itself */
            out[n][0] = so + b;
            out[n][1] = d + b;
            n++;
        }
        int k = 1;
        while (k <= s->levels && ++idx[k] == s->count[k])
            idx[k++] = 0;
        if (k > s->levels)
            return n;
    }
}

/* Deterministic pseudo-random numbers (the same run every time). */
static uint64_t rng = 0x9E3779B97F4A7C15u;
static size_t rnd(size_t n)
{
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return (size_t)((rng >> 33) % n);
}

int main(void)
{
    reach_strided_t s, p;
    size_t se, de;

    /* No levels: one run, untouched. */
    s = shape_of(0, (size_t[]){10}, NULL, NULL);
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){10}), NULL, NULL);
    CHECK_EQ_LL(se, 10);
    CHECK_EQ_LL(de, 10);
    CHECK_MESSAGE("");

    /* Rows back to back on both sides: one run of all the bytes. */
    s = shape_of(1, (size_t[]){8, 4}, (size_t[]){8}, (size_t[]){8});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){32}), NULL, NULL);
    CHECK_EQ_LL(se, 32);
    CHECK_EQ_LL(de, 32);
    CHECK_EQ_LL(strided_bytes(&p), 32);

    /* Back to back on one side only: no merge. */
    s = shape_of(1, (size_t[]){8, 4}, (size_t[]){8}, (size_t[]){16});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){8, 4}), ((size_t[]){8}), ((size_t[]){16}));
    CHECK_EQ_LL(se, 8 + 3 * 8);
    CHECK_EQ_LL(de, 8 + 3 * 16);
    s = shape_of(1, (size_t[]){8, 4}, (size_t[]){12}, (size_t[]){8});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){8, 4}), ((size_t[]){12}), ((size_t[]){8}));
    CHECK_EQ_LL(se, 8 + 3 * 12);
    CHECK_EQ_LL(de, 8 + 3 * 8);

    /* A stride shorter than the run (items overlap) is no merge either. */
    s = shape_of(1, (size_t[]){8, 4}, (size_t[]){4}, (size_t[]){4});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){8, 4}), ((size_t[]){4}), ((size_t[]){4}));
    CHECK_EQ_LL(se, 8 + 3 * 4);

    /* Levels of one item are dropped, and do not stop the next level from
     * merging: [8 bytes] x 1 (stride 100/200) x 5 (stride 8) is 40 bytes. */
    s = shape_of(2, (size_t[]){8, 1, 5}, (size_t[]){100, 8}, (size_t[]){200, 8});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){40}), NULL, NULL);
    CHECK_EQ_LL(se, 40);
    CHECK_EQ_LL(de, 40);
    s = shape_of(2, (size_t[]){8, 1, 5}, (size_t[]){100, 50}, (size_t[]){100, 60});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){8, 5}), ((size_t[]){50}), ((size_t[]){60}));
    CHECK_EQ_LL(se, 8 + 4 * 50);
    CHECK_EQ_LL(de, 8 + 4 * 60);
    /* Every level of one item: the run alone. */
    s = shape_of(3, (size_t[]){7, 1, 1, 1}, (size_t[]){9, 99, 999}, (size_t[]){5, 55, 555});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){7}), NULL, NULL);
    CHECK_EQ_LL(se, 7);
    CHECK_EQ_LL(de, 7);

    /* Two levels merge into the run, the third stays. */
    s = shape_of(3, (size_t[]){4, 3, 2, 5}, (size_t[]){4, 12, 100}, (size_t[]){4, 12, 200});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){24, 5}), ((size_t[]){100}), ((size_t[]){200}));
    CHECK_EQ_LL(se, 4 + 2 * 4 + 1 * 12 + 4 * 100);
    CHECK_EQ_LL(de, 4 + 2 * 4 + 1 * 12 + 4 * 200);
    CHECK_EQ_LL(strided_bytes(&p), 4 * 3 * 2 * 5);

    /* A level merges into a strided level below it: 3 items at stride 10,
     * twice at stride 30, is 6 items at stride 10. */
    s = shape_of(2, (size_t[]){4, 3, 2}, (size_t[]){10, 30}, (size_t[]){10, 30});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){4, 6}), ((size_t[]){10}), ((size_t[]){10}));
    CHECK_EQ_LL(se, 4 + 5 * 10);
    CHECK_EQ_LL(de, 4 + 5 * 10);

    /* A zero count anywhere moves nothing: an empty plan and no extent,
     * even with strides that would overflow. */
    s = shape_of(0, (size_t[]){0}, NULL, NULL);
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){0}), NULL, NULL);
    CHECK_EQ_LL(se, 0);
    CHECK_EQ_LL(de, 0);
    CHECK_EQ_LL(strided_bytes(&p), 0);
    s = shape_of(2, (size_t[]){8, 5, 0}, (size_t[]){SIZE_MAX, SIZE_MAX}, (size_t[]){16, 16});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){0}), NULL, NULL);
    CHECK_EQ_LL(se, 0);
    CHECK_EQ_LL(de, 0);
    CHECK_EQ_LL(strided_bytes(&p), 0);
    CHECK_MESSAGE("");
    s = shape_of(1, (size_t[]){0, 3}, (size_t[]){8}, (size_t[]){8});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){0}), NULL, NULL);
    CHECK_EQ_LL(se, 0);
    /* A count beyond the levels is not read. */
    s = shape_of(1, (size_t[]){8, 2}, (size_t[]){20}, (size_t[]){20});
    s.count[2] = 0;
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 1, ((size_t[]){8, 2}), ((size_t[]){20}), ((size_t[]){20}));
    CHECK_EQ_LL(se, 28);

    /* The most levels allowed: 8 levels of 2, none contiguous, stay; all
     * contiguous, they are one run of 2^9 bytes. */
    size_t cnt[REACH_MAX_STRIDE_LEVELS + 1], st[REACH_MAX_STRIDE_LEVELS], st2[REACH_MAX_STRIDE_LEVELS];
    size_t ext = 2;
    for (int i = 0; i <= REACH_MAX_STRIDE_LEVELS; i++)
        cnt[i] = 2;
    for (int i = 0; i < REACH_MAX_STRIDE_LEVELS; i++) {
        st[i] = (size_t)3 << (2 * i);    /* 3, 12, 48...: each past the level below */
        st2[i] = (size_t)2 << i;         /* 2, 4, 8...: back to back */
        ext += st[i];
    }
    s = shape_of(REACH_MAX_STRIDE_LEVELS, cnt, st, st);
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, REACH_MAX_STRIDE_LEVELS, cnt, st, st);
    CHECK_EQ_LL(se, ext);
    CHECK_EQ_LL(de, ext);
    CHECK_EQ_LL(strided_bytes(&p), 512);
    s = shape_of(REACH_MAX_STRIDE_LEVELS, cnt, st2, st2);
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_PLAN(&p, 0, ((size_t[]){512}), NULL, NULL);
    CHECK_EQ_LL(se, 512);
    CHECK_EQ_LL(de, 512);

    /* Too many levels, negative levels, no shape: refused, saying why. */
    s = shape_of(REACH_MAX_STRIDE_LEVELS, cnt, st, st);
    s.levels = REACH_MAX_STRIDE_LEVELS + 1;
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_ERR_ARG);
    CHECK_MESSAGE("reach: strided_test: 9 stride levels (0 to 8 allowed)\n");
    s.levels = -1;
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_ERR_ARG);
    CHECK_MESSAGE("reach: strided_test: -1 stride levels (0 to 8 allowed)\n");
    CHECK_EQ_LL(plan(NULL, &p, &se, &de), REACH_ERR_ARG);
    CHECK_MESSAGE("reach: strided_test: the strided shape is NULL\n");

    /* Extents at the edge of the address space: SIZE_MAX is allowed, one
     * more is not, on either side, by the product or by the sum. */
    s = shape_of(1, (size_t[]){1, 2}, (size_t[]){SIZE_MAX - 1}, (size_t[]){1});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);
    CHECK_EQ_LL(se, SIZE_MAX);
    CHECK_EQ_LL(de, 2);
    CHECK_PLAN(&p, 1, ((size_t[]){1, 2}), ((size_t[]){SIZE_MAX - 1}), ((size_t[]){1}));
    CHECK_MESSAGE("");
    const char *span_msg = "reach: strided_test: the strided region spans more than the address space\n";
    s = shape_of(1, (size_t[]){2, 2}, (size_t[]){SIZE_MAX - 1}, (size_t[]){2});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_ERR_ARG);      /* the sum */
    CHECK_MESSAGE(span_msg);
    s = shape_of(1, (size_t[]){1, 3}, (size_t[]){1}, (size_t[]){SIZE_MAX / 2 + 1});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_ERR_ARG);      /* the product */
    CHECK_MESSAGE(span_msg);
    s = shape_of(2, (size_t[]){1, 2, 2}, (size_t[]){1, 2}, (size_t[]){SIZE_MAX / 2, SIZE_MAX / 2 + 1});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_ERR_ARG);      /* over two levels */
    CHECK_MESSAGE(span_msg);
    /* Strides of 0 keep the extents small while the bytes moved exceed
     * what exists. */
    s = shape_of(1, (size_t[]){(size_t)1 << 33, (size_t)1 << 31}, (size_t[]){0}, (size_t[]){0});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_ERR_ARG);
    CHECK_MESSAGE("reach: strided_test: the strided region holds more bytes than exist\n");
    s = shape_of(1, (size_t[]){(size_t)1 << 33, (size_t)1 << 30}, (size_t[]){0}, (size_t[]){0});
    CHECK_EQ_LL(plan(&s, &p, &se, &de), REACH_SUCCESS);      /* 2^63 bytes: allowed */
    CHECK_EQ_LL(se, (size_t)1 << 33);
    CHECK_PLAN(&p, 1, ((size_t[]){(size_t)1 << 33, (size_t)1 << 30}), ((size_t[]){0}), ((size_t[]){0}));

    /* Random shapes of 0 to 4 levels with counts 1 to 3 and strides often
     * back to back: the plan moves the same byte pairs in the same order,
     * has no level of one item, no level that could merge further, and the
     * extents are one past the largest offset on each side. */
    enum { MAXB = 4096 };
    static size_t a[MAXB + 1][2], b[MAXB + 1][2];
    int differ = 0, bad_extent = 0, unmerged = 0, merged = 0;
    for (int trial = 0; trial < 20000; trial++) {
        int levels = (int)rnd(5);
        size_t c[5], ss[4], ds[4], sspan, dspan;
        c[0] = 1 + rnd(3);
        sspan = dspan = c[0];
        for (int i = 1; i <= levels; i++) {
            c[i] = 1 + rnd(3);
            /* back to back, or a gap of 1 to 3, or overlapping by 1 */
            size_t pick = rnd(4);
            ss[i - 1] = pick == 0 ? sspan + 1 + rnd(3) : pick == 1 && sspan > 1 ? sspan - 1 : sspan;
            pick = rnd(4);
            ds[i - 1] = pick == 0 ? dspan + 1 + rnd(3) : pick == 1 && dspan > 1 ? dspan - 1 : dspan;
            sspan = ss[i - 1] * c[i];
            dspan = ds[i - 1] * c[i];
        }
        s = shape_of(levels, c, ss, ds);
        if (plan(&s, &p, &se, &de) != REACH_SUCCESS) {
            differ++;
            continue;
        }
        size_t na = walk(&s, a, MAXB), nb = walk(&p, b, MAXB);
        differ += na != nb || na > MAXB || memcmp(a, b, na * sizeof a[0]) != 0;
        size_t smax = 0, dmax = 0;
        for (size_t i = 0; i < na && i < MAXB; i++) {
            smax = a[i][0] > smax ? a[i][0] : smax;
            dmax = a[i][1] > dmax ? a[i][1] : dmax;
        }
        bad_extent += se != smax + 1 || de != dmax + 1;
        /* The plan is fully merged: every level has more than one item, and
         * none lies back to back on both sides with the level below. */
        size_t ps = p.count[0], pd = p.count[0];
        for (int i = 1; i <= p.levels; i++) {
            unmerged += p.count[i] < 2 || (p.src_stride[i - 1] == ps && p.dst_stride[i - 1] == pd);
            ps = p.src_stride[i - 1] * p.count[i];
            pd = p.dst_stride[i - 1] * p.count[i];
        }
        merged += p.levels < levels;
    }
    CHECK_EQ_LL(differ, 0);
    CHECK_EQ_LL(bad_extent, 0);
    CHECK_EQ_LL(unmerged, 0);
    CHECK(merged > 1000);   /* the random part exercised merging at all */

    printf("test_strided: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
