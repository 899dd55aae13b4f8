/*
 * op_query.c - Query and Scan.
 *
 * Each handler reads top to bottom (STYLE B6): the request's own checks in
 * the order AWS makes them, decoding as it goes into one struct read_args,
 * one db_query/db_scan call, then the answer. Checks that need the table
 * (index names, ExclusiveStartKey against the key schema, key conditions,
 * filters on key attributes) happen in storage/engine/read.c under the lock.
 *
 * Check order, as dynalite's validations/query.js and scan.js record it
 * against AWS (their tests list every message used here):
 *   Query: expression/legacy mixing -> Select rules -> QueryFilter ->
 *     AttributesToGet duplicates -> ExclusiveStartKey values -> "Either the
 *     KeyConditions or KeyConditionExpression ..." -> names/values and the
 *     three expressions (one expr_ctx, unused names/values last) ->
 *     KeyConditions -> their count.
 *   Scan: mixing -> Select rules -> AttributesToGet duplicates -> ScanFilter
 *     -> ExclusiveStartKey values -> Segment/TotalSegments -> expressions.
 * The Select rules come from DynamoDB Local's PaginatingFunction.validateSelect
 * (the texts AWS sends); where they sit in AWS's order is not recorded, so
 * they run right after the mixing rule.
 *
 * Answer: Items (absent for Select COUNT), Count, ScannedCount,
 * LastEvaluatedKey when the page stopped early, ConsumedCapacity when asked.
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
#include "storage/expr/expr_legacy.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes                                                            */
/* ------------------------------------------------------------------------ */

/* Choice lists in the order AWS prints them (dynalite test/query.js, scan.js). */
static const char *const select_choices[] = {"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES",
                                             "ALL_PROJECTED_ATTRIBUTES", NULL};
static const char *const conditional_operator_choices[] = {"OR", "AND", NULL};
static const char *const comparison_operator_choices[] = {
    "IN",       "NULL", "BETWEEN", "LT",          "NOT_CONTAINS", "EQ",       "GT",
    "NOT_NULL", "NE",   "LE",      "BEGINS_WITH", "GE",           "CONTAINS", NULL};

static const struct field attribute_value = {.type = F_ATTRIBUTE_VALUE};

static const struct field condition_fields[] = {
    {"AttributeValueList", F_LIST, .member = &attribute_value},
    {"ComparisonOperator", F_STRING, .required = true, .choices = comparison_operator_choices},
    {0},
};
static const struct field condition = {
    .type = F_STRUCT, .shape_name = "Condition", .children = condition_fields};

#define INDEX_NAME_FIELD                                                                           \
    {                                                                                              \
        "IndexName", F_STRING, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,                    \
                               .pattern = SHAPE_TABLE_NAME_PATTERN                                 \
    }

/* Query request shape: every member of the model's QueryInput (shape.c
 * derives the order AWS lists violations in from the member names). */
const struct field query_fields[] = {
    {"Select", F_STRING, .choices = select_choices},
    INDEX_NAME_FIELD,
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"QueryFilter", F_MAP, .member = &condition, .key = &shape_attribute_name},
    SHAPE_TABLE_NAME_FIELD,
    {"ConditionalOperator", F_STRING, .choices = conditional_operator_choices},
    {"AttributesToGet", F_LIST, .min_len = 1, .member = &shape_attribute_name},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1, .unmodelled = true},
    {"KeyConditions", F_MAP, .member = &condition, .key = &shape_attribute_name},
    {"ExclusiveStartKey", F_ATTRIBUTE_MAP, .key = &shape_attribute_name},
    {"ConsistentRead", F_BOOLEAN},
    {"ScanIndexForward", F_BOOLEAN},
    {"KeyConditionExpression", F_STRING},
    {"FilterExpression", F_STRING},
    {"ProjectionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {0},
};

/* Scan request shape, same source ("incorrect attributes" in test/scan.js);
 * Segment and TotalSegments bounds from the API reference (0..999999,
 * 1..1000000). */
