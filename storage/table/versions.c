/*
 * versions.c - a table's recent versions (versions.h): a second `struct
 * history` (history.c, the point-in-time recovery's ring of changes), kept
 * for the consistency model's lag instead of the recovery window.
 */
#include "storage/table/versions.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/table/table.h"

#include <stdlib.h>

void table_versions_enable(struct table *t, int64_t window_ms)
{
    assert_lock_exclusive();
    if (!t->recent) {
        t->recent = xcalloc(1, sizeof *t->recent);
        history_init(t->recent);
    }
    t->recent_window_ms = window_ms;
}

void table_versions_disable(struct table *t)
{
    assert_lock_exclusive();
    if (!t->recent) return;
    history_clear(t->recent);
    free(t->recent->entries);
    free(t->recent);
    t->recent = NULL;
}

void table_versions_record(struct table *t, struct item *old_item, struct item *new_item,
                           int64_t now_ms)
{
    assert_lock_exclusive();
    uint64_t upto;

    history_append(t->recent, now_ms, old_item, new_item);
    history_trim(t->recent, now_ms - t->recent_window_ms, &upto);
}

/* Whether entry e changed the item with row key key. */
static bool entry_is_key(const struct table *t, const struct history_entry *e,
                         const struct row_key *key)
{
    const struct item *it = e->new_item ? e->new_item : e->old_item;
    struct row_key rk;

    table_row_key(t, &it->attrs, &rk);
    return rk.hash == key->hash && row_key_compare(&rk, key, KEY_BIAS_LOW) == 0;
}

struct item *table_versions_state_at(const struct table *t, const struct row_key *key,
                                     struct item *current, int64_t as_of_ms)
{
    assert_lock_held();
    const struct history *h = t->recent;

    for (size_t i = h->start; i < h->end; i++) {
        const struct history_entry *e = &h->entries[i];
        if (e->ms > as_of_ms && entry_is_key(t, e, key)) return e->old_item;
    }
    return current;
}

size_t table_versions_changed_since(const struct table *t, int64_t as_of_ms,
                                    struct version_change **out)
{
    assert_lock_held();
    const struct history *h = t->recent;
    struct version_change *changes = NULL;
    struct row_key *keys = NULL;
    size_t n = 0;

    for (size_t i = h->start; i < h->end; i++) {
        const struct history_entry *e = &h->entries[i];
        const struct item *it = e->new_item ? e->new_item : e->old_item;
        struct row_key rk;
        size_t j;

        if (e->ms <= as_of_ms) continue;
        table_row_key(t, &it->attrs, &rk);
        for (j = 0; j < n; j++)
            if (keys[j].hash == rk.hash && row_key_compare(&keys[j], &rk, KEY_BIAS_LOW) == 0) break;
        if (j < n) {
            changes[j].now = e->new_item; /* a later change of the same key */
            continue;
        }
        changes = xrealloc(changes, sizeof *changes * (n + 1));
        keys = xrealloc(keys, sizeof *keys * (n + 1));
        changes[n] = (struct version_change){e->old_item, e->new_item};
        keys[n++] = rk;
    }
    free(keys);
    *out = changes;
    return n;
}
