/*
 * backup_record.h - an on-demand backup as a record: its description, the items it
 * holds, and the list of backups the engine keeps (backup_record.c).
 *
 * Below storage/engine/ so that the engine, its loader and DeleteTable hold
 * and free backups by calling down; the operations that make and read them
 * are in storage/control/backups.c. Ownership: every string of a description
 * is owned by it; a backup owns its namespace id, description and item
 * references; the list owns its backups.
 */
#ifndef DDB_JOBS_BACKUP_RECORD_H
#define DDB_JOBS_BACKUP_RECORD_H

#include "storage/model/item.h"
#include "storage/model/schema.h"
#include "storage/table/table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BackupStatus. A backup is complete when CreateBackup answers (the
 * emulator copies references to immutable items), so CREATING is only in
 * that answer, and DELETED only in DeleteBackup's. */
enum backup_status { BACKUP_CREATING, BACKUP_DELETED, BACKUP_AVAILABLE };
const char *backup_status_name(enum backup_status s);

/* A BackupDescription: the backup and its source table as it was. Owned strings. */
struct backup_desc {
    char *arn;
    char *name;
    enum backup_status status;
    int64_t creation_ms;
    int64_t size_bytes;
    int64_t item_count;
    char *table_name;
    char *table_id;
    char *table_arn;
    int64_t table_creation_ms;
    struct table_def def; /* indexes, billing, throughput, stream, SSE at backup time */
    bool ttl_enabled;
    char *ttl_attribute; /* NULL unless ttl_enabled */
    /* BackupType SYSTEM: the backup DeleteTable leaves of a table with
     * point-in-time recovery on, gone at expiry_ms; USER otherwise (no expiry). */
    bool system;
    int64_t expiry_ms;
};

void backup_desc_clear(struct backup_desc *d);
void backup_desc_copy(struct backup_desc *dst, const struct backup_desc *src);
/* An on-demand backup: its description and its items. */
struct backup {
    char *namespace_id;
    struct backup_desc desc;
    struct item **items; /* owned references, in key order */
    size_t item_count;
};

/* Every backup the engine holds, in creation order. */
struct backup_list {
    struct backup *backups;
    size_t count;
};

/* Frees what a backup holds (its namespace, description and item
 * references), leaving *b to be dropped from its list. */
void backup_free_contents(struct backup *b);
/* Whether b is still kept at now_ms (a SYSTEM backup expires). */
bool backup_is_live(const struct backup *b, int64_t now_ms);
/* A backup of t as it is now, named name, in namespace_id: its description
 * and references to its items (immutable, so a million items cost a million
 * pointers, not a copy). Status AVAILABLE, type USER. */
void backup_snapshot(const char *namespace_id, const struct table *t, const char *name,
                     int64_t now_ms, struct backup *b);
/* Adds b (taken: *b is left empty) at the end; the engine lock is held exclusively. */
void backup_list_add(struct backup_list *l, struct backup *b);
/* Frees the backups of namespace_id (NULL: all); the engine lock is held exclusively. */
void backup_list_forget(struct backup_list *l, const char *namespace_id);

#endif
