/*
 * key_index.h - a table's items by their exact primary key, beside the skiplist.
 *
 * The skiplist keeps a table's items in key order for Query and Scan, and
 * finds one in O(log n): at a million items that is ~40 nodes visited, each
 * a comparison that follows pointers into an item - a chain of cache misses
 * that was a fifth of a GetItem's time and almost half of a BatchGetItem's
 * (bench/README.md, "Single-item operations"). Operations that name a whole
 * primary key (GetItem, PutItem, UpdateItem, DeleteItem, batches,
 * transactions) find its node here instead: one hash of the key and, usually,
 * one probe.
 *
 * An open-addressing table (linear probing, backward-shift deletion, at most
 * three quarters full) of (hash of the whole key, node). It holds pointers to
 * the skiplist's nodes and owns nothing else; table.c keeps the two in step
 * under the exclusive lock (a node is added when inserted, removed before it
 * is freed; a replaced node keeps its place and its key's value).
 */
#ifndef DDB_KEY_INDEX_H
#define DDB_KEY_INDEX_H

#include "storage/model/key.h"
#include "storage/table/skiplist.h"

#include <stddef.h>
#include <stdint.h>

struct key_index_slot {
    uint64_t hash;              /* key_index_hash() of the node's key */
    struct skiplist_node *node; /* NULL: an empty slot */
};

struct key_index {
    struct key_index_slot *slots; /* cap slots; cap is 0 or a power of two */
    size_t cap;
    size_t count;
};

void key_index_init(struct key_index *ki);
/* Frees the slots (not the nodes); ki is empty again. */
void key_index_clear(struct key_index *ki);

/* The hash a complete primary key is filed under (its partition hash mixed
 * with its sort key's). Equal keys hash equally: N values are canonical. */
uint64_t key_index_hash(const struct row_key *key);
/* The node whose key equals key (complete), whose hash is hash, or NULL. */
struct skiplist_node *key_index_find(const struct key_index *ki, uint64_t hash,
                                     const struct row_key *key);
/* Files node, whose key is not yet in ki, under hash. */
void key_index_add(struct key_index *ki, uint64_t hash, struct skiplist_node *node);
/* Makes room for count keys in all, so that adding them never regrows the
 * table (the size those adds would grow it to): a restore adds 100,000s. */
void key_index_reserve(struct key_index *ki, size_t count);
/* Removes node, filed under hash; it must be there. */
void key_index_remove(struct key_index *ki, uint64_t hash, const struct skiplist_node *node);

#endif
