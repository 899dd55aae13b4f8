/*
 * export_filter.c - what a filtered export keeps (export_filter.h).
 *
 * Selection runs on the snapshot the export took, after the engine lock is
 * released: an item is kept when its key satisfies the key condition and its
 * attributes the filter expression. A kept item is replaced by its
 * projection when there is one (as Query's projection: only the attributes
 * named, the key ones included only when named); an incremental export's
 * change keeps its Keys and has both its images projected.
 */
#include "storage/control/export_filter.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <stdlib.h>
#include <string.h>

int export_filter_check(const struct table *t, const struct export_request *r,
                        struct key_condition *kc, struct ddb_error *err)
{
    assert_lock_held();
    const struct key_schema *k = &t->def.key;

    memset(kc, 0, sizeof *kc);
    value_init_null(&kc->lo);
    value_init_null(&kc->hi);
    if (r->key_condition && expr_key_condition_resolve(r->key_condition, k, t->def.attr_defs,
                                                       t->def.attr_def_count, kc, err) != 0)
        return -1;
    if (table_check_key_paths(t, r->projection, err) != 0) goto fail;
    /* With a key condition, the filter may not name a key attribute (Query's
     * rule and text). */
    for (size_t i = 0; r->key_condition && r->filter && i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        if (expr_references(r->filter, name, strlen(name))) {
            ddb_error_set(err, DDB_VALIDATION,
                          "Filter Expression can only contain non-primary key attributes: Primary "
                          "key attribute: %s",
                          name);
            goto fail;
        }
    }
    if (table_check_key_paths(t, r->filter, err) != 0) goto fail;
    return 0;
fail:
    key_condition_clear(kc);
    return -1;
}

/* Whether attrs (a VALUE_M) is selected: its key by kc, itself by the filter. */
static bool selected(const struct export_request *r, const struct key_condition *kc,
                     const struct value *key_attrs, const struct value *attrs)
{
    bool matched = true;
    struct ddb_error e = {0};

    if (r->key_condition && !key_condition_matches(kc, key_attrs)) return false;
    if (!r->filter) return true;
    /* A filter that cannot be evaluated on this item does not select it. */
    if (expr_eval_condition(r->filter, attrs, &matched, &e) != 0) matched = false;
    ddb_error_clear(&e);
    return matched;
}

/* item (a reference is taken over) projected: a new item, or item itself. */
static struct item *projected(const struct export_request *r, struct item *item)
{
    struct item *out;

    if (!r->projection || !item) return item;
    struct decode_mark mark = item_scratch_mark(); /* the projection is a copy */
    out = expr_project_item(r->projection, item);
    item_scratch_release(mark);
    item_unref(item);
    return out;
}

static void filter_items(const struct export_request *r, const struct key_condition *kc,
                         struct export_data *data)
{
    size_t kept = 0;

    for (size_t i = 0; i < data->item_count; i++) {
        struct item *item = data->items[i];
        struct decode_mark mark = item_scratch_mark(); /* an export walks a whole table */
        const struct value *attrs = item_attrs(item);
        bool keep = selected(r, kc, attrs, attrs);
        item_scratch_release(mark);
        if (!keep) {
            item_unref(item);
            continue;
        }
        data->items[kept++] = projected(r, item);
    }
    data->item_count = kept;
}

static void filter_changes(const struct export_request *r, const struct key_condition *kc,
                           struct export_data *data)
{
    size_t kept = 0;

    for (size_t i = 0; i < data->change_count; i++) {
        struct item_change *c = &data->changes[i];
        /* The latest image; a deleted item's old one. */
        const struct item *judged = c->new_item ? c->new_item : c->old_item;
        struct decode_mark mark = item_scratch_mark();
        bool keep = judged && selected(r, kc, &c->keys, item_attrs(judged));
        item_scratch_release(mark);
        if (!keep) {
            value_clear(&c->keys);
            item_unref(c->old_item);
            item_unref(c->new_item);
            c->old_item = c->new_item = NULL;
            continue;
        }
        c->old_item = projected(r, c->old_item);
        c->new_item = projected(r, c->new_item);
        if (kept != i) {
            data->changes[kept] = *c; /* moved: slot i is past the kept ones, never freed */
            memset(c, 0, sizeof *c);
        }
        kept++;
    }
    data->change_count = kept;
}

void export_filter_apply(const struct export_request *r, const struct key_condition *kc,
                         struct export_data *data)
{
    if (!r->key_condition && !r->filter && !r->projection) return;
    filter_items(r, kc, data);
    filter_changes(r, kc, data);
}
