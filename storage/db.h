/*
 * db.h - the storage engine's public entry points.
 *
 * struct db holds every namespace's tables, the one lock and the one clock.
 * Every db_* function takes the lock on entry and releases it before
 * returning (reads share it, writes hold it exclusively), so each call is
 * atomic and isolated. JSON never reaches this layer: callers pass decoded C
 * values and receive C results.
 *
 * Ownership: db_* functions return results the caller owns (descriptions are
 * deep copies; items are references to immutable items, see item.h), so no
 * pointer into a table survives the call. Arguments are borrowed unless a
 * comment says a function takes them.
 *
 * Every committed write - put, update, delete, from single-item calls,
 * batches, transactions and the TTL sweeper - passes one function
 * (table_commit_write in table.c) that keeps the table, its indexes and its
 * statistics in step, and is where stream records and the persistence journal
 * hook in.
 */
#ifndef DDB_DB_H
#define DDB_DB_H

#include "storage/base/error.h"
#include "storage/expr/expr.h"
#include "storage/insight/report.h"
#include "storage/model/failure.h"
#include "storage/model/item.h"
#include "storage/model/schema.h"
#include "storage/stream/stream.h"
#include "storage/table/changes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;

/* Which namespace of tables a request works in, and the region for its ARNs.
 * api/ derives it from the SigV4 credential (access key id + region), or from
 * the region alone with --shared-db. Both strings are borrowed. */
struct db_scope {
    const char *namespace_id;
    const char *region;
};

/* An engine in memory. */
struct db *db_new(void);
/* An engine that keeps everything in the directory dir (--db-path; see
 * storage/persist/journal.h): what dir holds is loaded (the log a crash
 * left replayed first), and every change is in the directory's log - safe
 * from kill -9 - before the call that made it returns. NULL, with *why set to an
 * owned, printable reason, when dir cannot be used: another ddbemu holds it,
 * or a file in it is damaged, foreign or of a newer ddbemu. */
struct db *db_open_dir(const char *dir, char **why);
/* Stops the engine; with a directory, everything recorded is on disk first. */
void db_free(struct db *db);

/*
 * --delay-transient-statuses (DynamoDB Local's -delayTransientStatuses): when
 * on, changes pass through AWS's transient statuses for these times on the
 * engine's clock (the control clock moves them along) instead of being
 * ACTIVE at once. Times as AWS takes them for a small table: an on-demand
 * table is ACTIVE, or gone, in about five seconds (ack-api-quirks
 * DDB-TABLE-374 measured DELETING for 5-7 s); creating or deleting a GSI
 * takes minutes even when it is empty. What each status allows is in catalog.c. Set before serving.
 */
#define DDB_DELAY_TABLE_CREATING_MS  5000
#define DDB_DELAY_TABLE_UPDATING_MS  5000
#define DDB_DELAY_TABLE_DELETING_MS  5000
#define DDB_DELAY_INDEX_CREATING_MS  60000
#define DDB_DELAY_INDEX_UPDATING_MS  5000
#define DDB_DELAY_INDEX_DELETING_MS  60000
#define DDB_DELAY_STREAM_ENABLING_MS 5000
void db_set_delay_transient(struct db *db, bool on);
/* --throughput-model aws: enforce provisioned capacity with burst, the
 * per-partition and on-demand limits (throttle/throttle.h). Off by default;
 * set before serving. */
void db_set_throughput_model(struct db *db, bool aws);

/* ---- the clock: the only source of time in the engine ---- */
int64_t db_now_ms(struct db *db);
/* Shifts the engine's clock by delta_ms (tests advance time instead of waiting). */
void db_clock_advance(struct db *db, int64_t delta_ms);
/* Sets the engine's clock so that db_now_ms() returns now_ms from here on (it keeps running). */
void db_clock_set(struct db *db, int64_t now_ms);

/* ---- capacity ---- */
enum return_capacity { RETURN_CAPACITY_NONE, RETURN_CAPACITY_TOTAL, RETURN_CAPACITY_INDEXES };

