/*
 * op_transfer.c - ExportTableToPointInTime, DescribeExport, ListExports,
 * ImportTable, DescribeImport and ListImports.
 *
 * S3 is a local directory: with --s3-dir DIR, bucket B is DIR/B/ (which must
 * exist, as a bucket must). Without the flag, or for a bucket that is not
 * there, the job is accepted and then FAILED with FailureCode S3NoSuchBucket,
 * which is how AWS reports an export or an import whose bucket does not
 * exist (an import then leaves no table behind, as on AWS). The files are
 * written or read within the request (the answer still says IN_PROGRESS, as
 * AWS's does; every later Describe says COMPLETED or FAILED). An import that
 * met lines that are no items keeps the others and ends FAILED with
 * ItemValidationError, as AWS's does. An INCREMENTAL_EXPORT writes the net
 * changes of its span, which storage reads from the point-in-time history.
 * Storage keeps the jobs (storage/transfer.c); the file formats are
 * api/transfer/transfer_files.c's.
 *
 * Messages marked "not recorded" below are ours: AWS documents the exception
 * but no answer of it has been recorded (docs/differences.md).
 */
#include "api/ops/op_transfer.h"

#include "api/ops/expr_params.h"
#include "api/ops/ops.h"
#include "api/ops/table_rules.h"
#include "api/transfer/transfer_files.h"
#include "api/wire/body.h"
#include "api/wire/json_in.h"
#include "api/wire/json_out.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/control/jobs.h"
#include "storage/engine/db.h"
#include "storage/engine/db_tables.h"
#include "storage/jobs/transfer_record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

static const char *const export_formats[] = {"DYNAMODB_JSON", "ION", NULL};
static const char *const export_types[] = {"FULL_EXPORT", "INCREMENTAL_EXPORT", NULL};
static const char *const sse_algorithms[] = {"AES256", "KMS", NULL};
static const char *const input_formats[] = {"DYNAMODB_JSON", "ION", "CSV", NULL};
static const char *const compressions[] = {"GZIP", "ZSTD", "NONE", NULL};
static const char *const view_types[] = {"NEW_AND_OLD_IMAGES", "NEW_IMAGE", NULL};

static const struct field incremental_fields[] = {
    {"ExportFromTime", F_DOUBLE},
    {"ExportToTime", F_DOUBLE},
    {"ExportViewType", F_STRING, .choices = view_types},
    {0},
};

/* FilterSpecification (filtered exports): the API reference's shape; names'
 * values are at most 65535 long. */
static const struct field expression_name_value = {.type = F_STRING, .max_len = 65535};

