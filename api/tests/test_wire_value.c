/*
 * test_wire_value.c - AttributeValue JSON <-> struct value.
 *
 * Tables of (JSON, expected error) cases, as jq tests its language: every
 * validation text here is one AWS sends (sources in api/wire/wire_value.c), so a
 * changed message fails here before it fails a conformance test. Round trips
 * check the canonical encoding (numbers normalized, binaries re-encoded, set
 * order kept).
 */
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/base/error.h"
#include "storage/model/value.h"
#include "storage/tests/check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr);
    if (!j) fprintf(stderr, "bad test JSON %s: %s\n", text, jerr.text);
    return j;
}

/* The writer's text for v ({"S": ...}, or the map form); the caller frees it. */
static char *encode(const struct value *v, bool as_map)
{
    struct json_out w;
    size_t len;

    json_out_init(&w);
    if (as_map)
        wire_value_write_map(&w, v);
    else
        wire_value_write(&w, v);
    return json_out_take(&w, &len);
}

/* Decodes one AttributeValue; returns the error message or NULL on success
 * (the decoded value is re-encoded into *back when back is not NULL). */
static char *decode_one(const char *text, enum ddb_error_code *code, char **back)
{
    json_t *j = parse(text);
    struct value v;
    struct ddb_error err = {0};
    char *msg = NULL;

    *code = DDB_OK;
    if (back) *back = NULL;
    if (wire_value_from_json(j, &v, &err) != 0) {
        CHECK(v.type == VALUE_NULL);
        *code = err.code;
        msg = strdup(err.message ? err.message : "");
    } else if (back) {
        *back = encode(&v, false);
    }
    value_clear(&v);
    ddb_error_clear(&err);
    json_decref(j);
    return msg;
}

struct error_case {
    const char *json;
    enum ddb_error_code code;
    const char *message;
};

#define V       DDB_VALIDATION
#define S       DDB_SERIALIZATION
#define INVALID "One or more parameter values were invalid: "
#define EMPTY_AV                                                                                   \
    "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
#define MULTI_AV                                                                                   \
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "    \
    "supported datatypes"
#define NOT_NUMERIC "The parameter cannot be converted to a numeric value"

