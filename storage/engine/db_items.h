/*
 * db_items.h - the db_* entry points of items: single-item writes and reads (write.c, read.c),
 * transactions (transact.c), Query and Scan (read.c).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_ITEMS_H
#define DDB_DB_ITEMS_H

#include "storage/engine/db.h"
#include "storage/expr/expr.h"
#include "storage/model/failure.h"
#include "storage/model/item.h"
#include "storage/model/schema.h"

enum return_values {
    RETURN_VALUES_NONE,
    RETURN_VALUES_ALL_OLD,
    RETURN_VALUES_UPDATED_OLD,
    RETURN_VALUES_ALL_NEW,
    RETURN_VALUES_UPDATED_NEW,
};

enum write_kind { WRITE_PUT, WRITE_UPDATE, WRITE_DELETE, WRITE_CONDITION_CHECK };

/* One write, as PutItem/UpdateItem/DeleteItem, a batch entry or a transaction
 * action asks for it. Borrowed by db_write_item: the caller frees it. */
struct write_op {
    enum write_kind kind;
    const char *table_name;
    struct item *put_item;        /* PUT: the whole new item (borrowed reference) */
    struct value key;             /* UPDATE, DELETE, CONDITION_CHECK: key attributes (VALUE_M) */
    const struct expr *condition; /* NULL when unconditional */
    const struct expr *update;    /* UPDATE only; NULL means "no changes" (upsert of the key) */
    enum return_values return_values;
    bool return_old_on_condition_failure; /* ReturnValuesOnConditionCheckFailure = ALL_OLD */
    /* PartiQL INSERT: its condition is "the item does not exist", and a
     * failure is DuplicateItemException (reason DuplicateItem in a
     * transaction) rather than ConditionalCheckFailedException. */
    bool fails_as_duplicate;
};

struct item_collection_metrics {
    bool present;     /* only for tables with an LSI when asked */
    struct value key; /* the partition key attribute (VALUE_M) */
    double size_estimate_gb[2];
};

struct write_result {
    struct item *old_item; /* reference, or NULL when the item did not exist */
    struct item *new_item; /* reference, or NULL after a delete */
    struct consumed_capacity capacity;
    struct item_collection_metrics collection_metrics;
    struct failure_details failure; /* on ConditionalCheckFailed with ALL_OLD: the item */
};

void write_result_clear(struct write_result *r);

/* Validates the key/item against the table, evaluates the condition against
 * the current item and applies the write, all under the lock; on -1 nothing
 * changed. On ConditionalCheckFailedException res->failure.item is the old
 * item when the op asked for it (the rest of *res is empty). */
int db_write_item(struct db *db, const struct db_scope *scope, const struct write_op *op,
                  enum return_capacity return_capacity, struct write_result *res,
                  struct ddb_error *err);

/* The ItemCollectionMetrics of the item collection that the item or key map attrs
 * belongs to, as after a write (out->present is false when the table has no LSI).
 * For BatchWriteItem and TransactWriteItems, whose entries are written by other
 * calls; out->key is owned by the caller (value_clear). ResourceNotFoundException
 * when the table does not exist. */
int db_item_collection_metrics(struct db *db, const struct db_scope *scope, const char *table_name,
                               const struct value *attrs, struct item_collection_metrics *out,
                               struct ddb_error *err);

struct get_op {
    const char *table_name;
    struct value key; /* VALUE_M with exactly the table's key attributes */
    bool consistent_read;
    /* The request's projection, or NULL. db_get_item refuses one whose paths go
     * inside a key attribute; the caller applies it (expr_project). */
    const struct expr *projection;
};

/* *item is set to a reference to the item, or NULL when there is none. */
int db_get_item(struct db *db, const struct db_scope *scope, const struct get_op *op,
                enum return_capacity return_capacity, struct item **item,
                struct consumed_capacity *capacity, struct ddb_error *err);

/* ---- transactions ---- */

