/*
 * catalog_update.c - UpdateTable: prepare, validate, apply, in one critical
 * section; see db_tables.h.
 *
 * Like a write (write.c), db_update_table runs in three steps under the
 * exclusive lock: prepare finds the table (ResourceNotFoundException) and
 * reads the clock; catalog_update_validate (catalog_update_check.c) checks
 * every rule that depends on the table, in AWS's order, and changes nothing
 * (a failed request changes nothing, ack-api-quirks DDB-TABLE-380); apply
 * changes the table, describes it as UpdateTable answers and cannot fail.
 * Since nothing is released between the steps, two concurrent UpdateTable
 * calls on one table behave as if one ran after the other: the second is
 * checked against what the first left.
 *
 * GSIs added by UpdateTable are filled after the critical section, because
 * their backfill costs time proportional to the table: the index is created
 * empty (CREATING, Backfilling) in apply, then filled in steps of
 * BACKFILL_STEP_ROWS rows, each under the write lock and released between
 * steps, so concurrent reads and writes proceed while a large table is being
 * indexed (index.h explains how writes during the backfill stay exact). The
 * UpdateTable call returns when the index is ACTIVE; meanwhile DescribeTable
 * shows it CREATING with Backfilling true, as on AWS, and another index
 * Create or Delete is refused (catalog_update_check.c). A small table
 * finishes in one step.
 *
 * The statuses under --delay-transient-statuses are described in catalog.c.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/engine/catalog.h"
#include "storage/stream/stream.h"

#include <stdlib.h>
#include <string.h>

/* Rows copied per backfill step: each step holds the write lock for about a
 * millisecond, which bounds how long a backfill makes other requests wait. */
#define BACKFILL_STEP_ROWS 1000

/* What apply leaves for the response and for the backfill after the lock. */
struct update_applied {
    struct throughput old_throughput;      /* the table's, once the billing mode is set */
    struct throughput *old_gsi_throughput; /* owned; parallel to u->gsi_updates */
    char *backfill_table_id;               /* owned; NULL when no GSI was created */
    uint64_t backfill_index_id;
};

/* ------------------------------------------------------------------------ */
/* prepare                                                                   */
/* ------------------------------------------------------------------------ */

static int update_prepare(struct db *db, const struct db_scope *scope, const struct table_update *u,
                          struct update_plan *p, struct ddb_error *err)
{
    struct table *t;

