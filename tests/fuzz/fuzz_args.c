/* libFuzzer target: the argument checks of reach's public calls.
 *
 * One process (rank 0 of 1) owns segment A, the target of every remote
 * range. Around it lie C and B, allocated with it and freed: memory of
 * the arena that is no segment, which no call may touch (freed memory
 * reads as zeros until something writes to it). Each input is a sequence of calls, every argument taken from the
 * input: ranks, remote addresses around A (inside, straddling, outside,
 * wild), sizes, strided shapes with any levels, counts and strides, vector
 * descriptors, types, request handles and mutex, counter and window
 * handles (live, NULL or a bogus object), allocations and frees of any
 * size and address, groups of any members. After each call:
 *   - the status is REACH_SUCCESS or one of the REACH_ERR_ codes;
 *   - C and B still read as zeros (no write outside the checked range);
 *   - if the call failed, A is unchanged too (nothing written).
 * Local buffers are exactly what the call may touch (the driver skips
 * shapes whose local side it cannot bound), so AddressSanitizer reports
 * any access past them.
 *
 *   build:  CC=clang cmake -DREACH_SANITIZER=address -DREACH_FUZZ=ON ...
 *   run:    build/tests/fuzz_args -max_total_time=300 [corpus dir] */
#include "reach.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEG 4096
#define LOCAL ((size_t)64 << 10)

static char *seg_a, *guard[2], *shadow_a, *zeros;
static reach_mutexes_t *mutexes;
static reach_counter_t *counter;
static reach_win_t *win;

/* A reader over the input: each take returns the next bytes, zero-filled
 * past the end. */
typedef struct {
    const uint8_t *p;
    size_t n;
} input_t;

static uint64_t take(input_t *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
    return v;
}

/* A rank: mostly valid (0), sometimes any int. */
static int take_rank(input_t *in)
{
    uint8_t k = (uint8_t)take(in, 1);
    return k < 160 ? 0 : (int)(int32_t)take(in, 4);
}

/* A remote address: an offset around A, or a wild value. */
static void *take_remote(input_t *in)
{
    uint8_t k = (uint8_t)take(in, 1);
    if (k < 200)
        return seg_a + (int64_t)(int16_t)take(in, 2) % (2 * SEG);
    return (void *)(uintptr_t)take(in, 8);
}

/* A size: small mostly, sometimes anything. */
static size_t take_size(input_t *in)
{
    uint8_t k = (uint8_t)take(in, 1);
    return k < 220 ? (size_t)take(in, 2) % (SEG + 64) : (size_t)take(in, 8);
}

/* A size for an allocation: up to 1 MiB, or beyond what any machine has
 * (a valid request of gigabytes would commit them, slowly). */
static size_t take_alloc_size(input_t *in)
{
    size_t n = take_size(in);
    return n > ((size_t)1 << 20) && n < ((size_t)1 << 50) ? n & (((size_t)1 << 20) - 1) : n;
}

/* Local extent of a strided shape's side with these strides; 0 if it
 * overflows or exceeds LOCAL, or if the shape has more than 1024 runs
 * (valid but slow: many runs over the same bytes), and the call is then
 * skipped. */
static size_t local_extent(const reach_strided_t *s, const size_t *stride)
{
    if (s->levels < 0 || s->levels > REACH_MAX_STRIDE_LEVELS)
        return 1;   /* rejected before any count is read */
    size_t end = s->count[0], runs = 1;
    if (end > LOCAL)
        return 0;
    for (int k = 1; k <= s->levels; k++) {
        if (s->count[k] == 0)
            return 1;   /* nothing moves */
        if (s->count[k] - 1 > LOCAL || stride[k - 1] > LOCAL || (runs *= s->count[k]) > 1024)
            return 0;
        end += (s->count[k] - 1) * stride[k - 1];
        if (end > LOCAL)
            return 0;
    }
    return end ? end : 1;
}

static int take_shape(input_t *in, reach_strided_t *s)
{
    memset(s, 0, sizeof *s);
    uint8_t lv = (uint8_t)take(in, 1);
    s->levels = lv < 240 ? lv % (REACH_MAX_STRIDE_LEVELS + 1) : (int)(int8_t)lv;
    for (int k = 0; k <= REACH_MAX_STRIDE_LEVELS; k++)
        s->count[k] = k == 0 ? take_size(in) : (take(in, 1) < 230 ? take(in, 1) % 5 : take_size(in));
    for (int k = 0; k < REACH_MAX_STRIDE_LEVELS; k++) {
        s->src_stride[k] = take_size(in);
        s->dst_stride[k] = take_size(in);
    }
    return 0;
}

static reach_type_t take_type(input_t *in)
{
    uint8_t k = (uint8_t)take(in, 1);
    return k < 240 ? (reach_type_t)(k % REACH_TYPE_COUNT) : (reach_type_t)(int8_t)k;
}

