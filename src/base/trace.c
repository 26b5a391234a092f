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

#define TRACE_BLOCK 65536                /* events per block */
#define TRACE_MAX_EVENTS (1u << 22)      /* per process: 128 MiB of events */
#define TRACE_MARKS 256

int trace_on;

typedef struct trace_block {
    struct trace_block *next;   /* the list of every block of this trace */
    unsigned gen, n;
    trace_event_t ev[TRACE_BLOCK];
} trace_block_t;

static struct {
    pthread_mutex_t lock;
    trace_block_t *blocks;
    unsigned gen;               /* this trace's number: blocks of an earlier one are gone */
    _Atomic unsigned events;    /* recorded, up to TRACE_MAX_EVENTS */
    _Atomic unsigned dropped;   /* beyond it */
    _Atomic uint32_t seq;
    FILE *out;
    size_t arena;
    const void **maps;          /* by rank: where its arena is mapped here, NULL if not */
    char *marks[TRACE_MARKS];
    int nmarks;
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local trace_block_t *mine;

static trace_block_t *trace_block_new(void)
{
    trace_block_t *b = malloc(sizeof *b);
    if (!b)
        rt_oom("REACH_TRACE", sizeof *b);
    b->n = 0;
    pthread_mutex_lock(&tr.lock);
    b->gen = tr.gen;
    b->next = tr.blocks;
    tr.blocks = b;
    pthread_mutex_unlock(&tr.lock);
    return b;
}

void trace_record(int type, int chan, int peer, uint32_t seq, uint32_t bytes, uint64_t ref)
{
    if (atomic_fetch_add_explicit(&tr.events, 1, memory_order_relaxed) >= TRACE_MAX_EVENTS) {
        atomic_fetch_add_explicit(&tr.dropped, 1, memory_order_relaxed);
        return;
    }
    if (!mine || mine->gen != tr.gen || mine->n == TRACE_BLOCK)
        mine = trace_block_new();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    mine->ev[mine->n++] = (trace_event_t){
        .t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
        .type = (uint8_t)type, .thread = (uint8_t)(rt_on_server != 0), .chan = (uint8_t)chan,
        .peer = peer, .seq = seq, .bytes = bytes, .ref = ref};
}

uint32_t trace_next_seq(void)
{
    return atomic_fetch_add_explicit(&tr.seq, 1, memory_order_relaxed) + 1;
}

void trace_mark(const char *label)
{
    if (!trace_on)
        return;
    int i = 0;
    while (i < tr.nmarks && strcmp(tr.marks[i], label) != 0)
        i++;
    if (i == tr.nmarks) {
        if (i == TRACE_MARKS)
            return;   /* the labels are a program's few phases */
        if (!(tr.marks[i] = strdup(label)))
            rt_oom("reach_trace_mark", strlen(label) + 1);
        tr.nmarks++;
    }
    struct timespec cpu;   /* the thread's processor time: a computation's own cost */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    trace_record(TRACE_MARK, 0, -1, 0, (uint32_t)i, (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec);
}

int trace_start(size_t arena)
{
    if (!rt.cfg.trace[0])
        return REACH_SUCCESS;
    char path[CONFIG_STRING_MAX + 32];
    snprintf(path, sizeof path, "%s/rank-%05d.trace", rt.cfg.trace, rt.rank);
    if (mkdir(rt.cfg.trace, 0777) != 0 && errno != EEXIST)
        return rt_error(REACH_ERR_ARG, "reach_init", "REACH_TRACE: cannot make the directory %s: %s",
                        rt.cfg.trace, strerror(errno));
    if (!(tr.out = fopen(path, "wb")))
        return rt_error(REACH_ERR_ARG, "reach_init", "REACH_TRACE: cannot write %s: %s", path,
                        strerror(errno));
    if (!(tr.maps = calloc((size_t)rt.size, sizeof *tr.maps)))
        rt_oom("REACH_TRACE", sizeof *tr.maps * (size_t)rt.size);
    tr.gen++;
    tr.arena = arena;
    atomic_store(&tr.events, 0);
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

static int trace_cmp(const void *a, const void *b)
{
    const trace_event_t *x = a, *y = b;
    return x->t != y->t ? (x->t < y->t ? -1 : 1) : (int)x->thread - (int)y->thread;
}

void trace_stop(void)
{
    if (!trace_on)
        return;
    trace_on = 0;
    size_t n = 0, k = 0;
    for (trace_block_t *b = tr.blocks; b; b = b->next)
        n += b->n;
    trace_event_t *all = malloc(sizeof *all * (n ? n : 1));
    if (!all)
        rt_oom("REACH_TRACE", sizeof *all * n);
    while (tr.blocks) {
        trace_block_t *b = tr.blocks;
        tr.blocks = b->next;
        memcpy(all + k, b->ev, sizeof *all * b->n);
        k += b->n;
        free(b);
    }
    mine = NULL;
    qsort(all, n, sizeof *all, trace_cmp);
    FILE *f = tr.out;
    fprintf(f, "reach-trace 1\nrank %d size %d node %d nodes %d node_size %d\n", rt.rank, rt.size,
            rt.node, rt.node_count, rt.node_size);
    /* Where this process sees each arena of its node, so that a word's
     * address names its owner and offset. */
    for (int r = 0; r < rt.size; r++)
        if (tr.maps[r])
            fprintf(f, "map %d %#jx %zu\n", r, (uintmax_t)(uintptr_t)tr.maps[r], tr.arena);
    free(tr.maps);
    tr.maps = NULL;
    for (int i = 0; i < tr.nmarks; i++) {
        fprintf(f, "mark %d %s\n", i, tr.marks[i]);
        free(tr.marks[i]);
    }
    tr.nmarks = 0;
    fprintf(f, "dropped %u\nevents %zu\n", atomic_load(&tr.dropped), n);
    if (fwrite(all, sizeof *all, n, f) != n || fclose(f) != 0)
        rt_error(REACH_ERR_SYSTEM, "reach_finalize", "REACH_TRACE: the trace of rank %d was not written: %s",
                 rt.rank, strerror(errno));
    tr.out = NULL;
    free(all);
}
