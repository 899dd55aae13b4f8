/*
 * journal.c - the data directory, its SQLite files and the writer thread;
 * see journal.h.
 *
 * The unit being built is one buffer, j->unit, that the journal_put_*
 * functions encode into under the engine's exclusive lock (no mutex of
 * ours): the log record's header (wal_log.h), then the ops. journal_submit
 * appends it to the log, copies it to the end of j->queue under j->mutex and
 * wakes the writer when needed. The writer swaps the whole queue out, applies
 * its units file by file inside one transaction per file, records in each
 * file the unit it has folded through, commits, and deletes the log files
 * it no longer needs. At start, journal_open replays the log the same way
 * (apply_unit) before anything is loaded.
 */
#include "storage/persist/journal.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"
#include "storage/persist/disk.h"
#include "storage/persist/journal_internal.h"
#include "storage/persist/wal_log.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The ops of a unit's payload (journal.h, "The log"). Numbered: they are on
 * disk. */
enum op {
    OP_FILE = 1,
    OP_ITEM_PUT = 2,
    OP_ITEM_DEL = 3,
    OP_TABLE_PUT = 4,
    OP_TABLE_DEL = 5,
    OP_STREAM_PUT = 6,
    OP_STREAM_DEL = 7,
    OP_STREAM_RECORD = 8,
    OP_STREAM_TRIM = 9,
    OP_TOKEN_PUT = 10,
    OP_RESET = 11,
    OP_HISTORY_PUT = 12,
    OP_HISTORY_TRIM = 13,
    OP_BACKUP_PUT = 14,
    OP_BACKUP_DEL = 15,
};

/* OP_HISTORY_PUT's flags: which of the two items follow. */
#define HISTORY_HAS_OLD 1
#define HISTORY_HAS_NEW 2

/* The statements of one file, prepared once. */
enum stmt {
    ST_ITEM_PUT,
    ST_ITEM_DEL,
    ST_TABLE_PUT,
    ST_TABLE_DEL,
    ST_TABLE_ITEMS_DEL,
    ST_STREAM_PUT,
    ST_STREAM_DEL,
    ST_STREAM_RECORDS_DEL,
    ST_RECORD_PUT,
    ST_RECORD_TRIM,
    ST_TOKEN_PUT,
    ST_TOKEN_EXPIRE,
    ST_HISTORY_PUT,
    ST_HISTORY_TRIM,
    ST_TABLE_HISTORY_DEL,
    ST_BACKUP_PUT,
    ST_BACKUP_ITEM_PUT,
    ST_BACKUP_DEL,
    ST_BACKUP_ITEMS_DEL,
    ST_FOLDED,
    /* A group's transaction: prepared like the rest, since parsing BEGIN and
     * COMMIT again for every group cost about as much as its INSERT. */
    ST_BEGIN,
    ST_COMMIT,
    ST_COUNT,
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_ITEM_PUT] = "INSERT OR REPLACE INTO items(uid, key, item) VALUES (?, ?, ?)",
    [ST_ITEM_DEL] = "DELETE FROM items WHERE uid = ? AND key = ?",
    [ST_TABLE_PUT] = "INSERT OR REPLACE INTO tables(uid, state) VALUES (?, ?)",
    [ST_TABLE_DEL] = "DELETE FROM tables WHERE uid = ?",
    [ST_TABLE_ITEMS_DEL] = "DELETE FROM items WHERE uid = ?",
    [ST_STREAM_PUT] = "INSERT OR REPLACE INTO streams(arn, state) VALUES (?, ?)",
    [ST_STREAM_DEL] = "DELETE FROM streams WHERE arn = ?",
    [ST_STREAM_RECORDS_DEL] = "DELETE FROM stream_records WHERE arn = ?",
    [ST_RECORD_PUT] = "INSERT OR REPLACE INTO stream_records(arn, seq, record) VALUES (?, ?, ?)",
    [ST_RECORD_TRIM] = "DELETE FROM stream_records WHERE arn = ? AND seq <= ?",
    [ST_TOKEN_PUT] = "INSERT OR REPLACE INTO tokens(token, digest, expires_ms) VALUES (?, ?, ?)",
    [ST_TOKEN_EXPIRE] = "DELETE FROM tokens WHERE expires_ms <= ?",
    [ST_HISTORY_PUT] = "INSERT OR REPLACE INTO pitr_history(uid, seq, ms, old_item, new_item) "
                       "VALUES (?, ?, ?, ?, ?)",
    [ST_HISTORY_TRIM] = "DELETE FROM pitr_history WHERE uid = ? AND seq <= ?",
    [ST_TABLE_HISTORY_DEL] = "DELETE FROM pitr_history WHERE uid = ?",
    [ST_BACKUP_PUT] = "INSERT OR REPLACE INTO backups(arn, state) VALUES (?, ?)",
    [ST_BACKUP_ITEM_PUT] = "INSERT OR REPLACE INTO backup_items(arn, seq, item) VALUES (?, ?, ?)",
    [ST_BACKUP_DEL] = "DELETE FROM backups WHERE arn = ?",
    [ST_BACKUP_ITEMS_DEL] = "DELETE FROM backup_items WHERE arn = ?",
    [ST_FOLDED] = "INSERT OR REPLACE INTO meta(key, value) VALUES ('" DISK_META_FOLDED "', ?)",
    [ST_BEGIN] = "BEGIN",
    [ST_COMMIT] = "COMMIT",
};

