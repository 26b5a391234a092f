/* Checks for reach's tests: every failed check is printed and counted, and
 * check_exit() turns the count into the exit status, so no failure can be
 * missed. */
#ifndef REACH_TEST_CHECK_H
#define REACH_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            check_failures++;                                                         \
            fprintf(stderr, "CHECK FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                             \
    } while (0)

#define CHECK_EQ_LL(a, b)                                                             \
    do {                                                                              \
        long long va_ = (long long)(a), vb_ = (long long)(b);                         \
        if (va_ != vb_) {                                                             \
            check_failures++;                                                         \
            fprintf(stderr, "CHECK FAILED %s:%d: %s == %s (%lld != %lld)\n",          \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                            \
        }                                                                             \
    } while (0)

#endif
