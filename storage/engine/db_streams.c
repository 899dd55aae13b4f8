/*
 * engine/db_streams.c - the DynamoDB Streams API's entry points: ListStreams,
 * DescribeStream, GetShardIterator and GetRecords.
 *
 * Each takes db->lock exclusively (looking at a stream applies the rollover
 * and trim that the clock calls for), reads the engine's clock once, and
 * hands both to the reading side of the change log (stream/stream_read.c).
 */
#include "storage/engine/db_streams.h"

#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/stream/stream.h"

int db_list_streams(struct db *db, const struct db_scope *scope, const char *table_name,
                    const char *exclusive_start_arn, size_t limit, struct stream_summary **out,
                    size_t *count, char **last_evaluated_arn, struct ddb_error *err)
{
    int rc;

    db_write_lock(db);
    rc = stream_list(db->streams, scope->namespace_id, table_name, exclusive_start_arn, limit,
                     db_now_ms(db), out, count, last_evaluated_arn, err);
    db_unlock(db);
    return rc;
}

int db_describe_stream(struct db *db, const struct db_scope *scope, const char *arn, size_t limit,
                       const char *exclusive_start_shard_id, const char *child_of_shard_id,
                       struct stream_desc *out, struct ddb_error *err)
{
    int rc;

    db_write_lock(db);
    rc = stream_describe(db->streams, scope->namespace_id, arn, limit, exclusive_start_shard_id,
                         child_of_shard_id, db_now_ms(db), out, err);
    db_unlock(db);
    return rc;
}

int db_get_shard_iterator(struct db *db, const struct db_scope *scope, const char *arn,
                          const char *shard_id, enum shard_iterator_type type,
                          const char *sequence_number, char **iterator, struct ddb_error *err)
{
    int rc;

    db_write_lock(db);
    rc = stream_shard_iterator(db->streams, scope->namespace_id, arn, shard_id, type,
                               sequence_number, db_now_ms(db), iterator, err);
    db_unlock(db);
    return rc;
}

int db_get_records(struct db *db, const struct db_scope *scope, const char *iterator, size_t limit,
                   struct stream_records *out, struct ddb_error *err)
{
    int rc;

    db_write_lock(db);
    rc = stream_read_records(db->streams, scope->namespace_id, iterator, limit, db_now_ms(db), out,
                             err);
    db_unlock(db);
    return rc;
}
