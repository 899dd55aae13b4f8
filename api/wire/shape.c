/*
 * shape.c - the generic request-shape checker (see shape.h for the contract).
 *
 * Two passes over the body, mirroring how DynamoDB's front end (Coral)
 * handles a request:
 *
 *  1. Deserialization: the body is walked in document order and the first
 *     member whose JSON type does not fit the model is reported as a
 *     SerializationException. The texts are Coral's (recorded against the live
 *     service by dynalite's REMOTE test suite, test helpers' assertType): they
 *     depend on the expected Java type, the JSON token found and on where the
 *     member sits: a structure *field* that is not an object says
 *     "Unexpected field type", the same structure as a list element or map
 *     value says "Unexpected value type in payload", and a list or map nested
 *     inside another collection fails with a Java reflection cast message.
 *
 *  2. Model validation: in table order, first the checks DynamoDB raises on
 *     their own (.required_parameter, .table_name), then every constraint of
 *     every present member, collected into one ValidationException. Paths are
 *     the lowerCamel member names joined with '.', list elements as
 *     "<list>.<1-based index>.member", map values as "<map>.<key>.member".
 *
 * Nothing here allocates per member except the error message; paths are built
 * in a fixed buffer that grows on the heap only for very deep or long keys.
 */
#include "api/wire/shape.h"

#include "api/wire/arn.h"
#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORAL_MODEL_PACKAGE "com.amazonaws.dynamodb.v20120810."

const char *const shape_return_capacity_choices[] = {"INDEXES", "TOTAL", "NONE", NULL};

const struct field shape_attribute_name = {.type = F_STRING,
                                           .max_len = DDB_MAX_ATTRIBUTE_NAME_BYTES};

/* The text Coral sends when a list or map is not an array/object inside another collection. */
static const char cast_message[] =
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
    "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and "
    "java.lang.Class are in module java.base of loader 'bootstrap')";

static const char start_of_object[] = "Start of structure or map found where not expected";

/* ---- message helpers over text_buf ---- */

static void sbuf_truncate(struct text_buf *b, size_t len)
{
    b->len = len;
    if (b->data) b->data[len] = '\0';
}

/* Appends name with its first letter lowered, as Coral prints member paths. */
static void sbuf_lower_first(struct text_buf *b, const char *name)
{
    char c = name[0];

    if (c >= 'A' && c <= 'Z') c = (char) (c - 'A' + 'a');
    text_buf_add(b, &c, c ? 1 : 0);
    if (name[0]) text_buf_puts(b, name + 1);
}

/* ---- Java type names, for "Unrecognized collection type ..." ---- */

/* Appends the Java type of f as Type.getTypeName() prints it (no "class " prefix). */
static void java_type_name(struct text_buf *b, const struct field *f)
{
    switch (f->type) {
    case F_STRING: text_buf_puts(b, "java.lang.String"); return;
    case F_INTEGER: text_buf_puts(b, "java.lang.Integer"); return;
    case F_LONG: text_buf_puts(b, "java.lang.Long"); return;
    case F_DOUBLE: text_buf_puts(b, "java.lang.Double"); return;
    case F_BOOLEAN: text_buf_puts(b, "java.lang.Boolean"); return;
    case F_BLOB: text_buf_puts(b, "java.nio.ByteBuffer"); return;
    case F_STRUCT:
        text_buf_puts(b, CORAL_MODEL_PACKAGE);
        text_buf_puts(b, f->shape_name ? f->shape_name : "Unknown");
        return;
    case F_ATTRIBUTE_VALUE: text_buf_puts(b, CORAL_MODEL_PACKAGE "AttributeValue"); return;
    case F_LIST:
        text_buf_puts(b, "java.util.List<");
        java_type_name(b, f->member);
        text_buf_puts(b, ">");
        return;
    case F_MAP:
        text_buf_puts(b, "java.util.Map<java.lang.String, ");
        java_type_name(b, f->member);
        text_buf_puts(b, ">");
        return;
    case F_ATTRIBUTE_MAP:
        text_buf_puts(b, "java.util.Map<java.lang.String, " CORAL_MODEL_PACKAGE "AttributeValue>");
        return;
    case F_NONE: break;
    }
    assert(!"field type without a Java name");
}

/* Sets "Unrecognized collection type <type>": the message for a JSON array where f is expected. */
static int unrecognized_collection(const struct field *f, struct ddb_error *err)
{
    struct text_buf b = {0};
    int rc;

    text_buf_puts(&b, "Unrecognized collection type ");
    /* Class.toString() says "class X"; a parameterized type prints bare. */
    if (f->type != F_LIST && f->type != F_MAP && f->type != F_ATTRIBUTE_MAP)
        text_buf_puts(&b, "class ");
    java_type_name(&b, f);
    rc = ddb_error_set(err, DDB_SERIALIZATION, "%s", b.data);
    free(b.data);
    return rc;
}

