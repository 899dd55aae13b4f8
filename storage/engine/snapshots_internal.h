/*
 * snapshots_internal.h - what the named snapshots' files of storage/engine/
 * share: snapshots.c keeps a table as a save keeps it, snapshots_load.c
 * brings the snapshots stored under --db-path back at start, db_open.c
 * calls it. Private to storage/engine/.
 */
#ifndef DDB_SNAPSHOTS_INTERNAL_H
#define DDB_SNAPSHOTS_INTERNAL_H

#include "storage/engine/db_internal.h"
#include "storage/jobs/snapshot_record.h"

/* What a save keeps of table t as it is now (snapshots.c): the load
 * rebuilds each stored table and keeps it so, which gives it exactly the
 * in-memory form a save gives. The lock is held exclusively. */
void snapshot_keep_table(struct table *t, struct snap_table *st);

/* At start, the lock held exclusively: every snapshot in ddbemu.db back into
 * db->snapshots, in creation order (snapshots_load.c); a no-op in memory.
 * 0, or -1 with *why set (owned) when one cannot be read. */
int snapshots_load(struct db *db, char **why);

#endif