struct journal_file {
    struct journal *j;
    char *path;
    char *namespace_id;
    sqlite3 *db;
    sqlite3_stmt *stmts[ST_COUNT];
    uint64_t next_uid;
    uint64_t folded;     /* the last unit whose changes to this file it holds */
    bool in_transaction; /* the writer's current group has begun on this file */
};

/* How long the writer lets a group grow once a unit is waiting: nobody waits
 * for the fold (the log made the unit durable), and the longer the group,
 * the more of its writes share a B-tree page and a WAL frame. */
#define FOLD_WAIT_MS 20
/* A group this large is folded at once. */
#define FOLD_GROUP_BYTES (1u << 20)
/* Backpressure: when the units submitted and not yet folded pass this many
 * bytes of log, journal_submit waits for the writer, so that the queue's
 * memory (and the log a restart replays) stays bounded however far the
 * writer falls behind. */
#define UNFOLDED_MAX_BYTES (64u << 20)

struct journal {
    char *dir;
    int lock_fd;
    sqlite3 *meta; /* ddbemu.db */
    pthread_mutex_t meta_mutex;

    struct journal_file **files;
    size_t file_count;

    struct wal_log *log;
    /* The unit being built, under the engine's exclusive lock: the log
     * record's header, then the ops; unit_file is the file its last OP_FILE
     * named. */
    struct text_buf unit;
    struct journal_file *unit_file;

    pthread_mutex_t mutex; /* guards everything down to the writer's own */
    pthread_cond_t work;   /* a unit is waiting, the group is full, or stop */
    pthread_cond_t room;   /* unfolded fell (backpressure) */
    struct text_buf queue; /* log records submitted, not yet taken by the writer */
    size_t unfolded;       /* bytes submitted and not yet committed */
    bool writer_idle;      /* the writer waits for a first unit */
    bool writer_gathering; /* the writer lets a group grow (FOLD_WAIT_MS) */
    unsigned room_waiters; /* submitters held back by UNFOLDED_MAX_BYTES */
    bool stop;
    pthread_t writer;
    bool writer_started;

    /* The writer's own (and the replay's, before the writer starts). */
    struct text_buf group;         /* the units being folded */
    struct journal_file **touched; /* the files the group has begun a transaction on */
    size_t touched_count;
    struct journal_file *apply_file; /* the file of the last OP_FILE applied */
    uint64_t replayed;               /* at start: the last unit replayed */
};

/* ------------------------------------------------------------------------ */
/* failing                                                                   */
/* ------------------------------------------------------------------------ */

/* A write to disk failed: nothing acknowledged from here on could be kept,
 * so ddbemu stops (journal.h, "Failure"). */
static _Noreturn void die(const char *why)
{
    fprintf(stderr,
            "ddbemu: %s; stopping so that no write is acknowledged that would not survive a "
            "restart\n",
            why);
    _exit(1);
}

static _Noreturn void die_on_disk_error(const char *path, sqlite3 *db, const char *what)
{
    struct text_buf b = {0};

    text_buf_printf(&b, "cannot %s %s: %s", what, path, db ? sqlite3_errmsg(db) : strerror(errno));
    die(b.data);
}

/* ------------------------------------------------------------------------ */
/* the unit's ops                                                            */
/* ------------------------------------------------------------------------ */

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
    codec_put_value(b, &item->attrs);
    put_blob_end(b, mark);
}

/* Starts op kind of file f in the unit being built, after an OP_FILE when
 * the unit's last op was of another file; returns the unit's buffer. */
static struct text_buf *op_begin(struct journal_file *f, enum op kind)
{
    struct journal *j = f->j;

    if (!j->unit.len) wal_log_unit_start(&j->unit);
    if (j->unit_file != f) {
        codec_put_u8(&j->unit, OP_FILE);
        put_text(&j->unit, f->namespace_id);
        j->unit_file = f;
    }
    codec_put_u8(&j->unit, (uint8_t) kind);
    return &j->unit;
}

/* The primary key of an item's row: its partition hash, then its key values. */
static void put_key_blob(struct text_buf *b, const struct row_key *key)
{
    size_t mark = put_blob_begin(b);

    codec_put_uvar(b, key->hash);
    for (size_t i = 0; i < key->part_count; i++)
        codec_put_value(b, key->parts[i]);
    put_blob_end(b, mark);
}

