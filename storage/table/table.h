/*
 * table.h - one table: its definition, its items in hash order, its statistics.
 *
 * A table's items live in one skiplist ordered by (partition hash, partition
 * key, sort key) - see key.h. Lookups are O(log n); nothing walks the table to
 * find an item.
 *
 * table_commit_write() is the single place where a committed write changes a
 * table. Put, update and delete from every operation (single-item, batch,
 * transaction, and the TTL sweeper) end there, so that secondary indexes,
 * stream records and the persistence journal see every change exactly once,
 * in commit order.
 *
 * The caller holds the table's lock (t->lock, under the catalog lock shared)
 * or the catalog lock exclusively: shared for the const functions, exclusive
 * for the others; each function asserts it (base/lock_check.h). The table
 * changes its definition, indexes and stream only under the catalog lock
 * exclusively (table lifecycle, UpdateTable); items only need t->lock.
 */
#ifndef DDB_TABLE_H
#define DDB_TABLE_H

#include "storage/base/error.h"
#include "storage/insight/insight.h"
#include "storage/model/item.h"
#include "storage/model/key.h"
#include "storage/model/schema.h"
#include "storage/persist/journal.h"
#include "storage/stream/stream.h"
#include "storage/table/collection.h"
#include "storage/table/history.h"
#include "storage/table/index.h"
#include "storage/table/key_index.h"
#include "storage/table/skiplist.h"
#include "storage/table/table_meta.h"
#include "storage/table/table_share.h"
#include "storage/table/ttl_index.h"
#include "storage/table/vector_index.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct expr;

/* A table's TimeToLive setting (UpdateTimeToLive); all zero until first set. */
struct ttl_setting {
    bool enabled;
    char *attribute; /* owned; NULL while disabled */
    size_t attribute_len;
    int64_t changed_ms; /* the last successful UpdateTimeToLive; 0 when never */
};

/* A table's point-in-time recovery (UpdateContinuousBackups); off until set. */
struct pitr_setting {
    bool enabled;
    int64_t recovery_days; /* RecoveryPeriodInDays, 1..35 */
    /* Since when the history is complete: when recovery was (last) turned on,
     * moved forward when a longer period is set (what was trimmed under the
     * shorter one is gone). The earliest restorable time is the later of this
     * and now minus the period. */
    int64_t enabled_ms;
};

/* When and by whom a committed change was made: the engine's clock, read once
 * by the caller, and the origin the stream record shows. */
struct commit_info {
    int64_t now_ms;
    enum stream_origin origin;
    /* The change only rebuilds a table's state (loading it from disk): it is
     * not a new change, so the point-in-time history does not record it. */
    bool rebuilding;
};

/* A GSI deleted by UpdateTable under --delay-transient-statuses: the index is
 * gone at once (reads, writes, disk); its description is kept only to be
 * reported DELETING until until_ms (catalog.c). */
struct deleting_index {
    struct index_def def;
    char *arn;
    int64_t until_ms;
};

struct versions;

struct table {
    /* Its items' lock (docs/architecture.md, "Locking"): item operations take
     * it, under the catalog lock shared - shared to read, exclusive to write,
     * several in ascending address order (db.c db_lock_tables). Under the
     * catalog lock exclusively it is not taken. Alone on its cache line (the
     * struct is allocated line-aligned): every item operation writes it, and
     * writers of other tables read `def.name` when they look their own table
     * up (db_find_table_entry's binary search), which would otherwise make
     * two writers of two tables trade this line at every request
     * (bench/README.md, "Writers of different tables"). */
    alignas(64) pthread_rwlock_t lock;
    alignas(64) struct table_def def;
    char *arn;
    char *table_id;
    char *region;
    enum table_status status;
    int64_t creation_ms;
    int64_t billing_last_update_ms;
    int64_t throughput_last_increase_ms;
    int64_t throughput_last_decrease_ms;
    int64_t throughput_decreases_today;
    struct skiplist items;
    struct key_index item_keys;  /* the nodes of items by exact key (key_index.h) */
    int64_t size_bytes;          /* sum of item sizes */
    struct table_index *indexes; /* GSIs in definition order, then LSIs */
    size_t index_count;
    uint64_t next_index_id;              /* for struct table_index.id */
    struct collection_sizes collections; /* per partition; kept only when the table has an LSI */
    int64_t collection_limit_bytes;      /* DDB_MAX_ITEM_COLLECTION_BYTES; unit tests lower it */
    char *latest_stream_arn;             /* NULL when the table never had a stream */
    char *latest_stream_label;
    struct stream *stream; /* the open stream, owned by the db's registry; NULL when none */
    struct ttl_setting ttl;
    struct ttl_index ttl_index; /* items by expiry while ttl.enabled; see ttl_index.h */
    struct pitr_setting pitr;
    struct history history;         /* the recovery window's changes while pitr.enabled */
    struct versions *recent;        /* --consistency aws: the last lag's changes (versions.h) */
    struct restore_summary restore; /* when the table was made by a restore */
    struct table_meta meta;         /* policies, contributor insights, Kinesis destinations */
    struct journal_file *journal;   /* where its changes are recorded; NULL: in memory */
    uint64_t uid;                   /* its row in the journal's file */
    struct insight_table *insight;  /* the access-pattern counters (insight/insight.h); owned */
    struct table_throttle throttle; /* --throughput-model aws state (table/throttle.h) */
    /* --delay-transient-statuses: the table is `transient` (CREATING, UPDATING
     * or DELETING) until the engine's clock reaches transient_until_ms; 0: no
     * delayed status. Not persisted: after a restart the change is complete. */
    enum table_status transient;
    int64_t transient_until_ms;
    int64_t stream_enabling_until_ms;     /* the stream it opens next is ENABLING until then */
    struct deleting_index *deleting_gsis; /* owned; not persisted */
    size_t deleting_gsi_count;
    struct vector_index *vectors; /* parallel to def.vectors (table_vectors.c) */
    size_t vector_count;
    /* Non-NULL: items, item_keys, the indexes' and the TTL index's rows and
     * collections are a snapshot's too, read in place and copied before the
     * first change (table_share.h); one reference owned. */
    struct table_share *shared;
};

