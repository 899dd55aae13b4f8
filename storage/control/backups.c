/*
 * backups.c - on-demand backups: CreateBackup, DescribeBackup, ListBackups,
 * DeleteBackup (RestoreTableFromBackup is restore.c's).
 *
 * A backup is a consistent snapshot taken in one critical section: the
 * table's definition (key schema, indexes, billing and throughput, stream
 * and SSE settings), its TTL setting, and references to its items - items
 * are immutable (item.h), so a snapshot of a million items costs a million
 * pointers, not a copy. Backups belong to their namespace, outlive the table
 * they were taken from (as on AWS, until deleted), and are recorded in the
 * namespace's file with their items (engine/db_persist.c).
 *
 * The SYSTEM backup DeleteTable leaves, and the dropping of expired backups,
 * are the engine's (storage/engine/kept_backups.c); a backup's record and ARN
 * are storage/jobs/backup_record.c's.
 *
 * Error texts are not recorded from AWS for these operations; they follow
 * the form of its other "not found" texts (docs/differences.md).
 *
 * Locking: every entry point takes the engine lock; the helpers below it
 * assert it.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/control/jobs.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/jobs/backup_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scope's live backup with this ARN, or NULL; caller holds the lock. */
static struct backup *find_backup(struct db *db, const struct db_scope *scope, const char *arn,
                                  size_t *pos)
{
    assert_lock_held();
    int64_t now_ms = db_now_ms(db);

    for (size_t i = 0; i < db->backups.count; i++) {
        struct backup *b = &db->backups.backups[i];
        if (strcmp(b->namespace_id, scope->namespace_id) == 0 && strcmp(b->desc.arn, arn) == 0 &&
            backup_is_live(b, now_ms)) {
            if (pos) *pos = i;
            return b;
        }
    }
    return NULL;
}

int db_create_backup(struct db *db, const struct db_scope *scope, const char *table_name,
                     const char *backup_name, struct backup_desc *out, struct ddb_error *err)
{
    struct table *t;
    struct backup b;
    int64_t now_ms;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_write_lock(db);
    now_ms = db_now_ms(db);
    t = db_find_table(db, scope, table_name);
    if (!t) {
        ddb_error_backup_table_not_found(err, table_name);
        goto out;
    }
    db_drop_expired_backups(db, now_ms);
    backup_snapshot(scope->namespace_id, t, backup_name, now_ms, &b);
    backup_desc_copy(out, &b.desc);
    /* CreateBackup answers CREATING (API reference example); the copy is
     * complete already, so every later call sees AVAILABLE. */
    out->status = BACKUP_CREATING;
    persist_backup(db, &b);
    backup_list_add(&db->backups, &b);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_describe_backup(struct db *db, const struct db_scope *scope, const char *arn,
                       struct backup_desc *out, struct ddb_error *err)
{
    struct backup *b;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    b = find_backup(db, scope, arn, NULL);
    if (!b) {
        ddb_error_backup_not_found(err, arn);
        goto out;
    }
    backup_desc_copy(out, &b->desc);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_delete_backup(struct db *db, const struct db_scope *scope, const char *arn,
                     struct backup_desc *out, struct ddb_error *err)
{
    struct backup *b;
    size_t pos = 0;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_write_lock(db);
    db_drop_expired_backups(db, db_now_ms(db));
    b = find_backup(db, scope, arn, &pos);
    if (!b) {
        ddb_error_backup_not_found(err, arn);
        goto out;
    }
    backup_desc_copy(out, &b->desc);
    out->status = BACKUP_DELETED;
    persist_backup_removed(db, b);
    backup_free_contents(b);
    memmove(&db->backups.backups[pos], &db->backups.backups[pos + 1],
            sizeof *db->backups.backups * (db->backups.count - pos - 1));
    db->backups.count--;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

static bool matches(const struct backup *b, const struct db_scope *scope,
                    const struct backup_filter *f, int64_t now_ms)
{
    if (strcmp(b->namespace_id, scope->namespace_id) != 0 || !backup_is_live(b, now_ms))
        return false;
    if (!(b->desc.system ? f->system_backups : f->user_backups)) return false;
    if (f->table_name && strcmp(b->desc.table_name, f->table_name) != 0) return false;
    if (f->has_lower && b->desc.creation_ms < f->lower_ms) return false;
    if (f->has_upper && b->desc.creation_ms >= f->upper_ms) return false;
    return true;
}

int db_list_backups(struct db *db, const struct db_scope *scope, const struct backup_filter *f,
                    struct backup_desc **out, size_t *count, char **last_arn, struct ddb_error *err)
{
    size_t start = 0;
    int64_t now_ms;

    (void) err;
    *out = NULL;
    *count = 0;
    *last_arn = NULL;
    db_read_lock(db);
    now_ms = db_now_ms(db);
    /* Backups are kept in creation order; a page resumes after the backup
     * ExclusiveStartBackupArn names (from the first when it names none). */
    if (f->exclusive_start_arn) {
        size_t pos;
        if (find_backup(db, scope, f->exclusive_start_arn, &pos)) start = pos + 1;
    }
    for (size_t i = start; i < db->backups.count; i++) {
        const struct backup *b = &db->backups.backups[i];
        if (!matches(b, scope, f, now_ms)) continue;
        if (*count == f->limit) {
            /* More follow: the page ends with a LastEvaluatedBackupArn. */
            *last_arn = xstrdup((*out)[*count - 1].arn);
            break;
        }
        *out = xrealloc(*out, sizeof **out * (*count + 1));
        backup_desc_copy(&(*out)[(*count)++], &b->desc);
    }
    db_unlock(db);
    return 0;
}
