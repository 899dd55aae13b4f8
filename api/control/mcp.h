/*
 * mcp.h - the Model Context Protocol at /ddbemu/mcp (docs/mcp.md), for
 * coding agents: JSON-RPC 2.0 over MCP's streamable HTTP transport, each
 * POST answered with one application/json body (the transport allows it in
 * place of an event stream), notifications and responses with 202. GET and
 * DELETE answer 405: the server opens no stream and keeps no session.
 *
 * Methods: initialize, ping, tools/list, tools/call; the tools are mcp_tools.c's.
 * Served where the control interface is (loopback by default).
 */
#ifndef DDB_API_CONTROL_MCP_H
#define DDB_API_CONTROL_MCP_H

#include "api/http/dispatch.h"
#include "api/http/server.h"

#include <jansson.h>

void mcp_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp);

/* ---- the tools (mcp_tools.c) ---- */

/* Largest text a tool answers; longer results are cut, and say so. */
#define MCP_RESULT_MAX_BYTES (64 * 1024)

/* tools/list's result: {"tools": [...]} (new reference). */
json_t *mcp_tools_list(void);
/* tools/call's result for tool name with arguments args (borrowed; NULL: {}):
 * {"content": [{"type": "text", "text"}], "isError"}; NULL when no tool has that name. */
json_t *mcp_tool_call(const struct api_context *ctx, const char *name, json_t *args);

#endif
