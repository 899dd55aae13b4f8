/*
 * op_transact.c - TransactWriteItems and TransactGetItems.
 *
 * Each handler decodes every action into C values (wire_value.c) and parsed
 * expressions (storage/expr/expr.h), makes one storage call that runs the whole
 * transaction under the engine's lock (storage/transact.c), and encodes the
 * answer. A TransactionCanceledException carries its CancellationReasons in
 * rq->err; api/http/response.c writes them.
 *
 * What is checked where follows what DynamoDB answers (observations recorded
 * against AWS by scylladb test/alternator/test_transact.py and by paritysuite
 * dynamodb-conformance tests/tier3, both quoted in conformance/test_transact.py):
 *
 *  - the request shape (shape.c): member types, then every member constraint
 *    (enums, TransactItems 1..100, ClientRequestToken 1..36, table name
 *    pattern, missing Key/Item/TableName/UpdateExpression/ConditionExpression)
 *    in one "N validation errors detected" message;
 *  - then each action in request order, the first failure winning: exactly
 *    one action type per element, its attribute values (the item's nesting
 *    and sets, its size), its expression parameters and expressions, and the
 *    names and values its expressions do not use - all before any table is
 *    looked up;
 *  - then the 4 MB payload limit over all actions;
 *  - then storage: missing tables, empty key values, two actions on one item
 *    (plain exceptions), schema mismatches and failed conditions
 *    (TransactionCanceledException with one reason per action).
 *
 * ClientRequestToken: the digest handed to storage covers every request
 * parameter except the token itself and the two Return* members that only
 * shape the answer (a same-token retry may ask for other capacity details and
 * is answered, not refused: paritysuite's replay test, and nubo-db/dynoxide
 * #123 "honouring the replay's own ReturnConsumedCapacity mode"). The
 * parameters are serialized canonically - object keys sorted, nulls dropped,
 * compact - so the order of members does not matter (localstack#6529
 * records that AWS ignores it).
 *
 * Everything allocated for a request lives in struct transact_args and is
 * freed in one place.
 */
#include "api/ops/expr_params.h"
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/expr/expr.h"
#include "storage/model/item.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

/*
 * Members are listed alphabetically: that is the order in which DynamoDB
 * lists constraint violations of one structure (paritysuite
 * tests/tier3/validation-ordering/transactions.test.ts: clientRequestToken,
 * then returnConsumedCapacity, then returnItemCollectionMetrics).
 */

static const char *const return_metrics_choices[] = {"SIZE", "NONE", NULL};
static const char *const return_on_failure_choices[] = {"ALL_OLD", "NONE", NULL};

