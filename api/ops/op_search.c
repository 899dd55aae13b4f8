/*
 * op_search.c - SearchVectors: the exact k-nearest search of a vector index.
 *
 * Decode (SearchVector's elements as values, TopK, the expressions with
 * their names and values), the request's own checks (TopK's service maximum),
 * one db_search_vectors, encode {"SearchResults": [{"Item", "Score"}],
 * "ConsumedCapacity": {"VectorSearchRequestBytes"}} (spec-24 3.2: no Count,
 * no LastEvaluatedKey; ConsumedCapacity is a VectorCapacity). Every rule that
 * needs the index runs in storage (engine/db_search.c).
 */
#include "api/ops/expr_params.h"
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db_search.h"

#include <stdlib.h>
#include <string.h>

static const struct field search_vector_element = {.type = F_ATTRIBUTE_VALUE};

/* SearchVectors request shape, members in the model's order (spec-24 3.1:
 * SearchVector 1..4096 elements, TopK at least 1 in the model). */
const struct field search_vectors_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    {"IndexName", F_STRING, .required = true, .min_len = 3, .max_len = DDB_MAX_TABLE_NAME_LEN,
     .pattern = SHAPE_TABLE_NAME_PATTERN},
    {"SearchVector", F_LIST, .required = true, .min_len = 1, .max_len = DDB_MAX_VECTOR_DIMENSIONS,
     .member = &search_vector_element},
    {"TopK", F_INTEGER, .required = true, .has_min = true, .min_value = 1},
    {"ReturnConsumedCapacity", F_STRING, .choices = shape_return_capacity_choices},
    {"ExpressionAttributeNames", F_MAP, .member = &shape_attribute_name},
    {"ExpressionAttributeValues", F_ATTRIBUTE_MAP},
    {"ProjectionExpression", F_STRING},
    {"SearchConditionExpression", F_STRING},
    {0},
};

struct search_args {
    struct search_op op;
    struct value *vector; /* owned: SearchVector's elements */
    size_t vector_count;
    struct expr_params params;
    struct expr *condition;
    struct expr *projection;
};

static void search_args_clear(struct search_args *a)
{
    for (size_t i = 0; i < a->vector_count; i++)
        value_clear(&a->vector[i]);
    free(a->vector);
    expr_free(a->condition);
    expr_free(a->projection);
    expr_params_clear(&a->params);
}

/* TopK's service range (AWS's agent toolkit quotes this text verbatim). */
static int check_top_k(const json_t *body, struct ddb_error *err)
{
    json_int_t k = body_member_int(body, "TopK");
    if (k > DDB_MAX_SEARCH_TOP_K)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Provided TopK value '%lld' is out of valid range. The value must be "
                             "between 1 and %d inclusive",
                             (long long) k, DDB_MAX_SEARCH_TOP_K);
    return 0;
}

static int decode_vector(const json_t *list, struct search_args *a, struct ddb_error *err)
{
    size_t i;
    json_t *e;

    a->vector = xcalloc(json_array_size(list) + 1, sizeof *a->vector);
    json_array_foreach(list, i, e)
    {
        if (wire_value_from_json(e, &a->vector[a->vector_count], err) != 0) return -1;
        a->vector_count++;
    }
    return 0;
}

static int decode_search(const json_t *body, struct search_args *a, struct ddb_error *err)
{
    if (check_top_k(body, err) != 0) return -1;
    if (expr_params_decode(body, &a->params, err) != 0) return -1;
    if (expr_params_parse(&a->params, body, "SearchConditionExpression", EXPR_CONDITION,
                          &a->condition, err) != 0)
        return -1;
    if (expr_params_parse(&a->params, body, "ProjectionExpression", EXPR_PROJECTION, &a->projection,
                          err) != 0)
        return -1;
    if (expr_params_check_unused(&a->params, err) != 0) return -1;
    if (decode_vector(body_member(body, "SearchVector"), a, err) != 0) return -1;
    a->op.table_name = body_member_str(body, "TableName");
    a->op.index_name = body_member_str(body, "IndexName");
    a->op.vector = a->vector;
    a->op.vector_count = a->vector_count;
    a->op.top_k = (size_t) body_member_int(body, "TopK");
    a->op.condition = a->condition;
    a->op.projection = a->projection;
    a->op.return_capacity = body_return_capacity(body);
    return 0;
}

static void write_results(struct json_out *w, const struct search_result *r)
{
    json_out_object_begin(w);
    json_out_key(w, "SearchResults");
    json_out_array_begin(w);
    for (size_t i = 0; i < r->count; i++) {
        json_out_object_begin(w);
        json_out_key(w, "Item");
        wire_write_stored_item(w, r->items[i]);
        json_out_key(w, "Score");
        json_out_real(w, r->scores[i]);
        json_out_object_end(w);
    }
    json_out_array_end(w);
    if (r->has_capacity) {
        json_out_key(w, "ConsumedCapacity");
        json_out_object_begin(w);
        json_out_key(w, "VectorSearchRequestBytes");
        json_out_real(w, r->request_bytes);
        json_out_object_end(w);
    }
    json_out_object_end(w);
}

/* SearchVectors: decode, one db_search_vectors, the results. */
int op_search_vectors(struct api_request *rq)
{
    struct search_args a;
    struct search_result result;
    int rc = -1;

    memset(&a, 0, sizeof a);
    memset(&result, 0, sizeof result);
    expr_params_init(&a.params);
    if (decode_search(rq->body, &a, &rq->err) != 0) goto out;
    if (db_search_vectors(rq->db, &rq->scope, &a.op, &result, &rq->err) != 0) goto out;
    write_results(&rq->reply_body, &result);
    rc = 0;
out:
    search_result_clear(&result);
    search_args_clear(&a);
    return rc;
}
