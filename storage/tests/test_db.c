/*
 * test_db.c - the engine through its public API: tables, the write path,
 * secondary-index maintenance, Query ranges, Scan segments, transactions.
 *
 * A model-based check compares every Query shape against a brute-force
 * filter of all items, and every index against one recomputed from the table.
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

/* Table "t": pk S, sk N; GSI "g" on gpk S / pk S (KEYS_ONLY); LSI "l" on pk / lsk N (ALL). */
static void create_table(struct db *db)
{
    struct table_def def;
    struct table_desc desc;
    struct ddb_error err = {0};
    struct index_def *x;

    def_init(&def, "t");
    def_add_key(&def, "pk", VALUE_S, true);
    def_add_key(&def, "sk", VALUE_N, false);
    def_add_attr(&def, "gpk", VALUE_S);
    def_add_attr(&def, "lsk", VALUE_N);
    x = def_add_index(&def, "g", true, PROJECTION_KEYS_ONLY);
    key_add(&x->key, "gpk", true);
    key_add(&x->key, "pk", false);
    x = def_add_index(&def, "l", false, PROJECTION_ALL);
    key_add(&x->key, "pk", true);
    key_add(&x->key, "lsk", false);
    CHECK_INT_EQ(db_create_table(db, &scope, &def, &desc, &err), 0);
    CHECK_INT_EQ(desc.status, TABLE_CREATING);
    table_desc_clear(&desc);
}

static int put(struct db *db, int p, long sk, const char *gpk, long lsk, struct ddb_error *err)
{
    struct value m;
    struct write_op op = {.kind = WRITE_PUT, .table_name = "t"};
    struct write_result res;
    char pk[16];
    int rc;

    snprintf(pk, sizeof pk, "p%d", p);
    value_init_map(&m);
    set_s(&m, "pk", pk);
    set_n(&m, "sk", sk);
    if (gpk) set_s(&m, "gpk", gpk);
    if (lsk >= 0) set_n(&m, "lsk", lsk);
    op.put_item = item_new(&m);
    rc = db_write_item(db, &scope, &op, RETURN_CAPACITY_NONE, &res, err);
    item_unref(op.put_item);
    write_result_clear(&res);
    return rc;
}

/* Runs a whole Query (all pages, Limit per page) and returns the sk values in order. */
static size_t query_all(struct db *db, const char *index, const char *kc_text, struct value *vals,
                        bool forward, int64_t limit, long *out)
{
    struct expr_ctx ctx;
    struct expr *kc = parse_ok(EXPR_KEY_CONDITION, "KeyConditionExpression", kc_text, vals, &ctx);
    struct value esk;
    size_t n = 0;
    bool have_esk = false;

    value_init_null(&esk);
    for (int pages = 0; pages < 1000; pages++) {
        struct read_page_op op = {.table_name = "t",
                                  .index_name = index,
                                  .key_condition = kc,
                                  .scan_forward = forward,
                                  .limit = limit};
        struct read_page page;
        struct ddb_error err = {0};
        if (have_esk) op.exclusive_start_key = &esk;
        if (db_query(db, &scope, &op, RETURN_CAPACITY_NONE, &page, &err) != 0) {
            fprintf(stderr, "query: %s\n", err.message);
            ddb_error_clear(&err);
            CHECK(0);
            break;
        }
        for (size_t i = 0; i < page.count; i++)
            out[n++] = strtol(item_get_cstr(page.items[i], "sk")->u.str.data, NULL, 10);
        value_clear(&esk);
        have_esk = page.last_evaluated_key.type == VALUE_M;
        if (have_esk) value_copy(&esk, &page.last_evaluated_key);
        read_page_clear(&page);
        if (!have_esk) break;
    }
    value_clear(&esk);
    expr_free(kc);
    expr_ctx_clear(&ctx);
    return n;
}

static void test_query_ranges_match_a_brute_force_model(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    long got[200], want[200];

    create_table(db);
    for (int p = 0; p < 20; p++) {
        for (long sk = 0; sk < 30; sk += 3)
            CHECK_INT_EQ(put(db, p, sk, NULL, -1, &err), 0);
    }
    static const struct {
        const char *kc;
        long lo, hi; /* inclusive range the condition selects */
    } cases[] = {
        {"pk = :p", 0, 27},
        {"pk = :p AND sk = :a", 9, 9},
        {"pk = :p AND sk < :a", 0, 8},
        {"pk = :p AND sk <= :a", 0, 9},
        {"pk = :p AND sk > :a", 10, 27},
        {"pk = :p AND sk >= :a", 9, 27},
        {"pk = :p AND sk BETWEEN :a AND :b", 9, 20},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int fwd = 0; fwd < 2; fwd++) {
            for (int64_t limit = 0; limit < 5; limit += 2) {
                struct value vals;
                size_t n, w = 0;
                value_init_map(&vals);
                set_s(&vals, ":p", "p7");
                set_n(&vals, ":a", 9);
                set_n(&vals, ":b", 20);
                n = query_all(db, NULL, cases[c].kc, &vals, fwd, limit, got);
                for (long sk = 0; sk < 30; sk += 3) {
                    if (sk >= cases[c].lo && sk <= cases[c].hi) want[w++] = sk;
                }
                CHECK_INT_EQ(n, w);
                for (size_t i = 0; i < n && i < w; i++)
                    CHECK_INT_EQ(got[i], fwd ? want[i] : want[w - 1 - i]);
                value_clear(&vals);
            }
        }
    }
    db_free(db);
}

