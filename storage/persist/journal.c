/*
 * journal.c - the data directory, its SQLite files and the writer thread;
 * see journal.h.
 *
 * Records are a singly linked list. Appends go to j->pending under the
 * engine's exclusive lock (no mutex of ours); journal_submit moves the list
 * to j->queue under j->mutex and counts one more unit. The writer swaps the
 * whole queue out, applies it file by file inside one transaction per file,
 * commits, and then publishes the unit count it took as committed.
 */
#include "storage/persist/journal.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/model/codec.h"
#include "storage/persist/disk.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum record_kind {
    REC_ITEM_PUT,
    REC_ITEM_DEL,
    REC_TABLE_PUT,
    REC_TABLE_DEL,
    REC_STREAM_PUT,
    REC_STREAM_DEL,
    REC_STREAM_RECORD,
    REC_STREAM_TRIM,
    REC_TOKEN_PUT,
    REC_RESET,
    REC_HISTORY_PUT,
    REC_HISTORY_TRIM,
    REC_BACKUP_PUT,
    REC_BACKUP_DEL,
};

struct record {
    struct record *next;
    enum record_kind kind;
    struct journal_file *file;
    uint64_t uid;    /* table uid; stream record: its sequence number */
    int64_t number;  /* token expiry; trim: the last sequence number dropped; history: seq */
    int64_t number2; /* history: the change's time */
    char *text;      /* owned: stream ARN, token */
    char *text2;     /* owned: token digest */
    char *blob;      /* owned: key (items) or encoded state */
    size_t blob_len;
    struct item *item;   /* REC_ITEM_PUT: a reference; REC_HISTORY_PUT: the old item or NULL */
    struct item *item2;  /* REC_HISTORY_PUT: the new item, or NULL */
    struct item **items; /* REC_BACKUP_PUT: references, owned array */
    size_t item_count;
};

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
    bool in_transaction; /* the writer's current batch has begun on this file */
};

/* How many times at most the writer yields to let a group grow (gather);
 * a bound on how long a steady stream of units can hold back a commit. */
#define GATHER_TURNS 8

/* A caller waiting for a commit without blocking (journal_notify). */
struct notification {
    struct notification *next;
    uint64_t lsn;
    void (*ready)(void *ctx);
    void *ctx;
};

struct journal {
    char *dir;
    int lock_fd;
    sqlite3 *meta; /* ddbemu.db */
    pthread_mutex_t meta_mutex;

    struct journal_file **files;
    size_t file_count;

    /* Appended to under the engine's exclusive lock. */
    struct record *pending, **pending_tail;

    pthread_mutex_t mutex; /* guards everything below */
    pthread_cond_t work;   /* the queue is not empty, or stop */
    pthread_cond_t done;   /* committed moved */
    struct record *queue, **queue_tail;
    uint64_t submitted;                 /* units handed to the writer */
    uint64_t committed;                 /* units on disk */
    bool writer_idle;                   /* the writer waits for work */
    struct text_buf scratch;            /* the writer's buffer */
    struct notification *notifications; /* waiting for committed to reach their lsn */
    bool stop;
    pthread_t writer;
    bool writer_started;
};

/* ------------------------------------------------------------------------ */
/* failing                                                                   */
/* ------------------------------------------------------------------------ */

/* A write to disk failed: nothing acknowledged from here on could be kept,
 * so ddbemu stops (journal.h, "Failure"). */
static void die_on_disk_error(const char *path, sqlite3 *db, const char *what)
{
    fprintf(stderr,
            "ddbemu: cannot %s %s: %s; stopping so that no write is acknowledged that "
            "would not survive a restart\n",
            what, path, db ? sqlite3_errmsg(db) : strerror(errno));
    _exit(1);
}

/* ------------------------------------------------------------------------ */
/* records                                                                   */
/* ------------------------------------------------------------------------ */

