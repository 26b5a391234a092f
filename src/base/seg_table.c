#include "base/state.h"

#include <stdlib.h>
#include <string.h>

int seg_table_insert(seg_table_t *t, uintptr_t start, uintptr_t end)
{
    if (t->count == t->capacity) {
        int cap = t->capacity ? t->capacity * 2 : 8;
        seg_range_t *r = realloc(t->ranges, sizeof *r * (size_t)cap);
        if (!r)
            return -1;
        t->ranges = r;
        t->capacity = cap;
    }
    int i = t->count;
    while (i > 0 && t->ranges[i - 1].start > start) {
        t->ranges[i] = t->ranges[i - 1];
        i--;
    }
    t->ranges[i] = (seg_range_t){start, end};
    t->count++;
    return 0;
}

void seg_table_remove(seg_table_t *t, uintptr_t start)
{
    for (int i = 0; i < t->count; i++) {
        if (t->ranges[i].start == start) {
            memmove(&t->ranges[i], &t->ranges[i + 1], sizeof(seg_range_t) * (size_t)(t->count - i - 1));
            t->count--;
            t->removals++;
            return;
        }
    }
}

void seg_table_clear(seg_table_t *t)
{
    free(t->ranges);
    memset(t, 0, sizeof *t);
}
