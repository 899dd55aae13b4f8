/*
 * snapshots.c - named snapshots of namespaces, restore and fork (db_snapshots.h).
 *
 * Saving copies no item and no structure: a table is kept as its record
 * (table_record_encode, the bytes --db-path writes for it), a share of its
 * built rows (table_share.h: the skiplist, key index, GSIs, LSIs, TTL index
 * and item collection totals, which the live table goes on reading and
 * copies before its next change), its point-in-time history as references,
 * and its namespace's streams as copies whose records share their images
 * (stream_copy.c). Restoring decodes each table's record and makes it read
 * the same share (table_adopt_share): no row is copied until the table is
 * first written. A table whose rows cannot be shared (an index being
 * backfilled, a vector index) is kept as references to its items in key
 * order and rebuilt through the write path's bulk form (table_commit_sorted),
 * marked `rebuilding` (no stream record, no history entry: the table is
 * being put back, not changed). Then the streams are put back and the tables
 * reattached to their open ones. With --db-path the restored tables, items
 * and streams are recorded as any new ones are.
 *
 * Locking: every entry point takes the engine lock exclusively; the helpers
 * below assert it.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_snapshots.h"
#include "storage/engine/snapshots_disk.h"
#include "storage/engine/snapshots_internal.h"
#include "storage/jobs/snapshot_record.h"
#include "storage/model/codec.h"
#include "storage/stream/stream.h"

#include <stdlib.h>
#include <string.h>

void snapshot_info_clear(struct snapshot_info *i)
{
    free(i->name);
    free(i->namespace_id);
    memset(i, 0, sizeof *i);
}

static struct item *ref_or_null(struct item *item)
{
    return item ? item_ref(item) : NULL;
}

/* A reference to each of t's items, in key order (what a snapshot and its
 * disk job keep when they do not share t's rows); the lock is held
 * exclusively. */
static struct item **item_refs(const struct table *t, size_t *count)
{
    assert_lock_exclusive();
    struct item **items = xmalloc(sizeof *items * (t->items.count ? t->items.count : 1));
    size_t n = 0;

    for (struct skiplist_node *node = skiplist_first(&t->items); node; node = skiplist_next(node))
        items[n++] = item_ref(node->item);
    *count = n;
    return items;
}

/* h's entries, oldest first, with references to their images; the lock is
 * held exclusively. */
static struct history_entry *history_refs(const struct history *h, size_t *count)
{
    assert_lock_exclusive();
    size_t n = history_count(h);
    struct history_entry *entries = xmalloc(sizeof *entries * (n ? n : 1));

    for (size_t i = 0; i < n; i++) {
        entries[i] = h->entries[h->start + i];
        entries[i].old_item = ref_or_null(entries[i].old_item);
        entries[i].new_item = ref_or_null(entries[i].new_item);
    }
    *count = n;
    return entries;
}

/* The table as it is now (the lock is held exclusively: t starts sharing). */
static void save_table(struct table *t, struct snap_table *st)
{
    assert_lock_exclusive();
    memset(st, 0, sizeof *st);
    table_record_encode(t, &st->record);
    if (table_can_share(t)) {
        st->share = table_share(t);
        st->item_count = table_share_item_count(st->share);
    } else {
        st->items = item_refs(t, &st->item_count);
        table_row_orders(t, &st->orders, &st->order_count);
    }
    st->history = history_refs(&t->history, &st->history_count);
}

static void save_namespace(struct db *db, const struct namespace *ns, struct snap_namespace *sn)
{
    assert_lock_exclusive();
    memset(sn, 0, sizeof *sn);
    sn->id = xstrdup(ns->id);
    sn->tables = xcalloc(ns->table_count ? ns->table_count : 1, sizeof *sn->tables);
    for (size_t i = 0; i < ns->table_count; i++)
        if (!table_is_deleting(ns->tables[i]))
            save_table(ns->tables[i], &sn->tables[sn->table_count++]);
    sn->stream_count = stream_snapshot_namespace(db->streams, ns->id, &sn->streams);
}

static struct snapshot *take_snapshot(struct db *db, const char *name, const char *namespace_id)
{
    assert_lock_exclusive();
    struct snapshot *s = xcalloc(1, sizeof *s);

    s->name = xstrdup(name ? name : "");
    s->all = namespace_id == NULL;
    s->created_ms = db_now_ms(db);
    s->namespaces = xcalloc(db->namespace_count ? db->namespace_count : 1, sizeof *s->namespaces);
    for (size_t i = 0; i < db->namespace_count; i++) {
        const struct namespace *ns = &db->namespaces[i];
        if (namespace_id && strcmp(ns->id, namespace_id) != 0) continue;
        save_namespace(db, ns, &s->namespaces[s->namespace_count++]);
    }
    if (namespace_id && !s->namespace_count) {
        /* A namespace never used: a snapshot of no tables, which a restore empties to. */
        s->namespaces[0].id = xstrdup(namespace_id);
        s->namespace_count = 1;
    }
    return s;
}