static struct record *record_new(struct journal_file *f, enum record_kind kind)
{
    struct record *r = xcalloc(1, sizeof *r);

    r->kind = kind;
    r->file = f;
    *f->j->pending_tail = r;
    f->j->pending_tail = &r->next;
    return r;
}

static void record_free(struct record *r)
{
    item_unref(r->item);
    item_unref(r->item2);
    for (size_t i = 0; i < r->item_count; i++)
        item_unref(r->items[i]);
    free(r->items);
    free(r->text);
    free(r->text2);
    free(r->blob);
    free(r);
}

static char *copy_blob(const void *data, size_t len)
{
    char *b = xmalloc(len ? len : 1);
    if (len) memcpy(b, data, len);
    return b;
}

/* The primary key of an item's row: its partition hash, then its key values. */
static void encode_key(const struct row_key *key, struct record *r)
{
    struct text_buf b = {0};

    codec_put_uvar(&b, key->hash);
    for (size_t i = 0; i < key->part_count; i++)
        codec_put_value(&b, key->parts[i]);
    r->blob = text_buf_take(&b, &r->blob_len);
}

void journal_put_item(struct journal_file *f, uint64_t uid, const struct row_key *key,
                      struct item *item)
{
    struct record *r = record_new(f, item ? REC_ITEM_PUT : REC_ITEM_DEL);

    r->uid = uid;
    r->item = item_ref(item);
    encode_key(key, r);
}

void journal_put_table(struct journal_file *f, uint64_t uid, const void *state, size_t len)
{
    struct record *r = record_new(f, REC_TABLE_PUT);

    r->uid = uid;
    r->blob = copy_blob(state, len);
    r->blob_len = len;
}

void journal_del_table(struct journal_file *f, uint64_t uid)
{
    record_new(f, REC_TABLE_DEL)->uid = uid;
}

void journal_put_stream(struct journal_file *f, const char *arn, const void *state, size_t len)
{
    struct record *r = record_new(f, REC_STREAM_PUT);

    r->text = xstrdup(arn);
    r->blob = copy_blob(state, len);
    r->blob_len = len;
}

void journal_del_stream(struct journal_file *f, const char *arn)
{
    record_new(f, REC_STREAM_DEL)->text = xstrdup(arn);
}

void journal_put_stream_record(struct journal_file *f, const char *arn, uint64_t seq,
                               const void *record, size_t len)
{
    struct record *r = record_new(f, REC_STREAM_RECORD);

    r->text = xstrdup(arn);
    r->uid = seq;
    r->blob = copy_blob(record, len);
    r->blob_len = len;
}

void journal_trim_stream(struct journal_file *f, const char *arn, uint64_t upto_seq)
{
    struct record *r = record_new(f, REC_STREAM_TRIM);

    r->text = xstrdup(arn);
    r->number = (int64_t) upto_seq;
}

void journal_put_token(struct journal_file *f, const char *token, const char *digest,
                       int64_t expires_ms)
{
    struct record *r = record_new(f, REC_TOKEN_PUT);

    r->text = xstrdup(token);
    r->text2 = xstrdup(digest);
    r->number = expires_ms;
}

void journal_put_history(struct journal_file *f, uint64_t uid, uint64_t seq, int64_t ms,
                         struct item *old_item, struct item *new_item)
{
    struct record *r = record_new(f, REC_HISTORY_PUT);

    r->uid = uid;
    r->number = (int64_t) seq;
    r->item = item_ref(old_item);
    r->item2 = item_ref(new_item);
    r->number2 = ms;
}

void journal_trim_history(struct journal_file *f, uint64_t uid, uint64_t upto_seq)
{
    struct record *r = record_new(f, REC_HISTORY_TRIM);

    r->uid = uid;
    /* SQLite integers are signed: "everything" is the largest of them. */
    r->number = upto_seq > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) upto_seq;
}

