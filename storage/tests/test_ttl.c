/*
 * test_ttl.c - Time to Live through db.h: UpdateTimeToLive's states and
 * AWS's refusals (texts and order), what expires and what never does, GSI
 * maintenance, REMOVE stream records with the service identity, and the
 * bounded sweep. Time is moved with db_clock_set/db_clock_advance.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_streams.h"
#include "storage/engine/db_tables.h"
#include "storage/engine/db_ttl.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};

#define HOUR_MS (60LL * 60 * 1000)
/* A fixed "now" for the expiry cases: 2026-01-01T00:00:00Z. */
#define NOW_S 1767225600LL

/* Table name: pk S; GSI "g" on gpk S (ALL); stream NEW_AND_OLD_IMAGES when asked. */
static void create_table(struct db *db, const char *name, bool stream)
{
    struct table_def def;
    struct index_def *g;

    def_init(&def, name);
    def_add_key(&def, "pk", VALUE_S, true);
    def_add_attr(&def, "gpk", VALUE_S);
    g = def_add_index(&def, "g", true, PROJECTION_ALL);
    key_add(&g->key, "gpk", true);
    def.stream.enabled = stream;
    def.stream.view = STREAM_NEW_AND_OLD_IMAGES;
    create_table_ok(db, &scope, &def);
}

/* Puts {pk, gpk: "g", <ttl attribute>} where ttl_text is a Number text, or a
 * String when prefixed with "S:", or absent when NULL. */
static void put(struct db *db, const char *pk, const char *attr, const char *ttl_text)
{
    struct value m;

    value_init_map(&m);
    set_s(&m, "pk", pk);
    set_s(&m, "gpk", "g");
    if (ttl_text && strncmp(ttl_text, "S:", 2) == 0)
        set_s(&m, attr, ttl_text + 2);
    else if (ttl_text)
        set_n_text(&m, attr, ttl_text);
    put_ok(db, &scope, "t", &m);
}

static bool exists(struct db *db, const char *pk)
{
    struct value key;
    struct item *item;

    value_init_map(&key);
    set_s(&key, "pk", pk);
    item = get_ok(db, &scope, "t", &key);
    item_unref(item);
    return item != NULL;
}

static int64_t gsi_item_count(struct db *db)
{
    struct table_desc desc;
    struct ddb_error err = {0};
    int64_t n;

    CHECK_INT_EQ(db_describe_table(db, &scope, "t", &desc, &err), 0);
    n = desc.gsi_descs[0].item_count;
    table_desc_clear(&desc);
    return n;
}

static int update_ttl(struct db *db, bool enabled, const char *attr, struct ddb_error *err)
{
    return db_update_ttl(db, &scope, "t", enabled, attr, err);
}

