/*
 * test_skiplist.c - the ordered map against a sorted-array model, and key hashing.
 */
#include "storage/model/key.h"
#include "storage/table/skiplist.h"
#include "storage/tests/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* All rows share one hash so that order is the numeric order of k. */
static void key_of(struct item *item, struct row_key *key)
{
    memset(key, 0, sizeof *key);
    key->hash = 42;
    key->part_count = 1;
    CHECK(item_key_part(item, "k", 1, &key->parts[0]));
}

/* The number k of a node's key, read back from its packed bytes. */
static long node_k(const struct skiplist_node *nd)
{
    struct row_key key;
    char text[NUMBER_TEXT_MAX];

    skiplist_node_key(nd, &key);
    CHECK(enc_number_text(key.parts[0].data, key.parts[0].len, text) > 0);
    return strtol(text, NULL, 10);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *) a, y = *(const long *) b;
    return x < y ? -1 : x > y;
}

/* Every level links, in order, exactly the bottom level's nodes that reach it. */
static void check_levels(const struct skiplist *sl)
{
    for (int i = 1; i < SKIPLIST_MAX_LEVEL; i++) {
        const struct skiplist_node *at = sl->head->next[i];
        for (struct skiplist_node *nd = skiplist_first(sl); nd; nd = skiplist_next(nd)) {
            if (nd->level <= i) continue;
            CHECK(at == nd);
            if (at != nd) return;
            at = at->next[i];
        }
        CHECK(at == NULL);
        CHECK(i < sl->level || sl->head->next[i] == NULL);
    }
}

/* Random inserts and removes, a removal by key or (by_node) of the node
 * skiplist_find gives, against a sorted array. */
static void random_inserts_and_removes(bool by_node)
{
    struct skiplist sl;
    long model[600];
    size_t model_count = 0;
    unsigned seed = 7;

    skiplist_init(&sl);
    for (int step = 0; step < 3000; step++) {
        long k = (long) (rand_r(&seed) % 400) - 200;
        struct item *probe_item = item_with_number(k);
        struct row_key key;
        bool present = false;
        size_t at = 0;
        key_of(probe_item, &key);
        for (at = 0; at < model_count; at++) {
            if (model[at] == k) {
                present = true;
                break;
            }
        }
        if (present && by_node) {
            struct skiplist_node *nd = skiplist_find(&sl, &key);
            CHECK(nd != NULL);
            skiplist_remove_node(&sl, nd);
            model[at] = model[--model_count];
            item_unref(probe_item);
        } else if (present) {
            CHECK(skiplist_remove(&sl, &key));
            model[at] = model[--model_count];
            item_unref(probe_item);
        } else {
            skiplist_insert(&sl, &key, probe_item);
            model[model_count++] = k;
        }
    }
    qsort(model, model_count, sizeof model[0], cmp_long);
    CHECK_INT_EQ(sl.count, model_count);
    {
        size_t i = 0;
        for (struct skiplist_node *nd = skiplist_first(&sl); nd; nd = skiplist_next(nd), i++)
            CHECK_INT_EQ(node_k(nd), model[i]);
        CHECK_INT_EQ(i, model_count);
        for (struct skiplist_node *nd = skiplist_last(&sl); nd; nd = skiplist_prev(nd))
            CHECK_INT_EQ(node_k(nd), model[--i]);
    }
    check_levels(&sl);
    skiplist_clear(&sl);
}

static void test_random_inserts_and_removes_match_a_sorted_model(void)
{
    random_inserts_and_removes(false);
}

/* skiplist_remove_node finds a node's predecessors by walking back, from the
 * head for the first nodes, or by a search for tall nodes: all three run. */
static void test_removing_a_found_node_keeps_every_level(void)
{
    random_inserts_and_removes(true);
}

/* The first node a walk from the head finds that is not before the probe. */
static struct skiplist_node *walk_bound(const struct skiplist *sl, const struct row_key *probe,
                                        enum key_bias bias, bool strict)
{
    struct skiplist_node *n = skiplist_first(sl);
    for (; n; n = skiplist_next(n)) {
        int c = skiplist_node_compare(n, probe, bias);
        if (strict ? c >= 0 : c > 0) break;
    }
    return n;
}

