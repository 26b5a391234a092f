/* The parsers of environment values, and loading the table with bad values. */
#include "../check.h"
#include "base/config.h"
#include "reach.h"

#include <stdlib.h>

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
