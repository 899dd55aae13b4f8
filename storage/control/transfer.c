/*
 * transfer.c - exports and imports: the jobs DynamoDB describes
 * (ExportTableToPointInTime / DescribeExport / ListExports, ImportTable /
 * DescribeImport / ListImports), a table's items for an export, and the
 * items an import brings.
 *
 * Storage keeps the jobs' descriptions and hands out what the files need:
 * an export gets a consistent snapshot (references to immutable items, taken
 * in one critical section) or, for an incremental export, each changed
 * item's net change over its span (table/changes.h); an import creates its
 * table and adds the items through the one write path (so indexes and the
 * journal see them). The
 * files themselves - S3 layout, DYNAMODB_JSON, ION, CSV, gzip - are the api
 * layer's (api/transfer/transfer_files.c): JSON never reaches storage.
 *
 * Jobs finish within the request that starts them (the emulator has no
 * minutes-long background work to model), so a job is IN_PROGRESS only in
 * the answer that starts it, as AWS answers, and COMPLETED (or FAILED) for
 * every later call. Job descriptions live in memory: they are not part of
 * what --db-path keeps (docs/differences.md).
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/control/export_filter.h"
#include "storage/control/jobs.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_tables.h"
#include "storage/jobs/transfer_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* A client token of an export or an import is honoured for 8 hours (API
 * reference, ExportTableToPointInTime and ImportTable ClientToken). */
#define TRANSFER_TOKEN_TTL_MS (8LL * 60 * 60 * 1000)

/* "<table ARN>/export/<14-digit ms>-<8 hex>", the form of AWS's export ARNs
 * (developer guide, S3DataExport.Output: manifest-summary.json exportArn). */
static char *new_job_arn(const char *table_arn, const char *kind, int64_t now_ms)
{
    uint32_t r = 0;
    char buf[64];
    struct text_buf b = {0};

    if (getrandom(&r, sizeof r, 0) != (ssize_t) sizeof r) r = (uint32_t) now_ms * 2654435761U;
    snprintf(buf, sizeof buf, "%014" PRId64 "-%08" PRIx32, now_ms, r);
    text_buf_printf(&b, "%s/%s/%s", table_arn, kind, buf);
    return text_buf_take(&b, NULL);
}

/* ------------------------------------------------------------------------ */
/* the jobs of either kind                                                   */
/* ------------------------------------------------------------------------ */

/* Exports and imports are kept, found and listed alike; the lookups below
 * work on either list through these, and each entry point copies out the
 * description of its own kind. Every lookup runs under the engine lock
 * (asserted in job_count, which each of them calls first). */
enum job_kind { JOB_EXPORT, JOB_IMPORT };

struct job_ref {
    const char *namespace_id;
    const char *arn;
    const char *table_arn;
    const char *client_token;
    int64_t start_ms;
};

static size_t job_count(const struct transfer_jobs *j, enum job_kind kind)
{
    assert_lock_held();
    return kind == JOB_EXPORT ? j->export_count : j->import_count;
}

static struct job_ref job_ref(const struct transfer_jobs *j, enum job_kind kind, size_t i)
{
    if (kind == JOB_EXPORT) {
        const struct export_job *e = &j->exports[i];
        return (struct job_ref){e->namespace_id, e->desc.arn, e->desc.table_arn,
                                e->desc.client_token, e->desc.start_ms};
    }
    const struct import_job *m = &j->imports[i];
    return (struct job_ref){m->namespace_id, m->desc.arn, m->desc.table_arn, m->desc.client_token,
                            m->desc.start_ms};
}

/* The index of the job named arn, in namespace_id (NULL: in any), or -1. */
static long find_job(const struct transfer_jobs *j, enum job_kind kind, const char *namespace_id,
                     const char *arn)
{
    for (size_t i = 0; i < job_count(j, kind); i++) {
        struct job_ref r = job_ref(j, kind, i);
        if ((!namespace_id || strcmp(r.namespace_id, namespace_id) == 0) && strcmp(r.arn, arn) == 0)
            return (long) i;
    }
    return -1;
}

