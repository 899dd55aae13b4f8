/*
 * journal_apply.c - a unit's ops applied to the SQLite files: the statements
 * of a file (prepared once), reading each op back from the payload, running
 * its statements inside the group's transaction on its file, and committing
 * the group with the last unit each file now holds. The writer thread
 * (journal_writer.c) folds the queue with it, and journal_open replays the
 * log a previous run left with it before the writer starts; either way one
 * thread at a time, which owns j's group state (journal_internal.h).
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/model/codec.h"
#include "storage/persist/disk.h"
#include "storage/persist/journal_internal.h"

#include <stdlib.h>
#include <string.h>

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
    case ST_BULK_PUT:
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
    if (rc != SQLITE_DONE) journal_die_on_disk_error(f->path, f->db, "write to");
}

static void exec_or_die(struct journal_file *f, const char *sql)
{
    if (sqlite3_exec(f->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        journal_die_on_disk_error(f->path, f->db, "write to");
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
    case OP_BULK_PUT:
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
        exec_or_die(f,
                    "DELETE FROM items; DELETE FROM tables; DELETE FROM stream_records; "
                    "DELETE FROM streams; DELETE FROM tokens; DELETE FROM pitr_history; "
                    "DELETE FROM backups; DELETE FROM backup_items; DELETE FROM bulk_operations;");
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
    case OP_BULK_PUT: run(f, ST_BULK_PUT, a); break;
    case OP_FILE: break;
    }
}

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
    f = strlen(name) == len ? journal_file_get(j, name, why) : NULL;
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

/* See journal_internal.h. */
int journal_apply_unit(struct journal *j, uint64_t seq, const void *payload, size_t len, char **why)
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

void journal_commit_group(struct journal *j, uint64_t seq)
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
