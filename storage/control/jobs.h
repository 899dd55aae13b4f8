/*
 * jobs.h - the db_* entry points of a table's jobs: on-demand backups
 * (backups.c), restores (restore.c), exports and imports (transfer.c), bulk
 * put items (bulk.c). The
 * jobs' records are in storage/jobs/.
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_CONTROL_JOBS_H
#define DDB_CONTROL_JOBS_H

#include "storage/engine/db.h"
#include "storage/expr/expr.h"
#include "storage/jobs/backup_record.h"
#include "storage/jobs/bulk_record.h"
#include "storage/jobs/transfer_record.h"

/* ---- on-demand backups (backups.c) ---- */

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

/* ---- restores (restore.c) ---- */

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

/* ---- exports and imports (transfer.c) ---- */

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
    /* FilterSpecification, parsed by the api layer (borrowed; NULL when the
     * member is absent): only the items that match key_condition and filter
     * are exported, with the attributes of projection (export_filter.h). */
    const struct expr *key_condition;
    const struct expr *filter;
    const struct expr *projection;
    /* The same as text, for ExportDescription's FilterSpecification and a
     * ClientToken retry's comparison (borrowed; NULL when absent). */
    const struct export_filter_text *filter_text;
};

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

/* ---- bulk put items (bulk.c) ---- */

/* StartBulkPutItems' request, decoded and checked on its own by api/
 * (strings borrowed; table_name a name, never an ARN). */
struct bulk_request {
    const char *table_name;
    const char *client_token;
    const char *in_bucket, *in_bucket_owner, *in_prefix, *in_format, *in_compression;
    const char *const *out_types; /* OutputType, out_type_count of them */
    size_t out_type_count;
    const char *out_bucket, *out_bucket_owner, *out_prefix, *out_sse_algorithm, *out_sse_kms_key_id;
    bool has_max_wru;
    int64_t max_wru;
    const char *performance_tier; /* NULL: STANDARD */
};

/* Starts a bulk put items operation on an existing table: the table must be
 * ACTIVE, or UPDATING with no index being created (ResourceInUseException;
 * ResourceNotFoundException when there is none), and the quotas of active
 * operations hold (LimitExceededException). A ClientToken used in the last
 * 8 hours answers its operation (returns 1: nothing to run) or, with other
 * parameters, IdempotentParameterMismatchException. On 0, *out is the new
 * operation (IN_PROGRESS), counted as running: the caller runs it and ends it
 * with db_bulk_finish, exactly once. */
int db_bulk_begin(struct db *db, const struct db_scope *scope, const struct bulk_request *r,
                  struct bulk_desc *out, struct ddb_error *err);

/* How one item of a bulk operation came out. */
enum bulk_outcome { BULK_PUT_WRITTEN, BULK_PUT_CONDITION_FAILED, BULK_PUT_INVALID };

/* One item to write, and its outcome (set by db_bulk_put). */
struct bulk_put {
    struct item *item;            /* borrowed */
    const struct expr *condition; /* NULL: unconditional */
    enum bulk_outcome outcome;
    struct item *existing; /* CONDITION_FAILED: the table's item (owned reference) or NULL */
    char *message;         /* INVALID: why, in PutItem's words (owned) */
    double write_units;    /* WRITTEN: the write request units it took */
};

/* Writes puts through the write path (the table's checks, the condition
 * against the current item, indexes, streams, the journal) in one critical
 * section, and counts them in the operation arn's counters and usage. An
 * item the table refuses is INVALID; a false condition changes nothing.
 * *rate is the pace the caller keeps to, in write request units per second:
 * the operation's MaxWriteRequestUnits under --throughput-model aws, else 0
 * (no limit). Returns 0; 1 when the operation is to stop (cancelled, or the
 * engine closing) and -1 when its table is gone: nothing was written then. */
int db_bulk_put(struct db *db, const struct db_scope *scope, const char *arn, struct bulk_put *puts,
                size_t count, int64_t *rate);
/* Frees what db_bulk_put set in puts. */
void bulk_puts_clear(struct bulk_put *puts, size_t count);

/* What a running operation adds to its counters besides its writes. */
struct bulk_progress {
    int64_t failed_items; /* input records that are no items (each one processed) */
    int64_t processed_bytes;
    bool has_total_bytes;
    int64_t total_bytes;
};
/* Adds p to the operation's counters; true when it is to stop. */
bool db_bulk_progress(struct db *db, const char *arn, const struct bulk_progress *p);
/* Ends a running operation: CANCELLED when it was cancelled, FAILED with
 * failure_code (not NULL), else COMPLETED_WITH_ERRORS or COMPLETED by its
 * failed items. */
void db_bulk_finish(struct db *db, const char *arn, const char *failure_code,
                    const char *failure_message);
/* DescribeBulkOperation. ResourceNotFoundException. */
int db_describe_bulk(struct db *db, const struct db_scope *scope, const char *arn,
                     struct bulk_desc *out, struct ddb_error *err);
/* ListBulkOperations: the scope's operations of the past 90 days, newest
 * first, from the skip-th on, at most limit; *more when others follow. */
void db_list_bulk(struct db *db, const struct db_scope *scope, size_t skip, size_t limit,
                  struct bulk_desc **out, size_t *count, bool *more);
/* CancelBulkOperation: an IN_PROGRESS operation becomes CANCELLING (its
 * worker stops at its next batch and makes it CANCELLED); a CANCELLING one
 * stays so. *status is the status answered. ResourceNotFoundException;
 * ValidationException for an operation already ended. */
int db_cancel_bulk(struct db *db, const struct db_scope *scope, const char *arn,
                   enum bulk_status *status, struct ddb_error *err);

#endif
