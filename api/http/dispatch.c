/*
 * dispatch.c - the generic front of every request (see dispatch.h).
 *
 * The checks run in the order DynamoDB runs them, as recorded against the
 * live service by dynalite's connection tests (test/connection.js, run with
 * REMOTE=1) and its request pipeline (index.js):
 *
 *   1. every answer gets an x-amzn-RequestId; with an Origin header, also
 *      the CORS headers (cors.h); OPTIONS with Origin is a CORS preflight
 *      answered 200 with an empty body;
 *   2. GET answers the health line "healthy: dynamodb.<region>.amazonaws.com ";
 *   3. anything but POST, or a body whose Content-Type is neither
 *      application/json nor application/x-amz-json-1.0, is a 404 with the
 *      body "<UnknownOperationException/>\n";
 *   4. a body with Content-Encoding is decoded (encoding.h: gzip only; a
 *      broken stream or another encoding -> 500 InternalServerError, more
 *      than 16 MiB decoded -> 413); a body that is not JSON ->
 *      SerializationException (no message);
 *   5. an unknown X-Amz-Target -> UnknownOperationException (no message);
 *   6. Authorization: header and query-string signing both present ->
 *      InvalidSignatureException; neither, or a header not starting "AWS4-"
 *      -> MissingAuthenticationTokenException; missing pieces ->
 *      IncompleteSignatureException listing each; the credential scope must
 *      have 5 elements. Signatures are never verified.
 *   7. an empty body -> SerializationException (no message);
 *   8. the request shape (shape.c), then the handler.
 * Errors are answered with the request's JSON content type
 * (application/x-amz-json-1.0 when the request used it, else application/json).
 */
#include "api/http/dispatch.h"

#include "api/http/control.h"
#include "api/http/cors.h"
#include "api/http/design_http.h"
#include "api/http/encoding.h"
#include "api/http/response.h"
#include "api/wire/json_in.h"
#include "api/wire/shape.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TARGET_HEADER "X-Amz-Target"

static const char unknown_operation_page[] = "<UnknownOperationException/>\n";

/* Answers err (and failure, NULL when there is none) with the request's
 * content type, then clears both. */
static void reply_error(struct http_response *resp, const char *content_type, struct ddb_error *err,
                        struct failure_details *failure)
{
    response_error(resp, content_type, err, failure);
    ddb_error_clear(err);
    if (failure) failure_details_clear(failure);
}

static void reply_bare(struct http_response *resp, const char *content_type,
                       enum ddb_error_code code)
{
    struct ddb_error err = {0};

    ddb_error_set_bare(&err, code);
    reply_error(resp, content_type, &err, NULL);
}

static void reply_text(struct http_response *resp, int status, const char *text)
{
    size_t len = strlen(text);

    response_set_body(resp, status, NULL, xmemdup(text, len), len);
}

/* The media type of Content-Type: the part before ';', without surrounding blanks. */
static size_t media_type(const char *header, const char **start)
{
    const char *s = header ? header : "";
    size_t len;

    while (*s == ' ' || *s == '\t')
        s++;
    len = strcspn(s, ";");
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    *start = s;
    return len;
}

static bool media_is(const char *s, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(s, want, len) == 0;
}

/* ---- SigV4 Authorization ---- */

struct credential {
    char access_key[256];
    char region[64];
};

/* Finds "name=value" among the comma/space separated parameters after the
 * algorithm in an Authorization header; copies value (up to the next
 * separator) into out. Returns false when absent or empty. */
static bool auth_param(const char *auth, const char *name, char *out, size_t out_size)
{
    size_t name_len = strlen(name);
    const char *p = auth + strcspn(auth, " ,"); /* skip the algorithm */

    while (*p) {
        size_t len;
        p += strspn(p, " ,");
        len = strcspn(p, " ,");
        if (len > name_len && memcmp(p, name, name_len) == 0 && p[name_len] == '=') {
            const char *v = p + name_len + 1;
            size_t vlen = strcspn(v, " ,=");
            if (vlen == 0) return false;
            if (out) {
                if (vlen >= out_size) vlen = out_size - 1;
                memcpy(out, v, vlen);
                out[vlen] = '\0';
            }
            return true;
        }
        p += len;
    }
    return false;
}

