/*
 * wire_value.c - AttributeValue JSON <-> struct value; see wire_value.h.
 *
 * DynamoDB's deserializer turns the JSON into typed structures first (any
 * wrong JSON type, including bad base64, is a SerializationException), and
 * only then are the values validated (ValidationException). shape.c does the
 * first pass for the whole body; the decode_* functions here are the second,
 * and repeat the local type checks (check_*) so they are safe on input
 * nobody checked.
 *
 * Message texts are AWS's, recorded from real responses by dynalite's test
 * suite (test/helpers.js assertType for the deserializer texts,
 * test/getItem.js "invalid values in Key" for the validation texts) and, for
 * the nesting limit, by tests captured against real DynamoDB. Where AWS's
 * text has odd spacing or spelling ("An string set  may not be empty",
 * "dectected"), that is what AWS sends.
 *
 * Within one AttributeValue every type member present is validated, in JSON
 * order, before the "more than one datatypes" check: AWS answers
 * {"S": "a", "N": "b"} with the number error, not the count error.
 *
 * Nesting: the attribute value at the top of an item is level 1; a value at
 * level 33 or deeper is refused (a 31-times-wrapped scalar is accepted, 32
 * times is not).
 *
 * Sets: a decoded SS, NS or BS is put in set order (value.h, DynamoDB Local's
 * order) as its duplicates are checked; writing shows the stored order.
 *
 * Everything here is reentrant: no static mutable state.
 */
#include "api/wire/wire_value.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/model/number.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID_PREFIX "One or more parameter values were invalid: "

#define MSG_EMPTY_AV                                                                               \
    "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
#define MSG_MULTIPLE_AV                                                                            \
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "    \
    "supported datatypes"
#define MSG_NULL_FALSE INVALID_PREFIX "Null attribute value types must have the value of true"
#define MSG_EMPTY_SS   INVALID_PREFIX "An string set  may not be empty"
#define MSG_EMPTY_NS   INVALID_PREFIX "An number set  may not be empty"
#define MSG_EMPTY_BS   INVALID_PREFIX "Binary sets should not be empty"
#define MSG_DUP_NS     "Input collection contains duplicates"
#define MSG_NESTING                                                                                \
    "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "    \
    "beyond supported limit"

/* Deserializer texts (SerializationException). */
#define MSG_STRUCT_NOT_EXPECTED "Start of structure or map found where not expected"
#define MSG_FIELD_TYPE          "Unexpected field type"
#define MSG_VALUE_TYPE          "Unexpected value type in payload"
#define MSG_AV_COLLECTION                                                                          \
    "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"
#define MSG_AV_MAP_COLLECTION                                                                      \
    "Unrecognized collection type java.util.Map<java.lang.String, "                                \
    "com.amazonaws.dynamodb.v20120810.AttributeValue>"
#define MSG_BLOB_NOT_STRING "only base-64-encoded strings are convertible to bytes"
#define MSG_BLOB_COLLECTION "Unrecognized collection type class java.nio.ByteBuffer"

/* The AttributeValue members. */
static const struct {
    const char *name;
    size_t name_len;
    enum value_type type;
} members[] = {
    {"S", 1, VALUE_S},       {"N", 1, VALUE_N},       {"B", 1, VALUE_B}, {"SS", 2, VALUE_SS},
    {"NS", 2, VALUE_NS},     {"BS", 2, VALUE_BS},     {"M", 1, VALUE_M}, {"L", 1, VALUE_L},
    {"NULL", 4, VALUE_NULL}, {"BOOL", 4, VALUE_BOOL},
};

#define MEMBER_COUNT (sizeof members / sizeof members[0])