/* Creates a table from def (taken). Caller holds the lock exclusively. */
struct table *table_new(struct table_def *def, const char *region, int64_t now_ms);
/* Frees the table. Its open stream is closed at now_ms and stays readable,
 * owned by the registry, for 24 hours. Caller holds the lock exclusively
 * (the catalog lock: nobody else may hold t->lock). */
void table_free(struct table *t, int64_t now_ms);
/* Deep copy of the table's description into *out. */
void table_describe(const struct table *t, struct table_desc *out);

/* The status DynamoDB reports at now_ms: the delayed status until its time,
 * then ACTIVE. Like the other lookups of the definition below (down to
 * table_check_key), it reads only what changes under the catalog lock
 * exclusively, so the caller holds the lock, shared or not, and needs no
 * table lock. */
enum table_status table_status_at(const struct table *t, int64_t now_ms);
/* A DELETING table kept only to be described until its time (catalog.c):
 * every other lookup treats it as gone. Caller holds the lock. */
bool table_is_deleting(const struct table *t);

/* The row key of an item (or of a request's Key map) whose key attributes
 * have been checked by table_check_key/table_check_item: its parts point into
 * attrs and, for N, into *nums (the caller's; alive as long as the key).
 * Caller holds the lock. */
void table_row_key(const struct table *t, const struct value *attrs, struct key_numbers *nums,
                   struct row_key *out);
/* The row key of a stored item, read in place in its encoding (a node keeps
 * its parts' offsets: skiplist.h). Caller holds the lock. */
void table_item_key(const struct table *t, const struct item *item, struct row_key *out);

/* Checks a request's Key map against the key schema: exactly the key
 * attributes, with the declared types, non-empty, within the key size limits.
 * Caller holds the lock. */
int table_check_key(const struct table *t, const struct value *key, struct ddb_error *err);
/* Checks a whole item that is about to be written: key attributes present
 * with the declared types and sizes, secondary index key attributes (when
 * present) with their declared types. */
int table_check_item(const struct table *t, const struct value *attrs, struct ddb_error *err);
/* table_check_item of an encoded item: the rules read in place, the item
 * decoded only to word a refusal (table_check_stored.c). */
int table_check_item_stored(const struct table *t, const struct item *item, struct ddb_error *err);
/* The table's own key rules alone, for an item read back from disk: it was
 * accepted when written, and index rules added since (a GSI or vector index
 * created by UpdateTable) leave such items out of the index, not out of the
 * table. */
int table_check_stored_item(const struct table *t, const struct value *attrs,
                            struct ddb_error *err);

/* Key attributes are scalars: ValidationException when a path of e (NULL:
 * none) goes inside a key attribute of t or of one of its indexes. Caller
 * holds the lock. */
int table_check_key_paths(const struct table *t, const struct expr *e, struct ddb_error *err);

/* The stored item with this key, borrowed (valid while the lock is held), or NULL. */
struct item *table_find(const struct table *t, const struct row_key *key);

/* Applies one committed write: new_item (reference taken; NULL to delete)
 * replaces whatever the table holds at key, and the change reaches the
 * indexes and the stream as info says. Cannot fail: every check happens
 * before. */
void table_commit_write(struct table *t, const struct row_key *key, struct item *new_item,
                        const struct commit_info *info);