static void fail(const char *what, int op, int st)
{
    fprintf(stderr, "fuzz_args: call %d (status %d): %s\n", op, st, what);
    abort();
}

/* One call; returns its status. */
static int one_call(input_t *in, int op, char *local)
{
    static const double scale[2] = {1.0, 0.0};
    static struct { uint32_t magic; char junk[60]; } bogus;   /* not a live object */
    int rank = take_rank(in);
    void *remote = take_remote(in);
    size_t bytes = take_size(in);
    reach_type_t type = take_type(in);
    uint64_t raw[2];
    raw[0] = take(in, 8);
    raw[1] = take(in, 8);
    reach_request_t req;
    memcpy(&req, raw, sizeof req);
    if (bytes > LOCAL)
        bytes = take(in, 1) & 1 ? bytes : bytes % LOCAL;
    int local_ok = bytes <= LOCAL;   /* else only calls that must refuse */
    reach_strided_t sh;
    int64_t old64;
    int32_t old32;
    switch (op) {
    case 0: return local_ok ? reach_put(local, remote, bytes, rank) : 0;
    case 1: return local_ok ? reach_get(remote, local, bytes, rank) : 0;
    case 2: return local_ok ? reach_acc(type, scale, local, remote, bytes, rank) : 0;
    case 3: {
        if (!local_ok)
            return 0;
        int st = reach_put_nb(local, remote, bytes, rank, &req);
        return st == REACH_SUCCESS ? reach_wait(&req) : st;
    }
    case 4: {
        if (!local_ok)
            return 0;
        int st = reach_acc_nb(type, scale, local, remote, bytes, rank, &req);
        return st == REACH_SUCCESS ? reach_wait(&req) : st;
    }
    case 5: return reach_wait(&req);             /* a handle of random bytes */
    case 6: {
        int done;
        return reach_test(&req, &done);
    }
    case 7: case 8: case 9: {
        take_shape(in, &sh);
        const size_t *lstride = op == 8 ? sh.dst_stride : sh.src_stride;
        if (local_extent(&sh, lstride) == 0)
            return 0;
        if (op == 7) return reach_put_strided(local, remote, &sh, rank);
        if (op == 8) return reach_get_strided(remote, local, &sh, rank);
        return reach_acc_strided(type, scale, local, remote, &sh, rank);
    }
    case 10: case 11: case 12: {
        /* Up to 3 descriptors of up to 8 pairs; local sides inside local. */
        void *ptrs[2][3][8];
        reach_vector_t v[3];
        size_t n = (size_t)take(in, 1) % 4;
        for (size_t d = 0; d < n; d++) {
            v[d].count = (size_t)take(in, 1) % 9;
            v[d].bytes = (size_t)take(in, 2) % 1024;
            v[d].src = ptrs[0][d];
            v[d].dst = ptrs[1][d];
            for (size_t i = 0; i < v[d].count; i++) {
                void *l = local + (size_t)take(in, 2) % (LOCAL - 1024);
                void *r = take_remote(in);
                ptrs[0][d][i] = op == 11 ? r : l;
                ptrs[1][d][i] = op == 11 ? l : r;
            }
        }
        if (op == 10) return reach_put_vector(n ? v : NULL, n, rank);
        if (op == 11) return reach_get_vector(n ? v : NULL, n, rank);
        return reach_acc_vector(type, scale, n ? v : NULL, n, rank);
    }
    case 13: return reach_fetch_add_i64(remote, 1, &old64, rank);
    case 14: return reach_fetch_add_i32(remote, 1, &old32, rank);
    case 15: return reach_swap_i64(remote, 7, &old64, rank);
    case 16: return reach_cas_i32(remote, 0, 7, &old32, rank);
    case 17: return reach_fence(rank);
    case 18: case 19: case 20: {
        /* A live set, NULL or a bogus object; any id and rank. */
        uint8_t which = (uint8_t)take(in, 1);
        reach_mutexes_t *set = which < 200 ? mutexes : which < 228 ? NULL : (reach_mutexes_t *)(void *)&bogus;
        int id = (int)(int32_t)take(in, 4) % 6;
        if (op == 18) {
            int st = reach_mutex_lock(set, id, rank);
            return st == REACH_SUCCESS ? reach_mutex_unlock(set, id, rank) : st;
        }
        if (op == 19) {
            int got = 0;
            int st = reach_mutex_trylock(set, id, rank, take(in, 1) & 1 ? &got : NULL);
            return st == REACH_SUCCESS && got ? reach_mutex_unlock(set, id, rank) : st;
        }
        return reach_mutex_unlock(set, id, rank);
    }
    case 21: return reach_counter_add(take(in, 1) & 1 ? counter : NULL, 1, NULL);
    case 26: {
        /* Collective calls, here on one process: allocation of any size,
         * freeing any address, groups of any members. */
        void *b[1] = {NULL};
        int st = reach_malloc(take_alloc_size(in), take(in, 1) & 1 ? b : NULL);
        if (st == REACH_SUCCESS)
            st = reach_free(b[0]);
        char *wrong = take_remote(in);   /* anything but A's base */
        return st != REACH_SUCCESS ? st : reach_free(wrong == seg_a ? wrong + 1 : wrong);
    }
    case 27: {
        /* Rarely: a group is a few MPI communicators, slow to make. */
        if (take(in, 1) != 0x5a)
            return REACH_SUCCESS;
        int members[4];
        int n = (int)(int8_t)take(in, 1) % 5;
        for (int i = 0; i < 4; i++)
            members[i] = take_rank(in);
        reach_group_t *g = NULL;
        int st = reach_group_create(reach_group_world(), n, take(in, 1) & 1 ? members : NULL, &g);
        return st == REACH_SUCCESS && g ? reach_group_free(g) : st;
    }
    case 28: {
        void *p = reach_malloc_local(take_alloc_size(in)), *wrong = take_remote(in);
        int st = take(in, 1) & 1 ? reach_free_local(wrong) : REACH_SUCCESS;
        if (p != NULL && wrong != p) {
            int st2 = reach_free_local(p);
            st = st != REACH_SUCCESS ? st : st2;
        }
        return st;
    }
    case 29: {
        int st = reach_notify(rank);   /* success: the count of notifications sent */
        return st > 0 ? REACH_SUCCESS : st;
    }
    case 30: {
        /* Both sides local: each in its half of the buffer. */
        take_shape(in, &sh);
        size_t from = local_extent(&sh, sh.src_stride), to = local_extent(&sh, sh.dst_stride);
        if (from == 0 || to == 0 || from > LOCAL / 2 || to > LOCAL / 2)
            return 0;
        return reach_copy_strided(local, local + LOCAL / 2, &sh);
    }
    case 22: case 23: case 24: case 25: {
        reach_win_t *w = take(in, 1) < 220 ? win : NULL;
        size_t disp = take_size(in);
        int st = reach_win_lock(w, (int)take(in, 1) % 4, rank);
        if (st != REACH_SUCCESS)
            return st;
        if (!local_ok)
            st = 0;
        else if (op == 22)
            st = reach_win_put(w, local, disp, bytes, rank);
        else if (op == 23)
            st = reach_win_get(w, local, disp, bytes, rank);
        else if (op == 24)
            st = reach_win_acc(w, type, scale, local, disp, bytes, rank);
        else
            st = reach_win_fetch_add_i64(w, disp, 1, &old64, rank);
        int st2 = reach_win_unlock(w, rank);
        return st != REACH_SUCCESS ? st : st2;
    }
    default:
        return REACH_SUCCESS;
    }
}

