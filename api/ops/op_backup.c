/*
 * op_backup.c - DescribeContinuousBackups and UpdateContinuousBackups
 * (point-in-time recovery), and the on-demand backups: CreateBackup,
 * DescribeBackup, DeleteBackup, ListBackups (storage/backups.c; the restores
 * are op_restore.c's).
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
#include "api/wire/wire_backup.h"
#include "api/wire/wire_table.h"
#include "storage/base/limits.h"
#include "storage/control/jobs.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/jobs/backup_record.h"

#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------------ */
/* on-demand backups                                                         */
/* ------------------------------------------------------------------------ */

/* Backup ARNs are 37 to 1024 characters (API reference, BackupArn). */
#define BACKUP_ARN_FIELD(name, req)                                                                \
    {                                                                                              \
        name, F_STRING, .required = req, .min_len = 37, .max_len = 1024                            \
    }

static const char *const backup_type_filter_choices[] = {"USER", "SYSTEM", "AWS_BACKUP", "ALL",
                                                         NULL};

const struct field create_backup_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"BackupName", F_STRING, .required = true, .min_len = 3, .max_len = 255,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {0},
};

const struct field describe_backup_fields[] = {
    BACKUP_ARN_FIELD("BackupArn", true),
    {0},
};

const struct field delete_backup_fields[] = {
    BACKUP_ARN_FIELD("BackupArn", true),
    {0},
};

const struct field list_backups_fields[] = {
    {"TableName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_LIST_BACKUPS_LIMIT},
    {"TimeRangeLowerBound", F_DOUBLE},
    {"TimeRangeUpperBound", F_DOUBLE},
    BACKUP_ARN_FIELD("ExclusiveStartBackupArn", false),
    {"BackupType", F_STRING, .choices = backup_type_filter_choices},
    {0},
};

/* CreateBackup: {"BackupDetails": ...} (status CREATING). TableNotFoundException. */
int op_create_backup(struct api_request *rq)
{
    struct backup_desc d;

    if (db_create_backup(rq->db, &rq->scope, body_member_str(rq->body, "TableName"),
                         body_member_str(rq->body, "BackupName"), &d, &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BackupDetails", wire_backup_details_to_json(&d));
    backup_desc_clear(&d);
    return 0;
}

/* DescribeBackup: {"BackupDescription": ...}. BackupNotFoundException. */
int op_describe_backup(struct api_request *rq)
{
    struct backup_desc d;

    if (db_describe_backup(rq->db, &rq->scope, body_member_str(rq->body, "BackupArn"), &d,
                           &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BackupDescription",
                        wire_backup_description_to_json(&d, rq->scope.region));
    backup_desc_clear(&d);
    return 0;
}

/* DeleteBackup: {"BackupDescription": ...} with status DELETED. BackupNotFoundException. */
int op_delete_backup(struct api_request *rq)
{
    struct backup_desc d;

    if (db_delete_backup(rq->db, &rq->scope, body_member_str(rq->body, "BackupArn"), &d,
                         &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BackupDescription",
                        wire_backup_description_to_json(&d, rq->scope.region));
    backup_desc_clear(&d);
    return 0;
}

/* ListBackups: {"BackupSummaries": [...], "LastEvaluatedBackupArn"?}, oldest first.
 * BackupType USER (the default) lists the backups made by CreateBackup, SYSTEM
 * those DeleteTable left, ALL both; AWS_BACKUP none (there is no AWS Backup here). */
int op_list_backups(struct api_request *rq)
{
    const json_t *body = rq->body;
    const char *type = body_member_str(body, "BackupType");
    struct backup_filter f = {
        .table_name = body_member_str(body, "TableName"),
        .has_lower = body_member(body, "TimeRangeLowerBound") != NULL,
        .has_upper = body_member(body, "TimeRangeUpperBound") != NULL,
        .lower_ms = body_member_epoch_ms(body, "TimeRangeLowerBound"),
        .upper_ms = body_member_epoch_ms(body, "TimeRangeUpperBound"),
        .user_backups = !type || strcmp(type, "USER") == 0 || strcmp(type, "ALL") == 0,
        .system_backups = type && (strcmp(type, "SYSTEM") == 0 || strcmp(type, "ALL") == 0),
        .exclusive_start_arn = body_member_str(body, "ExclusiveStartBackupArn"),
        .limit = body_member(body, "Limit") ? (size_t) body_member_int(body, "Limit")
                                            : DDB_MAX_LIST_BACKUPS_LIMIT,
    };
    struct backup_desc *list = NULL;
    size_t count = 0;
    char *last = NULL;
    json_t *summaries;

    if (db_list_backups(rq->db, &rq->scope, &f, &list, &count, &last, &rq->err) != 0) return -1;
    summaries = json_array();
    for (size_t i = 0; i < count; i++) {
        json_array_append_new(summaries, wire_backup_summary_to_json(&list[i]));
        backup_desc_clear(&list[i]);
    }
    free(list);
    rq->reply = json_object();
    json_object_set_new(rq->reply, "BackupSummaries", summaries);
    if (last) json_object_set_new(rq->reply, "LastEvaluatedBackupArn", json_string(last));
    free(last);
    return 0;
}
