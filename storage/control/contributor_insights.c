/*
 * contributor_insights.c - DescribeContributorInsights, UpdateContributorInsights and
 * ListContributorInsights: whether CloudWatch Contributor Insights is on for
 * a table or one of its global secondary indexes.
 *
 * ddbemu has no CloudWatch: the setting is kept, described with the rule
 * names DynamoDB would create, and changes nothing else
 * (docs/differences.md). What AWS does, as recorded by the ack-api-quirks lab
 * (DDB-TABLE-092, 098, 115, 446, live service 2026-10): ENABLE without a mode
 * means ACCESSED_AND_THROTTLED_KEYS; ENABLE with the current mode is a no-op
 * answered ENABLED, any other ENABLE or DISABLE answers ENABLING/DISABLING
 * (which settles here at once); a missing index is "Requested resource not
 * found: Index: <i> not found for table: <t>".
 */
#include "storage/base/alloc.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_MODE "ACCESSED_AND_THROTTLED_KEYS"

void insights_desc_clear(struct insights_desc *d)
{
    free(d->table_name);
    free(d->index_name);
    free(d->mode);
    memset(d, 0, sizeof *d);
}

/* The table, and the index named index_name (NULL: none asked) with an error when missing. */
static int find(struct db *db, const struct db_scope *scope, const char *table_name,
                const char *index_name, struct table **t, const struct index_def **index,
                struct ddb_error *err)
{
    *index = NULL;
    if (!(*t = db_find_table(db, scope, table_name)))
        return ddb_error_table_not_found(err, table_name);
    if (!index_name) return 0;
    *index = table_def_find_index(&(*t)->def, index_name);
    if (!*index || !(*index)->is_global)
        return ddb_error_insights_index_not_found(err, index_name, table_name);
    return 0;
}

static void describe(const struct table *t, const struct index_def *index,
                     const struct insights_setting *s, struct insights_desc *out)
{
    memset(out, 0, sizeof *out);
    out->table_name = xstrdup(t->def.name);
    out->index_name = index ? xstrdup(index->name) : NULL;
    out->has_sort_key = index ? index->key.range_count > 0 : t->def.key.range_count > 0;
    if (!s) return;
    out->ever_set = true;
    out->enabled = s->enabled;
    out->mode = xstrdup_or_null(s->mode);
    out->updated_ms = s->updated_ms;
}

int db_describe_insights(struct db *db, const struct db_scope *scope, const char *table_name,
                         const char *index_name, struct insights_desc *out, struct ddb_error *err)
{
    struct table *t;
    const struct index_def *index;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_read_lock(db);
    if (find(db, scope, table_name, index_name, &t, &index, err) != 0) goto out;
    describe(t, index, table_meta_insights(&t->meta, index_name), out);
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_update_insights(struct db *db, const struct db_scope *scope, const char *table_name,
                       const char *index_name, bool enable, const char *mode,
                       struct insights_desc *out, struct ddb_error *err)
{
    struct table *t;
    const struct index_def *index;
    struct insights_setting *s;
    bool changing;
    int rc = -1;

    memset(out, 0, sizeof *out);
    db_write_lock(db);
    if (find(db, scope, table_name, index_name, &t, &index, err) != 0) goto out;
    s = table_meta_insights_add(&t->meta, index_name);
    if (enable) {
        const char *want = mode ? mode : DEFAULT_MODE;
        changing = !s->enabled || !s->mode || strcmp(s->mode, want) != 0;
        if (changing) {
            free(s->mode);
            s->mode = xstrdup(want);
            s->enabled = true;
            s->updated_ms = db_now_ms(db);
        }
    } else {
        /* DISABLE answers with the current mode, whatever mode it carries. */
        changing = s->enabled;
        s->enabled = false;
    }
    if (changing) persist_table(t);
    describe(t, index, s, out);
    out->changing = changing;
    rc = 0;
out:
    db_unlock(db);
    return rc;
}

int db_list_insights(struct db *db, const struct db_scope *scope, const char *table_name,
                     struct insights_desc **out, size_t *count, struct ddb_error *err)
{
    struct namespace *ns;
    struct table *only = NULL;
    int rc = -1;

    *out = NULL;
    *count = 0;
    db_read_lock(db);
    if (table_name && !(only = db_find_table(db, scope, table_name))) {
        ddb_error_table_not_found(err, table_name);
        goto out;
    }
    ns = db_find_namespace(db, scope);
    for (size_t i = 0; ns && i < ns->table_count; i++) {
        struct table *t = ns->tables[i];
        if (only && t != only) continue;
        for (size_t j = 0; j < t->meta.insights_count; j++) {
            const struct insights_setting *s = &t->meta.insights[j];
            const struct index_def *index =
                s->index_name ? table_def_find_index(&t->def, s->index_name) : NULL;
            if (s->index_name && !index) continue; /* the index was deleted */
            *out = xrealloc(*out, (*count + 1) * sizeof **out);
            describe(t, index, s, &(*out)[(*count)++]);
        }
    }
    rc = 0;
out:
    db_unlock(db);
    return rc;
}
