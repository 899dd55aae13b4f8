/*
 * snapshots_load.c - the named snapshots stored under --db-path, back into
 * the engine at start (snapshots_internal.h; the writer is
 * snapshots_disk.c, the rows persist/snapshot_file.h).
 *
 * Each stored table is rebuilt from its record and items through the write
 * path (as db_persist.c loads a namespace file: indexes, the TTL index, item
 * collections and vector indexes come back from the items), given its
 * point-in-time history, and kept as a save keeps a live table
 * (snapshot_keep_table), so that a stored snapshot is the same in memory as
 * one just saved. Its streams are restored into a scratch registry and
 * copied from it as a save copies them; the live registry's sequence numbers
 * then continue after every number a stored snapshot holds, as they do
 * after an in-memory save.
 *
 * Runs at start (db_open.c) with the lock held exclusively.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/engine/snapshots_disk.h"
#include "storage/engine/snapshots_internal.h"
#include "storage/model/codec.h"
#include "storage/persist/snapshot_file.h"
#include "storage/stream/stream.h"

#include <stdlib.h>
#include <string.h>

/* One namespace of a snapshot being read back: its tables, by position. */
struct loading_ns {
    struct table **tables;
    size_t table_count;
};

/* One snapshot being read back. */
struct loading {
    struct db *db;
    struct snapshot *s;
    struct loading_ns *ns; /* one per s->namespaces */
    struct stream_registry *streams;
};

/* An item's encoding as a new item; NULL when it is not one. */
static struct item *decode_item(const void *data, size_t len)
{
    struct codec_in in;
    struct value attrs;

    codec_in_init(&in, data, len);
    if (!codec_get_value(&in, &attrs) || attrs.type != VALUE_M || !codec_at_end(&in)) {
        value_clear(&attrs);
        return NULL;
    }
    return item_new(&attrs);
}

static struct table *loaded_table(struct loading *l, uint32_t ns, uint32_t pos)
{
    if (ns >= l->s->namespace_count || pos >= l->ns[ns].table_count) return NULL;
    return l->ns[ns].tables[pos];
}

static bool load_table(void *ctx, uint32_t ns, uint32_t pos, const void *state, size_t len)
{
    struct loading *l = ctx;
    struct loading_ns *ln;
    struct table *t;

    /* Rows come in (ns, pos) order and number the tables 0, 1, ... */
    if (ns >= l->s->namespace_count || pos != l->ns[ns].table_count) return false;
    t = table_record_decode(state, len);
    if (!t) return false;
    ln = &l->ns[ns];
    ln->tables = xrealloc(ln->tables, sizeof *ln->tables * (ln->table_count + 1));
    ln->tables[ln->table_count++] = t;
    return true;
}

static bool load_item(void *ctx, uint32_t ns, uint32_t pos, const void *data, size_t len)
{
    struct loading *l = ctx;
    struct table *t = loaded_table(l, ns, pos);
    struct ddb_error err = {0};
    struct row_key key;
    struct item *item;
    /* Neither a stream nor the journal is attached: nothing is recorded. */
    const struct commit_info info = {.now_ms = 0, .origin = STREAM_ORIGIN_USER, .rebuilding = true};

    if (!t || !(item = decode_item(data, len))) return false;
    /* One item of a whole database loaded: its tree is forgotten at once. */
    struct decode_mark mark = item_scratch_mark();
    int rc = table_check_stored_item(t, item_attrs(item), &err);
    item_scratch_release(mark);
    if (rc != 0) {
        ddb_error_clear(&err);
        item_unref(item);
        return false;
    }
    table_item_key(t, item, &key);
    table_commit_write(t, &key, item, &info); /* takes the reference */
    return true;
}

static bool load_history(void *ctx, uint32_t ns, uint32_t pos, uint64_t seq, int64_t ms,
                         const void *old_data, size_t old_len, const void *new_data, size_t new_len)
{
    struct loading *l = ctx;
    struct table *t = loaded_table(l, ns, pos);
    struct item *old_item = NULL, *new_item = NULL;

    if (!t || (!old_data && !new_data)) return false;
    if (old_data && !(old_item = decode_item(old_data, old_len))) return false;
    if (new_data && !(new_item = decode_item(new_data, new_len))) {
        item_unref(old_item);
        return false;
    }
    history_restore(&t->history, seq, ms, old_item, new_item);
    return true;
}

static bool load_stream(void *ctx, uint32_t ns, const char *arn, const void *state, size_t len)
{
    struct loading *l = ctx;

    (void) arn;
    return ns < l->s->namespace_count &&
           stream_restore(l->streams, l->s->namespaces[ns].id, NULL, state, len);
}

static bool load_record(void *ctx, uint32_t ns, const char *arn, uint64_t seq, const void *record,
                        size_t len)
{
    struct loading *l = ctx;

    return ns < l->s->namespace_count &&
           stream_restore_record(l->streams, l->s->namespaces[ns].id, arn, seq, record, len);
}

/* Reads a snapshot's row into a new snapshot without tables; NULL when damaged. */
static struct snapshot *decode_snapshot(const char *name, const void *state, size_t len)
{
    struct snapshot *s = xcalloc(1, sizeof *s);
    struct codec_in in, f;
    uint64_t tag;