/* libFuzzer ends the process with exit(): reach is finalized on the way out,
 * as every program must (reach ends the job of a process that exits
 * without). */
static void fuzz_finalize(void)
{
    if (reach_finalize() != REACH_SUCCESS)
        _exit(1);
    MPI_Finalize();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    setenv("REACH_QUIET", "1", 1);
    MPI_Init(argc, argv);
    void *c[1], *a[1], *b[1];
    if (reach_init(argc, argv) != REACH_SUCCESS || reach_malloc(SEG, c) != REACH_SUCCESS ||
        reach_malloc(SEG, a) != REACH_SUCCESS || reach_malloc(SEG, b) != REACH_SUCCESS)
        abort();
    seg_a = a[0];
    guard[0] = c[0];
    guard[1] = b[0];
    if ((char *)guard[0] + SEG != seg_a || seg_a + SEG != guard[1])
        fprintf(stderr, "fuzz_args: the guards are not next to segment A\n");
    shadow_a = malloc(SEG);
    zeros = calloc(1, SEG);
    if (reach_mutexes_create(3, &mutexes) != REACH_SUCCESS ||
        reach_counter_create(0, 0, &counter) != REACH_SUCCESS ||
        reach_win_create(seg_a, SEG, &win) != REACH_SUCCESS || !shadow_a || !zeros ||
        reach_free(c[0]) != REACH_SUCCESS || reach_free(b[0]) != REACH_SUCCESS)
        abort();
    atexit(fuzz_finalize);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input_t in = {data, size};
    char *local = malloc(LOCAL);
    memset(local, 0x33, LOCAL);
    for (int calls = 0; in.n > 0 && calls < 16; calls++) {
        int op = (int)(take(&in, 1) % 31);
        memcpy(shadow_a, seg_a, SEG);
        int st = one_call(&in, op, local);
        if (st > 0 || st < REACH_ERR_EPOCH)
            fail("the status is not a reach status", op, st);
        if (memcmp(guard[0], zeros, SEG) != 0 || memcmp(guard[1], zeros, SEG) != 0)
            fail("a call wrote outside every segment (a freed neighbour of A changed)", op, st);
        if (st != REACH_SUCCESS && memcmp(seg_a, shadow_a, SEG) != 0)
            fail("a call that failed wrote to its target", op, st);
    }
    free(local);
    return 0;
}