const struct field scan_fields[] = {
    {"Select", F_STRING, .choices = select_choices},
    INDEX_NAME_FIELD,
    {"TotalSegments", F_INTEGER, .has_min = true, .min_value = 1, .has_max = true,
     .max_value = DDB_MAX_SCAN_SEGMENTS},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    SHAPE_TABLE_NAME_FIELD,
    {"ConditionalOperator", F_STRING, .choices = conditional_operator_choices},
    {"ScanFilter", F_MAP, .member = &condition, .key = &shape_attribute_name},
    {"Segment", F_INTEGER, .has_min = true, .min_value = 0, .has_max = true,
     .max_value = DDB_MAX_SCAN_SEGMENTS - 1},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1},
    {"AttributesToGet", F_LIST, .min_len = 1, .member = &shape_attribute_name},
    {"ExclusiveStartKey", F_ATTRIBUTE_MAP, .key = &shape_attribute_name},
    {"ConsistentRead", F_BOOLEAN},
    {"FilterExpression", F_STRING},
    {"ProjectionExpression", F_STRING},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {0},
};

static const char *const query_expressions[] = {"ProjectionExpression", "FilterExpression",
                                                "KeyConditionExpression", NULL};
static const char *const query_legacy[] = {"AttributesToGet", "QueryFilter", "ConditionalOperator",
                                           "KeyConditions", NULL};
static const char *const scan_expressions[] = {"ProjectionExpression", "FilterExpression", NULL};
static const char *const scan_legacy[] = {"AttributesToGet", "ScanFilter", "ConditionalOperator",
                                          NULL};

/* ------------------------------------------------------------------------ */
/* decoded arguments                                                         */
/* ------------------------------------------------------------------------ */

/* Everything a Query or Scan decodes; freed by read_args_clear. */
struct read_args {
    struct read_page_op op;
    enum return_capacity capacity;
    struct expr_params params;
    struct value start_key;     /* ExclusiveStartKey (VALUE_M), or VALUE_NULL */
    struct expr *key_condition; /* owned */
    struct expr *filter;        /* owned */
    struct expr *projection;    /* owned */
};

static void read_args_init(struct read_args *a)
{
    memset(a, 0, sizeof *a);
    expr_params_init(&a->params);
    value_init_null(&a->start_key);
    a->op.scan_forward = true;
}

static void read_args_clear(struct read_args *a)
{
    expr_free(a->key_condition);
    expr_free(a->filter);
    expr_free(a->projection);
    value_clear(&a->start_key);
    expr_params_clear(&a->params);
}

static enum select_mode decode_select(const json_t *body)
{
    static const char *const names[] = {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES",
                                        "SPECIFIC_ATTRIBUTES", "COUNT", NULL};
    static const enum select_mode modes[] = {SELECT_ALL_ATTRIBUTES, SELECT_ALL_PROJECTED_ATTRIBUTES,
                                             SELECT_SPECIFIC_ATTRIBUTES, SELECT_COUNT};
    int i = body_member_choice(body, "Select", names);

    return i < 0 ? SELECT_DEFAULT : modes[i];
}

/* The members every Query and Scan has. */
static void decode_common(const json_t *body, struct read_args *a)
{
    json_t *limit = body_member(body, "Limit");

    a->op.table_name = json_string_value(body_member(body, "TableName"));
    a->op.index_name = json_string_value(body_member(body, "IndexName"));
    a->op.select = decode_select(body);
    a->op.consistent_read = json_is_true(body_member(body, "ConsistentRead"));
    if (limit) a->op.limit = body_number_int(limit);
    a->capacity = body_return_capacity(body);
}

/*
 * Select against the projection parameters and IndexName (DynamoDB Local
 * PaginatingFunction.validateSelect; the COUNT texts are
 * OBTAINING_COUNT_AND_ATTRIBUTES / _PROJECTIONEXPRESSION). Query's COUNT with
 * ProjectionExpression carries the model validator's "1 validation error
 * detected: " prefix and Scan's does not (ExtendDB's parity tests, verified
 * against us-east-1).
 */
static int check_select(const json_t *body, const struct read_args *a, bool is_query,
                        struct ddb_error *err)
{
    bool has_atg = body_member(body, "AttributesToGet") != NULL;
    bool has_pe = body_member(body, "ProjectionExpression") != NULL;
    const char *what = has_atg ? "AttributesToGet" : "ProjectionExpression";

