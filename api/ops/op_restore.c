/*
 * op_restore.c - RestoreTableFromBackup and RestoreTableToPointInTime.
 *
 * Both make a new table from a source (a backup, or a table at a point in
 * time) with the request's overrides. The handler asks storage for the
 * source's definition (which raises the source's errors: BackupNotFound,
 * TableNotFound, PointInTimeRecoveryUnavailable), writes it as the
 * CreateTable body it amounts to (wire_table_def_to_create_json), applies
 * the overrides to that body, and checks the result with CreateTable's own
 * rules (table_rules_check_create), so a restored definition is held to
 * exactly the rules of a created one and no rule is written twice. Then one
 * storage call (storage/restore.c) creates and fills the table.
 *
 * The overrides, as the API reference describes them:
 *   - GlobalSecondaryIndexOverride / LocalSecondaryIndexOverride /
 *     VectorIndexOverride replace the source's indexes ([] restores none;
 *     vector indexes then need the restored table to be on demand, as on
 *     CreateTable); AttributeDefinitions keep only what
 *     the chosen key schemas use, as DynamoDB prunes them;
 *   - BillingModeOverride switches the billing: to PAY_PER_REQUEST drops the
 *     provisioned throughput of the table and its GSIs; to PROVISIONED takes
 *     ProvisionedThroughputOverride for the table, and for GSIs that had none
 *     (an on-demand source) the same units (not recorded from AWS:
 *     docs/differences.md);
 *   - ProvisionedThroughputOverride replaces the table's units;
 *   - SSESpecificationOverride replaces the encryption settings;
 *   - OnDemandThroughputOverride is accepted and ignored, as CreateTable's
 *     OnDemandThroughput is (docs/differences.md).
 * The request shapes are in op_table.c, beside the CreateTable member shapes
 * they are made of.
 */
#include "api/ops/ops.h"
#include "api/ops/table_rules.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "storage/base/limits.h"
#include "storage/control/jobs.h"
#include "storage/engine/db.h"

#include <string.h>

static bool str_is(const char *s, const char *want)
{
    return s && strcmp(s, want) == 0;
}

/* Adds the key attribute names of a KeySchema list to names. */
static void add_key_names(const json_t *key_schema, json_t *names)
{
    size_t i;
    json_t *e;

    json_array_foreach(key_schema, i, e)
    {
        const char *name = body_member_str(e, "AttributeName");
        if (name) json_object_set_new(names, name, json_true());
    }
}

/* AttributeDefinitions keep only the attributes some key schema of the
 * (overridden) definition uses: DynamoDB defines no others. */
