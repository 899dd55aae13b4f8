/*
 * control.c - the emulator-only control interface (see control.h).
 *
 * Small on purpose: each endpoint is one engine call (db_clock_set,
 * db_clock_advance, db_expire_items, db_reset_namespace) wrapped in JSON.
 * The namespace a reset names is formed exactly as dispatch.c's set_scope()
 * forms it from a SigV4 credential (access key + "/" + region, or the shared
 * namespace under --shared-db), so a test resets what its own client sees.
 */
#include "api/control/control.h"

#include "api/control/consistency.h"
#include "api/control/faults.h"
#include "api/control/init.h"
#include "api/control/insight.h"
#include "api/control/mcp.h"
#include "api/control/shapes.h"
#include "api/control/snapshots.h"
#include "api/control/ui.h"
#include "api/http/dispatch.h"
#include "api/http/response.h"
#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_ttl.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void reply(struct http_response *resp, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);

    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, text ? strlen(text) : 0);
    json_decref(body);
}

static void reply_error(struct http_response *resp, int status, const char *message)
{
    reply(resp, status, json_pack("{s:s}", "error", message));
}

static void reply_unknown(struct http_response *resp)
{
    reply_error(resp, 404,
                "unknown control endpoint (see README.md: /ddbemu/clock, /ddbemu/ttl/sweep, "
                "/ddbemu/reset, /ddbemu/insight, /ddbemu/ui, /ddbemu/init, /ddbemu/shapes, "
                "/ddbemu/faults, /ddbemu/consistency, /ddbemu/snapshots, /ddbemu/fork, "
                "/ddbemu/mcp)");
}

/* {"now_ms": N, "now": ISO 8601 UTC with milliseconds}. */
static json_t *clock_json(struct db *db)
{
    int64_t now_ms = db_now_ms(db);
    time_t secs = (time_t) (now_ms / 1000);
    struct tm tm;
    char iso[48];
    size_t len;

    gmtime_r(&secs, &tm);
    len = strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(iso + len, sizeof iso - len, ".%03dZ", (int) (now_ms % 1000));
    return json_pack("{s:I,s:s,s:b}", "now_ms", (json_int_t) now_ms, "now", iso, "frozen",
                     db_clock_is_frozen(db));
}

static bool is_method(const struct http_request *req, const char *method)
{
    return strcmp(req->method, method) == 0;
}

/* The request body as a JSON object; an empty body is {}. NULL when not an object. */
static json_t *body_object(const struct http_request *req)
{
    json_t *body;

    if (!req->body_len) return json_object();
    body = json_loadb(req->body, req->body_len, 0, NULL);
    if (!json_is_object(body)) {
        json_decref(body);
        return NULL;
    }
    return body;
}

static void handle_clock(struct db *db, const struct http_request *req, json_t *body,
                         struct http_response *resp)
{
    json_t *set = json_object_get(body, "set_ms"), *advance = json_object_get(body, "advance_ms");
    json_t *freeze = json_object_get(body, "freeze");

    if (is_method(req, "POST")) {
        /* {"freeze": true|false} stops or restarts the clock, alone or with a move. */
        if ((freeze && !json_is_boolean(freeze)) ||
            (!freeze && (set != NULL) == (advance != NULL)) || (set && advance) ||
            (set && !json_is_integer(set)) || (advance && !json_is_integer(advance))) {
            reply_error(resp, 400,
                        "give exactly one of set_ms or advance_ms, as an integer, and/or "
                        "freeze as a boolean");
            return;
        }
        if (freeze) db_clock_freeze(db, json_is_true(freeze));
        if (set) db_clock_set(db, (int64_t) json_integer_value(set));
        if (advance) db_clock_advance(db, (int64_t) json_integer_value(advance));
    }
    reply(resp, 200, clock_json(db));
}

static void handle_reset(struct db *db, const struct api_config *config, json_t *body,
                         struct http_response *resp)
{
    const char *access_key = json_string_value(json_object_get(body, "access_key"));
    const char *region = json_string_value(json_object_get(body, "region"));
    char namespace_id[256];
    size_t removed;

    if (!control_namespace(config, access_key, region, namespace_id, sizeof namespace_id)) {
        reply_error(resp, 400, "give the access_key and region whose tables to reset");
        return;
    }
    removed = db_reset_namespace(db, namespace_id);
    reply(resp, 200, json_pack("{s:I}", "tables_deleted", (json_int_t) removed));
}

/* One endpoint of the interface: a path under /ddbemu/ (or, with prefix, a
 * path and everything below it) and what answers it. json_body: the body is
 * parsed as a JSON object first (an empty body is {}); the other endpoints
 * read the raw body themselves. */
