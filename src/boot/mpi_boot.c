#include "boot/boot_mpi.h"

#include "base/wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* boot_init initialized MPI, and boot_finalize finalizes it. */
static int boot_mpi_owned;

/* This machine as the kernel tells it: its boot id and host name, hashed
 * (FNV-1a). MPI's machines are not always it: with MPIR_CVAR_NOLOCAL,
 * MPICH's shared communicator holds each rank alone. */
static unsigned long long boot_host_key(void)
{
    char text[320] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(text, 64, f))
            text[0] = '\0';
        fclose(f);
    }
    size_t used = strlen(text);
    if (gethostname(text + used, sizeof text - used - 1) != 0)
        text[used] = '\0';
    unsigned long long h = 14695981039346656037ull;
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

int boot_init(int *argc, char ***argv, boot_comm_t *comm)
{
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    if (fin)
        return rt_error(REACH_ERR_NOT_INIT, "reach_init", "MPI is already finalized");
    if (!inited) {
        if (comm != NULL)
            return rt_error(REACH_ERR_NOT_INIT, "reach_init_comm", "MPI is not initialized");
        if (MPI_Init(argc, argv) != MPI_SUCCESS)
            return rt_error(REACH_ERR_SYSTEM, "reach_init", "MPI_Init failed");
        boot_mpi_owned = 1;
    }
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    rt.threads_multiple = level == MPI_THREAD_MULTIPLE;
    MPI_Comm dup;
    MPI_Comm_dup(comm != NULL ? boot_comm_mpi(comm) : MPI_COMM_WORLD, &dup);
    rt.comm = boot_comm_own(dup);
    rt.rank = boot_comm_rank(rt.comm);
    rt.size = boot_comm_size(rt.comm);
    /* A node is the set of ranks sharing a machine; REACH_NODE_SIZE cuts a
     * machine's ranks (in rank order) into smaller nodes, so that one
     * machine can exercise the network transport. */
    MPI_Comm machine;
    MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rt.rank, MPI_INFO_NULL, &machine);
    int machine_leader = rt.rank, slot = 0; /* slot: which node of its machine */
    MPI_Bcast(&machine_leader, 1, MPI_INT, 0, machine);
    if (rt.cfg.node_split > 0) {
        int mrank;
        MPI_Comm_rank(machine, &mrank);
        slot = mrank / (int)rt.cfg.node_split;
        MPI_Comm node;
        MPI_Comm_split(machine, slot, rt.rank, &node);
        MPI_Comm_free(&machine);
        rt.node_comm = boot_comm_own(node);
    } else {
        rt.node_comm = boot_comm_own(machine);
    }
    rt.node_rank = boot_comm_rank(rt.node_comm);
    rt.node_size = boot_comm_size(rt.node_comm);

    rt.node_peers = malloc(sizeof(int) * (size_t)rt.node_size);
    rt.peers = calloc((size_t)rt.size, sizeof(peer_t));
    /* By machine (its leader's rank): the slot and node last seen there. */
    int *last_slot = malloc(sizeof(int) * (size_t)rt.size), *last_node = malloc(sizeof(int) * (size_t)rt.size);
    if (!rt.node_peers || !rt.peers || !last_slot || !last_node)
        rt_oom("reach_init", sizeof(int) * (size_t)rt.size);

    /* Each rank's process, for the liveness checks of long waits, its
     * node (its machine and slot there) and its host, in one exchange. */
    struct {
        unsigned long long pstart, pidns, host;
        int machine, pid, slot, unused; /* (no padding goes out unwritten) */
    } me = {0, 0, boot_host_key(), machine_leader, (int)getpid(), slot, 0}, *all;
    struct stat ns;
    if (stat("/proc/self/ns/pid", &ns) == 0)
        me.pidns = ((unsigned long long)ns.st_dev << 32) ^ (unsigned long long)ns.st_ino;
    char state;
    all = malloc(sizeof *all * (size_t)rt.size);
    if (!all)
        rt_oom("reach_init", sizeof *all * (size_t)rt.size);
    if (wait_proc_state(me.pid, &state, &me.pstart) != 0)
        rt_fatal("reach_init: cannot read /proc/self/stat (is /proc mounted?)");
    boot_allgather(rt.comm, &me, sizeof me, all);
    /* Nodes are numbered in the order of their lowest world rank; a node's
     * ranks are in world order, as in rt.node_comm. A machine's ranks are
     * in world order in its communicator too, so its slots only grow with
     * the world rank: a rank is on a new node if its slot is not the last
     * one seen on its machine. */
    rt.node_count = 0;
    int here = 0;
    for (int r = 0; r < rt.size; r++)
        last_slot[r] = -1;
    for (int r = 0; r < rt.size; r++) {
        int m = all[r].machine;
        rt.peers[r].machine = m;
        rt.peers[r].pid = all[r].pid;
        rt.peers[r].pstart = all[r].pstart;
        rt.peers[r].pidns = all[r].pidns;
        rt.peers[r].host = all[r].host;
        if (m < 0 || m >= rt.size)
            rt_fatal("reach_init: rank %d names machine %d", r, m);
        if (all[r].slot != last_slot[m]) {
            last_slot[m] = all[r].slot;
            last_node[m] = rt.node_count++;
        }
        rt.peers[r].node = last_node[m];
        if (m == machine_leader && all[r].slot == slot && here < rt.node_size)
            rt.node_peers[here++] = r;
    }
    free(all);
    free(last_slot);
    free(last_node);
    if (here != rt.node_size || rt.node_peers[rt.node_rank] != rt.rank)
        rt_fatal("reach_init: MPI's shared-memory communicator has %d ranks, the exchange found %d", rt.node_size,
                 here);
    rt.node = rt.peers[rt.rank].node;

    /* Every node's ranks, ascending, for the node queries. */
    rt.node_first = calloc((size_t)rt.node_count + 1, sizeof(int));
    rt.node_members = malloc(sizeof(int) * (size_t)rt.size);
    if (!rt.node_first || !rt.node_members)
        rt_oom("reach_init", sizeof(int) * (size_t)rt.size);
    for (int r = 0; r < rt.size; r++)
        rt.node_first[rt.peers[r].node + 1]++;
    for (int n = 0; n < rt.node_count; n++)
        rt.node_first[n + 1] += rt.node_first[n];
    int *fill = calloc((size_t)rt.node_count, sizeof(int));
    if (!fill)
        rt_oom("reach_init", sizeof(int) * (size_t)rt.size);
    for (int r = 0; r < rt.size; r++) {
        int n = rt.peers[r].node;
        rt.node_members[rt.node_first[n] + fill[n]++] = r;
    }
    free(fill);
    return REACH_SUCCESS;
}