static void describe(const struct snapshot *s, struct snapshot_info *out)
{
    memset(out, 0, sizeof *out);
    out->name = xstrdup(s->name);
    out->namespace_id = s->all ? NULL : xstrdup(s->namespaces[0].id);
    out->created_ms = s->created_ms;
    for (size_t i = 0; i < s->namespace_count; i++) {
        const struct snap_namespace *sn = &s->namespaces[i];
        out->table_count += sn->table_count;
        for (size_t k = 0; k < sn->table_count; k++)
            out->item_count += sn->tables[k].item_count;
        for (size_t k = 0; k < sn->stream_count; k++)
            out->stream_record_count += stream_copy_record_count(sn->streams[k]);
    }
}

/* Whether a described snapshot is in ddbemu.db yet (--db-path). */
static void describe_disk(struct db *db, struct snapshot_info *out)
{
    out->kept_on_disk = db->snapshot_disk != NULL;
    out->on_disk = out->kept_on_disk && !snapshot_disk_pending(db->snapshot_disk, out->name);
}

/* --db-path: table t as the snapshot writer stores it (the same record,
 * items and history save_table keeps). The lock is held exclusively. */
static void job_table_take(const struct table *t, struct snapshot_job_table *jt)
{
    assert_lock_exclusive();
    table_record_encode(t, &jt->record);
    jt->items = item_refs(t, &jt->item_count);
    jt->history = history_refs(&t->history, &jt->history_count);
}

/* The namespace id (ns: its tables, NULL: none) as save_namespace keeps it. */
static void job_namespace_take(struct db *db, const struct namespace *ns, const char *id,
                               struct snapshot_job_namespace *jn)
{
    assert_lock_exclusive();
    memset(jn, 0, sizeof *jn);
    jn->id = xstrdup(id);
    for (size_t i = 0; ns && i < ns->table_count; i++)
        if (!table_is_deleting(ns->tables[i]))
            job_table_take(ns->tables[i], snapshot_job_add_table(jn));
    jn->stream_count = stream_snapshot_namespace(db->streams, id, &jn->streams);
    jn->stream_arns = xcalloc(jn->stream_count + 1, sizeof *jn->stream_arns);
    for (size_t i = 0; i < jn->stream_count; i++)
        jn->stream_arns[i] = xstrdup(stream_copy_arn(jn->streams[i]));
}

/* --db-path: queues the write of the snapshot just taken, from the same
 * live tables and streams, in the same lock hold (a no-op in memory). */
static void queue_save(struct db *db, const struct snapshot *s, const char *namespace_id)
{
    assert_lock_exclusive();
    struct snapshot_job *job;

    if (!db->snapshot_disk) return;
    job = xcalloc(1, sizeof *job);
    job->name = xstrdup(s->name);
    job->namespaces = xcalloc(db->namespace_count + 1, sizeof *job->namespaces);
    for (size_t i = 0; i < db->namespace_count; i++) {
        const struct namespace *ns = &db->namespaces[i];
        if (namespace_id && strcmp(ns->id, namespace_id) != 0) continue;
        job_namespace_take(db, ns, ns->id, &job->namespaces[job->namespace_count++]);
    }
    if (namespace_id && !job->namespace_count)
        job_namespace_take(db, NULL, namespace_id, &job->namespaces[job->namespace_count++]);
    codec_put_bool_field(&job->state, SNAP_ALL, s->all);
    codec_put_ivar_field(&job->state, SNAP_CREATED, s->created_ms);
    for (size_t i = 0; i < job->namespace_count; i++)
        codec_put_str_field(&job->state, SNAP_NAMESPACE, job->namespaces[i].id);
    snapshot_disk_queue(db->snapshot_disk, job);
}

static void queue_delete(struct db *db, const char *name)
{
    assert_lock_exclusive();
    struct snapshot_job *job;

    if (!db->snapshot_disk) return;
    job = xcalloc(1, sizeof *job);
    job->delete = true;
    job->name = xstrdup(name);
    snapshot_disk_queue(db->snapshot_disk, job);
}

static struct snapshot_store *store(struct db *db)
{
    assert_lock_exclusive();
    if (!db->snapshots) db->snapshots = xcalloc(1, sizeof *db->snapshots);
    return db->snapshots;
}

static struct snapshot *find_snapshot(struct db *db, const char *name, size_t *pos)
{
    struct snapshot_store *st = store(db);

    for (size_t i = 0; i < st->count; i++)
        if (strcmp(st->snapshots[i]->name, name) == 0) {
            if (pos) *pos = i;
            return st->snapshots[i];
        }
    return NULL;
}

