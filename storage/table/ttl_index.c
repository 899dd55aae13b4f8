/*
 * ttl_index.c - a table's items ordered by expiry time; see ttl_index.h.
 *
 * A row's key is (expiry as a biased uint64 in the hash slot, the table key's
 * parts): row_key_compare orders by the hash slot first, so rows come in
 * expiry order, and the table key breaks ties deterministically and makes
 * every row unique. The caller holds db->lock: shared to read, exclusively
 * for changes.
 */
#include "storage/table/ttl_index.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/model/number.h"

#include <stdlib.h>
#include <string.h>

/* Clamp for expiries beyond int64 milliseconds (|seconds| >= 10^15): far
 * outside any window the sweep asks about, and still ordered. */
#define EXPIRY_LIMIT_MS (INT64_C(1) << 62)

/* Order-preserving map from int64 to uint64. */
static uint64_t bias(int64_t ms)
{
    return (uint64_t) ms ^ (UINT64_C(1) << 63);
}

static int64_t unbias(uint64_t h)
{
    return (int64_t) (h ^ (UINT64_C(1) << 63));
}

/* floor(n * 1000), clamped to +-EXPIRY_LIMIT_MS. n = 0.d1..dk * 10^exponent,
 * so n * 1000 has exponent + 3 integer digits. */
static int64_t floor_ms(const struct number *n)
{
    int integer_digits = n->exponent + 3;
    int64_t magnitude = 0;
    bool fraction = false;

    if (n->digit_count == 0) return 0;
    if (integer_digits > 18) return n->negative ? -EXPIRY_LIMIT_MS : EXPIRY_LIMIT_MS;
    for (int i = 0; i < integer_digits; i++)
        magnitude = magnitude * 10 + (i < n->digit_count ? n->digits[i] : 0);
    fraction = n->digit_count > (integer_digits > 0 ? integer_digits : 0);
    if (!n->negative) return magnitude;
    return -magnitude - (fraction ? 1 : 0);
}

bool ttl_index_expiry_ms(const struct item *item, const char *attr, size_t attr_len, int64_t *out)
{
    const struct value *v = item_get(item, attr, attr_len);
    struct number n;
    struct ddb_error err = {0};

    if (!v || v->type != VALUE_N) return false;
    if (number_parse(v->u.str.data, v->u.str.len, &n, &err) != 0) {
        ddb_error_clear(&err); /* stored numbers are canonical: not expected */
        return false;
    }
    *out = floor_ms(&n);
    return true;
}

/* The rows' list, empty: sought only by ranges of expiry times, it keeps no
 * partition directory (skiplist_without_directory). */
static void start_rows(struct ttl_index *ix)
{
    skiplist_init(&ix->rows);
    skiplist_without_directory(&ix->rows);
}

void ttl_index_init(struct ttl_index *ix)
{
    assert_lock_exclusive();
    memset(ix, 0, sizeof *ix);
}

void ttl_index_clear(struct ttl_index *ix)
{
    assert_lock_exclusive();
    skiplist_clear(&ix->rows); /* leaves it zeroed: no head until the next row */
}

/* The row key of an item at table key parts `table_key` with expiry ms. */
static void row_key_of(const struct row_key *table_key, int64_t ms, struct row_key *out)
{
    *out = *table_key;
    out->hash = bias(ms);
}

void ttl_index_apply_write(struct ttl_index *ix, const char *attr, size_t attr_len,
                           const struct row_key *old_key, const struct item *old_item,
                           const struct row_key *new_key, struct item *new_item)
{
    assert_table_writing();
    int64_t old_ms = 0, new_ms = 0;
    bool had = old_item && ttl_index_expiry_ms(old_item, attr, attr_len, &old_ms);
    bool has = new_item && ttl_index_expiry_ms(new_item, attr, attr_len, &new_ms);
    struct row_key k;

    /* The skiplist's head is made with the first row, so a table whose TTL
     * was never enabled, or was loaded with it enabled, starts without one. */
    if (!ix->rows.head) start_rows(ix);
    if (had) {
        struct skiplist_node *node;
        row_key_of(old_key, old_ms, &k);
        node = skiplist_find(&ix->rows, &k);
        if (node && has && old_ms == new_ms) {
            /* Same place: the row now holds the new item (its parts are the new item's). */
            row_key_of(new_key, new_ms, &k);
            skiplist_replace(node, &k, item_ref(new_item));
            return;
        }
        if (node) skiplist_remove(&ix->rows, &k);
    }
    if (has) {
        row_key_of(new_key, new_ms, &k);
        skiplist_insert(&ix->rows, &k, item_ref(new_item));
    }
}

struct skiplist_node *ttl_index_seek(const struct ttl_index *ix, int64_t from_ms)
{
    assert_lock_held();
    struct row_key probe = {.hash = bias(from_ms), .part_count = 0};
    if (!ix->rows.head) return NULL;
    return skiplist_lower_bound(&ix->rows, &probe, KEY_BIAS_LOW);
}

int64_t ttl_index_row_expiry_ms(const struct skiplist_node *row)
{
    assert_lock_held();
    return unbias(row->hash);
}

void ttl_index_rebuild(struct ttl_index *ix, const struct skiplist *items, const char *attr,
                       size_t attr_len)
{
    assert_lock_exclusive();
    ttl_index_clear(ix);
    start_rows(ix);
    for (struct skiplist_node *n = skiplist_first(items); n; n = skiplist_next(n)) {
        int64_t ms;
        struct row_key key, k;
        if (!ttl_index_expiry_ms(n->item, attr, attr_len, &ms)) continue;
        skiplist_node_key(n, &key);
        row_key_of(&key, ms, &k);
        skiplist_insert(&ix->rows, &k, item_ref(n->item));
    }
}

void ttl_index_load(struct ttl_index *ix, const char *attr, size_t attr_len,
                    const struct row_key *keys, struct item *const *items, size_t count,
                    bool in_order)
{
    assert_lock_exclusive();
    struct skiplist_row *rows = xmalloc(sizeof *rows * (count ? count : 1));
    size_t n = 0;

    assert(!ix->rows.head || ix->rows.count == 0);
    if (!ix->rows.head) start_rows(ix);
    for (size_t i = 0; i < count; i++) {
        int64_t ms;
        if (!ttl_index_expiry_ms(items[i], attr, attr_len, &ms)) continue;
        row_key_of(&keys[i], ms, &rows[n].key);
        rows[n++].item = items[i];
    }
    skiplist_load(&ix->rows, rows, n, in_order);
    free(rows);
}
