/*
 * db_streams.h - the db_* entry points of DynamoDB Streams' reading side (db_streams.c; the types
 * are in stream/stream.h).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_STREAMS_H
#define DDB_DB_STREAMS_H

#include "storage/engine/db.h"
#include "storage/stream/stream.h"

/* ListStreams: the scope's streams (of table_name only, when not NULL), in
 * ARN order after exclusive_start_arn (NULL: from the start), at most limit.
 * *out is an owned array (free each with stream_summary_clear, then the
 * array); *last_evaluated_arn (owned) is set when more streams follow.
 * ValidationException "Invalid StreamArn" for a start ARN that is not one. */
int db_list_streams(struct db *db, const struct db_scope *scope, const char *table_name,
                    const char *exclusive_start_arn, size_t limit, struct stream_summary **out,
                    size_t *count, char **last_evaluated_arn, struct ddb_error *err);

/* DescribeStream: the stream and at most limit of its shards with ids after
 * exclusive_start_shard_id (NULL: from the first); with child_of_shard_id
 * (ShardFilter CHILD_SHARDS) only that shard's children. ValidationException
 * "Invalid StreamArn"; ResourceNotFoundException for an unknown stream.
 * *out is owned by the caller (stream_desc_clear). */
int db_describe_stream(struct db *db, const struct db_scope *scope, const char *arn, size_t limit,
                       const char *exclusive_start_shard_id, const char *child_of_shard_id,
                       struct stream_desc *out, struct ddb_error *err);

/* GetShardIterator: a new iterator (owned string) valid for 15 minutes of the
 * engine's clock. sequence_number is given exactly for the AT/AFTER types.
 * ValidationException, ResourceNotFoundException (stream or shard),
 * TrimmedDataAccessException for a position older than the trim horizon. */
int db_get_shard_iterator(struct db *db, const struct db_scope *scope, const char *arn,
                          const char *shard_id, enum shard_iterator_type type,
                          const char *sequence_number, char **iterator, struct ddb_error *err);

/* GetRecords: at most limit records (and about 1 MB) from the iterator's
 * position. ValidationException for a malformed iterator,
 * ExpiredIteratorException after 15 minutes, TrimmedDataAccessException when
 * records at the position were trimmed, ResourceNotFoundException when the
 * stream or shard is gone. *out is owned by the caller. */
int db_get_records(struct db *db, const struct db_scope *scope, const char *iterator, size_t limit,
                   struct stream_records *out, struct ddb_error *err);

#endif
