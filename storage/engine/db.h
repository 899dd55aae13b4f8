/*
 * db.h - the storage engine: opening and closing it, its clock, the scope a
 * request works in, and what every entry point shares (capacity).
 *
 * The entry points are declared by family beside it: db_tables.h (tables),
 * db_items.h (items, transactions, Query and Scan), db_partiql.h, db_ttl.h,
 * db_streams.h, db_report.h; a table's settings and its jobs (backups,
 * restores, exports, imports) in storage/control/.
 *
 * struct db holds every namespace's tables, the one lock and the one clock.
 * Every db_* function takes the lock on entry and releases it before
 * returning (reads share it, writes hold it exclusively), so each call is
 * atomic and isolated. JSON never reaches this layer: callers pass decoded C
 * values and receive C results.
 *
 * Ownership: db_* functions return results the caller owns (descriptions are
 * deep copies; items are references to immutable items, see item.h), so no
 * pointer into a table survives the call. Arguments are borrowed unless a
 * comment says a function takes them.
 *
 * Every committed write - put, update, delete, from single-item calls,
 * batches, transactions and the TTL sweeper - passes one function
 * (table_commit_write in table.c) that keeps the table, its indexes and its
 * statistics in step, and is where stream records and the persistence journal
 * hook in.
 */
#ifndef DDB_DB_H
#define DDB_DB_H

#include "storage/base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;

/* Which namespace of tables a request works in, and the region for its ARNs.
 * api/ derives it from the SigV4 credential (access key id + region), or from
 * the region alone with --shared-db. Both strings are borrowed. */
struct db_scope {
    const char *namespace_id;
    const char *region;
};

/* An engine in memory. */
struct db *db_new(void);
/* An engine that keeps everything in the directory dir (--db-path; see
 * storage/persist/journal.h): what dir holds is loaded (the log a crash
 * left replayed first), and every change is in the directory's log - safe
 * from kill -9 - before the call that made it returns. NULL, with *why set to an
 * owned, printable reason, when dir cannot be used: another ddbemu holds it,
 * or a file in it is damaged, foreign or of a newer ddbemu. */
struct db *db_open_dir(const char *dir, char **why);
/* Stops the engine; with a directory, everything recorded is on disk first. */
void db_free(struct db *db);

/*
 * --delay-transient-statuses (DynamoDB Local's -delayTransientStatuses): when
 * on, changes pass through AWS's transient statuses for these times on the
 * engine's clock (the control clock moves them along) instead of being
 * ACTIVE at once. Times as AWS takes them for a small table: an on-demand
 * table is ACTIVE, or gone, in about five seconds (ack-api-quirks
 * DDB-TABLE-374 measured DELETING for 5-7 s); creating or deleting a GSI
 * takes minutes even when it is empty. What each status allows is in catalog.c. Set before serving.
 */
#define DDB_DELAY_TABLE_CREATING_MS  5000
#define DDB_DELAY_TABLE_UPDATING_MS  5000
#define DDB_DELAY_TABLE_DELETING_MS  5000
#define DDB_DELAY_INDEX_CREATING_MS  60000
#define DDB_DELAY_INDEX_UPDATING_MS  5000
#define DDB_DELAY_INDEX_DELETING_MS  60000
#define DDB_DELAY_STREAM_ENABLING_MS 5000
void db_set_delay_transient(struct db *db, bool on);
/* --throughput-model aws: enforce provisioned capacity with burst, the
 * per-partition and on-demand limits (table/throttle.h). Off by default;
 * set before serving. */
void db_set_throughput_model(struct db *db, bool aws);

/* ---- the clock: the only source of time in the engine ---- */
int64_t db_now_ms(struct db *db);
/* Shifts the engine's clock by delta_ms (tests advance time instead of waiting). */
void db_clock_advance(struct db *db, int64_t delta_ms);
/* Sets the engine's clock so that db_now_ms() returns now_ms from here on (it keeps running). */
void db_clock_set(struct db *db, int64_t now_ms);
/* Stops the clock where it is (it then moves only by db_clock_advance and
 * db_clock_set), or lets it run on from there. Not kept by --db-path. */
void db_clock_freeze(struct db *db, bool frozen);
bool db_clock_is_frozen(struct db *db);

/* ---- capacity ---- */
enum return_capacity { RETURN_CAPACITY_NONE, RETURN_CAPACITY_TOTAL, RETURN_CAPACITY_INDEXES };

struct index_capacity {
    char *index_name; /* owned */
    bool is_global;
    double read_units;
    double write_units;
};

/* VectorWriteRequestBytes of one vector index (ConsumedCapacity.VectorIndexes). */
struct vector_capacity {
    char *index_name; /* owned */
    double write_bytes;
};

/* ConsumedCapacity of one table in one request. Units are summed by AWS's rules. */
struct consumed_capacity {
    char *table_name; /* owned; NULL when nothing was recorded */
    double read_units;
    double write_units;
    double table_read_units; /* the base table's share, for RETURN_CAPACITY_INDEXES */
    double table_write_units;
    struct index_capacity *indexes; /* owned */
    size_t index_count;
    struct vector_capacity *vectors; /* owned; RETURN_CAPACITY_INDEXES only */
    size_t vector_count;
};

void consumed_capacity_clear(struct consumed_capacity *c);

/* ---- emulator-only administration (storage/admin.c) ---- */

/* Deletes every table of the namespace, with their streams and
 * transaction tokens, as if the namespace had never been used. Returns the
 * number of tables removed. Takes the lock itself. */
size_t db_reset_namespace(struct db *db, const char *namespace_id);

#endif
