/*
 * ttl.c - Time to Live: the per-table setting (UpdateTimeToLive /
 * DescribeTimeToLive) and what the sweeper deletes (db_expire_items).
 *
 * What expires, as AWS documents it (developerguide/howitworks-ttl.html and
 * the UpdateTimeToLive API reference): an item whose TTL attribute is a
 * Number holding an epoch time in seconds that is less than the current time.
 * An item whose attribute is missing, is not a Number, or holds a time more
 * than five years in the past is never deleted - which also means a value
 * written in milliseconds by mistake lies far in the future and never expires.
 * Until the sweeper deletes an expired item it stays readable, as on AWS.
 * "Now" is the engine's clock, so tests advance it instead of waiting.
 *
 * Each deletion goes through table_commit_write() with the TTL origin:
 * indexes lose the item in the same critical section, and the stream record
 * is a REMOVE carrying the service identity. Deletions consume no capacity.
 *
 * The sweep reads only the items that are due: each table with TTL on keeps
 * its items ordered by expiry (table/ttl_index.h, maintained by
 * table_commit_write), so a sweep seeks to the oldest expiry that may still
 * be deleted and stops at "now"; an idle table costs one seek per interval,
 * whatever its size. It deletes in batches of SWEEP_BATCH items under the
 * exclusive lock, releasing it between batches, so a mass expiry never holds
 * requests up for long. Each call goes on until nothing due is left in any
 * table, so a sweep asked for through the control interface leaves no
 * expired item behind, even while the sweeper thread runs its own pass. When the emulator deletes
 * an item is the sweeper's choice (emulator/sweeper.c); AWS may take up to two days, the emulator
 * deletes within one sweep interval (docs/differences.md).
 *
 * State changes settle at once: AWS reports ENABLING/DISABLING only briefly
 * (never seen at 1 s polling - ack-api-quirks DDB-TABLE-143/144), so
 * DescribeTimeToLive reports ENABLED or DISABLED right after the update.
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_ttl.h"
#include "storage/stream/stream.h"
#include "storage/table/table.h"

#include <stdlib.h>
#include <string.h>

/* Items looked at per lock hold. */
#define SWEEP_BATCH 512

const char *ttl_status_name(enum ttl_status s)
{
    static const char *const names[] = {"ENABLING", "DISABLING", "ENABLED", "DISABLED"};
    return names[s];
}

void ttl_desc_clear(struct ttl_desc *d)
{
    free(d->attribute);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------------------ */
/* UpdateTimeToLive, DescribeTimeToLive                                      */
/* ------------------------------------------------------------------------ */

static bool same_attribute(const struct ttl_setting *ttl, const char *attribute)
{
    return ttl->attribute && strcmp(ttl->attribute, attribute) == 0;
}

/*
 * AWS's checks, in its order: the requested state against the current one,
 * then the one-change-per-hour rule ("these content checks run before the
 * cooldown check" - ack-api-quirks DDB-TABLE-143/147, live service 2026-10).
 * Texts as the live service sends them (quoted by those findings and by
 * applications that match on them, e.g. "TimeToLive is active on a different
 * AttributeName: current AttributeName is ttlx").
 */
static int check_ttl_change(const struct ttl_setting *ttl, bool enabled, const char *attribute,
                            int64_t now_ms, struct ddb_error *err)
{
    bool active = ttl->enabled;

    if (active && (enabled || !same_attribute(ttl, attribute))) {
        if (enabled && same_attribute(ttl, attribute))
            return ddb_error_set(err, DDB_VALIDATION, "TimeToLive is already enabled");
        return ddb_error_set(err, DDB_VALIDATION,
                             "TimeToLive is active on a different AttributeName: current "
                             "AttributeName is %s",
                             ttl->attribute);
    }
    if (!active && !enabled)
        return ddb_error_set(err, DDB_VALIDATION, "TimeToLive is already disabled");
    /* "Any additional UpdateTimeToLive calls for the same table during this one
     * hour duration result in a ValidationException" (API reference). */
    if (ttl->changed_ms && now_ms - ttl->changed_ms < DDB_TTL_CHANGE_INTERVAL_MS)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Time to live has been modified multiple times within a fixed "
                             "interval");
    return 0;
}

