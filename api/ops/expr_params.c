/*
 * expr_params.c - expression parameters shared by the data-plane handlers;
 * see expr_params.h.
 *
 * Only what concerns the wire lives here (which members are present, their
 * JSON decoding, key syntax); the expressions themselves are parsed and
 * checked in storage/expr_*.c.
 */
#include "api/ops/expr_params.h"

#include "api/wire/body.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/expr/expr_legacy.h"

#include <stdlib.h>
#include <string.h>

/* Empty params: no names, no values, no context yet. */
void expr_params_init(struct expr_params *p)
{
    memset(p, 0, sizeof *p);
    value_init_null(&p->names);
    value_init_null(&p->values);
}

/* Frees the maps and the context; p is left initialized. */
void expr_params_clear(struct expr_params *p)
{
    if (p->ctx_ready) expr_ctx_clear(&p->ctx);
    value_clear(&p->names);
    value_clear(&p->values);
    expr_params_init(p);
}

/* How many of names (but skip) obj has; with buf, also writes their list
 * ("a, b") there - only an error shows it, so a request that passes builds
 * none. */
static size_t list_present(const json_t *obj, const char *const *names, const char *skip, char *buf,
                           size_t cap)
{
    size_t n = 0, len = 0;
    if (buf) buf[0] = '\0';
    for (const char *const *p = names; *p; p++) {
        if (!body_member(obj, *p) || (skip && strcmp(*p, skip) == 0)) continue;
        if (buf)
            len +=
                (size_t) snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", n ? ", " : "", *p);
        n++;
    }
    return n;
}

/* See expr_params.h; obj is borrowed. */
int expr_params_check_mix(const json_t *obj, const char *const *expr_names,
                          const char *const *legacy_names, struct ddb_error *err)
{
    char exprs[256], legacy[256];
    size_t n_expr = list_present(obj, expr_names, NULL, NULL, 0);

    if (n_expr) {
        /* KeyConditions goes with FilterExpression/ProjectionExpression; only
         * KeyConditionExpression excludes it (dynalite test/query.js "all
         * expressions and non-expression without KeyConditionExpression"). */
        const char *skip =
            body_member(obj, "KeyConditions") && !body_member(obj, "KeyConditionExpression")
                ? "KeyConditions"
                : NULL;
        if (list_present(obj, legacy_names, skip, NULL, 0)) {
            list_present(obj, legacy_names, skip, legacy, sizeof legacy);
            list_present(obj, expr_names, NULL, exprs, sizeof exprs);
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Can not use both expression and non-expression parameters in "
                                 "the same request: Non-expression parameters: {%s} Expression "
                                 "parameters: {%s}",
                                 legacy, exprs);
        }
    }
    if (body_member(obj, "ExpressionAttributeNames") && !n_expr)
        return ddb_error_set(err, DDB_VALIDATION,
                             "ExpressionAttributeNames can only be specified when using "
                             "expressions");
    if (body_member(obj, "ExpressionAttributeValues")) {
        char nulls[256];
        size_t len = 0, n = 0;

        /* Every expression but ProjectionExpression can use values. */
        for (const char *const *p = expr_names; *p; p++) {
            if (strcmp(*p, "ProjectionExpression") != 0 && body_member(obj, *p)) return 0;
        }
        /* None is there: the error names every one the operation has. */
        nulls[0] = '\0';
        for (const char *const *p = expr_names; *p; p++) {
            if (strcmp(*p, "ProjectionExpression") == 0) continue;
            len += (size_t) snprintf(nulls + len, len < sizeof nulls ? sizeof nulls - len : 0,
                                     "%s%s", n ? " and " : "", *p);
            n++;
        }
        if (n)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "ExpressionAttributeValues can only be specified when using "
                                 "expressions: %s %s null",
                                 nulls, n > 1 ? "are" : "is");
    }
    return 0;
}