static void check_ttl_error(struct db *db, bool enabled, const char *attr, const char *message)
{
    struct ddb_error err = {0};
    CHECK_INT_EQ(update_ttl(db, enabled, attr, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, message);
    ddb_error_clear(&err);
}

static void check_status(struct db *db, enum ttl_status status, const char *attr)
{
    struct ttl_desc d;
    struct ddb_error err = {0};
    CHECK_INT_EQ(db_describe_ttl(db, &scope, "t", &d, &err), 0);
    CHECK_INT_EQ(d.status, status);
    if (attr)
        CHECK_STR_EQ(d.attribute, attr);
    else
        CHECK(d.attribute == NULL);
    ttl_desc_clear(&d);
}

/* ------------------------------------------------------------------------ */

static void test_update_ttl_states_and_refusals(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    struct ttl_desc d;

    create_table(db, "t", false);
    check_status(db, TTL_DISABLED, NULL);
    check_ttl_error(db, false, "ttl", "TimeToLive is already disabled");
    CHECK_INT_EQ(update_ttl(db, true, "ttl", &err), 0);
    check_status(db, TTL_ENABLED, "ttl");
    /* Content checks come before the one-change-per-hour rule. */
    check_ttl_error(db, true, "ttl", "TimeToLive is already enabled");
    check_ttl_error(db, true, "other",
                    "TimeToLive is active on a different AttributeName: current AttributeName "
                    "is ttl");
    check_ttl_error(db, false, "other",
                    "TimeToLive is active on a different AttributeName: current AttributeName "
                    "is ttl");
    check_ttl_error(db, false, "ttl",
                    "Time to live has been modified multiple times within a fixed interval");
    db_clock_advance(db, HOUR_MS - 60 * 1000);
    check_ttl_error(db, false, "ttl",
                    "Time to live has been modified multiple times within a fixed interval");
    db_clock_advance(db, 2 * 60 * 1000);
    CHECK_INT_EQ(update_ttl(db, false, "ttl", &err), 0);
    check_status(db, TTL_DISABLED, NULL);
    check_ttl_error(db, true, "other",
                    "Time to live has been modified multiple times within a fixed interval");
    db_clock_advance(db, HOUR_MS + 1000);
    CHECK_INT_EQ(update_ttl(db, true, "other", &err), 0);
    check_status(db, TTL_ENABLED, "other");

    CHECK_INT_EQ(db_update_ttl(db, &scope, "missing", true, "ttl", &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    ddb_error_clear(&err);
    CHECK_INT_EQ(db_describe_ttl(db, &scope, "missing", &d, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    ddb_error_clear(&err);
    db_free(db);
}

/* What expires: a Number of epoch seconds in the past, within five years. */
static void test_only_numbers_of_past_seconds_within_five_years_expire(void)
{
    static const struct {
        const char *pk;
        const char *ttl; /* NULL: absent; "S:...": a String */
        bool expires;
    } cases[] = {
        {"past", "1767225540", true},            /* a minute ago */
        {"past_fraction", "1767225599.5", true}, /* half a second ago */
        {"in_a_second", "1767225601", false},
        {"future", "1767225660", false},
        {"milliseconds", "1767225540000", false}, /* ms by mistake: year 57970 */
        {"absent", NULL, false},
        {"string", "S:1767225540", false},
        {"six_years_ago", "1578009600", false}, /* more than five years in the past */
        {"four_years_ago", "1640995200", true},
        {"zero", "0", false},
        {"negative", "-5", false},
    };
    struct db *db = db_new();
    struct ddb_error err = {0};
    size_t expected = 0;

    create_table(db, "t", false);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        put(db, cases[i].pk, "expiresAt", cases[i].ttl);
        expected += cases[i].expires;
    }
    db_clock_set(db, NOW_S * 1000);
    /* Nothing expires while TTL is off. */
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 0);
    CHECK_INT_EQ(update_ttl(db, true, "expiresAt", &err), 0);
    db_clock_set(db, NOW_S * 1000);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), expected);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (exists(db, cases[i].pk) == cases[i].expires)
            fprintf(stderr, "case %s: expires should be %d\n", cases[i].pk, cases[i].expires);
        CHECK_INT_EQ(exists(db, cases[i].pk), !cases[i].expires);
    }
    CHECK_INT_EQ(gsi_item_count(db), (int64_t) (sizeof cases / sizeof *cases - expected));
    /* A day later the "future" item has expired too, and the ms one still not. */
    db_clock_set(db, (NOW_S + 24 * 60 * 60) * 1000);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 2); /* future and in_a_second */
    CHECK(exists(db, "milliseconds"));
    db_free(db);
}

/* TTL deletions reach the stream as REMOVE records with the service identity. */
static void test_ttl_deletions_are_remove_records_by_the_service(void)
{
    struct db *db = db_new();
    struct table_desc desc;
    struct stream_desc sd;
    struct stream_records r;
    struct ddb_error err = {0};
    char *it = NULL, *arn;

    create_table(db, "t", true);
    CHECK_INT_EQ(update_ttl(db, true, "ttl", &err), 0);
    db_clock_set(db, NOW_S * 1000);
    put(db, "gone", "ttl", "1767225540");
    put(db, "kept", "ttl", "1767225660");
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 1);
    CHECK_INT_EQ(db_describe_table(db, &scope, "t", &desc, &err), 0);
    arn = xstrdup(desc.latest_stream_arn);
    table_desc_clear(&desc);
    CHECK_INT_EQ(db_describe_stream(db, &scope, arn, 100, NULL, NULL, &sd, &err), 0);
    CHECK_INT_EQ(db_get_shard_iterator(db, &scope, arn, sd.shards[sd.shard_count - 1].shard_id,
                                       SHARD_ITERATOR_TRIM_HORIZON, NULL, &it, &err),
                 0);
    CHECK_INT_EQ(db_get_records(db, &scope, it, 100, &r, &err), 0);
    CHECK_INT_EQ(r.count, 3);
    if (r.count == 3) {
        CHECK_INT_EQ(r.records[2].event, STREAM_EVENT_REMOVE);
        CHECK(r.records[2].by_ttl);
        CHECK(!r.records[0].by_ttl);
        CHECK(r.records[2].old_image != NULL);
        CHECK(r.records[2].new_image == NULL);
    }
    stream_records_clear(&r);
    stream_desc_clear(&sd);
    free(it);
    free(arn);
    db_free(db);
}

