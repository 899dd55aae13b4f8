/*
 * bulk_files.c - reading bulk put items' input lines and writing their
 * report (bulk_files.h has the formats and the layout).
 *
 * Objects are read and decompressed by transfer_files.c, which the imports
 * use too; lines are split here. An Ion line becomes the JSON object its
 * DynamoDB JSON twin would be, written with wire_value.c and parsed back,
 * so every rule about items and conditions is applied once, by op_bulk.c.
 * Nothing here keeps state between calls; the report is the caller's.
 */
#include "api/transfer/bulk_files.h"

#include "api/transfer/ion.h"
#include "api/transfer/transfer_files.h"
#include "api/wire/json_in.h"
#include "api/wire/json_out.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* input                                                                     */
/* ------------------------------------------------------------------------ */

/* Whether every member of a VALUE_M is a string: ExpressionAttributeNames. */
static bool all_strings(const struct value *m)
{
    for (size_t i = 0; i < m->u.map.count; i++)
        if (m->u.map.attrs[i].value.type != VALUE_S) return false;
    return true;
}

/* An Ion record (a VALUE_M of its fields) as the JSON object of the same
 * record in DynamoDB JSON: strings stay strings, a struct of strings is a
 * map of names, Item and ExpressionAttributeValues are attribute maps. */
static json_t *ion_record_json(const struct value *top)
{
    struct json_out w;
    char *text;
    size_t len;
    json_t *doc;

    json_out_init(&w);
    json_out_object_begin(&w);
    for (size_t i = 0; i < top->u.map.count; i++) {
        const struct attr *a = &top->u.map.attrs[i];
        bool attr_map =
            (a->name_len == 4 && memcmp(a->name, "Item", 4) == 0) ||
            (a->name_len == 25 && memcmp(a->name, "ExpressionAttributeValues", 25) == 0);
        json_out_keyn(&w, a->name, a->name_len);
        if (a->value.type == VALUE_S) {
            json_out_stringn(&w, a->value.u.str.data, a->value.u.str.len);
        } else if (a->value.type == VALUE_M && (attr_map || !all_strings(&a->value))) {
            wire_value_write_map(&w, &a->value);
        } else if (a->value.type == VALUE_M) {
            json_out_object_begin(&w);
            for (size_t k = 0; k < a->value.u.map.count; k++) {
                const struct attr *n = &a->value.u.map.attrs[k];
                json_out_keyn(&w, n->name, n->name_len);
                json_out_stringn(&w, n->value.u.str.data, n->value.u.str.len);
            }
            json_out_object_end(&w);
        } else {
            wire_value_write(&w, &a->value);
        }
    }
    json_out_object_end(&w);
    text = json_out_take(&w, &len);
    doc = json_in_load(text, len);
    free(text);
    return doc;
}

/* One non-blank line into a record (new reference), or NULL with *why. */
static json_t *read_record(const char *line, size_t len, bool ion, char **why)
{
    json_t *doc;

    *why = NULL;
    if (ion) {
        struct value top;
        if (ion_read_line(line, len, &top, why) != 0) return NULL;
        doc = ion_record_json(&top);
        value_clear(&top);
        if (!doc) *why = xstrdup("the Ion record has no DynamoDB JSON form");
        return doc;
    }
    doc = json_in_load(line, len);
    if (!doc) {
        *why = xstrdup("the line is not valid JSON");
    } else if (!json_is_object(doc)) {
        json_decref(doc);
        doc = NULL;
        *why = xstrdup("the line is not a JSON object");
    }
    return doc;
}

int bulk_read_object(const char *bucket_dir, const char *key, const char *format,
                     const char *compression, bulk_line_fn fn, void *ctx, char **why)
{
    struct text_buf path = {0}, content = {0};
    bool ion = strcmp(format, "ION") == 0;
    int64_t size = 0;
    const char *p, *end;
    size_t line_number = 0;
    int rc;

    text_buf_printf(&path, "%s/%s", bucket_dir, key);
    rc = transfer_read_object(path.data, compression, &content, &size, why);
    text_buf_clear(&path);
    if (rc != 0) goto out;
    p = content.data ? content.data : "";
    end = p + content.len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t) (end - p));
        const char *stop = nl ? nl : end;
        size_t n = (size_t) (stop - p);
        bool blank = true;
        line_number++;
        for (size_t i = 0; i < n && blank; i++)
            blank = p[i] == ' ' || p[i] == '\t' || p[i] == '\r';
        if (!blank) {
            char *line_why = NULL;
            struct bulk_line line = {.object_key = key,
                                     .line_number = line_number,
                                     .text = p,
                                     .len = n,
                                     .record = read_record(p, n, ion, &line_why)};
            int stop_object;
            line.why = line_why;
            stop_object = fn(ctx, &line);
            json_decref(line.record);
            free(line_why);
            if (stop_object) break;
        }
        p = nl ? nl + 1 : end;
    }
out:
    text_buf_clear(&content);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* report                                                                    */
/* ------------------------------------------------------------------------ */

void bulk_report_clear(struct bulk_report *r)
{
    text_buf_clear(&r->errors);
    text_buf_clear(&r->conditions);
    memset(r, 0, sizeof *r);
}

/* Appends w's object as one line of b. */
static void add_line(struct text_buf *b, struct json_out *w)
{
    size_t len;
    char *text = json_out_take(w, &len);

    text_buf_add(b, text, len);
    text_buf_add(b, "\n", 1);
    free(text);
}

