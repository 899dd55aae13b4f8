/*
 * op_item.c - PutItem, GetItem, DeleteItem (UpdateItem is op_update.c).
 *
 * Each handler reads top to bottom (STYLE B6): decode the body into one
 * struct item_args (values via wire_value.c, expressions via expr_params.c),
 * make the operation's own checks in AWS's order, one db_* call, encode the
 * answer. Key and item checks against the table's schema (key names and
 * types, empty key values, key paths in a projection) happen in storage,
 * under the lock, where the schema is known; nothing here repeats them.
 *
 * Check order, as dynalite's validations/putItem.js, deleteItem.js and
 * getItem.js record it against AWS (newest versions):
 *   PutItem:    expression/legacy mixing -> Item values -> ReturnValues ->
 *               item size -> ConditionalOperator and Expected -> names,
 *               values, ConditionExpression, unused names/values.
 *   DeleteItem: mixing -> Key values -> ReturnValues -> Expected ->
 *               expressions.
 *   GetItem:    mixing -> Key values -> AttributesToGet duplicates -> names,
 *               ProjectionExpression, unused names.
 * Then storage: the table, the key, the condition against the current item.
 *
 * A failed condition is ConditionalCheckFailedException, with the current
 * item in rq->failure when ReturnValuesOnConditionCheckFailure is ALL_OLD;
 * response.c writes it as the exception's "Item" member.
 */
#include "api/ops/expr_params.h"
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/expr/expr_legacy.h"
#include "storage/model/item.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

/* Choice lists in the order AWS prints them (dynalite's recorded messages). */
static const char *const return_values_choices[] = {"ALL_NEW", "UPDATED_OLD", "ALL_OLD",
                                                    "NONE",    "UPDATED_NEW", NULL};
static const char *const return_metrics_choices[] = {"SIZE", "NONE", NULL};
static const char *const conditional_operator_choices[] = {"OR", "AND", NULL};
static const char *const comparison_operator_choices[] = {
    "IN",       "NULL", "BETWEEN", "LT",          "NOT_CONTAINS", "EQ",       "GT",
    "NOT_NULL", "NE",   "LE",      "BEGINS_WITH", "GE",           "CONTAINS", NULL};
static const char *const return_on_failure_choices[] = {"ALL_OLD", "NONE", NULL};

static const struct field attribute_value = {.type = F_ATTRIBUTE_VALUE};

static const struct field expected_value_fields[] = {
    {"Value", F_ATTRIBUTE_VALUE},
    {"Exists", F_BOOLEAN},
    {"ComparisonOperator", F_STRING, .choices = comparison_operator_choices},
    {"AttributeValueList", F_LIST, .member = &attribute_value},
    {0},
};
static const struct field expected_value = {
    .type = F_STRUCT, .shape_name = "ExpectedAttributeValue", .children = expected_value_fields};

const struct field put_item_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"Item", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {"Expected", F_MAP, .member = &expected_value, .key = &shape_attribute_name},
    {"ReturnValues", F_STRING, .choices = return_values_choices},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ReturnItemCollectionMetrics", F_STRING, .choices = return_metrics_choices},
    {"ConditionalOperator", F_STRING, .choices = conditional_operator_choices},
    {"ConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {"ReturnValuesOnConditionCheckFailure", F_STRING, .choices = return_on_failure_choices},
    {0},
};

const struct field get_item_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {"AttributesToGet", F_LIST, .min_len = 1, .member = &shape_attribute_name},
    {"ConsistentRead", F_BOOLEAN},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ProjectionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {0},
};

const struct field delete_item_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {"Expected", F_MAP, .member = &expected_value, .key = &shape_attribute_name},
    {"ConditionalOperator", F_STRING, .choices = conditional_operator_choices},
    {"ReturnValues", F_STRING, .choices = return_values_choices},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ReturnItemCollectionMetrics", F_STRING, .choices = return_metrics_choices},
    {"ConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {"ReturnValuesOnConditionCheckFailure", F_STRING, .choices = return_on_failure_choices},
    {0},
};

/* The expression parameters of each operation and the legacy ones they
 * exclude, in the order AWS lists them in the mixing message (dynalite
 * test/putItem.js, getItem.js "expression and non-expression"). Amazon's DAX
 * client, which carries DynamoDB's request validator, counts
 * ConditionalOperator as a legacy parameter of the writes too. */
static const char *const condition_expressions[] = {"ConditionExpression", NULL};
static const char *const condition_legacy[] = {"Expected", "ConditionalOperator", NULL};
static const char *const projection_expressions[] = {"ProjectionExpression", NULL};
static const char *const projection_legacy[] = {"AttributesToGet", NULL};

