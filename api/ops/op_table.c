/*
 * op_table.c - CreateTable, DescribeTable, UpdateTable, DeleteTable, ListTables.
 *
 * Each operation has its request shape (STYLE B10) and a handler that reads
 * top to bottom: cross-field checks on the (shape-checked) body, decode into
 * schema.h structs (wire_table.c), one db_* call, encode the answer.
 *
 * The cross-field checks raise AWS's texts in AWS's order. Sources, cited as
 * [d] dynalite's validations/createTable.js, test/createTable.js and
 * test/updateTable.js (recorded against the live service), [q] the
 * ack-api-quirks DynamoDB lab's findings and ValidationException catalogue
 * (live service, 2026-10: DDB-TABLE-043/044/050/123/124/126/127/128/129/152/
 * 159/160/162/174/359/442), [p] the Parity Suite's CreateTable ordering tests.
 * Where the sources disagree the newer one wins; where none records a case the
 * comment says so.
 *
 * The rules that inspect a table definition (key schemas, indexes, streams,
 * SSE, CreateTable's whole order of checks) live in table_rules.c.
 *
 * Checks that need the engine's state (does the table exist, is the change a
 * no-op, deletion protection) belong to storage (catalog.c); UpdateTable's
 * rules that depend on the table's current billing mode are checked here
 * against a DescribeTable snapshot taken just before the update.
 */
#include "api/ops/ops.h"
#include "api/ops/policy_rules.h"
#include "api/ops/table_rules.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_tables.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

static const char *const attribute_type_choices[] = {"B", "N", "S", NULL};
static const char *const billing_mode_choices[] = {"PROVISIONED", "PAY_PER_REQUEST", NULL};
static const char *const projection_type_choices[] = {"ALL", "INCLUDE", "KEYS_ONLY", NULL};
static const char *const stream_view_choices[] = {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES",
                                                  "KEYS_ONLY", NULL};
static const char *const sse_type_choices[] = {"AES256", "KMS", NULL};

/* CreateTable, DescribeTable and DeleteTable check TableName on its own first:
 * "The parameter 'TableName' is required but was not present in the request",
 * then "TableName must be at least 3 characters long and at most 255
 * characters long" (dynalite test/createTable.js, describeTable.js,
 * deleteTable.js, recorded; the AWS SDK for JavaScript's DeleteTable feature
 * test asserts the same text). */
#define TABLE_NAME_FIELD_CHECKED_FIRST                                                             \
    {                                                                                              \
        "TableName", F_STRING, .required = true, .min_len = 1, .max_len = DDB_MAX_TABLE_NAME_LEN,  \
                               .pattern = SHAPE_TABLE_NAME_PATTERN, .required_parameter = true,    \
                               .table_name = true                                                  \
    }

/* The same for DescribeTable and DeleteTable, which also take the table's ARN
 * (shape.h, .table_ref): an ARN skips the length check above. */
#define TABLE_REF_FIELD_CHECKED_FIRST                                                              \
    {                                                                                              \
        "TableName", F_STRING, .required = true, .required_parameter = true, .table_name = true,   \
                               .table_ref = true                                                   \
    }

static const struct field attribute_definition_fields[] = {
    {"AttributeName", F_STRING, .required = true, .min_len = 1, .max_len = DDB_MAX_KEY_NAME_BYTES},
    {"AttributeType", F_STRING, .required = true, .choices = attribute_type_choices},
    {0},
};
static const struct field attribute_definition = {
    .type = F_STRUCT, .shape_name = "AttributeDefinition", .children = attribute_definition_fields};

/* [d]: WriteCapacityUnits is listed before ReadCapacityUnits in AWS's messages. */
static const struct field provisioned_throughput_fields[] = {
    {"WriteCapacityUnits", F_LONG, .required = true, .has_min = true, .min_value = 1},
    {"ReadCapacityUnits", F_LONG, .required = true, .has_min = true, .min_value = 1},
    {0},
};

static const struct field on_demand_throughput_fields[] = {
    {"MaxReadRequestUnits", F_LONG},
    {"MaxWriteRequestUnits", F_LONG},
    {0},
};

static const struct field warm_throughput_fields[] = {
    {"ReadUnitsPerSecond", F_LONG},
    {"WriteUnitsPerSecond", F_LONG},
    {0},
};

/* NonKeyAttributeName: 1 to 255 characters, as key names (developer guide,
 * "Service quotas": the names of projected attributes are limited to 255
 * bytes; scylla test_limits.py, run against AWS, finds the same for GSIs). */
static const struct field non_key_attribute_name = {
    .type = F_STRING, .min_len = 1, .max_len = DDB_MAX_KEY_NAME_BYTES};

static const struct field projection_fields[] = {
    {"ProjectionType", F_STRING, .choices = projection_type_choices},
    {"NonKeyAttributes", F_LIST, .min_len = 1, .max_len = 20, .member = &non_key_attribute_name},
    {0},
};

#define INDEX_NAME_FIELD                                                                           \
    {                                                                                              \
        "IndexName", F_STRING, .required = true, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,  \
                               .pattern = SHAPE_TABLE_NAME_PATTERN                                 \
    }

/* GSI key schemas take up to 4 HASH + 4 RANGE elements (multi-attribute keys,
 * November 2025), so their list has no model maximum; the per-role limits are
 * checked by the handler [q DDB-TABLE-123]. */
