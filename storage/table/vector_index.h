/*
 * vector_index.h - a vector index: the 32-bit float copies of one vector
 * attribute's embeddings, kept in step with the table's items, and the exact
 * k-nearest search over them.
 *
 * Vectors are grouped by the value of the index's HASH attribute (one group
 * when its SearchSchema has none): a group holds its vectors contiguously
 * (count x dimensions floats, 4 bytes a dimension and nothing else), their
 * self dot products, and a reference to each vector's item, so a search
 * with a HASH value reads only that group's memory. Groups are kept sorted
 * by HASH value (binary search). A removed vector's slot is filled by the
 * group's last one.
 *
 * An item is in the index when its vector attribute is a list of exactly
 * Dimensions numbers within the 32-bit float range and its HASH attribute (if
 * the schema has one) is present with the declared type and not empty.
 * Writes that break these rules are refused before they commit
 * (vector_index_check_item, called by table_check_item); items written
 * before an index was added are silently left out (the backfill skips them,
 * as DynamoDB's does: spec-24 2.4).
 *
 * Only table_commit_write() (through table_vectors.c) and the backfill change
 * an index, with the engine lock held exclusively; searches read it with the
 * lock shared. The functions here assert that hold where they touch an
 * index that is shared; those marked "needs no lock" work on their
 * arguments alone.
 */
#ifndef DDB_VECTOR_INDEX_H
#define DDB_VECTOR_INDEX_H

#include "storage/base/error.h"
#include "storage/model/item.h"
#include "storage/model/schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vector_group {
    struct value hash;   /* owned copy of the HASH value; VALUE_NULL for an index without HASH */
    float *vectors;      /* count x dims floats, contiguous */
    double *self_dots;   /* vector_dot(v, v) of each vector, for COSINE */
    struct item **items; /* one reference per vector: the item it came from */
    size_t count;
    size_t cap;
};

struct vector_index {
    const struct vector_index_def *def; /* borrowed from the table's definition */
    size_t dims;
    enum value_type hash_type;    /* the HASH attribute's declared type */
    struct vector_group **groups; /* owned; sorted by hash */
    size_t group_count;
    size_t item_count;
    int64_t size_bytes;       /* 4 bytes x dimensions + the attribute name, per vector */
    enum index_status status; /* CREATING while backfilling, else ACTIVE */
    bool backfilling;
    bool report_backfilling;     /* added by UpdateTable: DescribeTable shows Backfilling */
    enum index_status transient; /* --delay-transient-statuses, as struct table_index */
    int64_t transient_until_ms;
};

/* A search's filters: the HASH value (NULL: the index has none) and the
 * INLINE_FILTER equalities an item must all satisfy. Borrowed. */
struct vector_query {
    const float *vector; /* dims floats */
    const struct value *hash;
    const char *const *filter_names;
    const struct value *filter_values;
    size_t filter_count;
    size_t top_k;
    const struct key_schema *table_key; /* for the tie rule: table key order */
};

/* One result: a new item reference (the caller unrefs) and its score. */
struct vector_hit {
    struct item *item;
    double score;
};

/* An empty, ACTIVE index for def; hash_type from the table's definitions.
 * Needs no lock: the index is not yet shared. */
void vector_index_init(struct vector_index *vi, const struct vector_index_def *def,
                       const struct table_def *table);
/* Frees the index's groups. Needs no lock: its table is no longer shared. */
void vector_index_clear(struct vector_index *vi);
/* Moves one item from old_item to new_item (either may be NULL). The caller
 * holds the table's lock exclusively (or the catalog lock so). */
void vector_index_apply_write(struct vector_index *vi, struct item *old_item,
                              struct item *new_item);
/* The status DynamoDB reports at now_ms. Reads only vi's own fields, which
 * its caller reads under the engine lock: needs no lock of its own. */
enum index_status vector_index_status_at(const struct vector_index *vi, int64_t now_ms);

/* ValidationException when an item about to be written breaks def's rules
 * (spec-24 2.4's texts); items without the vector attribute pass. Reads its
 * arguments alone: needs no lock. */
int vector_index_check_item(const struct vector_index_def *def, const struct table_def *table,
                            const struct value *attrs, struct ddb_error *err);
/* Parses a number's text as a 32-bit float; false when outside
 * [-3.4028235E38, 3.4028235E38]. Needs no lock. */
bool vector_parse_float(const struct value *n, float *out);

/* The bytes of item's entry in the index (the vector at 4 bytes a dimension
 * plus its name, the table's keys, the SearchSchema and the projected
 * attributes at item size); 0 when the item is not in the index. Reads its
 * arguments alone: needs no lock. */
size_t vector_index_entry_size(const struct vector_index *vi, const struct key_schema *table_key,
                               const struct item *item);
/* The VectorWriteRequestBytes a write of old_item into new_item (either may
 * be NULL) costs this index (spec-24 2.5, dynoxide's captures): 0 when the
 * item is in the index neither before nor after, or its entry (the vector,
 * the table's keys, the SearchSchema and the projected attributes) did not
 * change; else the larger entry's bytes (the vector at 4 bytes a dimension
 * plus its name, the rest at item size), at least 1 KB. Reads its arguments
 * alone: needs no lock. */
double vector_index_write_bytes(const struct vector_index *vi, const struct key_schema *table_key,
                                const struct item *old_item, const struct item *new_item);
/* The query's top_k nearest vectors, best first (ties: table key order).
 * *hits is a new array of *count entries (the caller frees it and unrefs
 * each item). Caller holds the lock (shared is enough). */
void vector_index_search(const struct vector_index *vi, const struct vector_query *q,
                         struct vector_hit **hits, size_t *count);

#endif
