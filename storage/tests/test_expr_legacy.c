/*
 * test_expr_legacy.c - the legacy parameters as expression trees: tables of
 * (conditions, expected error text) and (condition, item, matches) cases,
 * and KeyConditions against key schemas.
 */
#include "storage/expr/expr_legacy.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

static struct value s(const char *text)
{
    struct value v;
    value_init_string(&v, text, strlen(text));
    return v;
}

static struct value n(const char *text)
{
    struct value v;
    value_init_number_text(&v, text, strlen(text));
    return v;
}

static struct value ss(const char *a)
{
    struct value v, e = s(a);
    value_init_list(&v, VALUE_SS);
    value_list_append(&v, &e);
    return v;
}

/* One condition with up to three values; values are owned by the case. */
struct cond_case {
    const char *name;
    enum legacy_op op;
    struct value values[3];
    size_t count;
    const char *error; /* NULL when valid */
};

static void cond_case_clear(struct cond_case *c)
{
    for (size_t i = 0; i < c->count; i++)
        value_clear(&c->values[i]);
}

static void check_condition_case(struct cond_case *c)
{
    struct legacy_condition lc = {c->name, strlen(c->name), c->op, c->values, c->count};
    struct ddb_error err = {0};
    int rc = expr_legacy_check_conditions(&lc, 1, &err);

    if (c->error) {
        CHECK_INT_EQ(rc, -1);
        CHECK_STR_EQ(err.message, c->error);
    } else {
        CHECK_INT_EQ(rc, 0);
    }
    ddb_error_clear(&err);
    cond_case_clear(c);
}

