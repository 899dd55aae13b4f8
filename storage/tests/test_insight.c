/*
 * test_insight.c - the access-pattern counters: sliding windows, the bounded
 * heat map, and what the db_* entry points record, through the public API.
 *
 * conformance/test_emulator_insight.py checks the same report over the wire
 * with workloads; here the engine clock is set exactly, so the window
 * arithmetic is checked to the millisecond.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_report.h"
#include "storage/engine/db_tables.h"
#include "storage/expr/expr.h"
#include "storage/insight/heat.h"
#include "storage/insight/prices.h"
#include "storage/model/key.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

/* ---- windows ---- */

static void test_window_peak_is_the_busiest_sliding_second(void)
{
    struct heat_window w;
    memset(&w, 0, sizeof w);
    heat_window_record(&w, 10000, 0, 10); /* slot of 10.0 s */
    heat_window_record(&w, 10500, 0, 10); /* same second: 20 */
    CHECK(near(w.peak_wcu, 20));
    CHECK_INT_EQ(w.peak_wcu_ms, 10500);
    /* At 11.05 s the window is (10.05, 11.05]: the 10.0 s units left it. */
    heat_window_record(&w, 11050, 0, 5);
    CHECK(near(w.peak_wcu, 20));
    heat_window_record(&w, 11400, 0, 6); /* 10 + 5 + 6 = 21 in (10.4, 11.4] */
    CHECK(near(w.peak_wcu, 21));
    CHECK(near(w.total_wcu, 31));
    CHECK(near(w.peak_rcu, 0));
}

static void test_window_ignores_units_from_a_later_clock(void)
{
    struct heat_window w;
    memset(&w, 0, sizeof w);
    heat_window_record(&w, 50000, 3, 0);
    heat_window_record(&w, 20000, 2, 0); /* the clock was set back: a new window */
    CHECK(near(w.peak_rcu, 3));
    heat_window_record(&w, 20100, 2, 0);
    CHECK(near(w.peak_rcu, 4));
}

static struct value str(const char *s)
{
    struct value v;
    value_init_string(&v, s, strlen(s));
    return v;
}

static void record_key(struct heat_map *m, const char *name, int64_t now_ms, double wcu)
{
    struct value v = str(name);
    struct key_part part;
    key_part_of(&v, NULL, &part); /* an S part: no number room needed */
    heat_map_record(m, key_hash(&part, 1), &part, 1, now_ms, 0, wcu);
    value_clear(&v);
}

/* The key a heat map kept is the one recorded (heat_key_value). */
static void check_key(const struct heat_key *k, const char *want)
{
    struct value v, w = str(want);
    heat_key_value(k, &v);
    CHECK(value_equal(&v, &w));
    value_clear(&v);
    value_clear(&w);
}

/* Keys are kept packed, inline up to HEAT_KEY_INLINE bytes and allocated
 * past it, with one part or several, strings and numbers: each is found
 * again, told apart from its neighbours, and given back as its value. */
static void test_heat_map_keeps_keys_of_every_shape(void)
{
    struct heat_map m;
    const struct heat_key *top[4];
    char long_name[HEAT_KEY_INLINE * 2 + 1];
    struct value s, n, n2, want, got;
    struct key_part one[1], two[2], other[2];
    uint8_t nb[3][NUMBER_COMPARABLE_MAX];

    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    heat_map_init(&m);
    record_key(&m, long_name, 1000, 7);
    record_key(&m, long_name, 1000, 1); /* the same (allocated) key again */
    s = str("room");
    value_init_number_text(&n, "12.5", 4);
    value_init_number_text(&n2, "13", 2);
    key_part_of(&s, NULL, &two[0]);
    key_part_of(&n, nb[0], &two[1]);
    heat_map_record(&m, key_hash(two, 2), two, 2, 1000, 0, 3);
    other[0] = two[0];
    key_part_of(&n2, nb[1], &other[1]);
    heat_map_record(&m, key_hash(other, 2), other, 2, 1000, 0, 2);
    key_part_of(&n, nb[2], &one[0]);
    heat_map_record(&m, key_hash(one, 1), one, 1, 1000, 0, 1);
    CHECK_INT_EQ(m.count, 4);
    CHECK_INT_EQ(heat_map_top(&m, true, top, 4), 4);
    check_key(top[0], long_name);
    CHECK(near(top[0]->w.total_wcu, 8));
    value_init_list(&want, VALUE_L);
    value_copy(&got, &s);
    value_list_append(&want, &got);
    value_init_number_text(&got, "12.5", 4);
    value_list_append(&want, &got);
    heat_key_value(top[1], &got);
    CHECK(value_equal(&got, &want));
    value_clear(&got);
    value_clear(&want);
    heat_key_value(top[3], &got);
    value_init_number_text(&want, "12.5", 4);
    CHECK(value_equal(&got, &want));
    value_clear(&got);
    value_clear(&want);
    heat_map_clear(&m);
    value_clear(&s);
    value_clear(&n);
    value_clear(&n2);
}

