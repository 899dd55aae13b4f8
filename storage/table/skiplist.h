/*
 * skiplist.h - an ordered map from struct row_key to item, with bidirectional walks.
 *
 * Query needs exactly three things from its ordered structure: seek to a
 * bound, walk forwards or backwards (ScanIndexForward), and resume after an
 * ExclusiveStartKey; Scan needs a walk in hash order from any hash. A skiplist
 * gives all of them in O(log n) with a doubly linked bottom level, and its
 * readers never modify it, so concurrent readers under the db read lock need
 * no further synchronisation.
 *
 * Rows are ordered by their partition's hash first, so a partition is one run
 * of the list; where rows have a sort key, a directory of each run's first
 * and last nodes lets a bound within a partition be sought from there
 * (skiplist.c, "The partition directory").
 *
 * Each node owns one reference to its item and finds its key in it. It has no lock and knows
 * nothing of the engine's: readers may share it, a change needs it alone. Its users (table.c,
 * index.c, ttl_index.c) hold the engine lock for that - shared to read, exclusive to change - and
 * assert it at their own entry points (base/lock_check.h).
 */
#ifndef DDB_SKIPLIST_H
#define DDB_SKIPLIST_H

#include "storage/model/item.h"
#include "storage/model/key.h"
#include "storage/table/node_pool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SKIPLIST_MAX_LEVEL 32

/* A node is one allocation: this header, its level's links, then the
 * offsets of key parts beyond the second. Its key is not copied: each part
 * is read in place in the node's item encoding, at a 24-bit offset from the
 * item's start (an item is well under 16 MB) to the part's type byte
 * (key_part_at: type, length, bytes; an N's bytes are comparable as they
 * are) - a table's one or two parts in the header's padding, an index row's
 * further parts (up to ten) after next[]. 40 bytes at level 1 for a table
 * row (a 48-byte chunk): a node is the largest per-item cost after the item
 * itself (bench/README.md, "Memory per item"; docs/architecture.md, "The
 * stored item"). */
#define SKIPLIST_HEAD_PARTS 2
struct skiplist_node {
    uint64_t hash;              /* the row key's partition hash */
    struct item *item;          /* owned reference */
    struct skiplist_node *prev; /* NULL for the first node */
    uint8_t level;
    uint8_t part_count;
    uint8_t part_at[3 * SKIPLIST_HEAD_PARTS]; /* offsets of parts 0 and 1, little-endian */
    struct skiplist_node *next[];             /* level entries, then 3 bytes a further part */
};

/* A partition's first and last nodes, by the partition's hash (skiplist.c,
 * "The partition directory"). */
struct skiplist_dir_slot {
    uint64_t hash;
    struct skiplist_node *first; /* NULL: an empty slot */
    struct skiplist_node *last;
};

struct skiplist {
    struct skiplist_node *head; /* sentinel with SKIPLIST_MAX_LEVEL links */
    int level;
    size_t count;
    uint64_t rng;           /* xorshift state for node levels; changed only under the write lock */
    struct node_pool nodes; /* every node but the head */
    /* The partition directory: kept when the first row stored had a sort key
     * (dir_on), so that a bound is sought from its partition's first or last
     * node rather than from the head. */
    struct skiplist_dir_slot *dir; /* dir_cap slots, at most three quarters used */
    size_t dir_cap, dir_count;
    bool dir_decided, dir_on;
};

void skiplist_init(struct skiplist *sl);
/* Keeps no partition directory, whatever its rows: for a list only ever
 * sought by ranges of hashes (the TTL index, whose "partitions" are expiry
 * times - one an item - so entries would only cost memory). Call after
 * skiplist_init, before the first row. */
void skiplist_without_directory(struct skiplist *sl);
/* Frees every node and drops its item reference. */
void skiplist_clear(struct skiplist *sl);

struct skiplist_node *skiplist_first(const struct skiplist *sl);
struct skiplist_node *skiplist_last(const struct skiplist *sl);
static inline struct skiplist_node *skiplist_next(const struct skiplist_node *n)
{
    return n->next[0];
}
static inline struct skiplist_node *skiplist_prev(const struct skiplist_node *n)
{
    return n->prev;
}

/* The node's key as a row_key: its hash, and parts pointing into its item's
 * encoding (valid while the caller holds the item). */
void skiplist_node_key(const struct skiplist_node *n, struct row_key *out);
/* Starts fetching the value of part i of the node's key (in its item),
 * reading only the node: for loops that overlap their cache misses. */
