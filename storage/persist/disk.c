/*
 * disk.c - the data directory's files, schema versions and checks; see disk.h.
 */
#include "storage/persist/disk.h"

#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The namespace API_SHARED_NAMESPACE of api/http/dispatch.h; its file is
 * DynamoDB Local's shared-db file name. */
#define SHARED_NAMESPACE "shared-local-instance"

/* Version 1 is the first layout. Version 2 added the client-token table, so
 * that a TransactWriteItems retry after a restart is still recognised.
 * Version 3 added the point-in-time recovery history of tables and the
 * on-demand backups with their items, so that restores work after a restart.
 * Version 4 added the log (wal_log.h): a file records the last unit of the
 * log folded into it, and the changes after it are in the log files next to
 * it - which an older ddbemu would not read, so it must refuse the file.
 * Version 5 added the bulk put items operations, so that DescribeBulkOperation
 * and ListBulkOperations answer after a restart. */
const char *const disk_migrations[] = {
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE tables(uid INTEGER PRIMARY KEY, state BLOB NOT NULL);"
    "CREATE TABLE items(uid INTEGER NOT NULL, key BLOB NOT NULL, item BLOB NOT NULL,"
    "  PRIMARY KEY(uid, key)) WITHOUT ROWID;"
    "CREATE TABLE streams(arn TEXT PRIMARY KEY, state BLOB NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE stream_records(arn TEXT NOT NULL, seq INTEGER NOT NULL, record BLOB NOT NULL,"
    "  PRIMARY KEY(arn, seq)) WITHOUT ROWID;",
    "CREATE TABLE tokens(token TEXT PRIMARY KEY, digest TEXT NOT NULL,"
    "  expires_ms INTEGER NOT NULL) WITHOUT ROWID;",
    "CREATE TABLE pitr_history(uid INTEGER NOT NULL, seq INTEGER NOT NULL, ms INTEGER NOT NULL,"
    "  old_item BLOB, new_item BLOB, PRIMARY KEY(uid, seq)) WITHOUT ROWID;"
    "CREATE TABLE backups(arn TEXT PRIMARY KEY, state BLOB NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE backup_items(arn TEXT NOT NULL, seq INTEGER NOT NULL, item BLOB NOT NULL,"
    "  PRIMARY KEY(arn, seq)) WITHOUT ROWID;",
    "INSERT OR REPLACE INTO meta(key, value) VALUES ('" DISK_META_FOLDED "', 0);",
    "CREATE TABLE bulk_operations(arn TEXT PRIMARY KEY, state BLOB NOT NULL) WITHOUT ROWID;",
};
const size_t disk_migration_count = sizeof disk_migrations / sizeof disk_migrations[0];

/* ddbemu.db. Version 1 holds the engine-wide integers. Version 2 added the
 * named snapshots (snapshot_file.h), so that they survive a restart: a
 * snapshot's row (its name, creation order and namespaces) and, keyed by the
 * snapshot's number and the namespace's position in it, its tables' records,
 * their items in key order, their point-in-time history, its streams and
 * their records. An older ddbemu refuses a version 2 file. */
static const char *const meta_migrations[] = {
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;",
    "CREATE TABLE snapshots(snap INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    "  state BLOB NOT NULL);"
    "CREATE TABLE snapshot_tables(snap INTEGER NOT NULL, ns INTEGER NOT NULL,"
    "  pos INTEGER NOT NULL, state BLOB NOT NULL, PRIMARY KEY(snap, ns, pos)) WITHOUT ROWID;"
    "CREATE TABLE snapshot_items(snap INTEGER NOT NULL, ns INTEGER NOT NULL,"
    "  pos INTEGER NOT NULL, seq INTEGER NOT NULL, item BLOB NOT NULL,"
    "  PRIMARY KEY(snap, ns, pos, seq)) WITHOUT ROWID;"
    "CREATE TABLE snapshot_history(snap INTEGER NOT NULL, ns INTEGER NOT NULL,"
    "  pos INTEGER NOT NULL, seq INTEGER NOT NULL, ms INTEGER NOT NULL, old_item BLOB,"
    "  new_item BLOB, PRIMARY KEY(snap, ns, pos, seq)) WITHOUT ROWID;"
    "CREATE TABLE snapshot_streams(snap INTEGER NOT NULL, ns INTEGER NOT NULL,"
    "  arn TEXT NOT NULL, state BLOB NOT NULL, PRIMARY KEY(snap, ns, arn)) WITHOUT ROWID;"
    "CREATE TABLE snapshot_stream_records(snap INTEGER NOT NULL, ns INTEGER NOT NULL,"
    "  arn TEXT NOT NULL, seq INTEGER NOT NULL, record BLOB NOT NULL,"
    "  PRIMARY KEY(snap, ns, arn, seq)) WITHOUT ROWID;",
};
#define META_VERSION (sizeof meta_migrations / sizeof meta_migrations[0])
const size_t disk_meta_version = META_VERSION;