static const struct error_case error_cases[] = {
    /* exactly one type (dynalite test/getItem.js, recorded from AWS) */
    {"{}", V, EMPTY_AV},
    {"{\"a\": \"\"}", V, EMPTY_AV},
    {"{\"S\": null}", V, EMPTY_AV},
    {"{\"M\": {\"a\": {}}}", V, EMPTY_AV},
    {"{\"L\": [{}]}", V, EMPTY_AV},
    {"{\"L\": [{\"a\": {}}]}", V, EMPTY_AV},
    {"{\"S\": \"a\", \"N\": \"1\"}", V, MULTI_AV},
    {"{\"BOOL\": true, \"NULL\": true}", V, MULTI_AV},
    /* each member is validated before the count */
    {"{\"S\": \"\", \"N\": \"\"}", V, NOT_NUMERIC},
    {"{\"S\": \"a\", \"N\": \"b\"}", V, NOT_NUMERIC ": b"},
    /* values */
    {"{\"NULL\": false}", V, INVALID "Null attribute value types must have the value of true"},
    {"{\"SS\": []}", V, INVALID "An string set  may not be empty"},
    {"{\"NS\": []}", V, INVALID "An number set  may not be empty"},
    {"{\"BS\": []}", V, INVALID "Binary sets should not be empty"},
    {"{\"SS\": [\"a\", \"a\"]}", V, INVALID "Input collection [a, a] contains duplicates."},
    {"{\"SS\": [\"a\", \"b\", \"a\"]}", V,
     INVALID "Input collection [a, b, a] contains duplicates."},
    {"{\"BS\": [\"Yg==\", \"Yg==\"]}", V,
     INVALID "Input collection [Yg==, Yg==]of type BS contains duplicates."},
    {"{\"NS\": [\"1\", \"1\"]}", V, "Input collection contains duplicates"},
    {"{\"NS\": [\"1\", \"1.0\"]}", V, "Input collection contains duplicates"},
    {"{\"NS\": [\"1\", \"\"]}", V, NOT_NUMERIC},
    {"{\"NS\": [\"1\", \"b\", \"a\"]}", V, NOT_NUMERIC ": b"},
    {"{\"N\": \"\"}", V, NOT_NUMERIC},
    {"{\"N\": \"123456789012345678901234567890123456789\"}", V,
     "Attempting to store more than 38 significant digits in a Number"},
    {"{\"N\": \"1e126\"}", V,
     "Number overflow. Attempting to store a number with magnitude larger than supported range"},
    {"{\"N\": \"-1e-131\"}", V,
     "Number underflow. Attempting to store a number with magnitude smaller than supported "
     "range"},
    {"{\"M\": {\"x\": {\"NS\": []}}}", V, INVALID "An number set  may not be empty"},
    /* JSON types (dynalite test/helpers.js assertType, recorded from AWS) */
    {"{\"S\": 5}", S, "NUMBER_VALUE cannot be converted to String"},
    {"{\"S\": 5.5}", S, "DECIMAL_VALUE cannot be converted to String"},
    {"{\"N\": true}", S, "TRUE_VALUE cannot be converted to String"},
    {"{\"S\": false}", S, "FALSE_VALUE cannot be converted to String"},
    {"{\"S\": []}", S, "Unrecognized collection type class java.lang.String"},
    {"{\"S\": {}}", S, "Start of structure or map found where not expected"},
    {"{\"BOOL\": \"true\"}", S, "Unexpected token received from parser"},
    {"{\"NULL\": 1}", S, "NUMBER_VALUE cannot be converted to Boolean"},
    {"{\"BOOL\": []}", S, "Unrecognized collection type class java.lang.Boolean"},
    {"{\"B\": 1}", S, "only base-64-encoded strings are convertible to bytes"},
    {"{\"B\": []}", S, "Unrecognized collection type class java.nio.ByteBuffer"},
    {"{\"B\": \"23456\"}", S,
     "Base64 encoded length is expected a multiple of 4 bytes but found: 5"},
    {"{\"B\": \"=+/=\"}", S, "Invalid last non-pad Base64 character dectected"},
    {"{\"B\": \"+/+=\"}", S, "Invalid last non-pad Base64 character dectected"},
    {"{\"SS\": \"a\"}", S, "Unexpected field type"},
    {"{\"L\": {}}", S, "Start of structure or map found where not expected"},
    {"{\"L\": [5]}", S, "Unexpected value type in payload"},
    {"{\"L\": [[]]}", S,
     "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"},
    {"{\"M\": []}", S,
     "Unrecognized collection type java.util.Map<java.lang.String, "
     "com.amazonaws.dynamodb.v20120810.AttributeValue>"},
    {"{\"M\": 5}", S, "Unexpected field type"},
    {"5", S, "Unexpected value type in payload"},
    {"[]", S, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"},
};

static void test_wire_value_invalid_values_get_aws_errors(void)
{
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        enum ddb_error_code code;
        char *msg = decode_one(error_cases[i].json, &code, NULL);
        if (!msg) {
            fprintf(stderr, "case %s: decoded, expected an error\n", error_cases[i].json);
            CHECK(msg != NULL);
            continue;
        }
        if (code != error_cases[i].code) fprintf(stderr, "case %s\n", error_cases[i].json);
        CHECK_INT_EQ(code, error_cases[i].code);
        CHECK_STR_EQ(msg, error_cases[i].message);
        free(msg);
    }
}

struct round_trip_case {
    const char *json;
    const char *expected;
};

