/*
 * expr_legacy.c - KeyConditions, QueryFilter/ScanFilter, AttributesToGet,
 * Expected and AttributeUpdates as expression trees; see expr_legacy.h.
 *
 * The translation is the one DynamoDB's documentation gives for each
 * ComparisonOperator ("Condition" in the API reference; "Legacy conditional
 * parameters" in the developer guide), onto the nodes the expression parser
 * produces, so the one evaluator in expr_eval.c runs both:
 *
 *   EQ NE LT LE GT GE  ->  path op :v            (types as the expression ops)
 *   NOT_NULL / NULL    ->  attribute_exists(path) / attribute_not_exists(path)
 *   CONTAINS           ->  contains(path, :v)
 *   NOT_CONTAINS       ->  attribute_exists(path) AND NOT contains(path, :v):
 *                          a missing attribute matches neither CONTAINS nor
 *                          NOT_CONTAINS (scylla alternator conditions.cc
 *                          check_NOT_CONTAINS, tested against AWS)
 *   BEGINS_WITH        ->  begins_with(path, :v)
 *   IN                 ->  path IN (:v1, ...)
 *   BETWEEN            ->  path BETWEEN :lo AND :hi
 *
 * Which AttributeValue types each operator accepts follows the API reference
 * (EQ and NE: every type; LT LE GT GE IN BETWEEN: S, N, B; BEGINS_WITH: S, B;
 * CONTAINS / NOT_CONTAINS: anything but a set, a list or a map) and the
 * refusals dynalite recorded against AWS (test/query.js "invalid
 * ComparisonOperator types" and friends).
 *
 * Built trees own their values (expr_node_new_value_owned); names are copied
 * into the tree's arena. Nothing here touches a table, so no lock is needed.
 */
#include "storage/expr/expr_legacy.h"

#include "storage/base/alloc.h"
#include "storage/expr/expr_ast.h"

#include <stdlib.h>
#include <string.h>

#define INVALID_PREFIX "One or more parameter values were invalid: "

static const char *const op_names[] = {
    [LEGACY_IN] = "IN",
    [LEGACY_NULL] = "NULL",
    [LEGACY_BETWEEN] = "BETWEEN",
    [LEGACY_LT] = "LT",
    [LEGACY_NOT_CONTAINS] = "NOT_CONTAINS",
    [LEGACY_EQ] = "EQ",
    [LEGACY_GT] = "GT",
    [LEGACY_NOT_NULL] = "NOT_NULL",
    [LEGACY_NE] = "NE",
    [LEGACY_LE] = "LE",
    [LEGACY_BEGINS_WITH] = "BEGINS_WITH",
    [LEGACY_GE] = "GE",
    [LEGACY_CONTAINS] = "CONTAINS",
};

#define OP_COUNT (sizeof op_names / sizeof op_names[0])

/* Parses a ComparisonOperator name; false when it is not one of AWS's. */
bool legacy_op_from_name(const char *name, size_t len, enum legacy_op *out)
{
    for (size_t i = 0; i < OP_COUNT; i++) {
        if (strlen(op_names[i]) == len && memcmp(op_names[i], name, len) == 0) {
            *out = (enum legacy_op) i;
            return true;
        }
    }
    return false;
}

/* The operator's name as AWS spells it; never NULL. */
const char *legacy_op_name(enum legacy_op op)
{
    return (size_t) op < OP_COUNT ? op_names[op] : "";
}

/* ---- checks ---- */

static bool count_ok(enum legacy_op op, size_t n)
{
    switch (op) {
    case LEGACY_NULL:
    case LEGACY_NOT_NULL: return n == 0;
    case LEGACY_IN: return n >= 1;
    case LEGACY_BETWEEN: return n == 2;
    default: return n == 1;
    }
}

static bool scalar(enum value_type t)
{
    return t == VALUE_S || t == VALUE_N || t == VALUE_B;
}

