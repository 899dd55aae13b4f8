/*
 * stream.h - DynamoDB Streams inside the engine: one change log per enabled
 * stream, fed by the single write path.
 *
 * Every committed change of a table with an enabled stream reaches
 * stream_record_change() from table_commit_write() (table.c), in commit order,
 * with the item before and after it (immutable and refcounted, so an image is
 * a reference, not a copy). A stream is a list of shards; records go to the
 * open (last) shard; about every four hours of the engine's clock the open
 * shard closes and a child opens (ParentShardId), as on AWS.
 *
 * Streams outlive their tables: the registry in struct db owns them, so a
 * disabled stream, or the stream of a deleted table, stays readable for 24
 * hours, as AWS documents. A table points at its open stream only
 * (t->stream); disabling, re-enabling (a new ARN and label) or deleting the
 * table closes it.
 *
 * Time: everything follows the engine's clock (db_now_ms): record times, the
 * 24-hour trim, shard rollover and iterator expiry. Trimming and rollover are
 * applied lazily whenever a stream is touched under the exclusive lock (a
 * write, a Streams API call, the TTL sweeper's pass), so what a reader sees
 * is always what the clock says.
 *
 * The caller holds db->lock exclusively for every function here.
 */
#ifndef DDB_STREAM_H
#define DDB_STREAM_H

#include "storage/model/item.h"
#include "storage/model/schema.h"

#include <stdbool.h>
#include <stdint.h>

struct db;
struct table;
struct stream;
struct stream_registry;

/* Who made a change: an application request, or the TTL sweeper (whose
 * records carry userIdentity {Type: Service, PrincipalId: dynamodb.amazonaws.com}). */
enum stream_origin { STREAM_ORIGIN_USER, STREAM_ORIGIN_TTL };

/* The registry of one struct db; db is borrowed for its clock. */
struct stream_registry *stream_registry_new(struct db *db);
/* Frees every stream. Tables must already have let go of theirs (db_free frees
 * tables first). */
void stream_registry_free(struct stream_registry *reg);

/* Makes t's open stream match its definition: opens a stream named by
 * t->latest_stream_arn/label when the table's stream is enabled and that
 * stream is not open yet (a new table, or a re-enable, which minted a new
 * ARN), and closes the open one when the stream was disabled or replaced. */
void stream_sync_table(struct db *db, const char *namespace_id, struct table *t);

/* The table is going away (DeleteTable, a namespace reset, db_free): its open
 * stream is closed and stays readable for 24 hours. NULL is a no-op. */
void stream_detach(struct stream *s);

/* Records one committed change (old and/or new item; references are taken as
 * the stream's view needs them). A write that changes nothing - old and new
 * equal, or neither present - records nothing. */
void stream_record_change(struct stream *s, struct item *old_item, struct item *new_item,
                          enum stream_origin origin);

/* Rolls shards over and trims records, shards and streams older than the
 * retention period, for every stream (the TTL sweeper's periodic pass). */
void stream_registry_maintain(struct stream_registry *reg, int64_t now_ms);

/* Forgets every stream of a namespace at once (emulator reset). */
void stream_registry_drop_namespace(struct stream_registry *reg, const char *namespace_id);

#endif
