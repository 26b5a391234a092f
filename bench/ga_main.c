/* ga-bench: the operations that dominate Global Arrays applications, timed
 * through GA's C API over whichever ARMCI library the program is linked
 * with (reach's libarmci or ARMCI-MPI), so that two builds of the same
 * sources (this file, ga_harness.c, ga_ops.c, ga_create.c and stats.c)
 * can be run and compared side by side.
 *
 * What it measures; each figure is the median of several samples, a sample
 * being a batch of operations timed together that lasts about 5 ms (1 ms
 * with --quick), after a warm-up; 31 samples (7 with --quick):
 *   get, put, acc   NGA_Get, NGA_Put, NGA_Acc (alpha 1) of a contiguous patch
 *                   of doubles, 8 B to 1 MiB, by rank 0 on a patch that lies
 *                   wholly on rank 1 (on rank 0 itself when it runs alone):
 *                   µs per operation. A batch of puts or accs ends with
 *                   GA_Fence, so their remote completion is in the time.
 *   read_inc        NGA_Read_inc of one counter on rank 0 by every process
 *                   at once: µs per increment; a sample is the median over
 *                   the processes of each one's mean.
 *   lock            GA_Lock + GA_Unlock by rank 0 of a mutex on the last
 *                   process, bare (x = 0) and around NGA_Get, add one,
 *                   NGA_Put of one double on the target (x = 8), then the
 *                   latter by every process at once (x = 8 x processes):
 *                   µs per section; with every process, the median over
 *                   them of each one's mean.
 *   sync            GA_Sync alone (x = 0), and every process putting x
 *                   bytes to every process, then GA_Sync: µs per GA_Sync,
 *                   or per round of puts and GA_Sync. The puts are timed
 *                   with it: ARMCI-MPI completes each put at its target
 *                   before NGA_Put returns, reach in the GA_Sync, so the
 *                   GA_Sync alone would charge reach with what ARMCI-MPI
 *                   pays in the puts.
 *   dgop            GA_Dgop (armci_msg_dgop) of x doubles, "+", by every
 *                   process at once: µs per call.
 *   create          NGA_Create then GA_Destroy of an array of x bytes on
 *                   each process, by every process at once: µs per pair.
 *   create_zero     the same with GA_Zero of the array between them, as a
 *                   program writes what it makes: µs per create, zero and
 *                   destroy.
 *   scatter_acc     NGA_Scatter_acc of x elements at random places in the
 *                   whole array, by rank 0: µs per call.
 *   dgemm           GA_Dgemm of x-by-x distributed matrices, by all: ms.
 *   memory after    each process's resident memory (VmRSS), in MB, right
 *   start-up,       after GA_Initialize and at the end of the run, x the
 *   memory after    processes: a sample per process (the largest 31 where
 *   traffic         there are more), not a timed batch. Both builds run
 *                   the same program, so what differs is the ARMCI below.
 *   threads_get,    with --threads N only (then these and memory): ARMCI_Get
 *   threads_acc     or ARMCI_Acc of 8 B by x = 1, 2, 4 ... N threads of
 *                   rank 0 at once, each to its own double of rank 1's
 *                   ARMCI_Malloc block: µs per operation of all the
 *                   threads together (the accs' batch ends with
 *                   ARMCI_Fence). MPI then runs at MPI_THREAD_MULTIPLE, and
 *                   GA_Initialize is called as usual; the results are named
 *                   IMPL-threads. ARMCI's calls, not GA's: Debian's Global
 *                   Arrays is built without its thread safety
 *                   (--enable-thread-safety), and its own handle table
 *                   races under NGA_Get from several threads.
 * Processes that take no part in a figure wait in GA_Sync, as those of a GA
 * program would (ARMCI-MPI needs them to make MPI progress there). The
 * result of every operation is checked once after it has been timed; a
 * wrong result stops the run with an error and a non-zero exit status.
 *
 * Debian's MPICH 4.0.2 misaddresses the MPI_Win_allocate windows that
 * ARMCI-MPI makes GA's arrays of when a process's part is not a multiple of
 * 16 bytes: the process's own view of its part (NGA_Access, GA_Zero) then
 * lies 8 bytes from the others' one-sided view of it. GA asks ARMCI for one
 * element more than a process's part, so each process holds an odd number
 * of doubles of the data array and one long of the counter array.
 * (GA_Dgemm's matrices cannot be sized so, but it reaches them one-sidedly
 * only; its product is checked like everything else.)
 *
 * The build makes build/ga-bench (Debian's libga-mpich.a with reach's
 * libarmci) and build/ga-bench-armci-mpi (with Debian's ARMCI-MPI,
 * libarmci-mpich.a); GA_BENCH_IMPL names the ARMCI of each. Run both:
 *   mpiexec -n 2 build/ga-bench [--out DIR] [--quick] [--impl NAME]
 *   mpiexec -n 2 build/ga-bench-armci-mpi [--out DIR] [--quick]
 * and with --network, the same through the network path: reach with every
 * process its own node (its network backend: UCX where the build has it,
 * else libfabric; REACH_NETWORK), ARMCI-MPI with MPICH's network module
 * between its processes (MPIR_CVAR_NOLOCAL), results named IMPL-net.
 * Rank 0 prints a table and writes every sample to DIR/ga-np<N>-<impl,
 * lowercased, other than letters and digits as '-'>.json (reach-bench's
 * format), which reach-report puts in one section of DIR's report. */
