/*
 * test_persist.c - the on-disk format: the codec's round trips and its
 * refusal of damaged bytes, a whole engine saved and loaded, the upgrade of
 * a file written by the first schema version, and the files refused; the
 * point-in-time history and the backups come back too, also in a file
 * written by schema version 2 (before either existed); concurrent writers'
 * units all get folded; the log a crash left is replayed at the next open.
 *
 * conformance/test_emulator_persistence.py covers the same through the real
 * server (kill -9, concurrent writers, foreign and damaged files).
 */
#include "storage/control/jobs.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_snapshots.h"
#include "storage/engine/db_tables.h"
#include "storage/engine/db_ttl.h"
#include "storage/jobs/backup_record.h"
#include "storage/jobs/bulk_record.h"
#include "storage/model/codec.h"
#include "storage/persist/disk.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct db_scope scope = {"AK/us-east-1", "us-east-1"};

static char *temp_dir(void)
{
    char templ[] = "/tmp/ddbemu-test-persist-XXXXXX";
    char *d = mkdtemp(templ);
    return d ? xstrdup(d) : NULL;
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* A value of every type, nested, with NUL bytes in a name and a string. */
static void sample_value(struct value *out)
{
    struct value v, l, set, inner;

    value_init_map(out);
    value_init_string(&v, "a\0b", 3);
    value_map_set(out, "s\0x", 3, &v);
    value_init_number_text(&v, "-1.5E+10", 8);
    value_map_set(out, "n", 1, &v);
    value_init_binary(&v, "\x00\xff\x01", 3);
    value_map_set(out, "b", 1, &v);
    value_init_bool(&v, true);
    value_map_set(out, "t", 1, &v);
    value_init_null(&v);
    value_map_set(out, "z", 1, &v);
    value_init_list(&l, VALUE_L);
    value_init_map(&inner);
    value_init_list(&set, VALUE_NS);
    value_init_number_text(&v, "1", 1);
    value_list_append(&set, &v);
    value_init_number_text(&v, "2", 1);
    value_list_append(&set, &v);
    value_map_set(&inner, "ns", 2, &set);
    value_list_append(&l, &inner);
    value_init_list(&set, VALUE_BS);
    value_init_binary(&v, "", 0);
    value_list_append(&set, &v);
    value_list_append(&l, &set);
    value_map_set(out, "l", 1, &l);
}

static void test_values_round_trip(void)
{
    struct value in, out;
    struct text_buf b = {0};
    struct codec_in r;

    sample_value(&in);
    codec_put_value(&b, &in);
    codec_in_init(&r, b.data, b.len);
    CHECK(codec_get_value(&r, &out));
    CHECK(codec_at_end(&r) && codec_ok(&r));
    CHECK(value_equal(&in, &out));
    value_clear(&out);
    /* Every truncation is refused, never read past its end. */
    for (size_t len = 0; len < b.len; len++) {
        codec_in_init(&r, b.data, len);
        CHECK(!codec_get_value(&r, &out));
        CHECK(!codec_ok(&r));
    }
    value_clear(&in);
    text_buf_clear(&b);
}

/* A set as a file written before set order holds it: members in the order
 * given (raw codec bytes, since codec_put_value asserts set order). */
static void put_raw_set(struct text_buf *b, enum value_type type, const char *const *members,
                        size_t count, enum value_type member_type)
{
    codec_put_u8(b, (uint8_t) type);
    codec_put_uvar(b, count);
    for (size_t i = 0; i < count; i++) {
        codec_put_u8(b, (uint8_t) member_type);
        codec_put_bytes(b, members[i], strlen(members[i]));
    }
}

static void test_sets_load_in_set_order(void)
{
    static const char *const ns[] = {"10", "9", "-1", "0.001"};
    static const char *const ss[] = {"b", "\xef\xbc\xa1", "\xf0\x9f\x98\x80", "B"};
    static const char *const dup[] = {"x", "y", "x"};
    static const char *const bad_number[] = {"1", "one"};
    struct text_buf b = {0};
    struct codec_in r;
    struct value out;

    put_raw_set(&b, VALUE_NS, ns, 4, VALUE_N);
    codec_in_init(&r, b.data, b.len);
    CHECK(codec_get_value(&r, &out) && codec_ok(&r));
    CHECK(out.type == VALUE_NS && out.u.list.count == 4);
    CHECK_STR_EQ(out.u.list.elems[0].u.str.data, "-1");
    CHECK_STR_EQ(out.u.list.elems[1].u.str.data, "0.001");
    CHECK_STR_EQ(out.u.list.elems[2].u.str.data, "9");
    CHECK_STR_EQ(out.u.list.elems[3].u.str.data, "10");
    value_clear(&out);
    text_buf_clear(&b);

    put_raw_set(&b, VALUE_SS, ss, 4, VALUE_S);
    codec_in_init(&r, b.data, b.len);
    CHECK(codec_get_value(&r, &out) && codec_ok(&r));
    CHECK(out.type == VALUE_SS && out.u.list.count == 4);
    CHECK_STR_EQ(out.u.list.elems[0].u.str.data, "B");
    CHECK_STR_EQ(out.u.list.elems[1].u.str.data, "b");
    CHECK_STR_EQ(out.u.list.elems[2].u.str.data, ss[2]); /* U+1F600 before U+FF21 */
    CHECK_STR_EQ(out.u.list.elems[3].u.str.data, ss[1]);
    value_clear(&out);
    text_buf_clear(&b);

    /* Duplicates, a member of another type, a number that does not parse:
     * a damaged file. */
    put_raw_set(&b, VALUE_SS, dup, 3, VALUE_S);
    codec_in_init(&r, b.data, b.len);
    CHECK(!codec_get_value(&r, &out) && !codec_ok(&r));
    text_buf_clear(&b);
    put_raw_set(&b, VALUE_SS, ns, 4, VALUE_N);
    codec_in_init(&r, b.data, b.len);
    CHECK(!codec_get_value(&r, &out) && !codec_ok(&r));
    text_buf_clear(&b);
    put_raw_set(&b, VALUE_NS, bad_number, 2, VALUE_N);
    codec_in_init(&r, b.data, b.len);
    CHECK(!codec_get_value(&r, &out) && !codec_ok(&r));
    text_buf_clear(&b);
}

static void test_damaged_bytes_are_refused_not_trusted(void)
{
    struct value out;
    struct codec_in r;
    struct key_schema k;
    struct table_def def;
    struct text_buf b;
    /* A map claiming 2^60 entries; a list nested far deeper than 32 levels. */
    const unsigned char huge[] = {VALUE_M, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10};
    unsigned char deep[200];

    codec_in_init(&r, huge, sizeof huge);
    CHECK(!codec_get_value(&r, &out));
    for (size_t i = 0; i < sizeof deep; i += 2) {
        deep[i] = VALUE_L;
        deep[i + 1] = 1;
    }
    codec_in_init(&r, deep, sizeof deep);
    CHECK(!codec_get_value(&r, &out));
    /* A type byte that is no type. */
    codec_in_init(&r, "\x63", 1);
    CHECK(!codec_get_value(&r, &out));
    /* A number whose text does not parse, alone and inside a list (found by
     * fuzz_persist_load: the item encoding asserted on it). */
    {
        const unsigned char bad_n[] = {VALUE_N, 2, '1', 'x'};
        const unsigned char in_list[] = {VALUE_L, 2, VALUE_N, 1, '7', VALUE_N, 1, '.'};
        const unsigned char good_n[] = {VALUE_N, 3, '-', '2', '5'};
        codec_in_init(&r, bad_n, sizeof bad_n);
        CHECK(!codec_get_value(&r, &out) && !codec_ok(&r));
        codec_in_init(&r, in_list, sizeof in_list);
        CHECK(!codec_get_value(&r, &out) && !codec_ok(&r));
        codec_in_init(&r, good_n, sizeof good_n);
        CHECK(codec_get_value(&r, &out) && codec_ok(&r));
        CHECK_STR_EQ(out.u.str.data, "-25");
        value_clear(&out);
    }
    /* Key schemas with more parts than a key has (found by fuzz_persist_load:
     * clearing them read past the name arrays), and a table definition whose
     * name comes twice (the first leaked). */
    codec_in_init(&r, "\x05", 1);
    codec_get_key_schema(&r, &k);
    CHECK(!codec_ok(&r));
    codec_in_init(&r, "\x00\x09", 2);
    codec_get_key_schema(&r, &k);
    CHECK(!codec_ok(&r));
    text_buf_init(&b);
    for (int i = 0; i < 2; i++) {
        size_t m = codec_field_begin(&b, 1); /* the name */
        codec_put_str(&b, "t");
        codec_field_end(&b, m);
    }
    codec_in_init(&r, b.data, b.len);
    CHECK(!codec_get_table_def(&r, &def));
    text_buf_clear(&b);
    /* The name again under tag 2^32 + 1, which an enum cast reads as 1. */
    text_buf_init(&b);
    for (int i = 0; i < 2; i++) {
        size_t m = codec_field_begin(&b, i ? (UINT64_C(1) << 32) + 1 : 1);
        codec_put_str(&b, "t");
        codec_field_end(&b, m);
    }
    codec_in_init(&r, b.data, b.len);
    CHECK(!codec_get_table_def(&r, &def));
    {
        struct codec_in field;
        uint64_t tag;
        codec_in_init(&r, b.data, b.len);
        CHECK(codec_next_field(&r, &tag, &field) && tag == 1);
        CHECK(!codec_next_field(&r, &tag, &field));
        CHECK(!codec_ok(&r));
    }
    text_buf_clear(&b);
}

/* The global-table settings (GlobalTableSettingsReplicationMode,
 * DisassociationProtectionEnabled) survive the codec; a table without them
 * encodes without their fields. */
static void test_global_table_settings_round_trip(void)
{
    struct table_def def, out;
    struct codec_in r;
    struct text_buf b, plain;

    def_init(&def, "t");
    def_add_key(&def, "pk", VALUE_S, true);
    text_buf_init(&plain);
    codec_put_table_def(&plain, &def);
    def.replication_mode = xstrdup("ENABLED");
    def.has_disassociation_protection = true;
    def.disassociation_protection = false;
    text_buf_init(&b);
    codec_put_table_def(&b, &def);
    CHECK(b.len > plain.len);
    memset(&out, 0, sizeof out);
    codec_in_init(&r, b.data, b.len);
    CHECK(codec_get_table_def(&r, &out));
    CHECK(out.replication_mode && strcmp(out.replication_mode, "ENABLED") == 0);
    CHECK(out.has_disassociation_protection && !out.disassociation_protection);
    table_def_clear(&out);
    memset(&out, 0, sizeof out);
    codec_in_init(&r, plain.data, plain.len);
    CHECK(codec_get_table_def(&r, &out));
    CHECK(!out.replication_mode && !out.has_disassociation_protection);
    table_def_clear(&out);
    table_def_clear(&def);
    text_buf_clear(&b);
    text_buf_clear(&plain);
}

static void create_table(struct db *db, const char *name)
{
    struct table_def def;
    struct index_def *g;

    def_init(&def, name);
    def_add_key(&def, "pk", VALUE_S, true);
    def_add_attr(&def, "g", VALUE_N);
    g = def_add_index(&def, "byg", true, PROJECTION_INCLUDE);
    key_add(&g->key, "g", true);
    /* A projected name with a NUL inside survives the codec whole. */
    index_include_n(g, "x\0y", 3);
    def.tag_count = 1;
    def.tags = xcalloc(1, sizeof *def.tags);
    def.tags[0] = (struct tag){xstrdup("team"), xstrdup("chat")};
    create_table_ok(db, &scope, &def);
}

static void put(struct db *db, const char *table, const char *pk, long g)
{
    struct value m;

    value_init_map(&m);
    set_s(&m, "pk", pk);
    set_n(&m, "g", g);
    put_ok(db, &scope, table, &m);
}

static int64_t count_items(struct db *db, const char *table)
{
    struct table_desc desc;
    struct ddb_error err = {0};
    int64_t n;

    if (db_describe_table(db, &scope, table, &desc, &err) != 0) {
        ddb_error_clear(&err);
        return -1;
    }
    n = desc.item_count;
    CHECK_INT_EQ(desc.def.tag_count, 1);
    CHECK_INT_EQ(desc.def.gsis[0].projection.non_key_lens[0], 3);
    CHECK(memcmp(desc.def.gsis[0].projection.non_key_attrs[0], "x\0y", 3) == 0);
    table_desc_clear(&desc);
    return n;
}

static void test_an_engine_comes_back_from_its_directory(void)
{
    char *dir = temp_dir(), *why = NULL;
    struct db *db = db_open_dir(dir, &why);

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "chat");
    for (long i = 0; i < 500; i++) {
        char pk[16];
        snprintf(pk, sizeof pk, "k%ld", i);
        put(db, "chat", pk, i % 7);
    }
    db_free(db);
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "chat"), 500);
        db_free(db);
    }
    remove_dir(dir);
    free(dir);
}

