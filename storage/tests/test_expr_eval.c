/*
 * test_expr_eval.c - the evaluator: tables of (expression, names, values,
 * item) -> matched / new item / projection / exact error.
 *
 * Semantics are DynamoDB's; each group cites the behaviour it pins (scylladb
 * test/alternator, dynalite's tests recorded against AWS, the developer guide).
 * Items are written in the literal notation of expr_test_util.h.
 */
#include "storage/base/text.h"
#include "storage/expr/expr.h"
#include "storage/expr/expr_ast.h"
#include "storage/model/item.h"
#include "storage/model/schema.h"
#include "storage/tests/check.h"
#include "storage/tests/expr_test_util.h"

#include <stdlib.h>
#include <string.h>

#define RUN_TABLE(fn, t) fn(t, sizeof(t) / sizeof((t)[0]))

/* ---- conditions ---- */

struct cond_case {
    const char *expr;
    const char *names;
    const char *values;
    const char *item; /* NULL: the item does not exist */
    bool matched;
};

static void run_conditions(const struct cond_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct cond_case *c = &cases[i];
        struct value names, values, item;
        struct ddb_error err = {0};
        char msg[2048];
        bool matched = !c->matched;
        struct expr *e = parse_lit(EXPR_CONDITION, "ConditionExpression", c->expr, c->names,
                                   c->values, &names, &values, msg, sizeof msg);
        if (!e) {
            fprintf(stderr, "case %zu (%s): %s\n", i, c->expr, msg);
            CHECK(e != NULL);
        } else {
            lit(c->item, &item);
            CHECK_INT_EQ(expr_eval_condition(e, c->item ? &item : NULL, &matched, &err), 0);
            if (matched != c->matched)
                fprintf(stderr, "case %zu: %s on %s\n", i, c->expr, c->item ? c->item : "(none)");
            CHECK_INT_EQ(matched, c->matched);
            value_clear(&item);
        }
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
    }
}

/* One value of each type, as attributes s, n, b, t (BOOL), z (NULL), l, m, ss, ns, bs. */
static const char ALL[] =
    "{\"s\": \"hello\", \"n\": 10, \"b\": b\"\\x01\\x02\\x03\", \"t\": true, \"z\": null, "
    "\"l\": [\"x\", 3, [1, 2], {\"k\": \"v\"}], \"m\": {\"k\": \"v\", \"n\": {\"d\": [7, 8]}}, "
    "\"ss\": <<\"red\", \"green\">>, \"ns\": <<1, 5.5>>, \"bs\": <<b\"a\", b\"b\">>}";

static void test_equality_on_every_type(void)
{
    static const struct cond_case cases[] = {
        {"s = :v", NULL, "{\":v\": \"hello\"}", ALL, true},
        {"n = :v", NULL, "{\":v\": 10.0}", ALL, true}, /* numbers compare by value */
        {"n = :v", NULL, "{\":v\": 1e1}", ALL, true},
        {"b = :v", NULL, "{\":v\": b\"\\x01\\x02\\x03\"}", ALL, true},
        {"t = :v", NULL, "{\":v\": true}", ALL, true},
        {"t = :v", NULL, "{\":v\": false}", ALL, false},
        {"z = :v", NULL, "{\":v\": null}", ALL, true},
        {"l = :v", NULL, "{\":v\": [\"x\", 3, [1, 2], {\"k\": \"v\"}]}", ALL, true},
        {"l = :v", NULL, "{\":v\": [3, \"x\", [1, 2], {\"k\": \"v\"}]}", ALL, false}, /* order */
        {"m = :v", NULL, "{\":v\": {\"n\": {\"d\": [7, 8]}, \"k\": \"v\"}}", ALL, true},
        {"ss = :v", NULL, "{\":v\": <<\"green\", \"red\">>}", ALL, true}, /* sets ignore order */
        {"ns = :v", NULL, "{\":v\": <<5.50, 1>>}", ALL, true},
        {"bs = :v", NULL, "{\":v\": <<b\"b\", b\"a\">>}", ALL, true},
        {"ss = :v", NULL, "{\":v\": <<\"green\">>}", ALL, false},
        /* different types are never equal, not an error (scylla test_update_condition_eq_different)
         */
        {"n = :v", NULL, "{\":v\": \"10\"}", ALL, false},
        {"s = :v", NULL, "{\":v\": <<\"hello\">>}", ALL, false},
        {"ns = :v", NULL, "{\":v\": [1, 5.5]}", ALL, false},
        {"t = :v", NULL, "{\":v\": 1}", ALL, false},
        /* a missing attribute equals nothing, not even another one
           (test_update_condition_eq_two_unset) */
        {"q = :v", NULL, "{\":v\": 1}", ALL, false},
        {"q = z2", NULL, NULL, ALL, false},
        {"q <> z2", NULL, NULL, ALL, true},
        {"q <> :v", NULL, "{\":v\": 1}", ALL, true},
        {"n <> :v", NULL, "{\":v\": \"10\"}", ALL, true},
        {"n <> :v", NULL, "{\":v\": 10}", ALL, false},
        /* two attributes of one item */
        {"m.k = l[3].k", NULL, NULL, ALL, true},
        {"#d = :v", "{\"#d\": \"dotted.name\"}", "{\":v\": 1}", "{\"dotted.name\": 1}", true},
        {"dotted.nm = :v", NULL, "{\":v\": 1}", "{\"dotted.nm\": 1}", false},
        /* no item at all */
        {"s = :v", NULL, "{\":v\": \"hello\"}", NULL, false},
        {"s <> :v", NULL, "{\":v\": \"hello\"}", NULL, true},
    };
    RUN_TABLE(run_conditions, cases);
}

static void test_ordering_comparisons(void)
{
    static const struct cond_case cases[] = {
        {"n > :v", NULL, "{\":v\": 9}", ALL, true}, /* numerically, not as text */
        {"n < :v", NULL, "{\":v\": 100}", ALL, true},
        {"n >= :v AND n <= :v", NULL, "{\":v\": 10}", ALL, true},
        {"n < :v", NULL, "{\":v\": -11}", ALL, false},
        {"n > :v", NULL, "{\":v\": 9.99999999999999999999999999999999999}", ALL, true},
        {"s > :v", NULL, "{\":v\": \"apple\"}", ALL, true},
        {"s < :v", NULL, "{\":v\": \"hello_\"}", ALL, true},
        {"s <= :v", NULL, "{\":v\": \"hello\"}", ALL, true},
        {"s < :v", NULL, "{\":v\": \"hello\"}", ALL, false},
        {"s > :v", NULL, "{\":v\": \"Hello\"}", ALL, true}, /* bytes: 'h' > 'H' */
        /* UTF-8 bytes as unsigned: U+1F600 sorts after U+FFFD */
        {"u > :v", NULL, "{\":v\": \"\\xEF\\xBF\\xBD\"}", "{\"u\": \"\\xF0\\x9F\\x98\\x80\"}",
         true},
        {"b < :v", NULL, "{\":v\": b\"\\x01\\x03\"}", ALL, true},
        /* binaries are unsigned bytes (scylla test_key_condition_expression_unsigned_bytes) */
        {"b < :v", NULL, "{\":v\": b\"\\x80\"}", "{\"b\": b\"\\x7f\"}", true},
        /* different types, missing attributes, unordered types: false */
        {"s > :v", NULL, "{\":v\": 1}", ALL, false},
        {"n < :v", NULL, "{\":v\": \"17\"}", ALL, false},
        {"q < :v", NULL, "{\":v\": 1}", ALL, false},
        {":v < q", NULL, "{\":v\": 1}", ALL, false},
        {"q < z2", NULL, NULL, ALL, false},
        {"q >= z2", NULL, NULL, ALL, false},
        {"l < :v", NULL, "{\":v\": 1}", ALL, false},
        {":v <= t", NULL, "{\":v\": 1}", ALL, false},
        /* BETWEEN is inclusive, needs one type throughout */
        {"n BETWEEN :a AND :b", NULL, "{\":a\": 10, \":b\": 20}", ALL, true},
        {"n BETWEEN :a AND :b", NULL, "{\":a\": 1, \":b\": 10}", ALL, true},
        {"n BETWEEN :a AND :b", NULL, "{\":a\": 11, \":b\": 20}", ALL, false},
        {"s BETWEEN :a AND :b", NULL, "{\":a\": \"a\", \":b\": \"i\"}", ALL, true},
        {"n BETWEEN :a AND :b", NULL, "{\":a\": \"1\", \":b\": \"9\"}", ALL, false},
        {"q BETWEEN z2 AND x2", NULL, NULL, ALL, false},
        {"n BETWEEN s AND ns", NULL, NULL, ALL, false},
        /* bounds from the item may be reversed: then nothing is between them */
        {"x BETWEEN hi AND lo", NULL, NULL, "{\"x\": 5, \"lo\": 1, \"hi\": 9}", false},
        {"x BETWEEN lo AND hi", NULL, NULL, "{\"x\": 5, \"lo\": 1, \"hi\": 9}", true},
    };
    RUN_TABLE(run_conditions, cases);
}

