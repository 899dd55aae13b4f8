/*
 * expr_legacy.h - the pre-expression request parameters, translated onto the
 * expression AST (STYLE B9: one evaluator for both languages).
 *
 * Older SDK code still sends KeyConditions, QueryFilter / ScanFilter (with
 * ConditionalOperator) and AttributesToGet. api/ decodes their JSON into the
 * plain structs below (values already validated by api/wire/wire_value.c); this
 * module checks what DynamoDB checks on them, in DynamoDB's order and with its
 * texts, and builds ordinary struct expr trees that read.c and the evaluator
 * use exactly as if they had been parsed from an expression:
 *
 *   QueryFilter/ScanFilter -> EXPR_CONDITION (one comparison per attribute,
 *                             joined by AND, or OR with ConditionalOperator OR)
 *   KeyConditions          -> EXPR_KEY_CONDITION (the same comparisons, plus one
 *                             key term per attribute, resolved against the key
 *                             schema by expr_legacy_key_resolve)
 *   AttributesToGet        -> EXPR_PROJECTION (one top-level path per name)
 *
 * Built trees have no source text (expr->src is NULL), own their values, and
 * never refer to ExpressionAttributeNames/Values.
 *
 * The single-item writes have two more (expr_legacy_expected,
 * expr_legacy_updates):
 *
 *   Expected               -> EXPR_CONDITION (Exists/Value become
 *                             attribute_not_exists / "=", ComparisonOperator
 *                             entries the comparisons above)
 *   AttributeUpdates       -> EXPR_UPDATE (PUT is SET, DELETE is REMOVE or the
 *                             set DELETE, ADD is ADD - or, for a list, SET
 *                             a = list_append(if_not_exists(a, []), v))
 *
 * The evaluator tells a built update from a parsed one (its source is NULL)
 * only to word one error as AWS words it for AttributeUpdates: "Type mismatch
 * for attribute to update" where an UpdateExpression gets "An operand in the
 * update expression has an incorrect data type".
 */
#ifndef DDB_EXPR_LEGACY_H
#define DDB_EXPR_LEGACY_H

#include "storage/base/error.h"
#include "storage/expr/expr.h"
#include "storage/model/schema.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>

/* ComparisonOperator values, in the order AWS lists them in its enum message. */
enum legacy_op {
    LEGACY_IN,
    LEGACY_NULL,
    LEGACY_BETWEEN,
    LEGACY_LT,
    LEGACY_NOT_CONTAINS,
    LEGACY_EQ,
    LEGACY_GT,
    LEGACY_NOT_NULL,
    LEGACY_NE,
    LEGACY_LE,
    LEGACY_BEGINS_WITH,
    LEGACY_GE,
    LEGACY_CONTAINS,
};

/* Parses a ComparisonOperator name (case-sensitive, as AWS is); false when unknown. */
bool legacy_op_from_name(const char *name, size_t len, enum legacy_op *out);
/* "EQ", "BEGINS_WITH", ... */
const char *legacy_op_name(enum legacy_op op);

/* One attribute's condition of a KeyConditions / QueryFilter / ScanFilter
 * map. Everything is borrowed for the duration of the call. */
struct legacy_condition {
    const char *name; /* the attribute name (may contain NUL: use name_len) */
    size_t name_len;
    enum legacy_op op;
    const struct value *values; /* AttributeValueList, decoded; NULL when absent */
    size_t value_count;
};

/*
 * Checks conditions as DynamoDB does before anything else reads them, each
 * condition in map order (dynalite validations/index.js validateConditions,
 * recorded against AWS): the AttributeValueList count for the operator
 * ("One or more parameter values were invalid: Invalid number of argument(s)
 * for the EQ ComparisonOperator"), one type for all values ("...
 * AttributeValues inside AttributeValueList must be of same type"), types the
 * operator accepts ("... ComparisonOperator LT is not valid for SS
 * AttributeValue type"), and BETWEEN's order ("The BETWEEN condition was
 * provided a range where the lower bound is greater than the upper bound").
 */
int expr_legacy_check_conditions(const struct legacy_condition *conds, size_t count,
                                 struct ddb_error *err);

/*
 * QueryFilter / ScanFilter: checks conds (expr_legacy_check_conditions) and
 * builds the filter. use_or is ConditionalOperator OR. *out is a new tree the
 * caller frees with expr_free, or NULL when count is 0 (an empty filter is no
 * filter, scylla test_query_filter.py::test_query_filter_empty).
 */
int expr_legacy_filter(const struct legacy_condition *conds, size_t count, bool use_or,
                       struct expr **out, struct ddb_error *err);

