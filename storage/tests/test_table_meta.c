/*
 * test_table_meta.c - a table's policies, contributor insights and Kinesis
 * destinations: lookups, and the record persistence stores (a round trip,
 * and a damaged record refused).
 */
#include "storage/base/alloc.h"
#include "storage/table/table_meta.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

static void fill(struct table_meta *m)
{
    struct insights_setting *s;
    struct kinesis_destination *d;

    memset(m, 0, sizeof *m);
    m->policy.document = xstrdup("{\"Statement\":[]}");
    m->policy.revision_id = xstrdup("1767225600000");
    m->stream_policy.document = xstrdup("{}");
    m->stream_policy.revision_id = xstrdup("1767225600001");
    m->stream_policy_label = xstrdup("2026-01-01T00:00:00.000");
    s = table_meta_insights_add(m, NULL);
    s->enabled = true;
    s->mode = xstrdup("THROTTLED_KEYS");
    s->updated_ms = 42;
    s = table_meta_insights_add(m, "gsi1");
    s->mode = xstrdup("ACCESSED_AND_THROTTLED_KEYS");
    d = table_meta_kinesis_add(m, "arn:aws:kinesis:us-east-1:000000000000:stream/s");
    d->status = KINESIS_ACTIVE;
    d->precision = xstrdup("MICROSECOND");
}

static void test_table_meta_lookups_add_once(void)
{
    struct table_meta m;

    fill(&m);
    CHECK(table_meta_insights(&m, NULL) == &m.insights[0]);
    CHECK(table_meta_insights(&m, "gsi1") == &m.insights[1]);
    CHECK(table_meta_insights(&m, "gsi2") == NULL);
    CHECK(table_meta_insights_add(&m, "gsi1") == &m.insights[1]);
    CHECK_INT_EQ(m.insights_count, 2);
    CHECK(table_meta_kinesis(&m, "arn:aws:kinesis:us-east-1:000000000000:stream/t") == NULL);
    table_meta_clear(&m);
    CHECK_INT_EQ(m.insights_count, 0);
}

static void test_table_meta_record_round_trip(void)
{
    struct table_meta m, back;
    struct text_buf b = {0};
    struct codec_in in;

    fill(&m);
    table_meta_encode(&b, &m);
    codec_in_init(&in, b.data, b.len);
    CHECK(table_meta_decode(&in, &back));
    CHECK_STR_EQ(back.policy.document, m.policy.document);
    CHECK_STR_EQ(back.policy.revision_id, "1767225600000");
    CHECK_STR_EQ(back.stream_policy_label, "2026-01-01T00:00:00.000");
    CHECK_STR_EQ(back.stream_policy.revision_id, "1767225600001");
    CHECK_INT_EQ(back.insights_count, 2);
    CHECK(back.insights[0].index_name == NULL);
    CHECK(back.insights[0].enabled);
    CHECK_STR_EQ(back.insights[0].mode, "THROTTLED_KEYS");
    CHECK_INT_EQ(back.insights[0].updated_ms, 42);
    CHECK_STR_EQ(back.insights[1].index_name, "gsi1");
    CHECK(!back.insights[1].enabled);
    CHECK_INT_EQ(back.kinesis_count, 1);
    CHECK_INT_EQ(back.kinesis[0].status, KINESIS_ACTIVE);
    CHECK_STR_EQ(back.kinesis[0].precision, "MICROSECOND");
    table_meta_clear(&back);

    /* A truncated record is refused and leaves nothing behind. */
    codec_in_init(&in, b.data, b.len - 3);
    CHECK(!table_meta_decode(&in, &back));
    CHECK(back.policy.document == NULL && back.insights == NULL && back.kinesis == NULL);
    text_buf_clear(&b);
    table_meta_clear(&m);
}

int main(void)
{
    RUN(test_table_meta_lookups_add_once);
    RUN(test_table_meta_record_round_trip);
    return check_report();
}