void journal_put_backup(struct journal_file *f, const char *arn, const void *state, size_t len,
                        struct item *const *items, size_t item_count)
{
    struct record *r = record_new(f, REC_BACKUP_PUT);

    r->text = xstrdup(arn);
    r->blob = copy_blob(state, len);
    r->blob_len = len;
    r->items = xmalloc(sizeof *r->items * (item_count ? item_count : 1));
    for (size_t i = 0; i < item_count; i++)
        r->items[i] = item_ref(items[i]);
    r->item_count = item_count;
}

void journal_del_backup(struct journal_file *f, const char *arn)
{
    record_new(f, REC_BACKUP_DEL)->text = xstrdup(arn);
}

void journal_reset(struct journal_file *f)
{
    record_new(f, REC_RESET);
}

uint64_t journal_file_next_uid(struct journal_file *f)
{
    return f->next_uid++;
}

/* ------------------------------------------------------------------------ */
/* the writer                                                                */
/* ------------------------------------------------------------------------ */

/* Runs one statement of f with the record's fields bound as the statement
 * wants them (r is not read for BEGIN and COMMIT). */
static void run(struct journal_file *f, enum stmt which, const struct record *r,
                const char *item_blob, size_t item_len)
{
    sqlite3_stmt *st = f->stmts[which];
    int rc;

    switch (which) {
    case ST_ITEM_PUT:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid);
        sqlite3_bind_blob(st, 2, r->blob, (int) r->blob_len, SQLITE_STATIC);
        sqlite3_bind_blob(st, 3, item_blob, (int) item_len, SQLITE_STATIC);
        break;
    case ST_ITEM_DEL:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid);
        sqlite3_bind_blob(st, 2, r->blob, (int) r->blob_len, SQLITE_STATIC);
        break;
    case ST_TABLE_PUT:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid);
        sqlite3_bind_blob(st, 2, r->blob, (int) r->blob_len, SQLITE_STATIC);
        break;
    case ST_TABLE_DEL:
    case ST_TABLE_ITEMS_DEL: sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid); break;
    case ST_STREAM_PUT:
        sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, r->blob, (int) r->blob_len, SQLITE_STATIC);
        break;
    case ST_STREAM_DEL:
    case ST_STREAM_RECORDS_DEL: sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC); break;
    case ST_RECORD_PUT:
        sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (sqlite3_int64) r->uid);
        sqlite3_bind_blob(st, 3, r->blob, (int) r->blob_len, SQLITE_STATIC);
        break;
    case ST_RECORD_TRIM:
        sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->number);
        break;
    case ST_TOKEN_PUT:
        sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->text2, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, r->number);
        break;
    case ST_TOKEN_EXPIRE: sqlite3_bind_int64(st, 1, r->number); break;
    case ST_HISTORY_PUT: {
        /* item_blob holds the old item's encoding then the new one's; r->blob_len
         * (set by apply) says where the first ends. */
        size_t old_len = r->blob_len;
        sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid);
        sqlite3_bind_int64(st, 2, r->number);
        sqlite3_bind_int64(st, 3, r->number2);
        if (r->item)
            sqlite3_bind_blob(st, 4, item_blob, (int) old_len, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        if (r->item2)
            sqlite3_bind_blob(st, 5, item_blob + old_len, (int) (item_len - old_len),
                              SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        break;
    }
    case ST_HISTORY_TRIM:
        sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid);
        sqlite3_bind_int64(st, 2, r->number);
        break;
    case ST_TABLE_HISTORY_DEL: sqlite3_bind_int64(st, 1, (sqlite3_int64) r->uid); break;
    case ST_BACKUP_PUT:
        sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, r->blob, (int) r->blob_len, SQLITE_STATIC);
        break;
    case ST_BACKUP_ITEM_PUT:
        sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->number);
        sqlite3_bind_blob(st, 3, item_blob, (int) item_len, SQLITE_STATIC);
        break;
    case ST_BACKUP_DEL:
    case ST_BACKUP_ITEMS_DEL: sqlite3_bind_text(st, 1, r->text, -1, SQLITE_STATIC); break;
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

