/*
 * db_internal.h - struct db and the lookups shared by catalog.c, write.c and read.c.
 *
 * Not for api/: the public surface is db.h.
 *
 * Locking (docs/architecture.md, "Locking"): two levels, always taken in
 * this order - the catalog lock (db->lock, writer-preferring; "the engine
 * lock" in the rooms' comments), then table locks (struct table's lock), in
 * ascending address order.
 *  - Item operations (GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan,
 *    batches and transactions, vector search) take the catalog lock shared
 *    and their tables' locks: shared to read, exclusive to write
 *    (db_lock_tables). Item operations on different tables run at once; on
 *    one table, reads share and writes are isolated, so every db_* call is
 *    still atomic and isolated, and each table's commit order is one total
 *    order (what its stream, its history and the journal record).
 *  - Everything else that changes something - table lifecycle, UpdateTable,
 *    restores, snapshots, imports, the TTL sweeper's deletes, a transaction
 *    with a ClientRequestToken, every change under --consistency aws - takes
 *    the catalog lock exclusively: it waits for every item operation and
 *    excludes them all, and needs no table lock.
 *  - Control-plane reads take the catalog lock shared, plus the table lock
 *    shared of a table whose items or counters they read.
 * What item writes touch beyond their tables has its own protection: the
 * stream sequence counter is atomic, the journal gives each thread its own
 * unit and appends under its own mutex, the engine clock is atomic, client
 * tokens and held transactions are only touched under the catalog lock
 * exclusively, and a table's access-pattern counters are its own.
 */
#ifndef DDB_DB_INTERNAL_H
#define DDB_DB_INTERNAL_H

#include "storage/base/lock_check.h"
#include "storage/base/spread_rwlock.h"
#include "storage/engine/db.h"
#include "storage/engine/db_consistency.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/jobs/backup_record.h"
#include "storage/jobs/bulk_record.h"
#include "storage/jobs/transfer_record.h"
#include "storage/table/table.h"

struct text_buf;

#include <pthread.h>
#include <stdatomic.h>

#define DB_CLOCK_RUNNING INT64_MIN

/* The tables of one namespace, sorted by name (ListTables order, O(log n) lookup). */
struct namespace
{
    char *id;
    struct table **tables;
    size_t table_count;
    size_t table_cap;
    struct consistency_settings consistency; /* its own setting, when has_consistency */
    bool has_consistency;
};

/* A TransactWriteItems' items, held until until_ms. */
struct held_transaction {
    char *namespace_id;
    char *token; /* ClientRequestToken, or NULL */
    int64_t until_ms;
    char **table_names;
    struct value *keys; /* VALUE_M: the key attributes of each item */
    size_t count;
};

/* A TransactWriteItems ClientRequestToken remembered for idempotent retries. */
struct client_token {
    char *namespace_id;
    char *token;
    char *digest;       /* of the request's parameters */
    int64_t expires_ms; /* engine clock */
};

struct db {
    struct spread_rwlock lock;    /* the catalog lock */
    atomic_llong clock_offset_ms; /* added to the wall clock; tests move it */
    atomic_llong frozen_ms;       /* the clock while frozen; DB_CLOCK_RUNNING: not frozen */
    struct namespace *namespaces;
    size_t namespace_count;
    struct client_token *tokens; /* guarded by lock */
    size_t token_count;
    struct stream_registry *streams;  /* every stream, open or readable for 24 h (stream.c) */
    struct journal *journal;          /* --db-path: where changes are recorded; NULL in memory */
    struct transfer_jobs transfers;   /* exports and imports, in start order */
    struct backup_list backups;       /* in creation order */
    struct bulk_jobs bulk;            /* bulk put items operations, in start order */
    struct snapshot_store *snapshots; /* named snapshots (snapshots.c); NULL until the first */
    bool delay_transient;             /* --delay-transient-statuses (db.h); set before serving */
    bool aws_throughput;              /* --throughput-model aws (db.h); set before serving */
    /* --db-path: the named snapshots' writer (snapshots_disk.c); NULL in memory. */
    struct snapshot_disk *snapshot_disk;
    /* --consistency aws (db_consistency.h, consistency.c); guarded by lock. */
    struct consistency_settings consistency; /* engine-wide */
    bool consistency_any;                    /* on for some namespace: the hooks' one branch */
    atomic_ullong consistency_draws;         /* seeded lag draws so far */
    struct held_transaction *held;           /* transactions holding their items */
    size_t held_count;
};

/* ---- --consistency aws (consistency.c); each is called only when
 * db->consistency_any ---- */

/* The setting in force for scope when the model is on for it, else NULL;
 * caller holds the lock. */
const struct consistency_settings *consistency_in(struct db *db, const struct db_scope *scope);
/* Starts keeping a new table's recent versions when the model is on for its
 * namespace; caller holds the lock exclusively. */
