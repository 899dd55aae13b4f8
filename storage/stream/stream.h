/*
 * stream.h - DynamoDB Streams inside the engine: one change log per enabled
 * stream, fed by the single write path, and read by the Streams API.
 *
 * Every committed change of a table with an enabled stream reaches
 * stream_record_change() from table_commit_write() (table/table.c), in commit
 * order, with the item before and after it (immutable and refcounted, so an
 * image is a reference, not a copy). A stream is a list of shards; records go
 * to the open (last) shard; about every four hours of the engine's clock the
 * open shard closes and a child opens (ParentShardId), as on AWS.
 *
 * Streams outlive their tables: the registry in struct db owns them, so a
 * disabled stream, or the stream of a deleted table, stays readable for 24
 * hours, as AWS documents. A table points at its open stream only; disabling,
 * re-enabling (a new ARN and label) or deleting the table closes it.
 *
 * Time: this room has no clock of its own. Every function that depends on
 * time takes now_ms, the engine's clock read by the caller. Trimming and
 * rollover are applied lazily whenever a stream is touched, so what a reader
 * sees is always what the clock says.
 *
 * stream.c holds the log (registry, shards, recording, rollover and trim);
 * stream_read.c the reading side (ListStreams, DescribeStream, iterators,
 * GetRecords). storage/streams.c wraps the reading side in the db_* entry
 * points, which take the lock and read the clock.
 *
 * The caller holds db->lock exclusively for every function here (asserted:
 * base/lock_check.h), except stream_record_change: an item write records
 * under its table's lock only (docs/architecture.md, "Locking"), which is
 * enough because a stream is its table's alone - the registry's one
 * sequence counter, which every stream shares, is atomic.
 */
#ifndef DDB_STREAM_H
#define DDB_STREAM_H

#include "storage/base/error.h"
#include "storage/model/item.h"
#include "storage/model/schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct journal_file;
struct stream;
struct stream_registry;

enum stream_status { STREAM_ENABLING, STREAM_ENABLED, STREAM_DISABLING, STREAM_DISABLED };
enum stream_event { STREAM_EVENT_INSERT, STREAM_EVENT_MODIFY, STREAM_EVENT_REMOVE };
enum shard_iterator_type {
    SHARD_ITERATOR_TRIM_HORIZON,
    SHARD_ITERATOR_LATEST,
    SHARD_ITERATOR_AT_SEQUENCE_NUMBER,
    SHARD_ITERATOR_AFTER_SEQUENCE_NUMBER,
};

/* Who made a change: an application request, or the TTL sweeper (whose
 * records carry userIdentity {Type: Service, PrincipalId: dynamodb.amazonaws.com}). */
enum stream_origin { STREAM_ORIGIN_USER, STREAM_ORIGIN_TTL };

/* Their names as AWS spells them (static text): need no lock. */
const char *stream_status_name(enum stream_status s);
const char *stream_event_name(enum stream_event e);

/* ---- the change log (stream.c) ---- */

/* What a stream is opened for: its table's names and key schema (borrowed). */
struct stream_source {
    const char *arn;   /* the table's LatestStreamArn */
    const char *label; /* the table's LatestStreamLabel */
    const char *table_name;
    const char *region;
    const struct key_schema *key;
    enum stream_view view;
    struct journal_file *journal; /* where its changes are recorded; NULL: in memory */
    int64_t enabling_until_ms;    /* described ENABLING until then (0: ENABLED at once) */
};

/* The registry of one struct db; needs no lock (nothing shares it yet). */
struct stream_registry *stream_registry_new(void);
/* Frees every stream. Tables must already have let go of theirs (db_free frees
 * tables first). */
void stream_registry_free(struct stream_registry *reg);

/* Opens a new stream for src in the namespace and returns it (owned by the
 * registry; the table keeps it as its open stream). */
struct stream *stream_open(struct stream_registry *reg, const char *namespace_id,
                           const struct stream_source *src, int64_t now_ms);