static void prune_attribute_definitions(json_t *body)
{
    json_t *used = json_object(), *kept = json_array(), *idx, *e;
    const char *lists[] = {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"};
    size_t i;

    add_key_names(body_member(body, "KeySchema"), used);
    for (size_t l = 0; l < 2; l++) {
        json_array_foreach(body_member(body, lists[l]), i, idx)
        {
            add_key_names(body_member(idx, "KeySchema"), used);
        }
    }
    /* A vector index's SearchSchema attributes are defined too. */
    json_array_foreach(body_member(body, "VectorIndexes"), i, idx)
    {
        add_key_names(body_member(idx, "SearchSchema"), used);
    }
    json_array_foreach(body_member(body, "AttributeDefinitions"), i, e)
    {
        const char *name = body_member_str(e, "AttributeName");
        if (name && json_object_get(used, name)) json_array_append(kept, e);
    }
    json_object_set_new(body, "AttributeDefinitions", kept);
    json_decref(used);
}

/* Replaces member key of body with a copy of the request's override, when given;
 * an empty index list removes the member. */
static void override(json_t *body, const char *key, const json_t *value)
{
    if (!value) return;
    if (json_is_array(value) && json_array_size(value) == 0)
        json_object_del(body, key);
    else
        json_object_set_new(body, key, json_deep_copy(value));
}

/* The source's definition (def) with the request's overrides, as a CreateTable body. */
static json_t *restored_body(const json_t *rq, const struct table_def *def)
{
    json_t *body = wire_table_def_to_create_json(def), *gsi;
    const char *billing = body_member_str(rq, "BillingModeOverride");
    const json_t *pt = body_member(rq, "ProvisionedThroughputOverride");
    size_t i;

    json_object_set_new(body, "TableName", json_string(body_member_str(rq, "TargetTableName")));
    override(body, "GlobalSecondaryIndexes", body_member(rq, "GlobalSecondaryIndexOverride"));
    override(body, "LocalSecondaryIndexes", body_member(rq, "LocalSecondaryIndexOverride"));
    override(body, "VectorIndexes", body_member(rq, "VectorIndexOverride"));
    override(body, "SSESpecification", body_member(rq, "SSESpecificationOverride"));
    if (str_is(billing, "PAY_PER_REQUEST")) {
        json_object_set_new(body, "BillingMode", json_string(billing));
        json_object_del(body, "ProvisionedThroughput");
        if (!body_member(rq, "GlobalSecondaryIndexOverride")) {
            json_array_foreach(body_member(body, "GlobalSecondaryIndexes"), i, gsi)
            {
                json_object_del(gsi, "ProvisionedThroughput");
            }
        }
    } else if (str_is(billing, "PROVISIONED")) {
        json_object_set_new(body, "BillingMode", json_string(billing));
    }
    override(body, "ProvisionedThroughput", pt);
    if (str_is(body_member_str(body, "BillingMode"), "PROVISIONED") && pt &&
        !body_member(rq, "GlobalSecondaryIndexOverride")) {
        /* GSIs of an on-demand source have no units of their own. */
        json_array_foreach(body_member(body, "GlobalSecondaryIndexes"), i, gsi)
        {
            if (!body_member(gsi, "ProvisionedThroughput"))
                json_object_set_new(gsi, "ProvisionedThroughput", json_deep_copy(pt));
        }
    }
    prune_attribute_definitions(body);
    return body;
}

/* Both restores, once the source is named: definition, overrides, CreateTable's
 * rules, then the restore itself; {"TableDescription": ...}. */
static int restore(struct api_request *rq, const struct restore_source *src)
{
    struct table_def def, restored;
    struct table_desc desc;
    json_t *body = NULL;
    int rc = -1;

    memset(&restored, 0, sizeof restored);
    memset(&desc, 0, sizeof desc);
    if (db_restore_source_def(rq->db, &rq->scope, src, &def, &rq->err) != 0) return -1;
    body = restored_body(rq->body, &def);
    table_def_clear(&def);
    if (table_rules_check_create(body, &rq->err) != 0) goto out;
    wire_table_def_from_json(body, &restored);
    /* db_restore_table takes restored whether it succeeds or fails. */
    if (db_restore_table(rq->db, &rq->scope, src, &restored, &desc, &rq->err) != 0) goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableDescription", wire_table_desc_to_json(&desc));
    rc = 0;
out:
    json_decref(body);
    table_desc_clear(&desc);
    return rc;
}

int op_restore_table_from_backup(struct api_request *rq)
{
    struct restore_source src = {.backup_arn = body_member_str(rq->body, "BackupArn")};
    return restore(rq, &src);
}

/*
 * The source is named once (SourceTableName or SourceTableArn) and the time
 * once (RestoreDateTime, or UseLatestRestorableTime true). AWS's texts for
 * these two rules are not recorded; these follow its usual wording
 * (docs/differences.md).
 */
int op_restore_table_to_point_in_time(struct api_request *rq)
{
    const json_t *body = rq->body;
    const json_t *time = body_member(body, "RestoreDateTime");
    struct restore_source src = {
        .source_table_name = body_member_str(body, "SourceTableName"),
        .source_table_arn = body_member_str(body, "SourceTableArn"),
        .use_latest = json_is_true(body_member(body, "UseLatestRestorableTime")),
        .restore_ms = body_member_epoch_ms(body, "RestoreDateTime"),
    };

    if (!src.source_table_name && !src.source_table_arn)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Either SourceTableName or SourceTableArn must be "
                                                 "specified");
    if (src.source_table_name && src.source_table_arn)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Only one of SourceTableName or SourceTableArn "
                                                 "can be specified");
    if (src.use_latest && time)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Only one of RestoreDateTime or "
                                                 "UseLatestRestorableTime can be specified");
    if (!src.use_latest && !time)
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Either RestoreDateTime or "
                                                 "UseLatestRestorableTime must be specified");
    return restore(rq, &src);
}