void consistency_table_added(struct db *db, const struct db_scope *scope, struct table *t);
/* The moment an eventually consistent read of a table/LSI (gsi false) or of a
 * GSI answers as of: now_ms minus the lag, or minus a seeded draw in [0, lag]. */
int64_t consistency_as_of(struct db *db, const struct consistency_settings *cs, bool gsi,
                          int64_t now_ms);
/* The item an eventually consistent read of key answers (found: the current
 * one), counting a stale answer in the table's report. Borrowed; caller holds
 * the lock. */
struct item *consistency_read_item(struct db *db, const struct consistency_settings *cs,
                                   struct table *t, const struct row_key *key, struct item *found,
                                   int64_t now_ms);
/* Whether a held transaction of scope's namespace holds t's item key at
 * now_ms; caller holds the lock. */
bool consistency_is_held(struct db *db, const struct db_scope *scope, const struct table *t,
                         const struct row_key *key, int64_t now_ms);
/* TransactionConflictException when a transaction holds the item a single
 * write names; caller holds the lock exclusively. */
int consistency_check_write(struct db *db, const struct db_scope *scope, struct table *t,
                            const struct row_key *key, int64_t now_ms, struct ddb_error *err);
/* Whether a transaction with this ClientRequestToken still holds its items. */
bool consistency_token_held(struct db *db, const struct db_scope *scope, const char *token,
                            int64_t now_ms);
/* Holds the items of a committed TransactWriteItems until now_ms plus the
 * transaction time, which it returns; caller holds the lock exclusively. */
int64_t consistency_hold(struct db *db, const struct db_scope *scope,
                         const struct consistency_settings *cs, struct table *const *tables,
                         const struct write_op *ops, size_t op_count, const char *token,
                         int64_t now_ms);
/* Returns when the engine clock reaches until_ms (at once while it is
 * frozen); called without the lock, before a held transaction is answered. */
void consistency_wait_hold(struct db *db, int64_t until_ms);
/* Drops the held transactions of namespace_id (NULL: all); caller holds the
 * lock exclusively (db.c, which frees them with the engine). */
void db_forget_held(struct db *db, const char *namespace_id);
void db_held_free(struct held_transaction *h);

/* Forgets the client tokens of namespace_id (NULL: of every namespace) that
 * expire at or before until_ms (INT64_MAX: all of them). Caller holds the
 * lock exclusively. */
void db_forget_tokens(struct db *db, const char *namespace_id, int64_t until_ms);

/* Drops the expired backups, and their records (kept_backups.c); caller holds the lock
 * exclusively. */
void db_drop_expired_backups(struct db *db, int64_t now_ms);
/* The SYSTEM backup DeleteTable leaves of table t when its point-in-time
 * recovery is on; caller holds the lock exclusively. */
void db_backup_deleted_table(struct db *db, const struct db_scope *scope, const struct table *t,
                             int64_t now_ms);

/* Whether name is taken in the scope, by a table or one still DELETING
 * (--delay-transient-statuses), after freeing those whose time has come;
 * caller holds the lock exclusively (catalog.c). */
bool catalog_name_taken(struct db *db, const struct db_scope *scope, const char *name,
                        int64_t now_ms);
/* Adds a new table made from def (taken) to the scope's namespace, as
 * CreateTable does: its file, its stream, its record, its CREATING time under
 * --delay-transient-statuses (catalog.c). The caller holds the lock
 * exclusively and checked the name with catalog_name_taken. */
struct table *catalog_add_table(struct db *db, const struct db_scope *scope, struct table_def *def,
                                int64_t now_ms);
/* Describes a table just added as AWS answers the call that created it
 * (CreateTable, a restore): the table and its GSIs CREATING. */
void catalog_describe_new(const struct table *t, struct table_desc *out);

/* Take and release the catalog lock; they also record the hold for the
 * "caller holds the lock" assertions of every room (base/lock_check.h). */
void db_read_lock(struct db *db);
void db_write_lock(struct db *db);
/* Releases the catalog lock and every table lock taken with it. */
void db_unlock(struct db *db);
/* An item operation's way in: the catalog lock shared, then the locks of the
 * scope's tables named in names (count of them; repeats and names of no
 * table skipped), shared (how LOCK_HOLD_SHARED) or exclusively, in ascending
 * address order. A change under --consistency aws (whose held transactions
 * span tables) takes the catalog lock exclusively instead. db_unlock
 * releases everything. */
void db_lock_tables(struct db *db, const struct db_scope *scope, const char *const *names,
                    size_t count, enum lock_hold how);
void db_lock_table(struct db *db, const struct db_scope *scope, const char *name,
                   enum lock_hold how);

/* The namespace's table by name, or NULL; caller holds the lock. A DELETING
 * table (kept to be described, catalog.c) is NULL here: it is gone for
 * every operation but the table ones. */
