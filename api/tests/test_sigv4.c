/*
 * test_sigv4.c - the SigV4 mechanics against AWS's published examples.
 *
 * Vectors: "get-vanilla" and "get-vanilla-query-order-key-case" of AWS's
 * Signature Version 4 test suite (credentials AKIDEXAMPLE /
 * wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, 20150830T123600Z, us-east-1,
 * service "service"), the IAM ListUsers example of the SigV4 documentation,
 * and a canonical request DynamoDB itself printed in an
 * InvalidSignatureException (recorded in dynalite's index.js), whose hash
 * is the one its string to sign carried.
 */
#include "api/sigv4/sigv4.h"
#include "storage/tests/check.h"

#include <stdlib.h>

#define SECRET     "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define EMPTY_HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Canonical request, string to sign and signature of m. */
static void sign(const struct sigv4_message *m, const char *date, const char *region,
                 const char *service, char **canonical, char **to_sign, char sig[SIGV4_HEX_SIZE])
{
    struct text_buf c = {0}, s = {0};
    char scope[128];

    sigv4_canonical_request(m, &c);
    snprintf(scope, sizeof scope, "%.8s/%s/%s/aws4_request", date, region, service);
    sigv4_string_to_sign(date, scope, c.data, &s);
    sigv4_signature(SECRET, "20150830", region, service, s.data, sig);
    *canonical = text_buf_take(&c, NULL);
    *to_sign = text_buf_take(&s, NULL);
}

