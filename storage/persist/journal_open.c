/*
 * journal_open.c - opening the data directory (its namespace files, then the
 * replay of the log a previous run left into them before anything is
 * loaded, then the writer) and closing it; see journal.h. Above journal.c
 * (the files), journal_apply.c (the replay) and journal_writer.c.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/persist/disk.h"
#include "storage/persist/journal.h"
#include "storage/persist/journal_internal.h"
#include "storage/persist/wal_log.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>

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
        struct journal_file *f = rc == 0 ? journal_file_open(j, path, NULL, false, why) : NULL;
        free(path);
        if (f)
            journal_add_file(j, f);
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
        if (journal_find_next_uid(j->files[i], why) != 0) return -1;
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
    checked_mutex_init(&j->units_mutex);
    checked_mutex_init(&j->append_mutex);
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
        journal_file_close(j->files[i]);
    free(j->files);
    free(j->touched);
    sqlite3_close(j->meta);
    disk_unlock_dir(j->lock_fd);
    for (size_t i = 0; i < j->unit_count; i++) {
        text_buf_clear(&j->units[i]->buf);
        free(j->units[i]);
    }
    free(j->units);
    free(j->spare);
    checked_mutex_destroy(&j->units_mutex);
    checked_mutex_destroy(&j->append_mutex);
    text_buf_clear(&j->queue);
    text_buf_clear(&j->group);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->room);
    checked_mutex_destroy(&j->mutex);
    pthread_mutex_destroy(&j->meta_mutex);
    free(j->dir);
    free(j);
}
