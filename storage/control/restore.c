/*
 * restore.c - RestoreTableFromBackup and RestoreTableToPointInTime: a new
 * table made from a backup's items, or from a table's items as they were at
 * a point in time.
 *
 * api/ asks for the source's definition first (db_restore_source_def),
 * applies the request's overrides to it (indexes, billing, throughput, SSE)
 * and checks the result with CreateTable's rules; db_restore_table then
 * finds the source again, checks the restore time and the target name, and
 * creates the table in one critical section, filling it through the one
 * write path (table_commit_write), so its indexes are built and its items
 * recorded as any other write's. A point in time is read from the source's
 * history (table_items_at: today's items with the later changes undone).
 *
 * What AWS does not carry over to a restored table is not carried here
 * either (developer guide, "Restoring a DynamoDB table from a backup" and
 * "Point-in-time recovery: how it works"): streams, TTL, point-in-time
 * recovery, tags, deletion protection stay off until set again.
 *
 * Restores finish within the request: the answer says CREATING with
 * RestoreInProgress true, as AWS answers, and every later call sees the
 * table ACTIVE with RestoreInProgress false (docs/differences.md).
 *
 * Error texts are not recorded from AWS for these operations; they follow
 * the form of its other "not found" / "already exists" texts.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/control/jobs.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/jobs/backup_record.h"

#include <stdlib.h>
#include <string.h>

/* The source table of a point-in-time restore, with its errors. Caller holds the lock. */
static int find_pitr_source(struct db *db, const struct db_scope *scope,
                            const struct restore_source *src, struct table **out,
                            struct ddb_error *err)
{
    const char *what = src->source_table_name ? src->source_table_name : src->source_table_arn;

    assert_lock_held();
    *out = src->source_table_name ? db_find_table(db, scope, src->source_table_name)
                                  : db_find_table_by_arn(db, scope, src->source_table_arn);
    if (!*out) return ddb_error_backup_table_not_found(err, what);
    if (!(*out)->pitr.enabled)
        return ddb_error_set(err, DDB_POINT_IN_TIME_RECOVERY_UNAVAILABLE,
                             "Point in time recovery is not enabled for table '%s'",
                             (*out)->def.name);
    return 0;
}

static struct backup *find_backup(struct db *db, const struct db_scope *scope, const char *arn,
                                  struct ddb_error *err)
{
    assert_lock_held();
    for (size_t i = 0; i < db->backups.count; i++) {
        struct backup *b = &db->backups.backups[i];
        if (strcmp(b->namespace_id, scope->namespace_id) == 0 && strcmp(b->desc.arn, arn) == 0 &&
            (!b->desc.expiry_ms || b->desc.expiry_ms > db_now_ms(db)))
            return b;
    }
    ddb_error_backup_not_found(err, arn);
    return NULL;
}

int db_restore_source_def(struct db *db, const struct db_scope *scope,
                          const struct restore_source *src, struct table_def *out,
                          struct ddb_error *err)
{
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    if (src->backup_arn) {
        struct backup *b = find_backup(db, scope, src->backup_arn, err);
        if (!b) goto out;
        table_def_copy(out, &b->desc.def);
    } else {
        struct table *t;
        if (find_pitr_source(db, scope, src, &t, err) != 0) goto out;
        table_def_copy(out, &t->def);
    }
    /* What a restore does not carry over (file comment). */
    for (size_t i = 0; i < out->tag_count; i++) {
        free(out->tags[i].key);
        free(out->tags[i].value);
    }
    free(out->tags);
    out->tags = NULL;
    out->tag_count = 0;
    memset(&out->stream, 0, sizeof out->stream);
    out->deletion_protection = false;
    free(out->replication_mode);
    out->replication_mode = NULL;
    out->has_disassociation_protection = false;
    out->disassociation_protection = false;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_restore_table(struct db *db, const struct db_scope *scope, const struct restore_source *src,
                     struct table_def *def, struct table_desc *out, struct ddb_error *err)
{
    struct item **items = NULL;
    size_t count = 0;
    struct restore_summary summary = {.present = true, .in_progress = false};
    struct table *t;
    int64_t now_ms;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_write_lock(db);
    now_ms = db_now_ms(db);
    if (src->backup_arn) {
        struct backup *b = find_backup(db, scope, src->backup_arn, err);
        if (!b) goto out;
        if (catalog_name_taken(db, scope, def->name, now_ms)) goto exists;
        summary.source_backup_arn = xstrdup(b->desc.arn);
        summary.source_table_arn = xstrdup(b->desc.table_arn);
        summary.restore_ms = b->desc.creation_ms;
        items = xmalloc(sizeof *items * (b->item_count ? b->item_count : 1));
        for (size_t i = 0; i < b->item_count; i++)
            items[i] = item_ref(b->items[i]);
        count = b->item_count;
    } else {
        struct table *source;
        int64_t earliest, latest, at;
        if (find_pitr_source(db, scope, src, &source, err) != 0) goto out;
        pitr_window(source, now_ms, &earliest, &latest);
        at = src->use_latest ? latest : src->restore_ms;
        if (at < earliest || at > latest) {
            ddb_error_set(err, DDB_INVALID_RESTORE_TIME,
                          "Invalid restore time specified: RestoreDateTime must be between "
                          "EarliestRestorableDateTime and LatestRestorableDateTime");
            goto out;
        }
        if (catalog_name_taken(db, scope, def->name, now_ms)) goto exists;
        summary.source_table_arn = xstrdup(source->arn);
        summary.restore_ms = at;
        table_items_at(source, at, &items, &count);
    }

    t = catalog_add_table(db, scope, def, now_ms);
    t->restore = summary;
    memset(&summary, 0, sizeof summary);
    persist_table(t);
    {
        /* The restored items are the new table's first writes: they reach
         * its indexes and its file through the one write path. */
        const struct commit_info info = {.now_ms = now_ms, .origin = STREAM_ORIGIN_USER};
        for (size_t i = 0; i < count; i++) {
            struct row_key key;
            table_item_key(t, items[i], &key);
            table_commit_write(t, &key, item_ref(items[i]), &info);
        }
    }
    catalog_describe_new(t, out);
    out->restore.in_progress = true;
    rc = 0;
    goto out;
exists:
    ddb_error_set(err, DDB_TABLE_ALREADY_EXISTS, "Table already exists: %s", def->name);
out:
    db_unlock(db);
    for (size_t i = 0; i < count; i++)
        item_unref(items[i]);
    free(items);
    restore_summary_clear(&summary);
    table_def_clear(def);
    return rc;
}