static void test_heat_map_ranks_keys_by_peak(void)
{
    struct heat_map m;
    const struct heat_key *top[3];
    heat_map_init(&m);
    record_key(&m, "a", 1000, 1);
    record_key(&m, "b", 1000, 5);
    record_key(&m, "c", 1000, 2);
    record_key(&m, "a", 5000, 1); /* a: total 2, peak 1 */
    CHECK_INT_EQ(heat_map_top(&m, true, top, 3), 3);
    check_key(top[0], "b");
    check_key(top[1], "c");
    check_key(top[2], "a");
    CHECK(near(top[2]->w.total_wcu, 2));
    CHECK_INT_EQ(heat_map_top(&m, false, top, 3), 0); /* no reads */
    heat_map_clear(&m);
}

static const struct heat_window *find_key(const struct heat_map *m, const char *name)
{
    struct value v = str(name);
    struct key_part part;
    const struct heat_window *w;
    key_part_of(&v, NULL, &part);
    w = heat_map_find(m, key_hash(&part, 1), &part, 1);
    value_clear(&v);
    return w;
}

/* Many evictions: every key the map holds is found, with its own window;
 * the hottest keys stay, and among equally hot keys the older ones. */
static void test_heat_map_evictions_keep_the_index_whole(void)
{
    struct heat_map m;
    char name[32];
    size_t found = 0;
    heat_map_init(&m);
    for (int i = 0; i < 5 * HEAT_MAX_KEYS; i++) {
        snprintf(name, sizeof name, "k-%d", i);
        /* every 100th key is hot (wcu 50); the rest tie at 1 */
        record_key(&m, name, 1000, i % 100 == 0 ? 50 : 1);
    }
    CHECK(m.count <= HEAT_MAX_KEYS);
    CHECK_INT_EQ(m.evicted + m.count, 5 * HEAT_MAX_KEYS);
    for (int i = 0; i < 5 * HEAT_MAX_KEYS; i++) {
        const struct heat_window *w;
        snprintf(name, sizeof name, "k-%d", i);
        w = find_key(&m, name);
        if (i % 100 == 0) {
            CHECK(w != NULL); /* all 52 hot keys stay */
            if (w) CHECK(near(w->peak_wcu, 50));
        }
        if (w) {
            found++;
            if (i % 100 != 0) CHECK(near(w->peak_wcu, 1));
        }
    }
    CHECK_INT_EQ(found, m.count);
    /* The newest key always stays (it came after the last eviction). */
    snprintf(name, sizeof name, "k-%d", 5 * HEAT_MAX_KEYS - 1);
    CHECK(find_key(&m, name) != NULL);
    heat_map_clear(&m);
}

static void test_heat_map_keeps_hot_keys_when_full(void)
{
    struct heat_map m;
    const struct heat_key *top[1];
    char name[32];
    heat_map_init(&m);
    record_key(&m, "hot", 1000, 900);
    for (int i = 0; i < HEAT_MAX_KEYS + 10; i++) {
        snprintf(name, sizeof name, "cold-%d", i);
        record_key(&m, name, 1000, 1);
    }
    CHECK(m.count <= HEAT_MAX_KEYS);
    CHECK_INT_EQ(m.evicted, HEAT_MAX_KEYS / 2);
    CHECK_INT_EQ(heat_map_top(&m, true, top, 1), 1);
    check_key(top[0], "hot");
    record_key(&m, "hot", 1100, 200); /* still the same entry */
    CHECK(near(top[0]->w.peak_wcu, 1100));
    heat_map_clear(&m);
}

/* ---- through the entry points ---- */

/* Table "t": p (S) hash, s (S) range, on demand. */
static void create_table(struct db *db)
{
    struct table_def def;

    def_init(&def, "t");
    def_add_key(&def, "p", VALUE_S, true);
    def_add_key(&def, "s", VALUE_S, false);
    create_table_ok(db, &scope, &def);
}

/* Puts {p, s, pad: pad_len bytes}; returns its size by AWS's rules. */
static size_t put(struct db *db, const char *p, const char *s, size_t pad_len,
                  const struct expr *condition, int want_rc)
{
    struct value m, v;
    char *pad = calloc(1, pad_len + 1);
    struct write_result res;
    struct ddb_error err = {0};
    struct write_op op = {.kind = WRITE_PUT, .table_name = "t", .condition = condition};
    size_t size;

    memset(pad, 'x', pad_len);
    value_init_map(&m);
    v = str(p);
    value_map_set(&m, "p", 1, &v);
    v = str(s);
    value_map_set(&m, "s", 1, &v);
    v = str(pad);
    value_map_set(&m, "pad", 3, &v);
    op.put_item = item_new(&m);
    size = op.put_item->size_bytes;
    CHECK_INT_EQ(db_write_item(db, &scope, &op, RETURN_CAPACITY_NONE, &res, &err), want_rc);
    write_result_clear(&res);
    ddb_error_clear(&err);
    item_unref(op.put_item);
    free(pad);
    return size;
}

