/*
 * transfer_files.c - export and import files in AWS's layout; see
 * transfer_files.h.
 */
#include "api/transfer/transfer_files.h"

#include "api/transfer/ion.h"
#include "api/wire/json_in.h"
#include "api/wire/json_out.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/model/item.h"
#include "storage/model/number.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>
#include <zstd.h>

/* The export manifest's format version (S3DataExport.Output). */
#define MANIFEST_VERSION "2020-06-30"

/* An import reads at most this many objects (ImportTable quotas: 50,000). */
#define IMPORT_MAX_OBJECTS 50000

/* Sets *why (owned) to "<what> <path>: <errno text>" and returns -1. */
static int failf(char **why, const char *what, const char *path)
{
    struct text_buf b = {0};
    text_buf_printf(&b, "%s %s: %s", what, path, strerror(errno));
    *why = text_buf_take(&b, NULL);
    return -1;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char *copy = xstrdup(path);
    int rc = 0;

    for (char *p = copy + 1; *p && rc == 0; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) rc = -1;
        *p = '/';
    }
    if (rc == 0 && mkdir(copy, 0777) != 0 && errno != EEXIST) rc = -1;
    free(copy);
    return rc;
}

/* MD5 of data, as 16 raw bytes. */
static void md5(const void *data, size_t len, unsigned char out[16])
{
    unsigned int n = 16;
    EVP_Digest(data, len, out, &n, EVP_md5(), NULL);
}

static void hex(const unsigned char *bytes, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

static int write_file(const char *path, const void *data, size_t len, char **why)
{
    FILE *f = fopen(path, "wb");

    if (!f) return failf(why, "cannot write", path);
    if ((len && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
        return failf(why, "cannot write", path);
    return 0;
}

/* gzip's whole-file form of data, into *out (owned). */
static void gzip_bytes(const char *data, size_t len, char **out, size_t *out_len)
{
    z_stream z;
    size_t cap = deflateBound(NULL, (uLong) len) + 64;

    memset(&z, 0, sizeof z);
    *out = xmalloc(cap);
    /* windowBits 15 + 16: a gzip header and trailer, as .json.gz files have. */
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *) data;
    z.avail_in = (uInt) len;
    z.next_out = (Bytef *) *out;
    z.avail_out = (uInt) cap;
    deflate(&z, Z_FINISH);
    *out_len = z.total_out;
    deflateEnd(&z);
}

/* The summary's time form: "2020-11-04T07:28:34.028Z". */
static void iso_time(int64_t ms, char out[32])
{
    time_t secs = (time_t) (ms / 1000);
    struct tm tm;
    size_t n;

    gmtime_r(&secs, &tm);
    n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int) (ms % 1000));
}

/* A data file's name: 26 characters of base32, as AWS's look. */
static void data_file_name(char out[27])
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    unsigned char r[26];

    if (getrandom(r, sizeof r, 0) != (ssize_t) sizeof r) memset(r, 7, sizeof r);
    for (size_t i = 0; i < 26; i++)
        out[i] = alphabet[r[i] % 32];
    out[26] = '\0';
}

/* Writes a manifest file and the .md5 beside it: the manifest's MD5 in
 * base64, as AWS writes manifest-files.md5 and manifest-summary.md5. */
static int write_manifest(const char *dir, const char *name, const char *text, char **why)
{
    char *path = xmalloc(strlen(dir) + strlen(name) + 16);
    unsigned char digest[16];
    char *digest_b64;
    int rc;

    sprintf(path, "%s/%s.json", dir, name);
    rc = write_file(path, text, strlen(text), why);
    md5(text, strlen(text), digest);
    digest_b64 = text_base64_encode_new(digest, 16);
    sprintf(path, "%s/%s.md5", dir, name);
    if (rc == 0) rc = write_file(path, digest_b64, strlen(digest_b64), why);
    free(digest_b64);
    free(path);
    return rc;
}

/* The manifest version of an incremental export's summary (as AWS's). */
#define INCREMENTAL_MANIFEST_VERSION "2023-08-01"

/* AWS bills an incremental export at least 10 MB (developer guide,
 * S3DataExport.HowItWorks; observed: 10000000 for an empty span). */
