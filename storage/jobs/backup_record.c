/*
 * backup_record.c - on-demand backups as records: status names, copying and freeing
 * descriptions, taking a backup of a table, and the list of backups the
 * engine keeps.
 *
 * Kept apart from storage/control/backups.c (which runs CreateBackup and its
 * kin and records them on disk) so that the engine and its loader can hold
 * and free backups without depending on the code that serves them. Locking:
 * the list functions need the engine lock held exclusively (asserted); the
 * rest works on caller-owned data.
 *
 * ARNs are formed as AWS forms them: "<table ARN>/backup/<13-digit epoch
 * ms, zero-padded to 14>-<8 hex digits>" (API reference, BackupArn examples
 * "arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/
 * 01489173575360-b308cd7d").
 */
#include "storage/jobs/backup_record.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/base/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

const char *backup_status_name(enum backup_status s)
{
    static const char *const names[] = {"CREATING", "DELETED", "AVAILABLE"};
    return names[s];
}

/* The strings a description owns, listed once so that clearing and copying
 * cannot disagree; def, the one owned member that is no string, is handled
 * beside them. */
#define BACKUP_DESC_STRINGS(X)                                                                     \
    X(arn);                                                                                        \
    X(name);                                                                                       \
    X(table_name);                                                                                 \
    X(table_id);                                                                                   \
    X(table_arn);                                                                                  \
    X(ttl_attribute)

/* One owned string m of a description: freed in d, or copied from src to dst. */
#define FREE_STRING(m) free(d->m)
#define COPY_STRING(m) dst->m = xstrdup_or_null(src->m)

void backup_desc_clear(struct backup_desc *d)
{
    BACKUP_DESC_STRINGS(FREE_STRING);
    table_def_clear(&d->def);
    memset(d, 0, sizeof *d);
}

void backup_desc_copy(struct backup_desc *dst, const struct backup_desc *src)
{
    *dst = *src;
    BACKUP_DESC_STRINGS(COPY_STRING);
    table_def_copy(&dst->def, &src->def);
}

void backup_free_contents(struct backup *b)
{
    free(b->namespace_id);
    backup_desc_clear(&b->desc);
    for (size_t i = 0; i < b->item_count; i++)
        item_unref(b->items[i]);
    free(b->items);
}

bool backup_is_live(const struct backup *b, int64_t now_ms)
{
    return !b->desc.expiry_ms || b->desc.expiry_ms > now_ms;
}

static char *new_backup_arn(const char *table_arn, int64_t now_ms)
{
    uint32_t r = 0;
    struct text_buf b = {0};

    if (getrandom(&r, sizeof r, 0) != (ssize_t) sizeof r) r = (uint32_t) now_ms * 2654435761U;
    text_buf_printf(&b, "%s/backup/%014" PRId64 "-%08" PRIx32, table_arn, now_ms, r);
    return text_buf_take(&b, NULL);
}

void backup_snapshot(const char *namespace_id, const struct table *t, const char *name,
                     int64_t now_ms, struct backup *b)
{
    size_t n = 0;

    memset(b, 0, sizeof *b);
    b->namespace_id = xstrdup(namespace_id);
    b->desc.arn = new_backup_arn(t->arn, now_ms);
    b->desc.name = xstrdup(name);
    b->desc.status = BACKUP_AVAILABLE;
    b->desc.creation_ms = now_ms;
    b->desc.size_bytes = t->size_bytes;
    b->desc.item_count = (int64_t) t->items.count;
    b->desc.table_name = xstrdup(t->def.name);
    b->desc.table_id = xstrdup(t->table_id);
    b->desc.table_arn = xstrdup(t->arn);
    b->desc.table_creation_ms = t->creation_ms;
    table_def_copy(&b->desc.def, &t->def);
    b->desc.ttl_enabled = t->ttl.enabled;
    b->desc.ttl_attribute = xstrdup_or_null(t->ttl.attribute);
    b->items = xmalloc(sizeof *b->items * (t->items.count ? t->items.count : 1));
    for (struct skiplist_node *node = skiplist_first(&t->items); node; node = skiplist_next(node))
        b->items[n++] = item_ref(node->item);
    b->item_count = n;
}

void backup_list_add(struct backup_list *l, struct backup *b)
{
    assert_lock_exclusive();
    l->backups = xrealloc(l->backups, sizeof *l->backups * (l->count + 1));
    l->backups[l->count++] = *b;
    memset(b, 0, sizeof *b);
}

void backup_list_forget(struct backup_list *l, const char *namespace_id)
{
    assert_lock_exclusive();
    size_t kept = 0;

    for (size_t i = 0; i < l->count; i++) {
        struct backup *b = &l->backups[i];
        if (!namespace_id || strcmp(b->namespace_id, namespace_id) == 0)
            backup_free_contents(b);
        else
            l->backups[kept++] = *b;
    }
    l->count = kept;
}