void journal_put_item(struct journal_file *f, uint64_t uid, const struct row_key *key,
                      struct item *item)
{
    struct text_buf *b = op_begin(f, item ? OP_ITEM_PUT : OP_ITEM_DEL);

    codec_put_uvar(b, uid);
    put_key_blob(b, key);
    if (item) put_item_blob(b, item);
}

void journal_put_table(struct journal_file *f, uint64_t uid, const void *state, size_t len)
{
    struct text_buf *b = op_begin(f, OP_TABLE_PUT);

    codec_put_uvar(b, uid);
    put_blob(b, state, len);
}

void journal_del_table(struct journal_file *f, uint64_t uid)
{
    codec_put_uvar(op_begin(f, OP_TABLE_DEL), uid);
}

void journal_put_stream(struct journal_file *f, const char *arn, const void *state, size_t len)
{
    struct text_buf *b = op_begin(f, OP_STREAM_PUT);

    put_text(b, arn);
    put_blob(b, state, len);
}

void journal_del_stream(struct journal_file *f, const char *arn)
{
    put_text(op_begin(f, OP_STREAM_DEL), arn);
}

void journal_put_stream_record(struct journal_file *f, const char *arn, uint64_t seq,
                               const void *record, size_t len)
{
    struct text_buf *b = op_begin(f, OP_STREAM_RECORD);

    put_text(b, arn);
    codec_put_uvar(b, seq);
    put_blob(b, record, len);
}

void journal_trim_stream(struct journal_file *f, const char *arn, uint64_t upto_seq)
{
    struct text_buf *b = op_begin(f, OP_STREAM_TRIM);

    put_text(b, arn);
    codec_put_uvar(b, upto_seq);
}

void journal_put_token(struct journal_file *f, const char *token, const char *digest,
                       int64_t expires_ms)
{
    struct text_buf *b = op_begin(f, OP_TOKEN_PUT);

    put_text(b, token);
    put_text(b, digest);
    codec_put_ivar(b, expires_ms);
}

void journal_put_history(struct journal_file *f, uint64_t uid, uint64_t seq, int64_t ms,
                         struct item *old_item, struct item *new_item)
{
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
    struct text_buf *b = op_begin(f, OP_HISTORY_TRIM);

    codec_put_uvar(b, uid);
    codec_put_uvar(b, upto_seq);
}

void journal_put_backup(struct journal_file *f, const char *arn, const void *state, size_t len,
                        struct item *const *items, size_t item_count)
{
    struct text_buf *b = op_begin(f, OP_BACKUP_PUT);

    put_text(b, arn);
    put_blob(b, state, len);
    codec_put_uvar(b, item_count);
    for (size_t i = 0; i < item_count; i++)
        put_item_blob(b, items[i]);
}

void journal_del_backup(struct journal_file *f, const char *arn)
{
    put_text(op_begin(f, OP_BACKUP_DEL), arn);
}

void journal_reset(struct journal_file *f)
{
    op_begin(f, OP_RESET);
}

uint64_t journal_file_next_uid(struct journal_file *f)
{
    return f->next_uid++;
}

/* ------------------------------------------------------------------------ */
/* applying a unit                                                           */
/* ------------------------------------------------------------------------ */

/* One op's operands, borrowed from the payload. */
struct op_args {
    uint64_t uid;    /* table uid; a stream record's sequence number */
    int64_t number;  /* token expiry; trims: the last sequence number dropped;
                      * history: its seq */
    int64_t number2; /* history: the change's time */
    const char *text, *text2;
    size_t text_len, text2_len;
    const void *blob, *blob2; /* blob2: history's new item; NULL: none */
    size_t blob_len, blob2_len;
};

/* A blob of the payload (put_blob), borrowed; NULL and in->bad when short. */
static const void *get_blob(struct codec_in *in, size_t *len)
{
    const unsigned char *p = in->p;
    size_t n;

    if (in->bad || in->end - in->p < 4) {
        in->bad = true;
        *len = 0;
        return NULL;
    }
    n = (size_t) p[0] | (size_t) p[1] << 8 | (size_t) p[2] << 16 | (size_t) p[3] << 24;
    if ((size_t) (in->end - in->p) - 4 < n) {
        in->bad = true;
        *len = 0;
        return NULL;
    }
    in->p += 4 + n;
    *len = n;
    return p + 4;
}

/* SQLite integers are signed: "everything" is the largest of them. */
static int64_t clamp_seq(uint64_t seq)
{
    return seq > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) seq;
}

/* Runs one statement of f with a's operands bound as the statement wants
 * them (a is not read for BEGIN, COMMIT and FOLDED). */