static const struct round_trip_case round_trips[] = {
    {"{\"S\": \"hello\"}", "{\"S\":\"hello\"}"},
    {"{\"S\": \"\"}", "{\"S\":\"\"}"},
    {"{\"N\": \"1.50\"}", "{\"N\":\"1.5\"}"},
    {"{\"N\": \"1e2\"}", "{\"N\":\"100\"}"},
    {"{\"N\": \"-0\"}", "{\"N\":\"0\"}"},
    {"{\"N\": \"12345678901234567890123456789012345678\"}",
     "{\"N\":\"12345678901234567890123456789012345678\"}"},
    {"{\"B\": \"\"}", "{\"B\":\"\"}"},
    {"{\"B\": \"YWJj\"}", "{\"B\":\"YWJj\"}"},
    {"{\"B\": \"YQ==\"}", "{\"B\":\"YQ==\"}"},
    {"{\"B\": \"YWI=\"}", "{\"B\":\"YWI=\"}"},
    {"{\"BOOL\": false}", "{\"BOOL\":false}"},
    {"{\"NULL\": true}", "{\"NULL\":true}"},
    /* sets come back in DynamoDB Local's order (storage/model/value.h) */
    {"{\"SS\": [\"b\", \"a\", \"\"]}", "{\"SS\":[\"\",\"a\",\"b\"]}"},
    /* UTF-16 code units: B < a < e-acute < U+1F600 (surrogates) < U+FF21 */
    {"{\"SS\": [\"\xef\xbc\xa1\", \"\xf0\x9f\x98\x80\", \"\xc3\xa9\", \"a\", \"B\"]}",
     "{\"SS\":[\"B\",\"a\",\"\xc3\xa9\",\"\xf0\x9f\x98\x80\",\"\xef\xbc\xa1\"]}"},
    {"{\"NS\": [\"10\", \"1.0E1\" ]}", NULL}, /* 10 twice: duplicates */
    {"{\"NS\": [\"3\", \"1.10\"]}", "{\"NS\":[\"1.1\",\"3\"]}"},
    /* numerically, not as text */
    {"{\"NS\": [\"10\", \"9\", \"-1\", \"1e2\", \"0.001\", \"-10\"]}",
     "{\"NS\":[\"-10\",\"-1\",\"0.001\",\"9\",\"10\",\"100\"]}"},
    {"{\"BS\": [\"YQ==\", \"\"]}", "{\"BS\":[\"\",\"YQ==\"]}"},
    /* bytes as unsigned, a prefix first: 00 < 0000 < 7f < 80 < ff */
    {"{\"BS\": [\"/w==\", \"gA==\", \"fw==\", \"AAA=\", \"AA==\"]}",
     "{\"BS\":[\"AA==\",\"AAA=\",\"fw==\",\"gA==\",\"/w==\"]}"},
    {"{\"L\": [{\"S\": \"x\"}, {\"N\": \"01\"}, {\"L\": []}]}",
     "{\"L\":[{\"S\":\"x\"},{\"N\":\"1\"},{\"L\":[]}]}"},
    /* map members keep their order */
    {"{\"M\": {\"b\": {\"N\": \"2\"}, \"a\": {\"M\": {}}}}",
     "{\"M\":{\"b\":{\"N\":\"2\"},\"a\":{\"M\":{}}}}"},
    /* unknown members and null members are ignored */
    {"{\"S\": \"x\", \"X\": 1, \"N\": null}", "{\"S\":\"x\"}"},
};

static void test_wire_value_round_trips_are_canonical(void)
{
    for (size_t i = 0; i < sizeof round_trips / sizeof round_trips[0]; i++) {
        enum ddb_error_code code;
        char *back = NULL;
        char *msg = decode_one(round_trips[i].json, &code, &back);
        if (!round_trips[i].expected) {
            CHECK(msg != NULL);
        } else {
            if (msg) fprintf(stderr, "case %s: %s\n", round_trips[i].json, msg);
            CHECK(msg == NULL);
            CHECK_STR_EQ(back, round_trips[i].expected);
        }
        free(msg);
        free(back);
    }
}

/* The JSON wire_encoded_write_item writes for the encoding of map m. */
static char *encode_from_encoding(const struct value *m, struct name_dict *dict,
                                  const struct wire_top_names *keep)
{
    struct text_buf enc = {0};
    struct json_out w;
    size_t len;

    item_encode(&enc, m, dict);
    json_out_init(&w);
    CHECK(wire_encoded_write_item(&w, enc.data, enc.len, dict, keep));
    text_buf_clear(&enc);
    return json_out_take(&w, &len);
}