#define _POSIX_C_SOURCE 200809L

#include "ga_harness.h"

#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* OpenBLAS's, when the BLAS linked in is OpenBLAS. */
extern void openblas_set_num_threads(int threads) __attribute__((weak));

/* The ARMCI this build links, as the results name it ("" for none known). */
#ifndef GA_BENCH_IMPL
#define GA_BENCH_IMPL ""
#endif

/* ---- options ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ga-bench [--impl NAME] [--out DIR] [--quick] [--network] [--threads N]\n"
            "  --impl NAME  the ARMCI library linked in, as the results name it (%s)\n"
            "  --out DIR    where to write ga-np<N>-<impl>.json (default reach-results)\n"
            "  --quick      7 samples and transfers up to 64 KiB (under 20 s)\n"
            "  --network    every process its own node: all traffic through the network\n"
            "               (REACH_NODE_SIZE=1, MPIR_CVAR_NOLOCAL=1); NAME gets \"-net\"\n"
            "  --threads N  only ARMCI_Get and ARMCI_Acc from 1, 2, 4 ... N threads at once, under\n"
            "               MPI_THREAD_MULTIPLE; NAME gets \"-threads\"\n"
            "  --help       this message\n",
            GA_BENCH_IMPL[0] ? "default " GA_BENCH_IMPL : "required");
}

int main(int argc, char **argv)
{
    const char *impl = GA_BENCH_IMPL[0] ? GA_BENCH_IMPL : NULL, *out = "reach-results";
    const char *bad = NULL; /* the first argument not understood */
    int quick = 0, network = 0, threads = 0;
    /* The network path is chosen before MPI starts: MPICH reads its
     * variables at MPI_Init, reach at ARMCI_Init. Both are set whichever
     * ARMCI is linked, so that MPI takes the same path in both builds. */
    for (int i = 1; i < argc; i++) {
        network |= strcmp(argv[i], "--network") == 0;
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[i + 1]);
    }
    if (network && (setenv("REACH_NODE_SIZE", "1", 1) != 0 || setenv("MPIR_CVAR_NOLOCAL", "1", 1) != 0)) {
        perror("ga-bench: setenv");
        return 2;
    }
    int provided = MPI_THREAD_SINGLE;
    if (threads > 0)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &B.me);
    MPI_Comm_size(MPI_COMM_WORLD, &B.np);
    B.machines = count_machines();
    B.network = network;
    for (int i = 1; i < argc && !bad; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            if (B.me == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--network") == 0) {
            continue; /* taken before MPI_Init */
        } else if (strcmp(argv[i], "--threads") == 0 && threads >= 1 && threads <= MAX_THREADS) {
            i++; /* taken before MPI_Init */
        } else if (strcmp(argv[i], "--impl") == 0 && i + 1 < argc && argv[i + 1][0]) {
            impl = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc && argv[i + 1][0]) {
            out = argv[++i];
        } else {
            bad = argv[i];
        }
    }
    if (threads > 0 && provided != MPI_THREAD_MULTIPLE)
        bad = "--threads (MPI does not provide MPI_THREAD_MULTIPLE)";
    if (bad || !impl) {
        if (B.me == 0) {
            if (bad)
                fprintf(stderr, "ga-bench: bad option or missing value: %s\n", bad);
            else
                fprintf(stderr, "ga-bench: --impl NAME is required\n");
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    double start = now();
    struct load load_before = load_now();
    B.samples = quick ? 7 : MAX_SAMPLES;
    B.batch = quick ? 1e-3 : 5e-3;
    B.max_bytes = quick ? 65536 : CHUNK_BYTES;
    B.target = B.np > 1 ? 1 : 0;

    char named[256], path[4096], slug[256];
    snprintf(named, sizeof named, "%s%s%s", impl, network ? "-net" : "", threads ? "-threads" : "");
    impl = named;
    size_t k = 0;
    for (; impl[k] && k < sizeof slug - 1; k++)
        slug[k] = isalnum((unsigned char)impl[k]) ? (char)tolower((unsigned char)impl[k]) : '-';
    slug[k] = '\0';
    snprintf(path, sizeof path, "%s/ga-np%d-%s.json", out, B.np, slug);
    if (B.me == 0 && (make_dir(out) != 0 || access(out, W_OK) != 0))
        fail("cannot write in %s: %s", out, strerror(errno));

    /* The processes are GA_Dgemm's parallelism: BLAS threads would only
     * compete with them for the cores. */
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    GA_Initialize();
    double started_mb = resident_mb();
    /* GA takes the local scratch space of some operations from MA. */
    if (!MA_init(C_DBL, 1 << 20, 1 << 20))
        fail("MA_init failed");
    int dims = B.np * CHUNK, block = B.np, map[B.np];
    for (int p = 0; p < B.np; p++)
        map[p] = p * CHUNK;
    B.g_data = NGA_Create_irreg(C_DBL, 1, &dims, "data", &block, map);
    B.src = malloc(CHUNK * sizeof(double));
    B.buf = malloc(CHUNK * sizeof(double));
    if (!B.g_data || !B.src || !B.buf)
        fail("cannot create the data array");
    for (int i = 0; i < CHUNK; i++)
        B.src[i] = pattern(B.me, i);

    if (B.me == 0) {
        char host[256] = "unknown";
        gethostname(host, sizeof host);
        host[sizeof host - 1] = '\0';
        printf("ga-bench: %s, %d processes on %s (%ld cores); %d samples of about %.0f ms per figure\n\n", impl, B.np,
               host, sysconf(_SC_NPROCESSORS_ONLN), B.samples, B.batch * 1e3);
        printf("%-12s %10s %12s %-5s %s\n", "operation", "size", "median", "unit", "[q1 - q3]");
        fflush(stdout);
    }
    record_memory("memory after start-up", started_mb);
    if (threads) {
        bench_threads(threads);
    } else {
        bench_transfers();
        bench_read_inc();
        bench_lock();
        bench_sync();
        bench_dgop();
        bench_create();
        bench_scatter_acc();
        bench_dgemm();
    }

    record_memory("memory after traffic", resident_mb());
    GA_Destroy(B.g_data);
    if (B.me == 0) {
        struct load load_after = load_now();
        FILE *json = fopen(path, "w");
        if (!json)
            fail("cannot write %s: %s", path, strerror(errno));
        write_json(json, impl, load_before, load_after);
        if (ferror(json) | fclose(json))
            fail("cannot write %s", path);
        printf("\nwrote %s in %.1f s\n", path, now() - start);
    }
    free(B.src);
    free(B.buf);
    GA_Terminate();
    MPI_Finalize();
    return 0;
}
