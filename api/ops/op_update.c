/*
 * op_update.c - UpdateItem.
 *
 * The handler reads top to bottom (STYLE B6) like the other item handlers in
 * op_item.c: decode the body into one struct update_args, make the
 * operation's own checks in AWS's order, one db_write_item (WRITE_UPDATE),
 * encode the answer. An update is either an UpdateExpression or the legacy
 * AttributeUpdates, translated onto the same tree (storage/expr/expr_legacy.c), and
 * its condition either a ConditionExpression or the legacy Expected.
 *
 * Check order, as dynalite's validations/updateItem.js and test/updateItem.js
 * record it against AWS:
 *   expression/legacy mixing -> Key values -> AttributeUpdates (values, then
 *   "Only DELETE action ...", "DELETE action with value ...", "ADD action
 *   ...") -> ConditionalOperator and Expected -> names, values,
 *   UpdateExpression, ConditionExpression, unused names/values.
 * Then storage (write.c): the table, the key, the update against the table
 * (key attributes untouched, index key types, no path inside a key
 * attribute), the condition against the current item, the update applied,
 * the new item's index key types and size.
 *
 * The answer: Attributes per ReturnValues (ALL_OLD and ALL_NEW the whole old
 * or new item, UPDATED_OLD and UPDATED_NEW the parts of it the update names,
 * storage's expr_project_updated), left out when there is nothing to return
 * (scylla test_returnvalues.py, run against AWS); ConsumedCapacity and
 * ItemCollectionMetrics when asked.
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
/* request shape                                                             */
/* ------------------------------------------------------------------------ */

/* Choice lists in the order AWS prints them (dynalite test/updateItem.js,
 * recorded). AttributeAction's order is the API model's: no recorded answer
 * lists it (docs/differences.md). */
static const char *const return_values_choices[] = {"ALL_NEW", "UPDATED_OLD", "ALL_OLD",
                                                    "NONE",    "UPDATED_NEW", NULL};
static const char *const return_metrics_choices[] = {"SIZE", "NONE", NULL};
static const char *const conditional_operator_choices[] = {"OR", "AND", NULL};
static const char *const comparison_operator_choices[] = {
    "IN",       "NULL", "BETWEEN", "LT",          "NOT_CONTAINS", "EQ",       "GT",
    "NOT_NULL", "NE",   "LE",      "BEGINS_WITH", "GE",           "CONTAINS", NULL};
static const char *const return_on_failure_choices[] = {"ALL_OLD", "NONE", NULL};
static const char *const attribute_action_choices[] = {"ADD", "PUT", "DELETE", NULL};

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

static const struct field attribute_update_fields[] = {
    {"Value", F_ATTRIBUTE_VALUE},
    {"Action", F_STRING, .choices = attribute_action_choices},
    {0},
};
static const struct field attribute_update = {
    .type = F_STRUCT, .shape_name = "AttributeValueUpdate", .children = attribute_update_fields};

/* Every member of the model's UpdateItemInput, in the model's order: shape.c
 * derives the order AWS lists violations in from the member names. */
const struct field update_item_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {"AttributeUpdates", F_MAP, .member = &attribute_update, .key = &shape_attribute_name},
    {"Expected", F_MAP, .member = &expected_value, .key = &shape_attribute_name},
    {"ConditionalOperator", F_STRING, .choices = conditional_operator_choices},
    {"ReturnValues", F_STRING, .choices = return_values_choices},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ReturnItemCollectionMetrics", F_STRING, .choices = return_metrics_choices},
    {"UpdateExpression", F_STRING},
    {"ConditionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {"ReturnValuesOnConditionCheckFailure", F_STRING, .choices = return_on_failure_choices},
    {0},
};

/* "Non-expression parameters: {AttributeUpdates, Expected} Expression
 * parameters: {UpdateExpression, ConditionExpression}" (dynalite
 * test/updateItem.js); ConditionalOperator as for PutItem (op_item.c). */
static const char *const update_expressions[] = {"UpdateExpression", "ConditionExpression", NULL};
static const char *const update_legacy[] = {"AttributeUpdates", "Expected", "ConditionalOperator",
                                            NULL};

/* ------------------------------------------------------------------------ */
/* decoded arguments                                                         */
/* ------------------------------------------------------------------------ */

struct update_args {
    struct write_op op; /* op.update and op.condition point at the trees below */
    enum return_capacity capacity;
    struct expr_params params;
    struct expr *update;    /* owned: UpdateExpression or AttributeUpdates; NULL: no actions */
    struct expr *condition; /* owned: ConditionExpression or Expected */
};

static void update_args_init(struct update_args *a)
{
    memset(a, 0, sizeof *a);
    value_init_null(&a->op.key);
    a->op.kind = WRITE_UPDATE;
    expr_params_init(&a->params);
}

static void update_args_clear(struct update_args *a)
{
    value_clear(&a->op.key);
    expr_free(a->update);
    expr_free(a->condition);
    expr_params_clear(&a->params);
}

/* Every value the shape allows (UpdateItem takes all five). */
static enum return_values decode_return_values(const json_t *body)
{
    static const char *const names[] = {"ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW", NULL};
    static const enum return_values values[] = {RETURN_VALUES_ALL_OLD, RETURN_VALUES_UPDATED_OLD,
                                                RETURN_VALUES_ALL_NEW, RETURN_VALUES_UPDATED_NEW};
    int i = body_member_choice(body, "ReturnValues", names);

    return i < 0 ? RETURN_VALUES_NONE : values[i];
}

/*
 * AttributeUpdates into a->update: every entry's Value decoded in map order
 * (their own validation texts, as for any AttributeValue), then
 * expr_legacy_updates checks the actions and builds the tree. An empty map is
 * an update without actions, like no update at all.
 */