static const struct field gsi_fields[] = {
    INDEX_NAME_FIELD,
    {"KeySchema", F_LIST, .required = true, .min_len = 1,
     .member = &table_rules_key_schema_element},
    {"Projection", F_STRUCT, .required = true, .shape_name = "Projection",
     .children = projection_fields},
    {"ProvisionedThroughput", F_STRUCT, .shape_name = "ProvisionedThroughput",
     .children = provisioned_throughput_fields},
    {"OnDemandThroughput", F_STRUCT, .shape_name = "OnDemandThroughput",
     .children = on_demand_throughput_fields},
    {"WarmThroughput", F_STRUCT, .shape_name = "WarmThroughput",
     .children = warm_throughput_fields},
    {0},
};
static const struct field gsi_member = {
    .type = F_STRUCT, .shape_name = "GlobalSecondaryIndex", .children = gsi_fields};

/* Table and LSI key schemas stay at two elements, which the handler checks
 * after the billing rules (table_rules.c): the model's KeySchema now takes
 * the eight elements of a multi-attribute GSI key [q DDB-TABLE-123]. */
static const struct field lsi_fields[] = {
    INDEX_NAME_FIELD,
    {"KeySchema", F_LIST, .required = true, .min_len = 1,
     .member = &table_rules_key_schema_element},
    {"Projection", F_STRUCT, .required = true, .shape_name = "Projection",
     .children = projection_fields},
    {0},
};
static const struct field lsi_member = {
    .type = F_STRUCT, .shape_name = "LocalSecondaryIndex", .children = lsi_fields};

static const struct field stream_specification_fields[] = {
    {"StreamEnabled", F_BOOLEAN, .required = true},
    {"StreamViewType", F_STRING, .choices = stream_view_choices},
    {0},
};

static const struct field sse_specification_fields[] = {
    {"Enabled", F_BOOLEAN},
    {"SSEType", F_STRING, .choices = sse_type_choices},
    {"KMSMasterKeyId", F_STRING},
    {0},
};

static const struct field tag_fields[] = {
    {"Key", F_STRING, .required = true, .min_len = 1, .max_len = 128},
    {"Value", F_STRING, .required = true, .max_len = 256},
    {0},
};
static const struct field tag_member = {
    .type = F_STRUCT, .shape_name = "Tag", .children = tag_fields};

/* CreateTable request shape. [p]: GSI violations are listed before LSI ones. */
const struct field create_table_fields[] = {
    {"AttributeDefinitions", F_LIST, .required = true, .member = &attribute_definition},
    TABLE_NAME_FIELD_CHECKED_FIRST,
    {"KeySchema", F_LIST, .required = true, .min_len = 1,
     .member = &table_rules_key_schema_element},
    {"GlobalSecondaryIndexes", F_LIST, .member = &gsi_member},
    {"LocalSecondaryIndexes", F_LIST, .member = &lsi_member},
    {"BillingMode", F_STRING, .choices = billing_mode_choices},
    {"ProvisionedThroughput", F_STRUCT, .shape_name = "ProvisionedThroughput",
     .children = provisioned_throughput_fields},
    {"StreamSpecification", F_STRUCT, .shape_name = "StreamSpecification",
     .children = stream_specification_fields},
    {"SSESpecification", F_STRUCT, .shape_name = "SSESpecification",
     .children = sse_specification_fields},
    {"Tags", F_LIST, .member = &tag_member},
    {"TableClass", F_STRING},
    {"DeletionProtectionEnabled", F_BOOLEAN},
    {"WarmThroughput", F_STRUCT, .shape_name = "WarmThroughput",
     .children = warm_throughput_fields},
    {"OnDemandThroughput", F_STRUCT, .shape_name = "OnDemandThroughput",
     .children = on_demand_throughput_fields},
    {"ResourcePolicy", F_STRING},
    {0},
};

/* ImportTable's TableCreationParameters (API_TableCreationParameters.html):
 * the part of a CreateTable request an import may give, in the model's order;
 * its violations carry the "tableCreationParameters." path. */
const struct field table_creation_parameters_fields[] = {
    {"TableName", F_STRING, .required = true, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"AttributeDefinitions", F_LIST, .required = true, .member = &attribute_definition},
    {"KeySchema", F_LIST, .required = true, .min_len = 1, .max_len = 2,
     .member = &table_rules_key_schema_element},
    {"BillingMode", F_STRING, .choices = billing_mode_choices},
    {"ProvisionedThroughput", F_STRUCT, .shape_name = "ProvisionedThroughput",
     .children = provisioned_throughput_fields},
    {"OnDemandThroughput", F_STRUCT, .shape_name = "OnDemandThroughput",
     .children = on_demand_throughput_fields},
    {"SSESpecification", F_STRUCT, .shape_name = "SSESpecification",
     .children = sse_specification_fields},
    {"GlobalSecondaryIndexes", F_LIST, .member = &gsi_member},
    {0},
};

/* The restores' request shapes (handlers in op_restore.c) live here because
 * their overrides are CreateTable's member shapes. Members in the API
 * model's order. */
