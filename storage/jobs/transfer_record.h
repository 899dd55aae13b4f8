/*
 * transfer_record.h - exports and imports as records: their descriptions, how a job
 * came out, what an export writes, and the lists of jobs the engine keeps
 * (transfer_record.c).
 *
 * Below storage/engine/ so that the engine frees its jobs by calling down; the
 * operations that run them are in storage/control/transfer.c. Ownership:
 * every string of a description is owned by it; the lists own their jobs.
 */
#ifndef DDB_JOBS_TRANSFER_RECORD_H
#define DDB_JOBS_TRANSFER_RECORD_H

#include "storage/model/item.h"
#include "storage/model/schema.h"
#include "storage/table/changes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum transfer_status {
    TRANSFER_IN_PROGRESS,
    TRANSFER_COMPLETED,
    TRANSFER_FAILED,
    TRANSFER_CANCELLING,
    TRANSFER_CANCELLED,
};
const char *transfer_status_name(enum transfer_status s);

/* A filtered export's FilterSpecification as its request gave it; every
 * member owned, NULL (names, values: VALUE_NULL) when absent. */
struct export_filter_text {
    char *filter_expression;
    char *key_condition_expression;
    char *projection_expression;
    struct value names;  /* ExpressionAttributeNames: VALUE_M of S */
    struct value values; /* ExpressionAttributeValues: VALUE_M */
};
void export_filter_text_clear(struct export_filter_text *f);
void export_filter_text_copy(struct export_filter_text *dst, const struct export_filter_text *src);
/* Whether two FilterSpecifications are the same (NULL: none). */
bool export_filter_text_equal(const struct export_filter_text *a,
                              const struct export_filter_text *b);

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
    struct export_filter_text *filter; /* owned; NULL: not a filtered export */
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
/* An export or an import, and the namespace it belongs to. */
struct export_job {
    char *namespace_id;
    struct export_desc desc;
};
struct import_job {
    char *namespace_id;
    struct import_desc desc;
};

/* Every export and import the engine holds, in start order. */
struct transfer_jobs {
    struct export_job *exports;
    size_t export_count;
    struct import_job *imports;
    size_t import_count;
};

/* Frees the exports and imports of namespace_id (NULL: all); the engine lock
 * is held exclusively. */
void transfer_jobs_forget(struct transfer_jobs *j, const char *namespace_id);

#endif
