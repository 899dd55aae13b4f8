/*
 * wire_table.c - table definitions and descriptions <-> JSON; see wire_table.h.
 *
 * The description follows what DynamoDB returns today, as recorded against
 * the live service (sources: the AWS CLI examples for create-table; dynalite's
 * test/createTable.js; ScyllaDB's test_describe_table.py; the ack-api-quirks
 * DynamoDB lab findings of 2026-10, DDB-TABLE-125/133/134/138):
 *   - AttributeDefinitions and Projection.NonKeyAttributes come back sorted by
 *     name; index lists and KeySchema keep the submitted order;
 *   - ProvisionedThroughput is always present, with zeros and
 *     NumberOfDecreasesToday 0 on PAY_PER_REQUEST tables and their GSIs;
 *     LocalSecondaryIndexes carry no throughput block;
 *   - BillingModeSummary appears for PAY_PER_REQUEST tables (and for tables
 *     that were once on demand), with LastUpdateToPayPerRequestDateTime equal
 *     to the creation time for tables created on demand; the CreateTable
 *     response carries the mode alone;
 *   - WarmThroughput is reported on every table and GSI: 12000 reads / 4000
 *     writes per second on demand, the provisioned units otherwise; the
 *     CreateTable response leaves it off the indexes;
 *   - Backfilling is present only for GSIs added by UpdateTable, while CREATING;
 *   - StreamSpecification only while a stream is enabled; LatestStreamArn and
 *     LatestStreamLabel survive disabling it;
 *   - SSEDescription only for KMS encryption; DeletionProtectionEnabled always.
 * Timestamps are epoch seconds as JSON numbers with a fraction (milliseconds).
 */
#include "api/wire/wire_table.h"

#include "api/wire/body.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/model/throughput.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The key id reported when a table uses the AWS managed KMS key (no
 * KMSMasterKeyId given). AWS reports the account's aws/dynamodb key. */
#define DEFAULT_KMS_KEY_ID "00000000-0000-4000-8000-000000000000"

/* ------------------------------------------------------------------------ */
/* decoding                                                                  */
/* ------------------------------------------------------------------------ */

static const char *get_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key)); /* NULL when absent or not a string */
}

static char *dup_str(const json_t *obj, const char *key)
{
    const char *s = get_str(obj, key);
    return xstrdup_or_null(s);
}

static bool str_is(const char *s, const char *want)
{
    return s && strcmp(s, want) == 0;
}

/*
 * Fills out from a KeySchema list. Elements of unknown KeyType and elements
 * past DDB_MAX_KEY_PARTS per role are skipped (the handler refused both).
 */
void wire_table_key_schema_from_json(const json_t *list, struct key_schema *out)
{
    size_t i;
    json_t *e;

    memset(out, 0, sizeof *out);
    json_array_foreach(list, i, e)
    {
        const char *name = get_str(e, "AttributeName");
        const char *type = get_str(e, "KeyType");
        if (!name) continue;
        if (str_is(type, "HASH") && out->hash_count < DDB_MAX_KEY_PARTS)
            out->hash_names[out->hash_count++] = xstrdup(name);
        else if (str_is(type, "RANGE") && out->range_count < DDB_MAX_KEY_PARTS)
            out->range_names[out->range_count++] = xstrdup(name);
    }
}

/* Fills a new array of attribute definitions, in request order. */
void wire_table_attr_defs_from_json(const json_t *list, struct attr_def **out, size_t *count)
{
    size_t i, n = 0;
    json_t *e;

    *out = json_array_size(list) ? xcalloc(json_array_size(list), sizeof **out) : NULL;
    json_array_foreach(list, i, e)
    {
        const char *name = get_str(e, "AttributeName");
        const char *type = get_str(e, "AttributeType");
        enum value_type vt;
        if (!name || !type || !value_type_from_name(type, strlen(type), &vt)) continue;
        (*out)[n].name = xstrdup(name);
        (*out)[n].type = vt;
        n++;
    }
    *count = n;
}

void wire_table_throughput_from_json(const json_t *pt, struct throughput *out)
{
    out->read_units = body_number_int(json_object_get(pt, "ReadCapacityUnits"));
    out->write_units = body_number_int(json_object_get(pt, "WriteCapacityUnits"));
}

void wire_table_projection_from_json(const json_t *p, struct projection *out)
{
    const char *type = get_str(p, "ProjectionType");
    json_t *attrs = json_object_get(p, "NonKeyAttributes");
    size_t i;
    json_t *e;

    memset(out, 0, sizeof *out);
    out->type = str_is(type, "KEYS_ONLY") ? PROJECTION_KEYS_ONLY
                : str_is(type, "INCLUDE") ? PROJECTION_INCLUDE
                                          : PROJECTION_ALL;
    if (out->type != PROJECTION_INCLUDE || !json_array_size(attrs)) return;
    out->non_key_attrs = xcalloc(json_array_size(attrs), sizeof *out->non_key_attrs);
    out->non_key_lens = xcalloc(json_array_size(attrs), sizeof *out->non_key_lens);
    json_array_foreach(attrs, i, e)
    {
        if (!json_is_string(e)) continue;
        /* Attribute names may contain NUL: copied with their lengths. */
        out->non_key_lens[out->non_key_count] = json_string_length(e);
        out->non_key_attrs[out->non_key_count++] =
            xmemdup(json_string_value(e), json_string_length(e));
    }
}

