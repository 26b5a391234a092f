/* Every argument check of the native interface: the call returns the right
 * error code and the target memory is left exactly as it was. */
#include "mpi_check.h"
#include "reach.h"

#include <string.h>

static int me, np;

/* The whole of every rank's segment still holds its pattern. */
static void check_untouched(void **bases, size_t bytes)
{
    reach_barrier();
    unsigned char *b = bases[me];
    int bad = 0;
    for (size_t i = 0; i < bytes; i++)
        bad += b[i] != (unsigned char)(0xA0 + me);
    CHECK_EQ_LL(bad, 0);
    reach_barrier();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    /* Before init. */
    char buf[64] = {0};
    CHECK(reach_put(buf, buf, 8, 0) == REACH_ERR_NOT_INIT);
    CHECK(reach_barrier() == REACH_ERR_NOT_INIT);
    CHECK(reach_progress() == REACH_ERR_NOT_INIT);
    CHECK(reach_trace_mark("begin x") == REACH_ERR_NOT_INIT);
    CHECK(reach_finalize() == REACH_ERR_NOT_INIT);
    void *bases_pre[1];
    CHECK(reach_malloc(8, bases_pre) == REACH_ERR_NOT_INIT);

    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    me = reach_rank();
    np = reach_size();
    const size_t S = 256;
    void **bases = malloc(sizeof(void *) * (size_t)np);
    CHECK(reach_malloc(S, bases) == REACH_SUCCESS);
    memset(bases[me], 0xA0 + me, S);
    int t = (me + 1) % np;
    char *tb = bases[t];
    double d = 1.0;
    int64_t o64;
    int32_t o32;

    /* Ranks. */
    CHECK(reach_put(buf, tb, 8, np) == REACH_ERR_RANK);
    CHECK(reach_put(buf, tb, 8, -1) == REACH_ERR_RANK);
    CHECK(reach_get(tb, buf, 8, np + 5) == REACH_ERR_RANK);
    CHECK(reach_fence(np) == REACH_ERR_RANK);
    CHECK(reach_wait_rank(-2) == REACH_ERR_RANK);
    /* Ranges: past the end, before the start, an address of another rank's
     * segment, a wild pointer, NULL, and a range that wraps around. */
    CHECK(reach_put(buf, tb + S - 4, 8, t) == REACH_ERR_RANGE);
    CHECK(reach_put(buf, tb - 1, 2, t) == REACH_ERR_RANGE);
    CHECK(reach_put(buf, buf, 8, t) == REACH_ERR_RANGE);
    CHECK(reach_put(buf, NULL, 8, t) == REACH_ERR_RANGE);
    CHECK(reach_put(buf, tb, SIZE_MAX, t) == REACH_ERR_RANGE);
    CHECK(reach_get(tb + S, buf, 1, t) == REACH_ERR_RANGE);
    CHECK(reach_acc(REACH_DOUBLE, &d, buf, tb + S - 8, 16, t) == REACH_ERR_RANGE);
    /* Local buffers. */
    CHECK(reach_put(NULL, tb, 8, t) == REACH_ERR_ARG);
    CHECK(reach_get(tb, NULL, 8, t) == REACH_ERR_ARG);
    /* Accumulate: type, scale, size, alignment. */
    CHECK(reach_acc((reach_type_t)99, &d, buf, tb, 8, t) == REACH_ERR_TYPE);
    CHECK(reach_acc((reach_type_t)-1, &d, buf, tb, 8, t) == REACH_ERR_TYPE);
    CHECK(reach_acc(REACH_DOUBLE, NULL, buf, tb, 8, t) == REACH_ERR_ARG);
    CHECK(reach_acc(REACH_DOUBLE, &d, buf, tb, 12, t) == REACH_ERR_ARG);
    CHECK(reach_acc(REACH_DOUBLE, &d, buf, tb + 4, 8, t) == REACH_ERR_ALIGN);
    CHECK(reach_acc(REACH_DCOMPLEX, &d, buf, tb, 8, t) == REACH_ERR_ARG);
    /* Atomics: alignment, range, output. */
    CHECK(reach_fetch_add_i64((int64_t *)(tb + 4), 1, &o64, t) == REACH_ERR_ALIGN);
    CHECK(reach_fetch_add_i32((int32_t *)(tb + 2), 1, &o32, t) == REACH_ERR_ALIGN);
    CHECK(reach_cas_i64((int64_t *)(tb + S), 0, 1, &o64, t) == REACH_ERR_RANGE);
    CHECK(reach_swap_i32((int32_t *)tb, 1, NULL, t) == REACH_ERR_ARG);
    CHECK(reach_fetch_add_i32((int32_t *)tb, 1, &o32, np) == REACH_ERR_RANK);
    /* Non-blocking: a NULL request, and a request never issued. */
    CHECK(reach_put_nb(buf, tb, 8, t, NULL) == REACH_ERR_HANDLE);
    reach_request_t junk;
    memset(&junk, 0x5a, sizeof junk);
    CHECK(reach_wait(&junk) == REACH_ERR_HANDLE);
    int done;
    CHECK(reach_test(&junk, &done) == REACH_ERR_HANDLE);
    CHECK(reach_wait(NULL) == REACH_ERR_HANDLE);
    /* A failed non-blocking call leaves the request as it was. */
    reach_request_t r;
    memset(&r, 0, sizeof r);
    CHECK(reach_put_nb(buf, tb + S, 8, t, &r) == REACH_ERR_RANGE);
    CHECK(r.magic == 0);
    check_untouched(bases, S);

    /* Strided: levels, counts, extents, alignment of accumulate strides. */
    reach_strided_t sh = {0};
    sh.levels = 1;
    sh.count[0] = 8;
    sh.count[1] = 4;
    sh.src_stride[0] = 16;
    sh.dst_stride[0] = 8;
    CHECK(reach_get_strided(tb, buf, &sh, t) == REACH_SUCCESS);   /* 56 remote bytes: fits */
    sh.src_stride[0] = 8;
    sh.dst_stride[0] = 100;                                       /* 308 > 256 */
    CHECK(reach_put_strided(buf, tb, &sh, t) == REACH_ERR_RANGE);
    sh.dst_stride[0] = 16;
    sh.levels = REACH_MAX_STRIDE_LEVELS + 1;
    CHECK(reach_put_strided(buf, tb, &sh, t) == REACH_ERR_ARG);
    sh.levels = -1;
    CHECK(reach_put_strided(buf, tb, &sh, t) == REACH_ERR_ARG);
    CHECK(reach_put_strided(buf, tb, NULL, t) == REACH_ERR_ARG);
    sh.levels = 1;
    size_t run = sh.count[0];
    sh.count[0] = 12;                                             /* not whole doubles */
    CHECK(reach_acc_strided(REACH_DOUBLE, &d, buf, tb, &sh, t) == REACH_ERR_ARG);
    sh.count[0] = run;
    sh.dst_stride[0] = SIZE_MAX / 2;                              /* overflows */
    CHECK(reach_put_strided(buf, tb, &sh, t) == REACH_ERR_ARG);
    sh.count[1] = 0;                                              /* nothing to move */
    CHECK(reach_put_strided(buf, NULL, &sh, t) == REACH_SUCCESS);
    CHECK(reach_put_strided_nb(buf, tb, &sh, t, NULL) == REACH_ERR_HANDLE);
    /* Vector: a bad pair in the last descriptor stops everything. */
    void *ls[2] = {buf, buf + 8}, *rs_ok[2] = {tb, tb + 8}, *rs_bad[2] = {tb + 16, tb + S};
    reach_vector_t v[2] = {{ls, rs_ok, 2, 8}, {ls, rs_bad, 2, 8}};
    CHECK(reach_put_vector(v, 2, t) == REACH_ERR_RANGE);
    reach_vector_t vnull = {NULL, rs_ok, 1, 8};
    CHECK(reach_put_vector(&vnull, 1, t) == REACH_ERR_ARG);
    CHECK(reach_put_vector(NULL, 1, t) == REACH_ERR_ARG);
    reach_vector_t vpart = {ls, rs_ok, 1, 12};                    /* not whole doubles */
    CHECK(reach_acc_vector(REACH_DOUBLE, &d, &vpart, 1, t) == REACH_ERR_ARG);
    CHECK(reach_get_vector(v, 2, np) == REACH_ERR_RANK);
    /* Notify and groups. */
    CHECK(reach_notify(np) == REACH_ERR_RANK);
    CHECK(reach_notify_wait(0, NULL) == REACH_ERR_ARG);
    CHECK(reach_barrier_group(NULL) == REACH_ERR_HANDLE);
    CHECK(reach_node_size(-1) < 0 && reach_node_rank(0, np) < 0);
    check_untouched(bases, S);

    /* Mutexes. */
    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(-1, &m) == REACH_ERR_ARG);
    CHECK(reach_mutexes_create(2, &m) == REACH_SUCCESS);
    CHECK(reach_mutex_lock(m, 2, t) == REACH_ERR_MUTEX);
    CHECK(reach_mutex_lock(m, -1, t) == REACH_ERR_MUTEX);
    CHECK(reach_mutex_lock(m, 0, np) == REACH_ERR_RANK);
    CHECK(reach_mutex_lock(NULL, 0, t) == REACH_ERR_HANDLE);
    CHECK(reach_mutex_unlock(m, 0, t) == REACH_ERR_MUTEX);   /* not held */
    CHECK(reach_mutex_lock(m, 1, me) == REACH_SUCCESS);
    CHECK(reach_mutex_lock(m, 1, me) == REACH_ERR_MUTEX);    /* held twice */
    int got = 1;
    CHECK(reach_mutex_trylock(m, 1, me, &got) == REACH_ERR_MUTEX);
    CHECK(reach_mutex_trylock(m, 0, me, NULL) == REACH_ERR_ARG);
    CHECK(reach_mutex_unlock(m, 1, me) == REACH_SUCCESS);
    reach_barrier();
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    CHECK(reach_mutex_lock(m, 0, t) == REACH_ERR_HANDLE);     /* destroyed set */

    /* Memory. */
    CHECK(reach_malloc((size_t)-8, bases) == REACH_ERR_ARG);   /* on every rank */
    CHECK(reach_malloc(8, NULL) == REACH_ERR_ARG);
    CHECK(reach_free(buf) == REACH_ERR_ARG);                   /* not a base */
    CHECK(reach_free((char *)bases[me] + 8) == REACH_ERR_ARG);
    CHECK(reach_free_local(buf) == REACH_ERR_ARG);
    CHECK(reach_free_local(bases[me]) == REACH_ERR_ARG);      /* collective block */
    void *l = reach_malloc_local(100);
    CHECK(l != NULL);
    CHECK(reach_free_local(l) == REACH_SUCCESS);
    CHECK(reach_free_local(l) == REACH_ERR_ARG);              /* twice */
    /* A freed local block stays committed for the next of its size, and
     * is given back when an allocation needs the room. */
    size_t mib = (size_t)1 << 20;
    char *big = reach_malloc_local(3 * mib);
    CHECK(big != NULL);
    memset(big, 1, 3 * mib);
    CHECK(reach_free_local(big) == REACH_SUCCESS);
    char *again = reach_malloc_local(3 * mib - 100);
    CHECK(again == big);
    CHECK(reach_free_local(again) == REACH_SUCCESS);
    CHECK(reach_free_local(again) == REACH_ERR_ARG);          /* cached: freed already */
    CHECK(reach_set_shm_limit(8 * mib) == REACH_SUCCESS);
    char *room = reach_malloc_local(6 * mib);                 /* only without the cached 3 MiB */
    CHECK(room != NULL);
    CHECK(room == NULL || reach_free_local(room) == REACH_SUCCESS);
    CHECK(reach_set_shm_limit(0) == REACH_SUCCESS);
    /* More freed blocks than the cache keeps: the oldest are given back. */
    void *many[24];
    for (int i = 0; i < 24; i++)
        CHECK((many[i] = reach_malloc_local((size_t)(i + 1) * 4096)) != NULL);
    for (int i = 0; i < 24; i++)
        CHECK(reach_free_local(many[i]) == REACH_SUCCESS);
    for (int i = 0; i < 24; i++) {
        CHECK((many[i] = reach_malloc_local((size_t)(i + 1) * 4096)) != NULL);
        if (many[i])
            memset(many[i], 2, (size_t)(i + 1) * 4096);
    }
    for (int i = 0; i < 24; i++)
        CHECK(reach_free_local(many[i]) == REACH_SUCCESS);
    reach_stats_t s;
    CHECK(reach_stats_get(NULL) == REACH_ERR_ARG);
    /* Marks: bad labels are refused; untraced, a good one does nothing. */
    char long_label[200];
    memset(long_label, 'x', sizeof long_label - 1);
    long_label[sizeof long_label - 1] = '\0';
    CHECK(reach_trace_mark(NULL) == REACH_ERR_ARG);
    CHECK(reach_trace_mark("") == REACH_ERR_ARG);
    CHECK(reach_trace_mark("two\nlines") == REACH_ERR_ARG);
    CHECK(reach_trace_mark(long_label) == REACH_ERR_ARG);
    CHECK(reach_trace_mark("begin phase") == REACH_SUCCESS);
    CHECK(reach_stats_get(&s) == REACH_SUCCESS);
    check_untouched(bases, S);

    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    free(bases);
    CHECK(reach_finalize() == REACH_SUCCESS);
    CHECK(reach_put(buf, buf, 8, 0) == REACH_ERR_NOT_INIT);
    int rc = check_exit("test_errors");
    MPI_Finalize();
    return rc;
}
