/*
 * catalog.c - tables by name: create, describe, delete, list; UpdateTable is
 * catalog_update.c (apply) and catalog_update_check.c (its rules), which
 * share this file's helpers through catalog.h.
 *
 * Request shapes and the cross-field rules of CreateTable/UpdateTable are
 * checked in api/ before these run; what is checked here needs the engine's
 * state (does the table exist, does the change change anything, is deletion
 * protection on).
 *
 * DynamoDB answers CreateTable with status CREATING and DeleteTable with
 * DELETING; the emulator reports those statuses in the responses but makes the
 * change at once (see docs/differences.md), so code that does not wait, as
 * code written against DynamoDB Local often does not, keeps working. GSIs
 * added by UpdateTable are the exception (their backfill, catalog_update.c).
 *
 * With --delay-transient-statuses (db.h) the statuses last, on the engine's
 * clock, as on AWS, and so do their rules: a CREATING table is described
 * but item operations do not find it (ResourceNotFoundException); while a
 * table is CREATING, UPDATING or DELETING, UpdateTable and DeleteTable are
 * refused with ResourceInUseException "Attempt to change a resource which is
 * still in use: Table is being created|updated|deleted: NAME" (AWS's texts:
 * dynalite's deleteTable.js, ack-api-quirks DDB-TABLE-374, Terraform's
 * provider quoting them); a new GSI stays CREATING (reads refused as during
 * its backfill) and a throughput change UPDATING; a new stream is ENABLING;
 * a deleted GSI is gone at once but described DELETING until its time, and
 * meanwhile no other index may be created or deleted and the table not be
 * deleted (ack-api-quirks DDB-TABLE-150, -159).
 * A deleted table is gone from disk and for every other operation at once,
 * but stays in its namespace, DELETING, for DescribeTable, ListTables and
 * CreateTable ("Table already exists") until its time; the first change to
 * the namespace after that frees it (catalog_purge_deleted). None of this is
 * persisted: after a restart every change is complete.
 */
#include "storage/engine/catalog.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_tables.h"
#include "storage/stream/stream.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ResourceInUseException for a change to a table that is not ACTIVE (texts in the file comment). */
int catalog_check_settled(const struct table *t, int64_t now_ms, struct ddb_error *err)
{
    assert_lock_held();
    static const char *const being[] = {
        [TABLE_CREATING] = "created", [TABLE_UPDATING] = "updated", [TABLE_DELETING] = "deleted"};
    enum table_status s = table_status_at(t, now_ms);

    if (s == TABLE_ACTIVE) return 0;
    return ddb_error_set(
        err, DDB_RESOURCE_IN_USE,
        "Attempt to change a resource which is still in use: Table is being %s: %s", being[s],
        t->def.name);
}

/* A DELETING table whose time has come: gone for every call. */
bool catalog_deleted_by(const struct table *t, int64_t now_ms)
{
    assert_lock_held();
    return table_is_deleting(t) && now_ms >= t->transient_until_ms;
}

/* Frees the scope's DELETING tables whose time has come. Caller holds the lock exclusively. */
void catalog_purge_deleted(struct db *db, const struct db_scope *scope, int64_t now_ms)
{
    assert_lock_exclusive();
    struct namespace *ns = db_find_namespace(db, scope);
    size_t kept = 0;

    assert_lock_exclusive();
    if (!ns) return;
    for (size_t i = 0; i < ns->table_count; i++) {
        if (catalog_deleted_by(ns->tables[i], now_ms))
            table_free(ns->tables[i], now_ms);
        else
            ns->tables[kept++] = ns->tables[i];
    }
    ns->table_count = kept;
}

/* Whether a GSI deleted under --delay-transient-statuses is still DELETING. */
bool catalog_gsi_deleting(const struct table *t, int64_t now_ms)
{
    assert_lock_held();
    for (size_t i = 0; i < t->deleting_gsi_count; i++)
        if (now_ms < t->deleting_gsis[i].until_ms) return true;
    return false;
}

struct table_index *catalog_find_gsi(const struct table *t, const char *name)
{
    assert_lock_held();
    struct table_index *idx = table_find_index(t, name);
    return idx && idx->def->is_global ? idx : NULL;
}

bool catalog_attr_def_type(const struct attr_def *defs, size_t count, const char *name,
                           enum value_type *out)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(defs[i].name, name) == 0) {
            *out = defs[i].type;
            return true;
        }
    }
    return false;
}

