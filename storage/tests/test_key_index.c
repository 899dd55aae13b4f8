/*
 * test_key_index.c - the exact-key index agrees with the skiplist it shadows,
 * through growth, probe runs and deletions from their middle.
 */
#include "storage/model/key.h"
#include "storage/table/key_index.h"
#include "storage/table/skiplist.h"
#include "storage/tests/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An item {p: "p<p>", s: <s>} (a string partition key, a number sort key). */
static struct item *item_of(long p, long s)
{
    struct value m, pv, sv;
    char text[32];

    value_init_map(&m);
    snprintf(text, sizeof text, "p%ld", p);
    value_init_string(&pv, text, strlen(text));
    snprintf(text, sizeof text, "%ld", s);
    value_init_number_text(&sv, text, strlen(text));
    value_map_set(&m, "p", 1, &pv);
    value_map_set(&m, "s", 1, &sv);
    return item_new(&m);
}

static void key_of(struct item *item, struct row_key *key)
{
    memset(key, 0, sizeof *key);
    key->part_count = 2;
    key->parts[0] = item_get(item, "p", 1);
    key->parts[1] = item_get(item, "s", 1);
    key->hash = key_hash(key->parts, 1);
}

static void test_random_writes_agree_with_the_skiplist(void)
{
    struct skiplist sl;
    struct key_index ki;
    unsigned seed = 11;

    skiplist_init(&sl);
    key_index_init(&ki);
    for (int step = 0; step < 20000; step++) {
        struct item *item = item_of(rand_r(&seed) % 20, rand_r(&seed) % 60);
        struct row_key key;
        uint64_t hash;
        struct skiplist_node *found;

        key_of(item, &key);
        hash = key_index_hash(&key);
        found = key_index_find(&ki, hash, &key);
        CHECK(found == skiplist_find(&sl, &key));
        if (found) {
            key_index_remove(&ki, hash, found);
            CHECK(skiplist_remove(&sl, &key));
            item_unref(item);
        } else {
            key_index_add(&ki, hash, skiplist_insert(&sl, &key, item));
        }
        CHECK_INT_EQ(ki.count, sl.count);
    }
    /* Every key of the range, present or not, is found exactly where the skiplist has it. */
    for (long p = 0; p < 20; p++) {
        for (long s = 0; s < 60; s++) {
            struct item *probe = item_of(p, s);
            struct row_key key;
            key_of(probe, &key);
            CHECK(key_index_find(&ki, key_index_hash(&key), &key) == skiplist_find(&sl, &key));
            item_unref(probe);
        }
    }
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

static void test_keys_filed_under_one_hash_stay_apart(void)
{
    struct skiplist sl;
    struct key_index ki;
    struct skiplist_node *nodes[40];
    struct row_key keys[40];

    skiplist_init(&sl);
    key_index_init(&ki);
    /* Forty different keys filed under the same hash: one run of probes. */
    for (int i = 0; i < 40; i++) {
        struct item *item = item_of(i, i);
        key_of(item, &keys[i]);
        nodes[i] = skiplist_insert(&sl, &keys[i], item);
        key_index_add(&ki, 7, nodes[i]);
    }
    for (int i = 0; i < 40; i++)
        CHECK(key_index_find(&ki, 7, &keys[i]) == nodes[i]);
    /* Removed from the middle, the start and the end of the run. */
    for (int i = 20; i < 40; i += 3)
        key_index_remove(&ki, 7, nodes[i]);
    key_index_remove(&ki, 7, nodes[0]);
    key_index_remove(&ki, 7, nodes[39]);
    for (int i = 0; i < 40; i++) {
        bool removed = i == 0 || i == 39 || (i >= 20 && (i - 20) % 3 == 0);
        CHECK(key_index_find(&ki, 7, &keys[i]) == (removed ? NULL : nodes[i]));
    }
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

static void test_the_hash_tells_sort_keys_apart(void)
{
    struct item *a = item_of(1, 2), *b = item_of(1, 3);
    struct row_key ka, kb;

    key_of(a, &ka);
    key_of(b, &kb);
    CHECK(ka.hash == kb.hash); /* one partition */
    CHECK(key_index_hash(&ka) != key_index_hash(&kb));
    item_unref(a);
    item_unref(b);
}

int main(void)
{
    RUN(test_random_writes_agree_with_the_skiplist);
    RUN(test_keys_filed_under_one_hash_stay_apart);
    RUN(test_the_hash_tells_sort_keys_apart);
    return check_report();
}