/* Writers in several threads: each write is in the log when its call
 * returns, the writer thread folds them into shared groups, and every write
 * is there after a restart. */
#define CONCURRENT_WRITERS 6
#define WRITES_EACH        150

struct writer_arg {
    struct db *db;
    int n;
};

static void *concurrent_writer(void *p)
{
    struct writer_arg *a = p;

    for (int i = 0; i < WRITES_EACH; i++) {
        char pk[32];
        snprintf(pk, sizeof pk, "w%d-%d", a->n, i);
        put(a->db, "chat", pk, i);
    }
    return NULL;
}

static void test_concurrent_writers_share_commits(void)
{
    char *dir = temp_dir(), *why = NULL;
    struct db *db = db_open_dir(dir, &why);
    pthread_t threads[CONCURRENT_WRITERS];
    struct writer_arg args[CONCURRENT_WRITERS];

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "chat");
    for (int t = 0; t < CONCURRENT_WRITERS; t++) {
        args[t] = (struct writer_arg){db, t};
        CHECK(pthread_create(&threads[t], NULL, concurrent_writer, &args[t]) == 0);
    }
    for (int t = 0; t < CONCURRENT_WRITERS; t++)
        pthread_join(threads[t], NULL);
    db_free(db);
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "chat"), CONCURRENT_WRITERS * WRITES_EACH);
        db_free(db);
    }
    remove_dir(dir);
    free(dir);
}

