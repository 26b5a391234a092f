/* An ARMCI call that fails names itself in its message, whether the check
 * is the ARMCI layer's or reach's ("ARMCI_Put: rank 2 is out of range"),
 * and the message names the rank only where it is known: none before
 * MPI_Init, the MPI_COMM_WORLD rank before ARMCI_Init and after
 * ARMCI_Finalize, reach's in between. With the argument "abort", rank 1
 * calls ARMCI_Error before ARMCI_Init: the job ends with a message naming
 * world rank 1. Runs at 2 processes (the messages name rank 2). */
#include "mpi_check.h"
#include "armci.h"
#include "armcix.h"
#include "message.h"
#include "reach.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What every message must start with at this point of the run. */
static char prefix[64] = "reach: ";

static FILE *capture;
static int saved_stderr;

/* Sends stderr to a temporary file until captured(). */
static void capture_start(void)
{
    fflush(stderr);
    capture = tmpfile();
    saved_stderr = dup(2);
    dup2(fileno(capture), 2);
}

/* Restores stderr and returns what was written to it meanwhile. */
static const char *captured(void)
{
    static char text[4096];
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(capture);
    size_t n = fread(text, 1, sizeof text - 1, capture);
    text[n] = '\0';
    fclose(capture);
    return text;
}

/* out must be one line: prefix, then text, then anything. */
static void check_message(const char *out, const char *text, const char *expr, int line)
{
    size_t len = strlen(prefix);
    const char *end = strchr(out, '\n');
    if (strncmp(out, prefix, len) == 0 && strncmp(out + len, text, strlen(text)) == 0 && end &&
        end[1] == '\0')
        return;
    check_failures++;
    fprintf(stderr, "CHECK FAILED %s:%d: %s printed \"%s\", not one line \"%s%s...\"\n",
            __FILE__, line, expr, out, prefix, text);
}

/* Evaluates expr with stderr captured: its value must be want, and what it
 * printed one line naming the call (text). */
