/*
 * mcp.h - the Model Context Protocol at /ddbemu/mcp (docs/mcp.md), for
 * coding agents: JSON-RPC 2.0 over MCP's Streamable HTTP transport
 * (revision 2025-11-25, and the older revisions' clients).
 *
 * The transport (mcp.c): initialize opens a session (mcp_session.h) whose
 * id every later request carries in Mcp-Session-Id (400 without it, 404
 * once it has ended, so the client re-initializes); DELETE ends it. Each
 * request POSTed is answered with its response alone, as application/json
 * or, when the client's Accept prefers it, as an SSE stream of that one
 * event; notifications and responses get 202. GET answers 405: the server
 * sends nothing unasked, so it opens no stream, and nothing is resumable.
 * Origin, Content-Type, Accept and MCP-Protocol-Version are checked as the
 * transport asks (403, 415, 406, 400).
 *
 * The methods (mcp_rpc.c): initialize, ping, tools/list, tools/call; the
 * tools are mcp_tools.c's. Served where the control interface is (loopback
 * by default).
 */
#ifndef DDB_API_CONTROL_MCP_H
#define DDB_API_CONTROL_MCP_H

#include "api/http/dispatch.h"
#include "api/http/server.h"

#include <jansson.h>
#include <stdbool.h>

/* Answers one HTTP request to /ddbemu/mcp. With ctx->mcp_sessions NULL (a
 * context made without one, as unit tests make them) the endpoint is
 * stateless: no session is issued or asked for, and DELETE answers 405. */
void mcp_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp);

/* ---- JSON-RPC (mcp_rpc.c) ---- */

/* JSON-RPC's error codes, and the transport's (MCP SDKs' choice of the
 * server-defined range). */
enum {
    MCP_RPC_PARSE_ERROR = -32700,
    MCP_RPC_INVALID_REQUEST = -32600,
    MCP_RPC_METHOD_NOT_FOUND = -32601,
    MCP_RPC_INVALID_PARAMS = -32602,
    MCP_RPC_TRANSPORT_ERROR = -32000,
    MCP_RPC_SESSION_NOT_FOUND = -32001,
};

/* The protocol revisions this server speaks, newest first; mcp_rpc.c's list. */
#define MCP_PROTOCOL_VERSIONS_TEXT "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"
/* Whether this server speaks protocol revision version (NULL: no). */
bool mcp_protocol_supported(const char *version);
/* The response to request method with id (borrowed) and params (borrowed;
 * may be NULL): a new reference. */
json_t *mcp_rpc_answer(const struct api_context *ctx, const char *method, json_t *id,
                       json_t *params);
/* {"jsonrpc": "2.0", "id": id or null, "error": {code, message}}: a new reference. */
json_t *mcp_rpc_error(json_t *id, int code, const char *message);

/* ---- the tools (mcp_tools.c) ---- */

/* Largest text a tool answers; longer results are cut, and say so. */
#define MCP_RESULT_MAX_BYTES (64 * 1024)

/* tools/list's result: {"tools": [...]} (new reference). */
json_t *mcp_tools_list(void);
/* tools/call's result for tool name with arguments args (borrowed; NULL: {}):
 * {"content": [{"type": "text", "text"}], "isError"}; NULL when no tool has that name. */
json_t *mcp_tool_call(const struct api_context *ctx, const char *name, json_t *args);

#endif