/* The number of log files (ddbemu-*.log) in dir. */
static int count_log_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, "ddbemu-", 7) == 0;
    if (d) closedir(d);
    return n;
}

/* A process that ends without closing its engine (what kill -9 does) leaves
 * its units in the log, some not yet folded into the file: the next open
 * replays them, and a clean close leaves no log behind. */
static void test_a_log_left_by_a_crash_is_replayed(void)
{
    char *dir = temp_dir(), *why = NULL;
    struct db *db;
    pid_t child = fork();
    int status = 0;

    CHECK(child >= 0);
    if (child == 0) {
        db = db_open_dir(dir, &why);
        if (!db) _exit(2);
        create_table(db, "crashed");
        for (int i = 0; i < 500; i++) {
            char pk[32];
            snprintf(pk, sizeof pk, "c%d", i);
            put(db, "crashed", pk, i);
        }
        _exit(0); /* no db_free: nothing is folded or removed on the way out */
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT_EQ(count_log_files(dir), 1);
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "crashed"), 500);
        db_free(db);
    }
    CHECK_INT_EQ(count_log_files(dir), 0);
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "crashed"), 500);
        db_free(db);
    }
    remove_dir(dir);
    free(dir);
}

/* A table loaded with TTL on gets its expiry index back from its items (the
 * load goes through the write path), so the sweep finds them after a restart. */