int db_update_ttl(struct db *db, const struct db_scope *scope, const char *table_name, bool enabled,
                  const char *attribute, struct ddb_error *err)
{
    struct table *t;
    int64_t now_ms;
    int rc = -1;

    db_write_lock(db);
    now_ms = db_now_ms(db);
    t = db_find_table(db, scope, table_name);
    if (!t) {
        ddb_error_table_not_found(err, table_name);
        goto out;
    }
    if (check_ttl_change(&t->ttl, enabled, attribute, now_ms, err) != 0) goto out;
    free(t->ttl.attribute);
    t->ttl.attribute = enabled ? xstrdup(attribute) : NULL;
    t->ttl.attribute_len = enabled ? strlen(attribute) : 0;
    t->ttl.enabled = enabled;
    t->ttl.changed_ms = now_ms;
    /* The expiry index exists while TTL is on; enabling reads the table once. */
    table_unshare(t);
    if (enabled)
        ttl_index_rebuild(&t->ttl_index, &t->items, t->ttl.attribute, t->ttl.attribute_len);
    else
        ttl_index_clear(&t->ttl_index);
    persist_table(t);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_describe_ttl(struct db *db, const struct db_scope *scope, const char *table_name,
                    struct ttl_desc *out, struct ddb_error *err)
{
    struct table *t;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    t = db_find_table(db, scope, table_name);
    if (!t) {
        ddb_error_table_not_found(err, table_name);
        goto out;
    }
    out->status = t->ttl.enabled ? TTL_ENABLED : TTL_DISABLED;
    if (t->ttl.enabled) out->attribute = xstrdup(t->ttl.attribute);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* the sweep                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Deletes up to SWEEP_BATCH (and at most budget) expired items of t, found in
 * its expiry index: those whose expiry lies in [now - 5 years, now), exactly
 * the items that are due (ttl_index.h explains why whole milliseconds decide
 * it exactly). Deleted items leave the index, so the next batch starts again
 * at the window's start. Sets *pass_done when nothing due is left. Caller
 * holds the lock exclusively. Returns the number deleted.
 */
static size_t sweep_batch(struct table *t, int64_t now_ms, size_t budget, bool *pass_done)
{
    assert_lock_exclusive();
    struct item *due[SWEEP_BATCH];
    size_t count = 0, limit = budget < SWEEP_BATCH ? budget : SWEEP_BATCH;
    const int64_t oldest_ms = now_ms - DDB_TTL_MAX_PAST_S * 1000;
    const struct commit_info info = {.now_ms = now_ms, .origin = STREAM_ORIGIN_TTL};

    /* Take references first: each deletion removes its row from the index. */
    for (struct skiplist_node *row = ttl_index_seek(&t->ttl_index, oldest_ms);
         row && count < limit && ttl_index_row_expiry_ms(row) < now_ms; row = skiplist_next(row))
        due[count++] = item_ref(row->item);
    for (size_t i = 0; i < count; i++) {
        /* The key's parts point into the item, which the write path keeps
         * alive until it has finished with it. */
        struct row_key key;
        table_item_key(t, due[i], &key);
        table_commit_write(t, &key, NULL, &info);
        item_unref(due[i]);
    }
    *pass_done = count < limit;
    return count;
}

struct sweep_target {
    char *namespace_id;
    char *table_name;
};

size_t db_expire_items(struct db *db, size_t max_items)
{
    struct sweep_target *targets = NULL;
    size_t target_count = 0, deleted = 0;

    /* Which tables have TTL on, noted under the read lock; each is then swept
     * in batches, looked up again every time, since it may go meanwhile. */
    db_read_lock(db);
    for (size_t n = 0; n < db->namespace_count; n++) {
        const struct namespace *ns = &db->namespaces[n];
        for (size_t i = 0; i < ns->table_count; i++) {
            const struct table *t = ns->tables[i];
            if (!t->ttl.enabled || table_is_deleting(t)) continue;
            targets = xrealloc(targets, sizeof *targets * (target_count + 1));
            targets[target_count].namespace_id = xstrdup(ns->id);
            targets[target_count].table_name = xstrdup(t->def.name);
            target_count++;
        }
    }
    db_unlock(db);

    for (size_t i = 0; i < target_count; i++) {
        struct db_scope scope = {.namespace_id = targets[i].namespace_id, .region = ""};
        bool pass_done = false;
        while (!pass_done && deleted < max_items) {
            struct table *t;
            db_write_lock(db);
            t = db_find_table(db, &scope, targets[i].table_name);
            if (t && t->ttl.enabled)
                deleted += sweep_batch(t, db_now_ms(db), max_items - deleted, &pass_done);
            else
                pass_done = true;
            db_unlock(db);
        }
        free(targets[i].namespace_id);
        free(targets[i].table_name);
    }
    free(targets);

    db_write_lock(db);
    stream_registry_maintain(db->streams, db_now_ms(db));
    db_unlock(db);
    return deleted;
}
