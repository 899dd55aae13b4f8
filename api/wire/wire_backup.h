/*
 * wire_backup.h - on-demand backups as DynamoDB's JSON describes them:
 * BackupDetails, BackupDescription (with SourceTableDetails and
 * SourceTableFeatureDetails) and BackupSummary.
 *
 * Every function returns a new json_t reference owned by the caller; the
 * description is borrowed. region is the request's, for the KMS key ARN.
 */
#ifndef DDB_API_WIRE_BACKUP_H
#define DDB_API_WIRE_BACKUP_H

#include "storage/engine/db.h"
#include "storage/jobs/backup_record.h"

#include <jansson.h>

json_t *wire_backup_details_to_json(const struct backup_desc *d);
json_t *wire_backup_description_to_json(const struct backup_desc *d, const char *region);
json_t *wire_backup_summary_to_json(const struct backup_desc *d);

#endif
