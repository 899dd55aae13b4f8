/*
 * transfer_record.c - exports and imports as records: their status names, copying
 * and freeing their descriptions, and forgetting the jobs the engine keeps.
 *
 * Kept apart from storage/control/transfer.c (which runs the jobs and calls
 * into the catalog) so that the engine can free the jobs it owns without
 * depending on the code that runs them. Locking: transfer_jobs_forget needs
 * the engine lock held exclusively (asserted); the rest works on
 * caller-owned data.
 */
#include "storage/jobs/transfer_record.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <stdlib.h>
#include <string.h>

const char *transfer_status_name(enum transfer_status s)
{
    static const char *const names[] = {"IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLING",
                                        "CANCELLED"};
    return names[s];
}

void export_desc_clear(struct export_desc *d)
{
    free(d->arn);
    free(d->table_arn);
    free(d->table_id);
    free(d->client_token);
    free(d->s3_bucket);
    free(d->s3_bucket_owner);
    free(d->s3_prefix);
    free(d->s3_sse_algorithm);
    free(d->s3_sse_kms_key_id);
    free(d->format);
    free(d->export_type);
    free(d->view_type);
    free(d->manifest_key);
    free(d->failure_code);
    free(d->failure_message);
    memset(d, 0, sizeof *d);
}

void export_desc_copy(struct export_desc *dst, const struct export_desc *src)
{
    *dst = *src;
    dst->arn = xstrdup_or_null(src->arn);
    dst->table_arn = xstrdup_or_null(src->table_arn);
    dst->table_id = xstrdup_or_null(src->table_id);
    dst->client_token = xstrdup_or_null(src->client_token);
    dst->s3_bucket = xstrdup_or_null(src->s3_bucket);
    dst->s3_bucket_owner = xstrdup_or_null(src->s3_bucket_owner);
    dst->s3_prefix = xstrdup_or_null(src->s3_prefix);
    dst->s3_sse_algorithm = xstrdup_or_null(src->s3_sse_algorithm);
    dst->s3_sse_kms_key_id = xstrdup_or_null(src->s3_sse_kms_key_id);
    dst->format = xstrdup_or_null(src->format);
    dst->export_type = xstrdup_or_null(src->export_type);
    dst->view_type = xstrdup_or_null(src->view_type);
    dst->manifest_key = xstrdup_or_null(src->manifest_key);
    dst->failure_code = xstrdup_or_null(src->failure_code);
    dst->failure_message = xstrdup_or_null(src->failure_message);
}

bool export_desc_is_incremental(const struct export_desc *d)
{
    return d->view_type != NULL;
}

void export_data_clear(struct export_data *x)
{
    for (size_t i = 0; i < x->item_count; i++)
        item_unref(x->items[i]);
    free(x->items);
    item_changes_free(x->changes, x->change_count);
    memset(x, 0, sizeof *x);
}

void import_desc_clear(struct import_desc *d)
{
    free(d->arn);
    free(d->table_arn);
    free(d->table_id);
    free(d->client_token);
    free(d->s3_bucket);
    free(d->s3_bucket_owner);
    free(d->s3_key_prefix);
    free(d->format);
    free(d->compression);
    free(d->failure_code);
    free(d->failure_message);
    table_def_clear(&d->table_def);
    memset(d, 0, sizeof *d);
}

void import_desc_copy(struct import_desc *dst, const struct import_desc *src)
{
    *dst = *src;
    dst->arn = xstrdup_or_null(src->arn);
    dst->table_arn = xstrdup_or_null(src->table_arn);
    dst->table_id = xstrdup_or_null(src->table_id);
    dst->client_token = xstrdup_or_null(src->client_token);
    dst->s3_bucket = xstrdup_or_null(src->s3_bucket);
    dst->s3_bucket_owner = xstrdup_or_null(src->s3_bucket_owner);
    dst->s3_key_prefix = xstrdup_or_null(src->s3_key_prefix);
    dst->format = xstrdup_or_null(src->format);
    dst->compression = xstrdup_or_null(src->compression);
    dst->failure_code = xstrdup_or_null(src->failure_code);
    dst->failure_message = xstrdup_or_null(src->failure_message);
    table_def_copy(&dst->table_def, &src->table_def);
}

void transfer_jobs_forget(struct transfer_jobs *j, const char *namespace_id)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < j->export_count; i++) {
        struct export_job *job = &j->exports[i];
        if (!namespace_id || strcmp(job->namespace_id, namespace_id) == 0) {
            free(job->namespace_id);
            export_desc_clear(&job->desc);
        } else {
            j->exports[kept++] = *job;
        }
    }
    j->export_count = kept;
    kept = 0;
    for (size_t i = 0; i < j->import_count; i++) {
        struct import_job *job = &j->imports[i];
        if (!namespace_id || strcmp(job->namespace_id, namespace_id) == 0) {
            free(job->namespace_id);
            import_desc_clear(&job->desc);
        } else {
            j->imports[kept++] = *job;
        }
    }
    j->import_count = kept;
}