/* A large table is swept in bounded batches; max_items caps one call. */
static void test_sweep_is_bounded_and_resumes(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};
    char pk[32];

    create_table(db, "t", false);
    CHECK_INT_EQ(update_ttl(db, true, "ttl", &err), 0);
    db_clock_set(db, NOW_S * 1000);
    for (int i = 0; i < 3000; i++) {
        snprintf(pk, sizeof pk, "k%d", i);
        put(db, pk, "ttl", i % 3 == 0 ? "1767225540" : "1767229200");
    }
    CHECK_INT_EQ(db_expire_items(db, 100), 100);
    CHECK_INT_EQ(db_expire_items(db, 150), 150);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 750);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 0);
    CHECK_INT_EQ(gsi_item_count(db), 2000);
    db_free(db);
}

/* ---- the expiry index (table/ttl_index.h) ---- */

/* Rows of the table's expiry index, and whether they come in expiry order. */
static size_t index_rows(struct db *db, bool *ordered)
{
    struct table *t;
    size_t n = 0;

    *ordered = true;
    db_read_lock(db);
    t = db_find_table(db, &scope, "t");
    if (t) {
        int64_t last = INT64_MIN;
        for (struct skiplist_node *r = ttl_index_seek(&t->ttl_index, INT64_MIN); r;
             r = skiplist_next(r), n++) {
            if (ttl_index_row_expiry_ms(r) < last) *ordered = false;
            last = ttl_index_row_expiry_ms(r);
        }
        CHECK_INT_EQ(n, t->ttl_index.rows.count);
    }
    db_unlock(db);
    return n;
}

static void check_index_rows(struct db *db, size_t expected)
{
    bool ordered;
    CHECK_INT_EQ(index_rows(db, &ordered), expected);
    CHECK(ordered);
}

static void delete_item(struct db *db, const char *pk)
{
    struct value key;

    value_init_map(&key);
    set_s(&key, "pk", pk);
    delete_ok(db, &scope, "t", &key);
}

/* Only items with a Number in the TTL attribute have a row, and every write
 * moves, adds or drops it: changing the value, making it a String, removing
 * the attribute, deleting the item. */
static void test_index_follows_every_write(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};

    create_table(db, "t", false);
    CHECK_INT_EQ(update_ttl(db, true, "ttl", &err), 0);
    db_clock_set(db, NOW_S * 1000);
    put(db, "later", "ttl", "1767229200");
    put(db, "string", "ttl", "S:1767225540");
    put(db, "absent", "ttl", NULL);
    put(db, "too_old", "ttl", "1000");
    put(db, "other_attr", "other", "1767225540");
    check_index_rows(db, 2);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 0);

    put(db, "later", "ttl", "1767225540");  /* moved into the past */
    put(db, "string", "ttl", "1767225541"); /* S -> N: gains a row */
    put(db, "absent", "ttl", "1767229200"); /* gains a row in the future */
    check_index_rows(db, 4);
    put(db, "absent", "ttl", "S:1767225540"); /* N -> S: loses it */
    put(db, "too_old", "ttl", NULL);          /* attribute removed */
    check_index_rows(db, 2);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 2);
    CHECK(!exists(db, "later"));
    CHECK(!exists(db, "string"));
    CHECK(exists(db, "absent"));
    CHECK(exists(db, "too_old"));
    CHECK(exists(db, "other_attr"));
    check_index_rows(db, 0);

    put(db, "gone", "ttl", "1767225540");
    check_index_rows(db, 1);
    delete_item(db, "gone");
    check_index_rows(db, 0);
    CHECK_INT_EQ(gsi_item_count(db), 3);
    db_free(db);
}

