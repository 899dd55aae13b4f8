/*
 * stream_internal.h - the change log's data, shared by stream.c (which
 * writes it) and stream_read.c (which reads it). Private to storage/stream/.
 *
 * The caller holds db->lock exclusively for every function here.
 */
#ifndef DDB_STREAM_INTERNAL_H
#define DDB_STREAM_INTERNAL_H

#include "storage/persist/journal.h"
#include "storage/stream/stream.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream_record {
    uint64_t seq;
    int64_t created_ms;
    size_t size_bytes;
    enum stream_event event;
    bool by_ttl;
    struct item *old_image; /* held when the view shows it */
    struct item *new_image; /* held when the view shows it */
    struct item *keys_only; /* the key attributes, when neither image is held */
};

/* A shard's records shared between a stream and its copies in snapshots,
 * restores and forks (stream_copy.c): the array, as the shard that first
 * shared it held it, [head, count) live. Each holder's view is the same
 * array; none changes it while shared (shard_unshare first: shard_records.c). */
struct record_share {
    atomic_size_t refs;
    struct stream_record *records; /* owned, with the image references of [head, count) */
    size_t head, count;
};

struct shard {
    char *id;
    char *parent_id; /* NULL for a stream's first shard */
    int64_t created_ms;
    uint64_t start_seq;
    uint64_t last_seq; /* the last number given out in this shard (start_seq when none) */
    bool closed;
    int64_t closed_ms;
    struct stream_record *records; /* the live records are [head, count) */
    size_t head, count, cap;
    struct record_share *shared; /* non-NULL: records is its array (one reference owned) */
    uint64_t trimmed_through;    /* the highest sequence number trimmed away; 0 when none */
};

struct stream {
    struct stream_registry *reg;
    struct journal_file *journal; /* where its changes are recorded; NULL: in memory */
    char *namespace_id;
    char *arn;
    char *label;
    char *table_name;
    char *region;
    struct key_schema key;
    enum stream_view view;
    int64_t creation_ms;
    bool enabled;
    int64_t enabling_until_ms; /* StreamStatus ENABLING before (--delay-transient-statuses) */
    int64_t disabled_ms;
    struct shard *shards; /* oldest first, which is also shard id order */
    size_t shard_count, shard_cap;
    uint64_t event_seed; /* eventIDs are hashes of (stream, sequence number) */
};

struct stream_registry {
    struct stream **streams; /* sorted by (namespace_id, arn) */
    size_t count, cap;
    /* The next sequence number; never 0. Atomic: writers of different
     * tables record at once, each under its own table's lock. */
    _Atomic uint64_t next_seq;
    uint64_t secret; /* keys the iterators' hashes */
};

/* Registry order: namespace, then ARN (ListStreams pages in ARN order). A
 * comparison of names: needs no lock. */
int stream_order(const struct stream *s, const char *namespace_id, const char *arn);
/* The first position whose stream is >= (namespace_id, arn). */
size_t registry_lower_bound(const struct stream_registry *reg, const char *namespace_id,
                            const char *arn);
/* The stream (namespace_id, arn), or NULL. */
struct stream *registry_find(const struct stream_registry *reg, const char *namespace_id,
                             const char *arn);
/* Inserts s (taken; its namespace and ARN not in reg yet) in registry order. */
void registry_insert(struct stream_registry *reg, struct stream *s);
/* Frees a stream that no registry holds any more (or never held). */
void stream_free(struct stream *s);
/* Drops a record's image references (shard_records.c). Like shard_unshare and
 * shard_detach, a write reaches it through stream_record_change: the caller
 * holds the stream's table's lock exclusively (or the catalog lock so). */
void record_clear(struct stream_record *r);
/* Makes to (a copy of from's fields) read from's records, shared from now
 * on (shard_records.c); the caller holds the catalog lock exclusively. */
void shard_share_records(struct shard *from, struct shard *to);
/* Gives sh an array of its own before it changes its records (shard_records.c). */
void shard_unshare(struct shard *sh);
/* Lets go of sh's shared records without copying them (sh is being freed). */
void shard_detach(struct shard *sh);
/* Record the stream's metadata, and one of its records, to its journal;
 * no-ops in memory. The caller holds the table's lock exclusively (or the
 * catalog lock so). */
void persist_stream(const struct stream *s);
void persist_record(const struct stream *s, const struct stream_record *r);
/* Applies the rollover and trim that now_ms calls for to one stream; the
 * caller holds the table's lock exclusively (or the catalog lock so). */
void stream_maintain(struct stream *s, int64_t now_ms);
/* The key attributes of item as a new VALUE_M, in key schema order; reads
 * only its arguments, so it needs no lock. */
void stream_item_keys(const struct key_schema *k, const struct item *item, struct value *out);

#endif
