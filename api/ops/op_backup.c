/*
 * op_backup.c - DescribeContinuousBackups and UpdateContinuousBackups
 * (point-in-time recovery).
 *
 * The answer of both is the table's ContinuousBackupsDescription:
 * ContinuousBackupsStatus is always ENABLED (AWS keeps continuous backups on
 * for every table), and PointInTimeRecoveryDescription carries the status,
 * and while it is on the recovery period and the restorable window on the
 * engine's clock (API reference, PointInTimeRecoveryDescription). Storage
 * (storage/continuous_backups.c) keeps the setting and raises
 * TableNotFoundException.
 */
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "storage/base/limits.h"
#include "storage/db.h"

static const struct field pitr_specification_fields[] = {
    {"PointInTimeRecoveryEnabled", F_BOOLEAN, .required = true},
    {"RecoveryPeriodInDays", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_PITR_MAX_DAYS},
    {0},
};

const struct field update_continuous_backups_fields[] = {
    {"PointInTimeRecoverySpecification", F_STRUCT, .required = true,
     .shape_name = "PointInTimeRecoverySpecification", .children = pitr_specification_fields},
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

const struct field describe_continuous_backups_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

/* {"ContinuousBackupsDescription": {...}} for d. */
static json_t *continuous_backups_json(const struct pitr_desc *d)
{
    json_t *pitr = json_object(), *desc = json_object(), *reply = json_object();

    json_object_set_new(pitr, "PointInTimeRecoveryStatus",
                        json_string(d->enabled ? "ENABLED" : "DISABLED"));
    if (d->enabled) {
        json_object_set_new(pitr, "RecoveryPeriodInDays", json_integer(d->recovery_days));
        json_object_set_new(pitr, "EarliestRestorableDateTime", wire_epoch_seconds(d->earliest_ms));
        json_object_set_new(pitr, "LatestRestorableDateTime", wire_epoch_seconds(d->latest_ms));
    }
    json_object_set_new(desc, "ContinuousBackupsStatus", json_string("ENABLED"));
    json_object_set_new(desc, "PointInTimeRecoveryDescription", pitr);
    json_object_set_new(reply, "ContinuousBackupsDescription", desc);
    return reply;
}

int op_describe_continuous_backups(struct api_request *rq)
{
    struct pitr_desc d;

    if (db_describe_continuous_backups(rq->db, &rq->scope, body_member_str(rq->body, "TableName"),
                                       &d, &rq->err) != 0)
        return -1;
    rq->reply = continuous_backups_json(&d);
    return 0;
}

int op_update_continuous_backups(struct api_request *rq)
{
    json_t *spec = body_member(rq->body, "PointInTimeRecoverySpecification");
    json_t *days = body_member(spec, "RecoveryPeriodInDays");
    struct pitr_desc d;

    if (db_update_continuous_backups(rq->db, &rq->scope, body_member_str(rq->body, "TableName"),
                                     json_is_true(body_member(spec, "PointInTimeRecoveryEnabled")),
                                     days ? (int64_t) json_integer_value(days) : 0, &d,
                                     &rq->err) != 0)
        return -1;
    rq->reply = continuous_backups_json(&d);
    return 0;
}