#define RESTORE_OVERRIDE_FIELDS                                                                    \
    {"BillingModeOverride", F_STRING, .choices = billing_mode_choices},                            \
        {"GlobalSecondaryIndexOverride", F_LIST, .member = &gsi_member},                           \
        {"LocalSecondaryIndexOverride", F_LIST, .member = &lsi_member},                            \
        {"ProvisionedThroughputOverride", F_STRUCT, .shape_name = "ProvisionedThroughput",         \
         .children = provisioned_throughput_fields},                                               \
        {"OnDemandThroughputOverride", F_STRUCT, .shape_name = "OnDemandThroughput",               \
         .children = on_demand_throughput_fields},                                                 \
    {                                                                                              \
        "SSESpecificationOverride", F_STRUCT, .shape_name = "SSESpecification",                    \
                                              .children = sse_specification_fields                 \
    }

#define RESTORE_TARGET_TABLE_NAME_FIELD                                                            \
    {                                                                                              \
        "TargetTableName", F_STRING, .required = true, .min_len = 3,                               \
                                     .max_len = DDB_MAX_TABLE_NAME_LEN,                            \
                                     .pattern = SHAPE_TABLE_NAME_PATTERN                           \
    }

const struct field restore_table_from_backup_fields[] = {
    RESTORE_TARGET_TABLE_NAME_FIELD,
    {"BackupArn", F_STRING, .required = true, .min_len = 37, .max_len = 1024},
    RESTORE_OVERRIDE_FIELDS,
    {0},
};

const struct field restore_table_to_point_in_time_fields[] = {
    {"SourceTableArn", F_STRING, .min_len = 1, .max_len = 1024},
    {"SourceTableName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    RESTORE_TARGET_TABLE_NAME_FIELD,
    {"UseLatestRestorableTime", F_BOOLEAN},
    {"RestoreDateTime", F_DOUBLE},
    RESTORE_OVERRIDE_FIELDS,
    {0},
};

const struct field describe_table_fields[] = {
    TABLE_REF_FIELD_CHECKED_FIRST,
    {0},
};

const struct field delete_table_fields[] = {
    TABLE_REF_FIELD_CHECKED_FIRST,
    {0},
};

const struct field list_tables_fields[] = {
    {"ExclusiveStartTableName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_LIST_TABLES_LIMIT},
    {0},
};

static const struct field gsi_update_action_fields[] = {
    INDEX_NAME_FIELD,
    {"ProvisionedThroughput", F_STRUCT, .shape_name = "ProvisionedThroughput",
     .children = provisioned_throughput_fields},
    {"OnDemandThroughput", F_STRUCT, .shape_name = "OnDemandThroughput",
     .children = on_demand_throughput_fields},
    {"WarmThroughput", F_STRUCT, .shape_name = "WarmThroughput",
     .children = warm_throughput_fields},
    {0},
};

static const struct field gsi_delete_action_fields[] = {
    INDEX_NAME_FIELD,
    {0},
};

static const struct field gsi_update_fields[] = {
    {"Update", F_STRUCT, .shape_name = "UpdateGlobalSecondaryIndexAction",
     .children = gsi_update_action_fields},
    {"Create", F_STRUCT, .shape_name = "CreateGlobalSecondaryIndexAction", .children = gsi_fields},
    {"Delete", F_STRUCT, .shape_name = "DeleteGlobalSecondaryIndexAction",
     .children = gsi_delete_action_fields},
    {0},
};
static const struct field gsi_update_member = {
    .type = F_STRUCT, .shape_name = "GlobalSecondaryIndexUpdate", .children = gsi_update_fields};

/* Global-table members: ReplicaUpdates is checked by check_replica_updates;
 * the witness members are accepted as shapes (no replicas here). */
static const struct field no_fields[] = {{0}};
static const struct field opaque_member = {.type = F_STRUCT, .children = no_fields};

static const struct field replica_action_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {0},
};
static const struct field replica_update_fields[] = {
    {"Create", F_STRUCT, .shape_name = "CreateReplicationGroupMemberAction",
     .children = replica_action_fields},
    {"Update", F_STRUCT, .shape_name = "UpdateReplicationGroupMemberAction",
     .children = replica_action_fields},
    {"Delete", F_STRUCT, .shape_name = "DeleteReplicationGroupMemberAction",
     .children = replica_action_fields},
    {0},
};
static const struct field replica_update_member = {
    .type = F_STRUCT, .shape_name = "ReplicationGroupUpdate", .children = replica_update_fields};

const struct field update_table_fields[] = {
    {"AttributeDefinitions", F_LIST, .member = &attribute_definition},
    SHAPE_TABLE_NAME_FIELD,
    {"BillingMode", F_STRING, .choices = billing_mode_choices},
    {"ProvisionedThroughput", F_STRUCT, .shape_name = "ProvisionedThroughput",
     .children = provisioned_throughput_fields},
    {"GlobalSecondaryIndexUpdates", F_LIST, .member = &gsi_update_member},
    {"StreamSpecification", F_STRUCT, .shape_name = "StreamSpecification",
     .children = stream_specification_fields},
    {"SSESpecification", F_STRUCT, .shape_name = "SSESpecification",
     .children = sse_specification_fields},
    {"ReplicaUpdates", F_LIST, .min_len = 1, .member = &replica_update_member},
    {"TableClass", F_STRING},
    {"DeletionProtectionEnabled", F_BOOLEAN},
    {"MultiRegionConsistency", F_STRING},
    {"GlobalTableWitnessUpdates", F_LIST, .member = &opaque_member},
    {"OnDemandThroughput", F_STRUCT, .shape_name = "OnDemandThroughput",
     .children = on_demand_throughput_fields},
    {"WarmThroughput", F_STRUCT, .shape_name = "WarmThroughput",
     .children = warm_throughput_fields},
    {0},
};

/* CreateTable's ResourcePolicy, attached to the table just created (the
 * document was checked before). */
static int attach_policy(struct api_request *rq, const struct table_desc *desc,
                         const char *document)
{
    struct policy_target target = {.table_name = desc->def.name, .resource_arn = desc->arn};
    char *revision = NULL;
    int rc =
        db_put_resource_policy(rq->db, &rq->scope, &target, document, NULL, &revision, &rq->err);
    free(revision);
    return rc;
}

int op_create_table(struct api_request *rq)
{
    json_t *policy = body_member(rq->body, "ResourcePolicy");
    struct table_def def;
    struct table_desc desc;
    int rc = -1;

    memset(&def, 0, sizeof def);
    memset(&desc, 0, sizeof desc);
    if (table_rules_check_create(rq->body, &rq->err) != 0) goto out;
    if (policy &&
        policy_rules_check(json_string_value(policy), json_string_length(policy), &rq->err) != 0)
        goto out;
    wire_table_def_from_json(rq->body, &def);
    /* db_create_table takes def whether it succeeds or fails. */
    if (db_create_table(rq->db, &rq->scope, &def, &desc, &rq->err) != 0) goto out;
    if (policy && attach_policy(rq, &desc, json_string_value(policy)) != 0) goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableDescription", wire_table_desc_to_json(&desc));
    rc = 0;
out:
    table_desc_clear(&desc);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* DescribeTable, DeleteTable, ListTables                                    */
/* ------------------------------------------------------------------------ */

/* DescribeTable: {"Table": TableDescription}. ResourceNotFoundException from storage. */
int op_describe_table(struct api_request *rq)
{
    struct table_desc desc;
    int rc = -1;

    memset(&desc, 0, sizeof desc);
    if (db_describe_table(rq->db, &rq->scope, body_member_str(rq->body, "TableName"), &desc,
                          &rq->err) != 0)
        goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "Table", wire_table_desc_to_json(&desc));
    rc = 0;
out:
    table_desc_clear(&desc);
    return rc;
}

/*
 * DeleteTable: {"TableDescription": ...} with status DELETING, carrying only
 * the members AWS's answer carries: the name, status, throughput, size, item
 * count and ARN, without the key schema, attribute definitions, creation time
 * or indexes (AWS's answer quoted in dynalite issue 60, for a table with local
 * secondary indexes). Deletion protection and existence are storage's checks.
 */
int op_delete_table(struct api_request *rq)
{
    static const char *const members[] = {"TableName",      "TableStatus", "ProvisionedThroughput",
                                          "TableSizeBytes", "ItemCount",   "TableArn"};
    struct table_desc desc;
    json_t *full, *answer;
    int rc = -1;

    memset(&desc, 0, sizeof desc);
    if (db_delete_table(rq->db, &rq->scope, body_member_str(rq->body, "TableName"), &desc,
                        &rq->err) != 0)
        goto out;
    full = wire_table_desc_to_json(&desc);
    answer = json_object();
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        json_t *v = json_object_get(full, members[i]);
        if (v) json_object_set(answer, members[i], v);
    }
    json_decref(full);
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableDescription", answer);
    rc = 0;
out:
    table_desc_clear(&desc);
    return rc;
}

