/* reach-bench: latency and bandwidth of reach's one-sided operations beside
 * MPI-3 RMA doing the same work, measured in the same run.
 *
 * Rank 0 is the origin, rank 1 the target; every other rank sleeps in a
 * reach barrier so that it takes no core. Each figure is the median of
 * several samples, each sample a batch of operations timed together (about
 * 2 ms). Figures are printed as tables and written with every sample to a
 * JSON file. */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* The experiments, in the order they run; --only names a subset. The
 * figure names a paper by its short name (docs/references.md). Each
 * writes <out>/<name>-np<processes>.json: what it is, the machine and
 * environment, the machine's load before and after, and every sample of
 * every point (series, implementation, x). The plot says how reach-report
 * draws it. */
static const struct experiment experiments[] = {
    {"networks", NULL, "The network backends over TCP: 8 B and 64 KiB operations", "", "bytes", "bars"},
    {"transfer", bench_transfers, "Contiguous put, get and accumulate against MPI-3 RMA", "", "bytes", "loglog"},
    {"strided", bench_strided, "Strided against contiguous transfers of the same total", "Nieplocha02", "run bytes",
     "strided"},
    {"nb_overlap", bench_nb_overlap, "Non-blocking get and put: computation while the transfer is in flight", "",
     "computation, % of the transfer", "overlap"},
    {"sync", bench_sync, "Fetch-and-add, lock+unlock and barrier against MPI-3", "", "", "bars"},
    {"ga_sync", bench_ga_sync, "GA_Sync: writes to every rank, then fence + barrier", "Buntinas03, Fig. 7", "", "bars"},
    {"locks", bench_locks, "P processes lock and unlock one lock on rank 0", "Buntinas03, Figs. 8-10", "processes",
     "lines"},
    {"win_latency", bench_win_latency, "Window epoch: lock + one put or get + unlock", "Santhanaraman08, Fig. 3",
     "bytes", "loglog"},
    {"win_overlap", bench_win_overlap, "Sender-side overlap: computation inside the epoch",
     "Santhanaraman08, Figs. 4-5", "computation, % of the epoch", "overlap"},
    {"win_receiver", bench_win_receiver, "Receiver-side overlap: the target computes while origins work",
     "Santhanaraman08, Fig. 6", "bytes", "receiver"},
    {"lu", bench_lu, "Blocked LU over a window, blocks by lock/get/unlock", "Santhanaraman08, Figs. 7-8", "processes",
     "stacked"},
};
enum { NEXPERIMENTS = sizeof experiments / sizeof experiments[0] };
static int selected[NEXPERIMENTS];

/* Selects the experiments a comma-separated list names (all if NULL); 0,
 * or -1 after naming one that does not exist. */
static int select_experiments(const char *list)
{
    for (int e = 0; e < NEXPERIMENTS; e++)
        selected[e] = list == NULL;
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        size_t len = strcspn(p, ",");
        int e = 0;
        while (e < NEXPERIMENTS && !(strlen(experiments[e].name) == len && strncmp(p, experiments[e].name, len) == 0))
            e++;
        if (e == NEXPERIMENTS) {
            fprintf(stderr, "reach-bench: --only: no experiment named '%.*s'\n", (int)len, p);
            return -1;
        }
        selected[e] = 1;
    }
    return 0;
}

static void usage(void)
{
    printf("usage: mpiexec -n N reach-bench [--quick] [--max-size BYTES] [--out DIR] [--only NAMES]\n"
           "       reach-bench --compare OLD_DIR NEW_DIR\n"
           "  N >= 2: rank 0 works on rank 1's memory, the others sleep.\n"
           "  --quick     7 samples per figure instead of 15, a few minutes in all\n"
           "  --max-size  largest transfer (default 1 MiB)\n"
           "  --out       the results folder: a JSON file per experiment and process\n"
           "              count, report.md and its plots (default reach-results); runs\n"
           "              at several process counts into one folder make one report\n"
           "  --only      a comma-separated subset of:");
    for (int e = 0; e < NEXPERIMENTS; e++)
        printf(" %s", experiments[e].name);
    printf("\n  --compare   every figure two results folders share, NEW against OLD: their ratio\n"
           "              and whether NEW is better (times lower, counts higher)\n");
}

/* Finds reach-report.py: beside this program (in the build tree), or where
 * the install puts it relative to this program's folder
 * (REACH_REPORT_FROM_BIN, e.g. ../share/reach/reach-report.py). 0, or -1
 * after saying where it looked. */
static int find_report(char *path, size_t len)
{
    char bin[4096];
    ssize_t n = readlink("/proc/self/exe", bin, sizeof bin - 1);
    if (n <= 0) {
        fprintf(stderr, "reach-bench: cannot find reach-report.py: /proc/self/exe: %s\n", strerror(errno));
        return -1;
    }
    bin[n] = '\0';
    *strrchr(bin, '/') = '\0';
    static const char *const where[] = {"reach-report.py", REACH_REPORT_FROM_BIN};
    for (int k = 0; k < 2; k++) {
        snprintf(path, len, "%s/%s", bin, where[k]);
        if (access(path, R_OK) == 0)
            return 0;
    }
    fprintf(stderr, "reach-bench: cannot find reach-report.py: looked for %s/%s and %s/%s\n", bin, where[0], bin,
            where[1]);
    return -1;
}

/* Runs reach-report (the report and its plots, or a comparison) with
 * Debian's python3 and matplotlib; its status. */
