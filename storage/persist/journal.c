/*
 * journal.c - the data directory's files: each namespace's file with the
 * statements it is written with, ddbemu.db's meta values, and failing on a
 * disk error; see journal.h, and journal_internal.h for the other files of
 * the journal (journal_open.c opens and closes the directory).
 *
 * j->files only grows, under j->mutex: the engine adds a namespace's file on
 * first use while the writer looks files up by name for the units it folds.
 */
#include "storage/persist/journal.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/persist/disk.h"
#include "storage/persist/journal_internal.h"
#include "storage/persist/wal_log.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* failing                                                                   */
/* ------------------------------------------------------------------------ */

_Noreturn void journal_die(const char *why)
{
    fprintf(stderr,
            "ddbemu: %s; stopping so that no write is acknowledged that would not survive a "
            "restart\n",
            why);
    _exit(1);
}

_Noreturn void journal_die_on_disk_error(const char *path, sqlite3 *db, const char *what)
{
    struct text_buf b = {0};

    text_buf_printf(&b, "cannot %s %s: %s", what, path, db ? sqlite3_errmsg(db) : strerror(errno));
    journal_die(b.data);
}

/* ------------------------------------------------------------------------ */
/* files                                                                     */
/* ------------------------------------------------------------------------ */

/* Adds f to the journal's files. */
void journal_add_file(struct journal *j, struct journal_file *f)
{
    checked_mutex_lock(&j->mutex);
    j->files = xrealloc(j->files, sizeof *j->files * (j->file_count + 1));
    j->files[j->file_count++] = f;
    checked_mutex_unlock(&j->mutex);
}

/* The integer sql selects from f into *out. */
static int select_int(struct journal_file *f, const char *sql, uint64_t *out, char **why)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(f->db, sql, -1, &st, NULL) != SQLITE_OK)
        return disk_fail(why, f->path, f->db, "cannot read");
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = (uint64_t) sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return disk_fail(why, f->path, f->db, "cannot read");
    return 0;
}

/* The largest table uid in f, plus one. */
int journal_find_next_uid(struct journal_file *f, char **why)
{
    return select_int(f, "SELECT coalesce(max(uid), 0) + 1 FROM tables", &f->next_uid, why);
}

void journal_file_close(struct journal_file *f)
{
    if (!f) return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(f->stmts[i]);
    sqlite3_close(f->db);
    free(f->path);
    free(f->namespace_id);
    free(f);
}

/* The statements every file is opened with (journal_apply.c runs them). */
static const char *const stmt_sql[ST_COUNT] = {
    [ST_ITEM_PUT] = "INSERT OR REPLACE INTO items(uid, key, item) VALUES (?, ?, ?)",
    [ST_ITEM_DEL] = "DELETE FROM items WHERE uid = ? AND key = ?",
    [ST_TABLE_PUT] = "INSERT OR REPLACE INTO tables(uid, state) VALUES (?, ?)",
    [ST_TABLE_DEL] = "DELETE FROM tables WHERE uid = ?",
    [ST_TABLE_ITEMS_DEL] = "DELETE FROM items WHERE uid = ?",
    [ST_STREAM_PUT] = "INSERT OR REPLACE INTO streams(arn, state) VALUES (?, ?)",
    [ST_STREAM_DEL] = "DELETE FROM streams WHERE arn = ?",
    [ST_STREAM_RECORDS_DEL] = "DELETE FROM stream_records WHERE arn = ?",
    [ST_RECORD_PUT] = "INSERT OR REPLACE INTO stream_records(arn, seq, record) VALUES (?, ?, ?)",
    [ST_RECORD_TRIM] = "DELETE FROM stream_records WHERE arn = ? AND seq <= ?",
    [ST_TOKEN_PUT] = "INSERT OR REPLACE INTO tokens(token, digest, expires_ms) VALUES (?, ?, ?)",
    [ST_TOKEN_EXPIRE] = "DELETE FROM tokens WHERE expires_ms <= ?",
    [ST_HISTORY_PUT] = "INSERT OR REPLACE INTO pitr_history(uid, seq, ms, old_item, new_item) "
                       "VALUES (?, ?, ?, ?, ?)",
    [ST_HISTORY_TRIM] = "DELETE FROM pitr_history WHERE uid = ? AND seq <= ?",
    [ST_TABLE_HISTORY_DEL] = "DELETE FROM pitr_history WHERE uid = ?",
    [ST_BACKUP_PUT] = "INSERT OR REPLACE INTO backups(arn, state) VALUES (?, ?)",
    [ST_BACKUP_ITEM_PUT] = "INSERT OR REPLACE INTO backup_items(arn, seq, item) VALUES (?, ?, ?)",
    [ST_BACKUP_DEL] = "DELETE FROM backups WHERE arn = ?",
    [ST_BACKUP_ITEMS_DEL] = "DELETE FROM backup_items WHERE arn = ?",
    [ST_BULK_PUT] = "INSERT OR REPLACE INTO bulk_operations(arn, state) VALUES (?, ?)",
    [ST_FOLDED] = "INSERT OR REPLACE INTO meta(key, value) VALUES ('" DISK_META_FOLDED "', ?)",
    [ST_BEGIN] = "BEGIN",
    [ST_COMMIT] = "COMMIT",
};