/* ---- pass 1: JSON types (SerializationException) ---- */

/* The attribute value structure, as the model declares it. */
static const struct field av_string = {.type = F_STRING};
static const struct field av_blob = {.type = F_BLOB};
static const struct field av_value = {.type = F_ATTRIBUTE_VALUE};
static const struct field attribute_value_fields[] = {
    {"S", F_STRING},
    {"N", F_STRING},
    {"B", F_BLOB},
    {"SS", F_LIST, .member = &av_string},
    {"NS", F_LIST, .member = &av_string},
    {"BS", F_LIST, .member = &av_blob},
    {"M", F_MAP, .member = &av_value},
    {"L", F_LIST, .member = &av_value},
    {"NULL", F_BOOLEAN},
    {"BOOL", F_BOOLEAN},
    {0},
};

/* Coral's name for the JSON token found where a scalar was expected. */
static const char *token_name(json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: return "STRING_VALUE";
    case JSON_INTEGER: return "NUMBER_VALUE";
    case JSON_REAL: return "DECIMAL_VALUE";
    case JSON_TRUE: return "TRUE_VALUE";
    case JSON_FALSE: return "FALSE_VALUE";
    default: return "UNKNOWN_VALUE";
    }
}

/* The row of fields named name (len bytes: a member's name may hold a NUL,
 * and "TableName\u0000" is an unknown member, not TableName), or NULL. The
 * first letters are compared first: a shape's names mostly differ there, and
 * a full compare per row cost more than the whole match. */
static const struct field *field_find(const struct field *fields, const char *name, size_t len)
{
    for (const struct field *f = fields; f->name; f++)
        if (len && f->name[0] == name[0] && strlen(f->name) == len &&
            memcmp(f->name, name, len) == 0)
            return f;
    return NULL;
}

static int check_types(const struct field *f, json_t *v, bool in_collection, struct ddb_error *err);

static int check_struct_members(const struct field *fields, json_t *obj, struct ddb_error *err)
{
    const char *key;
    size_t key_len;
    json_t *child;

    /* Document order: the first bad member in the body is the one reported. */
    json_object_keylen_foreach(obj, key, key_len, child)
    {
        const struct field *f = field_find(fields, key, key_len);
        if (f && check_types(f, child, false, err) != 0) return -1;
    }
    return 0;
}

static int check_scalar(const char *java, json_t *v, json_type want, struct ddb_error *err)
{
    if (json_is_array(v))
        return ddb_error_set(err, DDB_SERIALIZATION,
                             "Unrecognized collection type class java.lang.%s", java);
    if (json_is_object(v)) return ddb_error_set(err, DDB_SERIALIZATION, "%s", start_of_object);
    if (want == JSON_STRING && json_is_string(v)) return 0;
    if (want == JSON_INTEGER && json_is_number(v)) return 0;
    if (want == JSON_TRUE && json_is_boolean(v)) return 0;
    if (want == JSON_TRUE && json_is_string(v))
        return ddb_error_set(err, DDB_SERIALIZATION, "Unexpected token received from parser");
    return ddb_error_set(err, DDB_SERIALIZATION, "%s cannot be converted to %s", token_name(v),
                         java);
}

/* Checks the JSON type of v against f. in_collection: v is a list element or
 * map value rather than a structure field (Coral words some errors differently). */