static void test_in_and_logic(void)
{
    static const struct cond_case cases[] = {
        {"s IN (:a, :b)", NULL, "{\":a\": \"apple\", \":b\": \"hello\"}", ALL, true},
        {"s IN (:a)", NULL, "{\":a\": \"apple\"}", ALL, false},
        {"n IN (:a, :b)", NULL, "{\":a\": \"10\", \":b\": 10.0}", ALL, true},
        {"q IN (:a)", NULL, "{\":a\": 1}", ALL, false},
        {"m.k IN (:a, l[3].k)", NULL, "{\":a\": 1}", ALL, true},
        {"l[1] IN (s, n, :a)", NULL, "{\":a\": 3}", ALL, true},
        /* precedence: AND before OR, NOT before AND */
        {"n = :y OR n = :y AND n = :x", NULL, "{\":y\": 10, \":x\": 11}", ALL, true},
        {"(n = :y OR n = :y) AND n = :x", NULL, "{\":y\": 10, \":x\": 11}", ALL, false},
        {"NOT n = :x AND n = :y", NULL, "{\":y\": 10, \":x\": 11}", ALL, true},
        {"NOT (n = :y)", NULL, "{\":y\": 10}", ALL, false},
        {"NOT NOT n = :y", NULL, "{\":y\": 10}", ALL, true},
        {"n = :x OR s = :x OR t = :t", NULL, "{\":x\": 11, \":t\": true}", ALL, true},
        {"n = :y AND s = :s AND t = :t AND z = :z", NULL,
         "{\":y\": 10, \":s\": \"hello\", \":t\": true, \":z\": null}", ALL, true},
        {"n = :y AND s = :s AND t = :t AND z = :t", NULL,
         "{\":y\": 10, \":s\": \"hello\", \":t\": true}", ALL, false},
    };
    RUN_TABLE(run_conditions, cases);
}

static void test_functions_on_every_type(void)
{
    static const struct cond_case cases[] = {
        /* attribute_exists / attribute_not_exists, also nested and in lists */
        {"attribute_exists(z)", NULL, NULL, ALL, true}, /* NULL exists */
        {"attribute_exists(m.n.d[1])", NULL, NULL, ALL, true},
        {"attribute_exists(m.n.d[2])", NULL, NULL, ALL, false},
        {"attribute_exists(l[3].k)", NULL, NULL, ALL, true},
        {"attribute_exists(s.x)", NULL, NULL, ALL, false},
        {"attribute_exists(ss[0])", NULL, NULL, ALL, false}, /* sets have no positions */
        {"attribute_not_exists(q)", NULL, NULL, ALL, true},
        {"attribute_not_exists(l[9])", NULL, NULL, ALL, true},
        {"attribute_not_exists(s)", NULL, NULL, ALL, false},
        {"attribute_exists(s)", NULL, NULL, NULL, false},
        {"attribute_not_exists(s)", NULL, NULL, NULL, true},
        /* attribute_type, one row per type */
        {"attribute_type(s, :t)", NULL, "{\":t\": \"S\"}", ALL, true},
        {"attribute_type(n, :t)", NULL, "{\":t\": \"N\"}", ALL, true},
        {"attribute_type(b, :t)", NULL, "{\":t\": \"B\"}", ALL, true},
        {"attribute_type(t, :t)", NULL, "{\":t\": \"BOOL\"}", ALL, true},
        {"attribute_type(z, :t)", NULL, "{\":t\": \"NULL\"}", ALL, true},
        {"attribute_type(l, :t)", NULL, "{\":t\": \"L\"}", ALL, true},
        {"attribute_type(m, :t)", NULL, "{\":t\": \"M\"}", ALL, true},
        {"attribute_type(ss, :t)", NULL, "{\":t\": \"SS\"}", ALL, true},
        {"attribute_type(ns, :t)", NULL, "{\":t\": \"NS\"}", ALL, true},
        {"attribute_type(bs, :t)", NULL, "{\":t\": \"BS\"}", ALL, true},
        {"attribute_type(n, :t)", NULL, "{\":t\": \"S\"}", ALL, false},
        {"attribute_type(q, :t)", NULL, "{\":t\": \"NULL\"}", ALL, false},
        {"attribute_type(m.n, :t)", NULL, "{\":t\": \"M\"}", ALL, true},
        /* begins_with: strings and binaries of the same type */
        {"begins_with(s, :p)", NULL, "{\":p\": \"hel\"}", ALL, true},
        {"begins_with(s, :p)", NULL, "{\":p\": \"hello\"}", ALL, true},
        {"begins_with(s, :p)", NULL, "{\":p\": \"ello\"}", ALL, false},
        {"begins_with(s, :p)", NULL, "{\":p\": \"hello!\"}", ALL, false},
        {"begins_with(b, :p)", NULL, "{\":p\": b\"\\x01\\x02\"}", ALL, true},
        {"begins_with(b, :p)", NULL, "{\":p\": \"\\x01\"}", ALL, false}, /* S prefix of a B */
        {"begins_with(n, :p)", NULL, "{\":p\": \"1\"}", ALL, false},
        {"begins_with(q, :p)", NULL, "{\":p\": \"h\"}", ALL, false},
        {"begins_with(l, :p)", NULL, "{\":p\": \"x\"}", ALL, false},
        /* contains: substring of S and B, member of a set, element of a list */
        {"contains(s, :v)", NULL, "{\":v\": \"ell\"}", ALL, true},
        {"contains(s, :v)", NULL, "{\":v\": \"\"}", "{\"s\": \"x\"}", true},
        {"contains(s, :v)", NULL, "{\":v\": \"lo!\"}", ALL, false},
        {"contains(b, :v)", NULL, "{\":v\": b\"\\x02\\x03\"}", ALL, true},
        {"contains(b, :v)", NULL, "{\":v\": \"\\x02\"}", ALL, false},
        {"contains(ss, :v)", NULL, "{\":v\": \"red\"}", ALL, true},
        {"contains(ss, :v)", NULL, "{\":v\": \"blue\"}", ALL, false},
        {"contains(ss, :v)", NULL, "{\":v\": <<\"red\">>}", ALL, false},
        {"contains(ns, :v)", NULL, "{\":v\": 5.50}", ALL, true},
        {"contains(ns, :v)", NULL, "{\":v\": \"5.5\"}", ALL, false},
        {"contains(bs, :v)", NULL, "{\":v\": b\"b\"}", ALL, true},
        /* lists, as the likes seed's favUserIds (SCHEMAS.md) */
        {"contains(l, :v)", NULL, "{\":v\": 3}", ALL, true},
        {"contains(l, :v)", NULL, "{\":v\": \"3\"}", ALL, false},
        {"contains(l, :v)", NULL, "{\":v\": [1, 2]}", ALL, true},
        {"contains(l, :v)", NULL, "{\":v\": {\"k\": \"v\"}}", ALL, true},
        {"contains(favUserIds, :u)", NULL, "{\":u\": \"u2\"}", "{\"favUserIds\": [\"u1\", \"u2\"]}",
         true},
        {"contains(m, :v)", NULL, "{\":v\": \"k\"}", ALL, false},
        {"contains(n, :v)", NULL, "{\":v\": 1}", ALL, false},
        {"contains(q, :v)", NULL, "{\":v\": 1}", ALL, false},
        {"contains(s, m.k)", NULL, NULL, "{\"s\": \"avb\", \"m\": {\"k\": \"v\"}}", true},
        /* size of each type; of a number, boolean or null it is "missing" */
        {"size(s) = :v", NULL, "{\":v\": 5}", ALL, true},
        {"size(u) = :v", NULL, "{\":v\": 3}", "{\"u\": \"\\xC3\\xA9\\xF0\\x9F\\x98\\x80\"}", true},
        {"size(b) = :v", NULL, "{\":v\": 3}", ALL, true},
        {"size(l) = :v", NULL, "{\":v\": 4}", ALL, true},
        {"size(m) = :v", NULL, "{\":v\": 2}", ALL, true},
        {"size(ss) = :v", NULL, "{\":v\": 2}", ALL, true},
        {"size(ns) = :v", NULL, "{\":v\": 2}", ALL, true},
        {"size(bs) = :v", NULL, "{\":v\": 2}", ALL, true},
        {"size(m.n.d) = :v", NULL, "{\":v\": 2}", ALL, true},
        {"size(e) = :v", NULL, "{\":v\": 0}", "{\"e\": \"\"}", true},
        {"size(n) >= :v", NULL, "{\":v\": 0}", ALL, false},
        {"size(t) >= :v", NULL, "{\":v\": 0}", ALL, false},
        {"size(z) >= :v", NULL, "{\":v\": 0}", ALL, false},
        {"size(q) >= :v", NULL, "{\":v\": 0}", ALL, false},
        {"size(n) <> :v", NULL, "{\":v\": 0}", ALL, true},
        {"size(s) > size(l)", NULL, NULL, ALL, true},
        {"size(s) BETWEEN :a AND :b", NULL, "{\":a\": 1, \":b\": 5}", ALL, true},
        {"size(s) IN (:a, :b)", NULL, "{\":a\": 1, \":b\": 5}", ALL, true},
        {"contains(l, size(s))", NULL, NULL, "{\"l\": [5], \"s\": \"abcde\"}", true},
    };
    RUN_TABLE(run_conditions, cases);
}

