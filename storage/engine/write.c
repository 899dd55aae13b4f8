/*
 * write.c - single-item writes: check, then condition, then apply.
 *
 * Every write computes and checks everything it needs before its first
 * change (STYLE B5): the key and item against the schema, an update against
 * the table (key attributes untouched, index key types, no path inside a key
 * attribute), the condition against the current item, the update expression
 * into a new item, that new item's keys and size. Only then does
 * table_commit_write() change the table, and it cannot fail. So a failed
 * request changes nothing.
 *
 * An update of a missing item that leaves nothing but its key writes nothing
 * when it had actions (they only removed what the item does not have), and
 * the key-only item when it had none (build_updated_item).
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/model/item.h"
#include "storage/table/throttle.h"

#include <string.h>

/* UpdateItem may not touch the table's key attributes ("Cannot update
 * attribute pk. This attribute is part of the key" - dynalite's recorded AWS
 * responses, test/updateItem.js). */
static int check_update_spares_keys(const struct table *t, const struct expr *update,
                                    struct ddb_error *err)
{
    const struct key_schema *k = &t->def.key;
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};
    for (size_t i = 0; i < 1 + k->range_count; i++) {
        if (expr_update_touches(update, names[i], strlen(names[i])))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "One or more parameter values were invalid: Cannot update "
                                 "attribute %s. This attribute is part of the key",
                                 names[i]);
    }
    return 0;
}

/* The indexes' key attributes, GSIs then LSIs, each with its index: calls
 * visit until it fails. */
static int each_index_key(const struct table *t,
                          int (*visit)(const struct table *t, const struct index_def *idx,
                                       const char *name, const void *arg, struct ddb_error *err),
                          const void *arg, struct ddb_error *err)
{
    for (size_t g = 0; g < t->def.gsi_count + t->def.lsi_count; g++) {
        const struct index_def *idx =
            g < t->def.gsi_count ? &t->def.gsis[g] : &t->def.lsis[g - t->def.gsi_count];
        const struct key_schema *k = &idx->key;
        for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
            const char *name =
                i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
            if (visit(t, idx, name, arg, err) != 0) return -1;
        }
    }
    return 0;
}

static enum value_type declared_type(const struct table *t, const char *name)
{
    enum value_type type = VALUE_S;
    table_def_attr_type(&t->def, name, &type);
    return type;
}

/* An index key attribute that the update writes with a value whose type the
 * request alone decides must get its declared type ("One or more parameter
 * values were invalid: Type mismatch for Index Key c Expected: S Actual: N
 * IndexName: i" before the item is read - dynalite db/index.js
 * validateUpdates, test/updateItem.js "trying to update wrong type on index"). */
static int check_static_index_type(const struct table *t, const struct index_def *idx,
                                   const char *name, const void *arg, struct ddb_error *err)
{
    const struct expr *update = arg;
    enum value_type want = declared_type(t, name), got;

    if (!expr_update_static_type(update, name, strlen(name), &got) || got == want) return 0;
    return ddb_error_set(err, DDB_VALIDATION,
                         "One or more parameter values were invalid: Type mismatch for Index Key "
                         "%s Expected: %s Actual: %s IndexName: %s",
                         name, value_type_name(want), value_type_name(got), idx->name);
}

/* ...and when the type came from the item ("SET c = e", e a number), the new
 * value is refused after evaluation with this text (dynalite test/updateItem.js
 * "should return ValidationException if trying to update existing index"). */
static int check_index_type_after(const struct table *t, const struct index_def *idx,
                                  const char *name, const void *arg, struct ddb_error *err)
{
    const struct value *attrs = arg;
    const struct value *v = value_map_get(attrs, name, strlen(name));

    (void) idx;
    if (!v || v->type == declared_type(t, name)) return 0;
    return ddb_error_set(err, DDB_VALIDATION,
                         "The update expression attempted to update the secondary index key to "
                         "unsupported type");
}

/* What DynamoDB checks of an update against the table before it reads the
 * item, in its order (dynalite db/index.js validateUpdates). */
static int check_update(const struct table *t, const struct expr *update, struct ddb_error *err)
{
    if (check_update_spares_keys(t, update, err) != 0) return -1;
    if (each_index_key(t, check_static_index_type, update, err) != 0) return -1;
    return table_check_key_paths(t, update, err);
}

/*
 * Computes the item an UpdateItem leaves behind: *out is a new item, or NULL
 * when the item did not exist and the update's actions only removed what it
 * does not have ("REMOVE a" or a legacy DELETE on a missing item write nothing,
 * while an update with no actions at all creates the key-only item: scylla
 * test_item.py test_update_item_non_existent, test_returnvalues.py
 * test_update_item_returnvalues_all_new, run against AWS).
 */