/* table_commit_write of each of items (references taken here), which are
 * in key order with no key twice, in that order. Into an empty table it
 * builds in bulk - rows appended, each index sorted once, no lookup - the
 * state those writes would make: a restore or fork of 100,000 items no
 * longer spends most of its time comparing keys (bench/README.md,
 * "Snapshots"). */
struct row_order {
    struct item **items; /* borrowed: the rows' items in the index's order */
    size_t count;
    bool saved; /* false: none saved (the index was being backfilled) */
};
/* orders, when not NULL, holds index_count + 1 orders - each index's, then
 * the TTL index's - saved from the table these items come from (a snapshot
 * saves them): those indexes are appended in that order, not sorted. */
void table_commit_sorted(struct table *t, struct item *const *items, size_t count,
                         const struct row_order *orders, const struct commit_info *info);
/* The row orders table_commit_sorted takes, of t now: *out is owned (free
 * each items array, then it); the items are borrowed from t's rows. */
void table_row_orders(const struct table *t, struct row_order **out, size_t *count);
/* The table's items as they were at at_ms (after every change committed at
 * or before it), from its current items and its point-in-time history:
 * *items is an owned array of owned references, in key order. The caller
 * checked that at_ms lies in the recovery window. */
void table_items_at(const struct table *t, int64_t at_ms, struct item ***items, size_t *count);
/* Turns the point-in-time history off and drops it (PITR disabled); caller
 * holds the lock exclusively (the catalog lock). */
void table_drop_history(struct table *t);

/* The index named name, or NULL; caller holds the lock. */
struct table_index *table_find_index(const struct table *t, const char *name);
/* The index whose id is id, or NULL (it was deleted); caller holds the lock. */
struct table_index *table_find_index_by_id(const struct table *t, uint64_t id);

/* ---- index changes (UpdateTable); the caller holds the lock exclusively ---- */

/* Defines attribute name with type unless it is already defined (callers check conflicts). */
void table_define_attr(struct table *t, const char *name, enum value_type type);
/* Appends a GSI (def taken) with an empty index and returns that index, valid until
 * the next index change. Index pointers into the table are rebuilt. */
struct table_index *table_add_gsi(struct table *t, struct index_def *def);
/* Removes the GSI named name with its rows, and the attribute definitions no key
 * uses any more (DynamoDB prunes them: ack-api-quirks DDB-TABLE-151). */
void table_remove_gsi(struct table *t, const char *name);

/* ---- vector indexes (table_vectors.c); the lock as for the rest ---- */

/* Makes the vector indexes of t->def (at creation). */
void table_vectors_init(struct table *t);
void table_vectors_clear(struct table *t);
/* The vector index named name, or NULL; caller holds the lock. */
struct vector_index *table_find_vector(const struct table *t, const char *name);
/* Every vector index's rules for an item about to be written (vector_index.h). */
int table_vectors_check_item(const struct table *t, const struct value *attrs,
                             struct ddb_error *err);
/* One committed write reaches every vector index. */
void table_vectors_apply_write(struct table *t, struct item *old_item, struct item *new_item);
/* Descriptions parallel to def.vectors (caller frees with the table_desc);
 * the caller holds the table's lock. */
struct index_desc *table_vectors_describe(const struct table *t);
/* Adds a vector index (def taken), filled from the table's items at once
 * (those a live write would refuse are skipped); returns it. Caller holds the
 * lock exclusively (the catalog lock). */
struct vector_index *table_add_vector(struct table *t, struct vector_index_def *def);
/* Removes the vector index named name and its vectors; caller holds the lock
 * exclusively (the catalog lock). */
void table_remove_vector(struct table *t, const char *name);

/* ---- item collections (tables with an LSI) ---- */

/* The size of the item collection that the item (or key map) attrs belongs to. */
int64_t table_collection_size(const struct table *t, const struct value *attrs);
/* ItemCollectionSizeLimitExceededException when replacing old (NULL: none) with
 * new_item (NULL: a delete) would grow the item's collection past the limit. */
int table_check_collection(const struct table *t, const struct item *old,
                           const struct item *new_item, struct ddb_error *err);

/* Gives the table a new stream ARN and label (enabling, or re-enabling, a
 * stream); caller holds the lock exclusively (the catalog lock). */
void table_start_stream(struct table *t, int64_t now_ms);
/* Makes t's open stream match its definition: opens a stream in reg named by
 * t->latest_stream_arn/label when the table's stream is enabled and that
 * stream is not open yet (a new table, or a re-enable, which minted a new
 * ARN), and closes the open one when the stream was disabled or replaced.
 * Caller holds the lock exclusively (the catalog lock). */
void table_sync_stream(struct table *t, struct stream_registry *reg, const char *namespace_id,
                       int64_t now_ms);

#endif
