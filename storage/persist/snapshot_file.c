/*
 * snapshot_file.c - the named snapshots' rows in ddbemu.db; see
 * snapshot_file.h. Every write runs in one transaction on the journal's
 * meta connection, under its meta mutex (held from begin to commit); a
 * failed write stops ddbemu (journal_die_on_disk_error).
 */
#include "storage/persist/snapshot_file.h"

#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"
#include "storage/persist/disk.h"
#include "storage/persist/journal_internal.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>

/* The statements of a write, in the order of snapshot_file.h. */
enum snap_stmt { SS_TABLE, SS_ITEM, SS_HISTORY, SS_STREAM, SS_RECORD, SS_COUNT };

static const char *const snap_sql[SS_COUNT] = {
    [SS_TABLE] = "INSERT INTO snapshot_tables(snap, ns, pos, state) VALUES (?, ?, ?, ?)",
    [SS_ITEM] = "INSERT INTO snapshot_items(snap, ns, pos, seq, item) VALUES (?, ?, ?, ?, ?)",
    [SS_HISTORY] = "INSERT INTO snapshot_history(snap, ns, pos, seq, ms, old_item, new_item) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)",
    [SS_STREAM] = "INSERT INTO snapshot_streams(snap, ns, arn, state) VALUES (?, ?, ?, ?)",
    [SS_RECORD] = "INSERT INTO snapshot_stream_records(snap, ns, arn, seq, record) "
                  "VALUES (?, ?, ?, ?, ?)",
};

/* Every table a snapshot has rows in, for deleting them. */
static const char *const snap_tables[] = {
    "snapshot_tables",  "snapshot_items",          "snapshot_history",
    "snapshot_streams", "snapshot_stream_records", "snapshots",
};

struct snapshot_file_write {
    struct journal *j;
    char *path; /* ddbemu.db, for messages */
    int64_t snap;
    sqlite3_stmt *stmts[SS_COUNT];
    struct text_buf buf; /* an item's encoding, reused */
};

_Noreturn static void write_failed(struct journal *j, const char *path)
{
    journal_die_on_disk_error(path, j->meta, "write to");
}

static void exec_or_die(struct journal *j, const char *path, const char *sql)
{
    if (sqlite3_exec(j->meta, sql, NULL, NULL, NULL) != SQLITE_OK) write_failed(j, path);
}

/* Deletes every row of snapshot `name`; j->meta_mutex held, inside a transaction. */
static void delete_rows(struct journal *j, const char *path, const char *name)
{
    sqlite3_stmt *st;
    int64_t snap = -1;
    int rc;

    if (sqlite3_prepare_v2(j->meta, "SELECT snap FROM snapshots WHERE name = ?", -1, &st, NULL) !=
        SQLITE_OK)
        write_failed(j, path);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) snap = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) write_failed(j, path);
    if (snap < 0) return;
    for (size_t i = 0; i < sizeof snap_tables / sizeof snap_tables[0]; i++) {
        struct text_buf sql = {0};
        text_buf_printf(&sql, "DELETE FROM %s WHERE snap = ?", snap_tables[i]);
        rc = sqlite3_prepare_v2(j->meta, sql.data, -1, &st, NULL);
        text_buf_clear(&sql);
        if (rc != SQLITE_OK) write_failed(j, path);
        sqlite3_bind_int64(st, 1, snap);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) write_failed(j, path);
    }
}

