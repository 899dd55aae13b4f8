/*
 * check.h - the unit-test harness shared by storage/tests and api/tests.
 *
 * Each test executable defines static test functions, calls RUN(fn) for each
 * and returns check_report(), which prints "N passed, N failed" (the line
 * ctest and CI read) and the exit code. A failed CHECK prints both sides with
 * file:line and marks the current test failed, but keeps running it.
 */
#ifndef DDB_CHECK_H
#define DDB_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_tests_passed, check_tests_failed, check_current_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);               \
            check_current_failed = 1;                                                              \
        }                                                                                          \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
    do {                                                                                           \
        long long check_a_ = (long long) (a), check_b_ = (long long) (b);                          \
        if (check_a_ != check_b_) {                                                                \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b,  \
                    check_a_, check_b_);                                                           \
            check_current_failed = 1;                                                              \
        }                                                                                          \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *check_a_ = (a), *check_b_ = (b);                                               \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                           \
            fprintf(stderr, "%s:%d: %s == %s failed:\n  \"%s\"\n  \"%s\"\n", __FILE__, __LINE__,   \
                    #a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");       \
            check_current_failed = 1;                                                              \
        }                                                                                          \
    } while (0)

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        check_current_failed = 0;                                                                  \
        fn();                                                                                      \
        if (check_current_failed) {                                                                \
            fprintf(stderr, "FAIL %s\n", #fn);                                                     \
            check_tests_failed++;                                                                  \
        } else {                                                                                   \
            check_tests_passed++;                                                                  \
        }                                                                                          \
    } while (0)

static inline int check_report(void)
{
    printf("%d passed, %d failed\n", check_tests_passed, check_tests_failed);
    return check_tests_failed ? 1 : 0;
}

#endif
