/*
 * cloudformation.c - the AWS::DynamoDB::Table resources of a CloudFormation
 * template, and SAM's AWS::Serverless::SimpleTable, as the requests that
 * create them.
 *
 * A table's Properties are CreateTable's parameters under the same names
 * (AWSCloudFormation/latest/TemplateReference/aws-resource-dynamodb-table.html),
 * except: StreamSpecification has no StreamEnabled (a stream is on when it is
 * given), SSESpecification says SSEEnabled where the API says Enabled,
 * TimeToLiveSpecification becomes UpdateTimeToLive and
 * PointInTimeRecoverySpecification UpdateContinuousBackups after the table
 * exists, and a missing TableName is the resource's logical id (CloudFormation
 * would generate one; a stable name is what a local test needs). Values must
 * be literal: an intrinsic function ({"Ref": ...}, !Sub, ...) is refused with
 * its place, as are properties that would need other services
 * (KinesisStreamSpecification, ImportSourceSpecification).
 * ContributorInsightsSpecification and ResourcePolicy change nothing locally
 * and are accepted. Other resource types are skipped.
 *
 * SAM's SimpleTable (serverless-application-model docs, AWS::Serverless::
 * SimpleTable): PrimaryKey {Name, Type: String|Number|Binary}, default
 * {"id", String}; on demand unless ProvisionedThroughput is given.
 */
#include "api/design/design_internal.h"

#include <stdio.h>
#include <string.h>

/* The place of the first intrinsic function in v, or false. */
static bool find_intrinsic(const json_t *v, char *path, size_t size, size_t used)
{
    const char *key;
    json_t *child;

    if (json_is_object(v)) {
        if (json_object_size(v) == 1) {
            json_object_foreach((json_t *) v, key, child)
            {
                if (strcmp(key, "Ref") == 0 || strncmp(key, "Fn::", 4) == 0 ||
                    strcmp(key, "Condition") == 0) {
                    snprintf(path + used, size - used, " (%s)", key);
                    return true;
                }
            }
        }
        json_object_foreach((json_t *) v, key, child)
        {
            int n = snprintf(path + used, size - used, ".%s", key);
            if (n > 0 && (size_t) n < size - used &&
                find_intrinsic(child, path, size, used + (size_t) n))
                return true;
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            int n = snprintf(path + used, size - used, "[%zu]", i);
            if (n > 0 && (size_t) n < size - used &&
                find_intrinsic(json_array_get(v, i), path, size, used + (size_t) n))
                return true;
        }
    }
    path[used] = '\0';
    return false;
}

/* Properties copied to CreateTable under the same name. */
static const char *const same_name[] = {
    "TableName",
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "TableClass",
    "DeletionProtectionEnabled",
    "Tags",
    "OnDemandThroughput",
    "WarmThroughput",
    "VectorIndexes", /* as CreateTable's (docs/differences.md) */
};
/* Properties handled below, or accepted without effect. */
static const char *const handled[] = {
    "StreamSpecification",
    "SSESpecification",
    "TimeToLiveSpecification",
    "PointInTimeRecoverySpecification",
    "ContributorInsightsSpecification",
    "ResourcePolicy",
};

static bool listed(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i], name) == 0) return true;
    }
    return false;
}

/* GSIs and LSIs may carry ContributorInsightsSpecification: not a CreateTable field. */
static void drop_index_extras(json_t *request)
{
    json_t *gsis = json_object_get(request, "GlobalSecondaryIndexes");
    for (size_t i = 0; i < json_array_size(gsis); i++)
        json_object_del(json_array_get(gsis, i), "ContributorInsightsSpecification");
}

static int dynamodb_table(struct design_ctx *c, const char *id, const json_t *props)
{
    json_t *request = json_object(), *stream, *sse;
    const char *key;
    json_t *v;
    char what[700];
    const char *table;
    int rc = -1;

    json_object_foreach((json_t *) props, key, v)
    {
        if (listed(key, same_name, sizeof same_name / sizeof *same_name))
            json_object_set(request, key, v);
        else if (!listed(key, handled, sizeof handled / sizeof *handled)) {
            design_fail(c, "resource %s: property %s is not supported by ddbemu", id, key);
            goto out;
        }
    }
    if (!json_object_get(request, "TableName"))
        json_object_set_new(request, "TableName", json_string(id));
    table = json_string_value(json_object_get(request, "TableName"));
    if (!table) {
        design_fail(c, "resource %s: property TableName must be a string", id);
        goto out;
    }
    stream = json_object_get(props, "StreamSpecification");
    if (stream) {
        json_t *spec = json_object();
        json_object_set_new(spec, "StreamEnabled", json_true());
        if (json_object_get(stream, "StreamViewType"))
            json_object_set(spec, "StreamViewType", json_object_get(stream, "StreamViewType"));
        json_object_set_new(request, "StreamSpecification", spec);
    }
    sse = json_object_get(props, "SSESpecification");
    if (sse) {
        json_t *spec = json_object();
        if (json_object_get(sse, "SSEEnabled"))
            json_object_set(spec, "Enabled", json_object_get(sse, "SSEEnabled"));
        if (json_object_get(sse, "SSEType"))
            json_object_set(spec, "SSEType", json_object_get(sse, "SSEType"));
        if (json_object_get(sse, "KMSMasterKeyId"))
            json_object_set(spec, "KMSMasterKeyId", json_object_get(sse, "KMSMasterKeyId"));
        json_object_set_new(request, "SSESpecification", spec);
    }
    drop_index_extras(request);
    snprintf(what, sizeof what, "resource %s: CreateTable", id);
    if (design_send(c, what, "CreateTable", request, NULL) != 0) goto out;
    c->summary->tables++;

    v = json_object_get(props, "TimeToLiveSpecification");
    if (v && json_is_true(json_object_get(v, "Enabled"))) {
        json_t *body = json_pack("{s:s,s:O}", "TableName", table, "TimeToLiveSpecification", v);
        snprintf(what, sizeof what, "resource %s: TimeToLiveSpecification: UpdateTimeToLive", id);
        rc = design_send(c, what, "UpdateTimeToLive", body, NULL);
        json_decref(body);
        if (rc != 0) goto out;
        rc = -1;
    }
    v = json_object_get(props, "PointInTimeRecoverySpecification");
    if (v && json_is_true(json_object_get(v, "PointInTimeRecoveryEnabled"))) {
        json_t *body =
            json_pack("{s:s,s:O}", "TableName", table, "PointInTimeRecoverySpecification", v);
        snprintf(what, sizeof what,
                 "resource %s: PointInTimeRecoverySpecification: UpdateContinuousBackups", id);
        rc = design_send(c, what, "UpdateContinuousBackups", body, NULL);
        json_decref(body);
        if (rc != 0) goto out;
    }
    rc = 0;
out:
    json_decref(request);
    return rc;
}

