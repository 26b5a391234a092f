#include "base/config.h"
#include "reach.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int config_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "y", "yes", "on", "true"};
    static const char *const no[] = {"0", "n", "no", "off", "false"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = 0;
            return 0;
        }
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
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
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

int config_parse_string(const char *s, char (*out)[CONFIG_STRING_MAX])
{
    if (strlen(s) >= sizeof *out)
        return -1;
    strcpy(*out, s);
    return 0;
}

/* config_parse_protocol, _barrier, _lock, _winsync and _network: the constant of the
 * choice s names, in any case. */
#define CONFIG_PARSE_CHOICE_(constant, name) \
    if (strcasecmp(s, name) == 0) {          \
        *out = constant;                     \
        return 0;                            \
    }
#define X(TYPE, type)                                            \
    int config_parse_##type(const char *s, int *out)             \
    {                                                            \
        CONFIG_##TYPE##_CHOICES(CONFIG_PARSE_CHOICE_) return -1; \
    }
CONFIG_CHOICE_TYPES(X)
#undef X

const char *config_choices(const char *type)
{
    /* Each list without the ", " before its first name. */
#define X(TYPE, lower)            \
    if (strcmp(type, #TYPE) == 0) \
        return CONFIG_CHOICES_AFTER_COMMAS(TYPE) + 2;
    CONFIG_CHOICE_TYPES(X)
#undef X
    return NULL;
}

/* What a value of a type looks like, for "it takes ...": "a, b or c" for
 * a choice type. */
static const char *config_takes(const char *type, char *buf, size_t len)
{
    const char *list = config_choices(type);
    if (list) {
        const char *last = NULL;
        for (const char *p = strstr(list, ", "); p; p = strstr(p + 2, ", "))
            last = p;
        if (!last)
            return list;
        snprintf(buf, len, "%.*s or %s", (int)(last - list), list, last + 2);
        return buf;
    }
    if (strcmp(type, "BOOL") == 0)
        return "1/0, yes/no, on/off or true/false";
    if (strcmp(type, "UINT") == 0)
        return "a whole number from 0 to 4294967295";
    if (strcmp(type, "SIZE") == 0)
        return "a number of bytes, with an optional k, m, g or t suffix";
    if (strcmp(type, "SECONDS") == 0)
        return "a decimal number of seconds (such as 0.5), at most a year";
    if (strcmp(type, "STRING") == 0)
        return "text of at most 127 bytes";
    return "?";
}

#define config_parse_PROTOCOL config_parse_protocol
#define config_parse_LOCK config_parse_lock
#define config_parse_WINSYNC config_parse_winsync
#define config_parse_BARRIER config_parse_barrier
#define config_parse_BOOL config_parse_bool
#define config_parse_UINT config_parse_uint
#define config_parse_SIZE config_parse_size
#define config_parse_SECONDS config_parse_seconds
#define config_parse_NETWORK config_parse_network
#define config_parse_STRING config_parse_string

/* 1 if name (up to '=') is a variable of the table or one reach passes to
 * UCX (REACH_UCX_*). */
static int config_known(const char *name)
{
    size_t len = strcspn(name, "=");
    if (strncmp(name, "REACH_UCX_", 10) == 0)
        return 1;
#define X(field, vname, type, def, help)                        \
    if (strlen(vname) == len && strncmp(name, vname, len) == 0) \
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
    char takes[128]; /* a choice type's "a, b or c" */
    /* A misspelt variable would be ignored without a word. */
    for (char **e = environ; report && *e; e++)
        if (strncmp(*e, "REACH_", 6) == 0 && !config_known(*e))
            fprintf(stderr,
                    "reach: environment variable %.*s is not one of reach's and is ignored "
                    "(reach-info lists them)\n",
                    (int)strcspn(*e, "="), *e);
#define X(field, name, type, def, help)                                              \
    {                                                                                \
        const char *env = getenv(name);                                              \
        config_parse_##type(def, &cfg->field);                                       \
        if (env && config_parse_##type(env, &cfg->field) != 0) {                     \
            if (report)                                                              \
                fprintf(stderr,                                                      \
                        "reach: environment variable %s=\"%s\" is not a valid %s; "  \
                        "it takes %s\n",                                             \
                        name, env, #type, config_takes(#type, takes, sizeof takes)); \
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

int config_check(void)
{
    config_t cfg;
    return config_read(&cfg, 1);
}

void config_print(void)
{
    config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    printf("%-22s %-8s %-8s %-10s %s\n", "variable", "type", "default", "in force", "meaning");
#define X(field, name, type, def, help)                                                                   \
    {                                                                                                     \
        const char *env = getenv(name);                                                                   \
        int ok = !env || config_parse_##type(env, &cfg.field) == 0;                                       \
        printf("%-22s %-8s %-8s %-10s %s\n", name, #type, def, env ? (ok ? env : "INVALID") : def, help); \
    }
    REACH_CONFIG_TABLE(X)
#undef X
}
