/*
 * test_update.c - the single-item write side of the expression language:
 * legacy Expected and AttributeUpdates as trees (expr_legacy.c), the static
 * type of an update's value (expr_update_static_type), and UpdateItem through
 * db_write_item - the item it creates or does not create, the checks against
 * index keys and key paths, and GetItem's projection check.
 *
 * Tables of cases with literal items (expr_test_util.h); the texts are
 * DynamoDB's, with their sources in conformance/test_legacy_params.py and
 * test_update_expression.py, which pin them through the server.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/expr/expr.h"
#include "storage/expr/expr_legacy.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"
#include "storage/tests/expr_test_util.h"

#include <stdlib.h>
#include <string.h>

#define INVALID "One or more parameter values were invalid: "

/* ---- Expected ---- */

struct expected_case {
    const char *name;
    int exists;        /* -1: Exists absent */
    const char *value; /* Value literal, or NULL */
    const char *op;    /* ComparisonOperator, or NULL */
    const char *list;  /* AttributeValueList literal ("[...]"), or NULL */
    const char *item;  /* evaluated against when error is NULL */
    bool matched;
    const char *error;
};

static void run_expected_case(const struct expected_case *c)
{
    struct legacy_expected x = {.name = c->name, .name_len = strlen(c->name)};
    struct value value, list, item;
    struct ddb_error err = {0};
    struct expr *e = NULL;
    bool matched = false;

    lit(c->value, &value);
    lit(c->list, &list);
    lit(c->item, &item);
    x.has_exists = c->exists >= 0;
    x.exists = c->exists == 1;
    x.value = c->value ? &value : NULL;
    if (c->op) {
        x.has_op = true;
        CHECK(legacy_op_from_name(c->op, strlen(c->op), &x.op));
    }
    if (c->list) {
        x.has_list = true;
        x.values = list.u.list.elems;
        x.value_count = list.u.list.count;
    }
    if (c->error) {
        CHECK_INT_EQ(expr_legacy_expected(&x, 1, false, &e, &err), -1);
        CHECK_STR_EQ(err.message, c->error);
    } else {
        CHECK_INT_EQ(expr_legacy_expected(&x, 1, false, &e, &err), 0);
        CHECK(e != NULL);
        if (e) CHECK_INT_EQ(expr_eval_condition(e, c->item ? &item : NULL, &matched, &err), 0);
        if (matched != c->matched) fprintf(stderr, "case %s %s\n", c->name, c->op ? c->op : "");
        CHECK(matched == c->matched);
    }
    expr_free(e);
    ddb_error_clear(&err);
    value_clear(&value);
    value_clear(&list);
    value_clear(&item);
}

