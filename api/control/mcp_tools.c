/*
 * mcp_tools.c - the tools /ddbemu/mcp offers (mcp.h, docs/mcp.md).
 *
 * Each tool is one thing the emulator already does, reached in-process the
 * way its own front reaches it: DynamoDB operations go through api_call
 * (dispatch.h: the whole request path, validation and errors included, as a
 * client with the given credential would send them), the report through the
 * insight endpoint, snapshots through snapshots.h, the clock through the
 * engine. A tool's text is the JSON answer, cut at MCP_RESULT_MAX_BYTES.
 *
 * --mcp-read-only (struct api_config.mcp_read_only) refuses every tool call
 * that could change something: DynamoDB operations outside the read list
 * below, PartiQL other than SELECT, snapshots other than listing them, and
 * moving the clock.
 */
#include "api/control/insight.h"
#include "api/control/mcp.h"
#include "api/control/snapshots.h"
#include "storage/base/text.h"
#include "storage/engine/db.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The credential tools use when the call names none. */
#define MCP_DEFAULT_ACCESS_KEY "ddbemu"
#define MCP_DEFAULT_REGION     "us-east-1"

/* Operations that read only (DynamoDB's and DynamoDB Streams'). */
static const char *const read_operations[] = {"GetItem",
                                              "BatchGetItem",
                                              "Query",
                                              "Scan",
                                              "TransactGetItems",
                                              "DescribeTable",
                                              "ListTables",
                                              "DescribeTimeToLive",
                                              "DescribeContinuousBackups",
                                              "ListTagsOfResource",
                                              "DescribeLimits",
                                              "DescribeEndpoints",
                                              "ListBackups",
                                              "DescribeBackup",
                                              "DescribeContributorInsights",
                                              "ListContributorInsights",
                                              "DescribeKinesisStreamingDestination",
                                              "ListExports",
                                              "DescribeExport",
                                              "ListImports",
                                              "DescribeImport",
                                              "GetResourcePolicy",
                                              "DescribeStream",
                                              "GetRecords",
                                              "GetShardIterator",
                                              "ListStreams"};
static const char *const stream_operations[] = {"DescribeStream", "GetRecords", "GetShardIterator",
                                                "ListStreams"};

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0) return true;
    return false;
}

static bool is_select(const char *statement)
{
    while (statement && isspace((unsigned char) *statement))
        statement++;
    return statement && strncasecmp(statement, "SELECT", 6) == 0 &&
           !isalnum((unsigned char) statement[6]);
}

/* Whether a DynamoDB call only reads. */
static bool reads_only(const char *operation, json_t *input)
{
    if (in_list(operation, read_operations, sizeof read_operations / sizeof *read_operations))
        return true;
    if (strcmp(operation, "ExecuteStatement") == 0)
        return is_select(json_string_value(json_object_get(input, "Statement")));
    if (strcmp(operation, "BatchExecuteStatement") == 0) {
        json_t *statements = json_object_get(input, "Statements"), *s;
        size_t i;
        if (!json_is_array(statements)) return false;
        json_array_foreach(
            statements, i,
            s) if (!is_select(json_string_value(json_object_get(s, "Statement")))) return false;
        return true;
    }
    return false;
}

/* A tool's result: text (cut to the cap, saying so) and whether it is an error. */
static json_t *tool_text(const char *text, size_t len, bool error)
{
    struct text_buf b = {0};
    json_t *result;

    if (len > MCP_RESULT_MAX_BYTES) {
        /* Cut on a UTF-8 character boundary. */
        size_t cut = MCP_RESULT_MAX_BYTES;
        while (cut && ((unsigned char) text[cut] & 0xC0) == 0x80)
            cut--;
        text_buf_printf(&b,
                        "%.*s\n[ddbemu: result cut at %zu of %zu bytes; ask for less (Limit, "
                        "ProjectionExpression, a table name)]",
                        (int) cut, text, cut, len);
    } else {
        text_buf_printf(&b, "%.*s", (int) len, text);
    }
    result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text", "text",
                       b.data ? b.data : "", "isError", error);
    text_buf_clear(&b);
    return result;
}

/* An error message as a tool's result. */
static json_t *tool_message(const char *message)
{
    return tool_text(message, strlen(message), true);
}

static json_t *tool_json(json_t *body, bool error)
{
    char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *result = tool_text(text ? text : "", text ? strlen(text) : 0, error);

    free(text);
    json_decref(body);
    return result;
}

static json_t *refused(const char *what)
{
    char text[256];

    snprintf(text, sizeof text, "refused: ddbemu runs with --mcp-read-only and %s changes state",
             what);
    return tool_message(text);
}

static const char *arg_str(json_t *args, const char *key, const char *fallback)
{
    const char *v = json_string_value(json_object_get(args, key));
    return v ? v : fallback;
}

