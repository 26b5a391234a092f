/* reach-info: the transports of this build and the environment variables
 * reach reads (defaults, values in force, help); with --markdown, the
 * variables' table of the guide; with --topology under mpiexec, where
 * every rank runs. */
#include "base/config_table.h"
#include "reach.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void usage(void)
{
    printf("usage: reach-info [--markdown | --topology | --help]\n"
           "  prints reach's transports and its environment variables with defaults and\n"
           "  values in force; names REACH_ variables that are not reach's, and fails on\n"
           "  a value that is not valid, saying what the variable takes.\n"
           "  --markdown prints instead the variables as a Markdown table (variable, type\n"
           "  or choices, default, meaning), the user guide's copy of it.\n"
           "  --topology (run under mpiexec, e.g. mpiexec -n 4 reach-info --topology)\n"
           "  prints instead how many ranks run on how many nodes, each rank's node, and\n"
           "  how rank 0 reaches it (self, shm or net).\n"
           "  Buntinas03, Zhang04 and Santhanaraman08 in the help are the papers the\n"
           "  algorithms come from, cited in full in reach's docs/references.md.\n");
}

/* A cell's text: "|" would end the cell. */
static void markdown_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

/* One row per variable of REACH_CONFIG_TABLE, in its order; a choice
 * type's column lists its choices, a plain type's is its name in lower
 * case. Nothing here depends on the environment. */
static void markdown_table(void)
{
#define CHOICE(constant, name) ", `" name "`"
    printf("| variable | type or choices | default | meaning |\n"
           "| --- | --- | --- | --- |\n");
#define X(field, name, type, def, help)                           \
    {                                                             \
        const char *choices = "" CONFIG_##type##_CHOICES(CHOICE); \
        printf("| `%s` | ", name);                                \
        if (*choices)                                             \
            markdown_cell(choices + 2);                           \
        else                                                      \
            for (const char *t = #type; *t; t++)                  \
                putchar(tolower((unsigned char)*t));              \
        printf(" | ");                                            \
        markdown_cell(def);                                       \
        printf(" | ");                                            \
        markdown_cell(help);                                      \
        printf(" |\n");                                           \
    }
    REACH_CONFIG_TABLE(X)
#undef X
#undef CHOICE
}

int main(int argc, char **argv)
{
    int topology = 0, markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--topology") == 0)
            topology = 1;
        else if (strcmp(argv[i], "--markdown") == 0)
            markdown = 1;
        else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (markdown && topology) {
        usage();
        return 2;
    }
    if (markdown) {
        markdown_table();
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (!topology) {
        printf("reach %d.%d\ntransports: %s\n\n", REACH_VERSION_MAJOR, REACH_VERSION_MINOR, reach_transports());
        reach_config_print();
        fflush(stdout);
        return reach_config_check() == REACH_SUCCESS ? 0 : 1;
    }
    if (reach_init(&argc, &argv) != REACH_SUCCESS)
        return 1;
    if (reach_rank() == 0) {
        printf("%d ranks on %d node(s)\n", reach_size(), reach_node_count());
        for (int r = 0; r < reach_size(); r++)
            printf("rank %d: node %d, reached from rank 0 by %s\n", r, reach_node_of(r),
                   r == 0               ? "self"
                   : reach_same_node(r) ? "shm"
                                        : "net");
        printf("transports: %s\n", reach_transports());
    }
    reach_finalize();
    return 0;
}
