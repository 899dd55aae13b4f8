/*
 * history.c - a table's point-in-time recovery history; see history.h.
 *
 * The entries are a growable array used as a queue: appends at the end,
 * trims from the front; the live part moves back to the array's start when
 * the dead part has grown as large as it, so both stay amortised O(1).
 */
#include "storage/table/history.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"

#include <stdlib.h>
#include <string.h>

void history_init(struct history *h)
{
    assert_lock_exclusive();
    memset(h, 0, sizeof *h);
    h->next_seq = 1;
}

void history_clear(struct history *h)
{
    assert_lock_exclusive();
    for (size_t i = h->start; i < h->end; i++) {
        item_unref(h->entries[i].old_item);
        item_unref(h->entries[i].new_item);
    }
    free(h->entries);
    h->entries = NULL;
    h->start = h->end = h->cap = 0;
}

static struct history_entry *push(struct history *h)
{
    if (h->start && h->start >= h->end - h->start) {
        memmove(h->entries, h->entries + h->start, sizeof *h->entries * (h->end - h->start));
        h->end -= h->start;
        h->start = 0;
    }
    if (h->end == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->entries = xrealloc(h->entries, sizeof *h->entries * h->cap);
    }
    return &h->entries[h->end++];
}

const struct history_entry *history_append(struct history *h, int64_t ms, struct item *old_item,
                                           struct item *new_item)
{
    assert_table_writing();
    struct history_entry *e = push(h);

    e->seq = h->next_seq++;
    e->ms = ms;
    e->old_item = item_ref(old_item);
    e->new_item = item_ref(new_item);
    return e;
}

void history_restore(struct history *h, uint64_t seq, int64_t ms, struct item *old_item,
                     struct item *new_item)
{
    assert_lock_exclusive();
    struct history_entry *e = push(h);

    e->seq = seq;
    e->ms = ms;
    e->old_item = old_item;
    e->new_item = new_item;
    if (seq >= h->next_seq) h->next_seq = seq + 1;
}

bool history_trim(struct history *h, int64_t before_ms, uint64_t *upto_seq)
{
    assert_table_writing();
    bool dropped = false;

    while (h->start < h->end && h->entries[h->start].ms < before_ms) {
        struct history_entry *e = &h->entries[h->start++];
        *upto_seq = e->seq;
        item_unref(e->old_item);
        item_unref(e->new_item);
        dropped = true;
    }
    if (h->start == h->end) h->start = h->end = 0;
    return dropped;
}
