/*
 * test_key_index.c - the exact-key index agrees with the skiplist it shadows,
 * through growth, reserve, probe runs, deletions that shift entries back
 * across the end of the slots, runs of equal tags, runs longer than the
 * displacement bits count, and untagged slots.
 *
 * The index keeps only 16 bits of each hash (the tag) and computes the rest
 * again from a node's key when it grows or shifts an entry, so every node is
 * filed under the real key_index_hash() of its key; the tests that need
 * particular homes or tags search the keys that have them.
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

/* The key of item: (p, s), or (p) alone when parts is 1 (a table without
 * a sort key, whose exact-key hash is its partition hash). */
static void key_of(struct item *item, size_t parts, struct row_key *key)
{
    memset(key, 0, sizeof *key);
    key->part_count = parts;
    CHECK(item_key_part(item, "p", 1, &key->parts[0]));
    if (parts > 1) CHECK(item_key_part(item, "s", 1, &key->parts[1]));
    key->hash = key_hash(key->parts, 1);
}

/* key_index_hash of the key (p) alone, without making an item: the searches
 * below try 100,000s of keys. */
static uint64_t partition_hash_of(long p)
{
    char text[32];
    struct row_key key = {.part_count = 1};

    key.parts[0].type = VALUE_S;
    key.parts[0].len = (uint32_t) snprintf(text, sizeof text, "p%ld", p);
    key.parts[0].data = (const uint8_t *) text;
    key.hash = key_hash(key.parts, 1);
    return key_index_hash(&key);
}

/* The node of its key in ki: the hash recomputed from the node, then found. */
static uint64_t hash_of_node(const struct skiplist_node *n)
{
    struct row_key key;
    skiplist_node_key(n, &key);
    return key_index_hash(&key);
}

/* Every slot holds a node under its hash's tag (or untagged), reachable from
 * its home with no empty slot between, and (tagged) its distance from home
 * in its displacement bits, KEY_INDEX_FAR for that or more; count and load
 * are as documented. */
static void check_invariants(const struct key_index *ki)
{
    size_t mask = ki->cap - 1, filled = 0;

    CHECK(ki->count * 4 <= ki->cap * 3);
    for (size_t i = 0; i < ki->cap; i++) {
        uint64_t slot = ki->slots[i], hash;
        const struct skiplist_node *n;
        if (!slot) continue;
        filled++;
        uint64_t meta = ki->tag_mask ? ki->tag_mask | KEY_INDEX_DISP_BITS : 0;
        size_t distance;
        n = (const struct skiplist_node *) (uintptr_t) (slot & ~meta);
        hash = hash_of_node(n);
        CHECK((slot & ki->tag_mask) == (hash & ki->tag_mask));
        distance = (i - (hash & mask)) & mask;
        if (ki->tag_mask)
            CHECK_INT_EQ(slot & KEY_INDEX_DISP_BITS,
                         distance < KEY_INDEX_FAR ? distance : KEY_INDEX_FAR);
        for (size_t j = hash & mask; j != i; j = (j + 1) & mask)
            CHECK(ki->slots[j] != 0);
    }
    CHECK_INT_EQ(filled, ki->count);
}

/* Random adds and removes of keys of a range, each checked against the
 * skiplist (the reference), the index untagged half-way when untag_at >= 0. */
