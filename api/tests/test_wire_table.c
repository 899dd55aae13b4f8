/*
 * test_wire_table.c - CreateTable bodies -> table_def, table_desc -> TableDescription.
 *
 * Pins the description's shape as DynamoDB returns it (see wire_table.c for
 * the sources): sorted AttributeDefinitions and NonKeyAttributes, zeros for
 * on-demand throughput, WarmThroughput defaults, SSE and stream blocks only
 * when enabled, multi-attribute GSI keys in submitted HASH-then-RANGE order.
 */
#include "api/wire/wire_table.h"
#include "storage/base/alloc.h"
#include "storage/model/schema.h"
#include "storage/tests/check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    if (!j) fprintf(stderr, "bad test JSON: %s\n", jerr.text);
    return j;
}

static const char create_body[] =
    "{\"TableName\": \"orders\","
    " \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"},"
    "   {\"AttributeName\": \"g2\", \"AttributeType\": \"N\"},"
    "   {\"AttributeName\": \"g1\", \"AttributeType\": \"S\"},"
    "   {\"AttributeName\": \"sk\", \"AttributeType\": \"S\"},"
    "   {\"AttributeName\": \"r\", \"AttributeType\": \"B\"}],"
    " \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"},"
    "   {\"AttributeName\": \"sk\", \"KeyType\": \"RANGE\"}],"
    " \"BillingMode\": \"PAY_PER_REQUEST\","
    " \"GlobalSecondaryIndexes\": [{\"IndexName\": \"multi\","
    "   \"KeySchema\": [{\"AttributeName\": \"g1\", \"KeyType\": \"HASH\"},"
    "     {\"AttributeName\": \"g2\", \"KeyType\": \"HASH\"},"
    "     {\"AttributeName\": \"r\", \"KeyType\": \"RANGE\"}],"
    "   \"Projection\": {\"ProjectionType\": \"INCLUDE\", \"NonKeyAttributes\": [\"zz\", "
    "\"aa\"]}}],"
    " \"StreamSpecification\": {\"StreamEnabled\": true, \"StreamViewType\": "
    "\"NEW_AND_OLD_IMAGES\"},"
    " \"SSESpecification\": {\"SSEType\": \"KMS\", \"KMSMasterKeyId\": \"1234\"},"
    " \"DeletionProtectionEnabled\": true,"
    " \"Tags\": [{\"Key\": \"team\", \"Value\": \"x\"}]}";

static void test_wire_table_create_body_decodes_into_a_table_def(void)
{
    json_t *body = parse(create_body);
    struct table_def def;

    wire_table_def_from_json(body, &def);
    CHECK_STR_EQ(def.name, "orders");
    CHECK_INT_EQ(def.attr_def_count, 5);
    CHECK_INT_EQ(def.attr_defs[1].type, VALUE_N);
    CHECK_INT_EQ(def.key.hash_count, 1);
    CHECK_INT_EQ(def.key.range_count, 1);
    CHECK_STR_EQ(def.key.range_names[0], "sk");
    CHECK_INT_EQ(def.billing, BILLING_PAY_PER_REQUEST);
    CHECK_INT_EQ(def.gsi_count, 1);
    CHECK_INT_EQ(def.gsis[0].key.hash_count, 2);
    CHECK_STR_EQ(def.gsis[0].key.hash_names[1], "g2");
    CHECK_INT_EQ(def.gsis[0].key.range_count, 1);
    CHECK_INT_EQ(def.gsis[0].projection.type, PROJECTION_INCLUDE);
    CHECK_INT_EQ(def.gsis[0].projection.non_key_count, 2);
    CHECK(def.stream.enabled);
    CHECK_INT_EQ(def.stream.view, STREAM_NEW_AND_OLD_IMAGES);
    /* Enabled is inferred from SSEType KMS */
    CHECK(def.sse.enabled);
    CHECK_STR_EQ(def.sse.kms_master_key_id, "1234");
    CHECK(def.deletion_protection);
    CHECK_INT_EQ(def.tag_count, 1);
    table_def_clear(&def);
    json_decref(body);
}

static void make_desc(struct table_desc *d, const char *body_text, enum table_status status)
{
    json_t *body = parse(body_text);

    memset(d, 0, sizeof *d);
    wire_table_def_from_json(body, &d->def);
    d->status = status;
    d->arn = xstrdup("arn:aws:dynamodb:eu-west-1:000000000000:table/orders");
    d->table_id = xstrdup("0f8d4b2a-1111-4c3d-9e7f-abcdef012345");
    d->region = xstrdup("eu-west-1");
    d->creation_ms = 1700000000123;
    d->gsi_descs = xcalloc(d->def.gsi_count ? d->def.gsi_count : 1, sizeof *d->gsi_descs);
    d->lsi_descs = xcalloc(d->def.lsi_count ? d->def.lsi_count : 1, sizeof *d->lsi_descs);
    for (size_t i = 0; i < d->def.gsi_count; i++) {
        d->gsi_descs[i].status = INDEX_ACTIVE;
        d->gsi_descs[i].arn =
            xstrdup("arn:aws:dynamodb:eu-west-1:000000000000:table/orders/index/multi");
    }
    json_decref(body);
}

