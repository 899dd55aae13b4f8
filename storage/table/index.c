/*
 * index.c - secondary index rows, their maintenance and their backfill; see index.h.
 */
#include "storage/table/index.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void index_init(struct table_index *idx, const struct index_def *def, const struct table_def *table,
                uint64_t id)
{
    assert_lock_exclusive();
    memset(idx, 0, sizeof *idx);
    idx->def = def;
    idx->table_key = &table->key;
    idx->status = INDEX_ACTIVE;
    idx->id = id;
    for (size_t i = 0; i < def->key.hash_count; i++) {
        bool found = table_def_attr_type(table, def->key.hash_names[i], &idx->hash_types[i]);
        assert(found); /* api/ checked that every key attribute is defined */
        (void) found;
    }
    for (size_t i = 0; i < def->key.range_count; i++) {
        bool found = table_def_attr_type(table, def->key.range_names[i], &idx->range_types[i]);
        assert(found);
        (void) found;
    }
    skiplist_init(&idx->rows);
}

void index_clear(struct table_index *idx)
{
    assert_lock_exclusive();
    skiplist_clear(&idx->rows);
    item_unref(idx->backfill_cursor);
    memset(idx, 0, sizeof *idx);
}

/* An index key part as DynamoDB accepts it: the declared type, not empty, and
 * within the key size limits (ServiceQuotas.html: 2048 bytes for a partition
 * key, 1024 for a sort key; numbers are not limited by bytes). */
static const struct value *key_part(const struct value *attrs, const char *name,
                                    enum value_type type, size_t max_bytes)
{
    const struct value *v = value_map_get(attrs, name, strlen(name));
    if (!v || v->type != type) return NULL;
    if (type != VALUE_N && (v->u.str.len == 0 || v->u.str.len > max_bytes)) return NULL;
    return v;
}

bool index_row_key(const struct table_index *idx, const struct value *attrs,
                   struct key_numbers *nums, struct row_key *out)
{
    const struct key_schema *k = &idx->def->key, *tk = idx->table_key;
    const struct value *v;
    size_t n = 0;

    for (size_t i = 0; i < k->hash_count; i++, n++) {
        v = key_part(attrs, k->hash_names[i], idx->hash_types[i], DDB_MAX_PARTITION_KEY_BYTES);
        if (!v) return false;
        key_part_of(v, nums->n[n], &out->parts[n]);
    }
    for (size_t i = 0; i < k->range_count; i++, n++) {
        v = key_part(attrs, k->range_names[i], idx->range_types[i], DDB_MAX_SORT_KEY_BYTES);
        if (!v) return false;
        key_part_of(v, nums->n[n], &out->parts[n]);
    }
    v = value_map_get(attrs, tk->hash_names[0], strlen(tk->hash_names[0]));
    key_part_of(v, nums->n[n], &out->parts[n]);
    n++;
    if (tk->range_count) {
        v = value_map_get(attrs, tk->range_names[0], strlen(tk->range_names[0]));
        key_part_of(v, nums->n[n], &out->parts[n]);
        n++;
    }
    out->part_count = n;
    out->hash = key_hash(out->parts, k->hash_count);
    return true;
}

/* A part read in an item as index_row_key's key_part accepts it. */
static bool part_fits(const struct key_part *p, enum value_type type, size_t max_bytes)
{
    return p->type == type && (type == VALUE_N || (p->len > 0 && p->len <= max_bytes));
}

bool index_item_key(const struct table_index *idx, const struct item *item, struct row_key *out)
{
    const struct key_schema *k = &idx->def->key, *tk = idx->table_key;
    const char *names[ROW_KEY_MAX_PARTS];
    size_t n = 0;

    for (size_t i = 0; i < k->hash_count; i++)
        names[n++] = k->hash_names[i];
    for (size_t i = 0; i < k->range_count; i++)
        names[n++] = k->range_names[i];
    names[n++] = tk->hash_names[0];
    if (tk->range_count) names[n++] = tk->range_names[0];
    if (!item_key_parts(item, names, n, out->parts)) return false;
    for (size_t i = 0; i < k->hash_count; i++) {
        if (!part_fits(&out->parts[i], idx->hash_types[i], DDB_MAX_PARTITION_KEY_BYTES))
            return false;
    }
    for (size_t i = 0; i < k->range_count; i++) {
        if (!part_fits(&out->parts[k->hash_count + i], idx->range_types[i], DDB_MAX_SORT_KEY_BYTES))
            return false;
    }
    out->part_count = n;
    out->hash = key_hash(out->parts, k->hash_count);
    return true;
}

static bool name_is(const char *s, const char *name, size_t name_len)
{
    return strlen(s) == name_len && memcmp(s, name, name_len) == 0;
}

bool index_projects(const struct table_index *idx, const char *name, size_t name_len)
{
    const struct projection *p = &idx->def->projection;
    const struct key_schema *keys[2] = {&idx->def->key, idx->table_key};

    if (p->type == PROJECTION_ALL) return true;
    for (size_t s = 0; s < 2; s++) {
        for (size_t i = 0; i < keys[s]->hash_count; i++) {
            if (name_is(keys[s]->hash_names[i], name, name_len)) return true;
        }
        for (size_t i = 0; i < keys[s]->range_count; i++) {
            if (name_is(keys[s]->range_names[i], name, name_len)) return true;
        }
    }
    if (p->type == PROJECTION_INCLUDE) {
        for (size_t i = 0; i < p->non_key_count; i++) {
            if (p->non_key_lens[i] == name_len && memcmp(p->non_key_attrs[i], name, name_len) == 0)
                return true;
        }
    }
    return false;
}

