/*
 * journal_internal.h - what journal_load.c needs of journal.c's files, and
 * nothing else includes.
 */
#ifndef DDB_JOURNAL_INTERNAL_H
#define DDB_JOURNAL_INTERNAL_H

#include <sqlite3.h>

struct journal_file;

/* The file's SQLite handle (borrowed). Read only, and only before the
 * writer starts using it (loading happens before any request is served). */
sqlite3 *journal_file_db(const struct journal_file *f);

#endif
