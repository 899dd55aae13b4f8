/*
 * test_dispatch.c - raw HTTP requests into api_handle, status and body out.
 *
 * Uses a test-only operations table (two made-up handlers behind real target
 * names), so it needs no engine: these are the protocol-level answers, in
 * the order DynamoDB gives them (dispatch.c's header lists the source).
 */
#include "api/http/dispatch.h"
#include "api/http/response.h"
#include "storage/tests/check.h"

#include <stdlib.h>

#define SIGNED                                                                                     \
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-west-2/dynamodb/aws4_request, "           \
    "SignedHeaders=host;x-amz-date, Signature=abc"

static const struct field echo_fields[] = {
    {"TableName", F_STRING, .required = true, .min_len = 3, .max_len = 255,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true, .max_value = 100},
    {0},
};

/* Replies with the scope it was given, so tests can see the namespace. */
static int op_echo(struct api_request *rq)
{
    rq->reply =
        json_pack("{s:s,s:s}", "Namespace", rq->scope.namespace_id, "Region", rq->scope.region);
    return 0;
}

/* Fails without saying why: a bug, answered as a 500. */
static int op_broken(struct api_request *rq)
{
    (void) rq;
    return -1;
}

static const struct operation test_ops[] = {
    {"DynamoDB_20120810.DescribeTable", op_echo, echo_fields},
    {"DynamoDB_20120810.DeleteTable", op_broken, echo_fields},
    {NULL, NULL, NULL},
};

static struct api_config shared_config = {.shared_db = true};
static struct api_config own_config = {.shared_db = false};

struct result {
    int status;
    char *body;
    json_t *json;
    char *type;    /* __type */
    char *message; /* message or Message */
    bool has_message;
    char content_type[64];
    bool has_request_id;
    bool crc_ok;
    char allow_origin[8];
};

