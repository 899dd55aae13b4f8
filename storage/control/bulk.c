/*
 * bulk.c - bulk put items: the operations DynamoDB describes
 * (StartBulkPutItems / DescribeBulkOperation / ListBulkOperations /
 * CancelBulkOperation), and their items written into an existing table.
 *
 * Storage keeps each operation's description and counters and writes its
 * items through the one write path - prepare (the table's key and item
 * checks), evaluate (the item's own condition against the current item),
 * apply (indexes, item collections, streams, the journal, the report's
 * counters) - so nothing else sees a bulk write differently from a PutItem.
 * Bulk writes do not draw from the table's throughput buckets under
 * --throughput-model aws: an operation is paced by its own
 * MaxWriteRequestUnits (its worker in api/ does the pacing), as AWS's
 * "you limit only the bulk operation" says. Reading S3 objects, their
 * formats and the output report are the api layer's
 * (api/transfer/bulk_files.c, api/ops/op_bulk.c): JSON never reaches here.
 *
 * An operation runs on a worker thread of its own after the request that
 * starts it has been answered; the worker calls db_bulk_put batch by batch,
 * each in one critical section, and db_bulk_finish once. Cancelling only
 * sets a flag the next batch sees, so a cancelled operation keeps what it
 * wrote, as AWS's does. Descriptions are kept with --db-path: every change
 * of one is recorded (db_persist_bulk.c). Messages marked "ours" are not AWS's
 * recorded words: AWS documents the exceptions but no text of them.
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/control/jobs.h"
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/jobs/bulk_record.h"
#include "storage/table/index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* "During the 8 hours after the initial request, repeated requests that use
 * the same token and parameters return the same bulk operation" (API
 * reference, StartBulkPutItems ClientToken). */
#define BULK_TOKEN_TTL_MS (8LL * 60 * 60 * 1000)
/* "Lists bulk operations that started within the past 90 days" (API
 * reference, ListBulkOperations). */
#define BULK_LIST_WINDOW_MS (90LL * 24 * 60 * 60 * 1000)
/* The quotas of running operations. AWS has both ("quotas on concurrent
 * operations, active operations per table": developer guide,
 * BulkPutItems.Considerations) but their values were not readable: ours. */
#define BULK_MAX_ACTIVE_PER_TABLE   1
#define BULK_MAX_ACTIVE_PER_ACCOUNT 10

/* "<table ARN>/bulk-operation/<14-digit ms>-<8 hex>", the form of ddbemu's
 * export and import ARNs (AWS's form of a bulk operation ARN is not
 * documented: ours). */
static char *new_bulk_arn(const char *table_arn, int64_t now_ms)
{
    uint32_t r = 0;
    struct text_buf b = {0};

    if (getrandom(&r, sizeof r, 0) != (ssize_t) sizeof r) r = (uint32_t) now_ms * 2654435761U;
    text_buf_printf(&b, "%s/bulk-operation/%014" PRId64 "-%08" PRIx32, table_arn, now_ms, r);
    return text_buf_take(&b, NULL);
}

