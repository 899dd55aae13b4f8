/*
 * journal_encode.c - the units being built: each journal_put_* (journal.h,
 * "recording") encodes one change as an op of the calling thread's unit, in
 * the layout journal.h describes - the log record's header
 * (wal_log_unit_start), then the ops, each preceded by an OP_FILE when the
 * file changes. Item operations on different tables record at the same time
 * (docs/architecture.md, "Locking"), so each recording thread has its own
 * unit (journal_unit_of), taken from the journal's spares on its first op;
 * the locks it holds order its changes against every other change to the
 * same tables, and journal_submit (journal_writer.c) hands the unit to the
 * log, and back to the spares, before those locks are released.
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/model/codec.h"
#include "storage/persist/journal.h"
#include "storage/persist/journal_internal.h"
#include "storage/persist/wal_log.h"

#include <string.h>

/* A byte string of the payload: u32 length (little-endian), then the bytes. */
static void put_blob(struct text_buf *b, const void *data, size_t len)
{
    unsigned char n[4] = {(unsigned char) len, (unsigned char) (len >> 8),
                          (unsigned char) (len >> 16), (unsigned char) (len >> 24)};

    text_buf_add(b, (const char *) n, sizeof n);
    if (len) text_buf_add(b, data, len);
}

/* A blob whose length is known only once written: put_blob_begin reserves
 * the length, put_blob_end fills it in. */
static size_t put_blob_begin(struct text_buf *b)
{
    put_blob(b, NULL, 0);
    return b->len;
}

static void put_blob_end(struct text_buf *b, size_t mark)
{
    size_t len = b->len - mark;
    unsigned char *n = (unsigned char *) b->data + mark - 4;

    for (int i = 0; i < 4; i++)
        n[i] = (unsigned char) (len >> (8 * i));
}

static void put_text(struct text_buf *b, const char *s)
{
    put_blob(b, s, strlen(s));
}

/* An item as SQLite's rows hold it, encoded once, here. */
static void put_item_blob(struct text_buf *b, const struct item *item)
{
    size_t mark = put_blob_begin(b);
    item_codec_put(b, item);
    put_blob_end(b, mark);
}

/* The unit the calling thread is building, NULL when none: borrowed from
 * its journal between its first op and journal_submit. */
static _Thread_local struct journal_unit *building;

struct journal_unit *journal_unit_of(struct journal *j, bool create)
{
    struct journal_unit *u = building;

    if (u || !create) return u;
    checked_mutex_lock(&j->units_mutex);
    if (j->spare_count) {
        u = j->spare[--j->spare_count];
    } else {
        u = xcalloc(1, sizeof *u);
        j->units = xrealloc(j->units, sizeof *j->units * (j->unit_count + 1));
        j->units[j->unit_count++] = u;
        j->spare = xrealloc(j->spare, sizeof *j->spare * j->unit_count);
    }
    checked_mutex_unlock(&j->units_mutex);
    building = u;
    return u;
}

void journal_unit_done(struct journal *j, struct journal_unit *u)
{
    u->buf.len = 0;
    u->file = NULL;
    building = NULL;
    checked_mutex_lock(&j->units_mutex);
    j->spare[j->spare_count++] = u;
    checked_mutex_unlock(&j->units_mutex);
}

/* Starts op kind of file f in the calling thread's unit, after an OP_FILE
 * when the unit's last op was of another file; returns the unit's buffer. */
static struct text_buf *op_begin(struct journal_file *f, enum op kind)
{
    struct journal_unit *u = journal_unit_of(f->j, true);

    if (!u->buf.len) wal_log_unit_start(&u->buf);
    if (u->file != f) {
        codec_put_u8(&u->buf, OP_FILE);
        put_text(&u->buf, f->namespace_id);
        u->file = f;
    }
    codec_put_u8(&u->buf, (uint8_t) kind);
    return &u->buf;
}

/* The primary key of an item's row: its partition hash, then its key values. */
static void put_key_blob(struct text_buf *b, const struct row_key *key)
{
    size_t mark = put_blob_begin(b);

    codec_put_uvar(b, key->hash);
    for (size_t i = 0; i < key->part_count; i++) { /* as values: the on-disk form is unchanged */
        char text[NUMBER_TEXT_MAX];
        struct value v;
        key_part_value(&key->parts[i], text, &v);
        codec_put_value(b, &v);
    }
    put_blob_end(b, mark);
}

