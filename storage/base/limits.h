/*
 * limits.h - every DynamoDB quota the emulator enforces, once, with its source.
 *
 * Source unless noted: "Service, account, and table quotas in Amazon
 * DynamoDB" (developerguide/ServiceQuotas.html) and the API reference page of
 * the operation named.
 */
#ifndef DDB_LIMITS_H
#define DDB_LIMITS_H

/* Items and attributes (ServiceQuotas.html#limits-items). */
#define DDB_MAX_ITEM_BYTES           (400 * 1024)
#define DDB_MAX_PARTITION_KEY_BYTES  2048
#define DDB_MAX_SORT_KEY_BYTES       1024
#define DDB_MAX_NESTING_DEPTH        32
#define DDB_MAX_ATTRIBUTE_NAME_BYTES 65535
#define DDB_MAX_KEY_NAME_BYTES       255 /* key and index key attribute names */

/* Numbers (ServiceQuotas.html#limits-data-types-numbers). */
#define DDB_NUMBER_MAX_DIGITS 38

/* Tables and indexes (ServiceQuotas.html#limits-tables, #limits-secondary-indexes). */
#define DDB_MIN_TABLE_NAME_LEN        3
#define DDB_MAX_TABLE_NAME_LEN        255 /* index names too */
#define DDB_MAX_GSIS                  20
#define DDB_MAX_LSIS                  5
#define DDB_MAX_PROJECTED_ATTRS       100 /* NonKeyAttributes over all indexes of a table */
#define DDB_MAX_ITEM_COLLECTION_BYTES (10LL * 1024 * 1024 * 1024)
#define DDB_MAX_TAGS                  50
#define DDB_MAX_TABLE_ARN_LEN         1024 /* TableName given as a table ARN (TableArn shape) */

/* Tags (developerguide/Tagging.html#TaggingRestrictions): keys 1..128 and values 0..256
 * Unicode characters; the aws: prefix is reserved. */
#define DDB_MAX_TAG_KEY_LEN   128
#define DDB_MAX_TAG_VALUE_LEN 256

/* Resource-based policies (developerguide/rbac-considerations.html): 20 KB per policy. */
#define DDB_MAX_POLICY_BYTES 20480

/* Provisioned capacity quotas per account and region, as DescribeLimits reports them
 * (ServiceQuotas.html#default-limits-throughput-capacity-modes: the defaults). */
#define DDB_ACCOUNT_MAX_CAPACITY_UNITS 80000
#define DDB_TABLE_MAX_CAPACITY_UNITS   40000

/* Requests (API reference of each operation). */
#define DDB_MAX_REQUEST_BYTES            (16 * 1024 * 1024) /* the largest any operation accepts */
#define DDB_MAX_LIST_TABLES_LIMIT        100
#define DDB_MAX_BATCH_GET_KEYS           100
#define DDB_MAX_BATCH_GET_RESPONSE_BYTES (16 * 1024 * 1024)
#define DDB_MAX_BATCH_WRITE_ITEMS        25
#define DDB_MAX_BATCH_STATEMENTS         25  /* BatchExecuteStatement's Statements */
#define DDB_MAX_TRANSACT_ITEMS           100 /* ExecuteTransaction's TransactStatements too */
#define DDB_MAX_TRANSACT_BYTES           (4 * 1024 * 1024)
#define DDB_CLIENT_TOKEN_TTL_MS          (10 * 60 * 1000) /* ClientRequestToken */
#define DDB_MAX_PAGE_READ_BYTES          (1024 * 1024)    /* Query and Scan read per page */
#define DDB_MAX_EXPRESSION_BYTES         4096
#define DDB_MAX_IN_OPERANDS              100
#define DDB_MAX_SCAN_SEGMENTS            1000000

/* The HTTP request around the JSON: its request line, and its headers all together, are each
 * refused with a 400 past 16 KB (scylla test/alternator/test_manual_requests.py
 * ::test_too_large_request_headers and ::test_too_large_request_line, run against AWS). */
#define DDB_MAX_REQUEST_LINE_BYTES   (16 * 1024)
#define DDB_MAX_REQUEST_HEADER_BYTES (16 * 1024)