static void test_ttl_items_expire_after_a_restart(void)
{
    char *dir = temp_dir(), *why = NULL;
    struct db *db = db_open_dir(dir, &why);
    struct ddb_error err = {0};

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "chat");
    for (long i = 0; i < 10; i++) {
        char pk[16];
        snprintf(pk, sizeof pk, "k%ld", i);
        put(db, "chat", pk, i); /* g: expiry i seconds after the epoch */
    }
    CHECK_INT_EQ(db_update_ttl(db, &scope, "chat", true, "g", &err), 0);
    db_free(db);
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "chat"), 10);
        db_clock_set(db, 4500); /* g 0..4 are due; the clock runs on from here */
        CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 5);
        CHECK_INT_EQ(count_items(db, "chat"), 5);
        db_free(db);
    }
    remove_dir(dir);
    free(dir);
}

/* Runs sql on the file at path (a test's own connection). */
static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static int64_t user_version(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t v = -1;

    CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

/*
 * A file written by schema version 1 (no client-token table) is upgraded in
 * place when opened, and everything in it loads: the file is made as
 * version 1 from version 2 by undoing step 2 exactly.
 */
static void test_a_version_1_file_is_upgraded(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "old");
    put(db, "old", "a", 1);
    put(db, "old", "b", 2);
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    CHECK_INT_EQ(user_version(path), (int64_t) disk_migration_count);
    exec_sql(path, "DROP TABLE tokens; DROP TABLE pitr_history; DROP TABLE backups; "
                   "DROP TABLE backup_items; DROP TABLE bulk_operations; "
                   "PRAGMA user_version = 1;");
    CHECK_INT_EQ(user_version(path), 1);

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "old"), 2);
        db_free(db);
    }
    CHECK_INT_EQ(user_version(path), (int64_t) disk_migration_count);
    free(path);
    remove_dir(dir);
    free(dir);
}

/* The value of attribute g of item pk in table, or -1 when there is no such item. */
static long get_g(struct db *db, const char *table, const char *pk)
{
    struct value key;
    struct item *item;
    long g = -1;

    value_init_map(&key);
    set_s(&key, "pk", pk);
    item = get_ok(db, &scope, table, &key);
    if (item) {
        const struct value *gv = item_get_cstr(item, "g");
        char text[32] = "";
        if (gv && gv->u.str.len < sizeof text) memcpy(text, gv->u.str.data, gv->u.str.len);
        g = strtol(text, NULL, 10);
    }
    item_unref(item);
    return g;
}

static void delete_item(struct db *db, const char *table, const char *pk)
{
    struct value key;

    value_init_map(&key);
    set_s(&key, "pk", pk);
    delete_ok(db, &scope, table, &key);
}

/* ItemCount of a restored table (restores copy no tags, so count_items does not apply). */
static int64_t restored_count(struct db *db, const char *table)
{
    struct table_desc desc;
    struct ddb_error err = {0};
    int64_t n;

    CHECK_INT_EQ(db_describe_table(db, &scope, table, &desc, &err), 0);
    n = desc.item_count;
    CHECK(desc.restore.present);
    CHECK_INT_EQ(desc.def.tag_count, 0);
    CHECK_INT_EQ(desc.def.gsi_count, 1);
    table_desc_clear(&desc);
    return n;
}

