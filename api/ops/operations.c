/*
 * operations.c - THE operations table: one row per X-Amz-Target.
 *
 * The rows come from the lists in ops.h (DYNAMODB_OPERATIONS,
 * STREAMS_OPERATIONS), in their order. dispatch.c looks the target up here; a
 * target that is not listed answers UnknownOperationException, exactly like a
 * misspelt one, so an operation joins a list in the same change that adds its
 * handler. Targets are matched exactly (case-sensitive), as DynamoDB does.
 */
#include "api/ops/ops.h"

/* A row of the table from a row of the lists (ops.h). */
#define DYNAMODB_ROW(name, stem) {"DynamoDB_20120810." #name, op_##stem, stem##_fields},
#define STREAMS_ROW(name, stem)  {"DynamoDBStreams_20120810." #name, op_##stem, stem##_fields},

const struct operation api_operations[] = {
    DYNAMODB_OPERATIONS(DYNAMODB_ROW) /* the DynamoDB targets */
    STREAMS_OPERATIONS(STREAMS_ROW)   /* DynamoDB Streams, served on the same port */
    {NULL, NULL, NULL},
};
