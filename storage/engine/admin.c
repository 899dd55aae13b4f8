/*
 * admin.c - emulator-only engine operations that DynamoDB has no API for.
 *
 * Today: resetting a namespace, for test isolation (the control interface's
 * reset, api/control/control.c). It removes a namespace's tables, the streams they
 * ever had (including disabled ones still readable), its backups and its
 * transaction client tokens, so the namespace looks never used. The clock and the other
 * namespaces are untouched.
 */
#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/stream/stream.h"

#include <stdlib.h>
#include <string.h>

size_t db_reset_namespace(struct db *db, const char *namespace_id)
{
    struct db_scope scope = {.namespace_id = namespace_id, .region = ""};
    struct namespace *ns;
    size_t removed = 0;

    db_write_lock(db);
    ns = db_find_namespace(db, &scope);
    if (ns) {
        /* Tables first: freeing one closes its stream, which the drop below
         * then forgets together with the older ones. */
        for (size_t i = 0; i < ns->table_count; i++) {
            /* A DELETING table (--delay-transient-statuses) is already deleted. */
            if (!table_is_deleting(ns->tables[i])) removed++;
            table_free(ns->tables[i], db_now_ms(db));
        }
        ns->table_count = 0;
    }
    stream_registry_drop_namespace(db->streams, namespace_id);
    db_forget_tokens(db, namespace_id, INT64_MAX);
    db_forget_held(db, namespace_id);
    transfer_jobs_forget(&db->transfers, namespace_id);
    bulk_jobs_forget(&db->bulk, namespace_id);
    backup_list_forget(&db->backups, namespace_id);
    persist_reset(db, namespace_id);
    db_unlock(db);
    return removed;
}
