/*
 * batch.h - BatchGetItem's and BatchWriteItem's storage entry points.
 *
 * Kept beside db.h rather than in it; they follow db.h's rules (the lock is
 * taken and released inside, results are owned by the caller, JSON never
 * gets here).
 */
#ifndef DDB_BATCH_H
#define DDB_BATCH_H

#include "storage/engine/db.h"
#include "storage/engine/db_items.h"

#include <stdbool.h>
#include <stddef.h>

/* ItemCollectionMetrics of one item collection a batch wrote to. */
struct batch_collection {
    char *table_name; /* owned */
    struct item_collection_metrics metrics;
};

struct batch_write_result {
    struct consumed_capacity *capacities; /* owned; one per table written, in request order */
    size_t capacity_count;
    struct batch_collection *collections; /* owned; tables with an LSI, when asked */
    size_t collection_count;
    /* --throughput-model aws: owned, one per op, true where the op was
     * throttled and not written (UnprocessedItems); NULL when every op was. */
    bool *unprocessed;
};

void batch_write_result_clear(struct batch_write_result *r);

/* One table entry of a BatchGetItem: the request's part is borrowed, the
 * results are arrays of key_count entries that the caller allocates. */
struct batch_get_table {
    const char *table_name;
    const struct value *keys; /* VALUE_M each */
    size_t key_count;
    bool consistent_read;
    struct item **items; /* out: owned references, NULL where no item has the key */
    double *read_units;  /* out: what reading each key costs (a missing item too) */
    bool *unprocessed;   /* out: throttled, not read (--throughput-model aws; UnprocessedKeys) */
};

/*
 * BatchGetItem's reads, table by table and key by key, under its tables'
 * locks held shared (db_lock_tables). DynamoDB reads each key independently (no snapshot is
 * promised across keys); one lock hold is simply cheaper. Errors in request order, the first
 * winning: a missing table (ResourceNotFoundException), then a key that does
 * not fit its table (ValidationException). Charging is the caller's: it
 * answers only the keys that fit in the response and sums their read_units.
 */
int db_batch_get(struct db *db, const struct db_scope *scope, struct batch_get_table *tables,
                 size_t table_count, struct ddb_error *err);

/*
 * BatchWriteItem: ops are PUTs and DELETEs (no conditions), grouped by table
 * in request order. Everything is checked before anything is written, under
 * its tables' locks held exclusively (db_lock_tables): item sizes, then per op the table
 * (ResourceNotFound "Requested resource not found"), its key against the schema ("The provided key
 * element does not match the schema" also for a Put whose item lacks or mistypes a key attribute),
 * and no two ops on one item ("Provided list of item keys contains duplicates"). Then every write
 * goes through the single write path. On -1 nothing was written. *out is filled on success only.
 */
int db_batch_write(struct db *db, const struct db_scope *scope, const struct write_op *ops,
                   size_t op_count, enum return_capacity return_capacity, bool want_metrics,
                   struct batch_write_result *out, struct ddb_error *err);

#endif