/* ---- updates ---- */

struct update_case {
    const char *expr;
    const char *names;
    const char *values;
    const char *item;     /* before */
    const char *expected; /* after, or NULL when the update fails */
    const char *error;
};

/*
 * expr_update_item (the item made from the old one's encoding, as UpdateItem
 * writes it) must give what expr_apply_update_ex gives on the tree: the same
 * bytes (so the same attributes in the same order) and size, or the same
 * error. before is the item's tree before the update; after the tree
 * expr_apply_update_ex left (rc 0) or NULL when it failed with want_error.
 */
static void check_update_item_agrees(const struct expr *e, const struct value *before,
                                     const struct value *after, const char *want_error)
{
    struct value copy;
    struct ddb_error err = {0};
    struct item *old, *got, *want;

    value_copy(&copy, before);
    old = item_new(&copy);
    got = expr_update_item(e, old, &err);
    if (!after) {
        CHECK(got == NULL);
        CHECK_STR_EQ(err.message, want_error);
    } else {
        value_copy(&copy, after);
        want = item_new(&copy);
        CHECK(got != NULL);
        if (got) {
            CHECK_INT_EQ(got->size_bytes, want->size_bytes);
            CHECK_INT_EQ(got->encoded_len, want->encoded_len);
            CHECK(got->encoded_len == want->encoded_len &&
                  memcmp(got->encoded, want->encoded, got->encoded_len) == 0);
        }
        item_unref(want);
    }
    item_unref(got);
    item_unref(old);
    ddb_error_clear(&err);
}

static void run_updates(const struct update_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct update_case *c = &cases[i];
        struct value names, values, item, before, expected;
        struct ddb_error err = {0};
        char msg[2048];
        struct expr *e = parse_lit(EXPR_UPDATE, "UpdateExpression", c->expr, c->names, c->values,
                                   &names, &values, msg, sizeof msg);
        if (!e) {
            fprintf(stderr, "case %zu (%s): %s\n", i, c->expr, msg);
            CHECK(e != NULL);
            value_clear(&names);
            value_clear(&values);
            continue;
        }
        lit(c->item, &item);
        lit(c->item, &before);
        int rc = expr_apply_update_ex(e, &item, true, &err);
        check_update_item_agrees(e, &before, rc == 0 ? &item : NULL, err.message);
        if (c->expected) {
            lit(c->expected, &expected);
            if (rc != 0 || !value_equal(&item, &expected))
                fprintf(stderr, "case %zu (%s): got %s%s\n", i, c->expr,
                        rc ? err.message : lit_str(&item), "");
            CHECK_INT_EQ(rc, 0);
            CHECK(value_equal(&item, &expected));
            value_clear(&expected);
        } else {
            if (rc == 0) fprintf(stderr, "case %zu (%s): got %s\n", i, c->expr, lit_str(&item));
            CHECK_INT_EQ(rc, -1);
            CHECK_STR_EQ(err.message, c->error);
            CHECK(value_equal(&item, &before)); /* nothing changed */
        }
        ddb_error_clear(&err);
        value_clear(&item);
        value_clear(&before);
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
    }
}

static const char NOT_FOUND[] =
    "The provided expression refers to an attribute that does not exist in the item";
static const char BAD_TYPE[] = "An operand in the update expression has an incorrect data type";
static const char BAD_PATH[] =
    "The document path provided in the update expression is invalid for update";

