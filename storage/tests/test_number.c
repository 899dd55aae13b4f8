/*
 * test_number.c - unit tests for storage/model/number.c.
 *
 * Tables of (input, expected canonical text or exact AWS message), one row per
 * case, so adding a case is adding a line. Expected values come from AWS
 * responses recorded in scylladb test/alternator/test_number.py and dynalite
 * tests (see the comments in number.c); rows without such a source are
 * plain arithmetic.
 */
#include "storage/model/number.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

#define OVERFLOW                                                                                   \
    "Number overflow. Attempting to store a number with magnitude larger than supported range"
#define UNDERFLOW                                                                                  \
    "Number underflow. Attempting to store a number with magnitude smaller than supported range"
#define TOO_MANY_DIGITS "Attempting to store more than 38 significant digits in a Number"
#define NOT_NUMERIC     "The parameter cannot be converted to a numeric value"

/* Parses text; returns its canonical form, or the error message. Static buffer. */
static const char *parse_result(const char *text)
{
    static char out[NUMBER_TEXT_MAX + 200];
    struct ddb_error err = {0};
    struct number n;

    if (number_parse(text, strlen(text), &n, &err) != 0) {
        snprintf(out, sizeof out, "%s", err.message);
        ddb_error_clear(&err);
        return out;
    }
    number_format(&n, out, sizeof out);
    return out;
}

/* Parses text that must be valid. */
static struct number must_parse(const char *text)
{
    struct ddb_error err = {0};
    struct number n = {0};

    if (number_parse(text, strlen(text), &n, &err) != 0) {
        fprintf(stderr, "unexpected parse error for \"%s\": %s\n", text, err.message);
        ddb_error_clear(&err);
        check_current_failed = 1;
    }
    return n;
}

/* Returns a + b or a - b as canonical text, or the error message. Static buffer. */
static const char *arith_result(const char *a, char op, const char *b)
{
    static char out[NUMBER_TEXT_MAX + 200];
    struct ddb_error err = {0};
    struct number na = must_parse(a), nb = must_parse(b), r;
    int rc = op == '+' ? number_add(&na, &nb, &r, &err) : number_subtract(&na, &nb, &r, &err);

    if (rc != 0) {
        snprintf(out, sizeof out, "%s", err.message);
        ddb_error_clear(&err);
        return out;
    }
    number_format(&r, out, sizeof out);
    return out;
}

/* A string of count copies of c, after prefix and before suffix (heap; caller frees). */
static char *repeat(const char *prefix, char c, int count, const char *suffix)
{
    size_t plen = strlen(prefix), slen = strlen(suffix);
    char *s = malloc(plen + (size_t) count + slen + 1);

    memcpy(s, prefix, plen);
    memset(s + plen, c, (size_t) count);
    memcpy(s + plen + (size_t) count, suffix, slen + 1);
    return s;
}

struct text_case {
    const char *input;
    const char *expected; /* canonical text or exact message */
};

static void check_parse_cases(const struct text_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const char *got = parse_result(cases[i].input);

        if (strcmp(got, cases[i].expected) != 0) {
            fprintf(stderr, "parse(\"%s\"): got \"%s\", want \"%s\"\n", cases[i].input, got,
                    cases[i].expected);
            check_current_failed = 1;
        }
    }
}