/* Disabling TTL empties the index; enabling it again (an hour later, as AWS
 * allows) reads the table once, on the new attribute. */
static void test_index_is_rebuilt_when_ttl_is_enabled(void)
{
    struct db *db = db_new();
    struct ddb_error err = {0};

    create_table(db, "t", false);
    db_clock_set(db, NOW_S * 1000);
    put(db, "a", "ttl", "1767225540");
    put(db, "b", "exp", "1767225540");
    check_index_rows(db, 0);
    CHECK_INT_EQ(update_ttl(db, true, "ttl", &err), 0);
    check_index_rows(db, 1);
    db_clock_advance(db, HOUR_MS);
    CHECK_INT_EQ(update_ttl(db, false, "ttl", &err), 0);
    check_index_rows(db, 0);
    put(db, "c", "ttl", "1767225540"); /* written while TTL is off */
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 0);
    db_clock_advance(db, HOUR_MS);
    CHECK_INT_EQ(update_ttl(db, true, "exp", &err), 0);
    check_index_rows(db, 1);
    CHECK_INT_EQ(db_expire_items(db, SIZE_MAX), 1);
    CHECK(exists(db, "a"));
    CHECK(!exists(db, "b"));
    CHECK(exists(db, "c"));
    db_free(db);
}

/* The window's edges in fractions of a millisecond: whole milliseconds
 * rounded down decide exactly as the exact decimal would. */
/* One try of the edge cases on a fresh table: false when the clock moved to
 * the next millisecond while the sweep ran, so the sweep's "now" is not known
 * exactly (the engine clock keeps running after db_clock_set; under
 * ThreadSanitizer or a loaded machine a sweep can cross a millisecond). */
static bool index_window_edges_once(void)
{
    static const struct {
        const char *pk, *ttl;
        bool expires;
    } cases[] = {
        {"just_before", "1767225599.9999", true},
        {"at_now", "1767225600", false},
        {"just_after", "1767225600.0001", false},
        {"oldest", "1609545600", true}, /* now - 5 * 365 days exactly */
        {"before_oldest", "1609545599.9999", false},
        {"negative_fraction", "-0.5", false},
        {"huge", "99999999999999999999999999999999999999", false},
        {"tiny", "-99999999999999999999999999999999999999", false},
    };
    struct db *db = db_new();
    struct ddb_error err = {0};
    size_t expected = 0, expired;
    bool judged;

    create_table(db, "t", false);
    CHECK_INT_EQ(update_ttl(db, true, "ttl", &err), 0);
    db_clock_set(db, NOW_S * 1000);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        put(db, cases[i].pk, "ttl", cases[i].ttl);
        expected += cases[i].expires;
    }
    check_index_rows(db, sizeof cases / sizeof *cases);
    db_clock_set(db, NOW_S * 1000);
    expired = db_expire_items(db, SIZE_MAX);
    judged = db_now_ms(db) == NOW_S * 1000;
    if (judged) {
        CHECK_INT_EQ(expired, expected);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            if (exists(db, cases[i].pk) == cases[i].expires)
                fprintf(stderr, "case %s: expires should be %d\n", cases[i].pk, cases[i].expires);
            CHECK_INT_EQ(exists(db, cases[i].pk), !cases[i].expires);
        }
    }
    db_free(db);
    return judged;
}

static void test_index_window_edges_are_exact(void)
{
    int tries = 0;

    while (tries < 500 && !index_window_edges_once())
        tries++;
    /* Judged at least once: a sweep of eight items fits in a millisecond. */
    CHECK(tries < 500);
}

int main(void)
{
    RUN(test_update_ttl_states_and_refusals);
    RUN(test_only_numbers_of_past_seconds_within_five_years_expire);
    RUN(test_ttl_deletions_are_remove_records_by_the_service);
    RUN(test_sweep_is_bounded_and_resumes);
    RUN(test_index_follows_every_write);
    RUN(test_index_is_rebuilt_when_ttl_is_enabled);
    RUN(test_index_window_edges_are_exact);
    return check_report();
}
