/*
 * test_auth.c - auth_check with a credentials store: every check, its
 * order and its text (auth.c's header names the recordings), and the
 * credentials file's format.
 *
 * The signed request below was signed outside this code (Python's hmac and
 * hashlib, following AWS's SigV4 steps) for AKIDTEST / SECRETKEY at
 * 20240101T000000Z, so a mistake shared by signer and verifier cannot hide.
 */
#include "api/http/auth.h"
#include "api/sigv4/credentials.h"
#include "api/sigv4/sigv4.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

#define BODY      "{\"TableName\":\"Music\"}"
#define SIGNATURE "efe56b46859db7c430e42ded8983a471ae7c49e56f7888425d90031f58841c1c"
#define CANONICAL                                                                                  \
    "POST\n/\n\ncontent-type:application/x-amz-json-1.0\nhost:localhost:8000\n"                    \
    "x-amz-date:20240101T000000Z\nx-amz-target:DynamoDB_20120810.DescribeTable\n\n"                \
    "content-type;host;x-amz-date;x-amz-target\n"                                                  \
    "6b140459926d5b244a92626dd8d74fa6c3ddd91f508085b8e9e0a164221dba3a"
#define STRING_TO_SIGN                                                                             \
    "AWS4-HMAC-SHA256\n20240101T000000Z\n20240101/us-west-2/dynamodb/aws4_request\n"               \
    "1a8e8b2e4aa2d0f6817f5da0e4e31ede5dc0c05798eaa02656cdea4bc6426411"

static const char store_text[] = "# test keys\n"
                                 "\n"
                                 "AKIDTEST SECRETKEY\n"
                                 "  ASIATEMP   TEMPSECRET   TOKEN123  \n";

/* 20240101T000000Z, and five minutes later. */
#define SIGNED_AT 1704067200
#define NOW       (SIGNED_AT + 300)

struct req {
    struct http_field headers[8];
    struct http_request http;
    char auth[512];
};