/* Restores src (a backup when backup_arn, else table "chat" at at_ms) into target. */
static int restore_into(struct db *db, const char *backup_arn, int64_t at_ms, const char *target)
{
    struct restore_source src = {.backup_arn = backup_arn,
                                 .source_table_name = backup_arn ? NULL : "chat",
                                 .restore_ms = at_ms};
    struct table_def def;
    struct table_desc desc;
    struct ddb_error err = {0};
    int rc;

    if (db_restore_source_def(db, &scope, &src, &def, &err) != 0) {
        ddb_error_clear(&err);
        return -1;
    }
    free(def.name);
    def.name = xstrdup(target);
    rc = db_restore_table(db, &scope, &src, &def, &desc, &err);
    if (rc == 0) {
        CHECK(desc.restore.present);
        table_desc_clear(&desc);
    }
    ddb_error_clear(&err);
    return rc;
}

/*
 * A file of schema version 2 (no history, no backups) is upgraded, and from
 * then on the point-in-time history and an on-demand backup are kept on
 * disk: after a restart a restore to a second before the last changes, and
 * a restore of the backup, bring back the table as it was then.
 */
/* Empty records (a zero-length blob: SQLite hands back a NULL pointer) are
 * refused like any damaged record, without pointer arithmetic on NULL (found
 * by fuzz_persist_load under UBSan: codec_in_init computed NULL + 0). */
static void test_empty_records_are_refused(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);
    struct codec_in r;
    struct value out;

    codec_in_init(&r, NULL, 0);
    CHECK(codec_at_end(&r));
    CHECK(!codec_get_value(&r, &out));
    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "empty");
    put(db, "empty", "a", 1);
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    exec_sql(path, "UPDATE items SET item = x''; "
                   "INSERT INTO streams(arn, state) VALUES ('arn:s', x''); "
                   "INSERT INTO stream_records(arn, seq, record) VALUES ('arn:s', 1, x'');");
    db = db_open_dir(dir, &why);
    CHECK(db != NULL || why != NULL);
    if (db) db_free(db);
    free(why);
    why = NULL;
    exec_sql(path, "UPDATE tables SET state = x''");
    db = db_open_dir(dir, &why);
    CHECK(db != NULL || why != NULL);
    if (db) db_free(db);
    free(why);
    free(path);
    remove_dir(dir);
    free(dir);
}

/* A record whose fields all come twice (a damaged file) loads with the last
 * of each, and leaks none of the first (found by fuzz_persist_load: the
 * strings of a repeated field leaked; the sanitizer run checks it). */
static void test_repeated_fields_are_not_leaked(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "twice");
    put(db, "twice", "a", 1);
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    exec_sql(path, "UPDATE tables SET state = state || state");
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(count_items(db, "twice"), 1);
        db_free(db);
    }
    free(why);
    why = NULL;
    /* A stream record whose ARN comes twice (field 1, a 5-byte length, the
     * string "as"): refused, the first ARN not leaked. */
    exec_sql(path, "INSERT INTO streams(arn, state) VALUES ('arn:s', "
                   "x'018380808000036173018380808000036173')");
    db = db_open_dir(dir, &why);
    CHECK(db != NULL || why != NULL);
    if (db) db_free(db);
    free(why);
    free(path);
    remove_dir(dir);
    free(dir);
}

static void test_history_and_backups_survive_a_restart_after_an_upgrade(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);
    struct pitr_desc pitr;
    struct backup_desc backup;
    struct ddb_error err = {0};
    int64_t before;

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "chat");
    CHECK_INT_EQ(db_update_continuous_backups(db, &scope, "chat", true, 0, &pitr, &err), 0);
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    exec_sql(path, "DROP TABLE pitr_history; DROP TABLE backups; DROP TABLE backup_items; "
                   "DROP TABLE bulk_operations; PRAGMA user_version = 2;");
    CHECK_INT_EQ(user_version(path), 2);

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    CHECK_INT_EQ(user_version(path), (int64_t) disk_migration_count);
    put(db, "chat", "a", 1);
    put(db, "chat", "b", 2);
    db_clock_advance(db, 10 * 60 * 1000);
    before = db_now_ms(db);
    db_clock_advance(db, 60 * 1000);
    put(db, "chat", "a", 3);
    delete_item(db, "chat", "b");
    put(db, "chat", "c", 4);
    CHECK_INT_EQ(db_create_backup(db, &scope, "chat", "nightly", &backup, &err), 0);
    put(db, "chat", "d", 5);
    db_clock_advance(db, 10 * 60 * 1000);
    db_free(db);

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    CHECK_INT_EQ(restore_into(db, NULL, before, "at_before"), 0);
    CHECK_INT_EQ(get_g(db, "at_before", "a"), 1);
    CHECK_INT_EQ(get_g(db, "at_before", "b"), 2);
    CHECK_INT_EQ(get_g(db, "at_before", "c"), -1);
    CHECK_INT_EQ(restore_into(db, backup.arn, 0, "from_backup"), 0);
    CHECK_INT_EQ(get_g(db, "from_backup", "a"), 3);
    CHECK_INT_EQ(get_g(db, "from_backup", "b"), -1);
    CHECK_INT_EQ(get_g(db, "from_backup", "c"), 4);
    CHECK_INT_EQ(get_g(db, "from_backup", "d"), -1);
    CHECK_INT_EQ(restored_count(db, "from_backup"), 2);
    db_free(db);
    /* The restored tables are kept like any other. */
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        CHECK_INT_EQ(get_g(db, "at_before", "a"), 1);
        CHECK_INT_EQ(restored_count(db, "at_before"), 2);
        db_free(db);
    }
