/*
 * fuzz_persist_load.c - libFuzzer target for the on-disk records (--db-path).
 *
 * Input: records, each one byte of kind, two bytes of length (little
 * endian) and the record's bytes: 0 a table (the tables.state column),
 * 1 an item of the first table (items.item), 2 a stream (streams.state),
 * 3 a stream record (stream_records.record); a stream or stream record
 * starts with its stream ARN and a NUL. Every record is first decoded on
 * its own with the codec (model/codec.c: values, table definitions), then
 * all of them are written into a data directory's file, as the journal
 * writes them, and the engine is opened from it (db_open_dir: persistence.c's
 * loaders, stream_restore), as ddbemu does at start. A damaged record must
 * be refused, never trusted: nothing may crash, trip an assertion or
 * sanitizer, or leak, whatever the bytes. A fresh engine per input.
 * Built only with -DDDB_FUZZ=ON and clang (see storage/CMakeLists.txt).
 */
#include "storage/db.h"
#include "storage/model/codec.h"
#include "storage/model/schema.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct db_scope scope = {"AK/us-east-1", "us-east-1"};
static char dir[64];
static char file[512]; /* the namespace's file in dir */

static char *sdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(malloc(n), s, n);
}

/* Makes dir hold one namespace's file with one table (and its stream). */
static void setup(void)
{
    struct table_def def;
    struct table_desc desc;
    struct ddb_error err = {0};
    struct db *db;
    char *why = NULL;
    DIR *d;
    struct dirent *e;

    snprintf(dir, sizeof dir, "/tmp/ddbemu-fuzz-persist-XXXXXX");
    if (!mkdtemp(dir) || !(db = db_open_dir(dir, &why))) __builtin_trap();
    memset(&def, 0, sizeof def);
    def.name = sdup("tab");
    def.attr_def_count = 1;
    def.attr_defs = calloc(1, sizeof *def.attr_defs);
    def.attr_defs[0] = (struct attr_def){sdup("pk"), VALUE_S};
    def.key.hash_count = 1;
    def.key.hash_names[0] = sdup("pk");
    def.billing = BILLING_PAY_PER_REQUEST;
    def.stream.enabled = true;
    def.stream.view = STREAM_NEW_AND_OLD_IMAGES;
    if (db_create_table(db, &scope, &def, &desc, &err) != 0) __builtin_trap();
    table_desc_clear(&desc);
    db_free(db);
    d = opendir(dir);
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        /* ddbemu.db is the directory's own file; the namespace's is the other. */
        if (len > 3 && strcmp(e->d_name + len - 3, ".db") == 0 && strcmp(e->d_name, "ddbemu.db"))
            snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
    }
    if (d) closedir(d);
    if (!file[0]) __builtin_trap();
}

static void cleanup(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];

    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* The codec on its own: whatever decodes is encoded again without trouble. */
static void decode_alone(const uint8_t *rec, size_t len)
{
    struct codec_in in;
    struct value v;
    struct table_def def;

    codec_in_init(&in, rec, len);
    if (codec_get_value(&in, &v)) {
        struct text_buf b = {0};
        codec_put_value(&b, &v);
        text_buf_clear(&b);
        value_clear(&v);
    }
    codec_in_init(&in, rec, len);
    if (codec_get_table_def(&in, &def)) table_def_clear(&def);
}

static void bind_arn_blob(sqlite3_stmt *st, int first, const uint8_t *rec, size_t len)
{
    const uint8_t *nul = memchr(rec, 0, len);
    size_t arn_len = nul ? (size_t) (nul - rec) : 0;

    sqlite3_bind_text(st, first, (const char *) rec, (int) arn_len, SQLITE_TRANSIENT);
    rec += nul ? arn_len + 1 : 0;
    len -= nul ? arn_len + 1 : 0;
    sqlite3_bind_blob(st, first + 1, rec, (int) len, SQLITE_TRANSIENT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const sql[] = {
        "INSERT OR REPLACE INTO tables(uid, state) VALUES (?1, ?2)",
        "INSERT OR REPLACE INTO items(uid, key, item) VALUES (1, ?1, ?2)",
        "INSERT OR REPLACE INTO streams(arn, state) VALUES (?2, ?3)",
        "INSERT OR REPLACE INTO stream_records(arn, seq, record) VALUES (?2, ?1, ?3)",
    };
    sqlite3 *sq;
    struct db *db;
    char *why = NULL;
    int n = 0;

    if (!file[0]) {
        setup();
        atexit(cleanup);
    }
    if (sqlite3_open(file, &sq) != SQLITE_OK) __builtin_trap();
    sqlite3_exec(sq, "PRAGMA synchronous = OFF", NULL, NULL, NULL); /* a scratch file */
    sqlite3_exec(sq,
                 "BEGIN; DELETE FROM tables; DELETE FROM items; DELETE FROM streams;"
                 " DELETE FROM stream_records; DELETE FROM tokens; DELETE FROM pitr_history;"
                 " DELETE FROM backups; DELETE FROM backup_items;",
                 NULL, NULL, NULL);
    while (size >= 3) {
        unsigned kind = data[0] & 3;
        size_t len = (size_t) data[1] | (size_t) data[2] << 8;
        sqlite3_stmt *st;
        if (len > size - 3) len = size - 3;
        decode_alone(data + 3, len);
        if (sqlite3_prepare_v2(sq, sql[kind], -1, &st, NULL) != SQLITE_OK) __builtin_trap();
        sqlite3_bind_int(st, 1, ++n);
        if (kind < 2)
            sqlite3_bind_blob(st, 2, data + 3, (int) len, SQLITE_TRANSIENT);
        else
            bind_arn_blob(st, 2, data + 3, len);
        sqlite3_step(st);
        sqlite3_finalize(st);
        data += 3 + len;
        size -= 3 + len;
    }
    if (sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "COMMIT: %s\n", sqlite3_errmsg(sq));
        __builtin_trap();
    }
    sqlite3_close(sq);

    db = db_open_dir(dir, &why);
    if (db) {
        struct table_desc desc;
        struct ddb_error err = {0};
        if (db_describe_table(db, &scope, "tab", &desc, &err) == 0) table_desc_clear(&desc);
        ddb_error_clear(&err);
        db_free(db);
    } else if (!why) {
        __builtin_trap(); /* a refusal must say why */
    }
    free(why);
    return 0;
}
