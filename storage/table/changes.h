/*
 * changes.h - the net change of each item over a span of a table's
 * point-in-time history: what an incremental export writes.
 *
 * For every key that some committed change in [from_ms, to_ms) touched, the
 * item as it was just before from_ms (old_item) and as it is just before
 * to_ms (new_item), with the time of its last change in the span. Keys whose
 * two states are equal (both absent - an item created and deleted inside the
 * span - or equal items) are left out: nothing changed for a reader who
 * applies the export to the state at from_ms. This is the developer guide's
 * "one final state per item" (S3DataExport.Output, incremental export), read
 * from the history restores use (history.h), so it needs from_ms to lie in
 * the recovery window.
 *
 * Ownership: the array and everything in it belong to the caller
 * (item_changes_free). Locking: the caller holds the engine lock (shared).
 */
#ifndef DDB_CHANGES_H
#define DDB_CHANGES_H

#include "storage/model/item.h"
#include "storage/model/value.h"

#include <stddef.h>
#include <stdint.h>

struct table;

struct item_change {
    struct value keys;     /* the item's key attributes (a VALUE_M; owned) */
    struct item *old_item; /* reference, or NULL: no item before the span */
    struct item *new_item; /* reference, or NULL: deleted by the span's end */
    int64_t ms;            /* the engine's clock at the last change in the span */
};

/* The net changes of [from_ms, to_ms), in the table's key order, into *out
 * (owned) and *count. */
void table_changes_between(const struct table *t, int64_t from_ms, int64_t to_ms,
                           struct item_change **out, size_t *count);
/* Frees what table_changes_between gave, the caller's own: needs no lock. */
void item_changes_free(struct item_change *changes, size_t count);

#endif
