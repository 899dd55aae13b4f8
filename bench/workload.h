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

#include "storage/base/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PARTITION_ITEMS 50 /* messages per room: one "latest 50" page */
#define BATCH_MAX       25 /* BatchWriteItem's request limit */

/* What each request of a run or load does. */
enum op {
    OP_GET,      /* GetItem of a random item */
    OP_PUT,      /* PutItem replacing a random item (the table keeps its size) */
    OP_QUERY,    /* a random room's latest 50 messages, newest first */
    OP_TRANSACT, /* TransactWriteItems: two Puts in two rooms, one conditional */
    OP_LOAD_BATCH,
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

/* b becomes the body of a request of op about item (or first item) i of a
 * table of `items` items; n items for a batch. */
void workload_body(struct text_buf *b, const char *table, uint64_t items, enum op op, uint64_t i,
                   uint64_t n);
/* Whether a BatchWriteItem answer left items unprocessed. */
bool workload_has_unprocessed(const char *body, size_t len);

#endif
