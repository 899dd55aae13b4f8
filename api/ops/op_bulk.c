/*
 * op_bulk.c - StartBulkPutItems, DescribeBulkOperation, ListBulkOperations
 * and CancelBulkOperation.
 *
 * S3 is a local directory, as for exports and imports (op_transfer.c): with
 * --s3-dir DIR, bucket B is DIR/B/. StartBulkPutItems checks the request,
 * has storage record the operation (storage/control/bulk.c: table state,
 * quotas, ClientToken), answers IN_PROGRESS and hands the operation to a
 * worker thread of its own. The worker reads every object under the input
 * prefix (api/transfer/bulk_files.c), decodes each record with PutItem's
 * rules - the item, then its ConditionExpression with its names and values,
 * the unused-names/values check - and writes the items in batches through
 * db_bulk_put, which runs the write path. Between batches it sees a
 * cancellation, and keeps to MaxWriteRequestUnits under --throughput-model
 * aws. At the end it writes the output report and ends the operation.
 *
 * What stops an object (ours; AWS's page on it was not readable): a line that
 * is no JSON object (or no Ion struct) is an ERROR and the rest of its object
 * is skipped; a record that is not a valid item or whose condition is not
 * valid is an ERROR of its own and the next line is read; an object that
 * cannot be read (not gzip, not zstd) is one ERROR. Missing buckets FAIL the
 * operation with S3NoSuchBucket before anything is written, as an import's
 * does.
 *
 * Messages marked "ours" below are not AWS's recorded words
 * (docs/differences.md).
 */
#include "api/ops/expr_params.h"
#include "api/ops/op_transfer.h"
#include "api/ops/ops.h"
#include "api/transfer/bulk_files.h"
#include "api/transfer/transfer_files.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/control/jobs.h"
#include "storage/engine/db.h"
#include "storage/jobs/bulk_record.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const bulk_input_formats[] = {"DYNAMODB_JSON", "ION", NULL};
static const char *const bulk_compressions[] = {"GZIP", "ZSTD", "NONE", NULL};
static const char *const bulk_output_types[] = {"ERROR", "CONDITION_CHECK_FAILURE", NULL};
static const char *const bulk_sse_algorithms[] = {"AES256", "KMS", NULL};
static const char *const bulk_tiers[] = {"STANDARD", "ACCELERATED", NULL};

/* InputS3Configuration (API reference). */
static const struct field input_s3_fields[] = {
    {"S3BucketOwner", F_STRING},
    {"S3Bucket", F_STRING, .required = true, .max_len = 255},
    {"S3KeyPrefix", F_STRING, .max_len = 1024},
    {"InputFormat", F_STRING, .required = true, .choices = bulk_input_formats},
    {"InputCompressionType", F_STRING, .choices = bulk_compressions},
    {0},
};

static const struct field output_type_member = {.type = F_STRING, .choices = bulk_output_types};

/* OutputS3Configuration (API reference). S3Bucket is "Required: No" in the
 * member list but "The S3Bucket and OutputType fields are required" in the
 * shape's text: required here (ours, docs/differences.md). The lengths of
 * OutputType, the prefix and the key id are export's (not readable). */
static const struct field output_s3_fields[] = {
    {"S3BucketOwner", F_STRING},
    {"S3Bucket", F_STRING, .required = true, .max_len = 255},
    {"S3KeyPrefix", F_STRING, .max_len = 1024},
    {"S3SseAlgorithm", F_STRING, .choices = bulk_sse_algorithms},
    {"S3SseKmsKeyId", F_STRING, .min_len = 1, .max_len = 2048},
    {"OutputType", F_LIST, .required = true, .min_len = 1, .max_len = 2,
     .member = &output_type_member},
    {0},
};