static void test_get_vanilla(void)
{
    static const struct sigv4_field headers[] = {{"Host", "example.amazonaws.com"},
                                                 {"X-Amz-Date", "20150830T123600Z"}};
    struct sigv4_message m = {.method = "GET",
                              .path = "/",
                              .headers = headers,
                              .header_count = 2,
                              .signed_headers = "host;x-amz-date",
                              .payload_hash = EMPTY_HASH};
    char *canonical, *to_sign, sig[SIGV4_HEX_SIZE];

    sign(&m, "20150830T123600Z", "us-east-1", "service", &canonical, &to_sign, sig);
    CHECK_STR_EQ(canonical, "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                            "host;x-amz-date\n" EMPTY_HASH);
    CHECK_STR_EQ(to_sign, "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/"
                          "aws4_request\n"
                          "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
    CHECK_STR_EQ(sig, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
    free(canonical);
    free(to_sign);
}

static void test_query_order_and_header_case(void)
{
    /* Arguments sorted by name; header names lowercased, values trimmed. */
    static const struct sigv4_field query[] = {{"Param2", "value2"}, {"Param1", "value1"}};
    static const struct sigv4_field headers[] = {{"X-Amz-Date", "20150830T123600Z"},
                                                 {"HOST", "  example.amazonaws.com "}};
    struct sigv4_message m = {.method = "GET",
                              .path = "/",
                              .query = query,
                              .query_count = 2,
                              .headers = headers,
                              .header_count = 2,
                              .signed_headers = "host;x-amz-date",
                              .payload_hash = EMPTY_HASH};
    char *canonical, *to_sign, sig[SIGV4_HEX_SIZE];

    sign(&m, "20150830T123600Z", "us-east-1", "service", &canonical, &to_sign, sig);
    CHECK_STR_EQ(canonical, "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
                            "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_HASH);
    CHECK_STR_EQ(sig, "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
    free(canonical);
    free(to_sign);
}

static void test_iam_list_users(void)
{
    static const struct sigv4_field query[] = {{"Version", "2010-05-08"}, {"Action", "ListUsers"}};
    static const struct sigv4_field headers[] = {
        {"Content-Type", "application/x-www-form-urlencoded;   charset=utf-8"},
        {"Host", "iam.amazonaws.com"},
        {"X-Amz-Date", "20150830T123600Z"}};
    struct sigv4_message m = {.method = "GET",
                              .path = "",
                              .query = query,
                              .query_count = 2,
                              .headers = headers,
                              .header_count = 3,
                              .signed_headers = "content-type;host;x-amz-date",
                              .payload_hash = EMPTY_HASH};
    char *canonical, *to_sign, sig[SIGV4_HEX_SIZE];

    sign(&m, "20150830T123600Z", "us-east-1", "iam", &canonical, &to_sign, sig);
    CHECK_STR_EQ(to_sign, "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/"
                          "aws4_request\n"
                          "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
    CHECK_STR_EQ(sig, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
    free(canonical);
    free(to_sign);
}

static void test_dynamodb_recorded_canonical(void)
{
    static const struct sigv4_field headers[] = {{"host", "dynamodb.ap-southeast-2.amazonaws.com"}};
    struct sigv4_message m = {.method = "POST",
                              .path = "/",
                              .headers = headers,
                              .header_count = 1,
                              .signed_headers = "host",
                              .payload_hash = EMPTY_HASH};
    struct text_buf c = {0}, s = {0};

    sigv4_canonical_request(&m, &c);
    CHECK_STR_EQ(c.data,
                 "POST\n/\n\nhost:dynamodb.ap-southeast-2.amazonaws.com\n\nhost\n" EMPTY_HASH);
    sigv4_string_to_sign("20130609T100759Z", "20130609/ap-southeast-2/dynamodb/aws4_request",
                         c.data, &s);
    CHECK_STR_EQ(s.data, "AWS4-HMAC-SHA256\n20130609T100759Z\n20130609/ap-southeast-2/dynamodb/"
                         "aws4_request\n"
                         "7b8b82a032afd6014771e3375813fc995dd167b7b3a133a0b86e5925cb000ec5");
    text_buf_clear(&c);
    text_buf_clear(&s);
}

static void test_encoding_and_repeated_headers(void)
{
    static const struct sigv4_field query[] = {{"b", "a b"}, {"a", NULL}, {"a", "é/~"}};
    static const struct sigv4_field headers[] = {
        {"My-Header", "a   b\tc"}, {"Host", "h"}, {"my-header", "second"}};
    struct sigv4_message m = {.method = "POST",
                              .path = "/a b",
                              .query = query,
                              .query_count = 3,
                              .headers = headers,
                              .header_count = 3,
                              .signed_headers = "host;my-header;missing",
                              .payload_hash = "x"};
    struct text_buf c = {0};

    sigv4_canonical_request(&m, &c);
    /* The path is encoded twice (space -> %20 -> %2520); an argument
     * without '=' has an empty value; a signed header that is absent is an
     * empty line. */
    CHECK_STR_EQ(c.data, "POST\n/a%2520b\na=&a=%C3%A9%2F~&b=a%20b\nhost:h\nmy-header:a b c,second\n"
                         "missing:\n\nhost;my-header;missing\nx");
    text_buf_clear(&c);
}

static void test_dates_and_compare(void)
{
    time_t t;
    char text[17];

    CHECK_INT_EQ(sigv4_parse_date("20150830T123600Z", &t), 0);
    CHECK_INT_EQ((long long) t, 1440938160LL);
    sigv4_format_date(t, text);
    CHECK_STR_EQ(text, "20150830T123600Z");
    CHECK_INT_EQ(sigv4_parse_date("20240229T000000Z", &t), 0);
    CHECK_INT_EQ(sigv4_parse_date("201", &t), -1);
    CHECK_INT_EQ(sigv4_parse_date("2015-08-30T12:36:00Z", &t), -1);
    CHECK_INT_EQ(sigv4_parse_date("20151330T123600Z", &t), -1);
    CHECK_INT_EQ(sigv4_parse_date("20150830T123600", &t), -1);
    CHECK(sigv4_equal("abc", "abc"));
    CHECK(!sigv4_equal("abc", "abd"));
    CHECK(!sigv4_equal("abc", "abcd"));
}

int main(void)
{
    RUN(test_get_vanilla);
    RUN(test_query_order_and_header_case);
    RUN(test_iam_list_users);
    RUN(test_dynamodb_recorded_canonical);
    RUN(test_encoding_and_repeated_headers);
    RUN(test_dates_and_compare);
    return check_report();
}
