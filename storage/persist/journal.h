/*
 * journal.h - persistence: the data directory, its SQLite files, and the
 * journal that carries every committed change to them.
 *
 * The in-memory engine stays the source of truth; the files only follow it.
 * Every change is recorded, under the locks that order it (the catalog lock
 * exclusively, or its table's lock: docs/architecture.md "Locking") and in
 * commit order, into the calling thread's unit being built: the changes of
 * one engine call (a put, a transaction, a batch), encoded once. When the
 * call releases its locks, journal_submit() numbers the unit and adds it to
 * the log's records waiting to be written (wal_log.h) - still under them,
 * so every table's changes are in the log in its commit order, and changes
 * that conflict (one table, or the catalog) in theirs; units of calls on
 * different tables, which commute, take their log numbers in the order they
 * are added. Once the locks are let go, journal_flush() writes the waiting
 * records with one write() - those other threads added meanwhile too (a
 * group commit), so the write() no longer keeps the next writer of the
 * table waiting - and from then on the unit is as durable as it will be:
 * the request is answered at once. The writer thread folds the logged units
 * into the SQLite files in large groups (one transaction per file and group,
 * so a unit is all or nothing there too); each file records the last unit it
 * holds, and a log file is deleted once every unit in it is folded. Nobody
 * waits for the writer, except a submitter when the writer has fallen
 * UNFOLDED_MAX_BYTES behind (journal_internal.h): backpressure keeps the
 * queue's memory bounded.
 *
 * The log's payload, one unit: ops back to back, each a byte of kind then
 * its operands (uvar/ivar: codec.h's varints; blob: u32 length, bytes):
 *   OP_FILE          blob namespace - the file the ops after it change
 *   OP_ITEM_PUT      uvar uid, blob key, blob item (codec_put_value)
 *   OP_ITEM_DEL      uvar uid, blob key
 *   OP_TABLE_PUT     uvar uid, blob state          OP_TABLE_DEL uvar uid
 *   OP_STREAM_PUT    blob arn, blob state          OP_STREAM_DEL blob arn
 *   OP_STREAM_RECORD blob arn, uvar seq, blob record
 *   OP_STREAM_TRIM   blob arn, uvar upto
 *   OP_TOKEN_PUT     blob token, blob digest, ivar expires_ms
 *   OP_RESET         -
 *   OP_HISTORY_PUT   uvar uid, uvar seq, ivar ms, u8 flags (1 old, 2 new),
 *                    blob old item, blob new item (each when flagged)
 *   OP_HISTORY_TRIM  uvar uid, uvar upto
 *   OP_BACKUP_PUT    blob arn, blob state, uvar count, count blobs (items)
 *   OP_BACKUP_DEL    blob arn
 *   OP_BULK_PUT      blob arn, blob state
 * (numbers in journal_internal.h's enum op). Keys and items are the bytes the SQLite
 * rows hold, so the writer binds them as they are.
 *
 * At start (journal_open), before anything is loaded, the log a previous run
 * left - after kill -9 or a crash; a clean close folds everything and
 * deletes it - is replayed into the files (the units above each file's
 * folded one), committed and deleted. A torn record at the end of the last
 * log file was never acknowledged and is ignored; a damaged one elsewhere
 * refuses the directory (wal_log.h).
 *
 * Durability: a unit is in the operating system's hands once its write() to
 * the log returned, so everything acknowledged survives a crash or kill -9
 * of the process. The SQLite files are in WAL mode with synchronous=NORMAL
 * and the log is not fsync'd: a power loss or an operating-system crash can
 * lose the last units.
 *
 * Layout of DIR: ddbemu.lock (held with flock while a ddbemu uses DIR),
 * ddbemu.db (the engine-wide state: the clock offset, the streams' secret;
 * and the named snapshots, snapshot_file.h),
 * the log files ddbemu-<first unit>.log (wal_log.h), and one database per
 * namespace, named as DynamoDB Local names its files:
 * "shared-local-instance.db" with --shared-db, "<access key>_<region>.db"
 * otherwise. Each database records its schema version (PRAGMA user_version)
 * and our application id; a file of a newer version, of another program, or
 * one that is damaged is refused with a message, never reset or overwritten.
 *
 * Failure: when a file cannot be created or written (a full disk, a file
 * removed underneath), ddbemu prints why and exits at once rather than go on
 * answering writes it can no longer keep; nothing that was acknowledged is
 * lost.
 *
 * Locking: the recording functions (journal_file_for, journal_file_next_uid,
 * journal_put_* and the rest of their section below) are called with the
 * engine lock held exclusively, which orders them, except those an item
 * write makes (marked), which need only the table's lock exclusively: each
 * thread records into its own unit; journal_submit is called with the locks
 * held, just before they are released, and adds under its own mutex;
 * journal_flush without any lock.
 * Each asserts it (base/lock_check.h).
 * Opening, loading (before any request is served) and closing need no lock,
 * nor do the meta functions, which take a mutex of their own.
 */
