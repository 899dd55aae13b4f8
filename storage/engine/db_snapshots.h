/*
 * db_snapshots.h - named snapshots of namespaces, their restore, and forks
 * into another namespace (snapshots.c): the emulator's test isolation, with
 * no DynamoDB API of its own (api/control/snapshots.c serves it under
 * /ddbemu/snapshots and /ddbemu/fork).
 *
 * A snapshot holds every table of one namespace (or of every namespace) as
 * it was: definition and state (the record --db-path writes), its items
 * (references: items are immutable), its point-in-time history, and every
 * stream of the namespace with its shards and records. Restoring replaces
 * the namespace's tables and streams with the snapshot's, exactly; forking
 * puts a copy into another namespace. Backups, client tokens and jobs are
 * not part of a snapshot and are left as they are.
 *
 * With --db-path, snapshots are kept in ddbemu.db too (snapshots_disk.c):
 * a save is answered from memory and written by a writer thread right
 * after; a deletion likewise. At start the stored ones come back.
 *
 * The contract of storage/engine/db.h holds: each call takes the lock
 * itself, arguments are borrowed, results are owned by the caller. Errors:
 * ResourceNotFoundException (no such snapshot), ResourceInUseException (the
 * name is taken; the fork target has tables), ValidationException.
 */
#ifndef DDB_DB_SNAPSHOTS_H
#define DDB_DB_SNAPSHOTS_H

#include "storage/engine/db.h"

/* A snapshot as listed. Owned strings. */
struct snapshot_info {
    char *name;
    char *namespace_id; /* NULL: every namespace */
    int64_t created_ms; /* engine clock */
    size_t table_count;
    size_t item_count;
    size_t stream_record_count;
    /* --db-path: whether the snapshot is in ddbemu.db yet (a save is written
     * there after it is answered; db_snapshots_sync waits for it). */
    bool kept_on_disk; /* the engine keeps snapshots on disk (--db-path) */
    bool on_disk;      /* this one is there */
};
void snapshot_info_clear(struct snapshot_info *i);

/* Saves the tables of namespace_id (NULL: of every namespace) as name. */
int db_snapshot_save(struct db *db, const char *name, const char *namespace_id,
                     struct snapshot_info *out, struct ddb_error *err);
/* Every snapshot, in creation order: *out an owned array (clear each). */
void db_snapshot_list(struct db *db, struct snapshot_info **out, size_t *count);
int db_snapshot_delete(struct db *db, const char *name, struct ddb_error *err);
/* --db-path: returns once every save and deletion made before the call is
 * in ddbemu.db (survives kill -9); at once in memory. Takes no engine lock. */
void db_snapshots_sync(struct db *db);
/* Puts the snapshot's namespaces back (every namespace for a snapshot of all:
 * namespaces it does not hold lose their tables). keep_capacity: a restored
 * table keeps the access-pattern counters and throughput-model buckets of the
 * live table of its name; otherwise they start again from zero and full.
 * *tables: how many tables now exist from it. */
int db_snapshot_restore(struct db *db, const char *name, bool keep_capacity, size_t *tables,
                        struct ddb_error *err);
/* Copies the snapshot `name` (of one namespace), or with name NULL the live
 * namespace from_namespace, into to_namespace, which must have no tables
 * unless replace. */
int db_snapshot_fork(struct db *db, const char *name, const char *from_namespace,
                     const char *to_namespace, bool replace, size_t *tables, struct ddb_error *err);

#endif
