/* Message traces: see trace.h. Each recording thread fills blocks of its
 * own, listed once under a mutex when made; reach_finalize, with the
 * server thread stopped, merges them in time order into the file. */
#include "base/trace.h"
#include "base/state.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRACE_BLOCK 65536           /* events per block */
#define TRACE_MAX_EVENTS (1u << 21) /* per thread: 64 MiB of events */
#define TRACE_MARKS 256

int trace_on;

typedef struct trace_block {
    struct trace_block *next;
    unsigned n;
    trace_event_t ev[TRACE_BLOCK];
} trace_block_t;

static struct {
    pthread_mutex_t lock;
    trace_block_t *blocks, **tail; /* every block, in the order they were made */
    unsigned gen;                  /* this trace's number, from 1 */
    _Atomic unsigned dropped;      /* events beyond a thread's TRACE_MAX_EVENTS */
    _Atomic uint32_t seq;
    FILE *out;
    char path[CONFIG_STRING_MAX + 32];
    size_t arena;
    const void **maps; /* by rank: where its arena is mapped here, NULL if not */
    char *marks[TRACE_MARKS];
    int nmarks;
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* This thread's block and the events it recorded, valid while mine_gen is
 * this trace's number (the blocks of an earlier trace are freed). */
static _Thread_local trace_block_t *mine;
static _Thread_local unsigned mine_gen, mine_events;

static trace_block_t *trace_block_new(void)
{
    trace_block_t *b = malloc(sizeof *b);
    if (!b)
        rt_oom("REACH_TRACE", sizeof *b);
    b->n = 0;
    b->next = NULL;
    pthread_mutex_lock(&tr.lock);
    *tr.tail = b;
    tr.tail = &b->next;
    pthread_mutex_unlock(&tr.lock);
    return b;
}

static uint64_t trace_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t trace_clock(void)
{
    return trace_ns(CLOCK_MONOTONIC);
}

void trace_record(int type, int chan, int peer, uint32_t seq, uint32_t bytes, uint64_t ref)
{
    trace_record_at(trace_clock(), type, chan, peer, seq, bytes, ref);
}

void trace_record_at(uint64_t t, int type, int chan, int peer, uint32_t seq, uint32_t bytes, uint64_t ref)
{
    if (mine_gen != tr.gen) {
        mine = trace_block_new();
        mine_gen = tr.gen;
        mine_events = 0;
    }
    if (mine_events == TRACE_MAX_EVENTS) {
        atomic_fetch_add_explicit(&tr.dropped, 1, memory_order_relaxed);
        return;
    }
    if (mine->n == TRACE_BLOCK)
        mine = trace_block_new();
    mine_events++;
    mine->ev[mine->n++] = (trace_event_t){.t = t,
                                          .type = (uint8_t)type,
                                          .thread = (uint8_t)(rt_on_server != 0),
                                          .chan = (uint8_t)chan,
                                          .peer = peer,
                                          .seq = seq,
                                          .bytes = bytes,
                                          .ref = ref};
}

uint32_t trace_next_seq(void)
{
    return atomic_fetch_add_explicit(&tr.seq, 1, memory_order_relaxed) + 1;
}

int trace_mark(const char *label)
{
    if (!trace_on)
        return REACH_SUCCESS;
    int i = 0;
    while (i < tr.nmarks && strcmp(tr.marks[i], label) != 0)
        i++;
    if (i == tr.nmarks) {
        if (i == TRACE_MARKS)
            return rt_error(REACH_ERR_ARG, "reach_trace_mark", "a trace has at most %d labels", TRACE_MARKS);
        if (!(tr.marks[i] = strdup(label)))
            rt_oom("reach_trace_mark", strlen(label) + 1);
        tr.nmarks++;
    }
    /* With the thread's processor time: a computation's own cost. */
    trace_record(TRACE_MARK, 0, -1, 0, (uint32_t)i, trace_ns(CLOCK_THREAD_CPUTIME_ID));
    return REACH_SUCCESS;
}

int trace_start(size_t arena)
{
    if (!rt.cfg.trace[0])
        return REACH_SUCCESS;
    snprintf(tr.path, sizeof tr.path, "%s/rank-%05d.trace", rt.cfg.trace, rt.rank);
    if (mkdir(rt.cfg.trace, 0777) != 0 && errno != EEXIST)
        return rt_error(REACH_ERR_ARG, "reach_init", "REACH_TRACE: cannot make the directory %s: %s", rt.cfg.trace,
                        strerror(errno));
    if (!(tr.out = fopen(tr.path, "wb")))
        return rt_error(REACH_ERR_ARG, "reach_init", "REACH_TRACE: cannot write %s: %s", tr.path, strerror(errno));
    if (!(tr.maps = calloc((size_t)rt.size, sizeof *tr.maps)))
        rt_oom("REACH_TRACE", sizeof *tr.maps * (size_t)rt.size);
    tr.tail = &tr.blocks;
    tr.gen++;
    tr.arena = arena;
    atomic_store(&tr.dropped, 0);
    atomic_store(&tr.seq, 0);
    trace_on = 1;
    return REACH_SUCCESS;
}

void trace_map(int rank, const void *base)
{
    if (trace_on)
        tr.maps[rank] = base;
}

/* Sorts ev[0..n) by time, stably (a thread's events of one time stay in
 * the order it recorded them), with tmp of n events. */
static void trace_sort(trace_event_t *ev, trace_event_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    trace_sort(ev, tmp, h);
    trace_sort(ev + h, tmp, n - h);
    while (i < h && j < n)
        tmp[k++] = ev[j].t < ev[i].t ? ev[j++] : ev[i++];
    while (i < h)
        tmp[k++] = ev[i++];
    memcpy(ev, tmp, sizeof *ev * k);
}

static void trace_free_state(void)
{
    while (tr.blocks) {
        trace_block_t *b = tr.blocks;
        tr.blocks = b->next;
        free(b);
    }
    for (int i = 0; i < tr.nmarks; i++)
        free(tr.marks[i]);
    tr.nmarks = 0;
    free(tr.maps);
    tr.maps = NULL;
    trace_on = 0;
}

void trace_abandon(void)
{
    if (!trace_on)
        return;
    fclose(tr.out);
    unlink(tr.path);
    tr.out = NULL;
    trace_free_state();
}

void trace_stop(void)
{
    if (!trace_on)
        return;
    trace_on = 0;
    size_t n = 0, k = 0;
    for (trace_block_t *b = tr.blocks; b; b = b->next)
        n += b->n;
    trace_event_t *all = malloc(sizeof *all * (n ? 2 * n : 1));
    if (!all)
        rt_oom("REACH_TRACE", sizeof *all * 2 * n);
    /* Each thread's blocks come in the order it filled them. */
    for (trace_block_t *b = tr.blocks; b; b = b->next) {
        memcpy(all + k, b->ev, sizeof *all * b->n);
        k += b->n;
    }
    trace_sort(all, all + n, n);
    FILE *f = tr.out;
    fprintf(f, "reach-trace 1\nrank %d size %d node %d nodes %d node_size %d\n", rt.rank, rt.size, rt.node,
            rt.node_count, rt.node_size);
    /* Where this process sees each arena of its node, so that a word's
     * address names its owner and offset. */
    for (int r = 0; r < rt.size; r++)
        if (tr.maps[r])
            fprintf(f, "map %d %#jx %zu\n", r, (uintmax_t)(uintptr_t)tr.maps[r], tr.arena);
    for (int i = 0; i < tr.nmarks; i++)
        fprintf(f, "mark %d %s\n", i, tr.marks[i]);
    fprintf(f, "dropped %u\nevents %zu\n", atomic_load(&tr.dropped), n);
    int bad = fwrite(all, sizeof *all, n, f) != n || ferror(f);
    if (fclose(f) != 0 || bad)
        rt_error(REACH_ERR_SYSTEM, "reach_finalize", "REACH_TRACE: %s was not written whole: %s", tr.path,
                 strerror(errno));
    tr.out = NULL;
    free(all);
    trace_free_state();
}