/* The index of the job of namespace_id that client_token started less than
 * 8 hours before now_ms, or -1 (also for no token). */
static long find_job_by_token(const struct transfer_jobs *j, enum job_kind kind,
                              const char *namespace_id, const char *client_token, int64_t now_ms)
{
    for (size_t i = 0; client_token && i < job_count(j, kind); i++) {
        struct job_ref r = job_ref(j, kind, i);
        if (strcmp(r.namespace_id, namespace_id) == 0 && r.client_token &&
            strcmp(r.client_token, client_token) == 0 &&
            r.start_ms + TRANSFER_TOKEN_TTL_MS >= now_ms)
            return (long) i;
    }
    return -1;
}

/* The indexes of the jobs one page of a List call holds (owned; *count of
 * them): the jobs of scope's namespace, of table_arn unless it is NULL, in
 * start order or newest first, the first skip passed over, at most limit;
 * *more when some are left after the page. */
static size_t *list_jobs(const struct transfer_jobs *j, enum job_kind kind, bool newest_first,
                         const struct db_scope *scope, const char *table_arn, size_t skip,
                         size_t limit, size_t *count, bool *more)
{
    size_t n = job_count(j, kind), seen = 0;
    size_t *page = xmalloc(sizeof *page * (n ? n : 1));

    *count = 0;
    *more = false;
    for (size_t k = 0; k < n; k++) {
        size_t i = newest_first ? n - 1 - k : k;
        struct job_ref r = job_ref(j, kind, i);
        if (strcmp(r.namespace_id, scope->namespace_id) != 0) continue;
        if (table_arn && strcmp(r.table_arn, table_arn) != 0) continue;
        if (seen++ < skip) continue;
        if (*count == limit) {
            *more = true;
            break;
        }
        page[(*count)++] = i;
    }
    return page;
}

/* ------------------------------------------------------------------------ */
/* exports                                                                   */
/* ------------------------------------------------------------------------ */

static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool is_incremental(const struct export_request *r)
{
    return r->export_type && strcmp(r->export_type, "INCREMENTAL_EXPORT") == 0;
}

/* Whether two export requests are the same, for a ClientToken retry: any
 * member that differs makes the retry a conflict (observed on AWS for the
 * table, bucket, owner, prefix, format and SSE algorithm; the incremental
 * span and view are ours to compare, an omitted ExportToTime matching the
 * time the first request resolved it to). */
static bool same_export(const struct export_desc *a, const struct export_request *r)
{
    bool incremental = is_incremental(r);

    if (!same_text(a->view_type, incremental ? r->view_type : NULL)) return false;
    if (incremental && (a->from_ms != r->from_ms || (r->has_to_time && a->to_ms != r->to_ms)))
        return false;
    return strcmp(a->table_arn, r->table_arn) == 0 && strcmp(a->s3_bucket, r->s3_bucket) == 0 &&
           same_text(a->s3_bucket_owner, r->s3_bucket_owner) &&
           same_text(a->s3_prefix, r->s3_prefix) &&
           same_text(a->s3_sse_algorithm, r->s3_sse_algorithm ? r->s3_sse_algorithm : "AES256") &&
           same_text(a->s3_sse_kms_key_id, r->s3_sse_kms_key_id) &&
           strcmp(a->format, r->format) == 0 &&
           same_text(a->export_type ? a->export_type : "FULL_EXPORT",
                     r->export_type ? r->export_type : "FULL_EXPORT") &&
           export_filter_text_equal(a->filter, r->filter_text);
}

/* AWS's answer to a ClientToken reused with other parameters (observed for
 * ImportTable; ExportTableToPointInTime's starts the same way). */
#define DUPLICATE_REQUEST_MESSAGE "Duplicate request detected with conflicting parameters"

/* An incremental export's span: at least 15 minutes, at most 24 hours
 * (developer guide, "Incremental export"; ServiceQuotas: "Maximum
 * Incremental Export period window" 24 hours). */
#define INCREMENTAL_MIN_MS (15LL * 60 * 1000)
#define INCREMENTAL_MAX_MS (24LL * 60 * 60 * 1000)