/* Every round-trip case, as one attribute of an item, written from the
 * compact encoding: the same bytes as the tree writer's. */
static void test_wire_encoded_writes_what_the_tree_writes(void)
{
    struct name_dict *dict = name_dict_new();
    for (size_t i = 0; i < sizeof round_trips / sizeof round_trips[0]; i++) {
        struct ddb_error err = {0};
        struct value v, m;
        json_t *j = parse(round_trips[i].json);
        if (!round_trips[i].expected) {
            json_decref(j);
            continue;
        }
        CHECK(wire_value_from_json(j, &v, &err) == 0);
        json_decref(j);
        value_init_map(&m);
        value_map_set(&m, "attr", 4, &v);
        char *want = encode(&m, true);
        char *got = encode_from_encoding(&m, dict, NULL);
        CHECK_STR_EQ(got, want);
        free(got);
        got = encode_from_encoding(&m, NULL, NULL);
        CHECK_STR_EQ(got, want);
        free(got);
        free(want);
        value_clear(&m);
    }
    name_dict_unref(dict);
}

/* A projection of top-level names skips the others without reading them. */
static void test_wire_encoded_projection_skips(void)
{
    struct ddb_error err = {0};
    struct value m;
    json_t *j = parse("{\"pk\": {\"S\": \"a\"}, \"big\": {\"L\": [{\"N\": \"1\"}]},"
                      " \"n\": {\"N\": \"-2.50\"}}");
    static const char *const names[] = {"n", "pk", "absent"};
    static const size_t lens[] = {1, 2, 6};
    struct wire_top_names keep = {names, lens, 3};

    CHECK(wire_value_map_from_json(j, &m, &err) == 0);
    json_decref(j);
    char *got = encode_from_encoding(&m, NULL, &keep);
    CHECK_STR_EQ(got, "{\"n\":{\"N\":\"-2.5\"},\"pk\":{\"S\":\"a\"}}");
    free(got);
    /* Found before the end: the walk stops there (and keep's order holds). */
    static const char *const two[] = {"pk", "big"};
    static const size_t two_lens[] = {2, 3};
    struct wire_top_names first_two = {two, two_lens, 2};
    got = encode_from_encoding(&m, NULL, &first_two);
    CHECK_STR_EQ(got, "{\"pk\":{\"S\":\"a\"},\"big\":{\"L\":[{\"N\":\"1\"}]}}");
    free(got);
    value_clear(&m);
}

/* A projection of more names than fit on the writer's stack, interned and
 * inline, some absent: the kept ones in keep's order, each once. */
static void test_wire_encoded_projection_of_many_names(void)
{
    struct name_dict *dict = name_dict_new();
    struct value m;
    char names[40][8], want[2048];
    const char *keep_names[40];
    size_t keep_lens[40], len = 0;

    value_init_map(&m);
    for (int i = 0; i < 30; i++) {
        struct value v;
        snprintf(names[i], sizeof names[i], "a%02d", i);
        value_init_number_text(&v, "7", 1);
        value_map_append(&m, names[i], 3, &v);
    }
    /* keep: a39..a10 (a30..a39 absent), backwards */
    len += (size_t) snprintf(want + len, sizeof want - len, "{");
    for (int k = 0; k < 30; k++) {
        int i = 39 - k;
        snprintf(names[i], sizeof names[i], "a%02d", i);
        keep_names[k] = names[i];
        keep_lens[k] = 3;
        if (i < 30)
            len += (size_t) snprintf(want + len, sizeof want - len, "%s\"a%02d\":{\"N\":\"7\"}",
                                     len > 1 ? "," : "", i);
    }
    snprintf(want + len, sizeof want - len, "}");
    struct wire_top_names keep = {keep_names, keep_lens, 30};
    char *got = encode_from_encoding(&m, dict, &keep);
    CHECK_STR_EQ(got, want);
    free(got);
    got = encode_from_encoding(&m, NULL, &keep);
    CHECK_STR_EQ(got, want);
    free(got);
    value_clear(&m);
    name_dict_unref(dict);
}

