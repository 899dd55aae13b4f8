/*
 * journal_internal.h - what the journal's files share, and nothing outside
 * storage/persist/ includes: the journal's structs, the ops of a unit's
 * payload, the statements of a file, and the calls between the files.
 *
 * The journal is four files, one job each:
 *   journal.c        the data directory: its namespace files, ddbemu.db's
 *                    meta values, opening (with the replay of the log a
 *                    previous run left) and closing, dying on a disk error;
 *   journal_encode.c the unit being built: journal_put_* encode each change
 *                    as an op, under the engine's exclusive lock;
 *   journal_apply.c  a unit's ops applied to the SQLite files, one
 *                    transaction per file and group (the writer, and the
 *                    replay at start);
 *   journal_writer.c journal_submit (the unit into the log and the queue)
 *                    and the writer thread that folds the queue.
 * journal_load.c reads a file back at start.
 */
#ifndef DDB_JOURNAL_INTERNAL_H
#define DDB_JOURNAL_INTERNAL_H

#include "storage/base/lock_check.h"
#include "storage/base/text.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

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
    OP_BULK_PUT = 16,
};

/* OP_HISTORY_PUT's flags: which of the two items follow. */
#define HISTORY_HAS_OLD 1
#define HISTORY_HAS_NEW 2

/* The statements of one file, prepared once (journal_apply.c). */
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
    ST_BULK_PUT,
    ST_FOLDED,
    /* A group's transaction: prepared like the rest, since parsing BEGIN and
     * COMMIT again for every group cost about as much as its INSERT. */
    ST_BEGIN,
    ST_COMMIT,
    ST_COUNT,
};

struct journal_file {
    struct journal *j;
    char *path;
    char *namespace_id;
    sqlite3 *db;
    sqlite3_stmt *stmts[ST_COUNT]; /* prepared once, when the file is opened (journal.c) */
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

/* One unit being built (journal.h): the log record's header, then the ops;
 * file is the file its last OP_FILE named. */
struct journal_unit {
    struct text_buf buf;
    struct journal_file *file;
};

struct journal {
    char *dir;
    int lock_fd;
    sqlite3 *meta; /* ddbemu.db */
    pthread_mutex_t meta_mutex;

    struct journal_file **files;
    size_t file_count;

    struct wal_log *log;
    /* The units being built, one per thread that records (the catalog lock
     * exclusively, or its tables' locks: several at once, docs/architecture.md
     * "Locking"), and the spare ones, reused: each thread finds its own
     * through journal_encode.c's thread-local pointer. Every unit ever made
     * is in `units` (freed at close), the idle ones in `spare`; both under
     * units_mutex. */
    struct journal_unit **units;
    size_t unit_count;
    struct journal_unit **spare;
    size_t spare_count;
    struct checked_mutex units_mutex;
    /* Orders the appends: a unit's log number, its place in the log and its
     * place in the queue are taken together under it (journal_writer.c). */
    struct checked_mutex append_mutex;

    struct checked_mutex mutex; /* guards everything down to the writer's own */
    pthread_cond_t work;        /* a unit is waiting, the group is full, or stop */
    pthread_cond_t room;        /* unfolded fell (backpressure) */
    struct text_buf queue;      /* log records submitted, not yet taken by the writer */
    size_t unfolded;            /* bytes submitted and not yet committed */
    bool writer_idle;           /* the writer waits for a first unit */
    bool writer_gathering;      /* the writer lets a group grow (FOLD_WAIT_MS) */
    unsigned room_waiters;      /* submitters held back by UNFOLDED_MAX_BYTES */
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

/* ---- journal.c ---- */

/* A write to disk failed: nothing acknowledged from here on could be kept,
 * so ddbemu stops (journal.h, "Failure"). */
_Noreturn void journal_die(const char *why);
/* The same, with what failed on which file (db NULL: errno says why). */
_Noreturn void journal_die_on_disk_error(const char *path, sqlite3 *db, const char *what);
/* The namespace's file, opened (and created) on first use; NULL with *why
 * set (owned) when it cannot be. */
struct journal_file *journal_file_get(struct journal *j, const char *namespace_id, char **why);
/* The file's SQLite handle (borrowed). Read only, and only before the
 * writer starts using it (loading happens before any request is served). */
sqlite3 *journal_file_db(const struct journal_file *f);
/* Opens (create: creates) the namespace file at path, its statements
 * prepared; NULL with *why set (owned) when it cannot be. The opening and
 * closing of the directory (journal_open.c) use these three and
 * journal_add_file. */
struct journal_file *journal_file_open(struct journal *j, const char *path,
                                       const char *namespace_id, bool create, char **why);
/* Closes f and frees it. */
void journal_file_close(struct journal_file *f);
/* Adds f to the journal's files. */
void journal_add_file(struct journal *j, struct journal_file *f);
/* Sets f's next table uid: the largest in f, plus one. */
int journal_find_next_uid(struct journal_file *f, char **why);

/* ---- journal_apply.c ---- */

/*
 * Applies unit seq's ops to their files, each inside the group's transaction
 * on it. The ops of a file that already holds unit seq (its folded) are
 * skipped: only at start, replaying a log the writer had partly folded.
 * Returns 0, or -1 with *why set (owned) when the payload cannot be read.
 * Runs on the writer's thread, or at start before it exists.
 */
int journal_apply_unit(struct journal *j, uint64_t seq, const void *payload, size_t len,
                       char **why);
/* Commits the group's transactions, each recording that its file holds
 * every unit through seq. */
void journal_commit_group(struct journal *j, uint64_t seq);

/* ---- journal_encode.c ---- */

/* The calling thread's unit being built: with create, one is taken from the
 * spares (or made) when it has none; without, NULL when it has none. */
struct journal_unit *journal_unit_of(struct journal *j, bool create);
/* The thread's unit u was submitted: emptied and back among the spares. */
void journal_unit_done(struct journal *j, struct journal_unit *u);

/* ---- journal_writer.c ---- */

/* Starts the writer thread; -1 with *why set (owned) when it cannot be. */
int journal_writer_start(struct journal *j, char **why);
/* Appends what is pending, lets the writer fold everything and joins it.
 * Called once, by journal_close, when nobody records any more. */
void journal_writer_stop(struct journal *j);

#endif