static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Whether a retry carries the parameters of the operation d started: every
 * member of the request counts (the API reference: "the same token and
 * parameters"); an omitted PerformanceTier is STANDARD, an omitted
 * InputCompressionType NONE. */
static bool same_request(const struct bulk_desc *d, const struct bulk_request *r)
{
    if (d->out_type_count != r->out_type_count) return false;
    for (size_t i = 0; i < r->out_type_count; i++)
        if (strcmp(d->out_types[i], r->out_types[i]) != 0) return false;
    if (d->has_max_wru != r->has_max_wru || (r->has_max_wru && d->max_wru != r->max_wru))
        return false;
    return strcmp(d->table_name, r->table_name) == 0 && same_text(d->in_bucket, r->in_bucket) &&
           same_text(d->in_bucket_owner, r->in_bucket_owner) &&
           same_text(d->in_prefix, r->in_prefix) && same_text(d->in_format, r->in_format) &&
           same_text(d->in_compression ? d->in_compression : "NONE",
                     r->in_compression ? r->in_compression : "NONE") &&
           same_text(d->out_bucket, r->out_bucket) &&
           same_text(d->out_bucket_owner, r->out_bucket_owner) &&
           same_text(d->out_prefix, r->out_prefix) &&
           same_text(d->out_sse_algorithm, r->out_sse_algorithm) &&
           same_text(d->out_sse_kms_key_id, r->out_sse_kms_key_id) &&
           same_text(d->performance_tier, r->performance_tier ? r->performance_tier : "STANDARD");
}

/* The job of arn, or NULL; caller holds the lock. */
static struct bulk_job *bulk_find_job(struct db *db, const char *namespace_id, const char *arn)
{
    assert_lock_held();
    for (size_t i = 0; i < db->bulk.count; i++) {
        struct bulk_job *job = &db->bulk.jobs[i];
        if ((!namespace_id || strcmp(job->namespace_id, namespace_id) == 0) &&
            strcmp(job->desc.arn, arn) == 0)
            return job;
    }
    return NULL;
}

/* Whether the table may take a bulk operation now: ACTIVE, or UPDATING for a
 * change that is no index being created ("You cannot start an operation while
 * the table is creating a secondary index": developer guide,
 * BulkPutItems.Considerations). The texts are ours. Caller holds the lock. */
static int check_table_state(const struct table *t, int64_t now_ms, struct ddb_error *err)
{
    assert_lock_held();
    enum table_status status = table_status_at(t, now_ms);

    if (status == TABLE_CREATING || status == TABLE_DELETING)
        return ddb_error_set(err, DDB_RESOURCE_IN_USE,
                             "Table %s is %s; a bulk operation needs an ACTIVE table", t->def.name,
                             status == TABLE_CREATING ? "being created" : "being deleted");
    for (size_t i = 0; i < t->index_count; i++) {
        if (index_status_at(&t->indexes[i], now_ms) == INDEX_CREATING)
            return ddb_error_set(err, DDB_RESOURCE_IN_USE,
                                 "Cannot start a bulk operation on table %s while its index %s is "
                                 "being created",
                                 t->def.name, t->indexes[i].def->name);
    }
    return 0;
}

/* The active-operation quotas (values ours, see above). Caller holds the lock. */
static int check_quotas(struct db *db, const struct db_scope *scope, const char *table_arn,
                        struct ddb_error *err)
{
    size_t account = 0, table = 0;

    assert_lock_held();
    for (size_t i = 0; i < db->bulk.count; i++) {
        const struct bulk_job *job = &db->bulk.jobs[i];
        if (strcmp(job->namespace_id, scope->namespace_id) != 0 ||
            bulk_status_is_final(job->desc.status))
            continue;
        account++;
        if (strcmp(job->desc.table_arn, table_arn) == 0) table++;
    }
    if (table >= BULK_MAX_ACTIVE_PER_TABLE)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Too many active bulk operations for table %s: at most %d may run "
                             "at a time",
                             table_arn, BULK_MAX_ACTIVE_PER_TABLE);
    if (account >= BULK_MAX_ACTIVE_PER_ACCOUNT)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Too many active bulk operations: at most %d may run at a time",
                             BULK_MAX_ACTIVE_PER_ACCOUNT);
    return 0;
}

