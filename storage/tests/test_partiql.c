/*
 * test_partiql.c - the PartiQL language as tables of cases (STYLE B11).
 *
 * parse_cases: a statement and the exact error it gets from pql_parse, or ""
 * when it parses. plan_cases: a statement with its Parameters, planned
 * against the table below, and what the plan is - an error, a Scan (-1) or a
 * number of Queries - and, for writes and filters, what the generated
 * expressions do to a sample item: whether the condition or filter holds, and
 * the item an UPDATE leaves. The expected items are literals (see
 * expr_test_util.h); adding a case is adding a line.
 */
#include "storage/partiql/pql.h"
#include "storage/tests/check.h"
#include "storage/tests/expr_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WELL_FORMED "Statement wasn't well formed, can't be processed: "

static const struct {
    const char *stmt;
    const char *error; /* "" when it parses */
} parse_cases[] = {
    {"SELECT * FROM t", ""},
    {"select a, b.c[2], \"d e\" from \"t\" where a = 1 order by b desc;", ""},
    {"SELECT * FROM t.\"idx\" WHERE a IN [1, 2] AND NOT b BETWEEN 1 AND 2", ""},
    {"SELECT * FROM t WHERE a IS NOT MISSING OR b IS NULL -- comment", ""},
    {"SELECT * FROM t /* c */ WHERE begins_with(a, 'x') AND size(b) > ?", ""},
    {"INSERT INTO t VALUE {'a': 1, 'b': [true, null, <<'x'>>], 'c': {'d': -1.5e3}}", ""},
    {"UPDATE t SET a = a + 1, b = list_append(b, [1]) REMOVE c WHERE k = 'x' RETURNING ALL NEW *",
     ""},
    {"DELETE FROM t WHERE k = 'it''s' RETURNING ALL OLD *", ""},
    {"SELECT * FROM \"ddb\" WHERE \"a\"\"b\" = 'aab''''b'", ""},
    {"EXISTS(SELECT * FROM t WHERE k = 1)", ""},
    {"SELEC * FROM t", WELL_FORMED "Expected data manipulation"},
    {"", WELL_FORMED "Expected data manipulation"},
    {"SELECT * FROM t WHERE a = 1 garbage", WELL_FORMED "Unexpected token after expression"},
    {"SELECT * FROM t WHERE a = 1)", WELL_FORMED "Unexpected token after expression"},
    {"SELECT * FROM t ORDER BY a WHERE a = 1", WELL_FORMED "Unexpected token after expression"},
    {"DELETE FROM t WHERE a = 1 ORDER BY a", WELL_FORMED "Unexpected token after expression"},
    {"INSERT INTO \"t\" x VALUE {'a': 1}", WELL_FORMED "Unexpected token after expression"},
    {"SELECT * FROM \"t\" x WHERE a = 1", "Aliasing is not supported"},
    {"UPDATE \"t\" x SET a = 3 WHERE k = 1", "Aliasing is not supported"},
    {"DELETE FROM t AS x WHERE k = 1", "Aliasing is not supported"},
    {"SELECT * FROM t WHERE a = 1 # note", WELL_FORMED},
    {"SELECT * FROM t WHERE a = 1 /* note", WELL_FORMED},
    {"SELECT * FROM t WHERE a = 1e2147483648", WELL_FORMED},
    {"SELECT * FROM t WHERE a = 1.5e-2147483647", WELL_FORMED},
    {"SELECT * FROM t WHERE a = 1e126",
     "Number overflow. Attempting to store a number with magnitude larger than supported range "
     "under root"},
    {"INSERT INTO t VALUE {'k': 1, 'm': {'x': 1e-131}}",
     "Number underflow. Attempting to store a number with magnitude smaller than supported range "
     "under root.x"},
    {"INSERT INTO t VALUE {'k': 1, 'l': [1, 123456789012345678901234567890123456789]}",
     "Attempting to store more than 38 significant digits in a Number under root[1]"},
    {"SELECT attribute_exists(a) FROM t", "Unexpected path component at 1:8:16"},
    {"SELECT * FROM", WELL_FORMED "Unexpected end of statement"},
    {"SELECT * FROM t WHERE a = 'x", WELL_FORMED},
    {"SELECT * FROM t WHERE a = = 1", WELL_FORMED "Unexpected token at 1:27:1"},
    {"SELECT *\nFROM t WHERE (a = 1", WELL_FORMED "Unexpected end of statement"},
    {"SELECT a, * FROM t",
     "Other attributes should not be present in the projection when '*' is used."},
    {"SELECT * FROM a.b.c", "A path may contain at most 2 components in the FROM clause"},
    {"SELECT * FROM t AS x", "Aliasing is not supported"},
    {"SELECT COUNT(*) FROM t", "Unexpected path component at 1:8:5"},
    {"INSERT INTO t VALUES {'a': 1}",
     "Unsupported operation: Inserting multiple items in a single statement is not supported, use "
     "\"INSERT INTO tableName VALUE item\" instead"},
    {"INSERT INTO t VALUE {'a': 1} RETURNING ALL OLD *", "RETURNING is not supported in INSERT"},
    {"UPDATE t SET a = 1 WHERE k = 1 RETURNING ALL NEW",
     "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"},
    {"SELECT * FROM t WHERE a IN []",
     "IN operator must have a left hand argument of type Variable Reference and right hand "
     "argument of type Seq with at least one member"},
    {"UPDATE t WHERE k = 1", WELL_FORMED "Unexpected token at 1:10:5"},
};

