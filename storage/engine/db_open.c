/*
 * db_open.c - db_open_dir (db.h): a data directory opened in three steps,
 * each in its own file - the namespace files and the engine-wide values
 * (db_persist.c), then the named snapshots stored in ddbemu.db
 * (snapshots_load.c), then their writer thread (snapshots_disk.c). It sits
 * above all three, so that none of them calls back into another.
 */
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/snapshots_disk.h"
#include "storage/engine/snapshots_internal.h"

#include <stdlib.h>

struct db *db_open_dir(const char *dir, char **why)
{
    struct db *db = persist_open_dir(dir, why);
    int rc;

    if (!db) return NULL;
    db_write_lock(db);
    rc = snapshots_load(db, why);
    db_unlock(db);
    if (rc != 0) {
        db_free(db);
        return NULL;
    }
    /* Before any request is served: nobody reads db->snapshot_disk yet. */
    db->snapshot_disk = snapshot_disk_new(db->journal);
    return db;
}
