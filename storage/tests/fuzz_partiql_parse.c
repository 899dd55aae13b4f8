/*
 * fuzz_partiql_parse.c - libFuzzer target for the PartiQL parser and planner.
 *
 * Input: a statement. Whatever parses is planned against a fixed table
 * (pk S + sk N, a GSI on gk S) with as many fixed Parameters as it asks for,
 * as ExecuteStatement, BatchExecuteStatement and ExecuteTransaction plan it; every
 * expression the planner generates is then evaluated against a fixed item
 * (condition, filter), applied to a copy of it (update) and projected, so the
 * generated text is fuzzed through storage/expr as well. The target must
 * never crash, trip an assertion or sanitizer, or leak; a failure must set
 * the error. Built only with -DDDB_FUZZ=ON and clang (storage/CMakeLists.txt).
 */
#include "storage/partiql/pql.h"
#include "storage/tests/expr_test_util.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct value params, item;
static struct table_def def;
static bool ready;

static void setup(void)
{
    static struct attr_def defs[] = {{"pk", VALUE_S}, {"sk", VALUE_N}, {"gk", VALUE_S}};
    static struct index_def gsi;
    lit("[\"p\", 1, {\"pk\": \"p\", \"sk\": 2}, <<\"a\">>, [1, 2], null, true, b\"\\x00\"]",
        &params);
    lit("{\"pk\": \"p\", \"sk\": 1, \"n\": 5, \"s\": <<\"a\">>, \"l\": [1, [2]], "
        "\"m\": {\"x\": \"y\"}, \"gk\": \"g\"}",
        &item);
    def.name = "t";
    def.attr_defs = defs;
    def.attr_def_count = 3;
    def.key.hash_count = 1;
    def.key.hash_names[0] = "pk";
    def.key.range_count = 1;
    def.key.range_names[0] = "sk";
    gsi.name = "g";
    gsi.is_global = true;
    gsi.key.hash_count = 1;
    gsi.key.hash_names[0] = "gk";
    def.gsis = &gsi;
    def.gsi_count = 1;
    ready = true;
}

static void exercise(const struct pql_plan *plan)
{
    struct ddb_error err = {0};
    bool matched;
    const struct expr *conds[] = {plan->filter, plan->condition};

    for (size_t i = 0; i < 2; i++) {
        if (!conds[i]) continue;
        expr_eval_condition(conds[i], &item, &matched, &err);
        expr_eval_condition(conds[i], NULL, &matched, &err);
        ddb_error_clear(&err);
    }
    if (plan->update) {
        struct value copy, out;
        value_copy(&copy, &item);
        if (expr_apply_update_ex(plan->update, &copy, true, &err) == 0) {
            expr_project_updated(plan->update, &copy, &out);
            value_clear(&out);
        }
        ddb_error_clear(&err);
        value_clear(&copy);
    }
    if (plan->projection) {
        struct value out;
        expr_project(plan->projection, &item, &out);
        value_clear(&out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pql_stmt *s = NULL;
    struct ddb_error err = {0};

    if (!ready) setup();
    if (pql_parse((const char *) data, size, &s, &err) != 0) {
        if (s != NULL || err.message == NULL) __builtin_trap();
        ddb_error_clear(&err);
        return 0;
    }
    for (int tx = 0; tx < 3; tx++) {
        struct pql_plan plan;
        size_t n = s->param_count <= params.u.list.count ? s->param_count : 0;
        if (pql_plan(s, &def, params.u.list.elems, n, (enum pql_context) tx, &plan, &err) == 0)
            exercise(&plan);
        else if (err.message == NULL)
            __builtin_trap();
        ddb_error_clear(&err);
        pql_plan_clear(&plan);
    }
    pql_stmt_free(s);
    return 0;
}
