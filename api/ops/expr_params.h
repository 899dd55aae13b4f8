/*
 * expr_params.h - the expression parameters every data-plane request shares:
 * the rule against mixing them with the legacy parameters,
 * ExpressionAttributeNames / ExpressionAttributeValues, and parsing with one
 * struct expr_ctx per request (STYLE B9), so that unused names and values are
 * reported once, after all of the request's expressions.
 *
 * Messages are AWS's, as dynalite's validations/index.js recorded them
 * (validateExpressionParams, validateExpressions).
 *
 * Ownership: struct expr_params owns the decoded maps; parsed trees refer to
 * them, so the params must outlive every struct expr parsed with them. The
 * JSON body is borrowed.
 */
#ifndef DDB_API_EXPR_PARAMS_H
#define DDB_API_EXPR_PARAMS_H

#include "storage/base/error.h"
#include "storage/expr/expr.h"
#include "storage/model/value.h"

#include <jansson.h>
#include <stdbool.h>

struct expr_params {
    struct value names;  /* VALUE_M of S, or VALUE_NULL when the request has none */
    struct value values; /* VALUE_M, or VALUE_NULL */
    struct expr_ctx ctx; /* over names/values, once decoded */
    bool ctx_ready;
};

void expr_params_init(struct expr_params *p);
void expr_params_clear(struct expr_params *p);

/*
 * The parameter-mixing rules, for a request (or a BatchGetItem table entry)
 * whose expression parameters are expr_names and legacy parameters
 * legacy_names (NULL-terminated, in the order AWS lists them):
 * "Can not use both expression and non-expression parameters in the same
 * request: Non-expression parameters: {AttributesToGet} Expression
 * parameters: {ProjectionExpression}" (KeyConditions may go with the other
 * expressions as long as KeyConditionExpression is absent), then
 * "ExpressionAttributeNames can only be specified when using expressions",
 * then "ExpressionAttributeValues can only be specified when using
 * expressions: FilterExpression is null" (ProjectionExpression uses no
 * values, so it does not count).
 */
int expr_params_check_mix(const json_t *obj, const char *const *expr_names,
                          const char *const *legacy_names, struct ddb_error *err);

/*
 * Decodes obj's ExpressionAttributeNames and ExpressionAttributeValues:
 * "ExpressionAttributeNames must not be empty", "ExpressionAttributeNames
 * contains invalid key: Syntax error; key: \"a\"", the same two for values,
 * then each value's own validation as "ExpressionAttributeValues contains
 * invalid value: <reason> for key :v". Then readies p->ctx.
 */
int expr_params_decode(const json_t *obj, struct expr_params *p, struct ddb_error *err);

/* Parses obj's member `param` (when present; *out stays NULL otherwise) as
 * an expression of the given kind with p's context. *out is owned by the
 * caller (expr_free). */
int expr_params_parse(struct expr_params *p, const json_t *obj, const char *param,
                      enum expr_kind kind, struct expr **out, struct ddb_error *err);

/* After every expression: the unused-names/values check. */
int expr_params_check_unused(const struct expr_params *p, struct ddb_error *err);

/* expr_params_decode for requests whose model has no
 * ExpressionAttributeValues (GetItem): a member sent anyway is ignored, like
 * every unknown member, rather than decoded and reported unused. */
int expr_params_decode_names(const json_t *obj, struct expr_params *p, struct ddb_error *err);

/*
 * The legacy condition of PutItem/UpdateItem/DeleteItem: obj's Expected and
 * ConditionalOperator. ConditionalOperator needs an Expected of two or more
 * entries ("ConditionalOperator cannot be used without Filter or Expected",
 * "ConditionalOperator can only be used when Filter or Expected has two or
 * more elements" - the texts of DynamoDB's request validator as Amazon's DAX
 * client carries it, the second also observed from AWS); then each entry's
 * values are decoded and storage/expr/expr_legacy.c checks and translates them.
 * *out is a new tree (expr_free), or NULL when there is no condition.
 */
int expr_params_expected(const json_t *obj, struct expr **out, struct ddb_error *err);

/*
 * AttributesToGet (a JSON list of names, or NULL when absent) as a projection
 * tree built by storage/expr/expr_legacy.c ("Duplicate value in attribute name"
 * and the rest of its checks). *out stays NULL when the list is absent.
 */
int expr_params_attributes_to_get(const json_t *list, struct expr **out, struct ddb_error *err);

#endif
