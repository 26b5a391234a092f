/* Every environment variable reach reads: one row each.
 * X(field, NAME, type, default, help). type is BOOL, UINT, SIZE (bytes,
 * with an optional k/m/g suffix), PROTOCOL (auto, direct or pack) or
 * BARRIER (fence+dissemination, combined, tree, counter), LOCK (mcs, ticket,
 * hybrid), WINSYNC (direct, deferred) or SECONDS (a decimal number, 0 or more).
 * reach-info prints this table. */
#define REACH_CONFIG_TABLE(X)                                                        \
    X(stats, "REACH_STATS", BOOL, "0",                                               \
      "print this process's operation counters at finalize")                         \
    X(spin_count, "REACH_SPIN_COUNT", UINT, "2000",                                  \
      "polls of a wait before the process sleeps in the kernel (futex)")             \
    X(arena_size, "REACH_ARENA_SIZE", SIZE, "0",                                     \
      "address space reserved per process for shared allocations (0: physical memory size)") \
    X(shm_limit, "REACH_SHM_LIMIT", SIZE, "0",                                       \
      "most shared memory one process may allocate (0: no limit but the machine's)") \
    X(quiet, "REACH_QUIET", BOOL, "0",                                               \
      "do not print the one-line message of a call that fails on bad arguments")      \
    X(server_spin, "REACH_SERVER_SPIN", UINT, "50",                                  \
      "empty progress calls of the server thread before it sleeps on the network's wakeup descriptor") \
    X(strided_protocol, "REACH_STRIDED_PROTOCOL", PROTOCOL, "auto",                 \
      "strided and vector transfers to other nodes: direct (an operation per run or pair), pack (pipelined chunks), auto") \
    X(barrier, "REACH_BARRIER", BARRIER, "combined",                                 \
      "ARMCI_Barrier's algorithm: fence+dissemination, combined (paper 000), tree, counter (paper 001)") \
    X(barrier_radix, "REACH_BARRIER_RADIX", UINT, "4",                               \
      "children per process of the tree barrier (2 or more)")                        \
    X(lock, "REACH_LOCK", LOCK, "mcs",                                               \
      "mutexes' algorithm: mcs (paper 000's queue lock), ticket (paper 001), hybrid (paper 000's baseline)") \
    X(win_sync, "REACH_WIN_SYNC", WINSYNC, "direct",                                 \
      "windows' epochs: direct (operations issued at once, paper 002) or deferred (lock, operations and unlock sent together at unlock, the paper's baseline)") \
    X(node_size, "REACH_NODE_SIZE", UINT, "0",                                       \
      "split each machine into nodes of this many ranks (1: all traffic between ranks goes through the network transport; 0: one node per machine)") \
    X(peer_timeout, "REACH_PEER_TIMEOUT", SECONDS, "2",                              \
      "seconds a waiting process allows a rank of its machine that ended without reach_finalize before it ends the job naming that rank (0: never check)") \
    X(wait_report, "REACH_WAIT_REPORT", SECONDS, "60",                               \
      "seconds in a mutex, barrier, counter, notification or window lock wait after which a process prints, once, what it waits for and who holds it (0: never)")
