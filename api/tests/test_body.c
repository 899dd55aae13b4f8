/*
 * test_body.c - reading checked request members (body.c): enumerations read
 * once, and numbers turned into integers without undefined conversions, since
 * the shapes bound few integers from above ("ReadCapacityUnits": 5.1e127 was
 * a fuzzer's find).
 */
#include "api/wire/body.h"
#include "storage/tests/check.h"

#include <stdint.h>

static json_t *parsed(const char *text)
{
    json_error_t error;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &error);

    CHECK(v != NULL);
    return v;
}

static void check_int(const char *number, json_int_t want)
{
    json_t *v = parsed(number);

    CHECK_INT_EQ(body_number_int(v), want);
    json_decref(v);
}

static void test_body_number_int_truncates_and_saturates(void)
{
    check_int("7", 7);
    check_int("-9223372036854775808", INT64_MIN);
    check_int("9223372036854775807", INT64_MAX);
    check_int("2.9", 2);
    check_int("-2.9", -2);
    check_int("3e9", 3000000000LL);
    check_int("5.1e127", INT64_MAX);
    check_int("-5.1e127", INT64_MIN);
    check_int("9.2233720368547758e18", INT64_MAX); /* 2^63 as a double */
    check_int("-9.2233720368547758e18", INT64_MIN);
    check_int("\"12\"", 0);
    CHECK_INT_EQ(body_number_int(NULL), 0);
}

static void test_body_member_int_of_a_member(void)
{
    json_t *body = parsed("{\"Limit\": 1e30, \"Segment\": 3, \"Gone\": null}");

    CHECK_INT_EQ(body_member_int(body, "Limit"), INT64_MAX);
    CHECK_INT_EQ(body_member_int(body, "Segment"), 3);
    CHECK_INT_EQ(body_member_int(body, "Gone"), 0);
    CHECK_INT_EQ(body_member_int(body, "Absent"), 0);
    json_decref(body);
}

static void test_body_seconds_ms_rounds_and_saturates(void)
{
    CHECK_INT_EQ(body_seconds_ms(1795512606.043), 1795512606043LL);
    CHECK_INT_EQ(body_seconds_ms(-1.0005), -1001);
    CHECK_INT_EQ(body_seconds_ms(0), 0);
    CHECK_INT_EQ(body_seconds_ms(1e300), INT64_MAX);
    CHECK_INT_EQ(body_seconds_ms(-1e300), INT64_MIN);
    CHECK_INT_EQ(body_seconds_ms(9.3e15), INT64_MAX);
}

static void test_body_member_choice(void)
{
    static const char *const choices[] = {"ALL_OLD", "UPDATED_OLD", "ALL_NEW", NULL};
    json_t *body = parsed("{\"A\": \"ALL_NEW\", \"B\": \"NONE\", \"C\": null, \"D\": 1}");

    CHECK_INT_EQ(body_member_choice(body, "A", choices), 2);
    CHECK_INT_EQ(body_member_choice(body, "B", choices), -1);
    CHECK_INT_EQ(body_member_choice(body, "C", choices), -1);
    CHECK_INT_EQ(body_member_choice(body, "D", choices), -1);
    CHECK_INT_EQ(body_member_choice(body, "E", choices), -1);
    json_decref(body);
}

int main(void)
{
    RUN(test_body_number_int_truncates_and_saturates);
    RUN(test_body_member_int_of_a_member);
    RUN(test_body_seconds_ms_rounds_and_saturates);
    RUN(test_body_member_choice);
    return check_report();
}
