/*
 * test_shape.c - the request-shape checker against AWS's recorded texts.
 *
 * A table of (body, expected error) cases per concern, as jq tests its
 * language: serialization texts per expected type and JSON token, then the
 * collected ValidationException, then the pre-checks. The expected strings
 * are the ones DynamoDB sends (see shape.c's header for their source).
 */
#include "api/wire/shape.h"
#include "storage/tests/check.h"

#include <stdlib.h>

static const char *const billing_choices[] = {"PROVISIONED", "PAY_PER_REQUEST", NULL};
static const char *const key_type_choices[] = {"HASH", "RANGE", NULL};

static const struct field key_schema_element_fields[] = {
    {"AttributeName", F_STRING, .required = true, .min_len = 1, .max_len = 255},
    {"KeyType", F_STRING, .required = true, .choices = key_type_choices},
    {0},
};

static const struct field throughput_fields[] = {
    {"ReadCapacityUnits", F_LONG, .required = true, .has_min = true, .min_value = 1},
    {"WriteCapacityUnits", F_LONG, .required = true, .has_min = true, .min_value = 1},
    {0},
};

static const struct field key_schema_element = {
    .type = F_STRUCT, .shape_name = "KeySchemaElement", .children = key_schema_element_fields};
static const struct field string_member = {.type = F_STRING, .min_len = 1};
static const struct field name_map_value = {.type = F_STRING};
static const struct field attr_map_member = {.type = F_ATTRIBUTE_MAP};
static const struct field list_of_strings = {.type = F_LIST, .member = &name_map_value};

/* A made-up operation that has one member of every kind. */
static const struct field test_fields[] = {
    {"TableName", F_STRING, .required = true, .min_len = 3, .max_len = 255,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"KeySchema", F_LIST, .min_len = 1, .max_len = 2, .member = &key_schema_element},
    {"ProvisionedThroughput", F_STRUCT, .shape_name = "ProvisionedThroughput",
     .children = throughput_fields},
    {"BillingMode", F_STRING, .choices = billing_choices},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true, .max_value = 100},
    {"ConsistentRead", F_BOOLEAN},
    {"Item", F_ATTRIBUTE_MAP},
    {"AttributesToGet", F_LIST, .min_len = 1, .member = &string_member},
    {"ExpressionAttributeNames", F_MAP, .member = &name_map_value},
    {"Keys", F_LIST, .member = &attr_map_member},
    {"Nested", F_MAP, .member = &list_of_strings},
    {"Blob", F_BLOB},
    {0},
};

/* Runs shape_check on text; returns the error message (owned) or NULL when it passes. */
static char *check_body(const struct field *fields, const char *text, enum ddb_error_code *code)
{
    json_error_t jerr;
    json_t *body = json_loads(text, 0, &jerr);
    struct ddb_error err = {0};
    char *msg = NULL;

    if (!body) {
        fprintf(stderr, "bad test JSON: %s: %s\n", text, jerr.text);
        *code = DDB_INTERNAL_SERVER_ERROR;
        return strdup("bad test JSON");
    }
    *code = DDB_OK;
    if (shape_check(fields, body, &err) != 0) {
        *code = err.code;
        msg = strdup(err.message ? err.message : "");
    }
    ddb_error_clear(&err);
    json_decref(body);
    return msg;
}

struct expect {
    const char *body;
    const char *message; /* NULL: passes */
};

static void run_cases(const struct expect *cases, enum ddb_error_code want_code)
{
    for (const struct expect *c = cases; c->body; c++) {
        enum ddb_error_code code;
        char *msg = check_body(test_fields, c->body, &code);
        if (!c->message) {
            if (msg) fprintf(stderr, "case %s\n", c->body);
            CHECK(msg == NULL);
        } else {
            if (!msg || strcmp(msg, c->message) != 0 || code != want_code)
                fprintf(stderr, "case %s\n", c->body);
            CHECK_STR_EQ(msg, c->message);
            CHECK_INT_EQ(code, want_code);
        }
        free(msg);
    }
}

