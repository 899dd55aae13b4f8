/*
 * op_batch.c - BatchGetItem and BatchWriteItem.
 *
 * BatchGetItem: every table entry is checked (expression/legacy mixing, each
 * key's values, duplicate keys, the 100-key total, AttributesToGet duplicates,
 * names and ProjectionExpression - dynalite validations/batchGetItem.js, in
 * that order, per table in request order), then every key is read with one
 * db_batch_get (a missing table or a key that does not fit answers for the
 * whole request, as AWS validates all before returning anything; reads
 * change nothing, so reading first is invisible). The answer keeps items in
 * request order per table up to the 16 MB response limit; the keys that do
 * not fit go to UnprocessedKeys with their table's other parameters, and only
 * the items returned are charged, at the units storage gives for each key.
 *
 * BatchWriteItem: the request-level checks (the per-table list length and the
 * 25-request total, each request's values and item size), then one
 * db_batch_write, which validates every request against its table before
 * writing any (storage/batch.c). UnprocessedItems is {} unless
 * --throughput-model aws throttled some writes: those requests come back
 * there as the request gave them, by table (and BatchGetItem's throttled
 * keys join UnprocessedKeys).
 *
 * RequestItems' map keys (table names) and, for BatchWriteItem, map values
 * (1..25 requests) have "Map keys/value must satisfy constraint" rules that
 * the generic shape checker (shape.c) does not express; they are checked
 * here first, with the same sentence form (see docs/differences.md on how
 * they combine with other violations).
 */
#include "api/ops/expr_params.h"
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/batch.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/expr/expr_legacy.h"
#include "storage/model/item.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

static const char *const return_metrics_choices[] = {"SIZE", "NONE", NULL};

static const struct field attribute_map = {.type = F_ATTRIBUTE_MAP, .key = &shape_attribute_name};