static void test_set_and_arithmetic(void)
{
    static const struct update_case cases[] = {
        {"SET b = :v", NULL, "{\":v\": 4}", "{\"p\": \"k\", \"a\": \"hi\"}",
         "{\"p\": \"k\", \"a\": \"hi\", \"b\": 4}", NULL},
        {"SET a = :v", NULL, "{\":v\": \"hey\"}", "{\"a\": \"hi\"}", "{\"a\": \"hey\"}", NULL},
        /* every right-hand side reads the item as it was (scylla
           test_update_expression_multi_with_copy) */
        {"SET b = a, a = :v", NULL, "{\":v\": 2}", "{\"a\": 1}", "{\"a\": 2, \"b\": 1}", NULL},
        {"REMOVE a SET b = a", NULL, NULL, "{\"a\": \"hello\"}", "{\"b\": \"hello\"}", NULL},
        {"SET x = :v, y = x", NULL, "{\":v\": 4}", "{\"a\": 1}", NULL, NOT_FOUND},
        {"SET c = z", NULL, NULL, "{\"a\": 1}", NULL, NOT_FOUND},
        {"SET a = a", NULL, NULL, "{\"a\": 1}", "{\"a\": 1}", NULL},
        /* + and - are exact (the likes seed: SET #0 = #0 + :0) */
        {"SET #0 = #0 + :0", "{\"#0\": \"count\"}", "{\":0\": 1}", "{\"count\": 41}",
         "{\"count\": 42}", NULL},
        {"SET #c = #c - :one", "{\"#c\": \"count\"}", "{\":one\": 1}", "{\"count\": 1}",
         "{\"count\": 0}", NULL},
        {"SET f = f + :f", NULL, "{\":f\": 0.2}", "{\"f\": 0.1}", "{\"f\": 0.3}", NULL},
        {"SET f = :a + :b", NULL, "{\":a\": 10000000000000000000000, \":b\": 1}", "{}",
         "{\"f\": 10000000000000000000001}", NULL},
        {"SET f = :a - :b", NULL, "{\":a\": 1, \":b\": 1.0000000000000000000000000000000000001}",
         "{}", "{\"f\": -0.0000000000000000000000000000000000001}", NULL},
        {"SET f = :a + :b", NULL, "{\":a\": 99999999999999999999999999999999999999, \":b\": 1}",
         "{}", "{\"f\": 100000000000000000000000000000000000000}", NULL},
        {"SET f = :a + :b", NULL, "{\":a\": 12345678901234567890123456789012345678, \":b\": 0.1}",
         "{}", NULL,
         "Number overflow. Attempting to store a number with magnitude larger than supported "
         "range"},
        {"SET f = :a + :a", NULL, "{\":a\": 9.9999999999999999999999999999999999999e125}", "{}",
         NULL,
         "Number overflow. Attempting to store a number with magnitude larger than supported "
         "range"},
        {"SET a = :v - a", NULL, "{\":v\": 7}", "{\"a\": 2}", "{\"a\": 5}", NULL},
        {"SET a = b + :v", NULL, "{\":v\": 1}", "{\"b\": \"x\"}", NULL, BAD_TYPE},
        {"SET a = b + :v", NULL, "{\":v\": 1}", "{}", NULL, NOT_FOUND},
        {"SET a = :v + b", NULL, "{\":v\": 1}", "{\"b\": <<1>>}", NULL, BAD_TYPE},
        /* if_not_exists(path, value): the path's value if present, else value */
        {"SET a = if_not_exists(a, :v)", NULL, "{\":v\": 2}", "{}", "{\"a\": 2}", NULL},
        {"SET a = if_not_exists(a, :v)", NULL, "{\":v\": 3}", "{\"a\": 2}", "{\"a\": 2}", NULL},
        {"SET b = if_not_exists(c, a)", NULL, NULL, "{\"a\": 1}", "{\"a\": 1, \"b\": 1}", NULL},
        {"SET b = if_not_exists(a, c)", NULL, NULL, "{\"a\": 1}", NULL, NOT_FOUND},
        {"SET t = if_not_exists(t, :z) + :one", NULL, "{\":z\": 0, \":one\": 1}", "{\"t\": 1}",
         "{\"t\": 2}", NULL},
        {"SET t = if_not_exists(t, :z) + :one", NULL, "{\":z\": 0, \":one\": 1}", "{}",
         "{\"t\": 1}", NULL},
        /* list_append, also around if_not_exists */
        {"SET a = list_append(:a, :b)", NULL, "{\":a\": [4, \"hello\"], \":b\": [\"hi\", 7]}", "{}",
         "{\"a\": [4, \"hello\", \"hi\", 7]}", NULL},
        {"SET a = list_append(a, :v)", NULL, "{\":v\": [4]}", "{\"a\": [\"hi\", 2]}",
         "{\"a\": [\"hi\", 2, 4]}", NULL},
        {"SET a = list_append(:v, a)", NULL, "{\":v\": [\"dog\"]}", "{\"a\": [1]}",
         "{\"a\": [\"dog\", 1]}", NULL},
        {"SET c = list_append(a, b)", NULL, NULL, "{\"a\": [1], \"b\": []}",
         "{\"a\": [1], \"b\": [], \"c\": [1]}", NULL},
        {"SET a = list_append(if_not_exists(a, :e), :v)", NULL, "{\":e\": [], \":v\": [9]}", "{}",
         "{\"a\": [9]}", NULL},
        {"SET #2 = list_append(#2, :2)", "{\"#2\": \"favUserIds\"}", "{\":2\": [\"u3\"]}",
         "{\"favUserIds\": [\"u1\", \"u2\"]}", "{\"favUserIds\": [\"u1\", \"u2\", \"u3\"]}", NULL},
        {"SET a = list_append(b, :v)", NULL, "{\":v\": [1]}", "{}", NULL, NOT_FOUND},
        {"SET a = list_append(:v, b)", NULL, "{\":v\": [1]}", "{\"b\": 7}", NULL, BAD_TYPE},
        {"SET a = list_append(:v, b)", NULL, "{\":v\": [1]}", "{\"b\": <<1, 2>>}", NULL, BAD_TYPE},
        {"SET a = list_append(:v, b)", NULL, "{\":v\": [1]}", "{\"b\": {\"a\": 3}}", NULL,
         BAD_TYPE},
        /* the likes seed, in one expression */
        {"SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)",
         "{\"#0\": \"lastupdate\", \"#1\": \"numFavorite\", \"#2\": \"favUserIds\"}",
         "{\":0\": 1700000000, \":1\": 1, \":2\": [\"u9\"]}",
         "{\"userId\": \"u\", \"numFavorite\": 2, \"favUserIds\": [\"u1\", \"u2\"]}",
         "{\"userId\": \"u\", \"numFavorite\": 3, \"favUserIds\": [\"u1\", \"u2\", \"u9\"], "
         "\"lastupdate\": 1700000000}",
         NULL},
        /* empty strings, binaries, lists and maps may be stored */
        {"SET d = :v1, e = :v2, f = :v3, g = :v4", NULL,
         "{\":v1\": [], \":v2\": {}, \":v3\": \"\", \":v4\": b\"\"}", "{}",
         "{\"d\": [], \"e\": {}, \"f\": \"\", \"g\": b\"\"}", NULL},
    };
    RUN_TABLE(run_updates, cases);
}

static void test_nested_documents_and_list_indexes(void)
{
    static const struct update_case cases[] = {
        /* scylla test_update_expression_multi_nested */
        {"SET a.b = :val1, a.c.d = :val2, b.x = :val3 REMOVE a.x, b.y", NULL,
         "{\":val1\": 10, \":val2\": \"dog\", \":val3\": 17}",
         "{\"a\": {\"x\": 3, \"y\": 4, \"c\": {\"y\": 3}}, \"b\": {\"x\": 1, \"y\": 2}}",
         "{\"a\": {\"y\": 4, \"b\": 10, \"c\": {\"y\": 3, \"d\": \"dog\"}}, \"b\": {\"x\": 17}}",
         NULL},
        {"SET a.c = :v", NULL, "{\":v\": 7}", "{\"a\": {\"b\": 3, \"c\": {\"one\": 1}}}",
         "{\"a\": {\"b\": 3, \"c\": 7}}", NULL},
        {"SET a.c[1].#n.y[1] = :v", "{\"#n\": \"x\"}", "{\":v\": 9}",
         "{\"a\": {\"c\": [\"hi\", {\"x\": {\"y\": [3, 5, 7]}}]}}",
         "{\"a\": {\"c\": [\"hi\", {\"x\": {\"y\": [3, 9, 7]}}]}}", NULL},
        {"SET z = a.c[1].x.y[2]", NULL, NULL,
         "{\"a\": {\"c\": [\"hi\", {\"x\": {\"y\": [3, 5, 7]}}]}}",
         "{\"a\": {\"c\": [\"hi\", {\"x\": {\"y\": [3, 5, 7]}}]}, \"z\": 7}", NULL},
        /* a list element is replaced in place */
        {"SET a[1] = :v", NULL, "{\":v\": \"hello\"}", "{\"a\": [\"one\", \"two\", \"three\"]}",
         "{\"a\": [\"one\", \"hello\", \"three\"]}", NULL},
        /* past the end: appended; several: in index order (scylla
           test_nested_attribute_update_array_out_of_bounds) */
        {"SET a[7] = :v", NULL, "{\":v\": \"hello\"}", "{\"a\": [\"one\", \"two\", \"three\"]}",
         "{\"a\": [\"one\", \"two\", \"three\", \"hello\"]}", NULL},
        {"SET a[84] = :v1, a[37] = :v2, a[17] = :v3, a[50] = :v4", NULL,
         "{\":v1\": \"a1\", \":v2\": \"a2\", \":v3\": \"a3\", \":v4\": \"a4\"}", "{\"a\": [0]}",
         "{\"a\": [0, \"a3\", \"a2\", \"a4\", \"a1\"]}", NULL},
        /* indexes name positions before the update (scylla ..._remove_list_item_original_number) */
        {"REMOVE a[1] SET a[3] = :v", NULL, "{\":v\": 17}", "{\"a\": [2, 3, 4, 5, 6, 7]}",
         "{\"a\": [2, 4, 17, 6, 7]}", NULL},
        {"SET a[3] = :v REMOVE a[1]", NULL, "{\":v\": 17}", "{\"a\": [2, 3, 4, 5, 6, 7]}",
         "{\"a\": [2, 4, 17, 6, 7]}", NULL},
        /* removals compact the list */
        {"REMOVE a[0], a[2], a[4]", NULL, NULL, "{\"a\": [0, 1, 2, 3, 4, 5]}", "{\"a\": [1, 3, 5]}",
         NULL},
        {"REMOVE a[0]", NULL, NULL, "{\"a\": [1]}", "{\"a\": []}", NULL},
        {"REMOVE a.b", NULL, NULL, "{\"a\": {\"b\": 1}}", "{\"a\": {}}", NULL},
        {"REMOVE a.c[1].x.y[1], a.c[1].q", NULL, NULL,
         "{\"a\": {\"b\": 3, \"c\": [\"hi\", {\"x\": {\"y\": [3, 5, 7]}, \"q\": 2}]}}",
         "{\"a\": {\"b\": 3, \"c\": [\"hi\", {\"x\": {\"y\": [3, 7]}}]}}", NULL},
        /* removing what is not there is fine (scylla test_nested_attribute_remove_missing_leaf) */
        {"REMOVE a.y, b[7], c", NULL, NULL, "{\"a\": {\"x\": 3}, \"b\": [\"hi\"]}",
         "{\"a\": {\"x\": 3}, \"b\": [\"hi\"]}", NULL},
        /* dynalite "should update nested attributes": SET and ADD appends interleave by index */
        {"set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, c[4] = b.a - b.b, c[2] = b.c add c[8] :b, c[6] "
         ":a",
         NULL, "{\":a\": 2, \":b\": <<\"a\">>}",
         "{\"a\": \"K\", \"b\": {\"a\": 1, \"b\": 2, \"c\": 3}, \"c\": [1, 3]}",
         "{\"a\": \"K\", \"b\": {\"a\": \"K\", \"b\": 2, \"c\": 4}, \"c\": [1, \"K\", 3, -1, 2, "
         "<<\"a\">>]}",
         NULL},
        /* paths through missing or non-container attributes (dynalite, scylla ..._bad_path_*) */
        {"SET a.c = :v", NULL, "{\":v\": 7}", "{\"a\": \"hello\"}", NULL, BAD_PATH},
        {"SET b.c = :v", NULL, "{\":v\": 7}", "{\"b\": [\"hi\"]}", NULL, BAD_PATH},
        {"SET c.c = :v", NULL, "{\":v\": 7}", "{}", NULL, BAD_PATH},
        {"REMOVE a.c", NULL, NULL, "{\"a\": \"hello\"}", NULL, BAD_PATH},
        {"REMOVE c.c", NULL, NULL, "{\"a\": 1}", NULL, BAD_PATH},
        {"SET a[0] = :v", NULL, "{\":v\": 7}", "{\"a\": \"hello\"}", NULL, BAD_PATH},
        {"SET a[0] = :v", NULL, "{\":v\": 7}", "{\"a\": {\"0\": 1}}", NULL, BAD_PATH},
        {"REMOVE c[1]", NULL, NULL, "{\"c\": {\"1\": \"a\"}}", NULL, BAD_PATH},
        {"SET d.#1 = :v", "{\"#1\": \"1\"}", "{\":v\": 1}", "{\"d\": [\"a\", \"b\"]}", NULL,
         BAD_PATH},
        {"SET a[5].b = :v", NULL, "{\":v\": 7}", "{\"a\": [1]}", NULL, BAD_PATH},
        {"ADD c[1] :v", NULL, "{\":v\": 1}", "{\"c\": {\"1\": 1}}", NULL, BAD_PATH},
        {"DELETE y.a :v", NULL, "{\":v\": <<\"a\">>}", "{}", NULL, BAD_PATH},
        /* the first error in path order wins, and nothing changes */
        {"SET a = :v, b.c = :v", NULL, "{\":v\": 1}", "{\"b\": 1}", NULL, BAD_PATH},
    };
    RUN_TABLE(run_updates, cases);
}

