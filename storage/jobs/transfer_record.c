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

/* The strings each description owns, listed once so that clearing and
 * copying cannot disagree (a member copied but not freed would leak, one freed
 * but not copied would be freed twice). table_def, the one owned member that
 * is no string, is handled beside them. */
#define EXPORT_DESC_STRINGS(X)                                                                     \
    X(arn);                                                                                        \
    X(table_arn);                                                                                  \
    X(table_id);                                                                                   \
    X(client_token);                                                                               \
    X(s3_bucket);                                                                                  \
    X(s3_bucket_owner);                                                                            \
    X(s3_prefix);                                                                                  \
    X(s3_sse_algorithm);                                                                           \
    X(s3_sse_kms_key_id);                                                                          \
    X(format);                                                                                     \
    X(export_type);                                                                                \
    X(view_type);                                                                                  \
    X(manifest_key);                                                                               \
    X(failure_code);                                                                               \
    X(failure_message)
#define IMPORT_DESC_STRINGS(X)                                                                     \
    X(arn);                                                                                        \
    X(table_arn);                                                                                  \
    X(table_id);                                                                                   \
    X(client_token);                                                                               \
    X(s3_bucket);                                                                                  \
    X(s3_bucket_owner);                                                                            \
    X(s3_key_prefix);                                                                              \
    X(format);                                                                                     \
    X(compression);                                                                                \
    X(failure_code);                                                                               \
    X(failure_message)

/* One owned string m of a description: freed in d, or copied from src to dst. */
#define FREE_STRING(m) free(d->m)
#define COPY_STRING(m) dst->m = xstrdup_or_null(src->m)

void export_filter_text_clear(struct export_filter_text *f)
{
    free(f->filter_expression);
    free(f->key_condition_expression);
    free(f->projection_expression);
    value_clear(&f->names);
    value_clear(&f->values);
    memset(f, 0, sizeof *f);
    value_init_null(&f->names);
    value_init_null(&f->values);
}

void export_filter_text_copy(struct export_filter_text *dst, const struct export_filter_text *src)
{
    dst->filter_expression = xstrdup_or_null(src->filter_expression);
    dst->key_condition_expression = xstrdup_or_null(src->key_condition_expression);
    dst->projection_expression = xstrdup_or_null(src->projection_expression);
    value_copy(&dst->names, &src->names);
    value_copy(&dst->values, &src->values);
}

static bool same_or_both_null(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool export_filter_text_equal(const struct export_filter_text *a,
                              const struct export_filter_text *b)
{
    if (!a || !b) return a == b;
    return same_or_both_null(a->filter_expression, b->filter_expression) &&
           same_or_both_null(a->key_condition_expression, b->key_condition_expression) &&
           same_or_both_null(a->projection_expression, b->projection_expression) &&
           value_equal(&a->names, &b->names) && value_equal(&a->values, &b->values);
}

void export_desc_clear(struct export_desc *d)
{
    EXPORT_DESC_STRINGS(FREE_STRING);
    if (d->filter) export_filter_text_clear(d->filter);
    free(d->filter);
    memset(d, 0, sizeof *d);
}

void export_desc_copy(struct export_desc *dst, const struct export_desc *src)
{
    *dst = *src;
    EXPORT_DESC_STRINGS(COPY_STRING);
    if (src->filter) {
        dst->filter = xcalloc(1, sizeof *dst->filter);
        export_filter_text_copy(dst->filter, src->filter);
    }
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
    IMPORT_DESC_STRINGS(FREE_STRING);
    table_def_clear(&d->table_def);
    memset(d, 0, sizeof *d);
}

void import_desc_copy(struct import_desc *dst, const struct import_desc *src)
{
    *dst = *src;
    IMPORT_DESC_STRINGS(COPY_STRING);
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
