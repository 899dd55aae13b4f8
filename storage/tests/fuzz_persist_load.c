/*
 * fuzz_persist_load.c - libFuzzer target for the on-disk records (--db-path).
 *
 * Input: records, each one byte of kind, two bytes of length (little
 * endian) and the record's bytes: 0 a table (the tables.state column),
 * 1 an item of the first table (items.item), 2 a stream (streams.state),
 * 3 a stream record (stream_records.record); a stream or stream record
 * starts with its stream ARN and a NUL. 4 and 5: a unit's payload (the ops
 * of journal.h), appended to the log as a whole, well-checksummed record
 * numbered after the ones before; 6 and 7: raw bytes appended to the log
 * file written last (a torn tail, or damage when a unit follows: the next
 * unit then starts a new file). Every record is first decoded on
 * its own with the codec (model/codec.c: values, table definitions), then
 * all of them are written into a data directory's file and log, as the
 * journal writes them, and the engine is opened from it (db_open_dir: the
 * log's replay, engine/db_persist.c's loaders, stream_restore), as ddbemu does at
 * start. A damaged record must
 * be refused, never trusted: nothing may crash, trip an assertion or
 * sanitizer, or leak, whatever the bytes. A fresh engine per input.
 * Built only with -DDDB_FUZZ=ON and clang (see storage/CMakeLists.txt).
 */
#include "storage/engine/db.h"
#include "storage/engine/db_tables.h"
#include "storage/model/codec.h"
#include "storage/model/schema.h"
#include "storage/persist/disk.h"
#include "storage/persist/wal_log.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdbool.h>
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

/* Whether name is the directory's own file, the namespace's, or one of
 * their SQLite companions (-wal, -shm, -journal). */
static bool kept(const char *name)
{
    const char *base = strrchr(file, '/') + 1;
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    const char *own[] = {base, "ddbemu.db", "ddbemu.lock"};

    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        size_t n = strlen(own[i]);
        if (strncmp(name, own[i], n) != 0) continue;
        for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
            if (strcmp(name + n, suffixes[k]) == 0) return true;
        }
    }
    return false;
}

/* Removes what an earlier input left besides those: logs a refused replay
 * kept, files its units created. */
static void remove_leftovers(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];

    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || kept(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
}

/* The log being written for one input: units numbered from 1 (the file's
 * folded unit is set to 0), raw bytes appended to the file written last. */
struct log_writer {
    struct wal_log *log;
    uint64_t next_seq;
    char last_path[600];
};

/* A new log file from w->next_seq on (after a gap when a file of that
 * number exists already: one that raw bytes were appended to). */
static void start_file(struct log_writer *w)
{
    char path[600], *why = NULL;

    for (;;) {
        snprintf(path, sizeof path, "%s/ddbemu-%020llu.log", dir, (unsigned long long) w->next_seq);
        if (strcmp(path, w->last_path) != 0) break;
        w->next_seq++;
    }
    w->log = wal_log_create(dir, w->next_seq, 1u << 30, &why);
    if (!w->log) __builtin_trap();
    snprintf(w->last_path, sizeof w->last_path, "%s", path);
}

static void log_unit(struct log_writer *w, const uint8_t *payload, size_t len)
{
    struct text_buf b = {0};
    char *why = NULL;
    uint64_t seq;

    if (!w->log) start_file(w);
    wal_log_unit_start(&b);
    text_buf_add(&b, (const char *) payload, len);
    if (wal_log_append(w->log, &b, &seq, &why) != 0) __builtin_trap();
    w->next_seq = seq + 1;
    text_buf_clear(&b);
}

static void log_raw(struct log_writer *w, const uint8_t *bytes, size_t len)
{
    FILE *f;

    if (!w->last_path[0]) start_file(w); /* a file to damage */
    wal_log_close(w->log, false);
    w->log = NULL;
    f = fopen(w->last_path, "ab");
    if (!f) __builtin_trap();
    fwrite(bytes, 1, len, f);
    fclose(f);
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
    struct log_writer w = {.next_seq = 1};
    const uint8_t *log_data = data;
    size_t log_size = size;

    if (!file[0]) {
        setup();
        atexit(cleanup);
    }
    remove_leftovers();
    if (sqlite3_open(file, &sq) != SQLITE_OK) __builtin_trap();
    sqlite3_exec(sq, "PRAGMA synchronous = OFF", NULL, NULL, NULL); /* a scratch file */
    sqlite3_exec(sq,
                 "BEGIN; DELETE FROM tables; DELETE FROM items; DELETE FROM streams;"
                 " DELETE FROM stream_records; DELETE FROM tokens; DELETE FROM pitr_history;"
                 " DELETE FROM backups; DELETE FROM backup_items; DELETE FROM bulk_operations;"
                 " UPDATE meta SET value = 0 WHERE key = '" DISK_META_FOLDED "';",
                 NULL, NULL, NULL);
    while (size >= 3) {
        unsigned kind = data[0] & 7;
        size_t len = (size_t) data[1] | (size_t) data[2] << 8;
        sqlite3_stmt *st;
        if (len > size - 3) len = size - 3;
        decode_alone(data + 3, len);
        if (kind >= 4) { /* the log's, written below */
            data += 3 + len;
            size -= 3 + len;
            continue;
        }
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

    /* The log, after the file: what the file holds was folded before it. */
    while (log_size >= 3) {
        unsigned kind = log_data[0] & 7;
        size_t len = (size_t) log_data[1] | (size_t) log_data[2] << 8;
        if (len > log_size - 3) len = log_size - 3;
        if (kind == 4 || kind == 5) log_unit(&w, log_data + 3, len);
        if (kind >= 6) log_raw(&w, log_data + 3, len);
        log_data += 3 + len;
        log_size -= 3 + len;
    }
    wal_log_close(w.log, false);

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
