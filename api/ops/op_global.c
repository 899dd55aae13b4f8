/*
 * op_global.c - global tables version 2017.11.29 (CreateGlobalTable,
 * UpdateGlobalTable, DescribeGlobalTable, ListGlobalTables,
 * DescribeGlobalTableSettings, UpdateGlobalTableSettings) and replica auto
 * scaling (DescribeTableReplicaAutoScaling, UpdateTableReplicaAutoScaling).
 *
 * ddbemu serves one region per namespace and has no replicas, so these
 * answer as DynamoDB answers an account without global tables, after the
 * same request validation (docs/differences.md):
 *  - CreateGlobalTable and UpdateGlobalTable: version 2017.11.29 "is not
 *    supported" (ack-api-quirks DDB-TABLE-442/457, live service 2026-10:
 *    what accounts without legacy global tables are told);
 *  - DescribeGlobalTable, Describe/UpdateGlobalTableSettings:
 *    GlobalTableNotFoundException; ListGlobalTables: no global tables;
 *  - Describe/UpdateTableReplicaAutoScaling: "Global table with name: '<t>'
 *    does not exist." (ResourceNotFoundException, DDB-TABLE-070/446), after
 *    UpdateTableReplicaAutoScaling's own parameter rules (DDB-TABLE-455:
 *    they precede the existence check).
 */
#include "api/ops/ops.h"
#include "api/ops/table_rules.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "storage/base/limits.h"

#include <stdbool.h>
#include <string.h>

#define GLOBAL_TABLE_NAME_FIELD                                                                    \
    {                                                                                              \
        "GlobalTableName", F_STRING, .required = true, .table_name = true,                         \
                                     .pattern = SHAPE_TABLE_NAME_PATTERN                           \
    }

static const struct field no_fields[] = {{0}};
/* Members whose content only matters to a replica that cannot exist here. */
static const struct field opaque_struct = {.type = F_STRUCT, .children = no_fields};

static const struct field region_fields[] = {
    {"RegionName", F_STRING},
    {0},
};
static const struct field replica_member = {
    .type = F_STRUCT, .shape_name = "Replica", .children = region_fields};

const struct field create_global_table_fields[] = {
    GLOBAL_TABLE_NAME_FIELD,
    {"ReplicationGroup", F_LIST, .required = true, .member = &replica_member},
    {0},
};

static const struct field replica_update_fields[] = {
    {"Create", F_STRUCT, .shape_name = "CreateReplicaAction", .children = region_fields},
    {"Delete", F_STRUCT, .shape_name = "DeleteReplicaAction", .children = region_fields},
    {0},
};
static const struct field replica_update_member = {
    .type = F_STRUCT, .shape_name = "ReplicaUpdate", .children = replica_update_fields};

const struct field update_global_table_fields[] = {
    GLOBAL_TABLE_NAME_FIELD,
    {"ReplicaUpdates", F_LIST, .required = true, .member = &replica_update_member},
    {0},
};

const struct field describe_global_table_fields[] = {
    GLOBAL_TABLE_NAME_FIELD,
    {0},
};

const struct field describe_global_table_settings_fields[] = {
    GLOBAL_TABLE_NAME_FIELD,
    {0},
};

const struct field update_global_table_settings_fields[] = {
    GLOBAL_TABLE_NAME_FIELD,
    {"GlobalTableBillingMode", F_STRING},
    {"GlobalTableProvisionedWriteCapacityUnits", F_LONG, .has_min = true, .min_value = 1},
    {"GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate", F_STRUCT,
     .children = no_fields},
    {"GlobalTableGlobalSecondaryIndexSettingsUpdate", F_LIST, .member = &opaque_struct},
    {"ReplicaSettingsUpdate", F_LIST, .member = &opaque_struct},
    {0},
};

const struct field list_global_tables_fields[] = {
    {"ExclusiveStartGlobalTableName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1},
    {"RegionName", F_STRING},
    {0},
};

/* AutoScalingSettingsUpdate: what UpdateTableReplicaAutoScaling checks itself. */
static const struct field auto_scaling_update_fields[] = {
    {"MinimumUnits", F_LONG, .has_min = true, .min_value = 1},
    {"MaximumUnits", F_LONG, .has_min = true, .min_value = 1},
    {"AutoScalingDisabled", F_BOOLEAN},
    {"AutoScalingRoleArn", F_STRING},
    {"ScalingPolicyUpdate", F_STRUCT, .children = no_fields},
    {0},
};

static const struct field gsi_auto_scaling_fields[] = {
    {"IndexName", F_STRING},
    {"ProvisionedWriteCapacityAutoScalingUpdate", F_STRUCT,
     .shape_name = "AutoScalingSettingsUpdate", .children = auto_scaling_update_fields},
    {0},
};
static const struct field gsi_auto_scaling_member = {.type = F_STRUCT,
                                                     .children = gsi_auto_scaling_fields};

static const struct field replica_auto_scaling_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {"ReplicaProvisionedReadCapacityAutoScalingUpdate", F_STRUCT,
     .shape_name = "AutoScalingSettingsUpdate", .children = auto_scaling_update_fields},
    {"ReplicaGlobalSecondaryIndexUpdates", F_LIST, .member = &opaque_struct},
    {0},
};
static const struct field replica_auto_scaling_member = {.type = F_STRUCT,
                                                         .children = replica_auto_scaling_fields};