static void test_parse_table(void)
{
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        struct pql_stmt *s = NULL;
        struct ddb_error err = {0};
        int rc = pql_parse(parse_cases[i].stmt, strlen(parse_cases[i].stmt), &s, &err);
        if (parse_cases[i].error[0] == '\0') {
            if (rc != 0) printf("  statement: %s\n", parse_cases[i].stmt);
            CHECK_INT_EQ(rc, 0);
            CHECK(err.message == NULL);
        } else {
            if (rc == 0) printf("  statement: %s\n", parse_cases[i].stmt);
            CHECK_INT_EQ(rc, -1);
            CHECK_STR_EQ(err.message ? err.message : "", parse_cases[i].error);
        }
        pql_stmt_free(s);
        ddb_error_clear(&err);
    }
}

/* Quotes are removed and doubled quotes undoubled, whatever the text starts with. */
static void test_quoted_names_and_strings(void)
{
    const char *text = "SELECT * FROM \"ddbt\" WHERE \"a\"\"b\" = 'aab''''b'";
    struct pql_stmt *s = NULL;
    struct ddb_error err = {0};
    CHECK_INT_EQ(pql_parse(text, strlen(text), &s, &err), 0);
    if (!s) return;
    CHECK_STR_EQ(s->table, "ddbt");
    CHECK_INT_EQ((int) s->where->args[0]->steps[0].name_len, 3);
    CHECK(memcmp(s->where->args[0]->steps[0].name, "a\"b", 3) == 0);
    CHECK_INT_EQ((int) s->where->args[1]->lit.u.str.len, 6);
    CHECK(memcmp(s->where->args[1]->lit.u.str.data, "aab''b", 6) == 0);
    pql_stmt_free(s);
}

static void test_nesting_is_bounded(void)
{
    char text[4096];
    size_t n = (size_t) snprintf(text, sizeof text, "SELECT * FROM t WHERE ");
    struct pql_stmt *s = NULL;
    struct ddb_error err = {0};
    for (int i = 0; i < 1000 && n < sizeof text - 8; i++)
        text[n++] = '(';
    text[n] = '\0';
    CHECK_INT_EQ(pql_parse(text, n, &s, &err), -1);
    CHECK(err.message && strstr(err.message, "Nesting too deep"));
    ddb_error_clear(&err);
}