struct index_capacity {
    char *index_name; /* owned */
    bool is_global;
    double read_units;
    double write_units;
};

/* ConsumedCapacity of one table in one request. Units are summed by AWS's rules. */
struct consumed_capacity {
    char *table_name; /* owned; NULL when nothing was recorded */
    double read_units;
    double write_units;
    double table_read_units; /* the base table's share, for RETURN_CAPACITY_INDEXES */
    double table_write_units;
    struct index_capacity *indexes; /* owned */
    size_t index_count;
};

void consumed_capacity_clear(struct consumed_capacity *c);

/* ---- tables ---- */

/* Creates a table from def (taken, whether this succeeds or fails) and
 * describes it in *out (status CREATING, as AWS's response says; the table is
 * ACTIVE for every later call). ResourceInUseException if the name exists,
 * LimitExceededException past the table quota. */
int db_create_table(struct db *db, const struct db_scope *scope, struct table_def *def,
                    struct table_desc *out, struct ddb_error *err);
int db_describe_table(struct db *db, const struct db_scope *scope, const char *name,
                      struct table_desc *out, struct ddb_error *err);
/* Deletes a table and describes it as AWS does (status DELETING).
 * Refused with ValidationException while deletion protection is on. */
int db_delete_table(struct db *db, const struct db_scope *scope, const char *name,
                    struct table_desc *out, struct ddb_error *err);

/* ListTables page: names in ascending order after exclusive_start (NULL: from
 * the start), at most limit. *names is an owned array of owned strings;
 * *last_evaluated is set (owned) when more names follow. */
int db_list_tables(struct db *db, const struct db_scope *scope, const char *exclusive_start,
                   size_t limit, char ***names, size_t *count, char **last_evaluated,
                   struct ddb_error *err);

enum gsi_update_kind { GSI_UPDATE_CREATE, GSI_UPDATE_UPDATE, GSI_UPDATE_DELETE };

struct gsi_update {
    enum gsi_update_kind kind;
    struct index_def
        def; /* CREATE: the whole definition; UPDATE: name + throughput; DELETE: name */
};

/* UpdateTable's request, decoded. has_* say which parts were given. */
struct table_update {
    char *name;
    bool has_billing;
    enum billing_mode billing;
    bool has_throughput;
    struct throughput throughput;
    bool has_stream;
    struct stream_spec stream;
    bool has_deletion_protection;
    bool deletion_protection;
    bool has_table_class;
    char *table_class;
    bool has_sse;
    struct sse_spec sse;
    struct attr_def *attr_defs; /* new definitions for GSI creation */
    size_t attr_def_count;
    struct gsi_update *gsi_updates;
    size_t gsi_update_count;
    /* OnDemandThroughput / WarmThroughput members sent (0: not sent; a maximum of
     * -1 clears it). Checked against the table by api/ before. */
    struct on_demand_throughput on_demand;
    struct warm_throughput warm;
};

void table_update_clear(struct table_update *u);
int db_update_table(struct db *db, const struct db_scope *scope, const struct table_update *u,
                    struct table_desc *out, struct ddb_error *err);

/* ---- items ---- */

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

/* ---- PartiQL (storage/partiql.c; the language is in storage/partiql/) ---- */

/* One statement with its Parameters, as ExecuteStatement, an entry of
 * BatchExecuteStatement or of ExecuteTransaction carries it. Borrowed. */
struct partiql_statement {
    const char *text;
    size_t len;
    const struct value *params; /* Parameters, or NULL */
    size_t param_count;
    bool consistent_read;
    bool return_old_on_condition_failure; /* ReturnValuesOnConditionCheckFailure ALL_OLD */
};

/* Where a SELECT's reading goes on (NextToken, decoded by api/): the index
 * of the Query it stopped in (0 for a Scan) and that read's
 * LastEvaluatedKey, or VALUE_NULL to start that Query from its beginning. */