    assert_lock_exclusive();
    memset(p, 0, sizeof *p);
    p->u = u;
    p->scope = scope;
    p->now_ms = db_now_ms(db);
    t = db_find_table_entry(db, scope, u->name);
    if (!t || catalog_deleted_by(t, p->now_ms)) return ddb_error_table_not_found(err, u->name);
    p->t = t;
    p->on_demand = (u->has_billing ? u->billing : t->def.billing) == BILLING_PAY_PER_REQUEST;
    p->switched_billing = u->has_billing && u->billing != t->def.billing;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* apply: the table's own settings                                           */
/* ------------------------------------------------------------------------ */

/* Forgets the deleted GSIs whose time has come: only what no answer shows any more. */
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

/* The times DescribeTable reports for the last increase and decrease of a
 * provisioned table's throughput, and the decreases today. */
static void note_throughput_change(const struct update_plan *p)
{
    struct table *t = p->t;
    const struct throughput *cur = &t->def.throughput, *req = &p->u->throughput;

    if (t->def.billing != BILLING_PROVISIONED) return;
    if (req->read_units > cur->read_units || req->write_units > cur->write_units)
        t->throughput_last_increase_ms = p->now_ms;
    if (req->read_units < cur->read_units || req->write_units < cur->write_units) {
        t->throughput_last_decrease_ms = p->now_ms;
        t->throughput_decreases_today++;
    }
}

static void apply_billing(const struct update_plan *p)
{
    struct table *t = p->t;

    if (!p->switched_billing) return;
    t->def.billing = p->u->billing;
    if (p->u->billing == BILLING_PAY_PER_REQUEST) {
        t->billing_last_update_ms = p->now_ms;
        memset(&t->def.throughput, 0, sizeof t->def.throughput);
        /* On-demand GSIs report zero throughput too (ack-api-quirks DDB-TABLE-133). */
        for (size_t i = 0; i < t->def.gsi_count; i++)
            memset(&t->def.gsis[i].throughput, 0, sizeof t->def.gsis[i].throughput);
    } else {
        /* Maxima only apply on demand: a provisioned table describes none. */
        memset(&t->def.on_demand, 0, sizeof t->def.on_demand);
    }
}

/* A maximum sent: -1 clears it (ack-api-quirks DDB-TABLE-456); 0: not sent. */
static void set_maximum(int64_t *dst, int64_t sent)
{
    if (sent) *dst = sent < 0 ? 0 : sent;
}

static void set_if_sent(int64_t *dst, int64_t sent)
{
    if (sent) *dst = sent;
}

static void apply_table_settings(struct db *db, const struct update_plan *p)
{
    const struct table_update *u = p->u;
    struct table *t = p->t;

    if (u->has_throughput) t->def.throughput = u->throughput;
    if (u->has_stream) {
        t->def.stream = u->stream;
        if (db->delay_transient)
            t->stream_enabling_until_ms = p->now_ms + DDB_DELAY_STREAM_ENABLING_MS;
        if (u->stream.enabled) table_start_stream(t, p->now_ms);
        table_sync_stream(t, db->streams, p->scope->namespace_id, p->now_ms);
    }
    if (u->has_deletion_protection) t->def.deletion_protection = u->deletion_protection;
    if (u->has_disassociation_protection) {
        t->def.has_disassociation_protection = true;
        t->def.disassociation_protection = u->disassociation_protection;
    }
    if (u->replication_mode) {
        free(t->def.replication_mode);
        t->def.replication_mode = xstrdup(u->replication_mode);
    }
    set_maximum(&t->def.on_demand.max_read, u->on_demand.max_read);
    set_maximum(&t->def.on_demand.max_write, u->on_demand.max_write);
    set_if_sent(&t->def.warm.read_per_s, u->warm.read_per_s);
    set_if_sent(&t->def.warm.write_per_s, u->warm.write_per_s);
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
}

/* ------------------------------------------------------------------------ */
/* apply: the indexes                                                        */
/* ------------------------------------------------------------------------ */

/* The definition of t's GSI named name, to change; NULL when there is none. */
static struct index_def *gsi_def(struct table *t, const char *name)
{
    for (size_t i = 0; i < t->def.gsi_count; i++) {
        if (strcmp(t->def.gsis[i].name, name) == 0) return &t->def.gsis[i];
    }
    return NULL;
}

/* Applies the throughput Updates; old_throughput[i] gets what entry i's index
 * had, since the UpdateTable response still shows the old values. */
static void apply_gsi_throughput(const struct update_plan *p, struct throughput *old_throughput)
{
    for (size_t i = 0; i < p->u->gsi_update_count; i++) {
        const struct gsi_update *g = &p->u->gsi_updates[i];
        struct index_def *d;
        if (g->kind != GSI_UPDATE_UPDATE) continue;
        d = gsi_def(p->t, g->def.name); /* validated: it exists */
        old_throughput[i] = d->throughput;
        set_maximum(&d->on_demand.max_read, g->def.on_demand.max_read);
        set_maximum(&d->on_demand.max_write, g->def.on_demand.max_write);
        set_if_sent(&d->warm.read_per_s, g->def.warm.read_per_s);
        set_if_sent(&d->warm.write_per_s, g->def.warm.write_per_s);
        if (!p->on_demand && g->def.throughput.read_units) d->throughput = g->def.throughput;
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
        catalog_attr_def_type(u->attr_defs, u->attr_def_count, name, &type);
        table_define_attr(t, name, type);
    }
    index_def_copy(&copy, def);
    if (t->def.billing == BILLING_PAY_PER_REQUEST)
        memset(&copy.throughput, 0, sizeof copy.throughput);
    idx = table_add_gsi(t, &copy);
    index_begin_backfill(idx);
    return idx;
}

static void apply_gsi_creates(struct db *db, const struct update_plan *p,
                              struct update_applied *done)
{
    for (size_t i = 0; i < p->u->gsi_update_count; i++) {
        struct table_index *created;
        if (p->u->gsi_updates[i].kind != GSI_UPDATE_CREATE) continue;
        created = apply_gsi_create(p->t, p->u, &p->u->gsi_updates[i].def);
        if (db->delay_transient) {
            created->transient = INDEX_CREATING;
            created->transient_until_ms = p->now_ms + DDB_DELAY_INDEX_CREATING_MS;
        }
        free(done->backfill_table_id);
        done->backfill_table_id = xstrdup(p->t->table_id);
        done->backfill_index_id = created->id;
    }
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

/* Reported DELETING in this response, gone for every later call but
 * DescribeTable under --delay-transient-statuses. */
static void apply_gsi_deletes(struct db *db, const struct update_plan *p,
                              const struct table_desc *out)
{
    struct table *t = p->t;

    for (size_t i = 0; i < p->u->gsi_update_count; i++) {
        const char *name = p->u->gsi_updates[i].def.name;
        const struct index_def *def = table_def_find_index(&t->def, name);
        const struct index_desc *desc = gsi_desc((struct table_desc *) out, name, NULL);
        if (p->u->gsi_updates[i].kind != GSI_UPDATE_DELETE) continue;
        if (db->delay_transient && def && desc) {
            struct deleting_index *d;
            t->deleting_gsis =
                xrealloc(t->deleting_gsis, (t->deleting_gsi_count + 1) * sizeof *t->deleting_gsis);
            d = &t->deleting_gsis[t->deleting_gsi_count++];
            index_def_copy(&d->def, def);
            d->arn = xstrdup(desc->arn);
            d->until_ms = p->now_ms + DDB_DELAY_INDEX_DELETING_MS;
        }
        table_remove_gsi(t, name);
    }
}

/* ------------------------------------------------------------------------ */
/* apply: the answer and the statuses                                        */
/* ------------------------------------------------------------------------ */

/* Only index throughput changes: the table stays ACTIVE in the answer. */
static bool only_gsi_updates(const struct table_update *u)
{
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        if (u->gsi_updates[i].kind != GSI_UPDATE_UPDATE) return false;
    }
    return u->gsi_update_count > 0 && !u->has_billing && !u->has_throughput && !u->has_stream &&
           !u->has_sse && !u->has_table_class && !u->has_deletion_protection;
}

static void describe_update(const struct update_plan *p, const struct update_applied *done,
                            struct table_desc *out)
{
    const struct table_update *u = p->u;