out:
    backup_desc_clear(&backup);
    free(path);
    remove_dir(dir);
    free(dir);
}

/*
 * A table with recovery on whose record predates the kept history (no
 * history marker, as written before schema version 3) cannot be restored to
 * a time before the load: its window starts at the load.
 */
static void test_recovery_without_kept_history_starts_at_load(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);
    struct pitr_desc pitr;
    struct ddb_error err = {0};
    int64_t enabled_ms, loaded_ms;

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "chat");
    CHECK_INT_EQ(db_update_continuous_backups(db, &scope, "chat", true, 0, &pitr, &err), 0);
    enabled_ms = pitr.earliest_ms;
    put(db, "chat", "a", 1);
    db_clock_advance(db, 60 * 60 * 1000);
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    /* The marker is the record's last field: tag 33, an empty 5-byte length. */
    exec_sql(path, "UPDATE tables SET state = substr(state, 1, length(state) - 6) "
                   "WHERE hex(substr(state, -6)) = '218080808000'");

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    loaded_ms = db_now_ms(db);
    CHECK_INT_EQ(db_describe_continuous_backups(db, &scope, "chat", &pitr, &err), 0);
    CHECK(pitr.enabled);
    CHECK(pitr.earliest_ms > enabled_ms + 30 * 60 * 1000);
    CHECK(pitr.earliest_ms <= loaded_ms);
    db_free(db);
    /* ... and the new start is kept. */
    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (db) {
        int64_t kept;
        CHECK_INT_EQ(db_describe_continuous_backups(db, &scope, "chat", &pitr, &err), 0);
        kept = pitr.earliest_ms;
        CHECK(kept <= loaded_ms && kept > enabled_ms + 30 * 60 * 1000);
        db_free(db);
    }
out:
    free(path);
    remove_dir(dir);
    free(dir);
}

static void test_newer_and_foreign_files_are_refused(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "t1x");
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    exec_sql(path, "PRAGMA user_version = 99;");
    db = db_open_dir(dir, &why);
    CHECK(db == NULL);
    CHECK(why && strstr(why, "newer ddbemu") && strstr(why, path));
    free(why);
    why = NULL;
    exec_sql(path, "PRAGMA user_version = 2; PRAGMA application_id = 7;");
    db = db_open_dir(dir, &why);
    CHECK(db == NULL);
    CHECK(why && strstr(why, "is not a ddbemu database"));
    free(why);
    free(path);
    remove_dir(dir);
    free(dir);
}

static void test_one_directory_one_ddbemu(void)
{
    char *dir = temp_dir(), *why = NULL;
    struct db *first = db_open_dir(dir, &why), *second;

    CHECK(first != NULL);
    second = db_open_dir(dir, &why);
    CHECK(second == NULL);
    CHECK(why && strstr(why, "in use by another ddbemu"));
    free(why);
    db_free(first);
    remove_dir(dir);
    free(dir);
}

/* Starts a bulk operation on table and ends it as db_bulk_finish does; its ARN (owned). */
static char *run_bulk(struct db *db, const char *table, const char *token, bool cancel, bool finish)
{
    static const char *const types[] = {"ERROR"};
    struct bulk_request r = {.table_name = table,
                             .client_token = token,
                             .in_bucket = "in-bucket",
                             .in_prefix = "items/",
                             .in_format = "DYNAMODB_JSON",
                             .out_types = types,
                             .out_type_count = 1,
                             .out_bucket = "out-bucket",
                             .has_max_wru = true,
                             .max_wru = 40};
    struct bulk_progress p = {.processed_bytes = 123, .has_total_bytes = true, .total_bytes = 456};
    struct bulk_desc d;
    struct ddb_error err = {0};
    enum bulk_status status;
    char *arn;

    CHECK_INT_EQ(db_bulk_begin(db, &scope, &r, &d, &err), 0);
    arn = strdup(d.arn);
    bulk_desc_clear(&d);
    db_bulk_progress(db, arn, &p);
    if (cancel) CHECK_INT_EQ(db_cancel_bulk(db, &scope, arn, &status, &err), 0);
    if (finish) db_bulk_finish(db, arn, NULL, NULL);
    return arn;
}

/*
 * A file of schema version 4 (before bulk operations were kept) is upgraded,
 * and from then on bulk operations survive a restart: their description,
 * counters and status, and the two found unfinished at start (the process
 * was killed) ended - CANCELLED when cancelling, FAILED otherwise.
 */