struct control_route {
    const char *path;
    bool prefix;
    bool json_body;
    void (*handle)(const struct api_context *ctx, const struct http_request *req, const char *what,
                   json_t *body, struct http_response *resp);
};

static void route_clock(const struct api_context *ctx, const struct http_request *req,
                        const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    if (is_method(req, "GET") || is_method(req, "POST"))
        handle_clock(ctx->db, req, body, resp);
    else
        reply_unknown(resp);
}

static void route_sweep(const struct api_context *ctx, const struct http_request *req,
                        const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    (void) body;
    if (is_method(req, "POST"))
        reply(resp, 200,
              json_pack("{s:I}", "deleted", (json_int_t) db_expire_items(ctx->db, SIZE_MAX)));
    else
        reply_unknown(resp);
}

static void route_reset(const struct api_context *ctx, const struct http_request *req,
                        const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    if (is_method(req, "POST"))
        handle_reset(ctx->db, ctx->config, body, resp);
    else
        reply_unknown(resp);
}

/* The access-pattern report (insight.h). */
static void route_insight(const struct api_context *ctx, const struct http_request *req,
                          const char *what, json_t *body, struct http_response *resp)
{
    insight_handle(ctx->db, ctx->config, req, what, body, resp);
}

/* The web console (ui.h). */
static void route_ui(const struct api_context *ctx, const struct http_request *req,
                     const char *what, json_t *body, struct http_response *resp)
{
    (void) ctx;
    (void) body;
    console_http_handle(req, what, resp);
}

/* Tables from a design document (init.h), replayed through the api's front. */
static void route_init(const struct api_context *ctx, const struct http_request *req,
                       const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    (void) body;
    design_http_handle(req, api_design_call, (void *) ctx, resp);
}

/* The request members every operation's field table declares (shapes.h). */
static void route_shapes(const struct api_context *ctx, const struct http_request *req,
                         const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    (void) body;
    if (is_method(req, "GET"))
        reply(resp, 200, shapes_json(ctx->operations));
    else
        reply_unknown(resp);
}

/* Fault rules (faults.h). */
static void route_faults(const struct api_context *ctx, const struct http_request *req,
                         const char *what, json_t *body, struct http_response *resp)
{
    (void) body;
    faults_http_handle(ctx, req, what, resp);
}

/* The consistency model (consistency.h). */
static void route_consistency(const struct api_context *ctx, const struct http_request *req,
                              const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    consistency_http_handle(ctx->db, ctx->config, req, body, resp);
}

/* Snapshots, restores and forks (snapshots.h). */
static void route_snapshots(const struct api_context *ctx, const struct http_request *req,
                            const char *what, json_t *body, struct http_response *resp)
{
    snapshots_handle(ctx, req, what, body, resp);
}

/* The Model Context Protocol endpoint (mcp.h). */
static void route_mcp(const struct api_context *ctx, const struct http_request *req,
                      const char *what, json_t *body, struct http_response *resp)
{
    (void) what;
    (void) body;
    mcp_handle(ctx, req, resp);
}

static const struct control_route routes[] = {
    {"snapshots", true, true, route_snapshots},
    {"fork", false, true, route_snapshots},
    {"mcp", false, false, route_mcp},
    {"init", false, false, route_init},
    {"clock", false, true, route_clock},
    {"ttl/sweep", false, true, route_sweep},
    {"reset", false, true, route_reset},
    {"insight", true, true, route_insight},
    {"ui", true, true, route_ui},
    {"shapes", false, false, route_shapes},
    {"faults", true, false, route_faults},
    {"consistency", false, true, route_consistency},
};

/* Whether what is path, or (prefix) below it. */
static bool route_matches(const struct control_route *r, const char *what)
{
    size_t n = strlen(r->path);

    if (strncmp(what, r->path, n) != 0) return false;
    return what[n] == '\0' || (r->prefix && what[n] == '/');
}

void control_handle(const struct api_context *ctx, const struct http_request *req,
                    struct http_response *resp)
{
    const char *what = req->path + strlen(API_CONTROL_PREFIX);
    const struct control_route *r = NULL;
    json_t *body = NULL;

    for (size_t i = 0; i < sizeof routes / sizeof routes[0] && !r; i++)
        if (route_matches(&routes[i], what)) r = &routes[i];
    if (r && r->json_body && !(body = body_object(req))) {
        reply_error(resp, 400, "the body must be a JSON object");
        return;
    }
    if (r)
        r->handle(ctx, req, what, body, resp);
    else
        reply_unknown(resp);
    json_decref(body);
}