/* ------------------------------------------------------------------------ */
/* decoded arguments                                                         */
/* ------------------------------------------------------------------------ */

/* Everything one PutItem/GetItem/DeleteItem decodes; item_args_clear frees it. */
struct item_args {
    struct write_op op; /* PutItem, DeleteItem; op.condition points at condition */
    struct get_op get;  /* GetItem; get.projection points at projection */
    enum return_capacity capacity;
    struct expr_params params; /* ExpressionAttributeNames/Values */
    struct expr *condition;    /* owned: ConditionExpression or Expected */
    struct expr *projection;   /* owned: ProjectionExpression or AttributesToGet */
};

static void item_args_init(struct item_args *a)
{
    memset(a, 0, sizeof *a);
    value_init_null(&a->op.key);
    value_init_null(&a->get.key);
    expr_params_init(&a->params);
}

static void item_args_clear(struct item_args *a)
{
    item_unref(a->op.put_item);
    value_clear(&a->op.key);
    value_clear(&a->get.key);
    expr_free(a->condition);
    expr_free(a->projection);
    expr_params_clear(&a->params);
}

/* PutItem and DeleteItem accept only NONE and ALL_OLD (dynalite
 * test/putItem.js, recorded from AWS). */
static int decode_write_return_values(const json_t *body, enum return_values *out,
                                      struct ddb_error *err)
{
    static const char *const accepted[] = {"NONE", "ALL_OLD", NULL};

    *out = RETURN_VALUES_NONE;
    if (!body_member(body, "ReturnValues")) return 0;
    switch (body_member_choice(body, "ReturnValues", accepted)) {
    case 0: return 0;
    case 1: *out = RETURN_VALUES_ALL_OLD; return 0;
    default: return ddb_error_set(err, DDB_VALIDATION, "ReturnValues can only be ALL_OLD or NONE");
    }
}

/*
 * The condition of a PutItem or DeleteItem: Expected (with ConditionalOperator)
 * or ConditionExpression with its names and values - the mixing rule has
 * already made sure at most one kind is present - then the unused
 * names/values check. ReturnValuesOnConditionCheckFailure only shapes the
 * error.
 */
static int decode_condition(const json_t *body, struct item_args *a, struct ddb_error *err)
{
    struct expr *expression = NULL;

    if (expr_params_expected(body, &a->condition, err) != 0) return -1;
    if (expr_params_decode(body, &a->params, err) != 0) return -1;
    if (expr_params_parse(&a->params, body, "ConditionExpression", EXPR_CONDITION, &expression,
                          err) != 0)
        return -1;
    if (expression) a->condition = expression;
    if (expr_params_check_unused(&a->params, err) != 0) return -1;
    a->op.condition = a->condition;
    a->op.return_old_on_condition_failure =
        body_member_is(body, "ReturnValuesOnConditionCheckFailure", "ALL_OLD");
    return 0;
}

/* The answer of PutItem and DeleteItem: Attributes for ALL_OLD when an item
 * was there, ConsumedCapacity, ItemCollectionMetrics. */
static void write_write_answer(struct json_out *w, const json_t *body, const struct item_args *a,
                               const struct write_result *res)
{
    json_out_object_begin(w);
    if (a->op.return_values == RETURN_VALUES_ALL_OLD && res->old_item) {
        json_out_key(w, "Attributes");
        wire_write_stored_item(w, res->old_item);
    }
    wire_table_write_capacity_member(w, &res->capacity, a->capacity);
    wire_table_write_collection_metrics_member(w, body, &res->collection_metrics);
    json_out_object_end(w);
}

/* ------------------------------------------------------------------------ */
/* handlers                                                                  */
/* ------------------------------------------------------------------------ */

/* PutItem: the checks of the file comment, one db_write_item, the answer. */
int op_put_item(struct api_request *rq)
{
    struct item_args a;
    struct write_result res;
    struct value attrs;
    const json_t *body = rq->body;
    int rc = -1;

    item_args_init(&a);
    memset(&res, 0, sizeof res);
    a.op.kind = WRITE_PUT;
    a.op.table_name = json_string_value(body_member(body, "TableName"));
    a.capacity = body_return_capacity(body);
    if (expr_params_check_mix(body, condition_expressions, condition_legacy, &rq->err) != 0)
        goto out;
    if (wire_item_from_json(body_member(body, "Item"), &attrs, &rq->err) != 0) goto out;
    /* The item is built here, outside the lock; storage keeps a reference. */
    a.op.put_item = item_new(&attrs);
    if (decode_write_return_values(body, &a.op.return_values, &rq->err) != 0) goto out;
    if (item_check_size(a.op.put_item->size_bytes, ITEM_SIZE_GIVEN, &rq->err) != 0) goto out;
    if (decode_condition(body, &a, &rq->err) != 0) goto out;
    if (db_write_item(rq->db, &rq->scope, &a.op, a.capacity, &res, &rq->err) != 0) {
        failure_details_move(&rq->failure, &res.failure);
        goto out;
    }
    write_write_answer(&rq->reply_body, body, &a, &res);
    rc = 0;
out:
    write_result_clear(&res);
    item_args_clear(&a);
    return rc;
}