static int run_report(const char *a, const char *b, const char *c)
{
    char script[4096 + 64];
    if (find_report(script, sizeof script) != 0)
        return 1;
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    pid_t pid = fork();
    if (pid == 0) {
        execlp(python, python, script, a, b, c, (char *)NULL);
        perror(python);
        _exit(127);
    }
    int status = 1;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    const char *out = "reach-results", *only = NULL;
    B.samples = 15;
    B.max_size = 1 << 20;
    if (argc == 4 && strcmp(argv[1], "--compare") == 0)
        return run_report("--compare", argv[2], argv[3]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            B.samples = 7;
        else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc)
            B.max_size = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (select_experiments(only) != 0) {
        usage();
        return 2;
    }
    if (B.max_size < 8 || B.max_size > (1u << 30)) {
        fprintf(stderr, "reach-bench: --max-size must be between 8 and 1 GiB\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    /* networks (experiments[0]) starts and stops reach itself, first. */
    int total = 0, done = 0;
    for (int e = 0; e < NEXPERIMENTS; e++)
        total += selected[e];
    B.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    B.machines = count_machines(); /* (MPI's: the networks experiment below records it) */
    if (selected[0]) {
        MPI_Comm_rank(MPI_COMM_WORLD, &B.me);
        MPI_Comm_size(MPI_COMM_WORLD, &B.np);
        /* Rank 0's results folder decides for all (the set-up below says
         * why it cannot be made). */
        int ok = B.me != 0 || mkdir(out, 0777) == 0 || errno == EEXIST;
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (B.np >= 2 && ok) {
            double t0 = now();
            if (B.me == 0)
                progress("reach-bench: [%d/%d] %s ...\n", ++done, total, experiments[0].name);
            bench_networks(&experiments[0], out);
            if (B.me == 0)
                progress("reach-bench: [%d/%d] %s done in %.0f s\n", done, total, experiments[0].name, now() - t0);
        }
    }
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    B.me = reach_rank();
    B.np = reach_size();
    if (B.np < 2) {
        if (B.me == 0)
            fprintf(stderr, "reach-bench: run on at least 2 processes (mpiexec -n 2 reach-bench)\n");
        reach_finalize();
        MPI_Finalize();
        return 2;
    }

    /* reach: rank 1's segment and a mutex it hosts. */
    /* Room for the strided table's gaps: 8-byte runs at a stride of 80. */
    size_t seg = 10 * B.max_size + 4096;
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    if (reach_malloc(seg, bases) != REACH_SUCCESS || reach_mutexes_create(1, &B.mutexes) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: set-up failed");
    memset(bases[B.me], 0, seg);
    B.seg_target = bases[1];
    B.src = malloc(seg);
    B.dst = malloc(seg);
    B.acc_src = malloc(seg);
    B.acc_dst = malloc(seg);
    for (size_t i = 0; i < seg / 8; i++) {
        B.acc_src[i] = 1e-9;
        B.acc_dst[i] = 0;
    }
    memset(B.src, 1, seg);
    memset(B.dst, 0, seg);

    /* MPI-3: a window on ranks 0 and 1 (size rounded to 16 bytes: MPICH
     * 4.0.2 misaddresses windows of other sizes). */
    MPI_Comm_split(MPI_COMM_WORLD, B.me < 2 ? 0 : MPI_UNDEFINED, B.me, &B.pair);
    void *wbase = NULL;
    if (B.me < 2) {
        MPI_Win_allocate((MPI_Aint)((seg + 15) & ~(size_t)15), 1, MPI_INFO_NULL, B.pair, &wbase, &B.win);
        memset(wbase, 0, seg);
        MPI_Barrier(B.pair);
        /* MPI_MODE_NOCHECK: MPICH's lock_all otherwise waits for every
         * target's grant, which a target gives only inside MPI; a target
         * gone on into reach_barrier would never give it. */
        MPI_Win_lock_all(MPI_MODE_NOCHECK, B.win);
    }
    if (B.me == 0) {
        if (mkdir(out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "reach-bench: cannot make the results folder %s: %s\n", out, strerror(errno));
            reach_abort(2, "reach-bench: no results folder");
        }
        printf("reach-bench: %d processes on %d node(s) of %d machine(s), %d cores; origin rank 0, target rank 1 "
               "(%s)\n",
               B.np, reach_node_count(), B.machines, B.cores, target_place());
        printf("reach put and acc include reach_fence; MPI-3 ops include MPI_Win_flush\n");
        describe_run();
    }
    reach_barrier();

    for (int e = 1; e < NEXPERIMENTS; e++) {
        if (!selected[e])
            continue;
        double t0 = now();
        if (B.me == 0)
            progress("reach-bench: [%d/%d] %s ...\n", ++done, total, experiments[e].name);
        experiment_begin(&experiments[e], out);
        experiments[e].run();
        experiment_end();
        if (B.me == 0) {
            struct load load = load_now();
            char note[64] = "";
            if (load.avg[0] >= 0)
                snprintf(note, sizeof note, "; load average %.2f on %d cores", load.avg[0], B.cores);
            progress("reach-bench: [%d/%d] %s done in %.0f s%s\n", done, total, experiments[e].name, now() - t0, note);
        }
    }
    mpi_end_lock_all();

    if (B.me < 2) {
        MPI_Win_free(&B.win);
        MPI_Comm_free(&B.pair);
    }
    reach_mutexes_destroy(B.mutexes);
    reach_free(bases[B.me]);
    reach_finalize();
    MPI_Finalize();
    free(bases);
    if (B.me != 0)
        return 0;
    printf("\nevery sample: %s/*.json\n", out);
    fflush(stdout);
    int st = run_report(out, NULL, NULL);
    if (st != 0)
        fprintf(stderr,
                "reach-bench: the report was not made (status %d); the samples are in %s/*.json, "
                "from which reach-report.py %s makes it\n",
                st, out, out);
    return st;
}