/* Appends the still DELETING GSIs of t to the description out. */
static void describe_deleting_gsis(const struct table *t, int64_t now_ms, struct table_desc *out)
{
    for (size_t i = 0; i < t->deleting_gsi_count; i++) {
        const struct deleting_index *d = &t->deleting_gsis[i];
        size_t n = out->def.gsi_count;
        if (now_ms >= d->until_ms) continue;
        out->def.gsis = xrealloc(out->def.gsis, (n + 1) * sizeof *out->def.gsis);
        out->gsi_descs = xrealloc(out->gsi_descs, (n + 1) * sizeof *out->gsi_descs);
        index_def_copy(&out->def.gsis[n], &d->def);
        memset(&out->gsi_descs[n], 0, sizeof out->gsi_descs[n]);
        out->gsi_descs[n].status = INDEX_DELETING;
        out->gsi_descs[n].arn = xstrdup(d->arn);
        out->def.gsi_count = n + 1;
    }
}

/* The statuses DescribeTable reports at now_ms: the table's, and its GSIs'
 * (all CREATING while the table is; deleted ones DELETING until their time). */
static void describe_statuses(const struct table *t, int64_t now_ms, struct table_desc *out)
{
    describe_deleting_gsis(t, now_ms, out);
    out->status = table_is_deleting(t) ? TABLE_DELETING : table_status_at(t, now_ms);
    catalog_vector_statuses(t, now_ms, out->status == TABLE_CREATING, out);
    for (size_t i = 0; i < out->def.gsi_count; i++) {
        struct index_desc *d = &out->gsi_descs[i];
        const struct table_index *idx = table_find_index(t, out->def.gsis[i].name);
        if (out->status == TABLE_CREATING) {
            d->status = INDEX_CREATING;
        } else if (idx && (d->status = index_status_at(idx, now_ms)) == INDEX_CREATING) {
            /* A GSI added by UpdateTable, rows complete but not yet ACTIVE:
             * still reported as backfilling, and read as one (read.c). */
            d->backfilling = true;
            d->show_backfilling = true;
        }
    }
}

bool catalog_name_taken(struct db *db, const struct db_scope *scope, const char *name,
                        int64_t now_ms)
{
    assert_lock_exclusive();
    catalog_purge_deleted(db, scope, now_ms);
    return db_find_table_entry(db, scope, name) != NULL;
}

struct table *catalog_add_table(struct db *db, const struct db_scope *scope, struct table_def *def,
                                int64_t now_ms)
{
    assert_lock_exclusive();
    struct table *t = table_new(def, scope->region, now_ms);

    db_namespace_insert(db_namespace_for_write(db, scope), t);
    persist_attach_table(db, scope->namespace_id, t);
    if (db->consistency_any) consistency_table_added(db, scope, t);
    if (db->delay_transient) {
        t->transient = TABLE_CREATING;
        t->transient_until_ms = now_ms + DDB_DELAY_TABLE_CREATING_MS;
        t->stream_enabling_until_ms = now_ms + DDB_DELAY_STREAM_ENABLING_MS;
    }
    if (t->def.stream.enabled) table_start_stream(t, t->creation_ms);
    table_sync_stream(t, db->streams, scope->namespace_id, t->creation_ms);
    persist_table(t);
    return t;
}

void catalog_describe_new(const struct table *t, struct table_desc *out)
{
    table_describe(t, out);
    out->status = TABLE_CREATING;
    /* Its GSIs are answered CREATING too (ack-api-quirks DDB-TABLE-148). */
    for (size_t i = 0; i < out->def.gsi_count; i++)
        out->gsi_descs[i].status = INDEX_CREATING;
    catalog_vector_statuses(t, 0, true, out);
}

int db_create_table(struct db *db, const struct db_scope *scope, struct table_def *def,
                    struct table_desc *out, struct ddb_error *err)
{
    struct table *t;
    int64_t now_ms;
    int rc = -1;

    db_write_lock(db);
    now_ms = db_now_ms(db);
    if (catalog_name_taken(db, scope, def->name, now_ms)) {
        ddb_error_set(err, DDB_RESOURCE_IN_USE, "Table already exists: %s", def->name);
        goto out;
    }
    t = catalog_add_table(db, scope, def, now_ms);
    catalog_describe_new(t, out);
    rc = 0;
out:
    db_unlock(db);
    table_def_clear(def);
    return rc;
}

int db_describe_table(struct db *db, const struct db_scope *scope, const char *name,
                      struct table_desc *out, struct ddb_error *err)
{
    struct table *t;
    int rc = -1;

    int64_t now_ms;

    /* Its counters (items, size) are its writers': its lock shared. */
    db_lock_table(db, scope, name, LOCK_HOLD_SHARED);
    now_ms = db_now_ms(db);
    t = db_find_table_entry(db, scope, name);
    if (!t || catalog_deleted_by(t, now_ms)) {
        ddb_error_table_not_found(err, name);
        goto out;
    }
    table_describe(t, out);
    describe_statuses(t, now_ms, out);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_delete_table(struct db *db, const struct db_scope *scope, const char *name,
                    struct table_desc *out, struct ddb_error *err)
{
    struct namespace *ns;
    struct table *t;
    size_t pos;
    int64_t now_ms;
    bool freed = false;
    int rc = -1;