/* The table: pk (S) + sk (N), GSI g on gk (S) + gs (S). */
static void make_def(struct table_def *def)
{
    static struct attr_def defs[4];
    static struct index_def gsi;
    memset(def, 0, sizeof *def);
    defs[0] = (struct attr_def){"pk", VALUE_S};
    defs[1] = (struct attr_def){"sk", VALUE_N};
    defs[2] = (struct attr_def){"gk", VALUE_S};
    defs[3] = (struct attr_def){"gs", VALUE_S};
    def->name = "t";
    def->attr_defs = defs;
    def->attr_def_count = 4;
    def->key.hash_count = 1;
    def->key.hash_names[0] = "pk";
    def->key.range_count = 1;
    def->key.range_names[0] = "sk";
    memset(&gsi, 0, sizeof gsi);
    gsi.name = "g";
    gsi.is_global = true;
    gsi.key.hash_count = 1;
    gsi.key.hash_names[0] = "gk";
    gsi.key.range_count = 1;
    gsi.key.range_names[0] = "gs";
    def->gsis = &gsi;
    def->gsi_count = 1;
}

#define ITEM                                                                                       \
    "{\"pk\": \"p\", \"sk\": 1, \"n\": 5, \"s\": <<\"a\">>, \"l\": [1], \"m\": {\"x\": \"y\"}}"