const struct field start_bulk_put_items_fields[] = {
    {"ClientToken", F_STRING},
    {"InputS3Configuration", F_STRUCT, .required = true, .shape_name = "InputS3Configuration",
     .children = input_s3_fields},
    {"OutputS3Configuration", F_STRUCT, .required = true, .shape_name = "OutputS3Configuration",
     .children = output_s3_fields},
    SHAPE_TABLE_NAME_FIELD,
    /* "The value must be at least 1,024" (API reference). */
    {"MaxWriteRequestUnits", F_LONG, .has_min = true, .min_value = 1024},
    {"PerformanceTier", F_STRING, .choices = bulk_tiers},
    {0},
};

const struct field describe_bulk_operation_fields[] = {
    {"BulkOperationArn", F_STRING, .required = true, .min_len = 37, .max_len = 1024},
    {0},
};

const struct field list_bulk_operations_fields[] = {
    {"MaxResults", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_BULK_LIST_PAGE},
    {"NextToken", F_STRING, .min_len = 1, .max_len = 1024},
    {0},
};

const struct field cancel_bulk_operation_fields[] = {
    {"BulkOperationArn", F_STRING, .required = true, .min_len = 37, .max_len = 1024},
    {0},
};

/* ------------------------------------------------------------------------ */
/* descriptions                                                              */
/* ------------------------------------------------------------------------ */

static void set_str(json_t *o, const char *key, const char *value)
{
    if (value) json_object_set_new(o, key, json_string(value));
}

static json_t *usage_json(const struct bulk_desc *d)
{
    json_t *u = json_object(), *table = json_object(), *gsis = json_object(), *lsis = json_object(),
           *vectors = json_object(), *list = json_array();

    json_object_set_new(u, "TableName", json_string(d->table_name));
    json_object_set_new(u, "BulkPutBytes", json_integer(d->table_bytes));
    json_object_set_new(table, "BulkPutBytes", json_integer(d->table_bytes));
    json_object_set_new(u, "Table", table);
    for (size_t i = 0; i < d->index_count; i++) {
        json_t *x = json_object();
        if (d->indexes[i].vector) {
            json_object_set_new(x, "BulkPutVectorBytes", json_integer(d->indexes[i].bytes));
            json_object_set_new(vectors, d->indexes[i].name, x);
            continue;
        }
        json_object_set_new(x, "BulkPutBytes", json_integer(d->indexes[i].bytes));
        json_object_set_new(d->indexes[i].global ? gsis : lsis, d->indexes[i].name, x);
    }
    if (json_object_size(lsis))
        json_object_set_new(u, "LocalSecondaryIndexes", lsis);
    else
        json_decref(lsis);
    if (json_object_size(gsis))
        json_object_set_new(u, "GlobalSecondaryIndexes", gsis);
    else
        json_decref(gsis);
    /* VectorIndexes: {index: {"BulkPutVectorBytes": n}} (the model's
     * VectorIndexesBulkVectorBytesMap; BulkPutBytes "excludes bulk put vector
     * bytes"). */
    if (json_object_size(vectors))
        json_object_set_new(u, "VectorIndexes", vectors);
    else
        json_decref(vectors);
    json_array_append_new(list, u);
    return list;
}

