/*
 * db_report.h - the db_* entry points of the access-pattern report's snapshot and reset
 * (db_report.c; the counters are in storage/insight/).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_REPORT_H
#define DDB_DB_REPORT_H

#include "storage/engine/db.h"
#include "storage/insight/report.h"

/* Snapshots the counters of the tables of namespace_id (NULL: every
 * namespace), or of the one table named table_name (NULL: all), judged
 * (cost and findings: insight/report.h). *out is an owned array (free with
 * db_insight_report_free). ResourceNotFoundException when table_name names no
 * table. Takes the lock shared. */
int db_insight_report(struct db *db, const char *namespace_id, const char *table_name,
                      struct insight_report_table **out, size_t *count, struct ddb_error *err);
void db_insight_report_free(struct insight_report_table *tables, size_t count);
/* Sets the counters of those tables back to zero, counting from now; returns
 * how many tables were reset. Takes the lock exclusively. */
size_t db_insight_reset(struct db *db, const char *namespace_id, const char *table_name);

#endif
