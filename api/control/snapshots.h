/*
 * snapshots.h - the snapshot and fork endpoints of the control interface
 * (docs/snapshots.md), over storage/engine/db_snapshots.h:
 *
 *   GET    /ddbemu/snapshots                 {"snapshots": [info, ...]}
 *   POST   /ddbemu/snapshots                 {"name", "access_key", "region"} or
 *                                            {"name", "all": true}, and "wait": true
 *                                            to answer once it is on disk -> info
 *   DELETE /ddbemu/snapshots/<name>          {"deleted": name}
 *   POST   /ddbemu/snapshots/<name>/restore  {"capacity": "keep"|"reset"} -> {"tables": N}
 *   POST   /ddbemu/snapshots/<name>/fork     {"to_access_key", "replace"} -> {"tables": N}
 *   POST   /ddbemu/fork                      {"access_key", "region", "to_access_key",
 *                                             "replace"} -> {"tables": N}
 *
 * info: {"name", "namespace" (absent for all), "created_ms", "tables", "items",
 * "stream_records", and with --db-path "on_disk": whether ddbemu.db holds it yet}. Errors:
 * {"error"} with 400, 404 (no such snapshot) or 409 (name taken, fork target has tables).
 */
#ifndef DDB_API_CONTROL_SNAPSHOTS_H
#define DDB_API_CONTROL_SNAPSHOTS_H

#include "api/http/dispatch.h"
#include "api/http/server.h"

#include <jansson.h>

/* Answers one request under /ddbemu/snapshots or /ddbemu/fork; what is the
 * path below /ddbemu/, body the request's JSON object (borrowed). */
void snapshots_handle(const struct api_context *ctx, const struct http_request *req,
                      const char *what, json_t *body, struct http_response *resp);

/* The actions themselves, for the HTTP routes and the MCP tools (mcp.c):
 * args is a JSON object as above (the name inside it for restore, fork and
 * delete); the answer is a new JSON object, *status its HTTP status. */
json_t *snapshots_save(const struct api_context *ctx, json_t *args, int *status);
json_t *snapshots_list(const struct api_context *ctx);
json_t *snapshots_delete(const struct api_context *ctx, const char *name, int *status);
json_t *snapshots_restore(const struct api_context *ctx, const char *name, json_t *args,
                          int *status);
/* name NULL: fork the live namespace of args' access_key and region. */
json_t *snapshots_fork(const struct api_context *ctx, const char *name, json_t *args, int *status);

/* The namespace a credential's requests use (dispatch.c's set_scope: key/region, or the shared
 * namespace under --shared-db) into out; false when access_key or region is missing. */
bool control_namespace(const struct api_config *config, const char *access_key, const char *region,
                       char *out, size_t size);

#endif