static const struct {
    const char *stmt;
    const char *params; /* a list literal, or NULL */
    const char *error;  /* "" when it plans */
    int queries;        /* SELECT: -1 a Scan, else the number of Queries */
    int matches;        /* the condition (writes) or filter (SELECT) on ITEM: 1, 0; -1 none */
    const char *after;  /* UPDATE: ITEM after the update; NULL otherwise */
} plan_cases[] = {
    /* SELECT planning */
    {"SELECT * FROM t", NULL, "", -1, -1, NULL},
    {"SELECT * FROM t WHERE pk = 'p'", NULL, "", 1, 1, NULL},
    {"SELECT * FROM t WHERE 'p' = pk AND sk >= 1", NULL, "", 1, 1, NULL},
    {"SELECT * FROM t WHERE pk IN ['p', 'q', 'p'] AND n > 4", NULL, "", 2, 1, NULL},
    {"SELECT * FROM t WHERE pk = ? AND begins_with(pk, 'p')", "[\"p\"]", "", 1, 1, NULL},
    {"SELECT * FROM t WHERE pk = 1", NULL, "", -1, 0, NULL},
    {"SELECT * FROM t WHERE pk = 'p' OR n = 5", NULL, "", -1, 1, NULL},
    {"SELECT * FROM t WHERE pk = 'p' OR pk = 'q'", NULL, "", 2, 1, NULL},
    {"SELECT * FROM t WHERE (pk = 'p' AND sk > 5) OR pk IN ['q', 'p']", NULL, "", 2, 1, NULL},
    {"SELECT * FROM t WHERE pk = 'p' OR (pk = 'q' AND n = 1) OR n = 2", NULL, "", -1, 1, NULL},
    {"SELECT * FROM t WHERE n = 5", NULL, "", -1, 1, NULL},
    {"SELECT * FROM t WHERE s IS NOT MISSING AND m.x IS STRING AND z IS MISSING", NULL, "", -1, 1,
     NULL},
    {"SELECT * FROM t WHERE contains(s, 'a') AND size(l) = 1 AND NOT n BETWEEN 6 AND 9", NULL, "",
     -1, 1, NULL},
    {"SELECT * FROM t WHERE n NOT IN [1, 2] AND attribute_type(n, 'N')", NULL, "", -1, 1, NULL},
    {"SELECT * FROM t WHERE SIZE(l) = 1 AND Begins_With(m.x, 'y') AND CONTAINS(s, 'a')", NULL, "",
     -1, 1, NULL},
    {"SELECT * FROM t WHERE n IS NULL", NULL, "", -1, 0, NULL},
    {"SELECT * FROM t WHERE n <> 5", NULL, "", -1, 0, NULL},
    {"SELECT * FROM t.g WHERE gk = 'x'", NULL, "", 1, 0, NULL},
    {"SELECT * FROM t.nope", NULL, "The table does not have the specified index: nope", 0, -1,
     NULL},
    {"SELECT * FROM t WHERE pk = ?", NULL,
     "Number of parameters in request and statement don't match.", 0, -1, NULL},
    {"SELECT * FROM t WHERE pk = 'p'", "[1]",
     "Number of parameters in request and statement don't match.", 0, -1, NULL},
    {"SELECT * FROM t ORDER BY sk", NULL,
     "Must have WHERE clause in the statement when using ORDER BY clause.", 0, -1, NULL},
    {"SELECT * FROM t WHERE n = 1 ORDER BY sk", NULL,
     "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY "
     "clause.",
     0, -1, NULL},
    {"SELECT * FROM t WHERE pk = 'p' ORDER BY n", NULL,
     "Variable reference n in ORDER BY clause must be part of the primary key", 0, -1, NULL},
    {"SELECT * FROM t WHERE pk IN ['a', 'b'] ORDER BY sk", NULL,
     "Must have hash key in ORDER BY clause when more than one hash key condition specified in "
     "WHERE clause.",
     0, -1, NULL},
    {"SELECT * FROM t WHERE pk IN ['a', 'b'] ORDER BY pk DESC, sk", NULL, "", 2, 0, NULL},
    {"SELECT * FROM t WHERE n IS WEIRD", NULL,
     "Unsupported data type for IS operator: WEIRD. Supported data types are [MISSING, NULL, "
     "BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]",
     0, -1, NULL},
    {"SELECT * FROM t WHERE n = MISSING", NULL, "MISSING must be compared using IS operator", 0, -1,
     NULL},
    {"SELECT * FROM t WHERE n", NULL,
     "WHERE clause must contain an expression that resolves to a boolean", 0, -1, NULL},
    {"SELECT * FROM t WHERE n + 1 = 6", NULL,
     "Unsupported operator in Condition Expression. Operator: +", 0, -1, NULL},
    {"SELECT * FROM t WHERE nope(n)", NULL, "Unrecognized function: nope at 1:23:4", 0, -1, NULL},
    {"SELECT * FROM t WHERE EXISTS(n)", NULL, "Unrecognized function: exists at 1:23:6", 0, -1,
     NULL},
    {"SELECT * FROM t WHERE set_add(s, <<'x'>>) = s", NULL,
     "Unrecognized function: set_add at 1:23:7", 0, -1, NULL},
    {"SELECT * FROM t WHERE attribute_exists(s) AND attribute_not_exists(z)", NULL, "", -1, 1,
     NULL},
    {"SELECT * FROM t WHERE attribute_exists('s')", NULL,
     "Operator or function requires a document path; operator or function: attribute_exists", 0, -1,
     NULL},
    {"SELECT * FROM t WHERE s = <<'x', 'x'>>", NULL,
     "One or more parameter values were invalid: Input collection [x, x] contains duplicates.", 0,
     -1, NULL},
    {"SELECT * FROM t WHERE s = <<>>", NULL, "Empty bags are not supported", 0, -1, NULL},
    {"SELECT * FROM t WHERE s = <<1, 'a'>>", NULL,
     "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags", 0,
     -1, NULL},
    {"EXISTS(SELECT * FROM t WHERE pk = 'p' AND sk = 1)", NULL,
     "EXISTS can only be used in ExecuteTransaction write requests.", 0, -1, NULL},
    /* INSERT: the condition holds only when the item does not exist */
    {"INSERT INTO t VALUE {'pk': 'p', 'sk': 2}", NULL, "", 0, 0, NULL},
    {"INSERT INTO t VALUE ?", "[{\"pk\": \"p\", \"sk\": 2}]", "", 0, 0, NULL},
    {"INSERT INTO t VALUE [1]", NULL,
     "Unsupported format in item expression. Please use struct format {...} to express item "
     "values for insert statement.",
     0, -1, NULL},
    {"INSERT INTO t VALUE {'a': 1, 'a': 2}", NULL, "Duplicate keys in tuple. Key: a", 0, -1, NULL},
    {"INSERT INTO t.g VALUE {'pk': 'p'}", NULL, "This operation is not supported on an index", 0,
     -1, NULL},
    /* UPDATE: full key, the rest is a condition on an existing item */
    {"UPDATE t SET n = n + 1 WHERE pk = 'p' AND sk = 1", NULL, "", 0, 1,
     "{\"pk\": \"p\", \"sk\": 1, \"n\": 6, \"s\": <<\"a\">>, \"l\": [1], \"m\": {\"x\": \"y\"}}"},
    {"UPDATE t SET n = n - ?, l = list_append(l, [2]) REMOVE m WHERE pk = 'p' AND sk = 1 AND n = 5",
     "[2]", "", 0, 1, "{\"pk\": \"p\", \"sk\": 1, \"n\": 3, \"s\": <<\"a\">>, \"l\": [1, 2]}"},
    {"UPDATE t SET s = set_add(s, <<'b'>>) SET m.x = 'z' WHERE pk = 'p' AND sk = 1 AND n > 9", NULL,
     "", 0, 0,
     "{\"pk\": \"p\", \"sk\": 1, \"n\": 5, \"s\": <<\"a\", \"b\">>, \"l\": [1], \"m\": {\"x\": "
     "\"z\"}}"},
    {"UPDATE t SET l = LIST_APPEND(l, [2]), s = SET_ADD(s, <<'a'>>) WHERE pk = 'p' AND sk = 1",
     NULL, "", 0, 1,
     "{\"pk\": \"p\", \"sk\": 1, \"n\": 5, \"s\": <<\"a\">>, \"l\": [1, 2], \"m\": {\"x\": "
     "\"y\"}}"},
    {"UPDATE t SET s = set_delete(s, <<'a'>>) WHERE pk = 'p' AND sk = 1", NULL, "", 0, 1,
     "{\"pk\": \"p\", \"sk\": 1, \"n\": 5, \"l\": [1], \"m\": {\"x\": \"y\"}}"},
    {"UPDATE t SET s = set_add(l, <<'b'>>) WHERE pk = 'p' AND sk = 1", NULL,
     "The first argument to SET_ADD must equal the assignment value at 1:18:7", 0, -1, NULL},
    {"UPDATE t SET s = set_add(s, 'b') WHERE pk = 'p' AND sk = 1", NULL,
     "The second argument to SET_ADD must be a value with type SET at 1:26:1", 0, -1, NULL},
    {"UPDATE t SET s = set_delete(s) WHERE pk = 'p' AND sk = 1", NULL,
     "SET_DELETE must have exactly two arguments at 1:18:10", 0, -1, NULL},
    {"UPDATE t SET n = 1 WHERE pk = 'p'", NULL,
     "Where clause does not contain a mandatory equality on all key attributes", 0, -1, NULL},
    {"UPDATE t SET n = 1", NULL,
     "Where clause does not contain a mandatory equality on all key attributes", 0, -1, NULL},
    {"UPDATE t SET n = 1 WHERE pk = 'p' OR sk = 1", NULL,
     "Where clause does not contain a mandatory equality on all key attributes", 0, -1, NULL},
    {"UPDATE t SET n = 1 WHERE pk = 'p' AND sk = 1 AND sk = 2", NULL,
     "Multiple conditions on same key sk. Only single item Update/Insert/Delete are supported", 0,
     -1, NULL},
    /* DELETE: a missing item is no failure; an existing one must meet the rest */
    {"DELETE FROM t WHERE pk = 'p' AND sk = 1", NULL, "", 0, -1, NULL},
    {"DELETE FROM t WHERE pk = 'p' AND sk = 1 AND n = 4", NULL, "", 0, 0, NULL},
    {"DELETE FROM t WHERE sk = 1 AND pk = 'p' AND n = 5 RETURNING ALL OLD *", NULL, "", 0, 1, NULL},
    {"DELETE FROM t WHERE pk = 'p' AND sk = 1 RETURNING MODIFIED NEW *", NULL,
     "Invalid returning clause: RETURNING MODIFIED NEW. Only RETURNING ALL OLD * is allowed in "
     "DELETE statements.",
     0, -1, NULL},
};

