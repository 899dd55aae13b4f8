/*
 * fuzz_api_handle.c - libFuzzer target for the whole request path.
 *
 * Input: up to four requests separated by a line "----". Each request is
 * written as a small HTTP message:
 *
 *   PutItem                          the X-Amz-Target ("DynamoDB_20120810."
 *                                    is prefixed when the line has no '.')
 *   Content-Encoding: gzip           any headers, one per line
 *   ?X-Amz-Algorithm=AWS4-HMAC-SHA256  a query-string argument
 *   @POST /ddbemu/init               the method and path (default POST /)
 *                                    an empty line, then the raw body
 *   {"TableName": "t", ...}
 *
 * Content-Type, X-Amz-Date and a well-formed Authorization are added when the
 * input does not give its own, so that most inputs reach the operations.
 * Every input runs against a fresh engine (so its state cannot grow across
 * inputs, and whatever a request leaves behind is freed by db_free - a leak
 * is a leak) holding one table "tab" (pk S, sk N, a GSI and an LSI) with one
 * item, with the control interface on. api_handle must answer every input
 * without crashing, tripping an assertion or sanitizer, hanging or leaking,
 * and every answer must be a status with a body DynamoDB could send.
 * Built only with -DDDB_FUZZ=ON and clang (see api/CMakeLists.txt).
 */
#include "api/control/control.h"
#include "api/http/dispatch.h"
#include "api/ops/ops.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_REQUESTS 4
#define MAX_FIELDS   16

static const char default_auth[] =
    "AWS4-HMAC-SHA256 Credential=AKIDFUZZ/20260101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0";

static const char create_table[] =
    "{\"TableName\": \"tab\", \"BillingMode\": \"PAY_PER_REQUEST\","
    " \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"},"
    " {\"AttributeName\": \"sk\", \"AttributeType\": \"N\"},"
    " {\"AttributeName\": \"gk\", \"AttributeType\": \"S\"},"
    " {\"AttributeName\": \"lk\", \"AttributeType\": \"B\"}],"
    " \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"},"
    " {\"AttributeName\": \"sk\", \"KeyType\": \"RANGE\"}],"
    " \"GlobalSecondaryIndexes\": [{\"IndexName\": \"gsi\", \"KeySchema\":"
    " [{\"AttributeName\": \"gk\", \"KeyType\": \"HASH\"}], \"Projection\":"
    " {\"ProjectionType\": \"ALL\"}}],"
    " \"LocalSecondaryIndexes\": [{\"IndexName\": \"lsi\", \"KeySchema\":"
    " [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"},"
    " {\"AttributeName\": \"lk\", \"KeyType\": \"RANGE\"}], \"Projection\":"
    " {\"ProjectionType\": \"KEYS_ONLY\"}}],"
    " \"StreamSpecification\": {\"StreamEnabled\": true, \"StreamViewType\": "
    "\"NEW_AND_OLD_IMAGES\"}}";

static const char put_item[] =
    "{\"TableName\": \"tab\", \"Item\": {\"pk\": {\"S\": \"p\"}, \"sk\": {\"N\": \"1\"},"
    " \"gk\": {\"S\": \"g\"}, \"lk\": {\"B\": \"AA==\"}, \"n\": {\"N\": \"5\"},"
    " \"l\": {\"L\": [{\"S\": \"x\"}, {\"M\": {\"a\": {\"NULL\": true}}}]},"
    " \"ss\": {\"SS\": [\"a\", \"b\"]}}}";

/* One request cut out of the input; the strings are NUL-terminated copies. */
struct fuzz_request {
    char *text; /* owned: the request's bytes, cut into the strings below */
    char target[128];
    const char *method;
    const char *path;
    struct http_field headers[MAX_FIELDS];
    size_t header_count;
    struct http_field query[MAX_FIELDS];
    size_t query_count;
    const char *body;
    size_t body_len;
};

static bool has_header(const struct fuzz_request *r, const char *name)
{
    for (size_t i = 0; i < r->header_count; i++)
        if (strcasecmp(r->headers[i].name, name) == 0) return true;
    return false;
}

static void add_header(struct fuzz_request *r, const char *name, const char *value)
{
    if (r->header_count < MAX_FIELDS) {
        r->headers[r->header_count].name = name;
        r->headers[r->header_count++].value = value;
    }
}

