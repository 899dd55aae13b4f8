/*
 * disk.h - the files of the data directory: their names, the directory lock,
 * the SQLite schema with its versions and upgrades, and the checks that
 * refuse a file ddbemu must not touch.
 *
 * A namespace file holds: meta (its namespace), tables (uid, encoded
 * definition and state), items (uid, encoded key, encoded item), streams
 * (ARN, encoded metadata), stream_records (ARN, sequence number, encoded
 * record), tokens (client request tokens), pitr_history (uid, seq, time,
 * encoded old and new item: a table's point-in-time recovery history),
 * backups (ARN, encoded description) and backup_items (ARN, seq, encoded
 * item); its meta also records how far the log has been folded into it
 * (DISK_META_FOLDED). ddbemu.db holds the
 * engine-wide integers (meta) and the named snapshots (snapshot_file.h). Every file carries PRAGMA
 * application_id DISK_APPLICATION_ID and PRAGMA user_version = its schema version.
 *
 * The schema is versioned from the first release: disk_migrations[i] takes a
 * file from version i to i + 1, and opening applies the missing steps in one
 * transaction. A file with a newer version, another application id, or that
 * SQLite finds damaged is refused: the caller prints the reason and exits.
 *
 * All functions here are called by the journal (journal*.c) only, before
 * the writer starts or from the writer thread; none is reentrant on the
 * same handle.
 */
#ifndef DDB_DISK_H
#define DDB_DISK_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "DDBE": who wrote the file. */
#define DISK_APPLICATION_ID 0x44444245
/* The namespace file ddbemu.db is not one. */
#define DISK_META_FILE "ddbemu.db"
#define DISK_LOCK_FILE "ddbemu.lock"
/* The meta key of a namespace file that holds the number of the last unit
 * of the log (wal_log.h) whose changes to the file it holds. */
#define DISK_META_FOLDED "log_folded"

/* The SQL of each upgrade step of a namespace file: [0] creates version 1. */
extern const char *const disk_migrations[];
extern const size_t disk_migration_count; /* == the current schema version */
/* The schema version of ddbemu.db this build writes (2: the named snapshots). */
extern const size_t disk_meta_version;

/* Sets *why (owned) to "<path>: <what>[: <SQLite's message>]" and returns -1. */
int disk_fail(char **why, const char *path, sqlite3 *db, const char *what);

/* dir/name, owned. */
char *disk_join(const char *dir, const char *name);
/* The file of a namespace: "shared-local-instance.db" for the shared one,
 * "<access key>_<region>.db" for "<access key>/<region>", other bytes
 * percent-escaped. Owned. */
char *disk_namespace_path(const char *dir, const char *namespace_id);
char *disk_meta_path(const char *dir);

/* Creates dir when missing and takes its lock (flock on ddbemu.lock, which
 * then holds our pid). Refuses a directory another process holds. */
int disk_lock_dir(const char *dir, int *fd, char **why);
void disk_unlock_dir(int fd);

/* Opens ddbemu.db (created when missing), checked and upgraded. */
int disk_open_meta(const char *dir, sqlite3 **db, char **why);
int64_t disk_meta_get(sqlite3 *db, const char *key);
int disk_meta_set(sqlite3 *db, const char *key, int64_t value);

/* Opens the namespace file at path: with create, a missing file is created
 * for namespace_id; otherwise it must exist. The file is checked (ours, not
 * newer, readable) and upgraded, and set up for the journal (WAL,
 * synchronous=NORMAL). *namespace_out receives the namespace it holds (owned). */
int disk_open_namespace(const char *path, const char *namespace_id, bool create, sqlite3 **db,
                        char **namespace_out, char **why);

/* The names of the namespace files in dir (every *.db but ddbemu.db), owned. */
int disk_list_namespace_files(const char *dir, char ***names, size_t *count, char **why);

#endif
