/*
 * key_index.c - the exact-key hash index of a table's items; see key_index.h.
 *
 * Invariants: every entry sits in its home slot (hash & (cap - 1)) or after
 * it with no empty slot between; count * 4 <= cap * 3; a slot's tag bits
 * (tag_mask) hold the same bits of its key's hash; while tagged, a slot's
 * KEY_INDEX_DISP_BITS hold its distance from its home, or KEY_INDEX_FAR when
 * that is KEY_INDEX_FAR or more; an untagged index (tag_mask 0) keeps no
 * displacement and stays untagged until it is cleared.
 */
#include "storage/table/key_index.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 16
/* How far ahead grow() fetches a node, and then its key (slots). */
#define PREFETCH_NODE 16
#define PREFETCH_KEY  8

void key_index_init(struct key_index *ki)
{
    memset(ki, 0, sizeof *ki);
    ki->tag_mask = KEY_INDEX_TAG_BITS;
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

/* The bits of a slot that are not the node's address. */
static uint64_t meta_bits(uint64_t tag_mask)
{
    return tag_mask ? tag_mask | KEY_INDEX_DISP_BITS : 0;
}

static struct skiplist_node *slot_node(uint64_t slot, uint64_t tag_mask)
{
    return (struct skiplist_node *) (uintptr_t) (slot & ~meta_bits(tag_mask));
}

/* The displacement bits that record distance from home (saturated). */
static uint64_t disp_bits(size_t distance)
{
    return distance < KEY_INDEX_FAR ? distance : KEY_INDEX_FAR;
}

/* The hash a filed node's entry was filed under, from its key. */
static uint64_t node_hash(const struct skiplist_node *n)
{
    struct row_key key;

    skiplist_node_key(n, &key);
    return key_index_hash(&key);
}

/* Starts fetching what node_hash(n) will read of n's key (n is in cache). */
static void prefetch_key(const struct skiplist_node *n)
{
    for (size_t p = 1; p < n->part_count; p++)
        skiplist_node_prefetch_part(n, p);
}

struct skiplist_node *key_index_find(const struct key_index *ki, uint64_t hash,
                                     const struct row_key *key)
{
    size_t mask = ki->cap - 1;
    uint64_t tag_mask = ki->tag_mask, tag = hash & tag_mask;

    if (!ki->cap) return NULL;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        uint64_t slot = ki->slots[i];
        if (!slot) return NULL;
        if ((slot & tag_mask) == tag) {
            struct skiplist_node *n = slot_node(slot, tag_mask);
            if (skiplist_node_compare(n, key, KEY_BIAS_LOW) == 0) return n;
        }
    }
}

/* Puts slot (a node and its tag) in the first free slot from hash's home,
 * with its displacement when the index is tagged. */
static void place(uint64_t *slots, size_t mask, uint64_t tag_mask, uint64_t hash, uint64_t slot)
{
    size_t i = hash & mask, distance = 0;

    while (slots[i]) {
        i = (i + 1) & mask;
        distance++;
    }
    slots[i] = tag_mask ? slot | disp_bits(distance) : slot;
}

static void grow(struct key_index *ki)
{
    size_t cap = ki->cap ? ki->cap * 2 : FIRST_CAP;
    uint64_t *slots = xcalloc(cap, sizeof *slots);

    /* The new home needs a bit of the hash that no slot keeps: each entry's
     * hash is computed again from its node's key. Nodes and their keys are
     * all over the heap: the loop fetches the node PREFETCH_NODE slots ahead
     * and its key's parts PREFETCH_KEY ahead, so that their cache misses
     * overlap instead of following one another (a growth at a million items
     * took 3.5 times the CPU of the 16-byte slots' without). */
    for (size_t i = 0; i < ki->cap; i++) {
        uint64_t slot = ki->slots[i];
        if (i + PREFETCH_NODE < ki->cap && ki->slots[i + PREFETCH_NODE])
            __builtin_prefetch(slot_node(ki->slots[i + PREFETCH_NODE], ki->tag_mask));
        if (i + PREFETCH_KEY < ki->cap && ki->slots[i + PREFETCH_KEY])
            prefetch_key(slot_node(ki->slots[i + PREFETCH_KEY], ki->tag_mask));
        if (slot)
            place(slots, cap - 1, ki->tag_mask, node_hash(slot_node(slot, ki->tag_mask)),
                  slot & ~(ki->tag_mask ? KEY_INDEX_DISP_BITS : 0));
    }
    free(ki->slots);
    ki->slots = slots;
    ki->cap = cap;
}

void key_index_untag(struct key_index *ki)
{
    uint64_t meta = meta_bits(ki->tag_mask);

    for (size_t i = 0; i < ki->cap; i++)
        ki->slots[i] &= ~meta;
    ki->tag_mask = 0;
}

void key_index_add(struct key_index *ki, uint64_t hash, struct skiplist_node *node)
{
    uint64_t address = (uintptr_t) node;

    /* hash is the caller's key_index_hash of node's key; not recomputed here:
     * asserts stay on in release builds and this is every insert's path
     * (test_key_index checks every slot's hash against its node). */
    assert(node);
    /* The address needs the tag's or the displacement's bits. */
    if (address & meta_bits(ki->tag_mask)) key_index_untag(ki);
    if ((ki->count + 1) * 4 > ki->cap * 3) grow(ki);
    place(ki->slots, ki->cap - 1, ki->tag_mask, hash, address | (hash & ki->tag_mask));
    ki->count++;
}

void key_index_reserve(struct key_index *ki, size_t count)
{
    while (count * 4 > ki->cap * 3)
        grow(ki); /* cheap while ki is still empty, as when a table is restored */
}

/* How far the entry in slot i sits from its home: from its displacement
 * bits, or from its node's key when they say KEY_INDEX_FAR (or the index
 * keeps none). */
static size_t distance_from_home(const struct key_index *ki, size_t i)
{
    size_t mask = ki->cap - 1;
    uint64_t slot = ki->slots[i];

    if (ki->tag_mask && (slot & KEY_INDEX_DISP_BITS) < KEY_INDEX_FAR)
        return (size_t) (slot & KEY_INDEX_DISP_BITS);
    return (i - (node_hash(slot_node(slot, ki->tag_mask)) & mask)) & mask;
}

void key_index_remove(struct key_index *ki, uint64_t hash, const struct skiplist_node *node)
{
    size_t mask = ki->cap - 1, hole, i;
    uint64_t want = (uintptr_t) node | (hash & ki->tag_mask);
    uint64_t disp = ki->tag_mask ? KEY_INDEX_DISP_BITS : 0;

    assert(ki->cap);
    for (hole = hash & mask; (ki->slots[hole] & ~disp) != want; hole = (hole + 1) & mask)
        assert(ki->slots[hole]);
    /* Backward shift: every later slot of the run that may move into the hole
     * (its home is not between the hole and itself) does, so lookups never
     * meet a gap before their key; it comes that much nearer its home. */
    for (i = (hole + 1) & mask; ki->slots[i]; i = (i + 1) & mask) {
        size_t distance = distance_from_home(ki, i), moved = (i - hole) & mask;
        if (distance >= moved) {
            ki->slots[hole] =
                disp ? (ki->slots[i] & ~disp) | disp_bits(distance - moved) : ki->slots[i];
            hole = i;
        }
    }
    ki->slots[hole] = 0;
    ki->count--;
}