/* The time form of AWS's incremental export messages: "2026-10-08T22:51:50Z". */
static void iso_seconds(int64_t ms, char out[40])
{
    time_t secs = (time_t) (ms / 1000);
    struct tm tm;

    if (!gmtime_r(&secs, &tm) || !strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, 40, "%lld", (long long) secs);
}

/* Checks an incremental export's span [from, to) against t's recovery
 * window, in the order AWS reports (observed): the from time within the
 * window (without point-in-time recovery there is none, and AWS answers this
 * same InvalidExportTimeException rather than
 * PointInTimeRecoveryUnavailableException), the to time not after now, the
 * span at least 15 minutes (an inverted span too) and at most 24 hours; then
 * ExportTime, which is no member of an incremental export. *to_ms is the to
 * time, now when the request has none ("the latest time with data
 * available": observed to be the time of the request). The texts are AWS's,
 * recorded, but where marked. */
static int check_incremental_span(const struct table *t, int64_t now_ms,
                                  const struct export_request *r, int64_t *to_ms,
                                  struct ddb_error *err)
{
    int64_t earliest = 0, latest = 0;
    char when[40];

    *to_ms = r->has_to_time ? r->to_ms : now_ms;
    if (t->pitr.enabled) pitr_window(t, now_ms, &earliest, &latest);
    if (!t->pitr.enabled || r->from_ms < earliest) {
        iso_seconds(r->from_ms, when);
        return ddb_error_set(err, DDB_INVALID_EXPORT_TIME,
                             "Incremental export period from time cannot be less than the table "
                             "creation time : %s",
                             when);
    }
    if (*to_ms > now_ms) {
        iso_seconds(*to_ms, when);
        return ddb_error_set(err, DDB_INVALID_EXPORT_TIME,
                             "Incremental export period to time cannot be greater than the current "
                             "time : %s",
                             when);
    }
    if (*to_ms < r->from_ms || *to_ms - r->from_ms < INCREMENTAL_MIN_MS)
        return ddb_error_set(err, DDB_INVALID_EXPORT_TIME,
                             "Difference between export period from time and export period to "
                             "time is less than 15 minutes");
    if (*to_ms - r->from_ms > INCREMENTAL_MAX_MS) /* Not recorded from AWS. */
        return ddb_error_set(err, DDB_INVALID_EXPORT_TIME,
                             "Difference between export period from time and export period to "
                             "time is more than 24 hours");
    if (r->has_export_time) /* Not recorded from AWS (its window check came first). */
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid Request: ExportTime should not be provided when export type "
                             "is set as Incremental Export");
    return 0;
}

int db_export_begin(struct db *db, const struct db_scope *scope, const struct export_request *r,
                    struct export_desc *out, struct export_data *data, struct ddb_error *err)
{
    struct table *t;
    struct export_job *job;
    struct key_condition kc;
    bool have_kc = false;
    int64_t now_ms, earliest, latest, to_ms = 0;
    bool incremental = is_incremental(r);
    size_t n = 0;
    long retry;
    int rc = -1;

    memset(out, 0, sizeof *out);
    memset(data, 0, sizeof *data);
    db_write_lock(db);
    now_ms = db_now_ms(db);
    /* A retry with the same token answers the job it started (for 8 hours);
     * the same token with other parameters is a conflict. */
    retry =
        find_job_by_token(&db->transfers, JOB_EXPORT, scope->namespace_id, r->client_token, now_ms);
    if (retry >= 0) {
        job = &db->transfers.exports[retry];
        if (!same_export(&job->desc, r)) {
            ddb_error_set(err, DDB_EXPORT_CONFLICT, DUPLICATE_REQUEST_MESSAGE);
            goto out;
        }
        export_desc_copy(out, &job->desc);
        rc = 1; /* nothing to write: the files are there */
        goto out;
    }
    t = db_find_table_by_arn(db, scope, r->table_arn);
    if (!t) {
        ddb_error_backup_table_not_found(err, r->table_arn);
        goto out;
    }
    if (incremental) {
        if (check_incremental_span(t, now_ms, r, &to_ms, err) != 0) goto out;
    } else if (!t->pitr.enabled) {
        /* Not recorded from AWS (the exception is documented, its text is not). */
        ddb_error_set(err, DDB_POINT_IN_TIME_RECOVERY_UNAVAILABLE,
                      "Point in time recovery is not enabled for table '%s'", t->def.name);
        goto out;
    }
    /* The window DescribeContinuousBackups reports: from when PITR was
     * turned on (at most RecoveryPeriodInDays back) to the latest restorable
     * time, about five minutes ago. */
    pitr_window(t, now_ms, &earliest, &latest);
    if (!incremental && r->has_export_time && (r->export_ms < earliest || r->export_ms > latest)) {
        /* Not recorded from AWS (the exception is documented, its text is not). */
        ddb_error_set(err, DDB_INVALID_EXPORT_TIME,
                      "Export time must be within the point in time recovery window");
        goto out;
    }
    if (export_filter_check(t, r, &kc, err) != 0) goto out;
    have_kc = true;