/* "#name" / ":value" keys: the prefix then one or more of [0-9a-zA-Z_]. */
static bool key_ok(const char *key, size_t len, char prefix)
{
    if (len < 2 || key[0] != prefix) return false;
    for (size_t i = 1; i < len; i++) {
        char c = key[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '_'))
            return false;
    }
    return true;
}

/* See expr_params.h; on -1 p holds what was decoded so far (expr_params_clear). */
int expr_params_decode(const json_t *obj, struct expr_params *p, struct ddb_error *err)
{
    json_t *names = body_member(obj, "ExpressionAttributeNames");
    json_t *values = body_member(obj, "ExpressionAttributeValues");
    const char *key;
    size_t key_len;
    json_t *v;

    /* Keys are read with their lengths: a NUL inside one makes it invalid, not shorter. */
    if (names) {
        if (json_object_size(names) == 0)
            return ddb_error_set(err, DDB_VALIDATION, "ExpressionAttributeNames must not be empty");
        json_object_keylen_foreach(names, key, key_len, v)
        {
            if (!key_ok(key, key_len, '#'))
                return ddb_error_set(err, DDB_VALIDATION,
                                     "ExpressionAttributeNames contains invalid key: Syntax "
                                     "error; key: \"%s\"",
                                     key);
            /* An attribute name is never empty (the text applications match on,
             * quoted from real answers in public code). */
            if (json_string_length(v) == 0)
                return ddb_error_set(err, DDB_VALIDATION,
                                     "ExpressionAttributeNames contains invalid value: Empty "
                                     "attribute name for key %s",
                                     key);
        }
        value_init_map(&p->names);
        json_object_foreach(names, key, v)
        {
            struct value s;
            value_init_string(&s, json_string_value(v), json_string_length(v));
            value_map_set(&p->names, key, strlen(key), &s);
        }
    }
    if (values) {
        if (json_object_size(values) == 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "ExpressionAttributeValues must not be empty");
        json_object_keylen_foreach(values, key, key_len, v)
        {
            if (!key_ok(key, key_len, ':'))
                return ddb_error_set(err, DDB_VALIDATION,
                                     "ExpressionAttributeValues contains invalid key: Syntax "
                                     "error; key: \"%s\"",
                                     key);
        }
        value_init_map(&p->values);
        json_object_foreach(values, key, v)
        {
            struct value decoded;
            struct ddb_error inner = {0};
            if (wire_value_from_json(v, &decoded, &inner) != 0) {
                /* A value the deserializer refuses (bad base64) is a
                 * SerializationException of the whole request, as in an
                 * Item or Key; only validation failures name the key. */
                if (inner.code != DDB_VALIDATION) {
                    ddb_error_move(err, &inner);
                    return -1;
                }
                ddb_error_set(err, DDB_VALIDATION,
                              "ExpressionAttributeValues contains invalid value: %s for key %s",
                              inner.message ? inner.message : "", key);
                ddb_error_clear(&inner);
                return -1;
            }
            value_map_set(&p->values, key, strlen(key), &decoded);
        }
    }
    expr_ctx_init(&p->ctx, names ? &p->names : NULL, values ? &p->values : NULL);
    p->ctx_ready = true;
    return 0;
}

/* See expr_params.h. */
int expr_params_parse(struct expr_params *p, const json_t *obj, const char *param,
                      enum expr_kind kind, struct expr **out, struct ddb_error *err)
{
    json_t *text = body_member(obj, param);

    *out = NULL;
    if (!text) return 0;
    return expr_parse(kind, param, json_string_value(text), json_string_length(text), &p->ctx, out,
                      err);
}

/* See expr_params.h. */
int expr_params_check_unused(const struct expr_params *p, struct ddb_error *err)
{
    return expr_ctx_check_unused(&p->ctx, err);
}

int expr_params_decode_names(const json_t *obj, struct expr_params *p, struct ddb_error *err)
{
    json_t *names_only;
    int rc;

    if (!json_object_get(obj, "ExpressionAttributeValues")) return expr_params_decode(obj, p, err);
    /* A shallow copy without the member; the decoded names are copies. */
    names_only = json_copy((json_t *) obj);
    json_object_del(names_only, "ExpressionAttributeValues");
    rc = expr_params_decode(names_only, p, err);
    json_decref(names_only);
    return rc;
}

