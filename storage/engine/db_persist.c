/*
 * engine/db_persist.c - what of the engine goes to disk, and how it comes back.
 *
 * The journal (persist/journal.h) carries the records; this file decides
 * what a table's record holds and rebuilds the engine from the files at
 * start (db_open_dir). Items and the point-in-time history reach the journal
 * from table_commit_write, the one write path; streams record their own
 * metadata and records (stream/stream.c); the rest - table definitions and
 * state, on-demand backups, client tokens, namespace resets, the clock
 * offset and the streams' secret - is recorded here, and bulk put items
 * operations in db_persist_bulk.c.
 *
 * What is not recorded, because it is derived: index rows and item
 * collection sizes (rebuilt from the items as they load), item counts and
 * sizes, and the tokens' and streams' expiry (applied on the engine clock
 * after loading, as they would have been).
 *
 * Every persist_* function is a no-op when the engine is in memory, and is
 * called with the engine lock held exclusively.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/jobs/backup_record.h"
#include "storage/model/codec.h"
#include "storage/persist/journal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The fields of a table's record (codec.h: new fields take new tags). */
enum table_tag {
    TT_DEF = 1,
    TT_ARN = 2,
    TT_TABLE_ID = 3,
    TT_REGION = 4,
    TT_STATUS = 5,
    TT_CREATION = 6,
    TT_BILLING_UPDATED = 7,
    TT_THROUGHPUT_CHANGES = 8,
    TT_LATEST_STREAM = 9,
    TT_TTL = 10,
    TT_PITR = 11,
    /* Numbered apart from the others, which other changes extend one by one. */
    TT_RESTORE = 32,
    TT_HISTORY = 33, /* present: the point-in-time history is kept in the file */
    TT_META = 40,    /* table_meta.h: policies, contributor insights, Kinesis */
};

/* pitr.enabled_ms of a table whose recovery is on but whose history was
 * never kept on disk (written before schema version 3): set at load. */
#define HISTORY_UNKNOWN INT64_MIN

/* The fields of a backup's record. */
enum backup_tag {
    BT_NAME = 1,
    BT_TIMES = 2, /* creation, source table creation */
    BT_SIZE = 3,  /* size in bytes, item count */
    BT_TABLE = 4, /* name, id, ARN */
    BT_DEF = 5,
    BT_TTL = 6,
    BT_SYSTEM = 7, /* a SYSTEM backup: its expiry */
};

/* ------------------------------------------------------------------------ */
/* recording                                                                 */
/* ------------------------------------------------------------------------ */

void persist_attach_table(struct db *db, const char *namespace_id, struct table *t)
{
    assert_lock_exclusive();
    if (!db->journal) return;
    t->journal = journal_file_for(db->journal, namespace_id);
    t->uid = journal_file_next_uid(t->journal);
}