int disk_fail(char **why, const char *path, sqlite3 *db, const char *what)
{
    struct text_buf b = {0};

    if (*why) return -1; /* the first reason wins */
    text_buf_printf(&b, "%s: %s", path, what);
    if (db) text_buf_printf(&b, ": %s", sqlite3_errmsg(db));
    *why = text_buf_take(&b, NULL);
    return -1;
}

char *disk_join(const char *dir, const char *name)
{
    struct text_buf b = {0};

    text_buf_printf(&b, "%s/%s", dir, name);
    return text_buf_take(&b, NULL);
}

char *disk_meta_path(const char *dir)
{
    return disk_join(dir, DISK_META_FILE);
}

/* Appends s[0..len) with every byte outside [A-Za-z0-9.-] (and a leading '.')
 * as %XX, so that no namespace can name a path outside the directory. */
static void escape_part(struct text_buf *b, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || (c == '.' && i > 0);
        if (plain)
            text_buf_add(b, (const char *) &c, 1);
        else
            text_buf_printf(b, "%%%02X", c);
    }
}

char *disk_namespace_path(const char *dir, const char *namespace_id)
{
    struct text_buf b = {0};
    const char *slash = strchr(namespace_id, '/');

    text_buf_printf(&b, "%s/", dir);
    if (strcmp(namespace_id, SHARED_NAMESPACE) == 0) {
        text_buf_puts(&b, SHARED_NAMESPACE);
    } else if (slash) {
        escape_part(&b, namespace_id, (size_t) (slash - namespace_id));
        text_buf_puts(&b, "_");
        escape_part(&b, slash + 1, strlen(slash + 1));
    } else {
        escape_part(&b, namespace_id, strlen(namespace_id));
    }
    text_buf_puts(&b, ".db");
    return text_buf_take(&b, NULL);
}

/* ------------------------------------------------------------------------ */
/* the directory lock                                                        */
/* ------------------------------------------------------------------------ */

int disk_lock_dir(const char *dir, int *fd, char **why)
{
    char *path = disk_join(dir, DISK_LOCK_FILE);
    char pid[32];
    int rc = -1;

    *fd = -1;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        *why = NULL;
        disk_fail(why, dir, NULL, "cannot create the data directory");
        free(path);
        return -1;
    }
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (*fd < 0) {
        struct text_buf b = {0};
        text_buf_printf(&b, "%s: cannot open the lock file: %s", path, strerror(errno));
        *why = text_buf_take(&b, NULL);
        goto out;
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        struct text_buf b = {0};
        ssize_t n = pread(*fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        text_buf_printf(&b, "%s is in use by another ddbemu%s%s%s", dir, pid[0] ? " (pid " : "",
                        pid, pid[0] ? ")" : "");
        *why = text_buf_take(&b, NULL);
        close(*fd);
        *fd = -1;
        goto out;
    }
    snprintf(pid, sizeof pid, "%ld\n", (long) getpid());
    if (ftruncate(*fd, 0) != 0 || pwrite(*fd, pid, strlen(pid), 0) < 0) {
        /* The pid is only for the message above; the lock is what counts. */
    }
    rc = 0;
out:
    free(path);
    return rc;
}

void disk_unlock_dir(int fd)
{
    if (fd >= 0) close(fd); /* releases the flock */
}

/* ------------------------------------------------------------------------ */
/* opening, checking, upgrading                                              */
/* ------------------------------------------------------------------------ */

static int pragma_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/*
 * Checks that the file is ours and not newer, then applies the missing
 * upgrade steps (all of them for a new, empty file) in one transaction.
 * A file SQLite cannot read ("file is not a database", a damaged page) fails
 * in the first query.
 */
