/*
 * test_transact.c - db_transact_write and db_transact_get through the public API.
 *
 * What conformance/test_transact.py cannot reach from the wire: the 10-minute
 * ClientRequestToken window on the engine clock, and the exact split of
 * errors between request-level exceptions and cancellation reasons, checked
 * here on the C structures that api/http/response.c turns into JSON.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/expr/expr.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};

/* Table "t": hash key p (S), no indexes. */
static void create_table(struct db *db)
{
    struct table_def def;

    def_init(&def, "t");
    def_add_key(&def, "p", VALUE_S, true);
    create_table_ok(db, &scope, &def);
}

static struct value key_s(const char *p)
{
    struct value m;
    value_init_map(&m);
    set_s(&m, "p", p);
    return m;
}

static struct value key_n(const char *n)
{
    struct value m;
    value_init_map(&m);
    set_n_text(&m, "p", n);
    return m;
}

static struct write_op put_op(const char *p)
{
    struct value m = key_s(p);
    return (struct write_op){.kind = WRITE_PUT, .table_name = "t", .put_item = item_new(&m)};
}

static struct write_op key_op(enum write_kind kind, struct value key)
{
    return (struct write_op){.kind = kind, .table_name = "t", .key = key};
}

static void ops_clear(struct write_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        item_unref(ops[i].put_item);
        value_clear(&ops[i].key);
    }
}

static struct expr *condition(const char *text, struct expr_ctx *ctx)
{
    struct expr *e = NULL;
    struct ddb_error err = {0};
    expr_ctx_init(ctx, NULL, NULL);
    CHECK_INT_EQ(
        expr_parse(EXPR_CONDITION, "ConditionExpression", text, strlen(text), ctx, &e, &err), 0);
    ddb_error_clear(&err);
    return e;
}

/* The cancellation reasons of the last transact() call. */
static struct failure_details last_failure;

static int transact(struct db *db, struct write_op *ops, size_t n, const char *token,
                    const char *digest, enum return_capacity mode, double *read_units,
                    double *write_units, struct ddb_error *err)
{
    struct consumed_capacity *caps;
    size_t count;
    int rc;

    failure_details_clear(&last_failure);
    rc = db_transact_write(db, &scope, ops, n, token, digest, mode, &caps, &count, &last_failure,
                           err);
    if (read_units) *read_units = 0;
    if (write_units) *write_units = 0;
    for (size_t i = 0; i < count; i++) {
        if (read_units) *read_units += caps[i].read_units;
        if (write_units) *write_units += caps[i].write_units;
        consumed_capacity_clear(&caps[i]);
    }
    free(caps);
    return rc;
}

static bool exists(struct db *db, const char *p)
{
    struct value key = key_s(p);
    struct item *item = get_ok(db, &scope, "t", &key);

    item_unref(item);
    return item != NULL;
}

static void test_same_token_replays_for_ten_minutes_of_the_engine_clock(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct write_op ops[1];
    double read_units, write_units;

    create_table(db);
    ops[0] = put_op("a");
    CHECK_INT_EQ(
        transact(db, ops, 1, "tok", "d1", RETURN_CAPACITY_TOTAL, &read_units, &write_units, &err),
        0);
    CHECK(write_units == 2.0 && read_units == 0.0);
    /* A replay writes nothing and reports a transactional read. */
    ops_clear(ops, 1);
    ops[0] = key_op(WRITE_DELETE, key_s("a"));
    CHECK_INT_EQ(transact(db, ops, 1, NULL, NULL, RETURN_CAPACITY_NONE, NULL, NULL, &err), 0);
    ops_clear(ops, 1);
    ops[0] = put_op("a");
    db_clock_advance(db, 9 * 60 * 1000);
    CHECK_INT_EQ(
        transact(db, ops, 1, "tok", "d1", RETURN_CAPACITY_TOTAL, &read_units, &write_units, &err),
        0);
    CHECK(!exists(db, "a"));
    CHECK(read_units == 2.0 && write_units == 0.0);
    /* Other parameters under the same token: IdempotentParameterMismatch. */
    CHECK_INT_EQ(transact(db, ops, 1, "tok", "d2", RETURN_CAPACITY_NONE, NULL, NULL, &err), -1);
    CHECK_INT_EQ(err.code, DDB_IDEMPOTENT_PARAMETER_MISMATCH);
    ddb_error_clear(&err);
    /* The same token in another namespace is another token. */
    {
        const struct db_scope other = {"other", "us-east-1"};
        struct consumed_capacity *caps;
        size_t count;
        CHECK_INT_EQ(db_transact_write(db, &other, ops, 1, "tok", "d2", RETURN_CAPACITY_NONE, &caps,
                                       &count, &last_failure, &err),
                     -1);
        CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
        ddb_error_clear(&err);
    }
    /* After 10 minutes the token is forgotten: the request runs again. */
    db_clock_advance(db, 61 * 1000);
    CHECK_INT_EQ(transact(db, ops, 1, "tok", "d2", RETURN_CAPACITY_NONE, NULL, NULL, &err), 0);
    CHECK(exists(db, "a"));
    ops_clear(ops, 1);
    db_free(db);
}