static void test_expr_legacy_condition_checks_use_aws_texts(void)
{
    struct cond_case cases[] = {
        {"a",
         LEGACY_EQ,
         {{0}},
         0,
         "One or more parameter values were invalid: Invalid number of argument(s) for the EQ "
         "ComparisonOperator"},
        {"a",
         LEGACY_NULL,
         {s("x")},
         1,
         "One or more parameter values were invalid: Invalid number of argument(s) for the NULL "
         "ComparisonOperator"},
        {"a",
         LEGACY_BETWEEN,
         {n("1")},
         1,
         "One or more parameter values were invalid: Invalid number of argument(s) for the "
         "BETWEEN ComparisonOperator"},
        {"a",
         LEGACY_IN,
         {s("b"), n("1")},
         2,
         "One or more parameter values were invalid: AttributeValues inside AttributeValueList "
         "must be of same type"},
        {"a",
         LEGACY_LT,
         {ss("a")},
         1,
         "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS "
         "AttributeValue type"},
        {"a",
         LEGACY_BEGINS_WITH,
         {n("1")},
         1,
         "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid "
         "for N AttributeValue type"},
        {"a",
         LEGACY_BETWEEN,
         {s("b"), s("a")},
         2,
         "The BETWEEN condition was provided a range where the lower bound is greater than the "
         "upper bound"},
        {"a", LEGACY_EQ, {ss("a")}, 1, NULL},
        {"a", LEGACY_IN, {n("1"), n("2"), n("3")}, 3, NULL},
        {"a", LEGACY_NOT_NULL, {{0}}, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_condition_case(&cases[i]);
}

static struct value item_with(const char *name, struct value v)
{
    struct value m;
    value_init_map(&m);
    if (name)
        value_map_set(&m, name, strlen(name), &v);
    else
        value_clear(&v);
    return m;
}

static bool filter_matches(enum legacy_op op, struct value arg, bool has_arg, struct value item)
{
    struct legacy_condition c = {"a", 1, op, has_arg ? &arg : NULL, has_arg ? 1 : 0};
    struct ddb_error err = {0};
    struct expr *e = NULL;
    bool matched = false;

    CHECK_INT_EQ(expr_legacy_filter(&c, 1, false, &e, &err), 0);
    if (e) expr_eval_condition(e, &item, &matched, &err);
    expr_free(e);
    value_clear(&arg);
    value_clear(&item);
    return matched;
}

static void test_expr_legacy_filters_evaluate_like_aws(void)
{
    /* A missing attribute: NE and NULL match, NOT_CONTAINS does not (scylla
     * alternator check_NOT_CONTAINS, tested against AWS). */
    CHECK(filter_matches(LEGACY_NE, s("x"), true, item_with(NULL, s(""))));
    CHECK(filter_matches(LEGACY_NULL, s(""), false, item_with(NULL, s(""))));
    CHECK(!filter_matches(LEGACY_NOT_CONTAINS, s("x"), true, item_with(NULL, s(""))));
    CHECK(!filter_matches(LEGACY_NOT_NULL, s(""), false, item_with(NULL, s(""))));
    CHECK(filter_matches(LEGACY_NOT_CONTAINS, s("q"), true, item_with("a", s("xyz"))));
    CHECK(!filter_matches(LEGACY_NOT_CONTAINS, s("y"), true, item_with("a", s("xyz"))));
    CHECK(filter_matches(LEGACY_CONTAINS, s("a"), true, item_with("a", ss("a"))));
    CHECK(filter_matches(LEGACY_BEGINS_WITH, s("xy"), true, item_with("a", s("xyz"))));
    CHECK(filter_matches(LEGACY_GE, n("2"), true, item_with("a", n("10"))));
    CHECK(!filter_matches(LEGACY_LT, n("2"), true, item_with("a", s("1"))));
}

static void test_expr_legacy_conditional_operator_or(void)
{
    struct value v1 = n("1"), v2 = n("2");
    struct legacy_condition c[2] = {{"a", 1, LEGACY_EQ, &v1, 1}, {"b", 1, LEGACY_EQ, &v2, 1}};
    struct value item = item_with("b", n("2"));
    struct ddb_error err = {0};
    struct expr *and_e = NULL, *or_e = NULL;
    bool m_and = true, m_or = false;

    CHECK_INT_EQ(expr_legacy_filter(c, 2, false, &and_e, &err), 0);
    CHECK_INT_EQ(expr_legacy_filter(c, 2, true, &or_e, &err), 0);
    expr_eval_condition(and_e, &item, &m_and, &err);
    expr_eval_condition(or_e, &item, &m_or, &err);
    CHECK(!m_and);
    CHECK(m_or);
    expr_free(and_e);
    expr_free(or_e);
    value_clear(&item);
    value_clear(&v1);
    value_clear(&v2);
}

static void test_expr_legacy_attributes_to_get(void)
{
    const char *names[] = {"a", "b", "a"};
    size_t lens[] = {1, 1, 1};
    struct ddb_error err = {0};
    struct expr *e = NULL;
    struct value item, out;

    CHECK_INT_EQ(expr_legacy_projection(names, lens, 3, &e, &err), -1);
    CHECK_STR_EQ(err.message,
                 "One or more parameter values were invalid: Duplicate value in attribute name: a");
    ddb_error_clear(&err);
    CHECK_INT_EQ(expr_legacy_projection(names, lens, 2, &e, &err), 0);
    item = item_with("b", n("7"));
    expr_project(e, &item, &out);
    CHECK_INT_EQ(out.u.map.count, 1);
    CHECK(value_map_get(&out, "b", 1) != NULL);
    value_clear(&out);
    value_clear(&item);
    expr_free(e);
}

/* KeyConditions against a (p HASH, c RANGE) schema with both declared N. */
static const char *resolve_error(struct legacy_condition *conds, size_t count, bool hash_only)
{
    static char text[256];
    char *hash[1] = {"p"}, *range[1] = {"c"};
    struct key_schema schema = {1, {hash[0]}, hash_only ? 0 : 1, {range[0]}};
    struct attr_def defs[2] = {{"p", VALUE_N}, {"c", VALUE_N}};
    struct key_condition kc;
    struct ddb_error err = {0};
    struct expr *e = NULL;

    text[0] = '\0';
    if (expr_legacy_key_conditions(conds, count, &e, &err) == 0 &&
        expr_legacy_key_resolve(e, &schema, defs, 2, &kc, &err) == 0)
        key_condition_clear(&kc);
    if (err.message) snprintf(text, sizeof text, "%s", err.message);
    ddb_error_clear(&err);
    expr_free(e);
    return text;
}

static void test_expr_legacy_key_conditions_against_the_schema(void)
{
    struct value one = n("1"), str = s("a");
    struct legacy_condition p_eq = {"p", 1, LEGACY_EQ, &one, 1};
    struct legacy_condition c_null = {"c", 1, LEGACY_NULL, NULL, 0};
    struct legacy_condition c_gt = {"c", 1, LEGACY_GT, &one, 1};
    struct legacy_condition p_gt = {"p", 1, LEGACY_GT, &one, 1};
    struct legacy_condition p_str = {"p", 1, LEGACY_EQ, &str, 1};
    struct legacy_condition z_eq = {"z", 1, LEGACY_EQ, &one, 1};
    struct legacy_condition two[2];

    two[0] = p_eq;
    two[1] = c_null;
    CHECK_STR_EQ(resolve_error(two, 2, false),
                 "Attempted conditional constraint is not an indexable operation");
    two[1] = c_gt;
    CHECK_STR_EQ(resolve_error(two, 2, false), "");
    CHECK_STR_EQ(resolve_error(two, 2, true), "Query key condition not supported");
    CHECK_STR_EQ(resolve_error(&p_gt, 1, false), "Query key condition not supported");
    CHECK_STR_EQ(resolve_error(&c_gt, 1, false), "Query condition missed key schema element: p");
    CHECK_STR_EQ(resolve_error(&p_str, 1, false),
                 "One or more parameter values were invalid: Condition parameter type does not "
                 "match schema type");
    two[1] = z_eq;
    CHECK_STR_EQ(resolve_error(two, 2, false), "Query condition missed key schema element: c");
    value_clear(&one);
    value_clear(&str);
}

int main(void)
{
    RUN(test_expr_legacy_condition_checks_use_aws_texts);
    RUN(test_expr_legacy_filters_evaluate_like_aws);
    RUN(test_expr_legacy_conditional_operator_or);
    RUN(test_expr_legacy_attributes_to_get);
    RUN(test_expr_legacy_key_conditions_against_the_schema);
    return check_report();
}