/* Cuts text[0..len) (a copy the request then owns) into a request. */
static void request_parse(struct fuzz_request *r, const uint8_t *data, size_t len)
{
    char *p, *end;

    memset(r, 0, sizeof *r);
    r->text = malloc(len + 1);
    memcpy(r->text, data, len);
    r->text[len] = '\0';
    r->method = "POST";
    r->path = "/";
    p = r->text;
    end = r->text + len;

    /* The first line: the target. */
    {
        char *nl = memchr(p, '\n', (size_t) (end - p));
        size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);
        if (memchr(p, '.', n) || n == 0)
            snprintf(r->target, sizeof r->target, "%.*s", (int) n, p);
        else
            snprintf(r->target, sizeof r->target, "DynamoDB_20120810.%.*s", (int) n, p);
        p = nl ? nl + 1 : end;
    }
    /* Header, query and method lines up to an empty line. */
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t) (end - p));
        char *line = p, *sep;
        if (nl) *nl = '\0';
        p = nl ? nl + 1 : end;
        if (line[0] == '\0') break;
        if (line[0] == '@') {
            r->method = line + 1;
            sep = strchr(line, ' ');
            if (sep) {
                *sep = '\0';
                r->path = sep + 1;
            }
        } else if (line[0] == '?') {
            if (r->query_count == MAX_FIELDS) continue;
            sep = strchr(line, '=');
            if (sep) *sep = '\0';
            r->query[r->query_count].name = line + 1;
            r->query[r->query_count++].value = sep ? sep + 1 : NULL;
        } else if ((sep = strchr(line, ':')) != NULL) {
            *sep = '\0';
            sep++;
            while (*sep == ' ')
                sep++;
            add_header(r, line, sep);
        }
    }
    r->body = p;
    r->body_len = (size_t) (end - p);
    if (!has_header(r, "X-Amz-Target") && r->target[0]) add_header(r, "X-Amz-Target", r->target);
    if (!has_header(r, "Content-Type")) add_header(r, "Content-Type", "application/x-amz-json-1.0");
    if (!has_header(r, "X-Amz-Date")) add_header(r, "X-Amz-Date", "20260101T000000Z");
    if (!has_header(r, "Authorization") && r->query_count == 0)
        add_header(r, "Authorization", default_auth);
}

/* Every answer is a status DynamoDB sends, with a request id. */
static void check_answer(const struct http_response *resp)
{
    bool has_id = false;

    if (resp->status < 200 || resp->status > 599) __builtin_trap();
    if (resp->body_len && !resp->body) __builtin_trap();
    for (size_t i = 0; i < resp->header_count; i++)
        if (strcasecmp(resp->headers[i].name, "x-amzn-RequestId") == 0) has_id = true;
    if (!has_id) __builtin_trap();
}

static void run(const struct api_context *ctx, const uint8_t *data, size_t len)
{
    struct fuzz_request r;
    struct http_request req;
    struct http_response resp;

    request_parse(&r, data, len);
    memset(&req, 0, sizeof req);
    req.method = r.method;
    req.path = r.path;
    req.headers = r.headers;
    req.header_count = r.header_count;
    req.query = r.query;
    req.query_count = r.query_count;
    req.body = r.body;
    req.body_len = r.body_len;
    memset(&resp, 0, sizeof resp);
    api_handle(ctx, &req, &resp);
    check_answer(&resp);
    http_response_clear(&resp);
    free(r.text);
}

/* The first occurrence of the string s in data[0..size), or NULL. */
static const uint8_t *find(const uint8_t *data, size_t size, const char *s)
{
    size_t n = strlen(s);

    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0) return data + i;
    return NULL;
}

/* Sends a fixed request of the prelude; it must succeed. */
static void prelude(const struct api_context *ctx, const char *target, const char *body)
{
    char *answer = NULL;

    if (api_call(ctx, "AKIDFUZZ", "us-east-1", target, body, &answer) != 200) {
        fprintf(stderr, "%s failed: %s\n", target, answer);
        __builtin_trap();
    }
    free(answer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct api_config config = {.control_enabled = true};
    static const char sep[] = "\n----\n";
    struct api_context ctx = {
        .config = &config, .operations = api_operations, .control = control_handle};
    size_t n = 0;

    ctx.db = db_new();
    prelude(&ctx, "DynamoDB_20120810.CreateTable", create_table);
    prelude(&ctx, "DynamoDB_20120810.PutItem", put_item);
    while (n < MAX_REQUESTS) {
        const uint8_t *next = find(data, size, sep);
        size_t len = next ? (size_t) (next - data) : size;
        run(&ctx, data, len);
        n++;
        if (!next) break;
        size -= len + sizeof sep - 1;
        data = next + sizeof sep - 1;
    }
    db_free(ctx.db);
    return 0;
}