void wire_table_index_from_json(const json_t *idx, bool is_global, struct index_def *out)
{
    memset(out, 0, sizeof *out);
    out->name = dup_str(idx, "IndexName");
    out->is_global = is_global;
    wire_table_key_schema_from_json(json_object_get(idx, "KeySchema"), &out->key);
    wire_table_projection_from_json(json_object_get(idx, "Projection"), &out->projection);
    if (is_global) {
        wire_table_throughput_from_json(json_object_get(idx, "ProvisionedThroughput"),
                                        &out->throughput);
        wire_table_on_demand_from_json(json_object_get(idx, "OnDemandThroughput"), &out->on_demand);
        wire_table_warm_from_json(json_object_get(idx, "WarmThroughput"), &out->warm);
    }
}

void wire_table_stream_from_json(const json_t *spec, struct stream_spec *out)
{
    const char *view = get_str(spec, "StreamViewType");

    out->enabled = json_is_true(json_object_get(spec, "StreamEnabled"));
    out->view = str_is(view, "OLD_IMAGE")            ? STREAM_OLD_IMAGE
                : str_is(view, "NEW_AND_OLD_IMAGES") ? STREAM_NEW_AND_OLD_IMAGES
                : str_is(view, "KEYS_ONLY")          ? STREAM_KEYS_ONLY
                                                     : STREAM_NEW_IMAGE;
}

void wire_table_sse_from_json(const json_t *spec, struct sse_spec *out)
{
    json_t *enabled = json_object_get(spec, "Enabled");
    const char *type = get_str(spec, "SSEType");

    memset(out, 0, sizeof *out);
    /* Enabled is inferred from SSEType when absent (ack-api-quirks DDB-TABLE-044). */
    out->enabled = json_is_true(enabled) || (!json_is_boolean(enabled) && str_is(type, "KMS"));
    if (!out->enabled) return;
    out->sse_type = xstrdup("KMS");
    out->kms_master_key_id = dup_str(spec, "KMSMasterKeyId");
}

static void decode_indexes(const json_t *list, bool is_global, struct index_def **out,
                           size_t *count)
{
    size_t i;
    json_t *e;

    *count = 0;
    *out = json_array_size(list) ? xcalloc(json_array_size(list), sizeof **out) : NULL;
    json_array_foreach(list, i, e)
    {
        wire_table_index_from_json(e, is_global, &(*out)[(*count)++]);
    }
}

void wire_table_on_demand_from_json(const json_t *obj, struct on_demand_throughput *out)
{
    memset(out, 0, sizeof *out);
    out->max_read = json_integer_value(json_object_get(obj, "MaxReadRequestUnits"));
    out->max_write = json_integer_value(json_object_get(obj, "MaxWriteRequestUnits"));
}

void wire_table_warm_from_json(const json_t *obj, struct warm_throughput *out)
{
    memset(out, 0, sizeof *out);
    out->read_per_s = json_integer_value(json_object_get(obj, "ReadUnitsPerSecond"));
    out->write_per_s = json_integer_value(json_object_get(obj, "WriteUnitsPerSecond"));
}

