/*
 * op_table.c - CreateTable, DescribeTable, DeleteTable, ListTables, and the
 * request shapes of every operation built from CreateTable's members
 * (UpdateTable, whose handler is op_update_table.c; ImportTable; the restores).
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
 * no-op, deletion protection, UpdateTable's rules that depend on the table)
 * belong to storage (catalog.c, catalog_update_check.c), which checks them
 * under the same lock as the change.
 */
#include "api/ops/ops.h"
#include "api/ops/policy_rules.h"
#include "api/ops/table_rules.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "storage/base/limits.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_tables.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

static const char *const attribute_type_choices[] = {"B", "N", "S", NULL};
static const char *const billing_mode_choices[] = {"PROVISIONED", "PAY_PER_REQUEST", NULL};
static const char *const projection_type_choices[] = {"ALL", "INCLUDE", "KEYS_ONLY", NULL};
static const char *const stream_view_choices[] = {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES",
                                                  "KEYS_ONLY", NULL};
static const char *const sse_type_choices[] = {"AES256", "KMS", NULL};
/* In the order the SDK's enum lists them (AWS's message order is not recorded). */
static const char *const replication_mode_choices[] = {"DISABLED", "ENABLED",
                                                       "ENABLED_WITH_OVERRIDES", NULL};

/* CreateTable checks only TableName's presence on its own first ("The
 * parameter 'TableName' is required but was not present in the request",
 * dynalite test/createTable.js, recorded); its length and pattern are model
 * constraints like any other member's: "1 validation error detected: Value
 * 'ab' at 'tableName' failed to satisfy constraint: Member must have length
 * greater than or equal to 3" (nubo-db/dynamodb-conformance, CreateTable
 * exact error messages, checked against AWS; dynalite's older recording had
 * "TableName must be at least 3 characters long and at most 255 characters
 * long", which DescribeTable and DeleteTable still answer, below). */
#define TABLE_NAME_FIELD_CHECKED_FIRST                                                             \
    {                                                                                              \
        "TableName", F_STRING, .required = true, .min_len = DDB_MIN_TABLE_NAME_LEN,                \
                               .max_len = DDB_MAX_TABLE_NAME_LEN,                                  \
                               .pattern = SHAPE_TABLE_NAME_PATTERN, .required_parameter = true     \
    }

/* DescribeTable and DeleteTable check TableName on its own first: the
 * parameter's presence, then "TableName must be at least 3 characters long
 * and at most 255 characters long" (dynalite test/describeTable.js,
 * deleteTable.js, recorded; the AWS SDK for JavaScript's DeleteTable feature
 * test asserts the same text); they also take the table's ARN (shape.h,
 * .table_ref): an ARN skips the length check. */
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

/* VectorIndex / CreateVectorIndexAction (spec-24 2.1: botocore's model,
 * members in model order; the enum orders as AWS prints them, per dynoxide's
 * captures). Dimensions' maximum (4096) is the service's, checked in
 * table_rules.c with its own text. */
static const char *const distance_function_choices[] = {"COSINE", "DOT_PRODUCT", "EUCLIDEAN", NULL};
static const char *const search_element_type_choices[] = {"HASH", "INLINE_FILTER", NULL};

static const struct field vector_attribute_fields[] = {
    {"AttributeName", F_STRING, .required = true, .min_len = 1, .max_len = DDB_MAX_KEY_NAME_BYTES},
    {0},
};

static const struct field search_schema_element_fields[] = {
    {"AttributeName", F_STRING, .required = true, .max_len = 65535},
    {"SearchSchemaElementType", F_STRING, .required = true, .choices = search_element_type_choices},
    {0},
};
static const struct field search_schema_element = {.type = F_STRUCT,
                                                   .shape_name = "SearchSchemaElement",
                                                   .children = search_schema_element_fields};

static const struct field vector_index_fields[] = {
    INDEX_NAME_FIELD,
    {"VectorAttribute", F_STRUCT, .required = true, .shape_name = "VectorAttributeDefinition",
     .children = vector_attribute_fields},
    {"SearchSchema", F_LIST, .min_len = 1, .member = &search_schema_element},
    {"Projection", F_STRUCT, .required = true, .shape_name = "Projection",
     .children = projection_fields},
    {"Dimensions", F_LONG, .required = true, .has_min = true, .min_value = 1},
    {"DistanceFunction", F_STRING, .required = true, .choices = distance_function_choices},
    {0},
};
static const struct field vector_index_member = {
    .type = F_STRUCT, .shape_name = "VectorIndex", .children = vector_index_fields};

static const struct field vector_delete_action_fields[] = {
    INDEX_NAME_FIELD,
    {0},
};

static const struct field vector_index_update_fields[] = {
    {"Create", F_STRUCT, .shape_name = "CreateVectorIndexAction", .children = vector_index_fields},
    {"Delete", F_STRUCT, .shape_name = "DeleteVectorIndexAction",
     .children = vector_delete_action_fields},
    {0},
};
static const struct field vector_index_update_member = {
    .type = F_STRUCT, .shape_name = "VectorIndexUpdate", .children = vector_index_update_fields};

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
    {"VectorIndexes", F_LIST, .member = &vector_index_member},
    {"GlobalTableSourceArn", F_STRING, .min_len = 1, .max_len = 1024},
    {"GlobalTableSettingsReplicationMode", F_STRING, .choices = replication_mode_choices},
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
    {"VectorIndexes", F_LIST, .member = &vector_index_member},
    {0},
};

