/* The segment table: insertion keeps the ranges sorted, growing past its
 * capacity; removal by start; clearing; and seg_table_contains at every
 * boundary: a range must lie inside one segment, [start, end). */
#include "../check.h"
#include "base/state.h"

#include <stdint.h>

/* The table holds exactly these n ranges, in this order. */
static void check_ranges(const seg_table_t *t, const uintptr_t (*want)[2], int n, int line)
{
    if (t->count != n) {
        check_failures++;
        fprintf(stderr, "CHECK FAILED line %d: %d ranges, expected %d\n", line, t->count, n);
        return;
    }
    CHECK(t->capacity >= t->count);
    for (int i = 0; i < n; i++)
        if (t->ranges[i].start != want[i][0] || t->ranges[i].end != want[i][1]) {
            check_failures++;
            fprintf(stderr, "CHECK FAILED line %d: range %d is [%ju, %ju), expected [%ju, %ju)\n", line,
                    i, (uintmax_t)t->ranges[i].start, (uintmax_t)t->ranges[i].end,
                    (uintmax_t)want[i][0], (uintmax_t)want[i][1]);
        }
}
#define CHECK_RANGES(t, ...)                                                          \
    do {                                                                              \
        static const uintptr_t want_[][2] = {__VA_ARGS__};                            \
        check_ranges((t), want_, (int)(sizeof want_ / sizeof want_[0]), __LINE__);   \
    } while (0)