/* ListTables: {"TableNames": [...], "LastEvaluatedTableName"?}; Limit defaults to 100. */
int op_list_tables(struct api_request *rq)
{
    json_t *limit = body_member(rq->body, "Limit");
    size_t max = limit ? (size_t) body_member_int(rq->body, "Limit") : DDB_MAX_LIST_TABLES_LIMIT;
    char **names = NULL, *last = NULL;
    size_t count = 0;
    json_t *list;
    int rc = -1;

    if (db_list_tables(rq->db, &rq->scope, body_member_str(rq->body, "ExclusiveStartTableName"),
                       max, &names, &count, &last, &rq->err) != 0)
        goto out;
    list = json_array();
    for (size_t i = 0; i < count; i++)
        json_array_append_new(list, json_string(names[i]));
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableNames", list);
    if (last) json_object_set_new(rq->reply, "LastEvaluatedTableName", json_string(last));
    rc = 0;
out:
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    free(last);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* UpdateTable                                                               */
/* ------------------------------------------------------------------------ */

/* What an UpdateTable request asks to change (members present, null = absent). */
struct update_parts {
    bool throughput, billing, stream, gsi_updates, sse, deletion_protection, table_class;
    bool on_demand, warm, replicas, other; /* other: global-table members */
    bool gsi_create_or_delete;
    bool gsi_create;
};

static void find_update_parts(const json_t *body, struct update_parts *p)
{
    const json_t *gsi = body_member(body, "GlobalSecondaryIndexUpdates");
    size_t i;
    json_t *u;

    memset(p, 0, sizeof *p);
    p->throughput = body_member(body, "ProvisionedThroughput") != NULL;
    p->billing = body_member(body, "BillingMode") != NULL;
    p->stream = body_member(body, "StreamSpecification") != NULL;
    p->gsi_updates = json_array_size(gsi) > 0;
    p->sse = body_member(body, "SSESpecification") != NULL;
    p->deletion_protection = body_member(body, "DeletionProtectionEnabled") != NULL;
    p->table_class = body_member(body, "TableClass") != NULL;
    /* An empty OnDemandThroughput/WarmThroughput is dropped as absent [q DDB-TABLE-456]. */
    p->on_demand = json_object_size(body_member(body, "OnDemandThroughput")) > 0;
    p->warm = json_object_size(body_member(body, "WarmThroughput")) > 0;
    p->replicas = body_member(body, "ReplicaUpdates") != NULL;
    p->other = body_member(body, "MultiRegionConsistency") ||
               body_member(body, "GlobalTableWitnessUpdates");
    json_array_foreach(gsi, i, u)
    {
        if (body_member(u, "Create")) p->gsi_create = true;
        if (body_member(u, "Create") || body_member(u, "Delete")) p->gsi_create_or_delete = true;
    }
}

static int count_parts(const struct update_parts *p)
{
    return p->throughput + p->billing + p->stream + p->gsi_updates + p->sse +
           p->deletion_protection + p->table_class + p->on_demand + p->warm + p->replicas +
           p->other;
}

/* Which members may travel together [q DDB-TABLE-015/174/359/442]. */
static int check_update_combination(const json_t *body, const struct update_parts *p,
                                    struct ddb_error *err)
{
    int n = count_parts(p);

    if (n == 0)
        return ddb_error_set(err, DDB_VALIDATION,
                             "At least one of ProvisionedThroughput, BillingMode, "
                             "UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, "
                             "ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, "
                             "MultiRegionConsistency, DeletionProtectionEnabled, "
                             "OnDemandThroughput, WarmThroughput or TableClass is required");
    /* An empty list counts as absent above, but is refused next to a real change. */
    if (body_member(body, "GlobalSecondaryIndexUpdates") && !p->gsi_updates)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "List of GlobalSecondaryIndexUpdates is empty");
    if (p->replicas && n > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "Replica modification must be the only operation in the "
                             "request");
    if (p->sse && n > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "Server-Side Encryption modification must be the only "
                             "operation in the request");
    if (p->table_class && n > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "TableClass modification must be the only operation in the "
                             "request");
    if (p->deletion_protection && n > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "DeletionProtection modification must be the only operation "
                             "in the request");
    if (p->warm && p->gsi_create)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "Create global secondary index cannot be specified when "
                             "updating WarmThroughput");
    if (p->warm && n > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "WarmThroughput must be the only operation in the request");
    if (p->on_demand && n > 1 + p->billing)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "OnDemandThroughput can only be combined with BillingMode in "
                             "an UpdateTable request");
    if (p->stream && p->throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "You cannot modify stream status while updating table IOPS");
    if (p->gsi_create_or_delete && p->throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "You cannot create or delete index while updating table "
                             "IOPS");
    if (p->gsi_create_or_delete && p->stream)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "You cannot create or delete index while changing stream "
                             "status");
    return 0;
}