static void result_clear(struct result *r)
{
    free(r->body);
    free(r->type);
    free(r->message);
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

/* Runs one request at path. headers: NULL-terminated name/value pairs. */
static struct result run_at(const char *path, const char *method, const char *const *headers,
                            const char *query_name, const char *query_value, const char *body,
                            bool shared)
{
    struct http_field hdrs[16], q[1];
    size_t n = 0;
    struct http_request req;
    struct http_response resp;
    struct api_context ctx = {
        .db = NULL, .config = shared ? &shared_config : &own_config, .operations = test_ops};
    struct result r;

    memset(&r, 0, sizeof r);
    for (; headers && headers[0]; headers += 2)
        hdrs[n++] = (struct http_field){headers[0], headers[1]};
    memset(&req, 0, sizeof req);
    req.method = method;
    req.path = path;
    req.headers = hdrs;
    req.header_count = n;
    if (query_name) {
        q[0] = (struct http_field){query_name, query_value};
        req.query = q;
        req.query_count = 1;
    }
    req.body = body ? body : "";
    req.body_len = body ? strlen(body) : 0;
    memset(&resp, 0, sizeof resp);

    api_handle(&ctx, &req, &resp);

    r.status = resp.status;
    r.body = resp.body ? strndup(resp.body, resp.body_len) : strdup("");
    for (size_t i = 0; i < resp.header_count; i++) {
        const char *name = resp.headers[i].name, *value = resp.headers[i].value;
        if (strcmp(name, "Content-Type") == 0)
            snprintf(r.content_type, sizeof r.content_type, "%s", value);
        if (strcmp(name, "x-amzn-RequestId") == 0) r.has_request_id = strlen(value) == 52;
        if (strcmp(name, "Access-Control-Allow-Origin") == 0)
            snprintf(r.allow_origin, sizeof r.allow_origin, "%s", value);
        if (strcmp(name, "x-amz-crc32") == 0) {
            char crc[16];
            snprintf(crc, sizeof crc, "%u", (unsigned) response_crc32(resp.body, resp.body_len));
            r.crc_ok = strcmp(crc, value) == 0;
        }
    }
    r.json = json_loads(r.body, 0, NULL);
    if (json_is_object(r.json)) {
        json_t *t = json_object_get(r.json, "__type");
        json_t *m = json_object_get(r.json, "message");
        if (!m) m = json_object_get(r.json, "Message");
        if (t) r.type = strdup(json_string_value(t));
        if (m) {
            r.message = strdup(json_string_value(m));
            r.has_message = true;
        }
    }
    http_response_clear(&resp);
    return r;
}

/* Runs one request at "/". */
static struct result run(const char *method, const char *const *headers, const char *query_name,
                         const char *query_value, const char *body, bool shared)
{
    return run_at("/", method, headers, query_name, query_value, body, shared);
}

static const char *const target_only[] = {"X-Amz-Target", "DynamoDB_20120810.DescribeTable", NULL};

static void test_health_and_http_level(void)
{
    struct result r;

    /* The health line names the host the client addressed. */
    {
        static const char *const h[] = {"Host", "127.0.0.1:8000", NULL};
        r = run("GET", h, NULL, NULL, NULL, false);
        CHECK_INT_EQ(r.status, 200);
        CHECK_STR_EQ(r.body, "healthy: 127.0.0.1:8000 ");
        CHECK(r.crc_ok && r.has_request_id);
        result_clear(&r);
    }
    {
        static const char *const h[] = {"host", "dynamodb.eu-west-1.amazonaws.com", NULL};
        r = run_at("/", "GET", h, "x", "1", NULL, false);
        CHECK_INT_EQ(r.status, 200);
        CHECK_STR_EQ(r.body, "healthy: dynamodb.eu-west-1.amazonaws.com ");
        result_clear(&r);
    }
    /* Without a Host header (HTTP/1.0), the endpoint's AWS name. */
    r = run("GET", NULL, NULL, NULL, NULL, false);
    CHECK_INT_EQ(r.status, 200);
    CHECK_STR_EQ(r.body, "healthy: dynamodb.us-east-1.amazonaws.com ");
    CHECK(r.crc_ok && r.has_request_id);
    result_clear(&r);
    /* A GET of any other path is no health check. */
    {
        static const char *const paths[] = {"/abc", "/-", "/index.htm", "/health", "//"};
        static const char *const h[] = {"Host", "127.0.0.1:8000", NULL};
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
            r = run_at(paths[i], "GET", h, NULL, NULL, NULL, false);
            CHECK_INT_EQ(r.status, 404);
            CHECK_STR_EQ(r.body, "<UnknownOperationException/>\n");
            CHECK(r.crc_ok && r.has_request_id);
            result_clear(&r);
        }
    }

    r = run("PUT", NULL, NULL, NULL, NULL, false);
    CHECK_INT_EQ(r.status, 404);
    CHECK_STR_EQ(r.body, "<UnknownOperationException/>\n");
    CHECK(r.crc_ok && r.has_request_id);
    result_clear(&r);

    r = run("OPTIONS", NULL, NULL, NULL, NULL, false);
    CHECK_INT_EQ(r.status, 404);
    result_clear(&r);

    {
        static const char *const h[] = {"Content-Type", "whatever", NULL};
        r = run("POST", h, NULL, NULL, "hi", false);
        CHECK_INT_EQ(r.status, 404);
        result_clear(&r);
    }
    {
        static const char *const h[] = {"Content-Type", "application/x-amz-json-1.1", NULL};
        r = run("POST", h, NULL, NULL, "hi", false);
        CHECK_INT_EQ(r.status, 404);
        result_clear(&r);
    }
    /* no body and no content type: not a 404 */
    r = run("POST", NULL, NULL, NULL, NULL, false);
    CHECK_INT_EQ(r.status, 400);
    CHECK_STR_EQ(r.type, "com.amazon.coral.service#UnknownOperationException");
    CHECK(!r.has_message);
    CHECK_STR_EQ(r.content_type, "application/json");
    result_clear(&r);
}

static void test_cors(void)
{
    struct result r;
    static const char *const pre[] = {"Origin", "whatever", "Access-Control-Request-Headers",
                                      "a, b, c", NULL};
    static const char *const h[] = {"Origin", "x", NULL};

    r = run("OPTIONS", pre, NULL, NULL, NULL, false);
    CHECK_INT_EQ(r.status, 200);
    CHECK_STR_EQ(r.body, "");
    CHECK_STR_EQ(r.allow_origin, "*");
    result_clear(&r);

    r = run("POST", h, NULL, NULL, NULL, false);
    CHECK_STR_EQ(r.type, "com.amazon.coral.service#UnknownOperationException");
    CHECK_STR_EQ(r.allow_origin, "*");
    result_clear(&r);
}

