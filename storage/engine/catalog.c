/*
 * catalog.c - tables by name: create, describe, update, delete, list.
 *
 * Request shapes and the cross-field rules of CreateTable/UpdateTable are
 * checked in api/ before these run; what is checked here needs the engine's
 * state (does the table exist, does the change change anything, is deletion
 * protection on).
 *
 * DynamoDB answers CreateTable with status CREATING and DeleteTable with
 * DELETING; the emulator reports those statuses in the responses but makes the
 * change at once (see docs/differences.md), so code that does not wait, as
 * code written against DynamoDB Local often does not, keeps working.
 *
 * GSIs added by UpdateTable are the exception, because their backfill costs
 * time proportional to the table: the index is created empty (CREATING,
 * Backfilling) inside UpdateTable's critical section, then filled in steps of
 * BACKFILL_STEP_ROWS rows, each under the write lock and released between
 * steps, so concurrent reads and writes proceed while a large table is being
 * indexed (index.h explains how writes during the backfill stay exact). The
 * UpdateTable call returns when the index is ACTIVE; meanwhile DescribeTable
 * shows it CREATING with Backfilling true, as on AWS. A small table finishes
 * in one step.
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
 * the namespace after that frees it (purge_deleted). None of this is
 * persisted: after a restart every change is complete.
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_tables.h"
#include "storage/stream/stream.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Rows copied per backfill step: each step holds the write lock for about a
 * millisecond, which bounds how long a backfill makes other requests wait. */
#define BACKFILL_STEP_ROWS 1000

static int not_found(const char *name, struct ddb_error *err)
{
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Table: %s not found", name);
}

