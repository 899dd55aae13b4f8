/*
 * tags.c - TagResource, UntagResource and ListTagsOfResource: a table's tags.
 *
 * Tags are part of the table's definition (schema.h, struct tag), so they are
 * recorded with it and vanish with the table. TagResource upserts and
 * UntagResource ignores absent keys; the 50-tag limit applies to the set
 * after the merge and is a ValidationException (ack-api-quirks DDB-TABLE-105,
 * 107, 108, live service 2026-10). The tag rules on keys and values are api/'s
 * (table_rules.c). Changes are visible at once: AWS shows them after ~2 s and
 * refuses a second change meanwhile (docs/differences.md).
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void tags_free(struct tag *tags, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(tags[i].key);
        free(tags[i].value);
    }
    free(tags);
}

static ssize_t find_tag(const struct table_def *def, const char *key)
{
    for (size_t i = 0; i < def->tag_count; i++)
        if (strcmp(def->tags[i].key, key) == 0) return (ssize_t) i;
    return -1;
}

int db_list_tags(struct db *db, const struct db_scope *scope, const char *table_name,
                 const char *resource_arn, struct tag **tags, size_t *count, struct ddb_error *err)
{
    struct table *t;
    int rc = -1;

    *tags = NULL;
    *count = 0;
    db_read_lock(db);
    if (!(t = db_find_table(db, scope, table_name))) {
        ddb_error_resource_arn_not_found(err, resource_arn);
        goto out;
    }
    if (t->def.tag_count) *tags = xcalloc(t->def.tag_count, sizeof **tags);
    for (size_t i = 0; i < t->def.tag_count; i++) {
        (*tags)[i].key = xstrdup(t->def.tags[i].key);
        (*tags)[i].value = xstrdup(t->def.tags[i].value);
    }
    *count = t->def.tag_count;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_tag_resource(struct db *db, const struct db_scope *scope, const char *table_name,
                    const char *resource_arn, const struct tag *tags, size_t count,
                    struct ddb_error *err)
{
    struct table *t;
    size_t added = 0;
    int rc = -1;

    db_write_lock(db);
    if (!(t = db_find_table(db, scope, table_name))) {
        ddb_error_resource_arn_not_found(err, resource_arn);
        goto out;
    }
    /* The request's keys are distinct (checked by api/), so the merged count is exact. */
    for (size_t i = 0; i < count; i++)
        if (find_tag(&t->def, tags[i].key) < 0) added++;
    if (t->def.tag_count + added > DDB_MAX_TAGS) {
        ddb_error_set(err, DDB_VALIDATION,
                      "Number of Tags exceed the current limit for the provided ResourceArn");
        goto out;
    }
    t->def.tags = xrealloc(t->def.tags, (t->def.tag_count + added + 1) * sizeof *t->def.tags);
    for (size_t i = 0; i < count; i++) {
        ssize_t at = find_tag(&t->def, tags[i].key);
        if (at >= 0) {
            free(t->def.tags[at].value);
            t->def.tags[at].value = xstrdup(tags[i].value);
        } else {
            t->def.tags[t->def.tag_count].key = xstrdup(tags[i].key);
            t->def.tags[t->def.tag_count].value = xstrdup(tags[i].value);
            t->def.tag_count++;
        }
    }
    persist_table(t);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_untag_resource(struct db *db, const struct db_scope *scope, const char *table_name,
                      const char *resource_arn, char *const *keys, size_t count,
                      struct ddb_error *err)
{
    struct table *t;
    bool changed = false;
    int rc = -1;

    db_write_lock(db);
    if (!(t = db_find_table(db, scope, table_name))) {
        ddb_error_resource_arn_not_found(err, resource_arn);
        goto out;
    }
    for (size_t i = 0; i < count; i++) {
        ssize_t at = find_tag(&t->def, keys[i]);
        if (at < 0) continue;
        free(t->def.tags[at].key);
        free(t->def.tags[at].value);
        memmove(&t->def.tags[at], &t->def.tags[at + 1],
                (t->def.tag_count - (size_t) at - 1) * sizeof *t->def.tags);
        t->def.tag_count--;
        changed = true;
    }
    if (changed) persist_table(t);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