static void run(struct journal_file *f, enum stmt which, const struct op_args *a)
{
    sqlite3_stmt *st = f->stmts[which];
    int rc;

    switch (which) {
    case ST_ITEM_PUT:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) a->uid);
        sqlite3_bind_blob(st, 2, a->blob, (int) a->blob_len, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, a->blob2, (int) a->blob2_len, SQLITE_STATIC);
        break;
    case ST_ITEM_DEL:
    case ST_TABLE_PUT:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) a->uid);
        sqlite3_bind_blob(st, 2, a->blob, (int) a->blob_len, SQLITE_STATIC);
        break;
    case ST_TABLE_DEL:
    case ST_TABLE_ITEMS_DEL:
    case ST_TABLE_HISTORY_DEL: sqlite3_bind_int64(st, 1, (sqlite3_int64) a->uid); break;
    case ST_STREAM_PUT:
    case ST_BACKUP_PUT:
        sqlite3_bind_text(st, 1, a->text, (int) a->text_len, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, a->blob, (int) a->blob_len, SQLITE_STATIC);
        break;
    case ST_STREAM_DEL:
    case ST_STREAM_RECORDS_DEL:
    case ST_BACKUP_DEL:
    case ST_BACKUP_ITEMS_DEL:
        sqlite3_bind_text(st, 1, a->text, (int) a->text_len, SQLITE_STATIC);
        break;
    case ST_RECORD_PUT:
        sqlite3_bind_text(st, 1, a->text, (int) a->text_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (sqlite3_int64) a->uid);
        sqlite3_bind_blob(st, 3, a->blob, (int) a->blob_len, SQLITE_STATIC);
        break;
    case ST_RECORD_TRIM:
        sqlite3_bind_text(st, 1, a->text, (int) a->text_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, a->number);
        break;
    case ST_TOKEN_PUT:
        sqlite3_bind_text(st, 1, a->text, (int) a->text_len, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, a->text2, (int) a->text2_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, a->number);
        break;
    case ST_TOKEN_EXPIRE: sqlite3_bind_int64(st, 1, a->number); break;
    case ST_HISTORY_PUT:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) a->uid);
        sqlite3_bind_int64(st, 2, a->number);
        sqlite3_bind_int64(st, 3, a->number2);
        if (a->blob)
            sqlite3_bind_blob(st, 4, a->blob, (int) a->blob_len, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        if (a->blob2)
            sqlite3_bind_blob(st, 5, a->blob2, (int) a->blob2_len, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        break;
    case ST_HISTORY_TRIM:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) a->uid);
        sqlite3_bind_int64(st, 2, a->number);
        break;
    case ST_BACKUP_ITEM_PUT:
        sqlite3_bind_text(st, 1, a->text, (int) a->text_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, a->number);
        sqlite3_bind_blob(st, 3, a->blob, (int) a->blob_len, SQLITE_STATIC);
        break;
    case ST_FOLDED: sqlite3_bind_int64(st, 1, a->number); break;
    case ST_BEGIN:
    case ST_COMMIT:
    case ST_COUNT: break;
    }
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) die_on_disk_error(f->path, f->db, "write to");
}

