/*
 * snapshot_file.h - the named snapshots of --db-path (the emulator's
 * /ddbemu/snapshots) in ddbemu.db: writing one, deleting one, and reading
 * them back at start (snapshot_file.c).
 *
 * A snapshot is one row of `snapshots` (its name and a state blob the engine
 * encodes: creation time, whether it holds every namespace, its namespaces
 * in order) and, keyed by the row's number (snap) and a namespace's position
 * in that list (ns), rows of its tables (pos: the table's position in the
 * namespace; the table's record, as the namespace files hold it), their
 * items (seq: key order), their point-in-time history, its streams and their
 * records (the bytes the namespace files hold for them). The numbers of the
 * rows of `snapshots` grow with each save, so they give creation order.
 *
 * Atomicity: a write or a deletion is one SQLite transaction on ddbemu.db
 * (WAL, synchronous=NORMAL), so a crash or kill -9 at any point leaves the
 * snapshot entirely there or entirely absent, never a part of it. A write
 * is durable against a crash of the process once snapshot_file_commit
 * returns; a power loss can lose it (the same promise as the rest of the
 * directory, journal.h).
 *
 * Threads: one snapshot writer at a time (the engine's snapshot writer
 * thread, engine/snapshots_disk.c). Each write holds the journal's meta
 * mutex from begin to commit, so journal_meta_get/set wait for it. Loading
 * runs at start, before any request is served. Needs no engine lock.
 * A failed write (full disk) stops ddbemu, as every other write does
 * (journal.h, "Failure").
 */
#ifndef DDB_SNAPSHOT_FILE_H
#define DDB_SNAPSHOT_FILE_H

#include "storage/model/item.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct journal;
struct snapshot_file_write;

/* ---- writing: one snapshot a transaction ---- */

/* Begins writing snapshot `name` (a snapshot of that name on disk is
 * replaced): state is the engine's encoding of it. */
struct snapshot_file_write *snapshot_file_begin(struct journal *j, const char *name,
                                                const void *state, size_t len);
/* Table pos of the snapshot's namespace ns: its record. */
void snapshot_file_table(struct snapshot_file_write *w, uint32_t ns, uint32_t pos,
                         const void *state, size_t len);
/* Item seq (key order) of that table, encoded here (codec_put_value). */
void snapshot_file_item(struct snapshot_file_write *w, uint32_t ns, uint32_t pos, uint64_t seq,
                        const struct item *item);
/* Entry seq of that table's point-in-time history (either item may be NULL). */
void snapshot_file_history(struct snapshot_file_write *w, uint32_t ns, uint32_t pos, uint64_t seq,
                           int64_t ms, const struct item *old_item, const struct item *new_item);
/* A stream of namespace ns (its metadata), and one of its records. */
void snapshot_file_stream(struct snapshot_file_write *w, uint32_t ns, const char *arn,
                          const void *state, size_t len);
void snapshot_file_record(struct snapshot_file_write *w, uint32_t ns, const char *arn, uint64_t seq,
                          const void *record, size_t len);
/* Commits the snapshot and frees w: from here it survives kill -9. */
void snapshot_file_commit(struct snapshot_file_write *w);
/* Deletes snapshot `name` with all its rows (nothing when there is none). */
void snapshot_file_delete(struct journal *j, const char *name);

/* ---- reading back at start ---- */

/* Each loader calls fn for every row, in key order, and stops at the first
 * row fn refuses (returns false). Returns 0, or -1 with *why set (owned)
 * when SQLite reports the file damaged or fn refused a row. */
typedef bool snapshot_file_snapshot_fn(void *ctx, int64_t snap, const char *name, const void *state,
                                       size_t len);
typedef bool snapshot_file_table_fn(void *ctx, uint32_t ns, uint32_t pos, const void *state,
                                    size_t len);
typedef bool snapshot_file_item_fn(void *ctx, uint32_t ns, uint32_t pos, const void *item,
                                   size_t len);
typedef bool snapshot_file_history_fn(void *ctx, uint32_t ns, uint32_t pos, uint64_t seq,
                                      int64_t ms, const void *old_item, size_t old_len,
                                      const void *new_item, size_t new_len);
typedef bool snapshot_file_stream_fn(void *ctx, uint32_t ns, const char *arn, const void *state,
                                     size_t len);
typedef bool snapshot_file_record_fn(void *ctx, uint32_t ns, const char *arn, uint64_t seq,
                                     const void *record, size_t len);
/* Every snapshot, in creation order. */
int snapshot_file_list(struct journal *j, snapshot_file_snapshot_fn *fn, void *ctx, char **why);
/* The rows of snapshot snap. */
int snapshot_file_load_tables(struct journal *j, int64_t snap, snapshot_file_table_fn *fn,
                              void *ctx, char **why);
int snapshot_file_load_items(struct journal *j, int64_t snap, snapshot_file_item_fn *fn, void *ctx,
                             char **why);
int snapshot_file_load_history(struct journal *j, int64_t snap, snapshot_file_history_fn *fn,
                               void *ctx, char **why);
int snapshot_file_load_streams(struct journal *j, int64_t snap, snapshot_file_stream_fn *fn,
                               void *ctx, char **why);
int snapshot_file_load_records(struct journal *j, int64_t snap, snapshot_file_record_fn *fn,
                               void *ctx, char **why);

#endif
