/* reach's environment variables (REACH_CONFIG_TABLE) and the choices of
 * the variables that name an algorithm (CONFIG_<TYPE>_CHOICES). Macros
 * only: config.h makes the config struct and the choices' enums of them,
 * config.c the parsers and the lists of choices for messages, reach-info
 * --markdown the guide's table. The help names papers by their short
 * names (Buntinas03, Zhang04, Santhanaraman08), cited in
 * docs/references.md. */
#ifndef REACH_BASE_CONFIG_TABLE_H
#define REACH_BASE_CONFIG_TABLE_H

/* The tables below are laid out by hand. */
/* clang-format off */

/* The choices of each choice type: X(constant, "name"), in the order of
 * the type's enum (config.h generates it, with <TYPE>_KINDS after the
 * last). A value names a choice in any case; these are the only spellings
 * accepted. The plain types (BOOL, UINT, SIZE, SECONDS) have none. A new
 * choice type also needs its enum, field type and config_parse_ declaration
 * in config.h, its config_parse_TYPE name in config.c and a row in
 * CONFIG_CHOICE_TYPES. */
#define CONFIG_PROTOCOL_CHOICES(X)                                                   \
    X(PROTOCOL_AUTO, "auto") X(PROTOCOL_DIRECT, "direct") X(PROTOCOL_PACK, "pack")
#define CONFIG_BARRIER_CHOICES(X)                                                    \
    X(BARRIER_FENCE_DISSEMINATION, "fence+dissemination") X(BARRIER_COMBINED, "combined") \
    X(BARRIER_TREE, "tree") X(BARRIER_COUNTER, "counter")
#define CONFIG_LOCK_CHOICES(X) X(LOCK_MCS, "mcs") X(LOCK_TICKET, "ticket") X(LOCK_HYBRID, "hybrid")
#define CONFIG_WINSYNC_CHOICES(X) X(WINSYNC_DIRECT, "direct") X(WINSYNC_DEFERRED, "deferred")
#define CONFIG_NETWORK_CHOICES(X) X(NETWORK_AUTO, "auto") X(NETWORK_UCX, "ucx") X(NETWORK_OFI, "ofi")
#define CONFIG_BOOL_CHOICES(X)
#define CONFIG_UINT_CHOICES(X)
#define CONFIG_SIZE_CHOICES(X)
#define CONFIG_SECONDS_CHOICES(X)
#define CONFIG_STRING_CHOICES(X)

/* The choice types: X(TYPE, type), type as in config_parse_type. */
#define CONFIG_CHOICE_TYPES(X)                                                       \
    X(PROTOCOL, protocol) X(BARRIER, barrier) X(LOCK, lock) X(WINSYNC, winsync) X(NETWORK, network)

/* ", auto, direct, pack": a type's choices as one string literal, each
 * after ", " ("" for a plain type). */
#define CONFIG_CHOICE_AFTER_COMMA_(constant, name) ", " name
#define CONFIG_CHOICES_AFTER_COMMAS(TYPE) ("" CONFIG_##TYPE##_CHOICES(CONFIG_CHOICE_AFTER_COMMA_))

/* Every environment variable reach reads: one row each.
 * X(field, NAME, type, default, help). type is BOOL, UINT, SIZE (bytes,
 * with an optional k, m, g or t suffix), SECONDS (a decimal number, 0 or
 * more), STRING (any text) or a choice type above (PROTOCOL, BARRIER, LOCK,
 * WINSYNC, NETWORK).
 * reach-info prints this table; reach-info --markdown prints the guide's
 * copy of it (docs/guide.md, checked by docs.guide). */
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
    X(server_slice_us, "REACH_SERVER_SLICE", UINT, "100",                            \
      "time slice in microseconds that the server thread asks of the scheduler (Linux 6.12 and later, which keeps it within 100 to 100000), so that it preempts a thread computing on its core when a request comes (0: the scheduler's default)") \
    X(strided_protocol, "REACH_STRIDED_PROTOCOL", PROTOCOL, "auto",                 \
      "strided and vector transfers to other nodes: direct (an operation per run or pair), pack (pipelined chunks), auto") \
    X(get_write, "REACH_GET_WRITE", SIZE, "64k",                                   \
      "non-blocking gets of at least this many bytes from a rank of another node on this machine are written into place by that rank's server while the caller computes (0: never; between machines always the network's get)") \
    X(barrier, "REACH_BARRIER", BARRIER, "combined",                                 \
      "reach_barrier's (and ARMCI_Barrier's) algorithm across nodes: fence+dissemination, combined (Buntinas03), tree, counter (Zhang04)") \
    X(barrier_radix, "REACH_BARRIER_RADIX", UINT, "4",                               \
      "children per process of the tree barrier (2 or more)")                        \
    X(lock, "REACH_LOCK", LOCK, "mcs",                                               \
      "mutexes' algorithm: mcs (Buntinas03's queue lock), ticket (Zhang04), hybrid (Buntinas03's baseline)") \
    X(win_sync, "REACH_WIN_SYNC", WINSYNC, "direct",                                 \
      "windows' epochs: direct (operations issued at once, Santhanaraman08) or deferred (lock, operations and unlock sent together at unlock, the paper's baseline)") \
    X(network, "REACH_NETWORK", NETWORK, "auto",                                    \
      "the network backend between nodes: ucx, ofi (libfabric), auto (ucx where this build has it, else ofi)") \
    X(ofi_provider, "REACH_OFI_PROVIDER", STRING, "",                                \
      "the libfabric provider the ofi backend asks fi_getinfo for (such as tcp, cxi, efa; empty: libfabric's first that serves)") \
    X(node_split, "REACH_NODE_SIZE", UINT, "0",                                       \
      "split each machine into nodes of this many ranks (1: all traffic between ranks goes through the network transport; 0: one node per machine)") \
    X(peer_timeout, "REACH_PEER_TIMEOUT", SECONDS, "2",                              \
      "seconds a waiting process allows a rank that ended without reach_finalize or cannot be reached (found in /proc on this machine, or by the network's watch: its pings every quarter of this, unanswered for this long) before it ends the job naming that rank (0: never check)") \
    X(peer_proc, "REACH_PEER_PROC", BOOL, "1",                                       \
      "look for ranks of this machine that have ended in /proc; 0 leaves lost ranks to the network's watch (UCX's does not watch the ranks of this node)") \
    X(trace, "REACH_TRACE", STRING, "",                                              \
      "a directory: each process writes there the trace of the messages it sent and received and of its waits (rank-NNNNN.trace, read by tools/reach-project.py; empty: no trace)") \
    X(wait_report, "REACH_WAIT_REPORT", SECONDS, "60",                               \
      "seconds in a mutex, barrier, counter, notification or window lock wait after which a process prints, once, what it waits for and who holds it (0: never)")
/* clang-format on */

#endif
