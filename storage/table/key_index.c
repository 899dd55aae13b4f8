/*
 * key_index.c - the exact-key hash index of a table's items; see key_index.h.
 */
#include "storage/table/key_index.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 16

void key_index_init(struct key_index *ki)
{
    memset(ki, 0, sizeof *ki);
}

void key_index_clear(struct key_index *ki)
{
    free(ki->slots);
    key_index_init(ki);
}

uint64_t key_index_hash(const struct row_key *key)
{
    uint64_t sort;

    if (key->part_count < 2) return key->hash;
    sort = key_hash(&key->parts[1], key->part_count - 1);
    /* Mixed so that (a, b) and (b, a) - equal partition and sort hashes
     * swapped - file apart. */
    return key->hash ^ (sort * UINT64_C(0x9E3779B97F4A7C15) + (key->hash << 6) + (key->hash >> 2));
}

struct skiplist_node *key_index_find(const struct key_index *ki, uint64_t hash,
                                     const struct row_key *key)
{
    size_t mask = ki->cap - 1;

    if (!ki->cap) return NULL;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const struct key_index_slot *s = &ki->slots[i];
        if (!s->node) return NULL;
        if (s->hash == hash && skiplist_node_compare(s->node, key, KEY_BIAS_LOW) == 0)
            return s->node;
    }
}

static void place(struct key_index_slot *slots, size_t mask, uint64_t hash,
                  struct skiplist_node *node)
{
    size_t i = hash & mask;

    while (slots[i].node)
        i = (i + 1) & mask;
    slots[i].hash = hash;
    slots[i].node = node;
}

static void grow(struct key_index *ki)
{
    size_t cap = ki->cap ? ki->cap * 2 : FIRST_CAP;
    struct key_index_slot *slots = xcalloc(cap, sizeof *slots);

    for (size_t i = 0; i < ki->cap; i++) {
        if (ki->slots[i].node) place(slots, cap - 1, ki->slots[i].hash, ki->slots[i].node);
    }
    free(ki->slots);
    ki->slots = slots;
    ki->cap = cap;
}

void key_index_add(struct key_index *ki, uint64_t hash, struct skiplist_node *node)
{
    if ((ki->count + 1) * 4 > ki->cap * 3) grow(ki);
    place(ki->slots, ki->cap - 1, hash, node);
    ki->count++;
}

void key_index_reserve(struct key_index *ki, size_t count)
{
    while (count * 4 > ki->cap * 3)
        grow(ki); /* cheap while ki is still empty, as when a table is restored */
}

void key_index_remove(struct key_index *ki, uint64_t hash, const struct skiplist_node *node)
{
    size_t mask = ki->cap - 1, hole, i;

    assert(ki->cap);
    for (hole = hash & mask; ki->slots[hole].node != node; hole = (hole + 1) & mask)
        assert(ki->slots[hole].node);
    /* Backward shift: every later slot of the run that may move into the hole
     * (its home is not between the hole and itself) does, so lookups never
     * meet a gap before their key. */
    for (i = (hole + 1) & mask; ki->slots[i].node; i = (i + 1) & mask) {
        size_t home = ki->slots[i].hash & mask;
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            ki->slots[hole] = ki->slots[i];
            hole = i;
        }
    }
    ki->slots[hole].node = NULL;
    ki->slots[hole].hash = 0;
    ki->count--;
}