/* The restores' request shapes (handlers in op_restore.c) live here because
 * their overrides are CreateTable's member shapes. Members in the API
 * model's order. */
#define RESTORE_OVERRIDE_FIELDS                                                                    \
    {"BillingModeOverride", F_STRING, .choices = billing_mode_choices},                            \
        {"GlobalSecondaryIndexOverride", F_LIST, .member = &gsi_member},                           \
        {"LocalSecondaryIndexOverride", F_LIST, .member = &lsi_member},                            \
        {"VectorIndexOverride", F_LIST, .member = &vector_index_member},                           \
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

/* UpdateTable's request shape (handler and checks in op_update_table.c),
 * here beside CreateTable's member shapes it reuses. */
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

/* Global-table members (version 2019.11.21), in the model's shapes: storage
 * checks ReplicaUpdates against the region (one region, no replicas here:
 * docs/differences.md, "Global tables"); the witness members are accepted
 * as shapes and nothing more. */
static const struct field provisioned_throughput_override_fields[] = {
    {"ReadCapacityUnits", F_LONG, .has_min = true, .min_value = 1},
    {0},
};

static const struct field on_demand_throughput_override_fields[] = {
    {"MaxReadRequestUnits", F_LONG},
    {0},
};

#define REPLICA_THROUGHPUT_OVERRIDE_FIELDS                                                         \
    {"ProvisionedThroughputOverride", F_STRUCT, .shape_name = "ProvisionedThroughputOverride",     \
     .children = provisioned_throughput_override_fields},                                          \
    {                                                                                              \
        "OnDemandThroughputOverride", F_STRUCT, .shape_name = "OnDemandThroughputOverride",        \
                                                .children = on_demand_throughput_override_fields   \
    }

static const struct field replica_gsi_fields[] = {
    INDEX_NAME_FIELD,
    REPLICA_THROUGHPUT_OVERRIDE_FIELDS,
    {0},
};
static const struct field replica_gsi_member = {
    .type = F_STRUCT, .shape_name = "ReplicaGlobalSecondaryIndex", .children = replica_gsi_fields};

/* Create and Update of a replica take the same members. TableClassOverride is
 * a plain string, as TableClass is (table_rules_table_class). */
static const struct field replica_member_action_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {"KMSMasterKeyId", F_STRING},
    REPLICA_THROUGHPUT_OVERRIDE_FIELDS,
    {"GlobalSecondaryIndexes", F_LIST, .min_len = 1, .member = &replica_gsi_member},
    {"TableClassOverride", F_STRING},
    {0},
};

static const struct field region_name_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {0},
};

static const char *const disassociation_mode_choices[] = {"WAIT_FOR_REPLICATION", NULL};

static const struct field disassociate_action_fields[] = {
    {"RegionName", F_STRING, .required = true},
    {"DisassociationMode", F_STRING, .required = true, .choices = disassociation_mode_choices},
    {0},
};

static const struct field replica_update_fields[] = {
    {"Create", F_STRUCT, .shape_name = "CreateReplicationGroupMemberAction",
     .children = replica_member_action_fields},
    {"Update", F_STRUCT, .shape_name = "UpdateReplicationGroupMemberAction",
     .children = replica_member_action_fields},
    {"Delete", F_STRUCT, .shape_name = "DeleteReplicationGroupMemberAction",
     .children = region_name_fields},
    {"Disassociate", F_STRUCT, .shape_name = "DisassociateReplicationGroupMemberAction",
     .children = disassociate_action_fields},
    {0},
};
static const struct field replica_update_member = {
    .type = F_STRUCT, .shape_name = "ReplicationGroupUpdate", .children = replica_update_fields};

static const struct field witness_update_fields[] = {
    {"Create", F_STRUCT, .shape_name = "CreateGlobalTableWitnessGroupMemberAction",
     .children = region_name_fields},
    {"Delete", F_STRUCT, .shape_name = "DeleteGlobalTableWitnessGroupMemberAction",
     .children = region_name_fields},
    {0},
};
static const struct field witness_update_member = {.type = F_STRUCT,
                                                   .shape_name = "GlobalTableWitnessGroupUpdate",
                                                   .children = witness_update_fields};

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
    {"GlobalTableWitnessUpdates", F_LIST, .member = &witness_update_member},
    {"OnDemandThroughput", F_STRUCT, .shape_name = "OnDemandThroughput",
     .children = on_demand_throughput_fields},
    {"WarmThroughput", F_STRUCT, .shape_name = "WarmThroughput",
     .children = warm_throughput_fields},
    {"VectorIndexUpdates", F_LIST, .member = &vector_index_update_member},
    {"GlobalTableSettingsReplicationMode", F_STRING, .choices = replication_mode_choices},
    {"DisassociationProtectionEnabled", F_BOOLEAN},
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
 * count, ARN, id and billing mode summary, without the key schema, attribute
 * definitions, creation time or indexes (AWS's answer quoted in dynalite
 * issue 60, for a table with local secondary indexes; TableId and
 * BillingModeSummary with LastUpdateToPayPerRequestDateTime from scylla's
 * test_delete_table_description, run against AWS). Deletion protection and
 * existence are storage's checks.
 */
int op_delete_table(struct api_request *rq)
{
    static const char *const members[] = {
        "TableName", "TableStatus", "ProvisionedThroughput", "TableSizeBytes", "ItemCount",
        "TableArn",  "TableId",     "BillingModeSummary"};
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
