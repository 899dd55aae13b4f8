/*
 * test_changes.c - the net changes of an incremental export's span
 * (table/changes.c), through db_export_begin: one change per item touched in
 * [from, to), from its state before the span to its state at the end, with
 * the time of its last change; items whose two states are equal left out.
 */
#include "storage/control/jobs.h"
#include "storage/control/settings.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/jobs/transfer_record.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};
static const int64_t T0 = 1700000000000; /* the engine's clock at the start */
#define MINUTE (60 * 1000LL)

static void key_of(struct value *m, const char *pk)
{
    value_init_map(m);
    set_s(m, "pk", pk);
}

/* Puts {pk, v} (v < 0: deletes pk) at the engine's current time. */
static void write(struct db *db, const char *pk, long v)
{
    struct value m;

    key_of(&m, pk);
    if (v < 0) {
        delete_ok(db, &scope, "t", &m);
        return;
    }
    set_n(&m, "v", v);
    put_ok(db, &scope, "t", &m);
}

/* A db with table "t" (pk S), PITR on from just before T0 (so that a span
 * from T0 is inside the window), the clock at T0, and the table's ARN in
 * *arn (owned). The engine's clock keeps running: turned on at T0 itself,
 * PITR would start a few milliseconds after it on a loaded machine, and a
 * span from T0 would begin before the window. */
static struct db *setup(char **arn)
{
    struct db *db = db_new();
    struct table_def def;
    struct table_desc desc;
    struct pitr_desc pitr;
    struct ddb_error err = {0};

    db_clock_set(db, T0 - 500);
    def_init(&def, "t");
    def_add_key(&def, "pk", VALUE_S, true);
    CHECK_INT_EQ(db_create_table(db, &scope, &def, &desc, &err), 0);
    *arn = xstrdup(desc.arn);
    table_desc_clear(&desc);
    CHECK_INT_EQ(db_update_continuous_backups(db, &scope, "t", true, 0, &pitr, &err), 0);
    db_clock_set(db, T0);
    return db;
}

/* Runs an incremental export of [from, to) into *data; returns its rc. */
static int changes(struct db *db, const char *arn, int64_t from, int64_t to,
                   struct export_data *data, struct ddb_error *err)
{
    struct export_request r = {
        .table_arn = arn,
        .s3_bucket = "b",
        .format = "DYNAMODB_JSON",
        .export_type = "INCREMENTAL_EXPORT",
        .from_ms = from,
        .has_to_time = true,
        .to_ms = to,
        .view_type = "NEW_AND_OLD_IMAGES",
    };
    struct export_desc d;
    int rc = db_export_begin(db, &scope, &r, &d, data, err);
    export_desc_clear(&d);
    return rc;
}

static const struct item_change *find(const struct export_data *data, const char *pk)
{
    for (size_t i = 0; i < data->change_count; i++) {
        const struct value *v = value_map_get(&data->changes[i].keys, "pk", 2);
        if (v && v->u.str.len == strlen(pk) && memcmp(v->u.str.data, pk, v->u.str.len) == 0)
            return &data->changes[i];
    }
    return NULL;
}

static long v_of(const struct item *item)
{
    const struct value *v = value_map_get(item_attrs(item), "v", 1);
    return v ? atol(v->u.str.data) : -1;
}

