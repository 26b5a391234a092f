/* The network backends side by side: 8 B put (with its fence), get and
 * fetch-and-add, and 64 KiB put and get, from rank 0 to rank 1 with every
 * rank its own node, over UCX's TCP transport (REACH_UCX_TLS=tcp,self) and
 * over libfabric's tcp provider (REACH_OFI_PROVIDER=tcp), so that both
 * cross the same sockets. reach is started afresh for each backend, in
 * alternating rounds, so that drift of the machine falls on both alike;
 * each figure is the median over the rounds of each round's median (the
 * rounds' medians are its samples in the JSON file). Below, each
 * column's floor: its network library alone (net_floor.c), and how many
 * times that reach's 8 B get takes. Runs before reach-bench's own
 * start-up, as it starts and stops reach itself. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define NET_ROUNDS 3

static const struct net_case {
    const char *name;
    const char *var, *value; /* what makes the backend cross TCP */
    const char *lib;         /* the network library, in the floor's name */
} nets[] = {
    {"ucx", "REACH_UCX_TLS", "tcp,self", "UCX"},
    {"ofi", "REACH_OFI_PROVIDER", "tcp", "libfabric"},
};
enum { NNETS = sizeof nets / sizeof nets[0] };

static const struct {
    enum op op;
    size_t size;
    const char *name;
} net_ops[] = {
    {REACH_PUT, 8, "put"},        {REACH_GET, 8, "get"},        {REACH_FADD, 8, "fetch-and-add"},
    {REACH_PUT, 64 << 10, "put"}, {REACH_GET, 64 << 10, "get"},
};
enum { NOPS = sizeof net_ops / sizeof net_ops[0] };

/* Sets name to value, keeping what it was in *old (NULL: unset). */
static void env_swap(const char *name, const char *value, char **old)
{
    const char *now = getenv(name);
    *old = now ? strdup(now) : NULL;
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* One round of one backend: reach started with it, every op measured on
 * rank 0 (medians of B.samples samples), reach stopped. */
static void net_round(const struct net_case *n, double med[NOPS], int describe)
{
    char *old[3];
    env_swap("REACH_NETWORK", n->name, &old[0]);
    env_swap("REACH_NODE_SIZE", "1", &old[1]);
    env_swap(n->var, n->value, &old[2]);
    int ok = reach_init(NULL, NULL) == REACH_SUCCESS;
    env_swap("REACH_NETWORK", old[0], &old[0]);
    env_swap("REACH_NODE_SIZE", old[1], &old[1]);
    env_swap(n->var, old[2], &old[2]);
    for (int k = 0; k < 3; k++)
        free(old[k]);
    void **bases = malloc(sizeof(void *) * (size_t)B.np);
    if (!ok || !bases || reach_malloc(64 << 10, bases) != REACH_SUCCESS)
        reach_abort(1, "reach-bench: networks: set-up failed");
    if (describe && B.me == 0)
        describe_run();
    B.seg_target = bases[1];
    reach_barrier();
    for (int k = 0; k < NOPS && B.me == 0; k++) {
        double u[1][MAX_SAMPLES];
        measure(1, &net_ops[k].op, net_ops[k].size, u, &med[k]);
    }
    phase_end(0);
    reach_free(bases[B.me]);
    free(bases);
    reach_finalize();
}

void bench_networks(const struct experiment *x, const char *out)
{
    double rmed[NNETS][NOPS][NET_ROUNDS];
    int have[NNETS];
    const char *built = strstr(reach_transports(), "this build has");
    for (int n = 0; n < NNETS; n++)
        have[n] = built && strstr(built, nets[n].name) != NULL;
    B.src = calloc(1, 64 << 10);
    B.dst = calloc(1, 64 << 10);
    if (!B.src || !B.dst)
        reach_abort(1, "reach-bench: networks: no memory");
    for (int r = 0; r < NET_ROUNDS; r++)
        for (int n = 0; n < NNETS; n++) {
            double m[NOPS];
            if (!have[n])
                continue;
            net_round(&nets[n], m, r == 0 && n == 0);
            for (int k = 0; k < NOPS; k++)
                rmed[n][k][r] = m[k];
        }
    free(B.src);
    free(B.dst);
    B.src = B.dst = B.seg_target = NULL;
    static double floor_us[NNETS][FLOOR_WAYS][MAX_SAMPLES];
    double floor[NNETS][FLOOR_WAYS] = {{0}};
    for (int n = 0; n < NNETS; n++)
        if (have[n])
            net_floor(nets[n].name, floor_us[n], floor[n]);
    if (B.me != 0)
        return;
    experiment_begin(x, out);
    printf("\nnetwork backends over TCP, every rank its own node (us, median over %d rounds of the "
           "median of %d)\n%-14s %8s %10s %10s %9s\n",
           NET_ROUNDS, B.samples, "op", "bytes", "ucx/tcp", "ofi/tcp", "ofi/ucx");
    double get8[NNETS] = {0};
    for (int k = 0; k < NOPS; k++) {
        double med[NNETS] = {0};
        for (int n = 0; n < NNETS; n++)
            if (have[n]) {
                med[n] = median(rmed[n][k], NET_ROUNDS);
                json_values(net_ops[k].name, nets[n].name, net_ops[k].size, 0, "us", med[n], rmed[n][k], NET_ROUNDS);
                if (net_ops[k].op == REACH_GET && net_ops[k].size == 8)
                    get8[n] = med[n];
            }
        printf("%-14s %8zu %10.2f %10.2f %9.2f\n", net_ops[k].name, net_ops[k].size, med[0], med[1],
               med[0] > 0 && med[1] > 0 ? med[1] / med[0] : 0.0);
    }
    static const char *const way[FLOOR_WAYS] = {"no wait object", "a descriptor to wait on",
                                                "and a thread of its own answering"};
    for (int n = 0; n < NNETS; n++) {
        if (floor[n][0] <= 0 && floor[n][1] <= 0 && floor[n][2] <= 0)
            continue;
        printf("%s alone over tcp, 8 B there and back, polled (us, median of %d):", nets[n].lib, B.samples);
        for (int w = 0; w < FLOOR_WAYS; w++) {
            char impl[64];
            snprintf(impl, sizeof impl, "%s tcp alone, %s", nets[n].lib, way[w]);
            if (floor[n][w] > 0)
                json_values("round trip", impl, 8, 0, "us", floor[n][w], floor_us[n][w], B.samples);
            printf("%s %s %.2f", w ? ";" : "", way[w], floor[n][w]);
        }
        if (get8[n] > 0 && floor[n][FLOOR_WAYS - 1] > 0) /* the last is how reach's backends work */
            printf(" (%s's 8 B get: %.2f x the last)", nets[n].name, get8[n] / floor[n][FLOOR_WAYS - 1]);
        printf("\n");
    }
    fflush(stdout);
    experiment_end();
}
