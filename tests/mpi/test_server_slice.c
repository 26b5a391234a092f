/* The server thread asks the kernel for REACH_SERVER_SLICE's slice and
 * keeps the process's nice value; the application thread keeps the
 * kernel's default. Read from /proc/self/task/TID/sched (se.slice, in ns)
 * and getpriority of each thread id (Linux keeps nice per thread). The
 * process starts 3 above its nice value, so a server that set its own
 * would show. REACH_SERVER_SLICE=0 leaves every thread at the kernel's
 * default. Kernels that take no slice of a thread's choosing (before
 * 6.12) or do not show it (se.slice) skip the test (77); every rank
 * decides alike, as hydra ORs the exit statuses. */
#include "mpi_check.h"
#include "reach.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

/* se.slice of thread tid in ns, or -1. */
static long long thread_slice(const char *tid)
{
    char path[300], line[256];
    long long v = -1;
    snprintf(path, sizeof path, "/proc/self/task/%s/sched", tid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "se.slice", 8) == 0)
            v = atoll(strchr(line, ':') + 1);
    if (f)
        fclose(f);
    return v;
}

/* The threads other than the main one with slice seek, their nice values
 * other than nice, and the main thread's slice. */
static int count_at(long long seek, int nice, int *nice_other, long long *mine)
{
    char self[32];
    int at = 0;
    *nice_other = 0;
    snprintf(self, sizeof self, "%d", getpid());
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *t; d && (t = readdir(d));) {
        if (t->d_name[0] == '.')
            continue;
        long long s = thread_slice(t->d_name);
        if (strcmp(t->d_name, self) == 0) {
            *mine = s;
        } else if (s == seek) {
            at++;
            *nice_other += getpriority(PRIO_PROCESS, (id_t)atoi(t->d_name)) != nice;
        }
    }
    if (d)
        closedir(d);
    return at;
}

int main(int argc, char **argv)
{
    int nice = getpriority(PRIO_PROCESS, 0) + 3;
    nice = nice > 19 ? 19 : nice;
    CHECK(setpriority(PRIO_PROCESS, 0, nice) == 0);
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    const char *e = getenv("REACH_SERVER_SLICE");
    /* REACH_SERVER_SLICE=0: no thread at the default's 100 us. */
    long long want = 1000LL * (e ? atoll(e) : 100), seek = want ? want : 100000, mine = -1;
    if (want == 0)
        sleep_ms(200); /* time for a server that should not set it to do so */
    int nice_other = 0, at = count_at(seek, nice, &nice_other, &mine);
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) == 0)
        sscanf(u.release, "%d.%d", &major, &minor);
    int skip = major < 6 || (major == 6 && minor < 12) || mine < 0;
    MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* The server thread sets its slice once it runs: wait up to 2 s. */
    for (int i = 0; !skip && want && at == 0 && i < 200; i++) {
        sleep_ms(10);
        at = count_at(seek, nice, &nice_other, &mine);
    }
    if (!skip) {
        CHECK(mine > 0 && mine != seek); /* the application thread: the kernel's */
        CHECK(want == 0 ? at == 0 : at == 1); /* the server, alone */
        CHECK(nice_other == 0);
        if (check_failures)
            fprintf(stderr, "rank %d: main thread %lld ns, %d other threads at %lld ns, %d of another nice\n",
                    reach_rank(), mine, at, seek, nice_other);
    }
    reach_finalize();
    int st = check_exit("test_server_slice");
    MPI_Finalize();
    return st == 0 && skip ? 77 : st;
}
