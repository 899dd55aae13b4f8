/*
 * mcp.c - MCP's streamable HTTP transport and JSON-RPC 2.0 framing (mcp.h).
 *
 * One JSON-RPC message per POST (the 2025-06-18 revision dropped batches; an
 * array is an Invalid Request). A request gets its response as the
 * application/json body; a notification or a response gets 202 and no body.
 * The protocol version answered is the client's when it is one this server
 * speaks, else the newest it speaks (the client then decides).
 */
#include "api/control/mcp.h"

#include "api/http/response.h"

#include <stdlib.h>
#include <string.h>

#define MCP_SERVER_NAME    "ddbemu"
#define MCP_SERVER_VERSION "1.0.0"

/* Newest first. */
static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

/* JSON-RPC's error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
};

static void send_json(struct http_response *resp, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);

    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, text ? strlen(text) : 0);
    json_decref(body);
}

static json_t *rpc_error(json_t *id, int code, const char *message)
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
    const char *version = versions[0];

    for (size_t i = 0; asked && i < sizeof versions / sizeof *versions; i++)
        if (strcmp(asked, versions[i]) == 0) version = versions[i];
    return json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s},s:s}", "protocolVersion", version,
                     "capabilities", "tools", "listChanged", 0, "serverInfo", "name",
                     MCP_SERVER_NAME, "version", MCP_SERVER_VERSION, "instructions",
                     "ddbemu, a local DynamoDB emulator: list and describe tables, run DynamoDB "
                     "operations, read the access-pattern report, take and restore snapshots, "
                     "move the engine clock. See docs/mcp.md.");
}

/* The answer to one request (id present); a new reference. */
static json_t *answer(const struct api_context *ctx, const char *method, json_t *id, json_t *params)
{
    if (strcmp(method, "initialize") == 0) return rpc_result(id, initialize_result(params));
    if (strcmp(method, "ping") == 0) return rpc_result(id, json_object());
    if (strcmp(method, "tools/list") == 0) return rpc_result(id, mcp_tools_list());
    if (strcmp(method, "tools/call") == 0) {
        const char *name = json_string_value(json_object_get(params, "name"));
        json_t *args = json_object_get(params, "arguments"), *result;
        if (!name || (args && !json_is_object(args)))
            return rpc_error(id, RPC_INVALID_PARAMS,
                             "tools/call needs a name and object arguments");
        result = mcp_tool_call(ctx, name, args);
        if (!result) return rpc_error(id, RPC_INVALID_PARAMS, "Unknown tool");
        return rpc_result(id, result);
    }
    return rpc_error(id, RPC_METHOD_NOT_FOUND, "Method not found");
}

void mcp_handle(const struct api_context *ctx, const struct http_request *req,
                struct http_response *resp)
{
    json_t *msg, *id, *params;
    const char *method;

    if (strcmp(req->method, "POST") != 0) {
        /* No server-initiated stream and no session to end. */
        send_json(resp, 405, json_pack("{s:s}", "error", "POST JSON-RPC messages to /ddbemu/mcp"));
        http_response_set_header(resp, "Allow", "POST");
        return;
    }
    msg = json_loadb(req->body ? req->body : "", req->body_len, 0, NULL);
    if (!msg) {
        send_json(resp, 400, rpc_error(NULL, RPC_PARSE_ERROR, "Parse error"));
        return;
    }
    if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "jsonrpc")) ||
        strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0") != 0) {
        send_json(resp, 400, rpc_error(NULL, RPC_INVALID_REQUEST, "Invalid Request"));
        json_decref(msg);
        return;
    }
    method = json_string_value(json_object_get(msg, "method"));
    id = json_object_get(msg, "id");
    params = json_object_get(msg, "params");
    if (!method || !id || json_is_null(id)) {
        /* A notification (notifications/initialized, cancelled) or a response: accepted. */
        resp->status = 202;
        json_decref(msg);
        return;
    }
    if (!json_is_string(id) && !json_is_integer(id)) {
        send_json(resp, 400, rpc_error(NULL, RPC_INVALID_REQUEST, "Invalid Request"));
        json_decref(msg);
        return;
    }
    send_json(resp, 200, answer(ctx, method, id, params));
    json_decref(msg);
}