    db->transfers.exports = xrealloc(db->transfers.exports, sizeof *db->transfers.exports *
                                                                (db->transfers.export_count + 1));
    job = &db->transfers.exports[db->transfers.export_count++];
    memset(job, 0, sizeof *job);
    job->namespace_id = xstrdup(scope->namespace_id);
    job->desc.arn = new_job_arn(t->arn, "export", now_ms);
    job->desc.table_arn = xstrdup(t->arn);
    job->desc.table_id = xstrdup(t->table_id);
    job->desc.client_token = xstrdup_or_null(r->client_token);
    job->desc.s3_bucket = xstrdup(r->s3_bucket);
    job->desc.s3_bucket_owner = xstrdup_or_null(r->s3_bucket_owner);
    job->desc.s3_prefix = xstrdup_or_null(r->s3_prefix);
    job->desc.s3_sse_algorithm = xstrdup(r->s3_sse_algorithm ? r->s3_sse_algorithm : "AES256");
    job->desc.s3_sse_kms_key_id = xstrdup_or_null(r->s3_sse_kms_key_id);
    job->desc.format = xstrdup(r->format);
    job->desc.export_type = xstrdup_or_null(r->export_type); /* NULL: not given (FULL_EXPORT) */
    job->desc.status = TRANSFER_IN_PROGRESS;
    job->desc.start_ms = now_ms;
    if (r->filter_text) {
        job->desc.filter = xcalloc(1, sizeof *job->desc.filter);
        export_filter_text_copy(job->desc.filter, r->filter_text);
    }
    job->desc.export_ms = r->has_export_time ? r->export_ms : now_ms;
    if (incremental) {
        /* The summary manifest's exportTime is the span's end (as AWS's). */
        job->desc.export_ms = job->desc.to_ms = to_ms;
        job->desc.from_ms = r->from_ms;
        job->desc.view_type = xstrdup(r->view_type);
    }
    export_desc_copy(out, &job->desc);

