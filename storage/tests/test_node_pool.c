/*
 * test_node_pool.c - the skiplist's node slabs: alignment, reuse by size,
 * neighbouring nodes, the sizes malloc serves, and a pool cleared and used again.
 */
#include "storage/model/key.h"
#include "storage/table/node_pool.h"
#include "storage/table/skiplist.h"
#include "storage/tests/check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool zeroed(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

/* Every size is handed out aligned as the key index needs (key_index.h) and
 * zeroed, whether carved from a slab or, past the pool's largest, malloc'ed. */
static void test_every_size_is_aligned_and_zeroed(void)
{
    struct node_pool p;
    void *nodes[NODE_POOL_MAX_BYTES + 64];

    node_pool_init(&p);
    for (size_t size = 1; size < NODE_POOL_MAX_BYTES + 64; size++) {
        nodes[size] = node_pool_alloc(&p, size);
        CHECK_INT_EQ((uintptr_t) nodes[size] % NODE_POOL_ALIGN, 0);
        CHECK(zeroed(nodes[size], size));
        memset(nodes[size], 0xA5, size);
    }
    for (size_t size = 1; size < NODE_POOL_MAX_BYTES + 64; size++)
        node_pool_free(&p, nodes[size], size);
    /* A freed node comes back zeroed. */
    for (size_t size = 1; size < NODE_POOL_MAX_BYTES + 64; size++) {
        void *n = node_pool_alloc(&p, size);
        CHECK(zeroed(n, size));
        node_pool_free(&p, n, size);
    }
    node_pool_clear(&p);
}

/* A freed node is the next one handed out of its size class, and only of it. */
static void test_a_freed_node_serves_its_size_next(void)
{
    struct node_pool p;
    void *a, *b, *c;

    node_pool_init(&p);
    a = node_pool_alloc(&p, 40);
    b = node_pool_alloc(&p, 40);
    node_pool_free(&p, a, 40);
    c = node_pool_alloc(&p, 64); /* another class: a stays free */
    CHECK(c != a);
    CHECK(node_pool_alloc(&p, 48) == a); /* 40 and 48 share the 48-byte class */
    node_pool_free(&p, b, 40);
    node_pool_free(&p, a, 48);
    CHECK(node_pool_alloc(&p, 40) == a); /* last freed, first served */
    CHECK(node_pool_alloc(&p, 40) == b);
    node_pool_clear(&p);
}

/* Nodes asked for one after another lie one after another in a slab. */
static void test_nodes_in_a_row_are_neighbours(void)
{
    struct node_pool p;
    char *prev = NULL;
    int adjacent = 0;

    node_pool_init(&p);
    for (int i = 0; i < 1000; i++) {
        char *n = node_pool_alloc(&p, 40);
        if (prev && n == prev + 48) adjacent++;
        prev = n;
    }
    /* Only a new slab's first node is elsewhere: a few of a thousand. */
    CHECK(adjacent >= 990);
    node_pool_clear(&p);
    /* Cleared, the pool starts again. */
    CHECK(node_pool_alloc(&p, 40) != NULL);
    node_pool_clear(&p);
}

static struct item *item_with_number(long k)
{
    struct value m, v;
    char text[32];
    snprintf(text, sizeof text, "%ld", k);
    value_init_map(&m);
    value_init_number_text(&v, text, strlen(text));
    value_map_set(&m, "k", 1, &v);
    return item_new(&m);
}

/* A list's rows inserted in their order: the walk over them reads
 * neighbouring memory, and removing and inserting again reuses the nodes. */
static void test_a_list_in_order_walks_neighbouring_nodes(void)
{
    struct skiplist sl;
    const struct skiplist_node *prev = NULL;
    int near = 0, rows = 0;

    skiplist_init(&sl);
    for (long k = 0; k < 2000; k++) {
        struct item *item = item_with_number(k);
        struct row_key key;
        memset(&key, 0, sizeof key);
        key.hash = 7;
        key.part_count = 1;
        CHECK(item_key_part(item, "k", 1, &key.parts[0]));
        skiplist_insert(&sl, &key, item);
    }
    for (const struct skiplist_node *n = skiplist_first(&sl); n; n = skiplist_next(n), rows++) {
        ptrdiff_t gap = prev ? (const char *) n - (const char *) prev : 0;
        if (prev && gap > 0 && gap <= 128) near++;
        prev = n;
    }
    CHECK_INT_EQ(rows, 2000);
    CHECK(near >= 1990);
    skiplist_clear(&sl);
}

int main(void)
{
    RUN(test_every_size_is_aligned_and_zeroed);
    RUN(test_a_freed_node_serves_its_size_next);
    RUN(test_nodes_in_a_row_are_neighbours);
    RUN(test_a_list_in_order_walks_neighbouring_nodes);
    return check_report();
}
