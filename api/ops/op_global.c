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

/* AutoScalingSettingsUpdate and what is inside it, in the model's order and
 * with its constraints (botocore's service-2.json). PolicyName's pattern
 * \p{Print}+ and AutoScalingRoleArn's are not checked: shape.c's patterns
 * are character classes, and these settings only matter to a replica, which
 * cannot exist here (docs/differences.md, "Global tables"). */
static const struct field scaling_target_fields[] = {
    {"DisableScaleIn", F_BOOLEAN},
    {"ScaleInCooldown", F_INTEGER},
    {"ScaleOutCooldown", F_INTEGER},
    {"TargetValue", F_DOUBLE, .required = true},
    {0},
};

static const struct field scaling_policy_update_fields[] = {
    {"PolicyName", F_STRING, .min_len = 1, .max_len = 256},
    {"TargetTrackingScalingPolicyConfiguration", F_STRUCT, .required = true,
     .shape_name = "AutoScalingTargetTrackingScalingPolicyConfigurationUpdate",
     .children = scaling_target_fields},
    {0},
};

static const struct field auto_scaling_update_fields[] = {
    {"MinimumUnits", F_LONG, .has_min = true, .min_value = 1},
    {"MaximumUnits", F_LONG, .has_min = true, .min_value = 1},
    {"AutoScalingDisabled", F_BOOLEAN},
    {"AutoScalingRoleArn", F_STRING, .min_len = 1, .max_len = 1600},
    {"ScalingPolicyUpdate", F_STRUCT, .shape_name = "AutoScalingPolicyUpdate",
     .children = scaling_policy_update_fields},
    {0},
};

#define AUTO_SCALING_UPDATE_FIELD(name)                                                            \
    {                                                                                              \
        name, F_STRUCT, .shape_name = "AutoScalingSettingsUpdate",                                 \
                        .children = auto_scaling_update_fields                                     \
    }

#define INDEX_NAME_FIELD                                                                           \
    {                                                                                              \
        "IndexName", F_STRING, .required = true, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,  \
                               .pattern = SHAPE_TABLE_NAME_PATTERN                                 \
    }

static const struct field gt_gsi_settings_update_fields[] = {
    INDEX_NAME_FIELD,
    {"ProvisionedWriteCapacityUnits", F_LONG, .has_min = true, .min_value = 1},
    AUTO_SCALING_UPDATE_FIELD("ProvisionedWriteCapacityAutoScalingSettingsUpdate"),
    {0},
};
static const struct field gt_gsi_settings_update_member = {
    .type = F_STRUCT,
    .shape_name = "GlobalTableGlobalSecondaryIndexSettingsUpdate",
    .children = gt_gsi_settings_update_fields};

static const struct field replica_gsi_settings_update_fields[] = {
    INDEX_NAME_FIELD,
    {"ProvisionedReadCapacityUnits", F_LONG, .has_min = true, .min_value = 1},
    AUTO_SCALING_UPDATE_FIELD("ProvisionedReadCapacityAutoScalingSettingsUpdate"),
    {0},
};
static const struct field replica_gsi_settings_update_member = {
    .type = F_STRUCT,
    .shape_name = "ReplicaGlobalSecondaryIndexSettingsUpdate",
    .children = replica_gsi_settings_update_fields};

/* ReplicaTableClass is a plain string, as TableClass is everywhere here
 * (table_rules_table_class: AWS answers its own text, not the enum's). */
static const struct field replica_settings_update_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {"ReplicaProvisionedReadCapacityUnits", F_LONG, .has_min = true, .min_value = 1},
    AUTO_SCALING_UPDATE_FIELD("ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate"),
    {"ReplicaGlobalSecondaryIndexSettingsUpdate", F_LIST, .min_len = 1, .max_len = 20,
     .member = &replica_gsi_settings_update_member},
    {"ReplicaTableClass", F_STRING},
    {0},
};
static const struct field replica_settings_update_member = {.type = F_STRUCT,
                                                            .shape_name = "ReplicaSettingsUpdate",
                                                            .children =
                                                                replica_settings_update_fields};

const struct field update_global_table_settings_fields[] = {
    GLOBAL_TABLE_NAME_FIELD,
    {"GlobalTableBillingMode", F_STRING},
    {"GlobalTableProvisionedWriteCapacityUnits", F_LONG, .has_min = true, .min_value = 1},
    AUTO_SCALING_UPDATE_FIELD("GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate"),
    {"GlobalTableGlobalSecondaryIndexSettingsUpdate", F_LIST, .min_len = 1, .max_len = 20,
     .member = &gt_gsi_settings_update_member},
    {"ReplicaSettingsUpdate", F_LIST, .min_len = 1, .max_len = 50,
     .member = &replica_settings_update_member},
    {0},
};

const struct field list_global_tables_fields[] = {
    {"ExclusiveStartGlobalTableName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1},
    {"RegionName", F_STRING},
    {0},
};

/* UpdateTableReplicaAutoScaling's index entries; IndexName is optional in
 * the model here. */
static const struct field gsi_auto_scaling_fields[] = {
    {"IndexName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    AUTO_SCALING_UPDATE_FIELD("ProvisionedWriteCapacityAutoScalingUpdate"),
    {0},
};
static const struct field gsi_auto_scaling_member = {.type = F_STRUCT,
                                                     .shape_name =
                                                         "GlobalSecondaryIndexAutoScalingUpdate",
                                                     .children = gsi_auto_scaling_fields};

static const struct field replica_gsi_auto_scaling_fields[] = {
    {"IndexName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    AUTO_SCALING_UPDATE_FIELD("ProvisionedReadCapacityAutoScalingUpdate"),
    {0},
};
static const struct field replica_gsi_auto_scaling_member = {
    .type = F_STRUCT,
    .shape_name = "ReplicaGlobalSecondaryIndexAutoScalingUpdate",
    .children = replica_gsi_auto_scaling_fields};

static const struct field replica_auto_scaling_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {"ReplicaGlobalSecondaryIndexUpdates", F_LIST, .member = &replica_gsi_auto_scaling_member},
    AUTO_SCALING_UPDATE_FIELD("ReplicaProvisionedReadCapacityAutoScalingUpdate"),
    {0},
};
static const struct field replica_auto_scaling_member = {.type = F_STRUCT,
                                                         .shape_name = "ReplicaAutoScalingUpdate",
                                                         .children = replica_auto_scaling_fields};

const struct field describe_table_replica_auto_scaling_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

const struct field update_table_replica_auto_scaling_fields[] = {
    {"GlobalSecondaryIndexUpdates", F_LIST, .min_len = 1, .member = &gsi_auto_scaling_member},
    SHAPE_TABLE_NAME_FIELD,
    AUTO_SCALING_UPDATE_FIELD("ProvisionedWriteCapacityAutoScalingUpdate"),
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
