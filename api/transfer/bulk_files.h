/*
 * bulk_files.h - the files of bulk put items: input lines with their
 * per-item conditions, and the output report.
 *
 * Input (developer guide, BulkPutItems.Format: "DynamoDB JSON uses JSON
 * Lines, with one JSON record per line. ION uses a sequence of Ion
 * structs"): every object under the input prefix, decompressed as
 * InputCompressionType says, one record per line. A record holds the item
 * and, optionally, its condition in PutItem's member names:
 *   {"Item": {...}, "ConditionExpression": "attribute_not_exists(pk)",
 *    "ExpressionAttributeNames": {"#n": "name"},
 *    "ExpressionAttributeValues": {":v": {"N": "1"}}}
 * and the same struct in Ion ({Item: {...}, ConditionExpression: "..."}).
 * The field names of AWS's page were not readable: these are ours
 * (docs/differences.md). Ion records are handed on as the same JSON object,
 * so that one decoder (op_bulk.c) applies PutItem's rules to both formats.
 *
 * Output (layout ours, docs/differences.md), under the output prefix:
 *   AWSDynamoDB/BulkOperations/<operation id>/manifest-summary.json
 *   AWSDynamoDB/BulkOperations/<operation id>/ERROR/data.json
 *   AWSDynamoDB/BulkOperations/<operation id>/CONDITION_CHECK_FAILURE/data.json
 * each data file JSON lines, written only for the OutputType asked and only
 * when it has records. These run outside the engine's lock.
 */
#ifndef DDB_API_BULK_FILES_H
#define DDB_API_BULK_FILES_H

#include "storage/base/text.h"
#include "storage/jobs/bulk_record.h"
#include "storage/model/value.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* One non-blank input line. */
struct bulk_line {
    const char *object_key;
    size_t line_number; /* 1-based, blank lines counted */
    const char *text;   /* the line as read (not NUL-terminated) */
    size_t len;
    json_t *record;  /* borrowed: the line as a JSON object; NULL when it cannot be read */
    const char *why; /* when record is NULL: what is wrong with the line */
};

/* Called for each line in order; a nonzero return stops the object. */
typedef int (*bulk_line_fn)(void *ctx, const struct bulk_line *line);

/* Reads the object key of bucket_dir in format (DYNAMODB_JSON or ION),
 * decompressed as compression says, calling fn for each non-blank line.
 * Returns 0, or -1 with *why (owned) when the object cannot be read. */
int bulk_read_object(const char *bucket_dir, const char *key, const char *format,
                     const char *compression, bulk_line_fn fn, void *ctx, char **why);

/* The report's records, gathered while an operation runs. */
struct bulk_report {
    struct text_buf errors; /* JSON lines */
    struct text_buf conditions;
    int64_t error_count, condition_count;
};

void bulk_report_clear(struct bulk_report *r);
/* An input record DynamoDB could not process: where it was, why, and its
 * text (as read, when it is valid UTF-8). */
void bulk_report_error(struct bulk_report *r, const char *object_key, size_t line_number,
                       const char *message, const char *text, size_t len);
/* An object that could not be read at all. */
void bulk_report_object_error(struct bulk_report *r, const char *object_key, const char *message);
/* A write whose condition was false: the attempted item and, when there was
 * one, the existing item (both VALUE_M; existing may be NULL). */
void bulk_report_condition(struct bulk_report *r, const char *object_key, size_t line_number,
                           const struct value *attempted, const struct value *existing);

/* Writes the report of operation d into bucket_dir under prefix (may be
 * NULL): the manifest and the data files of the output types d asked for.
 * -1 with *why (owned) when it cannot. */
int bulk_write_report(const char *bucket_dir, const char *prefix, const struct bulk_desc *d,
                      const struct bulk_report *r, int64_t end_ms, char **why);

#endif