struct table *db_find_table(struct db *db, const struct db_scope *scope, const char *name);
/* The table an ARN names in the scope ("arn:aws:dynamodb:<region>:<account>:table/<name>"),
 * or NULL: an ARN of another region or account names no table here. */
struct table *db_find_table_by_arn(struct db *db, const struct db_scope *scope, const char *arn);
/* db_find_table, DELETING tables included (catalog.c). */
struct table *db_find_table_entry(struct db *db, const struct db_scope *scope, const char *name);
/* Same as db_find_table, raising ResourceNotFoundException with the item
 * operations' text, also while the table is CREATING (AWS: item operations
 * on a table that is not yet ACTIVE find no table). */
int db_require_table(struct db *db, const struct db_scope *scope, const char *name,
                     struct table **out, struct ddb_error *err);

/* The scope's namespace, or NULL when it has never had a table; caller holds the lock. */
struct namespace *db_find_namespace(struct db *db, const struct db_scope *scope);
/* The scope's namespace, created on first use; caller holds the lock exclusively. */
struct namespace *db_namespace_for_write(struct db *db, const struct db_scope *scope);
/* Where name is, or would go, in the namespace's sorted tables. */
size_t db_namespace_position(const struct namespace *ns, const char *name);
/* Adds t (taken) to the namespace in name order; caller holds the lock exclusively. */
void db_namespace_insert(struct namespace *ns, struct table *t);

/* ---- persistence (engine/db_persist.c); every function is a no-op in memory ---- */

/* Gives a new table its file and uid, so that its changes are recorded. */
void persist_attach_table(struct db *db, const char *namespace_id, struct table *t);
/* Records a table's definition and state after it changed. */
void persist_table(const struct table *t);
/* A table's record (definition and state, not its items) into *out (owned),
 * and a new table, without items, stream or file, back from one (NULL when the
 * bytes are not a table's record): what persist_table writes and the loader
 * reads, also used by snapshots (snapshots.c). The lock is held exclusively. */
void table_record_encode(const struct table *t, struct text_buf *out);
struct table *table_record_decode(const void *state, size_t len);
/* Records that a table is gone, with its items. */
void persist_table_removed(const struct table *t);
/* Records a backup (description and items), or its removal. */
void persist_backup(struct db *db, const struct backup *b);
void persist_backup_removed(struct db *db, const struct backup *b);
/* Records a bulk put items operation's description (db_persist_bulk.c). */
void persist_bulk(struct db *db, const char *namespace_id, const struct bulk_desc *d);
/* Loads a file's bulk operations (those found running are ended FAILED), and
 * puts every loaded operation in start order once all files are loaded. */
struct journal_file;
int persist_load_bulk(struct db *db, struct journal_file *f, const char *namespace_id, char **why);
void persist_sort_bulk(struct db *db);
/* Opens the data directory and loads its namespace files (db_persist.c):
 * db_open_dir (db_open.c) without the named snapshots. NULL with *why set. */
struct db *persist_open_dir(const char *dir, char **why);
/* Records a transaction's client token. */
void persist_token(struct db *db, const struct client_token *ct);
/* Records that a namespace was reset. */
void persist_reset(struct db *db, const char *namespace_id);

/*
 * One write in three steps, shared by single-item writes, batches and
 * transactions (write.c). prepare: find the table, check the key/item against
 * the schema, find the current item. evaluate: the condition, then the new
 * item (UpdateItem's expression); sets matched = false when the condition
 * fails. apply: charge capacity and commit. Only apply changes anything.
 * Caller holds the table's lock exclusively (db_lock_tables), or the catalog
 * lock so.
 */
struct prepared_write {
    const struct write_op *op;
    struct table *t;
    struct row_key key;    /* parts point into the request's values and the caller's numbers */
    struct item *old;      /* borrowed: the current item, or NULL */
    struct item *new_item; /* owned reference: what apply stores (NULL deletes) */
    bool matched;          /* the condition held */
    int64_t now_ms;        /* the engine's clock when the write was prepared */
    bool throttle;         /* --throughput-model aws: admit, then charge the buckets */
};

/* nums: room for pw->key's numbers, the caller's, alive as long as pw. */
int write_prepare(struct db *db, const struct db_scope *scope, const struct write_op *op,
                  struct key_numbers *nums, struct prepared_write *pw, struct ddb_error *err);
int write_evaluate(struct prepared_write *pw, struct ddb_error *err);
/* After write_evaluate, before anything changes: whether AWS's throughput
 * model lets the write start (always, without --throughput-model aws). A
 * refused write changes nothing and consumes nothing. */
int write_admit(const struct prepared_write *pw, struct ddb_error *err);
/* Commits; charges units * multiplier (2 for transactions) into c. Leaves pw cleared. */
void write_apply(struct prepared_write *pw, enum return_capacity mode, double multiplier,
                 struct consumed_capacity *c);
void prepared_write_clear(struct prepared_write *pw);

#endif