static void test_serialization_scalars(void)
{
    static const struct expect cases[] = {
        {"{\"TableName\": true}", "TRUE_VALUE cannot be converted to String"},
        {"{\"TableName\": false}", "FALSE_VALUE cannot be converted to String"},
        {"{\"TableName\": 23}", "NUMBER_VALUE cannot be converted to String"},
        {"{\"TableName\": -2147483648}", "NUMBER_VALUE cannot be converted to String"},
        {"{\"TableName\": 34.56}", "DECIMAL_VALUE cannot be converted to String"},
        {"{\"TableName\": []}", "Unrecognized collection type class java.lang.String"},
        {"{\"TableName\": {}}", "Start of structure or map found where not expected"},
        {"{\"Limit\": \"23\"}", "STRING_VALUE cannot be converted to Integer"},
        {"{\"Limit\": true}", "TRUE_VALUE cannot be converted to Integer"},
        {"{\"Limit\": []}", "Unrecognized collection type class java.lang.Integer"},
        {"{\"Limit\": {}}", "Start of structure or map found where not expected"},
        {"{\"ProvisionedThroughput\": {\"ReadCapacityUnits\": \"1\"}}",
         "STRING_VALUE cannot be converted to Long"},
        {"{\"ProvisionedThroughput\": {\"ReadCapacityUnits\": false}}",
         "FALSE_VALUE cannot be converted to Long"},
        {"{\"ConsistentRead\": \"23\"}", "Unexpected token received from parser"},
        {"{\"ConsistentRead\": 23}", "NUMBER_VALUE cannot be converted to Boolean"},
        {"{\"ConsistentRead\": 34.56}", "DECIMAL_VALUE cannot be converted to Boolean"},
        {"{\"ConsistentRead\": []}", "Unrecognized collection type class java.lang.Boolean"},
        {"{\"ConsistentRead\": {}}", "Start of structure or map found where not expected"},
        {"{\"Blob\": true}", "only base-64-encoded strings are convertible to bytes"},
        {"{\"Blob\": 23}", "only base-64-encoded strings are convertible to bytes"},
        {"{\"Blob\": []}", "Unrecognized collection type class java.nio.ByteBuffer"},
        {"{\"Blob\": {}}", "Start of structure or map found where not expected"},
        {"{\"Blob\": \"23456\"}",
         "Base64 encoded length is expected a multiple of 4 bytes but found: 5"},
        {"{\"Blob\": \"=+/=\"}", "Invalid last non-pad Base64 character dectected"},
        {"{\"Blob\": \"+/+=\"}", "Invalid last non-pad Base64 character dectected"},
        {"{\"TableName\": \"abc\", \"Blob\": \"AAAA\"}", NULL},
        {"{\"TableName\": \"abc\", \"Blob\": \"AA==\"}", NULL},
        {"{\"Blob\": \"AB==\"}", "Invalid last non-pad Base64 character dectected"},
        {"{\"TableName\": \"abc\", \"Blob\": \"\"}", NULL},
        {NULL, NULL},
    };
    run_cases(cases, DDB_SERIALIZATION);
}