static void test_add_and_delete(void)
{
    static const struct update_case cases[] = {
        /* ADD to numbers, also creating them (scylla test_update_expression_add_numbers*) */
        {"ADD a :v", NULL, "{\":v\": 4}", "{\"a\": 3}", "{\"a\": 7}", NULL},
        {"ADD b :v", NULL, "{\":v\": 7}", "{\"a\": \"x\"}", "{\"a\": \"x\", \"b\": 7}", NULL},
        {"ADD a :v", NULL, "{\":v\": -0.5}", "{\"a\": 0.5}", "{\"a\": 0}", NULL},
        {"ADD a.b :v", NULL, "{\":v\": 1}", "{\"a\": {}}", "{\"a\": {\"b\": 1}}", NULL},
        {"ADD b :v", NULL, "{\":v\": 1}", "{\"b\": \"hi\"}", NULL, BAD_TYPE},
        {"ADD d :v", NULL, "{\":v\": 1}", "{\"d\": <<1>>}", NULL, BAD_TYPE},
        /* ADD to sets: union, also creating them */
        {"ADD a :v", NULL, "{\":v\": <<\"pig\">>}", "{\"a\": <<\"dog\", \"cat\">>}",
         "{\"a\": <<\"dog\", \"cat\", \"pig\">>}", NULL},
        {"ADD a :v", NULL, "{\":v\": <<\"coati\", \"beaver\", \"badger\">>}",
         "{\"a\": <<\"beaver\", \"lynx\", \"coati\">>}",
         "{\"a\": <<\"beaver\", \"lynx\", \"coati\", \"badger\">>}", NULL},
        {"ADD b :v", NULL, "{\":v\": <<\"cat\">>}", "{}", "{\"b\": <<\"cat\">>}", NULL},
        {"ADD n :v", NULL, "{\":v\": <<2, 3>>}", "{\"n\": <<1, 2>>}", "{\"n\": <<1, 2, 3>>}", NULL},
        {"ADD b :v", NULL, "{\":v\": <<b\"x\">>}", "{\"b\": <<b\"y\">>}",
         "{\"b\": <<b\"y\", b\"x\">>}", NULL},
        {"ADD a :v", NULL, "{\":v\": <<3, 4>>}", "{\"a\": [1, 2]}", NULL, BAD_TYPE},
        {"ADD a :v", NULL, "{\":v\": <<\"3\">>}", "{\"a\": <<1>>}", NULL, BAD_TYPE},
        /* DELETE from sets; an emptied set disappears (scylla test_update_expression_delete_sets)
         */
        {"DELETE a :v", NULL, "{\":v\": <<\"cat\", \"mouse\">>}",
         "{\"a\": <<\"dog\", \"cat\", \"mouse\">>, \"b\": \"hi\"}",
         "{\"a\": <<\"dog\">>, \"b\": \"hi\"}", NULL},
        {"DELETE a :v", NULL, "{\":v\": <<\"pig\">>}", "{\"a\": <<\"dog\">>}",
         "{\"a\": <<\"dog\">>}", NULL},
        {"DELETE a :v", NULL, "{\":v\": <<\"dog\">>}", "{\"a\": <<\"dog\">>, \"b\": \"hi\"}",
         "{\"b\": \"hi\"}", NULL},
        {"DELETE a :v", NULL, "{\":v\": <<\"dog\">>}", "{\"b\": \"hi\"}", "{\"b\": \"hi\"}", NULL},
        {"DELETE n :v", NULL, "{\":v\": <<1, 2.0>>}", "{\"n\": <<1, 2, 3>>}", "{\"n\": <<3>>}",
         NULL},
        {"DELETE a :v", NULL, "{\":v\": <<1>>}", "{\"a\": <<\"1\">>}", NULL, BAD_TYPE},
        {"DELETE c :v", NULL, "{\":v\": <<1>>}", "{\"c\": 1}", NULL, BAD_TYPE},
        /* an emptied set inside a list disappears and the list closes up */
        {"DELETE l[0] :v", NULL, "{\":v\": <<1>>}", "{\"l\": [<<1>>, 2]}", "{\"l\": [2]}", NULL},
        /* dynalite "should just add valid ADD actions if nothing exists" */
        {"REMOVE b DELETE c :c ADD d :d, e :e SET f = :f", NULL,
         "{\":c\": <<\"a\", \"b\">>, \":d\": 5, \":e\": <<\"a\", \"b\">>, \":f\": [\"a\", 1]}",
         "{\"a\": \"k\"}", "{\"a\": \"k\", \"d\": 5, \"e\": <<\"a\", \"b\">>, \"f\": [\"a\", 1]}",
         NULL},
    };
    RUN_TABLE(run_updates, cases);
}

/* An update keeps the item's attribute order (value_equal ignores it):
 * replaced attributes stay where they were, removed ones go, new ones follow
 * in name order; on a map large enough for its hash index, every name is
 * found at its new position, and a failed update leaves the item as it was. */