void boot_finalize(void)
{
    boot_comm_free(rt.node_comm);
    boot_comm_free(rt.comm);
    rt.node_comm = rt.comm = NULL;
    free(rt.node_peers);
    free(rt.peers);
    free(rt.node_first);
    free(rt.node_members);
    rt.node_peers = NULL;
    rt.peers = NULL;
    rt.node_first = rt.node_members = NULL;
    if (boot_mpi_owned)
        MPI_Finalize();
    boot_mpi_owned = 0;
}

char *boot_allgatherv(int n, const void *const parts[], const size_t lens[], int **offsets)
{
    size_t np = (size_t)rt.size * (size_t)n, mine_len = 0;
    int *part_lens = malloc(sizeof(int) * np), *offs = malloc(sizeof(int) * (np + 1));
    int *rank_lens = malloc(sizeof(int) * (size_t)rt.size), *rank_offs = malloc(sizeof(int) * (size_t)rt.size);
    int *mine_lens = malloc(sizeof(int) * (size_t)n);
    if (!part_lens || !offs || !rank_lens || !rank_offs || !mine_lens)
        rt_oom("reach_init", sizeof(int) * (np + 1));
    for (int p = 0; p < n; p++) {
        mine_lens[p] = (int)lens[p];
        mine_len += lens[p];
    }
    boot_allgather(rt.comm, mine_lens, sizeof(int) * (size_t)n, part_lens);
    offs[0] = 0;
    for (size_t i = 0; i < np; i++)
        offs[i + 1] = offs[i] + part_lens[i];
    for (int r = 0; r < rt.size; r++) {
        rank_offs[r] = offs[(size_t)r * (size_t)n];
        rank_lens[r] = offs[(size_t)(r + 1) * (size_t)n] - rank_offs[r];
    }
    char *mine = malloc(mine_len + 1), *all = malloc((size_t)offs[np] + 1);
    if (!mine || !all)
        rt_oom("reach_init", (size_t)offs[np] + 1);
    for (int p = 0, at = 0; p < n; at += mine_lens[p++])
        if (lens[p] > 0) /* (a part of none may be NULL) */
            memcpy(mine + at, parts[p], lens[p]);
    MPI_Allgatherv(mine, (int)mine_len, MPI_BYTE, all, rank_lens, rank_offs, MPI_BYTE, boot_comm_mpi(rt.comm));
    free(mine);
    free(mine_lens);
    free(part_lens);
    free(rank_lens);
    free(rank_offs);
    *offsets = offs;
    return all;
}

void boot_barrier(void)
{
    boot_comm_barrier(rt.comm);
}

void boot_barrier_progress(void (*progress)(void))
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(boot_comm_mpi(rt.comm), &req);
    while (!done) {
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            rt_fatal("reach_init: MPI_Test failed in a start-up barrier");
        progress();
    }
}
