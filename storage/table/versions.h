/*
 * versions.h - a table's recent versions, for --consistency aws
 * (docs/consistency.md): the committed changes of the last few seconds, so
 * that an eventually consistent read can answer "as of" a moment ago with a
 * state that really existed.
 *
 * Kept beside the items, never inside them: a table has a `recent` history
 * only while the consistency model is on for its namespace, filled by
 * table_commit_write (the one path every committed change takes) with the
 * old and new item of each change and its commit time, and trimmed to the
 * longest lag a read may ask for. Items are immutable and shared by
 * reference (item.h), so an entry costs a few words, not a copy; the item
 * encoding (model/item.c) knows nothing of it.
 *
 * The state of a key as of T is the old item of the first change of that
 * key committed after T, or the current item when there is none. Finding it
 * walks the window (linear in the changes of the last lag; only in the AWS
 * mode, measured in bench/README.md "Consistency model").
 *
 * Locking: the caller holds the engine lock (exclusively to change it).
 */
#ifndef DDB_VERSIONS_H
#define DDB_VERSIONS_H

#include "storage/model/item.h"
#include "storage/model/key.h"
#include "storage/table/history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct key_schema;

#define VERSIONS_BUCKETS 4096

/* A table's recent versions: its changes of the last window, and how many of
 * them each bucket of key hashes holds, so that a read of a key nobody changed
 * lately answers without walking the window. */
struct versions {
    struct history changes;
    int64_t window_ms;
    uint32_t pending[VERSIONS_BUCKETS]; /* changes per key hash % VERSIONS_BUCKETS */
};

/* One key changed after a moment: its state then, and its state now. */
struct version_change {
    struct item *then; /* borrowed: the item as of the moment, or NULL (absent) */
    struct item *now;  /* borrowed: the current item, or NULL (deleted) */
};

/* New, empty recent versions keeping window_ms (owned; versions_free);
 * caller holds the lock exclusively. */
struct versions *versions_new(int64_t window_ms);
/* Frees v and its references; NULL is a no-op. Caller holds the lock exclusively. */
void versions_free(struct versions *v);
/* Records one committed change of the item with key schema k
 * (table_commit_write) and drops the changes older than the window; caller
 * holds the lock exclusively. */
void versions_record(struct versions *v, const struct key_schema *k, struct item *old_item,
                     struct item *new_item, int64_t now_ms);
/* The item key (of a table with key schema k) had as of as_of_ms: current (the
 * item found now, or NULL) when no change of the key was committed after
 * as_of_ms, else the old item of the first such change (NULL: it did not
 * exist). Borrowed. Caller holds the lock. */
struct item *versions_state_at(const struct versions *v, const struct key_schema *k,
                               const struct row_key *key, struct item *current, int64_t as_of_ms);
/* Every key changed after as_of_ms, once each, in the order of their first
 * change: *out is an owned array (free()) of borrowed items. Caller holds the lock. */
size_t versions_changed_since(const struct versions *v, const struct key_schema *k,
                              int64_t as_of_ms, struct version_change **out);

#endif