/* Applies one record inside its file's open transaction. */
static void apply(struct record *r, struct text_buf *scratch)
{
    struct journal_file *f = r->file;

    switch (r->kind) {
    case REC_ITEM_PUT:
        scratch->len = 0;
        codec_put_value(scratch, &r->item->attrs);
        run(f, ST_ITEM_PUT, r, scratch->data, scratch->len);
        break;
    case REC_ITEM_DEL: run(f, ST_ITEM_DEL, r, NULL, 0); break;
    case REC_TABLE_PUT: run(f, ST_TABLE_PUT, r, NULL, 0); break;
    case REC_TABLE_DEL:
        run(f, ST_TABLE_DEL, r, NULL, 0);
        run(f, ST_TABLE_ITEMS_DEL, r, NULL, 0);
        run(f, ST_TABLE_HISTORY_DEL, r, NULL, 0);
        break;
    case REC_STREAM_PUT: run(f, ST_STREAM_PUT, r, NULL, 0); break;
    case REC_STREAM_DEL:
        run(f, ST_STREAM_DEL, r, NULL, 0);
        run(f, ST_STREAM_RECORDS_DEL, r, NULL, 0);
        break;
    case REC_STREAM_RECORD: run(f, ST_RECORD_PUT, r, NULL, 0); break;
    case REC_STREAM_TRIM: run(f, ST_RECORD_TRIM, r, NULL, 0); break;
    case REC_TOKEN_PUT: {
        /* Expired tokens go as new ones come: at most ten minutes' worth stay. */
        struct record expire = {.number = r->number - 2 * DDB_CLIENT_TOKEN_TTL_MS};
        run(f, ST_TOKEN_EXPIRE, &expire, NULL, 0);
        run(f, ST_TOKEN_PUT, r, NULL, 0);
        break;
    }
    case REC_RESET:
        exec_or_die(f, "DELETE FROM items; DELETE FROM tables; DELETE FROM stream_records; "
                       "DELETE FROM streams; DELETE FROM tokens; DELETE FROM pitr_history; "
                       "DELETE FROM backups; DELETE FROM backup_items;");
        break;
    case REC_HISTORY_PUT:
        scratch->len = 0;
        if (r->item) codec_put_value(scratch, &r->item->attrs);
        r->blob_len = scratch->len;
        if (r->item2) codec_put_value(scratch, &r->item2->attrs);
        run(f, ST_HISTORY_PUT, r, scratch->data, scratch->len);
        break;
    case REC_HISTORY_TRIM: run(f, ST_HISTORY_TRIM, r, NULL, 0); break;
    case REC_BACKUP_PUT:
        run(f, ST_BACKUP_PUT, r, NULL, 0);
        for (size_t i = 0; i < r->item_count; i++) {
            struct record item = {.text = r->text, .number = (int64_t) i};
            scratch->len = 0;
            codec_put_value(scratch, &r->items[i]->attrs);
            run(f, ST_BACKUP_ITEM_PUT, &item, scratch->data, scratch->len);
        }
        break;
    case REC_BACKUP_DEL:
        run(f, ST_BACKUP_DEL, r, NULL, 0);
        run(f, ST_BACKUP_ITEMS_DEL, r, NULL, 0);
        break;
    }
}

/* Unlinks and returns the notifications whose lsn is committed; the caller
 * holds j->mutex. */
static struct notification *take_ready(struct journal *j)
{
    struct notification *ready = NULL, **link = &j->notifications;

    while (*link) {
        struct notification *n = *link;
        if (n->lsn <= j->committed) {
            *link = n->next;
            n->next = ready;
            ready = n;
        } else {
            link = &n->next;
        }
    }
    return ready;
}