static struct insight_report_table *report(struct db *db, size_t *n)
{
    struct insight_report_table *r;
    struct ddb_error err = {0};
    CHECK_INT_EQ(db_insight_report(db, "test", "t", &r, n, &err), 0);
    CHECK_INT_EQ(*n, 1);
    return r;
}

static void test_writes_count_units_heat_and_sizes(void)
{
    struct db *db = db_new();
    struct insight_report_table *r;
    struct ddb_error err = {0};
    struct expr_ctx ctx;
    struct expr *absent;
    size_t n, big;

    db_clock_set(db, 1767225600000LL);
    create_table(db);
    put(db, "room", "1", 10, NULL, 0);          /* 1 WCU */
    put(db, "room", "2", 1500, NULL, 0);        /* 2 WCU */
    big = put(db, "other", "1", 5000, NULL, 0); /* 5 WCU */
    expr_ctx_init(&ctx, NULL, NULL);
    CHECK_INT_EQ(expr_parse(EXPR_CONDITION, "ConditionExpression", "attribute_not_exists(p)", 23,
                            &ctx, &absent, &err),
                 0);
    put(db, "room", "1", 10, absent, -1); /* ConditionalCheckFailed: nothing charged */
    db_clock_advance(db, 3600 * 1000);

    r = report(db, &n);
    CHECK_INT_EQ(r->requests[INSIGHT_PUT_ITEM], 4);
    CHECK_INT_EQ(r->items_written, 3);
    CHECK_INT_EQ(r->conditional_check_failed, 1);
    CHECK(near(r->sources[0].wcu, 8));
    CHECK_INT_EQ(r->sources[0].top_write_count, 2);
    CHECK_STR_EQ(r->sources[0].top_write[0].key.u.str.data, "other");
    CHECK(near(r->sources[0].top_write[0].peak_per_s, 5));
    CHECK_STR_EQ(r->sources[0].top_write[1].key.u.str.data, "room");
    CHECK(near(r->sources[0].top_write[1].peak_per_s, 3));
    CHECK_INT_EQ(r->largest_count, 3);
    CHECK_INT_EQ(r->largest[0].bytes, big);
    /* One hour observed (the clock moved while no time passed in between, as
     * far as milliseconds go, or a little more). */
    CHECK(r->cost.observed_seconds >= 3600 && r->cost.observed_seconds < 3700);
    CHECK(near(r->cost.on_demand_monthly, 8.0 / r->cost.observed_seconds * 730 * 3600 / 1e6 *
                                              PRICES_ON_DEMAND_PER_MILLION_WRU));
    CHECK_INT_EQ(r->cost.provisioned_peak_wcu, 8); /* all in one second */
    CHECK_INT_EQ(r->cost.provisioned_avg_wcu, 1);
    db_insight_report_free(r, n);

    CHECK_INT_EQ(db_insight_reset(db, "test", NULL), 1);
    r = report(db, &n);
    CHECK_INT_EQ(r->requests[INSIGHT_PUT_ITEM], 0);
    CHECK(near(r->sources[0].wcu, 0));
    CHECK_INT_EQ(r->sources[0].top_write_count, 0);
    CHECK_INT_EQ(r->largest_count, 0);
    db_insight_report_free(r, n);

    expr_free(absent);
    expr_ctx_clear(&ctx);
    db_free(db);
}

static void test_gets_count_reads_and_missing_items(void)
{
    struct db *db = db_new();
    struct insight_report_table *r;
    size_t n;

    create_table(db);
    put(db, "a", "1", 5000, NULL, 0);
    for (int i = 0; i < 2; i++) {
        struct value key, v;
        struct get_op op = {.table_name = "t", .consistent_read = i == 0};
        struct item *item;
        struct consumed_capacity cap;
        struct ddb_error err = {0};
        value_init_map(&key);
        v = str("a");
        value_map_set(&key, "p", 1, &v);
        v = str(i == 0 ? "1" : "missing");
        value_map_set(&key, "s", 1, &v);
        op.key = key;
        CHECK_INT_EQ(db_get_item(db, &scope, &op, RETURN_CAPACITY_NONE, &item, &cap, &err), 0);
        item_unref(item);
        consumed_capacity_clear(&cap);
        value_clear(&key);
    }
    r = report(db, &n);
    CHECK_INT_EQ(r->requests[INSIGHT_GET_ITEM], 2);
    CHECK_INT_EQ(r->items_read, 1);
    CHECK_INT_EQ(r->items_returned, 1);
    /* 5 KB strongly consistent: 2 RCU; a missing item eventually consistent: 0.5 */
    CHECK(near(r->sources[0].rcu, 2.5));
    CHECK(near(r->sources[0].top_read[0].peak_per_s, 2.5));
    db_insight_report_free(r, n);
    db_free(db);
}