/* A BulkOperationDescription, members in the model's order. */
static json_t *bulk_desc_json(const struct bulk_desc *d)
{
    json_t *o = json_object(), *tables = json_array(), *t = json_object(), *in = json_object(),
           *out = json_object(), *types = json_array();

    json_object_set_new(o, "BulkOperationArn", json_string(d->arn));
    json_object_set_new(o, "BulkOperationStatus", json_string(bulk_status_name(d->status)));
    json_object_set_new(t, "TableName", json_string(d->table_name));
    json_object_set_new(t, "TableId", json_string(d->table_id));
    json_array_append_new(tables, t);
    json_object_set_new(o, "TableDetails", tables);
    set_str(o, "ClientToken", d->client_token);
    set_str(in, "S3BucketOwner", d->in_bucket_owner);
    set_str(in, "S3Bucket", d->in_bucket);
    set_str(in, "S3KeyPrefix", d->in_prefix);
    set_str(in, "InputFormat", d->in_format);
    set_str(in, "InputCompressionType", d->in_compression ? d->in_compression : "NONE");
    json_object_set_new(o, "InputS3Configuration", in);
    set_str(out, "S3BucketOwner", d->out_bucket_owner);
    set_str(out, "S3Bucket", d->out_bucket);
    set_str(out, "S3KeyPrefix", d->out_prefix);
    set_str(out, "S3SseAlgorithm", d->out_sse_algorithm);
    set_str(out, "S3SseKmsKeyId", d->out_sse_kms_key_id);
    for (size_t i = 0; i < d->out_type_count; i++)
        json_array_append_new(types, json_string(d->out_types[i]));
    json_object_set_new(out, "OutputType", types);
    json_object_set_new(o, "OutputS3Configuration", out);
    json_object_set_new(o, "StartTime", wire_epoch_seconds(d->start_ms));
    /* "omits this value while the operation remains in progress" */
    if (d->end_ms) json_object_set_new(o, "EndTime", wire_epoch_seconds(d->end_ms));
    json_object_set_new(o, "ProcessedItemCount", json_integer(d->processed_items));
    json_object_set_new(o, "ProcessedInputBytes", json_integer(d->processed_bytes));
    /* "omits this value until the initial input-size calculation completes" */
    if (d->has_total_bytes) json_object_set_new(o, "TotalInputBytes", json_integer(d->total_bytes));
    json_object_set_new(o, "BulkOperationUsage", usage_json(d));
    json_object_set_new(o, "FailedItemCount", json_integer(d->failed_items));
    set_str(o, "FailureCode", d->failure_code);
    set_str(o, "FailureMessage", d->failure_message);
    if (d->has_max_wru) json_object_set_new(o, "MaxWriteRequestUnits", json_integer(d->max_wru));
    set_str(o, "PerformanceTier", d->performance_tier);
    return o;
}

/* ------------------------------------------------------------------------ */
/* the worker                                                                */
/* ------------------------------------------------------------------------ */

/* Records written per db_bulk_put call (one critical section). */
#define BULK_BATCH 100

/* A record decoded and waiting for its batch. */
struct pending {
    struct item *item;
    struct expr_params params; /* the condition's names and values */
    struct expr *condition;
    char *object_key; /* owned */
    size_t line_number;
    char *text; /* the line, for the report */
    size_t len;
    char *error; /* not NULL: the record is no item, for this reason (owned) */
};

struct bulk_worker {
    struct db *db;
    char *namespace_id, *region;
    struct db_scope scope;
    struct bulk_desc d; /* the operation as started (its arn, sources, output types) */
    char *in_dir, *out_dir;
    struct pending batch[BULK_BATCH];
    size_t count;
    struct bulk_report report;
    struct bulk_progress progress; /* not yet handed to storage */
    double units;                  /* write request units written so far */
    struct timespec started;
    bool stop;       /* cancelled, or the engine closing */
    bool table_gone; /* the table was deleted */
};