    s->name = xstrdup(name);
    codec_in_init(&in, state, len);
    while (codec_next_field(&in, &tag, &f)) {
        switch ((enum snapshot_tag) tag) {
        case SNAP_ALL: s->all = codec_get_bool(&f); break;
        case SNAP_CREATED: s->created_ms = codec_get_ivar(&f); break;
        case SNAP_NAMESPACE: {
            char *id = codec_get_str(&f);
            if (!id) {
                f.bad = true;
                break;
            }
            s->namespaces =
                xrealloc(s->namespaces, sizeof *s->namespaces * (s->namespace_count + 1));
            memset(&s->namespaces[s->namespace_count], 0, sizeof *s->namespaces);
            s->namespaces[s->namespace_count++].id = id;
            break;
        }
        default: break; /* written by a newer ddbemu */
        }
        if (f.bad) in.bad = true;
    }
    /* A snapshot of one namespace names exactly one. */
    if (!codec_ok(&in) || (!s->all && s->namespace_count != 1)) {
        snapshot_free(s);
        return NULL;
    }
    return s;
}

/* Keeps the loaded tables and streams in s, as a save keeps live ones. */
static void keep_loaded(struct loading *l, int64_t now_ms)
{
    assert_lock_exclusive();
    struct snapshot *s = l->s;

    stream_registry_restored(l->streams);
    stream_registry_follow(l->db->streams, l->streams);
    for (size_t i = 0; i < s->namespace_count; i++) {
        struct snap_namespace *sn = &s->namespaces[i];
        struct loading_ns *ln = &l->ns[i];
        sn->tables = xcalloc(ln->table_count ? ln->table_count : 1, sizeof *sn->tables);
        for (size_t k = 0; k < ln->table_count; k++) {
            snapshot_keep_table(ln->tables[k], &sn->tables[sn->table_count++]);
            table_free(ln->tables[k], now_ms);
        }
        free(ln->tables);
        ln->tables = NULL;
        ln->table_count = 0;
        sn->stream_count = stream_snapshot_namespace(l->streams, sn->id, &sn->streams);
    }
}

/* The snapshots' rows, listed before any is loaded (the listing holds
 * ddbemu.db's statement and mutex while it runs). */
struct stored {
    int64_t snap;
    char *name;
    struct text_buf state;
};

struct listing {
    struct stored *rows;
    size_t count;
};

static bool list_snapshot(void *ctx, int64_t snap, const char *name, const void *state, size_t len)
{
    struct listing *li = ctx;
    struct stored *r;

    li->rows = xrealloc(li->rows, sizeof *li->rows * (li->count + 1));
    r = &li->rows[li->count++];
    memset(r, 0, sizeof *r);
    r->snap = snap;
    r->name = xstrdup(name);
    text_buf_add(&r->state, (const char *) state, len);
    return true;
}

/* Loads one stored snapshot into db->snapshots; 0, or -1 with *why set. */
static int load_snapshot(struct db *db, const struct stored *row, char **why)
{
    assert_lock_exclusive();
    struct loading l = {.db = db};
    struct journal *j = db->journal;
    int64_t now_ms = db_now_ms(db);
    int rc = -1;

    l.s = decode_snapshot(row->name, row->state.data, row->state.len);
    if (!l.s) {
        struct text_buf b = {0};
        text_buf_printf(&b, "ddbemu.db: snapshot %s: its record cannot be read in", row->name);
        *why = text_buf_take(&b, NULL);
        return -1;
    }
    l.ns = xcalloc(l.s->namespace_count + 1, sizeof *l.ns);
    l.streams = stream_registry_new();
    if (snapshot_file_load_tables(j, row->snap, load_table, &l, why) != 0 ||
        snapshot_file_load_items(j, row->snap, load_item, &l, why) != 0 ||
        snapshot_file_load_history(j, row->snap, load_history, &l, why) != 0 ||
        snapshot_file_load_streams(j, row->snap, load_stream, &l, why) != 0 ||
        snapshot_file_load_records(j, row->snap, load_record, &l, why) != 0) {
        for (size_t i = 0; i < l.s->namespace_count; i++) {
            for (size_t k = 0; k < l.ns[i].table_count; k++)
                table_free(l.ns[i].tables[k], now_ms);
            free(l.ns[i].tables);
        }
        snapshot_free(l.s);
    } else {
        struct snapshot_store *st;
        keep_loaded(&l, now_ms);
        if (!db->snapshots) db->snapshots = xcalloc(1, sizeof *db->snapshots);
        st = db->snapshots;
        st->snapshots = xrealloc(st->snapshots, sizeof *st->snapshots * (st->count + 1));
        st->snapshots[st->count++] = l.s;
        rc = 0;
    }
    stream_registry_free(l.streams);
    free(l.ns);
    return rc;
}

int snapshots_load(struct db *db, char **why)
{
    assert_lock_exclusive();
    struct listing li = {0};
    int rc = 0;

    if (!db->journal) return 0;
    rc = snapshot_file_list(db->journal, list_snapshot, &li, why);
    for (size_t i = 0; i < li.count; i++) {
        if (rc == 0) rc = load_snapshot(db, &li.rows[i], why);
        free(li.rows[i].name);
        text_buf_clear(&li.rows[i].state);
    }
    free(li.rows);
    return rc;
}