static void test_expected_entries_become_conditions(void)
{
    static const char I[] = "{\"a\": 1, \"s\": \"hello\", \"l\": [1, 2]}";
    static const struct expected_case cases[] = {
        {"a", -1, "1", NULL, NULL, I, true, NULL},
        {"a", 1, "1", NULL, NULL, I, true, NULL},
        {"a", -1, "2", NULL, NULL, I, false, NULL},
        {"q", 0, NULL, NULL, NULL, I, true, NULL},
        {"a", 0, NULL, NULL, NULL, I, false, NULL},
        {"q", 0, NULL, NULL, NULL, NULL, true, NULL}, /* a missing item */
        {"a", -1, "1", NULL, NULL, NULL, false, NULL},
        {"a", -1, "1", "EQ", NULL, I, true, NULL},
        {"a", -1, NULL, "GE", "[1]", I, true, NULL},
        {"a", -1, NULL, "NOT_NULL", NULL, I, true, NULL},
        {"a", -1, NULL, "NULL", "[]", I, false, NULL},
        {"l", -1, NULL, "CONTAINS", "[2]", I, true, NULL},
        {"q", -1, NULL, "NOT_CONTAINS", "[2]", I, false, NULL},
        {"s", -1, NULL, "BEGINS_WITH", "[\"he\"]", I, true, NULL},
        {"a", -1, NULL, "IN", "[3, 1]", I, true, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_expected_case(&cases[i]);
}

static void test_expected_errors_in_dynamodb_order(void)
{
    static const struct expected_case cases[] = {
        {"a", -1, NULL, NULL, NULL, NULL, false,
         INVALID "Value must be provided when Exists is null for Attribute: a"},
        {"a", 1, NULL, NULL, NULL, NULL, false,
         INVALID "Value must be provided when Exists is true for Attribute: a"},
        {"a", 0, "\"x\"", NULL, NULL, NULL, false,
         INVALID "Value cannot be used when Exists is false for Attribute: a"},
        {"a", -1, NULL, "LT", NULL, NULL, false,
         INVALID "Value or AttributeValueList must be used with ComparisonOperator: LT for "
                 "Attribute: a"},
        {"a", 1, NULL, "LT", NULL, NULL, false,
         INVALID "Exists and ComparisonOperator cannot be used together for Attribute: a"},
        /* Value with AttributeValueList comes first, even before the operator rules */
        {"a", 1, "\"x\"", "LT", "[\"x\"]", NULL, false,
         INVALID "Value and AttributeValueList cannot be used together for Attribute: a"},
        {"a", 1, NULL, NULL, "[\"x\"]", NULL, false,
         INVALID "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"},
        {"a", -1, "\"x\"", "NULL", NULL, NULL, false,
         INVALID "Invalid number of argument(s) for the NULL ComparisonOperator"},
        {"a", -1, NULL, "BETWEEN", "[\"b\", \"a\"]", NULL, false,
         "The BETWEEN condition was provided a range where the lower bound is greater than the "
         "upper bound"},
        {"a", -1, NULL, "BEGINS_WITH", "[3]", NULL, false,
         INVALID "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_expected_case(&cases[i]);
}

static void test_expected_entries_join_with_and_or_or(void)
{
    struct value one, item;
    struct legacy_expected x[2] = {{.name = "a", .name_len = 1}, {.name = "b", .name_len = 1}};
    struct ddb_error err = {0};
    struct expr *e = NULL;
    bool matched = true;

    lit("1", &one);
    lit("{\"a\": 1, \"b\": 2}", &item);
    x[0].value = &one;
    x[1].value = &one;
    CHECK_INT_EQ(expr_legacy_expected(x, 2, false, &e, &err), 0);
    CHECK_INT_EQ(expr_eval_condition(e, &item, &matched, &err), 0);
    CHECK(!matched);
    expr_free(e);
    CHECK_INT_EQ(expr_legacy_expected(x, 2, true, &e, &err), 0);
    CHECK_INT_EQ(expr_eval_condition(e, &item, &matched, &err), 0);
    CHECK(matched);
    expr_free(e);
    /* An empty Expected is no condition. */
    CHECK_INT_EQ(expr_legacy_expected(x, 0, false, &e, &err), 0);
    CHECK(e == NULL);
    value_clear(&one);
    value_clear(&item);
}

/* ---- AttributeUpdates ---- */

struct update_entry {
    const char *name;
    enum legacy_action action;
    const char *value; /* literal or NULL */
};

struct update_case {
    struct update_entry entries[3];
    size_t count;
    const char *before; /* the item's attributes */
    bool existed;
    const char *after;   /* expected attributes, when error is NULL */
    const char *updated; /* expected UPDATED_NEW, when error is NULL */
    const char *error;   /* the error of building or of applying */
};

static void run_update_case(const struct update_case *c)
{
    struct legacy_update u[3];
    struct value values[3], attrs, want, updated;
    struct ddb_error err = {0};
    struct expr *e = NULL;
    int rc;

    for (size_t i = 0; i < c->count; i++) {
        lit(c->entries[i].value, &values[i]);
        u[i] =
            (struct legacy_update){c->entries[i].name, strlen(c->entries[i].name),
                                   c->entries[i].action, c->entries[i].value ? &values[i] : NULL};
    }
    lit(c->before, &attrs);
    rc = expr_legacy_updates(u, c->count, &e, &err);
    if (rc == 0 && e) rc = expr_apply_update_ex(e, &attrs, c->existed, &err);
    if (c->error) {
        CHECK_INT_EQ(rc, -1);
        CHECK_STR_EQ(err.message, c->error);
    } else {
        CHECK_INT_EQ(rc, 0);
        lit(c->after, &want);
        if (!value_equal(&attrs, &want)) fprintf(stderr, "got %s\n", lit_str(&attrs));
        CHECK(value_equal(&attrs, &want));
        value_clear(&want);
        if (e && c->updated) {
            expr_project_updated(e, &attrs, &updated);
            lit(c->updated, &want);
            if (!value_equal(&updated, &want)) fprintf(stderr, "updated %s\n", lit_str(&updated));
            CHECK(value_equal(&updated, &want));
            value_clear(&want);
            value_clear(&updated);
        }
    }
    expr_free(e);
    ddb_error_clear(&err);
    value_clear(&attrs);
    for (size_t i = 0; i < c->count; i++)
        value_clear(&values[i]);
}

#define PUT LEGACY_ACTION_PUT
#define ADD LEGACY_ACTION_ADD
#define DEL LEGACY_ACTION_DELETE

static void test_attribute_updates_apply_like_aws(void)
{
    static const struct update_case cases[] = {
        {{{"b", PUT, "\"x\""}},
         1,
         "{\"p\": \"k\"}",
         true,
         "{\"p\": \"k\", \"b\": \"x\"}",
         "{\"b\": \"x\"}",
         NULL},
        {{{"b", DEL, NULL}, {"c", PUT, "1"}},
         2,
         "{\"p\": \"k\", \"b\": 1}",
         true,
         "{\"p\": \"k\", \"c\": 1}",
         "{\"c\": 1}",
         NULL},
        {{{"n", ADD, "2"}},
         1,
         "{\"p\": \"k\", \"n\": 5}",
         true,
         "{\"p\": \"k\", \"n\": 7}",
         NULL,
         NULL},
        {{{"n", ADD, "2"}}, 1, "{\"p\": \"k\"}", false, "{\"p\": \"k\", \"n\": 2}", NULL, NULL},
        {{{"s", ADD, "<<\"b\", \"c\">>"}},
         1,
         "{\"p\": \"k\", \"s\": <<\"a\", \"b\">>}",
         true,
         "{\"p\": \"k\", \"s\": <<\"a\", \"b\", \"c\">>}",
         NULL,
         NULL},
        /* ADD of a list appends, creating the list */
        {{{"l", ADD, "[3]"}},
         1,
         "{\"p\": \"k\", \"l\": [1, 2]}",
         true,
         "{\"p\": \"k\", \"l\": [1, 2, 3]}",
         "{\"l\": [1, 2, 3]}",
         NULL},
        {{{"l", ADD, "[\"x\"]"}},
         1,
         "{\"p\": \"k\"}",
         false,
         "{\"p\": \"k\", \"l\": [\"x\"]}",
         NULL,
         NULL},
        /* DELETE from a set; an emptied set goes */
        {{{"s", DEL, "<<\"a\">>"}},
         1,
         "{\"p\": \"k\", \"s\": <<\"a\", \"b\">>}",
         true,
         "{\"p\": \"k\", \"s\": <<\"b\">>}",
         NULL,
         NULL},
        {{{"s", DEL, "<<\"a\", \"b\">>"}},
         1,
         "{\"p\": \"k\", \"s\": <<\"a\", \"b\">>}",
         true,
         "{\"p\": \"k\"}",
         "{}",
         NULL},
        {{{"s", DEL, "<<\"a\">>"}}, 1, "{\"p\": \"k\"}", false, "{\"p\": \"k\"}", NULL, NULL},
        /* type mismatches, with the AttributeUpdates wording */
        {{{"n", ADD, "1"}},
         1,
         "{\"p\": \"k\", \"n\": \"x\"}",
         true,
         NULL,
         NULL,
         "Type mismatch for attribute to update"},
        {{{"s", ADD, "<<1>>"}},
         1,
         "{\"p\": \"k\", \"s\": <<\"a\">>}",
         true,
         NULL,
         NULL,
         "Type mismatch for attribute to update"},
        {{{"s", DEL, "<<1>>"}},
         1,
         "{\"p\": \"k\", \"s\": 1}",
         true,
         NULL,
         NULL,
         "Type mismatch for attribute to update"},
        {{{"l", ADD, "[1]"}},
         1,
         "{\"p\": \"k\", \"l\": \"x\"}",
         true,
         NULL,
         NULL,
         "Type mismatch for attribute to update"},
        /* the request's own checks */
        {{{"a", PUT, NULL}},
         1,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "Only DELETE action is allowed when no attribute value is specified"},
        {{{"a", ADD, NULL}},
         1,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "Only DELETE action is allowed when no attribute value is specified"},
        {{{"a", DEL, "[]"}},
         1,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "DELETE action with value is not supported for the type L"},
        {{{"a", DEL, "1"}},
         1,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "DELETE action with value is not supported for the type N"},
        {{{"a", ADD, "{}"}},
         1,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "ADD action is not supported for the type M"},
        {{{"a", ADD, "true"}},
         1,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "ADD action is not supported for the type BOOL"},
        /* the first bad entry in map order wins */
        {{{"a", PUT, "1"}, {"b", ADD, "\"s\""}, {"c", PUT, NULL}},
         3,
         "{}",
         true,
         NULL,
         NULL,
         INVALID "ADD action is not supported for the type S"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_update_case(&cases[i]);
}

static void test_no_attribute_updates_is_no_tree(void)
{
    struct ddb_error err = {0};
    struct expr *e = NULL;

    CHECK_INT_EQ(expr_legacy_updates(NULL, 0, &e, &err), 0);
    CHECK(e == NULL);
}

static void test_attribute_updates_touch_their_names(void)
{
    struct legacy_update u[2] = {{"a", 1, LEGACY_ACTION_DELETE, NULL},
                                 {"b", 1, LEGACY_ACTION_PUT, NULL}};
    struct value v;
    struct ddb_error err = {0};
    struct expr *e = NULL;
    enum value_type t;

    lit("7", &v);
    u[1].value = &v;
    CHECK_INT_EQ(expr_legacy_updates(u, 2, &e, &err), 0);
    CHECK(expr_update_touches(e, "a", 1));
    CHECK(expr_update_touches(e, "b", 1));
    CHECK(!expr_update_touches(e, "c", 1));
    CHECK(expr_update_static_type(e, "b", 1, &t) && t == VALUE_N);
    CHECK(!expr_update_static_type(e, "a", 1, &t)); /* a REMOVE */
    expr_free(e);
    value_clear(&v);
}

/* ---- the static type of an update's values ---- */

static void test_update_static_types(void)
{
    static const struct {
        const char *update, *values, *name;
        int type; /* -1: unknown */
    } cases[] = {
        {"SET c = :s", "{\":s\": \"x\"}", "c", VALUE_S},
        {"SET c = a + :n", "{\":n\": 1}", "c", VALUE_N},
        {"SET c = :n - a", "{\":n\": 1}", "c", VALUE_N},
        {"SET c = list_append(a, :l)", "{\":l\": []}", "c", VALUE_L},
        {"SET c = if_not_exists(c, :n)", "{\":n\": 1}", "c", VALUE_N},
        {"SET c = if_not_exists(c, d)", NULL, "c", -1},
        {"SET c = e", NULL, "c", -1},
        {"ADD c :n", "{\":n\": 1}", "c", VALUE_N},
        {"DELETE c :s", "{\":s\": <<1>>}", "c", VALUE_NS},
        {"REMOVE c", NULL, "c", -1},
        {"SET c.d = :n", "{\":n\": 1}", "c", -1}, /* not c as a whole */
        {"SET d = :n", "{\":n\": 1}", "c", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct value names, values;
        char msg[512];
        enum value_type t = VALUE_NULL;
        struct expr *e = parse_lit(EXPR_UPDATE, "UpdateExpression", cases[i].update, NULL,
                                   cases[i].values, &names, &values, msg, sizeof msg);
        bool known;
        CHECK(e != NULL);
        if (!e) {
            fprintf(stderr, "%s: %s\n", cases[i].update, msg);
            continue;
        }
        known = expr_update_static_type(e, cases[i].name, strlen(cases[i].name), &t);
        if (known != (cases[i].type >= 0) || (known && (int) t != cases[i].type))
            fprintf(stderr, "case %s\n", cases[i].update);
        CHECK(known == (cases[i].type >= 0));
        if (known) CHECK_INT_EQ(t, cases[i].type);
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
    }
}

/* ---- UpdateItem and GetItem through the engine ---- */

static const struct db_scope scope = {"test", "us-east-1"};

/* Table "t": p S; GSI "g" on c (S). */
static struct db *new_db(void)
{
    struct db *db = db_new();
    struct table_def def;
    struct index_def *g;

    def_init(&def, "t");
    def_add_key(&def, "p", VALUE_S, true);
    def_add_attr(&def, "c", VALUE_S);
    g = def_add_index(&def, "g", true, PROJECTION_ALL);
    key_add(&g->key, "c", true);
    create_table_ok(db, &scope, &def);
    return db;
}

/* Runs UpdateItem "update" (NULL: no actions) with values on key {"p": key};
 * returns the error message or "" and the item afterwards (literal) in after. */
static const char *run_update(struct db *db, const char *key, const char *update,
                              const char *values, char *after, size_t after_cap)
{
    static char msg[512];
    struct write_op op = {.kind = WRITE_UPDATE, .table_name = "t"};
    struct write_result res;
    struct get_op get = {.table_name = "t"};
    struct value names, vals;
    struct item *item = NULL;
    struct consumed_capacity cap;
    struct ddb_error err = {0};
    struct expr *e = NULL;
    char klit[64];

    snprintf(klit, sizeof klit, "{\"p\": \"%s\"}", key);
    lit(klit, &op.key);
    lit(klit, &get.key);
    value_init_null(&names);
    value_init_null(&vals);
    msg[0] = '\0';
    if (update) {
        e = parse_lit(EXPR_UPDATE, "UpdateExpression", update, NULL, values, &names, &vals, msg,
                      sizeof msg);
        CHECK(e != NULL);
    }
    op.update = e;
    if (db_write_item(db, &scope, &op, RETURN_CAPACITY_NONE, &res, &err) != 0)
        snprintf(msg, sizeof msg, "%s", err.message);
    else
        write_result_clear(&res);
    ddb_error_clear(&err);
    CHECK_INT_EQ(db_get_item(db, &scope, &get, RETURN_CAPACITY_NONE, &item, &cap, &err), 0);
    snprintf(after, after_cap, "%s", item ? lit_str(item_attrs(item)) : "none");
    item_unref(item);
    consumed_capacity_clear(&cap);
    expr_free(e);
    value_clear(&names);
    value_clear(&vals);
    value_clear(&op.key);
    value_clear(&get.key);
    return msg;
}

static void test_update_item_creates_what_aws_creates(void)
{
    struct db *db = new_db();
    char after[512];

    /* no actions: the key-only item */
    CHECK_STR_EQ(run_update(db, "k1", NULL, NULL, after, sizeof after), "");
    CHECK_STR_EQ(after, "{\"p\": \"k1\"}");
    /* only removals on a missing item: nothing */
    CHECK_STR_EQ(run_update(db, "k2", "REMOVE a, b.c", NULL, after, sizeof after), "");
    CHECK_STR_EQ(after, "none");
    CHECK_STR_EQ(run_update(db, "k2", "DELETE s :s", "{\":s\": <<1>>}", after, sizeof after), "");
    CHECK_STR_EQ(after, "none");
    /* a SET creates it */
    CHECK_STR_EQ(run_update(db, "k2", "SET a = :v REMOVE b", "{\":v\": 1}", after, sizeof after),
                 "");
    CHECK_STR_EQ(after, "{\"p\": \"k2\", \"a\": 1}");
    /* removing everything from an existing item keeps its key-only item */
    CHECK_STR_EQ(run_update(db, "k2", "REMOVE a", NULL, after, sizeof after), "");
    CHECK_STR_EQ(after, "{\"p\": \"k2\"}");
    db_free(db);
}

static void test_update_item_keeps_index_key_types(void)
{
    struct db *db = new_db();
    char after[512];

    CHECK_STR_EQ(run_update(db, "k", "SET c = :n", "{\":n\": 1}", after, sizeof after),
                 INVALID "Type mismatch for Index Key c Expected: S Actual: N IndexName: g");
    CHECK_STR_EQ(after, "none");
    CHECK_STR_EQ(run_update(db, "k", "ADD c :n", "{\":n\": 1}", after, sizeof after),
                 INVALID "Type mismatch for Index Key c Expected: S Actual: N IndexName: g");
    CHECK_STR_EQ(run_update(db, "k", "SET e = :n", "{\":n\": 1}", after, sizeof after), "");
    CHECK_STR_EQ(run_update(db, "k", "SET c = e", NULL, after, sizeof after),
                 "The update expression attempted to update the secondary index key to "
                 "unsupported type");
    CHECK_STR_EQ(after, "{\"p\": \"k\", \"e\": 1}");
    CHECK_STR_EQ(run_update(db, "k", "SET c = :s", "{\":s\": \"x\"}", after, sizeof after), "");
    CHECK_STR_EQ(after, "{\"p\": \"k\", \"e\": 1, \"c\": \"x\"}");
    db_free(db);
}

static void test_update_item_refuses_paths_inside_keys(void)
{
    struct db *db = new_db();
    char after[512];

    CHECK_STR_EQ(run_update(db, "k", "SET x = p.y", NULL, after, sizeof after),
                 "Key attributes must be scalars; list random access '[]' and map lookup '.' are "
                 "not allowed: Key: p");
    CHECK_STR_EQ(run_update(db, "k", "SET x = c[0]", NULL, after, sizeof after),
                 "Key attributes must be scalars; list random access '[]' and map lookup '.' are "
                 "not allowed: IndexKey: c");
    /* touching the key is reported first */
    CHECK_STR_EQ(run_update(db, "k", "SET p = p.y", NULL, after, sizeof after),
                 INVALID "Cannot update attribute p. This attribute is part of the key");
    CHECK_STR_EQ(after, "none");
    db_free(db);
}

static void test_get_item_refuses_projections_inside_keys(void)
{
    struct db *db = new_db();
    struct get_op get = {.table_name = "t"};
    struct value names, values;
    struct item *item = NULL;
    struct consumed_capacity cap;
    struct ddb_error err = {0};
    char msg[256];
    struct expr *proj = parse_lit(EXPR_PROJECTION, "ProjectionExpression", "a, c.x", NULL, NULL,
                                  &names, &values, msg, sizeof msg);

    lit("{\"p\": \"k\"}", &get.key);
    get.projection = proj;
    CHECK_INT_EQ(db_get_item(db, &scope, &get, RETURN_CAPACITY_NONE, &item, &cap, &err), -1);
    CHECK_STR_EQ(err.message, "Key attributes must be scalars; list random access '[]' and map "
                              "lookup '.' are not allowed: IndexKey: c");
    ddb_error_clear(&err);
    /* the key itself is checked first */
    value_clear(&get.key);
    lit("{\"q\": \"k\"}", &get.key);
    CHECK_INT_EQ(db_get_item(db, &scope, &get, RETURN_CAPACITY_NONE, &item, &cap, &err), -1);
    CHECK_STR_EQ(err.message, "The provided key element does not match the schema");
    ddb_error_clear(&err);
    expr_free(proj);
    value_clear(&names);
    value_clear(&values);
    value_clear(&get.key);
    db_free(db);
}

int main(void)
{
    RUN(test_expected_entries_become_conditions);
    RUN(test_expected_errors_in_dynamodb_order);
    RUN(test_expected_entries_join_with_and_or_or);
    RUN(test_attribute_updates_apply_like_aws);
    RUN(test_no_attribute_updates_is_no_tree);
    RUN(test_attribute_updates_touch_their_names);
    RUN(test_update_static_types);
    RUN(test_update_item_creates_what_aws_creates);
    RUN(test_update_item_keeps_index_key_types);
    RUN(test_update_item_refuses_paths_inside_keys);
    RUN(test_get_item_refuses_projections_inside_keys);
    return check_report();
}