/*
 * ReplicaUpdates (global tables version 2019.11.21). The actions' own rules
 * come first [q DDB-TABLE-442]; then, since this emulator serves one region
 * and keeps no replicas, creating a replica in another region gets the answer
 * for a region global tables do not support, and updating or deleting one
 * the answer for a region that is not a replica (docs/differences.md).
 */
static int check_replica_updates(const json_t *body, const char *region, struct ddb_error *err)
{
    const json_t *list = body_member(body, "ReplicaUpdates");
    size_t i, creates_deletes = 0, kinds = 0;
    bool seen[3] = {false, false, false};
    const char *actions[3] = {"Create", "Update", "Delete"};
    json_t *u;

    json_array_foreach(list, i, u)
    {
        int n = 0;
        for (int k = 0; k < 3; k++) {
            if (!body_member(u, actions[k])) continue;
            n++;
            if (!seen[k]) kinds++;
            seen[k] = true;
            if (k != 1) creates_deletes++;
        }
        if (n == 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "There are no actions specified in the Replica Update Action of "
                                 "the request.");
    }
    if (kinds > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Update table operation with more than one type of replica actions "
                             "not allowed.");
    if (creates_deletes > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Update table operation with more than one create or delete replica "
                             "actions not allowed");
    json_array_foreach(list, i, u)
    {
        const json_t *c = body_member(u, "Create");
        const json_t *a = c                          ? c
                          : body_member(u, "Update") ? body_member(u, "Update")
                                                     : body_member(u, "Delete");
        const char *name = body_member_str(a, "RegionName");
        if (str_eq(name, region) && !body_member(u, "Update"))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Cannot add or delete the local region through ReplicaUpdates. "
                                 "Use CreateTable or DeleteTable instead.");
        if (c)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Region %s is not supported. The latest version of global tables "
                                 "are only supported in the following regions: [%s]",
                                 name, region);
        return ddb_error_set(err, DDB_VALIDATION,
                             "Update global table operation failed because one or more replicas "
                             "were not part of the global table. Please retry the request "
                             "without these replicas: [%s].",
                             name);
    }
    return 0;
}