static int find_member(const char *key, size_t key_len)
{
    for (size_t i = 0; i < MEMBER_COUNT; i++) {
        if (members[i].name_len == key_len && memcmp(members[i].name, key, key_len) == 0)
            return (int) i;
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* JSON types (shape.c checks them first; repeated here for unchecked input) */
/* ------------------------------------------------------------------------ */

static int serialization(struct ddb_error *err, const char *msg)
{
    return ddb_error_set(err, DDB_SERIALIZATION, "%s", msg);
}

/* A String member (S, N, set elements). JSON null is absent. */
static int check_string(const json_t *j, struct ddb_error *err)
{
    switch (json_typeof(j)) {
    case JSON_STRING:
    case JSON_NULL: return 0;
    case JSON_TRUE: return serialization(err, "TRUE_VALUE cannot be converted to String");
    case JSON_FALSE: return serialization(err, "FALSE_VALUE cannot be converted to String");
    case JSON_INTEGER: return serialization(err, "NUMBER_VALUE cannot be converted to String");
    case JSON_REAL: return serialization(err, "DECIMAL_VALUE cannot be converted to String");
    case JSON_ARRAY:
        return serialization(err, "Unrecognized collection type class java.lang.String");
    case JSON_OBJECT: return serialization(err, MSG_STRUCT_NOT_EXPECTED);
    }
    return 0;
}

static int check_blob(const json_t *j, struct ddb_error *err)
{
    switch (json_typeof(j)) {
    case JSON_STRING: return text_base64_check(json_string_value(j), json_string_length(j), err);
    case JSON_NULL: return 0;
    case JSON_TRUE:
    case JSON_FALSE:
    case JSON_INTEGER:
    case JSON_REAL: return serialization(err, MSG_BLOB_NOT_STRING);
    case JSON_ARRAY: return serialization(err, MSG_BLOB_COLLECTION);
    case JSON_OBJECT: return serialization(err, MSG_STRUCT_NOT_EXPECTED);
    }
    return 0;
}

static int check_boolean(const json_t *j, struct ddb_error *err)
{
    switch (json_typeof(j)) {
    case JSON_TRUE:
    case JSON_FALSE:
    case JSON_NULL: return 0;
    case JSON_STRING: return serialization(err, "Unexpected token received from parser");
    case JSON_INTEGER: return serialization(err, "NUMBER_VALUE cannot be converted to Boolean");
    case JSON_REAL: return serialization(err, "DECIMAL_VALUE cannot be converted to Boolean");
    case JSON_ARRAY:
        return serialization(err, "Unrecognized collection type class java.lang.Boolean");
    case JSON_OBJECT: return serialization(err, MSG_STRUCT_NOT_EXPECTED);
    }
    return 0;
}

/* The container itself of a List member (SS, NS, BS, L). */
static int check_list_container(const json_t *j, struct ddb_error *err)
{
    switch (json_typeof(j)) {
    case JSON_ARRAY:
    case JSON_NULL: return 0;
    case JSON_OBJECT: return serialization(err, MSG_STRUCT_NOT_EXPECTED);
    default: return serialization(err, MSG_FIELD_TYPE);
    }
}

/* The container itself of a Map<String, AttributeValue>. */
static int check_map_container(const json_t *j, struct ddb_error *err)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT:
    case JSON_NULL: return 0;
    case JSON_ARRAY: return serialization(err, MSG_AV_MAP_COLLECTION);
    default: return serialization(err, MSG_FIELD_TYPE);
    }
}

/* The AttributeValue structure itself (not its members). */
static int check_av_container(const json_t *j, struct ddb_error *err)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT:
    case JSON_NULL: return 0;
    case JSON_ARRAY: return serialization(err, MSG_AV_COLLECTION);
    default: return serialization(err, MSG_VALUE_TYPE);
    }
}

/* ------------------------------------------------------------------------ */
/* validate and decode                                                       */
/* ------------------------------------------------------------------------ */

static int validation(struct ddb_error *err, const char *msg)
{
    return ddb_error_set(err, DDB_VALIDATION, "%s", msg);
}

static int decode_av(const json_t *av, int level, struct value *out, struct ddb_error *err);

/* Parses number text into canonical form. */
static int decode_number(const char *text, size_t len, struct value *out, struct ddb_error *err)
{
    struct number n;
    char buf[NUMBER_TEXT_MAX];
    size_t buf_len;

    if (number_parse(text, len, &n, err) != 0) return -1;
    buf_len = number_format(&n, buf, sizeof buf);
    value_init_number_text(out, buf, buf_len);
    return 0;
}

static int decode_string_member(const json_t *j, enum value_type type, struct value *out,
                                struct ddb_error *err)
{
    if (check_string(j, err) != 0) return -1;
    if (type == VALUE_N)
        return decode_number(json_string_value(j), json_string_length(j), out, err);
    value_init_string(out, json_string_value(j), json_string_length(j));
    return 0;
}

static int decode_blob_member(const json_t *j, struct value *out, struct ddb_error *err)
{
    const char *text = json_string_value(j);
    size_t len = json_string_length(j), bin_len;

    if (check_blob(j, err) != 0) return -1;
    /* value.h has no "take this buffer" constructor, so build it in place. */
    out->type = VALUE_B;
    out->u.str.data = text_base64_decode(text, len, &bin_len);
    out->u.str.len = bin_len;
    return 0;
}

/* Returns "e1, e2, ..." (the elements as given, binaries in their base64
 * text), as AWS prints the input collection in its duplicate messages. A NUL
 * inside an element ends the message early: messages are C strings. */
