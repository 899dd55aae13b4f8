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
 *   2. GET / answers the health line "healthy: <the Host header> " (a GET of
 *      any other path is refused like the next step's requests); under
 *      --as-dynamodb-local, DynamoDB Local's 400 MissingAuthenticationToken;
 *   3. anything but POST, or a body whose Content-Type is neither
 *      application/json nor application/x-amz-json-1.0, is a 404 with the
 *      body "<UnknownOperationException/>\n";
 *   4. a body with Content-Encoding is decoded (encoding.h: gzip only; a
 *      broken stream or another encoding -> 500 InternalServerError, more
 *      than 16 MiB decoded -> 413); a body that is not JSON ->
 *      SerializationException (no message);
 *   5. an unknown X-Amz-Target -> UnknownOperationException (no message);
 *   6. the SigV4 signature (auth.h): by default its shape only, any key
 *      accepted; with --credentials verified as DynamoDB verifies it; a
 *      path other than "/" fails it, as on AWS;
 *   7. an empty body -> SerializationException (no message);
 *   8. the request shape (shape.c), then the handler.
 * Errors are answered with the request's JSON content type
 * (application/x-amz-json-1.0 when the request used it, else application/json).
 */
#include "api/http/dispatch.h"

#include "api/faults/faults.h"
#include "api/http/auth.h"
#include "api/http/cors.h"
#include "api/http/encoding.h"
#include "api/http/response.h"
#include "api/wire/json_in.h"
#include "api/wire/shape.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/model/item.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

/* Fills rq's scope from the credential: one namespace per access key and
 * region (DynamoDB Local without -sharedDb), or one for all with --shared-db.
 * The region always comes from the credential, for ARNs. */
/* Appends at most max bytes of src to buf (size bytes, used of them taken),
 * leaving room for the NUL; returns the new length. (snprintf did this at
 * ~400 instructions a call, three times a request.) */
static size_t put_part(char *buf, size_t size, size_t used, const char *src, size_t max)
{
    size_t len = strnlen(src, max);

    if (len > size - 1 - used) len = size - 1 - used;
    memcpy(buf + used, src, len);
    buf[used + len] = '\0';
    return used + len;
}

static void set_scope(struct api_request *rq, const struct auth_identity *cred)
{
    size_t n;

    if (rq->config && rq->config->shared_db) {
        put_part(rq->namespace_buf, sizeof rq->namespace_buf, 0, API_SHARED_NAMESPACE, SIZE_MAX);
    } else {
        /* access_key/region, the key cut at 190 bytes; '/' cannot occur in
         * either part (both come from a '/'-split scope). */
        n = put_part(rq->namespace_buf, sizeof rq->namespace_buf, 0, cred->access_key, 190);
        n = put_part(rq->namespace_buf, sizeof rq->namespace_buf, n, "/", 1);
        put_part(rq->namespace_buf, sizeof rq->namespace_buf, n, cred->region, SIZE_MAX);
    }
    put_part(rq->region_buf, sizeof rq->region_buf, 0, cred->region, SIZE_MAX);
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

/*
 * GET: "healthy: <host> ", host being the Host header the client addressed
 * us by (scylla test/alternator/test_health.py::test_health_works, run
 * against AWS: the endpoint's host, with its port when it has one; the
 * trailing blank as dynalite recorded the line's length and CRC32). A
 * request without a Host header (HTTP/1.0) gets the name DynamoDB's own
 * endpoint would have. Any other path is no health check and is refused
 * (::test_health_only_works_for_root_path: a 4xx on AWS), with the page
 * every request DynamoDB does not serve gets.
 */
static void handle_get(const struct api_context *ctx, const struct http_request *req,
                       struct http_response *resp)
{
    const char *host = http_request_header(req, "Host");
    struct text_buf line = {0};
    char *text;
    size_t len;

    if (strcmp(req->path, "/") != 0) {
        reply_text(resp, 404, unknown_operation_page);
        return;
    }
    if (ctx->config && ctx->config->root_as_dynamodb_local) {
        response_dynamodb_local_unsigned(resp);
        return;
    }
    if (host && *host)
        text_buf_printf(&line, "healthy: %s ", host);
    else
        text_buf_printf(&line, "healthy: dynamodb.%s.amazonaws.com ",
                        ctx->health_region ? ctx->health_region : "us-east-1");
    text = text_buf_take(&line, &len);
    response_set_body(resp, 200, NULL, text, len);
}

/* The operation's name: the part of its X-Amz-Target after the '.'. */
static const char *operation_name(const struct operation *op)
{
    const char *dot = strrchr(op->target, '.');
    return dot ? dot + 1 : op->target;
}

/* The handler's success answer as text (owned): reply_body as written, or
 * reply serialized; NULL with *len 0 for no body at all (reply_empty). */
static char *answer_text(struct api_request *rq, size_t *len)
{
    char *text;

    *len = 0;
    if (rq->reply_body.len) return json_out_take(&rq->reply_body, len);
    if (rq->reply_empty) return NULL;
    /* A handler that set no reply answers an empty object. */
    text = rq->reply ? json_dumps(rq->reply, JSON_COMPACT) : strdup("{}");
    if (!text) abort(); /* only on allocation failure */
    *len = strlen(text);
    return text;
}

/* Answers a successful handler's result, after the fault decided for the
 * call (faults.h) had its say: a partial batch adds what it withheld, a
 * lost answer replaces it. */
static void reply_success(struct api_request *rq, struct fault_decision *fault,
                          const char *content_type, struct http_response *resp)
{
    size_t len;
    char *text;

    assert(!ddb_error_is_set(&rq->err));
    if (fault->kind == FAULT_LOSE_500) {
        reply_error(resp, content_type, &fault->err, NULL);
        return;
    }
    text = answer_text(rq, &len);
    if (fault->kind == FAULT_UNPROCESSED) {
        size_t with_len;
        char *with = fault_unprocessed_answer(fault, text, len, &with_len);
        if (with) {
            free(text);
            text = with;
            len = with_len;
        }
    }
    response_set_body(resp, 200, content_type, text, len);
}

/* Runs the operation: shape check, faults, handler, reply. Takes body. */
static void run_operation(const struct api_context *ctx, const struct operation *op,
                          const struct auth_identity *cred, json_t *body, const char *content_type,
                          const char *host, struct http_response *resp)
{
    struct api_request rq;
    struct fault_decision fault = {0};

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
        goto out;
    }
    /* Faults (faults.h) are decided once the request is known to be well
     * formed, as DynamoDB refuses a malformed request before it throttles. */
    if (fault_set_active(ctx->faults)) {
        struct fault_call call = {operation_name(op), cred->access_key, rq.body};
        fault_set_decide(ctx->faults, &call, db_now_ms(ctx->db), &fault);
    }
    if (fault.kind == FAULT_ERROR || fault.kind == FAULT_CANCEL) {
        reply_error(resp, content_type, &fault.err, &fault.failure);
    } else if (fault.kind == FAULT_UNPROCESSED && fault.request_emptied) {
        size_t len;
        char *text = fault_unprocessed_answer(&fault, NULL, 0, &len);
        response_set_body(resp, 200, content_type, text, len);
    } else if (op->handler(&rq) != 0) {
        if (!ddb_error_is_set(&rq.err))
            ddb_error_set(&rq.err, DDB_INTERNAL_SERVER_ERROR, "Internal server error");
        if (fault.kind == FAULT_LOSE_500)
            reply_error(resp, content_type, &fault.err, NULL);
        else
            reply_error(resp, content_type, &rq.err, &rq.failure);
    } else {
        reply_success(&rq, &fault, content_type, resp);
    }
    /* After the call has done its work: the answer is held, or lost. */
    if (fault.kind == FAULT_LATENCY) resp->delay_ms = fault.delay_ms;
    if (fault.kind == FAULT_LOSE_RESET) resp->reset_connection = true;
out:
    fault_decision_clear(&fault);
    json_out_clear(&rq.reply_body);
    json_decref(rq.reply);
    json_decref(rq.body);
    ddb_error_clear(&rq.err);
    failure_details_clear(&rq.failure);
}

/* The time signatures are judged against: the wall clock, not the engine's
 * (which tests move by days while their SDKs sign with the real time). */
static time_t wall_clock(const struct api_context *ctx)
{
    if (ctx->config && ctx->config->wall_clock) return ctx->config->wall_clock();
    return time(NULL);
}

/* The control interface's rule (control.h): with --credentials and off
 * loopback, a control request must be signed as a DynamoDB request is, by
 * a key of the store; its failures are DynamoDB's answers. */
static bool control_authenticated(const struct api_context *ctx, const struct http_request *req,
                                  struct http_response *resp)
{
    struct auth_identity who;
    struct ddb_error err = {0};

    if (!ctx->config->control_needs_auth) return true;
    if (auth_check(req, ctx->config->credentials, wall_clock(ctx), &who, &err) == 0) return true;
    reply_error(resp, RESPONSE_CONTENT_TYPE_JSON, &err, NULL);
    return false;
}

void api_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp)
{
    const struct operation *ops = ctx->operations;
    const struct operation *op;
    const char *ctype_start, *content_type, *target;
    size_t ctype_len;
    char request_id[53];
    json_t *body = NULL;
    struct auth_identity cred;
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
    if (ctx->control && ctx->config && ctx->config->control_enabled &&
        strncmp(req->path, API_CONTROL_PREFIX, strlen(API_CONTROL_PREFIX)) == 0) {
        if (!control_authenticated(ctx, req, resp)) return;
        ctx->control(ctx, req, resp);
        return;
    }

    if (cors_apply(ctx->config ? ctx->config->cors_origins : NULL, req, resp)) return;
    if (strcmp(req->method, "GET") == 0) {
        handle_get(ctx, req, resp);
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

    /* DynamoDB's API is at "/" only: a request at another path fails as its
     * signature would (auth.h). */
    if (auth_check(req, ctx->config ? ctx->config->credentials : NULL, wall_clock(ctx), &cred,
                   &err) != 0 ||
        auth_check_path(req, &err) != 0) {
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

    /* Trees the thread decoded for its last request are dead: its answer is
     * sent (storage/model/item.h, the scratch arena). Not in api_handle,
     * which api_call runs inside other requests. */
    item_scratch_reset();
    api_handle(ctx, req, resp);
    /* Compressed when the client asks (encoding.h); the CRC32 follows. */
    encoding_compress_response(req, resp);
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
    struct api_config trusted;
    struct api_context inside = *ctx;
    int status;

    /* The process's own requests are never faulted. */
    inside.faults = NULL;

    /* The process's own requests (--init, and a design a control request
     * sent, already authenticated) carry no real signature: not checked. */
    if (ctx->config) {
        trusted = *ctx->config;
        trusted.credentials = NULL;
        inside.config = &trusted;
    }
    snprintf(auth, sizeof auth,
             "AWS4-HMAC-SHA256 Credential=%.190s/20260101/%.64s/dynamodb/aws4_request, "
             "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0",
             access_key, region);
    memset(&resp, 0, sizeof resp);
    /* Run inside a request or at start-up: what this call decodes is
     * forgotten once its answer is copied, and the caller's trees stay. */
    struct decode_mark mark = item_scratch_mark();
    api_handle(&inside, &req, &resp);
    status = resp.status;
    *answer = malloc(resp.body_len + 1);
    if (*answer) {
        if (resp.body_len) memcpy(*answer, resp.body, resp.body_len);
        (*answer)[resp.body_len] = '\0';
    }
    http_response_clear(&resp);
    item_scratch_release(mark);
    return status;
}

int api_design_call(void *ctx, const char *access_key, const char *region, const char *target,
                    const char *body, char **answer)
{
    return api_call(ctx, access_key, region, target, body, answer);
}