struct partiql_cursor {
    size_t query;
    struct value key;
};

struct partiql_result {
    struct item **items; /* owned references: the rows of a SELECT or a RETURNING */
    size_t count;
    bool is_read;               /* a SELECT */
    bool has_next;              /* the SELECT stopped early: next says where to go on */
    struct partiql_cursor next; /* owned key */
    struct consumed_capacity capacity;
    char *table_name; /* owned: the statement's table (BatchExecuteStatement's TableName) */
};

void partiql_result_clear(struct partiql_result *r);

/*
 * ExecuteStatement: parses st, plans it against its table and runs it as the
 * equivalent Query(s)/Scan (from *resume when not NULL, reading at most limit
 * items when limit > 0), PutItem, UpdateItem or DeleteItem. Errors are those
 * operations' errors plus the language's (storage/partiql/pql.h); a failed
 * condition with return_old_on_condition_failure hands the item back in
 * *failure. *out is owned by the caller.
 */
int db_execute_statement(struct db *db, const struct db_scope *scope,
                         const struct partiql_statement *st, int64_t limit,
                         const struct partiql_cursor *resume, enum return_capacity return_capacity,
                         struct partiql_result *out, struct failure_details *failure,
                         struct ddb_error *err);

/*
 * ExecuteTransaction: every statement a SELECT by full key (run as one
 * TransactGetItems, out[i].items holding the item or nothing) or every one a
 * write or EXISTS (run as one TransactWriteItems, with client_token and
 * request_digest as db_transact_write takes them). out is an array of count
 * results (owned by the caller, cleared with partiql_result_clear);
 * *capacities as db_transact_write. TransactionCanceledException carries its
 * reasons in *failure.
 */
int db_execute_transaction(struct db *db, const struct db_scope *scope,
                           const struct partiql_statement *sts, size_t count,
                           const char *client_token, const char *request_digest,
                           enum return_capacity return_capacity, struct partiql_result *out,
                           struct consumed_capacity **capacities, size_t *capacity_count,
                           struct failure_details *failure, struct ddb_error *err);

/* Whether st is a SELECT (BatchExecuteStatement keeps reads and writes
 * apart). -1 with err set when it does not parse. */
int db_partiql_is_read(const struct partiql_statement *st, bool *is_read, struct ddb_error *err);

/*
 * One statement of BatchExecuteStatement: a SELECT must name its full key
 * (it is a BatchGetItem read, out->items holding the item or nothing); a
 * write runs as the equivalent single-item write. Errors are per statement.
 */
int db_batch_statement(struct db *db, const struct db_scope *scope,
                       const struct partiql_statement *st, enum return_capacity return_capacity,
                       struct partiql_result *out, struct failure_details *failure,
                       struct ddb_error *err);

/* ---- Time to live (storage/ttl.c) ---- */

/* TimeToLiveStatus. ENABLING and DISABLING are AWS's transient states; the
 * emulator settles at once (AWS was never observed in them at 1 s polling). */
enum ttl_status { TTL_ENABLING, TTL_DISABLING, TTL_ENABLED, TTL_DISABLED };

struct ttl_desc {
    enum ttl_status status;
    char *attribute; /* owned; NULL while DISABLED */
};

void ttl_desc_clear(struct ttl_desc *d);
const char *ttl_status_name(enum ttl_status s);

/* UpdateTimeToLive: turns TTL on (with attribute) or off for a table.
 * ResourceNotFoundException; ValidationException when it is already in that
 * state, names another attribute, or changes it again within an hour of the
 * engine's clock (AWS's texts). */
int db_update_ttl(struct db *db, const struct db_scope *scope, const char *table_name, bool enabled,
                  const char *attribute, struct ddb_error *err);
/* DescribeTimeToLive into *out (owned by the caller). ResourceNotFoundException. */
int db_describe_ttl(struct db *db, const struct db_scope *scope, const char *table_name,
                    struct ttl_desc *out, struct ddb_error *err);
