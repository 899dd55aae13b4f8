/*
 * ops.h - one prototype per operation handler, and its request shape.
 *
 * Each op_*.c file defines, for every operation it serves, a handler
 * (op_handler_fn, see request.h) and the field table of its request body
 * (see shape.h), named <operation>_fields and declared here. operations.c
 * lists them in THE operations table (struct operation), one row per
 * X-Amz-Target string; dispatch.c finds the row, checks the body against
 * the fields with shape_check() and then calls the handler.
 *
 * A handler is only listed in operations.c once it exists: until then the
 * target answers UnknownOperationException, as for any other unknown target.
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

/* ---- op_table.c, op_update_table.c: tables ---- */
int op_create_table(struct api_request *rq);
int op_describe_table(struct api_request *rq);
int op_update_table(struct api_request *rq); /* in op_update_table.c */
int op_delete_table(struct api_request *rq);
int op_list_tables(struct api_request *rq);
extern const struct field create_table_fields[];
extern const struct field table_creation_parameters_fields[];
extern const struct field describe_table_fields[];
extern const struct field update_table_fields[]; /* in op_table.c, with CreateTable's members */
extern const struct field delete_table_fields[];
extern const struct field list_tables_fields[];

/* ---- op_item.c, op_update.c: single items ---- */
int op_put_item(struct api_request *rq);
int op_get_item(struct api_request *rq);
int op_delete_item(struct api_request *rq);
int op_update_item(struct api_request *rq);
extern const struct field put_item_fields[];
extern const struct field get_item_fields[];
extern const struct field delete_item_fields[];
extern const struct field update_item_fields[];

/* ---- op_query.c: Query and Scan ---- */
int op_query(struct api_request *rq);
int op_scan(struct api_request *rq);
extern const struct field query_fields[];
extern const struct field scan_fields[];

/* ---- op_batch.c ---- */
int op_batch_get_item(struct api_request *rq);
int op_batch_write_item(struct api_request *rq);
extern const struct field batch_get_item_fields[];
extern const struct field batch_write_item_fields[];

/* ---- op_transact.c ---- */
int op_transact_write_items(struct api_request *rq);
int op_transact_get_items(struct api_request *rq);
extern const struct field transact_write_items_fields[];
extern const struct field transact_get_items_fields[];
/* The ClientRequestToken digest of a request body (owned); op_partiql.c shares it. */
char *transact_request_digest(json_t *body);

/* ---- op_ttl.c ---- */
int op_update_time_to_live(struct api_request *rq);
int op_describe_time_to_live(struct api_request *rq);
extern const struct field update_time_to_live_fields[];
extern const struct field describe_time_to_live_fields[];

/* ---- op_streams.c: the DynamoDBStreams_20120810 targets ---- */
int op_list_streams(struct api_request *rq);
int op_describe_stream(struct api_request *rq);
int op_get_shard_iterator(struct api_request *rq);
int op_get_records(struct api_request *rq);
extern const struct field list_streams_fields[];
extern const struct field describe_stream_fields[];
extern const struct field get_shard_iterator_fields[];
extern const struct field get_records_fields[];

/* ---- op_backup.c: point-in-time recovery ---- */
int op_describe_continuous_backups(struct api_request *rq);
int op_update_continuous_backups(struct api_request *rq);
extern const struct field describe_continuous_backups_fields[];
extern const struct field update_continuous_backups_fields[];

/* ---- op_backup.c: on-demand backups ---- */
int op_create_backup(struct api_request *rq);
int op_describe_backup(struct api_request *rq);
int op_delete_backup(struct api_request *rq);
int op_list_backups(struct api_request *rq);
extern const struct field create_backup_fields[];
extern const struct field describe_backup_fields[];
extern const struct field delete_backup_fields[];
extern const struct field list_backups_fields[];