/* ResourceInUseException for a change to a table that is not ACTIVE (texts in the file comment). */
static int check_table_settled(const struct table *t, int64_t now_ms, struct ddb_error *err)
{
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
static bool deleted_by(const struct table *t, int64_t now_ms)
{
    return table_is_deleting(t) && now_ms >= t->transient_until_ms;
}

/* Frees the scope's DELETING tables whose time has come. Caller holds the lock exclusively. */
static void purge_deleted(struct db *db, const struct db_scope *scope, int64_t now_ms)
{
    struct namespace *ns = db_find_namespace(db, scope);
    size_t kept = 0;

    if (!ns) return;
    for (size_t i = 0; i < ns->table_count; i++) {
        if (deleted_by(ns->tables[i], now_ms))
            table_free(ns->tables[i], now_ms);
        else
            ns->tables[kept++] = ns->tables[i];
    }
    ns->table_count = kept;
}

/* Whether a GSI deleted under --delay-transient-statuses is still DELETING. */
static bool gsi_deleting(const struct table *t, int64_t now_ms)
{
    for (size_t i = 0; i < t->deleting_gsi_count; i++)
        if (now_ms < t->deleting_gsis[i].until_ms) return true;
    return false;
}

/* Forgets the deleted GSIs whose time has come. Caller holds the lock exclusively. */
static void drop_deleted_gsis(struct table *t, int64_t now_ms)
{
    size_t kept = 0;

    for (size_t i = 0; i < t->deleting_gsi_count; i++) {
        if (now_ms < t->deleting_gsis[i].until_ms) {
            t->deleting_gsis[kept++] = t->deleting_gsis[i];
        } else {
            index_def_clear(&t->deleting_gsis[i].def);
            free(t->deleting_gsis[i].arn);
        }
    }
    t->deleting_gsi_count = kept;
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
    purge_deleted(db, scope, now_ms);
    return db_find_table_entry(db, scope, name) != NULL;
}

struct table *catalog_add_table(struct db *db, const struct db_scope *scope, struct table_def *def,
                                int64_t now_ms)
{
    struct table *t = table_new(def, scope->region, now_ms);

    db_namespace_insert(db_namespace_for_write(db, scope), t);
    persist_attach_table(db, scope->namespace_id, t);
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

    db_read_lock(db);
    now_ms = db_now_ms(db);
    t = db_find_table_entry(db, scope, name);
    if (!t || deleted_by(t, now_ms)) {
        not_found(name, err);
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
    purge_deleted(db, scope, now_ms);
    t = db_find_table_entry(db, scope, name);
    if (!t) {
        not_found(name, err);
        goto out;
    }
    if (check_table_settled(t, now_ms, err) != 0) goto out;
    for (size_t i = 0; i <= t->index_count; i++) {
        /* ack-api-quirks DDB-TABLE-150: refused while any index is being built or removed. */
        if (i == t->index_count ? gsi_deleting(t, now_ms)
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
            if (!deleted_by(ns->tables[i], now_ms))
                (*names)[n++] = xstrdup(ns->tables[i]->def.name);
        }
        while (i < ns->table_count && deleted_by(ns->tables[i], now_ms))
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

static int update_throughput(struct table *t, const struct table_update *u, int64_t now_ms,
                             struct ddb_error *err)
{
    const struct throughput *cur = &t->def.throughput, *req = &u->throughput;
    /* Checked against dynalite's recorded AWS responses (actions/updateTable.js). */
    if (req->read_units == cur->read_units && req->write_units == cur->write_units &&
        !(u->has_billing && u->billing != t->def.billing))
        return ddb_error_set(
            err, DDB_VALIDATION,
            "The provisioned throughput for the table will not change. The requested value equals "
            "the current value. Current ReadCapacityUnits provisioned for the table: %lld. "
            "Requested ReadCapacityUnits: %lld. Current WriteCapacityUnits provisioned for the "
            "table: %lld. Requested WriteCapacityUnits: %lld. Refer to the Amazon DynamoDB "
            "Developer Guide for current limits and how to request higher limits.",
            (long long) cur->read_units, (long long) req->read_units, (long long) cur->write_units,
            (long long) req->write_units);
    if (t->def.billing == BILLING_PROVISIONED) {
        if (req->read_units > cur->read_units || req->write_units > cur->write_units)
            t->throughput_last_increase_ms = now_ms;
        if (req->read_units < cur->read_units || req->write_units < cur->write_units) {
            t->throughput_last_decrease_ms = now_ms;
            t->throughput_decreases_today++;
        }
    }
    return 0;
}

static int check_stream_change(const struct table *t, const struct table_update *u,
                               struct ddb_error *err)
{
    /* Texts as recorded from AWS for no-op stream changes. */
    if (u->stream.enabled && t->def.stream.enabled)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Table already has an enabled stream: TableName: %s", t->def.name);
    if (!u->stream.enabled && !t->def.stream.enabled)
        return ddb_error_set(err, DDB_VALIDATION, "Table has no stream to disable: TableName: %s",
                             t->def.name);
    return 0;
}

/* ---- GlobalSecondaryIndexUpdates ---- */

/* An index Create or Delete is running (one at a time per table). */
static bool index_change_running(const struct table *t, int64_t now_ms)
{
    for (size_t i = 0; i < t->index_count; i++) {
        enum index_status s = index_status_at(&t->indexes[i], now_ms);
        if (s == INDEX_CREATING || s == INDEX_DELETING) return true;
    }
    return gsi_deleting(t, now_ms);
}

static int online_index_limit(struct ddb_error *err)
{
    /* ack-api-quirks DDB-TABLE-159: also while another index is CREATING or DELETING. */
    return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                         "Subscriber limit exceeded: Only 1 online index can be created or "
                         "deleted simultaneously per table");
}

static int index_not_found(const struct table *t, const char *name, struct ddb_error *err)
{
    /* ack-api-quirks DDB-TABLE-161/375 (live service). */
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                         "Requested resource not found: Index %s for table %s", name, t->def.name);
}

static bool attr_def_type(const struct attr_def *defs, size_t count, const char *name,
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

/* Appends "Schema:[SchemaElement: key{a:S:HASH}, ...]" for a key schema to buf. */
static void describe_schema(const struct key_schema *k, const struct attr_def *defs,
                            size_t def_count, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    len += (size_t) snprintf(buf + len, len < cap ? cap - len : 0, "Schema:[");
    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        bool hash = i < k->hash_count;
        const char *name = hash ? k->hash_names[i] : k->range_names[i - k->hash_count];
        enum value_type type = VALUE_S;
        attr_def_type(defs, def_count, name, &type);
        len += (size_t) snprintf(buf + len, len < cap ? cap - len : 0,
                                 "%sSchemaElement: key{%s:%s:%s}", i ? ", " : "", name,
                                 value_type_name(type), hash ? "HASH" : "RANGE");
    }
    snprintf(buf + len, len < cap ? cap - len : 0, "]");
}

/* The key schema of the table or index that uses attribute name. */
static const struct key_schema *schema_using(const struct table *t, const char *name)
{
    if (key_schema_has(&t->def.key, name)) return &t->def.key;
    for (size_t i = 0; i < t->def.gsi_count; i++) {
        if (key_schema_has(&t->def.gsis[i].key, name)) return &t->def.gsis[i].key;
    }
    for (size_t i = 0; i < t->def.lsi_count; i++) {
        if (key_schema_has(&t->def.lsis[i].key, name)) return &t->def.lsis[i].key;
    }
    return &t->def.key;
}

/*
 * A Create: the name is new among the table's GSIs and LSIs (scylla
 * test_gsi_updatetable.py::test_gsi_backfill_with_lsi, against AWS), no other
 * index change is running, the GSI quota (LimitExceededException via
 * UpdateTable, ack-api-quirks DDB-TABLE-169) and no key attribute redefined
 * with another type (the text scylla test_gsi_updatetable.py::
 * test_gsi_key_type_conflict_on_update records from AWS).
 */
static int check_gsi_create(const struct table *t, const struct table_update *u,
                            const struct index_def *def, int64_t now_ms, struct ddb_error *err)
{
    const struct key_schema *k = &def->key;

    if (table_def_find_index(&t->def, def->name))
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values were invalid: Index %s already exists "
                             "in table %s",
                             def->name, t->def.name);
    if (index_change_running(t, now_ms)) return online_index_limit(err);
    if (t->def.gsi_count >= DDB_MAX_GSIS)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Subscriber limit exceeded: Number of global secondary indexes "
                             "exceeds per-table limit of %d",
                             DDB_MAX_GSIS);
    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        enum value_type wanted = VALUE_S, existing = VALUE_S;
        char existing_schema[1024] = "", new_schema[1024] = "";
        bool found = attr_def_type(u->attr_defs, u->attr_def_count, name, &wanted);
        assert(found); /* api/ checked that AttributeDefinitions covers the key */
        (void) found;
        if (!table_def_attr_type(&t->def, name, &existing) || existing == wanted) continue;
        describe_schema(schema_using(t, name), t->def.attr_defs, t->def.attr_def_count,
                        existing_schema, sizeof existing_schema);
        describe_schema(k, u->attr_defs, u->attr_def_count, new_schema, sizeof new_schema);
        return ddb_error_set(err, DDB_VALIDATION,
                             "One or more parameter values were invalid: Attributes cannot be "
                             "redefined. Please check that your attribute has the same type as "
                             "previously defined. Existing schema: %s New schema: %s",
                             existing_schema, new_schema);
    }
    return 0;
}

