/*
 * db_search.c - SearchVectors: find the table and its vector index, check the
 * query vector and the SearchConditionExpression against the index, run the
 * exact search (table/vector_index.c) under the shared lock, then project the
 * hits outside it; see db_search.h.
 *
 * Texts and their order: spec-24 3.5 (AWS's agent toolkit quotes, dynoxide's
 * captures): table, index, the vector's elements, its length, the condition's
 * attributes in the SearchSchema, nested paths, one condition per attribute,
 * the HASH value required, its type. Every decided behaviour (ties, the
 * projection of KEYS_ONLY indexes, the bytes reported, the 16 MB answer) is in
 * docs/differences.md.
 */
#include "storage/engine/db_search.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db_internal.h"
#include "storage/table/vector_distance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD_CONDITION "Invalid SearchConditionExpression: "

/* What the projection needs once the lock is released: copies. */
struct search_shape {
    struct vector_index_def def;
    struct key_schema table_key;
};

/* The searched index, or AWS's refusal of a missing or unready one. */
static int find_index(const struct table *t, const char *name, int64_t now_ms,
                      const struct vector_index **out, struct ddb_error *err)
{
    const struct vector_index *vi = table_find_vector(t, name);

    if (!vi || (vector_index_status_at(vi, now_ms) == INDEX_CREATING && !vi->report_backfilling))
        return ddb_error_set(err, DDB_VALIDATION, "The table does not have the specified index: %s",
                             name);
    if (vector_index_status_at(vi, now_ms) == INDEX_CREATING)
        return ddb_error_set(err, DDB_VALIDATION, "Cannot search backfilling vector index: %s",
                             name);
    *out = vi;
    return 0;
}

/* The query vector as floats: every element a number in the f32 range, then the length. */
static int query_vector(const struct vector_index *vi, const struct search_op *op, float *out,
                        struct ddb_error *err)
{
    for (size_t i = 0; i < op->vector_count; i++) {
        const struct value *e = &op->vector[i];
        float f = 0;
        if (e->type != VALUE_N || !vector_parse_float(e, &f))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Search vector contains invalid values. All values in the search "
                                 "vector must be a 32-bit floating-point number attribute");
        if (i < vi->dims) out[i] = f;
    }
    if (op->vector_count != vi->dims)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Input search vector dimension %zu does not match vector index "
                             "dimension %zu",
                             op->vector_count, vi->dims);
    return 0;
}

static const struct search_element *schema_element(const struct vector_index_def *d,
                                                   const char *name)
{
    for (size_t i = 0; i < d->search_count; i++) {
        if (strcmp(d->search[i].name, name) == 0) return &d->search[i];
    }
    return NULL;
}

/* The conjuncts against the SearchSchema, in AWS's order. */
static int check_terms(const struct table *t, const struct vector_index_def *d,
                       const struct search_term *terms, size_t count, struct ddb_error *err)
{
    const char *hash = vector_index_hash_name(d);
    const struct search_term *hash_term = NULL;

    for (size_t i = 0; i < count; i++) {
        if (!schema_element(d, terms[i].name))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "SearchConditionExpression must not contain any attributes that "
                                 "is not in SearchSchema. Invalid attribute: %s",
                                 terms[i].name);
    }
    for (size_t i = 0; i < count; i++) {
        if (terms[i].nested)
            return ddb_error_set(err, DDB_VALIDATION,
                                 BAD_CONDITION "SearchConditionExpression cannot have conditions "
                                               "on nested attributes");
    }
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(terms[i].name, terms[j].name) == 0)
                return ddb_error_set(err, DDB_VALIDATION,
                                     BAD_CONDITION "SearchConditionExpression must only contain "
                                                   "one condition per attribute");
        }
        if (hash && strcmp(terms[i].name, hash) == 0) hash_term = &terms[i];
    }
    if (hash && !hash_term)
        return ddb_error_set(err, DDB_VALIDATION,
                             "SearchConditionExpression must be provided when SearchSchema has a "
                             "HASH key");
    if (hash_term) {
        enum value_type type = VALUE_S;
        const struct value *v = &hash_term->value;
        table_def_attr_type(&t->def, hash, &type);
        if (v->type != type)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Type of '%s' attribute in SearchConditionExpression (%s) does "
                                 "not match type in search schema (%s)",
                                 hash, value_type_name(v->type), value_type_name(type));
        if ((v->type == VALUE_S || v->type == VALUE_B) && !v->u.str.len)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "One or more parameter values are not valid. The AttributeValue "
                                 "for a key attribute cannot contain an empty %s value. Key: %s",
                                 v->type == VALUE_S ? "string" : "binary", hash);
    }
    return 0;
}

