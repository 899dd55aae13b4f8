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
 * A key part is bytes (issue 26, docs/architecture.md "The stored item"):
 * an S part its UTF-8 bytes, a B part its bytes, an N part its comparable
 * bytes (number_to_comparable), so parts of one type order by memcmp, the
 * shorter first when one is a prefix of the other - DynamoDB's order for all
 * three (S by UTF-8 bytes, B as unsigned bytes, N numerically; checked by
 * test_key over random values) - with no parsing.
 *
 * A row_key does not own its parts' bytes: they point into the encoding of
 * the item the row holds (an N's comparable bytes are stored as such), or, for probes, into the
 * caller's request values and, for N parts, into a struct key_numbers the caller owns and keeps
 * alive as long as the key (never a buffer inside a struct that is copied by value).
 */
#ifndef DDB_KEY_H
#define DDB_KEY_H

#include "storage/model/item_encoding.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An index row: up to 4 partition + 4 sort attributes, then the table's 2 keys. */
#define ROW_KEY_MAX_PARTS 10

struct key_part {
    const uint8_t *data; /* borrowed; S, B: the bytes; N: comparable bytes */
    uint32_t len;
    uint8_t type; /* enum value_type: VALUE_S, VALUE_N or VALUE_B */
    /* A part read from a stored item (item_key_part, key_part_at): its type
     * byte in the item's encoding, where a row's node finds it again as an
     * offset (skiplist.h). NULL for a part of a request's value (key_part_of). */
    const uint8_t *src;
};

struct row_key {
    uint64_t hash;
    size_t part_count;
    struct key_part parts[ROW_KEY_MAX_PARTS];
};

/* Room for the comparable bytes of a key's N parts (one per part position). */
struct key_numbers {
    uint8_t n[ROW_KEY_MAX_PARTS][NUMBER_COMPARABLE_MAX];
};

/* How a probe with fewer parts than the rows compares: before every row that
 * shares its prefix (KEY_BIAS_LOW) or after them (KEY_BIAS_HIGH). */
enum key_bias { KEY_BIAS_LOW = -1, KEY_BIAS_HIGH = 1 };

/* The part of key value v (S, N or B, N canonical): S and B point at v's
 * bytes, N's comparable bytes are written to number (the caller's, alive as
 * long as the part). */
void key_part_of(const struct value *v, uint8_t number[NUMBER_COMPARABLE_MAX],
                 struct key_part *out);
/* The part whose encoded value (item_encoding.h: type byte, length, bytes;
 * an S, N or B) begins at `at`, in a stored item: data points into it, src is at. */
void key_part_at(const uint8_t *at, struct key_part *out);
/* A borrowed, read-only struct value of a part (for N its canonical text,
 * written to text, NUMBER_TEXT_MAX bytes): for the readers that want a value
 * (the access-pattern report, the journal's key records). Never value_clear-ed. */
void key_part_value(const struct key_part *p, char *text, struct value *out);
/* The order of two parts of one type: memcmp, the shorter first when a prefix. */
int key_part_compare(const struct key_part *a, const struct key_part *b);
bool key_part_equal(const struct key_part *a, const struct key_part *b);

/* The partition hash of partition key parts (one for tables and LSIs, up to
 * four for multi-attribute GSI keys). Unchanged from the form that hashed
 * values: an N part is hashed as its canonical text (enc_number_text), so Scan
 * order, parallel Scan segments and anything persisted keep their hashes. */
uint64_t key_hash(const struct key_part *parts, size_t count);
/* Compares a row's key with a probe; missing probe parts compare per bias. */
int row_key_compare(const struct row_key *row, const struct row_key *probe, enum key_bias bias);

#endif
