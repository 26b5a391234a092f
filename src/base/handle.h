/* Memory of the handles a program may still pass after destroying them
 * (mutex sets, counters, windows, groups). Each starts with its magic
 * word; destroying one clears the word and retires its memory to the pool
 * of its kind, which the next handle of that kind reuses. The memory is
 * never returned to malloc, so a stale handle still reads as a dead object
 * (REACH_ERR_HANDLE) rather than as freed memory, at no cost on the calls
 * that check it. */
#ifndef REACH_BASE_HANDLE_H
#define REACH_BASE_HANDLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct handle_pool {
    void *retired; /* linked through the pointer after the magic word */
} handle_pool_t;

/* A zeroed handle of size bytes (the same for every call on one pool). */
static inline void *handle_new(handle_pool_t *pool, size_t size)
{
    char *h = pool->retired;
    if (h == NULL)
        return calloc(1, size);
    memcpy(&pool->retired, h + sizeof(void *), sizeof(void *));
    memset(h, 0, size);
    return h;
}

/* Retires h (at least two pointers long) with its magic word cleared. */
static inline void handle_retire(handle_pool_t *pool, void *h)
{
    *(uint32_t *)h = 0;
    memcpy((char *)h + sizeof(void *), &pool->retired, sizeof(void *));
    pool->retired = h;
}

/* Unlinks item from the singly linked list at *head (which holds it),
 * linked through its member `next`. */
#define HANDLE_UNLINK(head, item, next) \
    do {                                \
        __typeof__(item) *pp_ = (head); \
        while (*pp_ != (item))          \
            pp_ = &(*pp_)->next;        \
        *pp_ = (item)->next;            \
    } while (0)

#endif
