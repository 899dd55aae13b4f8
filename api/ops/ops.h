/*
 * ops.h - the list of operations: for each, its handler and its request shape.
 *
 * Each op_*.c file defines, for every operation it serves, a handler
 * (op_handler_fn, see request.h) and the field table of its request body
 * (see shape.h). DYNAMODB_OPERATIONS and STREAMS_OPERATIONS below list them
 * once, one X(Name, stem) row per operation: the X-Amz-Target is
 * "DynamoDB_20120810.<Name>" (or "DynamoDBStreams_20120810.<Name>"), the
 * handler is op_<stem> and the field table <stem>_fields. This header
 * declares both from the lists, and operations.c makes THE operations table
 * (struct operation) of them; dispatch.c finds the row, checks the body
 * against the fields with shape_check() and then calls the handler.
 *
 * A row is only added once its handler exists: until then the target
 * answers UnknownOperationException, as for any other unknown target.
 */
#ifndef DDB_API_OPS_H
#define DDB_API_OPS_H

#include "api/ops/request.h"
#include "api/wire/shape.h"

/* One row of the operations table: "DynamoDB_20120810.PutItem" -> handler. */
struct operation {
    const char *target; /* the full X-Amz-Target value */
    op_handler_fn *handler;
    const struct field *fields; /* the request shape; never NULL */
};

/* The operations table (operations.c), terminated by a row with target NULL. */
extern const struct operation api_operations[];

/* Finds the row for an X-Amz-Target value (len bytes, not NUL-terminated);
 * NULL when unknown. Case-sensitive, as DynamoDB is. (Defined in dispatch.c.) */
const struct operation *operation_find(const struct operation *table, const char *target,
                                       size_t len);

