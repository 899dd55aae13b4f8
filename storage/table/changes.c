/*
 * changes.c - net changes over a span of the point-in-time history; see
 * changes.h.
 *
 * The history is in commit order, not key order: the span's entries are
 * sorted by (row key, commit order) and each run of one key gives one change,
 * from its first entry's old item to its last entry's new item.
 */
#include "storage/table/changes.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/model/key.h"
#include "storage/table/table.h"

#include <stdlib.h>
#include <string.h>

/* One history entry of the span, with its key (parts borrowed from its items
 * and from a key_numbers kept apart: the sort moves span entries). */
struct span_entry {
    struct row_key key;
    const struct history_entry *e;
};

static int compare_span_entries(const void *a, const void *b)
{
    const struct span_entry *x = a, *y = b;
    int c = row_key_compare(&x->key, &y->key, KEY_BIAS_LOW);

    if (c) return c;
    return x->e->seq < y->e->seq ? -1 : x->e->seq > y->e->seq;
}

static bool same_state(const struct item *a, const struct item *b)
{
    if (!a || !b) return a == b;
    return item_equal(a, b);
}

/* The key attributes of attrs as a map of their own (owned). */
static void key_attributes(const struct table *t, const struct value *attrs, struct value *out)
{
    const struct key_schema *k = &t->def.key;

    value_init_map(out);
    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        const struct value *v = value_map_get(attrs, name, strlen(name));
        struct value copy;
        if (!v) continue;
        value_copy(&copy, v);
        value_map_set(out, name, strlen(name), &copy);
    }
}

void table_changes_between(const struct table *t, int64_t from_ms, int64_t to_ms,
                           struct item_change **out, size_t *count)
{
    assert_lock_held();
    const struct history *h = &t->history;
    struct span_entry *span = xmalloc(sizeof *span * (history_count(h) ? history_count(h) : 1));
    size_t n = 0, made = 0;

    for (size_t i = h->start; i < h->end; i++) {
        const struct history_entry *e = &h->entries[i];
        if (e->ms < from_ms || e->ms >= to_ms) continue;
        table_item_key(t, (e->new_item ? e->new_item : e->old_item), &span[n].key);
        span[n++].e = e;
    }
    qsort(span, n, sizeof *span, compare_span_entries);
    *out = xmalloc(sizeof **out * (n ? n : 1));
    for (size_t i = 0; i < n;) {
        size_t j = i;
        const struct history_entry *first = span[i].e, *last;
        while (j + 1 < n && row_key_compare(&span[j + 1].key, &span[i].key, KEY_BIAS_LOW) == 0)
            j++;
        last = span[j].e;
        if (!same_state(first->old_item, last->new_item)) {
            struct item_change *c = &(*out)[made++];
            const struct item *any = last->new_item ? last->new_item : first->old_item;
            struct decode_mark mark = item_scratch_mark(); /* keys are copied */
            key_attributes(t, item_attrs(any), &c->keys);
            item_scratch_release(mark);
            c->old_item = item_ref(first->old_item);
            c->new_item = item_ref(last->new_item);
            c->ms = last->ms;
        }
        i = j + 1;
    }
    *count = made;
    free(span);
}

void item_changes_free(struct item_change *changes, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        value_clear(&changes[i].keys);
        item_unref(changes[i].old_item);
        item_unref(changes[i].new_item);
    }
    free(changes);
}
