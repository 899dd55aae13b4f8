/*
 * shape.h - request shapes as data, checked by one generic validator.
 *
 * Every operation declares its request body as a table of struct field (one
 * row per top-level member, terminated by an all-zero row), next to its
 * handler (STYLE B10, dynalite's design). dispatch.c calls shape_check()
 * before the handler, so handlers only see bodies whose members have the
 * right JSON types and satisfy the model's simple constraints.
 *
 * shape_check() reproduces what DynamoDB's request deserializer and model
 * validator answer, in that order:
 *   1. JSON type mismatches -> SerializationException with Coral's text (the
 *      first one in document order wins; its text depends on the expected type,
 *      the JSON type found, and whether the member is a structure field or the
 *      value inside a list/map).
 *   2. "parameter required" and table-name length checks that DynamoDB raises
 *      on their own before the model constraints (.required_parameter,
 *      .table_name), in table order.
 *   3. Constraint violations (not null, length, pattern, enum, value range),
 *      collected into one ValidationException
 *      "N validation error(s) detected: Value '...' at 'path' failed to satisfy
 *      constraint: Member must ...; ..." (at most 10 listed, as AWS does).
 *      The members of each structure are visited in the order Coral visits
 *      them, a java.util.HashMap's order of their names (shape.c,
 *      struct_member_order), so a table lists every member of the model's
 *      shape, in the model's order, and nothing else.
 * Unknown members are ignored and JSON null counts as absent, everywhere.
 * Cross-field rules stay in the handler, which runs after this.
 *
 * Tables are static const data; shape_check is reentrant.
 */
#ifndef DDB_API_SHAPE_H
#define DDB_API_SHAPE_H

#include "api/wire/shape_names.h"
#include "storage/base/error.h"
#include "storage/base/limits.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The JSON type of a member, as the AWS model declares it. */
enum field_type {
    F_NONE = 0,        /* terminator of a field table */
    F_STRING,          /* JSON string */
    F_INTEGER,         /* JSON number, Java Integer (Limit, Segment, ...) */
    F_LONG,            /* JSON number, Java Long (ReadCapacityUnits, ...) */
    F_DOUBLE,          /* JSON number, Java Double */
    F_BOOLEAN,         /* JSON true/false */
    F_BLOB,            /* base64 JSON string (checked: length % 4, alphabet) */
    F_LIST,            /* JSON array; .member describes each element */
    F_MAP,             /* JSON object with arbitrary keys; .member describes each value */
    F_STRUCT,          /* JSON object with known keys; .children is its field table */
    F_ATTRIBUTE_VALUE, /* one AttributeValue {"S": ...} (S N B BOOL NULL SS NS BS L M),
                          type-checked recursively; its content rules live in wire_value.c */
    F_ATTRIBUTE_MAP,   /* map of name -> AttributeValue (Item, Key, ExpressionAttributeValues) */
};

/*
 * One member of a request shape. Unset numeric constraints are 0/false, so a
 * row only names what applies:
 *
 *   {"TableName", F_STRING, .required = true, .min_len = 3, .max_len = 255,
 *    .pattern = SHAPE_TABLE_NAME_PATTERN},
 *   {"Limit", F_INTEGER, .has_min = true, .min_value = 1},
 *   {"KeySchema", F_LIST, .required = true, .min_len = 1, .max_len = 2,
 *    .member = &(const struct field){.type = F_STRUCT, .shape_name = "KeySchemaElement",
 *                                    .children = key_schema_element_fields}},
 *
 * Rows name only what applies, so api/ (and its tests) build with
 * -Wno-missing-field-initializers (api/CMakeLists.txt): {"S", F_STRING} is
 * fine. Pass the same flag when compiling an api file by hand.
 */
struct field {
    const char *name; /* the JSON key as AWS spells it ("TableName"); NULL ends a table */
    enum field_type type;

    /* "Value null at 'x' failed to satisfy constraint: Member must not be null" */
    bool required;
    /* Checked before the collected constraints, with its own message:
     * "The parameter 'TableName' is required but was not present in the request" */
    bool required_parameter;
    /* Checked before the collected constraints (only where AWS does so):
     * "TableName must be at least 3 characters long and at most 255 characters long" */
    bool table_name;

    /* Length: characters (UTF-16 units, as Java counts) of a string or blob's
     * decoded bytes; entries of a list or map. 0 means no bound. */
    int64_t min_len;
    int64_t max_len;
    /* A pattern of the form "[...]+" or "[...]*" (the only form DynamoDB's model
     * uses for request members), printed verbatim in the message. */
    const char *pattern;
    /* Allowed values of a string, NULL-terminated, in the order AWS prints them
     * in "Member must satisfy enum value set: [A, B]". */
    const char *const *choices;
    /* Numeric range of an integer/long/double member. */
    bool has_min;
    bool has_max;
    int64_t min_value;
    int64_t max_value;