/* The vector bytes a search reads: every vector of the groups it scans, at
 * 4 bytes a dimension plus the attribute name, at least 1 KB (ours: AWS's
 * own figure is not reproducible, docs/differences.md). */
static double search_bytes(const struct vector_index *vi, const struct value *hash)
{
    size_t scanned = 0;
    for (size_t g = 0; g < vi->group_count; g++) {
        if (!hash || value_equal(&vi->groups[g]->hash, hash)) scanned += vi->groups[g]->count;
    }
    double bytes = (double) scanned * (double) (4 * vi->dims + strlen(vi->def->attribute));
    return bytes < DDB_MIN_VECTOR_REQUEST_BYTES ? DDB_MIN_VECTOR_REQUEST_BYTES : bytes;
}

/* Runs the search under the lock: hits (owned references) and the shape copies. */
static int search_locked(const struct table *t, const struct vector_index *vi,
                         const struct search_op *op, const float *vec,
                         const struct search_term *terms, size_t term_count,
                         struct vector_hit **hits, size_t *hit_count, struct search_result *out)
{
    const char *hash_name = vector_index_hash_name(vi->def);
    const char **names = xcalloc(term_count + 1, sizeof *names);
    struct value *values = xcalloc(term_count + 1, sizeof *values);
    struct vector_query q = {.vector = vec, .top_k = op->top_k, .table_key = &t->def.key};
    double bytes;

    for (size_t i = 0; i < term_count; i++) {
        if (hash_name && strcmp(terms[i].name, hash_name) == 0) {
            q.hash = &terms[i].value;
            continue;
        }
        names[q.filter_count] = terms[i].name;
        values[q.filter_count++] = terms[i].value; /* shallow: borrowed for the search */
    }
    q.filter_names = names;
    q.filter_values = values;
    vector_index_search(vi, &q, hits, hit_count);
    bytes = search_bytes(vi, q.hash);
    if (op->return_capacity != RETURN_CAPACITY_NONE) {
        out->has_capacity = true;
        out->request_bytes = bytes;
    }
    /* The access-pattern report counts every search, asked for capacity or not. */
    insight_lock(t->insight);
    insight_count_request(t->insight, INSIGHT_SEARCH_VECTORS);
    insight_vector_search(t->insight, vi->def->name, bytes);
    insight_unlock(t->insight);
    free(names);
    free(values);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* projection, outside the lock                                              */
/* ------------------------------------------------------------------------ */

static bool in_list(const struct projection *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->non_key_count; i++) {
        if (p->non_key_lens[i] == len && memcmp(p->non_key_attrs[i], name, len) == 0) return true;
    }
    return false;
}

/* Whether the index stores attribute name: the table's keys, the SearchSchema,
 * and what its projection adds (the vector attribute only with ALL or INCLUDE). */
static bool projected(const struct search_shape *sh, const char *name, size_t len)
{
    const struct projection *p = &sh->def.projection;

    if (strlen(name) == len && key_schema_has(&sh->table_key, name)) return true;
    if (strlen(name) == len && schema_element(&sh->def, name)) return true;
    if (p->type == PROJECTION_ALL) return true;
    return p->type == PROJECTION_INCLUDE && in_list(p, name, len);
}

