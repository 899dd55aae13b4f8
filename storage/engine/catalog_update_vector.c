/*
 * catalog_update_vector.c - UpdateTable's VectorIndexUpdates: the rules that
 * need the table (checked under the exclusive lock with the others, from
 * catalog_update_check.c) and the change (from catalog_update.c).
 *
 * Texts: spec-24 2.3 (dynoxide's captures from the live service). An index
 * is created filled at once (the table's items copied within the critical
 * section); the answer shows it CREATING; with --delay-transient-statuses it
 * stays CREATING with Backfilling true for DDB_DELAY_INDEX_CREATING_MS, like a
 * GSI, and SearchVectors refuses it meanwhile (db_search.c).
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/catalog.h"

#include <string.h>

#define INVALID "One or more parameter values were invalid: "

int catalog_vector_billing(const struct update_plan *p, struct ddb_error *err)
{
    assert_lock_exclusive();
    const struct table_update *u = p->u;

    if (p->on_demand) return 0;
    if (u->has_vector_update && !u->vector_delete)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID
                             "Vector indexes are only supported for PAY_PER_REQUEST tables");
    /* Even when the same call deletes the last one (dynoxide's capture). */
    if (p->t->def.vector_count)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "Tables with vector indexes must be in PAY_PER_REQUEST mode");
    return 0;
}

static bool name_in_use(const struct table *t, const char *name)
{
    return table_def_find_index(&t->def, name) || table_def_find_vector(&t->def, name);
}

static int check_create(const struct update_plan *p, const struct vector_index_def *v, bool running,
                        struct ddb_error *err)
{
    const struct table *t = p->t;
    enum value_type type;

    if (name_in_use(t, v->name))
        return ddb_error_set(err, DDB_VALIDATION,
                             "Attempting to create an index which already "
                             "exists");
    if (running)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Subscriber limit exceeded: Only 1 online index can be created or "
                             "deleted simultaneously per table");
    if (t->def.vector_count >= DDB_MAX_VECTOR_INDEXES)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "VectorIndex count exceeds the per-table limit of %d",
                             DDB_MAX_VECTOR_INDEXES);
    if (table_def_attr_type(&t->def, v->attribute, &type))
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "Conflicting attribute definition for '%s'. An attribute "
                                     "cannot be defined in AttributeDefinitions when used as a "
                                     "VectorAttribute.",
                             v->attribute);
    for (size_t i = 0; i < t->def.vector_count; i++) {
        const struct vector_index_def *o = &t->def.vectors[i];
        if (strcmp(o->attribute, v->attribute) == 0 && o->dimensions != v->dimensions)
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "Conflicting attribute definition for '%s'. All "
                                         "VectorIndexes on the same vector attribute must use "
                                         "the same dimensions.",
                                 v->attribute);
    }
    return 0;
}

int catalog_vector_change(const struct update_plan *p, bool running, struct ddb_error *err)
{
    const struct table_update *u = p->u;

    assert_lock_exclusive();
    if (!u->has_vector_update) return 0;
    if (!u->vector_delete) return check_create(p, &u->vector, running, err);
    if (!table_def_find_vector(&p->t->def, u->vector.name))
        return ddb_error_set(err, DDB_RESOURCE_NOT_FOUND,
                             "Requested resource not found: Index %s for table %s", u->vector.name,
                             p->t->def.name);
    if (running)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Subscriber limit exceeded: Only 1 online index can be created or "
                             "deleted simultaneously per table");
    return 0;
}

/* The position of vector index name in a description, or the count. */
static size_t desc_pos(const struct table_desc *d, const char *name)
{
    size_t i;
    for (i = 0; i < d->def.vector_count; i++) {
        if (strcmp(d->def.vectors[i].name, name) == 0) break;
    }
    return i;
}

/* Adds the Create's index: SearchSchema attributes defined as the request
 * defines them, then the index, filled from the table's items. */
static void apply_create(struct db *db, const struct update_plan *p)
{
    const struct table_update *u = p->u;
    struct vector_index_def copy;
    struct vector_index *vi;

    for (size_t i = 0; i < u->vector.search_count; i++) {
        enum value_type type = VALUE_S;
        catalog_attr_def_type(u->attr_defs, u->attr_def_count, u->vector.search[i].name, &type);
        table_define_attr(p->t, u->vector.search[i].name, type);
    }
    vector_index_def_copy(&copy, &u->vector);
    vi = table_add_vector(p->t, &copy);
    vi->report_backfilling = true;
    if (db->delay_transient) {
        vi->transient = INDEX_CREATING;
        vi->transient_until_ms = p->now_ms + DDB_DELAY_INDEX_CREATING_MS;
    }
}

void catalog_vector_apply(struct db *db, const struct update_plan *p)
{
    assert_lock_exclusive();
    if (p->u->has_vector_update && !p->u->vector_delete) apply_create(db, p);
}

void catalog_vector_answer(const struct update_plan *p, struct table_desc *out)
{
    const struct table_update *u = p->u;
    size_t pos;

    assert_lock_exclusive();
    if (!u->has_vector_update) return;
    pos = desc_pos(out, u->vector.name);
    if (pos == out->def.vector_count) return;
    /* The answer: a new index CREATING (Backfilling not yet shown), a deleted
     * one DELETING; the latter is gone at once (docs/differences.md). */
    out->vector_descs[pos].status = u->vector_delete ? INDEX_DELETING : INDEX_CREATING;
    out->vector_descs[pos].show_backfilling = false;
    if (u->vector_delete) table_remove_vector(p->t, u->vector.name);
}