static int parse_credential(const char *cred, struct credential *out, struct ddb_error *err)
{
    size_t len = strlen(cred);
    const char *parts[5];
    size_t part_len[5];
    size_t n = 0;
    const char *p;

    /* Trailing slashes are ignored, as AWS does. */
    while (len && cred[len - 1] == '/')
        len--;
    p = cred;
    while (n < 5) {
        const char *slash = memchr(p, '/', len - (size_t) (p - cred));
        parts[n] = p;
        part_len[n] = slash ? (size_t) (slash - p) : len - (size_t) (p - cred);
        n++;
        if (!slash) break;
        p = slash + 1;
    }
    if (n != 5 || memchr(parts[4], '/', part_len[4]))
        return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE,
                             "Credential must have exactly 5 slash-delimited elements, e.g. "
                             "keyid/date/region/service/term, got '%.*s'",
                             (int) len, cred);
    if (part_len[0] == 0 || part_len[0] >= sizeof out->access_key)
        return ddb_error_set(err, DDB_UNRECOGNIZED_CLIENT,
                             "The security token included in the request is invalid.");
    if (part_len[2] == 0 || part_len[2] >= sizeof out->region)
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "Credential should be scoped to a valid region, not '%.*s'. ",
                             (int) part_len[2], parts[2]);
    memcpy(out->access_key, parts[0], part_len[0]);
    out->access_key[part_len[0]] = '\0';
    memcpy(out->region, parts[2], part_len[2]);
    out->region[part_len[2]] = '\0';
    return 0;
}

/* Checks the request's signature information (never the signature itself)
 * and extracts the credential scope. */
static int check_auth(const struct http_request *req, struct credential *cred,
                      struct ddb_error *err)
{
    static const char *const header_params[] = {"Credential", "Signature", "SignedHeaders"};
    static const char *const query_params[] = {"X-Amz-Algorithm", "X-Amz-Credential",
                                               "X-Amz-Signature", "X-Amz-SignedHeaders",
                                               "X-Amz-Date"};
    const char *auth = http_request_header(req, "Authorization");
    const char *value = NULL;
    bool by_query = http_request_query(req, "X-Amz-Algorithm", NULL);
    char credential[512];
    char missing[1024] = "";

    if (auth && by_query)
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "Found both 'X-Amz-Algorithm' as a query-string param and "
                             "'Authorization' as HTTP header.");
    if (auth) {
        const char *a = auth + strspn(auth, " \t");
        if (strncmp(a, "AWS4-", 5) != 0)
            return ddb_error_set(err, DDB_MISSING_AUTHENTICATION_TOKEN,
                                 "Request is missing Authentication Token");
        for (size_t i = 0; i < sizeof header_params / sizeof *header_params; i++) {
            if (!auth_param(a, header_params[i], NULL, 0)) {
                size_t used = strlen(missing);
                snprintf(missing + used, sizeof missing - used,
                         "Authorization header requires '%s' parameter. ", header_params[i]);
            }
        }
        if (!http_request_header(req, "X-Amz-Date") && !http_request_header(req, "Date")) {
            size_t used = strlen(missing);
            snprintf(missing + used, sizeof missing - used,
                     "Authorization header requires existence of either a 'X-Amz-Date' or a "
                     "'Date' header. ");
        }
        if (missing[0])
            return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE, "%sAuthorization=%s", missing,
                                 auth);
        auth_param(a, "Credential", credential, sizeof credential);
        return parse_credential(credential, cred, err);
    }
    if (!by_query)
        return ddb_error_set(err, DDB_MISSING_AUTHENTICATION_TOKEN,
                             "Request is missing Authentication Token");
    for (size_t i = 0; i < sizeof query_params / sizeof *query_params; i++) {
        value = NULL;
        if (!http_request_query(req, query_params[i], &value) || !value || !value[0]) {
            size_t used = strlen(missing);
            snprintf(missing + used, sizeof missing - used,
                     "AWS query-string parameters must include '%s'. ", query_params[i]);
        }
    }
    if (missing[0])
        return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE,
                             "%sRe-examine the query-string parameters.", missing);
    http_request_query(req, "X-Amz-Credential", &value);
    snprintf(credential, sizeof credential, "%s", value);
    return parse_credential(credential, cred, err);
}

/* Fills rq's scope from the credential: one namespace per access key and
 * region (DynamoDB Local without -sharedDb), or one for all with --shared-db.
 * The region always comes from the credential, for ARNs. */
