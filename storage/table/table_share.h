/*
 * table_share.h - a table's rows shared, copy on first write, between the
 * live table, its snapshots and their restores and forks (issue 28:
 * "share the immutable parts rather than copying them").
 *
 * Saving a table hands its built structures - the skiplist of items, the
 * key index, each GSI's and LSI's rows, the TTL index, the item collection
 * totals - to a share; the table keeps reading them where they are (its
 * fields are copies of the share's, pointing at the same nodes), and so does
 * every table restored or forked from the snapshot. Nothing changes a shared
 * structure: a table about to change its rows calls table_unshare(), which
 * gives it its own copy (or, when no one else holds the share, the share's
 * own structures). Saving, restoring and forking are then O(tables), not
 * O(items) (bench/README.md, "Snapshots"); the copy is paid by the first
 * write, once per table that writes.
 *
 * Items are immutable, so readers of a shared structure need nothing more
 * than they need today: the share is never changed while shared, and its
 * count of holders is atomic (tables of different namespaces may hold it).
 * Ownership: each holder owns one reference; the last one frees the
 * structures and their item references. Adding a holder (table_share,
 * table_adopt_share) needs the catalog lock exclusively; letting go
 * (table_unshare, table_detach_share, table_share_release) the table's lock
 * exclusively (or the catalog lock so): tables of different namespaces that
 * hold one share may let go of it at the same time, which the atomic count
 * orders.
 */
#ifndef DDB_TABLE_SHARE_H
#define DDB_TABLE_SHARE_H

#include <stdbool.h>
#include <stddef.h>

struct table;
struct table_share;

/* Whether t's rows can be shared: not while an index is being backfilled
 * (its rows follow a cursor) or with a vector index (rebuilt per table). */
bool table_can_share(const struct table *t);
/* A new reference to a share of t's rows (t's own when it shares already);
 * t keeps reading them and copies them before its next change.
 * table_can_share(t) must hold. */
struct table_share *table_share(struct table *t);
/* Makes t, just decoded from the record saved with s (same indexes, same
 * TTL setting) and empty, read s's rows; takes a new reference. */
void table_adopt_share(struct table *t, struct table_share *s);
/* Gives t rows of its own before it changes them (nothing when it has). */
void table_unshare(struct table *t);
/* Lets go of t's share without copying (t is being freed): t's row
 * structures are left empty. */
void table_detach_share(struct table *t);
/* Drops one reference (NULL: nothing); the last frees the rows. */
void table_share_release(struct table_share *s);
/* How many items the share's table held. */
size_t table_share_item_count(const struct table_share *s);

#endif
