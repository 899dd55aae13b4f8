/*
 * kept_backups.c - the backups the engine keeps by itself: the SYSTEM backup
 * DeleteTable leaves of a table with point-in-time recovery on, and dropping
 * expired backups with their records.
 *
 * DeleteTable leaves a SYSTEM backup named "<table>$DeletedTableBackup",
 * kept 35 days (developer guide, "Point-in-time recovery: how it works");
 * ListBackups lists it for BackupType SYSTEM or ALL, not for the default
 * USER. Expired backups are not found, and are dropped at the next backup
 * change. The backups' records are in storage/jobs/backup_record.c, the
 * operations in storage/control/backups.c. Locking: the caller holds the
 * engine lock exclusively (asserted).
 */
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/engine/db_internal.h"
#include "storage/jobs/backup_record.h"

/* A SYSTEM backup's 35 days (developer guide, "Point-in-time recovery: how it works"). */
#define SYSTEM_BACKUP_KEEP_MS (35LL * 24 * 60 * 60 * 1000)

void db_drop_expired_backups(struct db *db, int64_t now_ms)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < db->backups.count; i++) {
        struct backup *b = &db->backups.backups[i];
        if (backup_is_live(b, now_ms)) {
            db->backups.backups[kept++] = *b;
        } else {
            persist_backup_removed(db, b);
            backup_free_contents(b);
        }
    }
    db->backups.count = kept;
}

void db_backup_deleted_table(struct db *db, const struct db_scope *scope, const struct table *t,
                             int64_t now_ms)
{
    assert_lock_exclusive();
    struct backup b;
    struct text_buf name = {0};

    db_drop_expired_backups(db, now_ms);
    text_buf_printf(&name, "%s$DeletedTableBackup", t->def.name);
    backup_snapshot(scope->namespace_id, t, name.data, now_ms, &b);
    text_buf_clear(&name);
    b.desc.system = true;
    b.desc.expiry_ms = now_ms + SYSTEM_BACKUP_KEEP_MS;
    persist_backup(db, &b);
    backup_list_add(&db->backups, &b);
}