static int not_found(struct ddb_error *err, const char *name)
{
    return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND, "Snapshot not found: %s", name);
}

int db_snapshot_save(struct db *db, const char *name, const char *namespace_id,
                     struct snapshot_info *out, struct ddb_error *err)
{
    struct snapshot_store *st;
    struct snapshot *s;
    int rc = -1;

    memset(out, 0, sizeof *out);
    if (!name || !name[0])
        return ddb_error_set(err, DDB_VALIDATION, "A snapshot needs a non-empty name");
    db_write_lock(db);
    st = store(db);
    if (find_snapshot(db, name, NULL)) {
        ddb_error_set(err, DDB_RESOURCE_IN_USE, "Snapshot already exists: %s", name);
        goto out;
    }
    s = take_snapshot(db, name, namespace_id);
    st->snapshots = xrealloc(st->snapshots, sizeof *st->snapshots * (st->count + 1));
    st->snapshots[st->count++] = s;
    queue_save(db, s, namespace_id);
    describe(s, out);
    describe_disk(db, out);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

void db_snapshots_sync(struct db *db)
{
    /* Set before serving, cleared when the engine stops: read without the lock. */
    if (db->snapshot_disk) snapshot_disk_sync(db->snapshot_disk);
}

void db_snapshot_list(struct db *db, struct snapshot_info **out, size_t *count)
{
    struct snapshot_store *st;

    db_write_lock(db);
    st = store(db);
    *out = xcalloc(st->count ? st->count : 1, sizeof **out);
    for (size_t i = 0; i < st->count; i++) {
        describe(st->snapshots[i], &(*out)[i]);
        describe_disk(db, &(*out)[i]);
    }
    *count = st->count;
    db_unlock(db);
}

int db_snapshot_delete(struct db *db, const char *name, struct ddb_error *err)
{
    struct snapshot_store *st;
    size_t pos;
    int rc = -1;

    db_write_lock(db);
    st = store(db);
    if (!find_snapshot(db, name, &pos)) {
        not_found(err, name);
        goto out;
    }
    queue_delete(db, name);
    snapshot_free(st->snapshots[pos]);
    memmove(&st->snapshots[pos], &st->snapshots[pos + 1],
            sizeof *st->snapshots * (st->count - pos - 1));
    st->count--;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

/* Capacity state taken from a live table before it is freed, given to the
 * restored table of its name (keep_capacity). */
struct kept_capacity {
    char *name;
    struct insight_table *insight;
    struct throttle_source throttle;
};

/* Removes every table and stream of namespace_id, recording the removals;
 * with keep, hands back each table's capacity state (*kept, owned). */
static void empty_namespace(struct db *db, const char *namespace_id, bool keep,
                            struct kept_capacity **kept, size_t *kept_count)
{
    assert_lock_exclusive();
    struct db_scope scope = {.namespace_id = namespace_id, .region = ""};
    struct namespace *ns = db_find_namespace(db, &scope);
    int64_t now_ms = db_now_ms(db);

    *kept = NULL;
    *kept_count = 0;
    if (ns) {
        for (size_t i = 0; i < ns->table_count; i++) {
            struct table *t = ns->tables[i];
            if (keep && !table_is_deleting(t)) {
                struct kept_capacity *k;
                *kept = xrealloc(*kept, sizeof **kept * (*kept_count + 1));
                k = &(*kept)[(*kept_count)++];
                k->name = xstrdup(t->def.name);
                k->insight = t->insight;
                k->throttle = t->throttle.table;
                t->insight = insight_new(now_ms); /* freed with t */
            }
            persist_table_removed(t);
            table_free(t, now_ms);
        }
        ns->table_count = 0;
    }
    stream_registry_drop_namespace(db->streams, namespace_id);
}

/* Builds one table of sn into namespace_id; NULL when its record does not decode. */
static struct table *restore_table(struct db *db, const char *namespace_id,
                                   const struct snap_table *st)
{
    assert_lock_exclusive();
    struct db_scope scope = {.namespace_id = namespace_id, .region = ""};
    struct table *t = table_record_decode(st->record.data, st->record.len);
    const struct commit_info info = {
        .now_ms = db_now_ms(db), .origin = STREAM_ORIGIN_USER, .rebuilding = true};

    if (!t) return NULL;
    persist_attach_table(db, namespace_id, t);
    persist_table(t);
    db_namespace_insert(db_namespace_for_write(db, &scope), t);
    /* The same record makes the same indexes, in the same order. */
    if (st->share) {
        table_adopt_share(t, st->share);
        if (t->journal)
            for (struct skiplist_node *n = skiplist_first(&t->items); n; n = skiplist_next(n)) {
                struct row_key key;
                skiplist_node_key(n, &key);
                journal_put_item(t->journal, t->uid, &key, n->item);
            }
    } else {
        table_commit_sorted(t, st->items, st->item_count,
                            st->order_count == t->index_count + 1 ? st->orders : NULL, &info);
    }
    for (size_t i = 0; i < st->history_count; i++) {
        const struct history_entry *e = &st->history[i];
        history_restore(&t->history, e->seq, e->ms, ref_or_null(e->old_item),
                        ref_or_null(e->new_item));
        if (t->journal)
            journal_put_history(t->journal, t->uid, e->seq, e->ms, e->old_item, e->new_item);
    }
    return t;
}

/* Replaces namespace_id's tables and streams with sn's; returns the tables made. */
static size_t restore_namespace(struct db *db, const struct snap_namespace *sn,
                                const char *namespace_id, bool keep_capacity)
{
    assert_lock_exclusive();
    struct db_scope scope = {.namespace_id = namespace_id, .region = ""};
    struct journal_file *journal = db->journal ? journal_file_for(db->journal, namespace_id) : NULL;
    struct kept_capacity *kept;
    size_t kept_count, made = 0;

    empty_namespace(db, namespace_id, keep_capacity, &kept, &kept_count);
    for (size_t i = 0; i < sn->table_count; i++)
        if (restore_table(db, namespace_id, &sn->tables[i])) made++;
    for (size_t i = 0; i < sn->stream_count; i++) {
        struct stream *s = stream_adopt(db->streams, namespace_id, journal, sn->streams[i]);
        struct table *t = db_find_table(db, &scope, stream_copy_table_name(sn->streams[i]));
        /* The table writes to its stream again when this is its open one. */
        if (t && stream_is_enabled(s) && t->latest_stream_arn &&
            strcmp(t->latest_stream_arn, stream_arn(s)) == 0)
            t->stream = s;
    }
    for (size_t i = 0; i < kept_count; i++) {
        struct table *t = db_find_table(db, &scope, kept[i].name);
        if (t) {
            insight_unref(t->insight);
            t->insight = kept[i].insight;
            t->throttle.table = kept[i].throttle;
        } else {
            insight_unref(kept[i].insight);
        }
        free(kept[i].name);
    }
    free(kept);
    return made;
}

int db_snapshot_restore(struct db *db, const char *name, bool keep_capacity, size_t *tables,
                        struct ddb_error *err)
{
    struct snapshot *s;
    int rc = -1;

    *tables = 0;
    db_write_lock(db);
    s = find_snapshot(db, name, NULL);
    if (!s) {
        not_found(err, name);
        goto out;
    }
    if (s->all) {
        /* Namespaces made since lose their tables: the world is put back as it was. */
        for (size_t i = 0; i < db->namespace_count; i++) {
            char *id = xstrdup(db->namespaces[i].id);
            bool held = false;
            for (size_t k = 0; k < s->namespace_count && !held; k++)
                held = strcmp(s->namespaces[k].id, id) == 0;
            if (!held) {
                struct kept_capacity *kept;
                size_t kept_count;
                empty_namespace(db, id, false, &kept, &kept_count);
            }
            free(id);
        }
    }
    for (size_t i = 0; i < s->namespace_count; i++)
        *tables += restore_namespace(db, &s->namespaces[i], s->namespaces[i].id, keep_capacity);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_snapshot_fork(struct db *db, const char *name, const char *from_namespace,
                     const char *to_namespace, bool replace, size_t *tables, struct ddb_error *err)
{
    struct db_scope to = {.namespace_id = to_namespace, .region = ""};
    struct snapshot *s, *live = NULL;
    struct namespace *ns;
    int rc = -1;

    *tables = 0;
    db_write_lock(db);
    if (name) {
        s = find_snapshot(db, name, NULL);
        if (!s) {
            not_found(err, name);
            goto out;
        }
        if (s->all) {
            ddb_error_set(err, DDB_VALIDATION,
                          "Snapshot %s holds every namespace: fork a snapshot of one", name);
            goto out;
        }
    } else {
        s = live = take_snapshot(db, NULL, from_namespace);
    }
    if (strcmp(s->namespaces[0].id, to_namespace) == 0) {
        ddb_error_set(err, DDB_VALIDATION, "A fork needs a namespace other than its source");
        goto out;
    }
    ns = db_find_namespace(db, &to);
    if (ns && ns->table_count && !replace) {
        ddb_error_set(err, DDB_RESOURCE_IN_USE,
                      "The fork's namespace has tables: delete them, or ask to replace them");
        goto out;
    }
    *tables = restore_namespace(db, &s->namespaces[0], to_namespace, false);
    rc = 0;
out:
    snapshot_free(live);
    db_unlock(db);
    return rc;
}

void snapshot_keep_table(struct table *t, struct snap_table *st)
{
    assert_lock_exclusive();
    save_table(t, st);
}