static void test_serialization_collections(void)
{
    static const struct expect cases[] = {
        /* a list or map as a structure field */
        {"{\"KeySchema\": \"23\"}", "Unexpected field type"},
        {"{\"KeySchema\": 23}", "Unexpected field type"},
        {"{\"KeySchema\": {}}", "Start of structure or map found where not expected"},
        {"{\"ExpressionAttributeNames\": true}", "Unexpected field type"},
        {"{\"ExpressionAttributeNames\": []}",
         "Unrecognized collection type java.util.Map<java.lang.String, java.lang.String>"},
        {"{\"Item\": 34.56}", "Unexpected field type"},
        {"{\"Item\": []}", "Unrecognized collection type java.util.Map<java.lang.String, "
                           "com.amazonaws.dynamodb.v20120810.AttributeValue>"},
        /* a structure as a field, and as a list element */
        {"{\"ProvisionedThroughput\": \"23\"}", "Unexpected field type"},
        {"{\"ProvisionedThroughput\": []}",
         "Unrecognized collection type class "
         "com.amazonaws.dynamodb.v20120810.ProvisionedThroughput"},
        {"{\"KeySchema\": [23]}", "Unexpected value type in payload"},
        {"{\"KeySchema\": [[]]}",
         "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.KeySchemaElement"},
        {"{\"KeySchema\": [{\"KeyType\": 5}]}", "NUMBER_VALUE cannot be converted to String"},
        /* collections inside collections */
        {"{\"Keys\": [\"a\"]}",
         "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
         "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and "
         "java.lang.Class are in module java.base of loader 'bootstrap')"},
        {"{\"Keys\": [[]]}", "Unrecognized collection type java.util.Map<java.lang.String, "
                             "com.amazonaws.dynamodb.v20120810.AttributeValue>"},
        {"{\"Nested\": {\"a\": true}}",
         "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
         "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and "
         "java.lang.Class are in module java.base of loader 'bootstrap')"},
        {"{\"Nested\": {\"a\": {}}}", "Start of structure or map found where not expected"},
        {"{\"Nested\": {\"a\": [1]}}", "NUMBER_VALUE cannot be converted to String"},
        {"{\"AttributesToGet\": [true]}", "TRUE_VALUE cannot be converted to String"},
        {NULL, NULL},
    };
    run_cases(cases, DDB_SERIALIZATION);
}