static const struct field filter_specification_fields[] = {
    {"FilterExpression", F_STRING},
    {"ProjectionExpression", F_STRING},
    {"KeyConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &expression_name_value},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {0},
};

const struct field export_table_to_point_in_time_fields[] = {
    {"TableArn", F_STRING, .required = true, .min_len = 1, .max_len = 1024},
    {"ExportTime", F_DOUBLE},
    {"ClientToken", F_STRING},
    {"S3Bucket", F_STRING, .required = true, .max_len = 255},
    {"S3BucketOwner", F_STRING},
    {"S3Prefix", F_STRING, .max_len = 1024},
    {"S3SseAlgorithm", F_STRING, .choices = sse_algorithms},
    {"S3SseKmsKeyId", F_STRING, .min_len = 1, .max_len = 2048},
    {"ExportFormat", F_STRING, .choices = export_formats},
    {"ExportType", F_STRING, .choices = export_types},
    {"IncrementalExportSpecification", F_STRUCT, .shape_name = "IncrementalExportSpecification",
     .children = incremental_fields},
    {"FilterSpecification", F_STRUCT, .shape_name = "FilterSpecification",
     .children = filter_specification_fields},
    {0},
};

const struct field describe_export_fields[] = {
    {"ExportArn", F_STRING, .required = true, .min_len = 37, .max_len = 1024},
    {0},
};

const struct field list_exports_fields[] = {
    {"TableArn", F_STRING, .min_len = 1, .max_len = 1024},
    {"MaxResults", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_TRANSFER_LIST_PAGE},
    {"NextToken", F_STRING},
    {0},
};

static const struct field bucket_source_fields[] = {
    {"S3BucketOwner", F_STRING},
    {"S3Bucket", F_STRING, .required = true, .max_len = 255},
    {"S3KeyPrefix", F_STRING, .max_len = 1024},
    {0},
};

/* CsvHeader: 1 to 65536 characters (API reference). */
static const struct field csv_header_member = {.type = F_STRING, .min_len = 1, .max_len = 65536};

static const struct field csv_fields[] = {
    {"Delimiter", F_STRING, .min_len = 1, .max_len = 1},
    {"HeaderList", F_LIST, .min_len = 1, .max_len = 255, .member = &csv_header_member},
    {0},
};

static const struct field format_options_fields[] = {
    {"Csv", F_STRUCT, .shape_name = "CsvOptions", .children = csv_fields},
    {0},
};

const struct field import_table_fields[] = {
    /* Required on the wire though the reference calls it optional (observed:
     * a request without one is refused; SDKs always fill it in). */
    {"ClientToken", F_STRING, .required = true},
    {"S3BucketSource", F_STRUCT, .required = true, .shape_name = "S3BucketSource",
     .children = bucket_source_fields},
    {"InputFormat", F_STRING, .required = true, .choices = input_formats},
    {"InputFormatOptions", F_STRUCT, .shape_name = "InputFormatOptions",
     .children = format_options_fields},
    {"InputCompressionType", F_STRING, .choices = compressions},
    {"TableCreationParameters", F_STRUCT, .required = true, .shape_name = "TableCreationParameters",
     .children = table_creation_parameters_fields},
    {0},
};

const struct field describe_import_fields[] = {
    {"ImportArn", F_STRING, .required = true, .min_len = 37, .max_len = 1024},
    {0},
};

const struct field list_imports_fields[] = {
    {"TableArn", F_STRING, .min_len = 1, .max_len = 1024},
    {"PageSize", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_TRANSFER_LIST_PAGE},
    {"NextToken", F_STRING, .min_len = 112, .max_len = 1024},
    {0},
};

/* ------------------------------------------------------------------------ */
/* checks shared by exports, imports and bulk put items (op_transfer.h)     */
/* ------------------------------------------------------------------------ */

/* ClientToken's pattern (API reference): no '$', at least one character. */
#define CLIENT_TOKEN_PATTERN "^[^\\$]+$"

int transfer_check_client_token(const char *token, struct ddb_error *err)
{
    if (!token || (token[0] && !strchr(token, '$'))) return 0;
    return ddb_error_set(err, DDB_VALIDATION,
                         "1 validation error detected: Value '%s' at 'clientToken' failed to "
                         "satisfy constraint: Member must satisfy regular expression pattern: %s",
                         token, CLIENT_TOKEN_PATTERN);
}

/* A fresh ClientToken (a random UUID) for a request that has none: AWS
 * answers one in every ExportDescription. */
void transfer_new_client_token(char out[37])
{
    unsigned char r[16];

    if (getrandom(r, sizeof r, 0) != (ssize_t) sizeof r) memset(r, 0x5a, sizeof r);
    r[6] = (unsigned char) ((r[6] & 0x0f) | 0x40);
    r[8] = (unsigned char) ((r[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0],
             r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13],
             r[14], r[15]);
}

/* An S3BucketOwner is an account id: "[0-9]{12}" (API reference). */
int transfer_check_bucket_owner(const char *owner, const char *path, struct ddb_error *err)
{
    if (!owner || (strlen(owner) == 12 && strspn(owner, "0123456789") == 12)) return 0;
    return ddb_error_set(err, DDB_VALIDATION,
                         "1 validation error detected: Value '%s' at '%s' failed to satisfy "
                         "constraint: Member must satisfy regular expression pattern: [0-9]{12}",
                         owner, path);
}

/* Whether arn has the form "arn:<partition>:dynamodb:<region>:<account>:table/<name>/<kind>/<id>"
 * (kind NULL: a table's ARN, nothing after the name). */
static bool is_dynamodb_arn(const char *arn, const char *kind)
{
    const char *p = arn, *name, *slash;

    if (strncmp(p, "arn:", 4) != 0) return false;
    for (int colons = 0; colons < 4; colons++) {
        p = strchr(p, ':');
        if (!p) return false;
        p++;
    }
    p = strchr(p, ':');
    if (!p || strncmp(p, ":table/", 7) != 0) return false;
    name = p + 7;
    slash = strchr(name, '/');
    if (!kind) return name[0] && !slash;
    if (!slash || slash == name || strncmp(slash + 1, kind, strlen(kind)) != 0) return false;
    p = slash + 1 + strlen(kind);
    return p[0] == '/' && p[1] && !strchr(p + 1, '/');
}

/* ------------------------------------------------------------------------ */
/* buckets                                                                   */
/* ------------------------------------------------------------------------ */

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether name matches S3_BUCKET_PATTERN: letters and digits at both ends,
 * letters, digits, '.', '-' and '_' between. */
bool transfer_is_s3_bucket_name(const char *name)
{
    size_t len = strlen(name);

    if (len < 2 || !is_alnum(name[0]) || !is_alnum(name[len - 1])) return false;
    for (size_t i = 1; i + 1 < len; i++) {
        if (!is_alnum(name[i]) && name[i] != '.' && name[i] != '-' && name[i] != '_') return false;
    }
    return true;
}

/* The directory of a bucket, owned, or NULL when there is no such bucket
 * (no --s3-dir, or DIR/<bucket> is not a directory). */
char *transfer_bucket_dir(const struct api_request *rq, const char *bucket)
{
    struct text_buf b = {0};
    struct stat st;

    if (!rq->config || !rq->config->s3_dir || strchr(bucket, '/') || strcmp(bucket, "..") == 0)
        return NULL;
    text_buf_printf(&b, "%s/%s", rq->config->s3_dir, bucket);
    if (stat(b.data, &st) != 0 || !S_ISDIR(st.st_mode)) {
        text_buf_clear(&b);
        return NULL;
    }
    return text_buf_take(&b, NULL);
}

/* ------------------------------------------------------------------------ */
/* exports                                                                   */
/* ------------------------------------------------------------------------ */

/* A FilterSpecification as its request gave it (ExportDescription's member). */
static json_t *filter_spec_json(const struct export_filter_text *f)
{
    json_t *o = json_object();

    if (f->filter_expression)
        json_object_set_new(o, "FilterExpression", json_string(f->filter_expression));
    if (f->projection_expression)
        json_object_set_new(o, "ProjectionExpression", json_string(f->projection_expression));
    if (f->key_condition_expression)
        json_object_set_new(o, "KeyConditionExpression", json_string(f->key_condition_expression));
    if (f->names.type == VALUE_M) {
        json_t *names = json_object();
        for (size_t i = 0; i < f->names.u.map.count; i++) {
            const struct attr *a = &f->names.u.map.attrs[i];
            json_object_setn_new(names, a->name, a->name_len,
                                 json_stringn(a->value.u.str.data, a->value.u.str.len));
        }
        json_object_set_new(o, "ExpressionAttributeNames", names);
    }
    if (f->values.type == VALUE_M) {
        struct json_out w;
        size_t len;
        char *text;
        json_out_init(&w);
        wire_value_write_map(&w, &f->values);
        text = json_out_take(&w, &len);
        json_object_set_new(o, "ExpressionAttributeValues", json_in_load(text, len));
        free(text);
    }
    return o;
}

static json_t *export_desc_json(const struct export_desc *d)
{
    json_t *o = json_object();

    json_object_set_new(o, "ExportArn", json_string(d->arn));
    json_object_set_new(o, "ExportStatus", json_string(transfer_status_name(d->status)));
    json_object_set_new(o, "StartTime", wire_epoch_seconds(d->start_ms));
    if (d->end_ms) json_object_set_new(o, "EndTime", wire_epoch_seconds(d->end_ms));
    if (d->manifest_key) json_object_set_new(o, "ExportManifest", json_string(d->manifest_key));
    json_object_set_new(o, "TableArn", json_string(d->table_arn));
    json_object_set_new(o, "TableId", json_string(d->table_id));
    /* An incremental export has its span instead (observed: no ExportTime). */
    if (!export_desc_is_incremental(d))
        json_object_set_new(o, "ExportTime", wire_epoch_seconds(d->export_ms));
    if (d->client_token) json_object_set_new(o, "ClientToken", json_string(d->client_token));
    json_object_set_new(o, "S3Bucket", json_string(d->s3_bucket));
    if (d->s3_bucket_owner)
        json_object_set_new(o, "S3BucketOwner", json_string(d->s3_bucket_owner));
    if (d->s3_prefix) json_object_set_new(o, "S3Prefix", json_string(d->s3_prefix));
    json_object_set_new(o, "S3SseAlgorithm", json_string(d->s3_sse_algorithm));
    if (d->s3_sse_kms_key_id)
        json_object_set_new(o, "S3SseKmsKeyId", json_string(d->s3_sse_kms_key_id));
    if (d->failure_code) json_object_set_new(o, "FailureCode", json_string(d->failure_code));
    if (d->failure_message)
        json_object_set_new(o, "FailureMessage", json_string(d->failure_message));
    json_object_set_new(o, "ExportFormat", json_string(d->format));
    if (d->status == TRANSFER_COMPLETED) {
        json_object_set_new(o, "BilledSizeBytes", json_integer(d->billed_size_bytes));
        json_object_set_new(o, "ItemCount", json_integer(d->item_count));
    }
    if (d->export_type) json_object_set_new(o, "ExportType", json_string(d->export_type));
    if (export_desc_is_incremental(d)) {
        json_t *spec = json_object();
        json_object_set_new(spec, "ExportFromTime", wire_epoch_seconds(d->from_ms));
        json_object_set_new(spec, "ExportToTime", wire_epoch_seconds(d->to_ms));
        json_object_set_new(spec, "ExportViewType", json_string(d->view_type));
        json_object_set_new(o, "IncrementalExportSpecification", spec);
    }
    if (d->filter) json_object_set_new(o, "FilterSpecification", filter_spec_json(d->filter));
    return o;
}

/* The couplings of ExportType and IncrementalExportSpecification, in AWS's
 * words (observed), and the specification's members into r: ExportFromTime
 * is required although the reference calls it optional (observed), and
 * ExportViewType defaults to NEW_AND_OLD_IMAGES (API reference). */
static int decode_incremental(const json_t *body, struct export_request *r, struct ddb_error *err)
{
    json_t *spec = body_member(body, "IncrementalExportSpecification");
    json_t *from = body_member(spec, "ExportFromTime"), *to = body_member(spec, "ExportToTime");
    bool incremental = r->export_type && strcmp(r->export_type, "INCREMENTAL_EXPORT") == 0;

    if (spec && !r->export_type)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid Request: Export Type expected to be Incremental Export when "
                             "incremental export specification is provided");
    if (spec && !incremental)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid Request: When Export Type is Full Export , Incremental "
                             "Export Specification should not be provided");
    if (!incremental) return 0;
    if (!spec)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid Request: Incremental Export Specification expected when "
                             "export type is set as Incremental Export");
    if (!from)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid Request: ExportFromTime must be provided in "
                             "IncrementalExportSpecification");
    /* A time past int64 milliseconds is clamped, which puts it outside any window. */
    r->from_ms = body_seconds_ms(json_number_value(from));
    r->has_to_time = to != NULL;
    r->to_ms = to ? body_seconds_ms(json_number_value(to)) : 0;
    r->view_type = body_member_str(spec, "ExportViewType");
    if (!r->view_type) r->view_type = "NEW_AND_OLD_IMAGES";
    return 0;
}

