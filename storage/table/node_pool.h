/*
 * node_pool.h - the memory of one skiplist's nodes, carved from slabs it owns.
 *
 * A node is 40-64 bytes nearly always (skiplist.h). From malloc each one
 * carried an 8-byte header and was rounded to 16 bytes, and lay wherever the
 * heap had room: between the item it was written with and the request's
 * temporaries. From a pool the nodes of rows stored one after another lie one
 * after another, so a Query's walk over a partition that was written in one
 * go - a load, an import, a restore - reads neighbouring lines instead of
 * one line a row (bench/README.md, "The nodes in slabs of their own").
 *
 * Nodes are 16-byte aligned, as malloc's are: the key index keeps a
 * displacement in a node address's four low bits (key_index.h). Sizes are
 * kept in 16-byte classes; a freed node goes on its class's free
 * list and is the next one handed out of that size. The slabs are given back
 * only when the pool is cleared with its list: a list that shrank keeps them
 * for its next rows (docs/architecture.md, "The stored item"). Nodes over
 * NODE_POOL_MAX_BYTES (a level the list reaches once in millions, and the
 * list's head) come from malloc.
 *
 * Not thread-safe: like the list it serves, the pool is changed only by the
 * holder of the list's exclusive lock (skiplist.h).
 */
#ifndef DDB_NODE_POOL_H
#define DDB_NODE_POOL_H

#include <stddef.h>

#define NODE_POOL_MAX_BYTES 256
#define NODE_POOL_ALIGN     16

struct node_slab;

struct node_pool {
    struct node_slab *slabs; /* every slab, newest first */
    char *bump;              /* the newest slab's unused tail */
    size_t bump_left;
    size_t next_slab_bytes;                                /* doubles up to a cap */
    void *free[NODE_POOL_MAX_BYTES / NODE_POOL_ALIGN + 1]; /* freed nodes by size class */
};

/* An empty pool (no slab until the first node). */
void node_pool_init(struct node_pool *p);
/* size zeroed bytes, NODE_POOL_ALIGN-aligned; never NULL. */
void *node_pool_alloc(struct node_pool *p, size_t size);
/* Gives back a node of node_pool_alloc(p, size). */
void node_pool_free(struct node_pool *p, void *node, size_t size);
/* Frees every slab: the pool's nodes must all be unused. The pool is then empty. */
void node_pool_clear(struct node_pool *p);

#endif