static void check_plan_case(size_t i, const struct table_def *def)
{
    struct value params, item, after;
    struct pql_stmt *s = NULL;
    struct pql_plan plan;
    struct ddb_error err = {0};
    int rc;

    lit(plan_cases[i].params, &params);
    lit(ITEM, &item);
    pql_plan_init(&plan);
    printf("  case %zu: %s\n", i, plan_cases[i].stmt);
    rc = pql_parse(plan_cases[i].stmt, strlen(plan_cases[i].stmt), &s, &err);
    CHECK_INT_EQ(rc, 0);
    if (rc == 0) {
        pql_plan_clear(&plan);
        rc = pql_plan(s, def, params.type == VALUE_L ? params.u.list.elems : NULL,
                      params.type == VALUE_L ? params.u.list.count : 0, PQL_IN_STATEMENT, &plan,
                      &err);
    }
    if (plan_cases[i].error[0]) {
        CHECK_INT_EQ(rc, -1);
        CHECK_STR_EQ(err.message ? err.message : "", plan_cases[i].error);
        goto out;
    }
    CHECK_STR_EQ(err.message ? err.message : "", "");
    if (rc != 0) goto out;
    if (plan.kind == PQL_SELECT)
        CHECK_INT_EQ(plan.query_count ? (int) plan.query_count : -1, plan_cases[i].queries);
    if (plan_cases[i].matches >= 0) {
        const struct expr *e = plan.kind == PQL_SELECT ? plan.filter : plan.condition;
        bool matched = false;
        CHECK(e != NULL);
        if (e) CHECK_INT_EQ(expr_eval_condition(e, &item, &matched, &err), 0);
        CHECK_INT_EQ(matched, plan_cases[i].matches);
    } else if (plan.kind != PQL_SELECT) {
        CHECK(plan.condition == NULL);
    }
    if (plan_cases[i].after) {
        struct value attrs;
        char want[1024];
        value_copy(&attrs, &item);
        CHECK_INT_EQ(expr_apply_update_ex(plan.update, &attrs, true, &err), 0);
        lit(plan_cases[i].after, &after);
        snprintf(want, sizeof want, "%s", lit_str(&after));
        CHECK_STR_EQ(lit_str(&attrs), want);
        value_clear(&after);
        value_clear(&attrs);
    }
out:
    pql_plan_clear(&plan);
    pql_stmt_free(s);
    value_clear(&params);
    value_clear(&item);
    ddb_error_clear(&err);
}

