/*
 * vector_rules.c - the request-only rules of vector index definitions; see
 * vector_rules.h. The order of checks between several violated rules is not
 * recorded from AWS: it is ours (docs/differences.md, "Vector indexes").
 */
#include "api/ops/vector_rules.h"

#include "api/ops/table_rules.h"
#include "api/wire/body.h"
#include "storage/base/limits.h"

#include <string.h>

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static const char *vector_attr(const json_t *v)
{
    return body_member_str(body_member(v, "VectorAttribute"), "AttributeName");
}

static bool defined(const json_t *defs, const char *name)
{
    size_t i;
    json_t *d;
    json_array_foreach(defs, i, d)
    {
        if (str_eq(body_member_str(d, "AttributeName"), name)) return true;
    }
    return false;
}

/* Dimensions' service maximum (values beyond a long arrive as huge numbers). */
static int check_dimensions(const json_t *v, struct ddb_error *err)
{
    if (body_member_int(v, "Dimensions") > DDB_MAX_VECTOR_DIMENSIONS)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Number of dimensions must be between 1 and %d "
                                                 "inclusive.",
                             DDB_MAX_VECTOR_DIMENSIONS);
    return 0;
}

/* SearchSchema: every attribute defined, at most one HASH, no attribute twice. */
static int check_search_schema(const json_t *v, const json_t *defs, struct ddb_error *err)
{
    const json_t *schema = body_member(v, "SearchSchema");
    size_t i, hashes = 0;
    json_t *e;

    json_array_foreach(schema, i, e)
    {
        if (!defined(defs, body_member_str(e, "AttributeName")))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID "One element in SearchSchema is not defined "
                                                     "in attribute definitions");
    }
    json_array_foreach(schema, i, e)
    {
        hashes += str_eq(body_member_str(e, "SearchSchemaElementType"), "HASH");
    }
    if (hashes > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Value '%zu' at 'SearchSchema' failed to satisfy "
                                                 "constraint: Member must have HASH count less "
                                                 "than or equal to 1",
                             hashes);
    json_array_foreach(schema, i, e)
    {
        for (size_t j = 0; j < i; j++) {
            if (str_eq(body_member_str(e, "AttributeName"),
                       body_member_str(json_array_get(schema, j), "AttributeName")))
                return ddb_error_set(err, DDB_VALIDATION,
                                     TABLE_RULES_INVALID
                                     "SearchSchema contains a duplicate AttributeName");
        }
    }
    return 0;
}

/* One VectorIndex / CreateVectorIndexAction against the request's definitions. */
static int check_definition(const json_t *v, const json_t *defs, struct ddb_error *err)
{
    const char *attr = vector_attr(v);

    if (check_dimensions(v, err) != 0) return -1;
    if (defined(defs, attr))
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Conflicting attribute definition for '%s'. An "
                                                 "attribute cannot be defined in "
                                                 "AttributeDefinitions when used as a "
                                                 "VectorAttribute.",
                             attr);
    if (check_search_schema(v, defs, err) != 0) return -1;
    return table_rules_projection(body_member(v, "Projection"), err);
}

/* Index names are one name space with GSIs and LSIs (spec-24 2.2). */
static int check_name_unique(const json_t *body, const json_t *v, struct ddb_error *err)
{
    const char *name = body_member_str(v, "IndexName");
    const char *members[] = {"LocalSecondaryIndexes", "GlobalSecondaryIndexes", "VectorIndexes"};

    for (size_t k = 0; k < 3; k++) {
        size_t i;
        json_t *other;
        json_array_foreach(body_member(body, members[k]), i, other)
        {
            if (other == v) return 0; /* only earlier indexes count */
            if (str_eq(body_member_str(other, "IndexName"), name))
                return ddb_error_set(err, DDB_VALIDATION,
                                     TABLE_RULES_INVALID "Duplicate index name: %s", name);
        }
    }
    return 0;
}

/* Every index on one vector attribute has the same dimensions. */
static int check_same_dimensions(const json_t *list, size_t i, struct ddb_error *err)
{
    const json_t *v = json_array_get(list, i);

    for (size_t j = 0; j < i; j++) {
        const json_t *o = json_array_get(list, j);
        if (str_eq(vector_attr(o), vector_attr(v)) &&
            body_member_int(o, "Dimensions") != body_member_int(v, "Dimensions"))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID "Conflicting attribute definition for '%s'. "
                                                     "All VectorIndexes on the same vector "
                                                     "attribute must use the same dimensions.",
                                 vector_attr(v));
    }
    return 0;
}

int vector_rules_check_create(const json_t *body, struct ddb_error *err)
{
    const json_t *list = body_member(body, "VectorIndexes");
    const json_t *defs = body_member(body, "AttributeDefinitions");
    size_t i;
    json_t *v;

    if (!list) return 0;
    if (!str_eq(body_member_str(body, "BillingMode"), "PAY_PER_REQUEST"))
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "Vector indexes are only supported for PAY_PER_REQUEST tables");
    if (!json_array_size(list))
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "List of VectorIndexes is empty");
    json_array_foreach(list, i, v)
    {
        if (check_definition(v, defs, err) != 0) return -1;
        if (check_name_unique(body, v, err) != 0) return -1;
        if (check_same_dimensions(list, i, err) != 0) return -1;
    }
    if (json_array_size(list) > DDB_MAX_VECTOR_INDEXES)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "VectorIndex count exceeds the per-table limit of %d",
                             DDB_MAX_VECTOR_INDEXES);
    return 0;
}

int vector_rules_check_updates(const json_t *body, struct ddb_error *err)
{
    const json_t *list = body_member(body, "VectorIndexUpdates");
    const json_t *defs = body_member(body, "AttributeDefinitions");
    size_t i;
    json_t *u;

    json_array_foreach(list, i, u)
    {
        const json_t *create = body_member(u, "Create");
        int actions = !!create + !!body_member(u, "Delete");
        if (actions == 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID "One of VectorIndexUpdate.Create, "
                                                     "VectorIndexUpdate.Delete must not be null");
        if (actions > 1)
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID "Only one vector index action is allowed "
                                                     "per VectorIndexUpdate object");
        if (create && check_definition(create, defs, err) != 0) return -1;
    }
    /* [TK][DX captured]: one online index operation per call, shared with GSIs. */
    if (json_array_size(list) > 1) return vector_rules_online_limit(err);
    return 0;
}

int vector_rules_online_limit(struct ddb_error *err)
{
    return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                         "Subscriber limit exceeded: Only 1 online index can be created or "
                         "deleted simultaneously per table");
}
