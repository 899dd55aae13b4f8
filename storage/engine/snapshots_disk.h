/*
 * snapshots_disk.h - the writer of named snapshots under --db-path
 * (snapshots_disk.c): a queue of jobs, each a snapshot to store in
 * ddbemu.db or a name to delete there, and the thread that does them in
 * queue order (persist/snapshot_file.h: one SQLite transaction each, so a
 * crash leaves each snapshot whole or absent).
 *
 * A save is answered from memory at once: snapshots.c builds its job under
 * the engine lock - references to immutable items, copies of streams - and
 * queues it; the thread encodes and writes it outside the lock. A written
 * job's stream copies can only be freed under the engine lock, so written
 * jobs wait in a done list that the next queueing, or the stop, frees (both
 * run under the lock). Nothing here calls into the engine: snapshots.c
 * builds the jobs, snapshots_load.c reads them back at start.
 *
 * Locking: the queue has its own mutex, taken inside the engine lock and
 * never around it; each function says what engine lock it needs.
 */
#ifndef DDB_SNAPSHOTS_DISK_H
#define DDB_SNAPSHOTS_DISK_H

#include "storage/base/text.h"
#include "storage/model/item.h"
#include "storage/stream/stream.h"
#include "storage/table/history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct journal;
struct snapshot_disk;

/* The fields of a snapshot's row in ddbemu.db (codec.h: new fields take new
 * tags): written by snapshots.c, read by snapshots_load.c. */
enum snapshot_tag {
    SNAP_ALL = 1,       /* of every namespace */
    SNAP_CREATED = 2,   /* engine clock */
    SNAP_NAMESPACE = 3, /* repeated, in the snapshot's order: the ns of its rows */
};

/* What a save job holds of one table; everything owned. */
struct snapshot_job_table {
    struct text_buf record; /* table_record_encode */
    struct item **items;    /* references, in key order */
    size_t item_count;
    struct history_entry *history; /* references */
    size_t history_count;
};

struct snapshot_job_namespace {
    char *id;
    struct snapshot_job_table *tables;
    size_t table_count;
    struct stream **streams; /* copies (stream_snapshot_namespace) */
    char **stream_arns;      /* theirs */
    size_t stream_count;
};

struct snapshot_job {
    struct snapshot_job *next; /* the queue's */
    bool delete;               /* delete `name`; otherwise store it */
    char *name;
    struct text_buf state; /* the snapshot's row: SNAP_* fields */
    struct snapshot_job_namespace *namespaces;
    size_t namespace_count;
    uint64_t ticket; /* its place in the queue */
};

/* Starts the writer for the journal's ddbemu.db. No engine lock needed. */
struct snapshot_disk *snapshot_disk_new(struct journal *j);
/* Writes everything queued, stops the thread and frees it all. The caller
 * holds the engine lock exclusively (stream copies are freed). NULL: no-op. */
void snapshot_disk_free(struct snapshot_disk *sd);
/* Queues job (taken); frees the jobs already written. The caller holds the
 * engine lock exclusively. */
void snapshot_disk_queue(struct snapshot_disk *sd, struct snapshot_job *job);
/* Whether the newest job naming `name` is a save not yet written. Needs no
 * engine lock (the queue's mutex). */
bool snapshot_disk_pending(struct snapshot_disk *sd, const char *name);
/* Returns once every job queued before the call is written. Called without
 * the engine lock. */
void snapshot_disk_sync(struct snapshot_disk *sd);

/* A save job's table, filled by the caller (snapshots.c). */
struct snapshot_job_table *snapshot_job_add_table(struct snapshot_job_namespace *jn);

#endif
