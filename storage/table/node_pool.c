/*
 * node_pool.c - slabs of skiplist nodes; see node_pool.h.
 */
#include "storage/table/node_pool.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer a free node and a slab's unused tail are poisoned,
 * so that a node read after its row was removed is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void) (p), (void) (n))
#define UNPOISON(p, n) ((void) (p), (void) (n))
#endif

/* The first slab holds a small table's nodes; they double to the cap, so a
 * list of a million rows has a few hundred slabs, and an empty one none. */
#define SLAB_FIRST_BYTES 2048
#define SLAB_MAX_BYTES   (64 * 1024)

struct node_slab {
    struct node_slab *next;
    _Alignas(NODE_POOL_ALIGN) unsigned char nodes[]; /* malloc's alignment kept */
};

static size_t round_up(size_t size)
{
    return (size + NODE_POOL_ALIGN - 1) & ~(size_t) (NODE_POOL_ALIGN - 1);
}

void node_pool_init(struct node_pool *p)
{
    memset(p, 0, sizeof *p);
    p->next_slab_bytes = SLAB_FIRST_BYTES;
}

/* A new slab becomes the bump area; what was left of the last one is lost
 * (less than one node). */
static void add_slab(struct node_pool *p)
{
    size_t bytes = p->next_slab_bytes < SLAB_FIRST_BYTES ? SLAB_FIRST_BYTES : p->next_slab_bytes;
    struct node_slab *s = xmalloc(sizeof *s + bytes);

    s->next = p->slabs;
    p->slabs = s;
    p->bump = (char *) s->nodes;
    p->bump_left = bytes;
    POISON(p->bump, p->bump_left);
    p->next_slab_bytes = bytes < SLAB_MAX_BYTES ? bytes * 2 : SLAB_MAX_BYTES;
}

void *node_pool_alloc(struct node_pool *p, size_t size)
{
    size_t bytes = round_up(size);
    void *node;

    if (bytes > NODE_POOL_MAX_BYTES) return xcalloc(1, bytes);
    node = p->free[bytes / NODE_POOL_ALIGN];
    if (node) {
        UNPOISON(node, bytes);
        memcpy(&p->free[bytes / NODE_POOL_ALIGN], node, sizeof(void *));
    } else {
        if (p->bump_left < bytes) add_slab(p);
        node = p->bump;
        UNPOISON(node, bytes);
        p->bump += bytes;
        p->bump_left -= bytes;
    }
    memset(node, 0, bytes);
    return node;
}

void node_pool_free(struct node_pool *p, void *node, size_t size)
{
    size_t bytes = round_up(size);

    if (bytes > NODE_POOL_MAX_BYTES) {
        free(node);
        return;
    }
    memcpy(node, &p->free[bytes / NODE_POOL_ALIGN], sizeof(void *));
    p->free[bytes / NODE_POOL_ALIGN] = node;
    POISON(node, bytes);
}

void node_pool_clear(struct node_pool *p)
{
    struct node_slab *s = p->slabs;

    while (s) {
        struct node_slab *next = s->next;
        free(s);
        s = next;
    }
    node_pool_init(p);
}