static void test_bulk_operations_survive_a_restart_after_an_upgrade(void)
{
    char *dir = temp_dir(), *why = NULL, *path, *done = NULL, *cancelling = NULL, *running = NULL;
    struct db *db = db_open_dir(dir, &why);
    struct bulk_desc d;
    struct ddb_error err = {0};
    pid_t child;
    int status;

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "bulk1");
    create_table(db, "bulk2");
    create_table(db, "bulk3");
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    exec_sql(path, "DROP TABLE bulk_operations; PRAGMA user_version = 4;");
    CHECK_INT_EQ(user_version(path), 4);

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    CHECK_INT_EQ(user_version(path), (int64_t) disk_migration_count);
    done = run_bulk(db, "bulk1", "token-1", false, true);
    db_free(db);

    /* Two operations left unfinished by a process that is killed. */
    child = fork();
    if (child == 0) {
        struct db *c = db_open_dir(dir, &why);
        if (!c) _exit(1);
        free(run_bulk(c, "bulk2", NULL, true, false));
        free(run_bulk(c, "bulk3", NULL, false, false));
        _exit(0); /* without closing: as kill -9 leaves it */
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    CHECK_INT_EQ(db_describe_bulk(db, &scope, done, &d, &err), 0);
    CHECK_STR_EQ(bulk_status_name(d.status), "COMPLETED");
    CHECK_STR_EQ(d.table_name, "bulk1");
    CHECK_STR_EQ(d.client_token, "token-1");
    CHECK_STR_EQ(d.in_prefix, "items/");
    CHECK_STR_EQ(d.out_types[0], "ERROR");
    CHECK_INT_EQ(d.max_wru, 40);
    CHECK_INT_EQ(d.processed_bytes, 123);
    CHECK_INT_EQ(d.total_bytes, 456);
    CHECK(d.end_ms >= d.start_ms && d.end_ms > 0);
    bulk_desc_clear(&d);
    {
        struct bulk_desc *list = NULL;
        size_t count = 0;
        bool more = false;
        db_list_bulk(db, &scope, 0, 10, &list, &count, &more);
        CHECK_INT_EQ(count, 3);
        if (count == 3) {
            /* Newest first. */
            CHECK_STR_EQ(list[0].table_name, "bulk3");
            CHECK_STR_EQ(bulk_status_name(list[0].status), "FAILED");
            CHECK_STR_EQ(list[0].failure_code, "InternalServerError");
            CHECK_STR_EQ(list[1].table_name, "bulk2");
            CHECK_STR_EQ(bulk_status_name(list[1].status), "CANCELLED");
            CHECK_STR_EQ(list[2].arn, done);
            running = strdup(list[0].arn);
            cancelling = strdup(list[1].arn);
        }
        for (size_t i = 0; i < count; i++)
            bulk_desc_clear(&list[i]);
        free(list);
    }
    db_free(db);
out:
    free(done);
    free(cancelling);
    free(running);
    free(path);
    remove_dir(dir);
    free(dir);
}

/* A damaged bulk operation record refuses the directory, with a reason. */
static void test_a_damaged_bulk_record_is_refused(void)
{
    char *dir = temp_dir(), *why = NULL, *path;
    struct db *db = db_open_dir(dir, &why);

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "bulk1");
    free(run_bulk(db, "bulk1", NULL, false, true));
    db_free(db);
    path = disk_namespace_path(dir, scope.namespace_id);
    exec_sql(path, "UPDATE bulk_operations SET state = x'07ff01'");
    db = db_open_dir(dir, &why);
    CHECK(db == NULL);
    CHECK(why != NULL);
    db_free(db);
    free(why);
    free(path);
    remove_dir(dir);
    free(dir);
}

/*
 * A ddbemu.db of schema version 1 (before named snapshots were kept) is
 * upgraded; from then on a snapshot saved survives a clean stop and a
 * process that ends without closing once db_snapshots_sync returned, and
 * restores its items after the restart; a deleted one stays deleted.
 */