/* The operations of the DynamoDB_20120810 targets, by the file that serves them. */
#define DYNAMODB_OPERATIONS(X)                                                                     \
    /* op_table.c, op_update_table.c: tables (UpdateTable's shape is in op_table.c) */             \
    X(CreateTable, create_table)                                                                   \
    X(DescribeTable, describe_table)                                                               \
    X(UpdateTable, update_table)                                                                   \
    X(DeleteTable, delete_table)                                                                   \
    X(ListTables, list_tables)                                                                     \
    /* op_item.c, op_update.c: single items */                                                     \
    X(PutItem, put_item)                                                                           \
    X(GetItem, get_item)                                                                           \
    X(DeleteItem, delete_item)                                                                     \
    X(UpdateItem, update_item)                                                                     \
    /* op_query.c: Query and Scan */                                                               \
    X(Query, query)                                                                                \
    X(Scan, scan)                                                                                  \
    /* op_search.c: SearchVectors */                                                               \
    X(SearchVectors, search_vectors)                                                               \
    /* op_batch.c */                                                                               \
    X(BatchGetItem, batch_get_item)                                                                \
    X(BatchWriteItem, batch_write_item)                                                            \
    /* op_transact.c */                                                                            \
    X(TransactWriteItems, transact_write_items)                                                    \
    X(TransactGetItems, transact_get_items)                                                        \
    /* op_ttl.c */                                                                                 \
    X(UpdateTimeToLive, update_time_to_live)                                                       \
    X(DescribeTimeToLive, describe_time_to_live)                                                   \
    /* op_backup.c: point-in-time recovery */                                                      \
    X(DescribeContinuousBackups, describe_continuous_backups)                                      \
    X(UpdateContinuousBackups, update_continuous_backups)                                          \
    /* op_backup.c: on-demand backups */                                                           \
    X(CreateBackup, create_backup)                                                                 \
    X(DescribeBackup, describe_backup)                                                             \
    X(DeleteBackup, delete_backup)                                                                 \
    X(ListBackups, list_backups)                                                                   \
    /* op_restore.c: restores from a backup or a point in time (shapes in op_table.c) */           \
    X(RestoreTableFromBackup, restore_table_from_backup)                                           \
    X(RestoreTableToPointInTime, restore_table_to_point_in_time)                                   \
    /* op_transfer.c: exports and imports */                                                       \
    X(ExportTableToPointInTime, export_table_to_point_in_time)                                     \
    X(DescribeExport, describe_export)                                                             \
    X(ListExports, list_exports)                                                                   \
    X(ImportTable, import_table)                                                                   \
    X(DescribeImport, describe_import)                                                             \
    X(ListImports, list_imports)                                                                   \
    /* op_bulk.c: bulk put items */                                                                \
    X(StartBulkPutItems, start_bulk_put_items)                                                     \
    X(DescribeBulkOperation, describe_bulk_operation)                                              \
    X(ListBulkOperations, list_bulk_operations)                                                    \
    X(CancelBulkOperation, cancel_bulk_operation)                                                  \
    /* op_tags.c: tags */                                                                          \
    X(TagResource, tag_resource)                                                                   \
    X(UntagResource, untag_resource)                                                               \
    X(ListTagsOfResource, list_tags_of_resource)                                                   \
    /* op_policy.c: resource-based policies */                                                     \
    X(PutResourcePolicy, put_resource_policy)                                                      \
    X(GetResourcePolicy, get_resource_policy)                                                      \
    X(DeleteResourcePolicy, delete_resource_policy)                                                \
    /* op_service.c: DescribeLimits, DescribeEndpoints */                                          \
    X(DescribeLimits, describe_limits)                                                             \
    X(DescribeEndpoints, describe_endpoints)                                                       \
    /* op_insights.c: contributor insights */                                                      \
    X(DescribeContributorInsights, describe_contributor_insights)                                  \
    X(UpdateContributorInsights, update_contributor_insights)                                      \
    X(ListContributorInsights, list_contributor_insights)                                          \
    /* op_kinesis.c: Kinesis streaming destinations */                                             \
    X(EnableKinesisStreamingDestination, enable_kinesis_streaming_destination)                     \
    X(DisableKinesisStreamingDestination, disable_kinesis_streaming_destination)                   \
    X(UpdateKinesisStreamingDestination, update_kinesis_streaming_destination)                     \
    X(DescribeKinesisStreamingDestination, describe_kinesis_streaming_destination)                 \
    /* op_global.c: global tables 2017.11.29 and replica auto scaling */                           \
    X(CreateGlobalTable, create_global_table)                                                      \
    X(UpdateGlobalTable, update_global_table)                                                      \
    X(DescribeGlobalTable, describe_global_table)                                                  \
    X(ListGlobalTables, list_global_tables)                                                        \
    X(DescribeGlobalTableSettings, describe_global_table_settings)                                 \
    X(UpdateGlobalTableSettings, update_global_table_settings)                                     \
    X(DescribeTableReplicaAutoScaling, describe_table_replica_auto_scaling)                        \
    X(UpdateTableReplicaAutoScaling, update_table_replica_auto_scaling)                            \
    /* op_partiql.c: PartiQL */                                                                    \
    X(ExecuteStatement, execute_statement)                                                         \
    X(BatchExecuteStatement, batch_execute_statement)                                              \
    X(ExecuteTransaction, execute_transaction)

/* The DynamoDBStreams_20120810 targets, served on the same port. */
#define STREAMS_OPERATIONS(X)                                                                      \
    /* op_streams.c: the DynamoDBStreams_20120810 targets */                                       \
    X(ListStreams, list_streams)                                                                   \
    X(DescribeStream, describe_stream)                                                             \
    X(GetShardIterator, get_shard_iterator)                                                        \
    X(GetRecords, get_records)

/* int op_<stem>(struct api_request *rq) and <stem>_fields[] of every operation. */
#define DECLARE_OPERATION(name, stem)                                                              \
    int op_##stem(struct api_request *rq);                                                         \
    extern const struct field stem##_fields[];
DYNAMODB_OPERATIONS(DECLARE_OPERATION)
STREAMS_OPERATIONS(DECLARE_OPERATION)
#undef DECLARE_OPERATION

/* TableCreationParameters of ImportTable: CreateTable's shape (op_table.c). */
extern const struct field table_creation_parameters_fields[];
/* The ClientRequestToken digest of a request body (owned); op_transact.c
 * defines it, op_partiql.c shares it. */
char *transact_request_digest(json_t *body);

#endif
