#include "transport/shm/shm.h"
#include "base/heap.h"
#include "boot/boot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct {
    int fd; /* this process's memfd; kept for commit and release */
    char *base;
    size_t size;
    heap_t heap;
} arena = {.fd = -1};

/* Freed blocks stay committed for the next allocation of a like size:
 * committing adds every page to the file (the kernel zeroes it at its
 * first touch), and a hole punched must be committed again and faulted in
 * again by every process that touches it, while programs take and free
 * work buffers all the time (Global Arrays a 24 MiB one in every
 * GA_Dgemm, which took 40 times as long without this) and create and
 * destroy arrays in their loops (a 1 MiB NGA_Create and GA_Destroy cost
 * 620 us, 8 KiB 75). Up to SHM_CACHE_BLOCKS blocks of SHM_CACHE_BYTES in
 * all, of either kind. To make room the oldest of the kind going in goes
 * first (so that arrays made and destroyed do not push out a work buffer
 * reused between them), else the oldest. All are given back when an
 * allocation finds no room, and when a collective allocation finds the
 * node short without them; the oldest, until a block fits, when the
 * process's shared-memory limit would count them. A reused local block
 * holds what its last user left, as malloc's do; a reused collective
 * block is zeroed, as a fresh one is. */
#define SHM_CACHE_BLOCKS 16
#define SHM_CACHE_BYTES ((size_t)64 << 20)
static struct {
    struct {
        size_t off;
        int kind; /* what it was freed as */
    } entry[SHM_CACHE_BLOCKS];
    int count;
    size_t bytes;
} cache;
static int local_refusal_reported; /* this process's first, since reach_init */

/* Returns the heap range at off to the heap and its pages to the system. */
static void shm_release(size_t off)
{
    size_t len = heap_free(&arena.heap, off);
    /* Every mapping of the arena sees the hole. Where there can be none,
     * the bytes are zeroed: a collective block starts zeroed. */
    if (fallocate(arena.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) != 0)
        memset(arena.base + off, 0, len);
}

/* Takes entry i out of the cache (its bytes from the total); its offset. */
static size_t shm_cache_remove(int i)
{
    size_t off = cache.entry[i].off;
    cache.bytes -= heap_block_len(&arena.heap, off, SHM_BLOCK_CACHED);
    memmove(cache.entry + i, cache.entry + i + 1, sizeof cache.entry[0] * (size_t)(cache.count - i - 1));
    cache.count--;
    return off;
}

/* A cached block of at least len bytes and at most twice that, made a
 * block of this kind at *ptr; 0 if there is none. */
static int shm_cache_take(size_t len, int kind, void **ptr)
{
    size_t want = (len + HEAP_PAGE - 1) & ~(HEAP_PAGE - 1), best_len = SIZE_MAX;
    int best = -1;
    for (int i = 0; i < cache.count; i++) {
        size_t l = heap_block_len(&arena.heap, cache.entry[i].off, SHM_BLOCK_CACHED);
        if (l >= want && l / 2 <= want && l < best_len)
            best = i, best_len = l;
    }
    if (best < 0)
        return 0;
    size_t off = shm_cache_remove(best);
    heap_retag(&arena.heap, off, SHM_BLOCK_CACHED, kind);
    *ptr = arena.base + off;
    if (kind == SHM_BLOCK_COLLECTIVE)
        memset(*ptr, 0, len);
    return 1;
}

/* Keeps the block of this kind at off (len bytes) committed in the cache,
 * giving cached blocks back to make room; 0 if it is larger than the
 * cache. */
static int shm_cache_put(size_t off, size_t len, int kind)
{
    if (len > SHM_CACHE_BYTES)
        return 0;
    while (cache.count == SHM_CACHE_BLOCKS || cache.bytes + len > SHM_CACHE_BYTES) {
        int victim = 0;
        while (victim < cache.count && cache.entry[victim].kind != kind)
            victim++;
        shm_release(shm_cache_remove(victim < cache.count ? victim : 0));
    }
    heap_retag(&arena.heap, off, kind, SHM_BLOCK_CACHED);
    cache.entry[cache.count].off = off;
    cache.entry[cache.count++].kind = kind;
    cache.bytes += len;
    return 1;
}

size_t shm_cache_bytes(void)
{
    return cache.bytes;
}

int shm_cache_flush(void)
{
    int had = cache.count > 0;
    while (cache.count > 0)
        shm_release(shm_cache_remove(cache.count - 1));
    return had;
}

static size_t shm_default_arena_size(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t phys = (pages > 0 && page > 0) ? (size_t)pages * (size_t)page : ((size_t)16 << 30);
    size_t gib = (size_t)1 << 30;
    return (phys + gib - 1) / gib * gib;
}