/* The bounds' *before is the node just before the bound: the last node when
 * the bound is past the end, none when the bound is the first node. */
static void check_before(const struct skiplist *sl, const struct row_key *probe, enum key_bias bias)
{
    for (int strict = 0; strict < 2; strict++) {
        struct skiplist_node *before = (struct skiplist_node *) sl, *bound;
        bound = strict ? skiplist_lower_bound_before(sl, probe, bias, &before)
                       : skiplist_upper_bound_before(sl, probe, bias, &before);
        CHECK(bound == walk_bound(sl, probe, bias, strict));
        CHECK(before == (bound ? skiplist_prev(bound) : skiplist_last(sl)));
    }
}

static void test_bounds_find_the_first_key_at_or_after_a_probe(void)
{
    struct skiplist sl;
    struct row_key key;
    struct item *probe;
    struct skiplist_node *nd;

    skiplist_init(&sl);
    for (long k = 0; k < 100; k += 10) {
        struct item *it = item_with_number(k);
        key_of(it, &key);
        skiplist_insert(&sl, &key, it);
    }
    probe = item_with_number(35);
    key_of(probe, &key);
    nd = skiplist_lower_bound(&sl, &key, KEY_BIAS_LOW);
    CHECK_INT_EQ(node_k(nd), 40);
    item_unref(probe);
    probe = item_with_number(40);
    key_of(probe, &key);
    CHECK_INT_EQ(node_k(skiplist_lower_bound(&sl, &key, KEY_BIAS_LOW)), 40);
    CHECK_INT_EQ(node_k(skiplist_upper_bound(&sl, &key, KEY_BIAS_LOW)), 50);
    CHECK(skiplist_find(&sl, &key) != NULL);
    item_unref(probe);
    /* A probe with only the hash selects the whole partition. */
    key.part_count = 0;
    CHECK_INT_EQ(node_k(skiplist_lower_bound(&sl, &key, KEY_BIAS_LOW)), 0);
    CHECK(skiplist_upper_bound(&sl, &key, KEY_BIAS_HIGH) == NULL);
    /* Without a directory (one key part) the row before a bound comes from the descent. */
    CHECK(!sl.dir_on);
    for (long k = -5; k < 105; k += 5) {
        probe = item_with_number(k);
        key_of(probe, &key);
        check_before(&sl, &key, KEY_BIAS_LOW);
        item_unref(probe);
    }
    skiplist_clear(&sl);
}

/* An item of partition p (attribute "p") and sort key k (attribute "k"). */
static struct item *item_with_partition(long p, long k)
{
    struct value m, v;
    char text[32];
    value_init_map(&m);
    snprintf(text, sizeof text, "%ld", p);
    value_init_number_text(&v, text, strlen(text));
    value_map_set(&m, "p", 1, &v);
    snprintf(text, sizeof text, "%ld", k);
    value_init_number_text(&v, text, strlen(text));
    value_map_set(&m, "k", 1, &v);
    return item_new(&m);
}

/* Partition p's hash: odd partitions spread, even ones all in the directory's
 * first slot (low bits 0), so that lookups probe past each other and removals
 * shift runs of entries. */
static uint64_t partition_hash(long p)
{
    return p % 2 ? (uint64_t) p * 0x9e3779b97f4a7c15ULL : (uint64_t) (p + 1) << 40;
}

static void two_part_key(struct item *item, long p, struct row_key *key)
{
    memset(key, 0, sizeof *key);
    key->hash = partition_hash(p);
    key->part_count = 2;
    CHECK(item_key_part(item, "p", 1, &key->parts[0]));
    CHECK(item_key_part(item, "k", 1, &key->parts[1]));
}

/* Rows with a sort key keep the partition directory: after random inserts and
 * removals (by key and by node), every bound and find, within a partition,
 * for a whole partition and for an absent one, is the node a walk finds. */