static struct table_index *find_gsi(const struct table *t, const char *name)
{
    struct table_index *idx = table_find_index(t, name);
    return idx && idx->def->is_global ? idx : NULL;
}

/* The table's billing mode once the request is applied is PROVISIONED. */
static bool provisioned_after(const struct table *t, const struct table_update *u)
{
    return (u->has_billing ? u->billing : t->def.billing) == BILLING_PROVISIONED;
}

/* Checks every GlobalSecondaryIndexUpdates entry against the table; nothing changes here. */
static int check_gsi_updates(const struct table *t, const struct table_update *u, int64_t now_ms,
                             struct ddb_error *err)
{
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        const struct gsi_update *g = &u->gsi_updates[i];
        const struct table_index *idx;
        switch (g->kind) {
        case GSI_UPDATE_CREATE:
            if (check_gsi_create(t, u, &g->def, now_ms, err) != 0) return -1;
            break;
        case GSI_UPDATE_DELETE:
            /* An LSI name is answered like an unknown index (see docs/differences.md). */
            if (!(idx = find_gsi(t, g->def.name))) return index_not_found(t, g->def.name, err);
            /* Deleting the index being built is admitted once it backfills (DDB-TABLE-149). */
            if (index_change_running(t, now_ms) && index_status_at(idx, now_ms) != INDEX_CREATING)
                return online_index_limit(err);
            break;
        case GSI_UPDATE_UPDATE: {
            const struct throughput *cur, *req = &g->def.throughput;
            if (!(idx = find_gsi(t, g->def.name))) return index_not_found(t, g->def.name, err);
            /* On demand only OnDemandThroughput/WarmThroughput can change (api/ checked),
             * and re-sending them is accepted (ack-api-quirks DDB-TABLE-135). */
            /* An Update of only OnDemandThroughput/WarmThroughput carries no throughput. */
            if (!provisioned_after(t, u) || !req->read_units) break;
            cur = &idx->def->throughput;
            /* ack-api-quirks DDB-TABLE-164 (live service), the table's wording for an index. */
            if (req->read_units == cur->read_units && req->write_units == cur->write_units &&
                !(u->has_billing && u->billing != t->def.billing))
                return ddb_error_set(
                    err, DDB_VALIDATION,
                    "The provisioned throughput for the index %s will not change. The requested "
                    "value equals the current value. Current ReadCapacityUnits provisioned for "
                    "index %s: %lld. Requested ReadCapacityUnits: %lld. Current "
                    "WriteCapacityUnits provisioned for index %s: %lld. Requested "
                    "WriteCapacityUnits: %lld. Refer to the Amazon DynamoDB Developer Guide for "
                    "current limits and how to request higher limits.",
                    g->def.name, g->def.name, (long long) cur->read_units,
                    (long long) req->read_units, g->def.name, (long long) cur->write_units,
                    (long long) req->write_units);
            break;
        }
        }
    }
    return 0;
}