/* The item JSON text, written from the tree and from the encoding (names
 * interned and inline): all three must be the same bytes. */
static void check_encoded_like_tree(const char *item_json, struct name_dict *dict)
{
    struct ddb_error err = {0};
    struct value m;
    json_t *j = parse(item_json);

    CHECK(j != NULL);
    if (wire_value_map_from_json(j, &m, &err) != 0) {
        fprintf(stderr, "item %s: %s\n", item_json, err.message);
        CHECK(0);
        ddb_error_clear(&err);
        json_decref(j);
        return;
    }
    json_decref(j);
    char *want = encode(&m, true);
    char *got = encode_from_encoding(&m, dict, NULL);
    CHECK_STR_EQ(got, want);
    free(got);
    got = encode_from_encoding(&m, NULL, NULL);
    CHECK_STR_EQ(got, want);
    free(got);
    free(want);
    value_clear(&m);
}

/* Numbers of every shape: sign, integers with and without trailing zeros,
 * fractions, exponents at both ends of DynamoDB's range, 38 digits with the
 * point anywhere. */
static const char *const number_shapes[] = {
    "0",
    "-0",
    "0.000",
    "1",
    "-1",
    "7",
    "10",
    "-10",
    "100",
    "1000000",
    "1e2",
    "1.5e3",
    "120.0",
    "-120.50",
    "25.000",
    "0.0100",
    "0.1",
    "-0.1",
    "0.000001",
    "1e-7",
    "3.14159",
    "-2.50",
    "1234.5678",
    "1700000000123",
    "1700000000000",
    "1e-130",
    "-1e-130",
    "1.5e-129",
    "1E+125",
    "-1E+125",
    "9.9999999999999999999999999999999999999E+125",
    "-9.9999999999999999999999999999999999999E+125",
    "12345678901234567890123456789012345678",
    "-12345678901234567890123456789012345678",
    "1234567890123456789012345678901234567.8",
    "1.2345678901234567890123456789012345678",
    "0.12345678901234567890123456789012345678",
    "-0.00012345678901234567890123456789012345678",
    "1.2345678901234567890123456789012345678e-100",
    "12345678901234567890123456789012345678e50",
    "10000000000000000000000000000000000000",
    "100000000000000000000000000000000000000000000000000000",
};

/* Each number shape alone, in a list, in a map and in a number set. */
static void test_wire_encoded_numbers_of_every_shape(void)
{
    struct name_dict *dict = name_dict_new();
    for (size_t i = 0; i < sizeof number_shapes / sizeof number_shapes[0]; i++) {
        char item[512];
        const char *n = number_shapes[i];
        snprintf(item, sizeof item,
                 "{\"n\": {\"N\": \"%s\"}, \"l\": {\"L\": [{\"N\": \"%s\"}, {\"S\": \"x\"}]},"
                 " \"m\": {\"M\": {\"k\": {\"N\": \"%s\"}}}, \"ns\": {\"NS\": [\"%s\"]}}",
                 n, n, n, n);
        check_encoded_like_tree(item, dict);
    }
    name_dict_unref(dict);
}

/* xorshift64: the same pseudo-random inputs on every run. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Random numbers (1 to 38 digits, zeros anywhere, the point or exponent
 * anywhere in range) and random strings of every length with a byte that
 * needs escaping at random places, as values and as names. */