static void test_net_change_of_each_item(void)
{
    char *arn;
    struct db *db = setup(&arn);
    struct export_data data;
    struct ddb_error err = {0};
    const struct item_change *c;
    int64_t from, to;

    write(db, "upd", 1);
    write(db, "gone", 1);
    write(db, "twice", 1);
    write(db, "same", 1);
    write(db, "later", 1);
    db_clock_set(db, T0 + MINUTE);
    from = db_now_ms(db);
    db_clock_set(db, T0 + 2 * MINUTE);
    write(db, "new", 1);
    write(db, "upd", 2);
    write(db, "gone", -1);
    write(db, "twice", 2);
    write(db, "twice", 3);
    write(db, "temp", 1);
    write(db, "temp", -1);
    write(db, "same", 5);
    write(db, "same", 1);
    db_clock_set(db, T0 + 20 * MINUTE);
    to = db_now_ms(db);
    write(db, "later", 2);
    write(db, "upd", 9);

    CHECK_INT_EQ(changes(db, arn, from, to, &data, &err), 0);
    CHECK_INT_EQ(data.change_count, 4);
    CHECK_INT_EQ(data.item_count, 0);
    c = find(&data, "new");
    CHECK(c && !c->old_item && c->new_item && v_of(c->new_item) == 1);
    c = find(&data, "upd");
    CHECK(c && v_of(c->old_item) == 1 && v_of(c->new_item) == 2);
    c = find(&data, "gone");
    CHECK(c && v_of(c->old_item) == 1 && !c->new_item);
    c = find(&data, "twice");
    CHECK(c && v_of(c->old_item) == 1 && v_of(c->new_item) == 3);
    CHECK(c && c->ms >= T0 + 2 * MINUTE && c->ms < T0 + 20 * MINUTE);
    /* Keys hold the key attributes only. */
    CHECK(c && c->keys.u.map.count == 1);
    CHECK(!find(&data, "temp") && !find(&data, "same") && !find(&data, "later"));
    export_data_clear(&data);
    free(arn);
    db_free(db);
}

static void test_from_is_inclusive_and_to_exclusive(void)
{
    char *arn;
    struct db *db = setup(&arn);
    struct export_data data;
    struct ddb_error err = {0};
    int64_t at;

    db_clock_set(db, T0 + 30 * MINUTE);
    write(db, "a", 1);
    db_clock_set(db, T0 + 60 * MINUTE);
    CHECK_INT_EQ(changes(db, arn, T0, T0 + 60 * MINUTE, &data, &err), 0);
    CHECK_INT_EQ(data.change_count, 1);
    at = data.changes[0].ms;
    export_data_clear(&data);
    CHECK_INT_EQ(changes(db, arn, at, at + 16 * MINUTE, &data, &err), 0);
    CHECK_INT_EQ(data.change_count, 1);
    export_data_clear(&data);
    CHECK_INT_EQ(changes(db, arn, at + 1, at + 16 * MINUTE, &data, &err), 0);
    CHECK_INT_EQ(data.change_count, 0);
    export_data_clear(&data);
    CHECK_INT_EQ(changes(db, arn, at - 16 * MINUTE, at, &data, &err), 0);
    CHECK_INT_EQ(data.change_count, 0);
    export_data_clear(&data);
    free(arn);
    db_free(db);
}

static void test_span_errors(void)
{
    char *arn;
    struct db *db = setup(&arn);
    struct export_data data;
    struct ddb_error err = {0};

    db_clock_set(db, T0 + 30 * 60 * MINUTE);
    /* Before the window; the message quotes the from time to the second. */
    CHECK_INT_EQ(changes(db, arn, T0 - 1000, T0 + MINUTE * 20, &data, &err), -1);
    CHECK_INT_EQ(err.code, DDB_INVALID_EXPORT_TIME);
    CHECK_STR_EQ(err.message, "Incremental export period from time cannot be less than the "
                              "table creation time : 2023-11-14T22:13:19Z");
    ddb_error_clear(&err);
    CHECK_INT_EQ(changes(db, arn, T0, T0 + 15 * MINUTE - 1, &data, &err), -1);
    CHECK_STR_EQ(err.message, "Difference between export period from time and export period to "
                              "time is less than 15 minutes");
    ddb_error_clear(&err);
    CHECK_INT_EQ(changes(db, arn, T0, T0 + 24 * 60 * MINUTE + 1, &data, &err), -1);
    CHECK_INT_EQ(err.code, DDB_INVALID_EXPORT_TIME);
    ddb_error_clear(&err);
    CHECK_INT_EQ(changes(db, arn, T0, T0 + 24 * 60 * MINUTE, &data, &err), 0);
    export_data_clear(&data);
    free(arn);
    db_free(db);
}

int main(void)
{
    RUN(test_net_change_of_each_item);
    RUN(test_from_is_inclusive_and_to_exclusive);
    RUN(test_span_errors);
    return check_report();
}