static void test_unknown_table_is_not_found(void)
{
    struct db *db = db_new();
    struct insight_report_table *r;
    struct ddb_error err = {0};
    size_t n;
    CHECK_INT_EQ(db_insight_report(db, "test", "nope", &r, &n, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    CHECK_INT_EQ(n, 0);
    ddb_error_clear(&err);
    db_insight_report_free(r, n);
    db_free(db);
}

/* ---- judging a snapshot ---- */

static bool has_finding(const struct insight_report_table *r, const char *kind, const char *text)
{
    for (size_t i = 0; i < r->finding_count; i++) {
        if (strcmp(r->findings[i].kind, kind) == 0 && strstr(r->findings[i].message, text))
            return true;
    }
    return false;
}

static void test_judge_finds_index_amplification_collections_and_failed_conditions(void)
{
    struct insight_report_table r;
    memset(&r, 0, sizeof r);
    r.name = xstrdup("Orders");
    r.namespace_id = xstrdup("ns");
    r.since_ms = 0;
    r.now_ms = 7200 * 1000; /* two hours */
    r.item_limit_bytes = 400 * 1024;
    r.collection_limit_bytes = 1000;
    r.has_lsi = true;
    r.requests[INSIGHT_PUT_ITEM] = 10;
    r.conditional_check_failed = 1; /* one in ten: worth a notice */
    r.collection_count = 1;
    r.collections[0].key = str("CUST#1");
    r.collections[0].bytes = 800; /* 80% of the (lowered) limit: a warning */
    r.source_count = 3;
    r.sources = calloc(3, sizeof *r.sources);
    r.sources[0].wcu = 100;
    r.sources[0].rcu = 50;
    r.sources[0].peak_wcu_per_s = 10.5;
    r.sources[0].provisioned = true;
    r.sources[0].provisioned_rcu = 5;
    r.sources[0].provisioned_wcu = 10;
    r.sources[1].name = xstrdup("GSI1");
    r.sources[1].is_global = true;
    r.sources[1].wcu = 150;
    r.sources[1].peak_wcu_per_s = 2;
    r.sources[1].provisioned = true;
    r.sources[1].provisioned_rcu = 1;
    r.sources[1].provisioned_wcu = 1;
    r.sources[2].name = xstrdup("ByDate"); /* an LSI: the table's pool */
    r.sources[2].wcu = 20;
    insight_report_judge(&r);

    CHECK(has_finding(&r, "index_write_amplification", "cost 100.0 WCU in the table and 170.0"));
    CHECK(has_finding(&r, "collection_size", "80% of the 1000-byte limit"));
    CHECK(has_finding(&r, "conditional_check_failed", "1 of 10 single-item writes"));
    CHECK(!has_finding(&r, "hot_partition", ""));
    CHECK(near(r.cost.observed_seconds, 7200));
    CHECK(near(r.cost.wcu_per_s, 270.0 / 7200));
    /* The table's pool (with its LSI) and the GSI, each at least 1 unit. */
    CHECK_INT_EQ(r.cost.provisioned_avg_wcu, 2);
    CHECK_INT_EQ(r.cost.provisioned_avg_rcu, 2);
    CHECK_INT_EQ(r.cost.provisioned_peak_wcu, 11 + 2);
    CHECK(r.cost.has_configured);
    CHECK(near(r.cost.configured_monthly, ((5 + 1) * PRICES_PROVISIONED_PER_RCU_HOUR +
                                           (10 + 1) * PRICES_PROVISIONED_PER_WCU_HOUR) *
                                              PRICES_HOURS_PER_MONTH));
    insight_report_table_clear(&r);
}

int main(void)
{
    RUN(test_window_peak_is_the_busiest_sliding_second);
    RUN(test_window_ignores_units_from_a_later_clock);
    RUN(test_heat_map_ranks_keys_by_peak);
    RUN(test_heat_map_keeps_hot_keys_when_full);
    RUN(test_heat_map_keeps_keys_of_every_shape);
    RUN(test_heat_map_evictions_keep_the_index_whole);
    RUN(test_writes_count_units_heat_and_sizes);
    RUN(test_gets_count_reads_and_missing_items);
    RUN(test_unknown_table_is_not_found);
    RUN(test_judge_finds_index_amplification_collections_and_failed_conditions);
    return check_report();
}