static int build_updated_item(const struct table *t, const struct write_op *op,
                              const struct item *old, struct item **out, struct ddb_error *err)
{
    const struct value *after;
    struct item *item;

    *out = NULL;
    if (old && op->update) {
        /* The usual case: made from the old item's encoding, its tree not copied. */
        item = expr_update_item(op->update, old, err);
        if (!item) return -1;
    } else {
        struct value attrs;
        value_copy(&attrs, old ? item_attrs(old) : &op->key);
        if (op->update && expr_apply_update_ex(op->update, &attrs, old != NULL, err) != 0) {
            value_clear(&attrs);
            return -1;
        }
        if (op->update && !old && attrs.u.map.count == op->key.u.map.count) {
            value_clear(&attrs);
            return 0;
        }
        item = item_new(&attrs);
    }
    /* The checks read the new item's tree. (A key-only item has no index
     * key to mistype: the key's own types were checked before.) */
    after = item_attrs(item);
    if ((op->update && each_index_key(t, check_index_type_after, after, err) != 0) ||
        table_check_item(t, after, err) != 0 ||
        item_check_size(item->size_bytes, ITEM_SIZE_UPDATED, err) != 0) {
        item_unref(item);
        return -1;
    }
    *out = item;
    return 0;
}

/* An attribute the index stores (item_kept_attrs_differ's keep). */
static bool index_keeps(const void *idx, const struct attr *at)
{
    return index_projects(idx, at->name, at->name_len);
}

/* True when the attributes an index stores differ between two versions of an item. */
static bool projection_changed(const struct table_index *idx, const struct item *a,
                               const struct item *b)
{
    return item_kept_attrs_differ(a, b, index_keeps, idx);
}

/*
 * Index writes by AWS's rules (developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
 * and LSI.html#LSI.ThroughputConsiderations.Writes): an item that enters or
 * leaves an index costs one write of its projected size there; a write that
 * changes the index key costs two (delete the old entry, put the new one); a
 * write that keeps the key but changes projected attributes costs one; an
 * item in the index neither before nor after, or whose projected attributes
 * did not change, costs nothing. Each is rounded up to 1 KB on its own.
 */
static void charge_index_writes(struct table *t, const struct item *old,
                                const struct item *new_item, enum return_capacity mode,
                                double multiplier, struct consumed_capacity *c, int64_t now_ms,
                                bool throttle)
{
    for (size_t i = 0; i < t->index_count; i++) {
        const struct table_index *idx = &t->indexes[i];
        struct row_key ok, nk;
        bool had = old && index_item_key(idx, old, &ok);
        bool has = new_item && index_item_key(idx, new_item, &nk);
        /* What the old entry's and the new entry's partitions each take, for
         * the partition heat of the report; their sum is the index's charge. */
        double old_units = 0, new_units = 0;
        if (had && has && row_key_compare(&ok, &nk, KEY_BIAS_LOW) != 0) {
            old_units = capacity_write_units(index_projected_size(idx, old));
            new_units = capacity_write_units(index_projected_size(idx, new_item));
        } else if (had && has) {
            if (projection_changed(idx, old, new_item)) {
                size_t a = index_projected_size(idx, old), b = index_projected_size(idx, new_item);
                new_units = capacity_write_units(a > b ? a : b);
            }
        } else if (had) {
            old_units = capacity_write_units(index_projected_size(idx, old));
        } else if (has) {
            new_units = capacity_write_units(index_projected_size(idx, new_item));
        }
        if (old_units + new_units > 0) {
            struct insight_source *src =
                insight_source(t->insight, idx->def->name, idx->def->is_global);
            size_t parts = idx->def->key.hash_count;
            capacity_add_index(c, mode, idx->def->name, idx->def->is_global, 0,
                               (old_units + new_units) * multiplier);
            /* A GSI pays from its own capacity, an LSI from the table's. */
            if (throttle)
                throttle_charge(t, idx->def->is_global ? idx : NULL, 0,
                                (old_units + new_units) * multiplier, now_ms);
            if (old_units > 0)
                insight_index_write(t->insight, src, ok.hash, ok.parts, parts,
                                    old_units * multiplier, now_ms);
            if (new_units > 0)
                insight_index_write(t->insight, src, nk.hash, nk.parts, parts,
                                    new_units * multiplier, now_ms);
        }
    }
}

/*
 * Vector index writes (spec-24 2.5): each vector index whose entry the write
 * puts, changes or removes costs VectorWriteRequestBytes, reported under
 * ReturnConsumedCapacity INDEXES beside the units and never in them. A
 * transaction's writes cost the same bytes as single ones (its doubling is
 * of capacity units; AWS's rule for vector bytes is not published).
 */