/* A FilterSpecification, decoded: its parameters, its parsed expressions and
 * its text (all owned). */
struct filter_args {
    struct expr_params params;
    struct expr *key_condition, *filter, *projection;
    struct export_filter_text text;
};

static void filter_clear(struct filter_args *f)
{
    expr_free(f->key_condition);
    expr_free(f->filter);
    expr_free(f->projection);
    expr_params_clear(&f->params);
    export_filter_text_clear(&f->text);
}

/*
 * FilterSpecification into f and r: ExpressionAttributeNames/Values and the
 * three expressions with Query's checks and texts, in Query's order
 * (KeyConditionExpression, FilterExpression, ProjectionExpression), then
 * the unused names and values ("Filtering a table export": "the same syntax
 * and rules" as Query's key condition, Scan's filter and the projection of
 * other operations). Their checks against the table are storage's
 * (export_filter.h). f is ready for filter_clear whatever happens.
 */
static int decode_filter(const json_t *spec, struct filter_args *f, struct export_request *r,
                         struct ddb_error *err)
{
    memset(f, 0, sizeof *f);
    expr_params_init(&f->params);
    value_init_null(&f->text.names);
    value_init_null(&f->text.values);
    if (!spec) return 0;
    if (expr_params_decode(spec, &f->params, err) != 0 ||
        expr_params_parse(&f->params, spec, "KeyConditionExpression", EXPR_KEY_CONDITION,
                          &f->key_condition, err) != 0 ||
        expr_params_parse(&f->params, spec, "FilterExpression", EXPR_CONDITION, &f->filter, err) !=
            0 ||
        expr_params_parse(&f->params, spec, "ProjectionExpression", EXPR_PROJECTION, &f->projection,
                          err) != 0 ||
        expr_params_check_unused(&f->params, err) != 0)
        return -1;
    f->text.filter_expression = xstrdup_or_null(body_member_str(spec, "FilterExpression"));
    f->text.key_condition_expression =
        xstrdup_or_null(body_member_str(spec, "KeyConditionExpression"));
    f->text.projection_expression = xstrdup_or_null(body_member_str(spec, "ProjectionExpression"));
    value_copy(&f->text.names, &f->params.names);
    value_copy(&f->text.values, &f->params.values);
    r->key_condition = f->key_condition;
    r->filter = f->filter;
    r->projection = f->projection;
    r->filter_text = &f->text;
    return 0;
}