static void test_malformed_json(void)
{
    static const char *const bodies[] = {"hi", "{",     "{\"a\":}",    "[]",
                                         "7",  "\"s\"", "{\"a\": 1}}", NULL};
    static const char *const json[] = {"Content-Type", "application/json", NULL};
    static const char *const amz[] = {"Content-Type", "application/x-amz-json-1.0;blahblah", NULL};

    for (const char *const *b = bodies; *b; b++) {
        struct result r = run("POST", json, NULL, NULL, *b, false);
        CHECK_INT_EQ(r.status, 400);
        CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#SerializationException\"}");
        CHECK_STR_EQ(r.content_type, "application/json");
        result_clear(&r);
    }
    {
        struct result r = run("POST", amz, NULL, NULL, "hi", false);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#SerializationException");
        CHECK_STR_EQ(r.content_type, "application/x-amz-json-1.0");
        result_clear(&r);
    }
}

static void test_unknown_operation(void)
{
    static const char *const cases[] = {"whatever", "DynamoDB_20120810.ListTable",
                                        "DynamoDB_20120810.describetable",
                                        "DynamoDB_20120810.PutItem", NULL};

    for (const char *const *t = cases; *t; t++) {
        const char *h[] = {"Content-Type",
                           "application/x-amz-json-1.0",
                           "X-Amz-Target",
                           *t,
                           "Authorization",
                           SIGNED,
                           "X-Amz-Date",
                           "20240101T000000Z",
                           NULL};
        struct result r = run("POST", h, NULL, NULL, "{}", false);
        CHECK_INT_EQ(r.status, 400);
        CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#UnknownOperationException\"}");
        result_clear(&r);
    }
}

static void test_authentication_errors(void)
{
    struct result r;

    r = run("POST", target_only, NULL, NULL, NULL, false);
    CHECK_STR_EQ(r.type, "com.amazon.coral.service#MissingAuthenticationTokenException");
    CHECK_STR_EQ(r.message, "Request is missing Authentication Token");
    result_clear(&r);
    {
        static const char *const h[] = {"X-Amz-Target", "DynamoDB_20120810.DescribeTable",
                                        "Authorization", "AWS4", NULL};
        r = run("POST", h, NULL, NULL, NULL, false);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#MissingAuthenticationTokenException");
        result_clear(&r);
    }
    {
        static const char *const h[] = {"X-Amz-Target", "DynamoDB_20120810.DescribeTable",
                                        "Authorization", "AWS4-", NULL};
        r = run("POST", h, NULL, NULL, NULL, false);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#IncompleteSignatureException");
        CHECK_STR_EQ(r.message,
                     "Authorization header requires 'Credential' parameter. Authorization header "
                     "requires 'Signature' parameter. Authorization header requires "
                     "'SignedHeaders' parameter. Authorization header requires existence of "
                     "either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-");
        CHECK_STR_EQ(r.body,
                     "{\"__type\":\"com.amazon.coral.service#IncompleteSignatureException\","
                     "\"message\":\"Authorization header requires 'Credential' parameter. "
                     "Authorization header requires 'Signature' parameter. Authorization header "
                     "requires 'SignedHeaders' parameter. Authorization header requires existence "
                     "of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-\"}");
        CHECK_INT_EQ(response_crc32(r.body, strlen(r.body)), 1828866742U);
        result_clear(&r);
    }
    {
        static const char *const auths[] = {"AWS4- Signature=b Credential=a",
                                            "AWS4- Signature=b,Credential=a",
                                            "AWS4- Signature=b, Credential=a", NULL};
        for (const char *const *a = auths; *a; a++) {
            const char *h[] = {"X-Amz-Target",
                               "DynamoDB_20120810.DescribeTable",
                               "Authorization",
                               *a,
                               "Date",
                               "a",
                               NULL};
            char want[200];
            r = run("POST", h, NULL, NULL, NULL, false);
            snprintf(want, sizeof want,
                     "Authorization header requires 'SignedHeaders' parameter. Authorization=%s",
                     *a);
            CHECK_STR_EQ(r.message, want);
            result_clear(&r);
        }
    }
    {
        static const char *const h[] = {"X-Amz-Target", "DynamoDB_20120810.DescribeTable",
                                        "Authorization", "X", NULL};
        r = run("POST", h, "X-Amz-Algorithm", NULL, NULL, false);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#InvalidSignatureException");
        CHECK_STR_EQ(r.message, "Found both 'X-Amz-Algorithm' as a query-string param and "
                                "'Authorization' as HTTP header.");
        CHECK_INT_EQ(response_crc32(r.body, strlen(r.body)), 2139606068U);
        result_clear(&r);
    }
    r = run("POST", target_only, "X-Amz-Algorithm", NULL, NULL, false);
    CHECK_STR_EQ(r.type, "com.amazon.coral.service#IncompleteSignatureException");
    CHECK_STR_EQ(r.message, "AWS query-string parameters must include 'X-Amz-Algorithm'. AWS "
                            "query-string parameters must include 'X-Amz-Credential'. AWS "
                            "query-string parameters must include 'X-Amz-Signature'. AWS "
                            "query-string parameters must include 'X-Amz-SignedHeaders'. AWS "
                            "query-string parameters must include 'X-Amz-Date'. Re-examine the "
                            "query-string parameters.");
    result_clear(&r);
    {
        static const char *const h[] = {
            "Content-Type",
            "application/json",
            "X-Amz-Target",
            "DynamoDB_20120810.DescribeTable",
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=x",
            "X-Amz-Date",
            "20240101T000000Z",
            NULL};
        r = run("POST", h, NULL, NULL, "{}", false);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#IncompleteSignatureException");
        CHECK_STR_EQ(r.message, "Credential must have exactly 5 slash-delimited elements, e.g. "
                                "keyid/date/region/service/term, got 'a/b/c/d'");
        result_clear(&r);
    }
}