static void test_snapshots_survive_a_restart_after_an_upgrade(void)
{
    char *dir = temp_dir(), *why = NULL, *meta;
    struct db *db = db_open_dir(dir, &why);
    struct snapshot_info info, *list = NULL;
    struct ddb_error err = {0};
    size_t count = 0, tables = 0;
    pid_t child;
    int status;

    CHECK(db != NULL);
    if (!db) return;
    create_table(db, "snap");
    for (int i = 0; i < 300; i++) {
        char pk[16];
        snprintf(pk, sizeof pk, "s%d", i);
        put(db, "snap", pk, i);
    }
    db_free(db);
    meta = disk_meta_path(dir);
    CHECK_INT_EQ(user_version(meta), (int64_t) disk_meta_version);
    exec_sql(meta, "DROP TABLE snapshots; DROP TABLE snapshot_tables; DROP TABLE snapshot_items; "
                   "DROP TABLE snapshot_history; DROP TABLE snapshot_streams; "
                   "DROP TABLE snapshot_stream_records; PRAGMA user_version = 1;");

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    CHECK_INT_EQ(user_version(meta), (int64_t) disk_meta_version);
    CHECK_INT_EQ(db_snapshot_save(db, "seed", scope.namespace_id, &info, &err), 0);
    CHECK(info.kept_on_disk);
    CHECK_INT_EQ(info.item_count, 300);
    snapshot_info_clear(&info);
    CHECK_INT_EQ(db_snapshot_save(db, "gone", NULL, &info, &err), 0);
    snapshot_info_clear(&info);
    db_free(db); /* a clean stop writes what is queued */

    /* A process that saves, deletes, syncs and ends without closing. */
    child = fork();
    if (child == 0) {
        struct db *c = db_open_dir(dir, &why);
        struct snapshot_info ci;
        struct ddb_error cerr = {0};
        if (!c || db_snapshot_delete(c, "gone", &cerr) != 0 ||
            db_snapshot_save(c, "late", NULL, &ci, &cerr) != 0)
            _exit(1);
        db_snapshots_sync(c);
        _exit(0); /* no db_free: as kill -9 leaves it */
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    db = db_open_dir(dir, &why);
    CHECK(db != NULL);
    if (!db) goto out;
    db_snapshot_list(db, &list, &count);
    CHECK_INT_EQ(count, 2);
    if (count == 2) {
        CHECK_STR_EQ(list[0].name, "seed");
        CHECK_INT_EQ(list[0].item_count, 300);
        CHECK(list[0].on_disk);
        CHECK_STR_EQ(list[1].name, "late");
    }
    for (size_t i = 0; i < count; i++)
        snapshot_info_clear(&list[i]);
    free(list);
    for (int i = 0; i < 100; i++) {
        char pk[16];
        snprintf(pk, sizeof pk, "x%d", i);
        put(db, "snap", pk, i);
    }
    CHECK_INT_EQ(count_items(db, "snap"), 400);
    CHECK_INT_EQ(db_snapshot_restore(db, "seed", true, &tables, &err), 0);
    CHECK_INT_EQ(tables, 1);
    CHECK_INT_EQ(count_items(db, "snap"), 300);
    db_free(db);
out:
    free(meta);
    remove_dir(dir);
    free(dir);
}

/* A damaged snapshot row in ddbemu.db refuses the directory with a reason,
 * as a damaged namespace file does: it is never dropped or repaired. */
static void test_a_damaged_snapshot_is_refused(void)
{
    const char *damage[] = {
        "UPDATE snapshot_items SET item = x'07ff01'",
        "UPDATE snapshot_tables SET state = x'01'",
        "UPDATE snapshots SET state = x'03ff'",
        "UPDATE snapshot_tables SET pos = 5",
    };

    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        char *dir = temp_dir(), *why = NULL, *meta;
        struct db *db = db_open_dir(dir, &why);
        struct snapshot_info info;
        struct ddb_error err = {0};

        CHECK(db != NULL);
        if (!db) return;
        create_table(db, "snap");
        put(db, "snap", "a", 1);
        CHECK_INT_EQ(db_snapshot_save(db, "seed", scope.namespace_id, &info, &err), 0);
        snapshot_info_clear(&info);
        db_free(db);
        meta = disk_meta_path(dir);
        exec_sql(meta, damage[i]);
        db = db_open_dir(dir, &why);
        CHECK(db == NULL);
        CHECK(why != NULL);
        db_free(db);
        free(why);
        free(meta);
        remove_dir(dir);
        free(dir);
    }
}

int main(void)
{
    RUN(test_values_round_trip);
    RUN(test_sets_load_in_set_order);
    RUN(test_damaged_bytes_are_refused_not_trusted);
    RUN(test_global_table_settings_round_trip);
    RUN(test_an_engine_comes_back_from_its_directory);
    RUN(test_concurrent_writers_share_commits);
    RUN(test_a_log_left_by_a_crash_is_replayed);
    RUN(test_ttl_items_expire_after_a_restart);
    RUN(test_a_version_1_file_is_upgraded);
    RUN(test_empty_records_are_refused);
    RUN(test_repeated_fields_are_not_leaked);
    RUN(test_history_and_backups_survive_a_restart_after_an_upgrade);
    RUN(test_bulk_operations_survive_a_restart_after_an_upgrade);
    RUN(test_a_damaged_bulk_record_is_refused);
    RUN(test_snapshots_survive_a_restart_after_an_upgrade);
    RUN(test_a_damaged_snapshot_is_refused);
    RUN(test_recovery_without_kept_history_starts_at_load);
    RUN(test_newer_and_foreign_files_are_refused);
    RUN(test_one_directory_one_ddbemu);
    return check_report();
}
