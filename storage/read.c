/*
 * read.c - reads: GetItem (and, with the query issue, Query and Scan).
 *
 * Reads hold the lock shared, so they never block each other. They return
 * references to immutable items (see item.h) and leave projection and
 * encoding to the caller, outside the lock; GetItem only checks, with the
 * table's schema at hand, that its projection does not go inside a key
 * attribute.
 */
#include "storage/capacity.h"
#include "storage/db_internal.h"

#include <string.h>

int db_get_item(struct db *db, const struct db_scope *scope, const struct get_op *op,
                enum return_capacity return_capacity, struct item **item,
                struct consumed_capacity *capacity, struct ddb_error *err)
{
    struct table *t;
    struct row_key key;
    struct item *found;
    int rc = -1;

    *item = NULL;
    memset(capacity, 0, sizeof *capacity);
    db_read_lock(db);
    if (db_require_table(db, scope, op->table_name, &t, err) != 0) goto out;
    if (table_check_key(t, &op->key, err) != 0) goto out;
    if (op->projection && write_check_key_paths(t, op->projection, err) != 0) goto out;
    table_row_key(t, &op->key, &key);
    found = table_find(t, &key);
    capacity_begin(capacity, return_capacity, t->def.name);
    capacity_add_table(capacity,
                       capacity_read_units(found ? found->size_bytes : 0, op->consistent_read), 0);
    *item = item_ref(found);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
