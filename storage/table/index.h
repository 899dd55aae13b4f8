/*
 * index.h - secondary indexes (GSI and LSI) as ordered maps over the table's items.
 *
 * An index is a skiplist of rows keyed by (hash of the index partition key,
 * index partition key parts, index sort key parts, table partition key, table
 * sort key). The trailing table key makes every row unique, so many items may
 * share an index key (GSI keys need not be unique) and they come back ordered
 * by index sort key and then, deterministically, by table key.
 *
 * Rows hold a reference to the whole base item; projections are applied when
 * reading. An item appears in an index only when it has every index key
 * attribute with its declared type, non-empty and within the key size limits
 * (sparse indexes). Writes are checked by table_check_item() before they
 * commit, so only items written before a GSI was added through UpdateTable can
 * fail those rules; DynamoDB leaves such items out of the new index
 * (scylla test_gsi_updatetable.py::test_gsi_backfill and
 * ::test_gsi_backfill_oversized_key, run against AWS), and so does this.
 *
 * Backfill: a GSI added to a live table is filled from the table in bounded
 * steps (index_backfill_step) while writes go on. The index remembers the
 * last table row it copied (the cursor); a write to a row at or before the
 * cursor updates the index at once, a write beyond it is left for the
 * backfill, which reads the row's state when it gets there. So the index is
 * exact for every row the backfill has passed, at every step.
 *
 * Only table_commit_write() and the backfill change an index, and only after
 * every check of the write has passed. The caller holds db->lock (asserted
 * by every function that reads or changes an index's rows or status:
 * base/lock_check.h).
 */
#ifndef DDB_INDEX_H
#define DDB_INDEX_H

#include "storage/model/item.h"
#include "storage/model/key.h"
#include "storage/model/schema.h"
#include "storage/table/skiplist.h"
#include "storage/table/throttle.h"

#include <stdbool.h>
#include <stdint.h>

struct table_index {
    const struct index_def *def; /* borrowed from the table's definition; rebuilt when it moves */
    const struct key_schema *table_key;            /* borrowed: the base table's key schema */
    enum value_type hash_types[DDB_MAX_KEY_PARTS]; /* declared types of the key parts */
    enum value_type range_types[DDB_MAX_KEY_PARTS];
    struct skiplist rows;
    int64_t size_bytes; /* sum of projected item sizes */
    enum index_status status;
    bool backfilling;             /* rows are still being copied from the table */
    bool report_backfilling;      /* DescribeTable shows Backfilling (GSIs added by UpdateTable) */
    struct item *backfill_cursor; /* owned reference: the last table row copied; NULL before */
    uint64_t id;                  /* unique within its table, to find the index again later */
    /* --delay-transient-statuses: the index reports `transient` (CREATING or
     * UPDATING) until the engine's clock reaches transient_until_ms, even
     * once its rows are complete; 0: no delayed status. Not persisted. */
    enum index_status transient;
    int64_t transient_until_ms;
    struct throttle_source throttle; /* a GSI's capacity (--throughput-model aws) */
};

/* Prepares an empty, ACTIVE index for def; key types come from table->attr_defs. */
void index_init(struct table_index *idx, const struct index_def *def, const struct table_def *table,
                uint64_t id);
void index_clear(struct table_index *idx);
/* The index row key of an item; false when the item does not belong in the
 * index. Like index_projected_size and index_projects it reads only the
 * index's definition, so it needs no lock: read.c projects after the lock is
 * released, through a copy of the definition. */
bool index_row_key(const struct table_index *idx, const struct value *attrs,
                   struct key_numbers *nums, struct row_key *out);
/* index_row_key of a stored item, read in place in its encoding (a node
 * keeps its parts' offsets: skiplist.h). Needs no lock either. */
bool index_item_key(const struct table_index *idx, const struct item *item, struct row_key *out);
/* Moves one item's row from old_item to new_item (either may be NULL); table_key is the
 * row's key in the table. Rows beyond a running backfill's cursor are left to it.
 * The caller holds the index's table's lock exclusively (or the catalog lock so). */
void index_apply_write(struct table_index *idx, const struct row_key *table_key,
                       struct item *old_item, struct item *new_item);
/* Fills the empty index, not backfilling, with the rows of items (the
 * table's, in any order; or, in_order, the index's rows in its order, as a
 * snapshot saved them: then not sorted again): index keys collected, sorted once and appended,
 * as count index_apply_write inserts would leave it, with a fraction of
 * their key comparisons. A restore or fork builds each index so. */
void index_load(struct table_index *idx, struct item *const *items, size_t count, bool in_order);
/* Size of an item as projected into the index (what DynamoDB stores there);
 * needs no lock (index_row_key). */
size_t index_projected_size(const struct table_index *idx, const struct item *item);
/* True when the attribute is stored in the index (a key or a projected
 * attribute); needs no lock (index_row_key). */
bool index_projects(const struct table_index *idx, const char *name, size_t name_len);

/* The status DynamoDB reports at now_ms: CREATING while a backfill runs, then
 * the delayed status until its time, then ACTIVE. */
enum index_status index_status_at(const struct table_index *idx, int64_t now_ms);

/* Starts filling the (empty) index from the table: IndexStatus CREATING, Backfilling. */
void index_begin_backfill(struct table_index *idx);
/* Copies up to max_rows more table rows (items is the table's row map, ordered by
 * row key) into the index; when none are left the index becomes ACTIVE. Returns
 * true while rows remain. */
bool index_backfill_step(struct table_index *idx, const struct skiplist *items, size_t max_rows);

#endif
