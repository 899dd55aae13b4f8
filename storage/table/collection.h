/*
 * collection.h - running size totals of item collections (tables with an LSI).
 *
 * On a table with a local secondary index DynamoDB limits each item
 * collection - the items sharing one partition key value, plus their LSI
 * entries - to 10 GB, and reports the collection's size in
 * ItemCollectionMetrics (developerguide/LSI.html#LSI.ItemCollections). Every
 * write needs the size of exactly one collection, so the table keeps one total
 * per partition key value, adjusted by each committed write, rather than
 * walking the partition: a hash map keyed by the partition hash and value.
 *
 * The map owns copies of the partition key values. An entry whose total drops
 * to zero (the partition became empty) is removed. The caller holds db->lock:
 * shared to read, exclusive to change (asserted: base/lock_check.h).
 */
#ifndef DDB_COLLECTION_H
#define DDB_COLLECTION_H

#include "storage/model/value.h"

#include <stddef.h>
#include <stdint.h>

struct collection_entry {
    uint64_t hash;    /* key_hash() of the partition key; 0 with used = false */
    struct value key; /* owned copy of the partition key value */
    int64_t bytes;    /* item sizes plus LSI entry sizes */
    int used;
};

struct collection_sizes {
    struct collection_entry *slots; /* open addressing, linear probing; cap is a power of 2 */
    size_t cap;
    size_t count;
};

void collection_sizes_init(struct collection_sizes *cs);
/* Frees cs's totals: a table freed, or a share let go of by a writer; the
 * caller holds the table's lock exclusively (or the catalog lock so). */
void collection_sizes_clear(struct collection_sizes *cs);
/* Makes dst (uninitialised) a deep copy of src: a table copying the totals
 * it shared with a snapshot (table_share.c). The caller holds the table's
 * lock exclusively (or the catalog lock so). */
void collection_sizes_copy(struct collection_sizes *dst, const struct collection_sizes *src);
/* The total of the collection of partition key pk (whose hash is hash), 0 when none. */
int64_t collection_sizes_get(const struct collection_sizes *cs, uint64_t hash,
                             const struct value *pk);
/* Adds delta (may be negative) to the collection's total; pk is copied when
 * new. The caller holds the table's lock exclusively (or the catalog lock so). */
void collection_sizes_add(struct collection_sizes *cs, uint64_t hash, const struct value *pk,
                          int64_t delta);

#endif
