/*
 * shapes.c - GET /ddbemu/shapes: every request member ddbemu knows, read
 * from the operations table and its field tables (ops.h, shape.h).
 *
 * The answer is what the field tables say, and nothing else: a member a
 * handler reads but no table declares is not listed, on purpose, so that the
 * model test (conformance/js/model.test.mjs) names it. It is
 *
 *   {"operations": {"DynamoDB_20120810.CreateTable": {
 *       "TableName": "string", "KeySchema": "list",
 *       "KeySchema[]": "structure", "KeySchema[].AttributeName": "string", ...}}}
 *
 * one object per X-Amz-Target, mapping the path of every member (a list's
 * element is "[]", a map's value "{}") to its type: string, integer, long,
 * double, boolean, blob, list, map, structure, attribute_value (one
 * AttributeValue, whose members wire_value.c knows) or attribute_map (a map
 * of AttributeValues). Field tables are static const data, so this reads them
 * without a lock.
 */
#include "api/control/shapes.h"

#include "api/wire/shape.h"
#include "storage/base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field tables do not refer to themselves (AttributeValue's recursion is
 * F_ATTRIBUTE_VALUE's), so this only guards against a mistake in one. */
#define SHAPES_MAX_DEPTH 32

static const char *type_name(enum field_type t)
{
    switch (t) {
    case F_STRING: return "string";
    case F_INTEGER: return "integer";
    case F_LONG: return "long";
    case F_DOUBLE: return "double";
    case F_BOOLEAN: return "boolean";
    case F_BLOB: return "blob";
    case F_LIST: return "list";
    case F_MAP: return "map";
    case F_STRUCT: return "structure";
    case F_ATTRIBUTE_VALUE: return "attribute_value";
    case F_ATTRIBUTE_MAP: return "attribute_map";
    case F_NONE: break;
    }
    return "none";
}

static void add_fields(json_t *out, const char *prefix, const struct field *fields, int depth);

/* Adds f at path, then what is inside it. */
static void add_member(json_t *out, const char *path, const struct field *f, int depth)
{
    char *inner;

    json_object_set_new(out, path, json_string(type_name(f->type)));
    if (depth >= SHAPES_MAX_DEPTH) return;
    if ((f->type == F_LIST || f->type == F_MAP) && f->member) {
        inner = xmalloc(strlen(path) + 3);
        sprintf(inner, "%s%s", path, f->type == F_LIST ? "[]" : "{}");
        add_member(out, inner, f->member, depth + 1);
        free(inner);
    } else if (f->type == F_STRUCT && f->children) {
        add_fields(out, path, f->children, depth + 1);
    }
}

static void add_fields(json_t *out, const char *prefix, const struct field *fields, int depth)
{
    for (const struct field *f = fields; f->name; f++) {
        size_t len = strlen(prefix) + strlen(f->name) + 2;
        char *path = xmalloc(len);

        snprintf(path, len, "%s%s%s", prefix, prefix[0] ? "." : "", f->name);
        add_member(out, path, f, depth);
        free(path);
    }
}

json_t *shapes_json(const struct operation *operations)
{
    json_t *ops = json_object();

    for (const struct operation *op = operations; op && op->target; op++) {
        json_t *members = json_object();
        add_fields(members, "", op->fields, 0);
        json_object_set_new(ops, op->target, members);
    }
    return json_pack("{s:o}", "operations", ops);
}
