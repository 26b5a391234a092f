#ifndef REACH_BASE_CONFIG_H
#define REACH_BASE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct config {
#define CONFIG_FIELD_BOOL int
#define CONFIG_FIELD_UINT uint32_t
#define CONFIG_FIELD_SIZE size_t
#define CONFIG_FIELD_PROTOCOL int
#define CONFIG_FIELD_BARRIER int
#define CONFIG_FIELD_LOCK int
#define CONFIG_FIELD_WINSYNC int
#define CONFIG_FIELD_SECONDS double
#define X(field, name, type, def, help) CONFIG_FIELD_##type field;
#include "base/config_table.h"
    REACH_CONFIG_TABLE(X)
#undef X
} config_t;

/* Reads every variable of the table into cfg (its default where it is
 * unset or malformed); REACH_ERR_ARG if a value is malformed. Prints
 * nothing: reach_config_check (reach.h) says what is wrong. */
int config_load(config_t *cfg);

/* Parses one value of the given type ("BOOL", "UINT", "SIZE"); 0 on success. */
int config_parse_bool(const char *s, int *out);
int config_parse_uint(const char *s, uint32_t *out);
int config_parse_size(const char *s, size_t *out);
int config_parse_seconds(const char *s, double *out);
enum { PROTOCOL_AUTO, PROTOCOL_DIRECT, PROTOCOL_PACK };
int config_parse_protocol(const char *s, int *out);
enum { BARRIER_FENCE_DISSEMINATION, BARRIER_COMBINED, BARRIER_TREE, BARRIER_COUNTER, BARRIER_KINDS };
int config_parse_barrier(const char *s, int *out);
/* The name of a barrier algorithm, as REACH_BARRIER spells it. */
const char *config_barrier_name(int kind);
enum { LOCK_MCS, LOCK_TICKET, LOCK_HYBRID, LOCK_KINDS };
int config_parse_lock(const char *s, int *out);
const char *config_lock_name(int kind);
enum { WINSYNC_DIRECT, WINSYNC_DEFERRED };
int config_parse_winsync(const char *s, int *out);

#endif
