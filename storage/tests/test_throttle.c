/*
 * test_throttle.c - the token bucket of provisioned capacity with burst
 * (table/bucket.h), to the millisecond of the engine clock.
 *
 * conformance/test_emulator_throughput_model.py drives the whole model over
 * the wire with the control clock; here the arithmetic alone.
 */
#include "storage/table/bucket.h"
#include "storage/tests/check.h"

#include <math.h>
#include <string.h>

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static void test_new_bucket_holds_one_second(void)
{
    struct token_bucket b;
    memset(&b, 0, sizeof b);
    CHECK(bucket_admits(&b, 5, 1000));
    CHECK(near(b.tokens, 5));
}

static void test_admits_while_positive_and_goes_into_debt(void)
{
    struct token_bucket b;
    memset(&b, 0, sizeof b);
    /* 1 WCU: a 10 KB write is admitted with one unit, and leaves a debt of 9. */
    CHECK(bucket_admits(&b, 1, 0));
    bucket_take(&b, 1, 0, 10);
    CHECK(near(b.tokens, -9));
    CHECK(!bucket_admits(&b, 1, 0));
    CHECK(!bucket_admits(&b, 1, 9000)); /* exactly zero: still nothing to start with */
    CHECK(bucket_admits(&b, 1, 9001));
}

static void test_exactly_the_rate_then_throttled(void)
{
    struct token_bucket b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 5; i++) {
        CHECK(bucket_admits(&b, 5, 1000));
        bucket_take(&b, 5, 1000, 1);
    }
    CHECK(!bucket_admits(&b, 5, 1000));
    /* 200 ms earn one unit at 5 per second. */
    CHECK(bucket_admits(&b, 5, 1200));
    CHECK(near(b.tokens, 1));
}

static void test_burst_keeps_300_seconds(void)
{
    struct token_bucket b;
    memset(&b, 0, sizeof b);
    bucket_refill(&b, 10, 0);
    bucket_refill(&b, 10, 3600 * 1000); /* an idle hour */
    CHECK(near(b.tokens, 10 * BUCKET_BURST_SECONDS));
    /* 3,000 units of burst spent at once: the 3,001st unit has to wait. */
    bucket_take(&b, 10, 3600 * 1000, 3000);
    CHECK(!bucket_admits(&b, 10, 3600 * 1000));
    CHECK(bucket_admits(&b, 10, 3600 * 1000 + 1));
}

static void test_lower_rate_lowers_the_burst(void)
{
    struct token_bucket b;
    memset(&b, 0, sizeof b);
    bucket_refill(&b, 10, 0);
    bucket_refill(&b, 10, 600 * 1000);
    CHECK(near(b.tokens, 3000));
    bucket_refill(&b, 1, 600 * 1000); /* UpdateTable to 1 unit */
    CHECK(near(b.tokens, 300));
}

static void test_clock_set_back_earns_nothing(void)
{
    struct token_bucket b;
    memset(&b, 0, sizeof b);
    bucket_take(&b, 1, 10000, 1); /* 0 left at 10 s */
    bucket_refill(&b, 1, 5000);   /* back to 5 s */
    CHECK(near(b.tokens, 0));
    bucket_refill(&b, 1, 10000); /* forward again: the same 5 s are not paid twice */
    CHECK(near(b.tokens, 0));
    bucket_refill(&b, 1, 12000);
    CHECK(near(b.tokens, 2));
}

int main(void)
{
    RUN(test_new_bucket_holds_one_second);
    RUN(test_admits_while_positive_and_goes_into_debt);
    RUN(test_exactly_the_rate_then_throttled);
    RUN(test_burst_keeps_300_seconds);
    RUN(test_lower_rate_lowers_the_burst);
    RUN(test_clock_set_back_earns_nothing);
    return check_report();
}
