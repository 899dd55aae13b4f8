/*
 * test_stream.c - DynamoDB Streams in the engine, through db.h: records from
 * the single write path, view types, iterators, shard rollover and lineage,
 * the 24-hour trim, iterator expiry, disable/re-enable, deleted tables,
 * namespaces and the exact errors. Time is moved with db_clock_advance.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_snapshots.h"
#include "storage/engine/db_streams.h"
#include "storage/engine/db_tables.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};
static const struct db_scope other_scope = {"other", "us-east-1"};

#define HOUR_MS (60LL * 60 * 1000)

/* Table name: pk S, sk N; with a stream of view when enabled. */
static void create_table(struct db *db, const struct db_scope *sc, const char *name, bool enabled,
                         enum stream_view view)
{
    struct table_def def;

    def_init(&def, name);
    def_add_key(&def, "pk", VALUE_S, true);
    def_add_key(&def, "sk", VALUE_N, false);
    def.stream.enabled = enabled;
    def.stream.view = view;
    create_table_ok(db, sc, &def);
}

static void delete_table(struct db *db, const char *name)
{
    struct table_desc desc;
    struct ddb_error err = {0};
    CHECK_INT_EQ(db_delete_table(db, &scope, name, &desc, &err), 0);
    table_desc_clear(&desc);
}

static void set_stream(struct db *db, const char *name, bool enabled, enum stream_view view)
{
    struct table_update u;
    struct table_desc desc;
    struct ddb_error err = {0};

    memset(&u, 0, sizeof u);
    u.name = xstrdup(name);
    u.has_stream = true;
    u.stream.enabled = enabled;
    u.stream.view = view;
    CHECK_INT_EQ(db_update_table(db, &scope, &u, &desc, &err), 0);
    table_desc_clear(&desc);
    table_update_clear(&u);
}

/* The table's LatestStreamArn (owned), or NULL. */
static char *latest_arn(struct db *db, const char *name)
{
    struct table_desc desc;
    struct ddb_error err = {0};
    char *arn = NULL;

    CHECK_INT_EQ(db_describe_table(db, &scope, name, &desc, &err), 0);
    if (desc.latest_stream_arn) arn = xstrdup(desc.latest_stream_arn);
    table_desc_clear(&desc);
    return arn;
}

static void put(struct db *db, const char *table, const char *pk, long sk, const char *a)
{
    struct value m;

    value_init_map(&m);
    set_s(&m, "pk", pk);
    set_n(&m, "sk", sk);
    if (a) set_s(&m, "a", a);
    put_ok(db, &scope, table, &m);
}

static void delete_item(struct db *db, const char *table, const char *pk, long sk)
{
    struct value key;

    value_init_map(&key);
    set_s(&key, "pk", pk);
    set_n(&key, "sk", sk);
    delete_ok(db, &scope, table, &key);
}

static struct stream_desc describe(struct db *db, const char *arn)
{
    struct stream_desc d;
    struct ddb_error err = {0};
    CHECK_INT_EQ(db_describe_stream(db, &scope, arn, 100, NULL, NULL, &d, &err), 0);
    return d;
}

static char *iterator(struct db *db, const char *arn, const char *shard,
                      enum shard_iterator_type type, const char *seq)
{
    char *it = NULL;
    struct ddb_error err = {0};
    if (db_get_shard_iterator(db, &scope, arn, shard, type, seq, &it, &err) != 0) {
        fprintf(stderr, "GetShardIterator: %s\n", err.message);
        ddb_error_clear(&err);
    }
    return it;
}

/* GetRecords that must succeed. */
static struct stream_records records(struct db *db, const char *it, size_t limit)
{
    struct stream_records r;
    struct ddb_error err = {0};
    if (db_get_records(db, &scope, it, limit, &r, &err) != 0) {
        fprintf(stderr, "GetRecords: %s\n", err.message);
        CHECK(0);
        ddb_error_clear(&err);
    }
    return r;
}

static const char *attr_s(const struct item *item, const char *name)
{
    const struct value *v = item ? item_get_cstr(item, name) : NULL;
    return v && v->type == VALUE_S ? v->u.str.data : NULL;
}

/* ------------------------------------------------------------------------ */

