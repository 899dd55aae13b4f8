/*
 * read_stale.c - a Query or Scan page as of a moment ago (read_stale.h).
 *
 * The walk read the current rows of the page's range. Each key changed after
 * the moment (table/versions.h) is then corrected: its current item leaves
 * the page, and its item as of the moment comes in at its place in the
 * page's order when it belongs to the page: it has the source's keys (a GSI
 * is sparse), it satisfies the key condition or the segment, it comes after
 * the ExclusiveStartKey and, when the walk stopped early, not after the
 * walk's last row. An item that moved between GSI keys thus shows under the
 * key it had then; one created since is absent, one deleted since is there.
 * The page's capacity stays what the walk read (docs/differences.md).
 */
#include "storage/engine/read_stale.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/table/index.h"
#include "storage/table/versions.h"

#include <stdlib.h>
#include <string.h>

/* The source row key of item, false when the source has no row for it. */
static bool row_of(const struct stale_bounds *b, const struct item *item, struct row_key *out)
{
    if (b->index) return index_item_key(b->index, item, out);
    table_item_key(b->t, item, out);
    return true;
}

/* Page order of two source row keys: < 0 when a comes first. */
static int order(const struct stale_bounds *b, const struct row_key *a, const struct row_key *c)
{
    int cmp = row_key_compare(a, c, KEY_BIAS_LOW);
    return b->forward ? cmp : -cmp;
}

static bool term_matches(const struct item *item, const struct key_condition_term *term)
{
    const struct value *v = item_get(item, term->name, strlen(term->name));
    return v && v->type == term->value.type && value_compare_scalar(v, &term->value) == 0;
}

/* Whether item belongs in the page (see the top of this file); *rk is its row key. */
static bool belongs(const struct stale_bounds *b, const struct item *item, struct row_key *rk)
{
    if (!row_of(b, item, rk)) return false;
    if (b->kc) {
        const struct key_condition *kc = b->kc;
        for (size_t i = 0; i < kc->hash_count; i++)
            if (!term_matches(item, &kc->hash[i])) return false;
        for (size_t i = 0; i < kc->range_eq_count; i++)
            if (!term_matches(item, &kc->range_eq[i])) return false;
        if (kc->range_op != KEY_RANGE_NONE) {
            const struct value *v = item_get(item, kc->range_name, strlen(kc->range_name));
            if (!v || !key_condition_range_matches(kc, v)) return false;
        }
    }
    if (b->segmented && (rk->hash < b->seg_start || (!b->last_segment && rk->hash >= b->seg_end)))
        return false;
    if (b->exclusive_start_key) {
        struct key_numbers esk_nums;
        struct row_key esk;
        bool have = b->index ? index_row_key(b->index, b->exclusive_start_key, &esk_nums, &esk)
                             : (table_row_key(b->t, b->exclusive_start_key, &esk_nums, &esk), true);
        if (have && order(b, rk, &esk) <= 0) return false;
    }
    if (b->last) {
        struct row_key last;
        if (row_of(b, b->last, &last) && order(b, rk, &last) > 0) return false;
    }
    return true;
}

/* Inserts item (a new reference) in page order. */
static void insert_ordered(const struct stale_bounds *b, struct item *item,
                           const struct row_key *rk, struct item ***rows, size_t *count,
                           size_t *cap)
{
    size_t at = *count;

    while (at > 0) {
        struct row_key prev;
        row_of(b, (*rows)[at - 1], &prev);
        if (order(b, &prev, rk) < 0) break;
        at--;
    }
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *rows = xrealloc(*rows, sizeof **rows * *cap);
    }
    memmove(&(*rows)[at + 1], &(*rows)[at], sizeof **rows * (*count - at));
    (*rows)[at] = item;
    (*count)++;
}

size_t read_stale_page(const struct stale_bounds *b, int64_t as_of_ms, struct item ***rows,
                       size_t *count, size_t *cap, bool *truncated)
{
    assert_lock_held();
    struct version_change *changes;
    size_t n = versions_changed_since(b->t->recent, &b->t->def.key, as_of_ms, &changes),
           differs = 0;

    *truncated = false;
    for (size_t i = 0; i < n; i++) {
        struct row_key rk;
        bool changed = false;
        if (changes[i].now) {
            for (size_t j = 0; j < *count; j++) {
                if ((*rows)[j] != changes[i].now) continue;
                item_unref((*rows)[j]);
                memmove(&(*rows)[j], &(*rows)[j + 1], sizeof **rows * (*count - j - 1));
                (*count)--;
                changed = true;
                break;
            }
        }
        if (changes[i].then && belongs(b, changes[i].then, &rk)) {
            insert_ordered(b, item_ref(changes[i].then), &rk, rows, count, cap);
            changed = true;
        }
        if (changed) differs++;
    }
    free(changes);
    if (b->limit > 0 && (int64_t) *count > b->limit) {
        for (size_t j = (size_t) b->limit; j < *count; j++)
            item_unref((*rows)[j]);
        *count = (size_t) b->limit;
        *truncated = true;
    }
    return differs;
}