/* One Expected entry's members, decoded; values owned here. */
struct expected_entry {
    struct value value; /* VALUE_NULL-typed and unused when absent */
    struct value *list; /* AttributeValueList */
    size_t list_count;
};

static void expected_entries_free(struct expected_entry *entries, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        value_clear(&entries[i].value);
        for (size_t v = 0; v < entries[i].list_count; v++)
            value_clear(&entries[i].list[v]);
        free(entries[i].list);
    }
    free(entries);
}

/* Decodes entry (an ExpectedAttributeValue, shape-checked) into *x and *own. */
static int decode_expected_entry(const char *name, size_t name_len, const json_t *entry,
                                 struct legacy_expected *x, struct expected_entry *own,
                                 struct ddb_error *err)
{
    json_t *value = body_member(entry, "Value"), *exists = body_member(entry, "Exists");
    json_t *op = body_member(entry, "ComparisonOperator"),
           *list = body_member(entry, "AttributeValueList");

    x->name = name;
    x->name_len = name_len;
    x->has_exists = exists != NULL;
    x->exists = json_is_true(exists);
    if (op) {
        x->has_op = true;
        /* The shape checked the enum. */
        legacy_op_from_name(json_string_value(op), json_string_length(op), &x->op);
    }
    if (value) {
        if (wire_value_from_json(value, &own->value, err) != 0) return -1;
        x->value = &own->value;
    }
    if (list) {
        size_t n = json_array_size(list);
        x->has_list = true;
        own->list = xcalloc(n ? n : 1, sizeof *own->list);
        for (size_t i = 0; i < n; i++) {
            if (wire_value_from_json(json_array_get(list, i), &own->list[i], err) != 0) return -1;
            own->list_count++;
        }
        x->values = own->list;
        x->value_count = n;
    }
    return 0;
}

int expr_params_expected(const json_t *obj, struct expr **out, struct ddb_error *err)
{
    json_t *expected = body_member(obj, "Expected"), *entry;
    bool use_or = false;
    size_t n = json_object_size(expected), i = 0;
    struct legacy_expected *conds;
    struct expected_entry *own;
    const char *name;
    size_t name_len;
    int rc = -1;

    *out = NULL;
    if (body_member(obj, "ConditionalOperator")) {
        if (n == 0)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "ConditionalOperator cannot be used without Filter or Expected");
        if (n == 1)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "ConditionalOperator can only be used when Filter or Expected "
                                 "has two or more elements");
        use_or = strcmp(json_string_value(body_member(obj, "ConditionalOperator")), "OR") == 0;
    }
    if (n == 0) return 0;
    conds = xcalloc(n, sizeof *conds);
    own = xcalloc(n, sizeof *own);
    for (i = 0; i < n; i++)
        value_init_null(&own[i].value);
    i = 0;
    /* Attribute names may contain NUL: keys are read with their lengths. */
    json_object_keylen_foreach(expected, name, name_len, entry)
    {
        if (decode_expected_entry(name, name_len, entry, &conds[i], &own[i], err) != 0) goto out;
        i++;
    }
    rc = expr_legacy_expected(conds, n, use_or, out, err);
out:
    expected_entries_free(own, n);
    free(conds);
    return rc;
}

int expr_params_attributes_to_get(const json_t *list, struct expr **out, struct ddb_error *err)
{
    size_t count = json_array_size(list);
    const char **names;
    size_t *lens;
    int rc;

    if (!list) return 0;
    names = xcalloc(count ? count : 1, sizeof *names);
    lens = xcalloc(count ? count : 1, sizeof *lens);
    for (size_t i = 0; i < count; i++) {
        names[i] = json_string_value(json_array_get(list, i));
        lens[i] = json_string_length(json_array_get(list, i));
    }
    rc = expr_legacy_projection(names, lens, count, out, err);
    free(names);
    free(lens);
    return rc;
}