struct snapshot_file_write *snapshot_file_begin(struct journal *j, const char *name,
                                                const void *state, size_t len)
{
    struct snapshot_file_write *w = xcalloc(1, sizeof *w);
    sqlite3_stmt *st;

    w->j = j;
    w->path = disk_meta_path(j->dir);
    pthread_mutex_lock(&j->meta_mutex);
    exec_or_die(j, w->path, "BEGIN IMMEDIATE");
    delete_rows(j, w->path, name);
    if (sqlite3_prepare_v2(j->meta, "INSERT INTO snapshots(name, state) VALUES (?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        write_failed(j, w->path);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, len ? state : "", (int) len, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) write_failed(j, w->path);
    sqlite3_finalize(st);
    w->snap = sqlite3_last_insert_rowid(j->meta);
    for (int i = 0; i < SS_COUNT; i++)
        if (sqlite3_prepare_v2(j->meta, snap_sql[i], -1, &w->stmts[i], NULL) != SQLITE_OK)
            write_failed(j, w->path);
    return w;
}

/* Binds (snap, ns) and returns the statement, ready for its other columns. */
static sqlite3_stmt *row(struct snapshot_file_write *w, enum snap_stmt which, uint32_t ns)
{
    sqlite3_stmt *st = w->stmts[which];

    sqlite3_bind_int64(st, 1, w->snap);
    sqlite3_bind_int64(st, 2, ns);
    return st;
}

static void step(struct snapshot_file_write *w, sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE) write_failed(w->j, w->path);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* A blob binding that is never SQL NULL (a zero-length blob stays a blob). */
static void bind_blob(sqlite3_stmt *st, int col, const void *data, size_t len)
{
    sqlite3_bind_blob(st, col, len ? data : "", (int) len, SQLITE_TRANSIENT);
}

void snapshot_file_table(struct snapshot_file_write *w, uint32_t ns, uint32_t pos,
                         const void *state, size_t len)
{
    sqlite3_stmt *st = row(w, SS_TABLE, ns);

    sqlite3_bind_int64(st, 3, pos);
    bind_blob(st, 4, state, len);
    step(w, st);
}

void snapshot_file_item(struct snapshot_file_write *w, uint32_t ns, uint32_t pos, uint64_t seq,
                        const struct item *item)
{
    sqlite3_stmt *st = row(w, SS_ITEM, ns);

    w->buf.len = 0;
    item_codec_put(&w->buf, item);
    sqlite3_bind_int64(st, 3, pos);
    sqlite3_bind_int64(st, 4, (int64_t) seq);
    bind_blob(st, 5, w->buf.data, w->buf.len);
    step(w, st);
}

void snapshot_file_history(struct snapshot_file_write *w, uint32_t ns, uint32_t pos, uint64_t seq,
                           int64_t ms, const struct item *old_item, const struct item *new_item)
{
    sqlite3_stmt *st = row(w, SS_HISTORY, ns);
    const struct item *items[2] = {old_item, new_item};

    sqlite3_bind_int64(st, 3, pos);
    sqlite3_bind_int64(st, 4, (int64_t) seq);
    sqlite3_bind_int64(st, 5, ms);
    for (int i = 0; i < 2; i++) {
        if (!items[i]) continue; /* SQL NULL: no item */
        w->buf.len = 0;
        item_codec_put(&w->buf, items[i]);
        bind_blob(st, 6 + i, w->buf.data, w->buf.len);
    }
    step(w, st);
}

void snapshot_file_stream(struct snapshot_file_write *w, uint32_t ns, const char *arn,
                          const void *state, size_t len)
{
    sqlite3_stmt *st = row(w, SS_STREAM, ns);

    sqlite3_bind_text(st, 3, arn, -1, SQLITE_TRANSIENT);
    bind_blob(st, 4, state, len);
    step(w, st);
}

void snapshot_file_record(struct snapshot_file_write *w, uint32_t ns, const char *arn, uint64_t seq,
                          const void *record, size_t len)
{
    sqlite3_stmt *st = row(w, SS_RECORD, ns);

    sqlite3_bind_text(st, 3, arn, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, (int64_t) seq);
    bind_blob(st, 5, record, len);
    step(w, st);
}

void snapshot_file_commit(struct snapshot_file_write *w)
{
    for (int i = 0; i < SS_COUNT; i++)
        sqlite3_finalize(w->stmts[i]);
    exec_or_die(w->j, w->path, "COMMIT");
    pthread_mutex_unlock(&w->j->meta_mutex);
    text_buf_clear(&w->buf);
    free(w->path);
    free(w);
}

void snapshot_file_delete(struct journal *j, const char *name)
{
    char *path = disk_meta_path(j->dir);

    pthread_mutex_lock(&j->meta_mutex);
    exec_or_die(j, path, "BEGIN IMMEDIATE");
    delete_rows(j, path, name);
    exec_or_die(j, path, "COMMIT");
    pthread_mutex_unlock(&j->meta_mutex);
    free(path);
}

/* ------------------------------------------------------------------------ */
/* reading back                                                              */
/* ------------------------------------------------------------------------ */

/* Runs sql (its first parameter bound to snap unless snap < 0) over ddbemu.db
 * and calls each(st) for every row until it returns false. */
static int each_row(struct journal *j, const char *sql, int64_t snap,
                    bool (*each)(sqlite3_stmt *, void *), void *ctx, char **why)
{
    char *path = disk_meta_path(j->dir);
    sqlite3_stmt *st;
    int rc = -1, step_rc;

    pthread_mutex_lock(&j->meta_mutex);
    if (sqlite3_prepare_v2(j->meta, sql, -1, &st, NULL) != SQLITE_OK) {
        disk_fail(why, path, j->meta, "cannot read");
        goto out;
    }
    if (snap >= 0) sqlite3_bind_int64(st, 1, snap);
    while ((step_rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!each(st, ctx)) {
            sqlite3_finalize(st);
            disk_fail(why, path, NULL, "holds a snapshot record this ddbemu cannot read in");
            goto out;
        }
    }
    sqlite3_finalize(st);
    if (step_rc != SQLITE_DONE) {
        disk_fail(why, path, j->meta, "cannot read");
        goto out;
    }
    rc = 0;
out:
    pthread_mutex_unlock(&j->meta_mutex);
    free(path);
    return rc;
}

struct load_ctx {
    void *fn;
    void *ctx;
};

static uint32_t col_u32(sqlite3_stmt *st, int col, bool *ok)
{
    int64_t v = sqlite3_column_int64(st, col);
    if (v < 0 || v > UINT32_MAX) *ok = false;
    return (uint32_t) v;
}

static bool snapshot_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *name = (const char *) sqlite3_column_text(st, 1);
    return name && ((snapshot_file_snapshot_fn *) l->fn)(l->ctx, sqlite3_column_int64(st, 0), name,
                                                         sqlite3_column_blob(st, 2),
                                                         (size_t) sqlite3_column_bytes(st, 2));
}

static bool table_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    bool ok = true;
    uint32_t ns = col_u32(st, 0, &ok), pos = col_u32(st, 1, &ok);
    return ok && ((snapshot_file_table_fn *) l->fn)(l->ctx, ns, pos, sqlite3_column_blob(st, 2),
                                                    (size_t) sqlite3_column_bytes(st, 2));
}