static const char *const signed_headers[] = {"Content-Type",
                                             "application/x-amz-json-1.0",
                                             "X-Amz-Target",
                                             "DynamoDB_20120810.DescribeTable",
                                             "Authorization",
                                             SIGNED,
                                             "X-Amz-Date",
                                             "20240101T000000Z",
                                             NULL};

static void test_empty_body_after_auth(void)
{
    struct result r = run("POST", signed_headers, NULL, NULL, NULL, false);

    CHECK_INT_EQ(r.status, 400);
    CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#SerializationException\"}");
    CHECK_STR_EQ(r.content_type, "application/x-amz-json-1.0");
    result_clear(&r);
}

static void test_shape_errors(void)
{
    struct result r;

    r = run("POST", signed_headers, NULL, NULL, "{\"TableName\": 5}", false);
    CHECK_STR_EQ(r.type, "com.amazon.coral.service#SerializationException");
    CHECK_STR_EQ(r.message, "NUMBER_VALUE cannot be converted to String");
    CHECK_STR_EQ(r.body, "{\"__type\":\"com.amazon.coral.service#SerializationException\","
                         "\"Message\":\"NUMBER_VALUE cannot be converted to String\"}");
    result_clear(&r);

    r = run("POST", signed_headers, NULL, NULL, "{\"TableName\": \"ab\", \"Limit\": 200}", false);
    CHECK_STR_EQ(r.type, "com.amazon.coral.validate#ValidationException");
    CHECK_STR_EQ(r.message,
                 "2 validation errors detected: Value '200' at 'limit' failed to satisfy "
                 "constraint: Member must have value less than or equal to 100; Value 'ab' at "
                 "'tableName' failed to satisfy constraint: Member must have length greater than "
                 "or equal to 3");
    result_clear(&r);
}

