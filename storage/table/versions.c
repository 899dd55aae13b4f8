/*
 * versions.c - a table's recent versions (versions.h): a second `struct
 * history` (history.c, the point-in-time recovery's ring of changes), kept
 * for the consistency model's lag instead of the recovery window. It knows
 * the table's key schema, not the table, so the table can own it.
 */
#include "storage/table/versions.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/model/schema.h"

#include <stdlib.h>
#include <string.h>

struct versions *versions_new(int64_t window_ms)
{
    assert_lock_exclusive();
    struct versions *v = xcalloc(1, sizeof *v);
    history_init(&v->changes);
    v->window_ms = window_ms;
    return v;
}

void versions_free(struct versions *v)
{
    assert_lock_exclusive();
    if (!v) return;
    history_clear(&v->changes);
    free(v);
}

/* The row key of the item entry e changed, by key schema k (as table_item_key). */
static void entry_key(const struct key_schema *k, const struct history_entry *e,
                      struct row_key *out)
{
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};
    bool found;

    out->part_count = 1 + k->range_count;
    found =
        item_key_parts(e->new_item ? e->new_item : e->old_item, names, out->part_count, out->parts);
    assert(found); /* a stored item has its table's key */
    (void) found;
    out->hash = key_hash(out->parts, 1);
}

static bool same_key(const struct row_key *a, const struct row_key *b)
{
    return a->hash == b->hash && row_key_compare(a, b, KEY_BIAS_LOW) == 0;
}

void versions_record(struct versions *v, const struct key_schema *k, struct item *old_item,
                     struct item *new_item, int64_t now_ms)
{
    assert_lock_exclusive();
    struct history *h = &v->changes;
    struct row_key rk;
    uint64_t upto;

    /* Dropping from the front: forget each dropped change's bucket count first. */
    for (size_t i = h->start; i < h->end && h->entries[i].ms < now_ms - v->window_ms; i++) {
        entry_key(k, &h->entries[i], &rk);
        v->pending[rk.hash % VERSIONS_BUCKETS]--;
    }
    history_trim(h, now_ms - v->window_ms, &upto);
    entry_key(k, history_append(h, now_ms, old_item, new_item), &rk);
    v->pending[rk.hash % VERSIONS_BUCKETS]++;
}

struct item *versions_state_at(const struct versions *v, const struct key_schema *k,
                               const struct row_key *key, struct item *current, int64_t as_of_ms)
{
    assert_lock_held();
    const struct history *h = &v->changes;

    if (!v->pending[key->hash % VERSIONS_BUCKETS]) return current;
    for (size_t i = h->start; i < h->end; i++) {
        const struct history_entry *e = &h->entries[i];
        struct row_key rk;
        if (e->ms <= as_of_ms) continue;
        entry_key(k, e, &rk);
        if (same_key(&rk, key)) return e->old_item;
    }
    return current;
}

size_t versions_changed_since(const struct versions *v, const struct key_schema *k,
                              int64_t as_of_ms, struct version_change **out)
{
    assert_lock_held();
    const struct history *h = &v->changes;
    struct version_change *changes = NULL;
    /* The first change of each key, whose key is found again to compare (a
     * key's numbers live in a buffer, which an array that grows would move). */
    const struct history_entry **firsts = NULL;
    size_t n = 0;

    for (size_t i = h->start; i < h->end; i++) {
        const struct history_entry *e = &h->entries[i];
        struct row_key rk, other;
        size_t j;

        if (e->ms <= as_of_ms) continue;
        entry_key(k, e, &rk);
        for (j = 0; j < n; j++) {
            entry_key(k, firsts[j], &other);
            if (same_key(&other, &rk)) break;
        }
        if (j < n) {
            changes[j].now = e->new_item; /* a later change of the same key */
            continue;
        }
        changes = xrealloc(changes, sizeof *changes * (n + 1));
        firsts = xrealloc(firsts, sizeof *firsts * (n + 1));
        changes[n] = (struct version_change){e->old_item, e->new_item};
        firsts[n++] = e;
    }
    free(firsts);
    *out = changes;
    return n;
}