static int check_and_upgrade(sqlite3 *db, const char *path, const char *const *steps,
                             size_t step_count, char **why)
{
    int64_t app_id = 0, version = 0, objects = 0;
    struct text_buf b = {0};

    if (pragma_int(db, "SELECT count(*) FROM sqlite_master", &objects) != 0 ||
        pragma_int(db, "PRAGMA application_id", &app_id) != 0 ||
        pragma_int(db, "PRAGMA user_version", &version) != 0)
        return disk_fail(why, path, db, "cannot be read as a ddbemu database");
    if (objects && app_id != DISK_APPLICATION_ID)
        return disk_fail(why, path, NULL,
                         "is not a ddbemu database (another program's SQLite file?); it was "
                         "left untouched");
    if (version > (int64_t) step_count) {
        text_buf_printf(&b,
                        "was written by a newer ddbemu (schema version %lld; this one reads up "
                        "to %zu); it was left untouched",
                        (long long) version, step_count);
        disk_fail(why, path, NULL, b.data);
        text_buf_clear(&b);
        return -1;
    }
    if (version == (int64_t) step_count) return 0;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return disk_fail(why, path, db, "cannot be upgraded");
    for (size_t v = (size_t) version; v < step_count; v++) {
        if (sqlite3_exec(db, steps[v], NULL, NULL, NULL) != SQLITE_OK) {
            disk_fail(why, path, db, "cannot be upgraded");
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    text_buf_printf(&b, "PRAGMA application_id = %d; PRAGMA user_version = %zu; COMMIT",
                    DISK_APPLICATION_ID, step_count);
    if (sqlite3_exec(db, b.data, NULL, NULL, NULL) != SQLITE_OK) {
        disk_fail(why, path, db, "cannot be upgraded");
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        text_buf_clear(&b);
        return -1;
    }
    text_buf_clear(&b);
    return 0;
}

/* Opens path with SQLite, creating it only when create is set. Nothing is
 * written yet: a file that is then refused is left as it was. */
static int open_file(const char *path, bool create, sqlite3 **db, char **why)
{
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);

    *db = NULL;
    if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
        disk_fail(why, path, *db, "cannot be opened");
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_extended_result_codes(*db, 1);
    return 0;
}

/*
 * Sets up a checked file for the journal. WAL: a commit is one append.
 * synchronous=NORMAL: durable against a crash of the process; a power loss
 * can lose the commits since the last checkpoint (journal.h). Exclusive
 * locking: this process is the file's only user (the directory lock says
 * so), so SQLite need not take file locks at every transaction nor share
 * its WAL index through memory-mapped files.
 */
static int set_up(sqlite3 *db, const char *path, char **why)
{
    if (sqlite3_exec(db,
                     "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; "
                     "PRAGMA synchronous=NORMAL",
                     NULL, NULL, NULL) != SQLITE_OK)
        return disk_fail(why, path, db, "cannot be read as a ddbemu database");
    return 0;
}

int disk_open_meta(const char *dir, sqlite3 **db, char **why)
{
    char *path = disk_meta_path(dir);
    int rc = open_file(path, true, db, why);

    if (rc == 0) rc = check_and_upgrade(*db, path, meta_migrations, META_VERSION, why);
    if (rc == 0) rc = set_up(*db, path, why);
    if (rc != 0 && *db) {
        sqlite3_close(*db);
        *db = NULL;
    }
    free(path);
    return rc;
}

int64_t disk_meta_get(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st;
    int64_t v = 0;

    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int disk_meta_set(sqlite3 *db, const char *key, int64_t value)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, value);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The namespace a file records, owned; NULL when it records none. */
static char *file_namespace(sqlite3 *db)
{
    sqlite3_stmt *st;
    char *ns = NULL;

    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'namespace'", -1, &st, NULL) !=
        SQLITE_OK)
        return NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        ns = xstrdup((const char *) sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return ns;
}

int disk_open_namespace(const char *path, const char *namespace_id, bool create, sqlite3 **db,
                        char **namespace_out, char **why)
{
    *namespace_out = NULL;
    if (open_file(path, create, db, why) != 0) return -1;
    if (check_and_upgrade(*db, path, disk_migrations, disk_migration_count, why) != 0 ||
        set_up(*db, path, why) != 0)
        goto fail;
    *namespace_out = file_namespace(*db);
    if (!*namespace_out && namespace_id) {
        sqlite3_stmt *st;
        int rc = -1;
        if (sqlite3_prepare_v2(*db, "INSERT INTO meta(key, value) VALUES ('namespace', ?)", -1, &st,
                               NULL) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, namespace_id, -1, SQLITE_STATIC);
            rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
            sqlite3_finalize(st);
        }
        if (rc != 0) {
            disk_fail(why, path, *db, "cannot be written");
            goto fail;
        }
        *namespace_out = xstrdup(namespace_id);
    }
    if (!*namespace_out) {
        disk_fail(why, path, NULL, "is a ddbemu database without its namespace (damaged?)");
        goto fail;
    }
    return 0;
fail:
    free(*namespace_out);
    *namespace_out = NULL;
    sqlite3_close(*db);
    *db = NULL;
    return -1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

int disk_list_namespace_files(const char *dir, char ***names, size_t *count, char **why)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    *names = NULL;
    *count = 0;
    if (!d) return disk_fail(why, dir, NULL, "cannot be read");
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 3 || strcmp(e->d_name + len - 3, ".db") != 0) continue;
        if (strcmp(e->d_name, DISK_META_FILE) == 0) continue;
        *names = xrealloc(*names, sizeof **names * (*count + 1));
        (*names)[(*count)++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (*count) qsort(*names, *count, sizeof **names, compare_names);
    return 0;
}