static int check_types(const struct field *f, json_t *v, bool in_collection, struct ddb_error *err)
{
    size_t i;
    json_t *elem;
    const char *key;

    if (json_is_null(v)) return 0;
    switch (f->type) {
    case F_STRING: return check_scalar("String", v, JSON_STRING, err);
    case F_INTEGER: return check_scalar("Integer", v, JSON_INTEGER, err);
    case F_LONG: return check_scalar("Long", v, JSON_INTEGER, err);
    case F_DOUBLE: return check_scalar("Double", v, JSON_INTEGER, err);
    case F_BOOLEAN: return check_scalar("Boolean", v, JSON_TRUE, err);
    case F_BLOB:
        if (json_is_array(v)) return unrecognized_collection(f, err);
        if (json_is_object(v)) return ddb_error_set(err, DDB_SERIALIZATION, "%s", start_of_object);
        if (!json_is_string(v))
            return ddb_error_set(err, DDB_SERIALIZATION,
                                 "only base-64-encoded strings are convertible to bytes");
        return text_base64_check(json_string_value(v), json_string_length(v), err);
    case F_LIST:
        if (json_is_object(v)) return ddb_error_set(err, DDB_SERIALIZATION, "%s", start_of_object);
        if (!json_is_array(v))
            return ddb_error_set(err, DDB_SERIALIZATION, "%s",
                                 in_collection ? cast_message : "Unexpected field type");
        json_array_foreach(v, i, elem) if (check_types(f->member, elem, true, err) != 0) return -1;
        return 0;
    case F_MAP:
    case F_ATTRIBUTE_MAP:
        if (json_is_array(v)) return unrecognized_collection(f, err);
        if (!json_is_object(v))
            return ddb_error_set(err, DDB_SERIALIZATION, "%s",
                                 in_collection ? cast_message : "Unexpected field type");
        json_object_foreach(v, key, elem)
        {
            if (check_types(f->type == F_MAP ? f->member : &av_value, elem, true, err) != 0)
                return -1;
        }
        return 0;
    case F_STRUCT:
    case F_ATTRIBUTE_VALUE:
        if (json_is_array(v)) return unrecognized_collection(f, err);
        if (!json_is_object(v))
            return ddb_error_set(err, DDB_SERIALIZATION, "%s",
                                 in_collection ? "Unexpected value type in payload"
                                               : "Unexpected field type");
        return check_struct_members(f->type == F_STRUCT ? f->children : attribute_value_fields, v,
                                    err);
    case F_NONE: break;
    }
    assert(!"unknown field type");
    return 0;
}

/* ---- value rendering for "Value '...' at" ---- */

static void render(struct text_buf *b, const struct field *f, json_t *v);

/* x without its fractional part (toward zero), without libm. */
static double truncated(double x)
{
    if (x >= 9.0e18 || x <= -9.0e18 || x != x) return x;
    return (double) (long long) x;
}

static void render_number(struct text_buf *b, const struct field *f, json_t *v)
{
    if (json_is_integer(v)) {
        text_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (f && f->type == F_DOUBLE) {
        text_buf_printf(b, "%.17g", json_real_value(v));
    } else {
        /* Integer/Long members keep the integral part of a decimal, as Coral converts it. */
        text_buf_printf(b, "%.0f", truncated(json_real_value(v)));
    }
}

static void render(struct text_buf *b, const struct field *f, json_t *v)
{
    size_t i;
    json_t *elem;
    const char *key;
    bool first = true;

    if (!v || json_is_null(v)) {
        text_buf_puts(b, "null");
        return;
    }
    switch (json_typeof(v)) {
    case JSON_STRING: text_buf_add(b, json_string_value(v), json_string_length(v)); return;
    case JSON_INTEGER:
    case JSON_REAL: render_number(b, f, v); return;
    case JSON_TRUE: text_buf_puts(b, "true"); return;
    case JSON_FALSE: text_buf_puts(b, "false"); return;
    case JSON_NULL: text_buf_puts(b, "null"); return;
    case JSON_ARRAY:
        /* java.util.List.toString(): "[a, b]" */
        text_buf_puts(b, "[");
        json_array_foreach(v, i, elem)
        {
            if (i) text_buf_puts(b, ", ");
            render(b, f && f->type == F_LIST ? f->member : NULL, elem);
        }
        text_buf_puts(b, "]");
        return;
    case JSON_OBJECT: break;
    }
    if (f && f->type == F_STRUCT && f->children) {
        /* The model classes print as ShapeName(memberName=value, ...), every member. */
        text_buf_puts(b, f->shape_name ? f->shape_name : "");
        text_buf_puts(b, "(");
        for (const struct field *c = f->children; c->name; c++) {
            if (c != f->children) text_buf_puts(b, ", ");
            sbuf_lower_first(b, c->name);
            text_buf_puts(b, "=");
            render(b, c, json_object_get(v, c->name));
        }
        text_buf_puts(b, ")");
        return;
    }
    /* java.util.Map.toString(): "{k=v, k2=v2}" */
    text_buf_puts(b, "{");
    json_object_foreach(v, key, elem)
    {
        if (!first) text_buf_puts(b, ", ");
        first = false;
        text_buf_puts(b, key);
        text_buf_puts(b, "=");
        render(b, f && f->type == F_MAP ? f->member : NULL, elem);
    }
    text_buf_puts(b, "}");
}

char *shape_render_value(const struct field *f, json_t *value)
{
    struct text_buf b = {0};

    render(&b, f, value);
    if (!b.data) return xstrdup("");
    return b.data;
}

/* ---- pattern "[...]+" / "[...]*" ---- */

bool shape_pattern_match(const char *pattern, const char *s, size_t len)
{
    const char *set, *end;
    char quant;

    /* Only the "[class]+" and "[class]*" forms exist in DynamoDB's request model. */
    assert(pattern[0] == '[');
    set = pattern + 1;
    end = strchr(set + 1, ']');
    assert(end && (end[1] == '+' || end[1] == '*') && end[2] == '\0');
    quant = end[1];
    if (len == 0) return quant == '*';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        bool in = false;
        for (const char *p = set; p < end && !in; p++) {
            if (p + 2 < end && p[1] == '-') {
                in = c >= (unsigned char) p[0] && c <= (unsigned char) p[2];
                p += 2;
            } else {
                in = c == (unsigned char) p[0];
            }
        }
        if (!in) return false;
    }
    return true;
}

