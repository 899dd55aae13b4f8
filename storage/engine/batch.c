/*
 * batch.c - BatchGetItem's reads, and BatchWriteItem: validate the whole
 * batch, then write each item.
 *
 * DynamoDB refuses a batch with a missing table, a key that does not fit its
 * table, an oversized item or two requests on one item before it writes
 * anything (dynalite actions/batchWriteItem.js and test/batchWriteItem.js,
 * recorded against AWS: the table check, then each request's key, then the
 * duplicate check, table by table). So every op is prepared under its
 * tables' locks, exclusively, first (write.c's write_prepare; db_lock_tables
 * takes them all at once, in the one lock order), and only when all are fine
 * does each go through write_apply -> table_commit_write, the single write
 * path. Unlike a transaction the writes are independent: there are no
 * conditions, and capacity is a standard write per item.
 *
 * Under --throughput-model aws each write is admitted in turn, after the
 * writes before it have paid (table/throttle.h): a refused one is left
 * for UnprocessedItems and the others still go through; when every one is
 * refused the batch answers the refusal instead ("If none of the items can
 * be processed due to insufficient provisioned throughput on all of the
 * tables in the request, then BatchWriteItem returns a
 * ProvisionedThroughputExceededException" - API_BatchWriteItem.html).
 * BatchGetItem does the same for its keys with UnprocessedKeys.
 *
 * The caller holds no lock; db_batch_get and db_batch_write take them.
 */
#include "storage/engine/batch.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/model/item.h"
#include "storage/table/throttle.h"

#include <stdlib.h>
#include <string.h>

#define KEY_MISMATCH "The provided key element does not match the schema"

/* Frees everything *r owns; r becomes empty. */
void batch_write_result_clear(struct batch_write_result *r)
{
    for (size_t i = 0; i < r->capacity_count; i++)
        consumed_capacity_clear(&r->capacities[i]);
    free(r->capacities);
    for (size_t i = 0; i < r->collection_count; i++) {
        free(r->collections[i].table_name);
        value_clear(&r->collections[i].metrics.key);
    }
    free(r->collections);
    free(r->unprocessed);
    memset(r, 0, sizeof *r);
}

/* A Put's item must carry the table's key attributes with their declared
 * types; BatchWriteItem reports a failure with the key text rather than
 * PutItem's "Missing the key"/"Type mismatch" ones (dynalite
 * actions/batchWriteItem.js rewrites them so, as AWS answers). */
static int check_put_key(const struct table *t, const struct item *item, struct ddb_error *err)
{
    const struct key_schema *k = &t->def.key;
    for (size_t i = 0; i < 1 + k->range_count; i++) {
        const char *name = i == 0 ? k->hash_names[0] : k->range_names[0];
        struct key_part part; /* read in place: nothing decoded */
        enum value_type type = VALUE_S;
        table_def_attr_type(&t->def, name, &type);
        if (!item_key_part(item, name, strlen(name), &part) || part.type != type)
            return ddb_error_set(err, DDB_VALIDATION, KEY_MISMATCH);
    }
    return 0;
}

static bool same_item(const struct prepared_write *a, const struct prepared_write *b)
{
    return a->t == b->t && row_key_compare(&a->key, &b->key, KEY_BIAS_LOW) == 0;
}

/* The capacity entry for table t, created on first use (request order). */
static struct consumed_capacity *capacity_for(struct batch_write_result *out, const struct table *t,
                                              enum return_capacity mode,
                                              struct consumed_capacity *scratch)
{
    if (mode == RETURN_CAPACITY_NONE) {
        memset(scratch, 0, sizeof *scratch);
        return scratch;
    }
    for (size_t i = 0; i < out->capacity_count; i++) {
        if (strcmp(out->capacities[i].table_name, t->def.name) == 0) return &out->capacities[i];
    }
    out->capacities =
        xrealloc(out->capacities, sizeof *out->capacities * (out->capacity_count + 1));
    capacity_begin(&out->capacities[out->capacity_count], mode, t->def.name);
    return &out->capacities[out->capacity_count++];
}

/*
 * ItemCollectionMetrics of the collection op wrote to (tables with an LSI), once
 * per collection, as write.c reports them for single writes: the size known
 * exactly, given as the 1 GB range that contains it. Caller holds the lock.
 */