static void test_serialization_attribute_values(void)
{
    static const struct expect cases[] = {
        {"{\"Item\": {\"a\": \"x\"}}", "Unexpected value type in payload"},
        {"{\"Item\": {\"a\": []}}",
         "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"},
        {"{\"Item\": {\"a\": {\"S\": 1}}}", "NUMBER_VALUE cannot be converted to String"},
        {"{\"Item\": {\"a\": {\"N\": 1}}}", "NUMBER_VALUE cannot be converted to String"},
        {"{\"Item\": {\"a\": {\"B\": 1}}}",
         "only base-64-encoded strings are convertible to bytes"},
        {"{\"Item\": {\"a\": {\"BOOL\": \"x\"}}}", "Unexpected token received from parser"},
        {"{\"Item\": {\"a\": {\"NULL\": 1}}}", "NUMBER_VALUE cannot be converted to Boolean"},
        {"{\"Item\": {\"a\": {\"SS\": \"x\"}}}", "Unexpected field type"},
        {"{\"Item\": {\"a\": {\"SS\": [1]}}}", "NUMBER_VALUE cannot be converted to String"},
        {"{\"Item\": {\"a\": {\"BS\": [\"abc\"]}}}",
         "Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
        {"{\"Item\": {\"a\": {\"L\": [5]}}}", "Unexpected value type in payload"},
        {"{\"Item\": {\"a\": {\"L\": [{\"BS\": 5}]}}}", "Unexpected field type"},
        {"{\"Item\": {\"a\": {\"M\": 5}}}", "Unexpected field type"},
        {"{\"Item\": {\"a\": {\"M\": []}}}",
         "Unrecognized collection type java.util.Map<java.lang.String, "
         "com.amazonaws.dynamodb.v20120810.AttributeValue>"},
        {"{\"Item\": {\"a\": {\"M\": {\"b\": {\"BS\": [true]}}}}}",
         "only base-64-encoded strings are convertible to bytes"},
        /* unknown members are not looked at; null is absent */
        {"{\"TableName\": \"abc\", \"Item\": {\"a\": {\"X\": 1, \"S\": null}}}", NULL},
        {"{\"TableName\": \"abc\", \"Item\": {\"a\": {\"S\": \"x\"}}, \"Whatever\": [1, 2]}", NULL},
        {NULL, NULL},
    };
    run_cases(cases, DDB_SERIALIZATION);
}

static void test_first_type_error_in_document_order(void)
{
    static const struct expect cases[] = {
        {"{\"Limit\": \"x\", \"TableName\": 1}", "STRING_VALUE cannot be converted to Integer"},
        {"{\"TableName\": 1, \"Limit\": \"x\"}", "NUMBER_VALUE cannot be converted to String"},
        /* type errors come before any constraint */
        {"{\"BillingMode\": \"A\", \"Limit\": \"x\"}",
         "STRING_VALUE cannot be converted to Integer"},
        {NULL, NULL},
    };
    run_cases(cases, DDB_SERIALIZATION);
}

static void test_validation_messages(void)
{
    static const struct expect cases[] = {
        {"{}", "1 validation error detected: Value null at 'tableName' failed to satisfy "
               "constraint: Member must not be null"},
        {"{\"TableName\": null}", "1 validation error detected: Value null at 'tableName' failed "
                                  "to satisfy constraint: Member must not be null"},
        {"{\"TableName\": \"abc\"}", NULL},
        {"{\"TableName\": \"ab\"}",
         "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
         "Member must have length greater than or equal to 3"},
        {"{\"TableName\": \"\"}",
         "2 validation errors detected: Value '' at 'tableName' failed to satisfy constraint: "
         "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value '' at "
         "'tableName' failed to satisfy constraint: Member must have length greater than or "
         "equal to 3"},
        {"{\"TableName\": \"abc;\"}",
         "1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: "
         "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
        {"{\"TableName\": \"abc\", \"BillingMode\": \"A\"}",
         "1 validation error detected: Value 'A' at 'billingMode' failed to satisfy constraint: "
         "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"},
        {"{\"TableName\": \"abc\", \"Limit\": 0}",
         "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
         "Member must have value greater than or equal to 1"},
        {"{\"TableName\": \"abc\", \"Limit\": 200}",
         "1 validation error detected: Value '200' at 'limit' failed to satisfy constraint: "
         "Member must have value less than or equal to 100"},
        {"{\"TableName\": \"abc\", \"ProvisionedThroughput\": {}}",
         /* Members in Java HashMap order (shape.c struct_member_order). */
         "2 validation errors detected: Value null at 'provisionedThroughput.writeCapacityUnits' "
         "failed to satisfy constraint: Member must not be null; Value null at "
         "'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must "
         "not be null"},
        {"{\"TableName\": \"abc\", \"ProvisionedThroughput\": {\"ReadCapacityUnits\": -1, "
         "\"WriteCapacityUnits\": 1}}",
         "1 validation error detected: Value '-1' at 'provisionedThroughput.readCapacityUnits' "
         "failed to satisfy constraint: Member must have value greater than or equal to 1"},
        {"{\"TableName\": \"abc\", \"KeySchema\": []}",
         "1 validation error detected: Value '[]' at 'keySchema' failed to satisfy constraint: "
         "Member must have length greater than or equal to 1"},
        {"{\"TableName\": \"abc\", \"KeySchema\": [{\"KeyType\": \"HASH\"}, {\"AttributeName\": "
         "\"a\"}, {\"KeyType\": \"Woop\", \"AttributeName\": \"a\"}]}",
         "4 validation errors detected: Value '[KeySchemaElement(attributeName=null, "
         "keyType=HASH), KeySchemaElement(attributeName=a, keyType=null), "
         "KeySchemaElement(attributeName=a, keyType=Woop)]' at 'keySchema' failed to satisfy "
         "constraint: Member must have length less than or equal to 2; Value null at "
         "'keySchema.1.member.attributeName' failed to satisfy constraint: Member must not be "
         "null; Value null at 'keySchema.2.member.keyType' failed to satisfy constraint: Member "
         "must not be null; Value 'Woop' at 'keySchema.3.member.keyType' failed to satisfy "
         "constraint: Member must satisfy enum value set: [HASH, RANGE]"},
        {"{\"TableName\": \"abc\", \"AttributesToGet\": []}",
         "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy "
         "constraint: Member must have length greater than or equal to 1"},
        {"{\"TableName\": \"abc\", \"AttributesToGet\": [\"a\", \"\"]}",
         /* A string element is reported at the list, with all its constraints
          * (Coral's collection form, as AWS answers for Lambda's 'layers'). */
         "1 validation error detected: Value '[a, ]' at 'attributesToGet' failed to satisfy "
         "constraint: Member must satisfy constraint: [Member must have length greater than or "
         "equal to 1]"},
        {"{\"TableName\": \"abc\", \"Nested\": {\"t1\": [\"x\"]}}", NULL},
        {NULL, NULL},
    };
    run_cases(cases, DDB_VALIDATION);
}

/* Coral's collection forms: a map key, a map value and a string list element
 * that break their shape are reported at the collection with every
 * constraint of the shape, maximum, minimum and pattern in that order. */
static const struct field short_name = {
    .type = F_STRING, .min_len = 1, .max_len = 3, .pattern = "[a-z]+"};
static const struct field short_list = {
    .type = F_LIST, .min_len = 1, .max_len = 2, .member = &short_name};
static const struct field collection_fields[] = {
    {"Names", F_LIST, .member = &short_name},
    {"ByName", F_MAP, .member = &short_list, .key = &short_name},
    {"Item", F_ATTRIBUTE_MAP, .key = &short_name},
    {0},
};

static void test_collection_forms(void)
{
    enum ddb_error_code code;
    char *msg;

    msg = check_body(collection_fields, "{\"Names\": [\"ab\", \"ABCD\"]}", &code);
    CHECK_STR_EQ(msg, "1 validation error detected: Value '[ab, ABCD]' at 'names' failed to "
                      "satisfy constraint: Member must satisfy constraint: [Member must have "
                      "length less than or equal to 3, Member must have length greater than or "
                      "equal to 1, Member must satisfy regular expression pattern: [a-z]+]");
    free(msg);
    msg = check_body(collection_fields, "{\"ByName\": {\"a\": [\"x\", \"y\", \"z\"]}}", &code);
    CHECK_STR_EQ(msg, "1 validation error detected: Value '{a=[x, y, z]}' at 'byName' failed to "
                      "satisfy constraint: Map value must satisfy constraint: [Member must have "
                      "length less than or equal to 2, Member must have length greater than or "
                      "equal to 1]");
    free(msg);
    msg = check_body(collection_fields,
                     "{\"Item\": {\"ok\": {\"S\": \"x\"}, \"no!\": {\"S\": "
                     "\"y\"}}}",
                     &code);
    CHECK_STR_EQ(msg, "1 validation error detected: Value '{ok={S=x}, no!={S=y}}' at 'item' "
                      "failed to satisfy constraint: Map keys must satisfy constraint: [Member "
                      "must have length less than or equal to 3, Member must have length greater "
                      "than or equal to 1, Member must satisfy regular expression pattern: "
                      "[a-z]+]");
    free(msg);
    /* A value inside the limits is no violation; nested elements keep their paths. */
    msg = check_body(collection_fields, "{\"ByName\": {\"a\": [\"x\", \"\"]}}", &code);
    CHECK_STR_EQ(msg, "1 validation error detected: Value '[x, ]' at 'byName.a.member' failed to "
                      "satisfy constraint: Member must satisfy constraint: [Member must have "
                      "length less than or equal to 3, Member must have length greater than or "
                      "equal to 1, Member must satisfy regular expression pattern: [a-z]+]");
    free(msg);
}

static void test_validation_lists_at_most_ten(void)
{
    enum ddb_error_code code;
    char *msg = check_body(test_fields,
                           "{\"TableName\": \"a;\", \"AttributesToGet\": [\"\", \"\", \"\", \"\", "
                           "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]}",
                           &code);
    CHECK_INT_EQ(code, DDB_VALIDATION);
    CHECK(msg && strncmp(msg, "10 validation errors detected: ", 31) == 0);
    free(msg);
}

static const struct field create_like_fields[] = {
    {"AttributeDefinitions", F_LIST, .required = true, .member = &string_member},
    {"TableName", F_STRING, .required = true, .required_parameter = true, .table_name = true,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"KeySchema", F_LIST, .required = true, .member = &key_schema_element},
    {0},
};

static void test_prechecks(void)
{
    enum ddb_error_code code;
    char *msg;

    msg = check_body(create_like_fields, "{}", &code);
    CHECK_STR_EQ(msg, "The parameter 'TableName' is required but was not present in the request");
    CHECK_INT_EQ(code, DDB_VALIDATION);
    free(msg);
    msg = check_body(create_like_fields, "{\"TableName\": \"a;\"}", &code);
    CHECK_STR_EQ(msg,
                 "TableName must be at least 3 characters long and at most 255 characters long");
    free(msg);
    msg = check_body(create_like_fields, "{\"TableName\": \"abc;\"}", &code);
    CHECK_STR_EQ(msg,
                 "3 validation errors detected: Value null at 'attributeDefinitions' failed to "
                 "satisfy constraint: Member must not be null; Value null at 'keySchema' failed "
                 "to satisfy constraint: Member must not be null; Value 'abc;' at 'tableName' "
                 "failed to satisfy constraint: Member must satisfy regular expression "
                 "pattern: [a-zA-Z0-9_.-]+");
    free(msg);
}

/* The naming rule counts UTF-16 units (Java's String.length()), not bytes and
 * not code points: "\xc3\xa9\xc3\xa9" is 2 units in 4 bytes (too short,
 * reported before its pattern); an emoji is 2 units in 1 code point. */
static void test_name_length_counts_utf16_units(void)
{
    struct ddb_error err = {0};
    enum ddb_error_code code;
    char name[257];
    char *msg;

    msg = check_body(create_like_fields, "{\"TableName\": \"\xc3\xa9\xc3\xa9\"}", &code);
    CHECK_STR_EQ(msg,
                 "TableName must be at least 3 characters long and at most 255 characters long");
    free(msg);
    CHECK_INT_EQ(shape_check_name_length("TableName",
                                         "\xf0\x9f\x98\x80"
                                         "a",
                                         5, &err),
                 0);
    CHECK_INT_EQ(shape_check_name_length("TableName",
                                         "\xc3\xa9"
                                         "a",
                                         3, &err),
                 -1);
    CHECK_STR_EQ(err.message,
                 "TableName must be at least 3 characters long and at most 255 characters long");
    ddb_error_clear(&err);
    memset(name, 'a', sizeof name);
    CHECK_INT_EQ(shape_check_name_length("IndexName", name, 255, &err), 0);
    CHECK_INT_EQ(shape_check_name_length("IndexName", name, 256, &err), -1);
    CHECK_STR_EQ(err.message,
                 "IndexName must be at least 3 characters long and at most 255 characters long");
    ddb_error_clear(&err);
}

/* The whole naming rule, as an ARN's table name is held to it. */
static void test_table_name_rule_whole(void)
{
    char name[256];

    memset(name, 'a', sizeof name);
    CHECK(shape_is_table_name("a.b", 3));
    CHECK(shape_is_table_name(name, 255));
    CHECK(!shape_is_table_name(name, 256));
    CHECK(!shape_is_table_name("ab", 2));
    CHECK(!shape_is_table_name("ab;", 3));
    CHECK(!shape_is_table_name("ab\xc3\xa9", 4));
}

static void test_pattern(void)
{
    CHECK(shape_pattern_match("[a-zA-Z0-9_.-]+", "abc_.-Z9", 8));
    CHECK(!shape_pattern_match("[a-zA-Z0-9_.-]+", "", 0));
    CHECK(shape_pattern_match("[a-z]*", "", 0));
    CHECK(!shape_pattern_match("[a-zA-Z0-9_.-]+", "a b", 3));
    CHECK(!shape_pattern_match("[a-zA-Z0-9_.-]+", "caf\xc3\xa9", 5));
}

static void test_render(void)
{
    json_t *v = json_loads("{\"a\": [\"x\", 1, true], \"b\": null}", 0, NULL);
    char *s = shape_render_value(NULL, v);
    CHECK_STR_EQ(s, "{a=[x, 1, true], b=null}");
    free(s);
    json_decref(v);
    s = shape_render_value(NULL, NULL);
    CHECK_STR_EQ(s, "null");
    free(s);
}

/* Coral visits members in java.util.HashMap order of their lowerCamel names:
 * 16 buckets for PutItem's 11 members, 32 for UpdateItem's 13. The expected
 * orders are us-east-1's answers of 2026 (nubo-db/dynamodb-conformance,
 * captures/2026-06-09-validation-rewording.json: o_put_three_bad_enums,
 * o_upd_two_bad_enums). */
static const char *const bad_enum_choices[] = {"A", NULL};
#define ENUM_MEMBER(name)                                                                          \
    {                                                                                              \
        name, F_STRING, .choices = bad_enum_choices                                                \
    }
static const struct field put_like_fields[] = {
    {"TableName", F_STRING},
    {"Item", F_ATTRIBUTE_MAP},
    {"Expected", F_ATTRIBUTE_MAP},
    ENUM_MEMBER("ReturnValues"),
    ENUM_MEMBER("ReturnConsumedCapacity"),
    ENUM_MEMBER("ReturnItemCollectionMetrics"),
    {"ConditionalOperator", F_STRING},
    {"ConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_ATTRIBUTE_MAP},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {"ReturnValuesOnConditionCheckFailure", F_STRING},
    {0},
};
static const struct field update_like_fields[] = {
    {"TableName", F_STRING},
    {"Key", F_ATTRIBUTE_MAP},
    {"AttributeUpdates", F_ATTRIBUTE_MAP},
    {"Expected", F_ATTRIBUTE_MAP},
    {"ConditionalOperator", F_STRING},
    ENUM_MEMBER("ReturnValues"),
    ENUM_MEMBER("ReturnConsumedCapacity"),
    ENUM_MEMBER("ReturnItemCollectionMetrics"),
    {"UpdateExpression", F_STRING},
    {"ConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_ATTRIBUTE_MAP},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {"ReturnValuesOnConditionCheckFailure", F_STRING},
    {0},
};

static void test_members_in_java_hashmap_order(void)
{
    static const char body[] = "{\"ReturnConsumedCapacity\": \"x\", \"ReturnValues\": \"x\", "
                               "\"ReturnItemCollectionMetrics\": \"x\"}";
    enum ddb_error_code code;
    char *msg = check_body(put_like_fields, body, &code);
    CHECK_STR_EQ(msg, "3 validation errors detected: Value 'x' at 'returnValues' failed to "
                      "satisfy constraint: Member must satisfy enum value set: [A]; Value 'x' at "
                      "'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy "
                      "enum value set: [A]; Value 'x' at 'returnItemCollectionMetrics' failed to "
                      "satisfy constraint: Member must satisfy enum value set: [A]");
    free(msg);
    msg = check_body(update_like_fields, body, &code);
    CHECK_STR_EQ(msg, "3 validation errors detected: Value 'x' at 'returnConsumedCapacity' failed "
                      "to satisfy constraint: Member must satisfy enum value set: [A]; Value 'x' "
                      "at 'returnValues' failed to satisfy constraint: Member must satisfy enum "
                      "value set: [A]; Value 'x' at 'returnItemCollectionMetrics' failed to "
                      "satisfy constraint: Member must satisfy enum value set: [A]");
    free(msg);
}

/* A member whose name holds a NUL is another, unknown member: "TableName\u0000"
 * is not TableName, for the type checks and for the constraints. */
static void test_member_names_with_nul_are_other_members(void)
{
    json_t *body = json_object();
    struct ddb_error err = {0};

    json_object_setn_new(body, "TableName\0", 10, json_string("abc"));
    CHECK(shape_check(test_fields, body, &err) != 0);
    CHECK_STR_EQ(err.message, "1 validation error detected: Value null at 'tableName' failed to "
                              "satisfy constraint: Member must not be null");
    ddb_error_clear(&err);
    json_object_set_new(body, "TableName", json_string("abc"));
    json_object_setn_new(body, "Limit\0", 6, json_string("not a number"));
    CHECK_INT_EQ(shape_check(test_fields, body, &err), 0);
    ddb_error_clear(&err);
    json_decref(body);
}

int main(void)
{
    RUN(test_serialization_scalars);
    RUN(test_serialization_collections);
    RUN(test_serialization_attribute_values);
    RUN(test_first_type_error_in_document_order);
    RUN(test_validation_messages);
    RUN(test_validation_lists_at_most_ten);
    RUN(test_collection_forms);
    RUN(test_prechecks);
    RUN(test_name_length_counts_utf16_units);
    RUN(test_table_name_rule_whole);
    RUN(test_members_in_java_hashmap_order);
    RUN(test_pattern);
    RUN(test_render);
    RUN(test_member_names_with_nul_are_other_members);
    return check_report();
}
