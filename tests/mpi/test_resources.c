/* Resources do not grow with use: 1000 collective allocations and frees
 * (of 64 B to 1 MiB, each used by a put to the next rank) leave every
 * process with the file descriptors and memory mappings it had before
 * them; each starts zeroed, a reused block too; a request beyond the
 * memory limit leaves the freed blocks kept; and holding more mutexes
 * at once than a process may is a clear error, not a crash or a hang. */
#include "reach.h"
#include "mpi_check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3;   /* ".", ".." and the directory's own descriptor */
}

/* The process's mappings but glibc's per-thread malloc arenas (an
 * anonymous 64 MiB reservation at a 64 MiB boundary, made by a thread's
 * first malloc): a thread of UCX's mallocs first whenever it first has
 * something to do, which is not growth with use. The mappings counted are
 * kept as text in maps, so that a failure can say which are new. */
static int count_maps(char *maps, size_t cap)
{
    const unsigned long arena = 64ul << 20;
    unsigned long start, end, base = 1, inode;
    char perms[8], line[512];
    int n = 0;
    size_t used = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    maps[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &start, &end, perms, &inode) != 4)
            continue;
        int anonymous = inode == 0 && strchr(line, '/') == NULL && strchr(line, '[') == NULL;
        if (anonymous && start % arena == 0 && perms[0] == 'r')
            base = start;
        else if (!(anonymous && base != 1 && end == base + arena && perms[0] == '-')) {
            n++;
            size_t len = strlen(line);
            if (used + len < cap) {
                memcpy(maps + used, line, len + 1);
                used += len;
            }
        }
    }
    fclose(f);
    return n;
}

/* Prints the lines of after that are not in before, as what ("new", "gone"). */
static void print_maps_not_in(int me, const char *what, const char *before, const char *after)
{
    char line[512];
    for (const char *p = after; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (len < sizeof line) {
            memcpy(line, p, len);
            line[len] = '\0';
            if (!strstr(before, line))
                fprintf(stderr, "rank %d: %s mapping: %s", me, what, line);
        }
        p += len;
    }
}

/* Every byte of a block reads zero. */
static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (p[k])
            return 0;
    return 1;
}

/* A collective allocation starts zeroed, also where it reuses the block
 * of one freed before (which the last cycle filled): its owner reads
 * zeros, and so does the next rank, with a get of its last word. */
static void cycle(int i, int me, int np, void **bases)
{
    size_t bytes = (size_t)64 << (i % 15);   /* 64 B .. 1 MiB */
    CHECK(reach_malloc(bytes, bases) == REACH_SUCCESS);
    CHECK(all_zero(bases[me], bytes));
    long v = i, last = -1;
    int t = (me + 1) % np;
    CHECK(reach_get((char *)bases[t] + bytes - sizeof last, &last, sizeof last, t) == REACH_SUCCESS);
    CHECK_EQ_LL(last, 0);
    reach_barrier();
    CHECK(reach_put(&v, bases[t], sizeof v, t) == REACH_SUCCESS);
    reach_barrier();
    CHECK_EQ_LL(*(long *)bases[me], i);
    memset(bases[me], 0xa5, bytes);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
}

/* Pages of [p, p + n) that are in memory. */
static size_t resident(void *p, size_t n)
{
    size_t page = 4096, pages = n / page, count = 0;
    unsigned char *in = malloc(pages);
    if (in && mincore(p, n, in) == 0)
        for (size_t k = 0; k < pages; k++)
            count += in[k] & 1;
    free(in);
    return count;
}

/* A freed collective block stays committed (its pages in memory) for the
 * next allocation of a like size, and is given back when an allocation
 * needs the room. */
