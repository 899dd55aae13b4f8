/*
 * error.c - the per-request error record, and AWS's "not found" texts; see
 * error.h for the convention.
 */
#include "storage/base/error.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int status;
    const char *type;
    const char *message_key;
} error_table[] = {[DDB_OK] = {200, "", "message"},
#define X(name, status, type, key) [DDB_##name] = {status, type, key},
                   DDB_ERRORS(X)
#undef X
};

int ddb_error_set(struct ddb_error *err, enum ddb_error_code code, const char *fmt, ...)
{
    va_list ap;
    int len;

    assert(err->code == DDB_OK);
    assert(code != DDB_OK);
    err->code = code;
    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    err->message = xmalloc((size_t) len + 1);
    va_start(ap, fmt);
    vsnprintf(err->message, (size_t) len + 1, fmt, ap);
    va_end(ap);
    return -1;
}

int ddb_error_set_bare(struct ddb_error *err, enum ddb_error_code code)
{
    assert(err->code == DDB_OK);
    err->code = code;
    err->message = NULL;
    return -1;
}

void ddb_error_clear(struct ddb_error *err)
{
    free(err->message);
    memset(err, 0, sizeof *err);
}

void ddb_error_move(struct ddb_error *dst, struct ddb_error *src)
{
    assert(dst->code == DDB_OK);
    *dst = *src;
    memset(src, 0, sizeof *src);
}

bool ddb_error_is_set(const struct ddb_error *err)
{
    return err->code != DDB_OK;
}

int ddb_error_http_status(enum ddb_error_code code)
{
    return error_table[code].status;
}

const char *ddb_error_type(enum ddb_error_code code)
{
    return error_table[code].type;
}

const char *ddb_error_message_key(enum ddb_error_code code)
{
    return error_table[code].message_key;
}

/* ---- "not found", in AWS's words ---- */

int ddb_error_resource_not_found(struct ddb_error *err)
{
    /* The item operations' text carries no name (dynalite test/putItem.js,
     * getItem.js, deleteItem.js, recorded; conformance/test_item.py,
     * test_batch.py, test_partiql.py). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND, "Requested resource not found");
}

int ddb_error_table_not_found(struct ddb_error *err, const char *table)
{
    /* DescribeTable's text (dynalite test/describeTable.js, recorded; scylla
     * test_describe_table.py test_describe_table_non_existent_table;
     * conformance/test_protocol.py). The resource-policy operations send it
     * too (moto's AWS-verified test_dynamodb_resource_policy.py;
     * ack-api-quirks DDB-TABLE-070, 446). For the TTL operations only the
     * type is recorded (ack-api-quirks lab), and they use this text. */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Table: %s not found", table);
}

int ddb_error_index_not_found(struct ddb_error *err, const char *index, const char *table)
{
    /* ack-api-quirks DDB-TABLE-161/375 (live service). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Index %s for table %s", index, table);
}

int ddb_error_insights_index_not_found(struct ddb_error *err, const char *index, const char *table)
{
    /* The ack-api-quirks lab (contributor_insights.c). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Index: %s not found for table: %s", index,
                         table);
}

int ddb_error_resource_arn_not_found(struct ddb_error *err, const char *arn)
{
    /* [q DDB-TABLE-070, 071, 101]: the tag operations' text, a table's or a
     * stream's ARN alike. */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: ResourceArn: %s not found", arn);
}

int ddb_error_stream_not_found(struct ddb_error *err, const char *stream_arn)
{
    /* An AWS-run test of stream readers (DescribeStream on a missing stream). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Stream: %s not found", stream_arn);
}

int ddb_error_table_stream_not_found(struct ddb_error *err, const char *stream_label,
                                     const char *table)
{
    /* A stream label that is not the table's current one (policies.c: moto's
     * AWS-verified test; ack-api-quirks DDB-TABLE-070, 446). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Stream: %s not found for Table: %s",
                         stream_label, table);
}

int ddb_error_shard_not_found(struct ddb_error *err)
{
    /* Quoted from the live service by stream consumers (node-dynamodb-stream
     * issue 13; the Kinesis adapter's shard-end handling). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Shard does not exist");
}

int ddb_error_backup_table_not_found(struct ddb_error *err, const char *what)
{
    /* The text AWS sends for its backup operations, as quoted from the live
     * service by ScoutSuite issue 1533 and terraform-provider-aws issue 26577
     * (docs/differences.md, "Error texts"). */
    return ddb_error_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s", what);
}

int ddb_error_backup_not_found(struct ddb_error *err, const char *backup_arn)
{
    /* ddbemu's text: AWS's is not recorded (docs/differences.md, "Error texts"). */
    return ddb_error_set(err, DDB_BACKUP_NOT_FOUND, "Backup not found: %s", backup_arn);
}
