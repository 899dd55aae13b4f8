/*
 * transfer_client.c - `ddbemu export` and `ddbemu import` over the wire; see
 * transfer_client.h.
 */
#include "api/client/transfer_client.h"

#include "api/transfer/transfer_files.h"
#include "api/wire/json_out.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#define TARGET_PREFIX "DynamoDB_20120810."

/* How long the import waits for its table to become ACTIVE, and how often
 * it retries a batch that came back unprocessed or throttled. */
#define ACTIVE_WAIT_POLLS    600 /* x 100 ms */
#define BATCH_MAX_ATTEMPTS   30
#define BATCH_BACKOFF_MS     50
#define BATCH_MAX_BACKOFF_MS 2000

void transfer_report_clear(struct transfer_report *r)
{
    free(r->path);
    memset(r, 0, sizeof *r);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fail(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(char **why, const char *fmt, ...)
{
    va_list ap;
    char buf[1024];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    *why = xstrdup(buf);
    return -1;
}

/* The short name of an error's __type ("ResourceInUseException"). */
static const char *error_name(const json_t *reply)
{
    const char *type = json_string_value(json_object_get(reply, "__type"));
    const char *hash = type ? strrchr(type, '#') : NULL;

    return hash ? hash + 1 : type ? type : "error";
}

static const char *error_message(const json_t *reply)
{
    const char *m = json_string_value(json_object_get(reply, "message"));

    if (!m) m = json_string_value(json_object_get(reply, "Message"));
    return m ? m : "";
}

/*
 * Sends operation with body (text) and parses the answer into *reply (owned;
 * also set for an error answer, so that callers can read __type). Returns the
 * HTTP status, or -1 with *why when there is no answer or it is not JSON.
 */
static int call(const struct http_target *t, const char *operation, const char *body, size_t len,
                json_t **reply, char **why)
{
    char target[96];
    struct text_buf answer = {0};
    json_error_t jerr;
    int status = 0;

    *reply = NULL;
    snprintf(target, sizeof target, TARGET_PREFIX "%s", operation);
    if (http_call(t, target, body, len, &status, &answer) != 0) {
        int saved = errno;
        text_buf_clear(&answer);
        return fail(why, "%s: no answer from %s port %u: %s", operation, t->host,
                    (unsigned) t->port, strerror(saved));
    }
    *reply = json_loadb(answer.data ? answer.data : "", answer.len, JSON_ALLOW_NUL, &jerr);
    text_buf_clear(&answer);
    if (!json_is_object(*reply)) {
        json_decref(*reply);
        *reply = NULL;
        return fail(why, "%s: the answer (HTTP %d) is not a JSON object", operation, status);
    }
    return status;
}

/* call() for a body built with jansson (borrowed); -1 with *why for any
 * answer but 200. */
static json_t *call_ok(const struct http_target *t, const char *operation, const json_t *body,
                       char **why)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_t *reply;
    int status = call(t, operation, text, strlen(text), &reply, why);

    free(text);
    if (status < 0) return NULL;
    if (status != 200) {
        fail(why, "%s: %s: %s", operation, error_name(reply), error_message(reply));
        json_decref(reply);
        return NULL;
    }
    return reply;
}

/* ------------------------------------------------------------------------ */
/* export                                                                    */
/* ------------------------------------------------------------------------ */

static void free_items(struct item **items, size_t count)
{
    for (size_t i = 0; i < count; i++)
        item_unref(items[i]);
    free(items);
}

/* Every item of the table, by a paged consistent Scan. */
static int scan_all(const struct http_target *t, const char *table, struct item ***items,
                    size_t *count, char **why)
{
    json_t *start = NULL;
    size_t cap = 0;

    *items = NULL;
    *count = 0;
    do {
        json_t *body = json_pack("{s:s, s:b}", "TableName", table, "ConsistentRead", 1);
        json_t *reply, *list, *e;
        size_t i;
        if (start) json_object_set_new(body, "ExclusiveStartKey", start);
        reply = call_ok(t, "Scan", body, why);
        json_decref(body);
        start = NULL;
        if (!reply) return -1;
        list = json_object_get(reply, "Items");
        json_array_foreach(list, i, e)
        {
            struct value attrs;
            struct ddb_error err = {0};
            if (wire_value_map_from_json(e, &attrs, &err) != 0) {
                ddb_error_clear(&err);
                json_decref(reply);
                return fail(why, "Scan: an item of the answer is not DynamoDB JSON");
            }
            if (*count == cap) {
                cap = cap ? cap * 2 : 256;
                *items = xrealloc(*items, sizeof **items * cap);
            }
            (*items)[(*count)++] = item_new(&attrs);
        }
        start = json_object_get(reply, "LastEvaluatedKey");
        if (start) json_incref(start);
        json_decref(reply);
    } while (start);
    return 0;
}

/* The last path component of dir, as the export's bucket name. */
static char *folder_name(const char *dir)
{
    size_t len = strlen(dir);
    const char *start;

    while (len > 1 && dir[len - 1] == '/')
        len--;
    start = dir + len;
    while (start > dir && start[-1] != '/')
        start--;
    {
        size_t n = (size_t) (dir + len - start);
        char *name = xmalloc(n + 1);
        memcpy(name, start, n);
        name[n] = '\0';
        return name;
    }
}

int transfer_client_export(const struct http_target *t, const char *table, const char *out_dir,
                           const char *format, struct transfer_report *report, char **why)
{
    json_t *body = json_pack("{s:s}", "TableName", table);
    json_t *reply = call_ok(t, "DescribeTable", body, why);
    struct item **items = NULL;
    size_t count = 0;
    struct export_desc d;
    struct export_result res;
    char id[40], *manifest_key = NULL;
    uint32_t r = 0;
    int rc = -1;

    memset(report, 0, sizeof *report);
    memset(&d, 0, sizeof d);
    json_decref(body);
    if (!reply) return -1;
    {
        const json_t *desc = json_object_get(reply, "Table");
        const char *arn = json_string_value(json_object_get(desc, "TableArn"));
        const char *table_id = json_string_value(json_object_get(desc, "TableId"));
        d.table_arn = xstrdup(arn ? arn : "");
        d.table_id = xstrdup(table_id ? table_id : "");
    }
    json_decref(reply);
    if (scan_all(t, table, &items, &count, why) != 0) goto out;

    /* The export's id and ARN take the form of AWS's. */
    d.start_ms = d.export_ms = wall_ms();
    if (getrandom(&r, sizeof r, 0) != (ssize_t) sizeof r) r = (uint32_t) d.start_ms;
    snprintf(id, sizeof id, "%014" PRId64 "-%08" PRIx32, d.start_ms, r);
    {
        struct text_buf arn = {0};
        text_buf_printf(&arn, "%s/export/%s", d.table_arn, id);
        d.arn = text_buf_take(&arn, NULL);
    }
    d.s3_bucket = folder_name(out_dir);
    d.s3_sse_algorithm = xstrdup("AES256");
    d.format = xstrdup(format);
    if (transfer_write_export(out_dir, &d, wall_ms(), items, count, &res, &manifest_key, why) != 0)
        goto out;
    report->items = count;
    {
        struct text_buf path = {0};
        text_buf_printf(&path, "%s/%s", out_dir, manifest_key);
        report->path = text_buf_take(&path, NULL);
    }
    rc = 0;
out:
    free(manifest_key);
    free_items(items, count);
    export_desc_clear(&d);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* import                                                                    */
/* ------------------------------------------------------------------------ */

/* The outputFormat of the first manifest-summary.json under dir (depth-first,
 * names in directory order), owned, or NULL. */
static char *manifest_format(const char *dir, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    struct dirent *e;
    char *found = NULL;

    if (!d) return NULL;
    while (!found && (e = readdir(d))) {
        struct text_buf path = {0};
        struct stat st;
        if (e->d_name[0] == '.') continue;
        text_buf_printf(&path, "%s/%s", dir, e->d_name);
        if (stat(path.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            found = manifest_format(path.data, depth + 1);
        } else if (strcmp(e->d_name, "manifest-summary.json") == 0) {
            json_error_t jerr;
            json_t *summary = json_load_file(path.data, 0, &jerr);
            const char *f = json_string_value(json_object_get(summary, "outputFormat"));
            if (f) found = xstrdup(f);
            json_decref(summary);
        }
        text_buf_clear(&path);
    }
    closedir(d);
    return found;
}

/* The table's key attributes of item as text, to keep two items with one key
 * out of a batch (BatchWriteItem refuses that). */
static char *key_text(const struct table_def *def, const struct item *item)
{
    struct json_out w;
    const struct key_schema *k = &def->key;
    size_t len;

    json_out_init(&w);
    json_out_array_begin(&w);
    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        const struct value *v = item_get_cstr(item, name);
        if (v)
            wire_value_write(&w, v);
        else
            json_out_null(&w);
    }
    json_out_array_end(&w);
    return json_out_take(&w, &len);
}

/* One PutItem, for an item of a batch the table refused as a whole: 0
 * written, 1 refused by the table (*why says why), -1 no answer. */
static int put_one(const struct http_target *t, const char *table, const struct item *item,
                   char **why)
{
    struct json_out w;
    json_t *reply;
    char *text;
    size_t len;
    int status;

    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "TableName");
    json_out_string(&w, table);
    json_out_key(&w, "Item");
    wire_write_stored_item(&w, item);
    json_out_object_end(&w);
    text = json_out_take(&w, &len);
    for (int attempt = 0;; attempt++) {
        status = call(t, "PutItem", text, len, &reply, why);
        if (status == 200 || status < 0) break;
        if (attempt + 1 < BATCH_MAX_ATTEMPTS &&
            (strcmp(error_name(reply), "ProvisionedThroughputExceededException") == 0 ||
             strcmp(error_name(reply), "ThrottlingException") == 0)) {
            json_decref(reply);
            sleep_ms(BATCH_BACKOFF_MS);
            continue;
        }
        fail(why, "PutItem: %s: %s", error_name(reply), error_message(reply));
        break;
    }
    json_decref(reply);
    free(text);
    return status == 200 ? 0 : status < 0 ? -1 : 1;
}

/*
 * Writes items[0..n) (distinct keys) with BatchWriteItem, sending back what
 * comes back unprocessed or throttled with a growing pause. A batch the
 * table refuses (ValidationException: an index key of another type, ...) is
 * written item by item, and the items refused are counted. -1 with *why
 * when the server cannot be reached or keeps refusing.
 */
static int write_batch(const struct http_target *t, const char *table, struct item *const *items,
                       size_t n, struct transfer_report *report, char **why)
{
    struct json_out w;
    char *text;
    size_t len;
    long backoff = BATCH_BACKOFF_MS;
    int rc = -1;

    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "RequestItems");
    json_out_object_begin(&w);
    json_out_key(&w, table);
    json_out_array_begin(&w);
    for (size_t i = 0; i < n; i++) {
        json_out_object_begin(&w);
        json_out_key(&w, "PutRequest");
        json_out_object_begin(&w);
        json_out_key(&w, "Item");
        wire_write_stored_item(&w, items[i]);
        json_out_object_end(&w);
        json_out_object_end(&w);
    }
    json_out_array_end(&w);
    json_out_object_end(&w);
    json_out_object_end(&w);
    text = json_out_take(&w, &len);

    for (int attempt = 0; attempt < BATCH_MAX_ATTEMPTS; attempt++) {
        json_t *reply, *unprocessed;
        int status = call(t, "BatchWriteItem", text, len, &reply, why);
        if (status < 0) goto out;
        if (status == 200) {
            unprocessed = json_object_get(reply, "UnprocessedItems");
            if (json_object_size(unprocessed) == 0) {
                json_decref(reply);
                report->items += n;
                rc = 0;
                goto out;
            }
            /* Send back what was not processed; the rest is written. */
            free(text);
            {
                json_t *again = json_pack("{s:O}", "RequestItems", unprocessed);
                text = json_dumps(again, JSON_COMPACT);
                json_decref(again);
            }
            len = strlen(text);
        } else if (attempt == 0 && strcmp(error_name(reply), "ValidationException") == 0) {
            /* One item spoils the batch: find it by writing them one by one. */
            json_decref(reply);
            for (size_t i = 0; i < n; i++) {
                char *refusal = NULL;
                int one = put_one(t, table, items[i], &refusal);
                if (one < 0) {
                    *why = refusal;
                    goto out;
                }
                if (one == 0)
                    report->items++;
                else
                    report->refused_items++;
                free(refusal);
            }
            rc = 0;
            goto out;
        } else if (strcmp(error_name(reply), "ProvisionedThroughputExceededException") != 0 &&
                   strcmp(error_name(reply), "ThrottlingException") != 0) {
            fail(why, "BatchWriteItem: %s: %s", error_name(reply), error_message(reply));
            json_decref(reply);
            goto out;
        }
        json_decref(reply);
        sleep_ms(backoff);
        backoff = backoff * 2 > BATCH_MAX_BACKOFF_MS ? BATCH_MAX_BACKOFF_MS : backoff * 2;
    }
    fail(why, "BatchWriteItem: items still unprocessed after %d attempts", BATCH_MAX_ATTEMPTS);
out:
    free(text);
    return rc;
}

