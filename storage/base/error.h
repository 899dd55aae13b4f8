/*
 * error.h - the one list of DynamoDB exceptions, and the per-request error.
 *
 * Both layers use it: storage raises most exceptions, api raises the
 * protocol ones, and api/http/response.c is the only place that turns a
 * struct ddb_error into wire JSON. The __type strings and the spelling of the
 * message key ("message" or "Message") are DynamoDB facts, pinned by
 * conformance tests.
 *
 * Convention: a function that can fail because of the request returns int
 * (0 or -1) and takes `struct ddb_error *err` last. On -1 the error is set and
 * nothing observable has changed.
 */
#ifndef DDB_ERROR_H
#define DDB_ERROR_H

#include <stdbool.h>
#include <stddef.h>

#define DDB_NS_DYNAMODB      "com.amazonaws.dynamodb.v20120810#"
#define DDB_NS_CORAL_SERVICE "com.amazon.coral.service#"
/* The two exceptions only DynamoDB Streams raises live in its own namespace (the
 * Streams model's shape ids, as the AWS SDK for JavaScript v3 first generated
 * them); its other errors share DynamoDB's. */
#define DDB_NS_STREAMS "com.amazonaws.dynamodb.streams.v20120810#"

/* X(name, http_status, __type, message_key) */
/* clang-format off */
#define DDB_ERRORS(X)                                                                          \
    X(VALIDATION, 400, "com.amazon.coral.validate#ValidationException", "message")            \
    X(SERIALIZATION, 400, DDB_NS_CORAL_SERVICE "SerializationException", "Message")           \
    X(UNKNOWN_OPERATION, 400, DDB_NS_CORAL_SERVICE "UnknownOperationException", "message")    \
    X(MISSING_AUTHENTICATION_TOKEN, 400,                                                       \
      DDB_NS_CORAL_SERVICE "MissingAuthenticationTokenException", "message")                  \
    X(INCOMPLETE_SIGNATURE, 400, DDB_NS_CORAL_SERVICE "IncompleteSignatureException", "message") \
    X(INVALID_SIGNATURE, 400, DDB_NS_CORAL_SERVICE "InvalidSignatureException", "message")    \
    X(UNRECOGNIZED_CLIENT, 400, DDB_NS_CORAL_SERVICE "UnrecognizedClientException", "message") \
    X(ACCESS_DENIED, 400, DDB_NS_CORAL_SERVICE "AccessDeniedException", "Message")            \
    X(REQUEST_ENTITY_TOO_LARGE, 413, "RequestEntityTooLarge", "message")                       \
    X(RESOURCE_NOT_FOUND, 400, DDB_NS_DYNAMODB "ResourceNotFoundException", "message")        \
    X(RESOURCE_IN_USE, 400, DDB_NS_DYNAMODB "ResourceInUseException", "message")              \
    X(LIMIT_EXCEEDED, 400, DDB_NS_DYNAMODB "LimitExceededException", "message")               \
    X(CONDITIONAL_CHECK_FAILED, 400, DDB_NS_DYNAMODB "ConditionalCheckFailedException", "message") \
    X(TRANSACTION_CANCELED, 400, DDB_NS_DYNAMODB "TransactionCanceledException", "Message")   \
    X(TRANSACTION_CONFLICT, 400, DDB_NS_DYNAMODB "TransactionConflictException", "message")   \
    X(TRANSACTION_IN_PROGRESS, 400, DDB_NS_DYNAMODB "TransactionInProgressException", "Message") \
    X(IDEMPOTENT_PARAMETER_MISMATCH, 400,                                                      \
      DDB_NS_DYNAMODB "IdempotentParameterMismatchException", "Message")                      \
    X(ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED, 400,                                                \
      DDB_NS_DYNAMODB "ItemCollectionSizeLimitExceededException", "message")                  \
    X(PROVISIONED_THROUGHPUT_EXCEEDED, 400,                                                    \
      DDB_NS_DYNAMODB "ProvisionedThroughputExceededException", "message")                    \
    X(THROTTLING, 400, "com.amazon.coral.availability#ThrottlingException", "message")      \
    X(EXPIRED_ITERATOR, 400, DDB_NS_STREAMS "ExpiredIteratorException", "message")            \
    X(TRIMMED_DATA_ACCESS, 400, DDB_NS_STREAMS "TrimmedDataAccessException", "message")       \
    X(DUPLICATE_ITEM, 400, DDB_NS_DYNAMODB "DuplicateItemException", "message")              \
    X(TABLE_NOT_FOUND, 400, DDB_NS_DYNAMODB "TableNotFoundException", "message")             \
    X(POINT_IN_TIME_RECOVERY_UNAVAILABLE, 400,                                                 \
      DDB_NS_DYNAMODB "PointInTimeRecoveryUnavailableException", "message")                   \
    X(INVALID_EXPORT_TIME, 400, DDB_NS_DYNAMODB "InvalidExportTimeException", "message")      \
    X(EXPORT_NOT_FOUND, 400, DDB_NS_DYNAMODB "ExportNotFoundException", "message")            \
    X(EXPORT_CONFLICT, 400, DDB_NS_DYNAMODB "ExportConflictException", "message")             \
    X(IMPORT_NOT_FOUND, 400, DDB_NS_DYNAMODB "ImportNotFoundException", "message")            \
    X(IMPORT_CONFLICT, 400, DDB_NS_DYNAMODB "ImportConflictException", "message")             \
    X(BACKUP_NOT_FOUND, 400, DDB_NS_DYNAMODB "BackupNotFoundException", "message")            \
    X(TABLE_ALREADY_EXISTS, 400, DDB_NS_DYNAMODB "TableAlreadyExistsException", "message")    \
    X(INVALID_RESTORE_TIME, 400, DDB_NS_DYNAMODB "InvalidRestoreTimeException", "message")    \
    X(POLICY_NOT_FOUND, 400, DDB_NS_DYNAMODB "PolicyNotFoundException", "message")           \
    X(GLOBAL_TABLE_NOT_FOUND, 400, DDB_NS_DYNAMODB "GlobalTableNotFoundException", "message")  \
    X(REQUEST_LIMIT_EXCEEDED, 400, DDB_NS_DYNAMODB "RequestLimitExceeded", "message")         \
    X(INTERNAL_SERVER_ERROR, 500, DDB_NS_DYNAMODB "InternalServerError", "message")          \
    X(SERVICE_UNAVAILABLE, 503, DDB_NS_DYNAMODB "ServiceUnavailable", "message")