#ifndef DDB_JOURNAL_H
#define DDB_JOURNAL_H

#include "storage/model/item.h"
#include "storage/model/key.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct journal;
struct journal_file;

/* The schema version this build writes; files of older versions are upgraded. */
#define JOURNAL_SCHEMA_VERSION 5

/* ---- opening and closing: no lock needed ---- */

/* Opens the data directory dir (created if missing): takes its lock, opens
 * every namespace file in it and upgrades old ones, replays the log a
 * previous run left into them, starts a new log and the writer thread. On
 * failure returns NULL with *why set to an owned, printable reason (another
 * ddbemu holds the directory, a newer or foreign or damaged file or log). */
struct journal *journal_open(const char *dir, char **why);
/* Submits what is pending, folds everything, stops the writer, deletes the
 * log, closes the files and releases the directory. NULL is a no-op. */
void journal_close(struct journal *j);

/* ---- reading back, at start (before any request is served): no lock needed ---- */

size_t journal_file_count(const struct journal *j);
struct journal_file *journal_file_at(const struct journal *j, size_t i);
/* The namespace a file holds (borrowed). */
const char *journal_file_namespace(const struct journal_file *f);
/* The file's path, for messages (borrowed). */
const char *journal_file_path(const struct journal_file *f);

/* Each loader calls fn for every row, in no particular order, and stops at
 * the first row fn refuses (returns false). Returns 0, or -1 with *why set
 * (owned) when SQLite reports the file damaged or fn refused a row. */
typedef bool journal_table_fn(void *ctx, uint64_t uid, const void *state, size_t state_len);
typedef bool journal_item_fn(void *ctx, uint64_t uid, const void *item, size_t item_len);
typedef bool journal_stream_fn(void *ctx, const char *arn, const void *state, size_t state_len);
typedef bool journal_record_fn(void *ctx, const char *arn, uint64_t seq, const void *record,
                               size_t record_len);
typedef bool journal_token_fn(void *ctx, const char *token, const char *digest, int64_t expires_ms);
/* One change of a table's point-in-time recovery history; either blob may be
 * NULL (an insert has no old item, a delete no new one). */
typedef bool journal_history_fn(void *ctx, uint64_t uid, uint64_t seq, int64_t ms,
                                const void *old_item, size_t old_len, const void *new_item,
                                size_t new_len);
typedef bool journal_backup_fn(void *ctx, const char *arn, const void *state, size_t state_len);
typedef bool journal_backup_item_fn(void *ctx, const char *arn, const void *item, size_t item_len);
int journal_load_tables(struct journal_file *f, journal_table_fn *fn, void *ctx, char **why);
int journal_load_items(struct journal_file *f, journal_item_fn *fn, void *ctx, char **why);
int journal_load_streams(struct journal_file *f, journal_stream_fn *fn, void *ctx, char **why);
int journal_load_stream_records(struct journal_file *f, journal_record_fn *fn, void *ctx,
                                char **why);
int journal_load_tokens(struct journal_file *f, journal_token_fn *fn, void *ctx, char **why);
/* History rows come in (uid, seq) order, backup items in (arn, seq) order. */
int journal_load_history(struct journal_file *f, journal_history_fn *fn, void *ctx, char **why);
int journal_load_backups(struct journal_file *f, journal_backup_fn *fn, void *ctx, char **why);
int journal_load_backup_items(struct journal_file *f, journal_backup_item_fn *fn, void *ctx,
                              char **why);
