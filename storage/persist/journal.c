/*
 * journal.c - the data directory: its namespace files, ddbemu.db's meta
 * values, opening the directory (replaying the log a previous run left into
 * the files before anything is loaded) and closing it; see journal.h, and
 * journal_internal.h for the other files of the journal.
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
static void add_file(struct journal *j, struct journal_file *f)
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
static int find_next_uid(struct journal_file *f, char **why)
{
    return select_int(f, "SELECT coalesce(max(uid), 0) + 1 FROM tables", &f->next_uid, why);
}

static void file_close(struct journal_file *f)
{
    if (!f) return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(f->stmts[i]);
    sqlite3_close(f->db);
    free(f->path);
    free(f->namespace_id);
    free(f);
}

/* Opens (create: creates) the namespace file at path. */
static struct journal_file *file_open(struct journal *j, const char *path, const char *namespace_id,
                                      bool create, char **why)
{
    struct journal_file *f = xcalloc(1, sizeof *f);

    f->j = j;
    f->path = xstrdup(path);
    if (disk_open_namespace(path, namespace_id, create, &f->db, &f->namespace_id, why) != 0 ||
        journal_prepare_statements(f, why) != 0 || find_next_uid(f, why) != 0 ||
        select_int(
            f, "SELECT coalesce((SELECT value FROM meta WHERE key = '" DISK_META_FOLDED "'), 0)",
            &f->folded, why) != 0) {
        file_close(f);
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
    f = file_open(j, path, namespace_id, true, why);
    free(path);
    if (f) add_file(j, f);
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

/* ------------------------------------------------------------------------ */
/* opening and closing                                                       */
/* ------------------------------------------------------------------------ */

/* Opens every namespace file already in the directory. */
static int open_existing(struct journal *j, char **why)
{
    char **names = NULL;
    size_t count = 0;
    int rc = 0;

    if (disk_list_namespace_files(j->dir, &names, &count, why) != 0) return -1;
    for (size_t i = 0; i < count; i++) {
        char *path = disk_join(j->dir, names[i]);
        struct journal_file *f = rc == 0 ? file_open(j, path, NULL, false, why) : NULL;
        free(path);
        if (f)
            add_file(j, f);
        else
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

static int replay_unit(void *ctx, uint64_t seq, const void *payload, size_t len, char **why)
{
    struct journal *j = ctx;

    if (journal_apply_unit(j, seq, payload, len, why) != 0) return -1;
    j->replayed = seq;
    return 0;
}

/* Commits a log file's units (a replay's transactions stay file-sized). */
static int replay_file_done(void *ctx, char **why)
{
    struct journal *j = ctx;

    (void) why;
    journal_commit_group(j, j->replayed);
    return 0;
}

/*
 * Folds the log a previous run left (it stopped before its writer had folded
 * everything: kill -9, a crash) into the files, removes it, and starts a new
 * one numbered after everything the directory holds.
 */
static int replay_and_start_log(struct journal *j, char **why)
{
    uint64_t last, next = 0;

    if (wal_log_replay(j->dir, replay_unit, replay_file_done, j, &last, why) != 0) return -1;
    if (wal_log_remove_all(j->dir, why) != 0) return -1;
    for (size_t i = 0; i < j->file_count; i++) {
        /* Tables the replay created count for the next uid. */
        if (find_next_uid(j->files[i], why) != 0) return -1;
        if (j->files[i]->folded > next) next = j->files[i]->folded;
    }
    if (last > next) next = last;
    j->log = wal_log_create(j->dir, next + 1, WAL_LOG_ROTATE_BYTES, why);
    return j->log ? 0 : -1;
}

struct journal *journal_open(const char *dir, char **why)
{
    struct journal *j = xcalloc(1, sizeof *j);
    pthread_condattr_t attr;

    *why = NULL;
    j->dir = xstrdup(dir);
    j->lock_fd = -1;
    checked_mutex_init(&j->mutex);
    pthread_mutex_init(&j->meta_mutex, NULL);
    /* The writer's timed wait must not stretch when the wall clock is set back. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&j->work, &attr);
    pthread_condattr_destroy(&attr);
    pthread_cond_init(&j->room, NULL);
    if (disk_lock_dir(dir, &j->lock_fd, why) != 0) goto fail;
    if (disk_open_meta(dir, &j->meta, why) != 0) goto fail;
    if (open_existing(j, why) != 0) goto fail;
    if (replay_and_start_log(j, why) != 0) goto fail;
    if (journal_writer_start(j, why) != 0) goto fail;
    return j;
fail:
    journal_close(j);
    return NULL;
}

void journal_close(struct journal *j)
{
    if (!j) return;
    journal_writer_stop(j);
    /* Everything appended is folded now: the log goes (the next start has
     * nothing to replay). A journal that failed to open appended nothing. */
    wal_log_close(j->log, true);
    for (size_t i = 0; i < j->file_count; i++)
        file_close(j->files[i]);
    free(j->files);
    free(j->touched);
    sqlite3_close(j->meta);
    disk_unlock_dir(j->lock_fd);
    text_buf_clear(&j->unit);
    text_buf_clear(&j->queue);
    text_buf_clear(&j->group);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->room);
    checked_mutex_destroy(&j->mutex);
    pthread_mutex_destroy(&j->meta_mutex);
    free(j->dir);
    free(j);
}
