/* The parsers of environment values, and loading the table with bad values. */
#include "../check.h"
#include "base/config.h"
#include "reach.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    int b;
    uint32_t u;
    size_t s;
    CHECK(config_parse_bool("1", &b) == 0 && b == 1);
    CHECK(config_parse_bool("Yes", &b) == 0 && b == 1);
    CHECK(config_parse_bool("off", &b) == 0 && b == 0);
    CHECK(config_parse_bool("2", &b) != 0);
    CHECK(config_parse_bool("", &b) != 0);
    CHECK(config_parse_uint("4000", &u) == 0 && u == 4000);
    CHECK(config_parse_uint("-1", &u) != 0);
    CHECK(config_parse_uint("12x", &u) != 0);
    CHECK(config_parse_uint("4294967296", &u) != 0);
    CHECK(config_parse_uint("", &u) != 0);

    double sec = -1;
    CHECK(config_parse_seconds("2", &sec) == 0 && sec == 2.0);
    CHECK(config_parse_seconds("0.25", &sec) == 0 && sec == 0.25);
    CHECK(config_parse_seconds("0", &sec) == 0 && sec == 0.0);
    CHECK(config_parse_seconds("-1", &sec) != 0);
    CHECK(config_parse_seconds(".5", &sec) != 0);
    CHECK(config_parse_seconds("0x10", &sec) != 0);
    CHECK(config_parse_seconds("nan", &sec) != 0);
    CHECK(config_parse_seconds("1e9", &sec) != 0);   /* more than a year */
    CHECK(config_parse_seconds("3s", &sec) != 0);
    CHECK(config_parse_seconds("", &sec) != 0);
    CHECK(config_parse_size("16m", &s) == 0 && s == (size_t)16 << 20);
    CHECK(config_parse_size("2G", &s) == 0 && s == (size_t)2 << 30);
    CHECK(config_parse_size("123", &s) == 0 && s == 123);
    CHECK(config_parse_size("1q", &s) != 0);
    CHECK(config_parse_size("m", &s) != 0);
    CHECK(config_parse_size("-5", &s) != 0);
    CHECK(config_parse_size("99999999999999999999", &s) != 0);
    CHECK(config_parse_size("17179869184T", &s) != 0);

    int proto;
    CHECK(config_parse_protocol("pack", &proto) == 0 && proto == PROTOCOL_PACK);
    CHECK(config_parse_protocol("Direct", &proto) == 0 && proto == PROTOCOL_DIRECT);
    CHECK(config_parse_protocol("fast", &proto) != 0);

    /* Every spelling each choice took before its list was generated, in
     * any case, to the same constant; the constants keep their values. */
    static const struct { int (*parse)(const char *, int *); const char *name; int kind; } choices[] = {
        {config_parse_protocol, "auto", PROTOCOL_AUTO},
        {config_parse_protocol, "direct", PROTOCOL_DIRECT},
        {config_parse_protocol, "pack", PROTOCOL_PACK},
        {config_parse_barrier, "fence+dissemination", BARRIER_FENCE_DISSEMINATION},
        {config_parse_barrier, "combined", BARRIER_COMBINED},
        {config_parse_barrier, "tree", BARRIER_TREE},
        {config_parse_barrier, "counter", BARRIER_COUNTER},
        {config_parse_lock, "mcs", LOCK_MCS},
        {config_parse_lock, "ticket", LOCK_TICKET},
        {config_parse_lock, "hybrid", LOCK_HYBRID},
        {config_parse_winsync, "direct", WINSYNC_DIRECT},
        {config_parse_winsync, "deferred", WINSYNC_DEFERRED},
    };
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++) {
        char upper[32];
        size_t n = strlen(choices[i].name);
        for (size_t j = 0; j <= n; j++)
            upper[j] = (char)toupper((unsigned char)choices[i].name[j]);
        int kind = -1;
        CHECK(choices[i].parse(choices[i].name, &kind) == 0 && kind == choices[i].kind);
        kind = -1;
        CHECK(choices[i].parse(upper, &kind) == 0 && kind == choices[i].kind);
        kind = -1;
        CHECK(choices[i].parse("", &kind) != 0 && kind == -1);
        upper[n - 1] = '\0';   /* a prefix is not a name */
        CHECK(choices[i].parse(upper, &kind) != 0 && kind == -1);
    }
    CHECK(PROTOCOL_AUTO == 0 && PROTOCOL_DIRECT == 1 && PROTOCOL_PACK == 2 && PROTOCOL_KINDS == 3);
    CHECK(BARRIER_FENCE_DISSEMINATION == 0 && BARRIER_COMBINED == 1 && BARRIER_TREE == 2 &&
          BARRIER_COUNTER == 3 && BARRIER_KINDS == 4);
    CHECK(LOCK_MCS == 0 && LOCK_TICKET == 1 && LOCK_HYBRID == 2 && LOCK_KINDS == 3);
    CHECK(WINSYNC_DIRECT == 0 && WINSYNC_DEFERRED == 1 && WINSYNC_KINDS == 2);
    int kind;
    CHECK(config_parse_barrier("fence", &kind) != 0);
    CHECK(config_parse_lock("mcs ", &kind) != 0);

    /* The lists for messages. */
    CHECK(strcmp(config_choices("PROTOCOL"), "auto, direct, pack") == 0);
    CHECK(strcmp(config_choices("BARRIER"), "fence+dissemination, combined, tree, counter") == 0);
    CHECK(strcmp(config_choices("LOCK"), "mcs, ticket, hybrid") == 0);
    CHECK(strcmp(config_choices("WINSYNC"), "direct, deferred") == 0);
    CHECK(strcmp(config_choices("NETWORK"), "auto, ucx, ofi") == 0);
    CHECK(config_choices("BOOL") == NULL && config_choices("SECONDS") == NULL &&
          config_choices("STRING") == NULL);
    CHECK(config_parse_network("OFI", &kind) == 0 && kind == NETWORK_OFI);
    CHECK(config_parse_network("verbs", &kind) != 0);
    char text[CONFIG_STRING_MAX], longer[CONFIG_STRING_MAX + 1];
    CHECK(config_parse_string("tcp;ofi_rxm", &text) == 0 && strcmp(text, "tcp;ofi_rxm") == 0);
    memset(longer, 'x', CONFIG_STRING_MAX);
    longer[CONFIG_STRING_MAX] = '\0';
    CHECK(config_parse_string(longer, &text) != 0 && strcmp(text, "tcp;ofi_rxm") == 0);
    CHECK(config_choices("lock") == NULL && config_choices("") == NULL);

    config_t cfg;
    unsetenv("REACH_STATS");
    setenv("REACH_SPIN_COUNT", "77", 1);
    CHECK(config_load(&cfg) == REACH_SUCCESS);
    CHECK(cfg.spin_count == 77 && cfg.stats == 0 && cfg.shm_limit == 0);
    setenv("REACH_SHM_LIMIT", "lots", 1);
    CHECK(config_load(&cfg) == REACH_ERR_ARG);
    unsetenv("REACH_SHM_LIMIT");
    setenv("REACH_STATS", "maybe", 1);
    CHECK(config_load(&cfg) == REACH_ERR_ARG);
    unsetenv("REACH_STATS");
    printf("test_config: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
