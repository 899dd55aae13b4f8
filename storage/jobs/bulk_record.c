/*
 * bulk_record.c - bulk put items operations as records: status names,
 * copying and freeing descriptions, forgetting the records, and waiting for
 * the operations still running when the engine closes.
 *
 * Kept apart from storage/control/bulk.c (which runs the entry points and
 * reads tables) so that the engine can free and wait for what it owns
 * without depending on that code. Locking: bulk_jobs_forget needs the engine
 * lock held exclusively (asserted); bulk_jobs_stop must be called without it
 * (the workers it waits for take it); the rest works on caller-owned data.
 */
#include "storage/jobs/bulk_record.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *bulk_status_name(enum bulk_status s)
{
    static const char *const names[] = {"IN_PROGRESS", "COMPLETED",  "COMPLETED_WITH_ERRORS",
                                        "FAILED",      "CANCELLING", "CANCELLED"};
    return names[s];
}

bool bulk_status_is_final(enum bulk_status s)
{
    return s != BULK_IN_PROGRESS && s != BULK_CANCELLING;
}

void bulk_desc_clear(struct bulk_desc *d)
{
    char **strings[] = {
        &d->arn,          &d->table_name,        &d->table_arn,          &d->table_id,
        &d->client_token, &d->in_bucket,         &d->in_bucket_owner,    &d->in_prefix,
        &d->in_format,    &d->in_compression,    &d->out_bucket,         &d->out_bucket_owner,
        &d->out_prefix,   &d->out_sse_algorithm, &d->out_sse_kms_key_id, &d->performance_tier,
        &d->failure_code, &d->failure_message};

    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        free(*strings[i]);
    for (size_t i = 0; i < d->out_type_count; i++)
        free(d->out_types[i]);
    for (size_t i = 0; i < d->index_count; i++)
        free(d->indexes[i].name);
    free(d->indexes);
    memset(d, 0, sizeof *d);
}

void bulk_desc_copy(struct bulk_desc *dst, const struct bulk_desc *src)
{
    *dst = *src;
    dst->arn = xstrdup_or_null(src->arn);
    dst->table_name = xstrdup_or_null(src->table_name);
    dst->table_arn = xstrdup_or_null(src->table_arn);
    dst->table_id = xstrdup_or_null(src->table_id);
    dst->client_token = xstrdup_or_null(src->client_token);
    dst->in_bucket = xstrdup_or_null(src->in_bucket);
    dst->in_bucket_owner = xstrdup_or_null(src->in_bucket_owner);
    dst->in_prefix = xstrdup_or_null(src->in_prefix);
    dst->in_format = xstrdup_or_null(src->in_format);
    dst->in_compression = xstrdup_or_null(src->in_compression);
    for (size_t i = 0; i < src->out_type_count; i++)
        dst->out_types[i] = xstrdup(src->out_types[i]);
    dst->out_bucket = xstrdup_or_null(src->out_bucket);
    dst->out_bucket_owner = xstrdup_or_null(src->out_bucket_owner);
    dst->out_prefix = xstrdup_or_null(src->out_prefix);
    dst->out_sse_algorithm = xstrdup_or_null(src->out_sse_algorithm);
    dst->out_sse_kms_key_id = xstrdup_or_null(src->out_sse_kms_key_id);
    dst->performance_tier = xstrdup_or_null(src->performance_tier);
    dst->failure_code = xstrdup_or_null(src->failure_code);
    dst->failure_message = xstrdup_or_null(src->failure_message);
    dst->indexes = NULL;
    if (src->index_count) {
        dst->indexes = xmalloc(sizeof *dst->indexes * src->index_count);
        for (size_t i = 0; i < src->index_count; i++) {
            dst->indexes[i] = src->indexes[i];
            dst->indexes[i].name = xstrdup(src->indexes[i].name);
        }
    }
}

void bulk_jobs_forget(struct bulk_jobs *j, const char *namespace_id)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < j->count; i++) {
        struct bulk_job *job = &j->jobs[i];
        if (!namespace_id || strcmp(job->namespace_id, namespace_id) == 0) {
            free(job->namespace_id);
            bulk_desc_clear(&job->desc);
        } else {
            j->jobs[kept++] = *job;
        }
    }
    j->count = kept;
    if (!kept) {
        free(j->jobs);
        j->jobs = NULL;
    }
}

void bulk_jobs_stop(struct bulk_jobs *j)
{
    const struct timespec pause = {0, 1000000}; /* 1 ms */

    atomic_store(&j->stopping, true);
    while (atomic_load(&j->running) > 0)
        nanosleep(&pause, NULL);
}
