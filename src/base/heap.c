#include "base/heap.h"

#include <stdlib.h>
#include <string.h>

int heap_init(heap_t *h, size_t base, size_t size)
{
    h->capacity = 16;
    h->blocks = malloc(sizeof(heap_block_t) * (size_t)h->capacity);
    if (!h->blocks)
        return -1;
    h->blocks[0] = (heap_block_t){.off = base, .len = size, .used = 0};
    h->count = 1;
    h->in_use = 0;
    return 0;
}

void heap_destroy(heap_t *h)
{
    free(h->blocks);
    memset(h, 0, sizeof *h);
}

static int heap_find(const heap_t *h, size_t off)
{
    int lo = 0, hi = h->count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        if (h->blocks[mid].off == off)
            return mid;
        if (h->blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int heap_alloc(heap_t *h, size_t len, int kind, size_t *off)
{
    if (len == 0 || len > SIZE_MAX - HEAP_PAGE)
        return -1;
    len = (len + HEAP_PAGE - 1) & ~(HEAP_PAGE - 1);
    for (int i = 0; i < h->count; i++) {
        heap_block_t *b = &h->blocks[i];
        if (b->used || b->len < len)
            continue;
        if (b->len > len) {
            if (h->count == h->capacity) {
                heap_block_t *nb = realloc(h->blocks, sizeof *nb * (size_t)h->capacity * 2);
                if (!nb)
                    return -1;
                h->blocks = nb;
                h->capacity *= 2;
                b = &h->blocks[i];
            }
            memmove(b + 2, b + 1, sizeof *b * (size_t)(h->count - i - 1));
            b[1] = (heap_block_t){.off = b->off + len, .len = b->len - len, .used = 0};
            b->len = len;
            h->count++;
        }
        b->used = kind;
        h->in_use += len;
        *off = b->off;
        return 0;
    }
    return -1;
}

size_t heap_block_len(const heap_t *h, size_t off, int kind)
{
    int i = heap_find(h, off);
    return (i >= 0 && h->blocks[i].used == kind) ? h->blocks[i].len : 0;
}

size_t heap_retag(heap_t *h, size_t off, int from, int to)
{
    int i = heap_find(h, off);
    if (i < 0 || h->blocks[i].used != from)
        return 0;
    h->blocks[i].used = to;
    return h->blocks[i].len;
}

size_t heap_free(heap_t *h, size_t off)
{
    int i = heap_find(h, off);
    if (i < 0 || !h->blocks[i].used)
        return 0;
    size_t len = h->blocks[i].len;
    h->blocks[i].used = 0;
    h->in_use -= len;
    /* Merge with the free neighbours so that the list stays short. */
    if (i + 1 < h->count && !h->blocks[i + 1].used) {
        h->blocks[i].len += h->blocks[i + 1].len;
        memmove(&h->blocks[i + 1], &h->blocks[i + 2], sizeof(heap_block_t) * (size_t)(h->count - i - 2));
        h->count--;
    }
    if (i > 0 && !h->blocks[i - 1].used) {
        h->blocks[i - 1].len += h->blocks[i].len;
        memmove(&h->blocks[i], &h->blocks[i + 1], sizeof(heap_block_t) * (size_t)(h->count - i - 1));
        h->count--;
    }
    return len;
}
