/*
 * ttl_index.h - a table's items ordered by expiry time, for the TTL sweep.
 *
 * While TTL is enabled on a table, every item whose TTL attribute is a Number
 * has one row here, keyed by (its expiry in milliseconds rounded down, the
 * table's row key). The sweep seeks to the oldest expiry that may still be
 * deleted and walks only up to "now", so its cost follows the number of items
 * that expire, not the table's size; an idle table costs one seek per sweep.
 *
 * Why milliseconds rounded down are exact enough: for an integer k,
 * floor(x) < k exactly when x < k and floor(x) >= k exactly when x >= k, so
 * comparing floor(seconds * 1000) with the window's integer bounds in
 * milliseconds selects exactly the items whose exact decimal lies inside it.
 * Values beyond the int64 range are clamped far outside any window. Items
 * whose attribute is missing or not a Number have no row: they never expire.
 *
 * Rows hold a reference to their item, like a secondary index's rows (the
 * row key's parts point into it). Only table_commit_write() (through
 * ttl_index_apply_write) and ttl_index_rebuild() change it, under the
 * exclusive db->lock; readers hold it at least shared.
 */
#ifndef DDB_TTL_INDEX_H
#define DDB_TTL_INDEX_H

#include "storage/model/item.h"
#include "storage/model/key.h"
#include "storage/table/skiplist.h"

#include <stdbool.h>
#include <stdint.h>

struct ttl_index {
    struct skiplist rows; /* empty (no head) while TTL is disabled */
};

void ttl_index_init(struct ttl_index *ix);
/* Drops every row (TTL disabled, or the table goes); the index stays usable. */
void ttl_index_clear(struct ttl_index *ix);

/* The expiry in milliseconds, rounded down, of item's attribute attr; false
 * when the attribute is missing or not a Number. Reads only its arguments
 * (an immutable item), so it needs no lock. */
bool ttl_index_expiry_ms(const struct item *item, const char *attr, size_t attr_len, int64_t *out);

/* Replaces the row of old_item (at table row key old_key; NULL: none) by the
 * row of new_item (at new_key, whose parts point into new_item; NULL: none).
 * attr is the table's TTL attribute. The caller holds the table's lock
 * exclusively (or the catalog lock so). */
void ttl_index_apply_write(struct ttl_index *ix, const char *attr, size_t attr_len,
                           const struct row_key *old_key, const struct item *old_item,
                           const struct row_key *new_key, struct item *new_item);

/* Fills the empty index with the rows of items (any order), whose table row
 * keys are keys: sorted once and appended (skiplist_load), as many
 * ttl_index_apply_write inserts would leave it (in_order: items are the
 * index's rows in its order, as a snapshot saved them, so not sorted again).
 * A restore builds it so. */
void ttl_index_load(struct ttl_index *ix, const char *attr, size_t attr_len,
                    const struct row_key *keys, struct item *const *items, size_t count,
                    bool in_order);

/* The first row whose expiry is at or after from_ms, or NULL; walk on with
 * skiplist_next and read the expiry from ttl_index_row_expiry_ms. */
struct skiplist_node *ttl_index_seek(const struct ttl_index *ix, int64_t from_ms);
int64_t ttl_index_row_expiry_ms(const struct skiplist_node *row);

/* Refills the index from a table's items (TTL enabled on a table that has
 * items); attr is the TTL attribute. */
void ttl_index_rebuild(struct ttl_index *ix, const struct skiplist *items, const char *attr,
                       size_t attr_len);

#endif
