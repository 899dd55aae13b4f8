/*
 * op_transfer.h - the checks and buckets that exports, imports
 * (op_transfer.c) and bulk put items (op_bulk.c) share: ClientToken's
 * pattern, S3 bucket names and owners, and where a bucket is on disk.
 */
#ifndef DDB_API_OP_TRANSFER_H
#define DDB_API_OP_TRANSFER_H

#include "api/ops/request.h"
#include "storage/base/error.h"

#include <stdbool.h>

/* The S3 bucket name rule (API reference, ExportTableToPointInTime S3Bucket). */
#define S3_BUCKET_PATTERN "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$"

/* AWS's answer for a job whose bucket does not exist. */
#define NO_SUCH_BUCKET_CODE    "S3NoSuchBucket"
#define NO_SUCH_BUCKET_MESSAGE "The specified bucket does not exist"

/* A ClientToken (NULL: absent) against its pattern "^[^\$]+$". */
int transfer_check_client_token(const char *token, struct ddb_error *err);
/* A fresh ClientToken (a random UUID) for a request that has none. */
void transfer_new_client_token(char out[37]);
/* An S3BucketOwner (NULL: absent) is an account id, "[0-9]{12}"; path is
 * the member's path in the message ("s3BucketOwner"). */
int transfer_check_bucket_owner(const char *owner, const char *path, struct ddb_error *err);
/* Whether name matches S3_BUCKET_PATTERN. */
bool transfer_is_s3_bucket_name(const char *name);
/* The directory of a bucket, owned, or NULL when there is no such bucket
 * (no --s3-dir, or DIR/<bucket> is not a directory). */
char *transfer_bucket_dir(const struct api_request *rq, const char *bucket);

#endif