static void test_wire_encoded_random_numbers_and_strings(void)
{
    struct name_dict *dict = name_dict_new();
    uint64_t state = 0x9E3779B97F4A7C15ULL;

    for (int n = 0; n < 3000; n++) {
        char digits[40], item[512];
        size_t count = 1 + next_random(&state) % 38;
        for (size_t i = 0; i < count; i++) {
            uint64_t r = next_random(&state);
            digits[i] = (char) ('0' + (r % 3 == 0 ? 0 : r % 10));
        }
        digits[0] = (char) ('1' + next_random(&state) % 9);
        digits[count] = '\0';
        int exponent = (int) (next_random(&state) % 200) - 100 - (int) count;
        snprintf(item, sizeof item, "{\"a\": {\"N\": \"%s%se%d\"}}",
                 next_random(&state) % 2 ? "-" : "", digits, exponent);
        check_encoded_like_tree(item, dict);
    }
    static const char *const pieces[] = {
        "a",       "Z",       " ",      "\\\"",   "\\\\",           "/", "\\n",
        "\\u0001", "\\u001f", "\u00e9", "\u20ac", "\\ud83d\\ude00", "~"};
    for (int n = 0; n < 3000; n++) {
        char text[400], item[1400];
        size_t len = 0, count = next_random(&state) % 60;
        for (size_t i = 0; i < count; i++) {
            const char *p = next_random(&state) % 4
                                ? "a"
                                : pieces[next_random(&state) % (sizeof pieces / sizeof pieces[0])];
            memcpy(text + len, p, strlen(p));
            len += strlen(p);
        }
        text[len] = '\0';
        snprintf(item, sizeof item, "{\"k%s\": {\"S\": \"%s\"}, \"ss\": {\"SS\": [\"%s\"]}}", text,
                 text, text);
        check_encoded_like_tree(item, dict);
    }
    name_dict_unref(dict);
}

/* The writer's common member (an S or N with a one-byte length under a name
 * interned below id 2^13, nothing to escape) at each of its bounds and just
 * past it: names at ids 1, 63, 64 (a two-byte id), 8191 and 8192 (three
 * bytes), a name with a quote (id 0), strings of 127 and 128 bytes (a
 * two-byte length), a string that needs an escape, a number: all written
 * as the tree writer writes them. */
static void test_wire_encoded_common_members_at_their_bounds(void)
{
    static const uint32_t ids[] = {1, 63, 64, 8191, 8192};
    struct name_dict *dict = name_dict_new();
    char long_text[129], name[32], values[5][160], item[2560];
    uint32_t id;

    memset(long_text, 'a', 128);
    long_text[128] = '\0';
    snprintf(values[0], sizeof values[0], "\"S\": \"plain\"");
    snprintf(values[1], sizeof values[1], "\"S\": \"tab\\there\"");
    snprintf(values[2], sizeof values[2], "\"N\": \"1700000000123\"");
    snprintf(values[3], sizeof values[3], "\"S\": \"%.127s\"", long_text);
    snprintf(values[4], sizeof values[4], "\"S\": \"%s\"", long_text);
    CHECK(name_dict_intern(dict, "q\"", 2, &id) && id == 0);
    for (uint32_t i = 1; i <= 8192; i++) {
        snprintf(name, sizeof name, "n%u", (unsigned) i);
        CHECK(name_dict_intern(dict, name, strlen(name), &id) && id == i);
    }
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            snprintf(item, sizeof item, "{\"n%u\": {%s}, \"n1\": {%s}, \"q\\\"\": {%s}}",
                     (unsigned) ids[i], values[v], values[v], values[v]);
            check_encoded_like_tree(item, dict);
        }
    }
    name_dict_unref(dict);
}

static void test_wire_value_binary_is_stored_decoded(void)
{
    json_t *j = parse("{\"B\": \"AGFi/w==\"}");
    struct value v;
    struct ddb_error err = {0};

    CHECK_INT_EQ(wire_value_from_json(j, &v, &err), 0);
    CHECK_INT_EQ(v.type, VALUE_B);
    CHECK_INT_EQ(v.u.str.len, 4);
    CHECK(memcmp(v.u.str.data, "\0ab\xff", 4) == 0);
    value_clear(&v);
    json_decref(j);
}

static void test_wire_value_strings_keep_nul_bytes(void)
{
    json_t *j = parse("{\"S\": \"a\\u0000b\"}");
    struct value v;
    struct ddb_error err = {0};
    char *enc;

    CHECK_INT_EQ(wire_value_from_json(j, &v, &err), 0);
    CHECK_INT_EQ(v.u.str.len, 3);
    enc = encode(&v, false);
    CHECK_STR_EQ(enc, "{\"S\":\"a\\u0000b\"}");
    free(enc);
    value_clear(&v);
    json_decref(j);
}

