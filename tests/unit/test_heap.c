/* The arena's block bookkeeping: page rounding, first fit, kinds, merging. */
#include "../check.h"
#include "base/heap.h"

int main(void)
{
    heap_t h;
    const size_t base = 65536, size = 64 * HEAP_PAGE;
    CHECK(heap_init(&h, base, size) == 0);
    size_t a, b, c, d;
    CHECK(heap_alloc(&h, 1, 1, &a) == 0 && a == base);
    CHECK(heap_alloc(&h, HEAP_PAGE + 1, 1, &b) == 0 && b == base + HEAP_PAGE);
    CHECK(heap_alloc(&h, HEAP_PAGE, 2, &c) == 0 && c == base + 3 * HEAP_PAGE);
    CHECK(h.in_use == 4 * HEAP_PAGE);
    CHECK(heap_block_len(&h, b, 1) == 2 * HEAP_PAGE);
    CHECK(heap_block_len(&h, c, 1) == 0);     /* wrong kind */
    CHECK(heap_block_len(&h, c, 2) == HEAP_PAGE);
    CHECK(heap_block_len(&h, b + 8, 1) == 0); /* not a block start */
    CHECK(heap_alloc(&h, 0, 1, &d) != 0);
    CHECK(heap_alloc(&h, size, 1, &d) != 0);  /* no room left that large */
    CHECK(heap_free(&h, b) == 2 * HEAP_PAGE);
    CHECK(heap_free(&h, b) == 0);             /* twice */
    /* The hole is reused first fit. */
    CHECK(heap_alloc(&h, HEAP_PAGE, 1, &d) == 0 && d == b);
    CHECK(heap_free(&h, a) == HEAP_PAGE);
    CHECK(heap_free(&h, d) == HEAP_PAGE);
    CHECK(heap_free(&h, c) == HEAP_PAGE);
    /* Everything merged back into one free block covering the arena. */
    CHECK(h.count == 1 && h.in_use == 0);
    CHECK(heap_alloc(&h, size, 1, &d) == 0 && d == base);
    /* Many blocks, freed in a scattered order. */
    heap_destroy(&h);
    CHECK(heap_init(&h, 0, 1000 * HEAP_PAGE) == 0);
    size_t offs[1000];
    for (int i = 0; i < 1000; i++)
        CHECK(heap_alloc(&h, HEAP_PAGE, 1, &offs[i]) == 0);
    for (int i = 0; i < 1000; i++)
        CHECK(heap_free(&h, offs[(i * 7) % 1000]) == HEAP_PAGE);
    CHECK(h.count == 1 && h.in_use == 0);
    heap_destroy(&h);
    printf("test_heap: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
