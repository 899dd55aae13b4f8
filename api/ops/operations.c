/*
 * operations.c - THE operations table: one row per X-Amz-Target.
 *
 * dispatch.c looks the target up here; a target that is not listed answers
 * UnknownOperationException, exactly like a misspelt one, so an operation is
 * added here in the same change that adds its handler (ops.h). Targets are
 * matched exactly (case-sensitive), as DynamoDB does.
 */
#include "api/ops/ops.h"

const struct operation api_operations[] = {
    {"DynamoDB_20120810.CreateTable", op_create_table, create_table_fields},
    {"DynamoDB_20120810.DescribeTable", op_describe_table, describe_table_fields},
    {"DynamoDB_20120810.UpdateTable", op_update_table, update_table_fields},
    {"DynamoDB_20120810.DeleteTable", op_delete_table, delete_table_fields},
    {"DynamoDB_20120810.ListTables", op_list_tables, list_tables_fields},
    {"DynamoDB_20120810.PutItem", op_put_item, put_item_fields},
    {"DynamoDB_20120810.GetItem", op_get_item, get_item_fields},
    {"DynamoDB_20120810.DeleteItem", op_delete_item, delete_item_fields},
    {"DynamoDB_20120810.UpdateItem", op_update_item, update_item_fields},
    {"DynamoDB_20120810.Query", op_query, query_fields},
    {"DynamoDB_20120810.Scan", op_scan, scan_fields},
    {"DynamoDB_20120810.BatchGetItem", op_batch_get_item, batch_get_item_fields},
    {"DynamoDB_20120810.BatchWriteItem", op_batch_write_item, batch_write_item_fields},
    {"DynamoDB_20120810.TransactWriteItems", op_transact_write_items, transact_write_items_fields},
    {"DynamoDB_20120810.TransactGetItems", op_transact_get_items, transact_get_items_fields},
    {"DynamoDB_20120810.UpdateTimeToLive", op_update_time_to_live, update_time_to_live_fields},
    {"DynamoDB_20120810.DescribeTimeToLive", op_describe_time_to_live,
     describe_time_to_live_fields},
    {"DynamoDB_20120810.DescribeContinuousBackups", op_describe_continuous_backups,
     describe_continuous_backups_fields},
    {"DynamoDB_20120810.UpdateContinuousBackups", op_update_continuous_backups,
     update_continuous_backups_fields},
    {"DynamoDB_20120810.ExportTableToPointInTime", op_export_table_to_point_in_time,
     export_table_to_point_in_time_fields},
    {"DynamoDB_20120810.DescribeExport", op_describe_export, describe_export_fields},
    {"DynamoDB_20120810.ListExports", op_list_exports, list_exports_fields},
    {"DynamoDB_20120810.ImportTable", op_import_table, import_table_fields},
    {"DynamoDB_20120810.DescribeImport", op_describe_import, describe_import_fields},
    {"DynamoDB_20120810.ListImports", op_list_imports, list_imports_fields},
    {"DynamoDB_20120810.ExecuteStatement", op_execute_statement, execute_statement_fields},
    {"DynamoDB_20120810.BatchExecuteStatement", op_batch_execute_statement,
     batch_execute_statement_fields},
    {"DynamoDB_20120810.ExecuteTransaction", op_execute_transaction, execute_transaction_fields},
    /* DynamoDB Streams, served on the same port (op_streams.c). */
    {"DynamoDBStreams_20120810.ListStreams", op_list_streams, list_streams_fields},
    {"DynamoDBStreams_20120810.DescribeStream", op_describe_stream, describe_stream_fields},
    {"DynamoDBStreams_20120810.GetShardIterator", op_get_shard_iterator, get_shard_iterator_fields},
    {"DynamoDBStreams_20120810.GetRecords", op_get_records, get_records_fields},
    {NULL, NULL, NULL},
};