/*
 * Commits whatever is queued, on the writer's thread: called with j->mutex
 * held, which is released while SQLite works, so that more units queue up
 * meanwhile - they form the next group.
 */
static void commit_queued(struct journal *j)
{
    struct record *batch = j->queue;
    struct notification *ready;
    uint64_t upto = j->submitted;

    j->queue = NULL;
    j->queue_tail = &j->queue;
    pthread_mutex_unlock(&j->mutex);

    for (struct record *r = batch; r; r = r->next) {
        if (!r->file->in_transaction) {
            run(r->file, ST_BEGIN, r, NULL, 0);
            r->file->in_transaction = true;
        }
        apply(r, &j->scratch);
    }
    for (size_t i = 0; i < j->file_count; i++) {
        struct journal_file *f = j->files[i];
        if (!f->in_transaction) continue;
        run(f, ST_COMMIT, NULL, NULL, 0);
        f->in_transaction = false;
    }
    while (batch) {
        struct record *next = batch->next;
        record_free(batch);
        batch = next;
    }

    pthread_mutex_lock(&j->mutex);
    j->committed = upto;
    /* Under the mutex, so that journal_wait returning means that the
     * notifications up to its lsn have run too. */
    for (ready = take_ready(j); ready;) {
        struct notification *next = ready->next;
        ready->ready(ready->ctx);
        free(ready);
        ready = next;
    }
    pthread_cond_broadcast(&j->done);
}

/*
 * Lets the group grow before it is committed, for as long as it does grow:
 * the writer gives the processor to the threads that are ready to run (the
 * workers, handling requests that will submit units) and looks again; it
 * stops as soon as a turn brought no new unit, or after GATHER_TURNS turns.
 * Called with j->mutex held. When nothing else is ready to run, sched_yield
 * returns at once and the group is committed without delay.
 *
 * Why: woken by the first submit, the writer used to commit groups of one or
 * two units, and each unit then paid a commit's wake-ups of its own (the
 * writer's, and the worker's that resumes the held answer); a timed wait
 * instead costs a timer wake-up and delays a lone writer too.
 */
static void gather(struct journal *j)
{
    for (int turn = 0; turn < GATHER_TURNS && !j->stop; turn++) {
        uint64_t before = j->submitted;
        pthread_mutex_unlock(&j->mutex);
        sched_yield();
        pthread_mutex_lock(&j->mutex);
        if (j->submitted == before) break;
    }
}

/* The writer: commits the queue, again and again while units keep coming
 * (each commit's group is what queued during the one before), and sleeps
 * when there is nothing to do. */