/* The signed request; auth, date and body, when given, replace its own. */
static void make(struct req *r, const char *auth, const char *date, const char *body)
{
    memset(r, 0, sizeof *r);
    snprintf(r->auth, sizeof r->auth, "%s",
             auth ? auth
                  : "AWS4-HMAC-SHA256 Credential=AKIDTEST/20240101/us-west-2/dynamodb/"
                    "aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                    "Signature=" SIGNATURE);
    r->headers[0] = (struct http_field){"Content-Type", "application/x-amz-json-1.0"};
    r->headers[1] = (struct http_field){"Host", "localhost:8000"};
    r->headers[2] = (struct http_field){"X-Amz-Date", date ? date : "20240101T000000Z"};
    r->headers[3] = (struct http_field){"X-Amz-Target", "DynamoDB_20120810.DescribeTable"};
    r->headers[4] = (struct http_field){"Authorization", r->auth};
    r->http.method = "POST";
    r->http.path = "/";
    r->http.headers = r->headers;
    r->http.header_count = 5;
    r->http.body = body ? body : BODY;
    r->http.body_len = strlen(r->http.body);
}

/* Runs auth_check; returns the error code and copies the message. */
static enum ddb_error_code check(const struct req *r, const struct credentials *store, time_t now,
                                 char *message, size_t size)
{
    struct auth_identity who;
    struct ddb_error err = {0};
    enum ddb_error_code code;

    auth_check(&r->http, store, now, &who, &err);
    code = err.code;
    snprintf(message, size, "%s", err.message ? err.message : "");
    ddb_error_clear(&err);
    return code;
}

static struct credentials *store_new(void)
{
    char *why = NULL;
    struct credentials *store = credentials_parse(store_text, &why);
    CHECK(store != NULL);
    free(why);
    return store;
}

static void test_good_signature_passes(void)
{
    struct credentials *store = store_new();
    struct req r;
    struct auth_identity who;
    struct ddb_error err = {0};

    make(&r, NULL, NULL, NULL);
    CHECK_INT_EQ(auth_check(&r.http, store, NOW, &who, &err), 0);
    CHECK_STR_EQ(who.access_key, "AKIDTEST");
    CHECK_STR_EQ(who.region, "us-west-2");
    /* Signed 15 minutes ago, or 15 minutes ahead: still inside the window. */
    CHECK_INT_EQ(auth_check(&r.http, store, SIGNED_AT + 900, &who, &err), 0);
    CHECK_INT_EQ(auth_check(&r.http, store, SIGNED_AT - 900, &who, &err), 0);
    credentials_free(store);
}

static void test_wrong_signature_shows_canonical_request(void)
{
    struct credentials *store = store_new();
    struct req r;
    char msg[4096];
    char hash[SIGV4_HEX_SIZE];

    /* A body changed on the way: the canonical request carries its hash. */
    make(&r, NULL, NULL, "{\"TableName\":\"Other\"}");
    sigv4_sha256_hex(r.http.body, r.http.body_len, hash);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK(strstr(msg, hash) != NULL);
    make(&r,
         "AWS4-HMAC-SHA256 Credential=AKIDTEST/20240101/us-west-2/dynamodb/aws4_request, "
         "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0000",
         NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(msg, "The request signature we calculated does not match the signature you "
                      "provided. Check your AWS Secret Access Key and signing method. Consult "
                      "the service documentation for details.\n\nThe Canonical String for this "
                      "request should have been\n'" CANONICAL "'\n\nThe String-to-Sign should "
                      "have been\n'" STRING_TO_SIGN "'\n");
    credentials_free(store);
}

static void test_unknown_key_and_tokens(void)
{
    struct credentials *store = store_new();
    struct req r;
    char msg[512];

    make(&r,
         "AWS4-HMAC-SHA256 Credential=NOBODY/20240101/us-west-2/dynamodb/aws4_request, "
         "SignedHeaders=host, Signature=" SIGNATURE,
         NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_UNRECOGNIZED_CLIENT);
    CHECK_STR_EQ(msg, "The security token included in the request is invalid.");
    /* Temporary credentials without their token: unknown. */
    make(&r,
         "AWS4-HMAC-SHA256 Credential=ASIATEMP/20240101/us-west-2/dynamodb/aws4_request, "
         "SignedHeaders=host, Signature=" SIGNATURE,
         NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_UNRECOGNIZED_CLIENT);
    CHECK_STR_EQ(msg, "The security token included in the request is invalid.");
    /* A token where the key has none: refused after the signature. */
    make(&r, NULL, NULL, NULL);
    r.headers[5] = (struct http_field){"X-Amz-Security-Token", "TOKEN123"};
    r.http.header_count = 6;
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_UNRECOGNIZED_CLIENT);
    CHECK_STR_EQ(msg, "The security token included in the request is invalid");
    credentials_free(store);
}

static void test_clock_skew(void)
{
    struct credentials *store = store_new();
    struct req r;
    char msg[512];

    make(&r, NULL, NULL, NULL);
    CHECK_INT_EQ(check(&r, store, SIGNED_AT + 901, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(msg, "Signature expired: 20240101T000000Z is now earlier than 20240101T000001Z "
                      "(20240101T001501Z - 15 min.)");
    CHECK_INT_EQ(check(&r, store, SIGNED_AT - 901, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(msg, "Signature not yet current: 20240101T000000Z is still later than "
                      "20231231T235959Z (20231231T234459Z + 15 min.)");
    make(&r, NULL, "201", NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INCOMPLETE_SIGNATURE);
    CHECK_STR_EQ(msg, "Date must be in ISO-8601 'basic format'. Got '201'. See "
                      "http://en.wikipedia.org/wiki/ISO_8601");
    credentials_free(store);
}

static void test_scope_checks_in_order(void)
{
    struct credentials *store = store_new();
    struct req r;
    char msg[1024];

    /* An old date goes first (the scope here is garbage too). */
    make(&r,
         "AWS4-HMAC-SHA256 Credential=a/2/3/4/aws4_request SignedHeaders=x-amz-date;host "
         "Signature=123",
         "20170101T010101Z", NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK(strncmp(msg, "Signature expired: 20170101T010101Z is now earlier than", 55) == 0);
    make(&r, "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=x-amz-date, Signature=1", NULL,
         NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(msg, "'Host' must be a 'SignedHeader' in the AWS Authorization.");
    make(&r, "AWS4-HMAC-SHA25 Credential=a/b/c/d/e, SignedHeaders=Host, Signature=1", NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INCOMPLETE_SIGNATURE);
    CHECK_STR_EQ(msg, "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for "
                      "now). ");
    make(&r, "AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=1", NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INCOMPLETE_SIGNATURE);
    CHECK_STR_EQ(msg, "Credential must have exactly 5 slash-delimited elements, e.g. "
                      "keyid/date/region/service/term, got 'a/b/c/d'");
    make(&r, "AWS4-HMAC-SHA256 Credential=a/b//d/e, SignedHeaders=host, Signature=1", NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(msg, "Credential should be scoped to a valid region, not ''. Credential should "
                      "be scoped to correct service: 'dynamodb'. Credential should be scoped with "
                      "a valid terminator: 'aws4_request', not 'e'. Date in Credential scope "
                      "does not match YYYYMMDD from ISO-8601 version of date from HTTP: 'b' != "
                      "'20240101', from '20240101T000000Z'.");
    make(&r,
         "AWS4-HMAC-SHA256 Credential=a/20240101/r/dynamodbstreams/aws4_request, "
         "SignedHeaders=host, Signature=1",
         NULL, NULL);
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(msg, "Credential should be scoped to correct service: 'dynamodb'.");
    credentials_free(store);
}

static void test_presigned(void)
{
    struct credentials *store = store_new();
    struct http_field headers[] = {{"Host", "localhost:8000"}};
    struct http_field query[] = {
        {"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
        {"X-Amz-Credential", "AKIDTEST/20240101/us-west-2/dynamodb/aws4_request"},
        {"X-Amz-Date", "20240101T000000Z"},
        {"X-Amz-Expires", "3600"},
        {"X-Amz-SignedHeaders", "host"},
        {"X-Amz-Signature", NULL},
    };
    struct http_request req = {.method = "POST",
                               .path = "/",
                               .headers = headers,
                               .header_count = 1,
                               .query = query,
                               .query_count = 6,
                               .body = "",
                               .body_len = 0};
    struct sigv4_field q[5], h[1] = {{"Host", "localhost:8000"}};
    struct text_buf c = {0}, s = {0};
    char sig[SIGV4_HEX_SIZE], empty[SIGV4_HEX_SIZE];
    struct auth_identity who;
    struct ddb_error err = {0};

    /* Signed here with the same mechanics (test_sigv4.c checks those against
     * AWS's vectors); what is tested is the presigned flow around them. */
    for (int i = 0; i < 5; i++)
        q[i] = (struct sigv4_field){query[i].name, query[i].value};
    sigv4_sha256_hex("", 0, empty);
    struct sigv4_message m = {.method = "POST",
                              .path = "/",
                              .query = q,
                              .query_count = 5,
                              .headers = h,
                              .header_count = 1,
                              .signed_headers = "host",
                              .payload_hash = empty};
    sigv4_canonical_request(&m, &c);
    sigv4_string_to_sign("20240101T000000Z", "20240101/us-west-2/dynamodb/aws4_request", c.data,
                         &s);
    sigv4_signature("SECRETKEY", "20240101", "us-west-2", "dynamodb", s.data, sig);
    query[5].value = sig;
    CHECK_INT_EQ(auth_check(&req, store, NOW, &who, &err), 0);
    /* Good for X-Amz-Expires seconds, beyond the 15 minutes. */
    CHECK_INT_EQ(auth_check(&req, store, SIGNED_AT + 3600, &who, &err), 0);
    CHECK_INT_EQ(auth_check(&req, store, SIGNED_AT + 3601, &who, &err), -1);
    CHECK_INT_EQ(err.code, DDB_INVALID_SIGNATURE);
    CHECK_STR_EQ(err.message, "Signature expired: 20240101T000000Z is now earlier than "
                              "20240101T000001Z (20240101T010001Z - 3600 sec.)");
    ddb_error_clear(&err);
    query[5].value = "bad";
    CHECK_INT_EQ(auth_check(&req, store, NOW, &who, &err), -1);
    CHECK_INT_EQ(err.code, DDB_INVALID_SIGNATURE);
    ddb_error_clear(&err);
    text_buf_clear(&c);
    text_buf_clear(&s);
    credentials_free(store);
}

static void test_without_store_any_key_passes(void)
{
    struct req r;
    struct auth_identity who;
    struct ddb_error err = {0};

    make(&r, "AWS4-HMAC-SHA256 Credential=anyone/x/eu-west-1/y/z, SignedHeaders=a, Signature=0",
         "not a date", NULL);
    CHECK_INT_EQ(auth_check(&r.http, NULL, NOW, &who, &err), 0);
    CHECK_STR_EQ(who.access_key, "anyone");
    CHECK_STR_EQ(who.region, "eu-west-1");
}

/* DynamoDB's API is at "/": a request signed for it and sent elsewhere fails
 * its signature on AWS, and auth_check_path refuses any other path so. */
static void test_another_path_fails_the_signature(void)
{
    struct credentials *store = store_new();
    struct req r;
    struct auth_identity who;
    struct ddb_error err = {0};
    char msg[4096];

    make(&r, NULL, NULL, NULL);
    CHECK_INT_EQ(auth_check_path(&r.http, &err), 0);
    r.http.path = "/garbage";
    CHECK_INT_EQ(check(&r, store, NOW, msg, sizeof msg), DDB_INVALID_SIGNATURE);
    CHECK(strstr(msg, "'POST\n/garbage\n\ncontent-type:") != NULL);
    /* Without a store no signature is verified: the path decides. */
    CHECK_INT_EQ(auth_check(&r.http, NULL, NOW, &who, &err), 0);
    CHECK_INT_EQ(auth_check_path(&r.http, &err), -1);
    CHECK_INT_EQ(err.code, DDB_INVALID_SIGNATURE);
    CHECK(strncmp(err.message,
                  "The request signature we calculated does not match the signature you "
                  "provided. Check your AWS Secret Access Key and signing method. Consult the "
                  "service documentation for details.\n\nThe Canonical String for this request "
                  "should have been\n'POST\n/garbage\n\ncontent-type:",
                  200) == 0);
    CHECK(strstr(err.message,
                 "\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n"
                 "20240101T000000Z\n20240101/us-west-2/dynamodb/aws4_request\n") != NULL);
    ddb_error_clear(&err);
    credentials_free(store);
}

static void test_credentials_file_format(void)
{
    char *why = NULL;
    struct credentials *store = credentials_parse(store_text, &why);
    const struct credential_entry *e;

    CHECK(store && !why);
    CHECK_INT_EQ(credentials_count(store), 2);
    e = credentials_find(store, "ASIATEMP");
    CHECK(e && strcmp(e->secret_key, "TEMPSECRET") == 0 &&
          strcmp(e->session_token, "TOKEN123") == 0);
    CHECK(credentials_find(store, "AKIDTEST")->session_token == NULL);
    CHECK(credentials_find(store, "akidtest") == NULL);
    credentials_free(store);

    CHECK(credentials_parse("A B\nC\n", &why) == NULL);
    CHECK_STR_EQ(why, "line 2: expected ACCESS_KEY_ID SECRET_ACCESS_KEY [SESSION_TOKEN]");
    free(why);
    CHECK(credentials_parse("A B C D\n", &why) == NULL);
    free(why);
    CHECK(credentials_parse("A B\nA C\n", &why) == NULL);
    CHECK_STR_EQ(why, "line 2: this access key was already given");
    free(why);
    CHECK(credentials_parse("# nothing\n\n", &why) == NULL);
    free(why);
}

int main(void)
{
    RUN(test_good_signature_passes);
    RUN(test_wrong_signature_shows_canonical_request);
    RUN(test_unknown_key_and_tokens);
    RUN(test_clock_skew);
    RUN(test_scope_checks_in_order);
    RUN(test_presigned);
    RUN(test_without_store_any_key_passes);
    RUN(test_another_path_fails_the_signature);
    RUN(test_credentials_file_format);
    return check_report();
}