static void test_update_keeps_attribute_order(void)
{
    struct value names, values, item, expected;
    struct ddb_error err = {0};
    char msg[1024], got[8192];
    struct text_buf before = {0}, after = {0};
    struct expr *e;

    text_buf_puts(&before, "{\"p\": \"k\"");
    text_buf_puts(&after, "{\"p\": \"k\"");
    for (int i = 0; i < 20; i++) {
        text_buf_printf(&before, ", \"a%d\": %d", i, i);
        if (i == 5 || i == 17) continue;
        text_buf_printf(&after, ", \"a%d\": %d", i, i == 3 ? 100 : i == 10 ? 11 : i);
    }
    text_buf_puts(&before, "}");
    text_buf_puts(&after, ", \"n1\": 100, \"n2\": 100}");

    e = parse_lit(EXPR_UPDATE, "UpdateExpression",
                  "SET a3 = :v, n2 = :v, n1 = :v REMOVE a5, a17 ADD a10 :one", NULL,
                  "{\":v\": 100, \":one\": 1}", &names, &values, msg, sizeof msg);
    CHECK(e != NULL);
    lit(before.data, &item);
    lit(after.data, &expected);
    check_update_item_agrees(e, &item, &expected, NULL);
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, true, &err), 0);
    snprintf(got, sizeof got, "%s", lit_str(&item));
    CHECK_STR_EQ(got, lit_str(&expected));
    CHECK_INT_EQ(value_map_find(&item, "a6", 2), 6);
    CHECK_INT_EQ(value_map_find(&item, "a18", 3), 17);
    CHECK_INT_EQ(value_map_find(&item, "n2", 2), 20);
    CHECK_INT_EQ(value_map_find(&item, "a5", 2), -1);
    value_clear(&expected);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);

    /* more top-level actions than expr_update_item matches on its stack
     * (ITEM_CHANGES_MAX): it takes the tree's way, with the same result */
    {
        struct text_buf set = {0};
        struct value wide;
        text_buf_puts(&set, "SET n0 = :v");
        for (int i = 1; i <= ITEM_CHANGES_MAX + 2; i++)
            text_buf_printf(&set, ", %s%d = :v", i % 2 ? "a" : "n", i);
        e = parse_lit(EXPR_UPDATE, "UpdateExpression", set.data, NULL, "{\":v\": 1}", &names,
                      &values, msg, sizeof msg);
        CHECK(e != NULL);
        value_copy(&wide, &item);
        CHECK_INT_EQ(expr_apply_update_ex(e, &wide, true, &err), 0);
        check_update_item_agrees(e, &item, &wide, NULL);
        value_clear(&wide);
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
        text_buf_clear(&set);
    }

    /* a failing update changes nothing, order included */
    e = parse_lit(EXPR_UPDATE, "UpdateExpression", "SET a1 = :v, b = nothere REMOVE a2", NULL,
                  "{\":v\": 7}", &names, &values, msg, sizeof msg);
    CHECK(e != NULL);
    snprintf(got, sizeof got, "%s", lit_str(&item));
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, true, &err), -1);
    CHECK_STR_EQ(err.message, NOT_FOUND);
    CHECK_STR_EQ(lit_str(&item), got);
    ddb_error_clear(&err);
    value_clear(&item);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
    text_buf_clear(&before);
    text_buf_clear(&after);
}

static void test_new_item_tolerates_nested_removal(void)
{
    struct value names, values, item;
    struct ddb_error err = {0};
    char msg[1024];
    struct expr *e = parse_lit(EXPR_UPDATE, "UpdateExpression", "REMOVE x.y, z[0]", NULL, NULL,
                               &names, &values, msg, sizeof msg);

    CHECK(e != NULL);
    /* scylla test_nested_attribute_remove_from_missing_item: allowed on a new item... */
    lit("{\"p\": \"k\"}", &item);
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, false, &err), 0);
    CHECK_STR_EQ(lit_str(&item), "{\"p\": \"k\"}");
    /* ...but not on an existing one */
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, true, &err), -1);
    CHECK_STR_EQ(err.message, BAD_PATH);
    ddb_error_clear(&err);
    value_clear(&item);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
    /* SET still needs the parent (dynalite "non-existent nested attribute in non-existent item") */
    e = parse_lit(EXPR_UPDATE, "UpdateExpression", "SET b.a = :v", NULL, "{\":v\": 1}", &names,
                  &values, msg, sizeof msg);
    lit("{\"p\": \"k\"}", &item);
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, false, &err), -1);
    CHECK_STR_EQ(err.message, BAD_PATH);
    ddb_error_clear(&err);
    value_clear(&item);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
}

/* ---- projections ---- */

struct proj_case {
    const char *expr;
    const char *names;
    const char *item;
    const char *expected;
};

/* expr_project_item of the stored item is, byte for byte, the item of
 * expr_project's tree (attributes in its order: answers are written in
 * stored order) and of its size - from the encoding when the projection
 * names only top-level attributes (item_project). */
static void check_projected_item(const struct expr *e, const struct value *attrs,
                                 const struct value *projected)
{
    struct value copy;
    struct item *stored, *want, *got;

    value_copy(&copy, attrs);
    stored = item_new(&copy);
    value_copy(&copy, projected);
    want = item_new(&copy);
    got = expr_project_item(e, stored);
    CHECK_INT_EQ(got->encoded_len, want->encoded_len);
    CHECK(got->encoded_len == want->encoded_len &&
          memcmp(got->encoded, want->encoded, want->encoded_len) == 0);
    CHECK_INT_EQ(got->size_bytes, want->size_bytes);
    item_unref(got);
    item_unref(want);
    item_unref(stored);
}

static void run_projections(const struct proj_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct proj_case *c = &cases[i];
        struct value names, values, item, out, expected;
        char msg[1024];
        struct expr *e = parse_lit(EXPR_PROJECTION, "ProjectionExpression", c->expr, c->names, NULL,
                                   &names, &values, msg, sizeof msg);
        if (!e) {
            fprintf(stderr, "case %zu: %s\n", i, msg);
            CHECK(e != NULL);
        } else {
            lit(c->item, &item);
            lit(c->expected, &expected);
            expr_project(e, c->item ? &item : NULL, &out);
            if (!value_equal(&out, &expected))
                fprintf(stderr, "case %zu (%s): got %s\n", i, c->expr, lit_str(&out));
            CHECK(value_equal(&out, &expected));
            if (c->item) check_projected_item(e, &item, &out);
            value_clear(&out);
            value_clear(&expected);
            value_clear(&item);
        }
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
    }
}

static void test_projections_keep_structure(void)
{
    static const char ITEM[] =
        "{\"a\": {\"b\": [0, 1, {\"c\": 1, \"d\": 2}], \"z\": 1}, \"x\": null, "
        "\"l\": [0, 1, 2, 3, 4, 5], \"s\": \"str\", \"dotted.name\": 7}";
    static const struct proj_case cases[] = {
        {"x, s", NULL, ITEM, "{\"x\": null, \"s\": \"str\"}"},
        /* top-level names only: sorted by bytes, made from the encoding */
        {"x, s, l, #d, absent, a", "{\"#d\": \"dotted.name\"}", ITEM,
         "{\"a\": {\"b\": [0, 1, {\"c\": 1, \"d\": 2}], \"z\": 1}, \"dotted.name\": 7, "
         "\"l\": [0, 1, 2, 3, 4, 5], \"s\": \"str\", \"x\": null}"},
        {"absent, q", NULL, ITEM, "{}"},
        {"a.b[2].c", NULL, ITEM, "{\"a\": {\"b\": [{\"c\": 1}]}}"},
        {"a.b[2].c, a.z", NULL, ITEM, "{\"a\": {\"b\": [{\"c\": 1}], \"z\": 1}}"},
        /* list elements keep their order and close up */
        {"l[5], l[1], l[9]", NULL, ITEM, "{\"l\": [1, 5]}"},
        {"a.b[0], a.b[2].d", NULL, ITEM, "{\"a\": {\"b\": [0, {\"d\": 2}]}}"},
        /* missing parts are left out, and so are containers left empty */
        {"q, a.q, a.b[7], s.x, l.x", NULL, ITEM, "{}"},
        {"a.b[2].q", NULL, ITEM, "{}"},
        {"#d", "{\"#d\": \"dotted.name\"}", ITEM, "{\"dotted.name\": 7}"},
        {"a", NULL, ITEM, "{\"a\": {\"b\": [0, 1, {\"c\": 1, \"d\": 2}], \"z\": 1}}"},
        {"a", NULL, NULL, "{}"},
    };
    RUN_TABLE(run_projections, cases);
}

