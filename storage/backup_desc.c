/*
 * backup_desc.c - the plain data of on-demand backups: status names, copying
 * and freeing descriptions, and the list of backups a db holds.
 *
 * Kept apart from backups.c (which runs CreateBackup and its kin and records
 * them on disk) so that db.c and the loader in persistence.c can hold and
 * free backups without depending on the code that makes them. Locking:
 * db_add_backup and db_forget_backups need the lock held exclusively; the
 * rest works on caller-owned data.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/db_internal.h"

#include <stdlib.h>
#include <string.h>

const char *backup_status_name(enum backup_status s)
{
    static const char *const names[] = {"CREATING", "DELETED", "AVAILABLE"};
    return names[s];
}

void backup_desc_clear(struct backup_desc *d)
{
    free(d->arn);
    free(d->name);
    free(d->table_name);
    free(d->table_id);
    free(d->table_arn);
    free(d->ttl_attribute);
    table_def_clear(&d->def);
    memset(d, 0, sizeof *d);
}

void backup_desc_copy(struct backup_desc *dst, const struct backup_desc *src)
{
    *dst = *src;
    dst->arn = xstrdup_or_null(src->arn);
    dst->name = xstrdup_or_null(src->name);
    dst->table_name = xstrdup_or_null(src->table_name);
    dst->table_id = xstrdup_or_null(src->table_id);
    dst->table_arn = xstrdup_or_null(src->table_arn);
    dst->ttl_attribute = xstrdup_or_null(src->ttl_attribute);
    table_def_copy(&dst->def, &src->def);
}

void backup_free_contents(struct backup *b)
{
    free(b->namespace_id);
    backup_desc_clear(&b->desc);
    for (size_t i = 0; i < b->item_count; i++)
        item_unref(b->items[i]);
    free(b->items);
}

void db_add_backup(struct db *db, struct backup *b)
{
    assert_lock_exclusive();
    db->backups = xrealloc(db->backups, sizeof *db->backups * (db->backup_count + 1));
    db->backups[db->backup_count++] = *b;
    memset(b, 0, sizeof *b);
}

void db_forget_backups(struct db *db, const char *namespace_id)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < db->backup_count; i++) {
        struct backup *b = &db->backups[i];
        if (!namespace_id || strcmp(b->namespace_id, namespace_id) == 0)
            backup_free_contents(b);
        else
            db->backups[kept++] = *b;
    }
    db->backup_count = kept;
}