static bool type_ok(enum legacy_op op, enum value_type t)
{
    switch (op) {
    case LEGACY_EQ:
    case LEGACY_NE: return true;
    case LEGACY_BEGINS_WITH: return t == VALUE_S || t == VALUE_B;
    case LEGACY_CONTAINS:
    case LEGACY_NOT_CONTAINS:
        return t != VALUE_SS && t != VALUE_NS && t != VALUE_BS && t != VALUE_L && t != VALUE_M;
    default: return scalar(t);
    }
}

/* See expr_legacy.h: counts, types, BETWEEN order, in map order. */
int expr_legacy_check_conditions(const struct legacy_condition *conds, size_t count,
                                 struct ddb_error *err)
{
    for (size_t i = 0; i < count; i++) {
        const struct legacy_condition *c = &conds[i];
        const char *op = legacy_op_name(c->op);

        if (!count_ok(c->op, c->value_count))
            return ddb_error_set(
                err, DDB_VALIDATION,
                INVALID_PREFIX "Invalid number of argument(s) for the %s ComparisonOperator", op);
        for (size_t v = 1; v < c->value_count; v++) {
            if (c->values[v].type != c->values[0].type)
                return ddb_error_set(err, DDB_VALIDATION,
                                     INVALID_PREFIX "AttributeValues inside AttributeValueList "
                                                    "must be of same type");
        }
        for (size_t v = 0; v < c->value_count; v++) {
            if (!type_ok(c->op, c->values[v].type))
                return ddb_error_set(
                    err, DDB_VALIDATION,
                    INVALID_PREFIX "ComparisonOperator %s is not valid for %s AttributeValue type",
                    op, value_type_name(c->values[v].type));
        }
        if (c->op == LEGACY_BETWEEN && value_compare_scalar(&c->values[0], &c->values[1]) > 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "The BETWEEN condition was provided a range where the lower bound "
                                 "is greater than the upper bound");
    }
    return 0;
}

/* ---- building trees ---- */

static struct expr_node *value_node(struct expr *e, const struct value *v)
{
    struct value copy;
    value_copy(&copy, v);
    return expr_node_new_value_owned(e, &copy);
}

/* One condition as a tree: see the table in the file comment. */
static struct expr_node *condition_node(struct expr *e, const struct legacy_condition *c)
{
    struct expr_node *args[3];
    struct expr_node **many = NULL, *n;
    size_t argc = 0;
    static const enum expr_op simple[] = {
        [LEGACY_EQ] = OP_EQ, [LEGACY_NE] = OP_NE, [LEGACY_LT] = OP_LT,
        [LEGACY_LE] = OP_LE, [LEGACY_GT] = OP_GT, [LEGACY_GE] = OP_GE,
    };

    args[argc++] = expr_node_new_path(e, c->name, c->name_len);
    switch (c->op) {
    case LEGACY_NOT_NULL: return expr_node_new_op(e, OP_ATTRIBUTE_EXISTS, args, 1);
    case LEGACY_NULL: return expr_node_new_op(e, OP_ATTRIBUTE_NOT_EXISTS, args, 1);
    case LEGACY_CONTAINS:
        args[argc++] = value_node(e, &c->values[0]);
        return expr_node_new_op(e, OP_CONTAINS, args, argc);
    case LEGACY_NOT_CONTAINS: {
        struct expr_node *both[2];
        args[argc++] = value_node(e, &c->values[0]);
        n = expr_node_new_op(e, OP_CONTAINS, args, argc);
        both[0] = expr_node_new_op(e, OP_ATTRIBUTE_EXISTS, args, 1);
        both[1] = expr_node_new_op(e, OP_NOT, &n, 1);
        return expr_node_new_op(e, OP_AND, both, 2);
    }
    case LEGACY_BEGINS_WITH:
        args[argc++] = value_node(e, &c->values[0]);
        return expr_node_new_op(e, OP_BEGINS_WITH, args, argc);
    case LEGACY_BETWEEN:
        args[argc++] = value_node(e, &c->values[0]);
        args[argc++] = value_node(e, &c->values[1]);
        return expr_node_new_op(e, OP_BETWEEN, args, argc);
    case LEGACY_IN:
        /* AWS sets no upper bound on a legacy IN list; build it on the heap. */
        many = xmalloc(sizeof *many * (c->value_count + 1));
        many[0] = args[0];
        for (size_t i = 0; i < c->value_count; i++)
            many[1 + i] = value_node(e, &c->values[i]);
        n = expr_node_new_op(e, OP_IN, many, c->value_count + 1);
        free(many);
        return n;
    default:
        args[argc++] = value_node(e, &c->values[0]);
        return expr_node_new_op(e, simple[c->op], args, argc);
    }
}

