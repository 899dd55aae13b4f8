/*
 * snapshot_record.h - a named snapshot as a record: what it holds of each
 * namespace, and the store of every snapshot (snapshot_record.c).
 *
 * Below storage/engine/ so that the engine frees them by calling down; the
 * operations that make, restore and fork them are engine/snapshots.c's.
 * Ownership: a snapshot owns its name, namespaces, table records, item and
 * history references and stream copies; the store owns its snapshots.
 */
#ifndef DDB_JOBS_SNAPSHOT_RECORD_H
#define DDB_JOBS_SNAPSHOT_RECORD_H

#include "storage/base/text.h"
#include "storage/model/item.h"
#include "storage/stream/stream.h"
#include "storage/table/history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct row_order;   /* storage/table/table.h */
struct table_share; /* storage/table/table_share.h */

/* One table of a snapshot. */
struct snap_table {
    struct text_buf record; /* table_record_encode */
    /* The table's rows, shared with it until either changes (table_share.h;
     * one reference owned). NULL when it could not share them: then items. */
    struct table_share *share;
    struct item **items; /* owned references, in key order; NULL with share */
    size_t item_count;
    struct history_entry *history; /* owned references */
    size_t history_count;
    /* Each index's rows, then the TTL index's, in their order (items
     * borrowed from items): a restore appends them without sorting. */
    struct row_order *orders;
    size_t order_count; /* the table's index_count + 1 */
};

/* One namespace of a snapshot. */
struct snap_namespace {
    char *id;
    struct snap_table *tables;
    size_t table_count;
    struct stream **streams; /* copies (stream_copy.c) */
    size_t stream_count;
};

struct snapshot {
    char *name;
    bool all; /* of every namespace */
    int64_t created_ms;
    struct snap_namespace *namespaces;
    size_t namespace_count;
};

struct snapshot_store {
    struct snapshot **snapshots; /* creation order */
    size_t count;
};

/* Drops the item references and history-image references a snapshot's table
 * (or its disk job, engine/snapshots_disk.h) holds, and frees both arrays. */
void snapshot_refs_free(struct item **items, size_t item_count, struct history_entry *history,
                        size_t history_count);
/* Frees a snapshot and all it holds (NULL: nothing). */
void snapshot_free(struct snapshot *s);
/* Frees the store and its snapshots (NULL: nothing). */
void snapshot_store_free(struct snapshot_store *st);

#endif