/* Applies the throughput Updates; *old_throughput gets what each index had (same
 * order), since the UpdateTable response still shows the old values. */
static void apply_gsi_throughput(struct table *t, const struct table_update *u,
                                 struct throughput *old_throughput)
{
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        const struct gsi_update *g = &u->gsi_updates[i];
        struct table_index *idx;
        if (g->kind != GSI_UPDATE_UPDATE) continue;
        idx = find_gsi(t, g->def.name);
        old_throughput[i] = idx->def->throughput;
        for (size_t j = 0; j < t->def.gsi_count; j++) {
            struct index_def *d = &t->def.gsis[j];
            if (d != idx->def) continue;
            /* Maxima of -1 clear (ack-api-quirks DDB-TABLE-456); api/ checked the rest. */
            if (g->def.on_demand.max_read)
                d->on_demand.max_read =
                    g->def.on_demand.max_read < 0 ? 0 : g->def.on_demand.max_read;
            if (g->def.on_demand.max_write)
                d->on_demand.max_write =
                    g->def.on_demand.max_write < 0 ? 0 : g->def.on_demand.max_write;
            if (g->def.warm.read_per_s) d->warm.read_per_s = g->def.warm.read_per_s;
            if (g->def.warm.write_per_s) d->warm.write_per_s = g->def.warm.write_per_s;
            if (provisioned_after(t, u) && g->def.throughput.read_units)
                d->throughput = g->def.throughput;
        }
    }
}

/* Adds the Create's index: its new attribute definitions, then the empty index. */
static struct table_index *apply_gsi_create(struct table *t, const struct table_update *u,
                                            const struct index_def *def)
{
    struct index_def copy;
    struct table_index *idx;
    const struct key_schema *k = &def->key;

    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        enum value_type type = VALUE_S;
        attr_def_type(u->attr_defs, u->attr_def_count, name, &type);
        table_define_attr(t, name, type);
    }
    index_def_copy(&copy, def);
    if (t->def.billing == BILLING_PAY_PER_REQUEST)
        memset(&copy.throughput, 0, sizeof copy.throughput);
    idx = table_add_gsi(t, &copy);
    index_begin_backfill(idx);
    return idx;
}

/* The index description of gsi `name` in a table description, or NULL. */
static struct index_desc *gsi_desc(struct table_desc *d, const char *name, size_t *pos)
{
    for (size_t i = 0; i < d->def.gsi_count; i++) {
        if (strcmp(d->def.gsis[i].name, name) == 0) {
            if (pos) *pos = i;
            return &d->gsi_descs[i];
        }
    }
    return NULL;
}

/*
 * Fills a GSI created by UpdateTable, BACKFILL_STEP_ROWS rows per critical
 * section. The table is found again by name and id, and the index by id,
 * before every step: between steps the index may be deleted (allowed while it
 * backfills) and the table may not be (DeleteTable refuses while an index is
 * CREATING).
 */