/* Disables a stream (its table disabled or replaced it, or is going away): its
 * open shard closes at now_ms and it stays readable for 24 hours. NULL is a no-op. */
void stream_close(struct stream *s, int64_t now_ms);
/* The stream's ARN (borrowed). */
const char *stream_arn(const struct stream *s);
/* Whether the stream is still being written to (not disabled or replaced). */
bool stream_is_enabled(const struct stream *s);

/* Records one committed change at now_ms (old and/or new item; references
 * are taken as the stream's view needs them). A write that changes nothing -
 * old and new equal, or neither present - records nothing. The caller holds
 * the stream's table's lock exclusively (or the catalog lock so). */
void stream_record_change(struct stream *s, struct item *old_item, struct item *new_item,
                          enum stream_origin origin, int64_t now_ms);

/* Rolls shards over and trims records, shards and streams older than the
 * retention period, for every stream (the TTL sweeper's periodic pass). */
void stream_registry_maintain(struct stream_registry *reg, int64_t now_ms);

/* Forgets every stream of a namespace at once (emulator reset). */
void stream_registry_drop_namespace(struct stream_registry *reg, const char *namespace_id);

/* ---- persistence (stream.c) ---- */

/* The secret that keys iterators and event ids; persistence keeps it so that
 * iterators handed out before a restart still work after it. */
uint64_t stream_registry_secret(const struct stream_registry *reg);
void stream_registry_set_secret(struct stream_registry *reg, uint64_t secret);
/* The namespace's stream named arn, or NULL. */
struct stream *stream_registry_find(const struct stream_registry *reg, const char *namespace_id,
                                    const char *arn);
/* Brings back a stream from its recorded metadata (written by the journal,
 * see persist/journal.h) into the registry; false when the bytes are not a
 * stream's. Its records follow with stream_restore_record. */
bool stream_restore(struct stream_registry *reg, const char *namespace_id,
                    struct journal_file *journal, const void *state, size_t len);
/* One recorded stream record back into its shard; false when malformed or
 * when it names no shard of the stream. */
bool stream_restore_record(struct stream_registry *reg, const char *namespace_id, const char *arn,
                           uint64_t seq, const void *record, size_t len);
/* After restoring: sequence numbers continue after every restored one. */
void stream_registry_restored(struct stream_registry *reg);
/* After restoring other (a registry of streams a snapshot on disk held):
 * reg's sequence numbers continue after every number other holds too. */
void stream_registry_follow(struct stream_registry *reg, const struct stream_registry *other);
/* Stops recording anything to disk (the process is stopping: closing the
 * streams of tables that are only unloaded must not be recorded). */
void stream_registry_forget_journal(struct stream_registry *reg);

/* ---- copies for snapshots and forks (stream_copy.c) ---- */

/* Copies of every stream of the namespace (open, disabled or of a deleted
 * table), in registry order, in no registry: *out is an owned array of owned
 * copies (stream_snapshot_free each); returns their number. The copies
 * share the streams' records (the array, until either side adds or trims
 * one: stream_copy.c), and records their images. */
size_t stream_snapshot_namespace(const struct stream_registry *reg, const char *namespace_id,
                                 struct stream ***out);
void stream_snapshot_free(struct stream *copy);
/* Puts a copy of copy (sharing its records) into reg under namespace_id (where no stream has its
 * ARN: the caller dropped the namespace's streams first) and records it in
 * journal (NULL: in memory); returns the registry's stream. */
struct stream *stream_adopt(struct stream_registry *reg, const char *namespace_id,
                            struct journal_file *journal, struct stream *copy);
/* A copy's metadata, and each of its records, in the bytes the journal
 * records for a stream (what stream_restore and stream_restore_record read
 * back): how a snapshot goes to disk. A copy is its holder's alone and
 * never changes, so these need no lock. */