/* See expr_legacy.h; *out is owned by the caller, NULL for an empty filter. */
int expr_legacy_filter(const struct legacy_condition *conds, size_t count, bool use_or,
                       struct expr **out, struct ddb_error *err)
{
    struct expr *e;
    struct expr_node *root = NULL;

    *out = NULL;
    if (expr_legacy_check_conditions(conds, count, err) != 0) return -1;
    if (count == 0) return 0;
    e = expr_new(EXPR_CONDITION);
    /* Right-nested, in map order, as the parser nests "a AND b AND c". */
    for (size_t i = count; i-- > 0;) {
        struct expr_node *n = condition_node(e, &conds[i]);
        if (root) {
            struct expr_node *pair[2] = {n, root};
            n = expr_node_new_op(e, use_or ? OP_OR : OP_AND, pair, 2);
        }
        root = n;
    }
    e->root = root;
    *out = e;
    return 0;
}

/* ---- Expected (PutItem, UpdateItem, DeleteItem) ---- */

/* The structure rules of one Expected entry, in dynalite's recorded order;
 * fills *c with the equivalent comparison. */
static int expected_entry(const struct legacy_expected *x, struct legacy_condition *c,
                          struct ddb_error *err)
{
    int len = (int) x->name_len;

    c->name = x->name;
    c->name_len = x->name_len;
    if (x->has_list && x->value)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX "Value and AttributeValueList cannot be used together "
                                            "for Attribute: %.*s",
                             len, x->name);
    if (x->has_op) {
        if (x->has_exists)
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID_PREFIX "Exists and ComparisonOperator cannot be used "
                                                "together for Attribute: %.*s",
                                 len, x->name);
        if (x->op != LEGACY_NULL && x->op != LEGACY_NOT_NULL && !x->has_list && !x->value)
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID_PREFIX "Value or AttributeValueList must be used with "
                                                "ComparisonOperator: %s for Attribute: %.*s",
                                 legacy_op_name(x->op), len, x->name);
        c->op = x->op;
        c->values = x->has_list ? x->values : x->value;
        c->value_count = x->has_list ? x->value_count : (x->value ? 1 : 0);
        return expr_legacy_check_conditions(c, 1, err);
    }
    if (x->has_list)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX "AttributeValueList can only be used with a "
                                            "ComparisonOperator for Attribute: %.*s",
                             len, x->name);
    if ((!x->has_exists || x->exists) && !x->value)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX
                             "Value must be provided when Exists is %s for Attribute: %.*s",
                             x->has_exists ? "true" : "null", len, x->name);
    if (x->has_exists && !x->exists && x->value)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX
                             "Value cannot be used when Exists is false for Attribute: %.*s",
                             len, x->name);
    /* {Value: v} (Exists absent or true) is "= v"; {Exists: false} is
     * attribute_not_exists (API reference, ExpectedAttributeValue). */
    c->op = x->value ? LEGACY_EQ : LEGACY_NULL;
    c->values = x->value;
    c->value_count = x->value ? 1 : 0;
    return 0;
}

int expr_legacy_expected(const struct legacy_expected *conds, size_t count, bool use_or,
                         struct expr **out, struct ddb_error *err)
{
    struct legacy_condition *lc;
    int rc = -1;

    *out = NULL;
    if (count == 0) return 0;
    lc = xcalloc(count, sizeof *lc);
    for (size_t i = 0; i < count; i++) {
        if (expected_entry(&conds[i], &lc[i], err) != 0) goto out;
    }
    rc = expr_legacy_filter(lc, count, use_or, out, err);
out:
    free(lc);
    return rc;
}

/* ---- AttributeUpdates (UpdateItem) ---- */