/* One pass of the TTL sweeper over every table with TTL enabled, in every
 * namespace: deletes (through the single write path, with a REMOVE stream
 * record carrying the TTL service identity) at most max_items items whose TTL
 * attribute is a Number of epoch seconds in the past, and no more than five
 * years in the past. Works in small batches, releasing the lock between them,
 * so requests are never held up for long. Also trims stream records older than
 * 24 hours. Returns the number of items deleted. Takes the lock itself. */
size_t db_expire_items(struct db *db, size_t max_items);

/* ---- point-in-time recovery (storage/continuous_backups.c) ---- */

/* ContinuousBackupsDescription: continuous backups are always on; PITR as set. */
struct pitr_desc {
    bool enabled;
    int64_t recovery_days;
    int64_t earliest_ms; /* EarliestRestorableDateTime (when enabled) */
    int64_t latest_ms;   /* LatestRestorableDateTime (when enabled) */
};

/* DescribeContinuousBackups. TableNotFoundException ("Table not found: T"). */
int db_describe_continuous_backups(struct db *db, const struct db_scope *scope,
                                   const char *table_name, struct pitr_desc *out,
                                   struct ddb_error *err);
/* UpdateContinuousBackups: PITR on (recovery_days 0: keep the current period, 35
 * at first) or off; *out describes the result. TableNotFoundException. */
int db_update_continuous_backups(struct db *db, const struct db_scope *scope,
                                 const char *table_name, bool enabled, int64_t recovery_days,
                                 struct pitr_desc *out, struct ddb_error *err);

/* ---- on-demand backups (storage/backups.c) ---- */

/* BackupStatus. A backup is complete when CreateBackup answers (the
 * emulator copies references to immutable items), so CREATING is only in
 * that answer, and DELETED only in DeleteBackup's. */
enum backup_status { BACKUP_CREATING, BACKUP_DELETED, BACKUP_AVAILABLE };
const char *backup_status_name(enum backup_status s);

/* A BackupDescription: the backup and its source table as it was. Owned strings. */
struct backup_desc {
    char *arn;
    char *name;
    enum backup_status status;
    int64_t creation_ms;
    int64_t size_bytes;
    int64_t item_count;
    char *table_name;
    char *table_id;
    char *table_arn;
    int64_t table_creation_ms;
    struct table_def def; /* indexes, billing, throughput, stream, SSE at backup time */
    bool ttl_enabled;
    char *ttl_attribute; /* NULL unless ttl_enabled */
    /* BackupType SYSTEM: the backup DeleteTable leaves of a table with
     * point-in-time recovery on, gone at expiry_ms; USER otherwise (no expiry). */
    bool system;
    int64_t expiry_ms;
};

void backup_desc_clear(struct backup_desc *d);
void backup_desc_copy(struct backup_desc *dst, const struct backup_desc *src);

/* CreateBackup: a consistent snapshot of the table's items and definition, in
 * one critical section. TableNotFoundException. *out is the new backup
 * (status CREATING, as AWS answers). */
int db_create_backup(struct db *db, const struct db_scope *scope, const char *table_name,
                     const char *backup_name, struct backup_desc *out, struct ddb_error *err);
/* DescribeBackup. BackupNotFoundException. */
int db_describe_backup(struct db *db, const struct db_scope *scope, const char *arn,
                       struct backup_desc *out, struct ddb_error *err);
/* DeleteBackup: *out describes it with status DELETED. BackupNotFoundException. */
int db_delete_backup(struct db *db, const struct db_scope *scope, const char *arn,
                     struct backup_desc *out, struct ddb_error *err);

/* ListBackups' filters and page (strings borrowed). */
struct backup_filter {
    const char *table_name; /* NULL: every table */
    bool has_lower, has_upper;
    int64_t lower_ms;                /* TimeRangeLowerBound, inclusive */
    int64_t upper_ms;                /* TimeRangeUpperBound, exclusive */
    bool user_backups;               /* BackupType USER (the default) or ALL */
    bool system_backups;             /* BackupType SYSTEM or ALL */
    const char *exclusive_start_arn; /* NULL: from the first */
    size_t limit;
};