/* The new operation's record from the request, on table t. */
static void fill_desc(struct bulk_desc *d, const struct bulk_request *r, const struct table *t,
                      int64_t now_ms)
{
    memset(d, 0, sizeof *d);
    d->arn = new_bulk_arn(t->arn, now_ms);
    d->table_name = xstrdup(t->def.name);
    d->table_arn = xstrdup(t->arn);
    d->table_id = xstrdup(t->table_id);
    d->client_token = xstrdup_or_null(r->client_token);
    d->in_bucket = xstrdup_or_null(r->in_bucket);
    d->in_bucket_owner = xstrdup_or_null(r->in_bucket_owner);
    d->in_prefix = xstrdup_or_null(r->in_prefix);
    d->in_format = xstrdup_or_null(r->in_format);
    d->in_compression = xstrdup_or_null(r->in_compression);
    for (size_t i = 0; i < r->out_type_count && i < BULK_MAX_OUTPUT_TYPES; i++)
        d->out_types[d->out_type_count++] = xstrdup(r->out_types[i]);
    d->out_bucket = xstrdup_or_null(r->out_bucket);
    d->out_bucket_owner = xstrdup_or_null(r->out_bucket_owner);
    d->out_prefix = xstrdup_or_null(r->out_prefix);
    d->out_sse_algorithm = xstrdup_or_null(r->out_sse_algorithm);
    d->out_sse_kms_key_id = xstrdup_or_null(r->out_sse_kms_key_id);
    d->has_max_wru = r->has_max_wru;
    d->max_wru = r->max_wru;
    d->performance_tier = xstrdup(r->performance_tier ? r->performance_tier : "STANDARD");
    d->status = BULK_IN_PROGRESS;
    d->start_ms = now_ms;
    /* BulkOperationUsage lists every secondary and vector index, each from 0. */
    if (t->index_count + t->vector_count)
        d->indexes = xcalloc(t->index_count + t->vector_count, sizeof *d->indexes);
    for (size_t i = 0; i < t->index_count; i++) {
        d->indexes[i].name = xstrdup(t->indexes[i].def->name);
        d->indexes[i].global = t->indexes[i].def->is_global;
    }
    for (size_t i = 0; i < t->vector_count; i++) {
        d->indexes[t->index_count + i].name = xstrdup(t->vectors[i].def->name);
        d->indexes[t->index_count + i].vector = true;
    }
    d->index_count = t->index_count + t->vector_count;
}

int db_bulk_begin(struct db *db, const struct db_scope *scope, const struct bulk_request *r,
                  struct bulk_desc *out, struct ddb_error *err)
{
    struct table *t;
    struct bulk_job *job;
    int64_t now_ms;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_write_lock(db);
    now_ms = db_now_ms(db);
    /* A retry with the same token answers the operation it started. */
    for (size_t i = 0; r->client_token && i < db->bulk.count; i++) {
        job = &db->bulk.jobs[i];
        if (strcmp(job->namespace_id, scope->namespace_id) != 0 || !job->desc.client_token ||
            strcmp(job->desc.client_token, r->client_token) != 0 ||
            job->desc.start_ms + BULK_TOKEN_TTL_MS < now_ms)
            continue;
        if (!same_request(&job->desc, r)) {
            /* The exception's documentation (API reference), as a message: ours. */
            ddb_error_set(err, DDB_IDEMPOTENT_PARAMETER_MISMATCH,
                          "DynamoDB rejected the request because you retried a request with a "
                          "different payload but with an idempotent token that was already used.");
            goto out;
        }
        bulk_desc_copy(out, &job->desc);
        rc = 1;
        goto out;
    }
    t = db_find_table(db, scope, r->table_name);
    if (!t) {
        ddb_error_table_not_found(err, r->table_name); /* DescribeTable's words */
        goto out;
    }
    if (check_table_state(t, now_ms, err) != 0) goto out;
    if (check_quotas(db, scope, t->arn, err) != 0) goto out;
    db->bulk.jobs = xrealloc(db->bulk.jobs, sizeof *db->bulk.jobs * (db->bulk.count + 1));
    job = &db->bulk.jobs[db->bulk.count++];
    memset(job, 0, sizeof *job);
    job->namespace_id = xstrdup(scope->namespace_id);
    fill_desc(&job->desc, r, t, now_ms);
    persist_bulk(db, job->namespace_id, &job->desc);
    bulk_desc_copy(out, &job->desc);
    atomic_fetch_add(&db->bulk.running, 1);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

/* Whether the operation's worker is to stop; caller holds the lock. */
static bool must_stop(struct db *db, const struct bulk_job *job)
{
    assert_lock_held();
    return !job || job->cancel_requested || atomic_load(&db->bulk.stopping);
}

/* Counts a written item's bytes into the operation's BulkOperationUsage: the
 * item's size for the table, its projected size for each index it is in.
 * Caller holds the lock. */
static void count_usage(struct bulk_desc *d, const struct table *t, const struct item *item)
{
    assert_lock_held();
    d->table_bytes += (int64_t) item->size_bytes;
    for (size_t i = 0; i < t->index_count; i++) {
        struct row_key key;
        for (size_t u = 0; u < d->index_count; u++) {
            if (strcmp(d->indexes[u].name, t->indexes[i].def->name) != 0) continue;
            if (index_item_key(&t->indexes[i], item, &key))
                d->indexes[u].bytes += (int64_t) index_projected_size(&t->indexes[i], item);
        }
    }
    /* A vector index: its entry's bytes (vector_index_entry_size), without
     * the 1 KB floor of a write request (BulkPutBytes has none either). */
    for (size_t i = 0; i < t->vector_count; i++) {
        for (size_t u = 0; u < d->index_count; u++) {
            if (!d->indexes[u].vector || strcmp(d->indexes[u].name, t->vectors[i].def->name) != 0)
                continue;
            d->indexes[u].bytes +=
                (int64_t) vector_index_entry_size(&t->vectors[i], &t->def.key, item);
        }
    }
}

/* One item through prepare, evaluate and apply; caller holds the lock
 * exclusively. */
static void bulk_put_one(struct db *db, const struct db_scope *scope, struct bulk_job *job,
                         struct bulk_put *p)
{
    struct write_op op = {.kind = WRITE_PUT,
                          .table_name = job->desc.table_name,
                          .put_item = p->item,
                          .condition = p->condition};
    struct prepared_write pw;
    struct key_numbers nums;
    struct consumed_capacity c = {0};
    struct table *t;
    struct ddb_error e = {0};