static void charge_vector_writes(struct table *t, const struct item *old,
                                 const struct item *new_item, enum return_capacity mode,
                                 struct consumed_capacity *c)
{
    for (size_t i = 0; i < t->vector_count; i++) {
        const struct vector_index *vi = &t->vectors[i];
        double bytes = vector_index_write_bytes(vi, &t->def.key, old, new_item);
        if (bytes <= 0) continue;
        capacity_add_vector_write(c, mode, vi->def->name, bytes);
        insight_vector_write(t->insight, vi->def->name, bytes);
    }
}

int write_prepare(struct db *db, const struct db_scope *scope, const struct write_op *op,
                  struct key_numbers *nums, struct prepared_write *pw, struct ddb_error *err)
{
    assert_lock_held();
    memset(pw, 0, sizeof *pw);
    pw->op = op;
    pw->now_ms = db_now_ms(db);
    pw->throttle = db->aws_throughput;
    if (db_require_table(db, scope, op->table_name, &pw->t, err) != 0) return -1;
    assert_table_exclusive(&pw->t->lock);
    if (op->kind == WRITE_PUT) {
        if (table_check_item_stored(pw->t, op->put_item, err) != 0) return -1;
        table_item_key(pw->t, op->put_item, &pw->key);
    } else {
        if (table_check_key(pw->t, &op->key, err) != 0) return -1;
        if (op->kind == WRITE_UPDATE && op->update && check_update(pw->t, op->update, err) != 0)
            return -1;
        table_row_key(pw->t, &op->key, nums, &pw->key);
    }
    pw->old = table_find(pw->t, &pw->key);
    return 0;
}

int write_evaluate(struct prepared_write *pw, struct ddb_error *err)
{
    assert_table_exclusive(&pw->t->lock);
    const struct write_op *op = pw->op;

    pw->matched = true;
    if (op->condition && expr_eval_condition(op->condition, pw->old ? item_attrs(pw->old) : NULL,
                                             &pw->matched, err) != 0)
        return -1;
    if (!pw->matched) return 0;
    switch (op->kind) {
    case WRITE_PUT: pw->new_item = item_ref(op->put_item); break;
    case WRITE_UPDATE:
        if (build_updated_item(pw->t, op, pw->old, &pw->new_item, err) != 0) return -1;
        break;
    case WRITE_DELETE:
    case WRITE_CONDITION_CHECK: return 0;
    }
    /* On a table with an LSI the write may not grow its item collection past 10 GB. */
    return table_check_collection(pw->t, pw->old, pw->new_item, err);
}

int write_admit(const struct prepared_write *pw, struct ddb_error *err)
{
    assert_table_exclusive(&pw->t->lock);
    /* A transaction's ConditionCheck reads; transactions are admitted as a whole. */
    if (!pw->throttle || pw->op->kind == WRITE_CONDITION_CHECK) return 0;
    return throttle_admit_write(pw->t, &pw->key, pw->old, pw->new_item, pw->now_ms, err);
}

void write_apply(struct prepared_write *pw, enum return_capacity mode, double multiplier,
                 struct consumed_capacity *c)
{
    assert_table_exclusive(&pw->t->lock);
    const struct write_op *op = pw->op;
    size_t charged_bytes = pw->old ? pw->old->size_bytes : 0;
    bool writes = op->kind != WRITE_CONDITION_CHECK && (pw->old || pw->new_item);
    double rcu = 0, wcu = 0;

    if (pw->new_item && pw->new_item->size_bytes > charged_bytes)
        charged_bytes = pw->new_item->size_bytes;
    if (!c->table_name) capacity_begin(c, mode, pw->t->def.name);
    if (op->kind == WRITE_CONDITION_CHECK) {
        rcu = capacity_read_units(charged_bytes, true) * multiplier;
        capacity_add_table(c, rcu, 0);
    } else {
        wcu = capacity_write_units(charged_bytes) * multiplier;
        capacity_add_table(c, 0, wcu);
        charge_index_writes(pw->t, pw->old, pw->new_item, mode, multiplier, c, pw->now_ms,
                            pw->throttle);
        charge_vector_writes(pw->t, pw->old, pw->new_item, mode, c);
    }
    if (pw->throttle) throttle_charge(pw->t, NULL, rcu, wcu, pw->now_ms);
    /* The report counts the units just charged, on the item's partition. */
    insight_write_item(pw->t->insight, pw->key.hash, pw->key.parts, pw->key.part_count,
                       pw->new_item ? pw->new_item->size_bytes : 0, writes, rcu, wcu, pw->now_ms);
    if (writes) {
        struct commit_info info = {.now_ms = pw->now_ms, .origin = STREAM_ORIGIN_USER};
        table_commit_write(pw->t, &pw->key, pw->new_item, &info);
        pw->new_item = NULL; /* the table took the reference */
    }
    prepared_write_clear(pw);
}

void prepared_write_clear(struct prepared_write *pw)
{
    item_unref(pw->new_item);
    memset(pw, 0, sizeof *pw);
}