static void pending_clear(struct pending *p)
{
    item_unref(p->item);
    expr_free(p->condition);
    expr_params_clear(&p->params);
    free(p->object_key);
    free(p->text);
    free(p->error);
    memset(p, 0, sizeof *p);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double) (now.tv_sec - t0->tv_sec) + (double) (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Hands the counters gathered so far to storage; sets w->stop when the
 * operation is to stop. */
static void push_progress(struct bulk_worker *w)
{
    if (db_bulk_progress(w->db, w->d.arn, &w->progress)) w->stop = true;
    memset(&w->progress, 0, sizeof w->progress);
}

/* Keeps the operation at rate units per second: waits until the units
 * written so far fit, a little at a time, so that a cancellation is seen. */
static void keep_pace(struct bulk_worker *w, int64_t rate)
{
    const struct timespec slice = {0, 50 * 1000000};

    while (rate > 0 && !w->stop && w->units / (double) rate > seconds_since(&w->started)) {
        nanosleep(&slice, NULL);
        push_progress(w);
    }
}

/* Writes the batch and reports its failures, in input order. */
static void flush_batch(struct bulk_worker *w)
{
    struct bulk_put puts[BULK_BATCH];
    size_t slot[BULK_BATCH], n = 0;
    int64_t rate = 0;
    int rc = 0;

    push_progress(w);
    if (w->count == 0 || w->stop) goto out;
    memset(puts, 0, sizeof puts);
    for (size_t i = 0; i < w->count; i++) {
        if (w->batch[i].error) continue;
        slot[i] = n;
        puts[n].item = w->batch[i].item;
        puts[n++].condition = w->batch[i].condition;
    }
    if (n) rc = db_bulk_put(w->db, &w->scope, w->d.arn, puts, n, &rate);
    if (rc != 0) {
        w->stop = true;
        w->table_gone = rc < 0;
        goto out;
    }
    for (size_t i = 0; i < w->count; i++) {
        const struct pending *p = &w->batch[i];
        const struct bulk_put *put = p->error ? NULL : &puts[slot[i]];
        if (!put) {
            bulk_report_error(&w->report, p->object_key, p->line_number, p->error, p->text, p->len);
            continue;
        }
        switch (put->outcome) {
        case BULK_PUT_WRITTEN: w->units += put->write_units; break;
        case BULK_PUT_INVALID:
            bulk_report_error(&w->report, p->object_key, p->line_number, put->message, p->text,
                              p->len);
            break;
        case BULK_PUT_CONDITION_FAILED: {
            struct decode_mark mark = item_scratch_mark(); /* a job reads many objects */
            bulk_report_condition(&w->report, p->object_key, p->line_number, item_attrs(p->item),
                                  put->existing ? item_attrs(put->existing) : NULL);
            item_scratch_release(mark);
            break;
        }
        }
    }
    bulk_puts_clear(puts, n);
    keep_pace(w, rate);
out:
    for (size_t i = 0; i < w->count; i++)
        pending_clear(&w->batch[i]);
    w->count = 0;
    /* The job's thread has no requests to reset its scratch: what the batch
     * decoded (conditions' old items) is dead now (storage/model/item.h). */
    item_scratch_reset();
}

/* A bulk record's members (ours, PutItem's names). */
static const struct field record_fields[] = {
    {"Item", F_ATTRIBUTE_MAP, .required = true},
    {"ConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &(const struct field){.type = F_STRING}},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {0},
};

static const char *const record_expressions[] = {"ConditionExpression", NULL};
static const char *const record_legacy[] = {NULL};

/* Decodes a record as PutItem decodes its request: the members' types, the
 * item, its size, then the condition with its names and values. */
static int decode_record(json_t *record, struct pending *p, struct ddb_error *err)
{
    struct value attrs;

    expr_params_init(&p->params);
    if (shape_check(record_fields, record, err) != 0) return -1;
    if (expr_params_check_mix(record, record_expressions, record_legacy, err) != 0) return -1;
    if (wire_value_map_from_json(json_object_get(record, "Item"), &attrs, err) != 0) return -1;
    p->item = item_new(&attrs);
    if (item_check_size(p->item->size_bytes, ITEM_SIZE_GIVEN, err) != 0) return -1;
    if (expr_params_decode(record, &p->params, err) != 0) return -1;
    if (expr_params_parse(&p->params, record, "ConditionExpression", EXPR_CONDITION, &p->condition,
                          err) != 0)
        return -1;
    return expr_params_check_unused(&p->params, err);
}

/* One input line (bulk_line_fn). */
static int on_line(void *ctx, const struct bulk_line *line)
{
    struct bulk_worker *w = ctx;
    struct pending *p;
    struct ddb_error err = {0};

    if (w->stop) return 1;
    if (!line->record) {
        /* A line that is no record stops its object (ours); what came before
         * it is written and reported first. */
        flush_batch(w);
        bulk_report_error(&w->report, line->object_key, line->line_number, line->why, line->text,
                          line->len);
        w->progress.failed_items++;
        return 1;
    }
    p = &w->batch[w->count];
    memset(p, 0, sizeof *p);
    if (decode_record(line->record, p, &err) != 0) {
        /* Reported with the batch, so that the report keeps the input's order. */
        pending_clear(p);
        p->error = xstrdup(err.message ? err.message : "The record is not valid");
        w->progress.failed_items++;
        ddb_error_clear(&err);
    }
    p->object_key = xstrdup(line->object_key);
    p->line_number = line->line_number;
    p->text = xmalloc(line->len + 1);
    memcpy(p->text, line->text, line->len);
    p->text[line->len] = '\0';
    p->len = line->len;
    if (++w->count == BULK_BATCH) flush_batch(w);
    return w->stop;
}

static int64_t object_size(const char *dir, const char *key)
{
    struct text_buf path = {0};
    struct stat st;
    int64_t size = 0;

    text_buf_printf(&path, "%s/%s", dir, key);
    if (stat(path.data, &st) == 0) size = (int64_t) st.st_size;
    text_buf_clear(&path);
    return size;
}

/* Reads and writes everything; the failure to end with, or NULL. */
static const char *run_objects(struct bulk_worker *w, char **message)
{
    char **keys = NULL;
    size_t key_count = 0;
    const char *code = NULL;

    transfer_list_objects(w->in_dir, w->d.in_prefix ? w->d.in_prefix : "", &keys, &key_count);
    if (key_count > DDB_MAX_BULK_INPUT_OBJECTS) {
        code = "InputObjectLimitExceeded"; /* ours */
        *message = xstrdup("The input holds more than 50,000 objects");
        goto out;
    }
    w->progress.has_total_bytes = true;
    for (size_t k = 0; k < key_count; k++)
        w->progress.total_bytes += object_size(w->in_dir, keys[k]);
    push_progress(w);
    for (size_t k = 0; k < key_count && !w->stop; k++) {
        char *why = NULL;
        if (bulk_read_object(w->in_dir, keys[k], w->d.in_format,
                             w->d.in_compression ? w->d.in_compression : "NONE", on_line, w,
                             &why) != 0) {
            /* An object that cannot be read is one ERROR (ours). */
            bulk_report_object_error(&w->report, keys[k], why);
            w->progress.failed_items++;
            free(why);
        }
        flush_batch(w);
        w->progress.processed_bytes += object_size(w->in_dir, keys[k]);
    }
    flush_batch(w);
    push_progress(w);
    if (w->table_gone) {
        code = "ResourceNotFoundException"; /* ours */
        *message = xstrdup("The table was deleted while the bulk operation ran");
    }
out:
    for (size_t k = 0; k < key_count; k++)
        free(keys[k]);
    free(keys);
    return code;
}

static void worker_free(struct bulk_worker *w)
{
    for (size_t i = 0; i < w->count; i++)
        pending_clear(&w->batch[i]);
    bulk_report_clear(&w->report);
    bulk_desc_clear(&w->d);
    free(w->namespace_id);
    free(w->region);
    free(w->in_dir);
    free(w->out_dir);
    free(w);
}

static void *worker_main(void *arg)
{
    struct bulk_worker *w = arg;
    const char *code = NULL;
    char *message = NULL, *why = NULL;
    struct bulk_desc now;
    struct ddb_error err = {0};

    if (!w->in_dir || !w->out_dir) {
        code = NO_SUCH_BUCKET_CODE;
        message = xstrdup(NO_SUCH_BUCKET_MESSAGE);
    } else {
        code = run_objects(w, &message);
        /* The report, with the counters as they ended, before the status
         * says the operation is over. */
        if (db_describe_bulk(w->db, &w->scope, w->d.arn, &now, &err) == 0) {
            if (bulk_write_report(w->out_dir, w->d.out_prefix, &now, &w->report, db_now_ms(w->db),
                                  &why) != 0 &&
                !code) {
                code = "S3AccessDenied";
                message = why;
                why = NULL;
            }
            bulk_desc_clear(&now);
        }
        ddb_error_clear(&err);
    }
    db_bulk_finish(w->db, w->d.arn, code, message);
    free(message);
    free(why);
    worker_free(w);
    return NULL;
}

/* Starts the worker of operation d; it owns everything it is given. */
static void start_worker(struct api_request *rq, const struct bulk_desc *d)
{
    struct bulk_worker *w = xcalloc(1, sizeof *w);
    pthread_attr_t attr;
    pthread_t thread;

    w->db = rq->db;
    w->namespace_id = xstrdup(rq->scope.namespace_id);
    w->region = xstrdup(rq->scope.region);
    w->scope.namespace_id = w->namespace_id;
    w->scope.region = w->region;
    bulk_desc_copy(&w->d, d);
    w->in_dir = transfer_bucket_dir(rq, d->in_bucket);
    w->out_dir = transfer_bucket_dir(rq, d->out_bucket);
    clock_gettime(CLOCK_MONOTONIC, &w->started);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, worker_main, w) != 0) worker_main(w);
    pthread_attr_destroy(&attr);
}

