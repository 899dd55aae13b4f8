/*
 * mcp_rpc.c - MCP's JSON-RPC 2.0 methods (mcp.h): initialize, ping,
 * tools/list and tools/call. The transport (mcp.c) hands over one request
 * and sends back the response built here.
 *
 * The protocol version answered is the client's when it is one this server
 * speaks, else the newest it speaks (the client then decides).
 */
#include "api/control/mcp.h"

#include <string.h>

#define MCP_SERVER_NAME    "ddbemu"
#define MCP_SERVER_VERSION "1.0.0"

/* Newest first; MCP_PROTOCOL_VERSIONS_TEXT lists them for people. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

bool mcp_protocol_supported(const char *version)
{
    for (size_t i = 0; version && i < sizeof versions / sizeof *versions; i++)
        if (strcmp(version, versions[i]) == 0) return true;
    return false;
}

json_t *mcp_rpc_error(json_t *id, int code, const char *message)
{
    return json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
                     "error", "code", code, "message", message);
}

static json_t *rpc_result(json_t *id, json_t *result)
{
    return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result);
}

static json_t *initialize_result(json_t *params)
{
    const char *asked = json_string_value(json_object_get(params, "protocolVersion"));

    return json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s},s:s}", "protocolVersion",
                     mcp_protocol_supported(asked) ? asked : versions[0], "capabilities", "tools",
                     "listChanged", 0, "serverInfo", "name", MCP_SERVER_NAME, "version",
                     MCP_SERVER_VERSION, "instructions",
                     "ddbemu, a local DynamoDB emulator: list and describe tables, run DynamoDB "
                     "operations, read the access-pattern report, take and restore snapshots, "
                     "move the engine clock. See docs/mcp.md.");
}

json_t *mcp_rpc_answer(const struct api_context *ctx, const char *method, json_t *id,
                       json_t *params)
{
    if (strcmp(method, "initialize") == 0) return rpc_result(id, initialize_result(params));
    if (strcmp(method, "ping") == 0) return rpc_result(id, json_object());
    if (strcmp(method, "tools/list") == 0) return rpc_result(id, mcp_tools_list());
    if (strcmp(method, "tools/call") == 0) {
        const char *name = json_string_value(json_object_get(params, "name"));
        json_t *args = json_object_get(params, "arguments"), *result;
        if (!name || (args && !json_is_object(args)))
            return mcp_rpc_error(id, MCP_RPC_INVALID_PARAMS,
                                 "tools/call needs a name and object arguments");
        result = mcp_tool_call(ctx, name, args);
        if (!result) return mcp_rpc_error(id, MCP_RPC_INVALID_PARAMS, "Unknown tool");
        return rpc_result(id, result);
    }
    return mcp_rpc_error(id, MCP_RPC_METHOD_NOT_FOUND, "Method not found");
}