    switch (a->op.select) {
    case SELECT_ALL_ATTRIBUTES:
    case SELECT_ALL_PROJECTED_ATTRIBUTES:
        if (has_atg || has_pe)
            return ddb_error_set(
                err, DDB_VALIDATION, "Cannot specify the %s when choosing to get %s", what,
                a->op.select == SELECT_ALL_ATTRIBUTES ? "ALL_ATTRIBUTES"
                                                      : "ALL_PROJECTED_ATTRIBUTES");
        if (a->op.select == SELECT_ALL_PROJECTED_ATTRIBUTES && !a->op.index_name)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using "
                                 "an IndexName");
        return 0;
    case SELECT_COUNT:
        if (has_atg)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Cannot specify the AttributesToGet when choosing to get only "
                                 "the Count");
        if (has_pe)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "%sCannot specify the ProjectionExpression when choosing to get "
                                 "only the Count",
                                 is_query ? "1 validation error detected: " : "");
        return 0;
    case SELECT_SPECIFIC_ATTRIBUTES:
        if (!has_atg && !has_pe)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Must specify the AttributesToGet or ProjectionExpression when "
                                 "choosing to get SPECIFIC_ATTRIBUTES");
        return 0;
    case SELECT_DEFAULT: return 0;
    }
    return 0;
}

/* A legacy condition map (KeyConditions, QueryFilter, ScanFilter) decoded:
 * conds point into names (the JSON keys, borrowed) and the owned values. */
struct legacy_map {
    struct legacy_condition *conds;
    size_t count;
    struct value **lists; /* owned AttributeValueLists, parallel to conds */
};

static void legacy_map_clear(struct legacy_map *m)
{
    for (size_t i = 0; i < m->count; i++) {
        for (size_t v = 0; v < m->conds[i].value_count; v++)
            value_clear(&m->lists[i][v]);
        free(m->lists[i]);
    }
    free(m->lists);
    free(m->conds);
    memset(m, 0, sizeof *m);
}

/* Decodes each condition's values (their own validation messages, as AWS
 * reports them for legacy conditions) in map order. */
static int legacy_map_decode(const json_t *map, struct legacy_map *m, struct ddb_error *err)
{
    const char *key;
    size_t key_len;
    json_t *cond;
    size_t n = json_object_size(map);

    memset(m, 0, sizeof *m);
    m->conds = xcalloc(n ? n : 1, sizeof *m->conds);
    m->lists = xcalloc(n ? n : 1, sizeof *m->lists);
    json_object_keylen_foreach((json_t *) map, key, key_len, cond)
    {
        struct legacy_condition *c = &m->conds[m->count];
        json_t *list = body_member(cond, "AttributeValueList");
        const char *op = json_string_value(body_member(cond, "ComparisonOperator"));
        size_t count = json_array_size(list);

        m->lists[m->count] = xcalloc(count ? count : 1, sizeof **m->lists);
        c->name = key;
        c->name_len = key_len;                       /* names may contain NUL */
        legacy_op_from_name(op, strlen(op), &c->op); /* the shape checked the enum */
        c->values = m->lists[m->count];
        m->count++;
        for (size_t i = 0; i < count; i++) {
            if (wire_value_from_json(json_array_get(list, i), &m->lists[m->count - 1][i], err) != 0)
                return -1;
            c->value_count++;
        }
    }
    return 0;
}

/* QueryFilter / ScanFilter into a->filter. */
static int decode_legacy_filter(const json_t *body, const char *param, struct read_args *a,
                                struct ddb_error *err)
{
    struct legacy_map m;
    json_t *map = body_member(body, param);
    int rc;

    if (!map) return 0;
    if (legacy_map_decode(map, &m, err) != 0) {
        legacy_map_clear(&m);
        return -1;
    }
    rc = expr_legacy_filter(m.conds, m.count, body_member_is(body, "ConditionalOperator", "OR"),
                            &a->filter, err);
    legacy_map_clear(&m);
    if (rc == 0 && a->filter) a->op.filter_param = param;
    return rc;
}

/*
 * ExclusiveStartKey's values. AWS prefixes most of their validation texts
 * with "The provided starting key is invalid: ", but not the number and set
 * content ones (dynalite test/query.js "invalid values in ExclusiveStartKey"
 * versus "... without provided message" and "empty/invalid numbers").
 */
static int decode_start_key(const json_t *body, struct read_args *a, struct ddb_error *err)
{
    static const char *const prefixed[] = {
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
        "supported datatypes",
        "One or more parameter values were invalid: Null attribute value types must have the "
        "value of true",
        "One or more parameter values were invalid: An string set  may not be empty",
        "One or more parameter values were invalid: Binary sets should not be empty",
        NULL,
    };
    json_t *esk = body_member(body, "ExclusiveStartKey");
    struct ddb_error inner = {0};

    if (!esk) return 0;
    if (wire_value_map_from_json(esk, &a->start_key, &inner) == 0) {
        a->op.exclusive_start_key = &a->start_key;
        return 0;
    }
    for (const char *const *p = prefixed; *p; p++) {
        if (inner.message && strcmp(inner.message, *p) == 0) {
            ddb_error_set(err, inner.code, "The provided starting key is invalid: %s", *p);
            ddb_error_clear(&inner);
            return -1;
        }
    }
    ddb_error_move(err, &inner);
    return -1;
}

