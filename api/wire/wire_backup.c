/*
 * wire_backup.c - backups <-> JSON; see wire_backup.h.
 *
 * The members and their order follow the API reference (BackupDetails,
 * SourceTableDetails, SourceTableFeatureDetails, BackupSummary) and its
 * CLI examples for describe-backup and list-backups: times are epoch
 * seconds with a fraction, BackupType is USER for every backup made by
 * CreateBackup and SYSTEM (with BackupExpiryDateTime) for the one DeleteTable
 * leaves of a table with point-in-time recovery on, ProvisionedThroughput in SourceTableDetails
 * carries only the two units (zeros on demand), and the feature details list only what the table
 * had: its indexes, its stream while enabled, its TTL while enabled, its SSE while it used KMS,
 * its vector indexes.
 */
#include "api/wire/wire_backup.h"

#include "api/wire/wire_table.h"

static json_t *units_to_json(const struct throughput *t)
{
    json_t *o = json_object();

    json_object_set_new(o, "ReadCapacityUnits", json_integer(t->read_units));
    json_object_set_new(o, "WriteCapacityUnits", json_integer(t->write_units));
    return o;
}

json_t *wire_backup_details_to_json(const struct backup_desc *d)
{
    json_t *o = json_object();

    json_object_set_new(o, "BackupArn", json_string(d->arn));
    json_object_set_new(o, "BackupName", json_string(d->name));
    json_object_set_new(o, "BackupSizeBytes", json_integer(d->size_bytes));
    json_object_set_new(o, "BackupStatus", json_string(backup_status_name(d->status)));
    json_object_set_new(o, "BackupType", json_string(d->system ? "SYSTEM" : "USER"));
    json_object_set_new(o, "BackupCreationDateTime", wire_epoch_seconds(d->creation_ms));
    if (d->expiry_ms)
        json_object_set_new(o, "BackupExpiryDateTime", wire_epoch_seconds(d->expiry_ms));
    return o;
}

static json_t *source_table_to_json(const struct backup_desc *d)
{
    json_t *o = json_object();

    json_object_set_new(o, "TableName", json_string(d->table_name));
    json_object_set_new(o, "TableId", json_string(d->table_id));
    json_object_set_new(o, "TableArn", json_string(d->table_arn));
    json_object_set_new(o, "TableSizeBytes", json_integer(d->size_bytes));
    json_object_set_new(o, "KeySchema", wire_table_key_schema_to_json(&d->def.key));
    json_object_set_new(o, "TableCreationDateTime", wire_epoch_seconds(d->table_creation_ms));
    json_object_set_new(o, "ProvisionedThroughput", units_to_json(&d->def.throughput));
    json_object_set_new(o, "ItemCount", json_integer(d->item_count));
    json_object_set_new(o, "BillingMode", json_string(billing_mode_name(d->def.billing)));
    return o;
}

static json_t *index_to_json(const struct index_def *idx)
{
    json_t *o = json_object();

    json_object_set_new(o, "IndexName", json_string(idx->name));
    json_object_set_new(o, "KeySchema", wire_table_key_schema_to_json(&idx->key));
    json_object_set_new(o, "Projection", wire_table_projection_to_json(&idx->projection));
    if (idx->is_global)
        json_object_set_new(o, "ProvisionedThroughput", units_to_json(&idx->throughput));
    return o;
}

static json_t *features_to_json(const struct backup_desc *d, const char *region)
{
    const struct table_def *def = &d->def;
    json_t *o = json_object();

    if (def->lsi_count) {
        json_t *list = json_array();
        for (size_t i = 0; i < def->lsi_count; i++)
            json_array_append_new(list, index_to_json(&def->lsis[i]));
        json_object_set_new(o, "LocalSecondaryIndexes", list);
    }
    if (def->gsi_count) {
        json_t *list = json_array();
        for (size_t i = 0; i < def->gsi_count; i++)
            json_array_append_new(list, index_to_json(&def->gsis[i]));
        json_object_set_new(o, "GlobalSecondaryIndexes", list);
    }
    if (def->stream.enabled) {
        json_t *s = json_object();
        json_object_set_new(s, "StreamEnabled", json_true());
        json_object_set_new(s, "StreamViewType", json_string(stream_view_name(def->stream.view)));
        json_object_set_new(o, "StreamDescription", s);
    }
    if (d->ttl_enabled) {
        json_t *ttl = json_object();
        json_object_set_new(ttl, "TimeToLiveStatus", json_string("ENABLED"));
        json_object_set_new(ttl, "AttributeName", json_string(d->ttl_attribute));
        json_object_set_new(o, "TimeToLiveDescription", ttl);
    }
    if (def->sse.enabled)
        json_object_set_new(o, "SSEDescription", wire_table_sse_to_json(&def->sse, region));
    /* VectorIndexInfo has VectorIndex's members, in its order (the model's
     * SourceTableFeatureDetails ends with VectorIndexes). */
    if (def->vector_count) json_object_set_new(o, "VectorIndexes", wire_vector_defs_to_json(def));
    return o;
}

json_t *wire_backup_description_to_json(const struct backup_desc *d, const char *region)
{
    json_t *o = json_object();

    json_object_set_new(o, "BackupDetails", wire_backup_details_to_json(d));
    json_object_set_new(o, "SourceTableDetails", source_table_to_json(d));
    json_object_set_new(o, "SourceTableFeatureDetails", features_to_json(d, region));
    return o;
}

json_t *wire_backup_summary_to_json(const struct backup_desc *d)
{
    json_t *o = json_object();

    json_object_set_new(o, "TableName", json_string(d->table_name));
    json_object_set_new(o, "TableId", json_string(d->table_id));
    json_object_set_new(o, "TableArn", json_string(d->table_arn));
    json_object_set_new(o, "BackupArn", json_string(d->arn));
    json_object_set_new(o, "BackupName", json_string(d->name));
    json_object_set_new(o, "BackupCreationDateTime", wire_epoch_seconds(d->creation_ms));
    if (d->expiry_ms)
        json_object_set_new(o, "BackupExpiryDateTime", wire_epoch_seconds(d->expiry_ms));
    json_object_set_new(o, "BackupStatus", json_string(backup_status_name(d->status)));
    json_object_set_new(o, "BackupType", json_string(d->system ? "SYSTEM" : "USER"));
    json_object_set_new(o, "BackupSizeBytes", json_integer(d->size_bytes));
    return o;
}