    db_write_lock(db);
    now_ms = db_now_ms(db);
    catalog_purge_deleted(db, scope, now_ms);
    t = db_find_table_entry(db, scope, name);
    if (!t) {
        ddb_error_table_not_found(err, name);
        goto out;
    }
    if (catalog_check_settled(t, now_ms, err) != 0) goto out;
    for (size_t i = 0; i <= t->index_count; i++) {
        /* ack-api-quirks DDB-TABLE-150: refused while any index is being built or removed. */
        if (i == t->index_count ? catalog_gsi_deleting(t, now_ms)
                                : index_status_at(&t->indexes[i], now_ms) != INDEX_ACTIVE) {
            ddb_error_set(err, DDB_RESOURCE_IN_USE,
                          "Attempt to change a resource which is still in use: Cannot delete "
                          "table while indexes are being created, updated, or deleted.");
            goto out;
        }
    }
    if (t->def.deletion_protection) {
        ddb_error_set(err, DDB_VALIDATION,
                      "Resource cannot be deleted as it is currently protected against deletion. "
                      "Disable deletion protection first.");
        goto out;
    }
    table_describe(t, out);
    out->status = TABLE_DELETING;
    if (db->delay_transient) {
        /* Gone from disk and from its stream now; described until its time. */
        persist_table_removed(t);
        t->journal = NULL;
        stream_close(t->stream, now_ms);
        t->stream = NULL;
        t->transient = TABLE_DELETING;
        t->transient_until_ms = now_ms + DDB_DELAY_TABLE_DELETING_MS;
        rc = 0;
        goto out;
    }
    ns = db_namespace_for_write(db, scope);
    pos = db_namespace_position(ns, name);
    memmove(&ns->tables[pos], &ns->tables[pos + 1],
            sizeof *ns->tables * (ns->table_count - pos - 1));
    ns->table_count--;
    if (t->pitr.enabled) db_backup_deleted_table(db, scope, t, db_now_ms(db));
    persist_table_removed(t);
    table_free(t, now_ms);
    freed = true;
    rc = 0;
out:
    db_unlock(db);
    /* The table's items are free now; their pages go back to the system, outside the lock. */
    if (freed) mem_release_free();
    return rc;
}

int db_list_tables(struct db *db, const struct db_scope *scope, const char *exclusive_start,
                   size_t limit, char ***names, size_t *count, char **last_evaluated,
                   struct ddb_error *err)
{
    struct namespace *ns;
    size_t start = 0, n = 0, i;
    int64_t now_ms;

    (void) err;
    *names = NULL;
    *count = 0;
    *last_evaluated = NULL;
    db_read_lock(db);
    now_ms = db_now_ms(db);
    ns = db_find_namespace(db, scope);
    if (ns) {
        if (exclusive_start) {
            start = db_namespace_position(ns, exclusive_start);
            if (start < ns->table_count &&
                strcmp(ns->tables[start]->def.name, exclusive_start) == 0)
                start++;
        }
        *names = xcalloc(limit < ns->table_count - start ? limit + 1 : ns->table_count - start + 1,
                         sizeof **names);
        /* DELETING tables are listed until they are gone. */
        for (i = start; i < ns->table_count && n < limit; i++) {
            if (!catalog_deleted_by(ns->tables[i], now_ms))
                (*names)[n++] = xstrdup(ns->tables[i]->def.name);
        }
        while (i < ns->table_count && catalog_deleted_by(ns->tables[i], now_ms))
            i++;
        /* LastEvaluatedTableName only when more tables follow: a page that holds
         * every remaining table has none, even when Limit equals their number
         * (dynalite test/listTables.js, recorded from AWS). */
        if (n && i < ns->table_count) *last_evaluated = xstrdup((*names)[n - 1]);
    }
    *count = n;
    db_unlock(db);
    return 0;
}

void catalog_vector_statuses(const struct table *t, int64_t now_ms, bool table_creating,
                             struct table_desc *out)
{
    assert_lock_held();
    for (size_t i = 0; i < out->def.vector_count && i < t->vector_count; i++) {
        struct index_desc *d = &out->vector_descs[i];
        d->status =
            table_creating ? INDEX_CREATING : vector_index_status_at(&t->vectors[i], now_ms);
        /* An index added by UpdateTable reports Backfilling while CREATING (spec-24 2.6). */
        d->backfilling = d->show_backfilling =
            !table_creating && d->status == INDEX_CREATING && t->vectors[i].report_backfilling;
    }
}