/* ExpressionAttributeNames/Values and the expressions, in DynamoDB's order
 * (KeyConditionExpression, FilterExpression, ProjectionExpression), then the
 * unused check over all of them. */
static int decode_expressions(const json_t *body, struct read_args *a, bool is_query,
                              struct ddb_error *err)
{
    struct expr *filter = NULL;

    if (expr_params_decode(body, &a->params, err) != 0) return -1;
    if (is_query && expr_params_parse(&a->params, body, "KeyConditionExpression",
                                      EXPR_KEY_CONDITION, &a->key_condition, err) != 0)
        return -1;
    if (expr_params_parse(&a->params, body, "FilterExpression", EXPR_CONDITION, &filter, err) != 0)
        return -1;
    if (filter) {
        a->filter = filter;
        a->op.filter_param = "Filter Expression";
    }
    if (body_member(body, "ProjectionExpression") &&
        expr_params_parse(&a->params, body, "ProjectionExpression", EXPR_PROJECTION, &a->projection,
                          err) != 0)
        return -1;
    return expr_params_check_unused(&a->params, err);
}

/* KeyConditions into a->key_condition, and their count. */
static int decode_key_conditions(const json_t *body, struct read_args *a, struct ddb_error *err)
{
    struct legacy_map m;
    json_t *map = body_member(body, "KeyConditions");
    int rc;

    if (!map || a->key_condition) return 0;
    if (legacy_map_decode(map, &m, err) != 0) {
        legacy_map_clear(&m);
        return -1;
    }
    rc = expr_legacy_key_conditions(m.conds, m.count, &a->key_condition, err);
    legacy_map_clear(&m);
    if (rc != 0) return -1;
    if (json_object_size(map) != 1 && json_object_size(map) != 2)
        return ddb_error_set(err, DDB_VALIDATION, "Conditions can be of length 1 or 2 only");
    return 0;
}

/* The most a page's answer asks for before it is written (64 KB: the
 * largest block the thread's cache keeps, thread_cache.h). */
#define PAGE_ROOM_MAX (64u * 1024)

/* Items the page's writer asks for ahead of the one it writes. */
#define WRITE_AHEAD 2

/* Writes {"Items": [...], "Count", "ScannedCount", "LastEvaluatedKey", "ConsumedCapacity"}. */
static void write_page(struct json_out *w, const struct read_args *a, const struct read_page *page)
{
    json_out_object_begin(w);
    if (a->op.select != SELECT_COUNT) {
        /* Room for the whole page at once: an item's JSON is about 1.3 times
         * its encoding, so twice that rarely grows again. Growing from 1 KB
         * copied a Query's 12 KB page four times over (bench/README.md,
         * "A page's room at once"). At most PAGE_ROOM_MAX: a Scan's 1 MB
         * page asked for whole was slower than grown (realloc moves pages,
         * not bytes, past the thread cache's blocks). */
        size_t estimate = 256;
        for (size_t i = 0; i < page->count && estimate < PAGE_ROOM_MAX; i++)
            estimate += 2 * (size_t) page->items[i]->encoded_len;
        (void) json_out_room(w, estimate < PAGE_ROOM_MAX ? estimate : PAGE_ROOM_MAX);
        json_out_key(w, "Items");
        json_out_array_begin(w);
        for (size_t i = 0; i < page->count; i++) {
            /* The walk asked for every item's lines, but some have left the
             * first-level cache since: the first load of an item's string was
             * a seventh of the writer's time at 1M items (bench/README.md,
             * "The writer asks for its items again"). */
            if (i + WRITE_AHEAD < page->count) item_prefetch(page->items[i + WRITE_AHEAD]);
            wire_write_stored_item(w, page->items[i]);
        }
        json_out_array_end(w);
    }
    json_out_key(w, "Count");
    json_out_integer(w, (long long) page->count);
    json_out_key(w, "ScannedCount");
    json_out_integer(w, (long long) page->scanned_count);
    if (page->last_evaluated_key.type == VALUE_M) {
        json_out_key(w, "LastEvaluatedKey");
        wire_value_write_map(w, &page->last_evaluated_key);
    }
    wire_table_write_capacity_member(w, &page->capacity, a->capacity);
    json_out_object_end(w);
}