static void test_success_and_namespaces(void)
{
    struct result r;

    r = run("POST", signed_headers, NULL, NULL, "{\"TableName\": \"abc\"}", false);
    CHECK_INT_EQ(r.status, 200);
    CHECK_STR_EQ(r.body, "{\"Namespace\":\"AKIDEXAMPLE/us-west-2\",\"Region\":\"us-west-2\"}");
    CHECK(r.crc_ok && r.has_request_id);
    CHECK_STR_EQ(r.content_type, "application/x-amz-json-1.0");
    result_clear(&r);

    r = run("POST", signed_headers, NULL, NULL, "{\"TableName\": \"abc\"}", true);
    CHECK_STR_EQ(r.body, "{\"Namespace\":\"shared-local-instance\",\"Region\":\"us-west-2\"}");
    result_clear(&r);

    /* query-string signing selects the namespace the same way */
    {
        static const char *const h[] = {"Content-Type", "application/x-amz-json-1.0",
                                        "X-Amz-Target", "DynamoDB_20120810.DescribeTable", NULL};
        struct http_field q[5] = {
            {"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
            {"X-Amz-Credential", "KEY2/20240101/eu-west-1/dynamodb/aws4_request"},
            {"X-Amz-Signature", "x"},
            {"X-Amz-SignedHeaders", "host"},
            {"X-Amz-Date", "20240101T000000Z"},
        };
        struct http_field hdrs[2] = {{h[0], h[1]}, {h[2], h[3]}};
        struct http_request req = {.method = "POST",
                                   .path = "/",
                                   .headers = hdrs,
                                   .header_count = 2,
                                   .query = q,
                                   .query_count = 5,
                                   .body = "{\"TableName\":\"abc\"}",
                                   .body_len = 19};
        struct http_response resp;
        struct api_context ctx = {.config = &own_config, .operations = test_ops};
        memset(&resp, 0, sizeof resp);
        api_handle(&ctx, &req, &resp);
        CHECK_INT_EQ(resp.status, 200);
        CHECK_STR_EQ(resp.body, "{\"Namespace\":\"KEY2/eu-west-1\",\"Region\":\"eu-west-1\"}");
        http_response_clear(&resp);
    }
}

/* A DynamoDB request at any path but "/" is never run as if it were at "/":
 * it fails its signature, as on AWS (auth.h), after the checks before it. */
static void test_other_paths_are_not_served(void)
{
    static const char *const paths[] = {"/garbage", "//", "/ddbemu", "/x/"};
    struct result r;

    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        r = run_at(paths[i], "POST", signed_headers, NULL, NULL, "{\"TableName\": \"abc\"}", false);
        CHECK_INT_EQ(r.status, 400);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#InvalidSignatureException");
        CHECK(r.message && strncmp(r.message, "The request signature we calculated", 35) == 0);
        CHECK(r.crc_ok && r.has_request_id);
        result_clear(&r);
    }
    /* The checks DynamoDB runs before the signature come first. */
    r = run_at("/garbage", "POST", signed_headers, NULL, NULL, "{", false);
    CHECK_STR_EQ(r.type, "com.amazon.coral.service#SerializationException");
    result_clear(&r);
    {
        static const char *const h[] = {"Content-Type", "application/json", NULL};
        r = run_at("/garbage", "POST", h, NULL, NULL, "{}", false);
        CHECK_STR_EQ(r.type, "com.amazon.coral.service#UnknownOperationException");
        result_clear(&r);
    }
}

static void test_internal_error(void)
{
    static const char *const h[] = {"Content-Type",
                                    "application/x-amz-json-1.0",
                                    "X-Amz-Target",
                                    "DynamoDB_20120810.DeleteTable",
                                    "Authorization",
                                    SIGNED,
                                    "X-Amz-Date",
                                    "20240101T000000Z",
                                    NULL};
    struct result r = run("POST", h, NULL, NULL, "{\"TableName\": \"abc\"}", false);

    CHECK_INT_EQ(r.status, 500);
    CHECK_STR_EQ(r.type, "com.amazonaws.dynamodb.v20120810#InternalServerError");
    result_clear(&r);
}

int main(void)
{
    RUN(test_health_and_http_level);
    RUN(test_cors);
    RUN(test_malformed_json);
    RUN(test_unknown_operation);
    RUN(test_authentication_errors);
    RUN(test_empty_body_after_auth);
    RUN(test_shape_errors);
    RUN(test_success_and_namespaces);
    RUN(test_other_paths_are_not_served);
    RUN(test_internal_error);
    return check_report();
}