static void add_collection(struct batch_write_result *out, const struct table *t,
                           const struct write_op *op)
{
    assert_lock_held();
    const char *pk_name = t->def.key.hash_names[0];
    const struct value *attrs, *pk;
    struct batch_collection *c;
    struct value copy;
    double gb;

    if (t->def.lsi_count == 0) return; /* before the item is decoded */
    attrs = op->kind == WRITE_PUT ? item_attrs(op->put_item) : &op->key;
    pk = value_map_get(attrs, pk_name, strlen(pk_name));
    if (!pk) return;
    for (size_t i = 0; i < out->collection_count; i++) {
        const struct value *seen =
            value_map_get(&out->collections[i].metrics.key, pk_name, strlen(pk_name));
        if (strcmp(out->collections[i].table_name, t->def.name) == 0 && seen &&
            value_equal(seen, pk))
            return;
    }
    out->collections =
        xrealloc(out->collections, sizeof *out->collections * (out->collection_count + 1));
    c = &out->collections[out->collection_count++];
    memset(c, 0, sizeof *c);
    c->table_name = xstrdup(t->def.name);
    c->metrics.present = true;
    value_init_map(&c->metrics.key);
    value_copy(&copy, pk);
    value_map_set(&c->metrics.key, pk_name, strlen(pk_name), &copy);
    gb = (double) (table_collection_size(t, attrs) / (1024LL * 1024 * 1024));
    c->metrics.size_estimate_gb[0] = gb;
    c->metrics.size_estimate_gb[1] = gb + 1;
}

/* Counts one BatchWriteItem on each table of the batch (tables[i]: the table
 * of entry i), with the number of its entries as the batch's size there.
 * The caller holds the tables' locks exclusively (db_lock_tables). */
static void count_batch_write(const struct table *const *tables, size_t n)
{
    assert_table_writing();
    for (size_t i = 0; i < n; i++) {
        struct insight_table *ins = tables[i]->insight;
        uint64_t items = 0;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = tables[j] == tables[i];
        if (seen) continue;
        for (size_t j = i; j < n; j++)
            items += tables[j] == tables[i];
        insight_count_request(ins, INSIGHT_BATCH_WRITE_ITEM);
        insight_count_sizes(&ins->batch_write, items);
    }
}

/* See batch.h: takes the lock exclusively; on -1 nothing was written and *out is empty. */
int db_batch_write(struct db *db, const struct db_scope *scope, const struct write_op *ops,
                   size_t op_count, enum return_capacity return_capacity, bool want_metrics,
                   struct batch_write_result *out, struct ddb_error *err)
{
    struct prepared_write *pws;
    struct key_numbers *nums; /* pws[i].key's numbers */
    const struct table **tables;
    const char **names;
    struct ddb_error refused = {0};
    size_t refused_count = 0;
    int rc = -1;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < op_count; i++) {
        if (ops[i].kind == WRITE_PUT &&
            item_check_size(ops[i].put_item->size_bytes, ITEM_SIZE_GIVEN, err) != 0)
            return -1;
    }
    pws = xcalloc(op_count ? op_count : 1, sizeof *pws);
    nums = xmalloc(sizeof *nums * (op_count ? op_count : 1));
    tables = xcalloc(op_count ? op_count : 1, sizeof *tables);
    names = xcalloc(op_count ? op_count : 1, sizeof *names);
    for (size_t i = 0; i < op_count; i++)
        names[i] = ops[i].table_name;
    db_lock_tables(db, scope, names, op_count, LOCK_HOLD_EXCLUSIVE);
    free(names);
    for (size_t i = 0; i < op_count; i++) {
        struct table *t;
        if (db_require_table(db, scope, ops[i].table_name, &t, err) != 0) goto out;
        if (ops[i].kind == WRITE_PUT && check_put_key(t, ops[i].put_item, err) != 0) goto out;
        if (write_prepare(db, scope, &ops[i], &nums[i], &pws[i], err) != 0) goto out;
        for (size_t j = 0; j < i; j++) {
            if (same_item(&pws[i], &pws[j])) {
                ddb_error_set(err, DDB_VALIDATION,
                              "Provided list of item keys contains duplicates");
                goto out;
            }
        }
    }
    for (size_t i = 0; i < op_count; i++) {
        /* No conditions: evaluation only builds the new item, and cannot fail. */
        if (write_evaluate(&pws[i], err) != 0) goto out;
    }
    if (db->aws_throughput) out->unprocessed = xcalloc(op_count ? op_count : 1, sizeof(bool));
    for (size_t i = 0; i < op_count; i++) {
        struct consumed_capacity scratch;
        struct consumed_capacity *c;
        tables[i] = pws[i].t; /* write_apply clears pws[i] */
        if (out->unprocessed) {
            struct ddb_error e = {0};
            if (write_admit(&pws[i], &e) != 0) {
                out->unprocessed[i] = true;
                if (refused_count++ == 0) ddb_error_move(&refused, &e);
                ddb_error_clear(&e);
                prepared_write_clear(&pws[i]);
                continue;
            }
        }
        c = capacity_for(out, pws[i].t, return_capacity, &scratch);
        write_apply(&pws[i], return_capacity, 1.0, c);
        if (c == &scratch) consumed_capacity_clear(&scratch);
    }
    if (op_count && refused_count == op_count) {
        /* Nothing written: the batch is refused as a whole. */
        ddb_error_move(err, &refused);
        goto out;
    }
    if (want_metrics) {
        for (size_t i = 0; i < op_count; i++) {
            if (!out->unprocessed || !out->unprocessed[i]) add_collection(out, tables[i], &ops[i]);
        }
    }
    count_batch_write(tables, op_count);
    rc = 0;