static void run_backfill(struct db *db, const struct db_scope *scope, const char *table_name,
                         const char *table_id, uint64_t index_id)
{
    bool more = true;
    while (more) {
        struct table *t;
        struct table_index *idx;
        db_write_lock(db);
        t = db_find_table(db, scope, table_name);
        idx = t && strcmp(t->table_id, table_id) == 0 ? table_find_index_by_id(t, index_id) : NULL;
        more = idx && index_backfill_step(idx, &t->items, BACKFILL_STEP_ROWS);
        db_unlock(db);
    }
}

int db_update_table(struct db *db, const struct db_scope *scope, const struct table_update *u,
                    struct table_desc *out, struct ddb_error *err)
{
    struct table *t;
    struct throughput *old_gsi_throughput = NULL, old_throughput;
    const struct gsi_update *deleted = NULL;
    char *backfill_table_id = NULL;
    uint64_t backfill_index_id = 0;
    bool only_gsi_updates = u->gsi_update_count > 0, switched_billing;
    int64_t now_ms;
    int rc = -1;

    db_write_lock(db);
    now_ms = db_now_ms(db);
    purge_deleted(db, scope, now_ms);
    t = db_find_table_entry(db, scope, u->name);
    if (!t) {
        not_found(u->name, err);
        goto out;
    }
    if (check_table_settled(t, now_ms, err) != 0) goto out;
    drop_deleted_gsis(t, now_ms); /* only what no answer shows any more */
    /* Check every part before changing any (a failed request changes nothing,
     * ack-api-quirks DDB-TABLE-380). */
    if (u->has_throughput && update_throughput(t, u, now_ms, err) != 0) goto out;
    if (u->has_stream && check_stream_change(t, u, err) != 0) goto out;
    if (check_gsi_updates(t, u, now_ms, err) != 0) goto out;

