/*
 * test_response.c - CRC32, request ids and error bodies.
 *
 * The CRC vectors include the x-amz-crc32 values AWS sent for fixed bodies,
 * as recorded by dynalite's connection tests against the live service, so a
 * match proves both the CRC and our compact JSON are byte-identical to AWS's.
 */
#include "api/http/response.h"
#include "storage/base/alloc.h"
#include "storage/model/item.h"
#include "storage/tests/check.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>

static void test_crc32_vectors(void)
{
    CHECK_INT_EQ(response_crc32("", 0), 0);
    CHECK_INT_EQ(response_crc32("123456789", 9), 0xCBF43926U);
    CHECK_INT_EQ(response_crc32("The quick brown fox jumps over the lazy dog", 43), 0x414FA339U);
    /* x-amz-crc32 values DynamoDB sent for these bodies */
    CHECK_INT_EQ(response_crc32("<UnknownOperationException/>\n", 29), 3552371480U);
    CHECK_INT_EQ(response_crc32("healthy: dynamodb.us-east-1.amazonaws.com ", 42), 3128867991U);
}

/* The CRC a bit at a time: the definition, against which the tables and
 * the carry-less folding (bodies of 64 bytes and up) are checked. */
static uint32_t crc32_bitwise(const unsigned char *p, size_t len)
{
    uint32_t crc = 0xFFFFFFFFU;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320U : crc >> 1;
    }
    return crc ^ 0xFFFFFFFFU;
}

/* Every length up to 1,100 and a few long ones, at every alignment of the
 * first byte modulo 16, over pseudo-random bytes: each path of
 * response_crc32 (tables only, fold plus a tail of 0..15 bytes). */
static void test_crc32_every_length(void)
{
    size_t cap = 70000 + 16;
    unsigned char *buf = xmalloc(cap);
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    const size_t long_lens[] = {4096, 13007, 65536, 70000};

    for (size_t i = 0; i < cap; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[i] = (unsigned char) (state >> 56);
    }
    for (size_t offset = 0; offset < 16; offset++) {
        for (size_t len = 0; len <= 1100; len++)
            CHECK_INT_EQ(response_crc32(buf + offset, len), crc32_bitwise(buf + offset, len));
    }
    for (size_t i = 0; i < sizeof long_lens / sizeof *long_lens; i++)
        CHECK_INT_EQ(response_crc32(buf + 3, long_lens[i]), crc32_bitwise(buf + 3, long_lens[i]));
    free(buf);
}

/* Random bodies cut into random pieces (empty ones, ones under the fold's
 * 64 bytes, long ones): the CRC chained over the pieces with
 * response_crc32_update is the whole body's. */
static void test_crc32_update_chains_pieces(void)
{
    size_t cap = 20000;
    unsigned char *buf = xmalloc(cap);
    uint64_t state = 0x2545F4914F6CDD1DULL;

    for (int body = 0; body < 400; body++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t len = (size_t) (state >> 33) % cap, at = 0;
        for (size_t i = 0; i < len; i++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            buf[i] = (unsigned char) (state >> 56);
        }
        uint32_t crc = 0;
        while (at < len) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t piece = (size_t) (state >> 40) % (state % 4 == 0 ? 3000 : 100);
            if (piece > len - at) piece = len - at;
            crc = response_crc32_update(crc, buf + at, piece);
            at += piece;
        }
        CHECK_INT_EQ(crc, response_crc32(buf, len));
        CHECK_INT_EQ(crc, crc32_bitwise(buf, len));
    }
    CHECK_INT_EQ(response_crc32_update(response_crc32("1234", 4), "56789", 5), 0xCBF43926U);
    free(buf);
}

static const char *header(const struct http_response *r, const char *name)
{
    for (size_t i = 0; i < r->header_count; i++)
        if (strcmp(r->headers[i].name, name) == 0) return r->headers[i].value;
    return NULL;
}

static void test_error_bodies_match_aws(void)
{
    struct http_response r;
    struct ddb_error err = {0};

    memset(&r, 0, sizeof r);
    ddb_error_set_bare(&err, DDB_SERIALIZATION);
    response_error(&r, RESPONSE_CONTENT_TYPE_JSON, &err, NULL);
    CHECK_INT_EQ(r.status, 400);
    CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#SerializationException\"}");
    CHECK_STR_EQ(header(&r, "x-amz-crc32"), "3948637019");
    CHECK_STR_EQ(header(&r, "Content-Type"), "application/json");
    http_response_clear(&r);
    ddb_error_clear(&err);

    ddb_error_set_bare(&err, DDB_UNKNOWN_OPERATION);
    response_error(&r, RESPONSE_CONTENT_TYPE_JSON, &err, NULL);
    CHECK_STR_EQ(header(&r, "x-amz-crc32"), "1368724161");
    http_response_clear(&r);
    ddb_error_clear(&err);

    ddb_error_set(&err, DDB_MISSING_AUTHENTICATION_TOKEN,
                  "Request is missing Authentication Token");
    response_error(&r, RESPONSE_CONTENT_TYPE_JSON, &err, NULL);
    CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#"
                         "MissingAuthenticationTokenException\",\"message\":\"Request is missing "
                         "Authentication Token\"}");
    CHECK_STR_EQ(header(&r, "x-amz-crc32"), "2088342776");
    http_response_clear(&r);
    ddb_error_clear(&err);

    /* SerializationException spells its key "Message" */
    ddb_error_set(&err, DDB_SERIALIZATION, "Unexpected field type");
    response_error(&r, RESPONSE_CONTENT_TYPE_AMZ_JSON, &err, NULL);
    CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#SerializationException\","
                         "\"Message\":\"Unexpected field type\"}");
    CHECK_STR_EQ(header(&r, "Content-Type"), "application/x-amz-json-1.0");
    http_response_clear(&r);
    ddb_error_clear(&err);

    ddb_error_set(&err, DDB_INTERNAL_SERVER_ERROR, "Internal server error");
    response_error(&r, RESPONSE_CONTENT_TYPE_AMZ_JSON, &err, NULL);
    CHECK_INT_EQ(r.status, 500);
    http_response_clear(&r);
    ddb_error_clear(&err);
}

