/*
 * db_ttl.h - the db_* entry points of Time to live: its settings and the sweeper's expiry (ttl.c).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_TTL_H
#define DDB_DB_TTL_H

#include "storage/engine/db.h"

/* TimeToLiveStatus. ENABLING and DISABLING are AWS's transient states; the
 * emulator settles at once (AWS was never observed in them at 1 s polling). */
enum ttl_status { TTL_ENABLING, TTL_DISABLING, TTL_ENABLED, TTL_DISABLED };

struct ttl_desc {
    enum ttl_status status;
    char *attribute; /* owned; NULL while DISABLED */
};

void ttl_desc_clear(struct ttl_desc *d);
const char *ttl_status_name(enum ttl_status s);

/* UpdateTimeToLive: turns TTL on (with attribute) or off for a table.
 * ResourceNotFoundException; ValidationException when it is already in that
 * state, names another attribute, or changes it again within an hour of the
 * engine's clock (AWS's texts). */
int db_update_ttl(struct db *db, const struct db_scope *scope, const char *table_name, bool enabled,
                  const char *attribute, struct ddb_error *err);
/* DescribeTimeToLive into *out (owned by the caller). ResourceNotFoundException. */
int db_describe_ttl(struct db *db, const struct db_scope *scope, const char *table_name,
                    struct ttl_desc *out, struct ddb_error *err);
/* One pass of the TTL sweeper over every table with TTL enabled, in every
 * namespace: deletes (through the single write path, with a REMOVE stream
 * record carrying the TTL service identity) at most max_items items whose TTL
 * attribute is a Number of epoch seconds in the past, and no more than five
 * years in the past. Works in small batches, releasing the lock between them,
 * so requests are never held up for long. Also trims stream records older than
 * 24 hours. Returns the number of items deleted. Takes the lock itself. */
size_t db_expire_items(struct db *db, size_t max_items);

#endif