struct text_buf;
void stream_copy_encode(const struct stream *copy, struct text_buf *state);
typedef void stream_copy_record_fn(void *ctx, uint64_t seq, const void *record, size_t len);
void stream_copy_each_record(const struct stream *copy, stream_copy_record_fn *fn, void *ctx);
/* A copy's ARN and table name (borrowed), and how many records it holds. */
const char *stream_copy_arn(const struct stream *copy);
const char *stream_copy_table_name(const struct stream *copy);
size_t stream_copy_record_count(const struct stream *copy);

/* ---- the reading side (stream_read.c) ---- */

/* One entry of ListStreams. Strings owned. */
struct stream_summary {
    char *arn;
    char *table_name;
    char *label;
};

/* Frees a summary, the caller's own copy: needs no lock. */
void stream_summary_clear(struct stream_summary *s);

/* Sequence numbers are decimal strings of 21 to 40 digits (SequenceNumber's length). */
#define STREAM_SEQUENCE_TEXT_MAX 41

struct shard_desc {
    char *shard_id;        /* owned */
    char *parent_shard_id; /* owned; NULL for a stream's first shard */
    char starting_sequence[STREAM_SEQUENCE_TEXT_MAX];
    char ending_sequence[STREAM_SEQUENCE_TEXT_MAX]; /* "" while the shard is open */
};

struct stream_desc {
    char *arn;
    char *label;
    char *table_name;
    enum stream_status status;
    enum stream_view view;
    int64_t creation_ms;
    struct key_schema key;
    struct shard_desc *shards; /* owned, in shard id order (oldest first) */
    size_t shard_count;
    char *last_evaluated_shard_id; /* owned; set when more shards follow */
};

/* Frees a description, the caller's own copy: needs no lock. */
void stream_desc_clear(struct stream_desc *d);

/* One stream record as GetRecords returns it. */
struct stream_record_out {
    char event_id[33];
    enum stream_event event;
    bool by_ttl; /* deleted by TTL: userIdentity is the DynamoDB service */
    int64_t created_ms;
    char sequence_number[STREAM_SEQUENCE_TEXT_MAX];
    size_t size_bytes;
    enum stream_view view;
    struct value keys;      /* owned VALUE_M: the item's key attributes */
    struct item *new_image; /* owned reference, or NULL (not in the view, or a REMOVE) */
    struct item *old_image; /* owned reference, or NULL (not in the view, or an INSERT) */
};

struct stream_records {
    struct stream_record_out *records; /* owned */
    size_t count;
    char *region;        /* owned: awsRegion of every record */
    char *next_iterator; /* owned; NULL once a closed shard has been read to its end */
};

/* Frees records, the caller's own copies: needs no lock. */
void stream_records_clear(struct stream_records *r);

/* ListStreams, DescribeStream, GetShardIterator and GetRecords over the
 * namespace's streams at now_ms: see their db_* entry points in db.h for what
 * each answers and raises. */
int stream_list(struct stream_registry *reg, const char *namespace_id, const char *table_name,
                const char *exclusive_start_arn, size_t limit, int64_t now_ms,
                struct stream_summary **out, size_t *count, char **last_evaluated_arn,
                struct ddb_error *err);
int stream_describe(struct stream_registry *reg, const char *namespace_id, const char *arn,
                    size_t limit, const char *exclusive_start_shard_id,
                    const char *child_of_shard_id, int64_t now_ms, struct stream_desc *out,
                    struct ddb_error *err);
int stream_shard_iterator(struct stream_registry *reg, const char *namespace_id, const char *arn,
                          const char *shard_id, enum shard_iterator_type type,
                          const char *sequence_number, int64_t now_ms, char **iterator,
                          struct ddb_error *err);
int stream_read_records(struct stream_registry *reg, const char *namespace_id, const char *iterator,
                        size_t limit, int64_t now_ms, struct stream_records *out,
                        struct ddb_error *err);

#endif
