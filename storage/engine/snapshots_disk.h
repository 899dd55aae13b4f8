/*
 * snapshots_disk.h - named snapshots under --db-path (snapshots_disk.c): the
 * writer thread that stores each saved snapshot in ddbemu.db and deletes
 * each deleted one, and the load that brings them back at start. Private to
 * storage/engine/ (snapshots.c and db.c, db_persist.c call it).
 *
 * A save is answered from memory at once; its disk write is queued and done
 * on the snapshot writer thread, in the order of the saves and deletions
 * (persist/snapshot_file.h: one transaction each, so a crash leaves each
 * snapshot whole or absent). snapshot_disk_pending says whether a saved
 * snapshot is still waiting for its write; snapshot_disk_sync waits for
 * every write queued before it. Every function is a no-op in memory
 * (db->snapshot_disk NULL).
 */
#ifndef DDB_SNAPSHOTS_DISK_H
#define DDB_SNAPSHOTS_DISK_H

#include "storage/engine/db_internal.h"
#include "storage/jobs/snapshot_record.h"

#include <stdbool.h>
#include <stdint.h>

/* Starts the writer thread (db->journal is open and loaded). No lock. */
void snapshot_disk_start(struct db *db);
/* Writes everything queued, stops the thread and frees its state. Called
 * without the engine lock (the writer takes it to let go of a snapshot). */
void snapshot_disk_stop(struct db *db);
/* Queues the write of snapshot `name` of namespace_id (NULL: every
 * namespace), taken now from the live tables and streams exactly as
 * db_snapshot_save took it, created at created_ms. The caller holds the
 * engine lock exclusively. */
void snapshot_disk_save(struct db *db, const char *name, const char *namespace_id,
                        int64_t created_ms);
/* Queues the deletion of snapshot `name`. The caller holds the lock exclusively. */
void snapshot_disk_delete(struct db *db, const char *name);
/* Whether the newest save of `name` is still waiting for its write; false
 * in memory. Takes the queue's own mutex: callable with or without the engine lock. */
bool snapshot_disk_pending(struct db *db, const char *name);
/* Returns once every save and deletion queued before the call is on disk.
 * Called without the engine lock. */
void snapshot_disk_sync(struct db *db);
/* At start (db_open_dir, the lock held exclusively): every snapshot in
 * ddbemu.db back into db->snapshots, in creation order. 0, or -1 with *why
 * set (owned) when one cannot be read. */
int snapshot_disk_load(struct db *db, char **why);

/* What a save keeps of table t as it is now (snapshots.c): the load
 * rebuilds each table of a stored snapshot and keeps it so, which gives it
 * exactly the in-memory form a save gives. The lock is held exclusively. */
void snapshot_keep_table(const struct table *t, struct snap_table *st);

#endif
