/*
 * history.h - a table's point-in-time recovery history: the committed changes
 * of its recovery window, oldest first, each as (time, old item, new item).
 *
 * table_commit_write appends one entry per committed change while the
 * table's point-in-time recovery is on; restoring to a time T takes the
 * current items and undoes, newest first, every change made after T
 * (table_items_at in table.c). Entries older than the window are dropped
 * from the front as new ones come (history_trim), so the history holds what
 * a restore can still need and no more.
 *
 * Items are immutable and shared by reference (item.h), so an entry costs a
 * few words, not a copy. Ownership: the history owns one reference to each
 * item it holds. Locking: the caller holds the engine lock (exclusively to
 * change the history).
 */
#ifndef DDB_HISTORY_H
#define DDB_HISTORY_H

#include "storage/model/item.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct history_entry {
    uint64_t seq;          /* increasing within the table; its row on disk */
    int64_t ms;            /* the engine's clock at commit */
    struct item *old_item; /* reference, or NULL: the change inserted the item */
    struct item *new_item; /* reference, or NULL: the change deleted it */
};

struct history {
    struct history_entry *entries; /* live entries are [start, end) */
    size_t start, end, cap;
    uint64_t next_seq; /* the seq the next entry gets; starts at 1 */
};

void history_init(struct history *h);
/* Drops every entry (the references with them); the seqs go on increasing. */
void history_clear(struct history *h);
/* Appends a change at ms, taking a new reference to old_item and new_item
 * (either may be NULL); returns the entry, valid until the next change. The
 * caller holds the table's lock exclusively (or the catalog lock so). */
const struct history_entry *history_append(struct history *h, int64_t ms, struct item *old_item,
                                           struct item *new_item);
/* Appends an entry read back from disk with its own seq (loading is in seq
 * order); takes the references given. */
void history_restore(struct history *h, uint64_t seq, int64_t ms, struct item *old_item,
                     struct item *new_item);
/* Drops the entries made before before_ms. Returns true, with *upto_seq the
 * seq of the last one dropped, when it dropped any. The caller holds the
 * table's lock exclusively (or the catalog lock so). */
bool history_trim(struct history *h, int64_t before_ms, uint64_t *upto_seq);

static inline size_t history_count(const struct history *h)
{
    return h->end - h->start;
}

#endif