/* A scalar wrapped in `wraps` maps: {"M": {"n": ... {"S": "leaf"} ...}}. */
static json_t *deep_map(int wraps)
{
    json_t *v = json_pack("{s:s}", "S", "leaf");
    for (int i = 0; i < wraps; i++)
        v = json_pack("{s:{s:o}}", "M", "n", v);
    return v;
}

/* Real DynamoDB accepts a leaf at level 32 (31 wraps) and refuses level 33
 * (captured against eu-west-2, see wire_value.c). */
static void test_wire_value_nesting_limit_is_32_levels(void)
{
    json_t *ok = deep_map(31), *deep = deep_map(32);
    json_t *list = json_pack("{s:[{s:s}]}", "L", "S", "x");
    struct value v;
    struct ddb_error err = {0};

    CHECK_INT_EQ(wire_value_from_json(ok, &v, &err), 0);
    value_clear(&v);
    CHECK_INT_EQ(wire_value_from_json(deep, &v, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, "Nesting Levels have exceeded supported limits: Attributes in the "
                              "item have nested levels beyond supported limit");
    ddb_error_clear(&err);
    /* lists count the same way */
    for (int i = 0; i < 31; i++)
        list = json_pack("{s:[o]}", "L", list);
    CHECK_INT_EQ(wire_value_from_json(list, &v, &err), -1);
    CHECK(err.message && strstr(err.message, "Nesting Levels") != NULL);
    ddb_error_clear(&err);
    json_decref(ok);
    json_decref(deep);
    json_decref(list);
}

static void test_wire_value_map_decodes_items_in_order(void)
{
    json_t *j = parse("{\"pk\": {\"S\": \"k\"}, \"n\": {\"N\": \"007\"}, \"z\": {\"NULL\": true}}");
    struct value m;
    struct ddb_error err = {0};
    char *text;

    CHECK_INT_EQ(wire_value_map_from_json(j, &m, &err), 0);
    CHECK_INT_EQ(m.type, VALUE_M);
    CHECK_INT_EQ(m.u.map.count, 3);
    CHECK_STR_EQ(m.u.map.attrs[0].name, "pk");
    CHECK_STR_EQ(m.u.map.attrs[1].value.u.str.data, "7");
    text = encode(&m, true);
    CHECK_STR_EQ(text, "{\"pk\":{\"S\":\"k\"},\"n\":{\"N\":\"7\"},\"z\":{\"NULL\":true}}");
    free(text);
    value_clear(&m);
    json_decref(j);
}

static void test_wire_value_map_errors(void)
{
    struct value m;
    struct ddb_error err = {0};
    json_t *j = parse("{\"a\": {\"S\": \"x\"}, \"b\": null}");

    CHECK_INT_EQ(wire_value_map_from_json(j, &m, &err), -1);
    CHECK_STR_EQ(err.message, EMPTY_AV);
    CHECK(m.type == VALUE_NULL);
    ddb_error_clear(&err);
    json_decref(j);

    j = parse("[]");
    CHECK_INT_EQ(wire_value_map_from_json(j, &m, &err), -1);
    CHECK_INT_EQ(err.code, DDB_SERIALIZATION);
    ddb_error_clear(&err);
    json_decref(j);
}

int main(void)
{
    RUN(test_wire_value_invalid_values_get_aws_errors);
    RUN(test_wire_value_round_trips_are_canonical);
    RUN(test_wire_value_binary_is_stored_decoded);
    RUN(test_wire_value_strings_keep_nul_bytes);
    RUN(test_wire_value_nesting_limit_is_32_levels);
    RUN(test_wire_value_map_decodes_items_in_order);
    RUN(test_wire_value_map_errors);
    RUN(test_wire_encoded_writes_what_the_tree_writes);
    RUN(test_wire_encoded_projection_skips);
    RUN(test_wire_encoded_projection_of_many_names);
    RUN(test_wire_encoded_numbers_of_every_shape);
    RUN(test_wire_encoded_common_members_at_their_bounds);
    RUN(test_wire_encoded_random_numbers_and_strings);
    return check_report();
}