/* ItemCollectionMetrics for the collection of the item (or key map) attrs, as
 * AWS reports it for tables with an LSI (API_PutItem.html, ItemCollectionMetrics:
 * "SizeEstimateRangeGB - An estimate of item collection size, in gigabytes ... a
 * two-element array containing a lower bound and an upper bound"). The emulator
 * knows the size exactly and reports the 1 GB range that contains it, [0, 1] for
 * every collection under 1 GB, as DynamoDB answers for small collections. */
static void collection_metrics(const struct table *t, const struct value *attrs,
                               struct item_collection_metrics *out)
{
    const char *hash_name = t->def.key.hash_names[0];
    struct value pk;
    double gb;

    memset(out, 0, sizeof *out);
    value_init_null(&out->key);
    if (!t->def.lsi_count) return;
    out->present = true;
    value_init_map(&out->key);
    value_copy(&pk, value_map_get(attrs, hash_name, strlen(hash_name)));
    value_map_set(&out->key, hash_name, strlen(hash_name), &pk);
    gb = (double) (table_collection_size(t, attrs) / (1024LL * 1024 * 1024));
    out->size_estimate_gb[0] = gb;
    out->size_estimate_gb[1] = gb + 1;
}

/* The report's name of each single-item write. */
static const enum insight_op write_op_insight[] = {
    [WRITE_PUT] = INSIGHT_PUT_ITEM,
    [WRITE_UPDATE] = INSIGHT_UPDATE_ITEM,
    [WRITE_DELETE] = INSIGHT_DELETE_ITEM,
    [WRITE_CONDITION_CHECK] = INSIGHT_PUT_ITEM, /* never a single-item request */
};

int db_write_item(struct db *db, const struct db_scope *scope, const struct write_op *op,
                  enum return_capacity return_capacity, struct write_result *res,
                  struct ddb_error *err)
{
    struct prepared_write pw;
    struct key_numbers nums;
    struct table *t;
    int rc = -1;

    memset(res, 0, sizeof *res);
    value_init_null(&res->collection_metrics.key);
    memset(&pw, 0, sizeof pw);
    if (op->kind == WRITE_PUT &&
        item_check_size(op->put_item->size_bytes, ITEM_SIZE_GIVEN, err) != 0)
        return -1;

    db_lock_table(db, scope, op->table_name, LOCK_HOLD_EXCLUSIVE);
    if (write_prepare(db, scope, op, &nums, &pw, err) != 0) goto out;
    insight_count_request(pw.t->insight, write_op_insight[op->kind]);
    /* --consistency aws: a transaction holding the item makes the write fail
     * (consistency.c), before its condition is evaluated. */
    if (db->consistency_any && consistency_in(db, scope) &&
        consistency_check_write(db, scope, pw.t, &pw.key, pw.now_ms, err) != 0)
        goto out;
    if (write_evaluate(&pw, err) != 0) goto out;
    if (write_admit(&pw, err) != 0) goto out;
    if (!pw.matched) {
        if (op->fails_as_duplicate) {
            /* PartiQL INSERT of an existing key (DynamoDB Local's DUPLICATE_ITEM_IN_TABLE). */
            ddb_error_set(err, DDB_DUPLICATE_ITEM, "Duplicate primary key exists in table");
            goto out;
        }
        pw.t->insight->conditional_check_failed++;
        ddb_error_set(err, DDB_CONDITIONAL_CHECK_FAILED, "The conditional request failed");
        if (op->return_old_on_condition_failure) res->failure.item = item_ref(pw.old);
        goto out;
    }
    res->old_item = item_ref(pw.old);
    res->new_item = item_ref(pw.new_item);
    t = pw.t;
    write_apply(&pw, return_capacity, 1.0, &res->capacity);
    /* The item is decoded only for a table with LSIs: the metrics are theirs. */
    collection_metrics(
        t, t->def.lsi_count && op->kind == WRITE_PUT ? item_attrs(op->put_item) : &op->key,
        &res->collection_metrics);
    rc = 0;
out:
    db_unlock(db);
    prepared_write_clear(&pw);
    return rc;
}

int db_item_collection_metrics(struct db *db, const struct db_scope *scope, const char *table_name,
                               const struct value *attrs, struct item_collection_metrics *out,
                               struct ddb_error *err)
{
    struct table *t;
    int rc = -1;

    memset(out, 0, sizeof *out);
    value_init_null(&out->key);
    db_lock_table(db, scope, table_name, LOCK_HOLD_SHARED);
    if (db_require_table(db, scope, table_name, &t, err) != 0) goto out;
    if (!value_map_get(attrs, t->def.key.hash_names[0], strlen(t->def.key.hash_names[0]))) {
        rc = 0;
        goto out;
    }
    collection_metrics(t, attrs, out);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
