/*
 * report_file.h - the access-pattern report left in --db-path when the
 * server stops, for `ddbemu insight --check --db-path DIR` to judge after
 * the run (docs/testing.md, "The CI gate").
 */
#ifndef DDB_EMULATOR_REPORT_FILE_H
#define DDB_EMULATOR_REPORT_FILE_H

#include "storage/engine/db.h"

/* The file's name inside the data directory. The persistence layer reads only
 * its own files (*.db, *.log), so this one is left alone. */
#define REPORT_FILE_NAME "insight-report.json"

/* Writes the whole report (api/control/insight.h) into dir, replacing the
 * previous one in one rename. Returns 0, or -1 after saying why on stderr. */
int report_file_write(struct db *db, const char *dir);

#endif