void journal_put_item(struct journal_file *f, uint64_t uid, const struct row_key *key,
                      struct item *item)
{
    assert_table_writing();
    struct text_buf *b = op_begin(f, item ? OP_ITEM_PUT : OP_ITEM_DEL);

    codec_put_uvar(b, uid);
    put_key_blob(b, key);
    if (item) put_item_blob(b, item);
}

void journal_put_table(struct journal_file *f, uint64_t uid, const void *state, size_t len)
{
    assert_lock_exclusive();
    struct text_buf *b = op_begin(f, OP_TABLE_PUT);

    codec_put_uvar(b, uid);
    put_blob(b, state, len);
}

void journal_del_table(struct journal_file *f, uint64_t uid)
{
    assert_lock_exclusive();
    codec_put_uvar(op_begin(f, OP_TABLE_DEL), uid);
}

void journal_put_stream(struct journal_file *f, const char *arn, const void *state, size_t len)
{
    assert_table_writing();
    struct text_buf *b = op_begin(f, OP_STREAM_PUT);

    put_text(b, arn);
    put_blob(b, state, len);
}

void journal_del_stream(struct journal_file *f, const char *arn)
{
    assert_lock_exclusive();
    put_text(op_begin(f, OP_STREAM_DEL), arn);
}

void journal_put_stream_record(struct journal_file *f, const char *arn, uint64_t seq,
                               const void *record, size_t len)
{
    assert_table_writing();
    struct text_buf *b = op_begin(f, OP_STREAM_RECORD);

    put_text(b, arn);
    codec_put_uvar(b, seq);
    put_blob(b, record, len);
}

void journal_trim_stream(struct journal_file *f, const char *arn, uint64_t upto_seq)
{
    assert_table_writing();
    struct text_buf *b = op_begin(f, OP_STREAM_TRIM);

    put_text(b, arn);
    codec_put_uvar(b, upto_seq);
}

void journal_put_token(struct journal_file *f, const char *token, const char *digest,
                       int64_t expires_ms)
{
    assert_lock_exclusive();
    struct text_buf *b = op_begin(f, OP_TOKEN_PUT);

    put_text(b, token);
    put_text(b, digest);
    codec_put_ivar(b, expires_ms);
}

void journal_put_history(struct journal_file *f, uint64_t uid, uint64_t seq, int64_t ms,
                         struct item *old_item, struct item *new_item)
{
    assert_table_writing();
    struct text_buf *b = op_begin(f, OP_HISTORY_PUT);

    codec_put_uvar(b, uid);
    codec_put_uvar(b, seq);
    codec_put_ivar(b, ms);
    codec_put_u8(b,
                 (uint8_t) ((old_item ? HISTORY_HAS_OLD : 0) | (new_item ? HISTORY_HAS_NEW : 0)));
    if (old_item) put_item_blob(b, old_item);
    if (new_item) put_item_blob(b, new_item);
}

void journal_trim_history(struct journal_file *f, uint64_t uid, uint64_t upto_seq)
{
    assert_table_writing();
    struct text_buf *b = op_begin(f, OP_HISTORY_TRIM);

    codec_put_uvar(b, uid);
    codec_put_uvar(b, upto_seq);
}

void journal_put_backup(struct journal_file *f, const char *arn, const void *state, size_t len,
                        struct item *const *items, size_t item_count)
{
    assert_lock_exclusive();
    struct text_buf *b = op_begin(f, OP_BACKUP_PUT);

    put_text(b, arn);
    put_blob(b, state, len);
    codec_put_uvar(b, item_count);
    for (size_t i = 0; i < item_count; i++)
        put_item_blob(b, items[i]);
}

void journal_del_backup(struct journal_file *f, const char *arn)
{
    assert_lock_exclusive();
    put_text(op_begin(f, OP_BACKUP_DEL), arn);
}

void journal_put_bulk(struct journal_file *f, const char *arn, const void *state, size_t len)
{
    assert_lock_exclusive();
    struct text_buf *b = op_begin(f, OP_BULK_PUT);

    put_text(b, arn);
    put_blob(b, state, len);
}

void journal_reset(struct journal_file *f)
{
    assert_lock_exclusive();
    op_begin(f, OP_RESET);
}