static void test_partition_directory_bounds_match_a_walk(void)
{
    struct skiplist sl;
    unsigned seed = 11;

    skiplist_init(&sl);
    for (int step = 0; step < 4000; step++) {
        long p = (long) (rand_r(&seed) % 40), k = (long) (rand_r(&seed) % 30);
        struct item *it = item_with_partition(p, k);
        struct row_key key;
        struct skiplist_node *nd;
        two_part_key(it, p, &key);
        nd = skiplist_find(&sl, &key);
        {
            struct skiplist_node *w = walk_bound(&sl, &key, KEY_BIAS_LOW, true);
            CHECK(nd == (w && skiplist_node_compare(w, &key, KEY_BIAS_LOW) == 0 ? w : NULL));
        }
        if (nd && step % 3 == 0) {
            skiplist_remove_node(&sl, nd);
            item_unref(it);
        } else if (nd) {
            CHECK(skiplist_remove(&sl, &key));
            item_unref(it);
        } else {
            skiplist_insert(&sl, &key, it);
        }
        CHECK(skiplist_directory_is_whole(&sl));
        if (step % 50 != 0) continue;
        for (long q = -1; q <= 41; q++) {
            for (long j = -1; j <= 31; j += 4) {
                struct item *probe = item_with_partition(q, j);
                struct row_key pk;
                two_part_key(probe, q, &pk);
                for (int whole = 0; whole < 2; whole++) {
                    if (whole) pk.part_count = 1; /* the partition only */
                    for (int b = 0; b < 2; b++) {
                        enum key_bias bias = b ? KEY_BIAS_HIGH : KEY_BIAS_LOW;
                        CHECK(skiplist_lower_bound(&sl, &pk, bias) ==
                              walk_bound(&sl, &pk, bias, true));
                        CHECK(skiplist_upper_bound(&sl, &pk, bias) ==
                              walk_bound(&sl, &pk, bias, false));
                        check_before(&sl, &pk, bias);
                    }
                }
                item_unref(probe);
            }
        }
    }
    check_levels(&sl);
    CHECK(sl.dir_on);
    skiplist_clear(&sl);
}

static void test_equal_numbers_hash_equally_and_types_hash_apart(void)
{
    struct value a, b, c;
    struct key_part pa, pb, pc;
    struct key_numbers nums;
    value_init_number_text(&a, "1", 1);
    value_init_number_text(&b, "1", 1);
    value_init_string(&c, "1", 1);
    key_part_of(&a, nums.n[0], &pa);
    key_part_of(&b, nums.n[1], &pb);
    key_part_of(&c, nums.n[2], &pc);
    CHECK(key_hash(&pa, 1) == key_hash(&pb, 1));
    CHECK(key_hash(&pa, 1) != key_hash(&pc, 1));
    value_clear(&a);
    value_clear(&b);
    value_clear(&c);
}

/* A list built by appending sorted rows is the list inserting them makes:
 * same order both ways, same levels, and it keeps working as a skiplist. */