/* Capacity units (developerguide/provisioned-capacity-mode.html). */
#define DDB_READ_UNIT_BYTES  4096
#define DDB_WRITE_UNIT_BYTES 1024
/* A Scan request (each segment's, too) is charged at least 4 read units (2 eventually
 * consistent): a one-item table's Scan reports 4.0 / 2.0 (scylla
 * test/alternator/test_returnconsumedcapacity.py::test_scan_consumed_capacity, run against
 * AWS; Stack Overflow question 70121087). Query has no such minimum (1.0 / 0.5 there). */
#define DDB_MIN_SCAN_READ_UNITS 4

/* Time to live (developerguide/howitworks-ttl.html; API_UpdateTimeToLive.html): one TTL change
 * per table per hour; TTL values more than five years in the past never expire. */
#define DDB_TTL_CHANGE_INTERVAL_MS (60LL * 60 * 1000)
#define DDB_TTL_MAX_PAST_S         (5LL * 365 * 24 * 60 * 60)
#define DDB_MAX_TTL_ATTRIBUTE_LEN  255

/* Point-in-time recovery (API_PointInTimeRecoverySpecification.html): the window is 1 to 35
 * days (35 by default); the latest restorable time is about five minutes ago. */
#define DDB_PITR_DEFAULT_DAYS  35
#define DDB_PITR_MAX_DAYS      35
#define DDB_PITR_LATEST_LAG_MS (5LL * 60 * 1000)
/* ListBackups' Limit: 1 to 100 (API reference, ListBackups). */
#define DDB_MAX_LIST_BACKUPS_LIMIT 100
/* ListExports' MaxResults and ListImports' PageSize: 1 to 25 (API reference of each). */
#define DDB_MAX_TRANSFER_LIST_PAGE 25
/* ListBulkOperations' MaxResults: 1 to 25, 10 when not given (API reference). */
#define DDB_MAX_BULK_LIST_PAGE     25
#define DDB_DEFAULT_BULK_LIST_PAGE 10
/* "Each operation supports up to 50,000 S3 objects" (developer guide, BulkPutItems best
 * practices). */
#define DDB_MAX_BULK_INPUT_OBJECTS 50000

/* DynamoDB Streams (developerguide/Streams.html; API_streams_*.html): records (and disabled
 * streams) are kept 24 hours, iterators expire after 15 minutes, shards roll over about every
 * four hours, GetRecords returns at most 1000 records or 1 MB. */
#define DDB_STREAM_RETENTION_MS       (24LL * 60 * 60 * 1000)
#define DDB_STREAM_ITERATOR_TTL_MS    (15LL * 60 * 1000)
#define DDB_STREAM_SHARD_LIFETIME_MS  (4LL * 60 * 60 * 1000)
#define DDB_MAX_GET_RECORDS_LIMIT     1000
#define DDB_MAX_GET_RECORDS_BYTES     (1024 * 1024)
#define DDB_MAX_LIST_STREAMS_LIMIT    100
#define DDB_MAX_DESCRIBE_STREAM_LIMIT 100

/* Vector indexes (developerguide VectorSearch.Requirements; AWS agent toolkit
 * vector-search.md; error texts captured by dynoxide): at most 5 per table,
 * 1..4096 dimensions, TopK 1..100, up to 18 INLINE_FILTER elements, a
 * SearchVectors answer of at most 16 MB, 1 KB minimum of vector request bytes. */
#define DDB_MAX_VECTOR_INDEXES       5
#define DDB_MAX_VECTOR_DIMENSIONS    4096
#define DDB_MAX_SEARCH_TOP_K         100
#define DDB_MAX_INLINE_FILTERS       18
#define DDB_MAX_SEARCH_ANSWER_BYTES  (16 * 1024 * 1024)
#define DDB_MIN_VECTOR_REQUEST_BYTES 1024

/* A vector index's projected non-key attributes: NonKeyAttributes, the vector
 * attribute and the INLINE_FILTER elements share the 20 of a projection
 * (API reference, CreateTable VectorIndexes: "The total number of projected
 * non-key attributes is shared across the vector attribute (counts as 1) and
 * INLINE_FILTER search schema elements (each counts as 1)"). */
#define DDB_MAX_VECTOR_PROJECTED 20

#endif
