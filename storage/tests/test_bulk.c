/*
 * test_bulk.c - bulk put items through control/jobs.h, without a worker
 * thread: the test plays the worker (db_bulk_put, db_bulk_progress,
 * db_bulk_finish). Statuses and counters, conditions and invalid items,
 * ClientToken retries, the active-operation quota, cancellation, a table
 * deleted under a running operation, and ListBulkOperations' order.
 */
#include "storage/control/jobs.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};
static const char *const both_types[] = {"ERROR", "CONDITION_CHECK_FAILURE"};

static char *dup(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

/* Table name: pk S, on demand. */
static void create_table(struct db *db, const char *name)
{
    struct table_def def;
    struct table_desc desc;
    struct ddb_error err = {0};

    memset(&def, 0, sizeof def);
    def.name = dup(name);
    def.attr_def_count = 1;
    def.attr_defs = calloc(1, sizeof *def.attr_defs);
    def.attr_defs[0] = (struct attr_def){dup("pk"), VALUE_S};
    def.key.hash_count = 1;
    def.key.hash_names[0] = dup("pk");
    def.billing = BILLING_PAY_PER_REQUEST;
    CHECK_INT_EQ(db_create_table(db, &scope, &def, &desc, &err), 0);
    table_desc_clear(&desc);
}

/* An item {name: text, v: "x"} (name "pk" for a valid one). */
static struct item *make_item(const char *name, const char *text)
{
    struct value m, v;

    value_init_map(&m);
    value_init_string(&v, text, strlen(text));
    value_map_set(&m, name, strlen(name), &v);
    value_init_string(&v, "x", 1);
    value_map_set(&m, "v", 1, &v);
    return item_new(&m);
}

static struct bulk_request request(const char *table, const char *token)
{
    return (struct bulk_request){.table_name = table,
                                 .client_token = token,
                                 .in_bucket = "in",
                                 .in_format = "DYNAMODB_JSON",
                                 .out_types = both_types,
                                 .out_type_count = 2,
                                 .out_bucket = "out"};
}

static bool exists(struct db *db, const char *table, const char *pk)
{
    struct get_op get = {.table_name = table};
    struct item *item = NULL;
    struct consumed_capacity c = {0};
    struct ddb_error err = {0};
    struct value v;

    value_init_map(&get.key);
    value_init_string(&v, pk, strlen(pk));
    value_map_set(&get.key, "pk", 2, &v);
    CHECK_INT_EQ(db_get_item(db, &scope, &get, RETURN_CAPACITY_NONE, &item, &c, &err), 0);
    value_clear(&get.key);
    consumed_capacity_clear(&c);
    item_unref(item);
    return item != NULL;
}

static void test_items_conditions_and_counters(void)
{
    struct db *db = db_new();
    struct bulk_request r = request("t", "tok-1");
    struct bulk_desc d, now;
    struct ddb_error err = {0};
    struct expr_ctx ctx;
    struct expr *not_exists = NULL;
    const char *text = "attribute_not_exists(pk)";
    struct bulk_put puts[4];
    int64_t rate = -1;

    create_table(db, "t");
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &r, &d, &err), 0);
    CHECK_INT_EQ(d.status, BULK_IN_PROGRESS);
    CHECK_STR_EQ(d.performance_tier, "STANDARD");
    CHECK(strstr(d.arn, ":table/t/bulk-operation/") != NULL);
    CHECK_INT_EQ(atomic_load(&db->bulk.running), 1);

    expr_ctx_init(&ctx, NULL, NULL);
    CHECK_INT_EQ(expr_parse(EXPR_CONDITION, "ConditionExpression", text, strlen(text), &ctx,
                            &not_exists, &err),
                 0);
    memset(puts, 0, sizeof puts);
    puts[0].item = make_item("pk", "a");
    puts[1].item = make_item("pk", "a"); /* its condition fails against the first */
    puts[1].condition = not_exists;
    puts[2].item = make_item("other", "b"); /* no key */
    puts[3].item = make_item("pk", "c");
    puts[3].condition = not_exists;
    CHECK_INT_EQ(db_bulk_put(db, &scope, d.arn, puts, 4, &rate), 0);
    CHECK_INT_EQ(rate, 0);
    CHECK_INT_EQ(puts[0].outcome, BULK_PUT_WRITTEN);
    CHECK(puts[0].write_units == 1.0);
    CHECK_INT_EQ(puts[1].outcome, BULK_PUT_CONDITION_FAILED);
    CHECK(puts[1].existing != NULL);
    CHECK_INT_EQ(puts[2].outcome, BULK_PUT_INVALID);
    CHECK_STR_EQ(puts[2].message,
                 "One or more parameter values were invalid: Missing the key pk in the item");
    CHECK_INT_EQ(puts[3].outcome, BULK_PUT_WRITTEN);
    CHECK(exists(db, "t", "a") && exists(db, "t", "c"));

    db_bulk_progress(
        db, d.arn,
        &(struct bulk_progress){
            .failed_items = 1, .processed_bytes = 10, .has_total_bytes = true, .total_bytes = 10});
    CHECK_INT_EQ(db_describe_bulk(db, &scope, d.arn, &now, &err), 0);
    CHECK_INT_EQ(now.processed_items, 5);
    CHECK_INT_EQ(now.failed_items, 2);
    CHECK_INT_EQ(now.condition_failed_items, 1);
    CHECK_INT_EQ(now.total_bytes, 10);
    CHECK(now.table_bytes > 0);
    CHECK_INT_EQ(now.end_ms, 0);
    bulk_desc_clear(&now);

    db_bulk_finish(db, d.arn, NULL, NULL);
    CHECK_INT_EQ(atomic_load(&db->bulk.running), 0);
    CHECK_INT_EQ(db_describe_bulk(db, &scope, d.arn, &now, &err), 0);
    CHECK_INT_EQ(now.status, BULK_COMPLETED_WITH_ERRORS);
    CHECK(now.end_ms > 0);
    CHECK(now.failure_code == NULL);
    bulk_desc_clear(&now);

    for (size_t i = 0; i < 4; i++)
        item_unref(puts[i].item);
    bulk_puts_clear(puts, 4);
    expr_free(not_exists);
    expr_ctx_clear(&ctx);
    bulk_desc_clear(&d);
    db_free(db);
}