static void reuse(int me, void **bases)
{
    size_t mib = (size_t)1 << 20;
    CHECK(reach_malloc(3 * mib, bases) == REACH_SUCCESS);
    void *first = bases[me];
    memset(first, 1, 3 * mib);
    CHECK(reach_free(first) == REACH_SUCCESS);
    CHECK_EQ_LL(resident(first, 3 * mib), 3 * mib / 4096);
    CHECK(reach_malloc(3 * mib - 100, bases) == REACH_SUCCESS); /* the block kept, zeroed */
    CHECK(bases[me] == first);
    CHECK(all_zero(bases[me], 3 * mib - 100));
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    /* Only once the kept blocks (these 3 MiB, and those of the cycles
     * before) are given back is there room under the limit. */
    CHECK(reach_set_shm_limit(8 * mib) == REACH_SUCCESS);
    CHECK(reach_malloc(6 * mib, bases) == REACH_SUCCESS);
    CHECK(reach_free(bases[me]) == REACH_SUCCESS);
    CHECK(reach_set_shm_limit(0) == REACH_SUCCESS);

    /* Arrays made and destroyed do not push a work buffer out: a freed
     * 40 MiB local block stays kept while three 16 MiB collective blocks
     * are freed after it (64 MiB are kept at most: the older collective
     * blocks go). */
    char *work = reach_malloc_local(40 * mib);
    CHECK(work != NULL);
    if (!work)
        return;
    memset(work, 1, 40 * mib);
    CHECK(reach_free_local(work) == REACH_SUCCESS);
    void *arrays[3];
    for (int k = 0; k < 3; k++) {
        CHECK(reach_malloc(16 * mib, bases) == REACH_SUCCESS);
        arrays[k] = bases[me];
        memset(arrays[k], 2, 16 * mib);
    }
    for (int k = 0; k < 3; k++)
        CHECK(reach_free(arrays[k]) == REACH_SUCCESS);
    CHECK_EQ_LL(resident(work, 40 * mib), 40 * mib / 4096);
    char *again = reach_malloc_local(40 * mib);
    CHECK(again == work);
    CHECK(again == NULL || reach_free_local(again) == REACH_SUCCESS);

    /* A request beyond the limit is refused and leaves the kept blocks
     * alone: Global Arrays' GA_Dgemm asks for its whole memory limit first,
     * then for less (86 times in NWChem's h2o test). */
    CHECK(reach_set_shm_limit(48 * mib) == REACH_SUCCESS);
    CHECK(reach_malloc_local(48 * mib + 96) == NULL);
    CHECK(reach_malloc_local(48 * mib + 96) == NULL);
    CHECK_EQ_LL(resident(work, 40 * mib), 40 * mib / 4096);
    /* A block within the limit gives back only the oldest kept blocks
     * that it needs the room of: the work buffer, the newest, stays. */
    char *more = reach_malloc_local(7 * mib);
    CHECK(more != NULL);
    CHECK_EQ_LL(resident(work, 40 * mib), 40 * mib / 4096);
    CHECK(more == NULL || reach_free_local(more) == REACH_SUCCESS);
    again = reach_malloc_local(40 * mib);
    CHECK(again == work);
    CHECK(again == NULL || reach_free_local(again) == REACH_SUCCESS);
    CHECK(reach_set_shm_limit(0) == REACH_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    int me = reach_rank(), np = reach_size();
    void **bases = malloc(sizeof(void *) * (size_t)np);
    for (int i = 0; i < 20; i++)   /* whatever is made once, on first use */
        cycle(i, me, np, bases);
    enum { MAPS_TEXT = 1 << 20 };
    char *maps_text = malloc(MAPS_TEXT), *maps_text_after = malloc(MAPS_TEXT);
    CHECK(maps_text && maps_text_after);
    int fds = count_fds(), maps = count_maps(maps_text, MAPS_TEXT);
    for (int i = 0; i < 1000; i++)
        cycle(i, me, np, bases);
    int fds_after = count_fds(), maps_after = count_maps(maps_text_after, MAPS_TEXT);
    if (me == 0)
        printf("rank 0: %d descriptors and %d mappings before 1000 allocations, %d and %d after\n", fds,
               maps, fds_after, maps_after);
    CHECK_EQ_LL(fds_after, fds);
    CHECK_EQ_LL(maps_after, maps);
    if (maps_after != maps) {
        print_maps_not_in(me, "new", maps_text, maps_text_after);
        print_maps_not_in(me, "gone", maps_text_after, maps_text);
    }
    free(maps_text);
    free(maps_text_after);
    reuse(me, bases);

    /* 64 mutexes held at once is the most; the 65th lock is refused. */
    reach_mutexes_t *m;
    CHECK(reach_mutexes_create(65, &m) == REACH_SUCCESS);
    for (int id = 0; id < 64; id++)
        CHECK(reach_mutex_lock(m, id, me) == REACH_SUCCESS);
    CHECK(reach_mutex_lock(m, 64, me) == REACH_ERR_MUTEX);
    for (int id = 0; id < 64; id++)
        CHECK(reach_mutex_unlock(m, id, me) == REACH_SUCCESS);
    CHECK(reach_mutex_lock(m, 64, me) == REACH_SUCCESS);
    CHECK(reach_mutex_unlock(m, 64, me) == REACH_SUCCESS);
    reach_barrier();
    CHECK(reach_mutexes_destroy(m) == REACH_SUCCESS);
    free(bases);
    reach_finalize();
    int rc = check_exit("test_resources");
    MPI_Finalize();
    return rc;
}