    table_describe(p->t, out);
    /* AWS answers UpdateTable with the table UPDATING while the change applies,
     * except for index throughput alone (ack-api-quirks DDB-TABLE-165, -148). */
    out->status = only_gsi_updates(u) ? TABLE_ACTIVE : TABLE_UPDATING;
    /* ... and still shows the old table throughput (dynalite test/updateTable.js
     * "should triple rates and then reduce if requested", recorded). */
    if (u->has_throughput && !p->switched_billing) out->def.throughput = done->old_throughput;
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        const struct gsi_update *g = &u->gsi_updates[i];
        size_t pos = 0;
        struct index_desc *d = gsi_desc(out, g->def.name, &pos);
        if (!d) continue;
        if (g->kind == GSI_UPDATE_UPDATE) {
            /* The response echoes the old throughput with IndexStatus UPDATING. */
            d->status = INDEX_UPDATING;
            out->def.gsis[pos].throughput = done->old_gsi_throughput[i];
        } else if (g->kind == GSI_UPDATE_DELETE) {
            d->status = INDEX_DELETING;
        } else {
            /* Created: CREATING, Backfilling false while resources are allocated. */
            d->backfilling = false;
        }
    }
}

/* Under --delay-transient-statuses the table stays UPDATING, and the GSIs whose
 * throughput changed stay UPDATING, for a while (catalog.c). */