/* Decodes a CreateTable body (already validated by op_table.c) into out. */
void wire_table_def_from_json(const json_t *body, struct table_def *out)
{
    json_t *tags = json_object_get(body, "Tags");
    size_t i;
    json_t *e;

    memset(out, 0, sizeof *out);
    out->name = dup_str(body, "TableName");
    wire_table_attr_defs_from_json(json_object_get(body, "AttributeDefinitions"), &out->attr_defs,
                                   &out->attr_def_count);
    wire_table_key_schema_from_json(json_object_get(body, "KeySchema"), &out->key);
    out->billing = str_is(get_str(body, "BillingMode"), "PAY_PER_REQUEST") ? BILLING_PAY_PER_REQUEST
                                                                           : BILLING_PROVISIONED;
    if (out->billing == BILLING_PROVISIONED)
        wire_table_throughput_from_json(json_object_get(body, "ProvisionedThroughput"),
                                        &out->throughput);
    decode_indexes(json_object_get(body, "GlobalSecondaryIndexes"), true, &out->gsis,
                   &out->gsi_count);
    decode_indexes(json_object_get(body, "LocalSecondaryIndexes"), false, &out->lsis,
                   &out->lsi_count);
    if (out->billing == BILLING_PAY_PER_REQUEST) {
        for (i = 0; i < out->gsi_count; i++)
            memset(&out->gsis[i].throughput, 0, sizeof out->gsis[i].throughput);
    }
    wire_table_stream_from_json(json_object_get(body, "StreamSpecification"), &out->stream);
    wire_table_sse_from_json(json_object_get(body, "SSESpecification"), &out->sse);
    out->deletion_protection = json_is_true(json_object_get(body, "DeletionProtectionEnabled"));
    out->table_class = dup_str(body, "TableClass");
    out->replication_mode = dup_str(body, "GlobalTableSettingsReplicationMode");
    wire_table_on_demand_from_json(json_object_get(body, "OnDemandThroughput"), &out->on_demand);
    wire_table_warm_from_json(json_object_get(body, "WarmThroughput"), &out->warm);
    wire_vector_defs_from_json(json_object_get(body, "VectorIndexes"), &out->vectors,
                               &out->vector_count);
    if (json_array_size(tags)) {
        out->tags = xcalloc(json_array_size(tags), sizeof *out->tags);
        json_array_foreach(tags, i, e)
        {
            const char *key = get_str(e, "Key"), *value = get_str(e, "Value");
            if (!key || !value) continue;
            out->tags[out->tag_count].key = xstrdup(key);
            out->tags[out->tag_count].value = xstrdup(value);
            out->tag_count++;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* encoding                                                                  */
/* ------------------------------------------------------------------------ */

json_t *wire_epoch_seconds(int64_t ms)
{
    return json_real((double) ms / 1000.0);
}

static json_t *key_element(const char *name, const char *type)
{
    json_t *e = json_object();
    json_object_set_new(e, "AttributeName", json_string(name));
    json_object_set_new(e, "KeyType", json_string(type));
    return e;
}

/* Returns [{"AttributeName": ..., "KeyType": ...}], HASH elements first. */
json_t *wire_table_key_schema_to_json(const struct key_schema *k)
{
    json_t *list = json_array();
    for (size_t i = 0; i < k->hash_count; i++)
        json_array_append_new(list, key_element(k->hash_names[i], "HASH"));
    for (size_t i = 0; i < k->range_count; i++)
        json_array_append_new(list, key_element(k->range_names[i], "RANGE"));
    return list;
}

static int compare_attr_defs(const void *a, const void *b)
{
    return strcmp((*(const struct attr_def *const *) a)->name,
                  (*(const struct attr_def *const *) b)->name);
}

/* A projected name with its length, for sorting by bytes. */
struct counted_name {
    const char *data;
    size_t len;
};

static int compare_counted_names(const void *pa, const void *pb)
{
    const struct counted_name *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;
    if (c != 0) return c;
    return (a->len > b->len) - (a->len < b->len);
}

static json_t *attr_defs_to_json(const struct table_def *def)
{
    json_t *list = json_array();
    const struct attr_def **sorted;

    if (!def->attr_def_count) return list;
    sorted = xmalloc(def->attr_def_count * sizeof *sorted);
    for (size_t i = 0; i < def->attr_def_count; i++)
        sorted[i] = &def->attr_defs[i];
    qsort(sorted, def->attr_def_count, sizeof *sorted, compare_attr_defs);
    for (size_t i = 0; i < def->attr_def_count; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "AttributeName", json_string(sorted[i]->name));
        json_object_set_new(e, "AttributeType", json_string(value_type_name(sorted[i]->type)));
        json_array_append_new(list, e);
    }
    free(sorted);
    return list;
}

json_t *wire_table_projection_to_json(const struct projection *p)
{
    json_t *obj = json_object();

    json_object_set_new(obj, "ProjectionType", json_string(projection_type_name(p->type)));
    if (p->type == PROJECTION_INCLUDE && p->non_key_count) {
        struct counted_name *sorted = xmalloc(p->non_key_count * sizeof *sorted);
        json_t *list = json_array();
        for (size_t i = 0; i < p->non_key_count; i++) {
            sorted[i].data = p->non_key_attrs[i];
            sorted[i].len = p->non_key_lens[i];
        }
        qsort(sorted, p->non_key_count, sizeof *sorted, compare_counted_names);
        for (size_t i = 0; i < p->non_key_count; i++)
            json_array_append_new(list, json_stringn(sorted[i].data, sorted[i].len));
        free(sorted);
        json_object_set_new(obj, "NonKeyAttributes", list);
    }
    return obj;
}

static json_t *throughput_to_json(const struct throughput *t, int64_t last_increase_ms,
                                  int64_t last_decrease_ms, int64_t decreases_today)
{
    json_t *obj = json_object();

    if (last_increase_ms)
        json_object_set_new(obj, "LastIncreaseDateTime", wire_epoch_seconds(last_increase_ms));
    if (last_decrease_ms)
        json_object_set_new(obj, "LastDecreaseDateTime", wire_epoch_seconds(last_decrease_ms));
    json_object_set_new(obj, "NumberOfDecreasesToday", json_integer(decreases_today));
    json_object_set_new(obj, "ReadCapacityUnits", json_integer(t->read_units));
    json_object_set_new(obj, "WriteCapacityUnits", json_integer(t->write_units));
    return obj;
}

/* warm: what the table was asked to be ready for (NULL or zeros: nothing);
 * what is reported is never below the defaults or the provisioned units
 * (storage/model/throughput.c). */
static json_t *warm_throughput_to_json(enum billing_mode billing, const struct throughput *t,
                                       const struct warm_throughput *warm, const char *status)
{
    json_t *obj = json_object();
    struct warm_throughput described = throughput_warm_described(billing, t, warm);

    json_object_set_new(obj, "ReadUnitsPerSecond", json_integer(described.read_per_s));
    json_object_set_new(obj, "WriteUnitsPerSecond", json_integer(described.write_per_s));
    json_object_set_new(obj, "Status", json_string(status));
    return obj;
}

/* OnDemandThroughput as described: -1 for a maximum that is not set; NULL when none is. */
static json_t *on_demand_to_json(const struct on_demand_throughput *o)
{
    json_t *obj;

    if (!o->max_read && !o->max_write) return NULL;
    obj = json_object();
    json_object_set_new(obj, "MaxReadRequestUnits", json_integer(o->max_read ? o->max_read : -1));
    json_object_set_new(obj, "MaxWriteRequestUnits",
                        json_integer(o->max_write ? o->max_write : -1));
    return obj;
}

static json_t *gsi_to_json(const struct table_desc *d, size_t i)
{
    const struct index_def *def = &d->def.gsis[i];
    const struct index_desc *desc = d->gsi_descs ? &d->gsi_descs[i] : NULL;
    json_t *obj = json_object(), *sub;

    json_object_set_new(obj, "IndexName", json_string(def->name));
    json_object_set_new(obj, "KeySchema", wire_table_key_schema_to_json(&def->key));
    json_object_set_new(obj, "Projection", wire_table_projection_to_json(&def->projection));
    json_object_set_new(obj, "IndexStatus",
                        json_string(index_status_name(desc ? desc->status : INDEX_ACTIVE)));
    /* Backfilling is present only for a GSI added by UpdateTable while it is CREATING:
     * false while resources are allocated, true while it is filled (ack-api-quirks
     * DDB-TABLE-138). */
    if (desc && desc->show_backfilling)
        json_object_set_new(obj, "Backfilling", json_boolean(desc->backfilling));
    json_object_set_new(obj, "ProvisionedThroughput",
                        throughput_to_json(&def->throughput, 0, 0, 0));
    json_object_set_new(obj, "IndexSizeBytes", json_integer(desc ? desc->size_bytes : 0));
    json_object_set_new(obj, "ItemCount", json_integer(desc ? desc->item_count : 0));
    if (desc && desc->arn) json_object_set_new(obj, "IndexArn", json_string(desc->arn));
    if (d->status != TABLE_CREATING)
        json_object_set_new(
            obj, "WarmThroughput",
            warm_throughput_to_json(d->def.billing, &def->throughput, &def->warm, "ACTIVE"));
    sub = on_demand_to_json(&def->on_demand);
    if (sub) json_object_set_new(obj, "OnDemandThroughput", sub);
    return obj;
}

static json_t *lsi_to_json(const struct table_desc *d, size_t i)
{
    const struct index_def *def = &d->def.lsis[i];
    const struct index_desc *desc = d->lsi_descs ? &d->lsi_descs[i] : NULL;
    json_t *obj = json_object();

    json_object_set_new(obj, "IndexName", json_string(def->name));
    json_object_set_new(obj, "KeySchema", wire_table_key_schema_to_json(&def->key));
    json_object_set_new(obj, "Projection", wire_table_projection_to_json(&def->projection));
    json_object_set_new(obj, "IndexSizeBytes", json_integer(desc ? desc->size_bytes : 0));
    json_object_set_new(obj, "ItemCount", json_integer(desc ? desc->item_count : 0));
    if (desc && desc->arn) json_object_set_new(obj, "IndexArn", json_string(desc->arn));
    return obj;
}

static json_t *billing_summary_to_json(const struct table_desc *d)
{
    json_t *obj;
    int64_t switched_ms = d->billing_last_update_ms;

    if (d->def.billing == BILLING_PROVISIONED && !switched_ms) return NULL;
    obj = json_object();
    json_object_set_new(obj, "BillingMode", json_string(billing_mode_name(d->def.billing)));
    if (!switched_ms && d->status != TABLE_CREATING) switched_ms = d->creation_ms;
    if (switched_ms)
        json_object_set_new(obj, "LastUpdateToPayPerRequestDateTime",
                            wire_epoch_seconds(switched_ms));
    return obj;
}

static json_t *sse_to_json(const struct table_desc *d)
{
    return wire_table_sse_to_json(&d->def.sse, d->region);
}

json_t *wire_table_sse_to_json(const struct sse_spec *sse, const char *region)
{
    const char *key = sse->kms_master_key_id;
    json_t *obj = json_object();

    json_object_set_new(obj, "Status", json_string("ENABLED"));
    json_object_set_new(obj, "SSEType", json_string("KMS"));
    if (key && strncmp(key, "arn:", 4) == 0) {
        json_object_set_new(obj, "KMSMasterKeyArn", json_string(key));
    } else {
        /* A key id is reported as its ARN; an alias (or no key) as the key behind it,
         * which the emulator cannot resolve, so the managed-key placeholder is used. */
        const char *id = key && strncmp(key, "alias/", 6) != 0 ? key : DEFAULT_KMS_KEY_ID;
        json_object_set_new(
            obj, "KMSMasterKeyArn",
            json_sprintf("arn:aws:kms:%s:%s:key/%s", region ? region : "", DDB_ACCOUNT_ID, id));
    }
    return obj;
}

/* RestoreSummary of a restored table (API reference, RestoreSummary). */
static json_t *restore_to_json(const struct table_desc *d)
{
    json_t *obj = json_object();

    if (d->restore.source_backup_arn)
        json_object_set_new(obj, "SourceBackupArn", json_string(d->restore.source_backup_arn));
    if (d->restore.source_table_arn)
        json_object_set_new(obj, "SourceTableArn", json_string(d->restore.source_table_arn));
    json_object_set_new(obj, "RestoreDateTime", wire_epoch_seconds(d->restore.restore_ms));
    json_object_set_new(obj, "RestoreInProgress", json_boolean(d->restore.in_progress));
    return obj;
}

/*
 * Encodes a whole TableDescription. Returns a new reference owned by the
 * caller. d is borrowed.
 */
json_t *wire_table_desc_to_json(const struct table_desc *d)
{
    const struct table_def *def = &d->def;
    json_t *obj = json_object(), *sub;

    json_object_set_new(obj, "AttributeDefinitions", attr_defs_to_json(def));
    json_object_set_new(obj, "TableName", json_string(def->name));
    json_object_set_new(obj, "KeySchema", wire_table_key_schema_to_json(&def->key));
    json_object_set_new(obj, "TableStatus", json_string(table_status_name(d->status)));
    json_object_set_new(obj, "CreationDateTime", wire_epoch_seconds(d->creation_ms));
    json_object_set_new(obj, "ProvisionedThroughput",
                        throughput_to_json(&def->throughput, d->throughput_last_increase_ms,
                                           d->throughput_last_decrease_ms,
                                           d->throughput_decreases_today));
    json_object_set_new(obj, "TableSizeBytes", json_integer(d->size_bytes));
    json_object_set_new(obj, "ItemCount", json_integer(d->item_count));
    if (d->arn) json_object_set_new(obj, "TableArn", json_string(d->arn));
    if (d->table_id) json_object_set_new(obj, "TableId", json_string(d->table_id));
    sub = billing_summary_to_json(d);
    if (sub) json_object_set_new(obj, "BillingModeSummary", sub);
    if (def->lsi_count) {
        sub = json_array();
        for (size_t i = 0; i < def->lsi_count; i++)
            json_array_append_new(sub, lsi_to_json(d, i));
        json_object_set_new(obj, "LocalSecondaryIndexes", sub);
    }
    if (def->gsi_count) {
        sub = json_array();
        for (size_t i = 0; i < def->gsi_count; i++)
            json_array_append_new(sub, gsi_to_json(d, i));
        json_object_set_new(obj, "GlobalSecondaryIndexes", sub);
    }
    if (def->stream.enabled) {
        sub = json_object();
        json_object_set_new(sub, "StreamEnabled", json_true());
        json_object_set_new(sub, "StreamViewType", json_string(stream_view_name(def->stream.view)));
        json_object_set_new(obj, "StreamSpecification", sub);
    }
    if (d->latest_stream_label)
        json_object_set_new(obj, "LatestStreamLabel", json_string(d->latest_stream_label));
    if (d->latest_stream_arn)
        json_object_set_new(obj, "LatestStreamArn", json_string(d->latest_stream_arn));
    if (def->sse.enabled) json_object_set_new(obj, "SSEDescription", sse_to_json(d));
    if (def->table_class) {
        sub = json_object();
        json_object_set_new(sub, "TableClass", json_string(def->table_class));
        json_object_set_new(obj, "TableClassSummary", sub);
    }
    json_object_set_new(obj, "DeletionProtectionEnabled", json_boolean(def->deletion_protection));
    if (def->replication_mode)
        json_object_set_new(obj, "GlobalTableSettingsReplicationMode",
                            json_string(def->replication_mode));
    if (def->has_disassociation_protection)
        json_object_set_new(obj, "DisassociationProtectionEnabled",
                            json_boolean(def->disassociation_protection));
    json_object_set_new(
        obj, "WarmThroughput",
        warm_throughput_to_json(def->billing, &def->throughput, &def->warm, "ACTIVE"));
    sub = on_demand_to_json(&def->on_demand);
    if (sub) json_object_set_new(obj, "OnDemandThroughput", sub);
    if (d->restore.present) json_object_set_new(obj, "RestoreSummary", restore_to_json(d));
    if (def->vector_count) json_object_set_new(obj, "VectorIndexes", wire_vector_descs_to_json(d));
    return obj;
}

/* ------------------------------------------------------------------------ */
/* consumed capacity and item collection metrics                             */
/* ------------------------------------------------------------------------ */

/*
 * The units members of a ConsumedCapacity or of one of its "Table"/index
 * entries: "CapacityUnits", and for transactions also "ReadCapacityUnits" and
 * "WriteCapacityUnits", each left out when zero (transactional answers split
 * the units: paritysuite transactWrite and nubo-db/dynoxide#123, observed on
 * AWS).
 */
static void write_units_members(struct json_out *w, double read_units, double write_units,
                                bool split)
{
    json_out_key(w, "CapacityUnits");
    json_out_real(w, read_units + write_units);
    if (!split) return;
    if (read_units > 0) {
        json_out_key(w, "ReadCapacityUnits");
        json_out_real(w, read_units);
    }
    if (write_units > 0) {
        json_out_key(w, "WriteCapacityUnits");
        json_out_real(w, write_units);
    }
}

static void write_units(struct json_out *w, double read_units, double write_units, bool split)
{
    json_out_object_begin(w);
    write_units_members(w, read_units, write_units, split);
    json_out_object_end(w);
}

/* "GlobalSecondaryIndexes" or "LocalSecondaryIndexes": {index: units} for the
 * indexes of that kind that consumed any; nothing when there are none. */
static void write_index_units(struct json_out *w, const struct consumed_capacity *c, bool global,
                              bool split)
{
    bool open = false;

    for (size_t i = 0; i < c->index_count; i++) {
        const struct index_capacity *ic = &c->indexes[i];
        if (ic->is_global != global) continue;
        if (!open) {
            json_out_key(w, global ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes");
            json_out_object_begin(w);
            open = true;
        }
        json_out_key(w, ic->index_name);
        write_units(w, ic->read_units, ic->write_units, split);
    }
    if (open) json_out_object_end(w);
}

/* "VectorIndexes": {index: {"VectorWriteRequestBytes": n}} for the vector
 * indexes a write changed (developerguide/VectorSearchMonitoring.html's
 * example); nothing when there are none. */
static void write_vector_bytes(struct json_out *w, const struct consumed_capacity *c)
{
    if (!c->vector_count) return;
    json_out_key(w, "VectorIndexes");
    json_out_object_begin(w);
    for (size_t i = 0; i < c->vector_count; i++) {
        json_out_key(w, c->vectors[i].index_name);
        json_out_object_begin(w);
        json_out_key(w, "VectorWriteRequestBytes");
        json_out_real(w, c->vectors[i].write_bytes);
        json_out_object_end(w);
    }
    json_out_object_end(w);
}

/*
 * The ConsumedCapacity of one table, as DynamoDB returns it (recorded by
 * dynalite's test/getItem.js and moto's aws-verified tests):
 *   TOTAL:   {"TableName": t, "CapacityUnits": n}
 *   INDEXES: the same plus "Table": {"CapacityUnits": base table share} and
 *            "GlobalSecondaryIndexes"/"LocalSecondaryIndexes":
 *            {index: {"CapacityUnits": n}} for the indexes that consumed any.
 * split adds the read/write split of transactions to every units object.
 */
static void write_capacity(struct json_out *w, const struct consumed_capacity *c,
                           enum return_capacity mode, bool split)
{
    assert(wire_table_has_capacity(c, mode));
    json_out_object_begin(w);
    json_out_key(w, "TableName");
    json_out_string(w, c->table_name);
    write_units_members(w, c->read_units, c->write_units, split);
    if (mode == RETURN_CAPACITY_INDEXES) {
        json_out_key(w, "Table");
        write_units(w, c->table_read_units, c->table_write_units, split);
        write_index_units(w, c, true, split);
        write_index_units(w, c, false, split);
        write_vector_bytes(w, c);
    }
    json_out_object_end(w);
}

/* True when c is to be returned under mode: not NONE, and something recorded. */
bool wire_table_has_capacity(const struct consumed_capacity *c, enum return_capacity mode)
{
    return mode != RETURN_CAPACITY_NONE && c->table_name;
}

/* Writes c (see write_capacity) as w's next value; only when
 * wire_table_has_capacity(c, mode). */
void wire_table_write_capacity(struct json_out *w, const struct consumed_capacity *c,
                               enum return_capacity mode)
{
    write_capacity(w, c, mode, false);
}

/* Writes c with the read/write split of transactional answers as w's next
 * value; only when wire_table_has_capacity(c, mode). */
void wire_table_write_transact_capacity(struct json_out *w, const struct consumed_capacity *c,
                                        enum return_capacity mode)
{
    write_capacity(w, c, mode, true);
}

/* Writes "ConsumedCapacity": {...} into the open object of w when c is to be
 * returned; nothing otherwise. */
void wire_table_write_capacity_member(struct json_out *w, const struct consumed_capacity *c,
                                      enum return_capacity mode)
{
    if (!wire_table_has_capacity(c, mode)) return;
    json_out_key(w, "ConsumedCapacity");
    wire_table_write_capacity(w, c, mode);
}

/* Writes {"ItemCollectionKey": {...}, "SizeEstimateRangeGB": [lo, hi]}. */
void wire_table_write_collection_metrics(struct json_out *w,
                                         const struct item_collection_metrics *m)
{
    json_out_object_begin(w);
    json_out_key(w, "ItemCollectionKey");
    wire_value_write_map(w, &m->key);
    json_out_key(w, "SizeEstimateRangeGB");
    json_out_array_begin(w);
    json_out_real(w, m->size_estimate_gb[0]);
    json_out_real(w, m->size_estimate_gb[1]);
    json_out_array_end(w);
    json_out_object_end(w);
}

void wire_table_write_collection_metrics_member(struct json_out *w, const json_t *body,
                                                const struct item_collection_metrics *m)
{
    if (!body_member_is(body, "ReturnItemCollectionMetrics", "SIZE") || !m->present) return;
    json_out_key(w, "ItemCollectionMetrics");
    wire_table_write_collection_metrics(w, m);
}

json_t *wire_table_creation_parameters_to_json(const struct table_def *def)
{
    json_t *obj = json_object();

    json_object_set_new(obj, "TableName", json_string(def->name));
    json_object_set_new(obj, "AttributeDefinitions", attr_defs_to_json(def));
    json_object_set_new(obj, "KeySchema", wire_table_key_schema_to_json(&def->key));
    json_object_set_new(obj, "BillingMode", json_string(billing_mode_name(def->billing)));
    if (def->billing == BILLING_PROVISIONED) {
        json_t *pt = json_object();
        json_object_set_new(pt, "ReadCapacityUnits", json_integer(def->throughput.read_units));
        json_object_set_new(pt, "WriteCapacityUnits", json_integer(def->throughput.write_units));
        json_object_set_new(obj, "ProvisionedThroughput", pt);
    }
    if (def->gsi_count) {
        json_t *list = json_array();
        for (size_t i = 0; i < def->gsi_count; i++) {
            const struct index_def *g = &def->gsis[i];
            json_t *e = json_object();
            json_object_set_new(e, "IndexName", json_string(g->name));
            json_object_set_new(e, "KeySchema", wire_table_key_schema_to_json(&g->key));
            json_object_set_new(e, "Projection", wire_table_projection_to_json(&g->projection));
            if (def->billing == BILLING_PROVISIONED) {
                json_t *pt = json_object();
                json_object_set_new(pt, "ReadCapacityUnits",
                                    json_integer(g->throughput.read_units));
                json_object_set_new(pt, "WriteCapacityUnits",
                                    json_integer(g->throughput.write_units));
                json_object_set_new(e, "ProvisionedThroughput", pt);
            }
            json_array_append_new(list, e);
        }
        json_object_set_new(obj, "GlobalSecondaryIndexes", list);
    }
    return obj;
}

json_t *wire_table_def_to_create_json(const struct table_def *def)
{
    json_t *obj = wire_table_creation_parameters_to_json(def);

    if (def->lsi_count) {
        json_t *list = json_array();
        for (size_t i = 0; i < def->lsi_count; i++) {
            const struct index_def *l = &def->lsis[i];
            json_t *e = json_object();
            json_object_set_new(e, "IndexName", json_string(l->name));
            json_object_set_new(e, "KeySchema", wire_table_key_schema_to_json(&l->key));
            json_object_set_new(e, "Projection", wire_table_projection_to_json(&l->projection));
            json_array_append_new(list, e);
        }
        json_object_set_new(obj, "LocalSecondaryIndexes", list);
    }
    if (def->sse.enabled) {
        json_t *sse = json_object();
        json_object_set_new(sse, "Enabled", json_true());
        json_object_set_new(sse, "SSEType", json_string("KMS"));
        if (def->sse.kms_master_key_id)
            json_object_set_new(sse, "KMSMasterKeyId", json_string(def->sse.kms_master_key_id));
        json_object_set_new(obj, "SSESpecification", sse);
    }
    if (def->table_class) json_object_set_new(obj, "TableClass", json_string(def->table_class));
    /* Restores keep the vector indexes (spec-24 2.8) unless VectorIndexOverride replaces them. */
    if (def->vector_count) json_object_set_new(obj, "VectorIndexes", wire_vector_defs_to_json(def));
    return obj;
}

/* ------------------------------------------------------------------------ */
/* Vector index definitions and descriptions in JSON. Member order is the
 * API model's (spec-24 2.1, 2.6). */

static enum distance_function distance_from(const char *s)
{
    if (str_is(s, "DOT_PRODUCT")) return DISTANCE_DOT_PRODUCT;
    if (str_is(s, "EUCLIDEAN")) return DISTANCE_EUCLIDEAN;
    return DISTANCE_COSINE;
}

void wire_vector_def_from_json(const json_t *obj, struct vector_index_def *out)
{
    const json_t *schema = json_object_get(obj, "SearchSchema");
    size_t i;
    json_t *e;

    memset(out, 0, sizeof *out);
    out->name = xstrdup_or_null(json_string_value(json_object_get(obj, "IndexName")));
    out->attribute = xstrdup_or_null(json_string_value(
        json_object_get(json_object_get(obj, "VectorAttribute"), "AttributeName")));
    wire_table_projection_from_json(json_object_get(obj, "Projection"), &out->projection);
    out->dimensions = json_integer_value(json_object_get(obj, "Dimensions"));
    out->distance = distance_from(json_string_value(json_object_get(obj, "DistanceFunction")));
    if (!json_array_size(schema)) return;
    out->search = xcalloc(json_array_size(schema), sizeof *out->search);
    json_array_foreach(schema, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "AttributeName"));
        const char *type = json_string_value(json_object_get(e, "SearchSchemaElementType"));
        if (!name) continue;
        out->search[out->search_count].name = xstrdup(name);
        out->search[out->search_count++].type =
            str_is(type, "HASH") ? SEARCH_HASH : SEARCH_INLINE_FILTER;
    }
}

void wire_vector_defs_from_json(const json_t *list, struct vector_index_def **out, size_t *count)
{
    size_t i;
    json_t *e;

    *out = NULL;
    *count = 0;
    if (!json_array_size(list)) return;
    *out = xcalloc(json_array_size(list), sizeof **out);
    json_array_foreach(list, i, e)
    {
        wire_vector_def_from_json(e, &(*out)[(*count)++]);
    }
}

static json_t *search_schema_to_json(const struct vector_index_def *v)
{
    json_t *list = json_array();
    for (size_t i = 0; i < v->search_count; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "AttributeName", json_string(v->search[i].name));
        json_object_set_new(e, "SearchSchemaElementType",
                            json_string(search_element_type_name(v->search[i].type)));
        json_array_append_new(list, e);
    }
    return list;
}