static void test_appending_sorted_rows_builds_the_list_inserts_make(void)
{
    struct skiplist built, inserted;
    struct skiplist_builder b;
    struct skiplist_node *x, *y;
    size_t n = 0;

    skiplist_init(&built);
    skiplist_init(&inserted);
    skiplist_builder_begin(&b, &built);
    for (long k = -300; k < 700; k += 2) {
        struct item *a = item_with_number(k), *c = item_with_number(k);
        struct row_key key;
        key_of(a, &key);
        skiplist_builder_append(&b, &key, a);
        key_of(c, &key);
        skiplist_insert(&inserted, &key, c);
    }
    CHECK(built.count == 500);
    CHECK(built.level == inserted.level);
    for (x = skiplist_first(&built), y = skiplist_first(&inserted); x && y;
         x = skiplist_next(x), y = skiplist_next(y), n++) {
        CHECK(x->level == y->level);
        struct row_key xk, yk;
        skiplist_node_key(x, &xk);
        skiplist_node_key(y, &yk);
        CHECK(key_part_compare(&xk.parts[0], &yk.parts[0]) == 0);
        CHECK(skiplist_prev(x) == NULL ||
              skiplist_node_compare(skiplist_prev(x), &xk, KEY_BIAS_LOW) < 0);
    }
    CHECK(!x && !y && n == 500);
    CHECK(skiplist_last(&built) && skiplist_prev(skiplist_first(&built)) == NULL);
    /* Finds, inserts between rows and appends after a new begin all still work. */
    for (long k = -301; k < 701; k++) {
        struct item *it = item_with_number(k);
        struct row_key key;
        key_of(it, &key);
        CHECK((skiplist_find(&built, &key) != NULL) == (k % 2 == 0 && k < 700));
        if (k % 2 != 0 && k < 699)
            skiplist_insert(&built, &key, it);
        else
            item_unref(it);
    }
    skiplist_builder_begin(&b, &built);
    for (long k = 1000; k < 1010; k++) {
        struct item *it = item_with_number(k);
        struct row_key key;
        key_of(it, &key);
        skiplist_builder_append(&b, &key, it);
    }
    n = 0;
    for (x = skiplist_first(&built); x; x = skiplist_next(x), n++) {
        struct row_key key;
        skiplist_node_key(x, &key);
        if (skiplist_next(x)) {
            CHECK(skiplist_node_compare(skiplist_next(x), &key, KEY_BIAS_LOW) > 0);
            CHECK(skiplist_prev(skiplist_next(x)) == x);
        }
        CHECK(skiplist_find(&built, &key) == x);
    }
    CHECK(n == built.count && n == 500 + 500 + 10);
    skiplist_clear(&built);
    skiplist_clear(&inserted);
}

/* Rows in any order come out sorted, each findable, the items referenced. */
static void test_loading_unsorted_rows_sorts_them_once(void)
{
    struct skiplist sl;
    struct skiplist_row rows[300];
    struct item *items[300];
    unsigned seed = 11;
    long expect = -150;

    for (int i = 0; i < 300; i++) {
        items[i] = item_with_number(i - 150);
        key_of(items[i], &rows[i].key);
        rows[i].item = items[i];
    }
    for (int i = 299; i > 0; i--) {
        int j = (int) (rand_r(&seed) % (unsigned) (i + 1));
        struct skiplist_row r = rows[i];
        rows[i] = rows[j];
        rows[j] = r;
    }
    skiplist_init(&sl);
    skiplist_load(&sl, rows, 300, false);
    CHECK(sl.count == 300);
    for (struct skiplist_node *n = skiplist_first(&sl); n; n = skiplist_next(n), expect++) {
        struct row_key key;
        CHECK(n->item == items[expect + 150]);
        skiplist_node_key(n, &key);
        CHECK(skiplist_find(&sl, &key) == n);
    }
    CHECK(expect == 150);
    skiplist_clear(&sl);
    for (int i = 0; i < 300; i++)
        item_unref(items[i]); /* the list held its own references */
}

/* A list's nodes come from its pool (node_pool.h): rows inserted in their
 * order lie side by side, so a walk over them reads neighbouring memory. */
static void test_rows_inserted_in_order_have_neighbouring_nodes(void)
{
    struct skiplist sl;
    const struct skiplist_node *prev = NULL;
    int near = 0, rows = 0;

    skiplist_init(&sl);
    for (long k = 0; k < 2000; k++) {
        struct item *it = item_with_number(k);
        struct row_key key;
        key_of(it, &key);
        skiplist_insert(&sl, &key, it);
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
    RUN(test_random_inserts_and_removes_match_a_sorted_model);
    RUN(test_removing_a_found_node_keeps_every_level);
    RUN(test_bounds_find_the_first_key_at_or_after_a_probe);
    RUN(test_partition_directory_bounds_match_a_walk);
    RUN(test_rows_inserted_in_order_have_neighbouring_nodes);
    RUN(test_equal_numbers_hash_equally_and_types_hash_apart);
    RUN(test_appending_sorted_rows_builds_the_list_inserts_make);
    RUN(test_loading_unsorted_rows_sorts_them_once);
    return check_report();
}