/* Writes the export's files into bucket dir: the items of a full export or
 * the changes of an incremental one. */
static int write_export(const char *dir, const struct export_desc *d, int64_t end_ms,
                        const struct export_data *data, struct export_result *res, char **manifest,
                        char **why)
{
    if (export_desc_is_incremental(d))
        return transfer_write_incremental_export(dir, d, end_ms, data->changes, data->change_count,
                                                 res, manifest, why);
    return transfer_write_export(dir, d, end_ms, data->items, data->item_count, res, manifest, why);
}

int op_export_table_to_point_in_time(struct api_request *rq)
{
    const json_t *body = rq->body;
    json_t *time = body_member(body, "ExportTime");
    struct export_request r = {
        .table_arn = body_member_str(body, "TableArn"),
        .client_token = body_member_str(body, "ClientToken"),
        .s3_bucket = body_member_str(body, "S3Bucket"),
        .s3_bucket_owner = body_member_str(body, "S3BucketOwner"),
        .s3_prefix = body_member_str(body, "S3Prefix"),
        .s3_sse_algorithm = body_member_str(body, "S3SseAlgorithm"),
        .s3_sse_kms_key_id = body_member_str(body, "S3SseKmsKeyId"),
        .format = body_member_str(body, "ExportFormat"),
        .export_type = body_member_str(body, "ExportType"),
        .has_export_time = time != NULL,
        .export_ms = time ? body_seconds_ms(json_number_value(time)) : 0,
    };
    struct export_desc d;
    struct export_result res = {0};
    struct export_data data;
    struct filter_args filter;
    char *dir = NULL, *manifest = NULL, *why = NULL, token[37];
    int begun;

    if (transfer_check_client_token(r.client_token, &rq->err) != 0) return -1;
    if (!r.client_token) {
        transfer_new_client_token(token);
        r.client_token = token;
    }
    if (!r.format) r.format = "DYNAMODB_JSON";
    /* ExportType stays NULL when not given: AWS's ExportDescription then has
     * none (observed), while ListExports says FULL_EXPORT. */
    if (!transfer_is_s3_bucket_name(r.s3_bucket))
        return ddb_error_set(&rq->err, DDB_VALIDATION,
                             "1 validation error detected: Value '%s' at 's3Bucket' failed to "
                             "satisfy constraint: Member must satisfy regular expression pattern: "
                             "%s",
                             r.s3_bucket, S3_BUCKET_PATTERN);
    if (transfer_check_bucket_owner(r.s3_bucket_owner, "s3BucketOwner", &rq->err) != 0) return -1;
    if (!is_dynamodb_arn(r.table_arn, NULL)) /* Not recorded. */
        return ddb_error_set(&rq->err, DDB_VALIDATION, "Invalid TableArn: %s", r.table_arn);
    if (decode_incremental(body, &r, &rq->err) != 0) return -1;
    if (decode_filter(body_member(body, "FilterSpecification"), &filter, &r, &rq->err) != 0) {
        filter_clear(&filter);
        return -1;
    }
    begun = db_export_begin(rq->db, &rq->scope, &r, &d, &data, &rq->err);
    filter_clear(&filter);
    if (begun < 0) return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "ExportDescription", export_desc_json(&d));
    if (begun == 0) {
        dir = transfer_bucket_dir(rq, r.s3_bucket);
        if (!dir) {
            res.failure_code = NO_SUCH_BUCKET_CODE;
            res.failure_message = NO_SUCH_BUCKET_MESSAGE;
        } else if (write_export(dir, &d, db_now_ms(rq->db), &data, &res, &manifest, &why) != 0) {
            res.failure_code = "S3AccessDenied";
            res.failure_message = why;
        }
        res.manifest_key = manifest;
        db_export_finish(rq->db, d.arn, &res);
    }
    export_data_clear(&data);
    free(dir);
    free(manifest);
    free(why);
    export_desc_clear(&d);
    return 0;
}

