/*
 * test_node_pool.c - the skiplist's node slabs: alignment, reuse by size,
 * neighbouring nodes, the sizes malloc serves, and a pool cleared and used again
 * (test_skiplist: a list's nodes from its pool).
 */
#include "storage/table/node_pool.h"
#include "storage/tests/check.h"

#include <stdbool.h>
#include <stdint.h>
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

int main(void)
{
    RUN(test_every_size_is_aligned_and_zeroed);
    RUN(test_a_freed_node_serves_its_size_next);
    RUN(test_nodes_in_a_row_are_neighbours);
    return check_report();
}