static char *render_collection(const json_t *list)
{
    size_t cap = 64, len = 0, i;
    char *buf = xmalloc(cap);
    json_t *e;

    json_array_foreach(list, i, e)
    {
        const char *s = json_is_string(e) ? json_string_value(e) : "null";
        size_t s_len = json_is_string(e) ? json_string_length(e) : 4;
        if (len + s_len + 3 > cap) {
            cap = (len + s_len + 3) * 2;
            buf = xrealloc(buf, cap);
        }
        if (i > 0) {
            buf[len++] = ',';
            buf[len++] = ' ';
        }
        memcpy(buf + len, s, s_len);
        len += s_len;
    }
    buf[len] = '\0';
    return buf;
}

static int decode_set(const json_t *j, enum value_type type, struct value *out,
                      struct ddb_error *err)
{
    size_t i;
    json_t *e;
    struct value set, elem;
    char *rendered;

    if (check_list_container(j, err) != 0) return -1;
    if (json_array_size(j) == 0) {
        return validation(err, type == VALUE_SS   ? MSG_EMPTY_SS
                               : type == VALUE_NS ? MSG_EMPTY_NS
                                                  : MSG_EMPTY_BS);
    }
    value_init_list(&set, type);
    json_array_foreach(j, i, e)
    {
        int rc;
        if (json_is_null(e)) {
            /* Not pinned against AWS: its number parser reports a null NS
             * member like an empty number, and the same text is used for
             * the other set types rather than inventing one. */
            rc = validation(err, "The parameter cannot be converted to a numeric value");
        } else if (type == VALUE_BS) {
            rc = decode_blob_member(e, &elem, err);
        } else {
            rc = decode_string_member(e, type == VALUE_NS ? VALUE_N : VALUE_S, &elem, err);
        }
        if (rc != 0) goto fail;
        value_list_append(&set, &elem);
    }
    /* Sorted into set order (value.h), which also brings duplicates together.
     * Numbers are in canonical text, so equal numbers (1 and 1.0) are equal. */
    if (value_set_sort(&set)) {
        *out = set;
        return 0;
    }
    if (type == VALUE_NS) {
        validation(err, MSG_DUP_NS);
        goto fail;
    }
    rendered = render_collection(j);
    if (type == VALUE_SS)
        ddb_error_set(err, DDB_VALIDATION,
                      INVALID_PREFIX "Input collection [%s] contains duplicates.", rendered);
    else
        ddb_error_set(err, DDB_VALIDATION,
                      INVALID_PREFIX "Input collection [%s]of type BS contains duplicates.",
                      rendered);
    free(rendered);
fail:
    value_clear(&set);
    return -1;
}

static int decode_list(const json_t *j, int level, struct value *out, struct ddb_error *err)
{
    size_t i;
    json_t *e;
    struct value list, elem;

    if (check_list_container(j, err) != 0) return -1;
    value_init_list(&list, VALUE_L);
    json_array_foreach(j, i, e)
    {
        if (decode_av(e, level + 1, &elem, err) != 0) {
            value_clear(&list);
            return -1;
        }
        value_list_append(&list, &elem);
    }
    *out = list;
    return 0;
}

/* Decodes a Map<String, AttributeValue> whose values stand at `level`. */
static int decode_map(const json_t *j, int level, struct value *out, struct ddb_error *err)
{
    const char *key;
    size_t key_len;
    json_t *child;
    struct value map, v;

    if (check_map_container(j, err) != 0) return -1;
    value_init_map(&map);
    if (json_is_object(j)) {
        json_object_keylen_foreach((json_t *) j, key, key_len, child)
        {
            if (decode_av(child, level, &v, err) != 0) {
                value_clear(&map);
                return -1;
            }
            /* A jansson object's keys are unique (a duplicate in the text
             * replaced the earlier value), so no lookup is needed. */
            value_map_append(&map, key, key_len, &v);
        }
    }
    *out = map;
    return 0;
}

static int decode_member(int m, const json_t *j, int level, struct value *out,
                         struct ddb_error *err)
{
    enum value_type type = members[m].type;

    switch (type) {
    case VALUE_S:
    case VALUE_N: return decode_string_member(j, type, out, err);
    case VALUE_B: return decode_blob_member(j, out, err);
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS: return decode_set(j, type, out, err);
    case VALUE_L: return decode_list(j, level, out, err);
    case VALUE_M: return decode_map(j, level + 1, out, err);
    case VALUE_NULL:
        if (check_boolean(j, err) != 0) return -1;
        if (!json_is_true(j)) return validation(err, MSG_NULL_FALSE);
        value_init_null(out);
        return 0;
    case VALUE_BOOL:
        if (check_boolean(j, err) != 0) return -1;
        value_init_bool(out, json_is_true(j));
        return 0;
    }
    return 0;
}