/* Starts a report line with the members every line has: the input object's
 * key and, when the line comes from one (line_number > 0), its line. */
static void line_begin(struct json_out *w, const char *object_key, size_t line_number)
{
    json_out_init(w);
    json_out_object_begin(w);
    json_out_key(w, "ObjectKey");
    json_out_string(w, object_key);
    if (line_number) {
        json_out_key(w, "LineNumber");
        json_out_integer(w, (long long) line_number);
    }
}

void bulk_report_error(struct bulk_report *r, const char *object_key, size_t line_number,
                       const char *message, const char *text, size_t len)
{
    struct json_out w;

    line_begin(&w, object_key, line_number);
    json_out_key(&w, "ErrorMessage");
    json_out_string(&w, message);
    if (text && text_utf8_is_valid(text, len)) {
        json_out_key(&w, "InputRecord");
        json_out_stringn(&w, text, len);
    }
    json_out_object_end(&w);
    add_line(&r->errors, &w);
    r->error_count++;
}

void bulk_report_object_error(struct bulk_report *r, const char *object_key, const char *message)
{
    struct json_out w;

    line_begin(&w, object_key, 0);
    json_out_key(&w, "ErrorMessage");
    json_out_string(&w, message);
    json_out_object_end(&w);
    add_line(&r->errors, &w);
    r->error_count++;
}

void bulk_report_condition(struct bulk_report *r, const char *object_key, size_t line_number,
                           const struct value *attempted, const struct value *existing)
{
    struct json_out w;

    line_begin(&w, object_key, line_number);
    json_out_key(&w, "AttemptedItem");
    wire_value_write_map(&w, attempted);
    if (existing) {
        json_out_key(&w, "ExistingItem");
        wire_value_write_map(&w, existing);
    }
    json_out_object_end(&w);
    add_line(&r->conditions, &w);
    r->condition_count++;
}

/* "2026-11-26T11:00:00.000Z" */
static void iso_ms(int64_t ms, char out[40])
{
    time_t secs = (time_t) (ms / 1000);
    struct tm tm;
    size_t n;

    gmtime_r(&secs, &tm);
    n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 40 - n, ".%03dZ", (int) (ms % 1000));
}

static bool asked_for(const struct bulk_desc *d, const char *type)
{
    for (size_t i = 0; i < d->out_type_count; i++)
        if (strcmp(d->out_types[i], type) == 0) return true;
    return false;
}

int bulk_write_report(const char *bucket_dir, const char *prefix, const struct bulk_desc *d,
                      const struct bulk_report *r, int64_t end_ms, char **why)
{
    const char *id = strrchr(d->arn, '/');
    struct text_buf dir = {0}, key = {0};
    struct json_out w;
    char when[40];
    char *text;
    size_t len;
    int rc = 0;
    struct {
        const char *type;
        const struct text_buf *lines;
        int64_t count;
    } files[] = {{"ERROR", &r->errors, r->error_count},
                 {"CONDITION_CHECK_FAILURE", &r->conditions, r->condition_count}};

    *why = NULL;
    id = id ? id + 1 : d->arn;
    if (prefix && prefix[0])
        text_buf_printf(&dir, "%s%s", prefix, prefix[strlen(prefix) - 1] == '/' ? "" : "/");
    text_buf_printf(&dir, "AWSDynamoDB/BulkOperations/%s", id);

    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "version");
    json_out_string(&w, "2026-08-01");
    json_out_key(&w, "bulkOperationArn");
    json_out_string(&w, d->arn);
    json_out_key(&w, "tableArn");
    json_out_string(&w, d->table_arn);
    json_out_key(&w, "startTime");
    iso_ms(d->start_ms, when);
    json_out_string(&w, when);
    json_out_key(&w, "endTime");
    iso_ms(end_ms, when);
    json_out_string(&w, when);
    json_out_key(&w, "processedItemCount");
    json_out_integer(&w, (long long) d->processed_items);
    json_out_key(&w, "failedItemCount");
    json_out_integer(&w, (long long) d->failed_items);
    json_out_key(&w, "conditionCheckFailedItemCount");
    json_out_integer(&w, (long long) d->condition_failed_items);
    json_out_key(&w, "outputFiles");
    json_out_array_begin(&w);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        if (!asked_for(d, files[i].type) || files[i].count == 0) continue;
        text_buf_clear(&key);
        text_buf_printf(&key, "%s/%s/data.json", dir.data, files[i].type);
        json_out_object_begin(&w);
        json_out_key(&w, "outputType");
        json_out_string(&w, files[i].type);
        json_out_key(&w, "key");
        json_out_string(&w, key.data);
        json_out_key(&w, "recordCount");
        json_out_integer(&w, (long long) files[i].count);
        json_out_object_end(&w);
        if (rc == 0)
            rc = transfer_write_object(bucket_dir, key.data, files[i].lines->data,
                                       files[i].lines->len, why);
    }
    json_out_array_end(&w);
    json_out_object_end(&w);
    text = json_out_take(&w, &len);
    text_buf_clear(&key);
    text_buf_printf(&key, "%s/manifest-summary.json", dir.data);
    if (rc == 0) rc = transfer_write_object(bucket_dir, key.data, text, len, why);
    free(text);
    text_buf_clear(&key);
    text_buf_clear(&dir);
    return rc;
}