/* DeleteItem: like PutItem, with a key instead of an item. Deleting an
 * absent item succeeds (and costs one write unit, storage's rule). */
int op_delete_item(struct api_request *rq)
{
    struct item_args a;
    struct write_result res;
    const json_t *body = rq->body;
    int rc = -1;

    item_args_init(&a);
    memset(&res, 0, sizeof res);
    a.op.kind = WRITE_DELETE;
    a.op.table_name = json_string_value(body_member(body, "TableName"));
    a.capacity = body_return_capacity(body);
    if (expr_params_check_mix(body, condition_expressions, condition_legacy, &rq->err) != 0)
        goto out;
    if (wire_value_map_from_json(body_member(body, "Key"), &a.op.key, &rq->err) != 0) goto out;
    if (decode_write_return_values(body, &a.op.return_values, &rq->err) != 0) goto out;
    if (decode_condition(body, &a, &rq->err) != 0) goto out;
    if (db_write_item(rq->db, &rq->scope, &a.op, a.capacity, &res, &rq->err) != 0) {
        failure_details_move(&rq->failure, &res.failure);
        goto out;
    }
    write_write_answer(&rq->reply_body, body, &a, &res);
    rc = 0;
out:
    write_result_clear(&res);
    item_args_clear(&a);
    return rc;
}

/* ProjectionExpression and its names (GetItem has no ExpressionAttributeValues). */
static int decode_projection(const json_t *body, struct item_args *a, struct ddb_error *err)
{
    struct expr *expression = NULL;

    if (expr_params_decode_names(body, &a->params, err) != 0) return -1;
    if (expr_params_parse(&a->params, body, "ProjectionExpression", EXPR_PROJECTION, &expression,
                          err) != 0)
        return -1;
    if (expression) a->projection = expression;
    return expr_params_check_unused(&a->params, err);
}

/* The answer of GetItem: Item (projected) when there is one, ConsumedCapacity. */
static void write_get_answer(struct json_out *w, const struct item_args *a, const struct item *item,
                             const struct consumed_capacity *capacity)
{
    json_out_object_begin(w);
    if (item) {
        json_out_key(w, "Item");
        wire_write_projected_item(w, item, a->projection);
    }
    wire_table_write_capacity_member(w, capacity, a->capacity);
    json_out_object_end(w);
}

/*
 * GetItem: {"Item": {...}} when the item exists - projected, so possibly {}
 * (scylla test_projection_expression.py test_projection_expression_path) -
 * and {} when it does not (dynalite test/getItem.js), plus ConsumedCapacity
 * when asked. ConsistentRead only changes the capacity charged.
 */
int op_get_item(struct api_request *rq)
{
    struct item_args a;
    struct item *item = NULL;
    struct consumed_capacity capacity;
    const json_t *body = rq->body;
    int rc = -1;

    item_args_init(&a);
    memset(&capacity, 0, sizeof capacity);
    a.get.table_name = json_string_value(body_member(body, "TableName"));
    a.get.consistent_read = json_is_true(body_member(body, "ConsistentRead"));
    a.capacity = body_return_capacity(body);
    if (expr_params_check_mix(body, projection_expressions, projection_legacy, &rq->err) != 0)
        goto out;
    if (wire_value_map_from_json(body_member(body, "Key"), &a.get.key, &rq->err) != 0) goto out;
    if (expr_params_attributes_to_get(body_member(body, "AttributesToGet"), &a.projection,
                                      &rq->err) != 0)
        goto out;
    if (decode_projection(body, &a, &rq->err) != 0) goto out;
    a.get.projection = a.projection;
    if (db_get_item(rq->db, &rq->scope, &a.get, a.capacity, &item, &capacity, &rq->err) != 0)
        goto out;
    write_get_answer(&rq->reply_body, &a, item, &capacity);
    rc = 0;
out:
    item_unref(item);
    consumed_capacity_clear(&capacity);
    item_args_clear(&a);
    return rc;
}