static void test_client_token_and_quota(void)
{
    struct db *db = db_new();
    struct bulk_request r = request("t", "tok"), other = request("t", "tok"),
                        second = request("t", "tok-2");
    struct bulk_desc d, again;
    struct ddb_error err = {0};

    create_table(db, "t");
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &r, &d, &err), 0);
    /* The same token and parameters: the same operation, nothing to run. */
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &r, &again, &err), 1);
    CHECK_STR_EQ(again.arn, d.arn);
    bulk_desc_clear(&again);
    other.in_prefix = "elsewhere/";
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &other, &again, &err), -1);
    CHECK_INT_EQ(err.code, DDB_IDEMPOTENT_PARAMETER_MISMATCH);
    ddb_error_clear(&err);
    /* One active operation per table. */
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &second, &again, &err), -1);
    CHECK_INT_EQ(err.code, DDB_LIMIT_EXCEEDED);
    ddb_error_clear(&err);
    db_bulk_finish(db, d.arn, "S3NoSuchBucket", "The specified bucket does not exist");
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &second, &again, &err), 0);
    db_bulk_finish(db, again.arn, NULL, NULL);
    bulk_desc_clear(&again);
    CHECK_INT_EQ(db_describe_bulk(db, &scope, d.arn, &again, &err), 0);
    CHECK_INT_EQ(again.status, BULK_FAILED);
    CHECK_STR_EQ(again.failure_code, "S3NoSuchBucket");
    bulk_desc_clear(&again);
    /* No such table. */
    second = request("none", NULL);
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &second, &again, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    CHECK_STR_EQ(err.message, "Requested resource not found: Table: none not found");
    ddb_error_clear(&err);
    bulk_desc_clear(&d);
    db_free(db);
}

static void test_cancel_and_deleted_table(void)
{
    struct db *db = db_new();
    struct bulk_request r = request("t", NULL), r2 = request("u", NULL);
    struct bulk_desc d, d2, now;
    struct ddb_error err = {0};
    struct bulk_put put = {0};
    struct table_desc gone;
    enum bulk_status status;
    int64_t rate;

    create_table(db, "t");
    create_table(db, "u");
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &r, &d, &err), 0);
    CHECK_INT_EQ(db_cancel_bulk(db, &scope, d.arn, &status, &err), 0);
    CHECK_INT_EQ(status, BULK_CANCELLING);
    CHECK_INT_EQ(db_cancel_bulk(db, &scope, d.arn, &status, &err), 0);
    put.item = make_item("pk", "late");
    /* The next batch sees the cancellation and writes nothing. */
    CHECK_INT_EQ(db_bulk_put(db, &scope, d.arn, &put, 1, &rate), 1);
    CHECK(!exists(db, "t", "late"));
    CHECK(db_bulk_progress(db, d.arn, &(struct bulk_progress){0}));
    db_bulk_finish(db, d.arn, NULL, NULL);
    CHECK_INT_EQ(db_describe_bulk(db, &scope, d.arn, &now, &err), 0);
    CHECK_INT_EQ(now.status, BULK_CANCELLED);
    CHECK(now.failure_code == NULL);
    bulk_desc_clear(&now);
    CHECK_INT_EQ(db_cancel_bulk(db, &scope, d.arn, &status, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    ddb_error_clear(&err);

    /* A table deleted under a running operation. */
    CHECK_INT_EQ(db_bulk_begin(db, &scope, &r2, &d2, &err), 0);
    CHECK_INT_EQ(db_delete_table(db, &scope, "u", &gone, &err), 0);
    table_desc_clear(&gone);
    CHECK_INT_EQ(db_bulk_put(db, &scope, d2.arn, &put, 1, &rate), -1);
    db_bulk_finish(db, d2.arn, "ResourceNotFoundException", "gone");

    /* Newest first, paged by position. */
    {
        struct bulk_desc *list;
        size_t count;
        bool more;
        db_list_bulk(db, &scope, 0, 1, &list, &count, &more);
        CHECK_INT_EQ(count, 1);
        CHECK(more);
        CHECK_STR_EQ(list[0].arn, d2.arn);
        bulk_desc_clear(&list[0]);
        free(list);
        db_list_bulk(db, &scope, 1, 1, &list, &count, &more);
        CHECK_INT_EQ(count, 1);
        CHECK(!more);
        CHECK_STR_EQ(list[0].arn, d.arn);
        bulk_desc_clear(&list[0]);
        free(list);
    }
    CHECK_INT_EQ(db_describe_bulk(db, &scope, "arn:nothing", &now, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    ddb_error_clear(&err);
    item_unref(put.item);
    bulk_desc_clear(&d);
    bulk_desc_clear(&d2);
    db_free(db);
}

int main(void)
{
    RUN(test_items_conditions_and_counters);
    RUN(test_client_token_and_quota);
    RUN(test_cancel_and_deleted_table);
    return check_report();
}