static void exec_or_die(struct journal_file *f, const char *sql)
{
    if (sqlite3_exec(f->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        die_on_disk_error(f->path, f->db, "write to");
}

/* Reads op kind's operands into *a (a backup's items stay in the input:
 * apply_op reads them as it goes). */
static void read_op(struct codec_in *in, enum op kind, struct op_args *a)
{
    memset(a, 0, sizeof *a);
    switch (kind) {
    case OP_FILE:
    case OP_STREAM_DEL:
    case OP_BACKUP_DEL: a->text = get_blob(in, &a->text_len); break;
    case OP_ITEM_PUT:
    case OP_ITEM_DEL:
        a->uid = codec_get_uvar(in);
        a->blob = get_blob(in, &a->blob_len);
        if (kind == OP_ITEM_PUT) a->blob2 = get_blob(in, &a->blob2_len);
        break;
    case OP_TABLE_PUT:
        a->uid = codec_get_uvar(in);
        a->blob = get_blob(in, &a->blob_len);
        break;
    case OP_TABLE_DEL: a->uid = codec_get_uvar(in); break;
    case OP_STREAM_PUT:
    case OP_BACKUP_PUT:
        a->text = get_blob(in, &a->text_len);
        a->blob = get_blob(in, &a->blob_len);
        if (kind == OP_BACKUP_PUT) a->number = clamp_seq(codec_get_uvar(in)); /* item count */
        break;
    case OP_STREAM_RECORD:
        a->text = get_blob(in, &a->text_len);
        a->uid = codec_get_uvar(in);
        a->blob = get_blob(in, &a->blob_len);
        break;
    case OP_STREAM_TRIM:
        a->text = get_blob(in, &a->text_len);
        a->number = clamp_seq(codec_get_uvar(in));
        break;
    case OP_TOKEN_PUT:
        a->text = get_blob(in, &a->text_len);
        a->text2 = get_blob(in, &a->text2_len);
        a->number = codec_get_ivar(in);
        break;
    case OP_RESET: break;
    case OP_HISTORY_PUT: {
        uint8_t which;
        a->uid = codec_get_uvar(in);
        a->number = clamp_seq(codec_get_uvar(in));
        a->number2 = codec_get_ivar(in);
        which = codec_get_u8(in);
        if (which & HISTORY_HAS_OLD) a->blob = get_blob(in, &a->blob_len);
        if (which & HISTORY_HAS_NEW) a->blob2 = get_blob(in, &a->blob2_len);
        break;
    }
    case OP_HISTORY_TRIM:
        a->uid = codec_get_uvar(in);
        a->number = clamp_seq(codec_get_uvar(in));
        break;
    default: in->bad = true; break;
    }
}

/* Applies one op (not OP_FILE) to f, inside its open transaction. */
static void apply_op(struct journal_file *f, enum op kind, struct op_args *a, struct codec_in *in)
{
    switch (kind) {
    case OP_ITEM_PUT: run(f, ST_ITEM_PUT, a); break;
    case OP_ITEM_DEL: run(f, ST_ITEM_DEL, a); break;
    case OP_TABLE_PUT: run(f, ST_TABLE_PUT, a); break;
    case OP_TABLE_DEL:
        run(f, ST_TABLE_DEL, a);
        run(f, ST_TABLE_ITEMS_DEL, a);
        run(f, ST_TABLE_HISTORY_DEL, a);
        break;
    case OP_STREAM_PUT: run(f, ST_STREAM_PUT, a); break;
    case OP_STREAM_DEL:
        run(f, ST_STREAM_DEL, a);
        run(f, ST_STREAM_RECORDS_DEL, a);
        break;
    case OP_STREAM_RECORD: run(f, ST_RECORD_PUT, a); break;
    case OP_STREAM_TRIM: run(f, ST_RECORD_TRIM, a); break;
    case OP_TOKEN_PUT: {
        /* Expired tokens go as new ones come: at most ten minutes' worth stay. */
        struct op_args expire = {.number = a->number - 2 * DDB_CLIENT_TOKEN_TTL_MS};
        run(f, ST_TOKEN_EXPIRE, &expire);
        run(f, ST_TOKEN_PUT, a);
        break;
    }
    case OP_RESET:
        exec_or_die(f, "DELETE FROM items; DELETE FROM tables; DELETE FROM stream_records; "
                       "DELETE FROM streams; DELETE FROM tokens; DELETE FROM pitr_history; "
                       "DELETE FROM backups; DELETE FROM backup_items;");
        break;
    case OP_HISTORY_PUT: run(f, ST_HISTORY_PUT, a); break;
    case OP_HISTORY_TRIM: run(f, ST_HISTORY_TRIM, a); break;
    case OP_BACKUP_PUT: {
        int64_t count = a->number;
        run(f, ST_BACKUP_PUT, a);
        for (int64_t i = 0; i < count && !in->bad; i++) {
            struct op_args item = {.text = a->text, .text_len = a->text_len, .number = i};
            item.blob = get_blob(in, &item.blob_len);
            if (!in->bad) run(f, ST_BACKUP_ITEM_PUT, &item);
        }
        break;
    }
    case OP_BACKUP_DEL:
        run(f, ST_BACKUP_DEL, a);
        run(f, ST_BACKUP_ITEMS_DEL, a);
        break;
    case OP_FILE: break;
    }
}

static struct journal_file *file_for(struct journal *j, const char *namespace_id, char **why);

/* The file an OP_FILE names: the last one again, most of the time. At start
 * (replay) a missing file is created, as journal_file_for made it. */
static struct journal_file *apply_file(struct journal *j, const char *ns, size_t len, char **why)
{
    struct journal_file *f = j->apply_file;
    char *name;

    if (f && strlen(f->namespace_id) == len && memcmp(f->namespace_id, ns, len) == 0) return f;
    name = xmalloc(len + 1);
    memcpy(name, ns, len);
    name[len] = '\0';
    f = strlen(name) == len ? file_for(j, name, why) : NULL;
    if (!f && !*why) *why = xstrdup("names an impossible namespace");
    free(name);
    j->apply_file = f;
    return f;
}

/* Begins f's transaction for the group, once. */
static void touch(struct journal *j, struct journal_file *f)
{
    if (f->in_transaction) return;
    run(f, ST_BEGIN, NULL);
    f->in_transaction = true;
    j->touched = xrealloc(j->touched, sizeof *j->touched * (j->touched_count + 1));
    j->touched[j->touched_count++] = f;
}

/*
 * Applies unit seq's ops to their files, each inside the group's transaction
 * on it. The ops of a file that already holds unit seq (its folded) are
 * skipped: only at start, replaying a log the writer had partly folded.
 * Returns 0, or -1 with *why set (owned) when the payload cannot be read.
 */
static int apply_unit(struct journal *j, uint64_t seq, const void *payload, size_t len, char **why)
{
    struct codec_in in;
    struct journal_file *f = NULL;
    bool skip = false;

    codec_in_init(&in, payload, len);
    while (!codec_at_end(&in) && codec_ok(&in)) {
        enum op kind = (enum op) codec_get_u8(&in);
        struct op_args a;
        read_op(&in, kind, &a);
        if (!codec_ok(&in)) break;
        if (kind == OP_FILE) {
            f = apply_file(j, a.text, a.text_len, why);
            if (!f) return -1;
            skip = seq <= f->folded;
            if (!skip) touch(j, f);
            continue;
        }
        if (!f) break; /* an op before any OP_FILE */
        if (skip) {
            /* A backup's items follow its op: read past them. */
            for (int64_t i = 0; kind == OP_BACKUP_PUT && i < a.number && codec_ok(&in); i++) {
                size_t n;
                get_blob(&in, &n);
            }
            continue;
        }
        apply_op(f, kind, &a, &in);
    }
    if (codec_ok(&in) && f) return 0;
    struct text_buf b = {0};
    text_buf_printf(&b, "unit %llu of the log cannot be read by this ddbemu (damaged?)",
                    (unsigned long long) seq);
    *why = text_buf_take(&b, NULL);
    return -1;
}

/* Commits the group's transactions, each recording that its file holds
 * every unit through seq. */
static void commit_group(struct journal *j, uint64_t seq)
{
    struct op_args folded = {.number = clamp_seq(seq)};

    for (size_t i = 0; i < j->touched_count; i++) {
        struct journal_file *f = j->touched[i];
        run(f, ST_FOLDED, &folded);
        run(f, ST_COMMIT, NULL);
        f->folded = seq;
        f->in_transaction = false;
    }
    j->touched_count = 0;
}

/* ------------------------------------------------------------------------ */
/* the writer                                                                */
/* ------------------------------------------------------------------------ */

/*
 * Folds what is queued, on the writer's thread: called with j->mutex held,
 * which is released while SQLite works, so that more units queue up
 * meanwhile - they form the next group.
 */
static void fold_queued(struct journal *j)
{
    struct text_buf taken = j->queue;
    uint64_t last = 0;
    char *why = NULL;

    j->queue = j->group;
    j->queue.len = 0;
    j->group = taken;
    pthread_mutex_unlock(&j->mutex);

    for (size_t at = 0; at < j->group.len;) {
        const void *payload;
        size_t len,
            n = wal_log_record_read(j->group.data + at, j->group.len - at, &last, &payload, &len);
        if (!n) die("the journal's queue is damaged (a ddbemu bug)");
        if (apply_unit(j, last, payload, len, &why) != 0) die(why);
        at += n;
    }
    commit_group(j, last);
    wal_log_drop_through(j->log, last);
    /* A burst's buffer is not kept for good. */
    if (j->group.cap > 4 * FOLD_GROUP_BYTES) text_buf_clear(&j->group);

    pthread_mutex_lock(&j->mutex);
    j->unfolded -= taken.len;
    if (j->room_waiters) pthread_cond_broadcast(&j->room);
}

/* The writer: sleeps until a unit is waiting, lets the group grow for
 * FOLD_WAIT_MS (or until it passes FOLD_GROUP_BYTES, or a submitter waits
 * for room, or the journal closes), folds it, and again. */
static void *writer_main(void *arg)
{
    struct journal *j = arg;

    pthread_mutex_lock(&j->mutex);
    for (;;) {
        if (j->queue.len) {
            if (!j->stop && !j->room_waiters && j->queue.len < FOLD_GROUP_BYTES) {
                struct timespec until;
                clock_gettime(CLOCK_MONOTONIC, &until); /* j->work waits on it */
                until.tv_nsec += FOLD_WAIT_MS * 1000000L;
                if (until.tv_nsec >= 1000000000L) {
                    until.tv_sec++;
                    until.tv_nsec -= 1000000000L;
                }
                j->writer_gathering = true;
                pthread_cond_timedwait(&j->work, &j->mutex, &until);
                j->writer_gathering = false;
            }
            fold_queued(j);
            continue;
        }
        if (j->stop) break;
        j->writer_idle = true;
        pthread_cond_wait(&j->work, &j->mutex);
        j->writer_idle = false;
    }
    pthread_mutex_unlock(&j->mutex);
    return NULL;
}

void journal_submit(struct journal *j)
{
    uint64_t seq;
    char *why = NULL;

    if (!j->unit.len) return;
    if (wal_log_append(j->log, &j->unit, &seq, &why) != 0) die(why);
    pthread_mutex_lock(&j->mutex);
    while (j->unfolded > UNFOLDED_MAX_BYTES) {
        j->room_waiters++;
        pthread_cond_signal(&j->work);
        pthread_cond_wait(&j->room, &j->mutex);
        j->room_waiters--;
    }
    text_buf_add(&j->queue, j->unit.data, j->unit.len);
    j->unfolded += j->unit.len;
    /* One wake-up a group: the first unit wakes the writer, a full group
     * ends its wait. */
    if (j->writer_idle || (j->writer_gathering && j->queue.len >= FOLD_GROUP_BYTES)) {
        j->writer_idle = j->writer_gathering = false;
        pthread_cond_signal(&j->work);
    }
    pthread_mutex_unlock(&j->mutex);
    j->unit.len = 0;
    j->unit_file = NULL;
}

/* ------------------------------------------------------------------------ */
/* files                                                                     */
/* ------------------------------------------------------------------------ */

/* Adds f to the journal's files. */
static void add_file(struct journal *j, struct journal_file *f)
{
    pthread_mutex_lock(&j->mutex);
    j->files = xrealloc(j->files, sizeof *j->files * (j->file_count + 1));
    j->files[j->file_count++] = f;
    pthread_mutex_unlock(&j->mutex);
}

static int prepare_statements(struct journal_file *f, char **why)
{
    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(f->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &f->stmts[i],
                               NULL) != SQLITE_OK)
            return disk_fail(why, f->path, f->db, "cannot read");
    }
    return 0;
}