#define INCREMENTAL_MIN_BILLED_BYTES 10000000

/* The summary manifest, as AWS writes it (member order included): an
 * incremental export adds exportFromTime/exportToTime before exportTime and
 * outputView/exportType at the end, under its own version. */
static char *summary_text(const struct export_desc *d, int64_t end_ms, const char *files_key,
                          int64_t billed, size_t count)
{
    bool incremental = export_desc_is_incremental(d);
    char start[32], end[32], export_time[32], from[32], to[32];
    json_t *s = json_object();
    char *text;

    iso_time(d->start_ms, start);
    iso_time(end_ms, end);
    iso_time(d->export_ms, export_time);
    json_object_set_new(s, "version",
                        json_string(incremental ? INCREMENTAL_MANIFEST_VERSION : MANIFEST_VERSION));
    json_object_set_new(s, "exportArn", json_string(d->arn));
    json_object_set_new(s, "startTime", json_string(start));
    json_object_set_new(s, "endTime", json_string(end));
    json_object_set_new(s, "tableArn", json_string(d->table_arn));
    json_object_set_new(s, "tableId", json_string(d->table_id));
    if (incremental) {
        iso_time(d->from_ms, from);
        iso_time(d->to_ms, to);
        json_object_set_new(s, "exportFromTime", json_string(from));
        json_object_set_new(s, "exportToTime", json_string(to));
    }
    json_object_set_new(s, "exportTime", json_string(export_time));
    json_object_set_new(s, "s3Bucket", json_string(d->s3_bucket));
    json_object_set_new(s, "s3Prefix", d->s3_prefix ? json_string(d->s3_prefix) : json_null());
    json_object_set_new(s, "s3SseAlgorithm", json_string(d->s3_sse_algorithm));
    json_object_set_new(s, "s3SseKmsKeyId",
                        d->s3_sse_kms_key_id ? json_string(d->s3_sse_kms_key_id) : json_null());
    json_object_set_new(s, "manifestFilesS3Key", json_string(files_key));
    json_object_set_new(s, "billedSizeBytes", json_integer(billed));
    json_object_set_new(s, "itemCount", json_integer((json_int_t) count));
    json_object_set_new(s, "outputFormat", json_string(d->format));
    if (incremental) {
        json_object_set_new(s, "outputView", json_string(d->view_type));
        json_object_set_new(s, "exportType", json_string("INCREMENTAL_EXPORT"));
    }
    text = json_dumps(s, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(s);
    return text;
}

/* Writes an export's files around its data lines (count of them, billed
 * bytes): _started, the gzip'd data file, the manifests and their .md5s. A
 * full export's data file is in <export folder>/data/; an incremental
 * export's in the data/ folder that AWS's incremental exports share,
 * [<prefix>/]AWSDynamoDB/data/ (developer guide, incremental export output). */
static int write_export_files(const char *bucket_dir, const struct export_desc *d, int64_t end_ms,
                              const struct text_buf *lines, size_t count, int64_t billed,
                              struct export_result *res, char **manifest_key, char **why)
{
    const char *export_id = strrchr(d->arn, '/') + 1;
    bool ion = strcmp(d->format, "ION") == 0;
    struct text_buf prefix = {0}, dir = {0}, path = {0}, manifest = {0}, data_key = {0};
    char name[27], digest_hex[33], *gz = NULL, *b64, *text;
    unsigned char digest[16];
    size_t gz_len = 0;
    int rc = -1;

    *manifest_key = NULL;
    memset(res, 0, sizeof *res);
    /* Keys are relative to the bucket: [<prefix>/]AWSDynamoDB/<export id>/... */
    if (d->s3_prefix && d->s3_prefix[0]) {
        text_buf_puts(&prefix, d->s3_prefix);
        if (d->s3_prefix[strlen(d->s3_prefix) - 1] != '/') text_buf_puts(&prefix, "/");
    }
    text_buf_printf(&prefix, "AWSDynamoDB/");
    data_file_name(name);
    if (export_desc_is_incremental(d))
        text_buf_printf(&data_key, "%sdata/%s.%s.gz", prefix.data, name, ion ? "ion" : "json");
    else
        text_buf_printf(&data_key, "%s%s/data/%s.%s.gz", prefix.data, export_id, name,
                        ion ? "ion" : "json");
    text_buf_printf(&path, "%s/%s", bucket_dir, data_key.data);
    *strrchr(path.data, '/') = '\0';
    if (make_dirs(path.data) != 0) {
        failf(why, "cannot create", path.data);
        goto out;
    }
    text_buf_printf(&dir, "%s/%s%s", bucket_dir, prefix.data, export_id);
    if (make_dirs(dir.data) != 0) {
        failf(why, "cannot create", dir.data);
        goto out;
    }
    path.len = 0;
    text_buf_printf(&path, "%s/_started", dir.data);
    if (write_file(path.data, "", 0, why) != 0) goto out;

    gzip_bytes(lines->data ? lines->data : "", lines->len, &gz, &gz_len);
    path.len = 0;
    text_buf_printf(&path, "%s/%s", bucket_dir, data_key.data);
    if (write_file(path.data, gz, gz_len, why) != 0) goto out;

    /* manifest-files.json: one line per data file. */
    md5(gz, gz_len, digest);
    hex(digest, 16, digest_hex);
    b64 = text_base64_encode_new(digest, 16);
    text_buf_printf(&manifest,
                    "{\"itemCount\":%zu,\"md5Checksum\":\"%s\",\"etag\":\"%s\","
                    "\"dataFileS3Key\":\"%s\"}\n",
                    count, b64, digest_hex, data_key.data);
    free(b64);
    if (write_manifest(dir.data, "manifest-files", manifest.data, why) != 0) goto out;

    manifest.len = 0;
    text_buf_printf(&manifest, "%s%s/manifest-files.json", prefix.data, export_id);
    text = summary_text(d, end_ms, manifest.data, billed, count);
    rc = write_manifest(dir.data, "manifest-summary", text, why);
    free(text);
    if (rc != 0) goto out;
    res->item_count = (int64_t) count;
    res->billed_size_bytes = billed;
    manifest.len = 0;
    text_buf_printf(&manifest, "%s%s/manifest-summary.json", prefix.data, export_id);
    *manifest_key = text_buf_take(&manifest, NULL);
out:
    free(gz);
    text_buf_clear(&prefix);
    text_buf_clear(&dir);
    text_buf_clear(&path);
    text_buf_clear(&manifest);
    text_buf_clear(&data_key);
    return rc;
}

int transfer_write_export(const char *bucket_dir, const struct export_desc *d, int64_t end_ms,
                          struct item *const *items, size_t count, struct export_result *res,
                          char **manifest_key, char **why)
{
    bool ion = strcmp(d->format, "ION") == 0;
    struct text_buf lines = {0};
    int64_t billed = 0;
    int rc;

    for (size_t i = 0; i < count; i++) {
        if (ion) {
            struct decode_mark mark = item_scratch_mark(); /* an export writes a whole table */
            ion_write_item_line(&lines, item_attrs(items[i]));
            item_scratch_release(mark);
        } else {
            struct json_out w;
            size_t len;
            char *text;
            json_out_init(&w);
            json_out_object_begin(&w);
            json_out_key(&w, "Item");
            wire_write_stored_item(&w, items[i]);
            json_out_object_end(&w);
            text = json_out_take(&w, &len);
            text_buf_add(&lines, text, len);
            text_buf_add(&lines, "\n", 1);
            free(text);
        }
        billed += (int64_t) items[i]->size_bytes;
    }
    rc = write_export_files(bucket_dir, d, end_ms, &lines, count, billed, res, manifest_key, why);
    text_buf_clear(&lines);
    return rc;
}

/* One line of an incremental export in DynamoDB JSON (developer guide,
 * incremental export output): {"Metadata":{"WriteTimestampMicros":{"N":..}},
 * "Keys":{..},"NewImage":{..},"OldImage":{..}}; NewImage absent for a
 * deleted item, OldImage only in NEW_AND_OLD_IMAGES and only when the item
 * existed before the span. */
static void json_change_line(struct text_buf *lines, const struct item_change *c, bool old_images)
{
    struct json_out w;
    char micros[32];
    size_t len;
    char *text;

    snprintf(micros, sizeof micros, "%lld", (long long) c->ms * 1000);
    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "Metadata");
    json_out_object_begin(&w);
    json_out_key(&w, "WriteTimestampMicros");
    json_out_object_begin(&w);
    json_out_key(&w, "N");
    json_out_string(&w, micros);
    json_out_object_end(&w);
    json_out_object_end(&w);
    json_out_key(&w, "Keys");
    wire_value_write_map(&w, &c->keys);
    if (c->new_item) {
        json_out_key(&w, "NewImage");
        wire_write_stored_item(&w, c->new_item);
    }
    if (old_images && c->old_item) {
        json_out_key(&w, "OldImage");
        wire_write_stored_item(&w, c->old_item);
    }
    json_out_object_end(&w);
    text = json_out_take(&w, &len);
    text_buf_add(lines, text, len);
    text_buf_add(lines, "\n", 1);
    free(text);
}