/* Writes every item, 25 to a batch, never two with one key in a batch. */
static int write_items(const struct http_target *t, const struct table_def *def,
                       struct item *const *items, size_t count, struct transfer_report *report,
                       char **why)
{
    char *keys[DDB_MAX_BATCH_WRITE_ITEMS];
    size_t start = 0, n = 0;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i <= count; i++) {
        char *key = i < count ? key_text(def, items[i]) : NULL;
        bool flush = i == count || n == DDB_MAX_BATCH_WRITE_ITEMS;
        for (size_t j = 0; key && !flush && j < n; j++)
            flush = strcmp(keys[j], key) == 0;
        if (flush && n) {
            rc = write_batch(t, def->name, items + start, n, report, why);
            for (size_t j = 0; j < n; j++)
                free(keys[j]);
            start = i;
            n = 0;
        }
        if (key) {
            if (rc == 0)
                keys[n++] = key;
            else
                free(key);
        }
    }
    for (size_t j = 0; j < n; j++)
        free(keys[j]);
    return rc;
}

/* Creates the table and waits until it is ACTIVE. */
static int create_table(const struct http_target *t, const json_t *definition, char **why)
{
    const char *name = json_string_value(json_object_get(definition, "TableName"));
    json_t *reply = call_ok(t, "CreateTable", definition, why);

    if (!reply) return -1;
    json_decref(reply);
    for (int poll = 0; poll < ACTIVE_WAIT_POLLS; poll++) {
        json_t *body = json_pack("{s:s}", "TableName", name);
        const char *status;
        bool active;
        reply = call_ok(t, "DescribeTable", body, why);
        json_decref(body);
        if (!reply) return -1;
        status = json_string_value(json_object_get(json_object_get(reply, "Table"), "TableStatus"));
        active = status && strcmp(status, "ACTIVE") == 0;
        json_decref(reply);
        if (active) return 0;
        sleep_ms(100);
    }
    return fail(why, "DescribeTable: table %s is not ACTIVE after a minute", name);
}