static bool is_set_type(enum value_type t)
{
    return t == VALUE_SS || t == VALUE_NS || t == VALUE_BS;
}

static int check_update_entry(const struct legacy_update *u, struct ddb_error *err)
{
    enum value_type t;

    if (!u->value) {
        if (u->action == LEGACY_ACTION_DELETE) return 0;
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX "Only DELETE action is allowed when no attribute "
                                            "value is specified");
    }
    t = u->value->type;
    if (u->action == LEGACY_ACTION_DELETE && !is_set_type(t))
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX
                             "DELETE action with value is not supported for the type %s",
                             value_type_name(t));
    if (u->action == LEGACY_ACTION_ADD && !is_set_type(t) && t != VALUE_N && t != VALUE_L)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID_PREFIX "ADD action is not supported for the type %s",
                             value_type_name(t));
    return 0;
}

/* Which update section an entry becomes (see the file comment). */
static enum expr_action_kind update_kind(const struct legacy_update *u)
{
    switch (u->action) {
    case LEGACY_ACTION_PUT: return ACT_SET;
    case LEGACY_ACTION_DELETE: return u->value ? ACT_DELETE : ACT_REMOVE;
    case LEGACY_ACTION_ADD: return u->value->type == VALUE_L ? ACT_SET : ACT_ADD;
    }
    return ACT_SET;
}

/* The action for one entry: target path and value. ADD of a list appends
 * (scylla test_item.py test_update_item_add: "ADD operation on lists (not
 * documented, but works similar to sets!)"), creating the list if missing. */
static void build_update_action(struct expr *e, const struct legacy_update *u,
                                struct expr_action *act)
{
    act->kind = update_kind(u);
    act->path = expr_node_new_path(e, u->name, u->name_len)->path;
    if (!u->value) return;
    if (u->action == LEGACY_ACTION_ADD && u->value->type == VALUE_L) {
        struct expr_node *ine[2], *append[2];
        struct value empty;
        value_init_list(&empty, VALUE_L);
        ine[0] = expr_node_new_path(e, u->name, u->name_len);
        ine[1] = expr_node_new_value_owned(e, &empty);
        append[0] = expr_node_new_op(e, OP_IF_NOT_EXISTS, ine, 2);
        append[1] = value_node(e, u->value);
        act->value = expr_node_new_op(e, OP_LIST_APPEND, append, 2);
        return;
    }
    act->value = value_node(e, u->value);
}

int expr_legacy_updates(const struct legacy_update *updates, size_t count, struct expr **out,
                        struct ddb_error *err)
{
    static const enum expr_action_kind order[] = {ACT_SET, ACT_REMOVE, ACT_ADD, ACT_DELETE};
    struct expr *e;
    struct expr_ctx ctx;
    size_t n = 0;
    int rc;

    *out = NULL;
    for (size_t i = 0; i < count; i++) {
        if (check_update_entry(&updates[i], err) != 0) return -1;
    }
    if (count == 0) return 0;
    e = expr_new(EXPR_UPDATE);
    e->actions = expr_alloc(e, count * sizeof *e->actions);
    e->sections = expr_alloc(e, 4 * sizeof *e->sections);
    /* One section per kind, as an expression may have: the actions of a kind
     * keep the request's order. */
    for (size_t k = 0; k < 4; k++) {
        size_t first = n;
        for (size_t i = 0; i < count; i++) {
            if (update_kind(&updates[i]) == order[k])
                build_update_action(e, &updates[i], &e->actions[n++]);
        }
        if (n > first) {
            struct expr_section *sec = &e->sections[e->section_count++];
            sec->kind = order[k];
            sec->first = first;
            sec->count = n - first;
        }
    }
    e->action_count = n;
    /* The checker builds the path tree that the evaluator and
     * expr_project_updated walk (names are map keys: no two paths clash). */
    expr_ctx_init(&ctx, NULL, NULL);
    rc = expr_check(e, "AttributeUpdates", &ctx, err);
    expr_ctx_clear(&ctx);
    if (rc != 0) {
        expr_free(e);
        return -1;
    }
    *out = e;
    return 0;
}