static const char *gsi_update_index_name(const json_t *u)
{
    const char *actions[] = {"Update", "Create", "Delete"};
    for (size_t k = 0; k < 3; k++) {
        json_t *a = body_member(u, actions[k]);
        if (a) return body_member_str(a, "IndexName");
    }
    return NULL;
}

/* GlobalSecondaryIndexUpdates entries on their own [d, q DDB-TABLE-159/160/162]. */
static int check_gsi_updates(const json_t *body, struct ddb_error *err)
{
    const json_t *list = body_member(body, "GlobalSecondaryIndexUpdates");
    const json_t *defs = body_member(body, "AttributeDefinitions");
    size_t i, online = 0;
    json_t *u;

    json_array_foreach(list, i, u)
    {
        int actions =
            !!body_member(u, "Update") + !!body_member(u, "Create") + !!body_member(u, "Delete");
        const char *name = gsi_update_index_name(u);
        if (actions == 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "One of GlobalSecondaryIndexUpdate.Update, "
                                 "GlobalSecondaryIndexUpdate.Create, "
                                 "GlobalSecondaryIndexUpdate.Delete must not be null");
        if (actions > 1)
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "Only one global secondary index action is allowed per "
                                 "GlobalSecondaryIndexUpdate object");
        for (size_t j = 0; j < i; j++) {
            if (str_eq(name, gsi_update_index_name(json_array_get(list, j))))
                return ddb_error_set(err, DDB_VALIDATION,
                                     TABLE_RULES_INVALID
                                     "Only one global secondary index update per index is "
                                     "allowed simultaneously. Index: %s",
                                     name);
        }
        if (body_member(u, "Create")) {
            const json_t *c = body_member(u, "Create");
            if (!defs)
                return ddb_error_set(err, DDB_VALIDATION,
                                     TABLE_RULES_INVALID
                                     "AttributeDefinitions is not specified for index: %s",
                                     name);
            if (table_rules_keys_defined(body_member(c, "KeySchema"), defs, NULL, err) != 0)
                return -1;
            if (table_rules_gsi_key_schema(body_member(c, "KeySchema"), err) != 0) return -1;
            if (table_rules_projection(body_member(c, "Projection"), err) != 0) return -1;
            if (table_rules_throughput_bounds(body_member(c, "ProvisionedThroughput"), name, err) !=
                0)
                return -1;
        }
        /* [q DDB-TABLE-456]: before the table is looked up. */
        if (body_member(u, "Update") && body_member(body_member(u, "Update"), "WarmThroughput") &&
            !json_object_size(body_member(body_member(u, "Update"), "WarmThroughput")))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "WarmThroughput must have at least one of ReadUnitsPerSecond or "
                                 "WriteUnitsPerSecond specified for index: %s",
                                 name);
        if (body_member(u, "Create") || body_member(u, "Delete")) online++;
    }
    /* Two online index builds in one call [q DDB-TABLE-159]. */
    if (online > 1)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Subscriber limit exceeded: Only 1 online index can be created or "
                             "deleted simultaneously per table");
    return 0;
}

static bool gsi_update_sets_throughput(const json_t *body, const char *index)
{
    size_t i;
    json_t *u;
    json_array_foreach(body_member(body, "GlobalSecondaryIndexUpdates"), i, u)
    {
        json_t *up = body_member(u, "Update");
        if (up && str_eq(body_member_str(up, "IndexName"), index) &&
            body_member(up, "ProvisionedThroughput"))
            return true;
    }
    return false;
}

/* Rules that depend on the table's current billing mode [q DDB-TABLE-152/442]. */
/* An index of the table described by cur is named name (GSI or LSI). */
static bool table_has_index(const struct table_desc *cur, const char *name)
{
    for (size_t i = 0; i < cur->def.gsi_count; i++) {
        if (str_eq(cur->def.gsis[i].name, name)) return true;
    }
    for (size_t i = 0; i < cur->def.lsi_count; i++) {
        if (str_eq(cur->def.lsis[i].name, name)) return true;
    }
    return false;
}

/*
 * Out-of-bounds throughput in a GSI Update is checked once the table is known
 * to exist [d: "should return NotFoundException for high index
 * ReadCapacityUnits when table does not exist"]; for an index the table does
 * not have AWS answers "Action Blocked: IndexUpdate" [d: "...when index does
 * not exist"].
 */
static int check_gsi_update_bounds(const json_t *body, const struct table_desc *cur,
                                   struct ddb_error *err)
{
    size_t i;
    json_t *u;
    json_array_foreach(body_member(body, "GlobalSecondaryIndexUpdates"), i, u)
    {
        const json_t *up = body_member(u, "Update");
        const json_t *pt = body_member(up, "ProvisionedThroughput");
        const char *name = body_member_str(up, "IndexName");
        if (!pt || (body_member_int(pt, "ReadCapacityUnits") <= TABLE_RULES_MAX_CAPACITY_UNITS &&
                    body_member_int(pt, "WriteCapacityUnits") <= TABLE_RULES_MAX_CAPACITY_UNITS))
            continue;
        if (!table_has_index(cur, name))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "This operation cannot be performed with given input values. "
                                 "Please contact DynamoDB service team for more info: Action "
                                 "Blocked: IndexUpdate");
        return table_rules_throughput_bounds(pt, name, err);
    }
    return 0;
}