/* The index's copy of a vector: each element rounded to a 32-bit float. */
static void f32_copy(struct value *v)
{
    for (size_t i = 0; v->type == VALUE_L && i < v->u.list.count; i++) {
        struct value *e = &v->u.list.elems[i];
        char buf[32];
        float f;
        if (e->type != VALUE_N || !vector_parse_float(e, &f)) continue;
        for (int prec = 1; prec <= 9; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, (double) f);
            if (strtof(buf, NULL) == f) break;
        }
        value_clear(e);
        value_init_number_text(e, buf, strlen(buf));
    }
}

static struct item *project_hit(const struct search_shape *sh, const struct item *item,
                                const struct expr *projection)
{
    struct value attrs;
    const char *vec = sh->def.attribute;
    bool *drop;

    if (projection)
        expr_project(projection, item_attrs(item), &attrs);
    else
        value_copy(&attrs, item_attrs(item));
    drop = xcalloc(attrs.u.map.count + 1, sizeof *drop);
    for (size_t i = 0; i < attrs.u.map.count; i++) {
        struct attr *a = &attrs.u.map.attrs[i];
        bool is_vector = a->name_len == strlen(vec) && memcmp(a->name, vec, a->name_len) == 0;
        /* The vector attribute only when asked for by name (spec-24 3.6). */
        drop[i] = !projected(sh, a->name, a->name_len) || (is_vector && !projection);
        if (is_vector && !drop[i]) f32_copy(&a->value);
    }
    value_map_remove_marked(&attrs, drop);
    free(drop);
    return item_new(&attrs);
}

/* Projects the hits into out, best first, within the 16 MB answer. */
static void project_hits(const struct search_shape *sh, const struct search_op *op,
                         struct vector_hit *hits, size_t count, struct search_result *out)
{
    size_t bytes = 0;

    out->items = xcalloc(count ? count : 1, sizeof *out->items);
    out->scores = xcalloc(count ? count : 1, sizeof *out->scores);
    for (size_t i = 0; i < count; i++) {
        struct item *p = project_hit(sh, hits[i].item, op->projection);
        if (bytes + p->size_bytes > DDB_MAX_SEARCH_ANSWER_BYTES) {
            item_unref(p);
            break;
        }
        bytes += p->size_bytes;
        out->items[out->count] = p;
        out->scores[out->count++] = hits[i].score;
    }
}

int db_search_vectors(struct db *db, const struct db_scope *scope, const struct search_op *op,
                      struct search_result *out, struct ddb_error *err)
{
    struct table *t;
    const struct vector_index *vi = NULL;
    struct search_term *terms = NULL;
    struct vector_hit *hits = NULL;
    struct search_shape shape;
    size_t term_count = 0, hit_count = 0;
    float *vec = NULL;
    int rc = -1;

    memset(out, 0, sizeof *out);
    memset(&shape, 0, sizeof shape);
    db_lock_table(db, scope, op->table_name, LOCK_HOLD_SHARED);
    if (db_require_table(db, scope, op->table_name, &t, err) != 0) goto unlock;
    if (find_index(t, op->index_name, db_now_ms(db), &vi, err) != 0) goto unlock;
    vec = xcalloc(vi->dims, sizeof *vec);
    if (query_vector(vi, op, vec, err) != 0) goto unlock;
    if (op->condition && expr_search_terms(op->condition, &terms, &term_count, err) != 0)
        goto unlock;
    if (check_terms(t, vi->def, terms, term_count, err) != 0) goto unlock;
    search_locked(t, vi, op, vec, terms, term_count, &hits, &hit_count, out);
    vector_index_def_copy(&shape.def, vi->def);
    key_schema_copy(&shape.table_key, &t->def.key);
    rc = 0;
unlock:
    db_unlock(db);
    if (rc == 0) project_hits(&shape, op, hits, hit_count, out);
    for (size_t i = 0; i < hit_count; i++)
        item_unref(hits[i].item);
    free(hits);
    free(vec);
    search_terms_free(terms, term_count);
    vector_index_def_clear(&shape.def);
    key_schema_clear(&shape.table_key);
    return rc;
}

void search_result_clear(struct search_result *r)
{
    for (size_t i = 0; i < r->count; i++)
        item_unref(r->items[i]);
    free(r->items);
    free(r->scores);
    memset(r, 0, sizeof *r);
}