/* ---- pass 2: constraints (ValidationException) ---- */

struct violations {
    struct text_buf msg;     /* "Value ... ; Value ..." */
    struct text_buf path;    /* the current member path, lowerCamel (the model's) */
    struct text_buf spelled; /* the same path as the request spells it (.unmodelled) */
    int count;
    bool unmodelled; /* the violation being written is an .unmodelled member's bound */
    /* Only count: no paths, no messages, members in the field table's order.
     * A request is checked so first; only one that breaks a rule is checked
     * again to write the answer (building every member's path took most of
     * the check's instructions, 4-15k a single-item request). */
    bool dry;
};

/* Both paths' lengths, to truncate back to. */
struct path_mark {
    size_t path, spelled;
};

static struct path_mark path_mark(const struct violations *vs)
{
    return (struct path_mark){vs->path.len, vs->spelled.len};
}

static void path_truncate(struct violations *vs, struct path_mark m)
{
    if (vs->dry) return;
    sbuf_truncate(&vs->path, m.path);
    sbuf_truncate(&vs->spelled, m.spelled);
}

/* Appends a segment that is spelled the same in both paths. */
static void path_add(struct violations *vs, const char *s, size_t len)
{
    if (vs->dry) return;
    text_buf_add(&vs->path, s, len);
    text_buf_add(&vs->spelled, s, len);
}