static void test_plan_table(void)
{
    struct table_def def;
    make_def(&def);
    for (size_t i = 0; i < sizeof plan_cases / sizeof plan_cases[0]; i++)
        check_plan_case(i, &def);
}

/* A transaction's SELECT is a Get by full key, and nothing else. */
static void test_transaction_select(void)
{
    static const struct {
        const char *stmt;
        const char *error;
    } cases[] = {
        {"SELECT n, m.x FROM t WHERE pk = 'p' AND sk = 1", ""},
        {"SELECT * FROM t WHERE pk = 'p'",
         "Select statements within ExecuteTransaction must specify the primary key in the where "
         "clause."},
        {"SELECT * FROM t WHERE pk = 'p' AND sk = 1 AND n = 1",
         "Select statements within ExecuteTransaction must specify the primary key in the where "
         "clause."},
        {"SELECT * FROM t.g WHERE gk = 'p'",
         "Reads on indices are not supported within transactions."},
        {"EXISTS(SELECT * FROM t WHERE pk = 'p' AND sk = 1 AND n = 5)", ""},
        {"EXISTS(SELECT * FROM t WHERE pk = 'p' AND sk = 1)",
         "EXISTS() must contain a single item read with additional condition"},
    };
    struct table_def def;
    make_def(&def);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pql_stmt *s = NULL;
        struct pql_plan plan;
        struct ddb_error err = {0};
        pql_plan_init(&plan);
        CHECK_INT_EQ(pql_parse(cases[i].stmt, strlen(cases[i].stmt), &s, &err), 0);
        if (s) {
            pql_plan_clear(&plan);
            pql_plan(s, &def, NULL, 0, PQL_IN_TRANSACTION, &plan, &err);
        }
        CHECK_STR_EQ(err.message ? err.message : "", cases[i].error);
        if (!cases[i].error[0]) CHECK_INT_EQ((int) plan.key.u.map.count, 2);
        pql_plan_clear(&plan);
        pql_stmt_free(s);
        ddb_error_clear(&err);
    }
}

int main(void)
{
    RUN(test_parse_table);
    RUN(test_quoted_names_and_strings);
    RUN(test_nesting_is_bounded);
    RUN(test_plan_table);
    RUN(test_transaction_select);
    return check_report();
}
