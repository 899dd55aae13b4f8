/*
 * key.h - keys of rows in an ordered map: (partition hash, key parts...).
 *
 * Every ordered structure in the engine - a table's items and each index's
 * entries - is sorted by a struct row_key: first the 64-bit xxHash of the
 * partition key's canonical bytes, then each key attribute value in schema
 * order. Sorting by hash first puts each partition's items together (a Query
 * is one seek plus a walk), orders Scan by hash as DynamoDB's looks, and makes
 * parallel-scan segments contiguous hash ranges.
 *
 * A row_key does not own its parts: they point into the item the row holds
 * (immutable, see item.h) or into the caller's request values for probes.
 */
#ifndef DDB_KEY_H
#define DDB_KEY_H

#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An index row: up to 4 partition + 4 sort attributes, then the table's 2 keys. */
#define ROW_KEY_MAX_PARTS 10

struct row_key {
    uint64_t hash;
    size_t part_count;
    const struct value *parts[ROW_KEY_MAX_PARTS]; /* borrowed; S, N or B values */
};

/* How a probe with fewer parts than the rows compares: before every row that
 * shares its prefix (KEY_BIAS_LOW) or after them (KEY_BIAS_HIGH). */
enum key_bias { KEY_BIAS_LOW = -1, KEY_BIAS_HIGH = 1 };

/* The partition hash of partition key values (one for tables and LSIs, up to
 * four for multi-attribute GSI keys). Equal numbers hash equally because N
 * values are canonical text. */
uint64_t key_hash(const struct value *const *parts, size_t count);
/* Compares a row's key with a probe; missing probe parts compare per bias. */
int row_key_compare(const struct row_key *row, const struct row_key *probe, enum key_bias bias);
/* The same for a row given as its hash and count parts (a skiplist node's). */
int row_key_compare_parts(uint64_t hash, const struct value *const *parts, size_t count,
                          const struct row_key *probe, enum key_bias bias);

#endif