/* The integer sql selects from f into *out. */
static int select_int(struct journal_file *f, const char *sql, uint64_t *out, char **why)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(f->db, sql, -1, &st, NULL) != SQLITE_OK)
        return disk_fail(why, f->path, f->db, "cannot read");
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = (uint64_t) sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return disk_fail(why, f->path, f->db, "cannot read");
    return 0;
}

/* The largest table uid in f, plus one. */
static int find_next_uid(struct journal_file *f, char **why)
{
    return select_int(f, "SELECT coalesce(max(uid), 0) + 1 FROM tables", &f->next_uid, why);
}

static void file_close(struct journal_file *f)
{
    if (!f) return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(f->stmts[i]);
    sqlite3_close(f->db);
    free(f->path);
    free(f->namespace_id);
    free(f);
}

/* Opens (create: creates) the namespace file at path. */
static struct journal_file *file_open(struct journal *j, const char *path, const char *namespace_id,
                                      bool create, char **why)
{
    struct journal_file *f = xcalloc(1, sizeof *f);

    f->j = j;
    f->path = xstrdup(path);
    if (disk_open_namespace(path, namespace_id, create, &f->db, &f->namespace_id, why) != 0 ||
        prepare_statements(f, why) != 0 || find_next_uid(f, why) != 0 ||
        select_int(
            f, "SELECT coalesce((SELECT value FROM meta WHERE key = '" DISK_META_FOLDED "'), 0)",
            &f->folded, why) != 0) {
        file_close(f);
        return NULL;
    }
    return f;
}

