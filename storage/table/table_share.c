/*
 * table_share.c - a table's rows shared until first write; see table_share.h.
 */
#include "storage/table/table_share.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/table/table.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The structures, as the table that was saved had built them. A holder's
 * own fields are copies of these (same heads, same slots): equal as long
 * as nothing changes them, which is what table_unshare() ensures. */
struct table_share {
    atomic_size_t refs;
    struct skiplist items;
    struct key_index keys;
    struct skiplist *index_rows; /* the table's indexes, in its order */
    int64_t *index_bytes;        /* and their size_bytes */
    size_t index_count;
    int64_t size_bytes;
    struct skiplist ttl_rows; /* no head when TTL was off */
    struct collection_sizes collections;
};

bool table_can_share(const struct table *t)
{
    assert_lock_exclusive();
    if (t->vector_count) return false;
    for (size_t i = 0; i < t->index_count; i++)
        if (t->indexes[i].backfilling) return false;
    return true;
}

struct table_share *table_share(struct table *t)
{
    assert_lock_exclusive();
    struct table_share *s = t->shared;

    assert(table_can_share(t));
    if (s) {
        atomic_fetch_add(&s->refs, 1);
        return s;
    }
    s = xcalloc(1, sizeof *s);
    atomic_init(&s->refs, 2); /* t's and the caller's */
    s->items = t->items;
    s->keys = t->item_keys;
    s->index_count = t->index_count;
    s->index_rows = xcalloc(t->index_count ? t->index_count : 1, sizeof *s->index_rows);
    s->index_bytes = xcalloc(t->index_count ? t->index_count : 1, sizeof *s->index_bytes);
    for (size_t i = 0; i < t->index_count; i++) {
        s->index_rows[i] = t->indexes[i].rows;
        s->index_bytes[i] = t->indexes[i].size_bytes;
    }
    s->size_bytes = t->size_bytes;
    s->ttl_rows = t->ttl_index.rows;
    s->collections = t->collections;
    t->shared = s;
    return s;
}

/* Points t's row structures at s's. */
static void alias(struct table *t, const struct table_share *s)
{
    t->items = s->items;
    t->item_keys = s->keys;
    for (size_t i = 0; i < s->index_count; i++)
        t->indexes[i].rows = s->index_rows[i];
    t->ttl_index.rows = s->ttl_rows;
    t->collections = s->collections;
}

/* Forgets t's row structures without freeing them (they are s's). */
static void forget(struct table *t)
{
    memset(&t->items, 0, sizeof t->items);
    memset(&t->item_keys, 0, sizeof t->item_keys);
    for (size_t i = 0; i < t->index_count; i++)
        memset(&t->indexes[i].rows, 0, sizeof t->indexes[i].rows);
    memset(&t->ttl_index.rows, 0, sizeof t->ttl_index.rows);
    memset(&t->collections, 0, sizeof t->collections);
}

void table_adopt_share(struct table *t, struct table_share *s)
{
    assert_lock_exclusive();
    assert(!t->shared && !t->items.count && t->index_count == s->index_count);
    /* The empty structures the decoded table was given. */
    for (size_t i = 0; i < t->index_count; i++)
        skiplist_clear(&t->indexes[i].rows);
    ttl_index_clear(&t->ttl_index);
    collection_sizes_clear(&t->collections);
    key_index_clear(&t->item_keys);
    skiplist_clear(&t->items);
    atomic_fetch_add(&s->refs, 1);
    alias(t, s);
    t->size_bytes = s->size_bytes;
    for (size_t i = 0; i < s->index_count; i++)
        t->indexes[i].size_bytes = s->index_bytes[i];
    t->shared = s;
}

/* A copy of from's rows in to (their item references taken), each filed
 * in keys when keys is not NULL. No comparison, no key extraction: the
 * nodes are copied in from's order with their levels and keys. */
static void copy_rows(const struct skiplist *from, struct skiplist *to, struct key_index *keys)
{
    struct skiplist_builder b;

    if (!from->head) { /* a TTL index while TTL is off */
        memset(to, 0, sizeof *to);
        return;
    }
    skiplist_init(to);
    to->rng = from->rng;
    if (from->dir_decided && !from->dir_on) skiplist_without_directory(to);
    if (keys) key_index_reserve(keys, from->count);
    skiplist_builder_begin(&b, to);
    for (struct skiplist_node *n = skiplist_first(from); n; n = skiplist_next(n)) {
        struct skiplist_node *c = skiplist_builder_append_copy(&b, n);
        if (keys) {
            struct row_key key;
            skiplist_node_key(c, &key);
            key_index_add(keys, key_index_hash(&key), c);
        }
    }
}

void table_unshare(struct table *t)
{
    assert_table_writing();
    struct table_share *s = t->shared;

    if (!s) return;
    t->shared = NULL;
    if (atomic_load(&s->refs) == 1) {
        /* No one else holds it (a new holder needs the catalog lock
         * exclusively, which a writer of t excludes; a holder lets go only
         * after it copied): t's fields are the share's structures; keep them. */
        free(s->index_rows);
        free(s->index_bytes);
        free(s);
        return;
    }
    key_index_init(&t->item_keys);
    copy_rows(&s->items, &t->items, &t->item_keys);
    for (size_t i = 0; i < s->index_count; i++)
        copy_rows(&s->index_rows[i], &t->indexes[i].rows, NULL);
    copy_rows(&s->ttl_rows, &t->ttl_index.rows, NULL);
    collection_sizes_copy(&t->collections, &s->collections);
    table_share_release(s);
}

void table_detach_share(struct table *t)
{
    assert_table_writing();
    struct table_share *s = t->shared;

    if (!s) return;
    forget(t);
    t->shared = NULL;
    table_share_release(s);
}

void table_share_release(struct table_share *s)
{
    assert_table_writing();
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    for (size_t i = 0; i < s->index_count; i++)
        skiplist_clear(&s->index_rows[i]);
    free(s->index_rows);
    free(s->index_bytes);
    skiplist_clear(&s->ttl_rows);
    collection_sizes_clear(&s->collections);
    key_index_clear(&s->keys);
    skiplist_clear(&s->items);
    free(s);
}

size_t table_share_item_count(const struct table_share *s)
{
    assert_lock_exclusive();
    return s->items.count;
}
