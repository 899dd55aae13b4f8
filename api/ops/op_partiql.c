/*
 * op_partiql.c - ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
 *
 * Each handler decodes its statements (text, Parameters as attribute values,
 * ConsistentRead, ReturnValuesOnConditionCheckFailure), makes the storage
 * call that parses, plans and runs them (storage/partiql.c on top of the
 * language in storage/partiql/), and writes the answer:
 *
 *   ExecuteStatement      {"Items": [...], "NextToken", "LastEvaluatedKey",
 *                          "ConsumedCapacity"} - Items is present (maybe
 *                          empty) for every statement; writes fill it only
 *                          with RETURNING.
 *   BatchExecuteStatement {"Responses": [{"TableName", "Item"} or
 *                          {"TableName", "Error": {"Code", "Message", "Item"}}],
 *                          "ConsumedCapacity": [...]} - one response per
 *                          statement, in order; a failed statement does not
 *                          fail the others.
 *   ExecuteTransaction    {"Responses": [{"Item"}...]} for reads, and
 *                          "ConsumedCapacity": [...]; a failure of any
 *                          statement is TransactionCanceledException.
 *
 * NextToken is ours to define (AWS's is opaque): base64 of
 * {"q": query, "h": digest, "k": LastEvaluatedKey}, where the digest covers
 * the statement and its Parameters, so a token only continues the request
 * that produced it ("NextToken does not match request"; a token that is not
 * one of ours is "Invalid NextToken" - DynamoDB Local's texts).
 *
 * Everything decoded for a request lives in struct statements and is freed
 * in one place.
 */
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_table.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/engine/db.h"
#include "storage/engine/db_partiql.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* request shapes (API reference: ExecuteStatement, BatchExecuteStatement,   */
/* ExecuteTransaction)                                                       */
/* ------------------------------------------------------------------------ */

#define MAX_STATEMENT_LEN  8192
#define MAX_NEXT_TOKEN_LEN 32768

static const char *const return_on_failure_choices[] = {"ALL_OLD", "NONE", NULL};
static const struct field attribute_value = {.type = F_ATTRIBUTE_VALUE};

#define STATEMENT_FIELD                                                                            \
    {                                                                                              \
        "Statement", F_STRING, .required = true, .min_len = 1, .max_len = MAX_STATEMENT_LEN        \
    }
#define PARAMETERS_FIELD                                                                           \
    {                                                                                              \
        "Parameters", F_LIST, .min_len = 1, .member = &attribute_value                             \
    }
#define RETURN_ON_FAILURE_FIELD                                                                    \
    {                                                                                              \
        "ReturnValuesOnConditionCheckFailure", F_STRING, .choices = return_on_failure_choices      \
    }

const struct field execute_statement_fields[] = {
    STATEMENT_FIELD,
    PARAMETERS_FIELD,
    {"ConsistentRead", F_BOOLEAN},
    {"NextToken", F_STRING, .min_len = 1, .max_len = MAX_NEXT_TOKEN_LEN},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"Limit", F_INTEGER, .has_min = true, .min_value = 1},
    RETURN_ON_FAILURE_FIELD,
    {0},
};

static const struct field batch_statement_fields[] = {
    STATEMENT_FIELD, PARAMETERS_FIELD, {"ConsistentRead", F_BOOLEAN}, RETURN_ON_FAILURE_FIELD, {0},
};
static const struct field batch_statement = {
    .type = F_STRUCT, .shape_name = "BatchStatementRequest", .children = batch_statement_fields};

const struct field batch_execute_statement_fields[] = {
    {"Statements", F_LIST, .required = true, .min_len = 1, .max_len = DDB_MAX_BATCH_STATEMENTS,
     .member = &batch_statement},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {0},
};

static const struct field parameterized_statement_fields[] = {
    STATEMENT_FIELD,
    PARAMETERS_FIELD,
    RETURN_ON_FAILURE_FIELD,
    {0},
};
static const struct field parameterized_statement = {.type = F_STRUCT,
                                                     .shape_name = "ParameterizedStatement",
                                                     .children = parameterized_statement_fields};

const struct field execute_transaction_fields[] = {
    {"TransactStatements", F_LIST, .required = true, .min_len = 1,
     .max_len = DDB_MAX_TRANSACT_ITEMS, .member = &parameterized_statement},
    {"ClientRequestToken", F_STRING, .min_len = 1, .max_len = 36},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {0},
};

/* ------------------------------------------------------------------------ */
/* decoded statements                                                        */
/* ------------------------------------------------------------------------ */

struct statements {
    struct partiql_statement *sts;
    struct value **params; /* owned, parallel to sts */
    size_t count;
};