/* ------------------------------------------------------------------------ */
/* handlers                                                                  */
/* ------------------------------------------------------------------------ */

/* Query: the checks of the file comment, one db_query, the page. */
int op_query(struct api_request *rq)
{
    struct read_args a;
    struct read_page page;
    const json_t *body = rq->body;
    int rc = -1;

    read_args_init(&a);
    memset(&page, 0, sizeof page);
    value_init_null(&page.last_evaluated_key);
    decode_common(body, &a);
    if (body_member(body, "ScanIndexForward"))
        a.op.scan_forward = json_is_true(body_member(body, "ScanIndexForward"));
    if (expr_params_check_mix(body, query_expressions, query_legacy, &rq->err) != 0) goto out;
    if (check_select(body, &a, true, &rq->err) != 0) goto out;
    if (decode_legacy_filter(body, "QueryFilter", &a, &rq->err) != 0) goto out;
    if (expr_params_attributes_to_get(body_member(body, "AttributesToGet"), &a.projection,
                                      &rq->err) != 0)
        goto out;
    if (decode_start_key(body, &a, &rq->err) != 0) goto out;
    if (!body_member(body, "KeyConditions") && !body_member(body, "KeyConditionExpression")) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "Either the KeyConditions or KeyConditionExpression parameter must be "
                      "specified in the request.");
        goto out;
    }
    if (decode_expressions(body, &a, true, &rq->err) != 0) goto out;
    if (decode_key_conditions(body, &a, &rq->err) != 0) goto out;
    a.op.key_condition = a.key_condition;
    a.op.filter = a.filter;
    a.op.projection = a.projection;
    if (db_query(rq->db, &rq->scope, &a.op, a.capacity, &page, &rq->err) != 0) goto out;
    write_page(&rq->reply_body, &a, &page);
    rc = 0;
out:
    read_page_clear(&page);
    read_args_clear(&a);
    return rc;
}

/* Segment and TotalSegments go together, Segment below TotalSegments
 * (dynalite validations/scan.js; DynamoDB Local MISSING_SEGMENT et al.). */
static int decode_segments(const json_t *body, struct read_args *a, struct ddb_error *err)
{
    json_t *segment = body_member(body, "Segment"), *total = body_member(body, "TotalSegments");

    if (segment && !total)
        return ddb_error_set(err, DDB_VALIDATION,
                             "The TotalSegments parameter is required but was not present in the "
                             "request when Segment parameter is present");
    if (!total) return 0;
    if (!segment)
        return ddb_error_set(err, DDB_VALIDATION,
                             "The Segment parameter is required but was not present in the "
                             "request when parameter TotalSegments is present");
    a->op.segment = (uint32_t) json_number_value(segment);
    a->op.total_segments = (uint32_t) json_number_value(total);
    if (a->op.segment >= a->op.total_segments)
        return ddb_error_set(err, DDB_VALIDATION,
                             "The Segment parameter is zero-based and must be less than parameter "
                             "TotalSegments: Segment: %u is not less than TotalSegments: %u",
                             (unsigned) a->op.segment, (unsigned) a->op.total_segments);
    return 0;
}

/* Scan: the checks of the file comment, one db_scan, the page. */
int op_scan(struct api_request *rq)
{
    struct read_args a;
    struct read_page page;
    const json_t *body = rq->body;
    int rc = -1;

    read_args_init(&a);
    memset(&page, 0, sizeof page);
    value_init_null(&page.last_evaluated_key);
    decode_common(body, &a);
    if (expr_params_check_mix(body, scan_expressions, scan_legacy, &rq->err) != 0) goto out;
    if (check_select(body, &a, false, &rq->err) != 0) goto out;
    if (expr_params_attributes_to_get(body_member(body, "AttributesToGet"), &a.projection,
                                      &rq->err) != 0)
        goto out;
    if (decode_legacy_filter(body, "ScanFilter", &a, &rq->err) != 0) goto out;
    if (decode_start_key(body, &a, &rq->err) != 0) goto out;
    if (decode_segments(body, &a, &rq->err) != 0) goto out;
    if (decode_expressions(body, &a, false, &rq->err) != 0) goto out;
    a.op.filter = a.filter;
    a.op.projection = a.projection;
    if (db_scan(rq->db, &rq->scope, &a.op, a.capacity, &page, &rq->err) != 0) goto out;
    write_page(&rq->reply_body, &a, &page);
    rc = 0;
out:
    read_page_clear(&page);
    read_args_clear(&a);
    return rc;
}