void table_record_encode(const struct table *t, struct text_buf *out)
{
    assert_lock_exclusive();
    struct text_buf b = {0};
    size_t m;

    m = codec_field_begin(&b, TT_DEF);
    codec_put_table_def(&b, &t->def);
    codec_field_end(&b, m);
    codec_put_str_field(&b, TT_ARN, t->arn);
    codec_put_str_field(&b, TT_TABLE_ID, t->table_id);
    codec_put_str_field(&b, TT_REGION, t->region);
    codec_put_u8_field(&b, TT_STATUS, (uint8_t) t->status);
    codec_put_ivar_field(&b, TT_CREATION, t->creation_ms);
    codec_put_ivar_field(&b, TT_BILLING_UPDATED, t->billing_last_update_ms);
    m = codec_field_begin(&b, TT_THROUGHPUT_CHANGES);
    codec_put_ivar(&b, t->throughput_last_increase_ms);
    codec_put_ivar(&b, t->throughput_last_decrease_ms);
    codec_put_ivar(&b, t->throughput_decreases_today);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, TT_LATEST_STREAM);
    codec_put_str(&b, t->latest_stream_arn);
    codec_put_str(&b, t->latest_stream_label);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, TT_TTL);
    codec_put_bool(&b, t->ttl.enabled);
    codec_put_str(&b, t->ttl.attribute);
    codec_put_ivar(&b, t->ttl.changed_ms);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, TT_PITR);
    codec_put_bool(&b, t->pitr.enabled);
    codec_put_ivar(&b, t->pitr.recovery_days);
    codec_put_ivar(&b, t->pitr.enabled_ms);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, TT_META);
    table_meta_encode(&b, &t->meta);
    codec_field_end(&b, m);
    if (t->restore.present) {
        m = codec_field_begin(&b, TT_RESTORE);
        codec_put_str(&b, t->restore.source_backup_arn);
        codec_put_str(&b, t->restore.source_table_arn);
        codec_put_ivar(&b, t->restore.restore_ms);
        codec_field_end(&b, m);
    }
    /* Last, so that test_persist.c can cut it off to make an older record. */
    m = codec_field_begin(&b, TT_HISTORY);
    codec_field_end(&b, m);
    *out = b;
}

void persist_table(const struct table *t)
{
    assert_lock_exclusive();
    struct text_buf b = {0};

    if (!t->journal) return;
    table_record_encode(t, &b);
    journal_put_table(t->journal, t->uid, b.data, b.len);
    text_buf_clear(&b);
}

void persist_backup(struct db *db, const struct backup *bk)
{
    assert_lock_exclusive();
    const struct backup_desc *d = &bk->desc;
    struct text_buf b = {0};
    size_t m;

    if (!db->journal) return;
    codec_put_str_field(&b, BT_NAME, d->name);
    m = codec_field_begin(&b, BT_TIMES);
    codec_put_ivar(&b, d->creation_ms);
    codec_put_ivar(&b, d->table_creation_ms);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, BT_SIZE);
    codec_put_ivar(&b, d->size_bytes);
    codec_put_ivar(&b, d->item_count);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, BT_TABLE);
    codec_put_str(&b, d->table_name);
    codec_put_str(&b, d->table_id);
    codec_put_str(&b, d->table_arn);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, BT_DEF);
    codec_put_table_def(&b, &d->def);
    codec_field_end(&b, m);
    m = codec_field_begin(&b, BT_TTL);
    codec_put_bool(&b, d->ttl_enabled);
    codec_put_str(&b, d->ttl_attribute);
    codec_field_end(&b, m);
    if (d->system) codec_put_ivar_field(&b, BT_SYSTEM, d->expiry_ms);
    journal_put_backup(journal_file_for(db->journal, bk->namespace_id), d->arn, b.data, b.len,
                       bk->items, bk->item_count);
    text_buf_clear(&b);
}

void persist_backup_removed(struct db *db, const struct backup *bk)
{
    assert_lock_exclusive();
    if (db->journal)
        journal_del_backup(journal_file_for(db->journal, bk->namespace_id), bk->desc.arn);
}

void persist_table_removed(const struct table *t)
{
    assert_lock_exclusive();
    if (t->journal) journal_del_table(t->journal, t->uid);
}

void persist_token(struct db *db, const struct client_token *ct)
{
    assert_lock_exclusive();
    if (!db->journal) return;
    journal_put_token(journal_file_for(db->journal, ct->namespace_id), ct->token, ct->digest,
                      ct->expires_ms);
}

void persist_reset(struct db *db, const char *namespace_id)
{
    assert_lock_exclusive();
    if (!db->journal) return;
    journal_reset(journal_file_for(db->journal, namespace_id));
}

/* ------------------------------------------------------------------------ */
/* loading                                                                   */
/* ------------------------------------------------------------------------ */

/* What the loaders of one file share. */
struct loading {
    struct db *db;
    struct journal_file *file;
    const char *namespace_id;
    struct table **by_uid; /* the file's tables, in uid order */
    uint64_t *uids;
    size_t count;
};

