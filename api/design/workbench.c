/*
 * workbench.c - a NoSQL Workbench data model (the JSON its "Export" writes,
 * Version 3.0: ../shared/models/) as CreateTable and BatchWriteItem requests.
 *
 * Each entry of DataModel is a table: KeyAttributes {PartitionKey, SortKey}
 * with their AttributeType, GlobalSecondaryIndexes and LocalSecondaryIndexes
 * in the same form with a Projection, BillingMode with
 * ProvisionedCapacitySettings.ProvisionedThroughput (the Workbench gives its
 * GSIs the table's throughput when it commits a model to AWS, and so does
 * this), and TableData, the sample items as AttributeValue maps. Everything
 * else (TableFacets, DataAccess, NonKeyAttributes, auto scaling) describes
 * the model in the tool and creates nothing.
 */
#include "api/design/design_internal.h"

#include <stdio.h>
#include <string.h>

/* Adds an attribute definition unless present; -1 on a conflicting type. */
static int define(struct design_ctx *c, const char *where, json_t *defs, const json_t *attr)
{
    const char *name = json_string_value(json_object_get(attr, "AttributeName"));
    const char *type = json_string_value(json_object_get(attr, "AttributeType"));

    if (!name || !type)
        return design_fail(c, "%s: AttributeName and AttributeType are required", where);
    for (size_t i = 0; i < json_array_size(defs); i++) {
        const json_t *d = json_array_get(defs, i);
        if (strcmp(json_string_value(json_object_get(d, "AttributeName")), name) != 0) continue;
        if (strcmp(json_string_value(json_object_get(d, "AttributeType")), type) != 0)
            return design_fail(c, "%s: attribute %s is declared as %s and as %s", where, name,
                               json_string_value(json_object_get(d, "AttributeType")), type);
        return 0;
    }
    json_array_append_new(defs,
                          json_pack("{s:s,s:s}", "AttributeName", name, "AttributeType", type));
    return 0;
}

/* KeyAttributes {PartitionKey, SortKey} -> KeySchema, defining the attributes. */
static json_t *key_schema(struct design_ctx *c, const char *where, const json_t *keys, json_t *defs)
{
    static const char *const parts[] = {"PartitionKey", "SortKey"};
    static const char *const types[] = {"HASH", "RANGE"};
    json_t *schema = json_array();
    char field[600];

    for (size_t i = 0; i < 2; i++) {
        const json_t *k = json_object_get(keys, parts[i]);
        if (!k) {
            if (i == 0) {
                json_decref(schema);
                design_fail(c, "%s: KeyAttributes.PartitionKey is required", where);
                return NULL;
            }
            continue;
        }
        snprintf(field, sizeof field, "%s: KeyAttributes.%s", where, parts[i]);
        if (define(c, field, defs, k) != 0) {
            json_decref(schema);
            return NULL;
        }
        json_array_append_new(schema,
                              json_pack("{s:O,s:s}", "AttributeName",
                                        json_object_get(k, "AttributeName"), "KeyType", types[i]));
    }
    return schema;
}

static int indexes(struct design_ctx *c, const char *table, const json_t *model, const char *kind,
                   json_t *request, json_t *defs, const json_t *throughput)
{
    const json_t *list = json_object_get(model, kind);
    json_t *out;
    char where[700];

    if (!list) return 0;
    if (!json_is_array(list)) return design_fail(c, "table %s: %s must be a list", table, kind);
    out = json_array();
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *idx = json_array_get(list, i);
        const char *name = json_string_value(json_object_get(idx, "IndexName"));
        json_t *schema, *entry;
        snprintf(where, sizeof where, "table %s: %s[%zu] (%s)", table, kind, i,
                 name ? name : "no IndexName");
        schema = key_schema(c, where, json_object_get(idx, "KeyAttributes"), defs);
        if (!schema) {
            json_decref(out);
            return -1;
        }
        entry = json_pack("{s:s?,s:o}", "IndexName", name, "KeySchema", schema);
        if (json_object_get(idx, "Projection"))
            json_object_set(entry, "Projection", json_object_get(idx, "Projection"));
        else
            json_object_set_new(entry, "Projection", json_pack("{s:s}", "ProjectionType", "ALL"));
        if (throughput && strcmp(kind, "GlobalSecondaryIndexes") == 0)
            json_object_set(entry, "ProvisionedThroughput", (json_t *) throughput);
        json_array_append_new(out, entry);
    }
    json_object_set_new(request, kind, out);
    return 0;
}

static int one_table(struct design_ctx *c, const json_t *model, size_t n)
{
    const char *table = json_string_value(json_object_get(model, "TableName"));
    const char *billing = json_string_value(json_object_get(model, "BillingMode"));
    const json_t *throughput = json_object_get(
        json_object_get(model, "ProvisionedCapacitySettings"), "ProvisionedThroughput");
    json_t *request, *defs, *schema;
    char where[600];
    int rc = -1;

    if (!table) return design_fail(c, "DataModel[%zu]: TableName is required", n);
    snprintf(where, sizeof where, "table %s", table);
    defs = json_array();
    schema = key_schema(c, where, json_object_get(model, "KeyAttributes"), defs);
    if (!schema) {
        json_decref(defs);
        return -1;
    }
    request = json_pack("{s:s,s:o}", "TableName", table, "KeySchema", schema);
    if (billing && strcmp(billing, "PROVISIONED") == 0) {
        if (!throughput) {
            design_fail(c,
                        "%s: BillingMode PROVISIONED needs "
                        "ProvisionedCapacitySettings.ProvisionedThroughput",
                        where);
            goto out;
        }
        json_object_set_new(request, "BillingMode", json_string("PROVISIONED"));
        json_object_set(request, "ProvisionedThroughput", (json_t *) throughput);
    } else {
        json_object_set_new(request, "BillingMode", json_string("PAY_PER_REQUEST"));
        throughput = NULL;
    }
    if (indexes(c, table, model, "GlobalSecondaryIndexes", request, defs, throughput) != 0 ||
        indexes(c, table, model, "LocalSecondaryIndexes", request, defs, NULL) != 0)
        goto out;
    json_object_set(request, "AttributeDefinitions", defs);
    snprintf(where, sizeof where, "table %s: CreateTable", table);
    if (design_send(c, where, "CreateTable", request, NULL) != 0) goto out;
    c->summary->tables++;
    if (json_object_get(model, "TableData")) {
        snprintf(where, sizeof where, "table %s: TableData", table);
        if (!json_is_array(json_object_get(model, "TableData"))) {
            design_fail(c, "%s: must be a list of items", where);
            goto out;
        }
        if (design_put_items(c, where, table, json_object_get(model, "TableData")) != 0) goto out;
    }
    rc = 0;
out:
    json_decref(request);
    json_decref(defs);
    return rc;
}

int design_workbench(struct design_ctx *c, const json_t *model)
{
    const json_t *tables = json_object_get(model, "DataModel");

    if (!json_is_array(tables)) return design_fail(c, "DataModel must be a list of tables");
    for (size_t i = 0; i < json_array_size(tables); i++) {
        if (one_table(c, json_array_get(tables, i), i) != 0) return -1;
    }
    return 0;
}