static int prepare_statements(struct journal_file *f, char **why)
{
    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(f->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &f->stmts[i],
                               NULL) != SQLITE_OK)
            return disk_fail(why, f->path, f->db, "cannot read");
    }
    return 0;
}

/* Opens (create: creates) the namespace file at path. */
struct journal_file *journal_file_open(struct journal *j, const char *path,
                                       const char *namespace_id, bool create, char **why)
{
    struct journal_file *f = xcalloc(1, sizeof *f);

    f->j = j;
    f->path = xstrdup(path);
    if (disk_open_namespace(path, namespace_id, create, &f->db, &f->namespace_id, why) != 0 ||
        prepare_statements(f, why) != 0 || journal_find_next_uid(f, why) != 0 ||
        select_int(
            f, "SELECT coalesce((SELECT value FROM meta WHERE key = '" DISK_META_FOLDED "'), 0)",
            &f->folded, why) != 0) {
        journal_file_close(f);
        return NULL;
    }
    return f;
}

struct journal_file *journal_file_get(struct journal *j, const char *namespace_id, char **why)
{
    struct journal_file *f = NULL;
    char *path;

    checked_mutex_lock(&j->mutex);
    for (size_t i = 0; !f && i < j->file_count; i++) {
        if (strcmp(j->files[i]->namespace_id, namespace_id) == 0) f = j->files[i];
    }
    checked_mutex_unlock(&j->mutex);
    if (f) return f;
    path = disk_namespace_path(j->dir, namespace_id);
    f = journal_file_open(j, path, namespace_id, true, why);
    free(path);
    if (f) journal_add_file(j, f);
    return f;
}

struct journal_file *journal_file_for(struct journal *j, const char *namespace_id)
{
    assert_lock_exclusive();
    char *why = NULL;
    struct journal_file *f = journal_file_get(j, namespace_id, &why);

    if (!f) journal_die(why);
    return f;
}

uint64_t journal_file_next_uid(struct journal_file *f)
{
    assert_lock_exclusive();
    return f->next_uid++;
}

size_t journal_file_count(const struct journal *j)
{
    return j->file_count;
}

struct journal_file *journal_file_at(const struct journal *j, size_t i)
{
    return j->files[i];
}

const char *journal_file_namespace(const struct journal_file *f)
{
    return f->namespace_id;
}

const char *journal_file_path(const struct journal_file *f)
{
    return f->path;
}

sqlite3 *journal_file_db(const struct journal_file *f)
{
    return f->db;
}

/* ------------------------------------------------------------------------ */
/* meta                                                                      */
/* ------------------------------------------------------------------------ */

int64_t journal_meta_get(struct journal *j, const char *key)
{
    int64_t v;

    pthread_mutex_lock(&j->meta_mutex);
    v = disk_meta_get(j->meta, key);
    pthread_mutex_unlock(&j->meta_mutex);
    return v;
}

void journal_meta_set(struct journal *j, const char *key, int64_t value)
{
    pthread_mutex_lock(&j->meta_mutex);
    if (disk_meta_set(j->meta, key, value) != 0) {
        char *path = disk_meta_path(j->dir);
        journal_die_on_disk_error(path, j->meta, "write to");
    }
    pthread_mutex_unlock(&j->meta_mutex);
}