int op_describe_export(struct api_request *rq)
{
    struct export_desc d;
    const char *arn = body_member_str(rq->body, "ExportArn");

    if (!is_dynamodb_arn(arn, "export"))
        /* Observed to begin so; the rest of AWS's text is not recorded. */
        return ddb_error_set(&rq->err, DDB_VALIDATION, "Invalid Export ARN: %s", arn);
    if (db_describe_export(rq->db, &rq->scope, body_member_str(rq->body, "ExportArn"), &d,
                           &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "ExportDescription", export_desc_json(&d));
    export_desc_clear(&d);
    return 0;
}

/* NextToken of ListExports/ListImports: how many entries came before, in our
 * own form. A token that is not one of ours is refused, as AWS refuses a
 * token it did not hand out (observed; its text is not recorded). */
static int token_skip(const char *token, const char *operation, size_t *skip, struct ddb_error *err)
{
    char *end;
    unsigned long long n;

    *skip = 0;
    if (!token) return 0;
    if (strncmp(token, "ddbemu-page-", 12) == 0) {
        n = strtoull(token + 12, &end, 10);
        while (*end == '-')
            end++;
        if (!*end && end > token + 12) {
            *skip = (size_t) n;
            return 0;
        }
    }
    return ddb_error_set(err, DDB_VALIDATION, "Invalid NextToken for %s: %s", operation, token);
}

static json_t *next_token(size_t skip)
{
    char buf[160];
    /* ListImports' NextToken is 112 to 1024 characters long: padded to fit. */
    snprintf(buf, sizeof buf, "ddbemu-page-%zu", skip);
    while (strlen(buf) < 112)
        strcat(buf, "-");
    return json_string(buf);
}

/* The page a ListExports or ListImports request asks for: where it starts
 * (its NextToken) and how long it is (size_member; the largest page, 25, when
 * absent). */
static int page_of_request(struct api_request *rq, const char *size_member, const char *operation,
                           size_t *skip, size_t *limit)
{
    json_t *size = body_member(rq->body, size_member);

    *limit = size ? (size_t) json_integer_value(size) : DDB_MAX_TRANSFER_LIST_PAGE;
    return token_skip(body_member_str(rq->body, "NextToken"), operation, skip, &rq->err);
}

/* The answer of a List call: the page's summaries as list_member, and the
 * NextToken of the next page (next: the entries before it) when more follow. */
static void reply_page(struct api_request *rq, const char *list_member, json_t *summaries,
                       bool more, size_t next)
{
    rq->reply = json_object();
    json_object_set_new(rq->reply, list_member, summaries);
    if (more) json_object_set_new(rq->reply, "NextToken", next_token(next));
}

int op_list_exports(struct api_request *rq)
{
    size_t skip, limit, count = 0;
    struct export_desc *list = NULL;
    json_t *summaries;
    bool more = false;

    if (page_of_request(rq, "MaxResults", "ListExports", &skip, &limit) != 0) return -1;
    db_list_exports(rq->db, &rq->scope, body_member_str(rq->body, "TableArn"), skip, limit, &list,
                    &count, &more);
    summaries = json_array();
    for (size_t i = 0; i < count; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "ExportArn", json_string(list[i].arn));
        json_object_set_new(s, "ExportStatus", json_string(transfer_status_name(list[i].status)));
        json_object_set_new(s, "ExportType",
                            json_string(list[i].export_type ? list[i].export_type : "FULL_EXPORT"));
        json_array_append_new(summaries, s);
        export_desc_clear(&list[i]);
    }
    free(list);
    reply_page(rq, "ExportSummaries", summaries, more, skip + count);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* imports                                                                   */
/* ------------------------------------------------------------------------ */

static json_t *import_desc_json(const struct import_desc *d, bool summary)
{
    json_t *o = json_object(), *source = json_object();

    json_object_set_new(o, "ImportArn", json_string(d->arn));
    json_object_set_new(o, "ImportStatus", json_string(transfer_status_name(d->status)));
    json_object_set_new(o, "TableArn", json_string(d->table_arn));
    json_object_set_new(source, "S3Bucket", json_string(d->s3_bucket));
    if (d->s3_bucket_owner)
        json_object_set_new(source, "S3BucketOwner", json_string(d->s3_bucket_owner));
    if (d->s3_key_prefix) json_object_set_new(source, "S3KeyPrefix", json_string(d->s3_key_prefix));
    json_object_set_new(o, "S3BucketSource", source);
    json_object_set_new(o, "InputFormat", json_string(d->format));
    json_object_set_new(o, "StartTime", wire_epoch_seconds(d->start_ms));
    if (d->end_ms) json_object_set_new(o, "EndTime", wire_epoch_seconds(d->end_ms));
    if (summary) return o;
    json_object_set_new(o, "TableId", json_string(d->table_id));
    if (d->client_token) json_object_set_new(o, "ClientToken", json_string(d->client_token));
    json_object_set_new(o, "ErrorCount", json_integer(d->error_count));
    if (strcmp(d->format, "CSV") == 0) {
        json_t *csv = json_object(), *options = json_object();
        char delim[2] = {d->csv_delimiter ? d->csv_delimiter : ',', '\0'};
        json_object_set_new(csv, "Delimiter", json_string(delim));
        json_object_set_new(options, "Csv", csv);
        json_object_set_new(o, "InputFormatOptions", options);
    }
    json_object_set_new(o, "InputCompressionType", json_string(d->compression));
    json_object_set_new(o, "TableCreationParameters",
                        wire_table_creation_parameters_to_json(&d->table_def));
    /* Absent until something was read, as AWS's (observed). */
    if (d->processed_bytes)
        json_object_set_new(o, "ProcessedSizeBytes", json_integer(d->processed_bytes));
    json_object_set_new(o, "ProcessedItemCount", json_integer(d->processed_items));
    json_object_set_new(o, "ImportedItemCount", json_integer(d->imported_items));
    if (d->failure_code) json_object_set_new(o, "FailureCode", json_string(d->failure_code));
    if (d->failure_message)
        json_object_set_new(o, "FailureMessage", json_string(d->failure_message));
    return o;
}

/* AWS's FailureMessage for an import that met items it could not import. */
#define ITEM_VALIDATION_MESSAGE                                                                    \
    "Some of the items failed validation checks and were not imported. Please check CloudWatch "   \
    "error logs for more details."

/* The items of the import's source, into its table. */
static void run_import(struct api_request *rq, const struct import_desc *d, const json_t *header)
{
    struct import_result res = {0};
    struct item **items = NULL;
    size_t count = 0, header_count = json_array_size(header);
    const char **names = xcalloc(header_count ? header_count : 1, sizeof *names);
    char *dir = transfer_bucket_dir(rq, d->s3_bucket), *why = NULL;
    int64_t errors = 0;

    for (size_t i = 0; i < header_count; i++)
        names[i] = json_string_value(json_array_get(header, i));
    if (!dir) {
        struct table_desc gone;
        struct ddb_error ignored = {0};
        res.failure_code = NO_SUCH_BUCKET_CODE;
        res.failure_message = NO_SUCH_BUCKET_MESSAGE;
        /* AWS leaves no table behind when the bucket is missing (observed). */
        if (db_delete_table(rq->db, &rq->scope, d->table_def.name, &gone, &ignored) == 0)
            table_desc_clear(&gone);
        ddb_error_clear(&ignored);
    } else {
        struct import_source src = {
            .bucket_dir = dir,
            .prefix = d->s3_key_prefix ? d->s3_key_prefix : "",
            .format = d->format,
            .compression = d->compression,
            .csv_delimiter = d->csv_delimiter ? d->csv_delimiter : ',',
            .csv_header = header_count ? names : NULL,
            .csv_header_count = header_count,
            .def = &d->table_def,
        };
        if (transfer_read_import(&src, &items, &count, &res.processed_bytes, &errors, &why) != 0) {
            res.failure_code = "S3ReadError";
            res.failure_message = why;
        } else {
            res.processed_items = (int64_t) count + errors;
            res.error_count = errors;
            db_import_items(rq->db, &rq->scope, d->table_def.name, items, count,
                            &res.imported_items, &res.error_count);
            /* The items that passed stay in the table; the job FAILED. */
            if (res.error_count) {
                res.failure_code = "ItemValidationError";
                res.failure_message = ITEM_VALIDATION_MESSAGE;
            }
        }
    }
    db_import_finish(rq->db, d->arn, &res);
    for (size_t i = 0; i < count; i++)
        item_unref(items[i]);
    free(items);
    free(names);
    free(dir);
    free(why);
}

/* The members TableCreationParameters has (API reference): the rest of a
 * CreateTable request (LocalSecondaryIndexes, StreamSpecification, Tags, ...)
 * is no member of it and is ignored, as unknown members are. */
static const char *const creation_members[] = {
    "TableName",          "AttributeDefinitions",
    "KeySchema",          "BillingMode",
    "OnDemandThroughput", "ProvisionedThroughput",
    "SSESpecification",   "GlobalSecondaryIndexes",
    "VectorIndexes",      NULL,
};

static json_t *creation_parameters(const json_t *params)
{
    json_t *out = json_object();

    for (const char *const *m = creation_members; *m; m++) {
        json_t *v = json_object_get(params, *m);
        if (v) json_object_set(out, *m, v);
    }
    return out;
}

int op_import_table(struct api_request *rq)
{
    const json_t *body = rq->body;
    json_t *source = body_member(body, "S3BucketSource");
    json_t *params = creation_parameters(body_member(body, "TableCreationParameters"));
    json_t *options = body_member(body, "InputFormatOptions");
    json_t *csv = body_member(options, "Csv");
    const char *delimiter = body_member_str(csv, "Delimiter");
    const char *format = body_member_str(body, "InputFormat");
    struct import_desc req, d;
    struct table_def def;
    int begun, rc = -1;

    if (transfer_check_client_token(body_member_str(body, "ClientToken"), &rq->err) != 0) goto out;
    if (!transfer_is_s3_bucket_name(body_member_str(source, "S3Bucket"))) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "1 validation error detected: Value '%s' at 's3BucketSource.s3Bucket' "
                      "failed to satisfy constraint: Member must satisfy regular expression "
                      "pattern: %s",
                      body_member_str(source, "S3Bucket"), S3_BUCKET_PATTERN);
        goto out;
    }
    if (transfer_check_bucket_owner(body_member_str(source, "S3BucketOwner"),
                                    "s3BucketSource.s3BucketOwner", &rq->err) != 0)
        goto out;
    /* CsvDelimiter's pattern (API reference). */
    if (delimiter && (!delimiter[0] || !strchr(",;:|\t ", delimiter[0]))) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "1 validation error detected: Value '%s' at "
                      "'inputFormatOptions.csv.delimiter' failed to satisfy constraint: Member "
                      "must satisfy regular expression pattern: [,;:|\\t ]",
                      delimiter);
        goto out;
    }
    if (csv && strcmp(format, "CSV") != 0) {
        /* Observed to be refused; the text is not recorded. */
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "InputFormatOptions.Csv is only valid with InputFormat CSV, not %s", format);
        goto out;
    }
    /* Its shape was checked with the request's; the rules across members are
     * CreateTable's. */
    if (table_rules_check_create(params, &rq->err) != 0) goto out;
    memset(&req, 0, sizeof req);
    req.client_token = (char *) body_member_str(body, "ClientToken");
    req.s3_bucket = (char *) body_member_str(source, "S3Bucket");
    req.s3_bucket_owner = (char *) body_member_str(source, "S3BucketOwner");
    req.s3_key_prefix = (char *) body_member_str(source, "S3KeyPrefix");
    req.format = (char *) format;
    req.compression = (char *) body_member_str(body, "InputCompressionType");
    if (!req.compression) req.compression = "NONE";
    req.csv_delimiter = delimiter ? delimiter[0] : ',';
    wire_table_def_from_json(params, &def);
    begun = db_import_begin(rq->db, &rq->scope, &req, &def, &d, &rq->err);
    if (begun < 0) goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "ImportTableDescription", import_desc_json(&d, false));
    if (begun == 0) run_import(rq, &d, body_member(csv, "HeaderList"));
    import_desc_clear(&d);
    rc = 0;