/* ---- op_restore.c: restores from a backup or a point in time ---- */
int op_restore_table_from_backup(struct api_request *rq);
int op_restore_table_to_point_in_time(struct api_request *rq);
extern const struct field restore_table_from_backup_fields[];      /* in op_table.c */
extern const struct field restore_table_to_point_in_time_fields[]; /* in op_table.c */
/* ---- op_transfer.c: exports and imports ---- */
int op_export_table_to_point_in_time(struct api_request *rq);
int op_describe_export(struct api_request *rq);
int op_list_exports(struct api_request *rq);
int op_import_table(struct api_request *rq);
int op_describe_import(struct api_request *rq);
int op_list_imports(struct api_request *rq);
extern const struct field export_table_to_point_in_time_fields[];
extern const struct field describe_export_fields[];
extern const struct field list_exports_fields[];
extern const struct field import_table_fields[];
extern const struct field describe_import_fields[];
extern const struct field list_imports_fields[];

/* ---- op_tags.c: tags ---- */
int op_tag_resource(struct api_request *rq);
int op_untag_resource(struct api_request *rq);
int op_list_tags_of_resource(struct api_request *rq);
extern const struct field tag_resource_fields[];
extern const struct field untag_resource_fields[];
extern const struct field list_tags_of_resource_fields[];

/* ---- op_policy.c: resource-based policies ---- */
int op_put_resource_policy(struct api_request *rq);
int op_get_resource_policy(struct api_request *rq);
int op_delete_resource_policy(struct api_request *rq);
extern const struct field put_resource_policy_fields[];
extern const struct field get_resource_policy_fields[];
extern const struct field delete_resource_policy_fields[];

/* ---- op_service.c: DescribeLimits, DescribeEndpoints ---- */
int op_describe_limits(struct api_request *rq);
int op_describe_endpoints(struct api_request *rq);
extern const struct field describe_limits_fields[];
extern const struct field describe_endpoints_fields[];

/* ---- op_insights.c: contributor insights ---- */
int op_describe_contributor_insights(struct api_request *rq);
int op_update_contributor_insights(struct api_request *rq);
int op_list_contributor_insights(struct api_request *rq);
extern const struct field describe_contributor_insights_fields[];
extern const struct field update_contributor_insights_fields[];
extern const struct field list_contributor_insights_fields[];

/* ---- op_kinesis.c: Kinesis streaming destinations ---- */
int op_enable_kinesis_streaming_destination(struct api_request *rq);
int op_disable_kinesis_streaming_destination(struct api_request *rq);
int op_update_kinesis_streaming_destination(struct api_request *rq);
int op_describe_kinesis_streaming_destination(struct api_request *rq);
extern const struct field enable_kinesis_streaming_destination_fields[];
extern const struct field disable_kinesis_streaming_destination_fields[];
extern const struct field update_kinesis_streaming_destination_fields[];
extern const struct field describe_kinesis_streaming_destination_fields[];

/* ---- op_global.c: global tables 2017.11.29 and replica auto scaling ---- */
int op_create_global_table(struct api_request *rq);
int op_update_global_table(struct api_request *rq);
int op_describe_global_table(struct api_request *rq);
int op_list_global_tables(struct api_request *rq);
int op_describe_global_table_settings(struct api_request *rq);
int op_update_global_table_settings(struct api_request *rq);
int op_describe_table_replica_auto_scaling(struct api_request *rq);
int op_update_table_replica_auto_scaling(struct api_request *rq);
extern const struct field create_global_table_fields[];
extern const struct field update_global_table_fields[];
extern const struct field describe_global_table_fields[];
extern const struct field list_global_tables_fields[];
extern const struct field describe_global_table_settings_fields[];
extern const struct field update_global_table_settings_fields[];
extern const struct field describe_table_replica_auto_scaling_fields[];
extern const struct field update_table_replica_auto_scaling_fields[];

/* ---- op_partiql.c: PartiQL ---- */
int op_execute_statement(struct api_request *rq);
int op_batch_execute_statement(struct api_request *rq);
int op_execute_transaction(struct api_request *rq);
extern const struct field execute_statement_fields[];
extern const struct field batch_execute_statement_fields[];
extern const struct field execute_transaction_fields[];

#endif