    assert_lock_exclusive();
    memset(&pw, 0, sizeof pw);
    job->desc.processed_items++;
    /* PutItem's answer to the same item. */
    if (item_check_size(p->item->size_bytes, ITEM_SIZE_GIVEN, &e) != 0) goto invalid;
    if (write_prepare(db, scope, &op, &nums, &pw, &e) != 0) goto invalid;
    pw.throttle = false; /* paced by MaxWriteRequestUnits, not the table's buckets */
    if (write_evaluate(&pw, &e) != 0) goto invalid;
    if (!pw.matched) {
        p->outcome = BULK_PUT_CONDITION_FAILED;
        p->existing = item_ref(pw.old);
        job->desc.condition_failed_items++;
        pw.t->insight->conditional_check_failed++;
        prepared_write_clear(&pw);
        return;
    }
    t = pw.t;
    count_usage(&job->desc, t, p->item);
    write_apply(&pw, RETURN_CAPACITY_TOTAL, 1.0, &c);
    p->outcome = BULK_PUT_WRITTEN;
    p->write_units = c.write_units;
    consumed_capacity_clear(&c);
    return;
invalid:
    prepared_write_clear(&pw);
    p->outcome = BULK_PUT_INVALID;
    p->message = xstrdup(e.message ? e.message : "The item is not valid");
    job->desc.failed_items++;
    ddb_error_clear(&e);
}

int db_bulk_put(struct db *db, const struct db_scope *scope, const char *arn, struct bulk_put *puts,
                size_t count, int64_t *rate)
{
    struct bulk_job *job;
    int rc = 0;

    *rate = 0;
    db_write_lock(db);
    job = bulk_find_job(db, scope->namespace_id, arn);
    if (must_stop(db, job)) {
        rc = 1;
        goto out;
    }
    if (db->aws_throughput && job->desc.has_max_wru) *rate = job->desc.max_wru;
    if (!db_find_table(db, scope, job->desc.table_name)) {
        rc = -1; /* deleted while the operation ran */
        goto out;
    }
    for (size_t i = 0; i < count; i++)
        bulk_put_one(db, scope, job, &puts[i]);
    persist_bulk(db, job->namespace_id, &job->desc);
out:
    db_unlock(db);
    return rc;
}

void bulk_puts_clear(struct bulk_put *puts, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        item_unref(puts[i].existing);
        free(puts[i].message);
        puts[i].existing = NULL;
        puts[i].message = NULL;
    }
}

