/*
 * snapshots_disk.c - named snapshots under --db-path: the queue of their
 * disk writes, the writer thread that does them, and the load at start
 * (snapshots_disk.h).
 *
 * Saving stays an in-memory operation: under the engine lock, a save job
 * takes references to what the snapshot holds - each table's record (the
 * bytes the namespace files keep), its items in key order and its
 * point-in-time history (items are immutable and reference-counted, so
 * these are references), and copies of the namespace's streams (records
 * share their images) - and is queued. The writer thread encodes and writes
 * each job outside the engine lock (persist/snapshot_file.h: one SQLite
 * transaction on ddbemu.db), then lets go of it, taking the lock only to
 * free the stream copies. Jobs run in queue order, so deletions and saves
 * of one name reach the disk in the order they were made.
 *
 * Loading rebuilds each stored table from its record and items through the
 * write path (as db_persist.c loads a namespace file: indexes, TTL index,
 * item collections and vector indexes come back from the items), gives it
 * its history, and keeps it as a save would (snapshot_keep_table); the
 * streams are restored into a scratch registry and copied as a save copies
 * them. The live registry's sequence numbers then continue after every
 * number a stored snapshot holds, as they do after an in-memory save.
 *
 * Locking: the queue has its own mutex (struct snapshot_disk), never held
 * while the engine lock is taken; callers say which engine lock they hold.
 */
#include "storage/engine/snapshots_disk.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"
#include "storage/persist/snapshot_file.h"
#include "storage/stream/stream.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The fields of a snapshot's row in ddbemu.db (codec.h: new fields take new tags). */
enum snapshot_tag {
    SNAP_ALL = 1,       /* of every namespace */
    SNAP_CREATED = 2,   /* engine clock */
    SNAP_NAMESPACE = 3, /* repeated, in the snapshot's order: the ns of its rows */
};

struct job_table {
    struct text_buf record;
    struct item **items; /* references, key order */
    size_t item_count;
    struct history_entry *history; /* references */
    size_t history_count;
};

struct job_namespace {
    char *id;
    struct job_table *tables;
    size_t table_count;
    struct stream **streams; /* copies */
    char **stream_arns;      /* theirs, read under the lock */
    size_t stream_count;
};

struct job {
    struct job *next;
    bool delete;
    char *name;
    struct text_buf state; /* the snapshot's row (save) */
    struct job_namespace *namespaces;
    size_t namespace_count;
    uint64_t ticket; /* its place in the queue: 1, 2, ... */
};

struct snapshot_disk {
    pthread_mutex_t mutex;
    pthread_cond_t work; /* a job is queued, or stop */
    pthread_cond_t done; /* a job is written */
    struct job *head, *tail;
    uint64_t queued;  /* tickets handed out */
    uint64_t written; /* every job up to this ticket is on disk */
    bool stop;
    pthread_t thread;
};

/* ------------------------------------------------------------------------ */
/* jobs                                                                      */
/* ------------------------------------------------------------------------ */

static struct item *ref_or_null(struct item *item)
{
    return item ? item_ref(item) : NULL;
}

/* Table t as a save keeps it; the caller holds the lock exclusively. */
static void job_table_take(const struct table *t, struct job_table *jt)
{
    assert_lock_exclusive();
    const struct history *h = &t->history;
    size_t n = 0;

    memset(jt, 0, sizeof *jt);
    table_record_encode(t, &jt->record);
    jt->items = xmalloc(sizeof *jt->items * (t->items.count ? t->items.count : 1));
    for (struct skiplist_node *node = skiplist_first(&t->items); node; node = skiplist_next(node))
        jt->items[n++] = item_ref(node->item);
    jt->item_count = n;
    jt->history_count = history_count(h);
    jt->history = xmalloc(sizeof *jt->history * (jt->history_count ? jt->history_count : 1));
    for (size_t i = 0; i < jt->history_count; i++) {
        jt->history[i] = h->entries[h->start + i];
        jt->history[i].old_item = ref_or_null(jt->history[i].old_item);
        jt->history[i].new_item = ref_or_null(jt->history[i].new_item);
    }
}

static void job_namespace_take(struct db *db, const struct namespace *ns, const char *id,
                               struct job_namespace *jn)
{
    assert_lock_exclusive();
    memset(jn, 0, sizeof *jn);
    jn->id = xstrdup(id);
    if (ns) {
        jn->tables = xcalloc(ns->table_count ? ns->table_count : 1, sizeof *jn->tables);
        for (size_t i = 0; i < ns->table_count; i++)
            if (!table_is_deleting(ns->tables[i]))
                job_table_take(ns->tables[i], &jn->tables[jn->table_count++]);
    }
    jn->stream_count = stream_snapshot_namespace(db->streams, id, &jn->streams);
    jn->stream_arns = xcalloc(jn->stream_count + 1, sizeof *jn->stream_arns);
    for (size_t i = 0; i < jn->stream_count; i++)
        jn->stream_arns[i] = xstrdup(stream_copy_arn(jn->streams[i]));
}

