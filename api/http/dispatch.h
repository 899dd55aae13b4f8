/*
 * dispatch.h - one HTTP request in, one DynamoDB answer out.
 *
 * api_handle() runs the generic checks once, in front of every handler, in
 * the order DynamoDB applies them (Redis's processCommand, dynalite's
 * pipeline): CORS preflight, the GET / health line, method and content type,
 * JSON syntax, X-Amz-Target, SigV4 Authorization (auth.h: its shape only
 * and any key, as DynamoDB Local does, unless --credentials asks for real
 * verification) and the namespace it selects, then the operation's request shape, then the handler.
 * It owns no socket, so tests drive it with raw headers and bodies.
 *
 * Reentrant: all per-request state lives on the calling thread's stack.
 */
#ifndef DDB_API_DISPATCH_H
#define DDB_API_DISPATCH_H

#include "api/http/server.h"
#include "api/ops/ops.h"
#include "api/ops/request.h"

struct api_context;
struct fault_set;
struct mcp_sessions;

/* The emulator-only control interface's one entry point (api/control/
 * control.h): answers a request under API_CONTROL_PREFIX into resp. Taken
 * as data, like the operations table, so that http/ links no control code. */
typedef void api_control_fn(const struct api_context *ctx, const struct http_request *req,
                            struct http_response *resp);

/* The control interface's reserved path prefix on the DynamoDB port. */
#define API_CONTROL_PREFIX "/ddbemu/"

/* What every request shares: borrowed, immutable while the server runs. */
struct api_context {
    struct db *db;
    const struct api_config *config;
    const struct operation *operations; /* api_operations; tests pass their own table */
    const char *health_region; /* region GET / names without a Host header; NULL: "us-east-1" */
    api_control_fn *control;   /* control_handle; NULL: no control interface */
    /* The fault rules in force (api/faults/faults.h: --faults, /ddbemu/faults);
     * NULL: none. The set guards itself: shared by every thread. */
    struct fault_set *faults;
    /* The MCP sessions of /ddbemu/mcp (api/control/mcp_session.h); NULL:
     * the endpoint keeps none. The table guards itself. */
    struct mcp_sessions *mcp_sessions;
};

/* The Server header of every DynamoDB answer, success or error: the word
 * "Server" itself, as answers captured from AWS show it (boto3's
 * ResponseMetadata.HTTPHeaders: 'server': 'Server', beside x-amzn-requestid
 * and x-amz-crc32), and as scylla's test/alternator/test_http_headers.py
 * checks it is there on AWS for both. server.c adds it (server_config). */
#define API_SERVER_NAME "Server"

/* The namespace every credential shares under --shared-db (DynamoDB Local's name for it). */
#define API_SHARED_NAMESPACE "shared-local-instance"

/* Answers req into resp (which must be zeroed). Never fails: every problem
 * becomes DynamoDB's error answer; a handler failing without setting an
 * error becomes a 500 InternalServerError. */
void api_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp);

/* Sends one DynamoDB request (target: the X-Amz-Target, body: JSON text) as
 * an SDK with the credential (access_key, region) would, through
 * api_handle's whole front; returns the HTTP status and sets *answer to the
 * body (owned, NUL-terminated). Tables from a design (--init, POST
 * /ddbemu/init) are created this way, so every rule of the API applies -
 * but the signature's: these are the process's own requests (or those of a
 * control request already authenticated), never checked against --credentials. */
int api_call(const struct api_context *ctx, const char *access_key, const char *region,
             const char *target, const char *body, char **answer);

/* api_call as a design_call_fn (api/design/design.h): ctx is a const struct
 * api_context *. Tables from a design replay their requests through it. */
int api_design_call(void *ctx, const char *access_key, const char *region, const char *target,
                    const char *body, char **answer);

/* http_handler_fn adapter for server.c: arg is a const struct api_context *.
 * With persistence the request's changes are in the log (safe from kill -9)
 * when the engine call returns, so the answer goes out at once. */
void api_http_handler(void *arg, const struct http_request *req, struct http_response *resp);

#endif