const struct field describe_table_replica_auto_scaling_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

const struct field update_table_replica_auto_scaling_fields[] = {
    {"GlobalSecondaryIndexUpdates", F_LIST, .min_len = 1, .member = &gsi_auto_scaling_member},
    SHAPE_TABLE_NAME_FIELD,
    {"ProvisionedWriteCapacityAutoScalingUpdate", F_STRUCT,
     .shape_name = "AutoScalingSettingsUpdate", .children = auto_scaling_update_fields},
    {"ReplicaUpdates", F_LIST, .min_len = 1, .member = &replica_auto_scaling_member},
    {0},
};

static int legacy_not_supported(struct ddb_error *err)
{
    return ddb_error_set(err, DDB_VALIDATION,
                         TABLE_RULES_INVALID
                         "DynamoDB global tables version 2017.11.29 is not supported. We "
                         "recommend using DynamoDB global tables version 2019.11.21, instead of "
                         "version 2017.11.29 (Legacy).");
}

static int global_table_not_found(const char *name, struct ddb_error *err)
{
    return ddb_error_set(err, DDB_GLOBAL_TABLE_NOT_FOUND,
                         "Global table not found: Global table with name: '%s' does not exist.",
                         name);
}

int op_create_global_table(struct api_request *rq)
{
    return legacy_not_supported(&rq->err);
}

int op_update_global_table(struct api_request *rq)
{
    size_t i;
    json_t *u;

    /* [q DDB-TABLE-457]: an update with no action is the bare prefix. */
    json_array_foreach(body_member(rq->body, "ReplicaUpdates"), i, u)
    {
        if (!body_member(u, "Create") && !body_member(u, "Delete"))
            return ddb_error_set(&rq->err, DDB_VALIDATION,
                                 "One or more parameter values were invalid");
    }
    return legacy_not_supported(&rq->err);
}

int op_describe_global_table(struct api_request *rq)
{
    return global_table_not_found(body_member_str(rq->body, "GlobalTableName"), &rq->err);
}

int op_describe_global_table_settings(struct api_request *rq)
{
    return global_table_not_found(body_member_str(rq->body, "GlobalTableName"), &rq->err);
}

int op_update_global_table_settings(struct api_request *rq)
{
    return global_table_not_found(body_member_str(rq->body, "GlobalTableName"), &rq->err);
}

int op_list_global_tables(struct api_request *rq)
{
    rq->reply = json_object();
    json_object_set_new(rq->reply, "GlobalTables", json_array());
    return 0;
}

static int replica_table_not_found(const char *name, struct ddb_error *err)
{
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Global table with name: '%s' does not exist.", name);
}

int op_describe_table_replica_auto_scaling(struct api_request *rq)
{
    return replica_table_not_found(body_member_str(rq->body, "TableName"), &rq->err);
}

#define FAILED_SETTINGS "Failed to update settings for global table with name: \u2018%s\u2019"

/* One AutoScalingSettingsUpdate: a policy unless auto scaling is being disabled. */
static int check_auto_scaling(const char *table, const json_t *u, struct ddb_error *err)
{
    if (!u) return 0;
    if (json_is_true(body_member(u, "AutoScalingDisabled"))) return 0;
    if (!body_member(u, "ScalingPolicyUpdate"))
        return ddb_error_set(err, DDB_VALIDATION,
                             FAILED_SETTINGS ": Parameters 'ScalingPolicyUpdate' are required "
                                             "unless auto scaling is being disabled.",
                             table);
    return 0;
}

int op_update_table_replica_auto_scaling(struct api_request *rq)
{
    const char *table = body_member_str(rq->body, "TableName");
    json_t *gsis = body_member(rq->body, "GlobalSecondaryIndexUpdates");
    json_t *replicas = body_member(rq->body, "ReplicaUpdates");
    json_t *write = body_member(rq->body, "ProvisionedWriteCapacityAutoScalingUpdate"), *e;
    size_t i;

    if (!gsis && !replicas && !write)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             FAILED_SETTINGS " because at least one update parameter must be "
                                             "specified.",
                             table);
    if (check_auto_scaling(table, write, &rq->err) != 0) return -1;
    json_array_foreach(gsis, i, e)
    {
        if (check_auto_scaling(table, body_member(e, "ProvisionedWriteCapacityAutoScalingUpdate"),
                               &rq->err) != 0)
            return -1;
    }
    json_array_foreach(replicas, i, e)
    {
        if (check_auto_scaling(table,
                               body_member(e, "ReplicaProvisionedReadCapacityAutoScalingUpdate"),
                               &rq->err) != 0)
            return -1;
    }
    return replica_table_not_found(table, &rq->err);
}
