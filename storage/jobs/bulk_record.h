/*
 * bulk_record.h - bulk put items operations as records: their descriptions,
 * the list the engine keeps, and the count of operations still running
 * (bulk_record.c).
 *
 * Below storage/engine/ so that the engine frees the records it owns and
 * waits for running operations at close by calling down; the entry points
 * that start, feed, finish, describe, list and cancel them are in
 * storage/control/bulk.c. Ownership: every string of a description is owned
 * by it; the list owns its jobs.
 */
#ifndef DDB_JOBS_BULK_RECORD_H
#define DDB_JOBS_BULK_RECORD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BulkOperationStatus (API reference), in the model's order. */
enum bulk_status {
    BULK_IN_PROGRESS,
    BULK_COMPLETED,
    BULK_COMPLETED_WITH_ERRORS,
    BULK_FAILED,
    BULK_CANCELLING,
    BULK_CANCELLED,
};
const char *bulk_status_name(enum bulk_status s);
/* COMPLETED, COMPLETED_WITH_ERRORS, FAILED or CANCELLED: nothing changes any more. */
bool bulk_status_is_final(enum bulk_status s);

/* The FailureCode and FailureMessage of an operation the emulator stopped
 * before it ended (at close, or found running at start after kill -9): ours,
 * as AWS's operations do not stop with the service (docs/differences.md). */
#define BULK_INTERRUPTED_CODE "InternalServerError"
#define BULK_INTERRUPTED_MESSAGE                                                                   \
    "The emulator stopped while the bulk operation ran; the items written before stay written"

/* BulkPutBytes written into one secondary index, or BulkPutVectorBytes into
 * one vector index. */
struct bulk_index_usage {
    char *name; /* owned */
    bool global;
    bool vector; /* a vector index: BulkPutVectorBytes */
    int64_t bytes;
};

/* OutputType members, as the request listed them (at most both). */
#define BULK_MAX_OUTPUT_TYPES 2

/* A BulkOperationDescription; every string owned, NULL when absent. */
struct bulk_desc {
    char *arn;
    char *table_name;
    char *table_arn;
    char *table_id;
    char *client_token;
    /* InputS3Configuration */
    char *in_bucket;
    char *in_bucket_owner;
    char *in_prefix;
    char *in_format;      /* DYNAMODB_JSON or ION */
    char *in_compression; /* GZIP, ZSTD or NONE; NULL when not given */
    /* OutputS3Configuration */
    char *out_types[BULK_MAX_OUTPUT_TYPES]; /* ERROR, CONDITION_CHECK_FAILURE */
    size_t out_type_count;
    char *out_bucket;
    char *out_bucket_owner;
    char *out_prefix;
    char *out_sse_algorithm;
    char *out_sse_kms_key_id;
    bool has_max_wru;
    int64_t max_wru;        /* MaxWriteRequestUnits */
    char *performance_tier; /* STANDARD when the request had none */
    enum bulk_status status;
    int64_t start_ms, end_ms; /* end_ms 0 while the operation runs */
    int64_t processed_items;  /* written, failed and condition-check failed */
    int64_t failed_items;     /* parsing or validation errors */
    int64_t condition_failed_items;
    int64_t processed_bytes; /* of the input objects read so far */
    bool has_total_bytes;
    int64_t total_bytes; /* of every input object, once listed */
    int64_t table_bytes; /* BulkOperationUsage: BulkPutBytes of the table */
    struct bulk_index_usage *indexes;
    size_t index_count;
    char *failure_code;
    char *failure_message;
};

void bulk_desc_clear(struct bulk_desc *d);
void bulk_desc_copy(struct bulk_desc *dst, const struct bulk_desc *src);

/* One operation, the namespace it belongs to, and whether a
 * CancelBulkOperation asked it to stop. */
struct bulk_job {
    char *namespace_id;
    struct bulk_desc desc;
    bool cancel_requested;
};

/* Every bulk operation the engine holds, in start order. running counts the
 * operations started and not yet finished (their workers run outside the
 * engine lock); stopping asks them to end, when the engine closes. */
struct bulk_jobs {
    struct bulk_job *jobs;
    size_t count;
    atomic_int running;
    atomic_bool stopping;
};

/* Frees the records of namespace_id (NULL: all); the engine lock is held
 * exclusively. A running operation whose record is gone finishes unseen. */
void bulk_jobs_forget(struct bulk_jobs *j, const char *namespace_id);
/* Asks the running operations to stop and waits until none runs. Called
 * without the engine lock (their workers need it to finish). */
void bulk_jobs_stop(struct bulk_jobs *j);

#endif
