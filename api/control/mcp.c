/*
 * mcp.c - MCP's Streamable HTTP transport (mcp.h), revision 2025-11-25.
 *
 * Every request passes the same checks, in this order, each answered with
 * an HTTP status and a JSON-RPC error without an id (null):
 *   1. Origin: present, it must name a loopback host or be listed in --cors
 *      (403): a page elsewhere must not reach a local server by DNS rebinding;
 *   2. the method: POST, DELETE (with sessions) or 405;
 *   3. POST only: Content-Type application/json (415), an Accept that takes
 *      application/json or text/event-stream (406);
 *   4. MCP-Protocol-Version, when sent, a revision this server speaks (400);
 *   5. POST only: one JSON-RPC message (400: -32700 unparseable, -32600 not
 *      a request, notification or response; batches were dropped in
 *      2025-06-18);
 *   6. the session: initialize opens one (and must come without
 *      Mcp-Session-Id: 400); anything else needs the id of an open session
 *      (400 without it, 404 for an unknown or ended one).
 * A request is then answered with its response, a notification or response
 * with 202. One message per POST, one answer per request: the server sends
 * nothing unasked, so no stream outlives its request, GET (the stream for
 * unasked messages) is 405, and SSE answers carry no event id (there is
 * nothing to resume from).
 */
#include "api/control/mcp.h"

#include "api/control/mcp_session.h"
#include "api/http/response.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MEDIA_JSON "application/json"
#define MEDIA_SSE  "text/event-stream"

static void send_json(struct http_response *resp, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);

    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, text ? strlen(text) : 0);
    json_decref(body);
}

/* An error of the transport itself, before any message is answered. */
static void send_refusal(struct http_response *resp, int status, int code, const char *message)
{
    send_json(resp, status, mcp_rpc_error(NULL, code, message));
}

/* One JSON-RPC response as an SSE stream of one "message" event, ended. */
static void send_sse(struct http_response *resp, json_t *body)
{
    static const char head[] = "event: message\ndata: ", tail[] = "\n\n";
    char *text = json_dumps(body, JSON_COMPACT);
    size_t len = text ? strlen(text) : 0, total = sizeof head - 1 + len + sizeof tail - 1;
    char *event = text ? malloc(total + 1) : NULL;

    json_decref(body);
    if (!event) {
        free(text);
        send_refusal(resp, 500, MCP_RPC_TRANSPORT_ERROR, "Out of memory");
        return;
    }
    snprintf(event, total + 1, "%s%s%s", head, text, tail);
    free(text);
    response_set_body(resp, 200, MEDIA_SSE, event, total);
    http_response_set_header(resp, "Cache-Control", "no-cache");
}

/* ---- Origin ---- */

/* Whether origin ("scheme://host[:port]") names a loopback host. */
static bool origin_is_loopback(const char *origin)
{
    const char *host = strstr(origin, "://");
    size_t len;

    if (!host) return false;
    host += 3;
    if (strncmp(host, "[::1]", 5) == 0) return host[5] == '\0' || host[5] == ':';
    len = strcspn(host, ":/");
    if (host[len] == '/') return false; /* an origin has no path */
    if (len == 9 && strncasecmp(host, "localhost", 9) == 0) return true;
    return strncmp(host, "127.", 4) == 0 && strspn(host, "0123456789.") == len;
}

/* Whether origin is one of --cors's listed origins ("*" lists none). */
static bool origin_is_listed(const char *allowed, const char *origin)
{
    size_t len = strlen(origin);

    for (const char *p = allowed; p && *p;) {
        size_t n = strcspn(p, ",");
        while (n && *p == ' ')
            p++, n--;
        if (n == len && strncmp(p, origin, len) == 0) return true;
        p += n;
        if (*p == ',') p++;
    }
    return false;
}

static bool origin_allowed(const struct api_context *ctx, const struct http_request *req)
{
    const char *origin = http_request_header(req, "Origin");

    if (!origin) return true; /* not a browser: nothing to rebind */
    return origin_is_loopback(origin) ||
           origin_is_listed(ctx->config ? ctx->config->cors_origins : NULL, origin);
}

/* ---- Content-Type and Accept ---- */

