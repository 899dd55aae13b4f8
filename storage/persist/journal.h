/*
 * journal.h - persistence: the data directory, its SQLite files, and the
 * journal that carries every committed change to them.
 *
 * The in-memory engine stays the source of truth; the files only follow it.
 * Every change is recorded, under the engine's exclusive lock and in commit
 * order, as a record in the journal's pending list (a few pointers; items
 * are immutable and recorded by reference). When the engine call that made
 * the changes releases the lock, journal_submit() hands the whole list to the
 * writer thread as one unit, and journal_wait() returns once the writer has
 * committed it: the request is answered only after its changes are on disk.
 * The writer takes every unit that is waiting and commits them in one SQLite
 * transaction per file (group commit), so a unit - a transaction, a batch -
 * is all or nothing on disk, and concurrent writers share the cost of a
 * commit.
 *
 * Durability: the files are in WAL mode with synchronous=NORMAL. A commit is
 * in the operating system's hands once the writer's write() returns, so
 * everything acknowledged survives a crash or kill -9 of the process; a
 * power loss or an operating-system crash can lose the commits made since
 * the last checkpoint (never a part of one: SQLite's WAL stays consistent).
 *
 * Layout of DIR: ddbemu.lock (held with flock while a ddbemu uses DIR),
 * ddbemu.db (the engine-wide state: the clock offset, the streams' secret),
 * and one database per namespace, named as DynamoDB Local names its files:
 * "shared-local-instance.db" with --shared-db, "<access key>_<region>.db"
 * otherwise. Each file records its schema version (PRAGMA user_version) and
 * our application id; a file of a newer version, of another program, or one
 * that is damaged is refused with a message, never reset or overwritten.
 *
 * Failure: when a file cannot be created or written (a full disk, a file
 * removed underneath), ddbemu prints why and exits at once rather than go on
 * answering writes it can no longer keep; nothing unacknowledged is lost
 * that was promised.
 *
 * Locking: journal_put_* and journal_file_for are called with the engine
 * lock held exclusively (which orders them); journal_submit too, just before
 * the lock is released. journal_wait and the meta functions take no engine
 * lock. Loading (journal_load_*) happens before any request is served.
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
#define JOURNAL_SCHEMA_VERSION 3

/* ---- opening and closing ---- */

/* Opens the data directory dir (created if missing): takes its lock, opens
 * every namespace file in it and upgrades old ones, and starts the writer
 * thread. On failure returns NULL with *why set to an owned, printable reason
 * (another ddbemu holds the directory, a newer or foreign or damaged file). */
struct journal *journal_open(const char *dir, char **why);
/* Commits what is pending, stops the writer, closes the files and releases
 * the directory. NULL is a no-op. */
void journal_close(struct journal *j);

/* ---- reading back, at start ---- */

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

/* The engine-wide state in ddbemu.db, by key: an integer, 0 when never set. */
#define META_CLOCK_OFFSET  "clock_offset_ms"
#define META_STREAM_SECRET "stream_secret"
int64_t journal_meta_get(struct journal *j, const char *key);
/* Sets it and returns once it is durable (no engine lock needed). */
void journal_meta_set(struct journal *j, const char *key, int64_t value);

/* ---- recording, under the engine's exclusive lock ---- */

/* The namespace's file, opened (and created) on first use. */
struct journal_file *journal_file_for(struct journal *j, const char *namespace_id);
/* A new table uid, unique within the file. */
uint64_t journal_file_next_uid(struct journal_file *f);

/* An item of table uid: item (a reference is taken) replaces the row at key;
 * NULL deletes it. */
void journal_put_item(struct journal_file *f, uint64_t uid, const struct row_key *key,
                      struct item *item);
/* A table's definition and state (encoded by the caller), or its removal
 * with all its items. */
void journal_put_table(struct journal_file *f, uint64_t uid, const void *state, size_t len);
void journal_del_table(struct journal_file *f, uint64_t uid);
/* A stream's metadata, its removal with its records, one record, and the
 * removal of its records up to seq (the 24-hour trim). */
void journal_put_stream(struct journal_file *f, const char *arn, const void *state, size_t len);
void journal_del_stream(struct journal_file *f, const char *arn);
void journal_put_stream_record(struct journal_file *f, const char *arn, uint64_t seq,
                               const void *record, size_t len);
void journal_trim_stream(struct journal_file *f, const char *arn, uint64_t upto_seq);
/* A transaction's client token, remembered until expires_ms. */
void journal_put_token(struct journal_file *f, const char *token, const char *digest,
                       int64_t expires_ms);
/* One change of table uid's point-in-time recovery history (references are
 * taken to both items, either may be NULL), and the removal of its changes
 * up to upto_seq (UINT64_MAX: all of them). A removed table's history goes
 * with it (journal_del_table). */
void journal_put_history(struct journal_file *f, uint64_t uid, uint64_t seq, int64_t ms,
                         struct item *old_item, struct item *new_item);
void journal_trim_history(struct journal_file *f, uint64_t uid, uint64_t upto_seq);
/* An on-demand backup: its description (encoded by the caller) and its
 * items (a reference is taken to each), or its removal with its items. */
void journal_put_backup(struct journal_file *f, const char *arn, const void *state, size_t len,
                        struct item *const *items, size_t item_count);
void journal_del_backup(struct journal_file *f, const char *arn);
/* Everything of the namespace is gone (the emulator's reset). */
void journal_reset(struct journal_file *f);

/* ---- committing ---- */

/* Hands the records made since the last submit to the writer as one unit and
 * returns the number to wait for (0 when there were none). Called with the
 * engine lock held exclusively, just before it is released. */
uint64_t journal_submit(struct journal *j);
/* The last unit submitted (everything recorded so far). */
uint64_t journal_last(struct journal *j);
/* Returns once everything up to lsn is committed. */
void journal_wait(struct journal *j, uint64_t lsn);
/* Calls ready(ctx) once everything up to lsn is committed: returns false at
 * once when it already is (ready is not called); otherwise returns true and
 * ready runs later, on the writer's thread with the journal's mutex held:
 * it must be quick and must not call back into the journal. */
bool journal_notify(struct journal *j, uint64_t lsn, void (*ready)(void *ctx), void *ctx);

#endif
