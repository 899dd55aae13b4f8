/*
 * read_item.c - GetItem: one item by its whole key, under the shared lock.
 *
 * Returns a reference to the immutable item (see item.h) and leaves
 * projection and encoding to the caller, outside the lock; it only checks,
 * with the table's schema at hand, that the projection does not go inside a
 * key attribute.
 */
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/table/throttle.h"

#include <string.h>

int db_get_item(struct db *db, const struct db_scope *scope, const struct get_op *op,
                enum return_capacity return_capacity, struct item **item,
                struct consumed_capacity *capacity, struct ddb_error *err)
{
    struct table *t;
    struct key_numbers nums;
    struct row_key key;
    struct item *found;
    const struct consistency_settings *cs;
    double units;
    int rc = -1;

    *item = NULL;
    memset(capacity, 0, sizeof *capacity);
    db_lock_table(db, scope, op->table_name, LOCK_HOLD_SHARED);
    if (db_require_table(db, scope, op->table_name, &t, err) != 0) goto out;
    if (table_check_key(t, &op->key, err) != 0) goto out;
    if (op->projection && table_check_key_paths(t, op->projection, err) != 0) goto out;
    table_row_key(t, &op->key, &nums, &key);
    if (db->aws_throughput &&
        throttle_admit_read(t, NULL, key.hash, key.parts, 1, db_now_ms(db), err) != 0)
        goto out;
    found = table_find(t, &key);
    if (db->consistency_any && !op->consistent_read && (cs = consistency_in(db, scope)))
        found = consistency_read_item(db, cs, t, &key, found, db_now_ms(db));
    units = capacity_read_units(found ? found->size_bytes : 0, op->consistent_read);
    capacity_begin(capacity, return_capacity, t->def.name);
    capacity_add_table(capacity, units, 0);
    if (db->aws_throughput) throttle_charge(t, NULL, units, 0, db_now_ms(db));
    insight_lock(t->insight);
    insight_count_request(t->insight, INSIGHT_GET_ITEM);
    insight_read_item(t->insight, key.hash, &key.parts[0], units, found != NULL, db_now_ms(db));
    insight_unlock(t->insight);
    *item = item_ref(found);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