    switched_billing = u->has_billing && u->billing != t->def.billing;
    if (switched_billing) {
        t->def.billing = u->billing;
        if (u->billing == BILLING_PAY_PER_REQUEST) {
            t->billing_last_update_ms = now_ms;
            memset(&t->def.throughput, 0, sizeof t->def.throughput);
            /* On-demand GSIs report zero throughput too (ack-api-quirks DDB-TABLE-133). */
            for (size_t i = 0; i < t->def.gsi_count; i++)
                memset(&t->def.gsis[i].throughput, 0, sizeof t->def.gsis[i].throughput);
        } else {
            /* Maxima only apply on demand: a provisioned table describes none. */
            memset(&t->def.on_demand, 0, sizeof t->def.on_demand);
        }
    }
    old_throughput = t->def.throughput;
    if (u->has_throughput) t->def.throughput = u->throughput;
    if (u->has_stream) {
        t->def.stream = u->stream;
        if (db->delay_transient)
            t->stream_enabling_until_ms = now_ms + DDB_DELAY_STREAM_ENABLING_MS;
        if (u->stream.enabled) table_start_stream(t, now_ms);
        table_sync_stream(t, db->streams, scope->namespace_id, now_ms);
    }
    if (u->has_deletion_protection) t->def.deletion_protection = u->deletion_protection;
    if (u->on_demand.max_read)
        t->def.on_demand.max_read = u->on_demand.max_read < 0 ? 0 : u->on_demand.max_read;
    if (u->on_demand.max_write)
        t->def.on_demand.max_write = u->on_demand.max_write < 0 ? 0 : u->on_demand.max_write;
    if (u->warm.read_per_s) t->def.warm.read_per_s = u->warm.read_per_s;
    if (u->warm.write_per_s) t->def.warm.write_per_s = u->warm.write_per_s;
    if (u->has_table_class) {
        free(t->def.table_class);
        t->def.table_class = xstrdup_or_null(u->table_class);
    }
    if (u->has_sse) {
        free(t->def.sse.sse_type);
        free(t->def.sse.kms_master_key_id);
        t->def.sse.enabled = u->sse.enabled;
        t->def.sse.sse_type = xstrdup_or_null(u->sse.sse_type);
        t->def.sse.kms_master_key_id = xstrdup_or_null(u->sse.kms_master_key_id);
    }
    if (u->gsi_update_count) {
        old_gsi_throughput = xcalloc(u->gsi_update_count, sizeof *old_gsi_throughput);
        apply_gsi_throughput(t, u, old_gsi_throughput);
    }
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        if (u->gsi_updates[i].kind == GSI_UPDATE_CREATE) {
            struct table_index *created = apply_gsi_create(t, u, &u->gsi_updates[i].def);
            if (db->delay_transient) {
                created->transient = INDEX_CREATING;
                created->transient_until_ms = now_ms + DDB_DELAY_INDEX_CREATING_MS;
            }
            backfill_table_id = xstrdup(t->table_id);
            backfill_index_id = created->id;
        } else if (u->gsi_updates[i].kind == GSI_UPDATE_DELETE)
            deleted = &u->gsi_updates[i];
        if (u->gsi_updates[i].kind != GSI_UPDATE_UPDATE) only_gsi_updates = false;
    }
    only_gsi_updates = only_gsi_updates && !u->has_billing && !u->has_throughput &&
                       !u->has_stream && !u->has_sse && !u->has_table_class &&
                       !u->has_deletion_protection;

    table_describe(t, out);
    /* AWS answers UpdateTable with the table UPDATING while the change applies,
     * except for index throughput alone (ack-api-quirks DDB-TABLE-165, -148). */
    out->status = only_gsi_updates ? TABLE_ACTIVE : TABLE_UPDATING;
    /* ... and still shows the old table throughput (dynalite test/updateTable.js
     * "should triple rates and then reduce if requested", recorded). */
    if (u->has_throughput && !switched_billing) out->def.throughput = old_throughput;
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        const struct gsi_update *g = &u->gsi_updates[i];
        size_t pos = 0;
        struct index_desc *d = gsi_desc(out, g->def.name, &pos);
        if (!d) continue;
        if (g->kind == GSI_UPDATE_UPDATE) {
            /* The response echoes the old throughput with IndexStatus UPDATING. */
            d->status = INDEX_UPDATING;
            out->def.gsis[pos].throughput = old_gsi_throughput[i];
        } else if (g->kind == GSI_UPDATE_DELETE) {
            d->status = INDEX_DELETING;
        } else {
            /* Created: CREATING, Backfilling false while resources are allocated. */
            d->backfilling = false;
        }
    }
    if (db->delay_transient) {
        if (out->status == TABLE_UPDATING) {
            t->transient = TABLE_UPDATING;
            t->transient_until_ms = now_ms + DDB_DELAY_TABLE_UPDATING_MS;
        }
        for (size_t i = 0; i < u->gsi_update_count; i++) {
            struct table_index *idx = find_gsi(t, u->gsi_updates[i].def.name);
            if (u->gsi_updates[i].kind != GSI_UPDATE_UPDATE || !idx) continue;
            idx->transient = INDEX_UPDATING;
            idx->transient_until_ms = now_ms + DDB_DELAY_INDEX_UPDATING_MS;
        }
    }
    if (deleted) {
        /* Reported DELETING in this response, gone for every later call
         * but DescribeTable under --delay-transient-statuses. */
        const struct index_def *def = table_def_find_index(&t->def, deleted->def.name);
        const struct index_desc *desc = gsi_desc(out, deleted->def.name, NULL);
        if (db->delay_transient && def && desc) {
            struct deleting_index *d;
            t->deleting_gsis =
                xrealloc(t->deleting_gsis, (t->deleting_gsi_count + 1) * sizeof *t->deleting_gsis);
            d = &t->deleting_gsis[t->deleting_gsi_count++];
            index_def_copy(&d->def, def);
            d->arn = xstrdup(desc->arn);
            d->until_ms = now_ms + DDB_DELAY_INDEX_DELETING_MS;
        }
        table_remove_gsi(t, deleted->def.name);
    }
    persist_table(t);
    rc = 0;
out:
    db_unlock(db);
    if (backfill_table_id) run_backfill(db, scope, u->name, backfill_table_id, backfill_index_id);
    free(backfill_table_id);
    free(old_gsi_throughput);
    return rc;
}

void table_update_clear(struct table_update *u)
{
    free(u->name);
    free(u->table_class);
    free(u->sse.sse_type);
    free(u->sse.kms_master_key_id);
    for (size_t i = 0; i < u->attr_def_count; i++)
        free(u->attr_defs[i].name);
    free(u->attr_defs);
    for (size_t i = 0; i < u->gsi_update_count; i++)
        index_def_clear(&u->gsi_updates[i].def);
    free(u->gsi_updates);
    memset(u, 0, sizeof *u);
}