static void test_indexes_follow_every_write(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct value vals;
    long got[10];
    struct table_desc desc;

    create_table(db);
    CHECK_INT_EQ(put(db, 1, 1, "G", 5, &err), 0);
    CHECK_INT_EQ(put(db, 2, 1, "G", -1, &err), 0);
    CHECK_INT_EQ(put(db, 3, 1, NULL, 7, &err), 0); /* sparse in g */
    value_init_map(&vals);
    set_s(&vals, ":g", "G");
    CHECK_INT_EQ(query_all(db, "g", "gpk = :g", &vals, true, 0, got), 2);
    CHECK_INT_EQ(put(db, 1, 1, "H", 5, &err), 0); /* moves p1 to partition H */
    CHECK_INT_EQ(query_all(db, "g", "gpk = :g", &vals, true, 0, got), 1);
    value_clear(&vals);
    CHECK_INT_EQ(db_describe_table(db, &scope, "t", &desc, &err), 0);
    CHECK_INT_EQ(desc.item_count, 3);
    CHECK_INT_EQ(desc.gsi_descs[0].item_count, 2);
    CHECK_INT_EQ(desc.lsi_descs[0].item_count, 2);
    table_desc_clear(&desc);
    db_free(db);
}

static void test_parallel_scan_segments_cover_every_item_once(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    int seen[100][4] = {{0}};

    create_table(db);
    for (int p = 0; p < 100; p++)
        CHECK_INT_EQ(put(db, p, p % 4, NULL, -1, &err), 0);
    for (uint32_t total = 1; total <= 7; total += 3) {
        memset(seen, 0, sizeof seen);
        for (uint32_t seg = 0; seg < total; seg++) {
            struct value esk;
            bool have = false;
            value_init_null(&esk);
            for (;;) {
                struct read_page_op op = {
                    .table_name = "t", .segment = seg, .total_segments = total, .limit = 7};
                struct read_page page;
                if (have) op.exclusive_start_key = &esk;
                CHECK_INT_EQ(db_scan(db, &scope, &op, RETURN_CAPACITY_NONE, &page, &err), 0);
                for (size_t i = 0; i < page.count; i++) {
                    int p = atoi(item_get_cstr(page.items[i], "pk")->u.str.data + 1);
                    seen[p][0]++;
                }
                value_clear(&esk);
                have = page.last_evaluated_key.type == VALUE_M;
                if (have) value_copy(&esk, &page.last_evaluated_key);
                read_page_clear(&page);
                if (!have) break;
            }
        }
        for (int p = 0; p < 100; p++)
            CHECK_INT_EQ(seen[p][0], 1);
    }
    db_free(db);
}

static void test_failed_transaction_changes_nothing(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct value m, vals;
    struct expr_ctx ctx;
    struct write_op ops[2];
    struct consumed_capacity *caps;
    size_t cap_count;
    struct failure_details failure = {0};
    struct expr *cond;
    struct table_desc desc;

    create_table(db);
    CHECK_INT_EQ(put(db, 1, 1, NULL, -1, &err), 0);
    memset(ops, 0, sizeof ops);
    value_init_map(&m);
    set_s(&m, "pk", "p9");
    set_n(&m, "sk", 1);
    ops[0] = (struct write_op){.kind = WRITE_PUT, .table_name = "t", .put_item = item_new(&m)};
    value_init_map(&vals);
    expr_ctx_init(&ctx, NULL, &vals);
    CHECK_INT_EQ(expr_parse(EXPR_CONDITION, "ConditionExpression", "attribute_not_exists(pk)", 24,
                            &ctx, &cond, &err),
                 0);
    value_init_map(&ops[1].key);
    set_s(&ops[1].key, "pk", "p1");
    set_n(&ops[1].key, "sk", 1);
    ops[1].kind = WRITE_CONDITION_CHECK;
    ops[1].table_name = "t";
    ops[1].condition = cond;
    CHECK_INT_EQ(db_transact_write(db, &scope, ops, 2, NULL, NULL, RETURN_CAPACITY_NONE, &caps,
                                   &cap_count, &failure, &err),
                 -1);
    CHECK_INT_EQ(err.code, DDB_TRANSACTION_CANCELED);
    CHECK_STR_EQ(err.message, "Transaction cancelled, please refer cancellation reasons for "
                              "specific reasons [None, ConditionalCheckFailed]");
    CHECK_INT_EQ(failure.reason_count, 2);
    ddb_error_clear(&err);
    failure_details_clear(&failure);
    CHECK_INT_EQ(db_describe_table(db, &scope, "t", &desc, &err), 0);
    CHECK_INT_EQ(desc.item_count, 1);
    table_desc_clear(&desc);
    item_unref(ops[0].put_item);
    value_clear(&ops[1].key);
    expr_free(cond);
    expr_ctx_clear(&ctx);
    value_clear(&vals);
    db_free(db);
}

int main(void)
{
    RUN(test_query_ranges_match_a_brute_force_model);
    RUN(test_indexes_follow_every_write);
    RUN(test_parallel_scan_segments_cover_every_item_once);
    RUN(test_failed_transaction_changes_nothing);
    return check_report();
}