static void statements_clear(struct statements *s)
{
    for (size_t i = 0; i < s->count; i++) {
        for (size_t k = 0; k < s->sts[i].param_count; k++)
            value_clear(&s->params[i][k]);
        free(s->params[i]);
    }
    free(s->params);
    free(s->sts);
    memset(s, 0, sizeof *s);
}

/* Decodes the statement objects of list (or the body itself when list is NULL). */
static int statements_decode(const json_t *list, const json_t *single, struct statements *s,
                             struct ddb_error *err)
{
    size_t n = list ? json_array_size(list) : 1;

    memset(s, 0, sizeof *s);
    s->sts = xcalloc(n, sizeof *s->sts);
    s->params = xcalloc(n, sizeof *s->params);
    for (size_t i = 0; i < n; i++) {
        const json_t *obj = list ? json_array_get(list, i) : single;
        const json_t *text = body_member(obj, "Statement");
        const json_t *params = body_member(obj, "Parameters");
        struct partiql_statement *st = &s->sts[i];
        size_t pc = json_array_size(params);

        s->count++;
        st->text = json_string_value(text);
        st->len = json_string_length(text);
        st->consistent_read = json_is_true(body_member(obj, "ConsistentRead"));
        st->return_old_on_condition_failure =
            body_member_is(obj, "ReturnValuesOnConditionCheckFailure", "ALL_OLD");
        s->params[i] = xcalloc(pc ? pc : 1, sizeof *s->params[i]);
        st->params = s->params[i];
        for (size_t k = 0; k < pc; k++) {
            if (wire_value_from_json(json_array_get(params, k), &s->params[i][k], err) != 0)
                return -1;
            st->param_count++;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* NextToken                                                                 */
/* ------------------------------------------------------------------------ */

/* A digest of the statement and its Parameters, as hex text. */
static void statement_digest(const json_t *body, char out[17])
{
    const json_t *text = body_member(body, "Statement");
    json_t *params = body_member(body, "Parameters");
    char *ptext = params ? json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    uint64_t h = 0xcbf29ce484222325ULL;
    const char *parts[2] = {json_string_value(text), ptext ? ptext : ""};
    size_t lens[2] = {json_string_length(text), ptext ? strlen(ptext) : 0};

    for (size_t p = 0; p < 2; p++) {
        for (size_t i = 0; i < lens[p]; i++)
            h = (h ^ (unsigned char) parts[p][i]) * 0x100000001b3ULL;
        h = (h ^ 0xff) * 0x100000001b3ULL;
    }
    free(ptext);
    snprintf(out, 17, "%016" PRIx64, h);
}

static char *next_token_encode(const json_t *body, const struct partiql_cursor *c)
{
    struct json_out w;
    char digest[17], *text, *token;
    size_t len;

    statement_digest(body, digest);
    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "q");
    json_out_integer(&w, (long long) c->query);
    json_out_key(&w, "h");
    json_out_string(&w, digest);
    if (c->key.type == VALUE_M) {
        json_out_key(&w, "k");
        wire_value_write_map(&w, &c->key);
    }
    json_out_object_end(&w);
    text = json_out_take(&w, &len);
    token = text_base64_encode_new(text, len);
    free(text);
    json_out_clear(&w);
    return token;
}

static int next_token_decode(const json_t *body, const char *token, struct partiql_cursor *c,
                             struct ddb_error *err)
{
    size_t len = strlen(token), raw_len;
    char *raw;
    json_t *obj = NULL, *q, *h, *k;
    char digest[17];
    int rc = -1;

    value_init_null(&c->key);
    if (!text_base64_valid(token, len) || !(raw = text_base64_decode(token, len, &raw_len)))
        return ddb_error_set(err, DDB_VALIDATION, "Invalid NextToken");
    obj = json_loadb(raw, raw_len, 0, NULL);
    free(raw);
    q = json_object_get(obj, "q");
    h = json_object_get(obj, "h");
    k = json_object_get(obj, "k");
    if (!json_is_object(obj) || !json_is_integer(q) || json_integer_value(q) < 0 ||
        !json_is_string(h) || (k && !json_is_object(k))) {
        ddb_error_set(err, DDB_VALIDATION, "Invalid NextToken");
        goto out;
    }
    statement_digest(body, digest);
    if (strcmp(digest, json_string_value(h)) != 0) {
        ddb_error_set(err, DDB_VALIDATION, "NextToken does not match request");
        goto out;
    }
    c->query = (size_t) json_integer_value(q);
    if (k) {
        struct ddb_error inner = {0};
        if (wire_value_map_from_json(k, &c->key, &inner) != 0) {
            ddb_error_clear(&inner);
            ddb_error_set(err, DDB_VALIDATION, "Invalid NextToken");
            goto out;
        }
    }
    rc = 0;
out:
    json_decref(obj);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* ExecuteStatement                                                          */
/* ------------------------------------------------------------------------ */

static void write_items(struct json_out *w, const struct partiql_result *r)
{
    json_out_key(w, "Items");
    json_out_array_begin(w);
    for (size_t i = 0; i < r->count; i++)
        wire_write_stored_item(w, r->items[i]);
    json_out_array_end(w);
}

int op_execute_statement(struct api_request *rq)
{
    struct statements s;
    struct partiql_result res;
    struct partiql_cursor resume;
    const json_t *body = rq->body;
    const char *token = body_member_str(body, "NextToken");
    json_t *limit = body_member(body, "Limit");
    enum return_capacity mode = body_return_capacity(body);
    struct json_out *w = &rq->reply_body;
    int rc = -1;

    memset(&res, 0, sizeof res);
    value_init_null(&res.next.key);
    value_init_null(&resume.key);
    resume.query = 0;
    if (statements_decode(NULL, body, &s, &rq->err) != 0) goto out;
    s.sts[0].return_old_on_condition_failure =
        body_member_is(body, "ReturnValuesOnConditionCheckFailure", "ALL_OLD");
    if (token && next_token_decode(body, token, &resume, &rq->err) != 0) goto out;
    if (db_execute_statement(rq->db, &rq->scope, &s.sts[0],
                             limit ? (int64_t) json_integer_value(limit) : 0,
                             token ? &resume : NULL, mode, &res, &rq->failure, &rq->err) != 0)
        goto out;
    json_out_object_begin(w);
    write_items(w, &res);
    if (res.has_next) {
        char *next = next_token_encode(body, &res.next);
        json_out_key(w, "NextToken");
        json_out_string(w, next);
        free(next);
        if (res.next.key.type == VALUE_M) {
            json_out_key(w, "LastEvaluatedKey");
            wire_value_write_map(w, &res.next.key);
        }
    }
    wire_table_write_capacity_member(w, &res.capacity, mode);
    json_out_object_end(w);
    rc = 0;
out:
    partiql_result_clear(&res);
    value_clear(&resume.key);
    statements_clear(&s);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* BatchExecuteStatement                                                     */
/* ------------------------------------------------------------------------ */

/* BatchStatementError's Code for an error (BatchStatementErrorCodeEnum). */
static const char *batch_error_code(enum ddb_error_code code)
{
    switch (code) {
    case DDB_CONDITIONAL_CHECK_FAILED: return "ConditionalCheckFailed";
    case DDB_DUPLICATE_ITEM: return "DuplicateItem";
    case DDB_RESOURCE_NOT_FOUND: return "ResourceNotFound";
    case DDB_ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED: return "ItemCollectionSizeLimitExceeded";
    case DDB_TRANSACTION_CONFLICT: return "TransactionConflict";
    case DDB_PROVISIONED_THROUGHPUT_EXCEEDED: return "ProvisionedThroughputExceeded";
    case DDB_THROTTLING: return "ThrottlingError";
    case DDB_VALIDATION: return "ValidationError";
    default: return "InternalServerError";
    }
}

/* One ConsumedCapacity entry per table: adds c into the list. */
static void add_capacity(struct consumed_capacity **list, size_t *count,
                         const struct consumed_capacity *c)
{
    struct consumed_capacity *d = NULL;
    if (!c->table_name) return;
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*list)[i].table_name, c->table_name) == 0) d = &(*list)[i];
    if (!d) {
        *list = xrealloc(*list, (*count + 1) * sizeof **list);
        d = &(*list)[(*count)++];
        memset(d, 0, sizeof *d);
        d->table_name = xstrdup(c->table_name);
    }
    d->read_units += c->read_units;
    d->write_units += c->write_units;
    d->table_read_units += c->table_read_units;
    d->table_write_units += c->table_write_units;
    for (size_t i = 0; i < c->index_count; i++) {
        struct index_capacity *ic = NULL;
        for (size_t j = 0; j < d->index_count; j++)
            if (strcmp(d->indexes[j].index_name, c->indexes[i].index_name) == 0)
                ic = &d->indexes[j];
        if (!ic) {
            d->indexes = xrealloc(d->indexes, (d->index_count + 1) * sizeof *d->indexes);
            ic = &d->indexes[d->index_count++];
            memset(ic, 0, sizeof *ic);
            ic->index_name = xstrdup(c->indexes[i].index_name);
            ic->is_global = c->indexes[i].is_global;
        }
        ic->read_units += c->indexes[i].read_units;
        ic->write_units += c->indexes[i].write_units;
    }
}

static void write_capacity_list(struct json_out *w, struct consumed_capacity *caps, size_t count,
                                enum return_capacity mode, bool transactional)
{
    if (mode == RETURN_CAPACITY_NONE) return;
    json_out_key(w, "ConsumedCapacity");
    json_out_array_begin(w);
    for (size_t i = 0; i < count; i++) {
        if (!wire_table_has_capacity(&caps[i], mode)) continue;
        if (transactional)
            wire_table_write_transact_capacity(w, &caps[i], mode);
        else
            wire_table_write_capacity(w, &caps[i], mode);
    }
    json_out_array_end(w);
}

static void capacity_list_free(struct consumed_capacity *caps, size_t count)
{
    for (size_t i = 0; i < count; i++)
        consumed_capacity_clear(&caps[i]);
    free(caps);
}

int op_batch_execute_statement(struct api_request *rq)
{
    struct statements s;
    const json_t *body = rq->body;
    enum return_capacity mode = body_return_capacity(body);
    struct consumed_capacity *caps = NULL;
    size_t cap_count = 0;
    bool reads = false, writes = false;
    struct json_out *w = &rq->reply_body;
    int rc = -1;

    if (statements_decode(body_member(body, "Statements"), NULL, &s, &rq->err) != 0) goto out;
    /* A batch is all reads (BatchGetItem) or all writes (BatchWriteItem). */
    for (size_t i = 0; i < s.count; i++) {
        struct ddb_error ignored = {0};
        bool is_read;
        if (db_partiql_is_read(&s.sts[i], &is_read, &ignored) != 0) {
            ddb_error_clear(&ignored);
            continue;
        }
        *(is_read ? &reads : &writes) = true;
    }
    if (reads && writes) {
        ddb_error_set(&rq->err, DDB_VALIDATION,
                      "Unsupported operation: Batch must consist of either all read statements or "
                      "all write statements");
        goto out;
    }
    json_out_object_begin(w);
    json_out_key(w, "Responses");
    json_out_array_begin(w);
    for (size_t i = 0; i < s.count; i++) {
        struct partiql_result res;
        struct failure_details failure = {0};
        struct ddb_error err = {0};
        int ok = db_batch_statement(rq->db, &rq->scope, &s.sts[i], mode, &res, &failure, &err);

        json_out_object_begin(w);
        if (res.table_name) {
            json_out_key(w, "TableName");
            json_out_string(w, res.table_name);
        }
        if (ok == 0) {
            if (res.is_read && res.count) {
                json_out_key(w, "Item");
                wire_write_stored_item(w, res.items[0]);
            }
            add_capacity(&caps, &cap_count, &res.capacity);
        } else {
            json_out_key(w, "Error");
            json_out_object_begin(w);
            json_out_key(w, "Code");
            json_out_string(w, batch_error_code(err.code));
            json_out_key(w, "Message");
            json_out_string(w, err.message ? err.message : "");
            if (failure.item) {
                json_out_key(w, "Item");
                wire_write_stored_item(w, failure.item);
            }
            json_out_object_end(w);
        }
        json_out_object_end(w);
        failure_details_clear(&failure);
        ddb_error_clear(&err);
        partiql_result_clear(&res);
    }
    json_out_array_end(w);
    write_capacity_list(w, caps, cap_count, mode, false);
    json_out_object_end(w);
    rc = 0;
out:
    capacity_list_free(caps, cap_count);
    statements_clear(&s);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* ExecuteTransaction                                                        */
/* ------------------------------------------------------------------------ */

int op_execute_transaction(struct api_request *rq)
{
    struct statements s;
    json_t *body = rq->body;
    enum return_capacity mode = body_return_capacity(body);
    const char *token = body_member_str(body, "ClientRequestToken");
    struct partiql_result *res = NULL;
    struct consumed_capacity *caps = NULL;
    size_t cap_count = 0;
    char *digest = NULL;
    struct json_out *w = &rq->reply_body;
    int rc = -1;

    if (statements_decode(body_member(body, "TransactStatements"), NULL, &s, &rq->err) != 0)
        goto out;
    res = xcalloc(s.count, sizeof *res);
    if (token) digest = transact_request_digest(body);
    if (db_execute_transaction(rq->db, &rq->scope, s.sts, s.count, token, digest, mode, res, &caps,
                               &cap_count, &rq->failure, &rq->err) != 0)
        goto out;
    json_out_object_begin(w);
    if (s.count && res[0].is_read) {
        json_out_key(w, "Responses");
        json_out_array_begin(w);
        for (size_t i = 0; i < s.count; i++) {
            json_out_object_begin(w);
            if (res[i].count) {
                json_out_key(w, "Item");
                wire_write_stored_item(w, res[i].items[0]);
            }
            json_out_object_end(w);
        }
        json_out_array_end(w);
    }
    write_capacity_list(w, caps, cap_count, mode, true);
    json_out_object_end(w);
    rc = 0;
out:
    for (size_t i = 0; res && i < s.count; i++)
        partiql_result_clear(&res[i]);
    free(res);
    capacity_list_free(caps, cap_count);
    free(digest);
    statements_clear(&s);
    return rc;
}