static const struct field keys_and_attributes_fields[] = {
    {"Keys", F_LIST, .required = true, .min_len = 1, .max_len = DDB_MAX_BATCH_GET_KEYS,
     .member = &attribute_map, .unmodelled = true},
    {"AttributesToGet", F_LIST, .min_len = 1, .member = &shape_attribute_name},
    {"ConsistentRead", F_BOOLEAN},
    {"ProjectionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {0},
};
static const struct field keys_and_attributes = {
    .type = F_STRUCT, .shape_name = "KeysAndAttributes", .children = keys_and_attributes_fields};

/* RequestItems' keys are table names or table ARNs (.table_ref: an ARN is
 * resolved to its name after the model checks, and only a name is held to
 * this rule): "Map keys must satisfy constraint:
 * [Member must have length less than or equal to 255, Member must have length
 * greater than or equal to 1, Member must satisfy regular expression pattern:
 * [a-zA-Z0-9_.-]+]" (dynalite test/batchGetItem.js, batchWriteItem.js). */
static const struct field request_items_key = {.type = F_STRING,
                                               .min_len = 1,
                                               .max_len = DDB_MAX_TABLE_NAME_LEN,
                                               .pattern = SHAPE_TABLE_NAME_PATTERN};

/* BatchGetItem request shape: every member of the model's input. */
const struct field batch_get_item_fields[] = {
    {"RequestItems", F_MAP, .required = true, .member = &keys_and_attributes,
     .key = &request_items_key, .table_ref = true},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {0},
};

static const struct field put_request_fields[] = {
    {"Item", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {0},
};
static const struct field delete_request_fields[] = {
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {0},
};
static const struct field write_request_fields[] = {
    {"PutRequest", F_STRUCT, .shape_name = "PutRequest", .children = put_request_fields},
    {"DeleteRequest", F_STRUCT, .shape_name = "DeleteRequest", .children = delete_request_fields},
    {0},
};
static const struct field write_request = {
    .type = F_STRUCT, .shape_name = "WriteRequest", .children = write_request_fields};
/* 1 to 25 requests per table: "Map value must satisfy constraint: [Member must
 * have length less than or equal to 25, Member must have length greater than
 * or equal to 1]" (recorded in us-east-1 in 2026, nubo-db/dynamodb-conformance
 * c_bw_over25). */
static const struct field write_request_list = {
    .type = F_LIST, .min_len = 1, .max_len = DDB_MAX_BATCH_WRITE_ITEMS, .member = &write_request};

/* BatchWriteItem request shape: every member of the model's input. */
const struct field batch_write_item_fields[] = {
    {"RequestItems", F_MAP, .required = true, .member = &write_request_list,
     .key = &request_items_key, .table_ref = true},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ReturnItemCollectionMetrics", F_STRING, .choices = return_metrics_choices},
    {0},
};

/* ------------------------------------------------------------------------ */
/* shared                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * An empty RequestItems is not a model violation but the operation's own
 * "The requestItems parameter is required for BatchGetItem" (recorded in
 * us-east-1 and most regions in 2026: nubo-db/dynamodb-conformance,
 * captures/2026-08-12-batch-empty-and-nesting.json for BatchGetItem, the
 * baseline of scripts/lib/drift.test.mjs for BatchWriteItem; dynalite's older
 * recordings had the model's "Member must have length greater than or equal
 * to 1"). The map's other rules (table names as keys, 1 to 25 requests per
 * table) are model constraints, which shape.c reports with the others.
 */
static int check_request_items_present(const char *operation, const json_t *items,
                                       struct ddb_error *err)
{
    if (json_object_size(items) == 0)
        return ddb_error_set(err, DDB_VALIDATION, "The requestItems parameter is required for %s",
                             operation);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* BatchGetItem                                                              */
/* ------------------------------------------------------------------------ */

/* One table entry of a BatchGetItem, decoded. */
struct get_table {
    const char *name;   /* borrowed from the body */
    const json_t *json; /* the KeysAndAttributes object, borrowed */
    struct value *keys; /* owned, VALUE_M each */
    size_t key_count;
    bool consistent_read;
    struct expr_params params;
    struct expr *projection; /* owned; NULL for whole items */
    struct item **items;     /* owned references, parallel to keys; NULL when absent */
    double *read_units;      /* parallel to keys: what storage charges for each */
    bool *unprocessed;       /* parallel to keys: throttled, not read */
    struct consumed_capacity capacity;
};

static void get_table_clear(struct get_table *t)
{
    for (size_t i = 0; i < t->key_count; i++) {
        value_clear(&t->keys[i]);
        if (t->items) item_unref(t->items[i]);
    }
    free(t->keys);
    free(t->items);
    free(t->read_units);
    free(t->unprocessed);
    expr_free(t->projection);
    expr_params_clear(&t->params);
    consumed_capacity_clear(&t->capacity);
}

/* 64-bit FNV-1a over len bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/*
 * A fingerprint of a key map for the duplicate check: maps that value_equal
 * calls equal have equal fingerprints (attributes are summed, so their order
 * does not matter; S, N and B by their bytes - numbers are canonical text -,
 * BOOL by its value, any other type by its type alone). Keys whose
 * fingerprints differ are not compared at all, which makes the check of 100
 * keys ~100 hashes and ~5,000 integer comparisons instead of ~5,000 map
 * comparisons (bench/README.md "Request path at 1,000,000 items").
 */
static uint64_t key_fingerprint(const struct value *key)
{
    uint64_t sum = key->type;
    if (key->type != VALUE_M) return sum;
    for (size_t i = 0; i < key->u.map.count; i++) {
        const struct attr *a = &key->u.map.attrs[i];
        uint64_t h = fnv1a(0xcbf29ce484222325ull, a->name, a->name_len);
        unsigned char type = (unsigned char) a->value.type;
        h = fnv1a(h, &type, 1);
        switch (a->value.type) {
        case VALUE_S:
        case VALUE_N:
        case VALUE_B: h = fnv1a(h, a->value.u.str.data, a->value.u.str.len); break;
        case VALUE_BOOL: h = fnv1a(h, &a->value.u.boolean, sizeof a->value.u.boolean); break;
        default: break;
        }
        sum += h ^ (h >> 29);
    }
    return sum;
}

/* One table entry's checks (see the file comment); *total counts keys over all tables. */
static int decode_get_table(struct get_table *t, size_t *total, struct ddb_error *err)
{
    static const char *const exprs[] = {"ProjectionExpression", NULL};
    static const char *const legacy[] = {"AttributesToGet", NULL};
    json_t *keys = body_member(t->json, "Keys"), *atg = body_member(t->json, "AttributesToGet");
    size_t n = json_array_size(keys);
    uint64_t *prints;

    if (expr_params_check_mix(t->json, exprs, legacy, err) != 0) return -1;
    t->keys = xcalloc(n ? n : 1, sizeof *t->keys);
    prints = xmalloc((n ? n : 1) * sizeof *prints);
    for (size_t i = 0; i < n; i++) {
        if (wire_value_map_from_json(json_array_get(keys, i), &t->keys[i], err) != 0) {
            free(prints);
            return -1;
        }
        t->key_count++;
        prints[i] = key_fingerprint(&t->keys[i]);
        for (size_t j = 0; j < i; j++) {
            if (prints[j] == prints[i] && value_equal(&t->keys[i], &t->keys[j])) {
                free(prints);
                return ddb_error_set(err, DDB_VALIDATION,
                                     "Provided list of item keys contains duplicates");
            }
        }
        if (++*total > DDB_MAX_BATCH_GET_KEYS) {
            free(prints);
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Too many items requested for the BatchGetItem call");
        }
    }
    free(prints);
    if (expr_params_attributes_to_get(atg, &t->projection, err) != 0) return -1;
    if (expr_params_decode(t->json, &t->params, err) != 0) return -1;
    if (!t->projection && expr_params_parse(&t->params, t->json, "ProjectionExpression",
                                            EXPR_PROJECTION, &t->projection, err) != 0)
        return -1;
    if (expr_params_check_unused(&t->params, err) != 0) return -1;
    t->consistent_read = json_is_true(body_member(t->json, "ConsistentRead"));
    return 0;
}

/* Reads every key of every table with one storage call; the first key that
 * fails answers for the request. */
static int read_get_tables(struct api_request *rq, struct get_table *tables, size_t count)
{
    struct batch_get_table *bts = xcalloc(count ? count : 1, sizeof *bts);
    int rc;

    for (size_t i = 0; i < count; i++) {
        struct get_table *t = &tables[i];
        size_t n = t->key_count ? t->key_count : 1;
        t->items = xcalloc(n, sizeof *t->items);
        t->read_units = xcalloc(n, sizeof *t->read_units);
        t->unprocessed = xcalloc(n, sizeof *t->unprocessed);
        bts[i] = (struct batch_get_table){.table_name = t->name,
                                          .keys = t->keys,
                                          .key_count = t->key_count,
                                          .consistent_read = t->consistent_read,
                                          .items = t->items,
                                          .read_units = t->read_units,
                                          .unprocessed = t->unprocessed};
    }
    rc = db_batch_get(rq->db, &rq->scope, bts, count, &rq->err);
    free(bts);
    return rc;
}

/* An item as the table entry asked for it (projected), as a new reference. */
static struct item *shaped_item(const struct get_table *t, struct item *item)
{
    if (!t->projection) return item_ref(item);
    return expr_project_item(t->projection, item);
}

/* Records the read of key i, answered, in the table's ConsumedCapacity. */
static void charge_get(struct get_table *t, size_t i)
{
    double units = t->read_units[i];
    if (!t->capacity.table_name) t->capacity.table_name = xstrdup(t->name);
    t->capacity.read_units += units;
    t->capacity.table_read_units += units;
}

/* Whether t has keys left for UnprocessedKeys: from `from` on, or throttled. */
static bool has_unprocessed(const struct get_table *t, size_t from)
{
    for (size_t i = 0; i < t->key_count; i++) {
        if (i >= from || t->unprocessed[i]) return true;
    }
    return false;
}

/* Writes t's UnprocessedKeys entry: the keys from `from` on and those
 * throttled, and the table entry's other parameters as the request gave them. */
static void write_unprocessed_entry(struct json_out *w, const struct get_table *t, size_t from)
{
    static const char *const copied[] = {"AttributesToGet", "ConsistentRead",
                                         "ProjectionExpression", "ExpressionAttributeNames", NULL};

    json_out_key(w, t->name);
    json_out_object_begin(w);
    json_out_key(w, "Keys");
    json_out_array_begin(w);
    for (size_t i = 0; i < t->key_count; i++) {
        if (i >= from || t->unprocessed[i]) wire_value_write_map(w, &t->keys[i]);
    }
    json_out_array_end(w);
    for (const char *const *p = copied; *p; p++) {
        json_t *v = body_member(t->json, *p);
        if (!v) continue;
        json_out_key(w, *p);
        json_out_json(w, v);
    }
    json_out_object_end(w);
}

/*
 * Writes the answer: Responses up to the 16 MB limit, UnprocessedKeys for the
 * rest (from the key that did not fit, and every later table whole; every
 * table still gets its, possibly empty, Responses list), ConsumedCapacity.
 * Charges each table for the keys answered.
 */
static void write_batch_get(struct json_out *w, struct get_table *tables, size_t count,
                            enum return_capacity capacity)
{
    size_t total_bytes = 0, full_table = count, full_key = 0;

    json_out_object_begin(w);
    json_out_key(w, "Responses");
    json_out_object_begin(w);
    for (size_t ti = 0; ti < count; ti++) {
        struct get_table *t = &tables[ti];
        json_out_key(w, t->name);
        json_out_array_begin(w);
        for (size_t i = 0; i < t->key_count && full_table == count; i++) {
            struct item *item;
            if (t->unprocessed[i]) continue;
            item = t->items[i] ? shaped_item(t, t->items[i]) : NULL;
            if (item && total_bytes + item->size_bytes > DDB_MAX_BATCH_GET_RESPONSE_BYTES) {
                full_table = ti;
                full_key = i;
                item_unref(item);
                break;
            }
            charge_get(t, i);
            if (item) {
                total_bytes += item->size_bytes;
                wire_write_stored_item(w, item);
                item_unref(item);
            }
        }
        json_out_array_end(w);
    }
    json_out_object_end(w);
    json_out_key(w, "UnprocessedKeys");
    json_out_object_begin(w);
    for (size_t ti = 0; ti < count; ti++) {
        size_t from = ti < full_table ? tables[ti].key_count : ti == full_table ? full_key : 0;
        if (has_unprocessed(&tables[ti], from)) write_unprocessed_entry(w, &tables[ti], from);
    }
    json_out_object_end(w);
    if (capacity != RETURN_CAPACITY_NONE) {
        json_out_key(w, "ConsumedCapacity");
        json_out_array_begin(w);
        for (size_t ti = 0; ti < count; ti++) {
            if (wire_table_has_capacity(&tables[ti].capacity, capacity))
                wire_table_write_capacity(w, &tables[ti].capacity, capacity);
        }
        json_out_array_end(w);
    }
    json_out_object_end(w);
}

/* BatchGetItem: the checks of the file comment, the reads, the answer. */
int op_batch_get_item(struct api_request *rq)
{
    json_t *items = body_member(rq->body, "RequestItems");
    size_t count = json_object_size(items), n = 0, total_keys = 0;
    struct get_table *tables = xcalloc(count ? count : 1, sizeof *tables);
    const char *name;
    json_t *entry;
    int rc = -1;

    if (check_request_items_present("BatchGetItem", items, &rq->err) != 0) goto out;
    json_object_foreach(items, name, entry)
    {
        struct get_table *t = &tables[n++];
        t->name = name;
        t->json = entry;
        expr_params_init(&t->params);
        if (decode_get_table(t, &total_keys, &rq->err) != 0) goto out;
    }
    if (read_get_tables(rq, tables, n) != 0) goto out;
    write_batch_get(&rq->reply_body, tables, n, body_return_capacity(rq->body));
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        get_table_clear(&tables[i]);
    free(tables);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* BatchWriteItem                                                            */
/* ------------------------------------------------------------------------ */

/* Decodes one WriteRequest into op (values owned by op: put_item / key). */
static int decode_write_request(const char *table, const json_t *req, struct write_op *op,
                                struct ddb_error *err)
{
    json_t *put = body_member(req, "PutRequest"), *del = body_member(req, "DeleteRequest");
    struct value attrs;

    op->table_name = table;
    value_init_null(&op->key);
    /* Neither or both: the union has not exactly one member (dynalite
     * test/batchWriteItem.js "empty item in RequestItems"). */
    if ((put != NULL) == (del != NULL))
        return ddb_error_set(err, DDB_VALIDATION,
                             "Supplied AttributeValue has more than one datatypes set, must "
                             "contain exactly one of the supported datatypes");
    if (put) {
        op->kind = WRITE_PUT;
        if (wire_item_from_json(body_member(put, "Item"), &attrs, err) != 0) return -1;
        op->put_item = item_new(&attrs);
        return item_check_size(op->put_item->size_bytes, ITEM_SIZE_GIVEN, err);
    }
    op->kind = WRITE_DELETE;
    return wire_value_map_from_json(body_member(del, "Key"), &op->key, err);
}

/* Writes "ItemCollectionMetrics": {table: [metrics, ...], ...}, tables in
 * the order they first appear in res. */
static void write_batch_collection_metrics(struct json_out *w, const struct batch_write_result *res)
{
    json_out_key(w, "ItemCollectionMetrics");
    json_out_object_begin(w);
    for (size_t i = 0; i < res->collection_count; i++) {
        const char *table = res->collections[i].table_name;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(res->collections[j].table_name, table) == 0;
        if (seen) continue;
        json_out_key(w, table);
        json_out_array_begin(w);
        for (size_t j = i; j < res->collection_count; j++) {
            if (strcmp(res->collections[j].table_name, table) == 0)
                wire_table_write_collection_metrics(w, &res->collections[j].metrics);
        }
        json_out_array_end(w);
    }
    json_out_object_end(w);
}

/* Writes UnprocessedItems: the throttled requests (res->unprocessed, one
 * flag per request in the order of items) as the request gave them, by table. */
static void write_unprocessed_items(struct json_out *w, json_t *items,
                                    const struct batch_write_result *res)
{
    const char *name;
    json_t *list;
    size_t n = 0;

    json_out_key(w, "UnprocessedItems");
    json_out_object_begin(w);
    json_object_foreach(items, name, list)
    {
        size_t i, first = n, count = json_array_size(list);
        bool any = false;
        json_t *req;
        for (i = 0; i < count && res->unprocessed; i++)
            any = any || res->unprocessed[first + i];
        n += count;
        if (!any) continue;
        json_out_key(w, name);
        json_out_array_begin(w);
        json_array_foreach(list, i, req)
        {
            if (res->unprocessed[first + i]) json_out_json(w, req);
        }
        json_out_array_end(w);
    }
    json_out_object_end(w);
}

/* Writes {"UnprocessedItems": {...}, "ConsumedCapacity": [...], "ItemCollectionMetrics": {...}}. */
static void write_batch_write(struct json_out *w, json_t *items,
                              const struct batch_write_result *res, enum return_capacity capacity)
{
    json_out_object_begin(w);
    write_unprocessed_items(w, items, res);
    if (capacity != RETURN_CAPACITY_NONE) {
        json_out_key(w, "ConsumedCapacity");
        json_out_array_begin(w);
        for (size_t i = 0; i < res->capacity_count; i++) {
            if (wire_table_has_capacity(&res->capacities[i], capacity))
                wire_table_write_capacity(w, &res->capacities[i], capacity);
        }
        json_out_array_end(w);
    }
    if (res->collection_count) write_batch_collection_metrics(w, res);
    json_out_object_end(w);
}

/* BatchWriteItem: request-level checks, one db_batch_write, the answer. */
int op_batch_write_item(struct api_request *rq)
{
    json_t *items = body_member(rq->body, "RequestItems"), *list;
    enum return_capacity capacity = body_return_capacity(rq->body);
    struct batch_write_result res;
    struct write_op *ops = NULL;
    size_t total = 0, n = 0;
    const char *name;
    int rc = -1;

    memset(&res, 0, sizeof res);
    if (check_request_items_present("BatchWriteItem", items, &rq->err) != 0) goto out;
    json_object_foreach(items, name, list) total += json_array_size(list);
    /* Over all tables (the per-table list is capped at 25 above). */
    if (total > DDB_MAX_BATCH_WRITE_ITEMS) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "Too many items requested for the BatchWriteItem call");
        goto out;
    }
    ops = xcalloc(total ? total : 1, sizeof *ops);
    json_object_foreach(items, name, list)
    {
        size_t i;
        json_t *req;
        json_array_foreach(list, i, req)
        {
            if (decode_write_request(name, req, &ops[n++], &rq->err) != 0) goto out;
        }
    }
    if (db_batch_write(rq->db, &rq->scope, ops, n, capacity,
                       body_member_is(rq->body, "ReturnItemCollectionMetrics", "SIZE"), &res,
                       &rq->err) != 0)
        goto out;
    write_batch_write(&rq->reply_body, items, &res, capacity);
    rc = 0;
out:
    for (size_t i = 0; i < n; i++) {
        item_unref(ops[i].put_item);
        value_clear(&ops[i].key);
    }
    free(ops);
    batch_write_result_clear(&res);
    return rc;
}
