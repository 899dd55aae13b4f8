/*
 * fuzz_expr_parse.c - libFuzzer target for the expression language.
 *
 * Input: one byte choosing the kind (condition, update, projection, key
 * condition), then the expression text. Every input is parsed and checked with
 * a small fixed ExpressionAttributeNames/Values context; whatever parses is also
 * evaluated against a fixed item (condition), applied to a copy of it (update),
 * projected (projection) and resolved against a key schema (key condition), so
 * that the evaluator is fuzzed with every tree the parser accepts. The target
 * must never crash, trip an assertion or sanitizer, or leak (ASan's leak
 * checker runs at exit). Built only with -DDDB_FUZZ=ON and clang; see
 * storage/CMakeLists.txt, which also runs it for a bounded time under ctest.
 */
#include "storage/expr/expr.h"
#include "storage/model/schema.h"
#include "storage/tests/expr_test_util.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct value names, values, item;
static bool ready;

static void setup(void)
{
    lit("{\"#a\": \"a\", \"#b\": \"b.c\", \"#n\": \"name\", \"#l\": \"l\", \"#0\": \"0\"}", &names);
    lit("{\":v\": 1, \":w\": -2.5, \":s\": \"str\", \":t\": \"S\", \":b\": b\"\\x00\\xff\", "
        "\":l\": [1, \"x\", [2]], \":m\": {\"k\": [1]}, \":ss\": <<\"x\", \"y\">>, "
        "\":ns\": <<1, 2>>, \":bs\": <<b\"a\">>, \":z\": null, \":f\": false, "
        "\":big\": 9.9999999999999999999999999999999999999e125}",
        &values);
    lit("{\"p\": \"pk\", \"c\": 3, \"a\": {\"b\": [0, {\"c\": \"x\"}], \"n\": 5}, "
        "\"l\": [1, 2, 3, [4, <<\"q\">>]], \"s\": \"hello\", \"ss\": <<\"x\", \"z\">>, "
        "\"ns\": <<1, 7>>, \"b.c\": true, \"name\": null, \"m\": {}}",
        &item);
    ready = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum expr_kind kinds[] = {EXPR_CONDITION, EXPR_UPDATE, EXPR_PROJECTION,
                                           EXPR_KEY_CONDITION};
    static const char *const params[] = {"ConditionExpression", "UpdateExpression",
                                         "ProjectionExpression", "KeyConditionExpression"};
    struct expr_ctx ctx;
    struct ddb_error err = {0};
    struct expr *e = NULL;
    int k;

    if (!ready) setup();
    if (size == 0) return 0;
    k = data[0] & 3;
    expr_ctx_init(&ctx, &names, &values);
    if (expr_parse(kinds[k], params[k], (const char *) data + 1, size - 1, &ctx, &e, &err) == 0) {
        expr_ctx_check_unused(&ctx, &err);
        ddb_error_clear(&err);
        if (kinds[k] == EXPR_CONDITION) {
            bool matched;
            expr_eval_condition(e, &item, &matched, &err);
            expr_eval_condition(e, NULL, &matched, &err);
        } else if (kinds[k] == EXPR_UPDATE) {
            struct value copy, out;
            value_copy(&copy, &item);
            expr_project_updated(e, &copy, &out);
            value_clear(&out);
            if (expr_apply_update_ex(e, &copy, data[0] & 4, &err) == 0) {
                expr_project_updated(e, &copy, &out);
                value_clear(&out);
            }
            ddb_error_clear(&err);
            expr_update_touches(e, "a", 1);
            value_clear(&copy);
        } else if (kinds[k] == EXPR_PROJECTION) {
            struct value out;
            expr_project(e, &item, &out);
            value_clear(&out);
        } else {
            static char *hash[] = {"p"}, *range[] = {"c"};
            struct key_schema schema = {1, {hash[0]}, 1, {range[0]}};
            struct attr_def defs[] = {{"p", VALUE_S}, {"c", VALUE_N}};
            struct key_condition kc;
            bool matched;
            if (expr_key_condition_resolve(e, &schema, defs, 2, &kc, &err) == 0)
                key_condition_clear(&kc);
            expr_eval_condition(e, &item, &matched, &err);
        }
        expr_references(e, "a", 1);
        expr_uses_nested(e, "a", 1);
        expr_free(e);
    } else if (e != NULL || err.code == DDB_OK || err.message == NULL) {
        __builtin_trap(); /* a failure must set the error and return no tree */
    }
    ddb_error_clear(&err);
    expr_ctx_clear(&ctx);
    return 0;
}