int shm_init(void)
{
    const char *call = "reach_init";
    arena.size = rt.cfg.arena_size ? rt.cfg.arena_size : shm_default_arena_size();
    arena.size = (arena.size + HEAP_PAGE - 1) & ~(HEAP_PAGE - 1);
    /* A rank that fails still takes part in the exchange below, which
     * carries its status: its node's other ranks would wait there. */
    int st = REACH_SUCCESS;
    if (arena.size <= ARENA_HEAP_OFF)
        st = rt_error(REACH_ERR_ARG, call, "REACH_ARENA_SIZE=%zu is below the minimum of %zu bytes", arena.size,
                      (size_t)ARENA_HEAP_OFF + HEAP_PAGE);
    else if ((arena.fd = memfd_create("reach-arena", MFD_CLOEXEC)) < 0) {
        st = rt_error(REACH_ERR_SYSTEM, call, "memfd_create: %s", strerror(errno));
    } else if (ftruncate(arena.fd, (off_t)arena.size) != 0) {
        st = rt_error(REACH_ERR_SYSTEM, call, "ftruncate of the arena to %zu bytes: %s", arena.size, strerror(errno));
    } else {
        /* The header (locks, queue nodes, barrier) must never fault. */
        if (fallocate(arena.fd, 0, 0, (off_t)ARENA_HEAP_OFF) != 0)
            st = rt_error(REACH_ERR_NOMEM, call, "cannot commit the %zu-byte arena header: %s", (size_t)ARENA_HEAP_OFF,
                          strerror(errno));
        void *p = mmap(NULL, arena.size, PROT_READ | PROT_WRITE, MAP_SHARED, arena.fd, 0);
        if (p == MAP_FAILED)
            st = rt_error(REACH_ERR_SYSTEM, call, "mmap of a %zu-byte arena: %s", arena.size, strerror(errno));
        else
            arena.base = p;
    }
    if (st == REACH_SUCCESS && heap_init(&arena.heap, ARENA_HEAP_OFF, arena.size - ARENA_HEAP_OFF) != 0)
        st = rt_error(REACH_ERR_NOMEM, call, "out of private memory");

    /* Exchange (pid, fd, base) within the node; peers open the memfd through
     * /proc, so the memory has no name anywhere in the file system. */
    int64_t mine[4] = {st, getpid(), arena.fd, (int64_t)(uintptr_t)arena.base};
    int64_t *all = malloc(sizeof(int64_t) * 4 * (size_t)rt.node_size);
    if (!all)
        rt_oom("reach_init", sizeof(int64_t) * 4 * (size_t)rt.node_size);
    boot_allgather(rt.node_comm, mine, sizeof mine, all);
    for (int i = 0; i < rt.node_size; i++)
        if (all[4 * i] != REACH_SUCCESS && st == REACH_SUCCESS)
            st = REACH_ERR_SYSTEM;
    for (int i = 0; st == REACH_SUCCESS && i < rt.node_size; i++) {
        peer_t *p = &rt.peers[rt.node_peers[i]];
        p->rbase = (uintptr_t)all[4 * i + 3];
        if (i == rt.node_rank) {
            p->map = arena.base;
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%" PRId64 "/fd/%" PRId64, all[4 * i + 1], all[4 * i + 2]);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            st = rt_error(REACH_ERR_SYSTEM, call, "cannot open the arena of rank %d (%s): %s", rt.node_peers[i], path,
                          strerror(errno));
            break;
        }
        void *m = mmap(NULL, arena.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (m == MAP_FAILED) {
            st =
                rt_error(REACH_ERR_SYSTEM, call, "mmap of the arena of rank %d: %s", rt.node_peers[i], strerror(errno));
            break;
        }
        p->map = m;
    }
    free(all);
    /* Nobody may close its memfd before every peer has opened it. */
    if (!boot_all_agree(rt.node_comm, st == REACH_SUCCESS)) {
        shm_finalize();
        return st != REACH_SUCCESS ? st : REACH_ERR_SYSTEM;
    }
    return REACH_SUCCESS;
}

void shm_finalize(void)
{
    for (int i = 0; rt.peers && i < rt.node_size; i++) {
        peer_t *p = &rt.peers[rt.node_peers[i]];
        if (p->map && p->map != arena.base)
            munmap(p->map, arena.size);
        p->map = NULL;
    }
    if (arena.base)
        munmap(arena.base, arena.size);
    if (arena.fd >= 0)
        close(arena.fd);
    heap_destroy(&arena.heap);
    cache.count = 0;
    cache.bytes = 0;
    local_refusal_reported = 0;
    arena.base = NULL;
    arena.fd = -1;
}

/* min(MemAvailable, room left under the cgroup's memory limit). */
size_t shm_available(void)
{
    size_t avail = SIZE_MAX;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
                avail = (size_t)kb << 10;
        fclose(f);
    }
    unsigned long long max = 0, cur = 0;
    f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        int have_max = fscanf(f, "%llu", &max) == 1;
        fclose(f);
        f = fopen("/sys/fs/cgroup/memory.current", "r");
        if (f) {
            if (have_max && fscanf(f, "%llu", &cur) == 1)
                avail = cur < max ? (max - cur < avail ? (size_t)(max - cur) : avail) : 0;
            fclose(f);
        }
    }
    return avail;
}