static void apply_transient(struct db *db, const struct update_plan *p,
                            const struct table_desc *out)
{
    struct table *t = p->t;

    if (!db->delay_transient) return;
    if (out->status == TABLE_UPDATING) {
        t->transient = TABLE_UPDATING;
        t->transient_until_ms = p->now_ms + DDB_DELAY_TABLE_UPDATING_MS;
    }
    for (size_t i = 0; i < p->u->gsi_update_count; i++) {
        struct table_index *idx = catalog_find_gsi(t, p->u->gsi_updates[i].def.name);
        if (p->u->gsi_updates[i].kind != GSI_UPDATE_UPDATE || !idx) continue;
        idx->transient = INDEX_UPDATING;
        idx->transient_until_ms = p->now_ms + DDB_DELAY_INDEX_UPDATING_MS;
    }
}

/* Changes the table as p says, describes it in *out; validated, so cannot fail. */
static void update_apply(struct db *db, const struct update_plan *p, struct update_applied *done,
                         struct table_desc *out)
{
    struct table *t = p->t;

    assert_lock_exclusive();
    catalog_purge_deleted(db, p->scope, p->now_ms);
    drop_deleted_gsis(t, p->now_ms);
    if (p->u->has_throughput) note_throughput_change(p);
    apply_billing(p);
    done->old_throughput = t->def.throughput;
    apply_table_settings(db, p);
    done->old_gsi_throughput =
        xcalloc(p->u->gsi_update_count ? p->u->gsi_update_count : 1, sizeof(struct throughput));
    apply_gsi_throughput(p, done->old_gsi_throughput);
    apply_gsi_creates(db, p, done);
    catalog_vector_apply(db, p);
    describe_update(p, done, out);
    apply_transient(db, p, out);
    apply_gsi_deletes(db, p, out);
    catalog_vector_answer(p, out);
    persist_table(t);
}

/* ------------------------------------------------------------------------ */
/* the backfill, after the critical section                                  */
/* ------------------------------------------------------------------------ */

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
        /* A table is never shared while it backfills (table_can_share). */
        assert(!idx || !t->shared);
        more = idx && index_backfill_step(idx, &t->items, BACKFILL_STEP_ROWS);
        db_unlock(db);
    }
}

int db_update_table(struct db *db, const struct db_scope *scope, const struct table_update *u,
                    struct table_desc *out, struct ddb_error *err)
{
    struct update_plan plan;
    struct update_applied done;
    int rc = -1;

    memset(&done, 0, sizeof done);
    db_write_lock(db);
    if (update_prepare(db, scope, u, &plan, err) != 0) goto out;
    if (catalog_update_validate(&plan, err) != 0) goto out;
    update_apply(db, &plan, &done, out);
    rc = 0;
out:
    db_unlock(db);
    if (done.backfill_table_id)
        run_backfill(db, scope, u->name, done.backfill_table_id, done.backfill_index_id);
    free(done.backfill_table_id);
    free(done.old_gsi_throughput);
    return rc;
}

void table_update_clear(struct table_update *u)
{
    free(u->name);
    free(u->table_class);
    free(u->replication_mode);
    free(u->sse.sse_type);
    free(u->sse.kms_master_key_id);
    for (size_t i = 0; i < u->attr_def_count; i++)
        free(u->attr_defs[i].name);
    free(u->attr_defs);
    for (size_t i = 0; i < u->gsi_update_count; i++)
        index_def_clear(&u->gsi_updates[i].def);
    free(u->gsi_updates);
    for (size_t i = 0; i < u->replica_update_count; i++)
        free(u->replica_updates[i].region);
    free(u->replica_updates);
    vector_index_def_clear(&u->vector);
    memset(u, 0, sizeof *u);
}