/* ListBackups: the scope's backups, oldest first. *out is an owned array;
 * *last_arn (owned) is set when more backups follow. */
int db_list_backups(struct db *db, const struct db_scope *scope, const struct backup_filter *f,
                    struct backup_desc **out, size_t *count, char **last_arn,
                    struct ddb_error *err);

/* ---- restores (storage/restore.c) ---- */

/* What a restore starts from: a backup (RestoreTableFromBackup), or a table
 * at a point in time (RestoreTableToPointInTime). Strings borrowed. */
struct restore_source {
    const char *backup_arn;        /* from a backup when not NULL */
    const char *source_table_name; /* point in time: the table by name ... */
    const char *source_table_arn;  /* ... or by ARN */
    bool use_latest;               /* UseLatestRestorableTime */
    int64_t restore_ms;            /* RestoreDateTime, when not use_latest */
};

/* The definition the restored table starts from (the source table's now, or
 * the backup's, without what a restore does not carry over: tags, stream,
 * deletion protection), for api/ to apply the request's overrides to. Raises the
 * restore's errors about its source: BackupNotFoundException,
 * TableNotFoundException, PointInTimeRecoveryUnavailableException. */
int db_restore_source_def(struct db *db, const struct db_scope *scope,
                          const struct restore_source *src, struct table_def *out,
                          struct ddb_error *err);
/* Creates the table def (taken, whether this succeeds or fails) holding the
 * source's items: the backup's, or the source table's as they were at the
 * restore time (InvalidRestoreTimeException outside the recovery window).
 * TableAlreadyExistsException when def's name is taken. *out describes the
 * new table as AWS answers a restore: CREATING, RestoreInProgress true. */
int db_restore_table(struct db *db, const struct db_scope *scope, const struct restore_source *src,
                     struct table_def *def, struct table_desc *out, struct ddb_error *err);

/* ---- exports and imports (storage/transfer.c) ---- */

enum transfer_status {
    TRANSFER_IN_PROGRESS,
    TRANSFER_COMPLETED,
    TRANSFER_FAILED,
    TRANSFER_CANCELLING,
    TRANSFER_CANCELLED,
};
const char *transfer_status_name(enum transfer_status s);

/* ExportTableToPointInTime's request, decoded (strings borrowed). */
struct export_request {
    const char *table_arn;
    const char *client_token; /* NULL when absent */
    const char *s3_bucket;
    const char *s3_bucket_owner;
    const char *s3_prefix;
    const char *s3_sse_algorithm;
    const char *s3_sse_kms_key_id;
    const char *format;      /* "DYNAMODB_JSON" or "ION" */
    const char *export_type; /* "FULL_EXPORT", "INCREMENTAL_EXPORT" or NULL (not given) */
    bool has_export_time;
    int64_t export_ms;
    /* IncrementalExportSpecification (INCREMENTAL_EXPORT only; its members'
     * presence was checked by the api layer, ExportFromTime given). */
    int64_t from_ms;
    bool has_to_time; /* false: up to the current time */
    int64_t to_ms;
    const char *view_type; /* "NEW_AND_OLD_IMAGES" or "NEW_IMAGE" */
};

/* An ExportDescription; every string owned. */
struct export_desc {
    char *arn;
    char *table_arn;
    char *table_id;
    char *client_token;
    char *s3_bucket;
    char *s3_bucket_owner;
    char *s3_prefix;
    char *s3_sse_algorithm;
    char *s3_sse_kms_key_id;
    char *format;
    char *export_type;
    enum transfer_status status;
    int64_t start_ms, end_ms, export_ms;
    /* An incremental export's span [from_ms, to_ms) and ExportViewType;
     * view_type is NULL for a full export. */
    int64_t from_ms, to_ms;
    char *view_type;
    int64_t item_count;
    int64_t billed_size_bytes;
    char *manifest_key; /* ExportManifest: the summary manifest's key */
    char *failure_code;
    char *failure_message;
};