/* The WarmThroughput a table (index NULL) or its GSI has now, as DescribeTable reports it. */
static void current_warm(const struct table_desc *cur, const char *index, int64_t *read,
                         int64_t *write)
{
    json_t *desc = wire_table_desc_to_json(cur), *owner = desc, *g;
    json_t *warm;
    size_t i;

    if (index) {
        json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i, g)
        {
            if (str_eq(body_member_str(g, "IndexName"), index)) owner = g;
        }
    }
    warm = json_object_get(owner, "WarmThroughput");
    *read = json_integer_value(json_object_get(warm, "ReadUnitsPerSecond"));
    *write = json_integer_value(json_object_get(warm, "WriteUnitsPerSecond"));
    json_decref(desc);
}

/* [q DDB-TABLE-442]: WarmThroughput only grows ("for table", or "for index <i>"). */
static int check_warm_update(const json_t *warm, const struct table_desc *cur, const char *index,
                             struct ddb_error *err)
{
    static const char *const members[] = {"ReadUnitsPerSecond", "WriteUnitsPerSecond"};
    int64_t now[2];

    if (!json_object_size(warm)) return 0;
    current_warm(cur, index, &now[0], &now[1]);
    for (size_t i = 0; i < 2; i++) {
        if (body_member(warm, members[i]) && body_member_int(warm, members[i]) < now[i])
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "Requested %s for WarmThroughput for %s%s is lower than current "
                                 "WarmThroughput, decreasing WarmThroughput is not supported",
                                 members[i], index ? "index " : "table", index ? index : "");
    }
    return 0;
}

static int check_update_against_table(const json_t *body, const struct table_desc *cur,
                                      struct ddb_error *err)
{
    const char *mode = body_member_str(body, "BillingMode");
    bool to_on_demand = str_eq(mode, "PAY_PER_REQUEST");
    bool on_demand = mode ? to_on_demand : cur->def.billing == BILLING_PAY_PER_REQUEST;
    bool to_provisioned =
        str_eq(mode, "PROVISIONED") && cur->def.billing == BILLING_PAY_PER_REQUEST;
    size_t i;
    json_t *u;

    if (on_demand && body_member(body, "ProvisionedThroughput"))
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "Neither ReadCapacityUnits nor WriteCapacityUnits can be "
                             "specified when BillingMode is PAY_PER_REQUEST");
    if (to_provisioned && !body_member(body, "ProvisionedThroughput"))
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "ProvisionedThroughput must be specified when BillingMode is "
                             "PROVISIONED");
    if (to_provisioned) {
        for (i = 0; i < cur->def.gsi_count; i++) {
            if (!gsi_update_sets_throughput(body, cur->def.gsis[i].name))
                return ddb_error_set(err, DDB_VALIDATION,
                                     TABLE_RULES_INVALID
                                     "ProvisionedThroughput must be specified for index: "
                                     "%s",
                                     cur->def.gsis[i].name);
        }
    }
    json_array_foreach(body_member(body, "GlobalSecondaryIndexUpdates"), i, u)
    {
        const json_t *up = body_member(u, "Update"), *c = body_member(u, "Create");
        const char *name = gsi_update_index_name(u);
        /* [q DDB-TABLE-456]: on demand, an index Update changes OnDemandThroughput or
         * WarmThroughput (an empty one counts as absent), nothing else. */
        if (up && on_demand &&
            (body_member(up, "ProvisionedThroughput") ||
             (!json_object_size(body_member(up, "OnDemandThroughput")) &&
              !json_object_size(body_member(up, "WarmThroughput")))))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "The only Updates for index: %s when TableThroughputMode "
                                 "is PAY_PER_REQUEST can be to OnDemandThroughput, "
                                 "WarmThroughput",
                                 name);
        if (up && (table_rules_on_demand(body_member(up, "OnDemandThroughput"), on_demand, true,
                                         name, err) != 0 ||
                   check_warm_update(body_member(up, "WarmThroughput"), cur, name, err) != 0))
            return -1;
        if (c && on_demand && body_member(c, "ProvisionedThroughput"))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "Neither ReadCapacityUnits nor WriteCapacityUnits can be "
                                 "specified for index: %s when BillingMode is "
                                 "PAY_PER_REQUEST",
                                 name);
        if (c && !on_demand && !body_member(c, "ProvisionedThroughput"))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "Both ReadCapacityUnits and WriteCapacityUnits must be "
                                 "specified for index: %s",
                                 name);
    }
    if (table_rules_on_demand(body_member(body, "OnDemandThroughput"), on_demand, true, NULL,
                              err) != 0)
        return -1;
    if (check_warm_update(body_member(body, "WarmThroughput"), cur, NULL, err) != 0) return -1;
    /* Asking for the default key on a table that already uses it [q DDB-TABLE-442]. */
    if (body_member(body, "SSESpecification") && !cur->def.sse.enabled) {
        struct sse_spec want;
        wire_table_sse_from_json(body_member(body, "SSESpecification"), &want);
        bool same = !want.enabled;
        free(want.sse_type);
        free(want.kms_master_key_id);
        if (same)
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID "Table is already encrypted by default");
    }
    return 0;
}