/* Bulk put items operations, in ARN order. */
typedef bool journal_bulk_fn(void *ctx, const char *arn, const void *state, size_t state_len);
int journal_load_bulk(struct journal_file *f, journal_bulk_fn *fn, void *ctx, char **why);

/* The engine-wide state in ddbemu.db, by key: an integer, 0 when never set. */
#define META_CLOCK_OFFSET  "clock_offset_ms"
#define META_STREAM_SECRET "stream_secret"
int64_t journal_meta_get(struct journal *j, const char *key);
/* Sets it and returns once it is durable (no engine lock needed). */
void journal_meta_set(struct journal *j, const char *key, int64_t value);

/* ---- recording: the caller holds the engine lock exclusively ---- */

/* The namespace's file, opened (and created) on first use. */
struct journal_file *journal_file_for(struct journal *j, const char *namespace_id);
/* A new table uid, unique within the file. */
uint64_t journal_file_next_uid(struct journal_file *f);

/* An item of table uid: item (a reference is taken) replaces the row at key;
 * NULL deletes it. The caller holds the table's lock exclusively (or the
 * catalog lock so). */
void journal_put_item(struct journal_file *f, uint64_t uid, const struct row_key *key,
                      struct item *item);
/* A table's definition and state (encoded by the caller), or its removal
 * with all its items. */
void journal_put_table(struct journal_file *f, uint64_t uid, const void *state, size_t len);
void journal_del_table(struct journal_file *f, uint64_t uid);
/* A stream's removal with its records. */
void journal_del_stream(struct journal_file *f, const char *arn);
/* A stream's metadata, one record, and the removal of its records up to seq
 * (the 24-hour trim): an item write makes them, so the caller holds the
 * table's lock exclusively (or the catalog lock so). */
void journal_put_stream(struct journal_file *f, const char *arn, const void *state, size_t len);
void journal_put_stream_record(struct journal_file *f, const char *arn, uint64_t seq,
                               const void *record, size_t len);
void journal_trim_stream(struct journal_file *f, const char *arn, uint64_t upto_seq);
/* A transaction's client token, remembered until expires_ms. */
void journal_put_token(struct journal_file *f, const char *token, const char *digest,
                       int64_t expires_ms);
/* One change of table uid's point-in-time recovery history (references are
 * taken to both items, either may be NULL), and the removal of its changes
 * up to upto_seq (UINT64_MAX: all of them). A removed table's history goes
 * with it (journal_del_table). The caller holds the table's lock exclusively
 * (or the catalog lock so). */
void journal_put_history(struct journal_file *f, uint64_t uid, uint64_t seq, int64_t ms,
                         struct item *old_item, struct item *new_item);
void journal_trim_history(struct journal_file *f, uint64_t uid, uint64_t upto_seq);
/* An on-demand backup: its description (encoded by the caller) and its
 * items (a reference is taken to each), or its removal with its items. */
void journal_put_backup(struct journal_file *f, const char *arn, const void *state, size_t len,
                        struct item *const *items, size_t item_count);
void journal_del_backup(struct journal_file *f, const char *arn);
/* A bulk put items operation's description (encoded by the caller), which
 * replaces the one recorded before. */
void journal_put_bulk(struct journal_file *f, const char *arn, const void *state, size_t len);
/* Everything of the namespace is gone (the emulator's reset). */
void journal_reset(struct journal_file *f);

/* ---- committing ---- */

/* Adds the changes recorded since the last submit to the log as one unit
 * (numbered, waiting to be written) and queues it for the writer; once
 * journal_flush returned, they survive kill -9.
 * Called with the engine lock held, just before it is released: exclusively
 * when something was recorded (a shared holder records nothing, and the call
 * is then a no-op). Waits for the writer only when it is UNFOLDED_MAX_BYTES
 * behind. */
void journal_submit(struct journal *j);
/* Returns once the unit this thread last submitted to j is written to the
 * log (the top of this file), writing it - and what other threads submitted
 * meanwhile - when no other thread did. Needs no lock: it runs after the
 * engine's locks are let go and before the request is answered; a no-op
 * when the thread submitted nothing since its last flush. A write that
 * fails ends the process (journal_die), as a failed append did. */
void journal_flush(struct journal *j);

#endif