static void *writer_main(void *arg)
{
    struct journal *j = arg;

    pthread_mutex_lock(&j->mutex);
    for (;;) {
        if (j->queue) {
            gather(j);
            commit_queued(j);
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

uint64_t journal_last(struct journal *j)
{
    uint64_t lsn;

    pthread_mutex_lock(&j->mutex);
    lsn = j->submitted;
    pthread_mutex_unlock(&j->mutex);
    return lsn;
}

uint64_t journal_submit(struct journal *j)
{
    uint64_t lsn;

    if (!j->pending) return 0;
    pthread_mutex_lock(&j->mutex);
    *j->queue_tail = j->pending;
    j->queue_tail = j->pending_tail;
    lsn = ++j->submitted;
    /* A writer that is committing takes the queue when it is done anyway. */
    if (j->writer_idle) pthread_cond_signal(&j->work);
    pthread_mutex_unlock(&j->mutex);
    j->pending = NULL;
    j->pending_tail = &j->pending;
    return lsn;
}

void journal_wait(struct journal *j, uint64_t lsn)
{
    if (!lsn) return;
    pthread_mutex_lock(&j->mutex);
    while (j->committed < lsn)
        pthread_cond_wait(&j->done, &j->mutex);
    pthread_mutex_unlock(&j->mutex);
}

bool journal_notify(struct journal *j, uint64_t lsn, void (*ready)(void *ctx), void *ctx)
{
    struct notification *n;

    pthread_mutex_lock(&j->mutex);
    if (j->committed >= lsn) {
        pthread_mutex_unlock(&j->mutex);
        return false;
    }
    n = xmalloc(sizeof *n);
    n->lsn = lsn;
    n->ready = ready;
    n->ctx = ctx;
    n->next = j->notifications;
    j->notifications = n;
    pthread_mutex_unlock(&j->mutex);
    return true;
}

/* ------------------------------------------------------------------------ */
/* files                                                                     */
/* ------------------------------------------------------------------------ */

/* Adds f to the journal's files (the writer reads the array between
 * batches; the engine lock and the writer's mutex order the two). */
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

/* The largest table uid in f, plus one. */
static int find_next_uid(struct journal_file *f, char **why)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(f->db, "SELECT coalesce(max(uid), 0) + 1 FROM tables", -1, &st, NULL) !=
        SQLITE_OK)
        return disk_fail(why, f->path, f->db, "cannot read");
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) f->next_uid = (uint64_t) sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return disk_fail(why, f->path, f->db, "cannot read");
    return 0;
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
        prepare_statements(f, why) != 0 || find_next_uid(f, why) != 0) {
        file_close(f);
        return NULL;
    }
    return f;
}

struct journal_file *journal_file_for(struct journal *j, const char *namespace_id)
{
    struct journal_file *f;
    char *path, *why = NULL;

    for (size_t i = 0; i < j->file_count; i++) {
        if (strcmp(j->files[i]->namespace_id, namespace_id) == 0) return j->files[i];
    }
    path = disk_namespace_path(j->dir, namespace_id);
    f = file_open(j, path, namespace_id, true, &why);
    if (!f) {
        fprintf(stderr,
                "ddbemu: %s; stopping so that no write is acknowledged that would not "
                "survive a restart\n",
                why);
        _exit(1);
    }
    free(path);
    add_file(j, f);
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

/* ------------------------------------------------------------------------ */
/* loading                                                                   */
/* ------------------------------------------------------------------------ */

/* Runs sql over f and calls row(st) for each row until it returns false. */
static int each_row(struct journal_file *f, const char *sql, bool (*row)(sqlite3_stmt *, void *),
                    void *ctx, char **why)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(f->db, sql, -1, &st, NULL) != SQLITE_OK)
        return disk_fail(why, f->path, f->db, "cannot read");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!row(st, ctx)) {
            sqlite3_finalize(st);
            return disk_fail(why, f->path, NULL, "holds a record this ddbemu cannot read in");
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return disk_fail(why, f->path, f->db, "cannot read");
    return 0;
}

struct load_ctx {
    void *fn;
    void *ctx;
};

static bool table_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    return ((journal_table_fn *) l->fn)(l->ctx, (uint64_t) sqlite3_column_int64(st, 0),
                                        sqlite3_column_blob(st, 1),
                                        (size_t) sqlite3_column_bytes(st, 1));
}

static bool item_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    return ((journal_item_fn *) l->fn)(l->ctx, (uint64_t) sqlite3_column_int64(st, 0),
                                       sqlite3_column_blob(st, 1),
                                       (size_t) sqlite3_column_bytes(st, 1));
}

static bool stream_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_stream_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                                (size_t) sqlite3_column_bytes(st, 1));
}

static bool record_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_record_fn *) l->fn)(l->ctx, arn, (uint64_t) sqlite3_column_int64(st, 1),
                                                sqlite3_column_blob(st, 2),
                                                (size_t) sqlite3_column_bytes(st, 2));
}

static bool token_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *token = (const char *) sqlite3_column_text(st, 0);
    const char *digest = (const char *) sqlite3_column_text(st, 1);
    return token && digest &&
           ((journal_token_fn *) l->fn)(l->ctx, token, digest, sqlite3_column_int64(st, 2));
}