/* Decodes the AttributeValue av standing at nesting level `level`. */
static int decode_av(const json_t *av, int level, struct value *out, struct ddb_error *err)
{
    const char *key;
    size_t key_len;
    json_t *child;
    int found = 0;

    value_init_null(out);
    if (check_av_container(av, err) != 0) return -1;
    if (level > DDB_MAX_NESTING_DEPTH) return validation(err, MSG_NESTING);
    if (!json_is_object(av)) return validation(err, MSG_EMPTY_AV); /* JSON null */
    json_object_keylen_foreach((json_t *) av, key, key_len, child)
    {
        int m = find_member(key, key_len);
        struct value extra;
        if (m < 0 || json_is_null(child)) continue;
        /* Every member present is validated before the count is; the
         * first one decoded is the value, later ones only validated. */
        if (decode_member(m, child, level, found ? &extra : out, err) != 0) {
            value_clear(out);
            return -1;
        }
        if (found) value_clear(&extra);
        found++;
    }
    if (found == 1) return 0;
    value_clear(out);
    return validation(err, found == 0 ? MSG_EMPTY_AV : MSG_MULTIPLE_AV);
}

/*
 * Validates and decodes one AttributeValue that stands at the top level of
 * an item. On success *out owns the value; on -1 (ValidationException, or
 * SerializationException for a wrong JSON type) *out is NULL-typed.
 */
int wire_value_from_json(const json_t *av, struct value *out, struct ddb_error *err)
{
    return decode_av(av, 1, out, err);
}

/*
 * Validates and decodes {"name": AttributeValue, ...} (Item, Key,
 * ExpressionAttributeValues) into a VALUE_M owned by the caller. JSON null
 * gives an empty map. On -1 *out is NULL-typed.
 */
int wire_value_map_from_json(const json_t *map, struct value *out, struct ddb_error *err)
{
    value_init_null(out);
    return decode_map(map, 1, out, err);
}

/*
 * An item's attribute names are never empty: key names cannot be (the key
 * schema's are 1..255 bytes), and DynamoDB refuses an empty non-key name
 * with a ValidationException saying "Empty attribute name" (scylla's
 * test_limits.py test_limit_attribute_length_nonkey_empty, run against AWS;
 * the words before it are not recorded: ddbemu uses DynamoDB's usual prefix).
 */
int wire_item_from_json(const json_t *map, struct value *out, struct ddb_error *err)
{
    const char *key;
    size_t key_len;
    json_t *child;

    if (wire_value_map_from_json(map, out, err) != 0) return -1;
    if (!json_is_object(map)) return 0;
    json_object_keylen_foreach((json_t *) map, key, key_len, child)
    {
        (void) child;
        if (key_len == 0) {
            value_clear(out);
            return validation(err, "One or more parameter values were invalid: Empty attribute "
                                   "name");
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* encoding                                                                  */
/* ------------------------------------------------------------------------ */

/* The bare payload of a value (what goes after "S":). Strings are written
 * as stored: every S value entered through the JSON parser, which checked
 * its UTF-8. */
static void write_payload(struct json_out *w, const struct value *v)
{
    switch (v->type) {
    case VALUE_S:
    case VALUE_N: json_out_stringn(w, v->u.str.data, v->u.str.len); return;
    case VALUE_B: json_out_base64(w, v->u.str.data, v->u.str.len); return;
    case VALUE_BOOL: json_out_bool(w, v->u.boolean); return;
    case VALUE_NULL: json_out_bool(w, true); return;
    case VALUE_M: wire_value_write_map(w, v); return;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        assert(v->type == VALUE_L || value_set_is_sorted(v)); /* set order: value.h */
        json_out_array_begin(w);
        for (size_t i = 0; i < v->u.list.count; i++) {
            const struct value *e = &v->u.list.elems[i];
            if (v->type == VALUE_L)
                wire_value_write(w, e);
            else
                write_payload(w, e);
        }
        json_out_array_end(w);
        return;
    }
}

/*
 * Writes any value as an AttributeValue ({"S": ...}) into w, as the next
 * value of whatever w has open. Cannot fail.
 */
void wire_value_write(struct json_out *w, const struct value *v)
{
    json_out_object_begin(w);
    json_out_key(w, value_type_name(v->type));
    write_payload(w, v);
    json_out_object_end(w);
}

/*
 * Writes a VALUE_M as {"name": AttributeValue, ...} into w, names in stored
 * order. Cannot fail.
 */
void wire_value_write_map(struct json_out *w, const struct value *m)
{
    json_out_object_begin(w);
    for (size_t i = 0; i < m->u.map.count; i++) {
        const struct attr *a = &m->u.map.attrs[i];
        json_out_keyn(w, a->name, a->name_len);
        wire_value_write(w, &a->value);
    }
    json_out_object_end(w);
}
