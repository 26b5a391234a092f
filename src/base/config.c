#include "base/config.h"
#include "reach.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

int config_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "y", "yes", "on", "true"};
    static const char *const no[] = {"0", "n", "no", "off", "false"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) { *out = 1; return 0; }
        if (strcasecmp(s, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

int config_parse_uint(const char *s, uint32_t *out)
{
    char *end;
    if (*s == '\0' || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int config_parse_size(const char *s, size_t *out)
{
    char *end;
    if (*s == '\0' || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return -1;
    }
    if (*end != '\0' || (shift && v > (SIZE_MAX >> shift)))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int config_parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* A plain decimal: no sign, no hex, no inf or nan, at most a year. */
    if (*s < '0' || *s > '9' || strpbrk(s, "xX") || errno != 0 || *end != '\0' || !(v <= 365 * 86400.0))
        return -1;
    *out = v;
    return 0;
}

/* The index of s in names (case-insensitive); -1 if none. */
static int config_parse_name(const char *s, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

/* "a, b or c": the names a choice accepts, for the message about a value
 * that is none of them. */
static const char *config_choices(char *buf, size_t len, const char *const *names, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    return buf;
}

static const char *const protocol_names[] = {"auto", "direct", "pack"};

int config_parse_protocol(const char *s, int *out)
{
    return config_parse_name(s, protocol_names, COUNT(protocol_names), out);
}

static const char *const barrier_names[BARRIER_KINDS] = {"fence+dissemination", "combined", "tree",
                                                         "counter"};

int config_parse_barrier(const char *s, int *out)
{
    return config_parse_name(s, barrier_names, BARRIER_KINDS, out);
}

const char *config_barrier_name(int kind)
{
    return (unsigned)kind < BARRIER_KINDS ? barrier_names[kind] : "?";
}

static const char *const lock_names[LOCK_KINDS] = {"mcs", "ticket", "hybrid"};
static const char *const winsync_names[] = {"direct", "deferred"};

int config_parse_winsync(const char *s, int *out)
{
    return config_parse_name(s, winsync_names, COUNT(winsync_names), out);
}

int config_parse_lock(const char *s, int *out)
{
    return config_parse_name(s, lock_names, LOCK_KINDS, out);
}

const char *config_lock_name(int kind)
{
    return (unsigned)kind < LOCK_KINDS ? lock_names[kind] : "?";
}

#define config_parse_PROTOCOL config_parse_protocol
#define config_parse_LOCK config_parse_lock
#define config_parse_WINSYNC config_parse_winsync
#define config_parse_BARRIER config_parse_barrier
#define config_parse_BOOL config_parse_bool
#define config_parse_UINT config_parse_uint
#define config_parse_SIZE config_parse_size
#define config_parse_SECONDS config_parse_seconds

/* What a value of each type looks like: "it takes ...". */
#define config_accepts_PROTOCOL(buf, len)                                            \
    config_choices(buf, len, protocol_names, COUNT(protocol_names))
#define config_accepts_LOCK(buf, len) config_choices(buf, len, lock_names, LOCK_KINDS)
#define config_accepts_WINSYNC(buf, len)                                             \
    config_choices(buf, len, winsync_names, COUNT(winsync_names))
#define config_accepts_BARRIER(buf, len) config_choices(buf, len, barrier_names, BARRIER_KINDS)
#define config_accepts_BOOL(buf, len) "1/0, yes/no, on/off or true/false"
#define config_accepts_UINT(buf, len) "a whole number from 0 to 4294967295"
#define config_accepts_SIZE(buf, len) "a number of bytes, with an optional k, m, g or t suffix"
#define config_accepts_SECONDS(buf, len) "a decimal number of seconds (such as 0.5), at most a year"

/* 1 if name (up to '=') is a variable of the table or one reach passes to
 * UCX (REACH_UCX_*). */
static int config_known(const char *name)
{
    size_t len = strcspn(name, "=");
    if (strncmp(name, "REACH_UCX_", 10) == 0)
        return 1;
#define X(field, vname, type, def, help)                                             \
    if (strlen(vname) == len && strncmp(name, vname, len) == 0)                     \
        return 1;
    REACH_CONFIG_TABLE(X)
#undef X
    return 0;
}

/* Reads every variable of the table into cfg; with report, prints a line
 * for each REACH_ variable that is not reach's and each malformed value. */
static int config_read(config_t *cfg, int report)
{
    int bad = 0;
    char accepts[128];
    /* A misspelt variable would be ignored without a word. */
    for (char **e = environ; report && *e; e++)
        if (strncmp(*e, "REACH_", 6) == 0 && !config_known(*e))
            fprintf(stderr, "reach: environment variable %.*s is not one of reach's and is ignored "
                            "(reach-info lists them)\n",
                    (int)strcspn(*e, "="), *e);
#define X(field, name, type, def, help)                                              \
    {                                                                                \
        const char *env = getenv(name);                                              \
        config_parse_##type(def, &cfg->field);                                       \
        if (env && config_parse_##type(env, &cfg->field) != 0) {                     \
            if (report)                                                              \
                fprintf(stderr, "reach: environment variable %s=\"%s\" is not a valid %s; " \
                                "it takes %s\n",                                     \
                        name, env, #type, config_accepts_##type(accepts, sizeof accepts)); \
            bad = 1;                                                                 \
        }                                                                            \
    }
    REACH_CONFIG_TABLE(X)
#undef X
    return bad ? REACH_ERR_ARG : REACH_SUCCESS;
}

int config_load(config_t *cfg)
{
    return config_read(cfg, 0);
}

int reach_config_check(void)
{
    config_t cfg;
    return config_read(&cfg, 1);
}

void reach_config_print(void)
{
    config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    printf("%-22s %-8s %-8s %-10s %s\n", "variable", "type", "default", "in force", "meaning");
#define X(field, name, type, def, help)                                              \
    {                                                                                \
        const char *env = getenv(name);                                              \
        int ok = !env || config_parse_##type(env, &cfg.field) == 0;                  \
        printf("%-22s %-8s %-8s %-10s %s\n", name, #type, def,                       \
               env ? (ok ? env : "INVALID") : def, help);                            \
    }
    REACH_CONFIG_TABLE(X)
#undef X
}