static void test_first_schema_error_is_the_only_reason(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct write_op ops[3];
    struct expr_ctx ctx;
    struct expr *cond = condition("attribute_exists(p)", &ctx);

    create_table(db);
    ops[0] = put_op("ok");
    ops[1] = key_op(WRITE_DELETE, key_n("1"));
    ops[2] = key_op(WRITE_CONDITION_CHECK, key_s("c"));
    ops[2].condition = cond;
    CHECK_INT_EQ(transact(db, ops, 3, NULL, NULL, RETURN_CAPACITY_NONE, NULL, NULL, &err), -1);
    CHECK_INT_EQ(err.code, DDB_TRANSACTION_CANCELED);
    CHECK_STR_EQ(err.message, "Transaction cancelled, please refer cancellation reasons for "
                              "specific reasons [None, ValidationError, None]");
    CHECK_INT_EQ(last_failure.reason_count, 3);
    CHECK(last_failure.reasons[0].message == NULL);
    CHECK_STR_EQ(last_failure.reasons[1].message,
                 "The provided key element does not match the schema");
    CHECK(last_failure.reasons[2].message == NULL);
    CHECK(!exists(db, "ok"));
    ddb_error_clear(&err);
    ops_clear(ops, 3);
    expr_free(cond);
    expr_ctx_clear(&ctx);
    db_free(db);
}

static void test_request_level_errors_come_before_reasons(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct write_op ops[3];

    create_table(db);
    /* An empty key value, even after a wrong-typed one. */
    ops[0] = key_op(WRITE_DELETE, key_n("1"));
    ops[1] = key_op(WRITE_DELETE, key_s(""));
    CHECK_INT_EQ(transact(db, ops, 2, NULL, NULL, RETURN_CAPACITY_NONE, NULL, NULL, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, "One or more parameter values are not valid. The AttributeValue "
                              "for a key attribute cannot contain an empty string value. Key: p");
    ddb_error_clear(&err);
    ops_clear(ops, 2);
    /* A missing table before a duplicate target. */
    ops[0] = put_op("x");
    ops[1] = key_op(WRITE_DELETE, key_s("x"));
    ops[2] = key_op(WRITE_DELETE, key_s("y"));
    ops[2].table_name = "missing";
    CHECK_INT_EQ(transact(db, ops, 3, NULL, NULL, RETURN_CAPACITY_NONE, NULL, NULL, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    ddb_error_clear(&err);
    ops[2].table_name = "t";
    CHECK_INT_EQ(transact(db, ops, 3, NULL, NULL, RETURN_CAPACITY_NONE, NULL, NULL, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, "Transaction request cannot include multiple operations on one item");
    ddb_error_clear(&err);
    CHECK(!exists(db, "x"));
    ops_clear(ops, 3);
    db_free(db);
}

static void test_condition_check_is_billed_as_two_writes(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct write_op ops[1];
    struct expr_ctx ctx;
    struct expr *cond = condition("attribute_not_exists(p)", &ctx);
    double read_units, write_units;

    create_table(db);
    ops[0] = key_op(WRITE_CONDITION_CHECK, key_s("c"));
    ops[0].condition = cond;
    CHECK_INT_EQ(
        transact(db, ops, 1, NULL, NULL, RETURN_CAPACITY_TOTAL, &read_units, &write_units, &err),
        0);
    CHECK(read_units == 0.0 && write_units == 2.0);
    CHECK(!exists(db, "c"));
    ops_clear(ops, 1);
    expr_free(cond);
    expr_ctx_clear(&ctx);
    db_free(db);
}

static void test_get_reads_one_state_and_reports_key_errors_as_reasons(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct write_op ops[1];
    struct get_op gets[2] = {{.table_name = "t"}, {.table_name = "t"}};
    struct item *items[2];
    struct consumed_capacity *caps;
    size_t count;

    create_table(db);
    ops[0] = put_op("a");
    CHECK_INT_EQ(transact(db, ops, 1, NULL, NULL, RETURN_CAPACITY_NONE, NULL, NULL, &err), 0);
    gets[0].key = key_s("a");
    gets[1].key = key_s("b");
    CHECK_INT_EQ(db_transact_get(db, &scope, gets, 2, RETURN_CAPACITY_TOTAL, items, &caps, &count,
                                 &last_failure, &err),
                 0);
    CHECK(items[0] != NULL && items[1] == NULL);
    CHECK_INT_EQ(count, 1);
    CHECK(caps[0].read_units == 4.0);
    item_unref(items[0]);
    consumed_capacity_clear(&caps[0]);
    free(caps);
    value_clear(&gets[1].key);
    gets[1].key = key_n("1");
    CHECK_INT_EQ(db_transact_get(db, &scope, gets, 2, RETURN_CAPACITY_TOTAL, items, &caps, &count,
                                 &last_failure, &err),
                 -1);
    CHECK_INT_EQ(err.code, DDB_TRANSACTION_CANCELED);
    CHECK_STR_EQ(err.message, "Transaction cancelled, please refer cancellation reasons for "
                              "specific reasons [None, ValidationError]");
    CHECK(items[0] == NULL && caps == NULL && count == 0);
    ddb_error_clear(&err);
    value_clear(&gets[0].key);
    value_clear(&gets[1].key);
    ops_clear(ops, 1);
    db_free(db);
}

int main(void)
{
    RUN(test_same_token_replays_for_ten_minutes_of_the_engine_clock);
    RUN(test_first_schema_error_is_the_only_reason);
    RUN(test_request_level_errors_come_before_reasons);
    RUN(test_condition_check_is_billed_as_two_writes);
    RUN(test_get_reads_one_state_and_reports_key_errors_as_reasons);
    failure_details_clear(&last_failure);
    return check_report();
}
