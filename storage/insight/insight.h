/*
 * insight.h - what a table's requests did since it was created or the
 * counters were reset: the counters behind the access-pattern report.
 *
 * Each table owns one struct insight_table (table.c creates it), fed by the
 * entry points where capacity is already computed (read.c, write.c, batch.c,
 * transact.c): they pass the units capacity.c computed, so a unit is counted
 * by one rule only. Per source - the table itself, and each index by name -
 * it keeps units, Query/Scan items read and returned, the filters responsible
 * for reads that return little, and partition heat (heat.h). Per table it
 * keeps requests by operation, items read/returned/written, batch and
 * transaction sizes, ConditionalCheckFailed and TransactionCanceled counts,
 * and the largest items written.
 *
 * Locking, chosen so that recording costs no lock of its own on the write
 * path: the caller holds the engine lock and the table's (or the catalog
 * lock alone) - exclusively (a writer, which excludes everyone else from this
 * table already), or shared with insight_lock() taken (a reader: several may
 * record at once). Readers of the counters (the report, db_report.c) hold
 * the catalog lock exclusively. Every function that records asserts
 * it (assert_lock_recording, insight.c). The few counts a Query or Scan learns only after the
 * engine lock is released (items returned, which the filter decides) are
 * atomics, reached through a struct insight_page that holds a reference to
 * the insight object so that a table deleted meanwhile does not take it away.
 */
#ifndef DDB_INSIGHT_H
#define DDB_INSIGHT_H

#include "storage/base/lock_check.h"
#include "storage/insight/heat.h"
#include "storage/model/value.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INSIGHT_OPS(X)                                                                             \
    X(GET_ITEM, "GetItem")                                                                         \
    X(PUT_ITEM, "PutItem")                                                                         \
    X(UPDATE_ITEM, "UpdateItem")                                                                   \
    X(DELETE_ITEM, "DeleteItem")                                                                   \
    X(QUERY, "Query")                                                                              \
    X(SCAN, "Scan")                                                                                \
    X(BATCH_GET_ITEM, "BatchGetItem")                                                              \
    X(BATCH_WRITE_ITEM, "BatchWriteItem")                                                          \
    X(TRANSACT_GET_ITEMS, "TransactGetItems")                                                      \
    X(TRANSACT_WRITE_ITEMS, "TransactWriteItems")                                                  \
    X(SEARCH_VECTORS, "SearchVectors")

enum insight_op {
#define X(id, name) INSIGHT_##id,
    INSIGHT_OPS(X)
#undef X
        INSIGHT_OP_COUNT
};

/* The operation's name (static text): needs no lock. */
const char *insight_op_name(enum insight_op op);

#define INSIGHT_MAX_SOURCES   32 /* the table, 20 GSIs and 5 LSIs, with room for renames */
#define INSIGHT_MAX_FILTERS   8  /* distinct filters remembered per source */
#define INSIGHT_FILTER_TEXT   96 /* bytes of a filter's attribute list kept */
#define INSIGHT_LARGEST_ITEMS 5
#define INSIGHT_MAX_VECTORS   16 /* a table's 5 vector indexes, with room for renames */

/* The sizes of one kind of multi-item request: how many, and items in them. */
struct insight_sizes {
    uint64_t count;
    uint64_t items;
    uint64_t max;
};

/* Query or Scan pages on one source. */
struct insight_reads {
    uint64_t requests;
    uint64_t items_read; /* ScannedCount */
    uint64_t bytes_read; /* by AWS's item-size rules (projected size on an index) */
    double units;
    atomic_uint_least64_t items_returned; /* Count, after the filter */
};

/* One FilterExpression (or QueryFilter/ScanFilter), known by the attributes it reads. */
struct insight_filter {
    bool used;
    bool is_scan;
    char attrs[INSIGHT_FILTER_TEXT]; /* top-level attribute names, sorted, ", "-separated */
    uint64_t requests;
    uint64_t items_read;
    atomic_uint_least64_t items_returned;
};

struct insight_source {
    bool used;
    char name[256]; /* the index name; "" for the table */
    bool is_global;
    double rcu, wcu;
    uint64_t writes; /* table: items written; index: entries put or removed */
    struct insight_reads query, scan;
    struct insight_filter filters[INSIGHT_MAX_FILTERS];
    uint64_t filters_untracked; /* pages whose filter found no free entry */
    struct heat_map heat;       /* per partition key */
    struct heat_window total; /* the capacity it is provisioned with: a table's includes its LSIs */
};

/* One vector index: SearchVectors calls and the VectorSearchRequestBytes
 * they cost, writes that changed its entries and their
 * VectorWriteRequestBytes (the figures ConsumedCapacity reports). */
struct insight_vector {
    bool used;
    char name[256];
    uint64_t searches;
    double search_bytes;
    uint64_t writes;
    double write_bytes;
};

/* One of the largest items written: its key parts and size. */
struct insight_item {
    bool used;
    uint64_t hash;
    struct value key[2]; /* owned: partition key, then sort key when key_count is 2 */
    size_t key_count;
    size_t bytes;
};