/* ------------------------------------------------------------------------ */
/* handlers                                                                  */
/* ------------------------------------------------------------------------ */

static int check_bucket_name(const char *bucket, const char *path, struct ddb_error *err)
{
    if (!bucket || transfer_is_s3_bucket_name(bucket)) return 0;
    return ddb_error_set(err, DDB_VALIDATION,
                         "1 validation error detected: Value '%s' at '%s' failed to satisfy "
                         "constraint: Member must satisfy regular expression pattern: %s",
                         bucket, path, S3_BUCKET_PATTERN);
}

int op_start_bulk_put_items(struct api_request *rq)
{
    const json_t *body = rq->body;
    json_t *in = body_member(body, "InputS3Configuration");
    json_t *out = body_member(body, "OutputS3Configuration");
    json_t *types = body_member(out, "OutputType");
    const char *out_types[BULK_MAX_OUTPUT_TYPES];
    const char *algorithm = body_member_str(out, "S3SseAlgorithm");
    char token[37];
    struct bulk_request r = {0};
    struct bulk_desc d;
    int begun;

    r.table_name = body_member_str(body, "TableName");
    r.client_token = body_member_str(body, "ClientToken");
    if (transfer_check_client_token(r.client_token, &rq->err) != 0) return -1;
    if (!r.client_token) {
        /* SDKs fill one in; a raw request without one gets its own. */
        transfer_new_client_token(token);
        r.client_token = token;
    }
    r.in_bucket = body_member_str(in, "S3Bucket");
    r.in_bucket_owner = body_member_str(in, "S3BucketOwner");
    r.in_prefix = body_member_str(in, "S3KeyPrefix");
    r.in_format = body_member_str(in, "InputFormat");
    r.in_compression = body_member_str(in, "InputCompressionType");
    r.out_bucket = body_member_str(out, "S3Bucket");
    r.out_bucket_owner = body_member_str(out, "S3BucketOwner");
    r.out_prefix = body_member_str(out, "S3KeyPrefix");
    r.out_sse_algorithm = algorithm;
    r.out_sse_kms_key_id = body_member_str(out, "S3SseKmsKeyId");
    for (size_t i = 0; i < json_array_size(types) && i < BULK_MAX_OUTPUT_TYPES; i++)
        out_types[r.out_type_count++] = json_string_value(json_array_get(types, i));
    r.out_types = out_types;
    r.has_max_wru = body_member(body, "MaxWriteRequestUnits") != NULL;
    r.max_wru = r.has_max_wru ? (int64_t) body_member_int(body, "MaxWriteRequestUnits") : 0;
    r.performance_tier = body_member_str(body, "PerformanceTier");

    if (check_bucket_name(r.in_bucket, "inputS3Configuration.s3Bucket", &rq->err) != 0 ||
        transfer_check_bucket_owner(r.in_bucket_owner, "inputS3Configuration.s3BucketOwner",
                                    &rq->err) != 0 ||
        check_bucket_name(r.out_bucket, "outputS3Configuration.s3Bucket", &rq->err) != 0 ||
        transfer_check_bucket_owner(r.out_bucket_owner, "outputS3Configuration.s3BucketOwner",
                                    &rq->err) != 0)
        return -1;
    if (r.out_sse_kms_key_id && (!algorithm || strcmp(algorithm, "KMS") != 0))
        /* "Don't specify it when the algorithm is AES256" (API reference); ours. */
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             "S3SseKmsKeyId can only be specified when S3SseAlgorithm is KMS");
    begun = db_bulk_begin(rq->db, &rq->scope, &r, &d, &rq->err);
    if (begun < 0) return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BulkOperationDescription", bulk_desc_json(&d));
    if (begun == 0) start_worker(rq, &d);
    bulk_desc_clear(&d);
    return 0;
}