/* Frees a job. Its stream copies need the lock; the item references do not
 * (item_unref is atomic), so they go first, outside it. Called without the
 * engine lock (on the writer thread) unless locked. */
static void job_free(struct db *db, struct job *job, bool locked)
{
    bool streams = false;

    for (size_t i = 0; i < job->namespace_count; i++) {
        struct job_namespace *jn = &job->namespaces[i];
        for (size_t k = 0; k < jn->table_count; k++) {
            struct job_table *jt = &jn->tables[k];
            text_buf_clear(&jt->record);
            for (size_t n = 0; n < jt->item_count; n++)
                item_unref(jt->items[n]);
            free(jt->items);
            for (size_t n = 0; n < jt->history_count; n++) {
                item_unref(jt->history[n].old_item);
                item_unref(jt->history[n].new_item);
            }
            free(jt->history);
        }
        free(jn->tables);
        streams = streams || jn->stream_count;
    }
    if (streams) {
        if (!locked) db_write_lock(db);
        for (size_t i = 0; i < job->namespace_count; i++) {
            struct job_namespace *jn = &job->namespaces[i];
            for (size_t k = 0; k < jn->stream_count; k++)
                stream_snapshot_free(jn->streams[k]);
        }
        if (!locked) db_unlock(db);
    }
    for (size_t i = 0; i < job->namespace_count; i++) {
        struct job_namespace *jn = &job->namespaces[i];
        for (size_t k = 0; k < jn->stream_count; k++)
            free(jn->stream_arns[k]);
        free(jn->stream_arns);
        free(jn->streams);
        free(jn->id);
    }
    free(job->namespaces);
    text_buf_clear(&job->state);
    free(job->name);
    free(job);
}

/* Appends job to the queue and wakes the writer. */
static void enqueue(struct snapshot_disk *sd, struct job *job)
{
    pthread_mutex_lock(&sd->mutex);
    job->ticket = ++sd->queued;
    if (sd->tail)
        sd->tail->next = job;
    else
        sd->head = job;
    sd->tail = job;
    pthread_cond_signal(&sd->work);
    pthread_mutex_unlock(&sd->mutex);
}

void snapshot_disk_save(struct db *db, const char *name, const char *namespace_id,
                        int64_t created_ms)
{
    assert_lock_exclusive();
    struct job *job;

    if (!db->snapshot_disk) return;
    job = xcalloc(1, sizeof *job);
    job->name = xstrdup(name);
    /* The namespaces as take_snapshot (snapshots.c) walks them. */
    job->namespaces = xcalloc(db->namespace_count + 1, sizeof *job->namespaces);
    for (size_t i = 0; i < db->namespace_count; i++) {
        const struct namespace *ns = &db->namespaces[i];
        if (namespace_id && strcmp(ns->id, namespace_id) != 0) continue;
        job_namespace_take(db, ns, ns->id, &job->namespaces[job->namespace_count++]);
    }
    if (namespace_id && !job->namespace_count)
        job_namespace_take(db, NULL, namespace_id, &job->namespaces[job->namespace_count++]);
    codec_put_bool_field(&job->state, SNAP_ALL, namespace_id == NULL);
    codec_put_ivar_field(&job->state, SNAP_CREATED, created_ms);
    for (size_t i = 0; i < job->namespace_count; i++)
        codec_put_str_field(&job->state, SNAP_NAMESPACE, job->namespaces[i].id);
    enqueue(db->snapshot_disk, job);
}

void snapshot_disk_delete(struct db *db, const char *name)
{
    assert_lock_exclusive();
    struct job *job;

    if (!db->snapshot_disk) return;
    job = xcalloc(1, sizeof *job);
    job->delete = true;
    job->name = xstrdup(name);
    enqueue(db->snapshot_disk, job);
}

bool snapshot_disk_pending(struct db *db, const char *name)
{
    struct snapshot_disk *sd = db->snapshot_disk;
    bool pending = false;

    if (!sd) return false;
    pthread_mutex_lock(&sd->mutex);
    for (const struct job *job = sd->head; job; job = job->next)
        if (strcmp(job->name, name) == 0) pending = !job->delete;
    pthread_mutex_unlock(&sd->mutex);
    return pending;
}

void snapshot_disk_sync(struct db *db)
{
    struct snapshot_disk *sd = db->snapshot_disk;

    if (!sd) return;
    pthread_mutex_lock(&sd->mutex);
    for (uint64_t until = sd->queued; sd->written < until;)
        pthread_cond_wait(&sd->done, &sd->mutex);
    pthread_mutex_unlock(&sd->mutex);
}