static struct table *table_by_uid(const struct loading *l, uint64_t uid)
{
    size_t lo = 0, hi = l->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->uids[mid] == uid) return l->by_uid[mid];
        if (l->uids[mid] < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Reads a string field into *slot. A damaged record may repeat a field: the
 * earlier value is freed, not leaked (found by fuzz_persist_load). */
static void take_str(char **slot, struct codec_in *f)
{
    free(*slot);
    *slot = codec_get_str(f);
}

/* Decodes a table's record into a new table; NULL when it is not one. */
struct table *table_record_decode(const void *state, size_t len)
{
    assert_lock_exclusive();
    struct codec_in in, f;
    uint64_t tag;
    struct table_def def;
    bool have_def = false;
    char *arn = NULL, *table_id = NULL, *region = NULL, *stream_arn = NULL, *stream_label = NULL;
    char *ttl_attribute = NULL;
    struct table *t = NULL;
    int64_t creation_ms = 0, billing_ms = 0, inc_ms = 0, dec_ms = 0, dec_today = 0, ttl_ms = 0;
    uint8_t status = TABLE_ACTIVE;
    bool ttl_enabled = false;
    struct pitr_setting pitr = {0};
    struct restore_summary restore = {0};
    bool history_kept = false;
    struct table_meta meta = {0};

    codec_in_init(&in, state, len);
    while (codec_next_field(&in, &tag, &f)) {
        switch ((enum table_tag) tag) {
        case TT_DEF:
            if (!have_def) have_def = codec_get_table_def(&f, &def);
            if (!have_def) f.bad = true;
            break;
        case TT_ARN: take_str(&arn, &f); break;
        case TT_TABLE_ID: take_str(&table_id, &f); break;
        case TT_REGION: take_str(&region, &f); break;
        case TT_STATUS: status = codec_get_u8(&f); break;
        case TT_CREATION: creation_ms = codec_get_ivar(&f); break;
        case TT_BILLING_UPDATED: billing_ms = codec_get_ivar(&f); break;
        case TT_THROUGHPUT_CHANGES:
            inc_ms = codec_get_ivar(&f);
            dec_ms = codec_get_ivar(&f);
            dec_today = codec_get_ivar(&f);
            break;
        case TT_LATEST_STREAM:
            take_str(&stream_arn, &f);
            take_str(&stream_label, &f);
            break;
        case TT_TTL:
            ttl_enabled = codec_get_bool(&f);
            take_str(&ttl_attribute, &f);
            ttl_ms = codec_get_ivar(&f);
            break;
        case TT_PITR:
            pitr.enabled = codec_get_bool(&f);
            pitr.recovery_days = codec_get_ivar(&f);
            pitr.enabled_ms = codec_get_ivar(&f);
            break;
        case TT_HISTORY: history_kept = true; break;
        case TT_RESTORE:
            restore_summary_clear(&restore);
            restore.present = true;
            restore.source_backup_arn = codec_get_str(&f);
            restore.source_table_arn = codec_get_str(&f);
            restore.restore_ms = codec_get_ivar(&f);
            break;
        case TT_META:
            table_meta_clear(&meta);
            if (!table_meta_decode(&f, &meta)) f.bad = true;
            break;
        default: break; /* written by a newer ddbemu */
        }
        if (f.bad) in.bad = true;
    }
    if (!codec_ok(&in) || !have_def || !arn || !table_id || !region || status > TABLE_ACTIVE ||
        (ttl_enabled && !ttl_attribute))
        goto out;
    t = table_new(&def, region, creation_ms);
    have_def = false;
    free(t->arn);
    t->arn = arn;
    free(t->table_id);
    t->table_id = table_id;
    arn = table_id = NULL;
    t->status = (enum table_status) status;
    t->billing_last_update_ms = billing_ms;
    t->throughput_last_increase_ms = inc_ms;
    t->throughput_last_decrease_ms = dec_ms;
    t->throughput_decreases_today = dec_today;
    t->latest_stream_arn = stream_arn;
    t->latest_stream_label = stream_label;
    stream_arn = stream_label = NULL;
    t->ttl.enabled = ttl_enabled;
    t->ttl.attribute = ttl_attribute;
    t->ttl.attribute_len = ttl_attribute ? strlen(ttl_attribute) : 0;
    t->ttl.changed_ms = ttl_ms;
    ttl_attribute = NULL;
    t->pitr = pitr;
    if (pitr.enabled && !history_kept) t->pitr.enabled_ms = HISTORY_UNKNOWN;
    t->restore = restore;
    memset(&restore, 0, sizeof restore);
    t->meta = meta;
    memset(&meta, 0, sizeof meta);
out:
    restore_summary_clear(&restore);
    table_meta_clear(&meta);
    if (have_def) table_def_clear(&def);
    free(arn);
    free(table_id);
    free(region);
    free(stream_arn);
    free(stream_label);
    free(ttl_attribute);
    return t;
}

static bool load_table(void *ctx, uint64_t uid, const void *state, size_t len)
{
    struct loading *l = ctx;
    struct db_scope scope = {.namespace_id = l->namespace_id, .region = ""};
    struct table *t = table_record_decode(state, len);

    if (!t) return false;
    if (db_find_table(l->db, &scope, t->def.name)) {
        table_free(t, 0);
        return false;
    }
    db_namespace_insert(db_namespace_for_write(l->db, &scope), t);
    t->uid = uid;
    /* Rows come in uid order, so the arrays stay sorted. */
    l->by_uid = xrealloc(l->by_uid, sizeof *l->by_uid * (l->count + 1));
    l->uids = xrealloc(l->uids, sizeof *l->uids * (l->count + 1));
    l->by_uid[l->count] = t;
    l->uids[l->count++] = uid;
    return true;
}

static bool load_item(void *ctx, uint64_t uid, const void *data, size_t len)
{
    struct loading *l = ctx;
    struct table *t = table_by_uid(l, uid);
    struct codec_in in;
    struct value attrs;
    struct item *item;
    struct row_key key;
    struct ddb_error err = {0};
    /* Neither a stream nor the journal is attached yet: loading records nothing. */
    const struct commit_info info = {.now_ms = 0, .origin = STREAM_ORIGIN_USER, .rebuilding = true};

    if (!t) return false;
    codec_in_init(&in, data, len);
    if (!codec_get_value(&in, &attrs) || attrs.type != VALUE_M || !codec_at_end(&in)) {
        value_clear(&attrs);
        return false;
    }
    item = item_new(&attrs);
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
    table_commit_write(t, &key, item, &info);
    return true;
}

static bool load_stream(void *ctx, const char *arn, const void *state, size_t len)
{
    struct loading *l = ctx;
    (void) arn;
    return stream_restore(l->db->streams, l->namespace_id, l->file, state, len);
}

static bool load_record(void *ctx, const char *arn, uint64_t seq, const void *record, size_t len)
{
    struct loading *l = ctx;
    return stream_restore_record(l->db->streams, l->namespace_id, arn, seq, record, len);
}

static bool load_token(void *ctx, const char *token, const char *digest, int64_t expires_ms)
{
    struct loading *l = ctx;
    struct db *db = l->db;
    struct client_token *ct;

    if (expires_ms <= db_now_ms(db)) return true; /* expired while ddbemu was down */
    db->tokens = xrealloc(db->tokens, sizeof *db->tokens * (db->token_count + 1));
    ct = &db->tokens[db->token_count++];
    ct->namespace_id = xstrdup(l->namespace_id);
    ct->token = xstrdup(token);
    ct->digest = xstrdup(digest);
    ct->expires_ms = expires_ms;
    return true;
}

/* An item's encoding (NULL: none) as a new item; false when it is not one. */
static bool decode_item(const void *data, size_t len, struct item **out)
{
    struct codec_in in;
    struct value attrs;

    *out = NULL;
    if (!data) return true;
    codec_in_init(&in, data, len);
    if (!codec_get_value(&in, &attrs) || attrs.type != VALUE_M || !codec_at_end(&in)) {
        value_clear(&attrs);
        return false;
    }
    *out = item_new(&attrs);
    return true;
}

static bool load_history(void *ctx, uint64_t uid, uint64_t seq, int64_t ms, const void *old_item,
                         size_t old_len, const void *new_item, size_t new_len)
{
    struct loading *l = ctx;
    struct table *t = table_by_uid(l, uid);
    struct item *old_i, *new_i;

    if (!t || !decode_item(old_item, old_len, &old_i)) return false;
    if (!decode_item(new_item, new_len, &new_i) || (!old_i && !new_i)) {
        item_unref(old_i);
        item_unref(new_i);
        return false;
    }
    history_restore(&t->history, seq, ms, old_i, new_i);
    return true;
}

/* Decodes a backup's record; false when it is not one. */
static bool decode_backup(const char *arn, const void *state, size_t len, struct backup_desc *d)
{
    struct codec_in in, f;
    uint64_t tag;
    bool have_def = false;

    memset(d, 0, sizeof *d);
    d->arn = xstrdup(arn);
    d->status = BACKUP_AVAILABLE;
    codec_in_init(&in, state, len);
    while (codec_next_field(&in, &tag, &f)) {
        switch ((enum backup_tag) tag) {
        case BT_NAME:
            free(d->name);
            d->name = codec_get_str(&f);
            break;
        case BT_TIMES:
            d->creation_ms = codec_get_ivar(&f);
            d->table_creation_ms = codec_get_ivar(&f);
            break;
        case BT_SIZE:
            d->size_bytes = codec_get_ivar(&f);
            d->item_count = codec_get_ivar(&f);
            break;
        case BT_TABLE:
            free(d->table_name);
            free(d->table_id);
            free(d->table_arn);
            d->table_name = codec_get_str(&f);
            d->table_id = codec_get_str(&f);
            d->table_arn = codec_get_str(&f);
            break;
        case BT_DEF:
            if (!have_def) have_def = codec_get_table_def(&f, &d->def);
            if (!have_def) f.bad = true;
            break;
        case BT_TTL:
            d->ttl_enabled = codec_get_bool(&f);
            free(d->ttl_attribute);
            d->ttl_attribute = codec_get_str(&f);
            break;
        case BT_SYSTEM:
            d->system = true;
            d->expiry_ms = codec_get_ivar(&f);
            break;
        default: break; /* written by a newer ddbemu */
        }
        if (f.bad) in.bad = true;
    }
    return codec_ok(&in) && have_def && d->name && d->table_name && d->table_id && d->table_arn;
}

static bool load_backup(void *ctx, const char *arn, const void *state, size_t len)
{
    struct loading *l = ctx;
    struct backup b = {0};

    if (!decode_backup(arn, state, len, &b.desc)) {
        backup_desc_clear(&b.desc);
        return false;
    }
    b.namespace_id = xstrdup(l->namespace_id);
    backup_list_add(&l->db->backups, &b);
    return true;
}

static bool load_backup_item(void *ctx, const char *arn, const void *data, size_t len)
{
    struct loading *l = ctx;
    struct backup *b = NULL;
    struct item *item;

    /* Items come in ARN order, so the backup is usually the last one looked up. */
    for (size_t i = l->db->backups.count; i-- > 0;) {
        struct backup *c = &l->db->backups.backups[i];
        if (strcmp(c->desc.arn, arn) == 0 && strcmp(c->namespace_id, l->namespace_id) == 0) {
            b = c;
            break;
        }
    }
    if (!b || !data || !decode_item(data, len, &item)) return false;
    b->items = xrealloc(b->items, sizeof *b->items * (b->item_count + 1));
    b->items[b->item_count++] = item;
    return true;
}

/* Loads one namespace file into the engine, then attaches it so that later
 * changes are recorded. */
static int load_file(struct db *db, struct journal_file *f, char **why)
{
    struct loading l = {.db = db, .file = f, .namespace_id = journal_file_namespace(f)};
    int rc = -1;

    if (journal_load_tables(f, load_table, &l, why) != 0 ||
        journal_load_items(f, load_item, &l, why) != 0 ||
        journal_load_streams(f, load_stream, &l, why) != 0 ||
        journal_load_stream_records(f, load_record, &l, why) != 0 ||
        journal_load_tokens(f, load_token, &l, why) != 0 ||
        journal_load_history(f, load_history, &l, why) != 0 ||
        journal_load_backups(f, load_backup, &l, why) != 0 ||
        journal_load_backup_items(f, load_backup_item, &l, why) != 0 ||
        persist_load_bulk(db, f, l.namespace_id, why) != 0)
        goto out;
    for (size_t i = 0; i < l.count; i++) {
        struct table *t = l.by_uid[i];
        t->journal = f;
        /* Recovery was on before this ddbemu kept its history: the window
         * starts now, as nothing earlier could be restored correctly. */
        if (t->pitr.enabled_ms == HISTORY_UNKNOWN) {
            t->pitr.enabled_ms = db_now_ms(db);
            persist_table(t);
        }
        /* The table's open stream is the restored one its definition names. */
        if (t->def.stream.enabled && t->latest_stream_arn) {
            t->stream = stream_registry_find(db->streams, l.namespace_id, t->latest_stream_arn);
            if (t->stream && !stream_is_enabled(t->stream)) t->stream = NULL;
        }
    }
    rc = 0;
out:
    free(l.by_uid);
    free(l.uids);
    return rc;
}

/* The streams' secret: kept across restarts so that iterators handed out
 * before one still verify after it. */
static void restore_secret(struct db *db)
{
    uint64_t secret = (uint64_t) journal_meta_get(db->journal, META_STREAM_SECRET);

    if (!secret) {
        if (getrandom(&secret, sizeof secret, 0) != (ssize_t) sizeof secret || !secret)
            secret = stream_registry_secret(db->streams);
        journal_meta_set(db->journal, META_STREAM_SECRET, (int64_t) secret);
    }
    stream_registry_set_secret(db->streams, secret);
}

/* Backups are listed in creation order; files hold them in ARN order. */
static int compare_backups(const void *a, const void *b)
{
    const struct backup *x = a, *y = b;
    if (x->desc.creation_ms != y->desc.creation_ms)
        return x->desc.creation_ms < y->desc.creation_ms ? -1 : 1;
    return strcmp(x->desc.arn, y->desc.arn);
}

/* db_open_dir's first step (db_open.c): the namespace files and ddbemu.db's
 * values. It takes the engine lock itself to load the files. */
struct db *persist_open_dir(const char *dir, char **why)
{
    struct db *db = db_new();
    int rc = 0;

    db->journal = journal_open(dir, why);
    if (!db->journal) {
        db_free(db);
        return NULL;
    }
    atomic_store(&db->clock_offset_ms, journal_meta_get(db->journal, META_CLOCK_OFFSET));
    db_write_lock(db);
    restore_secret(db);
    for (size_t i = 0; rc == 0 && i < journal_file_count(db->journal); i++)
        rc = load_file(db, journal_file_at(db->journal, i), why);
    if (rc == 0) stream_registry_restored(db->streams);
    if (db->backups.count)
        qsort(db->backups.backups, db->backups.count, sizeof *db->backups.backups, compare_backups);
    persist_sort_bulk(db);
    db_unlock(db);
    if (rc != 0) {
        db_free(db);
        return NULL;
    }
    return db;
}