struct insight_table {
    atomic_int refs;
    struct checked_mutex mu; /* readers only; see the top of this file */
    int64_t since_ms;        /* engine clock at creation or the last reset */
    uint64_t requests[INSIGHT_OP_COUNT];
    uint64_t items_read;
    atomic_uint_least64_t items_returned;
    uint64_t items_written;
    uint64_t conditional_check_failed;
    uint64_t transactions_canceled;
    /* --consistency aws (docs/consistency.md): atomics, counted by reads
     * under the shared lock as well as by writes. */
    atomic_uint_least64_t stale_reads;     /* eventually consistent reads answered stale */
    atomic_uint_least64_t gsi_stale_reads; /* GSI reads that missed a pending change */
    atomic_uint_least64_t conflicts;       /* TransactionConflict(Exception)s raised */
    struct insight_sizes batch_get, batch_write, transact_get, transact_write;
    struct insight_item largest[INSIGHT_LARGEST_ITEMS]; /* largest first */
    struct insight_source sources[INSIGHT_MAX_SOURCES]; /* [0] is the table */
    struct insight_vector vectors[INSIGHT_MAX_VECTORS];
};

/* A new recorder (one reference, the table's) counting from now_ms; needs no
 * lock (nobody else has it yet). */
struct insight_table *insight_new(int64_t now_ms);
/* A reference more, or one less (freeing with the last): atomics, they need
 * no lock. */
struct insight_table *insight_ref(struct insight_table *ins);
void insight_unref(struct insight_table *ins);
/* Forgets everything and counts from now_ms; the caller holds the engine lock
 * exclusively. */
void insight_reset(struct insight_table *ins, int64_t now_ms);

/* Readers record between these; the caller holds the engine lock (shared). */
void insight_lock(struct insight_table *ins);
void insight_unlock(struct insight_table *ins);

/* The source for an index (NULL: the table), claimed on first use; NULL when
 * every slot is taken (its units are then not itemized). */
struct insight_source *insight_source(struct insight_table *ins, const char *index_name,
                                      bool is_global);

void insight_count_request(struct insight_table *ins, enum insight_op op);
void insight_count_sizes(struct insight_sizes *s, uint64_t items);

/* A single-item read (GetItem, BatchGetItem, TransactGetItems, a
 * transaction's ConditionCheck is a write): units on the table, heat on its
 * partition key, one item read and returned when found. */
void insight_read_item(struct insight_table *ins, uint64_t hash, const struct key_part *pk,
                       double units, bool found, int64_t now_ms);

/* A committed write to the table (or a transaction's ConditionCheck, with
 * rcu): heat on its partition key, and new_size among the largest items.
 * key_parts: the table key values (1 or 2). */
void insight_write_item(struct insight_table *ins, uint64_t hash, const struct key_part *key,
                        size_t key_count, size_t new_size, bool wrote, double rcu, double wcu,
                        int64_t now_ms);

/* An index entry write of `units` at the index partition key (hash, parts);
 * src NULL (no slot) records nothing. */
void insight_index_write(struct insight_table *ins, struct insight_source *src, uint64_t hash,
                         const struct key_part *parts, size_t count, double units, int64_t now_ms);

/* The counters of vector index name, claimed on first use; NULL when every
 * slot is taken. */
struct insight_vector *insight_vector(struct insight_table *ins, const char *name);
/* A SearchVectors call on vector index name, recorded with the engine lock
 * shared and insight_lock held, and its VectorSearchRequestBytes. */
void insight_vector_search(struct insight_table *ins, const char *name, double bytes);
/* A write that changed an entry of vector index name (engine lock exclusive). */
void insight_vector_write(struct insight_table *ins, const char *name, double bytes);

/* What a Query or Scan page still has to record once its filter has run. */
struct insight_page {
    struct insight_table *ins; /* reference; NULL when nothing is pending */
    atomic_uint_least64_t *returned[3];
};

/*
 * A Query or Scan page, recorded with the engine lock shared and insight_lock
 * held: units (index_units on the index, table_units on the table: an LSI read
 * that fetched items pays both), items and bytes read, the filter (NULL when
 * none) and, for a Query, the partition read (parts NULL for a Scan, which
 * reads across partitions). *page is what insight_page_finish completes.
 */
struct insight_page_read {
    const char *index_name; /* NULL: the table */
    bool is_global;
    bool is_scan;
    uint64_t items_read;
    uint64_t bytes_read;
    double index_units;
    double table_units;
    const char *filter_attrs; /* NULL: no filter */
    uint64_t hash;
    const struct key_part *parts;
    size_t part_count;
    int64_t now_ms;
};
void insight_read_page(struct insight_table *ins, const struct insight_page_read *r,
                       struct insight_page *page);
/* Adds the items the page returned, and drops the page's reference: atomics,
 * no lock needed. */
void insight_page_finish(struct insight_page *page, uint64_t returned);

#endif