out:
    db_unlock(db);
    ddb_error_clear(&refused);
    for (size_t i = 0; i < op_count; i++)
        prepared_write_clear(&pws[i]);
    free(pws);
    free(nums);
    free(tables);
    if (rc != 0) batch_write_result_clear(out);
    return rc;
}

/* --throughput-model aws: whether key may be read now; a refusal is
 * counted, the first one kept to answer for a batch refused whole. */
static bool admit_key(struct table *t, const struct row_key *key, int64_t now_ms,
                      struct ddb_error *refused, size_t *refused_count)
{
    struct ddb_error e = {0};
    bool ok;

    ok = throttle_admit_read(t, NULL, key->hash, &key->parts[0], 1, now_ms, &e) == 0;
    if (!ok && (*refused_count)++ == 0) ddb_error_move(refused, &e);
    ddb_error_clear(&e);
    return ok;
}

int db_batch_get(struct db *db, const struct db_scope *scope, struct batch_get_table *tables,
                 size_t table_count, struct ddb_error *err)
{
    struct ddb_error refused = {0};
    size_t total_keys = 0, refused_count = 0;
    const char **names;
    int64_t now_ms;
    int rc = -1;

    for (size_t ti = 0; ti < table_count; ti++) {
        for (size_t i = 0; i < tables[ti].key_count; i++) {
            tables[ti].items[i] = NULL;
            tables[ti].read_units[i] = 0;
            tables[ti].unprocessed[i] = false;
            total_keys++;
        }
    }
    names = xcalloc(table_count ? table_count : 1, sizeof *names);
    for (size_t ti = 0; ti < table_count; ti++)
        names[ti] = tables[ti].table_name;
    db_lock_tables(db, scope, names, table_count, LOCK_HOLD_SHARED);
    free(names);
    now_ms = db_now_ms(db);
    for (size_t ti = 0; ti < table_count; ti++) {
        struct batch_get_table *bt = &tables[ti];
        struct table *t;
        if (db_require_table(db, scope, bt->table_name, &t, err) != 0) goto out;
        for (size_t i = 0; i < bt->key_count; i++) {
            if (table_check_key(t, &bt->keys[i], err) != 0) goto out;
        }
    }
    for (size_t ti = 0; ti < table_count; ti++) {
        struct batch_get_table *bt = &tables[ti];
        struct table *t = db_find_table(db, scope, bt->table_name);
        insight_lock(t->insight);
        insight_count_request(t->insight, INSIGHT_BATCH_GET_ITEM);
        insight_count_sizes(&t->insight->batch_get, bt->key_count);
        insight_unlock(t->insight);
        for (size_t i = 0; i < bt->key_count; i++) {
            const struct consistency_settings *cs;
            struct key_numbers nums;
            struct row_key key;
            struct item *found;
            table_row_key(t, &bt->keys[i], &nums, &key);
            if (db->aws_throughput && !admit_key(t, &key, now_ms, &refused, &refused_count)) {
                bt->unprocessed[i] = true;
                continue;
            }
            found = table_find(t, &key);
            if (db->consistency_any && !bt->consistent_read && (cs = consistency_in(db, scope)))
                found = consistency_read_item(db, cs, t, &key, found, now_ms);
            bt->items[i] = item_ref(found);
            bt->read_units[i] =
                capacity_read_units(found ? found->size_bytes : 0, bt->consistent_read);
            insight_lock(t->insight);
            insight_read_item(t->insight, key.hash, &key.parts[0], bt->read_units[i], found != NULL,
                              now_ms);
            insight_unlock(t->insight);
            /* Paid at once, so that the next key is admitted against it. */
            if (db->aws_throughput) throttle_charge(t, NULL, bt->read_units[i], 0, now_ms);
        }
    }
    if (total_keys && refused_count == total_keys) {
        /* Nothing read: the batch is refused as a whole (API_BatchGetItem.html). */
        ddb_error_move(err, &refused);
        goto out;
    }
    rc = 0;
out:
    db_unlock(db);
    ddb_error_clear(&refused);
    if (rc != 0) {
        for (size_t ti = 0; ti < table_count; ti++) {
            for (size_t i = 0; i < tables[ti].key_count; i++) {
                item_unref(tables[ti].items[i]);
                tables[ti].items[i] = NULL;
            }
        }
    }
    return rc;
}
