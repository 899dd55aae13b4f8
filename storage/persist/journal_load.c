/*
 * journal_load.c - reading a namespace file back at start: the journal_load_*
 * functions of journal.h, one SELECT each, every row handed to the caller's
 * function (engine/db_persist.c rebuilds the engine from them). Reads only: the
 * log has been replayed into the file before (journal_open).
 */
#include "storage/persist/disk.h"
#include "storage/persist/journal.h"
#include "storage/persist/journal_internal.h"

#include <sqlite3.h>

/* Runs sql over f and calls row(st) for each row until it returns false. */
static int each_row(struct journal_file *f, const char *sql, bool (*row)(sqlite3_stmt *, void *),
                    void *ctx, char **why)
{
    sqlite3 *db = journal_file_db(f);
    const char *path = journal_file_path(f);
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return disk_fail(why, path, db, "cannot read");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!row(st, ctx)) {
            sqlite3_finalize(st);
            return disk_fail(why, path, NULL, "holds a record this ddbemu cannot read in");
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return disk_fail(why, path, db, "cannot read");
    return 0;
}

struct load_ctx {
    void *fn;
    void *ctx;
};

static bool table_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    return ((journal_table_fn *) l->fn)(l->ctx, (uint64_t) sqlite3_column_int64(st, 0),
                                        sqlite3_column_blob(st, 1),
                                        (size_t) sqlite3_column_bytes(st, 1));
}

static bool item_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    return ((journal_item_fn *) l->fn)(l->ctx, (uint64_t) sqlite3_column_int64(st, 0),
                                       sqlite3_column_blob(st, 1),
                                       (size_t) sqlite3_column_bytes(st, 1));
}

static bool stream_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_stream_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                                (size_t) sqlite3_column_bytes(st, 1));
}

static bool record_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_record_fn *) l->fn)(l->ctx, arn, (uint64_t) sqlite3_column_int64(st, 1),
                                                sqlite3_column_blob(st, 2),
                                                (size_t) sqlite3_column_bytes(st, 2));
}

static bool token_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *token = (const char *) sqlite3_column_text(st, 0);
    const char *digest = (const char *) sqlite3_column_text(st, 1);
    return token && digest &&
           ((journal_token_fn *) l->fn)(l->ctx, token, digest, sqlite3_column_int64(st, 2));
}

int journal_load_tables(struct journal_file *f, journal_table_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT uid, state FROM tables ORDER BY uid", table_row, &l, why);
}

int journal_load_items(struct journal_file *f, journal_item_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT uid, item FROM items", item_row, &l, why);
}

int journal_load_streams(struct journal_file *f, journal_stream_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, state FROM streams", stream_row, &l, why);
}

int journal_load_stream_records(struct journal_file *f, journal_record_fn *fn, void *ctx,
                                char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, seq, record FROM stream_records ORDER BY arn, seq", record_row,
                    &l, why);
}

int journal_load_tokens(struct journal_file *f, journal_token_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT token, digest, expires_ms FROM tokens", token_row, &l, why);
}

static bool history_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    return ((journal_history_fn *) l->fn)(
        l->ctx, (uint64_t) sqlite3_column_int64(st, 0), (uint64_t) sqlite3_column_int64(st, 1),
        sqlite3_column_int64(st, 2), sqlite3_column_blob(st, 3),
        (size_t) sqlite3_column_bytes(st, 3), sqlite3_column_blob(st, 4),
        (size_t) sqlite3_column_bytes(st, 4));
}

static bool backup_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_backup_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                                (size_t) sqlite3_column_bytes(st, 1));
}

static bool backup_item_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_backup_item_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                                     (size_t) sqlite3_column_bytes(st, 1));
}

static bool bulk_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_bulk_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                              (size_t) sqlite3_column_bytes(st, 1));
}

int journal_load_history(struct journal_file *f, journal_history_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f,
                    "SELECT uid, seq, ms, old_item, new_item FROM pitr_history ORDER BY uid, seq",
                    history_row, &l, why);
}

int journal_load_backups(struct journal_file *f, journal_backup_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, state FROM backups ORDER BY arn", backup_row, &l, why);
}

int journal_load_backup_items(struct journal_file *f, journal_backup_item_fn *fn, void *ctx,
                              char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, item FROM backup_items ORDER BY arn, seq", backup_item_row, &l,
                    why);
}

int journal_load_bulk(struct journal_file *f, journal_bulk_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, state FROM bulk_operations ORDER BY arn", bulk_row, &l, why);
}