static int decode_attribute_updates(const json_t *body, struct update_args *a,
                                    struct ddb_error *err)
{
    json_t *map = body_member(body, "AttributeUpdates"), *entry;
    size_t n = json_object_size(map), i = 0;
    struct legacy_update *updates;
    struct value *values;
    const char *name;
    size_t name_len;
    int rc = -1;

    if (!map) return 0;
    updates = xcalloc(n ? n : 1, sizeof *updates);
    values = xcalloc(n ? n : 1, sizeof *values);
    for (size_t k = 0; k < n; k++)
        value_init_null(&values[k]);
    json_object_keylen_foreach(map, name, name_len, entry)
    {
        struct legacy_update *u = &updates[i];
        json_t *value = body_member(entry, "Value");
        const char *action = json_string_value(body_member(entry, "Action"));

        u->name = name;
        u->name_len = name_len; /* names may contain NUL */
        u->action = !action || strcmp(action, "PUT") == 0 ? LEGACY_ACTION_PUT
                    : strcmp(action, "ADD") == 0          ? LEGACY_ACTION_ADD
                                                          : LEGACY_ACTION_DELETE;
        if (value) {
            if (wire_value_from_json(value, &values[i], err) != 0) goto out;
            u->value = &values[i];
        }
        i++;
    }
    rc = expr_legacy_updates(updates, n, &a->update, err);
out:
    for (size_t k = 0; k < n; k++)
        value_clear(&values[k]);
    free(values);
    free(updates);
    return rc;
}

/* Expected, or the expressions with their names and values, then the unused check. */
static int decode_expressions(const json_t *body, struct update_args *a, struct ddb_error *err)
{
    struct expr *update = NULL, *condition = NULL;

    if (expr_params_expected(body, &a->condition, err) != 0) return -1;
    if (expr_params_decode(body, &a->params, err) != 0) return -1;
    /* UpdateExpression first: dynalite test/updateItem.js "empty
     * UpdateExpression" sends both empty and gets the UpdateExpression error. */
    if (expr_params_parse(&a->params, body, "UpdateExpression", EXPR_UPDATE, &update, err) != 0)
        return -1;
    if (update) a->update = update;
    if (expr_params_parse(&a->params, body, "ConditionExpression", EXPR_CONDITION, &condition,
                          err) != 0)
        return -1;
    if (condition) a->condition = condition;
    return expr_params_check_unused(&a->params, err);
}

/* Writes "Attributes" for ReturnValues, or nothing when there is nothing to return. */
static void write_attributes(struct json_out *w, const struct update_args *a,
                             const struct write_result *res)
{
    const struct item *item = NULL;
    struct value part;

    switch (a->op.return_values) {
    case RETURN_VALUES_NONE: return;
    case RETURN_VALUES_ALL_OLD: item = res->old_item; break;
    case RETURN_VALUES_ALL_NEW: item = res->new_item; break;
    case RETURN_VALUES_UPDATED_OLD:
    case RETURN_VALUES_UPDATED_NEW: {
        const struct item *from =
            a->op.return_values == RETURN_VALUES_UPDATED_OLD ? res->old_item : res->new_item;
        /* No actions, nothing updated: no Attributes even when the update
         * created the item (scylla test_update_item_returnvalues_updated_new). */
        if (!from || !a->update) return;
        expr_project_updated(a->update, item_attrs(from), &part);
        if (part.u.map.count) {
            json_out_key(w, "Attributes");
            wire_value_write_map(w, &part);
        }
        value_clear(&part);
        return;
    }
    }
    if (item) {
        json_out_key(w, "Attributes");
        wire_write_stored_item(w, item);
    }
}

/* The answer: Attributes, ConsumedCapacity, ItemCollectionMetrics. */
static void write_update_answer(struct json_out *w, const json_t *body, const struct update_args *a,
                                const struct write_result *res)
{
    json_out_object_begin(w);
    write_attributes(w, a, res);
    wire_table_write_capacity_member(w, &res->capacity, a->capacity);
    wire_table_write_collection_metrics_member(w, body, &res->collection_metrics);
    json_out_object_end(w);
}

/* ------------------------------------------------------------------------ */
/* handler                                                                   */
/* ------------------------------------------------------------------------ */

/* UpdateItem: the checks of the file comment, one db_write_item, the answer. */
int op_update_item(struct api_request *rq)
{
    struct update_args a;
    struct write_result res;
    const json_t *body = rq->body;
    int rc = -1;

    update_args_init(&a);
    memset(&res, 0, sizeof res);
    a.op.table_name = json_string_value(body_member(body, "TableName"));
    a.op.return_values = decode_return_values(body);
    a.op.return_old_on_condition_failure =
        body_member_is(body, "ReturnValuesOnConditionCheckFailure", "ALL_OLD");
    a.capacity = body_return_capacity(body);
    if (expr_params_check_mix(body, update_expressions, update_legacy, &rq->err) != 0) goto out;
    if (wire_value_map_from_json(body_member(body, "Key"), &a.op.key, &rq->err) != 0) goto out;
    if (decode_attribute_updates(body, &a, &rq->err) != 0) goto out;
    if (decode_expressions(body, &a, &rq->err) != 0) goto out;
    a.op.update = a.update;
    a.op.condition = a.condition;
    if (db_write_item(rq->db, &rq->scope, &a.op, a.capacity, &res, &rq->err) != 0) {
        failure_details_move(&rq->failure, &res.failure);
        goto out;
    }
    write_update_answer(&rq->reply_body, body, &a, &res);
    rc = 0;
out:
    write_result_clear(&res);
    update_args_clear(&a);
    return rc;
}
