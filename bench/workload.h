/*
 * workload.h - what the benchmark asks: the operations it measures and the
 * request bodies of the chat data set (SCHEMAS.md's design 1).
 *
 * Item i is message i % 50 of room i / 50 (PK "room#NNNNNNN", SK
 * "MESSAGE#<epoch ms>#<hex>"), about 250 bytes, so a table of n items has
 * n / 50 partitions of 50 messages and the chat's "latest 50 messages" Query
 * reads exactly one partition.
 */
#ifndef DDB_BENCH_WORKLOAD_H
#define DDB_BENCH_WORKLOAD_H

#include "storage/base/limits.h"
#include "storage/base/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PARTITION_ITEMS 50                        /* messages per room: one "latest 50" page */
#define BATCH_MAX       DDB_MAX_BATCH_WRITE_ITEMS /* BatchWriteItem's request limit, 25 */
#define BATCH_GET_MAX   DDB_MAX_BATCH_GET_KEYS    /* BatchGetItem's request limit, 100 */

/* What each request of a run or load does: a run's ops, then a load's. */
enum op {
    OP_GET,         /* GetItem of a random item */
    OP_PUT,         /* PutItem replacing a random item (the table keeps its size) */
    OP_QUERY,       /* a random room's latest 50 messages, newest first */
    OP_TRANSACT,    /* TransactWriteItems: two Puts in two rooms, one conditional */
    OP_UPDATE,      /* UpdateItem of a random item: ADD #c :one (a counter) */
    OP_DELETE,      /* DeleteItem of the next item of workload_pick's order (each exists once) */
    OP_BATCH_WRITE, /* BatchWriteItem of 25 Puts replacing items spread over the table */
    OP_BATCH_GET,   /* BatchGetItem of 100 keys spread over the table */
    OP_QUERY_PROJ,  /* OP_QUERY with ProjectionExpression "content, createdAt, senderId" */
    OP_GET_PROJ,    /* OP_GET with the same projection */
    OP_LOAD_BATCH,  /* the first of a load's ops (loadgen's parse_op) */
    OP_LOAD_PUT,
};

/* The name on the command line and the X-Amz-Target of each op. */
struct op_info {
    const char *name;
    const char *target;
};
extern const struct op_info op_info[];

/* xorshift64*: plenty for picking keys. */
uint64_t rng_next(uint64_t *state);
/* A pick in [0, n); 0 when n is 0. */
uint64_t rng_below(uint64_t *state, uint64_t n);

/* The k-th item of a table of n items in a fixed order that visits every item
 * once for k in [0, n) and spreads consecutive k over the rooms (k times a
 * prime that does not divide n, mod n). Deletes take their items in this
 * order, and a load with --scramble puts them back. */
uint64_t workload_pick(uint64_t k, uint64_t n);
/* How many items one request of op reads or writes (25 for a batch write...). */
unsigned workload_items_per_request(enum op op);

/* b becomes the body of a request of op about item (or first item) i of a
 * table of `items` items; n items for a load batch, whose items are i .. i+n-1,
 * or workload_pick(i .. i+n-1, items) when scramble is set. */
void workload_body(struct text_buf *b, const char *table, uint64_t items, enum op op, uint64_t i,
                   uint64_t n, bool scramble);
/* The Scan request of one page: segment seg of segments (segments 0: no
 * Segment parameters), after start_key (a JSON object, or NULL for the first
 * page). */
void workload_scan_body(struct text_buf *b, const char *table, unsigned seg, unsigned segments,
                        const char *start_key, size_t start_key_len);
/* Whether a BatchWriteItem answer left items unprocessed. */
bool workload_has_unprocessed(const char *body, size_t len);

#endif