static void test_stream_records_inserts_modifies_and_removes_in_commit_order(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r;
    char *arn, *it;

    create_table(db, &scope, "t", true, STREAM_NEW_AND_OLD_IMAGES);
    arn = latest_arn(db, "t");
    CHECK(arn != NULL);
    d = describe(db, arn);
    CHECK_INT_EQ(d.status, STREAM_ENABLED);
    CHECK_INT_EQ(d.shard_count, 1);
    CHECK(d.shards[0].parent_shard_id == NULL);
    CHECK_STR_EQ(d.shards[0].ending_sequence, "");
    CHECK_INT_EQ(strlen(d.shards[0].starting_sequence), 21);
    CHECK_INT_EQ(strncmp(d.shards[0].shard_id, "shardId-", 8), 0);
    CHECK_INT_EQ(strlen(d.shards[0].shard_id), 37);
    CHECK_STR_EQ(d.table_name, "t");

    put(db, "t", "a", 1, "x");
    put(db, "t", "a", 1, "x"); /* the same item again: no change, no record */
    put(db, "t", "a", 1, "y");
    delete_item(db, "t", "a", 1);
    delete_item(db, "t", "a", 1); /* nothing to delete: no record */

    it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    r = records(db, it, 1000);
    CHECK_INT_EQ(r.count, 3);
    if (r.count == 3) {
        CHECK_INT_EQ(r.records[0].event, STREAM_EVENT_INSERT);
        CHECK_INT_EQ(r.records[1].event, STREAM_EVENT_MODIFY);
        CHECK_INT_EQ(r.records[2].event, STREAM_EVENT_REMOVE);
        CHECK(r.records[0].old_image == NULL);
        CHECK_STR_EQ(attr_s(r.records[0].new_image, "a"), "x");
        CHECK_STR_EQ(attr_s(r.records[1].old_image, "a"), "x");
        CHECK_STR_EQ(attr_s(r.records[1].new_image, "a"), "y");
        CHECK_STR_EQ(attr_s(r.records[2].old_image, "a"), "y");
        CHECK(r.records[2].new_image == NULL);
        CHECK(strcmp(r.records[0].sequence_number, r.records[1].sequence_number) < 0);
        CHECK(strcmp(r.records[1].sequence_number, r.records[2].sequence_number) < 0);
        CHECK_INT_EQ(r.records[0].keys.u.map.count, 2);
        CHECK(!r.records[2].by_ttl);
        CHECK(strcmp(r.records[0].event_id, r.records[1].event_id) != 0);
        CHECK_INT_EQ(strlen(r.records[0].event_id), 32);
    }
    CHECK_STR_EQ(r.region, "us-east-1");
    CHECK(r.next_iterator != NULL); /* the shard is open */
    stream_records_clear(&r);
    free(it);
    stream_desc_clear(&d);
    free(arn);
    db_free(db);
}

/* Keys, images and SizeBytes per view type. SizeBytes = Keys + the images the
 * view shows (the Lambda guide's sample: 26 = Keys 5 + NewImage 21). */
static void test_stream_view_types_select_images_and_size(void)
{
    static const enum stream_view views[] = {STREAM_KEYS_ONLY, STREAM_NEW_IMAGE, STREAM_OLD_IMAGE,
                                             STREAM_NEW_AND_OLD_IMAGES};
    for (size_t v = 0; v < 4; v++) {
        struct db *db = db_new();
        struct stream_desc d;
        struct stream_records r;
        char *arn, *it;
        /* keys: "pk"(2)+"a"(1) + "sk"(2)+1(2) = 7; item adds "a"(1)+"x"(1) = 9 */
        size_t keys = 7, item = 9;

        create_table(db, &scope, "t", true, views[v]);
        arn = latest_arn(db, "t");
        d = describe(db, arn);
        put(db, "t", "a", 1, "x");
        put(db, "t", "a", 1, "y");
        delete_item(db, "t", "a", 1);
        it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
        r = records(db, it, 10);
        CHECK_INT_EQ(r.count, 3);
        for (size_t i = 0; i < r.count; i++) {
            bool has_new = views[v] == STREAM_NEW_IMAGE || views[v] == STREAM_NEW_AND_OLD_IMAGES;
            bool has_old = views[v] == STREAM_OLD_IMAGE || views[v] == STREAM_NEW_AND_OLD_IMAGES;
            size_t expect = keys;
            CHECK_INT_EQ(r.records[i].view, views[v]);
            CHECK_INT_EQ(r.records[i].keys.u.map.count, 2);
            CHECK_INT_EQ(r.records[i].new_image != NULL, has_new && i < 2);
            CHECK_INT_EQ(r.records[i].old_image != NULL, has_old && i > 0);
            if (has_new && i < 2) expect += item;
            if (has_old && i > 0) expect += item;
            CHECK_INT_EQ(r.records[i].size_bytes, expect);
        }
        stream_records_clear(&r);
        free(it);
        stream_desc_clear(&d);
        free(arn);
        db_free(db);
    }
}