static enum key_range_op key_op(enum legacy_op op)
{
    switch (op) {
    case LEGACY_EQ: return KEY_RANGE_EQ;
    case LEGACY_LT: return KEY_RANGE_LT;
    case LEGACY_LE: return KEY_RANGE_LE;
    case LEGACY_GT: return KEY_RANGE_GT;
    case LEGACY_GE: return KEY_RANGE_GE;
    case LEGACY_BETWEEN: return KEY_RANGE_BETWEEN;
    case LEGACY_BEGINS_WITH: return KEY_RANGE_BEGINS_WITH;
    default: return KEY_RANGE_NONE; /* not an indexable operation */
    }
}

/* See expr_legacy.h; *out is owned by the caller. */
int expr_legacy_key_conditions(const struct legacy_condition *conds, size_t count,
                               struct expr **out, struct ddb_error *err)
{
    struct expr *e;

    *out = NULL;
    if (expr_legacy_check_conditions(conds, count, err) != 0) return -1;
    e = expr_new(EXPR_KEY_CONDITION);
    e->terms = expr_alloc(e, (count ? count : 1) * sizeof *e->terms);
    e->term_count = count;
    for (size_t i = 0; i < count; i++) {
        struct expr_key_term *t = &e->terms[i];
        t->name = expr_strdup(e, conds[i].name, conds[i].name_len);
        t->name_len = conds[i].name_len;
        t->op = key_op(conds[i].op);
        /* The values live in owned nodes of the tree (no root: Query reads
         * key conditions through the terms only). */
        for (size_t v = 0; v < conds[i].value_count && v < 2; v++)
            t->v[v] = value_node(e, &conds[i].values[v])->value;
    }
    *out = e;
    return 0;
}

/* See expr_legacy.h; *out is owned by the caller. */
int expr_legacy_projection(const char *const *names, const size_t *lens, size_t count,
                           struct expr **out, struct ddb_error *err)
{
    struct expr *e;
    struct expr_ctx ctx;
    struct value seen;
    int rc;

    *out = NULL;
    /* The first name seen before, through a map of the names so far (linear). */
    value_init_map(&seen);
    for (size_t i = 0; i < count; i++) {
        struct value none;
        if (value_map_find(&seen, names[i], lens[i]) >= 0) {
            value_clear(&seen);
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID_PREFIX "Duplicate value in attribute name: %.*s",
                                 (int) lens[i], names[i]);
        }
        value_init_null(&none);
        value_map_append(&seen, names[i], lens[i], &none);
    }
    value_clear(&seen);
    e = expr_new(EXPR_PROJECTION);
    e->paths = expr_alloc(e, (count ? count : 1) * sizeof *e->paths);
    e->path_count = count;
    for (size_t i = 0; i < count; i++) {
        struct expr_path_elem *el = expr_alloc(e, sizeof *el);
        el->name = expr_strdup(e, names[i], lens[i]);
        el->name_len = lens[i];
        e->paths[i].elems = el;
        e->paths[i].count = 1;
    }
    /* The checker builds the projection tree expr_project walks; built
     * paths carry no text, so no reserved-word or #name rule applies. */
    expr_ctx_init(&ctx, NULL, NULL);
    rc = expr_check(e, "AttributesToGet", &ctx, err);
    expr_ctx_clear(&ctx);
    if (rc != 0) {
        expr_free(e);
        return -1;
    }
    *out = e;
    return 0;
}

/* True when e has no source text, i.e. was built here. */
bool expr_legacy_is_built(const struct expr *e)
{
    return e->src == NULL;
}

/* ---- KeyConditions against a key schema ---- */

static enum value_type attr_type(const struct attr_def *defs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(defs[i].name, name) == 0) return defs[i].type;
    }
    return VALUE_S;
}