static bool near(double a, double b)
{
    return a - b < 1e-6 && b - a < 1e-6;
}

static char *dump(json_t *j, const char *path_key)
{
    json_t *v = path_key ? json_object_get(j, path_key) : j;
    return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

static void check_member(json_t *obj, const char *key, const char *want)
{
    char *got = dump(obj, key);
    if (!want) {
        if (got) fprintf(stderr, "%s present: %s\n", key, got);
        CHECK(got == NULL);
    } else {
        CHECK_STR_EQ(got, want);
    }
    free(got);
}

static void test_wire_table_description_has_aws_shape(void)
{
    struct table_desc d;
    json_t *j, *gsi, *sub;

    make_desc(&d, create_body, TABLE_ACTIVE);
    j = wire_table_desc_to_json(&d);
    check_member(j, "AttributeDefinitions",
                 "[{\"AttributeName\":\"g1\",\"AttributeType\":\"S\"},"
                 "{\"AttributeName\":\"g2\",\"AttributeType\":\"N\"},"
                 "{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},"
                 "{\"AttributeName\":\"r\",\"AttributeType\":\"B\"},"
                 "{\"AttributeName\":\"sk\",\"AttributeType\":\"S\"}]");
    check_member(j, "TableStatus", "\"ACTIVE\"");
    check_member(j, "ProvisionedThroughput",
                 "{\"NumberOfDecreasesToday\":0,\"ReadCapacityUnits\":0,\"WriteCapacityUnits\":0}");
    /* Timestamps are epoch seconds with the milliseconds as a fraction. */
    sub = json_object_get(j, "BillingModeSummary");
    check_member(sub, "BillingMode", "\"PAY_PER_REQUEST\"");
    CHECK(near(json_real_value(json_object_get(sub, "LastUpdateToPayPerRequestDateTime")),
               1700000000.123));
    CHECK(near(json_real_value(json_object_get(j, "CreationDateTime")), 1700000000.123));
    check_member(j, "StreamSpecification",
                 "{\"StreamEnabled\":true,\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"}");
    check_member(j, "SSEDescription",
                 "{\"Status\":\"ENABLED\",\"SSEType\":\"KMS\",\"KMSMasterKeyArn\":"
                 "\"arn:aws:kms:eu-west-1:000000000000:key/1234\"}");
    check_member(j, "DeletionProtectionEnabled", "true");
    check_member(
        j, "WarmThroughput",
        "{\"ReadUnitsPerSecond\":12000,\"WriteUnitsPerSecond\":4000,\"Status\":\"ACTIVE\"}");
    check_member(j, "LocalSecondaryIndexes", NULL);
    check_member(j, "TableClassSummary", NULL);
    gsi = json_array_get(json_object_get(j, "GlobalSecondaryIndexes"), 0);
    check_member(gsi, "KeySchema",
                 "[{\"AttributeName\":\"g1\",\"KeyType\":\"HASH\"},"
                 "{\"AttributeName\":\"g2\",\"KeyType\":\"HASH\"},"
                 "{\"AttributeName\":\"r\",\"KeyType\":\"RANGE\"}]");
    check_member(gsi, "Projection",
                 "{\"ProjectionType\":\"INCLUDE\",\"NonKeyAttributes\":[\"aa\",\"zz\"]}");
    check_member(gsi, "IndexStatus", "\"ACTIVE\"");
    check_member(gsi, "Backfilling", NULL);
    check_member(gsi, "ProvisionedThroughput",
                 "{\"NumberOfDecreasesToday\":0,\"ReadCapacityUnits\":0,\"WriteCapacityUnits\":0}");
    json_decref(j);
    table_desc_clear(&d);
}

static void test_wire_table_create_response_of_on_demand_table_has_mode_only(void)
{
    struct table_desc d;
    json_t *j, *gsi;

    make_desc(&d, create_body, TABLE_CREATING);
    j = wire_table_desc_to_json(&d);
    check_member(j, "TableStatus", "\"CREATING\"");
    check_member(j, "BillingModeSummary", "{\"BillingMode\":\"PAY_PER_REQUEST\"}");
    gsi = json_array_get(json_object_get(j, "GlobalSecondaryIndexes"), 0);
    check_member(gsi, "WarmThroughput", NULL);
    json_decref(j);
    table_desc_clear(&d);
}

static void test_wire_table_provisioned_table_has_no_billing_summary(void)
{
    static const char body[] =
        "{\"TableName\": \"orders\","
        " \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],"
        " \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}],"
        " \"ProvisionedThroughput\": {\"ReadCapacityUnits\": 5, \"WriteCapacityUnits\": 7},"
        " \"SSESpecification\": {\"Enabled\": false}, \"TableClass\": \"STANDARD\"}";
    struct table_desc d;
    json_t *j;

    make_desc(&d, body, TABLE_ACTIVE);
    d.throughput_last_increase_ms = 1700000001000;
    j = wire_table_desc_to_json(&d);
    check_member(j, "BillingModeSummary", NULL);
    check_member(j, "SSEDescription", NULL);
    check_member(j, "StreamSpecification", NULL);
    check_member(j, "ProvisionedThroughput",
                 "{\"LastIncreaseDateTime\":1700000001.0,\"NumberOfDecreasesToday\":0,"
                 "\"ReadCapacityUnits\":5,\"WriteCapacityUnits\":7}");
    check_member(j, "WarmThroughput",
                 "{\"ReadUnitsPerSecond\":5,\"WriteUnitsPerSecond\":7,\"Status\":\"ACTIVE\"}");
    check_member(j, "TableClassSummary", "{\"TableClass\":\"STANDARD\"}");
    check_member(j, "DeletionProtectionEnabled", "false");
    json_decref(j);
    table_desc_clear(&d);
}

/* The text wire_table_write_capacity (or its transactional form) writes. */
static char *capacity_text(const struct consumed_capacity *c, enum return_capacity mode,
                           bool transact)
{
    struct json_out w;
    size_t len;

    json_out_init(&w);
    if (transact)
        wire_table_write_transact_capacity(&w, c, mode);
    else
        wire_table_write_capacity(&w, c, mode);
    return json_out_take(&w, &len);
}

static void test_wire_table_consumed_capacity_shapes(void)
{
    struct consumed_capacity c;
    char *text;

    memset(&c, 0, sizeof c);
    CHECK(!wire_table_has_capacity(&c, RETURN_CAPACITY_TOTAL));
    c.table_name = xstrdup("orders");
    c.write_units = 3;
    c.table_write_units = 1;
    c.indexes = xcalloc(2, sizeof *c.indexes);
    c.index_count = 2;
    c.indexes[0] = (struct index_capacity){xstrdup("g"), true, 0, 2};
    c.indexes[1] = (struct index_capacity){xstrdup("l"), false, 0, 0.5};
    CHECK(!wire_table_has_capacity(&c, RETURN_CAPACITY_NONE));
    CHECK(wire_table_has_capacity(&c, RETURN_CAPACITY_TOTAL));
    text = capacity_text(&c, RETURN_CAPACITY_TOTAL, false);
    CHECK_STR_EQ(text, "{\"TableName\":\"orders\",\"CapacityUnits\":3.0}");
    free(text);
    text = capacity_text(&c, RETURN_CAPACITY_INDEXES, false);
    CHECK_STR_EQ(text,
                 "{\"TableName\":\"orders\",\"CapacityUnits\":3.0,\"Table\":{\"CapacityUnits\":"
                 "1.0},\"GlobalSecondaryIndexes\":{\"g\":{\"CapacityUnits\":2.0}},"
                 "\"LocalSecondaryIndexes\":{\"l\":{\"CapacityUnits\":0.5}}}");
    free(text);
    consumed_capacity_clear(&c);
}

/* Transactions split every units object into read and write, leaving out a zero side. */
static void test_wire_table_transact_capacity_splits_units(void)
{
    struct consumed_capacity c;
    char *text;

    memset(&c, 0, sizeof c);
    c.table_name = xstrdup("orders");
    c.read_units = 2;
    c.write_units = 4;
    c.table_read_units = 2;
    c.table_write_units = 2;
    c.indexes = xcalloc(1, sizeof *c.indexes);
    c.index_count = 1;
    c.indexes[0] = (struct index_capacity){xstrdup("g"), true, 0, 2};
    text = capacity_text(&c, RETURN_CAPACITY_TOTAL, true);
    CHECK_STR_EQ(text, "{\"TableName\":\"orders\",\"CapacityUnits\":6.0,"
                       "\"ReadCapacityUnits\":2.0,\"WriteCapacityUnits\":4.0}");
    free(text);
    text = capacity_text(&c, RETURN_CAPACITY_INDEXES, true);
    CHECK_STR_EQ(text, "{\"TableName\":\"orders\",\"CapacityUnits\":6.0,"
                       "\"ReadCapacityUnits\":2.0,\"WriteCapacityUnits\":4.0,\"Table\":{"
                       "\"CapacityUnits\":4.0,\"ReadCapacityUnits\":2.0,\"WriteCapacityUnits\":"
                       "2.0},\"GlobalSecondaryIndexes\":{\"g\":{\"CapacityUnits\":2.0,"
                       "\"WriteCapacityUnits\":2.0}}}");
    free(text);
    consumed_capacity_clear(&c);
}

int main(void)
{
    RUN(test_wire_table_create_body_decodes_into_a_table_def);
    RUN(test_wire_table_description_has_aws_shape);
    RUN(test_wire_table_create_response_of_on_demand_table_has_mode_only);
    RUN(test_wire_table_provisioned_table_has_no_billing_summary);
    RUN(test_wire_table_consumed_capacity_shapes);
    RUN(test_wire_table_transact_capacity_splits_units);
    return check_report();
}