/* One DynamoDB operation through the whole front, as the credential's client. */
static json_t *call_dynamodb(const struct api_context *ctx, json_t *args, const char *operation,
                             json_t *input)
{
    char target[128], *answer = NULL;
    char *body;
    int status;
    json_t *result;
    bool streams =
        in_list(operation, stream_operations, sizeof stream_operations / sizeof *stream_operations);

    snprintf(target, sizeof target, "%s.%s",
             streams ? "DynamoDBStreams_20120810" : "DynamoDB_20120810", operation);
    body = json_dumps(input ? input : json_object(), JSON_COMPACT);
    status =
        api_call(ctx, arg_str(args, "access_key", MCP_DEFAULT_ACCESS_KEY),
                 arg_str(args, "region", MCP_DEFAULT_REGION), target, body ? body : "{}", &answer);
    free(body);
    result = tool_text(answer ? answer : "", answer ? strlen(answer) : 0, status != 200);
    free(answer);
    return result;
}

static json_t *tool_dynamodb(const struct api_context *ctx, json_t *args)
{
    const char *operation = json_string_value(json_object_get(args, "operation"));
    json_t *input = json_object_get(args, "input");

    if (!operation || !operation[0] || strlen(operation) > 64 || (input && !json_is_object(input)))
        return tool_message("give operation (e.g. \"Query\") and input (its request as JSON)");
    if (ctx->config && ctx->config->mcp_read_only && !reads_only(operation, input))
        return refused(operation);
    return call_dynamodb(ctx, args, operation, input);
}

static json_t *tool_list_tables(const struct api_context *ctx, json_t *args)
{
    return call_dynamodb(ctx, args, "ListTables", NULL);
}

static json_t *tool_describe_table(const struct api_context *ctx, json_t *args)
{
    json_t *input = json_pack("{s:s}", "TableName", arg_str(args, "table_name", ""));
    json_t *result = call_dynamodb(ctx, args, "DescribeTable", input);

    json_decref(input);
    return result;
}

/* The access-pattern report, read from the insight endpoint. */
static json_t *tool_access_report(const struct api_context *ctx, json_t *args)
{
    const char *table = arg_str(args, "table_name", NULL);
    struct http_field query[2] = {
        {"access_key", arg_str(args, "access_key", MCP_DEFAULT_ACCESS_KEY)},
        {"region", arg_str(args, "region", MCP_DEFAULT_REGION)},
    };
    char path[512];
    struct http_request req = {.method = "GET", .query = query, .query_count = 2, .body = ""};
    struct http_response resp = {0};
    json_t *result;

    if (table && (!table[0] || strchr(table, '/') || strlen(table) > 255))
        return tool_message("not a table name");
    snprintf(path, sizeof path, "%s%s%s", API_CONTROL_PREFIX "insight", table ? "/" : "",
             table ? table : "");
    req.path = path;
    insight_handle(ctx->db, ctx->config, &req, path + strlen(API_CONTROL_PREFIX), NULL, &resp);
    result = tool_text(resp.body ? resp.body : "", resp.body_len, resp.status != 200);
    http_response_clear(&resp);
    return result;
}

static json_t *tool_snapshot_save(const struct api_context *ctx, json_t *args)
{
    int status;
    json_t *a, *r;

    if (ctx->config && ctx->config->mcp_read_only) return refused("snapshot_save");
    a = json_deep_copy(args);
    if (!json_object_get(a, "all")) {
        json_object_set_new(a, "access_key",
                            json_string(arg_str(args, "access_key", MCP_DEFAULT_ACCESS_KEY)));
        json_object_set_new(a, "region", json_string(arg_str(args, "region", MCP_DEFAULT_REGION)));
    }
    r = snapshots_save(ctx, a, &status);
    json_decref(a);
    return tool_json(r, status != 200);
}

static json_t *tool_snapshot_restore(const struct api_context *ctx, json_t *args)
{
    int status;
    json_t *r;

    if (ctx->config && ctx->config->mcp_read_only) return refused("snapshot_restore");
    r = snapshots_restore(ctx, arg_str(args, "name", ""), args, &status);
    return tool_json(r, status != 200);
}

static json_t *tool_snapshot_list(const struct api_context *ctx, json_t *args)
{
    (void) args;
    return tool_json(snapshots_list(ctx), false);
}

static json_t *tool_snapshot_fork(const struct api_context *ctx, json_t *args)
{
    int status;
    json_t *a, *r;
    const char *name = arg_str(args, "name", NULL);

    if (ctx->config && ctx->config->mcp_read_only) return refused("snapshot_fork");
    a = json_deep_copy(args);
    json_object_set_new(a, "access_key",
                        json_string(arg_str(args, "access_key", MCP_DEFAULT_ACCESS_KEY)));
    json_object_set_new(a, "region", json_string(arg_str(args, "region", MCP_DEFAULT_REGION)));
    r = snapshots_fork(ctx, name, a, &status);
    json_decref(a);
    return tool_json(r, status != 200);
}

