/*
 * collection.c - running size totals of item collections; see collection.h.
 *
 * An open-addressing hash map with linear probing, keyed by (partition hash,
 * partition key value). The capacity is a power of two and the map grows at
 * 3/4 load. Removal uses backward-shift deletion, so no tombstones are left
 * and lookups stay short. The caller holds db->lock (collection.h).
 */
#include "storage/table/collection.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_CAP 16

void collection_sizes_init(struct collection_sizes *cs)
{
    assert_lock_exclusive();
    memset(cs, 0, sizeof *cs);
}

void collection_sizes_clear(struct collection_sizes *cs)
{
    assert_table_writing();
    for (size_t i = 0; i < cs->cap; i++) {
        if (cs->slots[i].used) value_clear(&cs->slots[i].key);
    }
    free(cs->slots);
    memset(cs, 0, sizeof *cs);
}

void collection_sizes_copy(struct collection_sizes *dst, const struct collection_sizes *src)
{
    assert_table_writing();
    *dst = *src;
    if (!src->cap) return;
    dst->slots = xmalloc(sizeof *dst->slots * src->cap);
    for (size_t i = 0; i < src->cap; i++) {
        dst->slots[i] = src->slots[i];
        if (src->slots[i].used) value_copy(&dst->slots[i].key, &src->slots[i].key);
    }
}

/* The slot holding (hash, pk), or the empty slot where it would go. */
static size_t find_slot(const struct collection_sizes *cs, uint64_t hash, const struct value *pk)
{
    size_t mask = cs->cap - 1, i = (size_t) hash & mask;

    while (cs->slots[i].used && !(cs->slots[i].hash == hash && value_equal(&cs->slots[i].key, pk)))
        i = (i + 1) & mask;
    return i;
}

static void grow(struct collection_sizes *cs)
{
    struct collection_entry *old = cs->slots;
    size_t old_cap = cs->cap;

    cs->cap = old_cap ? old_cap * 2 : INITIAL_CAP;
    cs->slots = xcalloc(cs->cap, sizeof *cs->slots);
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].used) continue;
        cs->slots[find_slot(cs, old[i].hash, &old[i].key)] = old[i];
    }
    free(old);
}

/* Empties slot i and shifts later members of its probe run back (no tombstones). */
static void remove_slot(struct collection_sizes *cs, size_t i)
{
    size_t mask = cs->cap - 1, j = i;

    value_clear(&cs->slots[i].key);
    memset(&cs->slots[i], 0, sizeof cs->slots[i]);
    for (;;) {
        size_t home;
        j = (j + 1) & mask;
        if (!cs->slots[j].used) break;
        home = (size_t) cs->slots[j].hash & mask;
        /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
        if ((i <= j) ? (home > i && home <= j) : (home > i || home <= j)) continue;
        cs->slots[i] = cs->slots[j];
        memset(&cs->slots[j], 0, sizeof cs->slots[j]);
        i = j;
    }
    cs->count--;
}

int64_t collection_sizes_get(const struct collection_sizes *cs, uint64_t hash,
                             const struct value *pk)
{
    assert_lock_held();
    size_t i;

    if (!cs->cap) return 0;
    i = find_slot(cs, hash, pk);
    return cs->slots[i].used ? cs->slots[i].bytes : 0;
}

void collection_sizes_add(struct collection_sizes *cs, uint64_t hash, const struct value *pk,
                          int64_t delta)
{
    assert_table_writing();
    size_t i;

    if (delta == 0) return;
    if ((cs->count + 1) * 4 > cs->cap * 3) grow(cs);
    i = find_slot(cs, hash, pk);
    if (!cs->slots[i].used) {
        cs->slots[i].used = 1;
        cs->slots[i].hash = hash;
        value_copy(&cs->slots[i].key, pk);
        cs->slots[i].bytes = 0;
        cs->count++;
    }
    cs->slots[i].bytes += delta;
    if (cs->slots[i].bytes <= 0) remove_slot(cs, i);
}