int op_describe_bulk_operation(struct api_request *rq)
{
    struct bulk_desc d;

    if (db_describe_bulk(rq->db, &rq->scope, body_member_str(rq->body, "BulkOperationArn"), &d,
                         &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BulkOperationDescription", bulk_desc_json(&d));
    bulk_desc_clear(&d);
    return 0;
}

/* NextToken: "([0-9a-f]{16})+" (API reference); ours hold the number of
 * operations before the page, in 16 hex digits. */
#define NEXT_TOKEN_PATTERN "([0-9a-f]{16})+"

static int token_skip(const char *token, size_t *skip, struct ddb_error *err)
{
    size_t len = token ? strlen(token) : 0;

    *skip = 0;
    if (!token) return 0;
    if (len % 16 != 0 || strspn(token, "0123456789abcdef") != len)
        return ddb_error_set(err, DDB_VALIDATION,
                             "1 validation error detected: Value '%s' at 'nextToken' failed to "
                             "satisfy constraint: Member must satisfy regular expression pattern: "
                             "%s",
                             token, NEXT_TOKEN_PATTERN);
    *skip = (size_t) strtoull(token + len - 16, NULL, 16);
    return 0;
}

int op_list_bulk_operations(struct api_request *rq)
{
    json_t *max = body_member(rq->body, "MaxResults");
    size_t skip, limit = max ? (size_t) json_integer_value(max) : DDB_DEFAULT_BULK_LIST_PAGE,
                 count = 0;
    struct bulk_desc *list = NULL;
    json_t *summaries;
    bool more = false;
    char next[17];

    if (token_skip(body_member_str(rq->body, "NextToken"), &skip, &rq->err) != 0) return -1;
    db_list_bulk(rq->db, &rq->scope, skip, limit, &list, &count, &more);
    summaries = json_array();
    for (size_t i = 0; i < count; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "BulkOperationArn", json_string(list[i].arn));
        json_object_set_new(s, "BulkOperationStatus",
                            json_string(bulk_status_name(list[i].status)));
        json_object_set_new(s, "StartTime", wire_epoch_seconds(list[i].start_ms));
        if (list[i].end_ms) json_object_set_new(s, "EndTime", wire_epoch_seconds(list[i].end_ms));
        json_array_append_new(summaries, s);
        bulk_desc_clear(&list[i]);
    }
    free(list);
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BulkOperationsSummaryList", summaries);
    if (more) {
        snprintf(next, sizeof next, "%016zx", skip + count);
        json_object_set_new(rq->reply, "NextToken", json_string(next));
    }
    return 0;
}

int op_cancel_bulk_operation(struct api_request *rq)
{
    const char *arn = body_member_str(rq->body, "BulkOperationArn");
    enum bulk_status status;

    if (db_cancel_bulk(rq->db, &rq->scope, arn, &status, &rq->err) != 0) return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BulkOperationArn", json_string(arn));
    json_object_set_new(rq->reply, "BulkOperationStatus", json_string(bulk_status_name(status)));
    return 0;
}