/* Fills the storage request from the (checked) body. */
static void decode_table_update(const json_t *body, struct table_update *u)
{
    const json_t *list = body_member(body, "GlobalSecondaryIndexUpdates");
    size_t i;
    json_t *e;

    u->name = xstrdup(body_member_str(body, "TableName"));
    if (body_member(body, "BillingMode")) {
        u->has_billing = true;
        u->billing = str_eq(body_member_str(body, "BillingMode"), "PAY_PER_REQUEST")
                         ? BILLING_PAY_PER_REQUEST
                         : BILLING_PROVISIONED;
    }
    if (body_member(body, "ProvisionedThroughput")) {
        u->has_throughput = true;
        wire_table_throughput_from_json(body_member(body, "ProvisionedThroughput"), &u->throughput);
    }
    if (body_member(body, "StreamSpecification")) {
        u->has_stream = true;
        wire_table_stream_from_json(body_member(body, "StreamSpecification"), &u->stream);
    }
    if (body_member(body, "DeletionProtectionEnabled")) {
        u->has_deletion_protection = true;
        u->deletion_protection = json_is_true(body_member(body, "DeletionProtectionEnabled"));
    }
    if (body_member(body, "TableClass")) {
        u->has_table_class = true;
        u->table_class = xstrdup(body_member_str(body, "TableClass"));
    }
    if (body_member(body, "SSESpecification")) {
        u->has_sse = true;
        wire_table_sse_from_json(body_member(body, "SSESpecification"), &u->sse);
    }
    wire_table_on_demand_from_json(body_member(body, "OnDemandThroughput"), &u->on_demand);
    wire_table_warm_from_json(body_member(body, "WarmThroughput"), &u->warm);
    if (body_member(body, "AttributeDefinitions"))
        wire_table_attr_defs_from_json(body_member(body, "AttributeDefinitions"), &u->attr_defs,
                                       &u->attr_def_count);
    if (!json_array_size(list)) return;
    u->gsi_updates = xcalloc(json_array_size(list), sizeof *u->gsi_updates);
    json_array_foreach(list, i, e)
    {
        struct gsi_update *g = &u->gsi_updates[u->gsi_update_count++];
        if (body_member(e, "Create")) {
            g->kind = GSI_UPDATE_CREATE;
            wire_table_index_from_json(body_member(e, "Create"), true, &g->def);
        } else if (body_member(e, "Update")) {
            g->kind = GSI_UPDATE_UPDATE;
            g->def.name = xstrdup(body_member_str(body_member(e, "Update"), "IndexName"));
            g->def.is_global = true;
            wire_table_throughput_from_json(
                body_member(body_member(e, "Update"), "ProvisionedThroughput"), &g->def.throughput);
            wire_table_on_demand_from_json(
                body_member(body_member(e, "Update"), "OnDemandThroughput"), &g->def.on_demand);
            wire_table_warm_from_json(body_member(body_member(e, "Update"), "WarmThroughput"),
                                      &g->def.warm);
        } else {
            g->kind = GSI_UPDATE_DELETE;
            g->def.name = xstrdup(body_member_str(body_member(e, "Delete"), "IndexName"));
            g->def.is_global = true;
        }
    }
}

/*
 * UpdateTable: static checks, a snapshot of the table for the billing rules
 * (ResourceNotFoundException when it does not exist), db_update_table,
 * {"TableDescription": ...}.
 */
int op_update_table(struct api_request *rq)
{
    struct update_parts parts;
    struct table_update update;
    struct table_desc cur, desc;
    int rc = -1;

    memset(&update, 0, sizeof update);
    memset(&cur, 0, sizeof cur);
    memset(&desc, 0, sizeof desc);
    find_update_parts(rq->body, &parts);
    if (table_rules_key_names_without_nul(rq->body, &rq->err) != 0) goto out;
    if (check_update_combination(rq->body, &parts, &rq->err) != 0) goto out;
    if (table_rules_throughput_bounds(body_member(rq->body, "ProvisionedThroughput"), NULL,
                                      &rq->err) != 0)
        goto out;
    if (table_rules_stream(body_member(rq->body, "StreamSpecification"), false, &rq->err) != 0)
        goto out;
    if (table_rules_sse(body_member(rq->body, "SSESpecification"), &rq->err) != 0) goto out;
    if (table_rules_table_class(rq->body, &rq->err) != 0) goto out;
    if (check_gsi_updates(rq->body, &rq->err) != 0) goto out;
    if (db_describe_table(rq->db, &rq->scope, body_member_str(rq->body, "TableName"), &cur,
                          &rq->err) != 0)
        goto out;
    if (check_gsi_update_bounds(rq->body, &cur, &rq->err) != 0) goto out;
    if (check_replica_updates(rq->body, rq->scope.region, &rq->err) != 0) goto out;
    if (check_update_against_table(rq->body, &cur, &rq->err) != 0) goto out;
    decode_table_update(rq->body, &update);
    if (db_update_table(rq->db, &rq->scope, &update, &desc, &rq->err) != 0) goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableDescription", wire_table_desc_to_json(&desc));
    rc = 0;
out:
    table_update_clear(&update);
    table_desc_clear(&cur);
    table_desc_clear(&desc);
    return rc;
}