    /* The snapshot, in one critical section: the net changes of an
     * incremental export's span, or the table as it was at the export time,
     * both read from its point-in-time history (restore.c reads it the same
     * way), or every item as it is now. */
    if (incremental) {
        table_changes_between(t, r->from_ms, to_ms, &data->changes, &data->change_count);
    } else if (r->has_export_time && r->export_ms < now_ms) {
        table_items_at(t, r->export_ms, &data->items, &data->item_count);
    } else {
        data->items = xmalloc(sizeof *data->items * (t->items.count ? t->items.count : 1));
        for (struct skiplist_node *node = skiplist_first(&t->items); node;
             node = skiplist_next(node))
            data->items[n++] = item_ref(node->item);
        data->item_count = n;
    }
    rc = 0;
out:
    db_unlock(db);
    /* The items are immutable: the filter runs without the lock. */
    if (rc == 0) export_filter_apply(r, &kc, data);
    if (have_kc) key_condition_clear(&kc);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* imports                                                                   */
/* ------------------------------------------------------------------------ */

int db_import_begin(struct db *db, const struct db_scope *scope, const struct import_desc *req,
                    struct table_def *def, struct import_desc *out, struct ddb_error *err)
{
    struct table_desc created;
    struct import_job *job;
    int64_t now_ms = db_now_ms(db);
    char *name = xstrdup(def->name);
    long retry;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    /* A table of that name is refused before the token is looked at: on AWS
     * a retry of a finished import gets ResourceInUseException (observed). */
    if (db_find_table(db, scope, name)) {
        ddb_error_set(err, DDB_RESOURCE_IN_USE, "Table already exists: %s", name);
        goto refused;
    }
    /* A retry with the same token answers the import it started; only another
     * table name is a conflict (observed: another bucket, prefix, format or
     * compression gets the first import back). */
    retry = find_job_by_token(&db->transfers, JOB_IMPORT, scope->namespace_id, req->client_token,
                              now_ms);
    if (retry >= 0) {
        const struct import_desc *first = &db->transfers.imports[retry].desc;
        if (strcmp(first->table_def.name, name) != 0) {
            ddb_error_set(err, DDB_IMPORT_CONFLICT, DUPLICATE_REQUEST_MESSAGE);
        } else {
            import_desc_copy(out, first);
            rc = 1;
        }
        goto refused;
    }
    db_unlock(db);