static void random_writes(size_t parts, int untag_at)
{
    struct skiplist sl;
    struct key_index ki;
    unsigned seed = 11;

    skiplist_init(&sl);
    key_index_init(&ki);
    for (int step = 0; step < 30000; step++) {
        struct item *item = item_of(rand_r(&seed) % 60, rand_r(&seed) % 60);
        struct row_key key;
        uint64_t hash;
        struct skiplist_node *found;

        if (step == untag_at) {
            key_index_untag(&ki);
            CHECK(ki.tag_mask == 0);
            check_invariants(&ki);
        }
        key_of(item, parts, &key);
        hash = key_index_hash(&key);
        found = key_index_find(&ki, hash, &key);
        CHECK(found == skiplist_find(&sl, &key));
        /* Mostly adds at first (the index grows), then as many removes. */
        if (found && (step > 15000 || rand_r(&seed) % 4 == 0)) {
            key_index_remove(&ki, hash, found);
            CHECK(skiplist_remove(&sl, &key));
        } else if (!found) {
            key_index_add(&ki, hash, skiplist_insert(&sl, &key, item));
            item = NULL;
        }
        item_unref(item);
        CHECK_INT_EQ(ki.count, sl.count);
        if (step % 1000 == 0) check_invariants(&ki);
    }
    check_invariants(&ki);
    /* Every key of the range, present or not, is found exactly where the skiplist has it. */
    for (long p = 0; p < 60; p++) {
        for (long s = 0; s < 60; s++) {
            struct item *probe = item_of(p, s);
            struct row_key key;
            key_of(probe, parts, &key);
            CHECK(key_index_find(&ki, key_index_hash(&key), &key) == skiplist_find(&sl, &key));
            item_unref(probe);
        }
    }
    key_index_clear(&ki);
    CHECK(ki.tag_mask == KEY_INDEX_TAG_BITS); /* cleared: tagged again */
    skiplist_clear(&sl);
}

static void test_random_writes_agree_with_the_skiplist(void)
{
    random_writes(2, -1);
    random_writes(1, -1);
}

static void test_untagged_slots_agree_with_the_skiplist(void)
{
    random_writes(2, 0);    /* untagged from the start */
    random_writes(2, 9000); /* tags dropped from a full index */
}

/* Adds keys (p, 0) for p in [from, to) to sl and ki. */
static void add_range(struct skiplist *sl, struct key_index *ki, long from, long to)
{
    for (long p = from; p < to; p++) {
        struct item *item = item_of(p, 0);
        struct row_key key;
        key_of(item, 2, &key);
        key_index_add(ki, key_index_hash(&key), skiplist_insert(sl, &key, item));
    }
}

static bool all_found(const struct skiplist *sl, const struct key_index *ki)
{
    bool ok = true;
    for (struct skiplist_node *n = skiplist_first(sl); n; n = skiplist_next(n)) {
        struct row_key key;
        skiplist_node_key(n, &key);
        ok = ok && key_index_find(ki, key_index_hash(&key), &key) == n;
    }
    return ok;
}

