/*
 * expr.h - the expression language: the contract between parser and evaluator.
 *
 * Every expression a request carries (ConditionExpression, FilterExpression,
 * UpdateExpression, ProjectionExpression, KeyConditionExpression, and the legacy
 * parameters translated onto the same tree) is parsed into a struct expr,
 * checked, and then evaluated by the one evaluator in expr_eval.c.
 *
 * Three phases (STYLE B9): parse (syntax errors only) -> check (functions,
 * operand types, #names/:values resolution, reserved words, unused names and
 * values, in DynamoDB's error precedence) -> evaluate. Names and values are
 * resolved once per request.
 *
 * The full AST is declared in expr_ast.h (private to the expr_* files and their
 * tests); this header is what the rest of storage and api/ use.
 */
#ifndef DDB_EXPR_H
#define DDB_EXPR_H

#include "storage/base/error.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>

struct item;

struct expr;

/*
 * Per-request context: the request's ExpressionAttributeNames and
 * ExpressionAttributeValues (borrowed from the caller, who keeps them alive
 * while any expression parsed with this ctx is used), and which of them the
 * request's expressions used, so "unused" can be reported once at the end.
 */
struct expr_ctx {
    const struct value *names;  /* VALUE_M of S values ("#n" -> "name"), or NULL if absent */
    const struct value *values; /* VALUE_M (":v" -> value), or NULL if absent */
    bool *names_used;           /* owned; parallel to names->u.map.attrs */
    bool *values_used;          /* owned; parallel to values->u.map.attrs */
};

void expr_ctx_init(struct expr_ctx *ctx, const struct value *names, const struct value *values);
void expr_ctx_clear(struct expr_ctx *ctx);
/* After every expression of the request is parsed: raises AWS's
 * "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"
 * or the ExpressionAttributeValues equivalent. */
int expr_ctx_check_unused(const struct expr_ctx *ctx, struct ddb_error *err);

enum expr_kind {
    EXPR_CONDITION, /* ConditionExpression and FilterExpression */
    EXPR_UPDATE,
    EXPR_PROJECTION,
    EXPR_KEY_CONDITION,
};

/*
 * Parses and checks one expression string. `param` is the request parameter's
 * name as AWS prints it in messages ("ConditionExpression", "FilterExpression",
 * "UpdateExpression", "ProjectionExpression", "KeyConditionExpression").
 * On success *out is a new tree owned by the caller (expr_free).
 */
int expr_parse(enum expr_kind kind, const char *param, const char *text, size_t len,
               struct expr_ctx *ctx, struct expr **out, struct ddb_error *err);
void expr_free(struct expr *e);

/*
 * Evaluates a condition or filter against an item's attributes (NULL when the
 * item does not exist: every attribute is then missing). Sets *matched.
 * Conditions do not fail at evaluation time on AWS except for limits, so this
 * returns -1 only for those.
 */
int expr_eval_condition(const struct expr *cond, const struct value *attrs, bool *matched,
                        struct ddb_error *err);

/*
 * Applies an update expression: *attrs holds the item's attributes before
 * (the key attributes alone when the item does not exist yet) and receives the
 * attributes after. On -1 (AWS's evaluation-time errors, e.g. "The provided
 * expression refers to an attribute that does not exist in the item") *attrs
 * is left as it was. item_existed tells whether the item existed: on a new
 * item DynamoDB ignores REMOVE/DELETE of nested paths whose parent is missing
 * (where an existing item gets "The document path provided in the update
 * expression is invalid for update").
 */
int expr_apply_update_ex(const struct expr *update, struct value *attrs, bool item_existed,
                         struct ddb_error *err);
/* The item an update leaves of an existing item old, as a new item with one
 * reference (the caller's), or NULL with *err on expr_apply_update_ex's
 * errors; the same attributes in the same order as expr_apply_update_ex
 * gives on old's attributes, made without copying old's tree. */
struct item *expr_update_item(const struct expr *update, const struct item *old,
                              struct ddb_error *err);

/* Copies into *out (initialized here as a VALUE_M) the parts of attrs named by
 * a projection, with nested paths and list indexes kept in place as AWS does. */
void expr_project(const struct expr *projection, const struct value *attrs, struct value *out);

/* PartiQL's projection of a whole item's attrs: each selected path's value
 * under the name of its last map key ("SELECT a.b" answers {"b": ...}, as
 * DynamoDB does; a top-level attribute keeps its name). A new VALUE_M in *out. */
void expr_project_named(const struct expr *projection, const struct value *attrs,
                        struct value *out);
/* Whether expr_project_named differs from expr_project: some path is nested. */
bool expr_projection_is_nested(const struct expr *projection);

/* The attribute names of a projection of top-level names only (no a.b, no
 * a[0]): what expr_project copies, in the order it writes them (sorted by
 * bytes), so a reader of the stored encoding (item_project,
 * wire_encoded_write_item) answers the same bytes without a tree. */
struct expr_top_names {
    const char *const *names; /* borrowed from the projection */
    const size_t *lens;
    size_t count;
};
/* False, with *out untouched, when some path is nested or indexed. */
bool expr_projection_top_names(const struct expr *projection, struct expr_top_names *out);