out:
    json_decref(params);
    return rc;
}

int op_describe_import(struct api_request *rq)
{
    struct import_desc d;
    const char *arn = body_member_str(rq->body, "ImportArn");

    if (!is_dynamodb_arn(arn, "import"))
        /* Observed to be about the import ARN; AWS's text is not recorded. */
        return ddb_error_set(&rq->err, DDB_VALIDATION, "Invalid Import ARN: %s", arn);
    if (db_describe_import(rq->db, &rq->scope, body_member_str(rq->body, "ImportArn"), &d,
                           &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "ImportTableDescription", import_desc_json(&d, false));
    import_desc_clear(&d);
    return 0;
}

int op_list_imports(struct api_request *rq)
{
    size_t skip, limit, count = 0;
    struct import_desc *list = NULL;
    json_t *summaries;
    bool more = false;

    if (page_of_request(rq, "PageSize", "ListImports", &skip, &limit) != 0) return -1;
    db_list_imports(rq->db, &rq->scope, body_member_str(rq->body, "TableArn"), skip, limit, &list,
                    &count, &more);
    summaries = json_array();
    for (size_t i = 0; i < count; i++) {
        json_array_append_new(summaries, import_desc_json(&list[i], true));
        import_desc_clear(&list[i]);
    }
    free(list);
    reply_page(rq, "ImportSummaryList", summaries, more, skip + count);
    return 0;
}
