#ifndef REACH_BASE_CONFIG_H
#define REACH_BASE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/config_table.h"

typedef struct config {
#define CONFIG_FIELD_BOOL int
#define CONFIG_FIELD_UINT uint32_t
#define CONFIG_FIELD_SIZE size_t
#define CONFIG_FIELD_PROTOCOL int
#define CONFIG_FIELD_BARRIER int
#define CONFIG_FIELD_LOCK int
#define CONFIG_FIELD_WINSYNC int
#define CONFIG_FIELD_SECONDS double
#define CONFIG_FIELD_NETWORK int
#define CONFIG_STRING_MAX 128 /* a STRING value's room, its end included */
#define CONFIG_FIELD_STRING char
#define CONFIG_FIELD_DIM_STRING [CONFIG_STRING_MAX]
#define CONFIG_FIELD_DIM_BOOL
#define CONFIG_FIELD_DIM_UINT
#define CONFIG_FIELD_DIM_SIZE
#define CONFIG_FIELD_DIM_PROTOCOL
#define CONFIG_FIELD_DIM_BARRIER
#define CONFIG_FIELD_DIM_LOCK
#define CONFIG_FIELD_DIM_WINSYNC
#define CONFIG_FIELD_DIM_SECONDS
#define CONFIG_FIELD_DIM_NETWORK
#define X(field, name, type, def, help) CONFIG_FIELD_##type field CONFIG_FIELD_DIM_##type;
    REACH_CONFIG_TABLE(X)
#undef X
} config_t;

/* Reads every variable of the table into cfg (its default where it is
 * unset or malformed); REACH_ERR_ARG if a value is malformed. Prints
 * nothing: config_check says what is wrong. */
int config_load(config_t *cfg);
/* Reads the environment as config_load does, and prints on stderr a line
 * for each REACH_ variable that is not reach's and each malformed value;
 * REACH_ERR_ARG if there is one (reach_config_check). */
int config_check(void);
/* Prints on stdout a table of every variable: type, default, the value in
 * force and its meaning (reach_config_print). */
void config_print(void);

/* Parses one value of the given type ("BOOL", "UINT", "SIZE", "SECONDS",
 * "STRING"); 0 on
 * success. */
int config_parse_bool(const char *s, int *out);
int config_parse_uint(const char *s, uint32_t *out);
int config_parse_size(const char *s, size_t *out);
int config_parse_seconds(const char *s, double *out);
/* Any text shorter than CONFIG_STRING_MAX, copied to out. */
int config_parse_string(const char *s, char (*out)[CONFIG_STRING_MAX]);
/* The choice types' enums, from their CONFIG_TYPE_CHOICES lists
 * (config_table.h): PROTOCOL_AUTO ... PROTOCOL_KINDS, and so on. */
#define CONFIG_CHOICE_CONSTANT_(constant, name) constant,
enum { CONFIG_PROTOCOL_CHOICES(CONFIG_CHOICE_CONSTANT_) PROTOCOL_KINDS };
enum { CONFIG_BARRIER_CHOICES(CONFIG_CHOICE_CONSTANT_) BARRIER_KINDS };
enum { CONFIG_LOCK_CHOICES(CONFIG_CHOICE_CONSTANT_) LOCK_KINDS };
enum { CONFIG_WINSYNC_CHOICES(CONFIG_CHOICE_CONSTANT_) WINSYNC_KINDS };
enum { CONFIG_NETWORK_CHOICES(CONFIG_CHOICE_CONSTANT_) NETWORK_KINDS };
#undef CONFIG_CHOICE_CONSTANT_

/* A choice's constant from one of its names (any case); 0 on success. */
int config_parse_protocol(const char *s, int *out);
int config_parse_barrier(const char *s, int *out);
int config_parse_lock(const char *s, int *out);
int config_parse_winsync(const char *s, int *out);
int config_parse_network(const char *s, int *out);

/* "mcs, ticket, hybrid": the names a choice type of the table ("PROTOCOL",
 * "BARRIER", "LOCK", "WINSYNC", "NETWORK") accepts, for a message about a value that
 * is none of them; NULL for any other type. */
const char *config_choices(const char *type);

#endif