size_t index_projected_size(const struct table_index *idx, const struct item *item)
{
    size_t size = 0;
    struct enc_cursor c;
    struct enc_attr at;

    if (idx->def->projection.type == PROJECTION_ALL) return item->size_bytes;
    /* Read in place (a Query of the index pays this for every row it walks). */
    enc_cursor_init(&c, item->encoded, item->encoded_len, item_names());
    while (enc_cursor_next(&c, &at)) {
        struct enc_value v = {at.type, at.value, at.value_len};
        if (index_projects(idx, at.name, at.name_len))
            size += at.name_len + enc_value_size_bytes(&v);
    }
    return size;
}

/* The table row key of an item (the cursor), as table_item_key computes it. */
static void base_row_key(const struct key_schema *tk, const struct item *item, struct row_key *out)
{
    const char *names[2] = {tk->hash_names[0], tk->range_count ? tk->range_names[0] : NULL};
    bool found;

    out->part_count = 1 + tk->range_count;
    found = item_key_parts(item, names, out->part_count, out->parts);
    assert(found); /* a stored item has its table's key */
    (void) found;
    out->hash = key_hash(out->parts, 1);
}

/* True when the backfill has already copied the table row table_key (or is not running). */
static bool backfill_covers(const struct table_index *idx, const struct row_key *table_key)
{
    struct row_key cursor;
    if (!idx->backfilling) return true;
    if (!idx->backfill_cursor) return false;
    base_row_key(idx->table_key, idx->backfill_cursor, &cursor);
    return row_key_compare(table_key, &cursor, KEY_BIAS_LOW) <= 0;
}

void index_apply_write(struct table_index *idx, const struct row_key *table_key,
                       struct item *old_item, struct item *new_item)
{
    assert_table_writing();
    struct row_key old_key, new_key;
    bool had, has;

    if (!backfill_covers(idx, table_key)) return;
    had = old_item && index_item_key(idx, old_item, &old_key);
    has = new_item && index_item_key(idx, new_item, &new_key);
    if (had) {
        idx->size_bytes -= (int64_t) index_projected_size(idx, old_item);
        if (has && row_key_compare(&old_key, &new_key, KEY_BIAS_LOW) == 0) {
            struct skiplist_node *n = skiplist_find(&idx->rows, &old_key);
            assert(n);
            skiplist_replace(n, &new_key, item_ref(new_item));
            idx->size_bytes += (int64_t) index_projected_size(idx, new_item);
            return;
        }
        skiplist_remove(&idx->rows, &old_key);
    }
    if (has) {
        skiplist_insert(&idx->rows, &new_key, item_ref(new_item));
        idx->size_bytes += (int64_t) index_projected_size(idx, new_item);
    }
}

void index_begin_backfill(struct table_index *idx)
{
    assert_lock_exclusive();
    assert(idx->rows.count == 0);
    idx->status = INDEX_CREATING;
    idx->backfilling = true;
    idx->report_backfilling = true;
    item_unref(idx->backfill_cursor);
    idx->backfill_cursor = NULL;
}

bool index_backfill_step(struct table_index *idx, const struct skiplist *items, size_t max_rows)
{
    assert_lock_exclusive();
    struct skiplist_node *node;
    size_t done = 0;

    if (!idx->backfilling) return false;
    if (idx->backfill_cursor) {
        struct row_key cursor;
        base_row_key(idx->table_key, idx->backfill_cursor, &cursor);
        node = skiplist_upper_bound(items, &cursor, KEY_BIAS_LOW);
    } else {
        node = skiplist_first(items);
    }
    for (; node && done < max_rows; node = skiplist_next(node), done++) {
        struct row_key key;
        if (index_item_key(idx, node->item, &key)) {
            skiplist_insert(&idx->rows, &key, item_ref(node->item));
            idx->size_bytes += (int64_t) index_projected_size(idx, node->item);
        }
        item_unref(idx->backfill_cursor);
        idx->backfill_cursor = item_ref(node->item);
    }
    if (node) return true;
    /* Every row is in: the index answers reads from now on. */
    item_unref(idx->backfill_cursor);
    idx->backfill_cursor = NULL;
    idx->backfilling = false;
    idx->report_backfilling = false;
    idx->status = INDEX_ACTIVE;
    return false;
}

enum index_status index_status_at(const struct table_index *idx, int64_t now_ms)
{
    assert_lock_held();
    if (idx->status != INDEX_ACTIVE) return idx->status;
    if (idx->transient_until_ms && now_ms < idx->transient_until_ms) return idx->transient;
    return INDEX_ACTIVE;
}

void index_load(struct table_index *idx, struct item *const *items, size_t count, bool in_order)
{
    assert_lock_exclusive();
    struct skiplist_row *rows;
    size_t n = 0;

    assert(idx->rows.count == 0 && !idx->backfilling);
    rows = xmalloc(sizeof *rows * (count ? count : 1));
    for (size_t i = 0; i < count; i++)
        if (index_item_key(idx, items[i], &rows[n].key)) {
            rows[n].item = items[i];
            idx->size_bytes += (int64_t) index_projected_size(idx, items[i]);
            n++;
        }
    /* Index keys end with the table's key, so no two rows compare equal. */
    skiplist_load(&idx->rows, rows, n, in_order);
    free(rows);
}