int main(void)
{
    seg_table_t t = {0};

    /* Empty: nothing is inside, not even zero bytes; removing is harmless. */
    CHECK_EQ_LL(seg_table_contains(&t, 0, 0), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 100, 1), 0);
    seg_table_remove(&t, 100);
    CHECK_EQ_LL(t.count, 0);

    /* Inserted out of order, kept sorted by start; [200, 300) and
     * [300, 400) are adjacent. */
    CHECK_EQ_LL(seg_table_insert(&t, 300, 400), 0);
    CHECK_EQ_LL(seg_table_insert(&t, 100, 150), 0);
    CHECK_EQ_LL(seg_table_insert(&t, 1000, 1010), 0);
    CHECK_EQ_LL(seg_table_insert(&t, 200, 300), 0);
    CHECK_RANGES(&t, {100, 150}, {200, 300}, {300, 400}, {1000, 1010});

    /* Boundaries of [100, 150): the first and last byte, the whole segment,
     * one byte more, the byte before and the byte at its end. */
    CHECK_EQ_LL(seg_table_contains(&t, 100, 1), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 149, 1), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 100, 50), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 100, 51), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 149, 2), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 99, 1), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 99, 2), 0);   /* overlaps the start */
    CHECK_EQ_LL(seg_table_contains(&t, 150, 1), 0);
    /* Between segments, and past the last. */
    CHECK_EQ_LL(seg_table_contains(&t, 175, 1), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 1010, 1), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 5000, 1), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 0, 1), 0);
    /* Overlapping the gap: from one segment into the space before the next. */
    CHECK_EQ_LL(seg_table_contains(&t, 140, 70), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 400, 600), 0);

    /* Adjacent segments: each whole, but never a range across both. */
    CHECK_EQ_LL(seg_table_contains(&t, 200, 100), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 300, 100), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 299, 1), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 300, 1), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 299, 2), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 200, 200), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 250, 100), 0);

    /* Zero bytes: inside a segment (its start included) yes; at its end,
     * which belongs to no segment here, or between segments, no. */
    CHECK_EQ_LL(seg_table_contains(&t, 100, 0), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 149, 0), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 150, 0), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 175, 0), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 1010, 0), 0);

    /* A length that wraps around the address space is not inside. */
    CHECK_EQ_LL(seg_table_contains(&t, 120, SIZE_MAX), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 120, SIZE_MAX - 10), 0);

    /* Removal by start: not by an address inside a segment, nor by an end. */
    seg_table_remove(&t, 250);
    seg_table_remove(&t, 150);
    seg_table_remove(&t, 1010);
    CHECK_RANGES(&t, {100, 150}, {200, 300}, {300, 400}, {1000, 1010});
    /* The middle, then the first and the last. */
    seg_table_remove(&t, 200);
    CHECK_RANGES(&t, {100, 150}, {300, 400}, {1000, 1010});
    CHECK_EQ_LL(seg_table_contains(&t, 250, 1), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 300, 100), 1);
    CHECK_EQ_LL(seg_table_contains(&t, 1005, 5), 1);
    seg_table_remove(&t, 100);
    CHECK_RANGES(&t, {300, 400}, {1000, 1010});
    CHECK_EQ_LL(seg_table_contains(&t, 120, 1), 0);
    seg_table_remove(&t, 1000);
    CHECK_RANGES(&t, {300, 400});
    CHECK_EQ_LL(seg_table_contains(&t, 1005, 1), 0);
    seg_table_remove(&t, 300);
    CHECK_EQ_LL(t.count, 0);
    CHECK_EQ_LL(seg_table_contains(&t, 350, 1), 0);

    /* An empty segment holds nothing, not even zero bytes at its start. */
    CHECK_EQ_LL(seg_table_insert(&t, 500, 500), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 500, 0), 0);
    CHECK_EQ_LL(seg_table_contains(&t, 500, 1), 0);
    seg_table_remove(&t, 500);
    CHECK_EQ_LL(t.count, 0);

    /* A segment at the top of the address space. */
    CHECK_EQ_LL(seg_table_insert(&t, UINTPTR_MAX - 16, UINTPTR_MAX), 0);
    CHECK_EQ_LL(seg_table_contains(&t, UINTPTR_MAX - 16, 16), 1);
    CHECK_EQ_LL(seg_table_contains(&t, UINTPTR_MAX - 1, 1), 1);
    CHECK_EQ_LL(seg_table_contains(&t, UINTPTR_MAX - 1, 2), 0);
    CHECK_EQ_LL(seg_table_contains(&t, UINTPTR_MAX - 1, SIZE_MAX), 0);
    CHECK_EQ_LL(seg_table_contains(&t, UINTPTR_MAX, 0), 0);

    /* Clearing frees the ranges and leaves an empty table, usable again. */
    seg_table_clear(&t);
    CHECK(t.ranges == NULL);
    CHECK_EQ_LL(t.count, 0);
    CHECK_EQ_LL(t.capacity, 0);
    CHECK_EQ_LL(seg_table_contains(&t, UINTPTR_MAX - 1, 1), 0);
    CHECK_EQ_LL(seg_table_insert(&t, 10, 20), 0);
    CHECK_RANGES(&t, {10, 20});
    seg_table_clear(&t);

    /* Filled exactly to its capacity, then the first removed: the others
     * move down one place, and nothing past the last range is read (which
     * AddressSanitizer would report). */
    CHECK_EQ_LL(seg_table_insert(&t, 0, 8), 0);
    for (uintptr_t s = 16; t.count < t.capacity; s += 16)
        CHECK_EQ_LL(seg_table_insert(&t, s, s + 8), 0);
    int full = t.count, moved = 0;
    CHECK(full > 1);
    seg_table_remove(&t, 0);
    CHECK_EQ_LL(t.count, full - 1);
    for (int i = 0; i < t.count; i++)
        moved += t.ranges[i].start == 16 * (uintptr_t)(i + 1) && t.ranges[i].end == 16 * (uintptr_t)(i + 1) + 8;
    CHECK_EQ_LL(moved, full - 1);
    seg_table_clear(&t);

    /* Growth past the capacity, many times over: 1000 segments of 10 bytes
     * with gaps of 6, inserted in a scattered order (7 is prime to 1000),
     * all kept and sorted; every one found, none of the gaps. */
    enum { N = 1000 };
    for (int i = 0; i < N; i++) {
        uintptr_t k = (uintptr_t)((i * 7) % N);
        CHECK_EQ_LL(seg_table_insert(&t, 4096 + 16 * k, 4096 + 16 * k + 10), 0);
        CHECK_EQ_LL(t.count, i + 1);
        CHECK(t.capacity >= t.count);
    }
    int unsorted = 0, missing = 0, found_in_gap = 0;
    for (int k = 0; k < N; k++) {
        uintptr_t s = 4096 + 16 * (uintptr_t)k;
        unsorted += t.ranges[k].start != s || t.ranges[k].end != s + 10;
        missing += !seg_table_contains(&t, s, 10) || !seg_table_contains(&t, s + 9, 1);
        found_in_gap += seg_table_contains(&t, s + 10, 1) + seg_table_contains(&t, s + 5, 6) +
                        seg_table_contains(&t, s - 1, 1);
    }
    CHECK_EQ_LL(unsorted, 0);
    CHECK_EQ_LL(missing, 0);
    CHECK_EQ_LL(found_in_gap, 0);
    /* Every other one removed: the rest stay, in order. */
    for (int k = 0; k < N; k += 2)
        seg_table_remove(&t, 4096 + 16 * (uintptr_t)k);
    CHECK_EQ_LL(t.count, N / 2);
    unsorted = missing = found_in_gap = 0;
    for (int k = 0; k < N; k++) {
        uintptr_t s = 4096 + 16 * (uintptr_t)k;
        if (k % 2) {
            unsorted += t.ranges[k / 2].start != s || t.ranges[k / 2].end != s + 10;
            missing += !seg_table_contains(&t, s, 10);
        } else {
            found_in_gap += seg_table_contains(&t, s, 1);
        }
    }
    CHECK_EQ_LL(unsorted, 0);
    CHECK_EQ_LL(missing, 0);
    CHECK_EQ_LL(found_in_gap, 0);
    seg_table_clear(&t);
    CHECK(t.ranges == NULL && t.count == 0 && t.capacity == 0);

    printf("test_seg_table: %s\n", check_failures ? "FAILED" : "passed");
    return check_failures != 0;
}
