/*
 * control.h - the emulator-only control interface, under /ddbemu/ on the
 * DynamoDB port.
 *
 * It lets tests control what DynamoDB decides by itself: the clock every
 * timed behaviour follows (TTL expiry, stream record times and trimming,
 * iterator expiry, CreationDateTime, the TTL change interval), a TTL sweep
 * now instead of at the next interval, and a reset of one namespace's tables.
 * It is not the DynamoDB protocol: plain JSON over GET/POST on reserved
 * paths, no signature - except with --credentials off loopback, where
 * dispatch.c first asks for a DynamoDB request's SigV4 signature (auth.h). dispatch.c routes a
 * request here (struct api_context.control) only when the interface is enabled (struct
 * api_config.control_enabled: by default when listening on loopback; --no-control turns it off), so
 * with it off every path behaves as DynamoDB does. Documented in README.md.
 *
 *   GET  /ddbemu/clock        {"now_ms": N, "now": "2026-01-01T00:00:00.000Z"}
 *   POST /ddbemu/clock        {"set_ms": N} or {"advance_ms": N}, and/or
 *                             {"freeze": true|false} -> the clock (and "frozen")
 *   GET|POST /ddbemu/consistency  the --consistency model (consistency.h)
 *   POST /ddbemu/ttl/sweep    {} -> {"deleted": N}
 *   POST /ddbemu/reset        {"access_key": "...", "region": "..."}
 *                             -> {"tables_deleted": N}
 *   GET  /ddbemu/insight[/<table>], POST /ddbemu/insight/reset
 *                             the access-pattern report (insight.h)
 *   GET  /ddbemu/ui[/<file>]  the web console (ui.h)
 *   POST /ddbemu/init         tables from a design document (init.h)
 *   GET  /ddbemu/shapes       every operation's request members, as its field
 *                             table declares them (shapes.h)
 *   GET|POST|DELETE /ddbemu/faults[/<id>]
 *                             fault rules: list, add, remove, clear (faults.h)
 *   /ddbemu/snapshots[/<name>[/restore|/fork]], POST /ddbemu/fork
 *                             named snapshots, restores and forks (snapshots.h)
 *   POST|DELETE /ddbemu/mcp   the Model Context Protocol, with sessions (mcp.h)
 *
 * Errors are {"error": "..."} with 400 (bad request) or 404 (unknown path).
 */
#ifndef DDB_API_CONTROL_H
#define DDB_API_CONTROL_H

#include "api/http/dispatch.h"

/* Answers one request under API_CONTROL_PREFIX (dispatch.h) into resp
 * (zeroed by the caller), through the route table in control.c. An
 * api_control_fn: the emulator hands it to api/http/ in struct api_context.
 * Never fails: problems become {"error"} answers. */
void control_handle(const struct api_context *ctx, const struct http_request *req,
                    struct http_response *resp);

#endif