/* Whether the header's media type (before any parameter) is type. */
static bool media_type_is(const char *header, const char *type)
{
    size_t len = strlen(type);

    if (!header) return false;
    header += strspn(header, " \t");
    return strncasecmp(header, type, len) == 0 &&
           (header[len] == '\0' || strchr("; \t", header[len]));
}

/* The quality Accept gives type ("a/b"): that of the most specific range
 * matching it (a/b over a/- over -/-, with - a star), 0 when none does; 1
 * without an Accept header, which accepts everything. */
static double accept_quality(const char *accept, const char *type)
{
    size_t slash = strcspn(type, "/");
    double best_q = 0;
    int best_rank = 0;

    if (!accept) return 1;
    for (const char *p = accept; *p;) {
        size_t n, range;
        const char *q = NULL;
        int rank = 0;

        p += strspn(p, " \t");
        n = strcspn(p, ",");
        range = strcspn(p, ";, \t");
        if (range == 3 && strncmp(p, "*/*", 3) == 0)
            rank = 1;
        else if (range == slash + 2 && strncasecmp(p, type, slash + 1) == 0 && p[slash + 1] == '*')
            rank = 2;
        else if (range == strlen(type) && strncasecmp(p, type, range) == 0)
            rank = 3;
        for (const char *param = memchr(p, ';', n); param && param < p + n;
             param = memchr(param + 1, ';', (size_t) (p + n - param - 1))) {
            const char *name = param + 1 + strspn(param + 1, " \t");
            if ((*name == 'q' || *name == 'Q') && name[1] == '=') q = name + 2;
        }
        if (rank > best_rank) {
            best_rank = rank;
            best_q = q ? strtod(q, NULL) : 1;
        }
        p += n;
        if (*p == ',') p++;
    }
    return best_q;
}

/* ---- the message ---- */

enum message_kind { MESSAGE_INVALID, MESSAGE_REQUEST, MESSAGE_NOTIFICATION, MESSAGE_RESPONSE };

static enum message_kind message_kind(json_t *msg)
{
    json_t *version = json_object_get(msg, "jsonrpc"), *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    bool has_result = json_object_get(msg, "result") != NULL;
    bool has_error = json_object_get(msg, "error") != NULL;
    bool id_ok = json_is_string(id) || json_is_integer(id);

    if (!json_is_object(msg) || !json_is_string(version) ||
        strcmp(json_string_value(version), "2.0") != 0)
        return MESSAGE_INVALID;
    if (method) {
        if (!json_is_string(method) || has_result || has_error) return MESSAGE_INVALID;
        if (!id) return MESSAGE_NOTIFICATION;
        return id_ok ? MESSAGE_REQUEST : MESSAGE_INVALID;
    }
    /* A response to a request of the server's; it sends none, but the
     * transport accepts the shape. An error response may have a null id. */
    if (has_result == has_error) return MESSAGE_INVALID;
    return id_ok || (has_error && json_is_null(id)) ? MESSAGE_RESPONSE : MESSAGE_INVALID;
}

static bool is_initialize(json_t *msg)
{
    return strcmp(json_string_value(json_object_get(msg, "method")), "initialize") == 0;
}

/* Step 6 for a message other than initialize: whether its session is open;
 * if not, resp holds the refusal. */
static bool session_admitted(const struct api_context *ctx, const char *session,
                             struct http_response *resp)
{
    if (!ctx->mcp_sessions) return true;
    if (!session) {
        send_refusal(resp, 400, MCP_RPC_TRANSPORT_ERROR,
                     "Bad Request: Mcp-Session-Id header is required (initialize first)");
        return false;
    }
    if (!mcp_session_use(ctx->mcp_sessions, session, mcp_sessions_now_ms())) {
        send_refusal(resp, 404, MCP_RPC_SESSION_NOT_FOUND, "Session not found");
        return false;
    }
    return true;
}

static void handle_post(const struct api_context *ctx, const struct http_request *req,
                        struct http_response *resp)
{
    const char *accept = http_request_header(req, "Accept");
    const char *session = http_request_header(req, "Mcp-Session-Id");
    double json_q = accept_quality(accept, MEDIA_JSON), sse_q = accept_quality(accept, MEDIA_SSE);
    char new_session[MCP_SESSION_ID_LEN + 1] = "";
    enum message_kind kind;
    json_t *msg, *answer;