/* The checks for one key attribute (dynalite actions/query.js traverseKey). */
static int check_key_attr(const struct expr *kc, const char *name, bool is_hash, bool hash_only,
                          const struct attr_def *defs, size_t ndefs, struct ddb_error *err)
{
    const struct expr_key_term *t = expr_key_find_term(kc, name);
    enum value_type type = attr_type(defs, ndefs, name);

    if (is_hash && hash_only && kc->term_count > 1)
        return ddb_error_set(err, DDB_VALIDATION, "Query key condition not supported");
    if (!t) {
        if (is_hash || kc->term_count > 1)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Query condition missed key schema element: %s", name);
        return 0;
    }
    if (t->op == KEY_RANGE_NONE)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Attempted conditional constraint is not an indexable operation");
    for (int v = 0; v < 2; v++) {
        if (t->v[v] && t->v[v]->type != type)
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID_PREFIX
                                 "Condition parameter type does not match schema type");
    }
    if (is_hash && t->op != KEY_RANGE_EQ)
        return ddb_error_set(err, DDB_VALIDATION, "Query key condition not supported");
    return is_hash ? expr_key_check_hash_not_empty(t, name, err) : 0;
}

static void take(struct key_condition_term *dst, const char *name, const struct expr_key_term *t)
{
    dst->name = xstrdup(name);
    value_copy(&dst->value, t->v[0]);
}

/* See expr_legacy.h; on -1 *out is left empty. */
int expr_legacy_key_resolve(const struct expr *kc, const struct key_schema *schema,
                            const struct attr_def *attr_defs, size_t attr_def_count,
                            struct key_condition *out, struct ddb_error *err)
{
    bool hash_only = schema->range_count == 0;
    size_t last = schema->range_count;

    memset(out, 0, sizeof *out);
    value_init_null(&out->lo);
    value_init_null(&out->hi);
    for (size_t i = 0; i < schema->hash_count; i++) {
        if (check_key_attr(kc, schema->hash_names[i], true, hash_only, attr_defs, attr_def_count,
                           err) != 0)
            return -1;
    }
    for (size_t r = 0; r < schema->range_count; r++) {
        if (check_key_attr(kc, schema->range_names[r], false, hash_only, attr_defs, attr_def_count,
                           err) != 0)
            return -1;
    }
    /* Every condition is now on a key attribute, or the single sort key is
     * unconstrained; a leftover condition on another attribute is refused as
     * the expression form refuses it. */
    for (size_t i = 0; i < kc->term_count; i++) {
        bool known = false;
        for (size_t h = 0; h < schema->hash_count; h++)
            known = known || strcmp(schema->hash_names[h], kc->terms[i].name) == 0;
        for (size_t r = 0; r < schema->range_count; r++)
            known = known || strcmp(schema->range_names[r], kc->terms[i].name) == 0;
        if (!known) {
            for (size_t r = 0; r < schema->range_count; r++) {
                if (!expr_key_find_term(kc, schema->range_names[r]))
                    return ddb_error_set(err, DDB_VALIDATION,
                                         "Query condition missed key schema element: %s",
                                         schema->range_names[r]);
            }
            return ddb_error_set(err, DDB_VALIDATION, "Query key condition not supported");
        }
    }
    for (size_t i = 0; i < schema->hash_count; i++)
        take(&out->hash[out->hash_count++], schema->hash_names[i],
             expr_key_find_term(kc, schema->hash_names[i]));
    while (last > 0 && !expr_key_find_term(kc, schema->range_names[last - 1]))
        last--;
    for (size_t r = 0; r < last; r++) {
        const struct expr_key_term *t = expr_key_find_term(kc, schema->range_names[r]);
        if (!t) {
            key_condition_clear(out);
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Query condition missed key schema element: %s",
                                 schema->range_names[r]);
        }
        if (r + 1 < last) {
            if (t->op != KEY_RANGE_EQ) {
                key_condition_clear(out);
                return ddb_error_set(err, DDB_VALIDATION, "Query key condition not supported");
            }
            take(&out->range_eq[out->range_eq_count++], schema->range_names[r], t);
            continue;
        }
        out->range_op = t->op;
        out->range_name = xstrdup(schema->range_names[r]);
        value_copy(&out->lo, t->v[0]);
        if (t->op == KEY_RANGE_BETWEEN) value_copy(&out->hi, t->v[1]);
    }
    return 0;
}