/* ------------------------------------------------------------------------ */
/* the writer                                                                */
/* ------------------------------------------------------------------------ */

struct record_sink {
    struct snapshot_file_write *w;
    uint32_t ns;
    const char *arn;
};

static void put_record(void *ctx, uint64_t seq, const void *record, size_t len)
{
    struct record_sink *r = ctx;
    snapshot_file_record(r->w, r->ns, r->arn, seq, record, len);
}

/* Writes a save job: needs no lock (the job holds references to immutable
 * items and its own stream copies, which nobody else touches). */
static void write_save(struct journal *journal, const struct job *job)
{
    struct snapshot_file_write *w =
        snapshot_file_begin(journal, job->name, job->state.data, job->state.len);
    struct text_buf b = {0};

    for (uint32_t ns = 0; ns < job->namespace_count; ns++) {
        const struct job_namespace *jn = &job->namespaces[ns];
        for (uint32_t pos = 0; pos < jn->table_count; pos++) {
            const struct job_table *jt = &jn->tables[pos];
            snapshot_file_table(w, ns, pos, jt->record.data, jt->record.len);
            for (size_t i = 0; i < jt->item_count; i++)
                snapshot_file_item(w, ns, pos, i, jt->items[i]);
            for (size_t i = 0; i < jt->history_count; i++) {
                const struct history_entry *e = &jt->history[i];
                snapshot_file_history(w, ns, pos, e->seq, e->ms, e->old_item, e->new_item);
            }
        }
        for (size_t i = 0; i < jn->stream_count; i++) {
            struct record_sink sink = {w, ns, jn->stream_arns[i]};
            b.len = 0;
            stream_copy_encode(jn->streams[i], &b);
            snapshot_file_stream(w, ns, sink.arn, b.data, b.len);
            stream_copy_each_record(jn->streams[i], put_record, &sink);
        }
    }
    text_buf_clear(&b);
    snapshot_file_commit(w);
}

static void *writer_main(void *arg)
{
    struct db *db = arg;
    struct snapshot_disk *sd = db->snapshot_disk;

    pthread_mutex_lock(&sd->mutex);
    for (;;) {
        struct job *job = sd->head;
        if (!job) {
            if (sd->stop) break;
            pthread_cond_wait(&sd->work, &sd->mutex);
            continue;
        }
        /* The job stays at the head while it is written: pending() sees it. */
        pthread_mutex_unlock(&sd->mutex);
        if (job->delete)
            snapshot_file_delete(db->journal, job->name);
        else
            write_save(db->journal, job);
        pthread_mutex_lock(&sd->mutex);
        sd->head = job->next;
        if (!sd->head) sd->tail = NULL;
        sd->written = job->ticket;
        pthread_cond_broadcast(&sd->done);
        pthread_mutex_unlock(&sd->mutex);
        job_free(db, job, false);
        pthread_mutex_lock(&sd->mutex);
    }
    pthread_mutex_unlock(&sd->mutex);
    return NULL;
}

void snapshot_disk_start(struct db *db)
{
    struct snapshot_disk *sd;

    if (!db->journal || db->snapshot_disk) return;
    sd = xcalloc(1, sizeof *sd);
    pthread_mutex_init(&sd->mutex, NULL);
    pthread_cond_init(&sd->work, NULL);
    pthread_cond_init(&sd->done, NULL);
    db->snapshot_disk = sd;
    if (pthread_create(&sd->thread, NULL, writer_main, db) != 0) {
        /* Not started: saves stay in memory, and say so (on_disk false). */
        db->snapshot_disk = NULL;
        pthread_cond_destroy(&sd->work);
        pthread_cond_destroy(&sd->done);
        pthread_mutex_destroy(&sd->mutex);
        free(sd);
    }
}

void snapshot_disk_stop(struct db *db)
{
    struct snapshot_disk *sd = db->snapshot_disk;

    if (!sd) return;
    pthread_mutex_lock(&sd->mutex);
    sd->stop = true;
    pthread_cond_signal(&sd->work);
    pthread_mutex_unlock(&sd->mutex);
    pthread_join(sd->thread, NULL); /* it empties the queue first */
    db->snapshot_disk = NULL;
    pthread_cond_destroy(&sd->work);
    pthread_cond_destroy(&sd->done);
    pthread_mutex_destroy(&sd->mutex);
    free(sd);
}

/* ------------------------------------------------------------------------ */
/* loading                                                                   */
/* ------------------------------------------------------------------------ */

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
    if (table_check_stored_item(t, &item->attrs, &err) != 0) {
        ddb_error_clear(&err);
        item_unref(item);
        return false;
    }
    table_row_key(t, &item->attrs, &key);
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

int snapshot_disk_load(struct db *db, char **why)
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