static int simple_table(struct design_ctx *c, const char *id, const json_t *props)
{
    const json_t *pk = json_object_get(props, "PrimaryKey");
    const char *name = pk ? json_string_value(json_object_get(pk, "Name")) : "id";
    const char *type = pk ? json_string_value(json_object_get(pk, "Type")) : "String";
    const char *letter = NULL;
    json_t *table = json_object();
    const char *key;
    json_t *v;
    int rc;

    json_object_foreach((json_t *) props, key, v)
    {
        if (strcmp(key, "PrimaryKey") != 0 && strcmp(key, "ProvisionedThroughput") != 0 &&
            strcmp(key, "TableName") != 0 && strcmp(key, "Tags") != 0 &&
            strcmp(key, "SSESpecification") != 0) {
            json_decref(table);
            return design_fail(c, "resource %s: property %s is not supported by ddbemu", id, key);
        }
    }
    if (type && strcmp(type, "String") == 0) letter = "S";
    if (type && strcmp(type, "Number") == 0) letter = "N";
    if (type && strcmp(type, "Binary") == 0) letter = "B";
    if (!name || !letter) {
        json_decref(table);
        return design_fail(c,
                           "resource %s: PrimaryKey needs a Name and a Type of String, "
                           "Number or Binary",
                           id);
    }
    json_object_set_new(table, "AttributeDefinitions",
                        json_pack("[{s:s,s:s}]", "AttributeName", name, "AttributeType", letter));
    json_object_set_new(table, "KeySchema",
                        json_pack("[{s:s,s:s}]", "AttributeName", name, "KeyType", "HASH"));
    if (json_object_get(props, "ProvisionedThroughput"))
        json_object_set(table, "ProvisionedThroughput",
                        json_object_get(props, "ProvisionedThroughput"));
    else
        json_object_set_new(table, "BillingMode", json_string("PAY_PER_REQUEST"));
    if (json_object_get(props, "TableName"))
        json_object_set(table, "TableName", json_object_get(props, "TableName"));
    if (json_object_get(props, "Tags")) {
        /* SAM's Tags are a map; CreateTable's a list of {Key, Value}. */
        json_t *tags = json_array();
        json_object_foreach(json_object_get(props, "Tags"), key, v)
            json_array_append_new(tags, json_pack("{s:s,s:O}", "Key", key, "Value", v));
        json_object_set_new(table, "Tags", tags);
    }
    if (json_object_get(props, "SSESpecification"))
        json_object_set(table, "SSESpecification", json_object_get(props, "SSESpecification"));
    rc = dynamodb_table(c, id, table);
    json_decref(table);
    return rc;
}

int design_cloudformation(struct design_ctx *c, const json_t *template_)
{
    const json_t *resources = json_object_get(template_, "Resources");
    const char *id;
    json_t *res;
    size_t found = 0;

    if (!json_is_object(resources)) return design_fail(c, "Resources must be a mapping");
    json_object_foreach((json_t *) resources, id, res)
    {
        const char *type = json_string_value(json_object_get(res, "Type"));
        const json_t *props = json_object_get(res, "Properties");
        char path[1024];
        bool simple;
        if (!type || (strcmp(type, "AWS::DynamoDB::Table") != 0 &&
                      strcmp(type, "AWS::Serverless::SimpleTable") != 0))
            continue;
        simple = strcmp(type, "AWS::Serverless::SimpleTable") == 0;
        found++;
        if (!props && !simple) return design_fail(c, "resource %s: Properties is required", id);
        if (props && !json_is_object(props))
            return design_fail(c, "resource %s: Properties must be a mapping", id);
        snprintf(path, sizeof path, "Properties");
        if (props && find_intrinsic(props, path, sizeof path, strlen(path)))
            return design_fail(c,
                               "resource %s: %s: intrinsic functions are not supported; "
                               "write the value itself",
                               id, path);
        {
            json_t *empty = json_object();
            int rc =
                simple ? simple_table(c, id, props ? props : empty) : dynamodb_table(c, id, props);
            json_decref(empty);
            if (rc != 0) return -1;
        }
    }
    if (!found)
        return design_fail(c, "no AWS::DynamoDB::Table or AWS::Serverless::SimpleTable "
                              "resource in Resources");
    return 0;
}