static void test_updated_old_and_new(void)
{
    struct value names, values, old, item, out, expected;
    struct ddb_error err = {0};
    char msg[1024];
    /* dynalite "should update nested attributes": UPDATED_NEW is the targets' new values */
    struct expr *e =
        parse_lit(EXPR_UPDATE, "UpdateExpression",
                  "set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, c[4] = b.a - b.b, c[2] = b.c add c[8] "
                  ":b, c[6] :a",
                  NULL, "{\":a\": 2, \":b\": <<\"a\">>}", &names, &values, msg, sizeof msg);

    CHECK(e != NULL);
    if (!e) return;
    lit("{\"a\": \"K\", \"b\": {\"a\": 1, \"b\": 2, \"c\": 3}, \"c\": [1, 3]}", &old);
    value_copy(&item, &old);
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, true, &err), 0);
    expr_project_updated(e, &item, &out);
    lit("{\"b\": {\"a\": \"K\", \"c\": 4}, \"c\": [\"K\", 3, 2]}", &expected);
    if (!value_equal(&out, &expected)) fprintf(stderr, "got %s\n", lit_str(&out));
    CHECK(value_equal(&out, &expected));
    value_clear(&out);
    value_clear(&expected);
    expr_project_updated(e, &old, &out);
    lit("{\"b\": {\"a\": 1, \"c\": 3}, \"c\": [3]}", &expected);
    if (!value_equal(&out, &expected)) fprintf(stderr, "got %s\n", lit_str(&out));
    CHECK(value_equal(&out, &expected));
    value_clear(&out);
    value_clear(&expected);
    value_clear(&item);
    value_clear(&old);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);

    /* removed attributes are absent from UPDATED_NEW and present in UPDATED_OLD */
    e = parse_lit(EXPR_UPDATE, "UpdateExpression", "REMOVE a SET c = :v", NULL, "{\":v\": 1}",
                  &names, &values, msg, sizeof msg);
    lit("{\"a\": 1, \"b\": 2}", &old);
    value_copy(&item, &old);
    CHECK_INT_EQ(expr_apply_update_ex(e, &item, true, &err), 0);
    expr_project_updated(e, &item, &out);
    CHECK_STR_EQ(lit_str(&out), "{\"c\": 1}");
    value_clear(&out);
    expr_project_updated(e, &old, &out);
    CHECK_STR_EQ(lit_str(&out), "{\"a\": 1}");
    value_clear(&out);
    value_clear(&item);
    value_clear(&old);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
}

static void test_questions_about_paths(void)
{
    struct value names, values;
    char msg[1024];
    struct expr *e = parse_lit(EXPR_UPDATE, "UpdateExpression", "SET a.b = :v, #c = d[1] REMOVE e",
                               "{\"#c\": \"c\"}", "{\":v\": 1}", &names, &values, msg, sizeof msg);

    CHECK(e != NULL);
    if (!e) return;
    /* dynalite: "add a.b :a" on key a is "Cannot update attribute a" */
    CHECK(expr_update_touches(e, "a", 1));
    CHECK(expr_update_touches(e, "c", 1));
    CHECK(expr_update_touches(e, "e", 1));
    CHECK(!expr_update_touches(e, "d", 1));
    CHECK(!expr_update_touches(e, "b", 1));
    CHECK(expr_references(e, "d", 1));
    CHECK(!expr_references(e, "b", 1));
    CHECK(expr_uses_nested(e, "a", 1));
    CHECK(expr_uses_nested(e, "d", 1));
    CHECK(!expr_uses_nested(e, "c", 1));
    CHECK(!expr_uses_nested(e, "e", 1));
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
    e = parse_lit(EXPR_CONDITION, "FilterExpression", "attribute_exists(a.b) AND c = :v", NULL,
                  "{\":v\": 1}", &names, &values, msg, sizeof msg);
    CHECK(expr_uses_nested(e, "a", 1));
    CHECK(expr_references(e, "c", 1));
    CHECK(!expr_uses_nested(e, "c", 1));
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
}

/* ---- key conditions against a schema ---- */

struct key_case {
    const char *expr;
    const char *values;
    int schema;           /* index into the schemas below */
    const char *error;    /* or NULL */
    enum key_range_op op; /* on success */
    size_t range_eq;
};

static void run_keys(const struct key_case *cases, size_t n)
{
    /* 0: p (S) + c (N); 1: p (S) only; 2: GSI h1 h2 (S S) + r1 r2 (S N) */
    static char *h0[] = {"p"}, *r0[] = {"c"}, *h2[] = {"h1", "h2"}, *r2[] = {"r1", "r2"};
    struct key_schema schemas[3] = {{0}};
    static struct attr_def defs[] = {{"p", VALUE_S},  {"c", VALUE_N},  {"h1", VALUE_S},
                                     {"h2", VALUE_S}, {"r1", VALUE_S}, {"r2", VALUE_N}};

    schemas[0].hash_count = 1;
    schemas[0].hash_names[0] = h0[0];
    schemas[0].range_count = 1;
    schemas[0].range_names[0] = r0[0];
    schemas[1].hash_count = 1;
    schemas[1].hash_names[0] = h0[0];
    schemas[2].hash_count = 2;
    schemas[2].hash_names[0] = h2[0];
    schemas[2].hash_names[1] = h2[1];
    schemas[2].range_count = 2;
    schemas[2].range_names[0] = r2[0];
    schemas[2].range_names[1] = r2[1];
    for (size_t i = 0; i < n; i++) {
        const struct key_case *c = &cases[i];
        struct value names, values;
        struct key_condition kc;
        struct ddb_error err = {0};
        char msg[1024];
        struct expr *e = parse_lit(EXPR_KEY_CONDITION, "KeyConditionExpression", c->expr, NULL,
                                   c->values, &names, &values, msg, sizeof msg);
        if (!e) {
            fprintf(stderr, "case %zu: %s\n", i, msg);
            CHECK(e != NULL);
            continue;
        }
        int rc = expr_key_condition_resolve(e, &schemas[c->schema], defs,
                                            sizeof defs / sizeof defs[0], &kc, &err);
        if (c->error) {
            if (rc == 0 || strcmp(err.message, c->error) != 0) fprintf(stderr, "case %zu\n", i);
            CHECK_INT_EQ(rc, -1);
            CHECK_STR_EQ(err.message, c->error);
        } else {
            if (rc != 0) fprintf(stderr, "case %zu: %s\n", i, err.message);
            CHECK_INT_EQ(rc, 0);
            CHECK_INT_EQ(kc.range_op, c->op);
            CHECK_INT_EQ(kc.range_eq_count, c->range_eq);
            CHECK_INT_EQ(kc.hash_count, schemas[c->schema].hash_count);
        }
        key_condition_clear(&kc);
        ddb_error_clear(&err);
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
    }
}

static const char MISSED_P[] = "Query condition missed key schema element: p";
static const char MISSED_C[] = "Query condition missed key schema element: c";
static const char NOT_SUPPORTED[] = "Query key condition not supported";
static const char HASH_EQ_H2[] =
    "HASH key attributes h2 must have equality conditions specified in the query";
static const char RANGE_EQ_R1[] = "RANGE key attributes r1 must have equality conditions specified "
                                  "in the query because a condition is present on key attribute r2";
static const char TYPE_MISMATCH[] =
    "One or more parameter values were invalid: Condition parameter type does not match schema "
    "type";