/* TransactionCanceledException, byte for byte as AWS sends it: "__type", then
 * "CancellationReasons" with {"Code"} alone for "None" and Code, Item, Message
 * otherwise, then "Message" (pynamodb/PynamoDB#1144 and boto/boto3#2657 quote
 * raw AWS answers). */
static void test_transaction_cancelled_body_matches_aws(void)
{
    struct http_response r;
    struct ddb_error err = {0};
    struct failure_details failure = {0};
    struct value attrs, v;

    memset(&r, 0, sizeof r);
    ddb_error_set(&err, DDB_TRANSACTION_CANCELED,
                  "Transaction cancelled, please refer cancellation reasons for specific reasons "
                  "[None, ConditionalCheckFailed]");
    failure.reason_count = 2;
    failure.reasons = xcalloc(2, sizeof *failure.reasons);
    failure.reasons[0].code = xstrdup("None");
    failure.reasons[1].code = xstrdup("ConditionalCheckFailed");
    failure.reasons[1].message = xstrdup("The conditional request failed");
    response_error(&r, RESPONSE_CONTENT_TYPE_AMZ_JSON, &err, &failure);
    CHECK_INT_EQ(r.status, 400);
    CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
                         "TransactionCanceledException\",\"CancellationReasons\":[{\"Code\":"
                         "\"None\"},{\"Code\":\"ConditionalCheckFailed\",\"Message\":\"The "
                         "conditional request failed\"}],\"Message\":\"Transaction cancelled, "
                         "please refer cancellation reasons for specific reasons [None, "
                         "ConditionalCheckFailed]\"}");
    http_response_clear(&r);

    value_init_map(&attrs);
    value_init_string(&v, "x", 1);
    value_map_set(&attrs, "pk", 2, &v);
    failure.reasons[1].item = item_new(&attrs);
    response_error(&r, RESPONSE_CONTENT_TYPE_AMZ_JSON, &err, &failure);
    CHECK(strstr(r.body, "{\"Code\":\"ConditionalCheckFailed\",\"Item\":{\"pk\":{\"S\":\"x\"}},"
                         "\"Message\":\"The conditional request failed\"}") != NULL);
    http_response_clear(&r);
    ddb_error_clear(&err);
    failure_details_clear(&failure);
}

static void test_success_body(void)
{
    struct http_response r;
    json_t *reply = json_pack("{s:[s,s]}", "TableNames", "a", "b");
    char crc[16];

    memset(&r, 0, sizeof r);
    response_success(&r, RESPONSE_CONTENT_TYPE_AMZ_JSON, reply);
    CHECK_INT_EQ(r.status, 200);
    CHECK_STR_EQ(r.body, "{\"TableNames\":[\"a\",\"b\"]}");
    snprintf(crc, sizeof crc, "%u", (unsigned) response_crc32(r.body, r.body_len));
    CHECK_STR_EQ(header(&r, "x-amz-crc32"), crc);
    http_response_clear(&r);
    json_decref(reply);

    response_success(&r, RESPONSE_CONTENT_TYPE_AMZ_JSON, NULL);
    CHECK_STR_EQ(r.body, "{}");
    http_response_clear(&r);
}

static void test_request_ids(void)
{
    char a[53], b[53];

    response_request_id(a);
    response_request_id(b);
    CHECK_INT_EQ(strlen(a), 52);
    for (int i = 0; i < 52; i++)
        CHECK(isdigit((unsigned char) a[i]) || isupper((unsigned char) a[i]));
    CHECK(strcmp(a, b) != 0);
    /* Every character can appear at every position (several characters come
     * from each random draw: none of them may be confined to a few values).
     * A character missing from one position in 2,000 ids happens with
     * probability ~1e-21. */
    {
        static bool seen[52][36];
        int missing = 0;
        for (int n = 0; n < 2000; n++) {
            response_request_id(a);
            for (int i = 0; i < 52; i++)
                seen[i][isdigit((unsigned char) a[i]) ? a[i] - '0' : a[i] - 'A' + 10] = true;
        }
        for (int i = 0; i < 52; i++)
            for (int c = 0; c < 36; c++)
                missing += !seen[i][c];
        CHECK_INT_EQ(missing, 0);
    }
}

int main(void)
{
    RUN(test_crc32_vectors);
    RUN(test_crc32_every_length);
    RUN(test_crc32_update_chains_pieces);
    RUN(test_error_bodies_match_aws);
    RUN(test_transaction_cancelled_body_matches_aws);
    RUN(test_success_body);
    RUN(test_request_ids);
    return check_report();
}
