/*
 * kinesis.c - Enable/Disable/Update/DescribeKinesisStreamingDestination: the
 * Kinesis data streams a table's changes are sent to.
 *
 * ddbemu has no Kinesis: a destination is kept and described, and no record
 * is ever sent (docs/differences.md). An enabled destination is ACTIVE at
 * once (AWS passes through ENABLING for a few seconds, and ends in
 * ENABLE_FAILED when the stream does not exist). The state rules and their
 * texts are AWS's, from the ack-api-quirks lab's ValidationException
 * catalogue (DDB-TABLE-442, live service 2026-10).
 */
#include "storage/base/alloc.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"

#include <stdlib.h>
#include <string.h>

#define NOT_VALID "Table is not in a valid state to enable Kinesis Streaming Destination: "

void kinesis_destinations_free(struct kinesis_destination *d, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(d[i].stream_arn);
        free(d[i].precision);
    }
    free(d);
}

int db_describe_kinesis(struct db *db, const struct db_scope *scope, const char *table_name,
                        struct kinesis_destination **out, size_t *count, struct ddb_error *err)
{
    struct table *t;
    int rc = -1;

    *out = NULL;
    *count = 0;
    db_read_lock(db);
    if (!(t = db_find_table(db, scope, table_name))) {
        ddb_error_table_not_found(err, table_name);
        goto out;
    }
    if (t->meta.kinesis_count) *out = xcalloc(t->meta.kinesis_count, sizeof **out);
    for (size_t i = 0; i < t->meta.kinesis_count; i++) {
        (*out)[i].stream_arn = xstrdup(t->meta.kinesis[i].stream_arn);
        (*out)[i].status = t->meta.kinesis[i].status;
        (*out)[i].precision = xstrdup(t->meta.kinesis[i].precision);
    }
    *count = t->meta.kinesis_count;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

/* The action's state rule, before anything changes. */
static int check_action(const struct table *t, const struct kinesis_destination *d,
                        enum kinesis_action action, const char *stream_arn, const char *precision,
                        struct ddb_error *err)
{
    bool active = d && d->status == KINESIS_ACTIVE;

    switch (action) {
    case KINESIS_ENABLE:
        if (!active) return 0;
        return ddb_error_set(err, DDB_VALIDATION,
                             NOT_VALID "EnableKinesisStreamingDestination must be DISABLED or "
                                       "ENABLE_FAILED to perform ENABLE operation.");
    case KINESIS_DISABLE:
        if (active) return 0;
        return ddb_error_set(err, DDB_VALIDATION,
                             NOT_VALID "KinesisStreamingDestination must be ACTIVE to perform "
                                       "DISABLE operation.");
    case KINESIS_UPDATE:
        if (!active)
            return ddb_error_set(err, DDB_VALIDATION,
                                 NOT_VALID "Kinesis streaming is not in ACTIVE state. Updates "
                                           "are only allowed in ACTIVE state. TableName: %s, "
                                           "kdsArn: %s",
                                 t->def.name, stream_arn);
        if (precision && d->precision && strcmp(precision, d->precision) == 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Invalid Request: Precision is already set to the desired value "
                                 "of %s for tableId: %s, kdsArn: %s",
                                 precision, t->table_id, stream_arn);
        return 0;
    }
    return 0;
}

int db_change_kinesis(struct db *db, const struct db_scope *scope, const char *table_name,
                      const char *stream_arn, enum kinesis_action action, const char *precision,
                      char **precision_out, struct ddb_error *err)
{
    struct table *t;
    struct kinesis_destination *d;
    int rc = -1;

    *precision_out = NULL;
    db_write_lock(db);
    if (!(t = db_find_table(db, scope, table_name))) {
        ddb_error_table_not_found(err, table_name);
        goto out;
    }
    d = table_meta_kinesis(&t->meta, stream_arn);
    if (check_action(t, d, action, stream_arn, precision, err) != 0) goto out;
    if (!d) d = table_meta_kinesis_add(&t->meta, stream_arn);
    d->status = action == KINESIS_DISABLE ? KINESIS_DISABLED : KINESIS_ACTIVE;
    if (precision || !d->precision) {
        free(d->precision);
        d->precision = xstrdup(precision ? precision : "MILLISECOND");
    }
    persist_table(t);
    *precision_out = xstrdup(d->precision);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