    /* The table is created as CreateTable creates one (ResourceInUseException
     * when the name is taken); def is taken either way. */
    if (db_create_table(db, scope, def, &created, err) != 0) {
        free(name);
        return -1;
    }
    db_write_lock(db);
    db->transfers.imports = xrealloc(db->transfers.imports, sizeof *db->transfers.imports *
                                                                (db->transfers.import_count + 1));
    job = &db->transfers.imports[db->transfers.import_count++];
    memset(job, 0, sizeof *job);
    import_desc_copy(&job->desc, req);
    job->namespace_id = xstrdup(scope->namespace_id);
    free(job->desc.arn);
    job->desc.arn = new_job_arn(created.arn, "import", now_ms);
    free(job->desc.table_arn);
    job->desc.table_arn = xstrdup(created.arn);
    free(job->desc.table_id);
    job->desc.table_id = xstrdup(created.table_id);
    table_def_clear(&job->desc.table_def);
    table_def_copy(&job->desc.table_def, &created.def);
    job->desc.status = TRANSFER_IN_PROGRESS;
    job->desc.start_ms = now_ms;
    import_desc_copy(out, &job->desc);
    db_unlock(db);
    table_desc_clear(&created);
    free(name);
    return 0;
refused:
    db_unlock(db);
    table_def_clear(def);
    free(name);
    return rc;
}

/* Items per critical section while importing, so that readers are not held up. */
#define IMPORT_BATCH 1000

int db_import_items(struct db *db, const struct db_scope *scope, const char *table_name,
                    struct item **items, size_t count, int64_t *imported, int64_t *errors)
{
    for (size_t i = 0; i < count;) {
        struct table *t;
        struct commit_info info;
        size_t end = i + IMPORT_BATCH < count ? i + IMPORT_BATCH : count;

        db_write_lock(db);
        t = db_find_table(db, scope, table_name);
        if (!t) {
            db_unlock(db);
            return -1; /* deleted while importing */
        }
        info = (struct commit_info){.now_ms = db_now_ms(db), .origin = STREAM_ORIGIN_USER};
        for (; i < end; i++) {
            struct ddb_error err = {0};
            struct row_key key;
            /* An item the table cannot hold (a key missing or of another
             * type) is an import error, counted, as AWS counts them. */
            if (table_check_item_stored(t, items[i], &err) != 0) {
                ddb_error_clear(&err);
                (*errors)++;
                continue;
            }
            table_item_key(t, items[i], &key);
            table_commit_write(t, &key, item_ref(items[i]), &info);
            (*imported)++;
        }
        db_unlock(db);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* after the start: either kind finished, described, listed                  */
/* ------------------------------------------------------------------------ */

int db_export_finish(struct db *db, const char *export_arn, const struct export_result *result)
{
    long i;

    db_write_lock(db);
    i = find_job(&db->transfers, JOB_EXPORT, NULL, export_arn);
    if (i >= 0) {
        struct export_desc *d = &db->transfers.exports[i].desc;
        d->status = result->failure_code ? TRANSFER_FAILED : TRANSFER_COMPLETED;
        d->end_ms = db_now_ms(db);
        d->item_count = result->item_count;
        d->billed_size_bytes = result->billed_size_bytes;
        free(d->manifest_key);
        d->manifest_key = xstrdup_or_null(result->manifest_key);
        free(d->failure_code);
        d->failure_code = xstrdup_or_null(result->failure_code);
        free(d->failure_message);
        d->failure_message = xstrdup_or_null(result->failure_message);
    }
    db_unlock(db);
    return i >= 0 ? 0 : -1;
}

int db_import_finish(struct db *db, const char *import_arn, const struct import_result *result)
{
    long i;

    db_write_lock(db);
    i = find_job(&db->transfers, JOB_IMPORT, NULL, import_arn);
    if (i >= 0) {
        struct import_desc *d = &db->transfers.imports[i].desc;
        d->status = result->failure_code ? TRANSFER_FAILED : TRANSFER_COMPLETED;
        d->end_ms = db_now_ms(db);
        d->processed_items = result->processed_items;
        d->imported_items = result->imported_items;
        d->error_count = result->error_count;
        d->processed_bytes = result->processed_bytes;
        free(d->failure_code);
        d->failure_code = xstrdup_or_null(result->failure_code);
        free(d->failure_message);
        d->failure_message = xstrdup_or_null(result->failure_message);
    }
    db_unlock(db);
    return i >= 0 ? 0 : -1;
}

int db_describe_export(struct db *db, const struct db_scope *scope, const char *export_arn,
                       struct export_desc *out, struct ddb_error *err)
{
    long i;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    i = find_job(&db->transfers, JOB_EXPORT, scope->namespace_id, export_arn);
    if (i >= 0) export_desc_copy(out, &db->transfers.exports[i].desc);
    db_unlock(db);
    /* Not recorded from AWS (the exception is documented, its text is not). */
    if (i < 0) return ddb_error_set(err, DDB_EXPORT_NOT_FOUND, "Export not found: %s", export_arn);
    return 0;
}

int db_describe_import(struct db *db, const struct db_scope *scope, const char *import_arn,
                       struct import_desc *out, struct ddb_error *err)
{
    long i;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    i = find_job(&db->transfers, JOB_IMPORT, scope->namespace_id, import_arn);
    if (i >= 0) import_desc_copy(out, &db->transfers.imports[i].desc);
    db_unlock(db);
    /* Not recorded from AWS (the exception is documented, its text is not). */
    if (i < 0) return ddb_error_set(err, DDB_IMPORT_NOT_FOUND, "Import not found: %s", import_arn);
    return 0;
}

int db_list_exports(struct db *db, const struct db_scope *scope, const char *table_arn, size_t skip,
                    size_t limit, struct export_desc **out, size_t *count, bool *more)
{
    size_t *page;

    db_read_lock(db);
    /* Newest first, as AWS lists them (observed). */
    page = list_jobs(&db->transfers, JOB_EXPORT, true, scope, table_arn, skip, limit, count, more);
    *out = *count ? xcalloc(*count, sizeof **out) : NULL;
    for (size_t k = 0; k < *count; k++)
        export_desc_copy(&(*out)[k], &db->transfers.exports[page[k]].desc);
    db_unlock(db);
    free(page);
    return 0;
}

int db_list_imports(struct db *db, const struct db_scope *scope, const char *table_arn, size_t skip,
                    size_t limit, struct import_desc **out, size_t *count, bool *more)
{
    size_t *page;

    db_read_lock(db);
    /* Oldest first (jobs.h). */
    page = list_jobs(&db->transfers, JOB_IMPORT, false, scope, table_arn, skip, limit, count, more);
    *out = *count ? xcalloc(*count, sizeof **out) : NULL;
    for (size_t k = 0; k < *count; k++)
        import_desc_copy(&(*out)[k], &db->transfers.imports[page[k]].desc);
    db_unlock(db);
    free(page);
    return 0;
}