    /* F_LIST / F_MAP: the shape of each element / value (its name is unused).
     * Length and pattern constraints of a string element, and length
     * constraints of a map value, are reported at the collection, once per
     * offending element, as "Member must satisfy constraint: [...]" / "Map
     * value must satisfy constraint: [...]" (Coral's collection forms). */
    const struct field *member;
    /* F_MAP / F_ATTRIBUTE_MAP: constraints of each key (an F_STRING row whose
     * name is unused), reported as "Map keys must satisfy constraint: [...]". */
    const struct field *key;
    /* F_STRUCT: the field table of the structure. */
    const struct field *children;
    /* F_STRUCT: the AWS model's shape name ("ProvisionedThroughput",
     * "KeySchemaElement"); Coral prints it in some serialization messages. */
    const char *shape_name;

    /* A table named by name or by table ARN (the TableArn shape: TableName
     * of every operation on an existing table). F_STRING: the value; F_MAP:
     * the keys (BatchGetItem/BatchWriteItem RequestItems). A name is checked
     * against the naming rules (the pattern, then 3..255 characters), an ARN
     * against its model length; shape_resolve_table_refs() then replaces each
     * ARN by the table's name. min_len, max_len and pattern are unused. */
    bool table_ref;
    /* The one rule for when DynamoDB prints the value: every model
     * violation prints it ("Value '0' at 'limit'"), except a member whose
     * numeric range or maximum length DynamoDB's operation checks rather
     * than its model. Those print no value and name the member as the
     * request spells it: "Value at 'Limit' failed to satisfy constraint:
     * ..." (Query's Limit, BatchGetItem's RequestItems.<table>.member.Keys
     * over 100, recorded against AWS by nubo-db/dynamodb-conformance, whose
     * Scan Limit 0 still prints "Value '0' at 'limit'"). Null and minimum
     * length violations keep the model's form. */
    bool unmodelled;
};

/* Patterns, fields and choice lists shared by many operations. */
#define SHAPE_TABLE_NAME_PATTERN "[a-zA-Z0-9_.-]+"

/* TableName of the operations on an existing table: a name or the table's
 * ARN. Names are reported as model constraints: the pattern, or else the
 * length 3..255 (dynalite test/putItem.js, recorded; ack-api-quirks
 * DDB-TABLE-442: "Value 'ab' at 'tableName' ... greater than or equal to 3"). */
#define SHAPE_TABLE_NAME_FIELD                                                                     \
    {                                                                                              \
        "TableName", F_STRING, .required = true, .table_ref = true                                 \
    }

/* The model's AttributeName: a map key or list element naming an attribute
 * (Item, Key, AttributesToGet, ...), at most 65535 characters. */
extern const struct field shape_attribute_name;

/* ReturnConsumedCapacity, in the order AWS lists the choices. */
extern const char *const shape_return_capacity_choices[];

/* The most violations AWS lists in one ValidationException. */
#define SHAPE_MAX_LISTED_ERRORS 10

/*
 * Checks body (a JSON object, borrowed) against fields. Returns 0 when it
 * conforms; otherwise sets err (SerializationException or
 * ValidationException with AWS's exact text) and returns -1. The body is not
 * modified; members absent from the table are ignored, JSON null is absent.
 */
int shape_check(const struct field *fields, json_t *body, struct ddb_error *err);

/*
 * Replaces every table ARN in the members marked .table_ref (the values of
 * strings, the keys of maps, at any depth) by the table's name, after
 * shape_check() accepted body. region is the request's. Returns 0, or -1 with
 * AWS's error for an ARN that names no table of this account and region
 * (arn.h); body may then be partly rewritten, and is not used again.
 */
int shape_resolve_table_refs(const struct field *fields, json_t *body, const char *region,
                             struct ddb_error *err);

/*
 * The "Value '...'" rendering AWS uses in constraint messages, for handlers
 * that raise the same sentence form themselves: strings as they are, numbers
 * as written, lists "[a, b]", maps/structures in Java's toString form.
 * Returns an owned string ("null" for NULL).
 */
char *shape_render_value(const struct field *f, json_t *value);

/* Whether s (len bytes) matches a "[...]+" / "[...]*" pattern. */
bool shape_pattern_match(const char *pattern, const char *s, size_t len);

#endif