int journal_load_tables(struct journal_file *f, journal_table_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT uid, state FROM tables ORDER BY uid", table_row, &l, why);
}

int journal_load_items(struct journal_file *f, journal_item_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT uid, item FROM items", item_row, &l, why);
}

int journal_load_streams(struct journal_file *f, journal_stream_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, state FROM streams", stream_row, &l, why);
}

int journal_load_stream_records(struct journal_file *f, journal_record_fn *fn, void *ctx,
                                char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, seq, record FROM stream_records ORDER BY arn, seq", record_row,
                    &l, why);
}

int journal_load_tokens(struct journal_file *f, journal_token_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT token, digest, expires_ms FROM tokens", token_row, &l, why);
}

static bool history_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    return ((journal_history_fn *) l->fn)(
        l->ctx, (uint64_t) sqlite3_column_int64(st, 0), (uint64_t) sqlite3_column_int64(st, 1),
        sqlite3_column_int64(st, 2), sqlite3_column_blob(st, 3),
        (size_t) sqlite3_column_bytes(st, 3), sqlite3_column_blob(st, 4),
        (size_t) sqlite3_column_bytes(st, 4));
}

static bool backup_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_backup_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                                (size_t) sqlite3_column_bytes(st, 1));
}

static bool backup_item_row(sqlite3_stmt *st, void *arg)
{
    struct load_ctx *l = arg;
    const char *arn = (const char *) sqlite3_column_text(st, 0);
    return arn && ((journal_backup_item_fn *) l->fn)(l->ctx, arn, sqlite3_column_blob(st, 1),
                                                     (size_t) sqlite3_column_bytes(st, 1));
}

int journal_load_history(struct journal_file *f, journal_history_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f,
                    "SELECT uid, seq, ms, old_item, new_item FROM pitr_history ORDER BY uid, seq",
                    history_row, &l, why);
}

int journal_load_backups(struct journal_file *f, journal_backup_fn *fn, void *ctx, char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, state FROM backups ORDER BY arn", backup_row, &l, why);
}

int journal_load_backup_items(struct journal_file *f, journal_backup_item_fn *fn, void *ctx,
                              char **why)
{
    struct load_ctx l = {(void *) fn, ctx};
    return each_row(f, "SELECT arn, item FROM backup_items ORDER BY arn, seq", backup_item_row, &l,
                    why);
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

struct journal *journal_open(const char *dir, char **why)
{
    struct journal *j = xcalloc(1, sizeof *j);

    *why = NULL;
    j->dir = xstrdup(dir);
    j->lock_fd = -1;
    j->pending_tail = &j->pending;
    j->queue_tail = &j->queue;
    pthread_mutex_init(&j->mutex, NULL);
    pthread_mutex_init(&j->meta_mutex, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->done, NULL);
    if (disk_lock_dir(dir, &j->lock_fd, why) != 0) goto fail;
    if (disk_open_meta(dir, &j->meta, why) != 0) goto fail;
    if (open_existing(j, why) != 0) goto fail;
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
        journal_wait(j, journal_submit(j));
        pthread_mutex_lock(&j->mutex);
        j->stop = true;
        pthread_cond_signal(&j->work);
        pthread_mutex_unlock(&j->mutex);
        pthread_join(j->writer, NULL);
    }
    while (j->pending) {
        struct record *next = j->pending->next;
        record_free(j->pending);
        j->pending = next;
    }
    for (size_t i = 0; i < j->file_count; i++)
        file_close(j->files[i]);
    free(j->files);
    sqlite3_close(j->meta);
    disk_unlock_dir(j->lock_fd);
    text_buf_clear(&j->scratch);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->done);
    pthread_mutex_destroy(&j->mutex);
    pthread_mutex_destroy(&j->meta_mutex);
    free(j->dir);
    free(j);
}
