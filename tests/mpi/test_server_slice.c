/* The server thread asks the kernel for REACH_SERVER_SLICE's slice and
 * keeps the process's nice value; the application thread keeps the
 * kernel's default. Read from /proc/self/task/TID/sched (se.slice, in ns)
 * and stat (nice, field 19). The process starts at nice 3, so a server
 * that set nice 0 would show. REACH_SERVER_SLICE=0 leaves every thread
 * at the kernel's default. Kernels before 6.12 take no slice of a
 * thread's choosing: the test is skipped (77) there. */
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

/* The nice value of thread tid (stat's field 19; the name may hold spaces). */
static int thread_nice(const char *tid)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 19; field++)
        p = strchr(p + 1, ' ');
    return p ? atoi(p + 1) : -100;
}

int main(int argc, char **argv)
{
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) == 0)
        sscanf(u.release, "%d.%d", &major, &minor);
    CHECK(setpriority(PRIO_PROCESS, 0, 3) == 0);
    MPI_Init(&argc, &argv);
    CHECK(reach_init(&argc, &argv) == REACH_SUCCESS);
    reach_barrier(); /* the server thread runs by now */
    int skip = major < 6 || (major == 6 && minor < 12);
    const char *e = getenv("REACH_SERVER_SLICE");
    /* REACH_SERVER_SLICE=0: no thread at the default's 100 us. */
    long long want = 1000LL * (e ? atoll(e) : 100), seek = want ? want : 100000, mine = -1;
    int at_want = 0, threads = 0, nice_other = 0;
    char self[32];
    snprintf(self, sizeof self, "%d", getpid());
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    for (struct dirent *t; !skip && d && (t = readdir(d));) {
        if (t->d_name[0] == '.')
            continue;
        long long s = thread_slice(t->d_name);
        if (strcmp(t->d_name, self) == 0) {
            mine = s;
            continue;
        }
        threads++;
        if (s == seek) {
            at_want++;
            nice_other += thread_nice(t->d_name) != 3;
        }
    }
    if (d)
        closedir(d);
    if (!skip) {
        CHECK(mine > 0 && mine != seek); /* the application thread: the kernel's */
        CHECK(threads >= 1);
        CHECK(want == 0 ? at_want == 0 : at_want == 1); /* the server, alone */
        CHECK(nice_other == 0);
        if (check_failures)
            fprintf(stderr, "rank %d: main thread %lld ns, %d other threads, %d at %lld ns\n", reach_rank(), mine,
                    threads, at_want, want);
    }
    reach_finalize();
    int st = check_exit("test_server_slice");
    MPI_Finalize();
    return st == 0 && skip ? 77 : st;
}
