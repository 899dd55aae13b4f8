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
 * three quarters full) of 8-byte slots: a node's address in the low 48 bits
 * and, above it, a tag - the top 16 bits of the key's hash. A probe compares
 * tags and follows a node only when its tag matches (a wrong key costs one
 * dereference in 65,536). The rest of the hash is not kept: when the table
 * grows, the entry's hash is computed again from its node's key
 * (skiplist_node_key, key_index_hash). Slots cost 8 bytes, not 16: 11-21
 * bytes an item (bench/README.md, "Memory per item").
 *
 * A node is a malloc'ed block, 16-byte aligned, so its address leaves the
 * slot's low 4 bits free: they hold the entry's displacement, how many slots
 * past its home it sits, up to KEY_INDEX_FAR (that far or further). A
 * deletion's backward shift needs the home of every entry after the hole;
 * from the displacement it is one subtraction, where computing the hash
 * again from the node's key cost a node and an item cache miss per entry at
 * a million items (bench/README.md, "Writes at 1,000,000 items"). Only an
 * entry at KEY_INDEX_FAR or beyond has its hash computed again.
 *
 * User-space addresses fit in 48 bits on x86-64 and arm64 (without 5-level
 * page tables or top-byte pointer tags). If a node's address does not, or is
 * not 16-byte aligned, the index drops its tags and displacements for good
 * (key_index_untag): slots hold bare addresses, every probe compares keys and
 * every shifted entry's home is computed from its key - slower, never wrong.
 *
 * It holds pointers to the skiplist's nodes and owns nothing else; table.c
 * keeps the two in step under the exclusive lock (a node is added when
 * inserted, removed before it is freed; a replaced node keeps its place and
 * its key's value, so its hash does not change).
 */
#ifndef DDB_KEY_INDEX_H
#define DDB_KEY_INDEX_H

#include "storage/model/key.h"
#include "storage/table/skiplist.h"

#include <stddef.h>
#include <stdint.h>

struct key_index {
    /* cap slots, cap 0 or a power of two. A slot is 0 (empty), or a node's
     * address OR'ed with its hash's bits under tag_mask and, while tagged,
     * its displacement under KEY_INDEX_DISP_BITS. */
    uint64_t *slots;
    size_t cap;
    size_t count;
    /* The slot bits that hold the tag: the top 16 (KEY_INDEX_TAG_BITS), or
     * none once a node's address needed them or the displacement's
     * (key_index_untag); then no slot keeps a displacement either. */
    uint64_t tag_mask;
};

#define KEY_INDEX_TAG_BITS (UINT64_C(0xFFFF) << 48)
/* A tagged slot's low bits: its entry's displacement from its home, or
 * KEY_INDEX_FAR for that many slots or more. */
#define KEY_INDEX_DISP_BITS UINT64_C(0xF)
#define KEY_INDEX_FAR       15u

void key_index_init(struct key_index *ki);
/* Frees the slots (not the nodes); ki is empty again (and tagged). */
void key_index_clear(struct key_index *ki);

/* The hash a complete primary key is filed under (its partition hash mixed
 * with its sort key's). Equal keys hash equally: N values are canonical. */
uint64_t key_index_hash(const struct row_key *key);
/* The node whose key equals key (complete), whose hash is hash, or NULL. */
struct skiplist_node *key_index_find(const struct key_index *ki, uint64_t hash,
                                     const struct row_key *key);
/* Files node, whose key is not yet in ki, under hash: key_index_hash() of
 * the node's key (the index computes it again from the node when it grows
 * or shifts an entry from KEY_INDEX_FAR, and the two must agree). */
void key_index_add(struct key_index *ki, uint64_t hash, struct skiplist_node *node);
/* Makes room for count keys in all, so that adding them never regrows the
 * table (the size those adds would grow it to): a restore adds 100,000s. */
void key_index_reserve(struct key_index *ki, size_t count);
/* Removes node, filed under hash; it must be there. */
void key_index_remove(struct key_index *ki, uint64_t hash, const struct skiplist_node *node);
/* Strips every slot's tag and displacement and keeps none from now on: what
 * key_index_add does when a node's address reaches into their bits. Finds
 * then compare every key of a probe run, and deletions compute the home of
 * every entry they shift. Public so that tests run that path. */
void key_index_untag(struct key_index *ki);

#endif