/*
 * KeyConditions: checks conds and builds an EXPR_KEY_CONDITION whose terms
 * are resolved per Query by expr_legacy_key_resolve. *out is owned by the
 * caller (expr_free).
 */
int expr_legacy_key_conditions(const struct legacy_condition *conds, size_t count,
                               struct expr **out, struct ddb_error *err);

/*
 * AttributesToGet: refuses duplicates ("One or more parameter values were
 * invalid: Duplicate value in attribute name: a") and builds a projection of
 * the top-level attributes. names[i] has lens[i] bytes. *out is owned by the
 * caller (expr_free).
 */
int expr_legacy_projection(const char *const *names, const size_t *lens, size_t count,
                           struct expr **out, struct ddb_error *err);

/* ---- PutItem / UpdateItem / DeleteItem: Expected and AttributeUpdates ---- */

/* One entry of an Expected map, as the request gave it; borrowed for the call.
 * The has_* flags say which members were present (JSON null is absent). */
struct legacy_expected {
    const char *name;
    size_t name_len;
    bool has_exists;
    bool exists;
    const struct value *value; /* Value, or NULL when absent */
    bool has_op;               /* ComparisonOperator given */
    enum legacy_op op;
    bool has_list;              /* AttributeValueList given (possibly empty) */
    const struct value *values; /* its decoded values */
    size_t value_count;
};

/*
 * Expected (with ConditionalOperator OR when use_or): checks each entry in map
 * order as DynamoDB does (dynalite validations/index.js
 * validateAttributeConditions, recorded against AWS) - "Value and
 * AttributeValueList cannot be used together for Attribute: a"; with a
 * ComparisonOperator, "Exists and ComparisonOperator cannot be used together
 * for Attribute: a", "Value or AttributeValueList must be used with
 * ComparisonOperator: LT for Attribute: a", then expr_legacy_check_conditions
 * (Value counts as a one-element list); "AttributeValueList can only be used
 * with a ComparisonOperator for Attribute: a"; "Value must be provided when
 * Exists is null|true for Attribute: a"; "Value cannot be used when Exists is
 * false for Attribute: a" (all but the BETWEEN one prefixed "One or more
 * parameter values were invalid: ") - and builds the condition. *out is a new
 * tree (expr_free), or NULL when count is 0 (an empty Expected is no
 * condition: scylla test_expected.py::test_update_expected_empty).
 */
int expr_legacy_expected(const struct legacy_expected *conds, size_t count, bool use_or,
                         struct expr **out, struct ddb_error *err);

/* AttributeValueUpdate Action, as AWS spells it. */
enum legacy_action { LEGACY_ACTION_PUT, LEGACY_ACTION_ADD, LEGACY_ACTION_DELETE };

/* One entry of an AttributeUpdates map; borrowed for the call. */
struct legacy_update {
    const char *name;
    size_t name_len;
    enum legacy_action action; /* PUT when the request gave none */
    const struct value *value; /* Value, or NULL when absent */
};

/*
 * AttributeUpdates: checks each entry in map order (dynalite
 * validations/updateItem.js, recorded against AWS) - "Only DELETE action is
 * allowed when no attribute value is specified", "DELETE action with value is
 * not supported for the type S" (a DELETE value must be a set), "ADD action is
 * not supported for the type S" (ADD takes N, a set or a list), each prefixed
 * "One or more parameter values were invalid: " - and builds the update. *out
 * is a new tree (expr_free), or NULL when count is 0: no actions, so the
 * update only makes sure the item exists (scylla test_item.py
 * test_update_item_non_existent).
 */
int expr_legacy_updates(const struct legacy_update *updates, size_t count, struct expr **out,
                        struct ddb_error *err);

/* True when e was built here rather than parsed from an expression string. */
bool expr_legacy_is_built(const struct expr *e);

/*
 * Resolves KeyConditions (built by expr_legacy_key_conditions) against the
 * key schema of the table or index a Query reads, with the checks DynamoDB
 * makes for them in its order (dynalite actions/query.js, recorded against
 * AWS), per key attribute, partition key first: "Query key condition not
 * supported" (more conditions than a hash-only key has), "Query condition
 * missed key schema element: X", "Attempted conditional constraint is not an
 * indexable operation" (NULL, NOT_NULL, NE, CONTAINS, NOT_CONTAINS, IN),
 * "One or more parameter values were invalid: Condition parameter type does
 * not match schema type", and "Query key condition not supported" for a
 * partition key compared with anything but EQ. On success *out holds copies
 * (key_condition_clear).
 */
int expr_legacy_key_resolve(const struct expr *kc, const struct key_schema *schema,
                            const struct attr_def *attr_defs, size_t attr_def_count,
                            struct key_condition *out, struct ddb_error *err);

#endif
