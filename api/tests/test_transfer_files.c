/*
 * test_transfer_files.c - the export layout written and read back, without a
 * server: the files and their checksums, the import reader's rules (one error
 * per object at its first line that is no item, blank lines, compression
 * told by the first bytes for the command-line import, CSV quoting, Ion sets
 * read into set order), and the client's endpoint URLs.
 */
#include "api/client/http_client.h"
#include "api/transfer/ion.h"
#include "api/transfer/transfer_files.h"
#include "api/wire/json_out.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/model/schema.h"
#include "storage/tests/check.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* A temporary folder standing for a bucket, removed by remove_tree. */
static char *temp_dir(void)
{
    char *dir = xstrdup("/tmp/ddbemu-test-transfer-XXXXXX");

    if (!mkdtemp(dir)) abort();
    return dir;
}

static void remove_tree(const char *dir)
{
    char cmd[512];

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, len, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = xcalloc(1, 1 << 20);

    if (f) {
        size_t n = fread(buf, 1, (1 << 20) - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

static struct item *item_of(const char *json)
{
    json_error_t jerr;
    json_t *j = json_loads(json, 0, &jerr);
    struct value attrs;
    struct ddb_error err = {0};

    if (!j || wire_value_map_from_json(j, &attrs, &err) != 0) abort();
    json_decref(j);
    return item_new(&attrs);
}

/* A table keyed p (S) and c (N). */
static void key_def(struct table_def *def)
{
    json_error_t jerr;
    json_t *j = json_loads("{\"TableName\": \"t\", \"KeySchema\": [{\"AttributeName\": \"p\", "
                           "\"KeyType\": \"HASH\"}, {\"AttributeName\": \"c\", \"KeyType\": "
                           "\"RANGE\"}], \"AttributeDefinitions\": [{\"AttributeName\": \"p\", "
                           "\"AttributeType\": \"S\"}, {\"AttributeName\": \"c\", "
                           "\"AttributeType\": \"N\"}]}",
                           0, &jerr);
    wire_table_def_from_json(j, def);
    json_decref(j);
}

static void free_items(struct item **items, size_t count)
{
    for (size_t i = 0; i < count; i++)
        item_unref(items[i]);
    free(items);
}

static void test_an_export_reads_back(void)
{
    char *bucket = temp_dir(), path[512], prefix[128], *text;
    struct item *items[2] = {
        item_of("{\"p\": {\"S\": \"a\"}, \"c\": {\"N\": \"1\"}, \"b\": {\"B\": \"AAE=\"}}"),
        item_of("{\"p\": {\"S\": \"b\"}, \"c\": {\"N\": \"2\"}, \"ns\": {\"NS\": [\"1\", \"2\"]}}"),
    };
    struct export_desc d = {
        .arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t/export/01700000000000-0000abcd",
        .table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t",
        .table_id = "id",
        .s3_bucket = "b",
        .s3_prefix = "pre/fix",
        .s3_sse_algorithm = "AES256",
        .format = "DYNAMODB_JSON",
        .start_ms = 1700000000000,
        .export_ms = 1700000000000,
    };
    struct export_result res;
    struct table_def def;
    struct item **read = NULL;
    size_t count = 0;
    int64_t bytes = 0, errors = 0;
    char *manifest = NULL, *why = NULL;

    CHECK_INT_EQ(transfer_write_export(bucket, &d, 1700000000500, items, 2, &res, &manifest, &why),
                 0);
    CHECK_STR_EQ(manifest, "pre/fix/AWSDynamoDB/01700000000000-0000abcd/manifest-summary.json");
    CHECK_INT_EQ(res.item_count, 2);
    snprintf(path, sizeof path, "%s/pre/fix/AWSDynamoDB/01700000000000-0000abcd/_started", bucket);
    CHECK(access(path, F_OK) == 0);
    /* The .md5 beside a manifest is its MD5 in base64: 24 characters. */
    snprintf(path, sizeof path, "%s/pre/fix/AWSDynamoDB/01700000000000-0000abcd/manifest-files.md5",
             bucket);
    text = read_text(path);
    CHECK_INT_EQ(strlen(text), 24);
    CHECK(text[22] == '=' && text[23] == '=');
    free(text);
    snprintf(path, sizeof path, "%s/%s", bucket, manifest);
    text = read_text(path);
    CHECK(strstr(text, "\"startTime\":\"2023-11-14T22:13:20.000Z\"") != NULL);
    CHECK(strstr(text, "\"endTime\":\"2023-11-14T22:13:20.500Z\"") != NULL);
    CHECK(strstr(text, "\"itemCount\":2") != NULL);
    free(text);

    key_def(&def);
    snprintf(prefix, sizeof prefix, "pre/fix/AWSDynamoDB/01700000000000-0000abcd/data/");
    struct import_source src = {.bucket_dir = bucket,
                                .prefix = prefix,
                                .format = "DYNAMODB_JSON",
                                .compression = "GZIP",
                                .csv_delimiter = ',',
                                .def = &def};
    CHECK_INT_EQ(transfer_read_import(&src, &read, &count, &bytes, &errors, &why), 0);
    CHECK_INT_EQ(count, 2);
    CHECK_INT_EQ(errors, 0);
    CHECK(bytes > 0);
    for (size_t i = 0; i < count && i < 2; i++) {
        bool found = false;
        for (size_t j = 0; j < 2; j++)
            found = found || value_equal(item_attrs(read[i]), item_attrs(items[j]));
        CHECK(found);
    }
    free_items(read, count);
    /* The whole export folder as the prefix: the manifests are skipped. */
    src.prefix = "pre/fix/";
    CHECK_INT_EQ(transfer_read_import(&src, &read, &count, &bytes, &errors, &why), 0);
    CHECK_INT_EQ(count, 2);
    CHECK_INT_EQ(errors, 0);
    free_items(read, count);

    table_def_clear(&def);
    free(manifest);
    item_unref(items[0]);
    item_unref(items[1]);
    remove_tree(bucket);
    free(bucket);
}

/* The whole of a gzip file, as text (owned). */
static char *read_gzip(const char *path)
{
    gzFile f = gzopen(path, "rb");
    char *buf = xcalloc(1, 1 << 16);

    if (f) {
        int n = gzread(f, buf, (1 << 16) - 1);
        buf[n > 0 ? n : 0] = '\0';
        gzclose(f);
    }
    return buf;
}

static void test_an_incremental_export(void)
{
    char *bucket = temp_dir(), path[512], *text, *data;
    struct item_change changes[2] = {
        {.new_item =
             item_of("{\"p\": {\"S\": \"a\"}, \"c\": {\"N\": \"1\"}, \"v\": {\"N\": \"2\"}}"),
         .old_item =
             item_of("{\"p\": {\"S\": \"a\"}, \"c\": {\"N\": \"1\"}, \"v\": {\"N\": \"1\"}}"),
         .ms = 1700000000123},
        {.old_item = item_of("{\"p\": {\"S\": \"b\"}, \"c\": {\"N\": \"2\"}}"),
         .ms = 1700000000456},
    };
    struct export_desc d = {
        .arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t/export/01700000000000-0000abcd",
        .table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t",
        .table_id = "id",
        .s3_bucket = "b",
        .s3_sse_algorithm = "AES256",
        .format = "DYNAMODB_JSON",
        .start_ms = 1700000900000,
        .export_ms = 1700000900000,
        .from_ms = 1700000000000,
        .to_ms = 1700000900000,
        .view_type = "NEW_AND_OLD_IMAGES",
    };
    struct export_result res;
    char *manifest = NULL, *why = NULL;
    json_t *entry;
    json_error_t jerr;

    for (size_t i = 0; i < 2; i++) {
        const struct item *any = changes[i].new_item ? changes[i].new_item : changes[i].old_item;
        value_init_map(&changes[i].keys);
        for (const char *k = "pc"; *k; k++) {
            struct value v;
            value_copy(&v, value_map_get(item_attrs(any), k, 1));
            value_map_set(&changes[i].keys, k, 1, &v);
        }
    }
    CHECK_INT_EQ(transfer_write_incremental_export(bucket, &d, 1700000900500, changes, 2, &res,
                                                   &manifest, &why),
                 0);
    CHECK_STR_EQ(manifest, "AWSDynamoDB/01700000000000-0000abcd/manifest-summary.json");
    CHECK_INT_EQ(res.item_count, 2);
    CHECK_INT_EQ(res.billed_size_bytes, 10000000);
    snprintf(path, sizeof path, "%s/%s", bucket, manifest);
    text = read_text(path);
    CHECK(strstr(text, "{\"version\":\"2023-08-01\",") == text);
    CHECK(strstr(text,
                 "\"exportFromTime\":\"2023-11-14T22:13:20.000Z\",\"exportToTime\":"
                 "\"2023-11-14T22:28:20.000Z\",\"exportTime\":\"2023-11-14T22:28:20.000Z\"") !=
          NULL);
    CHECK(strstr(text, "\"outputFormat\":\"DYNAMODB_JSON\",\"outputView\":\"NEW_AND_OLD_IMAGES\","
                       "\"exportType\":\"INCREMENTAL_EXPORT\"}") != NULL);
    free(text);
    snprintf(path, sizeof path, "%s/AWSDynamoDB/01700000000000-0000abcd/manifest-files.json",
             bucket);
    text = read_text(path);
    entry = json_loads(text, JSON_DISABLE_EOF_CHECK, &jerr);
    CHECK(entry != NULL);
    CHECK(strncmp(json_string_value(json_object_get(entry, "dataFileS3Key")), "AWSDynamoDB/data/",
                  17) == 0);
    snprintf(path, sizeof path, "%s/%s", bucket,
             json_string_value(json_object_get(entry, "dataFileS3Key")));
    data = read_gzip(path);
    CHECK_STR_EQ(data,
                 "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1700000000123000\"}},"
                 "\"Keys\":{\"p\":{\"S\":\"a\"},\"c\":{\"N\":\"1\"}},"
                 "\"NewImage\":{\"p\":{\"S\":\"a\"},\"c\":{\"N\":\"1\"},\"v\":{\"N\":\"2\"}},"
                 "\"OldImage\":{\"p\":{\"S\":\"a\"},\"c\":{\"N\":\"1\"},\"v\":{\"N\":\"1\"}}}\n"
                 "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1700000000456000\"}},"
                 "\"Keys\":{\"p\":{\"S\":\"b\"},\"c\":{\"N\":\"2\"}},"
                 "\"OldImage\":{\"p\":{\"S\":\"b\"},\"c\":{\"N\":\"2\"}}}\n");
    free(data);
    json_decref(entry);
    free(text);
    free(manifest);
    for (size_t i = 0; i < 2; i++) {
        value_clear(&changes[i].keys);
        item_unref(changes[i].new_item);
        item_unref(changes[i].old_item);
    }
    remove_tree(bucket);
    free(bucket);
}

static void test_a_bad_line_ends_its_object(void)
{
    char *bucket = temp_dir();
    static const char lines[] = "{\"Item\": {\"p\": {\"S\": \"a\"}, \"c\": {\"N\": \"1\"}}}\n"
                                "\n   \n"
                                "{\"Item\": {\"p\": {\"S\": \"no range key\"}}}\n"
                                "{oops\n"
                                "{\"Item\": {\"p\": {\"S\": \"never\"}, \"c\": {\"N\": \"2\"}}}\n";
    static const char plain[] = "{\"Item\": {\"p\": {\"S\": \"z\"}, \"c\": {\"N\": \"9\"}}}\n";
    unsigned char gz[256];
    uLongf gz_len = sizeof gz;
    struct table_def def;
    struct item **read = NULL;
    size_t count = 0;
    int64_t bytes = 0, errors = 0;
    char *why = NULL;
    z_stream z;

    write_file(bucket, "1.json", lines, strlen(lines));
    /* A gzip'd object beside a plain one: AUTO tells them apart. */
    memset(&z, 0, sizeof z);
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *) plain;
    z.avail_in = (uInt) strlen(plain);
    z.next_out = gz;
    z.avail_out = (uInt) gz_len;
    deflate(&z, Z_FINISH);
    gz_len = z.total_out;
    deflateEnd(&z);
    write_file(bucket, "2.json.gz", gz, gz_len);

    key_def(&def);
    struct import_source src = {.bucket_dir = bucket,
                                .prefix = "",
                                .format = "DYNAMODB_JSON",
                                .compression = TRANSFER_COMPRESSION_AUTO,
                                .csv_delimiter = ',',
                                .def = &def};
    CHECK_INT_EQ(transfer_read_import(&src, &read, &count, &bytes, &errors, &why), 0);
    CHECK_INT_EQ(count, 2); /* "a" and "z"; "never" is after the bad line */
    CHECK_INT_EQ(errors, 1);
    CHECK_INT_EQ(bytes, (int64_t) (strlen(lines) + strlen(plain)));
    free_items(read, count);

    /* With NONE, the gzip'd object is no text: its first line is no item. */
    src.compression = "NONE";
    CHECK_INT_EQ(transfer_read_import(&src, &read, &count, &bytes, &errors, &why), 0);
    CHECK_INT_EQ(count, 1);
    CHECK_INT_EQ(errors, 2);
    free_items(read, count);
    table_def_clear(&def);
    remove_tree(bucket);
    free(bucket);
}

/* An Ion set is read into set order (storage/model/value.h), whatever order
 * the file lists it in; one that repeats a member is no item. */
static void test_ion_sets_read_in_set_order(void)
{
    const char *line = "$ion_1_0 {Item:{p:\"a\",ns:$dynamodb_NS::[10.,9.,-1.,1d-3],"
                       "ss:$dynamodb_SS::[\"b\",\"B\",\"a\"]}}";
    const char *dup = "{Item:{p:\"a\",ss:$dynamodb_SS::[\"b\",\"a\",\"b\"]}}";
    struct value item;
    struct json_out w;
    char *why = NULL, *text;
    size_t len;

    CHECK_INT_EQ(ion_read_item_line(line, strlen(line), &item, &why), 0);
    json_out_init(&w);
    wire_value_write_map(&w, &item);
    text = json_out_take(&w, &len);
    CHECK_STR_EQ(text, "{\"p\":{\"S\":\"a\"},\"ns\":{\"NS\":[\"-1\",\"0.001\",\"9\","
                       "\"10\"]},\"ss\":{\"SS\":[\"B\",\"a\",\"b\"]}}");
    free(text);
    value_clear(&item);
    CHECK_INT_EQ(ion_read_item_line(dup, strlen(dup), &item, &why), -1);
    CHECK(why != NULL);
    free(why);
}

static void test_csv_fields(void)
{
    char *bucket = temp_dir();
    static const char csv[] = "c;p;note\r\n"
                              "01.50;k1;\"semi;colon \"\"q\"\"\nline\"\r\n"
                              "2;k2;\n"
                              "x;k3;bad number ends the object\n"
                              "3;k4;never read\n";
    struct table_def def;
    struct item **read = NULL;
    size_t count = 0;
    int64_t bytes = 0, errors = 0;
    char *why = NULL;
    const struct value *v;

    write_file(bucket, "a.csv", csv, strlen(csv));
    key_def(&def);
    struct import_source src = {.bucket_dir = bucket,
                                .prefix = "",
                                .format = "CSV",
                                .compression = "NONE",
                                .csv_delimiter = ';',
                                .def = &def};
    CHECK_INT_EQ(transfer_read_import(&src, &read, &count, &bytes, &errors, &why), 0);
    CHECK_INT_EQ(count, 2);
    CHECK_INT_EQ(errors, 1);
    if (count == 2) {
        v = item_get_cstr(read[0], "c");
        CHECK(v && v->type == VALUE_N && strcmp(v->u.str.data, "1.5") == 0);
        v = item_get_cstr(read[0], "note");
        CHECK(v && v->type == VALUE_S && strcmp(v->u.str.data, "semi;colon \"q\"\nline") == 0);
        CHECK(item_get_cstr(read[1], "note") == NULL); /* an empty field is no attribute */
    }
    free_items(read, count);
    table_def_clear(&def);
    remove_tree(bucket);
    free(bucket);
}

static void test_endpoint_urls(void)
{
    struct http_target t;

    memset(&t, 0, sizeof t);
    CHECK_INT_EQ(http_parse_url("http://localhost:8000", &t), 0);
    CHECK_STR_EQ(t.host, "localhost");
    CHECK_INT_EQ(t.port, 8000);
    CHECK_INT_EQ(http_parse_url("http://127.0.0.1/", &t), 0);
    CHECK_INT_EQ(t.port, 80);
    CHECK_INT_EQ(http_parse_url("http://[::1]:9000", &t), 0);
    CHECK_STR_EQ(t.host, "::1");
    CHECK_INT_EQ(t.port, 9000);
    CHECK_INT_EQ(http_parse_url("https://localhost:8000", &t), -1);
    CHECK_INT_EQ(http_parse_url("http://localhost:0", &t), -1);
    CHECK_INT_EQ(http_parse_url("http://localhost:99999", &t), -1);
    CHECK_INT_EQ(http_parse_url("http://localhost:80/path", &t), -1);
    CHECK_INT_EQ(http_parse_url("http://:80", &t), -1);
    CHECK_INT_EQ(http_parse_url("localhost:8000", &t), -1);
}

int main(void)
{
    RUN(test_an_export_reads_back);
    RUN(test_an_incremental_export);
    RUN(test_a_bad_line_ends_its_object);
    RUN(test_ion_sets_read_in_set_order);
    RUN(test_csv_fields);
    RUN(test_endpoint_urls);
    return check_report();
}