static void violation(struct violations *vs, const struct field *f, json_t *v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void violation(struct violations *vs, const struct field *f, json_t *v, const char *fmt, ...)
{
    va_list ap;
    char *text;
    int n;

    if (vs->dry) {
        vs->count++;
        return;
    }
    if (vs->count >= SHAPE_MAX_LISTED_ERRORS) return;
    if (vs->count) text_buf_puts(&vs->msg, "; ");
    vs->count++;
    text_buf_puts(&vs->msg, "Value ");
    if (vs->unmodelled) {
        text_buf_printf(&vs->msg, "at '%s' failed to satisfy constraint: ", vs->spelled.data);
        goto constraint;
    }
    if (v && !json_is_null(v)) {
        text_buf_puts(&vs->msg, "'");
        render(&vs->msg, f, v);
        text_buf_puts(&vs->msg, "'");
    } else {
        text_buf_puts(&vs->msg, "null");
    }
    text_buf_printf(&vs->msg, " at '%s' failed to satisfy constraint: ", vs->path.data);
constraint:
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    text = xmalloc((size_t) n + 1);
    va_start(ap, fmt);
    vsnprintf(text, (size_t) n + 1, fmt, ap);
    va_end(ap);
    text_buf_puts(&vs->msg, text);
    free(text);
}

static void check_length(struct violations *vs, const struct field *f, json_t *v, int64_t len)
{
    if (f->min_len && len < f->min_len)
        violation(vs, f, v, "Member must have length greater than or equal to %" PRId64,
                  f->min_len);
    if (f->max_len && len > f->max_len) {
        vs->unmodelled = f->unmodelled;
        violation(vs, f, v, "Member must have length less than or equal to %" PRId64, f->max_len);
        vs->unmodelled = false;
    }
}

/* A TableName that may be an ARN (.table_ref): an empty one breaks the
 * model's minimum of 1 alone ("Value '' at 'tableName' failed to satisfy
 * constraint: Member must have length greater than or equal to 1", issue 29);
 * an ARN only has the model's length; a name breaks the pattern, or else the
 * naming rule's length, which the model words as its own constraints. */
static void check_table_ref(struct violations *vs, const struct field *f, json_t *v)
{
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    int cmp;

    if (len == 0) {
        violation(vs, f, v, "Member must have length greater than or equal to 1");
    } else if (arn_is_arn(s, len)) {
        if (text_utf16_length(s, len) > DDB_MAX_TABLE_ARN_LEN)
            violation(vs, f, v, "Member must have length less than or equal to %d",
                      DDB_MAX_TABLE_ARN_LEN);
    } else if (!shape_pattern_match(SHAPE_TABLE_NAME_PATTERN, s, len)) {
        violation(vs, f, v, "Member must satisfy regular expression pattern: %s",
                  SHAPE_TABLE_NAME_PATTERN);
    } else if ((cmp = shape_name_length_cmp(s, len)) < 0) {
        violation(vs, f, v, "Member must have length greater than or equal to %d",
                  DDB_MIN_TABLE_NAME_LEN);
    } else if (cmp > 0) {
        violation(vs, f, v, "Member must have length less than or equal to %d",
                  DDB_MAX_TABLE_NAME_LEN);
    }
}

static void check_constraints(struct violations *vs, const struct field *f, json_t *v);

/*
 * Coral's collection forms. A string element of a list, a key of a map and a
 * map value (a string or a list) are checked against their shape's length and
 * pattern constraints, and each offending one is reported at the collection
 * with every constraint of that shape: "Member must satisfy constraint:
 * [Member must have length less than or equal to 255, Member must have
 * length greater than or equal to 1, Member must satisfy regular expression
 * pattern: [a-zA-Z0-9_.-]+]" (maximum, minimum, pattern: the order of the
 * RequestItems answers dynalite recorded, and of
 * "Map value must satisfy constraint: [Member must have length less than or
 * equal to 25, Member must have length greater than or equal to 1]" recorded
 * in us-east-1 in 2026, nubo-db/dynamodb-conformance c_bw_over25).
 */
static bool has_collection_rule(const struct field *m)
{
    return m && (m->type == F_STRING || m->type == F_LIST || m->type == F_MAP) &&
           (m->min_len || m->max_len || m->pattern);
}

static void collection_rule(struct text_buf *b, const struct field *m)
{
    const char *sep = "";
    text_buf_puts(b, "[");
    if (m->max_len) {
        text_buf_printf(b, "Member must have length less than or equal to %" PRId64, m->max_len);
        sep = ", ";
    }
    if (m->min_len) {
        text_buf_printf(b, "%sMember must have length greater than or equal to %" PRId64, sep,
                        m->min_len);
        sep = ", ";
    }
    if (m->pattern)
        text_buf_printf(b, "%sMember must satisfy regular expression pattern: %s", sep, m->pattern);
    text_buf_puts(b, "]");
}

/* Whether s (len bytes; or a collection of len entries) breaks m's constraints. */
static bool breaks_collection_rule(const struct field *m, const char *s, size_t len)
{
    int64_t n = m->type == F_STRING ? (int64_t) text_utf16_length(s, len) : (int64_t) len;
    if (m->min_len && n < m->min_len) return true;
    if (m->max_len && n > m->max_len) return true;
    return m->type == F_STRING && m->pattern && !shape_pattern_match(m->pattern, s, len);
}

static bool breaks_value_rule(const struct field *m, json_t *elem)
{
    if (!has_collection_rule(m)) return false;
    if (json_is_string(elem))
        return breaks_collection_rule(m, json_string_value(elem), json_string_length(elem));
    if (json_is_array(elem)) return breaks_collection_rule(m, NULL, json_array_size(elem));
    if (json_is_object(elem)) return breaks_collection_rule(m, NULL, json_object_size(elem));
    return false;
}

static void collection_violation(struct violations *vs, const struct field *f, json_t *v,
                                 const char *form, const struct field *m)
{
    struct text_buf rule = {0};

    if (vs->dry) {
        vs->count++;
        return;
    }
    collection_rule(&rule, m);
    violation(vs, f, v, "%s must satisfy constraint: %s", form, rule.data);
    free(rule.data);
}

/* The elements of list v (its own length is checked by the caller). */
/* Writes ".<n>.member" (n from 1) into seg, which holds 32 bytes; returns its
 * length. By hand: snprintf cost ~750 instructions an element, 4% of a
 * BatchGetItem of 100 keys (bench/README.md "Request path at 1,000,000 items"). */
static size_t member_segment(char *seg, size_t n)
{
    char digits[24];
    size_t d = 0, at = 0;

    do {
        digits[d++] = (char) ('0' + n % 10);
        n /= 10;
    } while (n);
    seg[at++] = '.';
    while (d)
        seg[at++] = digits[--d];
    memcpy(seg + at, ".member", sizeof ".member");
    return at + sizeof ".member" - 1;
}

static void check_list_elements(struct violations *vs, const struct field *f, json_t *v)
{
    struct path_mark base = path_mark(vs);
    size_t i;
    json_t *elem;

    json_array_foreach(v, i, elem)
    {
        char seg[32];
        if (f->member->type == F_STRING && has_collection_rule(f->member)) {
            if (breaks_value_rule(f->member, elem))
                collection_violation(vs, f, v, "Member", f->member);
            continue;
        }
        path_add(vs, seg, member_segment(seg, i + 1));
        check_constraints(vs, f->member, elem);
        path_truncate(vs, base);
    }
}

/* The keys and values of map v: each key against f->key, then its value. */
static void check_map_entries(struct violations *vs, const struct field *f, json_t *v)
{
    struct path_mark base = path_mark(vs);
    size_t key_len;
    const char *key;
    json_t *elem;

    json_object_keylen_foreach(v, key, key_len, elem)
    {
        if (f->key && !(f->table_ref && arn_is_arn(key, key_len)) &&
            breaks_collection_rule(f->key, key, key_len))
            collection_violation(vs, f, v, "Map keys", f->key);
        if (f->type == F_ATTRIBUTE_MAP) continue; /* values: wire_value.c */
        /* A null list where the list must have entries breaks the rule too
         * (BatchWriteItem {"RequestItems": {"t": null}}, issue 29; AWS's
         * exact answer is not recorded). */
        if (breaks_value_rule(f->member, elem) ||
            (json_is_null(elem) && f->member->type == F_LIST && f->member->min_len))
            collection_violation(vs, f, v, "Map value", f->member);
        /* A null structure is checked as an empty one, so that its required
         * members are reported (BatchGetItem {"RequestItems": {"t": null}}:
         * "Value null at 'requestItems.t.member.keys' ... Member must not be
         * null", issue 29; AWS's exact answer is not recorded). */
        if (json_is_null(elem) && f->member->type == F_STRUCT) {
            json_t *empty = json_object();
            path_add(vs, ".", 1);
            path_add(vs, key, key_len);
            path_add(vs, ".member", 7);
            check_constraints(vs, f->member, empty);
            path_truncate(vs, base);
            json_decref(empty);
            continue;
        }
        if (json_is_null(elem) || (f->member->type == F_STRING && has_collection_rule(f->member)))
            continue;
        path_add(vs, ".", 1);
        path_add(vs, key, key_len);
        path_add(vs, ".member", 7);
        /* A collection value's own length was reported in the map's form above. */
        if (has_collection_rule(f->member) && f->member->type == F_LIST) {
            if (json_is_array(elem)) check_list_elements(vs, f->member, elem);
        } else if (has_collection_rule(f->member) && f->member->type == F_MAP) {
            if (json_is_object(elem)) check_map_entries(vs, f->member, elem);
        } else {
            check_constraints(vs, f->member, elem);
        }
        path_truncate(vs, base);
    }
}

/*
 * The order in which Coral visits a structure's members: the iteration order
 * of a java.util.HashMap keyed by the lowerCamel member names. Each name's
 * String.hashCode() is spread (h ^ h >>> 16) and masked by the table size,
 * which starts at 16 and doubles whenever the members exceed three quarters
 * of it; members in one bucket keep the model's order (the field table's).
 * This reproduces every multi-error answer on record: us-east-1 in 2026
 * (PutItem "returnValues; returnConsumedCapacity; returnItemCollectionMetrics"
 * and "returnValues; tableName", DeleteItem "returnValues;
 * returnConsumedCapacity", UpdateItem, with 13 members and so 32 buckets,
 * "returnConsumedCapacity; returnValues"; nubo-db/dynamodb-conformance
 * captures/2026-06-09-validation-rewording.json), and, with the hash of
 * Java 7's HashMap, the older order dynalite recorded. A field table must
 * therefore list every member of the model's shape, in the model's order.
 */
#define MAX_STRUCT_MEMBERS 64

static uint32_t java_member_hash(const char *name)
{
    uint32_t h = 0;
    for (size_t i = 0; name[i]; i++) {
        unsigned char c = (unsigned char) name[i];
        if (i == 0 && c >= 'A' && c <= 'Z') c = (unsigned char) (c - 'A' + 'a');
        h = 31 * h + c;
    }
    return h ^ (h >> 16);
}

/* Fills order[] with fields in Coral's visiting order; returns their count. */
static size_t struct_member_order(const struct field *fields, const struct field **order)
{
    size_t n = 0, buckets = 16, out = 0;
    uint32_t bucket[MAX_STRUCT_MEMBERS];

    for (const struct field *c = fields; c->name; c++)
        n++;
    assert(n <= MAX_STRUCT_MEMBERS);
    while (n > buckets * 3 / 4)
        buckets *= 2;
    for (size_t i = 0; i < n; i++)
        bucket[i] = java_member_hash(fields[i].name) & (uint32_t) (buckets - 1);
    for (uint32_t b = 0; b < buckets; b++) {
        for (size_t i = 0; i < n; i++) {
            if (bucket[i] == b) order[out++] = &fields[i];
        }
    }
    return out;
}

/*
 * The dry pass only counts, so order does not matter: it visits the members
 * obj has (a request sets a few of its shape's many) and then the required
 * rows obj lacks. Looking every row up by name instead cost a hash of the
 * name per row, most of them absent: 13 lookups for UpdateItem's shape alone.
 */
static void count_struct_violations(struct violations *vs, const struct field *fields, json_t *obj)
{
    uint64_t present = 0; /* bit i: fields[i] is a member of obj */
    const char *key;
    size_t key_len;
    json_t *child;

    json_object_keylen_foreach(obj, key, key_len, child)
    {
        const struct field *f = field_find(fields, key, key_len);
        if (!f) continue;
        assert(f - fields < MAX_STRUCT_MEMBERS);
        present |= UINT64_C(1) << (f - fields);
        check_constraints(vs, f, child);
    }
    for (const struct field *f = fields; f->name; f++) {
        if (f->required && !(present & (UINT64_C(1) << (f - fields))))
            check_constraints(vs, f, NULL);
    }
}

static void check_struct_constraints(struct violations *vs, const struct field *fields, json_t *obj)
{
    struct path_mark base = path_mark(vs);
    const struct field *order[MAX_STRUCT_MEMBERS];
    size_t n;

    if (vs->dry) {
        count_struct_violations(vs, fields, obj);
        return;
    }
    n = struct_member_order(fields, order);
    for (size_t i = 0; i < n; i++) {
        const struct field *c = order[i];
        if (base.path) path_add(vs, ".", 1);
        sbuf_lower_first(&vs->path, c->name);
        text_buf_puts(&vs->spelled, c->name);
        check_constraints(vs, c, json_object_get(obj, c->name));
        path_truncate(vs, base);
    }
}

static void check_constraints(struct violations *vs, const struct field *f, json_t *v)
{
    if (!v || json_is_null(v)) {
        if (f->required) violation(vs, f, NULL, "Member must not be null");
        return;
    }
    switch (f->type) {
    case F_STRING: {
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        if (f->table_ref) {
            check_table_ref(vs, f, v);
            return;
        }
        if (f->pattern && !shape_pattern_match(f->pattern, s, len))
            violation(vs, f, v, "Member must satisfy regular expression pattern: %s", f->pattern);
        check_length(vs, f, v, (int64_t) text_utf16_length(s, len));
        if (f->choices) {
            bool found = false;
            for (const char *const *c = f->choices; *c && !found; c++)
                found = strlen(*c) == len && memcmp(*c, s, len) == 0;
            if (!found) {
                struct text_buf set = {0};
                for (const char *const *c = f->choices; *c; c++) {
                    if (c != f->choices) text_buf_puts(&set, ", ");
                    text_buf_puts(&set, *c);
                }
                violation(vs, f, v, "Member must satisfy enum value set: [%s]",
                          set.data ? set.data : "");
                free(set.data);
            }
        }
        return;
    }
    case F_INTEGER:
    case F_LONG:
    case F_DOUBLE: {
        double d = f->type == F_DOUBLE ? json_number_value(v) : truncated(json_number_value(v));
        vs->unmodelled = f->unmodelled;
        if (f->has_min &&
            (json_is_integer(v) ? json_integer_value(v) < f->min_value : d < (double) f->min_value))
            violation(vs, f, v, "Member must have value greater than or equal to %" PRId64,
                      f->min_value);
        if (f->has_max &&
            (json_is_integer(v) ? json_integer_value(v) > f->max_value : d > (double) f->max_value))
            violation(vs, f, v, "Member must have value less than or equal to %" PRId64,
                      f->max_value);
        vs->unmodelled = false;
        return;
    }
    case F_BLOB:
        check_length(
            vs, f, v,
            (int64_t) text_base64_decoded_length(json_string_value(v), json_string_length(v)));
        return;
    case F_LIST:
        check_length(vs, f, v, (int64_t) json_array_size(v));
        check_list_elements(vs, f, v);
        return;
    case F_MAP:
    case F_ATTRIBUTE_MAP:
        check_length(vs, f, v, (int64_t) json_object_size(v));
        check_map_entries(vs, f, v);
        return;
    case F_STRUCT: check_struct_constraints(vs, f->children, v); return;
    case F_BOOLEAN:
    case F_ATTRIBUTE_VALUE: /* content rules live in wire_value.c */
    case F_NONE: return;
    }
}

/* ---- the entry point ---- */

int shape_check(const struct field *fields, json_t *body, struct ddb_error *err)
{
    struct violations vs = {0};
    int rc = 0;

    assert(json_is_object(body));
    if (check_struct_members(fields, body, err) != 0) return -1;

    /* Checks DynamoDB makes on their own, before the model constraints. */
    for (const struct field *f = fields; f->name; f++) {
        json_t *v;
        if (!f->required_parameter && !f->table_name) continue;
        v = json_object_get(body, f->name);
        if (json_is_null(v)) v = NULL;
        if (f->required_parameter && !v)
            return ddb_error_set(
                err, DDB_VALIDATION,
                "The parameter '%s' is required but was not present in the request", f->name);
        if (f->table_name && v && json_is_string(v) &&
            !(f->table_ref && arn_is_arn(json_string_value(v), json_string_length(v))) &&
            shape_check_name_length(f->name, json_string_value(v), json_string_length(v), err) != 0)
            return -1;
    }

    vs.dry = true;
    check_struct_constraints(&vs, fields, body);
    if (vs.count == 0) return 0;
    vs = (struct violations){0};
    text_buf_puts(&vs.path, "");
    text_buf_puts(&vs.spelled, "");
    check_struct_constraints(&vs, fields, body);
    if (vs.count)
        rc = ddb_error_set(err, DDB_VALIDATION, "%d validation error%s detected: %s", vs.count,
                           vs.count == 1 ? "" : "s", vs.msg.data);
    free(vs.msg.data);
    free(vs.path.data);
    free(vs.spelled.data);
    return rc;
}

/* ---- table ARNs -> names (after the checks) ---- */

static int resolve_refs(const struct field *f, json_t *v, const char *region,
                        struct ddb_error *err);

/* Whether a value of f's shape can hold a table's name or ARN: only those
 * rows are looked up in the body (a lookup hashes the name, and most rows are
 * absent from a request). */
static bool may_hold_table_ref(const struct field *f)
{
    switch (f->type) {
    case F_STRING: return f->table_ref;
    case F_LIST: return may_hold_table_ref(f->member);
    case F_MAP: return f->table_ref || may_hold_table_ref(f->member);
    case F_STRUCT:
        for (const struct field *c = f->children; c->name; c++)
            if (may_hold_table_ref(c)) return true;
        return false;
    default: return false;
    }
}

static int resolve_struct_refs(const struct field *fields, json_t *obj, const char *region,
                               struct ddb_error *err)
{
    for (const struct field *c = fields; c->name; c++) {
        json_t *v;
        if (!may_hold_table_ref(c)) continue;
        v = json_object_get(obj, c->name);
        if (v && !json_is_null(v) && resolve_refs(c, v, region, err) != 0) return -1;
    }
    return 0;
}

/* Rewrites the ARN keys of obj as table names. A key whose name is already
 * a key of obj is left as it is (the request names the table twice). */
static int resolve_map_keys(json_t *obj, const char *region, struct ddb_error *err)
{
    const char *key;
    json_t *v;
    void *tmp;

    json_object_foreach_safe(obj, tmp, key, v)
    {
        char *name;
        if (!arn_is_arn(key, strlen(key))) continue;
        if (!(name = arn_table_name(key, strlen(key), region, err))) return -1;
        if (!json_object_get(obj, name)) {
            json_object_set(obj, name, v);
            json_object_del(obj, key);
        }
        free(name);
    }
    return 0;
}

static int resolve_refs(const struct field *f, json_t *v, const char *region, struct ddb_error *err)
{
    size_t i;
    json_t *elem;
    const char *key;

    switch (f->type) {
    case F_STRING: {
        char *name;
        if (!f->table_ref || !arn_is_arn(json_string_value(v), json_string_length(v))) return 0;
        name = arn_table_name(json_string_value(v), json_string_length(v), region, err);
        if (!name) return -1;
        json_string_set(v, name);
        free(name);
        return 0;
    }
    case F_STRUCT: return resolve_struct_refs(f->children, v, region, err);
    case F_LIST:
        json_array_foreach(v, i, elem)
        {
            if (resolve_refs(f->member, elem, region, err) != 0) return -1;
        }
        return 0;
    case F_MAP:
        if (f->table_ref && resolve_map_keys(v, region, err) != 0) return -1;
        json_object_foreach(v, key, elem)
        {
            if (resolve_refs(f->member, elem, region, err) != 0) return -1;
        }
        return 0;
    default: return 0;
    }
}

int shape_resolve_table_refs(const struct field *fields, json_t *body, const char *region,
                             struct ddb_error *err)
{
    return resolve_struct_refs(fields, body, region, err);
}