size_t shm_arena_size(void)
{
    return arena.size;
}

void *shm_arena_base(void)
{
    return arena.base;
}

/* What REACH_SHM_LIMIT (limit) leaves of this process's arena, counting
 * the blocks kept in the cache (cached nonzero) or not. */
static size_t shm_left(size_t limit, int cached)
{
    size_t held = arena.heap.in_use - (cached ? 0 : cache.bytes);
    return limit > held ? limit - held : 0;
}

int shm_alloc(const char *call, size_t len, int kind, void **ptr)
{
    if (shm_cache_take(len, kind, ptr))
        return REACH_SUCCESS;
    size_t off;
    size_t limit = rt.cfg.shm_limit;
    char a[32], b[32], c[32];
    /* The limit is on what the program holds. A request beyond it leaves
     * the cache alone: Global Arrays' GA_Dgemm asks for its whole limit
     * first and takes less when refused, and a cache emptied by each such
     * refusal made it commit its 24 MiB buffer anew in every call (86
     * times in NWChem's h2o test). The cached blocks count only against
     * what is committed: the oldest go back until the block fits. */
    if (limit && len > shm_left(limit, 0)) {
        /* A process reports its first local refusal only: Global Arrays
         * asks again, smaller, whenever it is refused. */
        if (kind == SHM_BLOCK_LOCAL && local_refusal_reported)
            return REACH_ERR_NOMEM;
        if (kind == SHM_BLOCK_LOCAL)
            local_refusal_reported = 1;
        return rt_error(REACH_ERR_NOMEM, call,
                        "asked %s of shared memory, the limit of %s (REACH_SHM_LIMIT, or set by the program) "
                        "leaves %s available%s",
                        rt_size_str(a, sizeof a, len), rt_size_str(b, sizeof b, limit),
                        rt_size_str(c, sizeof c, shm_left(limit, 0)),
                        kind == SHM_BLOCK_LOCAL ? " (this process's later refusals are not reported)" : "");
    }
    while (limit && cache.count > 0 && len > shm_left(limit, 1))
        shm_release(shm_cache_remove(0));
    if (heap_alloc(&arena.heap, len, kind, &off) != 0 &&
        !(shm_cache_flush() && heap_alloc(&arena.heap, len, kind, &off) == 0))
        return rt_error(REACH_ERR_NOMEM, call,
                        "asked %s, the arena has no free range that large "
                        "(%s of %s in use; raise REACH_ARENA_SIZE)",
                        rt_size_str(a, sizeof a, len), rt_size_str(b, sizeof b, arena.heap.in_use),
                        rt_size_str(c, sizeof c, arena.size - ARENA_HEAP_OFF));
    size_t blk = heap_block_len(&arena.heap, off, kind);
    /* Commit now: a shortage is an error here, not a SIGBUS at first touch. */
    if (fallocate(arena.fd, 0, (off_t)off, (off_t)blk) != 0 &&
        !(shm_cache_flush() && fallocate(arena.fd, 0, (off_t)off, (off_t)blk) == 0)) {
        int e = errno;
        shm_release(off);
        return rt_error(REACH_ERR_NOMEM, call, "asked %s of shared memory, %s available: %s",
                        rt_size_str(a, sizeof a, len), rt_size_str(b, sizeof b, shm_available()), strerror(e));
    }
    *ptr = arena.base + off;
    return REACH_SUCCESS;
}

int shm_free(void *ptr, int kind)
{
    const char *p = ptr;
    if (p < arena.base + ARENA_HEAP_OFF || p >= arena.base + arena.size)
        return REACH_ERR_ARG;
    size_t off = (size_t)(p - arena.base);
    size_t len = heap_block_len(&arena.heap, off, kind);
    if (len == 0)
        return REACH_ERR_ARG;
    if (!shm_cache_put(off, len, kind))
        shm_release(off);
    return REACH_SUCCESS;
}

void shm_node_barrier(void)
{
    arena_barrier_t *b = (arena_barrier_t *)(void *)(rt.peers[rt.node_peers[0]].map + ARENA_BARRIER_OFF);
    /* Read the generation before arriving: the last arrival bumps it. */
    uint32_t gen = atom_load_acquire(&b->generation.value);
    int tracing = __builtin_expect(trace_on, 0); /* before the arrival: see waitword_add_traced */
    if (atom_fetch_add_acq_rel(&b->arrived, 1) == (uint32_t)rt.node_size - 1) {
        atom_store_relaxed(&b->arrived, 0);
        waitword_add_traced(&b->generation, 1, tracing);
    } else {
        waitword_wait_change(&b->generation, gen);
    }
}