/* How the files of an export came out. */
struct export_result {
    int64_t item_count;
    int64_t billed_size_bytes;
    const char *manifest_key;
    const char *failure_code; /* NULL: COMPLETED */
    const char *failure_message;
};

void export_desc_clear(struct export_desc *d);
void export_desc_copy(struct export_desc *dst, const struct export_desc *src);
/* Whether d describes an incremental export. */
bool export_desc_is_incremental(const struct export_desc *d);

/* What an export writes, taken in one critical section: a full export's
 * items, or an incremental export's net changes. Owned; export_data_clear. */
struct export_data {
    struct item **items; /* owned references, an owned array */
    size_t item_count;
    struct item_change *changes; /* owned (item_changes_free) */
    size_t change_count;
};
void export_data_clear(struct export_data *x);

/* Starts an export: the table (by ARN, in the scope's region) must have
 * point-in-time recovery on (PointInTimeRecoveryUnavailableException) and
 * the export time must lie in its window (InvalidExportTimeException); an
 * incremental export's span must lie in the window, reach no later than now
 * and last 15 minutes to 24 hours (InvalidExportTimeException). A repeated
 * ClientToken answers its earlier export (returns 1: nothing to write) or
 * ExportConflictException. On 0, *out is the new job (IN_PROGRESS) and *data
 * what to write out: the table's items at the export time, or the net
 * changes of the span. TableNotFoundException. */
int db_export_begin(struct db *db, const struct db_scope *scope, const struct export_request *r,
                    struct export_desc *out, struct export_data *data, struct ddb_error *err);
/* Records how the export's files came out: COMPLETED, or FAILED. */
int db_export_finish(struct db *db, const char *export_arn, const struct export_result *result);
/* DescribeExport. ExportNotFoundException. */
int db_describe_export(struct db *db, const struct db_scope *scope, const char *export_arn,
                       struct export_desc *out, struct ddb_error *err);
/* ListExports: the scope's exports (of table_arn only, when not NULL), newest
 * first, from the skip-th on, at most limit; *more when others follow. */
int db_list_exports(struct db *db, const struct db_scope *scope, const char *table_arn, size_t skip,
                    size_t limit, struct export_desc **out, size_t *count, bool *more);

/* An ImportTableDescription; every string owned. */
struct import_desc {
    char *arn;
    char *table_arn;
    char *table_id;
    char *client_token;
    char *s3_bucket;
    char *s3_bucket_owner;
    char *s3_key_prefix;
    char *format;      /* InputFormat */
    char *compression; /* InputCompressionType */
    char csv_delimiter;
    struct table_def table_def; /* TableCreationParameters */
    enum transfer_status status;
    int64_t start_ms, end_ms;
    int64_t processed_items, imported_items, error_count, processed_bytes;
    char *failure_code;
    char *failure_message;
};

struct import_result {
    int64_t processed_items, imported_items, error_count, processed_bytes;
    const char *failure_code; /* NULL: COMPLETED */
    const char *failure_message;
};

void import_desc_clear(struct import_desc *d);
void import_desc_copy(struct import_desc *dst, const struct import_desc *src);

/* Starts an import: creates its table from def (taken) as CreateTable does
 * (ResourceInUseException, ...) and records the job from req (its S3 source
 * and format; its arn, table and status are set here). A repeated
 * ClientToken answers its earlier import (returns 1) or
 * ImportConflictException. *out is the job. */
int db_import_begin(struct db *db, const struct db_scope *scope, const struct import_desc *req,
                    struct table_def *def, struct import_desc *out, struct ddb_error *err);
/* Adds items (borrowed) to the imported table through the write path, in
 * batches; an item the table cannot hold counts in *errors. -1 when the
 * table is gone. */
int db_import_items(struct db *db, const struct db_scope *scope, const char *table_name,
                    struct item **items, size_t count, int64_t *imported, int64_t *errors);
