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
 * namespace's file with their items (persistence.c).
 *
 * ARNs are formed as AWS forms them: "<table ARN>/backup/<13-digit epoch
 * ms, zero-padded to 14>-<8 hex digits>" (API reference, BackupArn examples
 * "arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/
 * 01489173575360-b308cd7d").
 *
 * DeleteTable leaves a SYSTEM backup of a table with point-in-time recovery
 * on, named "<table>$DeletedTableBackup" and kept 35 days (developer guide,
 * "Point-in-time recovery: how it works"); ListBackups lists it for
 * BackupType SYSTEM or ALL, not for the default USER. Expired backups are
 * not found, and are dropped at the next backup change.
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
#include "storage/db_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* A SYSTEM backup's 35 days (developer guide, "Point-in-time recovery: how it works"). */
#define SYSTEM_BACKUP_KEEP_MS (35LL * 24 * 60 * 60 * 1000)

static bool is_live(const struct backup *b, int64_t now_ms)
{
    return !b->desc.expiry_ms || b->desc.expiry_ms > now_ms;
}

/* Drops the expired backups (and their records); caller holds the lock exclusively. */
static void drop_expired(struct db *db, int64_t now_ms)
{
    size_t kept = 0;

    for (size_t i = 0; i < db->backup_count; i++) {
        struct backup *b = &db->backups[i];
        if (is_live(b, now_ms)) {
            db->backups[kept++] = *b;
        } else {
            persist_backup_removed(db, b);
            backup_free_contents(b);
        }
    }
    db->backup_count = kept;
}

/* The scope's live backup with this ARN, or NULL; caller holds the lock. */
static struct backup *find_backup(struct db *db, const struct db_scope *scope, const char *arn,
                                  size_t *pos)
{
    assert_lock_held();
    int64_t now_ms = db_now_ms(db);

    for (size_t i = 0; i < db->backup_count; i++) {
        struct backup *b = &db->backups[i];
        if (strcmp(b->namespace_id, scope->namespace_id) == 0 && strcmp(b->desc.arn, arn) == 0 &&
            is_live(b, now_ms)) {
            if (pos) *pos = i;
            return b;
        }
    }
    return NULL;
}

static int backup_not_found(const char *arn, struct ddb_error *err)
{
    return ddb_error_set(err, DDB_BACKUP_NOT_FOUND, "Backup not found: %s", arn);
}

static char *new_backup_arn(const char *table_arn, int64_t now_ms)
{
    uint32_t r = 0;
    struct text_buf b = {0};

    if (getrandom(&r, sizeof r, 0) != (ssize_t) sizeof r) r = (uint32_t) now_ms * 2654435761U;
    text_buf_printf(&b, "%s/backup/%014" PRId64 "-%08" PRIx32, table_arn, now_ms, r);
    return text_buf_take(&b, NULL);
}

/* A backup of t as it is now (descriptions and references to its items). */
static void snapshot(const struct db_scope *scope, const struct table *t, const char *name,
                     int64_t now_ms, struct backup *b)
{
    size_t n = 0;

    memset(b, 0, sizeof *b);
    b->namespace_id = xstrdup(scope->namespace_id);
    b->desc.arn = new_backup_arn(t->arn, now_ms);
    b->desc.name = xstrdup(name);
    b->desc.status = BACKUP_AVAILABLE;
    b->desc.creation_ms = now_ms;
    b->desc.size_bytes = t->size_bytes;
    b->desc.item_count = (int64_t) t->items.count;
    b->desc.table_name = xstrdup(t->def.name);
    b->desc.table_id = xstrdup(t->table_id);
    b->desc.table_arn = xstrdup(t->arn);
    b->desc.table_creation_ms = t->creation_ms;
    table_def_copy(&b->desc.def, &t->def);
    b->desc.ttl_enabled = t->ttl.enabled;
    b->desc.ttl_attribute = xstrdup_or_null(t->ttl.attribute);
    b->items = xmalloc(sizeof *b->items * (t->items.count ? t->items.count : 1));
    for (struct skiplist_node *node = skiplist_first(&t->items); node; node = skiplist_next(node))
        b->items[n++] = item_ref(node->item);
    b->item_count = n;
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
        /* The text AWS sends for its backup operations' TableNotFoundException
         * (continuous_backups.c). */
        ddb_error_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s", table_name);
        goto out;
    }
    drop_expired(db, now_ms);
    snapshot(scope, t, backup_name, now_ms, &b);
    backup_desc_copy(out, &b.desc);
    /* CreateBackup answers CREATING (API reference example); the copy is
     * complete already, so every later call sees AVAILABLE. */
    out->status = BACKUP_CREATING;
    persist_backup(db, &b);
    db_add_backup(db, &b);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

void db_backup_deleted_table(struct db *db, const struct db_scope *scope, const struct table *t,
                             int64_t now_ms)
{
    assert_lock_exclusive();
    struct backup b;
    struct text_buf name = {0};

    drop_expired(db, now_ms);
    text_buf_printf(&name, "%s$DeletedTableBackup", t->def.name);
    snapshot(scope, t, name.data, now_ms, &b);
    text_buf_clear(&name);
    b.desc.system = true;
    b.desc.expiry_ms = now_ms + SYSTEM_BACKUP_KEEP_MS;
    persist_backup(db, &b);
    db_add_backup(db, &b);
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
        backup_not_found(arn, err);
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
    drop_expired(db, db_now_ms(db));
    b = find_backup(db, scope, arn, &pos);
    if (!b) {
        backup_not_found(arn, err);
        goto out;
    }
    backup_desc_copy(out, &b->desc);
    out->status = BACKUP_DELETED;
    persist_backup_removed(db, b);
    backup_free_contents(b);
    memmove(&db->backups[pos], &db->backups[pos + 1],
            sizeof *db->backups * (db->backup_count - pos - 1));
    db->backup_count--;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

static bool matches(const struct backup *b, const struct db_scope *scope,
                    const struct backup_filter *f, int64_t now_ms)
{
    if (strcmp(b->namespace_id, scope->namespace_id) != 0 || !is_live(b, now_ms)) return false;
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
    for (size_t i = start; i < db->backup_count; i++) {
        const struct backup *b = &db->backups[i];
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