#define EXPRESSION_NAMES_FIELD                                                                     \
    {                                                                                              \
        "ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name                         \
    }
#define EXPRESSION_VALUES_FIELD                                                                    \
    {                                                                                              \
        "ExpressionAttributeValues", F_ATTRIBUTE_MAP                                               \
    }
#define RETURN_ON_FAILURE_FIELD                                                                    \
    {                                                                                              \
        "ReturnValuesOnConditionCheckFailure", F_STRING, .choices = return_on_failure_choices      \
    }

static const struct field condition_check_fields[] = {
    {"ConditionExpression", F_STRING, .required = true},
    EXPRESSION_NAMES_FIELD,
    EXPRESSION_VALUES_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    RETURN_ON_FAILURE_FIELD,
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

static const struct field delete_fields[] = {
    {"ConditionExpression", F_STRING},
    EXPRESSION_NAMES_FIELD,
    EXPRESSION_VALUES_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    RETURN_ON_FAILURE_FIELD,
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

static const struct field put_fields[] = {
    {"ConditionExpression", F_STRING},
    EXPRESSION_NAMES_FIELD,
    EXPRESSION_VALUES_FIELD,
    {"Item", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    RETURN_ON_FAILURE_FIELD,
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

static const struct field update_fields[] = {
    {"ConditionExpression", F_STRING},
    EXPRESSION_NAMES_FIELD,
    EXPRESSION_VALUES_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    RETURN_ON_FAILURE_FIELD,
    SHAPE_TABLE_NAME_FIELD,
    {"UpdateExpression", F_STRING, .required = true},
    {0},
};

static const struct field transact_write_item_fields[] = {
    {"ConditionCheck", F_STRUCT, .shape_name = "ConditionCheck",
     .children = condition_check_fields},
    {"Delete", F_STRUCT, .shape_name = "Delete", .children = delete_fields},
    {"Put", F_STRUCT, .shape_name = "Put", .children = put_fields},
    {"Update", F_STRUCT, .shape_name = "Update", .children = update_fields},
    {0},
};

static const struct field transact_write_item = {
    .type = F_STRUCT, .shape_name = "TransactWriteItem", .children = transact_write_item_fields};

const struct field transact_write_items_fields[] = {
    {"ClientRequestToken", F_STRING, .min_len = 1, .max_len = 36},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ReturnItemCollectionMetrics", F_STRING, .choices = return_metrics_choices},
    {"TransactItems", F_LIST, .required = true, .min_len = 1, .max_len = DDB_MAX_TRANSACT_ITEMS,
     .member = &transact_write_item},
    {0},
};

static const struct field get_fields[] = {
    EXPRESSION_NAMES_FIELD,
    {"Key", F_ATTRIBUTE_MAP, .required = true, .key = &shape_attribute_name},
    {"ProjectionExpression", F_STRING},
    SHAPE_TABLE_NAME_FIELD,
    {0},
};

static const struct field transact_get_item_fields[] = {
    {"Get", F_STRUCT, .required = true, .shape_name = "Get", .children = get_fields},
    {0},
};

static const struct field transact_get_item = {
    .type = F_STRUCT, .shape_name = "TransactGetItem", .children = transact_get_item_fields};

const struct field transact_get_items_fields[] = {
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"TransactItems", F_LIST, .required = true, .min_len = 1, .max_len = DDB_MAX_TRANSACT_ITEMS,
     .member = &transact_get_item},
    {0},
};

/* ------------------------------------------------------------------------ */
/* decoded actions                                                           */
/* ------------------------------------------------------------------------ */

/* One action and everything it owns. expr_ctx borrows names/values, so
 * actions live in an array that is never reallocated. */
struct action {
    struct write_op op;        /* op.key, op.put_item, op.condition, op.update point below */
    struct get_op get;         /* TransactGetItems */
    struct expr_params params; /* the action's own names and values */
    struct expr *condition;
    struct expr *update;
    struct expr *projection;
};

struct transact_args {
    struct action *actions; /* owned, count entries */
    size_t count;
    enum return_capacity capacity;
    bool collection_metrics; /* ReturnItemCollectionMetrics SIZE */
};

static void action_clear(struct action *a)
{
    item_unref(a->op.put_item);
    value_clear(&a->op.key);
    value_clear(&a->get.key);
    expr_free(a->condition);
    expr_free(a->update);
    expr_free(a->projection);
    expr_params_clear(&a->params);
    memset(a, 0, sizeof *a);
}

static void transact_args_init(struct transact_args *args, size_t count)
{
    memset(args, 0, sizeof *args);
    args->count = count;
    args->actions = xcalloc(count ? count : 1, sizeof *args->actions);
    for (size_t i = 0; i < count; i++) {
        value_init_null(&args->actions[i].op.key);
        value_init_null(&args->actions[i].get.key);
        expr_params_init(&args->actions[i].params);
    }
}

static void transact_args_clear(struct transact_args *args)
{
    for (size_t i = 0; i < args->count; i++)
        action_clear(&args->actions[i]);
    free(args->actions);
    memset(args, 0, sizeof *args);
}

/* ------------------------------------------------------------------------ */
/* shared decoding                                                           */
/* ------------------------------------------------------------------------ */

/* The expressions of each action type, for the expression-parameter rules
 * (expr_params.h): ExpressionAttributeNames needs one of them,
 * ExpressionAttributeValues one that is not a projection ("...: UpdateExpression
 * and ConditionExpression are null"). No action takes legacy parameters. */
static const char *const update_expressions[] = {"UpdateExpression", "ConditionExpression", NULL};
static const char *const condition_expressions[] = {"ConditionExpression", NULL};
static const char *const projection_expressions[] = {"ProjectionExpression", NULL};
static const char *const no_legacy[] = {NULL};

/* ------------------------------------------------------------------------ */
/* TransactWriteItems                                                        */
/* ------------------------------------------------------------------------ */

static const char *const action_names[] = {"Put", "Update", "Delete", "ConditionCheck"};
static const enum write_kind action_kinds[] = {WRITE_PUT, WRITE_UPDATE, WRITE_DELETE,
                                               WRITE_CONDITION_CHECK};

/*
 * The action of one TransactItems element: exactly one of Put, Update,
 * Delete, ConditionCheck. Texts as AWS sends them (moto's
 * tests/test_dynamodb exceptions, verified against AWS; paritysuite
 * transactWriteItems.test.ts for the empty element, whose text us-east-1
 * still sends while some regions have moved to a generic constraint message).
 */
static int find_action(const json_t *elem, size_t *which, const json_t **obj, struct ddb_error *err)
{
    size_t found = 0;

    for (size_t k = 0; k < 4; k++) {
        json_t *v = body_member(elem, action_names[k]);
        if (!v) continue;
        found++;
        *which = k;
        *obj = v;
    }
    if (found == 0)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid Request: TransactWriteRequest should contain Delete or Put "
                             "or Update request");
    if (found > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             "TransactItems can only contain one of Check, Put, Update or Delete");
    return 0;
}

/* Decodes one TransactItems element into a (write) action. */
static int decode_write_action(const json_t *elem, struct action *a, struct ddb_error *err)
{
    const json_t *obj = NULL;
    size_t which = 0;
    bool is_update;
    struct value attrs;

    if (find_action(elem, &which, &obj, err) != 0) return -1;
    a->op.kind = action_kinds[which];
    a->op.table_name = json_string_value(body_member(obj, "TableName"));
    a->op.return_old_on_condition_failure =
        body_member_is(obj, "ReturnValuesOnConditionCheckFailure", "ALL_OLD");
    if (a->op.kind == WRITE_PUT) {
        if (wire_item_from_json(body_member(obj, "Item"), &attrs, err) != 0) return -1;
        a->op.put_item = item_new(&attrs);
        if (item_check_size(a->op.put_item->size_bytes, ITEM_SIZE_GIVEN, err) != 0) return -1;
    } else {
        if (wire_value_map_from_json(body_member(obj, "Key"), &a->op.key, err) != 0) return -1;
    }
    is_update = a->op.kind == WRITE_UPDATE;
    if (expr_params_check_mix(obj, is_update ? update_expressions : condition_expressions,
                              no_legacy, err) != 0)
        return -1;
    if (expr_params_decode(obj, &a->params, err) != 0) return -1;
    if (is_update &&
        expr_params_parse(&a->params, obj, "UpdateExpression", EXPR_UPDATE, &a->update, err) != 0)
        return -1;
    if (expr_params_parse(&a->params, obj, "ConditionExpression", EXPR_CONDITION, &a->condition,
                          err) != 0)
        return -1;
    if (expr_params_check_unused(&a->params, err) != 0) return -1;
    a->op.condition = a->condition;
    a->op.update = a->update;
    return 0;
}

/* What an action sends: the whole item of a Put, the key of the others. */
static size_t action_payload_bytes(const struct action *a)
{
    return a->op.kind == WRITE_PUT ? a->op.put_item->size_bytes : item_attrs_size_bytes(&a->op.key);
}

/*
 * The aggregate size of a transaction is limited to 4 MB (API reference,
 * TransactWriteItems). It is the size of what the request carries, not of the
 * items it touches: deleting 5 MB of items in one transaction is allowed
 * (scylladb test_transact.py test_transact_write_items_delete_5MB, run
 * against AWS). The text, doubled as it is, is AWS's answer as recorded by a
 * client's test suite (a mocked eu-north-1 ValidationException).
 */
static int check_payload_size(const struct transact_args *args, struct ddb_error *err)
{
    size_t total = 0;

    for (size_t i = 0; i < args->count; i++)
        total += action_payload_bytes(&args->actions[i]);
    if (total > DDB_MAX_TRANSACT_BYTES)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Transaction payload size cannot exceed 4MB. Payload Size: : "
                             "Transaction payload size cannot exceed 4MB. Payload Size: %zu",
                             total);
    return 0;
}

/* ---- ClientRequestToken digest ---- */

/* A copy of v without null members anywhere (null is absent, STYLE B10). */
static json_t *without_nulls(json_t *v)
{
    const char *key;
    size_t key_len;
    json_t *elem, *out;
    size_t i;

    if (json_is_object(v)) {
        out = json_object();
        json_object_keylen_foreach(v, key, key_len, elem)
        {
            if (!json_is_null(elem)) json_object_setn_new(out, key, key_len, without_nulls(elem));
        }
        return out;
    }
    if (json_is_array(v)) {
        out = json_array();
        json_array_foreach(v, i, elem) json_array_append_new(out, without_nulls(elem));
        return out;
    }
    return json_incref(v);
}

/* Two independent 64-bit FNV-1a variants and the length: collisions between
 * two requests of one client token within 10 minutes are not a practical
 * concern, and storage only compares digests for equality. */
static char *digest_text(const char *s, size_t len)
{
    uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
    char *out = xmalloc(64);

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        a = (a ^ c) * 0x100000001b3ULL;
        b = (b ^ c ^ (b >> 29)) * 0x9e3779b97f4a7c15ULL;
    }
    snprintf(out, 64, "%016" PRIx64 "%016" PRIx64 "-%zu", a, b, len);
    return out;
}

/* The digest of the request parameters that make two requests "the same" for
 * a ClientRequestToken (see the file comment); owned by the caller.
 * ExecuteTransaction (op_partiql.c) uses it too. */
char *transact_request_digest(json_t *body)
{
    json_t *canon = without_nulls(body);
    char *text, *digest;

    json_object_del(canon, "ClientRequestToken");
    json_object_del(canon, "ReturnConsumedCapacity");
    json_object_del(canon, "ReturnItemCollectionMetrics");
    text = json_dumps(canon, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text) abort(); /* allocation failure only: the body came from valid JSON */
    digest = digest_text(text, strlen(text));
    free(text);
    json_decref(canon);
    return digest;
}

/* ---- encoding ---- */

/* Writes "ConsumedCapacity": [one entry per table], unless mode is NONE. */
static void write_capacities(struct json_out *w, const struct consumed_capacity *caps, size_t count,
                             enum return_capacity mode)
{
    if (mode == RETURN_CAPACITY_NONE) return;
    json_out_key(w, "ConsumedCapacity");
    json_out_array_begin(w);
    for (size_t i = 0; i < count; i++) {
        if (wire_table_has_capacity(&caps[i], mode))
            wire_table_write_transact_capacity(w, &caps[i], mode);
    }
    json_out_array_end(w);
}

/* One item collection a transaction wrote: its table and metrics. */
struct written_collection {
    const char *table_name; /* borrowed from the action */
    struct item_collection_metrics metrics;
    bool repeated; /* an earlier action wrote the same collection */
};

/* The collections the actions wrote, in action order (tables without an LSI
 * have none); *count receives how many. Read after the commit. */
static struct written_collection *
written_collections(struct api_request *rq, const struct transact_args *args, size_t *count)
{
    struct written_collection *out = xcalloc(args->count ? args->count : 1, sizeof *out);
    size_t n = 0;

    for (size_t i = 0; i < args->count; i++) {
        const struct write_op *op = &args->actions[i].op;
        const struct value *attrs = op->kind == WRITE_PUT ? item_attrs(op->put_item) : &op->key;
        struct written_collection *c = &out[n];
        struct ddb_error gone = {0};

        if (op->kind == WRITE_CONDITION_CHECK) continue;
        /* The transaction has committed: a table deleted since simply has no metrics. */
        if (db_item_collection_metrics(rq->db, &rq->scope, op->table_name, attrs, &c->metrics,
                                       &gone) != 0 ||
            !c->metrics.present) {
            ddb_error_clear(&gone);
            value_clear(&c->metrics.key);
            continue;
        }
        c->table_name = op->table_name;
        for (size_t j = 0; j < i && !c->repeated; j++) {
            const struct write_op *prev = &args->actions[j].op;
            const struct value *pa =
                prev->kind == WRITE_PUT ? item_attrs(prev->put_item) : &prev->key;
            const struct attr *k = &c->metrics.key.u.map.attrs[0];
            const struct value *pv = value_map_get(pa, k->name, k->name_len);
            c->repeated = prev->kind != WRITE_CONDITION_CHECK &&
                          strcmp(prev->table_name, op->table_name) == 0 && pv &&
                          value_equal(pv, &k->value);
        }
        n++;
    }
    *count = n;
    return out;
}

/*
 * ItemCollectionMetrics of a successful transaction: per table with an LSI,
 * one entry per item collection the transaction wrote (ConditionChecks write
 * nothing), {"table": [{"ItemCollectionKey", "SizeEstimateRangeGB"}]}, tables
 * in the order of their first action. Left out when no table has any. The
 * estimate is a whole-gigabyte range, which a concurrent write cannot move in
 * any way a client could rely on.
 */
static void write_collection_metrics(struct json_out *w, struct api_request *rq,
                                     const struct transact_args *args)
{
    size_t count;
    struct written_collection *cols = written_collections(rq, args, &count);

    if (count) {
        json_out_key(w, "ItemCollectionMetrics");
        json_out_object_begin(w);
    }
    for (size_t i = 0; i < count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(cols[j].table_name, cols[i].table_name) == 0;
        if (seen) continue;
        json_out_key(w, cols[i].table_name);
        json_out_array_begin(w);
        for (size_t j = i; j < count; j++) {
            if (!cols[j].repeated && strcmp(cols[j].table_name, cols[i].table_name) == 0)
                wire_table_write_collection_metrics(w, &cols[j].metrics);
        }
        json_out_array_end(w);
    }
    if (count) json_out_object_end(w);
    for (size_t i = 0; i < count; i++)
        value_clear(&cols[i].metrics.key);
    free(cols);
}

/* TransactWriteItems: decode every action, one db_transact_write, encode. */
int op_transact_write_items(struct api_request *rq)
{
    json_t *items = body_member(rq->body, "TransactItems");
    const char *token = json_string_value(body_member(rq->body, "ClientRequestToken"));
    struct transact_args args;
    struct write_op *ops = NULL;
    struct consumed_capacity *caps = NULL;
    size_t cap_count = 0;
    char *digest = NULL;
    int rc = -1;

    transact_args_init(&args, json_array_size(items));
    args.capacity = body_return_capacity(rq->body);
    args.collection_metrics = body_member_is(rq->body, "ReturnItemCollectionMetrics", "SIZE");
    for (size_t i = 0; i < args.count; i++) {
        if (decode_write_action(json_array_get(items, i), &args.actions[i], &rq->err) != 0)
            goto out;
    }
    if (check_payload_size(&args, &rq->err) != 0) goto out;
    ops = xcalloc(args.count, sizeof *ops);
    for (size_t i = 0; i < args.count; i++)
        ops[i] = args.actions[i].op;
    if (token) digest = transact_request_digest(rq->body);
    if (db_transact_write(rq->db, &rq->scope, ops, args.count, token, digest, args.capacity, &caps,
                          &cap_count, &rq->failure, &rq->err) != 0)
        goto out;
    json_out_object_begin(&rq->reply_body);
    write_capacities(&rq->reply_body, caps, cap_count, args.capacity);
    if (args.collection_metrics) write_collection_metrics(&rq->reply_body, rq, &args);
    json_out_object_end(&rq->reply_body);
    rc = 0;
out:
    for (size_t i = 0; i < cap_count; i++)
        consumed_capacity_clear(&caps[i]);
    free(caps);
    free(digest);
    free(ops);
    transact_args_clear(&args);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* TransactGetItems                                                          */
/* ------------------------------------------------------------------------ */

/* Decodes one Get: its key, and its projection with its names. */
static int decode_get_action(const json_t *elem, struct action *a, struct ddb_error *err)
{
    const json_t *obj = body_member(elem, "Get");

    a->get.table_name = json_string_value(body_member(obj, "TableName"));
    a->get.consistent_read = true;
    if (wire_value_map_from_json(body_member(obj, "Key"), &a->get.key, err) != 0) return -1;
    if (expr_params_check_mix(obj, projection_expressions, no_legacy, err) != 0) return -1;
    /* A Get has no ExpressionAttributeValues member: one sent anyway is
     * ignored, like every unknown member. */
    if (expr_params_decode_names(obj, &a->params, err) != 0) return -1;
    if (expr_params_parse(&a->params, obj, "ProjectionExpression", EXPR_PROJECTION, &a->projection,
                          err) != 0)
        return -1;
    return expr_params_check_unused(&a->params, err);
}

/* Writes {"Item": ...} projected when asked, or {} for an item that does not exist. */
static void write_get_response(struct json_out *w, const struct action *a, const struct item *item)
{
    json_out_object_begin(w);
    if (item) {
        json_out_key(w, "Item");
        wire_write_projected_item(w, item, a->projection);
    }
    json_out_object_end(w);
}

/* Writes {"ConsumedCapacity": [...], "Responses": [...]}. */
static void write_get_answer(struct json_out *w, const struct transact_args *args,
                             struct item *const *found, const struct consumed_capacity *caps,
                             size_t cap_count)
{
    json_out_object_begin(w);
    write_capacities(w, caps, cap_count, args->capacity);
    json_out_key(w, "Responses");
    json_out_array_begin(w);
    for (size_t i = 0; i < args->count; i++)
        write_get_response(w, &args->actions[i], found[i]);
    json_out_array_end(w);
    json_out_object_end(w);
}

/*
 * TransactGetItems: every Get read from one consistent state; Responses in
 * request order, {} for an item that does not exist (scylladb
 * test_transact.py test_transact_get_items_missing, run against AWS).
 */
int op_transact_get_items(struct api_request *rq)
{
    json_t *list = body_member(rq->body, "TransactItems");
    struct transact_args args;
    struct get_op *gets = NULL;
    struct item **found = NULL;
    struct consumed_capacity *caps = NULL;
    size_t cap_count = 0;
    int rc = -1;

    transact_args_init(&args, json_array_size(list));
    args.capacity = body_return_capacity(rq->body);
    for (size_t i = 0; i < args.count; i++) {
        if (decode_get_action(json_array_get(list, i), &args.actions[i], &rq->err) != 0) goto out;
    }
    gets = xcalloc(args.count, sizeof *gets);
    found = xcalloc(args.count, sizeof *found);
    for (size_t i = 0; i < args.count; i++)
        gets[i] = args.actions[i].get;
    if (db_transact_get(rq->db, &rq->scope, gets, args.count, args.capacity, found, &caps,
                        &cap_count, &rq->failure, &rq->err) != 0)
        goto out;
    write_get_answer(&rq->reply_body, &args, found, caps, cap_count);
    rc = 0;
out:
    for (size_t i = 0; found && i < args.count; i++)
        item_unref(found[i]);
    for (size_t i = 0; i < cap_count; i++)
        consumed_capacity_clear(&caps[i]);
    free(caps);
    free(found);
    free(gets);
    transact_args_clear(&args);
    return rc;
}