/*
 * TransactWriteItems: first the request-level checks over all actions (a
 * missing table: ResourceNotFoundException; an empty key value, two actions
 * on one item: ValidationException); then each action's key and item against
 * its table's schema (the first mismatch cancels the transaction with a
 * ValidationError reason for that action and "None" for the others); then
 * every condition and update against one consistent state. If any fails,
 * nothing is written and the error is TransactionCanceledException with one
 * cancel_reason per action, in order (transact.c says which is which and why).
 * Otherwise all writes commit in one critical section.
 *
 * client_token (NULL when absent) with request_digest (a digest of the
 * request's parameters, computed by api/) makes retries idempotent for 10
 * minutes of the engine's clock: a repeat with the same digest succeeds
 * without writing; a different digest is IdempotentParameterMismatchException.
 * *capacities receives one entry per table written (owned array). On
 * TransactionCanceledException *failure receives the reasons (owned by the
 * caller, who passes it empty).
 */
int db_transact_write(struct db *db, const struct db_scope *scope, const struct write_op *ops,
                      size_t op_count, const char *client_token, const char *request_digest,
                      enum return_capacity return_capacity, struct consumed_capacity **capacities,
                      size_t *capacity_count, struct failure_details *failure,
                      struct ddb_error *err);

/* TransactGetItems: items[i] is a reference to the item for gets[i], or NULL;
 * all read from one consistent state. Missing tables, empty key values and two
 * Gets of one item are plain exceptions; a Key that does not fit its table
 * cancels the transaction (TransactionCanceledException, ValidationError,
 * its reasons in *failure, as for db_transact_write). */
int db_transact_get(struct db *db, const struct db_scope *scope, const struct get_op *gets,
                    size_t get_count, enum return_capacity return_capacity, struct item **items,
                    struct consumed_capacity **capacities, size_t *capacity_count,
                    struct failure_details *failure, struct ddb_error *err);

/* ---- Query and Scan ---- */

enum select_mode {
    SELECT_DEFAULT, /* not given: ALL_ATTRIBUTES on a table, ALL_PROJECTED_ATTRIBUTES on an index */
    SELECT_ALL_ATTRIBUTES,
    SELECT_ALL_PROJECTED_ATTRIBUTES,
    SELECT_SPECIFIC_ATTRIBUTES,
    SELECT_COUNT,
};

/* One page of a Query (key_condition set) or a Scan (key_condition NULL). Borrowed. */
struct read_page_op {
    const char *table_name;
    const char *index_name; /* NULL: the table itself */
    const struct expr
        *key_condition;        /* Query: KeyConditionExpression (or translated KeyConditions) */
    const char *filter_param;  /* "Filter Expression" or "QueryFilter"/"ScanFilter", for messages */
    const struct expr *filter; /* NULL when none */
    const struct expr *projection; /* NULL when none */
    enum select_mode select;
    bool scan_forward;                       /* Query: ScanIndexForward */
    uint32_t segment;                        /* Scan: Segment */
    uint32_t total_segments;                 /* Scan: TotalSegments; 0 when not a parallel scan */
    int64_t limit;                           /* 0 when not given */
    const struct value *exclusive_start_key; /* NULL when not given */
    bool consistent_read;
    /* PartiQL: the filter is the statement's whole WHERE, key conditions
     * included, so the Query rule against key attributes in a filter is off. */
    bool filter_may_use_keys;
};

struct read_page {
    struct item **items;  /* owned references, filtered and projected; none for SELECT_COUNT */
    size_t count;         /* Count: items that passed the filter */
    size_t scanned_count; /* ScannedCount: items read */
    struct value last_evaluated_key; /* VALUE_M, or VALUE_NULL when the read was complete */
    struct consumed_capacity capacity;
};

void read_page_clear(struct read_page *p);
int db_query(struct db *db, const struct db_scope *scope, const struct read_page_op *op,
             enum return_capacity return_capacity, struct read_page *out, struct ddb_error *err);
int db_scan(struct db *db, const struct db_scope *scope, const struct read_page_op *op,
            enum return_capacity return_capacity, struct read_page *out, struct ddb_error *err);

#endif