static bool item_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    bool ok = true;
    uint32_t ns = col_u32(st, 0, &ok), pos = col_u32(st, 1, &ok);
    return ok && ((snapshot_file_item_fn *) l->fn)(l->ctx, ns, pos, sqlite3_column_blob(st, 2),
                                                   (size_t) sqlite3_column_bytes(st, 2));
}

static bool history_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    bool ok = true;
    uint32_t ns = col_u32(st, 0, &ok), pos = col_u32(st, 1, &ok);
    bool has_old = sqlite3_column_type(st, 4) != SQLITE_NULL;
    bool has_new = sqlite3_column_type(st, 5) != SQLITE_NULL;
    /* A present, empty blob reads as NULL data: give it a non-NULL pointer. */
    const void *old_item = has_old ? sqlite3_column_blob(st, 4) : NULL;
    const void *new_item = has_new ? sqlite3_column_blob(st, 5) : NULL;

    if (has_old && !old_item) old_item = "";
    if (has_new && !new_item) new_item = "";
    return ok && ((snapshot_file_history_fn *) l->fn)(
                     l->ctx, ns, pos, (uint64_t) sqlite3_column_int64(st, 2),
                     sqlite3_column_int64(st, 3), old_item, (size_t) sqlite3_column_bytes(st, 4),
                     new_item, (size_t) sqlite3_column_bytes(st, 5));
}

static bool stream_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    bool ok = true;
    uint32_t ns = col_u32(st, 0, &ok);
    const char *arn = (const char *) sqlite3_column_text(st, 1);
    return ok && arn &&
           ((snapshot_file_stream_fn *) l->fn)(l->ctx, ns, arn, sqlite3_column_blob(st, 2),
                                               (size_t) sqlite3_column_bytes(st, 2));
}

static bool record_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    bool ok = true;
    uint32_t ns = col_u32(st, 0, &ok);
    const char *arn = (const char *) sqlite3_column_text(st, 1);
    return ok && arn &&
           ((snapshot_file_record_fn *) l->fn)(
               l->ctx, ns, arn, (uint64_t) sqlite3_column_int64(st, 2), sqlite3_column_blob(st, 3),
               (size_t) sqlite3_column_bytes(st, 3));
}

int snapshot_file_list(struct journal *j, snapshot_file_snapshot_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(j, "SELECT snap, name, state FROM snapshots ORDER BY snap", -1, snapshot_row,
                    &l, why);
}

int snapshot_file_load_tables(struct journal *j, int64_t snap, snapshot_file_table_fn *fn,
                              void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(j, "SELECT ns, pos, state FROM snapshot_tables WHERE snap = ? ORDER BY ns, pos",
                    snap, table_row, &l, why);
}

int snapshot_file_load_items(struct journal *j, int64_t snap, snapshot_file_item_fn *fn, void *ctx,
                             char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(j,
                    "SELECT ns, pos, item FROM snapshot_items WHERE snap = ? ORDER BY ns, pos, seq",
                    snap, item_row, &l, why);
}

int snapshot_file_load_history(struct journal *j, int64_t snap, snapshot_file_history_fn *fn,
                               void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(j,
                    "SELECT ns, pos, seq, ms, old_item, new_item FROM snapshot_history "
                    "WHERE snap = ? ORDER BY ns, pos, seq",
                    snap, history_row, &l, why);
}

int snapshot_file_load_streams(struct journal *j, int64_t snap, snapshot_file_stream_fn *fn,
                               void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(j,
                    "SELECT ns, arn, state FROM snapshot_streams WHERE snap = ? ORDER BY ns, arn",
                    snap, stream_row, &l, why);
}

int snapshot_file_load_records(struct journal *j, int64_t snap, snapshot_file_record_fn *fn,
                               void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(j,
                    "SELECT ns, arn, seq, record FROM snapshot_stream_records WHERE snap = ? "
                    "ORDER BY ns, arn, seq",
                    snap, record_row, &l, why);
}