#define EXPECT(expr, want, text)                                                      \
    do {                                                                              \
        capture_start();                                                              \
        long long got_ = (long long)(expr);                                           \
        const char *out_ = captured();                                                \
        CHECK_EQ_LL(got_, want);                                                      \
        check_message(out_, text, #expr, __LINE__);                                   \
    } while (0)

int main(int argc, char **argv)
{
    char buf[64] = {0};
    EXPECT(ARMCI_Put(buf, buf, 8, 0), REACH_ERR_NOT_INIT, "ARMCI_Put: reach is not initialized");

    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_EQ_LL(np, 2);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        if (me == 1)
            ARMCI_Error("before ARMCI_Init", 3);
        MPI_Barrier(MPI_COMM_WORLD);   /* until the abort ends the job */
        return 1;
    }
    snprintf(prefix, sizeof prefix, "reach: world rank %d: ", me);
    EXPECT(ARMCI_Get(buf, buf, 8, 0), REACH_ERR_NOT_INIT, "ARMCI_Get: reach is not initialized");
    void **p = malloc(sizeof(void *) * (size_t)np);
    EXPECT(ARMCI_Malloc(p, 8), REACH_ERR_NOT_INIT, "ARMCI_Malloc: ARMCI is not initialized");

    CHECK(ARMCI_Init() == 0);
    snprintf(prefix, sizeof prefix, "reach: rank %d: ", me);
    const int S = 256;
    CHECK(ARMCI_Malloc(p, S) == 0);
    int t = (me + 1) % np;
    char *tb = p[t];
    double two = 2.0;
    int flag = 0;

    /* Contiguous. */
    EXPECT(ARMCI_Put(buf, tb, 8, np), REACH_ERR_RANK, "ARMCI_Put: rank 2 is out of range");
    EXPECT(ARMCI_Get(tb + S, buf, 8, t), REACH_ERR_RANGE, "ARMCI_Get: remote range");
    EXPECT(ARMCI_Put(buf, tb, -1, t), REACH_ERR_ARG, "ARMCI_Put: size -1 is negative");
    EXPECT(ARMCI_NbGet(tb, NULL, 8, t, NULL), REACH_ERR_ARG, "ARMCI_NbGet: ");
    EXPECT(ARMCI_PutValueInt(1, tb, np), REACH_ERR_RANK, "ARMCI_PutValueInt: rank 2");
    EXPECT(ARMCI_NbPutValueLong(1, tb + S, t, NULL), REACH_ERR_RANGE, "ARMCI_NbPutValueLong: ");
    /* An entry point that calls another is named, not the other. */
    EXPECT(ARMCI_Put_flag(buf, tb, 8, &flag, 1, np), REACH_ERR_RANK, "ARMCI_Put_flag: rank 2");

    /* Accumulate. */
    EXPECT(ARMCI_Acc(ARMCI_ACC_DBL, &two, buf, tb + 4, 8, t), REACH_ERR_ALIGN, "ARMCI_Acc: ");
    EXPECT(ARMCI_Acc(12345, &two, buf, tb, 8, t), REACH_ERR_TYPE,
           "ARMCI_Acc: 12345 is not an ARMCI_ACC_* operation");
    EXPECT(ARMCI_NbAcc(ARMCI_ACC_DBL, &two, buf, tb, 8, np, NULL), REACH_ERR_RANK,
           "ARMCI_NbAcc: rank 2");

    /* Strided. */
    int count[2] = {8, 2}, stride[1] = {16};
    EXPECT(ARMCI_PutS(buf, stride, tb, stride, count, 1, np), REACH_ERR_RANK, "ARMCI_PutS: rank 2");
    EXPECT(ARMCI_GetS(tb, stride, buf, stride, count, 9, t), REACH_ERR_ARG,
           "ARMCI_GetS: 9 stride levels");
    EXPECT(ARMCI_AccS(ARMCI_ACC_DBL, &two, buf, stride, tb + S - 16, stride, count, 1, t),
           REACH_ERR_RANGE, "ARMCI_AccS: remote range");
    EXPECT(ARMCI_PutS_flag(buf, stride, tb, stride, count, 1, &flag, 1, np), REACH_ERR_RANK,
           "ARMCI_PutS_flag: rank 2");

    /* Vector. */
    void *src[2] = {buf, buf + 8}, *dst[2] = {tb, tb + S};
    armci_giov_t v = {.src_ptr_array = src, .dst_ptr_array = dst, .bytes = 8, .ptr_array_len = 2};
    EXPECT(ARMCI_PutV(&v, 1, t), REACH_ERR_RANGE, "ARMCI_PutV: remote range");
    EXPECT(ARMCI_GetV(&v, 1, np), REACH_ERR_RANK, "ARMCI_GetV: rank 2");
    EXPECT(ARMCI_AccV(99, &two, &v, 1, t), REACH_ERR_TYPE, "ARMCI_AccV: 99 is not");

    /* Atomics. */
    int old = 0;
    long old_long = 0;
    EXPECT(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, tb + 2, 1, t), REACH_ERR_ALIGN, "ARMCI_Rmw: ");
    EXPECT(ARMCI_Rmw(ARMCI_SWAP_LONG, &old_long, tb, 0, np), REACH_ERR_RANK, "ARMCI_Rmw: rank 2");
    EXPECT(ARMCI_Rmw(999, &old, tb, 1, t), REACH_ERR_TYPE, "ARMCI_Rmw: 999 is not");

    /* Mutexes. */
    EXPECT(ARMCI_Destroy_mutexes(), REACH_ERR_HANDLE, "ARMCI_Destroy_mutexes: ");
    EXPECT(ARMCI_Create_mutexes(-1), REACH_ERR_ARG, "ARMCI_Create_mutexes: count -1 is negative");
    CHECK(ARMCI_Create_mutexes(1) == 0);
    EXPECT(ARMCI_Create_mutexes(1), REACH_ERR_MUTEX, "ARMCI_Create_mutexes: mutexes already exist");
    CHECK(ARMCI_Destroy_mutexes() == 0);
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    EXPECT(ARMCIX_Create_mutexes_hdl(-1, &world) == NULL, 1, "ARMCIX_Create_mutexes_hdl: ");
    EXPECT(ARMCIX_Destroy_mutexes_hdl(NULL), REACH_ERR_HANDLE,
           "ARMCIX_Destroy_mutexes_hdl: the handle is NULL");

    /* Memory. */
    EXPECT(ARMCI_Malloc_local(-5) == NULL, 1, "ARMCI_Malloc_local: size -5 is negative");
    EXPECT(ARMCI_Free_local(buf), REACH_ERR_ARG, "ARMCI_Free_local: ");
    EXPECT(ARMCI_Free(buf), REACH_ERR_ARG, "ARMCI_Free: ");
    EXPECT(ARMCI_Free_memdev(buf) != 0, 1, "ARMCI_Free_memdev: ");

    /* Groups. */
    int members[2] = {0, 1}, rank;
    ARMCI_Group bad = {.comm = MPI_COMM_WORLD, .grp_to_abs = members, .rank = 0, .size = 2};
    EXPECT(ARMCI_Group_rank(&bad, &rank), REACH_ERR_HANDLE,
           "ARMCI_Group_rank: the handle (size 2, rank 0) is not a group of this process");
    EXPECT(ARMCI_Malloc_group(p, 8, &bad), REACH_ERR_HANDLE,
           "ARMCI_Malloc_group: the handle (size 2, rank 0)");
    EXPECT(ARMCI_Absolute_id(&world, np), -1, "ARMCI_Absolute_id: rank 2 is out of range");
    EXPECT(armci_domain_nprocs(ARMCI_DOMAIN_SMP, 99), REACH_ERR_ARG,
           "armci_domain_nprocs: node 99 does not exist");

    /* Completion and notification. */
    EXPECT(ARMCI_WaitProc(np), REACH_ERR_RANK, "ARMCI_WaitProc: rank 2");
    EXPECT(armci_notify(np), REACH_ERR_RANK, "armci_notify: rank 2");

    /* Outside ARMCI calls, reach names its own. */
    EXPECT(reach_put(buf, tb, 8, np), REACH_ERR_RANK, "reach_put: rank 2 is out of range");

    ARMCI_Barrier();
    CHECK(ARMCI_Free(p[me]) == 0);
    ARMCI_Finalize();
    snprintf(prefix, sizeof prefix, "reach: world rank %d: ", me);
    EXPECT(ARMCI_Put(buf, buf, 8, 0), REACH_ERR_NOT_INIT, "ARMCI_Put: reach is not initialized");
    free(p);
    int status = check_exit("test_armci_errors");
    MPI_Finalize();
    return status;
}