/* The namespace's file, opened (and created) on first use; NULL with *why
 * set (owned) when it cannot be. */
static struct journal_file *file_for(struct journal *j, const char *namespace_id, char **why)
{
    struct journal_file *f = NULL;
    char *path;

    pthread_mutex_lock(&j->mutex);
    for (size_t i = 0; !f && i < j->file_count; i++) {
        if (strcmp(j->files[i]->namespace_id, namespace_id) == 0) f = j->files[i];
    }
    pthread_mutex_unlock(&j->mutex);
    if (f) return f;
    path = disk_namespace_path(j->dir, namespace_id);
    f = file_open(j, path, namespace_id, true, why);
    free(path);
    if (f) add_file(j, f);
    return f;
}

struct journal_file *journal_file_for(struct journal *j, const char *namespace_id)
{
    char *why = NULL;
    struct journal_file *f = file_for(j, namespace_id, &why);

    if (!f) die(why);
    return f;
}

size_t journal_file_count(const struct journal *j)
{
    return j->file_count;
}

struct journal_file *journal_file_at(const struct journal *j, size_t i)
{
    return j->files[i];
}

const char *journal_file_namespace(const struct journal_file *f)
{
    return f->namespace_id;
}

const char *journal_file_path(const struct journal_file *f)
{
    return f->path;
}

sqlite3 *journal_file_db(const struct journal_file *f)
{
    return f->db;
}

/* ------------------------------------------------------------------------ */
/* meta                                                                      */
/* ------------------------------------------------------------------------ */