static void test_latest_and_sequence_number_iterators(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r, again;
    char *arn, *latest, *at, *after;

    create_table(db, &scope, "t", true, STREAM_KEYS_ONLY);
    arn = latest_arn(db, "t");
    d = describe(db, arn);
    put(db, "t", "a", 1, NULL);
    latest = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_LATEST, NULL);
    r = records(db, latest, 10);
    CHECK_INT_EQ(r.count, 0); /* nothing after LATEST yet */
    CHECK(r.next_iterator != NULL);
    put(db, "t", "b", 2, NULL);
    put(db, "t", "c", 3, NULL);
    again = records(db, r.next_iterator, 10);
    CHECK_INT_EQ(again.count, 2);
    if (again.count == 2) {
        at = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_AT_SEQUENCE_NUMBER,
                      again.records[0].sequence_number);
        after = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_AFTER_SEQUENCE_NUMBER,
                         again.records[0].sequence_number);
        stream_records_clear(&r);
        r = records(db, at, 10);
        CHECK_INT_EQ(r.count, 2);
        stream_records_clear(&r);
        r = records(db, after, 10);
        CHECK_INT_EQ(r.count, 1);
        if (r.count == 1)
            CHECK_STR_EQ(r.records[0].sequence_number, again.records[1].sequence_number);
        free(at);
        free(after);
    }
    /* Limit pages. */
    {
        char *th = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
        struct stream_records p1 = records(db, th, 2), p2;
        CHECK_INT_EQ(p1.count, 2);
        p2 = records(db, p1.next_iterator, 2);
        CHECK_INT_EQ(p2.count, 1);
        stream_records_clear(&p1);
        stream_records_clear(&p2);
        free(th);
    }
    stream_records_clear(&r);
    stream_records_clear(&again);
    free(latest);
    stream_desc_clear(&d);
    free(arn);
    db_free(db);
}