int transfer_client_import(const struct http_target *t, const char *in_dir,
                           const char *definition_path, const char *table_name, const char *format,
                           struct transfer_report *report, char **why)
{
    json_error_t jerr;
    json_t *definition = json_load_file(definition_path, JSON_ALLOW_NUL, &jerr);
    char *found_format = NULL;
    struct table_def def;
    struct item **items = NULL;
    size_t count = 0;
    int64_t bytes = 0;
    struct stat st;
    int rc = -1;

    memset(report, 0, sizeof *report);
    memset(&def, 0, sizeof def);
    if (!definition) return fail(why, "%s: line %d: %s", definition_path, jerr.line, jerr.text);
    if (!json_is_object(definition)) {
        fail(why, "%s: not a CreateTable request (a JSON object)", definition_path);
        goto out;
    }
    if (table_name) json_object_set_new(definition, "TableName", json_string(table_name));
    if (!json_is_string(json_object_get(definition, "TableName"))) {
        fail(why, "%s: no TableName (give one with --table)", definition_path);
        goto out;
    }
    if (stat(in_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fail(why, "%s: not a directory", in_dir);
        goto out;
    }
    if (!format) format = found_format = manifest_format(in_dir, 0);
    if (!format) format = "DYNAMODB_JSON";
    if (strcmp(format, "DYNAMODB_JSON") != 0 && strcmp(format, "ION") != 0 &&
        strcmp(format, "CSV") != 0) {
        fail(why, "unknown format %s (DYNAMODB_JSON, ION or CSV)", format);
        goto out;
    }
    if (create_table(t, definition, why) != 0) goto out;
    wire_table_def_from_json(definition, &def);
    {
        struct import_source src = {
            .bucket_dir = in_dir,
            .prefix = "",
            .format = format,
            .compression = TRANSFER_COMPRESSION_AUTO,
            .csv_delimiter = ',',
            .def = &def,
        };
        if (transfer_read_import(&src, &items, &count, &bytes, &report->bad_objects, why) != 0)
            goto out;
    }
    if (write_items(t, &def, items, count, report, why) != 0) goto out;
    if (report->bad_objects || report->refused_items) {
        fail(why,
             "%" PRId64 " file(s) held a line that is no item of the table (the rest of such a "
             "file is skipped), and the table refused %zu item(s)",
             report->bad_objects, report->refused_items);
        goto out;
    }
    rc = 0;
out:
    free_items(items, count);
    table_def_clear(&def);
    free(found_format);
    json_decref(definition);
    return rc;
}