static void test_key_conditions_against_schemas(void)
{
    static const struct key_case cases[] = {
        {"p = :p", "{\":p\": \"x\"}", 0, NULL, KEY_RANGE_NONE, 0},
        {"p = :p AND c = :c", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_EQ, 0},
        {"c < :c AND p = :p", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_LT, 0},
        /* value first: turned around (scylla test_key_condition_expression_num_lt_reverse) */
        {":p = p AND :c < c", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_GT, 0},
        {":p = p AND :c >= c", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_LE, 0},
        {"p = :p AND c BETWEEN :a AND :b", "{\":p\": \"x\", \":a\": 3, \":b\": 4}", 0, NULL,
         KEY_RANGE_BETWEEN, 0},
        {"p = :p AND c >= :c", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_GE, 0},
        {"p = :p AND c > :c", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_GT, 0},
        {"p = :p AND c <= :c", "{\":p\": \"x\", \":c\": 3}", 0, NULL, KEY_RANGE_LE, 0},
        {"c = :c", "{\":c\": 3}", 0, MISSED_P, KEY_RANGE_NONE, 0},
        {"p < :p", "{\":p\": \"x\"}", 0, NOT_SUPPORTED, KEY_RANGE_NONE, 0},
        {"begins_with(p, :p)", "{\":p\": \"x\"}", 0, NOT_SUPPORTED, KEY_RANGE_NONE, 0},
        /* a condition on another attribute: the sort key is what is missed */
        {"p = :p AND a < :a", "{\":p\": \"x\", \":a\": 3}", 0, MISSED_C, KEY_RANGE_NONE, 0},
        {"p = :p AND a = :a", "{\":p\": \"x\", \":a\": 3}", 1, NOT_SUPPORTED, KEY_RANGE_NONE, 0},
        {"p = :p AND c < :c AND a < :a", "{\":p\": \"x\", \":c\": 3, \":a\": 3}", 0,
         "Conditions can be of length 1 or 2 only", KEY_RANGE_NONE, 0},
        {"p = :n", "{\":n\": 3}", 0, TYPE_MISMATCH, KEY_RANGE_NONE, 0},
        {"p = :p AND c = :s", "{\":p\": \"x\", \":s\": \"3\"}", 0, TYPE_MISMATCH, KEY_RANGE_NONE,
         0},
        /* multi-attribute GSI keys (scylla test_gsi_composite_keys.py) */
        {"h1 = :a AND h2 = :b", "{\":a\": \"x\", \":b\": \"y\"}", 2, NULL, KEY_RANGE_NONE, 0},
        {"h1 = :a", "{\":a\": \"x\"}", 2, HASH_EQ_H2, KEY_RANGE_NONE, 0},
        {"h1 = :a AND h2 > :b", "{\":a\": \"x\", \":b\": \"y\"}", 2, HASH_EQ_H2, KEY_RANGE_NONE, 0},
        {"h1 = :a AND h2 = :b AND r1 = :c", "{\":a\": \"x\", \":b\": \"y\", \":c\": \"z\"}", 2,
         NULL, KEY_RANGE_EQ, 0},
        {"h1 = :a AND h2 = :b AND r1 = :c AND r2 > :n",
         "{\":a\": \"x\", \":b\": \"y\", \":c\": \"z\", \":n\": 1}", 2, NULL, KEY_RANGE_GT, 1},
        {"r2 = :n AND h1 = :a AND h2 = :b AND r1 = :c",
         "{\":a\": \"x\", \":b\": \"y\", \":c\": \"z\", \":n\": 1}", 2, NULL, KEY_RANGE_EQ, 1},
        {"h1 = :a AND h2 = :b AND r2 = :n", "{\":a\": \"x\", \":b\": \"y\", \":n\": 1}", 2,
         RANGE_EQ_R1, KEY_RANGE_NONE, 0},
        {"h1 = :a AND h2 = :b AND r1 > :c AND r2 = :n",
         "{\":a\": \"x\", \":b\": \"y\", \":c\": \"z\", \":n\": 1}", 2, RANGE_EQ_R1, KEY_RANGE_NONE,
         0},
        {"h1 = :a AND h2 = :b AND begins_with(r1, :c)",
         "{\":a\": \"x\", \":b\": \"y\", \":c\": \"z\"}", 2, NULL, KEY_RANGE_BEGINS_WITH, 0},
    };
    RUN_TABLE(run_keys, cases);
}

static void test_key_condition_values_are_copied(void)
{
    struct value names, values;
    struct key_condition kc;
    struct ddb_error err = {0};
    char msg[1024];
    static char *h[] = {"p"}, *r[] = {"c"};
    struct key_schema schema = {1, {h[0]}, 1, {r[0]}};
    struct attr_def defs[] = {{"p", VALUE_S}, {"c", VALUE_N}};
    struct expr *e =
        parse_lit(EXPR_KEY_CONDITION, "KeyConditionExpression",
                  "#p = :p AND #c BETWEEN :lo AND :hi", "{\"#p\": \"p\", \"#c\": \"c\"}",
                  "{\":p\": \"pk\", \":lo\": 1, \":hi\": 9}", &names, &values, msg, sizeof msg);

    CHECK(e != NULL);
    if (!e) return;
    CHECK_INT_EQ(expr_key_condition_resolve(e, &schema, defs, 2, &kc, &err), 0);
    expr_free(e);
    value_clear(&names);
    value_clear(&values);
    CHECK_STR_EQ(kc.hash[0].name, "p");
    CHECK_STR_EQ(lit_str(&kc.hash[0].value), "\"pk\"");
    CHECK_STR_EQ(kc.range_name, "c");
    CHECK_INT_EQ(kc.range_op, KEY_RANGE_BETWEEN);
    CHECK_STR_EQ(lit_str(&kc.lo), "1");
    CHECK_STR_EQ(lit_str(&kc.hi), "9");
    key_condition_clear(&kc);
}

/* ---- trees built without text (the legacy parameters' path) ---- */

static void test_built_trees_evaluate_like_parsed_ones(void)
{
    struct expr *e = expr_new(EXPR_CONDITION);
    struct value v, item;
    struct expr_node *args[2];
    bool matched = false;
    struct ddb_error err = {0};

    /* Expected {"a.b": {ComparisonOperator: EQ, AttributeValueList: [1]}}: a
     * legacy name is one attribute, dots and all, and reserved words are fine. */
    args[0] = expr_node_new_path(e, "a.b", 3);
    lit("1", &v);
    args[1] = expr_node_new_value_owned(e, &v);
    e->root = expr_node_new_op(e, OP_EQ, args, 2);
    lit("{\"a.b\": 1, \"a\": {\"b\": 2}}", &item);
    CHECK_INT_EQ(expr_eval_condition(e, &item, &matched, &err), 0);
    CHECK(matched);
    /* NOT_CONTAINS = NOT(contains(...)); Exists: false = attribute_not_exists */
    args[0] = expr_node_new_path(e, "status", 6);
    args[1] = NULL;
    e->root = expr_node_new_op(e, OP_ATTRIBUTE_NOT_EXISTS, args, 1);
    CHECK_INT_EQ(expr_eval_condition(e, &item, &matched, &err), 0);
    CHECK(matched);
    args[0] = expr_node_new_path(e, "a", 1);
    expr_node_path_append(e, args[0], false, "b", 1, 0);
    lit("2", &v);
    args[1] = expr_node_new_value_owned(e, &v);
    args[0] = expr_node_new_op(e, OP_CONTAINS, args, 2);
    e->root = expr_node_new_op(e, OP_NOT, args, 1);
    CHECK_INT_EQ(expr_eval_condition(e, &item, &matched, &err), 0);
    CHECK(matched);
    value_clear(&item);
    expr_free(e);
}

int main(void)
{
    RUN(test_equality_on_every_type);
    RUN(test_ordering_comparisons);
    RUN(test_in_and_logic);
    RUN(test_functions_on_every_type);
    RUN(test_set_and_arithmetic);
    RUN(test_nested_documents_and_list_indexes);
    RUN(test_add_and_delete);
    RUN(test_update_keeps_attribute_order);
    RUN(test_new_item_tolerates_nested_removal);
    RUN(test_projections_keep_structure);
    RUN(test_updated_old_and_new);
    RUN(test_questions_about_paths);
    RUN(test_key_conditions_against_schemas);
    RUN(test_key_condition_values_are_copied);
    RUN(test_built_trees_evaluate_like_parsed_ones);
    return check_report();
}