void skiplist_node_prefetch_part(const struct skiplist_node *n, size_t i);
/* row_key_compare of the node's key with probe. */
int skiplist_node_compare(const struct skiplist_node *n, const struct row_key *probe,
                          enum key_bias bias);

/* First node whose key is >= probe (missing probe parts per bias), or NULL. */
struct skiplist_node *skiplist_lower_bound(const struct skiplist *sl, const struct row_key *probe,
                                           enum key_bias bias);
/* First node whose key is > probe, or NULL. */
struct skiplist_node *skiplist_upper_bound(const struct skiplist *sl, const struct row_key *probe,
                                           enum key_bias bias);
/* As the two above, with *before set to the node just before the bound: the
 * list's last node when the bound is NULL, NULL when the bound is the first
 * node. A backward walk starts there without reading the bound's node - on a
 * large table another partition's, a cache miss (bench/README.md, "The
 * bound's misses asked for together"). */
struct skiplist_node *skiplist_lower_bound_before(const struct skiplist *sl,
                                                  const struct row_key *probe, enum key_bias bias,
                                                  struct skiplist_node **before);
struct skiplist_node *skiplist_upper_bound_before(const struct skiplist *sl,
                                                  const struct row_key *probe, enum key_bias bias,
                                                  struct skiplist_node **before);
/* For tests: whether the partition directory holds exactly the first and last
 * nodes of every run of one hash (true when no directory is kept). */
bool skiplist_directory_is_whole(const struct skiplist *sl);
/* The node with exactly this (complete) key, or NULL. */
struct skiplist_node *skiplist_find(const struct skiplist *sl, const struct row_key *key);

/* Inserts a new node for key (which must not be present), taking the item
 * reference; key's parts must be read in item's encoding (item_key_part:
 * the node keeps their offsets). Returns the node. */
struct skiplist_node *skiplist_insert(struct skiplist *sl, const struct row_key *key,
                                      struct item *item);
/* Puts item (reference taken) into the existing node for key, whose parts
 * must be read in the new item's encoding, and drops the old item's reference. */
void skiplist_replace(struct skiplist_node *node, const struct row_key *key, struct item *item);
/* Removes the node with this key, dropping its item reference; false if absent. */
bool skiplist_remove(struct skiplist *sl, const struct row_key *key);
/* Removes node n of sl, found by the caller (the exact-key index), dropping
 * its item reference. Its predecessors come from a short walk back along the
 * bottom level, not a search from the head that compares a key at every step
 * (a node and an item cache miss each at a million items); only a node of
 * level 3 or more, or far from the previous taller one, is searched for. */
void skiplist_remove_node(struct skiplist *sl, struct skiplist_node *n);

/* Builds a skiplist from rows already in key order in O(n), with no key
 * comparison: each row is linked after the last node of every level it
 * reaches (tail). A restore or fork puts back 100,000s of saved rows, and
 * inserting them one by one spent most of its time comparing keys
 * (bench/README.md, "Snapshots"). Levels come from the same generator as
 * skiplist_insert, so the result is the list those inserts would make. */
struct skiplist_builder {
    struct skiplist *sl;
    struct skiplist_node *tail[SKIPLIST_MAX_LEVEL]; /* last node at each level */
};

/* Starts appending to sl (empty or not: appends go after its last row). */
void skiplist_builder_begin(struct skiplist_builder *b, struct skiplist *sl);
/* Appends a node for key, which must sort after every key already in the
 * list, taking the item reference; key's parts made of item's values. */
struct skiplist_node *skiplist_builder_append(struct skiplist_builder *b, const struct row_key *key,
                                              struct item *item);

/* Appends a copy of node `from` (of another list being copied in its order:
 * no comparison is made), with its level, key and a new reference to its
 * item: how a table copies the rows it shared with a snapshot
 * (table_share.c) before its first write. */
struct skiplist_node *skiplist_builder_append_copy(struct skiplist_builder *b,
                                                   const struct skiplist_node *from);

/* One row for skiplist_load: its key (parts made of item's values) and item. */
struct skiplist_row {
    struct row_key key;
    struct item *item; /* borrowed: skiplist_load takes its own reference */
};
/* Sorts rows (no two keys equal) once, unless in_order says they are in
 * key order already, and appends them to sl, which holds only keys before
 * them (an empty list, say): how a restore fills an index. */
void skiplist_load(struct skiplist *sl, struct skiplist_row *rows, size_t count, bool in_order);

#endif