int64_t journal_meta_get(struct journal *j, const char *key)
{
    int64_t v;

    pthread_mutex_lock(&j->meta_mutex);
    v = disk_meta_get(j->meta, key);
    pthread_mutex_unlock(&j->meta_mutex);
    return v;
}

void journal_meta_set(struct journal *j, const char *key, int64_t value)
{
    pthread_mutex_lock(&j->meta_mutex);
    if (disk_meta_set(j->meta, key, value) != 0) {
        char *path = disk_meta_path(j->dir);
        die_on_disk_error(path, j->meta, "write to");
    }
    pthread_mutex_unlock(&j->meta_mutex);
}

/* ------------------------------------------------------------------------ */
/* opening and closing                                                       */
/* ------------------------------------------------------------------------ */

/* Opens every namespace file already in the directory. */
static int open_existing(struct journal *j, char **why)
{
    char **names = NULL;
    size_t count = 0;
    int rc = 0;

    if (disk_list_namespace_files(j->dir, &names, &count, why) != 0) return -1;
    for (size_t i = 0; i < count; i++) {
        char *path = disk_join(j->dir, names[i]);
        struct journal_file *f = rc == 0 ? file_open(j, path, NULL, false, why) : NULL;
        free(path);
        if (f)
            add_file(j, f);
        else
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

static int replay_unit(void *ctx, uint64_t seq, const void *payload, size_t len, char **why)
{
    struct journal *j = ctx;

    if (apply_unit(j, seq, payload, len, why) != 0) return -1;
    j->replayed = seq;
    return 0;
}

/* Commits a log file's units (a replay's transactions stay file-sized). */
static int replay_file_done(void *ctx, char **why)
{
    struct journal *j = ctx;

    (void) why;
    commit_group(j, j->replayed);
    return 0;
}

/*
 * Folds the log a previous run left (it stopped before its writer had folded
 * everything: kill -9, a crash) into the files, removes it, and starts a new
 * one numbered after everything the directory holds.
 */
static int replay_and_start_log(struct journal *j, char **why)
{
    uint64_t last, next = 0;

    if (wal_log_replay(j->dir, replay_unit, replay_file_done, j, &last, why) != 0) return -1;
    if (wal_log_remove_all(j->dir, why) != 0) return -1;
    for (size_t i = 0; i < j->file_count; i++) {
        /* Tables the replay created count for the next uid. */
        if (find_next_uid(j->files[i], why) != 0) return -1;
        if (j->files[i]->folded > next) next = j->files[i]->folded;
    }
    if (last > next) next = last;
    j->log = wal_log_create(j->dir, next + 1, WAL_LOG_ROTATE_BYTES, why);
    return j->log ? 0 : -1;
}

struct journal *journal_open(const char *dir, char **why)
{
    struct journal *j = xcalloc(1, sizeof *j);
    pthread_condattr_t attr;

    *why = NULL;
    j->dir = xstrdup(dir);
    j->lock_fd = -1;
    pthread_mutex_init(&j->mutex, NULL);
    pthread_mutex_init(&j->meta_mutex, NULL);
    /* The writer's timed wait must not stretch when the wall clock is set back. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&j->work, &attr);
    pthread_condattr_destroy(&attr);
    pthread_cond_init(&j->room, NULL);
    if (disk_lock_dir(dir, &j->lock_fd, why) != 0) goto fail;
    if (disk_open_meta(dir, &j->meta, why) != 0) goto fail;
    if (open_existing(j, why) != 0) goto fail;
    if (replay_and_start_log(j, why) != 0) goto fail;
    if (pthread_create(&j->writer, NULL, writer_main, j) != 0) {
        *why = xstrdup("cannot start the persistence thread");
        goto fail;
    }
    j->writer_started = true;
    return j;
fail:
    journal_close(j);
    return NULL;
}

void journal_close(struct journal *j)
{
    if (!j) return;
    if (j->writer_started) {
        journal_submit(j);
        pthread_mutex_lock(&j->mutex);
        j->stop = true;
        pthread_cond_signal(&j->work);
        pthread_mutex_unlock(&j->mutex);
        pthread_join(j->writer, NULL);
    }
    /* Everything appended is folded now: the log goes (the next start has
     * nothing to replay). A journal that failed to open appended nothing. */
    wal_log_close(j->log, true);
    for (size_t i = 0; i < j->file_count; i++)
        file_close(j->files[i]);
    free(j->files);
    free(j->touched);
    sqlite3_close(j->meta);
    disk_unlock_dir(j->lock_fd);
    text_buf_clear(&j->unit);
    text_buf_clear(&j->queue);
    text_buf_clear(&j->group);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->room);
    pthread_mutex_destroy(&j->mutex);
    pthread_mutex_destroy(&j->meta_mutex);
    free(j->dir);
    free(j);
}
