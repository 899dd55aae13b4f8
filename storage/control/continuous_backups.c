/*
 * continuous_backups.c - DescribeContinuousBackups and UpdateContinuousBackups:
 * a table's point-in-time recovery setting.
 *
 * On AWS continuous backups are always on and point-in-time recovery is
 * switched per table; its window is RecoveryPeriodInDays (1 to 35) long and
 * starts when it was turned on, and the latest restorable time is about five
 * minutes before now (API reference, PointInTimeRecoveryDescription). All
 * times follow the engine's clock. The setting is part of the table's
 * recorded state (engine/db_persist.c).
 *
 * While recovery is on, every committed change of the table is kept in its
 * history (table/history.h) for the recovery period, which is what
 * RestoreTableToPointInTime and ExportTableToPointInTime read; turning
 * recovery off drops the history, as AWS drops the table's restorable past.
 */
#include "storage/base/limits.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"

#include <string.h>

#define DAY_MS (24LL * 60 * 60 * 1000)

void pitr_window(const struct table *t, int64_t now_ms, int64_t *earliest_ms, int64_t *latest_ms)
{
    int64_t window_start = now_ms - t->pitr.recovery_days * DAY_MS;

    *earliest_ms = t->pitr.enabled_ms > window_start ? t->pitr.enabled_ms : window_start;
    *latest_ms = now_ms - DDB_PITR_LATEST_LAG_MS;
    if (*latest_ms < *earliest_ms) *latest_ms = *earliest_ms;
}

static void describe(const struct table *t, int64_t now_ms, struct pitr_desc *out)
{
    memset(out, 0, sizeof *out);
    out->enabled = t->pitr.enabled;
    if (!t->pitr.enabled) return;
    out->recovery_days = t->pitr.recovery_days;
    pitr_window(t, now_ms, &out->earliest_ms, &out->latest_ms);
}

int db_describe_continuous_backups(struct db *db, const struct db_scope *scope,
                                   const char *table_name, struct pitr_desc *out,
                                   struct ddb_error *err)
{
    struct table *t;
    int rc = -1;

    db_read_lock(db);
    t = db_find_table(db, scope, table_name);
    if (!t) {
        ddb_error_backup_table_not_found(err, table_name);
        goto out;
    }
    describe(t, db_now_ms(db), out);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_update_continuous_backups(struct db *db, const struct db_scope *scope,
                                 const char *table_name, bool enabled, int64_t recovery_days,
                                 struct pitr_desc *out, struct ddb_error *err)
{
    struct table *t;
    int64_t now_ms;
    int rc = -1;

    db_write_lock(db);
    now_ms = db_now_ms(db);
    t = db_find_table(db, scope, table_name);
    if (!t) {
        ddb_error_backup_table_not_found(err, table_name);
        goto out;
    }
    if (enabled && !t->pitr.enabled) t->pitr.enabled_ms = now_ms;
    /* A longer period does not bring back what the shorter one trimmed: the
     * history is complete only from the start of the old window on. */
    if (enabled && t->pitr.enabled && recovery_days > t->pitr.recovery_days &&
        t->pitr.enabled_ms < now_ms - t->pitr.recovery_days * DAY_MS)
        t->pitr.enabled_ms = now_ms - t->pitr.recovery_days * DAY_MS;
    if (!enabled && t->pitr.enabled) table_drop_history(t);
    if (enabled && recovery_days)
        t->pitr.recovery_days = recovery_days;
    else if (enabled && !t->pitr.recovery_days)
        t->pitr.recovery_days = DDB_PITR_DEFAULT_DAYS;
    t->pitr.enabled = enabled;
    persist_table(t);
    describe(t, now_ms, out);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