bool db_bulk_progress(struct db *db, const char *arn, const struct bulk_progress *p)
{
    struct bulk_job *job;
    bool stop;

    db_write_lock(db);
    job = bulk_find_job(db, NULL, arn);
    if (job) {
        job->desc.failed_items += p->failed_items;
        job->desc.processed_items += p->failed_items;
        job->desc.processed_bytes += p->processed_bytes;
        if (p->has_total_bytes) {
            job->desc.has_total_bytes = true;
            job->desc.total_bytes = p->total_bytes;
        }
        persist_bulk(db, job->namespace_id, &job->desc);
    }
    stop = must_stop(db, job);
    db_unlock(db);
    return stop;
}

void db_bulk_finish(struct db *db, const char *arn, const char *failure_code,
                    const char *failure_message)
{
    struct bulk_job *job;

    db_write_lock(db);
    job = bulk_find_job(db, NULL, arn);
    if (job) {
        struct bulk_desc *d = &job->desc;
        /* Stopped by the emulator's close, not by its input: it did not end. */
        if (!job->cancel_requested && atomic_load(&db->bulk.stopping)) {
            failure_code = BULK_INTERRUPTED_CODE;
            failure_message = BULK_INTERRUPTED_MESSAGE;
        }
        if (job->cancel_requested)
            d->status = BULK_CANCELLED;
        else if (failure_code)
            d->status = BULK_FAILED;
        else
            d->status = d->failed_items ? BULK_COMPLETED_WITH_ERRORS : BULK_COMPLETED;
        d->end_ms = db_now_ms(db);
        /* FailureCode and FailureMessage: "only when FAILED or CANCELLED". */
        if (d->status == BULK_FAILED) {
            d->failure_code = xstrdup(failure_code);
            d->failure_message = xstrdup_or_null(failure_message);
        }
        persist_bulk(db, job->namespace_id, d);
    }
    db_unlock(db);
    atomic_fetch_sub(&db->bulk.running, 1);
}

int db_describe_bulk(struct db *db, const struct db_scope *scope, const char *arn,
                     struct bulk_desc *out, struct ddb_error *err)
{
    const struct bulk_job *job;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    job = bulk_find_job(db, scope->namespace_id, arn);
    if (job) {
        bulk_desc_copy(out, &job->desc);
        rc = 0;
    }
    db_unlock(db);
    /* Ours: the exception is documented, its text is not. */
    if (rc != 0)
        ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                      "Requested resource not found: Bulk operation: "
                      "%s not found",
                      arn);
    return rc;
}

void db_list_bulk(struct db *db, const struct db_scope *scope, size_t skip, size_t limit,
                  struct bulk_desc **out, size_t *count, bool *more)
{
    size_t seen = 0;
    int64_t since;

    *out = NULL;
    *count = 0;
    *more = false;
    db_read_lock(db);
    since = db_now_ms(db) - BULK_LIST_WINDOW_MS;
    /* "with the most recent operations first" (API reference). */
    for (size_t i = db->bulk.count; i-- > 0;) {
        const struct bulk_job *job = &db->bulk.jobs[i];
        if (strcmp(job->namespace_id, scope->namespace_id) != 0 || job->desc.start_ms < since)
            continue;
        if (seen++ < skip) continue;
        if (*count == limit) {
            *more = true;
            break;
        }
        *out = xrealloc(*out, sizeof **out * (*count + 1));
        bulk_desc_copy(&(*out)[(*count)++], &job->desc);
    }
    db_unlock(db);
}

int db_cancel_bulk(struct db *db, const struct db_scope *scope, const char *arn,
                   enum bulk_status *status, struct ddb_error *err)
{
    struct bulk_job *job;
    int rc = -1;

    db_write_lock(db);
    job = bulk_find_job(db, scope->namespace_id, arn);
    if (!job) {
        /* Ours, as DescribeBulkOperation's. */
        ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                      "Requested resource not found: Bulk operation: %s not found", arn);
        goto out;
    }
    if (bulk_status_is_final(job->desc.status)) {
        /* What AWS answers for an operation that has ended is not documented: ours. */
        ddb_error_set(err, DDB_VALIDATION, "Bulk operation %s cannot be cancelled because it is %s",
                      arn, bulk_status_name(job->desc.status));
        goto out;
    }
    job->cancel_requested = true;
    job->desc.status = BULK_CANCELLING;
    persist_bulk(db, job->namespace_id, &job->desc);
    *status = BULK_CANCELLING;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