/* clang-format on */

enum ddb_error_code {
    DDB_OK = 0,
#define X(name, status, type, key) DDB_##name,
    DDB_ERRORS(X)
#undef X
};

/* The payloads some errors carry (an item, cancellation reasons) are not
 * here: they travel in the results that produce them (model/failure.h). */
struct ddb_error {
    enum ddb_error_code code; /* DDB_OK while nothing has failed */
    char *message;            /* owned; the exact text AWS sends; NULL when AWS sends none */
};

/* Records the first error of a request and returns -1, so that callers can
 * write `return ddb_error_set(err, DDB_VALIDATION, "...", ...);`. The error must
 * be clear (asserted): the first check that fails is the one AWS reports. */
int ddb_error_set(struct ddb_error *err, enum ddb_error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, with no message at all (some AWS errors carry none). */
int ddb_error_set_bare(struct ddb_error *err, enum ddb_error_code code);
/* Frees the message; leaves err clear (DDB_OK). */
void ddb_error_clear(struct ddb_error *err);
/* Moves src into dst (dst must be clear); src is left clear. */
void ddb_error_move(struct ddb_error *dst, struct ddb_error *src);
bool ddb_error_is_set(const struct ddb_error *err);

int ddb_error_http_status(enum ddb_error_code code);
const char *ddb_error_type(enum ddb_error_code code);
/* "message" or "Message": DynamoDB spells the key differently per exception. */
const char *ddb_error_message_key(enum ddb_error_code code);

/* ---- "not found", in AWS's words ----
 *
 * DynamoDB words a missing resource differently per operation family; each
 * wording is written once here (sources in error.c) and raised by calling
 * its function, which sets err like ddb_error_set and returns -1. Texts
 * quote names as given. */

/* ResourceNotFoundException "Requested resource not found": the item
 * operations (GetItem, PutItem, Query, batches, transactions, PartiQL). */
int ddb_error_resource_not_found(struct ddb_error *err);
/* ResourceNotFoundException "Requested resource not found: Table: <table> not
 * found": the operations on a table itself (DescribeTable, UpdateTable,
 * DeleteTable, the TTL, Kinesis, Contributor Insights and policy operations). */
int ddb_error_table_not_found(struct ddb_error *err, const char *table);
/* ResourceNotFoundException "Requested resource not found: Index <index> for
 * table <table>": UpdateTable naming a GSI the table does not have. */
int ddb_error_index_not_found(struct ddb_error *err, const char *index, const char *table);
/* ResourceNotFoundException "Requested resource not found: Index: <index> not
 * found for table: <table>": the Contributor Insights operations. */
int ddb_error_insights_index_not_found(struct ddb_error *err, const char *index, const char *table);
/* ResourceNotFoundException "Requested resource not found: ResourceArn: <arn>
 * not found": the tag operations. */
int ddb_error_resource_arn_not_found(struct ddb_error *err, const char *arn);
/* ResourceNotFoundException "Requested resource not found: Stream: <arn> not
 * found": the DynamoDB Streams operations. */
int ddb_error_stream_not_found(struct ddb_error *err, const char *stream_arn);
/* ResourceNotFoundException "Requested resource not found: Stream: <label> not
 * found for Table: <table>": a policy operation naming a stream that is not
 * the table's. */
int ddb_error_table_stream_not_found(struct ddb_error *err, const char *stream_label,
                                     const char *table);
/* ResourceNotFoundException "Requested resource not found: Shard does not
 * exist": GetShardIterator naming a shard the stream does not have. */
int ddb_error_shard_not_found(struct ddb_error *err);
/* TableNotFoundException "Table not found: <table>": the backup family
 * (CreateBackup, the restores, DescribeContinuousBackups,
 * UpdateContinuousBackups, ExportTableToPointInTime); what is a name or ARN. */
int ddb_error_backup_table_not_found(struct ddb_error *err, const char *what);
/* BackupNotFoundException "Backup not found: <arn>". */
int ddb_error_backup_not_found(struct ddb_error *err, const char *backup_arn);

#endif