/* About every four hours the open shard closes and a child opens. */
static void test_shards_roll_over_with_parent_lineage(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r;
    char *arn, *it;

    create_table(db, &scope, "t", true, STREAM_NEW_IMAGE);
    arn = latest_arn(db, "t");
    put(db, "t", "a", 1, "x");
    db_clock_advance(db, 4 * HOUR_MS + 1000);
    put(db, "t", "a", 2, "x");
    d = describe(db, arn);
    CHECK_INT_EQ(d.shard_count, 2);
    if (d.shard_count == 2) {
        CHECK(d.shards[0].ending_sequence[0] != '\0');
        CHECK_STR_EQ(d.shards[1].ending_sequence, "");
        CHECK_STR_EQ(d.shards[1].parent_shard_id, d.shards[0].shard_id);
        CHECK(strcmp(d.shards[0].shard_id, d.shards[1].shard_id) < 0);
        CHECK(strcmp(d.shards[0].ending_sequence, d.shards[1].starting_sequence) < 0);
        /* The closed parent reads to its end, then has no NextShardIterator. */
        it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
        r = records(db, it, 10);
        CHECK_INT_EQ(r.count, 1);
        CHECK(r.next_iterator == NULL);
        stream_records_clear(&r);
        free(it);
        it = iterator(db, arn, d.shards[1].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
        r = records(db, it, 10);
        CHECK_INT_EQ(r.count, 1);
        stream_records_clear(&r);
        free(it);
    }
    stream_desc_clear(&d);
    /* Paging and the CHILD_SHARDS filter. */
    {
        struct stream_desc p;
        struct ddb_error err = {0};
        CHECK_INT_EQ(db_describe_stream(db, &scope, arn, 1, NULL, NULL, &p, &err), 0);
        CHECK_INT_EQ(p.shard_count, 1);
        CHECK(p.last_evaluated_shard_id != NULL);
        if (p.last_evaluated_shard_id) {
            struct stream_desc q, c;
            CHECK_INT_EQ(
                db_describe_stream(db, &scope, arn, 1, p.last_evaluated_shard_id, NULL, &q, &err),
                0);
            CHECK_INT_EQ(q.shard_count, 1);
            CHECK(q.last_evaluated_shard_id == NULL);
            CHECK_INT_EQ(
                db_describe_stream(db, &scope, arn, 100, NULL, p.last_evaluated_shard_id, &c, &err),
                0);
            CHECK_INT_EQ(c.shard_count, 1);
            stream_desc_clear(&q);
            stream_desc_clear(&c);
        }
        stream_desc_clear(&p);
    }
    free(arn);
    db_free(db);
}

static void test_iterators_expire_after_fifteen_minutes(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r;
    struct ddb_error err = {0};
    char *arn, *it;

    create_table(db, &scope, "t", true, STREAM_KEYS_ONLY);
    arn = latest_arn(db, "t");
    d = describe(db, arn);
    it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    db_clock_advance(db, 14 * 60 * 1000);
    r = records(db, it, 10); /* still valid */
    stream_records_clear(&r);
    db_clock_advance(db, 2 * 60 * 1000);
    CHECK_INT_EQ(db_get_records(db, &scope, it, 10, &r, &err), -1);
    CHECK_INT_EQ(err.code, DDB_EXPIRED_ITERATOR);
    CHECK_STR_EQ(err.message, "The provided iterator exceeds the maximum age allowed.");
    CHECK_STR_EQ(ddb_error_type(err.code),
                 "com.amazonaws.dynamodb.streams.v20120810#ExpiredIteratorException");
    ddb_error_clear(&err);
    free(it);
    stream_desc_clear(&d);
    free(arn);
    db_free(db);
}

/* Records older than 24 hours are trimmed: an iterator at a trimmed record
 * gets TrimmedDataAccessException, TRIM_HORIZON starts after them. */
static void test_records_are_trimmed_after_24_hours(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r;
    struct ddb_error err = {0};
    char *arn, *it, *seq;

    create_table(db, &scope, "t", true, STREAM_KEYS_ONLY);
    arn = latest_arn(db, "t");
    put(db, "t", "a", 1, NULL);
    db_clock_advance(db, 24 * HOUR_MS - 60 * 1000);
    put(db, "t", "b", 2, NULL);
    d = describe(db, arn);
    /* The first shard rolled over long ago; find the record in the oldest shard. */
    it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    r = records(db, it, 10);
    CHECK_INT_EQ(r.count, 1);
    seq = r.count ? xstrdup(r.records[0].sequence_number) : xstrdup("000000000000000000001");
    stream_records_clear(&r);
    db_clock_advance(db, 2 * 60 * 1000); /* the record is now 24 h + 1 min old */
    CHECK_INT_EQ(db_get_records(db, &scope, it, 10, &r, &err), -1);
    CHECK_INT_EQ(err.code, DDB_TRIMMED_DATA_ACCESS);
    CHECK_STR_EQ(err.message, "The data you are trying to access has been trimmed");
    ddb_error_clear(&err);
    free(it);
    it = NULL;
    CHECK_INT_EQ(db_get_shard_iterator(db, &scope, arn, d.shards[0].shard_id,
                                       SHARD_ITERATOR_AT_SEQUENCE_NUMBER, seq, &it, &err),
                 -1);
    CHECK_INT_EQ(err.code, DDB_TRIMMED_DATA_ACCESS);
    ddb_error_clear(&err);
    stream_desc_clear(&d);
    /* The second record is still there, in the shard before the one that
     * opened when the clock passed the next four-hour boundary. */
    d = describe(db, arn);
    CHECK(d.shard_count >= 2);
    it = iterator(db, arn, d.shards[d.shard_count - 2].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    r = records(db, it, 10);
    CHECK_INT_EQ(r.count, 1);
    stream_records_clear(&r);
    free(it);
    free(seq);
    stream_desc_clear(&d);
    free(arn);
    db_free(db);
}

/* Disabling closes the stream (readable 24 h); enabling again makes a new one. */
static void test_disable_then_enable_makes_a_new_stream(void)
{
    struct db *db = db_new();
    struct stream_summary *list;
    struct stream_desc d;
    struct stream_records r;
    struct ddb_error err = {0};
    size_t count;
    char *last, *arn1, *arn2, *it;

    create_table(db, &scope, "t", true, STREAM_NEW_IMAGE);
    arn1 = latest_arn(db, "t");
    put(db, "t", "a", 1, "x");
    db_clock_advance(db, 1000);
    set_stream(db, "t", false, STREAM_NEW_IMAGE);
    put(db, "t", "a", 2, "x"); /* no stream: not recorded anywhere */
    d = describe(db, arn1);
    CHECK_INT_EQ(d.status, STREAM_DISABLED);
    CHECK(d.shards[0].ending_sequence[0] != '\0');
    it = iterator(db, arn1, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    r = records(db, it, 10);
    CHECK_INT_EQ(r.count, 1);
    CHECK(r.next_iterator == NULL);
    stream_records_clear(&r);
    free(it);
    stream_desc_clear(&d);

    db_clock_advance(db, 1000);
    set_stream(db, "t", true, STREAM_KEYS_ONLY);
    arn2 = latest_arn(db, "t");
    CHECK(strcmp(arn1, arn2) != 0);
    CHECK_INT_EQ(db_list_streams(db, &scope, "t", NULL, 100, &list, &count, &last, &err), 0);
    CHECK_INT_EQ(count, 2);
    for (size_t i = 0; i < count; i++)
        stream_summary_clear(&list[i]);
    free(list);
    free(last);

    /* 24 hours after being disabled, the old stream is gone. */
    db_clock_advance(db, 24 * HOUR_MS + 1000);
    CHECK_INT_EQ(db_list_streams(db, &scope, "t", NULL, 100, &list, &count, &last, &err), 0);
    CHECK_INT_EQ(count, 1);
    if (count == 1) CHECK_STR_EQ(list[0].arn, arn2);
    for (size_t i = 0; i < count; i++)
        stream_summary_clear(&list[i]);
    free(list);
    free(last);
    CHECK_INT_EQ(db_describe_stream(db, &scope, arn1, 100, NULL, NULL, &d, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    ddb_error_clear(&err);
    free(arn1);
    free(arn2);
    db_free(db);
}

static void test_deleted_tables_stream_stays_readable(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    char *arn;

    create_table(db, &scope, "t", true, STREAM_KEYS_ONLY);
    arn = latest_arn(db, "t");
    put(db, "t", "a", 1, NULL);
    delete_table(db, "t");
    d = describe(db, arn);
    CHECK_INT_EQ(d.status, STREAM_DISABLED);
    CHECK_STR_EQ(d.table_name, "t");
    stream_desc_clear(&d);
    free(arn);
    db_free(db);
}

static void test_list_streams_pages_and_filters_by_table_and_namespace(void)
{
    struct db *db = db_new();
    struct stream_summary *list;
    struct ddb_error err = {0};
    size_t count, total = 0;
    char *last = NULL, *start = NULL;

    create_table(db, &scope, "t1", true, STREAM_KEYS_ONLY);
    create_table(db, &scope, "t2", true, STREAM_KEYS_ONLY);
    create_table(db, &scope, "t3", false, STREAM_KEYS_ONLY);
    create_table(db, &other_scope, "t4", true, STREAM_KEYS_ONLY);
    do {
        CHECK_INT_EQ(db_list_streams(db, &scope, NULL, start, 1, &list, &count, &last, &err), 0);
        CHECK(count <= 1);
        total += count;
        for (size_t i = 0; i < count; i++)
            stream_summary_clear(&list[i]);
        free(list);
        free(start);
        start = last;
    } while (start && total < 10);
    CHECK_INT_EQ(total, 2);
    CHECK_INT_EQ(db_list_streams(db, &scope, "t3", NULL, 100, &list, &count, &last, &err), 0);
    CHECK_INT_EQ(count, 0);
    free(list);
    CHECK_INT_EQ(db_list_streams(db, &other_scope, NULL, NULL, 100, &list, &count, &last, &err), 0);
    CHECK_INT_EQ(count, 1);
    if (count) CHECK_STR_EQ(list[0].table_name, "t4");
    for (size_t i = 0; i < count; i++)
        stream_summary_clear(&list[i]);
    free(list);
    db_free(db);
}

static void test_streams_errors_have_aws_types_and_texts(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r;
    struct ddb_error err = {0};
    char *arn, *it = NULL, *missing;

    create_table(db, &scope, "t", true, STREAM_KEYS_ONLY);
    arn = latest_arn(db, "t");

    CHECK_INT_EQ(db_describe_stream(db, &scope, "fake-stream", 100, NULL, NULL, &d, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, "Invalid StreamArn");
    ddb_error_clear(&err);

    missing = xstrdup(arn);
    missing[strlen(missing) - 1] = missing[strlen(missing) - 1] == '1' ? '2' : '1';
    CHECK_INT_EQ(db_describe_stream(db, &scope, missing, 100, NULL, NULL, &d, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    {
        char want[512];
        snprintf(want, sizeof want, "Requested resource not found: Stream: %s not found", missing);
        CHECK_STR_EQ(err.message, want);
    }
    ddb_error_clear(&err);
    /* Another namespace does not see the stream. */
    CHECK_INT_EQ(db_describe_stream(db, &other_scope, arn, 100, NULL, NULL, &d, &err), -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    ddb_error_clear(&err);

    CHECK_INT_EQ(db_get_shard_iterator(db, &scope, arn, "shardId-00000000000000000000-00000000",
                                       SHARD_ITERATOR_LATEST, NULL, &it, &err),
                 -1);
    CHECK_INT_EQ(err.code, DDB_RESOURCE_NOT_FOUND);
    CHECK_STR_EQ(err.message, "Requested resource not found: Shard does not exist");
    ddb_error_clear(&err);

    CHECK_INT_EQ(db_get_records(db, &scope, "sdfsdfsgagaddafgagasgasgasdfasdfasdf", 10, &r, &err),
                 -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    ddb_error_clear(&err);

    /* A tampered iterator is refused too. */
    d = describe(db, arn);
    it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_LATEST, NULL);
    if (it) {
        size_t len = strlen(it);
        it[len - 3] = it[len - 3] == 'A' ? 'B' : 'A';
        CHECK_INT_EQ(db_get_records(db, &scope, it, 10, &r, &err), -1);
        CHECK_INT_EQ(err.code, DDB_VALIDATION);
        ddb_error_clear(&err);
    }
    free(it);
    stream_desc_clear(&d);
    free(missing);
    free(arn);
    db_free(db);
}

/* The same stream keeps its records in commit order through a transaction. */
static void test_transaction_writes_appear_once_each(void)
{
    struct db *db = db_new();
    struct stream_desc d;
    struct stream_records r;
    struct write_op ops[2];
    struct consumed_capacity *caps = NULL;
    size_t cap_count = 0;
    struct failure_details failure = {0};
    struct ddb_error err = {0};
    char *arn, *it;

    create_table(db, &scope, "t", true, STREAM_NEW_IMAGE);
    arn = latest_arn(db, "t");
    for (int i = 0; i < 2; i++) {
        struct value m;
        value_init_map(&m);
        set_s(&m, "pk", i ? "b" : "a");
        set_n(&m, "sk", i);
        memset(&ops[i], 0, sizeof ops[i]);
        ops[i].kind = WRITE_PUT;
        ops[i].table_name = "t";
        ops[i].put_item = item_new(&m);
    }
    CHECK_INT_EQ(db_transact_write(db, &scope, ops, 2, NULL, NULL, RETURN_CAPACITY_NONE, &caps,
                                   &cap_count, &failure, &err),
                 0);
    ddb_error_clear(&err);
    for (size_t i = 0; i < cap_count; i++)
        consumed_capacity_clear(&caps[i]);
    free(caps);
    d = describe(db, arn);
    it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    r = records(db, it, 10);
    CHECK_INT_EQ(r.count, 2);
    if (r.count == 2) {
        CHECK_STR_EQ(attr_s(r.records[0].new_image, "pk"), "a");
        CHECK_STR_EQ(attr_s(r.records[1].new_image, "pk"), "b");
    }
    stream_records_clear(&r);
    free(it);
    for (int i = 0; i < 2; i++)
        item_unref(ops[i].put_item);
    stream_desc_clear(&d);
    free(arn);
    db_free(db);
}

static void test_reset_namespace_forgets_tables_and_streams(void)
{
    struct db *db = db_new();
    struct stream_summary *list;
    struct table_desc desc;
    struct ddb_error err = {0};
    size_t count;
    char *last;

    create_table(db, &scope, "t", true, STREAM_KEYS_ONLY);
    create_table(db, &other_scope, "t", true, STREAM_KEYS_ONLY);
    put(db, "t", "a", 1, NULL);
    CHECK_INT_EQ(db_reset_namespace(db, scope.namespace_id), 1);
    CHECK_INT_EQ(db_describe_table(db, &scope, "t", &desc, &err), -1);
    ddb_error_clear(&err);
    CHECK_INT_EQ(db_list_streams(db, &scope, NULL, NULL, 100, &list, &count, &last, &err), 0);
    CHECK_INT_EQ(count, 0);
    free(list);
    CHECK_INT_EQ(db_describe_table(db, &other_scope, "t", &desc, &err), 0);
    table_desc_clear(&desc);
    create_table(db, &scope, "t", false, STREAM_KEYS_ONLY); /* the name is free again */
    db_free(db);
}

/* The records of the stream's shard as a snapshot saved them. */
static size_t snapshot_records(struct db *db)
{
    struct snapshot_info *list;
    size_t count, n;

    db_snapshot_list(db, &list, &count);
    CHECK_INT_EQ(count, 1);
    n = count ? list[0].stream_record_count : 0;
    for (size_t i = 0; i < count; i++)
        snapshot_info_clear(&list[i]);
    free(list);
    return n;
}

/* The records of the one shard, read from TRIM_HORIZON (-1: trimmed). */
static long shard_records(struct db *db, const char *arn)
{
    struct stream_desc d = describe(db, arn);
    char *it = iterator(db, arn, d.shards[0].shard_id, SHARD_ITERATOR_TRIM_HORIZON, NULL);
    struct stream_records r = records(db, it, 100);
    long n = (long) r.count;

    stream_records_clear(&r);
    free(it);
    stream_desc_clear(&d);
    return n;
}

/* A stream and its snapshot share their records (shard_records.c): records
 * added or trimmed on one side after the save are not the other's. */
static void test_shared_records_added_and_trimmed_apart(void)
{
    struct db *db = db_new();
    struct snapshot_info info;
    struct ddb_error err = {0};
    size_t tables;
    char *arn;

    create_table(db, &scope, "t", true, STREAM_NEW_AND_OLD_IMAGES);
    arn = latest_arn(db, "t");
    put(db, "t", "a", 1, "x");
    put(db, "t", "a", 1, "y");
    CHECK_INT_EQ(db_snapshot_save(db, "s", scope.namespace_id, &info, &err), 0);
    snapshot_info_clear(&info);
    put(db, "t", "b", 2, NULL); /* the live stream copies the array first */
    CHECK_INT_EQ(shard_records(db, arn), 3);
    CHECK_INT_EQ(snapshot_records(db), 2);
    CHECK_INT_EQ(db_snapshot_restore(db, "s", true, &tables, &err), 0);
    CHECK_INT_EQ(shard_records(db, arn), 2);
    /* A day later the restored stream trims what it shares with the snapshot. */
    db_clock_advance(db, 25 * HOUR_MS);
    put(db, "t", "c", 3, NULL);
    CHECK_INT_EQ(snapshot_records(db), 2);
    CHECK_INT_EQ(db_snapshot_restore(db, "s", true, &tables, &err), 0);
    CHECK_INT_EQ(snapshot_records(db), 2);
    CHECK_INT_EQ(db_snapshot_delete(db, "s", &err), 0);
    put(db, "t", "d", 4, NULL); /* the last holder: its array, trimmed, no copy */
    free(arn);
    db_free(db);
}

int main(void)
{
    RUN(test_stream_records_inserts_modifies_and_removes_in_commit_order);
    RUN(test_stream_view_types_select_images_and_size);
    RUN(test_latest_and_sequence_number_iterators);
    RUN(test_shards_roll_over_with_parent_lineage);
    RUN(test_iterators_expire_after_fifteen_minutes);
    RUN(test_records_are_trimmed_after_24_hours);
    RUN(test_disable_then_enable_makes_a_new_stream);
    RUN(test_deleted_tables_stream_stays_readable);
    RUN(test_list_streams_pages_and_filters_by_table_and_namespace);
    RUN(test_streams_errors_have_aws_types_and_texts);
    RUN(test_transaction_writes_appear_once_each);
    RUN(test_reset_namespace_forgets_tables_and_streams);
    RUN(test_shared_records_added_and_trimmed_apart);
    return check_report();
}