static void set_scope(struct api_request *rq, const struct credential *cred)
{
    if (rq->config && rq->config->shared_db)
        snprintf(rq->namespace_buf, sizeof rq->namespace_buf, "%s", API_SHARED_NAMESPACE);
    else
        /* '/' cannot occur in either part (both come from a '/'-split scope). */
        snprintf(rq->namespace_buf, sizeof rq->namespace_buf, "%.190s/%s", cred->access_key,
                 cred->region);
    snprintf(rq->region_buf, sizeof rq->region_buf, "%s", cred->region);
    rq->scope.namespace_id = rq->namespace_buf;
    rq->scope.region = rq->region_buf;
}

/* ---- the pipeline ---- */

/* Lives here rather than beside the table in operations.c, so that tests
 * with their own table do not link every handler. */
const struct operation *operation_find(const struct operation *table, const char *target,
                                       size_t len)
{
    for (const struct operation *op = table; op->target; op++)
        if (strlen(op->target) == len && memcmp(op->target, target, len) == 0) return op;
    return NULL;
}

static void handle_health(const struct api_context *ctx, struct http_response *resp)
{
    char line[160];

    snprintf(line, sizeof line, "healthy: dynamodb.%s.amazonaws.com ",
             ctx->health_region ? ctx->health_region : "us-east-1");
    reply_text(resp, 200, line);
}

/* Runs the operation: shape check, handler, reply. Takes body. */
static void run_operation(const struct api_context *ctx, const struct operation *op,
                          const struct credential *cred, json_t *body, const char *content_type,
                          const char *host, struct http_response *resp)
{
    struct api_request rq;

    memset(&rq, 0, sizeof rq);
    rq.host = host;
    rq.db = ctx->db;
    rq.config = ctx->config;
    rq.body = body;
    set_scope(&rq, cred);

    /* TableName given as a table ARN is resolved here, once for every
     * operation: handlers and storage only ever see table names. */
    if (shape_check(op->fields, rq.body, &rq.err) != 0 ||
        shape_resolve_table_refs(op->fields, rq.body, rq.scope.region, &rq.err) != 0) {
        reply_error(resp, content_type, &rq.err, &rq.failure);
    } else if (op->handler(&rq) != 0) {
        if (!ddb_error_is_set(&rq.err))
            ddb_error_set(&rq.err, DDB_INTERNAL_SERVER_ERROR, "Internal server error");
        reply_error(resp, content_type, &rq.err, &rq.failure);
    } else if (rq.reply_body.len) {
        size_t len;
        char *text = json_out_take(&rq.reply_body, &len);
        assert(!ddb_error_is_set(&rq.err) && !rq.reply);
        response_set_body(resp, 200, content_type, text, len);
    } else {
        assert(!ddb_error_is_set(&rq.err));
        response_success(resp, content_type, rq.reply);
    }
    json_out_clear(&rq.reply_body);
    json_decref(rq.reply);
    json_decref(rq.body);
    ddb_error_clear(&rq.err);
    failure_details_clear(&rq.failure);
}

/* Replays one request of a design document (api/design/design.h). */
static int replay(void *arg, const char *access_key, const char *region, const char *target,
                  const char *body, char **answer);