int transfer_write_incremental_export(const char *bucket_dir, const struct export_desc *d,
                                      int64_t end_ms, const struct item_change *changes,
                                      size_t count, struct export_result *res, char **manifest_key,
                                      char **why)
{
    bool ion = strcmp(d->format, "ION") == 0;
    bool old_images = strcmp(d->view_type, "NEW_AND_OLD_IMAGES") == 0;
    struct text_buf lines = {0};
    int64_t billed = 0;
    int rc;

    for (size_t i = 0; i < count; i++) {
        const struct item_change *c = &changes[i];
        const struct item *old_image = old_images ? c->old_item : NULL;
        struct decode_mark mark = item_scratch_mark(); /* an export writes every change */
        if (ion)
            ion_write_change_line(&lines, c->ms * 1000, &c->keys,
                                  c->new_item ? item_attrs(c->new_item) : NULL,
                                  old_image ? item_attrs(old_image) : NULL);
        else
            json_change_line(&lines, c, old_images);
        item_scratch_release(mark);
        billed += (int64_t) (c->new_item ? c->new_item->size_bytes : 0) +
                  (int64_t) (c->old_item ? c->old_item->size_bytes : 0);
    }
    if (billed < INCREMENTAL_MIN_BILLED_BYTES) billed = INCREMENTAL_MIN_BILLED_BYTES;
    rc = write_export_files(bucket_dir, d, end_ms, &lines, count, billed, res, manifest_key, why);
    text_buf_clear(&lines);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* importing                                                                 */
/* ------------------------------------------------------------------------ */

/* The files an export writes beside its data, which an import skips. */
static bool is_export_metadata(const char *name)
{
    return strcmp(name, "_started") == 0 || strcmp(name, "manifest-summary.json") == 0 ||
           strcmp(name, "manifest-files.json") == 0 || strcmp(name, "manifest-summary.md5") == 0 ||
           strcmp(name, "manifest-files.md5") == 0;
}

/* Collects the object keys under dir (relative path rel) that start with prefix. */
static void list_objects(const char *root, const char *rel, const char *prefix, char ***keys,
                         size_t *count)
{
    struct text_buf path = {0};
    DIR *d;
    struct dirent *e;

    text_buf_printf(&path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    d = opendir(path.data);
    text_buf_clear(&path);
    if (!d) return;
    while ((e = readdir(d)) && *count < IMPORT_MAX_OBJECTS + 1) {
        struct text_buf key = {0};
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        text_buf_printf(&key, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        text_buf_printf(&path, "%s/%s", root, key.data);
        if (stat(path.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            list_objects(root, key.data, prefix, keys, count);
        } else if (strncmp(key.data, prefix, strlen(prefix)) == 0 &&
                   !is_export_metadata(e->d_name)) {
            *keys = xrealloc(*keys, sizeof **keys * (*count + 1));
            (*keys)[(*count)++] = text_buf_take(&key, NULL);
        }
        text_buf_clear(&key);
        text_buf_clear(&path);
    }
    closedir(d);
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The compression an object's first bytes announce (gzip or zstd magic), for
 * TRANSFER_COMPRESSION_AUTO. */
static const char *sniff_compression(const struct text_buf *raw)
{
    const unsigned char *p = (const unsigned char *) raw->data;

    if (raw->len >= 2 && p[0] == 0x1f && p[1] == 0x8b) return "GZIP";
    if (raw->len >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
        return "ZSTD";
    return "NONE";
}

/* The whole content of an object, decompressed; -1 when it cannot be read.
 * *size grows by the decompressed length: AWS's ProcessedSizeBytes counts the
 * bytes it parsed, the same for a gzip'd and a plain copy of one object. */
static int read_object(const char *path, const char *compression, struct text_buf *out,
                       int64_t *size, char **why)
{
    FILE *f = fopen(path, "rb");
    struct text_buf raw = {0};
    char buf[65536];
    size_t n;
    int rc = -1;

    if (!f) return failf(why, "cannot read", path);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        text_buf_add(&raw, buf, n);
    fclose(f);
    if (strcmp(compression, TRANSFER_COMPRESSION_AUTO) == 0) compression = sniff_compression(&raw);
    if (strcmp(compression, "GZIP") == 0) {
        z_stream z;
        memset(&z, 0, sizeof z);
        inflateInit2(&z, 15 + 32); /* gzip or zlib, by their headers */
        z.next_in = (Bytef *) raw.data;
        z.avail_in = (uInt) raw.len;
        for (;;) {
            int zr;
            z.next_out = (Bytef *) buf;
            z.avail_out = sizeof buf;
            zr = inflate(&z, Z_NO_FLUSH);
            text_buf_add(out, buf, sizeof buf - z.avail_out);
            if (zr == Z_STREAM_END) {
                /* Concatenated gzip members are one stream. */
                if (z.avail_in == 0) break;
                inflateReset(&z);
                continue;
            }
            if (zr != Z_OK) {
                inflateEnd(&z);
                errno = EINVAL;
                failf(why, "not gzip data:", path);
                goto out;
            }
        }
        inflateEnd(&z);
    } else if (strcmp(compression, "ZSTD") == 0) {
        ZSTD_DStream *z = ZSTD_createDStream();
        ZSTD_inBuffer in = {raw.data, raw.len, 0};
        ZSTD_initDStream(z);
        while (in.pos < in.size) {
            ZSTD_outBuffer o = {buf, sizeof buf, 0};
            size_t zr = ZSTD_decompressStream(z, &o, &in);
            if (ZSTD_isError(zr)) {
                ZSTD_freeDStream(z);
                errno = EINVAL;
                failf(why, "not zstd data:", path);
                goto out;
            }
            text_buf_add(out, buf, o.pos);
            if (o.pos == 0 && zr == 0) break;
        }
        ZSTD_freeDStream(z);
    } else {
        text_buf_add(out, raw.data ? raw.data : "", raw.len);
    }
    *size += (int64_t) out->len;
    rc = 0;
out:
    text_buf_clear(&raw);
    return rc;
}

struct item_list {
    struct item **items;
    size_t count, cap;
};

/* Whether attrs can be an item of the table: every key attribute present with
 * its declared type (a non-empty S or B), and no empty attribute name. The
 * table's own checks run again when the item is written; this one lets a bad
 * line stop its object, as AWS stops at the first line it cannot import. */
static bool fits_table(const struct table_def *def, const struct value *attrs)
{
    const struct key_schema *k = &def->key;

    for (size_t i = 0; i < attrs->u.map.count; i++)
        if (attrs->u.map.attrs[i].name_len == 0) return false;
    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        const struct value *v = value_map_get(attrs, name, strlen(name));
        enum value_type type;
        if (!v || !table_def_attr_type(def, name, &type) || v->type != type) return false;
        if ((type == VALUE_S || type == VALUE_B) && v->u.str.len == 0) return false;
    }
    return true;
}

/* Takes attrs (a VALUE_M) as the next item; false (and attrs freed) when it
 * cannot be one. */
static bool add_item(const struct import_source *src, struct item_list *l, struct value *attrs)
{
    struct ddb_error too_large = {0};
    struct item *item;

    if (!fits_table(src->def, attrs)) {
        value_clear(attrs);
        return false;
    }
    item = item_new(attrs);
    if (item_check_size(item->size_bytes, ITEM_SIZE_GIVEN, &too_large) != 0) {
        ddb_error_clear(&too_large); /* an import counts the line, it reports no text */
        item_unref(item);
        return false;
    }
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->items = xrealloc(l->items, sizeof *l->items * l->cap);
    }
    l->items[l->count++] = item;
    return true;
}

/* One DYNAMODB_JSON line: {"Item": {...}}. */
static bool json_line(const struct import_source *src, const char *line, size_t len,
                      struct item_list *l)
{
    json_t *doc = json_in_load(line, len);
    struct value attrs;
    struct ddb_error err = {0};

    if (!doc || !json_is_object(json_object_get(doc, "Item")) ||
        wire_value_map_from_json(json_object_get(doc, "Item"), &attrs, &err) != 0) {
        ddb_error_clear(&err);
        json_decref(doc);
        return false;
    }
    json_decref(doc);
    return add_item(src, l, &attrs);
}

static bool ion_line(const struct import_source *src, const char *line, size_t len,
                     struct item_list *l)
{
    struct value attrs;
    char *why = NULL;

    if (ion_read_item_line(line, len, &attrs, &why) != 0) {
        free(why);
        return false;
    }
    return add_item(src, l, &attrs);
}

/* Splits one CSV record (RFC 4180: quoted fields with "" escapes may hold
 * delimiters and newlines) starting at *p; fields are owned strings. */
static bool csv_record(const char **p, const char *end, char delim, char ***fields, size_t *count)
{
    const char *s = *p;

    *fields = NULL;
    *count = 0;
    if (s >= end) return false;
    for (;;) {
        struct text_buf f = {0};
        if (s < end && *s == '"') {
            s++;
            while (s < end) {
                if (*s == '"' && s + 1 < end && s[1] == '"') {
                    text_buf_add(&f, "\"", 1);
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    text_buf_add(&f, s++, 1);
                }
            }
        }
        while (s < end && *s != delim && *s != '\n' && *s != '\r')
            text_buf_add(&f, s++, 1);
        *fields = xrealloc(*fields, sizeof **fields * (*count + 1));
        (*fields)[(*count)++] = text_buf_take(&f, NULL);
        if (s < end && *s == delim) {
            s++;
            continue;
        }
        if (s < end && *s == '\r') s++;
        if (s < end && *s == '\n') s++;
        break;
    }
    *p = s;
    return true;
}

static void free_fields(char **fields, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(fields[i]);
    free(fields);
}

/* A CSV field of the named column as an attribute value: a string, or, for a
 * key attribute, the type the table declares. False when it cannot be. */
static bool csv_value(const struct table_def *def, const char *name, const char *text,
                      struct value *out)
{
    enum value_type type = VALUE_S;

    table_def_attr_type(def, name, &type);
    if (type == VALUE_N) {
        struct number n;
        struct ddb_error err = {0};
        char canonical[NUMBER_TEXT_MAX];
        size_t len;
        if (number_parse(text, strlen(text), &n, &err) != 0) {
            ddb_error_clear(&err);
            return false;
        }
        len = number_format(&n, canonical, sizeof canonical);
        value_init_number_text(out, canonical, len);
    } else if (type == VALUE_B) {
        char *data;
        size_t len;
        if (!text_base64_valid(text, strlen(text))) return false;
        data = text_base64_decode(text, strlen(text), &len);
        value_init_binary(out, data, len);
        free(data);
    } else {
        value_init_string(out, text, strlen(text));
    }
    return true;
}

/* The rows of one CSV object; false at the first row that is no item (the
 * rest of the object is not read). */
static bool csv_object(const struct import_source *src, const char *text, size_t len,
                       struct item_list *l)
{
    const char *p = text, *end = text + len;
    char **header = NULL, **fields;
    size_t header_count = 0, count;
    bool ok = true;

    if (src->csv_header) {
        header = (char **) src->csv_header;
        header_count = src->csv_header_count;
    } else if (!csv_record(&p, end, src->csv_delimiter, &header, &header_count)) {
        return true;
    }
    while (ok && csv_record(&p, end, src->csv_delimiter, &fields, &count)) {
        struct value attrs;
        if (count == 1 && !fields[0][0]) { /* a blank line */
            free_fields(fields, count);
            continue;
        }
        ok = count == header_count;
        value_init_map(&attrs);
        for (size_t i = 0; ok && i < count; i++) {
            struct value v;
            if (!fields[i][0]) continue; /* an empty field is no attribute */
            ok = csv_value(src->def, header[i], fields[i], &v);
            if (ok) value_map_set(&attrs, header[i], strlen(header[i]), &v);
        }
        free_fields(fields, count);
        if (!ok)
            value_clear(&attrs);
        else
            ok = add_item(src, l, &attrs);
    }
    if (!src->csv_header) free_fields(header, header_count);
    return ok;
}

/* The items of one DYNAMODB_JSON or ION object, one per line (blank lines are
 * neither items nor errors); false at the first line that is no item. */
static bool line_object(const struct import_source *src, const char *text, size_t len,
                        struct item_list *l)
{
    const char *p = text, *end = text + len;
    bool ion = strcmp(src->format, "ION") == 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t) (end - p));
        const char *stop = nl ? nl : end;
        size_t n = (size_t) (stop - p);
        bool blank = true;
        for (size_t i = 0; i < n && blank; i++)
            blank = p[i] == ' ' || p[i] == '\t' || p[i] == '\r';
        if (!blank && !(ion ? ion_line(src, p, n, l) : json_line(src, p, n, l))) return false;
        p = nl ? nl + 1 : end;
    }
    return true;
}

int transfer_read_import(const struct import_source *src, struct item ***items, size_t *count,
                         int64_t *bytes, int64_t *errors, char **why)
{
    char **keys = NULL;
    size_t key_count = 0;
    struct item_list l = {0};
    int rc = 0;

    *items = NULL;
    *count = 0;
    *bytes = 0;
    *errors = 0;
    *why = NULL;
    list_objects(src->bucket_dir, "", src->prefix, &keys, &key_count);
    if (key_count > IMPORT_MAX_OBJECTS) {
        *why = xstrdup("the source holds more than 50,000 objects");
        rc = -1;
    }
    if (key_count) qsort(keys, key_count, sizeof *keys, compare_keys);
    for (size_t k = 0; rc == 0 && k < key_count; k++) {
        struct text_buf path = {0}, content = {0};
        const char *text;
        bool whole;
        text_buf_printf(&path, "%s/%s", src->bucket_dir, keys[k]);
        rc = read_object(path.data, src->compression, &content, bytes, why);
        text_buf_clear(&path);
        if (rc != 0) {
            text_buf_clear(&content);
            break;
        }
        text = content.data ? content.data : "";
        /* AWS abandons an object at its first line that is no item and counts
         * one error for it (observed: six bad lines in one object, one error). */
        if (strcmp(src->format, "CSV") == 0)
            whole = csv_object(src, text, content.len, &l);
        else
            whole = line_object(src, text, content.len, &l);
        if (!whole) (*errors)++;
        text_buf_clear(&content);
    }
    for (size_t k = 0; k < key_count; k++)
        free(keys[k]);
    free(keys);
    if (rc != 0) {
        for (size_t i = 0; i < l.count; i++)
            item_unref(l.items[i]);
        free(l.items);
        return -1;
    }
    *items = l.items;
    *count = l.count;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* objects, for other readers (bulk put items)                               */
/* ------------------------------------------------------------------------ */

void transfer_list_objects(const char *bucket_dir, const char *prefix, char ***keys, size_t *count)
{
    *keys = NULL;
    *count = 0;
    list_objects(bucket_dir, "", prefix, keys, count);
    if (*count) qsort(*keys, *count, sizeof **keys, compare_keys);
}

int transfer_read_object(const char *path, const char *compression, struct text_buf *out,
                         int64_t *size, char **why)
{
    return read_object(path, compression, out, size, why);
}

int transfer_write_object(const char *bucket_dir, const char *key, const void *data, size_t len,
                          char **why)
{
    struct text_buf path = {0};
    char *slash;
    int rc;

    text_buf_printf(&path, "%s/%s", bucket_dir, key);
    slash = strrchr(path.data, '/');
    *slash = '\0';
    rc = make_dirs(path.data) == 0 ? 0 : failf(why, "cannot create", path.data);
    *slash = '/';
    if (rc == 0) rc = write_file(path.data, data, len, why);
    text_buf_clear(&path);
    return rc;
}