static void test_growth_keeps_every_key(void)
{
    struct skiplist sl;
    struct key_index ki;

    skiplist_init(&sl);
    key_index_init(&ki);
    CHECK(key_index_find(&ki, 1, &(struct row_key){.part_count = 2}) == NULL); /* no slots */
    add_range(&sl, &ki, 0, 12);
    CHECK_INT_EQ(ki.cap, 16); /* 12 of 16: three quarters */
    add_range(&sl, &ki, 12, 13);
    CHECK_INT_EQ(ki.cap, 32);
    add_range(&sl, &ki, 13, 20000);
    CHECK_INT_EQ(ki.cap, 32768); /* the smallest power of two with 20,000 <= 3/4 of it */
    CHECK_INT_EQ(ki.count, 20000);
    check_invariants(&ki);
    CHECK(all_found(&sl, &ki));
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

static void test_reserve_makes_room_once(void)
{
    struct skiplist sl;
    struct key_index ki;

    skiplist_init(&sl);
    key_index_init(&ki);
    key_index_reserve(&ki, 3000);
    CHECK_INT_EQ(ki.cap, 4096);
    add_range(&sl, &ki, 0, 3000);
    CHECK_INT_EQ(ki.cap, 4096);   /* no regrowth */
    key_index_reserve(&ki, 2000); /* already room */
    CHECK_INT_EQ(ki.cap, 4096);
    key_index_reserve(&ki, 6000); /* grows a filled index: entries rehomed */
    CHECK_INT_EQ(ki.cap, 8192);
    check_invariants(&ki);
    CHECK(all_found(&sl, &ki));
    add_range(&sl, &ki, 3000, 6000);
    CHECK_INT_EQ(ki.cap, 8192);
    CHECK(all_found(&sl, &ki));
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

/* A partition-only key filed in sl and ki; its node. */
static struct skiplist_node *add_partition(struct skiplist *sl, struct key_index *ki, long p)
{
    struct item *item = item_of(p, 0);
    struct row_key key;
    key_of(item, 1, &key);
    CHECK(key_index_hash(&key) == partition_hash_of(p));
    key_index_add(ki, key_index_hash(&key), skiplist_insert(sl, &key, item));
    return skiplist_find(sl, &key);
}

static void remove_node(struct skiplist *sl, struct key_index *ki, struct skiplist_node *n)
{
    struct row_key key;
    skiplist_node_key(n, &key);
    key_index_remove(ki, key_index_hash(&key), n);
    CHECK(skiplist_remove(sl, &key));
}

/* The first partition after *p whose home among 16 slots is home. */
static long next_with_home(long *p, size_t home)
{
    while ((partition_hash_of(++*p) & 15) != home)
        ;
    return *p;
}

/* The slot of n when it sits in slot i: address, tag and displacement. */
static uint64_t node_slot(const struct key_index *ki, const struct skiplist_node *n, size_t i)
{
    uint64_t hash = hash_of_node(n), distance = (i - hash) & (ki->cap - 1);
    if (!ki->tag_mask) return (uintptr_t) n;
    return (uintptr_t) n | (hash & ki->tag_mask) |
           (distance < KEY_INDEX_FAR ? distance : KEY_INDEX_FAR);
}

static void test_deletion_shifts_back_across_the_end(void)
{
    struct skiplist sl;
    struct key_index ki;
    struct skiplist_node *a, *b, *c, *d, *f;
    long p = 0;

    skiplist_init(&sl);
    key_index_init(&ki);
    /* Three keys at home 15 fill slots 15, 0 and 1; one at home 1 goes to
     * slot 2 and one at home 3 to slot 3. */
    a = add_partition(&sl, &ki, next_with_home(&p, 15));
    b = add_partition(&sl, &ki, next_with_home(&p, 15));
    c = add_partition(&sl, &ki, next_with_home(&p, 15));
    d = add_partition(&sl, &ki, next_with_home(&p, 1));
    f = add_partition(&sl, &ki, next_with_home(&p, 3));
    CHECK_INT_EQ(ki.cap, 16);
    CHECK(ki.slots[15] == node_slot(&ki, a, 15) && ki.slots[0] == node_slot(&ki, b, 0));
    CHECK(ki.slots[1] == node_slot(&ki, c, 1) && ki.slots[2] == node_slot(&ki, d, 2));
    CHECK(ki.slots[3] == node_slot(&ki, f, 3));
    /* Removing a: b and c move back across the end, d (home 1) moves to 1,
     * f stays at its home. */
    remove_node(&sl, &ki, a);
    CHECK(ki.slots[15] == node_slot(&ki, b, 15) && ki.slots[0] == node_slot(&ki, c, 0));
    CHECK(ki.slots[1] == node_slot(&ki, d, 1) && ki.slots[2] == 0);
    CHECK(ki.slots[3] == node_slot(&ki, f, 3));
    check_invariants(&ki);
    CHECK(all_found(&sl, &ki));
    /* Removing c (slot 0): d does not move before its home. */
    remove_node(&sl, &ki, c);
    CHECK(ki.slots[15] == node_slot(&ki, b, 15) && ki.slots[0] == 0);
    CHECK(ki.slots[1] == node_slot(&ki, d, 1));
    check_invariants(&ki);
    CHECK(all_found(&sl, &ki));
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

#define SAME_TAG 7

static void test_keys_with_one_tag_and_home_stay_apart(void)
{
    static unsigned char counts[1 << 20]; /* by (tag, home among 16 slots) */
    struct skiplist sl;
    struct key_index ki;
    struct skiplist_node *nodes[SAME_TAG];
    long keys[SAME_TAG], p;
    uint64_t bucket = 0;
    int n = 0;

    /* Find SAME_TAG partitions whose hashes share the top 16 bits and the
     * low 4 (~500,000 tried): one probe run in which every tag matches. */
    for (p = 0;; p++) {
        uint64_t h = partition_hash_of(p);
        bucket = (h >> 48) << 4 | (h & 15);
        if (++counts[bucket] == SAME_TAG) break;
    }
    for (long q = 0; q <= p; q++) {
        uint64_t h = partition_hash_of(q);
        if (((h >> 48) << 4 | (h & 15)) == bucket) keys[n++] = q;
    }
    CHECK_INT_EQ(n, SAME_TAG);
    skiplist_init(&sl);
    key_index_init(&ki);
    /* All but the last filed: one run of six; the last is a probe that
     * matches every tag of the run and no key. */
    for (int i = 0; i < SAME_TAG - 1; i++)
        nodes[i] = add_partition(&sl, &ki, keys[i]);
    CHECK_INT_EQ(ki.cap, 16);
    for (int i = 0; i < SAME_TAG; i++) {
        struct item *probe = item_of(keys[i], 0);
        struct row_key key;
        key_of(probe, 1, &key);
        CHECK(key_index_find(&ki, key_index_hash(&key), &key) ==
              (i < SAME_TAG - 1 ? nodes[i] : NULL));
        item_unref(probe);
    }
    /* Removed from the middle, the start and the end of the run. */
    remove_node(&sl, &ki, nodes[2]);
    remove_node(&sl, &ki, nodes[0]);
    remove_node(&sl, &ki, nodes[SAME_TAG - 2]);
    check_invariants(&ki);
    CHECK_INT_EQ(ki.count, SAME_TAG - 4);
    CHECK(all_found(&sl, &ki));
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

/* A run of 20 keys with one home: the displacement bits count up to
 * KEY_INDEX_FAR, and a deletion at the run's start shifts every entry back,
 * those beyond KEY_INDEX_FAR by their key's hash, each recording its new
 * distance. */
static void test_long_runs_saturate_the_displacement(void)
{
    enum { RUN_KEYS = 20 };
    struct skiplist sl;
    struct key_index ki;
    struct skiplist_node *nodes[RUN_KEYS];
    long p = 0;

    skiplist_init(&sl);
    key_index_init(&ki);
    key_index_reserve(&ki, 40); /* 64 slots: every key below lands at home 5 or after */
    CHECK_INT_EQ(ki.cap, 64);
    for (int i = 0; i < RUN_KEYS; i++) {
        while ((partition_hash_of(++p) & 63) != 5)
            ;
        nodes[i] = add_partition(&sl, &ki, p);
    }
    CHECK_INT_EQ(ki.slots[5 + KEY_INDEX_FAR + 2] & KEY_INDEX_DISP_BITS, KEY_INDEX_FAR);
    check_invariants(&ki);
    remove_node(&sl, &ki, nodes[0]);
    check_invariants(&ki);
    CHECK(ki.slots[5 + KEY_INDEX_FAR - 1] ==
          node_slot(&ki, nodes[KEY_INDEX_FAR], 5 + KEY_INDEX_FAR - 1));
    remove_node(&sl, &ki, nodes[7]);
    check_invariants(&ki);
    CHECK(all_found(&sl, &ki));
    key_index_untag(&ki); /* and the same without displacements */
    remove_node(&sl, &ki, nodes[1]);
    check_invariants(&ki);
    CHECK(all_found(&sl, &ki));
    CHECK_INT_EQ(ki.count, RUN_KEYS - 3);
    key_index_clear(&ki);
    skiplist_clear(&sl);
}

static void test_the_hash_tells_sort_keys_apart(void)
{
    struct item *a = item_of(1, 2), *b = item_of(1, 3);
    struct row_key ka, kb;

    key_of(a, 2, &ka);
    key_of(b, 2, &kb);
    CHECK(ka.hash == kb.hash); /* one partition */
    CHECK(key_index_hash(&ka) != key_index_hash(&kb));
    item_unref(a);
    item_unref(b);
}

int main(void)
{
    RUN(test_random_writes_agree_with_the_skiplist);
    RUN(test_untagged_slots_agree_with_the_skiplist);
    RUN(test_growth_keeps_every_key);
    RUN(test_reserve_makes_room_once);
    RUN(test_deletion_shifts_back_across_the_end);
    RUN(test_keys_with_one_tag_and_home_stay_apart);
    RUN(test_long_runs_saturate_the_displacement);
    RUN(test_the_hash_tells_sort_keys_apart);
    return check_report();
}