/* expr_project of a stored item, as a new item (one reference, the
 * caller's): made from the item's encoding (item_project) when the
 * projection names only top-level attributes, else through its tree. */
struct item *expr_project_item(const struct expr *projection, const struct item *item);

/* The parts of attrs an update expression touched, for ReturnValues
 * UPDATED_OLD (attrs = old item) and UPDATED_NEW (attrs = new item). */
void expr_project_updated(const struct expr *update, const struct value *attrs, struct value *out);

/* True when the update expression's SET/REMOVE/ADD/DELETE targets the top-level attribute name
 * (used to refuse updates of key attributes with AWS's message). */
bool expr_update_touches(const struct expr *update, const char *name, size_t name_len);

/* The type the update gives the top-level attribute `name` as a whole when the
 * request alone decides it (SET name = :v, = a + b, = list_append(...), =
 * if_not_exists(x, :v); ADD/DELETE name :v), for AWS's "Type mismatch for
 * Index Key" refusal before the item is read. False when the update does not
 * write name as a whole, or the type depends on the item (SET name = path). */
bool expr_update_static_type(const struct expr *update, const char *name, size_t name_len,
                             enum value_type *type);

/* True when any document path of e (condition, update target or value,
 * projection) starts at the top-level attribute `name` - for AWS's "Filter
 * Expression can only contain non-primary key attributes" on Query. */
bool expr_references(const struct expr *e, const char *name, size_t name_len);
/* True when a path of e goes inside the top-level attribute `name` (name.x or
 * name[0]) - for AWS's "Key attributes must be scalars; list random access '[]'
 * and map lookup '.' are not allowed: Key: name". */
bool expr_uses_nested(const struct expr *e, const char *name, size_t name_len);
/* True when every top-level attribute that e (a projection or a condition)
 * names satisfies pred. Query uses it to tell whether a read of a local
 * secondary index must fetch the rest of the item from the table, which costs
 * table reads. */
bool expr_names_all(const struct expr *e,
                    bool (*pred)(const void *ctx, const char *name, size_t name_len),
                    const void *ctx);

/* ---- search conditions (SearchVectors, expr_search.c) ---- */

/* One `attribute = :value` conjunct of a SearchConditionExpression. */
struct search_term {
    char *name;         /* owned: the top-level attribute */
    bool nested;        /* the path went further (a.b, a[0]): refused by the caller */
    struct value value; /* owned */
};

/*
 * Flattens a parsed and checked SearchConditionExpression (EXPR_CONDITION)
 * into its conjuncts: only `path = value` (either side) joined by AND, in
 * parentheses or not; any other operator or function is AWS's "Invalid
 * SearchConditionExpression: Invalid comparator used in
 * SearchConditionExpression". *terms is a new array the caller frees with
 * search_terms_free. Membership in the index's SearchSchema is the caller's.
 */
int expr_search_terms(const struct expr *e, struct search_term **terms, size_t *count,
                      struct ddb_error *err);
void search_terms_free(struct search_term *terms, size_t count);

/* ---- key conditions (Query) ---- */

enum key_range_op {
    KEY_RANGE_NONE, /* no condition on the (last constrained) sort attribute */
    KEY_RANGE_EQ,
    KEY_RANGE_LT,
    KEY_RANGE_LE,
    KEY_RANGE_GT,
    KEY_RANGE_GE,
    KEY_RANGE_BETWEEN,
    KEY_RANGE_BEGINS_WITH,
};

struct key_condition_term {
    char *name;         /* owned attribute name */
    struct value value; /* owned */
};

/*
 * A key condition resolved against a key schema: equality on every partition
 * attribute, equality on the leading sort attributes (multi-attribute GSI keys),
 * and at most one range operator on the next sort attribute.
 */
struct key_condition {
    struct key_condition_term hash[4];
    size_t hash_count;
    struct key_condition_term range_eq[4]; /* leading sort attributes fixed by '=' */
    size_t range_eq_count;
    enum key_range_op range_op; /* on range_name, after the range_eq terms */
    char *range_name;           /* owned; NULL with KEY_RANGE_NONE */
    struct value lo;            /* operand; BETWEEN's lower bound */
    struct value hi;            /* BETWEEN's upper bound */
};

/*
 * Resolves a parsed KeyConditionExpression against the key schema of the
 * table or index being queried (key types from attr_defs), raising AWS's
 * errors ("Query condition missed key schema element: X", "Query key
 * condition not supported", type mismatches, ...).
 */
struct key_schema;
struct attr_def;
int expr_key_condition_resolve(const struct expr *kc, const struct key_schema *schema,
                               const struct attr_def *attr_defs, size_t attr_def_count,
                               struct key_condition *out, struct ddb_error *err);
void key_condition_clear(struct key_condition *kc);
/* Whether v (NULL: absent) satisfies kc's condition on its last sort
 * attribute (true when kc has none). */
bool key_condition_range_matches(const struct key_condition *kc, const struct value *v);
/* Whether an item's attributes (a VALUE_M) satisfy every term of kc. */
bool key_condition_matches(const struct key_condition *kc, const struct value *attrs);

#endif