/* The members a definition and a description share, in model order. */
static json_t *def_to_json(const struct vector_index_def *v)
{
    json_t *obj = json_object(), *attr = json_object();

    json_object_set_new(obj, "IndexName", json_string(v->name));
    if (v->search_count) json_object_set_new(obj, "SearchSchema", search_schema_to_json(v));
    json_object_set_new(obj, "Projection", wire_table_projection_to_json(&v->projection));
    json_object_set_new(attr, "AttributeName", json_string(v->attribute));
    json_object_set_new(obj, "VectorAttribute", attr);
    json_object_set_new(obj, "Dimensions", json_integer(v->dimensions));
    json_object_set_new(obj, "DistanceFunction", json_string(distance_function_name(v->distance)));
    return obj;
}

json_t *wire_vector_descs_to_json(const struct table_desc *d)
{
    json_t *list = json_array();

    for (size_t i = 0; i < d->def.vector_count; i++) {
        const struct index_desc *desc = d->vector_descs ? &d->vector_descs[i] : NULL;
        json_t *obj = def_to_json(&d->def.vectors[i]);
        json_object_set_new(obj, "IndexStatus",
                            json_string(index_status_name(desc ? desc->status : INDEX_ACTIVE)));
        /* Only while an index added by UpdateTable is filled; absent at ACTIVE
         * (spec-24 2.6: "the member disappears, not false"). */
        if (desc && desc->show_backfilling && desc->backfilling)
            json_object_set_new(obj, "Backfilling", json_true());
        json_object_set_new(obj, "IndexSizeBytes", json_integer(desc ? desc->size_bytes : 0));
        json_object_set_new(obj, "ItemCount", json_integer(desc ? desc->item_count : 0));
        if (desc && desc->arn) json_object_set_new(obj, "IndexArn", json_string(desc->arn));
        json_array_append_new(list, obj);
    }
    return list;
}

json_t *wire_vector_defs_to_json(const struct table_def *def)
{
    json_t *list = json_array();
    for (size_t i = 0; i < def->vector_count; i++) {
        json_t *obj = def_to_json(&def->vectors[i]);
        json_array_append_new(list, obj);
    }
    return list;
}