void api_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp)
{
    const struct operation *ops = ctx->operations;
    const struct operation *op;
    const char *ctype_start, *content_type, *target;
    size_t ctype_len;
    char request_id[53];
    json_t *body = NULL;
    struct credential cred;
    struct ddb_error err = {0};
    const char *body_text = NULL;
    char *decoded = NULL;
    size_t body_len = 0;

    /* Not defaulted to api_operations here, so that dispatch.o does not pull
     * every handler (and the engine) into unit tests that don't need them. */
    assert(ops);
    response_request_id(request_id);
    http_response_add_header(resp, "x-amzn-RequestId", request_id);

    /* The emulator's control interface (control.h): a reserved path,
     * never the DynamoDB protocol, and only when enabled. Tables from a
     * design replay their requests through this function (api_call). */
    if (ctx->config && ctx->config->control_enabled && strcmp(req->path, DESIGN_HTTP_PATH) == 0) {
        design_http_handle(req, replay, (void *) ctx, resp);
        return;
    }
    if (ctx->config && ctx->config->control_enabled && control_is_path(req->path)) {
        control_handle(ctx->db, ctx->config, req, resp);
        return;
    }

    if (cors_apply(ctx->config ? ctx->config->cors_origins : NULL, req, resp)) return;
    if (strcmp(req->method, "GET") == 0) {
        handle_health(ctx, resp);
        return;
    }

    ctype_len = media_type(http_request_header(req, "Content-Type"), &ctype_start);
    if (strcmp(req->method, "POST") != 0 ||
        (req->body_len && !media_is(ctype_start, ctype_len, RESPONSE_CONTENT_TYPE_JSON) &&
         !media_is(ctype_start, ctype_len, RESPONSE_CONTENT_TYPE_AMZ_JSON))) {
        reply_text(resp, 404, unknown_operation_page);
        return;
    }
    content_type = media_is(ctype_start, ctype_len, RESPONSE_CONTENT_TYPE_AMZ_JSON)
                       ? RESPONSE_CONTENT_TYPE_AMZ_JSON
                       : RESPONSE_CONTENT_TYPE_JSON;

    switch (encoding_decode_request(req, DDB_MAX_REQUEST_BYTES, &decoded, &body_len)) {
    case ENCODING_NONE:
        body_text = req->body;
        body_len = req->body_len;
        break;
    case ENCODING_DECODED: body_text = decoded; break;
    case ENCODING_BAD:
        ddb_error_set(&err, DDB_INTERNAL_SERVER_ERROR, "Internal server error");
        reply_error(resp, content_type, &err, NULL);
        return;
    case ENCODING_TOO_LARGE:
        /* The bare 413 server.c sends for a body over the cap. */
        resp->status = 413;
        return;
    }

    /* The JSON syntax is checked before the target, as DynamoDB does. */
    if (body_len) {
        body = json_in_load(body_text, body_len);
        free(decoded);
        decoded = NULL;
        if (!body || !json_is_object(body)) {
            json_decref(body);
            reply_bare(resp, content_type, DDB_SERIALIZATION);
            return;
        }
    }
    free(decoded);

    target = http_request_header(req, TARGET_HEADER);
    op = target ? operation_find(ops, target, strlen(target)) : NULL;
    if (!op) {
        json_decref(body);
        reply_bare(resp, content_type, DDB_UNKNOWN_OPERATION);
        return;
    }

    if (check_auth(req, &cred, &err) != 0) {
        json_decref(body);
        reply_error(resp, content_type, &err, NULL);
        return;
    }

    if (!body) {
        reply_bare(resp, content_type, DDB_SERIALIZATION);
        return;
    }
    run_operation(ctx, op, &cred, body, content_type, http_request_header(req, "Host"), resp);
}

void api_http_handler(void *arg, const struct http_request *req, struct http_response *resp)
{
    const struct api_context *ctx = arg;

    api_handle(ctx, req, resp);
    /* Compressed when the client asks (encoding.h); the CRC32 follows. */
    encoding_compress_response(req, resp);
    /* With --db-path, what the request changed must be on disk before the
     * answer goes out: the server holds it until the commit (server.h). */
    resp->hold = db_take_commit(ctx->db);
}

bool api_http_defer(void *arg, uint64_t hold, void (*release)(void *ctx), void *ctx)
{
    const struct api_context *api = arg;
    return db_on_commit(api->db, hold, release, ctx);
}

/* See dispatch.h: one request as an SDK with that credential sends it,
 * through api_handle's whole front. */
int api_call(const struct api_context *ctx, const char *access_key, const char *region,
             const char *target, const char *body, char **answer)
{
    char auth[512];
    struct http_field headers[] = {
        {"Content-Type", "application/x-amz-json-1.0"},
        {"X-Amz-Target", target},
        {"X-Amz-Date", "20260101T000000Z"},
        {"Authorization", auth},
    };
    struct http_request req = {
        .method = "POST",
        .path = "/",
        .headers = headers,
        .header_count = sizeof headers / sizeof *headers,
        .body = body,
        .body_len = strlen(body),
    };
    struct http_response resp;
    int status;

    snprintf(auth, sizeof auth,
             "AWS4-HMAC-SHA256 Credential=%.190s/20260101/%.64s/dynamodb/aws4_request, "
             "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0",
             access_key, region);
    memset(&resp, 0, sizeof resp);
    api_handle(ctx, &req, &resp);
    status = resp.status;
    *answer = malloc(resp.body_len + 1);
    if (*answer) {
        if (resp.body_len) memcpy(*answer, resp.body, resp.body_len);
        (*answer)[resp.body_len] = '\0';
    }
    http_response_clear(&resp);
    return status;
}

static int replay(void *arg, const char *access_key, const char *region, const char *target,
                  const char *body, char **answer)
{
    return api_call(arg, access_key, region, target, body, answer);
}
