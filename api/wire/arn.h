/*
 * arn.h - DynamoDB resource ARNs in requests: TableName given as a table ARN,
 * and the ResourceArn of the tagging and resource-policy operations.
 *
 * An ARN is arn:<partition>:<service>:<region>:<account>:<resource>. ddbemu
 * has one account (DDB_ACCOUNT_ID) and answers in the region of the request's
 * credential; a table ARN names a table of that account and region:
 * arn:aws:dynamodb:<region>:000000000000:table/<name>, a stream ARN adds
 * /stream/<label>, an index ARN /index/<name>.
 *
 * The functions here only read strings and set AWS's errors; they never look
 * a table up (that is storage's job, with the name they return). They are
 * reentrant; every returned string is owned by the caller.
 */
#ifndef DDB_API_ARN_H
#define DDB_API_ARN_H

#include "storage/base/error.h"

#include <stdbool.h>
#include <stddef.h>

/* The pieces of an ARN, borrowed from the string they were split from. */
struct arn {
    const char *partition, *service, *region, *account, *resource;
    size_t partition_len, service_len, region_len, account_len, resource_len;
};

/* Splits s (len bytes) at its first five colons; false when it has fewer, or
 * does not start with "arn:". */
bool arn_split(const char *s, size_t len, struct arn *out);

/* Whether a TableName value is written as an ARN (starts with "arn:"). */
bool arn_is_arn(const char *s, size_t len);

/*
 * TableName given as an ARN (arn_is_arn): the table's name, owned, or NULL
 * with AWS's error set - ValidationException for a malformed ARN, another
 * partition or region, or a resource that is not a table;
 * AccessDeniedException for another account. region is the request's.
 */
char *arn_table_name(const char *s, size_t len, const char *region, struct ddb_error *err);

/* What a ResourceArn names. */
enum arn_resource_kind { ARN_TABLE, ARN_STREAM };

/* A ResourceArn resolved: the table's name and, for a stream, its label. */
struct arn_resource {
    enum arn_resource_kind kind;
    char *table_name;   /* owned */
    char *stream_label; /* owned; NULL for a table */
};

/* Which family of operations reads the ResourceArn: their errors differ. */
enum arn_family { ARN_FOR_TAGS, ARN_FOR_POLICY };

/*
 * Checks a ResourceArn (not NULL) as DynamoDB's tagging or resource-policy
 * operations do and fills out; -1 with AWS's error set otherwise.
 * The tag operations accept table ARNs only; the policy operations tables
 * and streams. The checks run in AWS's order: "arn:" prefix, the ARN's
 * form, DynamoDB's service, the account (AccessDeniedException), the region,
 * the resource type. Free out with arn_resource_clear().
 */
int arn_resolve_resource(const char *arn, size_t len, const char *region, enum arn_family family,
                         struct arn_resource *out, struct ddb_error *err);
void arn_resource_clear(struct arn_resource *r);

#endif