static json_t *tool_clock(const struct api_context *ctx, json_t *args)
{
    json_t *advance = json_object_get(args, "advance_ms"), *set = json_object_get(args, "set_ms");

    if ((advance && !json_is_integer(advance)) || (set && !json_is_integer(set)) ||
        (advance && set))
        return tool_message("give at most one of advance_ms or set_ms, as an integer");
    if ((advance || set) && ctx->config && ctx->config->mcp_read_only) return refused("the clock");
    if (advance) db_clock_advance(ctx->db, (int64_t) json_integer_value(advance));
    if (set) db_clock_set(ctx->db, (int64_t) json_integer_value(set));
    return tool_json(json_pack("{s:I}", "now_ms", (json_int_t) db_now_ms(ctx->db)), false);
}

struct tool {
    const char *name;
    const char *description;
    const char *schema; /* the input's JSON Schema */
    json_t *(*call)(const struct api_context *ctx, json_t *args);
};

#define CREDENTIAL                                                                                 \
    "\"access_key\":{\"type\":\"string\",\"description\":\"the access key whose tables (default "  \
    "ddbemu)\"},\"region\":{\"type\":\"string\",\"description\":\"default us-east-1\"}"

static const struct tool tools[] = {
    {"list_tables", "List the tables of a credential's namespace (ListTables).",
     "{\"type\":\"object\",\"properties\":{" CREDENTIAL "}}", tool_list_tables},
    {"describe_table", "Describe a table: keys, indexes, item count, stream, TTL (DescribeTable).",
     "{\"type\":\"object\",\"properties\":{\"table_name\":{\"type\":\"string\"}," CREDENTIAL
     "},\"required\":[\"table_name\"]}",
     tool_describe_table},
    {"dynamodb",
     "Run one DynamoDB or DynamoDB Streams operation (e.g. CreateTable, PutItem, Query) with its "
     "request as JSON, exactly as an SDK would send it; answers DynamoDB's JSON or its error.",
     "{\"type\":\"object\",\"properties\":{\"operation\":{\"type\":\"string\"},\"input\":{\"type\":"
     "\"object\"}," CREDENTIAL "},\"required\":[\"operation\"]}",
     tool_dynamodb},
    {"access_report",
     "The access-pattern report: per table and index, the request shapes seen, scans, read "
     "amplification, hot partitions, sizes, cost, and findings.",
     "{\"type\":\"object\",\"properties\":{\"table_name\":{\"type\":\"string\"}," CREDENTIAL "}}",
     tool_access_report},
    {"snapshot_save",
     "Save every table of a namespace (or of all, with all: true) under a name: items, indexes, "
     "streams, TTL.",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"all\":{\"type\":"
     "\"boolean\"}," CREDENTIAL "},\"required\":[\"name\"]}",
     tool_snapshot_save},
    {"snapshot_restore", "Put a snapshot's tables back exactly as they were saved.",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"capacity\":{\"enum\":["
     "\"keep\",\"reset\"]}},\"required\":[\"name\"]}",
     tool_snapshot_restore},
    {"snapshot_list", "List the saved snapshots.", "{\"type\":\"object\",\"properties\":{}}",
     tool_snapshot_list},
    {"snapshot_fork",
     "Copy a snapshot (name) or a live namespace (access_key, region) into another access key.",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"to_access_key\":{"
     "\"type\":\"string\"},\"replace\":{\"type\":\"boolean\"}," CREDENTIAL
     "},\"required\":[\"to_access_key\"]}",
     tool_snapshot_fork},
    {"clock",
     "Read the engine clock, or move it (advance_ms, set_ms): TTL expiry and stream trimming "
     "follow it.",
     "{\"type\":\"object\",\"properties\":{\"advance_ms\":{\"type\":\"integer\"},\"set_ms\":{"
     "\"type\":\"integer\"}}}",
     tool_clock},
};

json_t *mcp_tools_list(void)
{
    json_t *list = json_array();

    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++) {
        json_t *schema = json_loads(tools[i].schema, 0, NULL);
        json_array_append_new(list, json_pack("{s:s,s:s,s:o}", "name", tools[i].name, "description",
                                              tools[i].description, "inputSchema",
                                              schema ? schema : json_object()));
    }
    return json_pack("{s:o}", "tools", list);
}

json_t *mcp_tool_call(const struct api_context *ctx, const char *name, json_t *args)
{
    json_t *empty = args ? NULL : json_object(), *result = NULL;

    for (size_t i = 0; i < sizeof tools / sizeof *tools && !result; i++)
        if (strcmp(name, tools[i].name) == 0) result = tools[i].call(ctx, args ? args : empty);
    json_decref(empty);
    return result;
}