    if (!media_type_is(http_request_header(req, "Content-Type"), MEDIA_JSON)) {
        send_refusal(resp, 415, MCP_RPC_TRANSPORT_ERROR,
                     "Unsupported Media Type: Content-Type must be application/json");
        return;
    }
    if (json_q <= 0 && sse_q <= 0) {
        send_refusal(resp, 406, MCP_RPC_TRANSPORT_ERROR,
                     "Not Acceptable: accept application/json and text/event-stream");
        return;
    }
    msg = json_loadb(req->body ? req->body : "", req->body_len, 0, NULL);
    if (!msg) {
        send_refusal(resp, 400, MCP_RPC_PARSE_ERROR, "Parse error");
        return;
    }
    kind = message_kind(msg);
    if (kind == MESSAGE_INVALID) {
        send_refusal(resp, 400, MCP_RPC_INVALID_REQUEST, "Invalid Request");
        goto out;
    }
    if (kind == MESSAGE_REQUEST && is_initialize(msg) && ctx->mcp_sessions) {
        if (session) {
            send_refusal(resp, 400, MCP_RPC_INVALID_REQUEST,
                         "Invalid Request: initialize opens a new session; send it without "
                         "Mcp-Session-Id");
            goto out;
        }
        if (mcp_session_open(ctx->mcp_sessions, mcp_sessions_now_ms(), new_session) != 0) {
            send_refusal(resp, 500, MCP_RPC_TRANSPORT_ERROR, "No random session id");
            goto out;
        }
        session = new_session;
    } else if (!session_admitted(ctx, session, resp)) {
        goto out;
    }
    if (kind != MESSAGE_REQUEST) {
        resp->status = 202;
        goto out;
    }
    answer = mcp_rpc_answer(ctx, json_string_value(json_object_get(msg, "method")),
                            json_object_get(msg, "id"), json_object_get(msg, "params"));
    /* Ties go to JSON: one body, no stream to parse. */
    if (json_q >= sse_q)
        send_json(resp, 200, answer);
    else
        send_sse(resp, answer);
    if (ctx->mcp_sessions) http_response_set_header(resp, "Mcp-Session-Id", session);
out:
    json_decref(msg);
}

static void handle_delete(const struct api_context *ctx, const struct http_request *req,
                          struct http_response *resp)
{
    const char *session = http_request_header(req, "Mcp-Session-Id");

    if (!session) {
        send_refusal(resp, 400, MCP_RPC_TRANSPORT_ERROR,
                     "Bad Request: Mcp-Session-Id header is required");
        return;
    }
    if (!mcp_session_close(ctx->mcp_sessions, session, mcp_sessions_now_ms())) {
        send_refusal(resp, 404, MCP_RPC_SESSION_NOT_FOUND, "Session not found");
        return;
    }
    resp->status = 200;
}

void mcp_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp)
{
    bool post = strcmp(req->method, "POST") == 0;
    bool delete = strcmp(req->method, "DELETE") == 0 && ctx->mcp_sessions;
    const char *version = http_request_header(req, "MCP-Protocol-Version");

    if (!origin_allowed(ctx, req)) {
        send_refusal(resp, 403, MCP_RPC_TRANSPORT_ERROR,
                     "Forbidden: Origin is not a loopback host nor listed in --cors");
        return;
    }
    if (!post && !delete) {
        /* GET included: the server sends nothing unasked, so opens no stream. */
        send_refusal(resp, 405, MCP_RPC_TRANSPORT_ERROR,
                     "Method Not Allowed: POST JSON-RPC messages to /ddbemu/mcp");
        http_response_set_header(resp, "Allow", ctx->mcp_sessions ? "POST, DELETE" : "POST");
        return;
    }
    if (version && !mcp_protocol_supported(version)) {
        char message[160];
        snprintf(message, sizeof message,
                 "Bad Request: Unsupported protocol version (MCP-Protocol-Version; supported: %s)",
                 MCP_PROTOCOL_VERSIONS_TEXT);
        send_refusal(resp, 400, MCP_RPC_TRANSPORT_ERROR, message);
        return;
    }
    if (post)
        handle_post(ctx, req, resp);
    else
        handle_delete(ctx, req, resp);
}