static void test_valid_numbers_are_returned_in_canonical_plain_notation(void)
{
    /* scylladb test_number.py _NORMALIZATION_CASES (AWS's answers), plus more. */
    static const struct text_case cases[] = {
        {"1", "1"},
        {"123", "123"},
        {"-5", "-5"},
        {"0", "0"},
        {"10", "10"},
        {"1000", "1000"},
        {"007", "7"},
        {"001.23", "1.23"},
        {"00", "0"},
        {"+3", "3"},
        {"+0", "0"},
        {"+1.5", "1.5"},
        {"1.0", "1"},
        {"1.50", "1.5"},
        {"1.10", "1.1"},
        {"100.000", "100"},
        {"0.0", "0"},
        {"0.10", "0.1"},
        {"1e2", "100"},
        {"1e3", "1000"},
        {"1E3", "1000"},
        {"1e+3", "1000"},
        {"1E+3", "1000"},
        {"-3e2", "-300"},
        {"1.5e2", "150"},
        {"1.23e4", "12300"},
        {"1e-3", "0.001"},
        {"5e-1", "0.5"},
        {"123e-2", "1.23"},
        {"1.23e-1", "0.123"},
        {"1.0e3", "1000"},
        {"1.0e-1", "0.1"},
        {"-0", "0"},
        {"-0.0", "0"},
        {"0e5", "0"},
        {"0.0e3", "0"},
        {"0e-5", "0"},
        {".5", "0.5"},
        {"-.5", "-0.5"},
        {"5.", "5"},
        {"-5.e1", "-50"},
        {"1e05", "100000"},
        {"1e20", "100000000000000000000"},
        {"1e-20", "0.00000000000000000001"},
        {"3.14159", "3.14159"},
        {"-273.15", "-273.15"},
        {"0001.500", "1.5"},
        {"-17.4E37", "-174000000000000000000000000000000000000"},
        {"314159265358979323846.26433832795028841", "314159265358979323846.26433832795028841"},
        {"1.000000000000000000000000000000000000000000000000", "1"},
        {"100000000000000000000000000000000000000000000000000", /* 1e50, 51 digits */
         "100000000000000000000000000000000000000000000000000"},
    };
    check_parse_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_malformed_text_is_rejected_with_the_text_in_the_message(void)
{
    /* dynalite test/putItem.js: "" has no suffix, "b" gets ": b". scylladb
     * test_invalid_numbers: NaN, Infinity, dog, " 1", "1 " are rejected. */
    static const struct text_case cases[] = {
        {"", NOT_NUMERIC},
        {"b", NOT_NUMERIC ": b"},
        {" 1", NOT_NUMERIC ":  1"},
        {"1 ", NOT_NUMERIC ": 1 "},
        {"NaN", NOT_NUMERIC ": NaN"},
        {"-NaN", NOT_NUMERIC ": -NaN"},
        {"Infinity", NOT_NUMERIC ": Infinity"},
        {"-Infinity", NOT_NUMERIC ": -Infinity"},
        {"dog", NOT_NUMERIC ": dog"},
        {"0x10", NOT_NUMERIC ": 0x10"},
        {"1e", NOT_NUMERIC ": 1e"},
        {"1e+", NOT_NUMERIC ": 1e+"},
        {"e5", NOT_NUMERIC ": e5"},
        {".", NOT_NUMERIC ": ."},
        {".e1", NOT_NUMERIC ": .e1"},
        {"-", NOT_NUMERIC ": -"},
        {"+", NOT_NUMERIC ": +"},
        {"--1", NOT_NUMERIC ": --1"},
        {"+-1", NOT_NUMERIC ": +-1"},
        {"1..2", NOT_NUMERIC ": 1..2"},
        {"1.2.3", NOT_NUMERIC ": 1.2.3"},
        {"1e2.5", NOT_NUMERIC ": 1e2.5"},
        {"1e2e3", NOT_NUMERIC ": 1e2e3"},
        {"1,000", NOT_NUMERIC ": 1,000"},
        {"1_000", NOT_NUMERIC ": 1_000"},
        {"\xd9\xa1", NOT_NUMERIC ": \xd9\xa1"}, /* ARABIC-INDIC DIGIT ONE */
    };
    check_parse_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_text_with_an_embedded_nul_is_not_a_number(void)
{
    struct ddb_error err = {0};
    struct number n;

    CHECK_INT_EQ(number_parse("1\0"
                              "2",
                              3, &n, &err),
                 -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    ddb_error_clear(&err);
}

static void test_out_of_range_and_too_precise_numbers_are_rejected(void)
{
    /* dynalite test/putItem.js and scylladb test_number_magnitude_not_allowed,
     * test_number_precision_not_allowed. */
    static const struct text_case cases[] = {
        {"1e126", OVERFLOW},
        {"-1e126", OVERFLOW},
        {"11e125", OVERFLOW},
        {"10e125", OVERFLOW},
        {"1e-131", UNDERFLOW},
        {"-1e-131", UNDERFLOW},
        {"0.9e-130", UNDERFLOW},
        {"123456789012345678901234567890123456789", TOO_MANY_DIGITS},
        {"-1.23456789012345678901234567890123456789", TOO_MANY_DIGITS},
        {"3.14159265358979323846264338327950288419", TOO_MANY_DIGITS},
        {"314159265358979323846.264338327950288419", TOO_MANY_DIGITS},
        {"314159265358979323846264338327950288419e30", TOO_MANY_DIGITS},
        {"1.00000000000000000000000000000000000001", TOO_MANY_DIGITS},
        /* Range is checked before digits (dynalite validations checkNum). */
        {"123456789012345678901234567890123456789e200", OVERFLOW},
        {"123456789012345678901234567890123456789e-200", UNDERFLOW},
        /* Huge exponents saturate instead of overflowing int arithmetic. */
        {"1e999999999999", OVERFLOW},
        {"1e99999999999999999999999999999999", OVERFLOW},
        {"1e-99999999999999999999999999999999", UNDERFLOW},
        {"1.0e100000000", OVERFLOW},
        /* Zero is range-checked by its written exponent: AWS rejects 0e126 and
         * 0e-131 but accepts 0.0e126 (scylladb
         * test_number_magnitude_not_allowed_zero). */
        {"0e126", OVERFLOW},
        {"0e-131", UNDERFLOW},
        {"0e999999999999", OVERFLOW},
        {"0e125", "0"},
        {"0.0e126", "0"},
        {"0e-130", "0"},
        {"0.1e126", "1"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "0000000000"
                    "00000"},
    };
    check_parse_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_thirty_eight_significant_digits_are_kept_exactly(void)
{
    /* scylladb test_number_precision_allowed */
    static const struct text_case cases[] = {
        {"3.1415926535897932384626433832795028841", "3.1415926535897932384626433832795028841"},
        {"-12345678901234567890123456789012345678", "-12345678901234567890123456789012345678"},
        {"31415926535897932384626433832795028841e30",
         "31415926535897932384626433832795028841000000000000000000000000000000"},
        {"000000000000000000000012345678901234567890123456789012345678.000000000000",
         "12345678901234567890123456789012345678"},
    };
    check_parse_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_the_range_boundaries_are_accepted_and_printed_in_full(void)
{
    char *smallest = repeat("0.", '0', 129, "1");
    char *neg_smallest = repeat("-0.", '0', 129, "1");
    char *largest = repeat("99999999999999999999999999999999999999", '0', 88, "");
    char *smallest_38 = repeat("0.", '0', 129, "1234567890123456789012345678901234567");
    char *e125 = repeat("1", '0', 125, "");

    CHECK_STR_EQ(parse_result("1E-130"), smallest);
    CHECK_STR_EQ(parse_result("-1e-130"), neg_smallest);
    CHECK_STR_EQ(parse_result("9.9999999999999999999999999999999999999E+125"), largest);
    CHECK_STR_EQ(parse_result("1e125"), e125);
    CHECK_STR_EQ(parse_result("1.234567890123456789012345678901234567e-130"), smallest_38);
    CHECK_STR_EQ(parse_result(smallest), smallest);
    CHECK_STR_EQ(parse_result(largest), largest);
    CHECK_INT_EQ(strlen(smallest_38) < NUMBER_TEXT_MAX, 1);
    free(smallest);
    free(neg_smallest);
    free(largest);
    free(smallest_38);
    free(e125);
}

static void test_canonical_text_parses_back_to_the_same_number(void)
{
    static const char *inputs[] = {
        "0",      "1",         "-1",
        "0.001",  "123.456",   "-9.99e125",
        "1e-130", "-1.5e-129", "31415926535897932384626433832795028841e30",
        "42e10",  "-0.000120",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char text[NUMBER_TEXT_MAX], again[NUMBER_TEXT_MAX];
        struct number a = must_parse(inputs[i]), b;
        size_t len = number_format(&a, text, sizeof text);

        CHECK_INT_EQ(len, strlen(text));
        b = must_parse(text);
        CHECK_INT_EQ(number_compare(&a, &b), 0);
        CHECK_INT_EQ(memcmp(&a, &b, sizeof a), 0);
        number_format(&b, again, sizeof again);
        CHECK_STR_EQ(again, text);
    }
}

static void test_format_truncates_like_snprintf_and_returns_the_full_length(void)
{
    struct number n = must_parse("-123.45");
    char small[4];

    CHECK_INT_EQ(number_format(&n, small, sizeof small), 7);
    CHECK_STR_EQ(small, "-12");
    CHECK_INT_EQ(number_format(&n, NULL, 0), 7);
}

static void test_one_and_one_point_zero_are_the_same_key(void)
{
    struct number a = must_parse("1"), b = must_parse("1.0"), c = must_parse("10e-1");

    CHECK_INT_EQ(memcmp(&a, &b, sizeof a), 0);
    CHECK_INT_EQ(memcmp(&a, &c, sizeof a), 0);
    CHECK_INT_EQ(number_compare_text("1", 1, "1.0", 3), 0);
    CHECK_INT_EQ(number_compare_text("1000", 4, "1E+3", 4), 0);
    CHECK_INT_EQ(number_compare_text("-0", 2, "0", 1), 0);
}

static void test_comparison_is_numeric_across_signs_and_exponents(void)
{
    static const struct {
        const char *a, *b;
        int expected;
    } cases[] = {
        {"1", "2", -1},
        {"2", "1", 1},
        {"1", "1.0", 0},
        {"-1", "1", -1},
        {"1", "-1", 1},
        {"-2", "-1", -1},
        {"-1", "-2", 1},
        {"0", "-0", 0},
        {"0", "1e-130", -1},
        {"0", "-1e-130", 1},
        {"-1e-130", "0", -1},
        {"9", "10", -1},
        {"10", "9", 1},
        {"0.9", "0.10", 1},
        {"1.5", "1.50000001", -1},
        {"1.50000001", "1.5", 1},
        {"-1.5", "-1.50000001", 1},
        {"100", "1e2", 0},
        {"1e125", "9.9e124", 1},
        {"-1e125", "-9.9e124", -1},
        {"1e-130", "1e-129", -1},
        {"123", "122.999999", 1},
        {"2", "11", -1},
        {"-2", "-11", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct number a = must_parse(cases[i].a), b = must_parse(cases[i].b);
        int got = number_compare(&a, &b);

        if (got != cases[i].expected) {
            fprintf(stderr, "compare(%s, %s): got %d, want %d\n", cases[i].a, cases[i].b, got,
                    cases[i].expected);
            check_current_failed = 1;
        }
        CHECK_INT_EQ(number_compare(&b, &a), -cases[i].expected);
        CHECK_INT_EQ(
            number_compare_text(cases[i].a, strlen(cases[i].a), cases[i].b, strlen(cases[i].b)),
            cases[i].expected);
    }
}

static void test_zero_is_zero_whatever_its_spelling(void)
{
    struct number z = must_parse("-0.000e5"), one = must_parse("1");

    CHECK_INT_EQ(z.digit_count, 0);
    CHECK(!z.negative);
    CHECK_INT_EQ(z.exponent, 0);
    CHECK_INT_EQ(one.digit_count, 1);
}

struct arith_case {
    const char *a;
    char op;
    const char *b;
    const char *expected; /* canonical text or exact message */
};

static void test_addition_and_subtraction_are_exact(void)
{
    static const struct arith_case cases[] = {
        /* scylladb test_update_expression_plus_precision (AWS) */
        {"1", '+', "10000000000000000000000", "10000000000000000000001"},
        {"10000000000000000000000", '-', "1", "9999999999999999999999"},
        /* carries and borrows */
        {"1", '+', "1", "2"},
        {"9", '+', "1", "10"},
        {"999", '+', "1", "1000"},
        {"0.999", '+', "0.001", "1"},
        {"1000", '-', "1", "999"},
        {"1", '-', "0.001", "0.999"},
        {"0.1", '+', "0.2", "0.3"},
        {"0.3", '-', "0.1", "0.2"},
        {"1.5", '+', "2.25", "3.75"},
        {"99999999999999999999999999999999999999", '+', "1",
         "100000000000000000000000000000000000000"},
        {"100000000000000000000000000000000000000", '-', "1",
         "99999999999999999999999999999999999999"},
        /* cancellation to zero, never "-0" */
        {"5", '-', "5", "0"},
        {"-5", '+', "5", "0"},
        {"1.5", '-', "1.50", "0"},
        {"-0", '-', "0", "0"},
        {"0", '-', "0", "0"},
        /* zero operands */
        {"0", '+', "7", "7"},
        {"7", '+', "0", "7"},
        {"0", '-', "7", "-7"},
        {"0", '-', "-7", "7"},
        /* sign changes */
        {"3", '-', "5", "-2"},
        {"-3", '+', "5", "2"},
        {"-3", '-', "5", "-8"},
        {"-3", '-', "-5", "2"},
        {"3", '+', "-5", "-2"},
        {"-0.5", '+', "0.25", "-0.25"},
        /* far apart but within 38 digits */
        {"1e30", '+', "1e-7", "1000000000000000000000000000000.0000001"},
        {"1e125", '+', "1e125",
         "2"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "00000"},
        /* scylladb test_update_expression_plus_overflow: 9e125 + 9e124 is fine */
        {"9e125", '+', "9e124",
         "99"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = arith_result(cases[i].a, cases[i].op, cases[i].b);

        if (strcmp(got, cases[i].expected) != 0) {
            fprintf(stderr, "%s %c %s: got \"%s\", want \"%s\"\n", cases[i].a, cases[i].op,
                    cases[i].b, got, cases[i].expected);
            check_current_failed = 1;
        }
    }
}

static void test_unstorable_sums_fail_with_the_overflow_message(void)
{
    static const struct arith_case cases[] = {
        /* scylladb test_update_expression_plus_overflow (AWS) */
        {"9e125", '+', "9e125", OVERFLOW},
        {"9e125", '-', "-9e125", OVERFLOW},
        {"-9e125", '-', "9e125", OVERFLOW},
        /* ExtendDB issue #94 (AWS) */
        {"9.9999999999999999999999999999999999999E+125", '+', "1E+125", OVERFLOW},
        {"9.9999999999999999999999999999999999999E+125", '+', "1e88", OVERFLOW},
        /* scylladb test_update_expression_plus_imprecise: AWS does not round
         * and answers with the overflow text */
        {"1e50", '-', "1", OVERFLOW},
        {"1e50", '+', "1", OVERFLOW},
        {"1e30", '+', "1e-30", OVERFLOW},
        {"1e125", '+', "1e-130", OVERFLOW},
        {"99999999999999999999999999999999999999", '+', "0.1", OVERFLOW},
        /* too small: same text (see number.c) */
        {"1.5e-130", '-', "1e-130", OVERFLOW},
        {"-1.5e-130", '+', "1e-130", OVERFLOW},
        /* just fits */
        {"2e-130", '-', "1e-130",
         "0."
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "0000000000"
         "000000000"
         "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = arith_result(cases[i].a, cases[i].op, cases[i].b);

        if (strcmp(got, cases[i].expected) != 0) {
            fprintf(stderr, "%s %c %s: got \"%s\", want \"%s\"\n", cases[i].a, cases[i].op,
                    cases[i].b, got, cases[i].expected);
            check_current_failed = 1;
        }
    }
}

static void test_a_failed_sum_leaves_the_output_untouched(void)
{
    struct ddb_error err = {0};
    struct number a = must_parse("9e125"), b = must_parse("9e125"), out = must_parse("42");
    struct number before = out;

    CHECK_INT_EQ(number_add(&a, &b, &out, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_INT_EQ(memcmp(&out, &before, sizeof out), 0);
    ddb_error_clear(&err);
}

static void test_a_sum_may_be_written_over_an_operand(void)
{
    struct ddb_error err = {0};
    struct number a = must_parse("1.25"), b = must_parse("0.75");
    char text[NUMBER_TEXT_MAX];

    CHECK_INT_EQ(number_add(&a, &b, &a, &err), 0);
    number_format(&a, text, sizeof text);
    CHECK_STR_EQ(text, "2");
    CHECK_INT_EQ(number_subtract(&a, &b, &b, &err), 0);
    number_format(&b, text, sizeof text);
    CHECK_STR_EQ(text, "1.25");
}

int main(void)
{
    RUN(test_valid_numbers_are_returned_in_canonical_plain_notation);
    RUN(test_malformed_text_is_rejected_with_the_text_in_the_message);
    RUN(test_text_with_an_embedded_nul_is_not_a_number);
    RUN(test_out_of_range_and_too_precise_numbers_are_rejected);
    RUN(test_thirty_eight_significant_digits_are_kept_exactly);
    RUN(test_the_range_boundaries_are_accepted_and_printed_in_full);
    RUN(test_canonical_text_parses_back_to_the_same_number);
    RUN(test_format_truncates_like_snprintf_and_returns_the_full_length);
    RUN(test_one_and_one_point_zero_are_the_same_key);
    RUN(test_comparison_is_numeric_across_signs_and_exponents);
    RUN(test_zero_is_zero_whatever_its_spelling);
    RUN(test_addition_and_subtraction_are_exact);
    RUN(test_unstorable_sums_fail_with_the_overflow_message);
    RUN(test_a_failed_sum_leaves_the_output_untouched);
    RUN(test_a_sum_may_be_written_over_an_operand);
    return check_report();
}