int db_import_finish(struct db *db, const char *import_arn, const struct import_result *result);
/* DescribeImport. ImportNotFoundException. */
int db_describe_import(struct db *db, const struct db_scope *scope, const char *import_arn,
                       struct import_desc *out, struct ddb_error *err);
/* ListImports, as ListExports but oldest first. */
int db_list_imports(struct db *db, const struct db_scope *scope, const char *table_arn, size_t skip,
                    size_t limit, struct import_desc **out, size_t *count, bool *more);

/* ---- DynamoDB Streams (storage/streams.c; the types are in stream/stream.h) ---- */

/* ListStreams: the scope's streams (of table_name only, when not NULL), in
 * ARN order after exclusive_start_arn (NULL: from the start), at most limit.
 * *out is an owned array (free each with stream_summary_clear, then the
 * array); *last_evaluated_arn (owned) is set when more streams follow.
 * ValidationException "Invalid StreamArn" for a start ARN that is not one. */
int db_list_streams(struct db *db, const struct db_scope *scope, const char *table_name,
                    const char *exclusive_start_arn, size_t limit, struct stream_summary **out,
                    size_t *count, char **last_evaluated_arn, struct ddb_error *err);

/* DescribeStream: the stream and at most limit of its shards with ids after
 * exclusive_start_shard_id (NULL: from the first); with child_of_shard_id
 * (ShardFilter CHILD_SHARDS) only that shard's children. ValidationException
 * "Invalid StreamArn"; ResourceNotFoundException for an unknown stream.
 * *out is owned by the caller (stream_desc_clear). */
int db_describe_stream(struct db *db, const struct db_scope *scope, const char *arn, size_t limit,
                       const char *exclusive_start_shard_id, const char *child_of_shard_id,
                       struct stream_desc *out, struct ddb_error *err);

/* GetShardIterator: a new iterator (owned string) valid for 15 minutes of the
 * engine's clock. sequence_number is given exactly for the AT/AFTER types.
 * ValidationException, ResourceNotFoundException (stream or shard),
 * TrimmedDataAccessException for a position older than the trim horizon. */
int db_get_shard_iterator(struct db *db, const struct db_scope *scope, const char *arn,
                          const char *shard_id, enum shard_iterator_type type,
                          const char *sequence_number, char **iterator, struct ddb_error *err);

/* GetRecords: at most limit records (and about 1 MB) from the iterator's
 * position. ValidationException for a malformed iterator,
 * ExpiredIteratorException after 15 minutes, TrimmedDataAccessException when
 * records at the position were trimmed, ResourceNotFoundException when the
 * stream or shard is gone. *out is owned by the caller. */
int db_get_records(struct db *db, const struct db_scope *scope, const char *iterator, size_t limit,
                   struct stream_records *out, struct ddb_error *err);

/* ---- the access-pattern report (storage/insight.c, insight/) ---- */

/* Snapshots the counters of the tables of namespace_id (NULL: every
 * namespace), or of the one table named table_name (NULL: all), judged
 * (cost and findings: insight/report.h). *out is an owned array (free with
 * db_insight_report_free). ResourceNotFoundException when table_name names no
 * table. Takes the lock shared. */
int db_insight_report(struct db *db, const char *namespace_id, const char *table_name,
                      struct insight_report_table **out, size_t *count, struct ddb_error *err);
void db_insight_report_free(struct insight_report_table *tables, size_t count);
/* Sets the counters of those tables back to zero, counting from now; returns
 * how many tables were reset. Takes the lock exclusively. */
size_t db_insight_reset(struct db *db, const char *namespace_id, const char *table_name);

/* ---- emulator-only administration (storage/admin.c) ---- */

/* Deletes every table of the namespace, with their streams and
 * transaction tokens, as if the namespace had never been used. Returns the
 * number of tables removed. Takes the lock itself. */
size_t db_reset_namespace(struct db *db, const char *namespace_id);

#endif
